"""AppTest tests of the Policy Designer (pages/policy.py) and its helpers (studio.data_source).

Must-show (issue 3): changing a threshold changes the displayed reach and q to exactly the
engine's values (Adult age 7 -> 0.0192, q(0.03) 0.31; adding income -> 0.2); loading a
preset gives Table 3; a malformed CSV, an empty CSV, a one-column CSV, a non-numeric value in
a numeric column, an overlapping block partition and a negative threshold each give an
st.error naming the problem and no exception; the session's data are unchanged afterwards.
"""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from studio.flow import is_verdict

import blowfish_core as bc
from blowfish_core.privacy import accounting
from blowfish_core.model.policy import AttributePolicy, Policy
from studio import data_source as ds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "pages", "policy.py")
TIMEOUT = 60

GOOD_CSV = b"age,sex,score\n34,F,1.5\n51,M,2.5\n29,F,0.5\n62,M,3.0\n"


# ------------------------------------------------------------------ helpers
def page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def errors(at: AppTest) -> list[str]:
    """Error messages (a red verdict banner, studio.flow.verdict_banner, is not an error message)."""
    return [e.value for e in at.error if not is_verdict(e)]


def adult_without_table(at: AppTest) -> AppTest:
    at.radio(key="designer:source").set_value("adult").run()
    at.radio(key="designer:table:adult").set_value("none").run()
    assert not at.exception
    assert at.session_state["studio"].table_source == "none"
    return at


def studio(at: AppTest):
    return at.session_state["studio"]


def assert_clean_error(at: AppTest, *needles: str) -> None:
    assert not at.exception, [e.value for e in at.exception]
    msgs = errors(at)
    assert msgs, "expected an st.error"
    text = " ".join(msgs)
    for n in needles:
        assert n in text, (n, msgs)


# ------------------------------------------------------------ default page
def test_default_is_xor3_with_engine_numbers():
    at = page()
    s = studio(at)
    assert s.source == "xor3" and s.has_rows
    ro = at.session_state["designer:readout"]
    assert ro["reach"] == bc.record_reach(s.schema, s.policy) == pytest.approx(1 / 28)
    m = metrics(at)
    assert m["Record-level reach"] == "0.0357" and m["Noise ratio q"] == "0.53"
    assert m["Set by attribute"] == "X_1"
    # epsilon-first (issue 16): ONE epsilon, the session default, the other figures in its tooltip
    assert m["Privacy guarantee"] == "ε = 0.1 at δ = 10⁻⁵"
    assert "ε by Eq. (1)" not in m and "ε exact (Gaussian curve)" not in m
    tip = [mm for mm in at.metric if mm.label == "Privacy guarantee"][0].help
    assert "Eq. (1)" in tip and "ρ =" in tip
    assert not errors(at)


# ----------------------------------------------- must-show: threshold -> reach
def test_threshold_changes_reach_and_q_to_engine_values():
    at = adult_without_table(page())
    adult = bc.get_preset("adult")
    # the studio works without the table: read-outs plus a note that synthesis needs it
    assert any("Synthesis needs the table" in i.value for i in at.info)
    at.slider(key="pol:theta:age").set_value(14).run()
    ro = at.session_state["designer:readout"]
    assert ro["reach"] == bc.record_reach(adult.schema, adult.policy_with(["age=threshold:14"]))
    assert metrics(at)["Record-level reach"] == "0.0384"
    at.slider(key="pol:theta:age").set_value(7).run()
    assert studio(at).policy.to_dict() == adult.default_policy().to_dict()
    ro = at.session_state["designer:readout"]
    engine_r = bc.record_reach(adult.schema, adult.default_policy())
    assert ro["reach"] == engine_r and ro["q"] == bc.noise_ratio(engine_r, 0.03)
    m = metrics(at)
    assert m["Record-level reach"] == "0.0192" and m["Noise ratio q"] == "0.31"
    # protecting hours (8) keeps 0.0192; adding income drives reach to its full weight 0.2
    at.selectbox(key="pol:kind:hours.per.week").set_value("threshold").run()
    at.slider(key="pol:theta:hours.per.week").set_value(8).run()
    assert metrics(at)["Record-level reach"] == "0.0192"
    at.selectbox(key="pol:kind:income").set_value("complete").run()
    m = metrics(at)
    assert m["Record-level reach"] == "0.2000" and m["Set by attribute"] == "income"
    assert at.session_state["designer:readout"]["reach"] == bc.record_reach(
        adult.schema, adult.policy_with(["hours.per.week", "income"]))
    assert any("Remark 3" in w.value for w in at.warning)
    assert not errors(at)


def test_tau_slider_and_budget_inputs():
    at = adult_without_table(page())
    at.select_slider(key="tau").set_value(0.015).run()
    assert metrics(at)["Noise ratio q"] == "0.56" and at.session_state["tau"] == 0.015
    at.select_slider(key="tau").set_value(0.06).run()
    assert metrics(at)["Noise ratio q"] == "0.16"
    # rho in the "advanced" expander (issue 16: epsilon-first, rho for experts)
    at.toggle(key="designer:use_rho").set_value(True).run()
    at.number_input(key="designer:rho").set_value(6e-4).run()
    ro = at.session_state["designer:readout"]
    assert ro["budget"]["epsilon_eq1"] == pytest.approx(accounting.epsilon_eq1(6e-4, 1e-5))
    assert f"{ro['budget']['epsilon_eq1']:.3f}" == "0.167"  # ~0.17, now in the tooltip only
    assert metrics(at)["Privacy guarantee"] == f"ε = {accounting.epsilon_exact(6e-4, 1e-5):.2f} at δ = 10⁻⁵"
    assert metrics(at)["σ per round: BF-Soft"] == f"{ro['sigma']['bf-soft']:.4g}"
    assert studio(at).extras["budget"]["mode"] == "rho"
    at.toggle(key="designer:use_rho").set_value(False).run()
    at.select_slider(key="designer:eps").set_value(0.5).run()
    assert metrics(at)["Privacy guarantee"] == "ε = 0.5 at δ = 10⁻⁵"
    assert at.session_state["designer:readout"]["budget"]["epsilon_exact"] == pytest.approx(0.5, abs=1e-6)
    assert studio(at).extras["budget"]["mode"] == "epsilon"
    at.toggle(key="designer:use_rho").set_value(True).run()
    at.number_input(key="designer:rho").set_value(0.0).run()
    assert_clean_error(at, "rho")
    assert metrics(at)["Record-level reach"] == "0.0192"  # the policy read-outs stay


# --------------------------------------------------- must-show: Table 3
def test_load_preset_gives_table3():
    at = page()
    for name in ("xor3", "adult", "bank"):
        if name != "xor3":
            at.radio(key="designer:source").set_value(name).run()
            at.radio(key=f"designer:table:{name}").set_value("none").run()
        at.button(key="designer:load_t3").click().run()
        assert not at.exception and not errors(at)
        p = bc.get_preset(name)
        assert studio(at).policy.to_dict() == Policy(dict(p.table3)).to_dict()
        for attr, ap in p.table3.items():
            assert at.selectbox(key=f"pol:kind:{attr}").value == ap.kind
            if ap.kind == "threshold":
                assert at.slider(key=f"pol:theta:{attr}").value == ap.theta
        # a run after the load keeps Table 3 (the editors round-trip it exactly)
        at.run()
        assert studio(at).policy.to_dict() == Policy(dict(p.table3)).to_dict()
        at.button(key="designer:load_default").click().run()
        assert studio(at).policy.to_dict() == p.default_policy().to_dict()


def test_table3_warnings_and_pair_path_on_bank():
    at = page()
    at.radio(key="designer:source").set_value("bank").run()
    at.radio(key="designer:table:bank").set_value("none").run()
    at.button(key="designer:load_t3").click().run()
    warn = " ".join(w.value for w in at.warning)
    assert "'job' has 4 connected components" in warn and "'y' contributes its full weight 0.2" in warn
    at.selectbox(key="designer:pair_attr").set_value("job").run()
    at.selectbox(key=[k for k in at.session_state if str(k).startswith("designer:pair_v:job")][0]) \
        .set_value("retired").run()
    assert metrics(at)["Path length l"] == "no path"
    assert any("not protected from each other" in w.value for w in at.warning)


def test_pair_path_numeric_age():
    at = adult_without_table(page())
    at.toggle(key="designer:use_rho").set_value(True).run()  # rho = 1e-4 (advanced entry)
    at.number_input(key="designer:rho").set_value(1e-4).run()
    at.selectbox(key="designer:pair_attr").set_value("age").run()
    ukey = [k for k in at.session_state if str(k).startswith("designer:pair_u:age")][0]
    vkey = [k for k in at.session_state if str(k).startswith("designer:pair_v:age")][0]
    # integer attribute: whole-number defaults (17 and 35 on 17..90, not 35.25)
    assert at.number_input(key=ukey).value == 17 and at.number_input(key=vkey).value == 35
    assert isinstance(at.number_input(key=vkey).value, int)
    at.number_input(key=ukey).set_value(20).run()
    at.number_input(key=vkey).set_value(40).run()
    m = metrics(at)
    assert m["Path length l"] == "3" and m["ρ′ = l²·ρ (zCDP)"] == "0.0009"
    pp = at.session_state["designer:pair"]
    assert pp["rho_pair"] == pytest.approx(9e-4)
    # the valid figures for this Gaussian release come first: ε′ of l²ρ (exact curve, Eq. (1)) at δ
    assert m["ε′ exact"] == f"{accounting.epsilon_exact(9e-4, 1e-5):.3f}"
    assert m["ε′ Eq. (1)"] == f"{accounting.epsilon_eq1(9e-4, 1e-5):.3f}"
    labels = [mm.label for mm in at.metric]
    assert "l·ε" not in labels  # the pure-DP figure is no metric of its own ...
    cap = [c.value for c in at.caption if "l·ε" in c.value]
    assert cap and "pure ε-DP mechanism" in cap[0] and "not to this Gaussian (zCDP) release" in cap[0]
    assert f"{pp['epsilon_pair']:.3f}" in cap[0]  # ... only in a caption saying where it applies


def test_participation_toggle_floor():
    at = adult_without_table(page())
    at.toggle(key="pol:participation").set_value(True).run()
    assert studio(at).policy.participation
    assert metrics(at)["BF-Soft sensitivity bound"] == "1"
    assert any("Participation edges" in w.value for w in at.warning)


# -------------------------------------------------------- must-show: errors
def _csv_loaded(at: AppTest) -> AppTest:
    at.radio(key="designer:source").set_value("csv").run()
    at.file_uploader(key="designer:upload:csv").set_value(("good.csv", GOOD_CSV, "text/csv")).run()
    assert not at.exception and not errors(at)
    s = studio(at)
    assert s.source == "csv" and s.dataset_name == "good.csv"
    return at


BAD_UPLOADS = [
    ("malformed.csv", b'a,b\n1,"2\n3,4\n', "malformed CSV"),
    ("ragged.csv", b"a,b\n1,2,3,4\n3,4\n", "1 row(s) have 4 fields instead of 2 (row 2)"),
    ("empty.csv", b"", "the file is empty"),
    ("header_only.csv", b"a,b\n", "no data rows"),
    # a one-column table loads (issue 27: PWErr is skipped with a note; tests/app/test_app_messy_files.py)
]


def test_bad_uploads_give_st_error_and_keep_data():
    at = _csv_loaded(page())
    before = studio(at)
    snapshot = before.private.copy()
    for fname, raw, needle in BAD_UPLOADS:  # one session, one bad file after another
        at.file_uploader(key="designer:upload:csv").set_value((fname, raw, "text/csv")).run()
        assert_clean_error(at, needle)
        said = " ".join(errors(at) + [x.value for x in at.warning])  # intake problems: the load's note is a warning
        assert fname in said and "The previous dataset (good.csv) is still in use." in said, said
        after = studio(at)
        assert after is before and after.private.equals(snapshot)
        assert metrics(at)["Record-level reach"] == "0.0000"  # read-outs of the kept data still shown


def test_non_numeric_value_in_numeric_column_preset_upload():
    at = adult_without_table(page())
    before = studio(at)
    at.radio(key="designer:table:adult").set_value("upload").run()
    bad = (b"age,workclass,education.num,hours.per.week,income\n"
           b"39,State-gov,13,40,<=50K\nabc,Private,9,40,>50K\n")
    at.file_uploader(key="designer:upload:adult").set_value(("adult.csv", bad, "text/csv")).run()
    assert_clean_error(at, "column 'age'", "not numbers", "'abc'")
    assert studio(at) is before and studio(at).table_source == "none"


def test_non_numeric_value_in_numeric_column_schema_import():
    at = _csv_loaded(page())
    before = studio(at)
    schema = {"attributes": [{"name": "sex", "type": "numeric", "lo": 0, "hi": 1},
                             {"name": "age", "type": "numeric", "lo": 0, "hi": 120, "integer": True}]}
    at.text_area(key="designer:json_text").set_value(json.dumps(schema)).run()
    at.button(key="designer:apply_schema").click().run()
    assert_clean_error(at, "column 'sex'", "not numbers")
    assert studio(at) is before


def test_overlapping_block_partition_policy_import():
    at = adult_without_table(page())
    before = studio(at)
    pol = {"attributes": {"workclass": {"type": "block", "blocks": [
        ["Private", "Federal-gov"], ["Federal-gov", "Local-gov", "State-gov", "Self-emp-not-inc", "Self-emp-inc",
                                     "Without-pay", "Never-worked", "?"]]}}}
    at.text_area(key="designer:json_text").set_value(json.dumps(pol)).run()
    at.button(key="designer:apply_policy").click().run()
    assert_clean_error(at, "workclass", "Federal-gov", "must not overlap")
    assert studio(at) is before


def test_negative_threshold_policy_file_import():
    at = adult_without_table(page())
    before = studio(at)
    pol = json.dumps({"attributes": {"age": {"type": "threshold", "theta": -3}}}).encode()
    at.file_uploader(key="designer:import:policy").set_value(("policy.json", pol, "application/json")).run()
    assert_clean_error(at, "'age'", "threshold must be >= 0")
    assert studio(at) is before
    assert metrics(at)["Record-level reach"] == "0.0192"


def test_policy_and_schema_json_round_trip_via_import():
    at = adult_without_table(page())
    t3 = Policy(dict(bc.get_preset("adult").table3))
    at.text_area(key="designer:json_text").set_value(t3.to_json()).run()
    at.button(key="designer:apply_policy").click().run()
    assert not errors(at) and studio(at).policy.to_dict() == t3.to_dict()
    assert metrics(at)["Record-level reach"] == "0.2000"
    # exported JSON is exactly what the CLI reads
    assert bc.Policy.from_json(studio(at).policy.to_json()).to_dict() == t3.to_dict()
    assert bc.Schema.from_json(studio(at).schema.to_json()).to_dict() == studio(at).schema.to_dict()


# ------------------------------------------------------------- CSV + schema
def test_csv_upload_is_flagged_data_derived_and_replaceable():
    at = _csv_loaded(page())
    s = studio(at)
    assert s.schema.data_derived and set(s.schema.data_derived_columns) == {"age", "sex", "score"}
    assert any(":red[**Data-derived domain" in m.value for m in at.markdown)
    pd.testing.assert_frame_equal(s.private, pd.read_csv(pd.io.common.BytesIO(GOOD_CSV)), check_dtype=False)
    declared = {"attributes": [{"name": "age", "type": "numeric", "lo": 0, "hi": 120, "integer": True,
                                "unit": "years"},
                               {"name": "sex", "type": "binary", "levels": ["F", "M"]}]}
    at.text_area(key="designer:json_text").set_value(json.dumps(declared)).run()
    at.button(key="designer:apply_schema").click().run()
    assert not errors(at)
    s2 = studio(at)
    assert not s2.schema.data_derived and s2.schema.names == ["age", "sex"]
    assert not any(":red[**Data-derived domain" in m.value for m in at.markdown)
    at.selectbox(key="pol:kind:age").set_value("threshold").run()
    at.slider(key="pol:theta:age").set_value(12).run()
    assert metrics(at)["Record-level reach"] == "0.0500"  # 0.5 * 12 / 120
    assert studio(at).private is s.private  # the user's data are never modified


def test_paste_csv_path():
    at = page()
    at.radio(key="designer:source").set_value("csv").run()
    at.text_area(key="designer:paste:csv").set_value(GOOD_CSV.decode()).run()
    at.button(key="designer:paste_btn:csv").click().run()
    assert not errors(at) and studio(at).dataset_name == "pasted CSV"
    at.text_area(key="designer:paste:csv").set_value("").run()
    at.button(key="designer:paste_btn:csv").click().run()
    assert_clean_error(at, "empty")
    assert studio(at).dataset_name == "pasted CSV"


# ------------------------------------------------- helpers without AppTest
def test_schema_table_round_trip_and_declared_bounds():
    df = pd.read_csv(pd.io.common.BytesIO(GOOD_CSV))
    inferred, notes = ds.infer_editable_schema(df)
    assert notes == [] and inferred.data_derived
    table = ds.schema_table(df, inferred, inferred)
    back = ds.schema_from_table(table, df, inferred, inferred)
    assert back.to_dict() == inferred.to_dict()  # unchanged table = same (data-derived) schema
    table.loc[table["column"] == "age", ["lo", "hi"]] = [0.0, 120.0]
    table.loc[table["column"] == "sex", "declared public"] = True
    s = ds.schema_from_table(table, df, inferred, inferred)
    assert s.data_derived_columns == ["score"] and s["age"].hi == 120
    table.loc[table["column"] == "score", "model"] = False
    s = ds.schema_from_table(table, df, inferred, inferred)
    assert s.names == ["age", "sex"] and not s.data_derived


def test_schema_table_type_change_fills_and_flags():
    df = pd.DataFrame({"x": [0, 3, 7, 7], "y": ["a", "b", "a", "b"]})
    inferred, _ = ds.infer_editable_schema(df)
    table = ds.schema_table(df, inferred, inferred)
    table.loc[table["column"] == "x", "type"] = "ordinal"
    s = ds.schema_from_table(table, df, inferred, inferred)
    assert s["x"].kind == "ordinal" and s["x"].levels == [0, 3, 7] and "x" in s.data_derived_columns
    table.loc[table["column"] == "x", "levels"] = "0 | 1 | 2 | 3 | 4 | 5 | 6 | 7"
    s = ds.schema_from_table(table, df, inferred, inferred)
    assert s["x"].levels == list(range(8)) and s.data_derived_columns == ["y"]
    table.loc[table["column"] == "y", "type"] = "numeric"
    with pytest.raises(bc.SchemaError, match="column 'y': 4 row\\(s\\) are not numbers"):
        ds.schema_from_table(table, df, inferred, inferred)
    table.loc[table["column"] == "y", ["lo", "hi"]] = [0.0, 1.0]
    s = ds.schema_from_table(table, df, inferred, inferred)
    with pytest.raises(bc.SchemaError, match="not numbers"):
        ds.with_schema(ds.csv_studio(df, "t.csv")[0], s)
    table.loc[table["column"] == "y", "model"] = False  # one modelled column is enough (issue 27)
    assert ds.schema_from_table(table, df, inferred, inferred).names == ["x"]
    table.loc[table["column"] == "x", "model"] = False
    with pytest.raises(bc.SchemaError, match="no column is modeled"):
        ds.schema_from_table(table, df, inferred, inferred)


def test_with_schema_drops_policy_that_no_longer_fits():
    df = pd.read_csv(pd.io.common.BytesIO(GOOD_CSV))
    st_, _ = ds.csv_studio(df, "good.csv")
    st_ = ds.with_policy(st_, Policy({"age": AttributePolicy("threshold", 5),
                                      "sex": AttributePolicy("complete")}))
    schema = bc.Schema([bc.Attribute("age", "numeric", lo=0, hi=120, integer=True),
                        bc.Attribute("sex", "categorical", levels=["F", "M"]),
                        bc.Attribute("score", "numeric", lo=0, hi=5)])
    new, notes = ds.with_schema(st_, schema)
    assert set(new.policy.per_attribute) == {"age", "sex"} and notes == []
    schema2 = bc.Schema([bc.Attribute("age", "ordinal", levels=[29, 34, 51, 62]),
                         bc.Attribute("score", "numeric", lo=0, hi=5)])
    new, notes = ds.with_schema(new, schema2)
    assert set(new.policy.per_attribute) == {"age"} and "'sex'" in notes[0]
    assert st_.private is df  # never copied or modified


def test_preset_studio_without_table_and_with_upload():
    s = ds.preset_studio("adult", None)
    assert not s.has_rows and list(s.private.columns) == bc.get_preset("adult").schema.names
    rows = "age,workclass,education.num,hours.per.week,income\n" + "\n".join(
        f"{20 + i},Private,9,40,<=50K" for i in range(20))
    s2, _ = ds.handle_upload(rows.encode(), "adult.csv", "adult", s)
    assert s2.has_rows and len(s2.private) == 16 and s2.table_source == "upload"  # 80% private split
    # the command line's intake step (issue 27): the preset's columns are picked, so absent ones are named
    with pytest.raises(bc.DataError, match=r"are not in the table\. Columns: a, b"):
        ds.handle_upload(b"a,b\n1,2\n", "adult.csv", "adult", s)


# ------------------------------------------------- fresh-user trial fixes
def test_small_reach_keeps_significant_digits():
    from studio import widgets as w

    assert w.fmt_reach(0.0008333333) == "0.000833" and w.fmt_reach(4.1e-5) == "4.1e-05"
    assert w.fmt_reach(0.019178) == "0.0192" and w.fmt_reach(0.2) == "0.2000" and w.fmt_reach(0.0) == "0.0000"
    assert w.fmt_eps(0.0675) == "0.068" and w.fmt_eps(0.00123456) == "0.00123" and w.fmt_eps(None) == "—"
    # Bank, only balance protected (Table 3's threshold 500 euros): reach 0.000833, not 0.0000
    at = page()
    at.radio(key="designer:source").set_value("bank").run()
    at.radio(key="designer:table:bank").set_value("none").run()
    at.button(key="designer:clear").click().run()
    at.selectbox(key="pol:kind:balance").set_value("threshold").run()
    at.slider(key="pol:theta:balance").set_value(500.0).run()
    assert not errors(at)
    bank = bc.get_preset("bank")
    assert at.session_state["designer:readout"]["reach"] == bc.record_reach(
        bank.schema, Policy({"balance": AttributePolicy("threshold", 500)})) == pytest.approx(1 / 1200)
    m = metrics(at)
    assert m["Record-level reach"] == "0.000833" and m["Noise ratio q"] == "0.0139"


def test_graph_captions_singular_and_short_labels():
    at = adult_without_table(page())
    at.selectbox(key="pol:kind:income").set_value("complete").run()
    caps = [c.value for c in at.caption]
    assert "1 protected pair; 1 connected component." in caps
    at.button(key="designer:load_t3").click().run()
    caps = [c.value for c in at.caption]
    assert "7 protected pairs; 4 connected components." in caps
    from studio import widgets as w

    assert w.short_label("Self-emp-not-inc") == "Self-emp-n…" and w.short_label("Private") == "Private"
    p = bc.get_preset("adult")
    fig = w._graph_figure(json.dumps(
        __import__("blowfish_core.analysis.graphs", fromlist=["x"]).policy_graph_data(p.schema["workclass"],
                                                                               p.table3["workclass"])))
    nodes = fig.data[1]
    assert "Self-emp-n…" in nodes.text and "Self-emp-not-inc" in nodes.customdata  # full value on hover
    pos = dict(zip(nodes.customdata, nodes.textposition))
    assert pos["Self-emp-not-inc"] != pos["Self-emp-inc"]  # the 2-value cluster's labels on opposite sides


def test_failed_preset_upload_says_previous_dataset_kept():
    at = adult_without_table(page())
    name = studio(at).dataset_name
    at.radio(key="designer:table:adult").set_value("upload").run()
    at.file_uploader(key="designer:upload:adult").set_value(("adult.csv", b"a,b\n1,2\n", "text/csv")).run()
    assert_clean_error(at, "adult.csv", f"The previous dataset ({name}) is still in use.")
    assert studio(at).dataset_name == name


def test_schema_table_blank_cells_show_a_dash_not_none():
    df = pd.read_csv(pd.io.common.BytesIO(GOOD_CSV))
    inferred, _ = ds.infer_editable_schema(df)
    table = ds.schema_table(df, inferred, inferred)
    row = table.set_index("column")
    assert row.loc["sex", "lo"] == row.loc["sex", "hi"] == ds.BLANK == "—"  # not applicable
    assert row.loc["age", "weight"] == "—" and row.loc["age", "lo"] == "29" and row.loc["score", "lo"] == "0.5"
    assert not table.isna().any().any()  # no missing cell the grid would draw as "None"
    assert ds.schema_from_table(table, df, inferred, inferred).to_dict() == inferred.to_dict()
    table.loc[table["column"] == "age", ["lo", "hi", "weight"]] = ["0", "120", "n/a"]
    s = ds.schema_from_table(table, df, inferred, inferred)
    assert (s["age"].lo, s["age"].hi, s["age"].weight) == (0.0, 120.0, None)
    table.loc[table["column"] == "age", "lo"] = "ten"
    with pytest.raises(bc.SchemaError, match="column 'age': lo 'ten' is not a number"):
        ds.schema_from_table(table, df, inferred, inferred)


# ----------------------------------------- issue 24 item 10: inputs (threshold box, unit label)
def test_threshold_number_box_and_slider_share_one_key():
    """Bank balance spans 0..120,000 (hundreds per pixel): a number box beside the slider, in euros,
    seeded from the slider's key and writing it back (studio.state's one key per setting)."""
    at = page()
    at.radio(key="designer:source").set_value("bank").run()
    at.radio(key="designer:table:bank").set_value("none").run()
    at.button(key="designer:clear").click().run()
    at.selectbox(key="pol:kind:balance").set_value("threshold").run()
    box = at.number_input(key="pol:theta:balance:box")
    assert box.value == at.slider(key="pol:theta:balance").value
    box.set_value(437.0).run()
    assert not errors(at)
    assert at.slider(key="pol:theta:balance").value == 437.0       # THE key follows the typed value
    assert studio(at).policy.per_attribute["balance"].theta == 437.0
    bank = bc.get_preset("bank")
    assert at.session_state["designer:readout"]["reach"] == bc.record_reach(
        bank.schema, Policy({"balance": AttributePolicy("threshold", 437.0)}))
    at.slider(key="pol:theta:balance").set_value(500.0).run()
    assert at.number_input(key="pol:theta:balance:box").value == 500.0   # and the box follows the slider
    assert at.slider(key="pol:theta:balance").label == "Threshold for balance (euros)"


def test_uploaded_numeric_column_has_no_placeholder_unit():
    at = page()
    at.radio(key="designer:source").set_value("csv").run()
    at.file_uploader(key="designer:upload:csv").set_value(("u.csv", GOOD_CSV, "text/csv")).run()
    assert not at.exception
    at.selectbox(key="pol:kind:age").set_value("threshold").run()
    assert at.slider(key="pol:theta:age").label == "Threshold for age"
    assert "units" not in at.slider(key="pol:theta:age").help
    assert bc.Attribute("balance", "numeric", lo=0, hi=10).threshold_unit == ""
    assert bc.Attribute("age", "numeric", lo=0, hi=10, unit="years").threshold_unit == "years"
    assert AttributePolicy("threshold", 2).describe(bc.Attribute("score", "numeric", lo=0, hi=10)) == "threshold 2"


def test_delta_options_and_boxes_share_one_format():
    """δ is offered in one format everywhere (issue 24 item 10): the options as powers of ten (not '0.0001'
    beside '10⁻⁵'), the δ number boxes of the Run, Tune and sampler pages in one exponent form."""
    from blowfish_core.workflows.formatting import fmt_delta
    from studio.budget_ui import DELTA_FORMAT

    at = page()
    assert at.selectbox(key="designer:delta").options == ["10⁻⁴", "10⁻⁵", "10⁻⁶", "10⁻⁷", "10⁻⁸", "10⁻⁹"]
    at.selectbox(key="designer:delta").set_value(1e-4).run()
    assert metrics(at)["Privacy guarantee"].endswith("at δ = 10⁻⁴")
    assert [fmt_delta(d) for d in (1e-4, 1e-5, 2.5e-6, 0.0, None)] == ["10⁻⁴", "10⁻⁵", "2.5 × 10⁻⁶", "0", "—"]
    assert [DELTA_FORMAT % d for d in (1e-4, 1e-5)] == ["1.0e-04", "1.0e-05"]
    for page_file in ("run.py", "tune.py", "public_sampler.py"):
        src = open(os.path.join(ROOT, "pages", page_file), encoding="utf-8").read()
        assert 'number_input("δ"' in src and 'format=DELTA_FORMAT' in src, page_file


def test_schema_grid_declared_public_header_is_wide_enough():
    """The schema grid's 'declared public' header is not cut off: the page's editor gives the checkbox
    column a width that fits its label (about 8 px a character at the grid's font)."""
    at = page()
    at.radio(key="designer:source").set_value("csv").run()
    at.file_uploader(key="designer:upload:csv").set_value(("u.csv", GOOD_CSV, "text/csv")).run()
    cols = json.loads(at.get("dataframe")[0].proto.columns)
    pub = cols["declared public"]
    assert pub["label"] == "declared public" and pub["type_config"]["type"] == "checkbox"
    assert pub["width"] == 130 >= 8 * len(pub["label"]) + 10


def test_reach_chart_title_fits_above_the_plot():
    """The reach chart's title was cut off: a short left-aligned title, its key as a subtitle, and a top
    margin that holds both (issue 24 item 10)."""
    from studio import widgets as w

    for n in (3, 12):  # vertical and horizontal bars
        names = [f"a{i}" for i in range(n)]
        fig = w.reach_bar_figure({"per_attribute": {a: 0.01 * (i + 1) for i, a in enumerate(names)},
                                  "argmax_all": [names[-1]]})
        t = fig.layout.title
        assert t.text == "Weighted reach w_i r_i per attribute" and len(t.text) <= 40
        assert t.subtitle.text == "hatched red: sets the record-level reach (a max)"
        assert (t.x, t.xanchor, t.yref) == (0, "left", "container")
        assert fig.layout.margin.t == 75


def test_an_empty_policy_is_said_once():
    """Issue 27: 'the policy protects nothing' was the red verdict and again a read-out warning; now the
    verdict alone says it (the read-out keeps its other warnings)."""
    at = page()
    at.button(key="designer:clear").click().run()
    assert not at.exception
    said = [e.value for e in at.error] + [x.value for x in at.warning]
    assert sum("protects nothing" in t or "protects no pair" in t for t in said) == 1, said
    assert [e.value for e in at.error if is_verdict(e)][0].startswith("**The policy protects nothing")
    assert any("lie in different components" in x.value for x in at.warning)
