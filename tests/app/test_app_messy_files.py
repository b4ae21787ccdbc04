"""Issue 27 (a newcomer with messy files) on the Data step and the release (AppTest, files built here).

1. Zip codes with leading zeros are read as text (never numbers), guessed an identifier when nearly
   every row has its own code, and modelled from the schema table by ticking 'model' (type
   categorical): the engine's IntakeResult.attribute, the rule of the CLI's --columns.
2. A release of one modelled column works: PWErr is skipped with a note, never a refusal.
3. A tiny table (3 rows) releases with its warning when its domain is declared public; with the
   domain inferred from it, the release gate refuses it and says why.
"""

from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

from blowfish_core.synthesis.gate import RELEASE_LABEL
from studio.data_ui import APPLY_SCHEMA

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "pages", "data.py")
TIMEOUT = 120
#: 40 distinct zip codes, 34 of them with a leading zero: one per row (an identifier guess).
ZIPS = [f"0{i:04d}" for i in range(501, 535)] + ["10001", "60601", "94105", "19104", "30301", "73301"]


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(elements) -> list[str]:
    from studio.flow import is_verdict

    return [e.value for e in elements if not is_verdict(e)]


def upload(raw: bytes, name: str = "people.csv") -> AppTest:
    at = ok(AppTest.from_file(DATA, default_timeout=TIMEOUT).run())
    at.radio(key="designer:source").set_value("csv").run()
    at.file_uploader(key="designer:upload:csv").set_value((name, raw, "text/csv")).run()
    return ok(at)


def editor(at: AppTest):
    eds = [e for e in at.data_editor if e.key and "schema_editor" in e.key]
    assert len(eds) == 1, [e.key for e in at.data_editor]
    return eds[0]


def edit_schema(at: AppTest, edited_rows: dict[int, dict[str, object]]) -> AppTest:
    """Cell edits of the schema table, then its form's submit button (as tests/app/test_app_state_roundtrip)."""
    at.session_state[editor(at).key] = {"edited_rows": edited_rows, "added_rows": [], "deleted_rows": []}
    apply = [b for b in at.button if b.label == APPLY_SCHEMA]
    assert len(apply) == 1, [b.label for b in at.button]
    return ok(apply[0].click().run())


def test_zip_codes_keep_their_leading_zeros_and_are_modelled_from_the_schema_table():
    lines = ["zip,age,plan"] + [f"{z},{20 + i % 30},{'abc'[i % 3]}" for i, z in enumerate(ZIPS)]
    at = upload(("\n".join(lines) + "\n").encode())
    s = at.session_state["studio"]
    assert s.schema.names == ["age", "plan"]  # the intake's guess: zip is an identifier
    assert s.private["zip"].tolist()[:3] == ["00501", "00502", "00503"]  # text, leading zeros kept
    assert ("column 'zip' is not modelled: codes with leading zeros (e.g. '00501'), all distinct: an identifier, "
            "not modelled. To model it as categorical text (its values as levels, leading zeros kept), tick "
            "'model' for 'zip' in the schema table (type categorical)") in texts(at.info)
    table = editor(at).value.reset_index(drop=True)
    row = table.index[table["column"] == "zip"][0]
    assert not table.loc[row, "model"] and table.loc[row, "type"] == "categorical"
    assert table.loc[row, "levels"].startswith("00501 | 00502 | 00503")  # the engine's offer
    at = edit_schema(at, {int(row): {"model": True}})
    assert not texts(at.error), texts(at.error)
    s = at.session_state["studio"]
    assert s.schema.names == ["zip", "age", "plan"]
    assert s.schema["zip"].kind == "categorical" and s.schema["zip"].levels == sorted(ZIPS)
    assert "zip" in s.schema.data_derived_columns  # read off the table: not yet declared public
    back = s.schema.decode(s.schema.encode(s.private))
    assert back["zip"].tolist() == ZIPS  # 00501 stays 00501 through the encoding


# ------------------------------------------------- 2-3: the release of the Policy page (section 4)
POLICY = os.path.join(ROOT, "pages", "policy.py")


def _release_page(studio) -> AppTest:
    at = AppTest.from_file(POLICY, default_timeout=TIMEOUT)
    at.session_state["studio"] = studio
    at = ok(at.run())
    at.selectbox(key="release:method").set_value("hard")
    at.number_input(key="rn_rounds").set_value(2)
    at.number_input(key="release:size").set_value(3)
    at = ok(at.toggle(key="designer:use_rho").set_value(True).run())  # the session budget, as ρ
    return ok(at.number_input(key="designer:rho").set_value(1e-2).run())


def _loaded(raw: bytes, name: str):
    """The Studio the Data step makes of ``raw`` (the engine's intake), with a complete policy on 'color'."""
    import dataclasses

    import blowfish_core as bc
    from studio import data_source as ds

    studio, notes = ds.handle_upload(raw, name, "csv")
    return dataclasses.replace(studio, policy=bc.Policy({"color": bc.AttributePolicy("complete")})), notes


def test_a_one_column_table_releases_with_pwerr_skipped():
    from blowfish_core.model.metrics import PWERR_SKIPPED

    raw = ("color\n" + "".join(f"{'rgb'[i % 3]}\n" for i in range(30))).encode()
    at = upload(raw, "one.csv")  # the Data step loads a one-column table (no refusal)
    assert at.session_state["studio"].schema.names == ["color"] and not texts(at.error), texts(at.error)
    studio, _ = _loaded(raw, "one.csv")
    at = _release_page(studio)
    at.checkbox(key="designer:release:allow_data_domain").check()
    at = ok(at.button(key="designer:release:go").click().run())
    assert not texts(at.error), texts(at.error)
    made = at.session_state["designer:release"]
    assert len(made.runs[0].release) == 3 and made.publication is not None
    assert PWERR_SKIPPED == "PWErr needs two modelled columns; skipped"
    assert made.eval_report["metric"]["skipped"] == PWERR_SKIPPED and made.eval_report["runs"][0]["pwerr"] is None
    assert made.summary == {"per_method": {}, "note": PWERR_SKIPPED}
    assert PWERR_SKIPPED in texts(at.info)


TINY = b"age,color\n30,r\n41,g\n52,b\n"


def test_a_tiny_table_with_its_domain_inferred_is_refused_by_the_gate():
    studio, notes = _loaded(TINY, "tiny.csv")
    assert studio.schema.data_derived
    assert any(n.startswith("WARNING: the table has only 3 rows (under 1,000)") for n in notes)
    at = _release_page(studio)
    at.checkbox(key="designer:release:allow_data_domain").check()
    at = ok(at.button(key="designer:release:go").click().run())
    assert "designer:release" not in at.session_state
    assert texts(at.error) == [
        "No release made: the release gate refused this release: the Data step's schema table: the private table "
        "has only 3 row(s) and its public domain was inferred from it: the inferred domain would be the records "
        "themselves (with at most 3 rows its bounds and levels are the rows' values), so the 'release with a "
        "data-derived domain' checkbox cannot release it. Fix: type public bounds or levels in the Data step's "
        "schema table, or tick 'declared public'"]


def test_a_tiny_table_with_a_declared_domain_releases_with_the_warning():
    import dataclasses

    import blowfish_core as bc

    studio, notes = _loaded(TINY, "tiny.csv")
    declared = bc.Schema([bc.Attribute("age", "numeric", lo=0, hi=100, integer=True),
                          bc.Attribute("color", "categorical", levels=["b", "g", "r"])])
    assert not declared.data_derived
    at = _release_page(dataclasses.replace(studio, schema=declared))
    at = ok(at.button(key="designer:release:go").click().run())
    assert not texts(at.error), texts(at.error)
    made = at.session_state["designer:release"]
    assert made.publication.label == RELEASE_LABEL
    assert len(made.runs[0].release) == 3 and not made.publication.data_domain
    assert ("WARNING: the table has only 3 rows (under 1,000): the noise will dominate the vote histogram and the "
            "synthetic data will be of little use") in notes


def test_a_one_column_run_and_release_step_show_the_note():
    """The Run step of a one-column table: the note instead of the error tables; the Release step releases it."""
    from blowfish_core.model.metrics import PWERR_SKIPPED
    raw = ("color\n" + "".join(f"{'rgb'[i % 3]}\n" for i in range(30))).encode()
    studio, _ = _loaded(raw, "one.csv")
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=TIMEOUT)
    at.session_state["studio"] = studio
    ok(at.run())
    ok(at.switch_page("pages/run.py").run())
    at.multiselect(key="rn_methods").set_value(["hard"])
    for k, v in {"rn_rounds": 2, "rn_release": 10, "rn_seeds": 2}.items():
        at.number_input(key=k).set_value(v)
    at.text_input(key="rn_population").set_value("16x2")
    ok(at.button(key="rn_run_btn").click().run())
    rec = at.session_state["runner_results"][max(at.session_state["runner_results"])]
    assert rec["result"].metric_note == PWERR_SKIPPED and rec["round_errors"].empty
    assert PWERR_SKIPPED in texts(at.info)
    ok(at.switch_page("pages/release.py").run())
    at.checkbox(key=[c.key for c in at.checkbox if c.key and "domain" in c.key][0]).check().run()
    ok(at.button(key="release:make").click().run())
    assert not at.session_state.get("release:error"), at.session_state.get("release:error")
    made = at.session_state["release:result"]
    assert len(made.runs[0].release) == 10 and made.eval_report["metric"]["skipped"] == PWERR_SKIPPED
