"""Every setting survives every navigation (issue 24, Build "One session-state model", Must-show 1).

One AppTest of the router (app.py): a semicolon-separated CSV in the UCI Bank format is uploaded
on the Data step, read with an explicit separator and a missing-value choice, its schema edited
(a column unticked, a bound changed, a month made ordinal, a column declared public); the Policy
step sets a policy, ε, δ and τ; the Run step the methods and the release size.  Then the walk
Data → Policy → Tune → Run → Release → Data → Home checks on every page that the session's model
(studio.state) is unchanged and that every control drawn shows it, and that Home reports the
chosen budget.
"""

from __future__ import annotations

import os

import pandas as pd
from streamlit.testing.v1 import AppTest

from studio import data_source as ds
from studio import release_ui as rel
from studio import runner_ui as ui
from studio.data_ui import APPLY_SCHEMA
from studio.run_ui import ROUNDS_KEY, ROUNDS_LABEL
from studio.state import TAU_KEY

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = os.path.join(ROOT, "app.py")
POLICY_PAGE = os.path.join(ROOT, "pages", "policy.py")
TIMEOUT = 120
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

DATA, POLICY, TUNE, RUN, RELEASE, HOME = ("pages/data.py", "pages/policy.py", "pages/tune.py", "pages/run.py",
                                          "pages/release.py", "pages/home.py")


def bank_like_csv(n: int = 150) -> bytes:
    """A small table in UCI Bank's format: ';'-separated, quoted text, a 'job' cell left empty."""
    jobs = ["admin.", "technician", "services", "management"]
    lines = ['"age";"job";"marital";"balance";"housing";"month";"duration";"y"']
    for i in range(n):
        job = "" if i % 25 == 7 else jobs[i % 4]
        lines.append(f'{20 + (i * 7) % 60};"{job}";"{["married", "single", "divorced"][i % 3]}";'
                     f'{(i * 137) % 5000 - 500};"{"yes" if i % 2 else "no"}";"{MONTHS[i % 12]}";'
                     f'{30 + (i * 11) % 900};"{"yes" if i % 9 == 0 else "no"}"')
    return ("\n".join(lines) + "\n").encode()


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def go(at: AppTest, page: str) -> AppTest:
    return ok(at.switch_page(page).run())


def editor(at: AppTest):
    """The schema editor drawn on this page (the Data step, or the Policy step's data section)."""
    eds = [e for e in at.data_editor if e.key and "schema_editor" in e.key]
    assert len(eds) == 1, [e.key for e in at.data_editor]
    return eds[0]


def edit_table(at: AppTest, key: str, edited_rows: dict[int, dict[str, object]]) -> AppTest:
    """Cell edits of the data editor ``key``, as the browser sends them (AppTest seeds a keyed
    editor's edit state before run())."""
    at.session_state[key] = {"edited_rows": edited_rows, "added_rows": [], "deleted_rows": []}
    return ok(at.run())


def edit_schema(at: AppTest, edited_rows: dict[int, dict[str, object]]) -> AppTest:
    """Cell edits of the schema editor, then its form's submit button (the edits are batched: issue 24)."""
    at.session_state[editor(at).key] = {"edited_rows": edited_rows, "added_rows": [], "deleted_rows": []}
    apply = [b for b in at.button if b.label == APPLY_SCHEMA]
    assert len(apply) == 1, [b.label for b in at.button]
    return ok(apply[0].click().run())


def blocks_shown(at: AppTest) -> list[str]:
    """The block column of the 'marital' block-partition editor, with the cell edits it holds."""
    e = [e for e in at.data_editor if e.key == "pol:blocks:marital"]
    if not e:
        return ["<not drawn>"]
    df = e[0].value.reset_index(drop=True)
    for row, cells in (at.session_state[e[0].key] if e[0].key in at.session_state else {}).get(
            "edited_rows", {}).items():
        for col, val in cells.items():
            df.loc[int(row), col] = val
    return df["block"].tolist()


def shown_schema_table(at: AppTest) -> pd.DataFrame:
    """The schema table as the user sees it: the editor's table with the cell edits it holds."""
    e = editor(at)
    df = e.value.reset_index(drop=True)
    state = at.session_state[e.key] if e.key in at.session_state else {}
    for row, cells in (state or {}).get("edited_rows", {}).items():
        for col, val in cells.items():
            df.loc[int(row), col] = val
    return df


def model(at: AppTest) -> dict[str, object]:
    """Every setting of the session's model, as values (studio.state)."""
    s = at.session_state["studio"]
    b = s.extras["budget"]
    intake = at.session_state["designer:intake"]
    runner = at.session_state["runner_settings"] if "runner_settings" in at.session_state else {}
    return {
        "dataset": s.dataset_name, "source": s.source, "rows": len(s.private),
        "reading": intake[3],
        "schema": s.schema.to_dict(),
        "policy": s.policy.to_dict(),
        "budget": (b["mode"], b["epsilon"], b["delta"], b["set"]),
        "tau": at.session_state[TAU_KEY],
        "methods": list(runner.get("rn_methods", [])),
        "release": runner.get("rn_release"),
        "rounds": runner.get("rn_rounds"),
        "sweep": (runner.get("rn_sweep_unit"), runner.get("rn_sweep_grid")),
    }


class Checks:
    """Collects what a page shows differently from the model (every loss in one run, not the first)."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def eq(self, where: str, what: str, got: object, want: object) -> None:
        if got != want:
            self.problems.append(f"{where}: {what} is {got!r}, expected {want!r}")


def get(at: AppTest, kind: str, key: str):
    """The value of the widget ``key`` drawn on this page (a KeyError-free '<not drawn>' otherwise)."""
    try:
        return getattr(at, kind)(key=key).value
    except KeyError:
        return "<not drawn>"


def check_data_section(at: AppTest, c: Checks, where: str, typed: pd.DataFrame) -> None:
    """The data section (Data step; collapsed on the Policy step) shows the model."""
    c.eq(where, "source radio", get(at, "radio", "designer:source"), "csv")
    c.eq(where, "separator", get(at, "selectbox", "designer:intake:sep"), ";")
    c.eq(where, "missing 'job'", get(at, "selectbox", "designer:intake:missing:job"), "drop rows")
    s = at.session_state["studio"]
    table = shown_schema_table(at)  # what the user typed, as typed, and it is the schema in use
    for col in ("model", "type", "lo", "hi", "levels", "declared public"):
        c.eq(where, f"schema table '{col}'", table[col].tolist(), typed[col].tolist())
    c.eq(where, "schema of the table shown",
         ds.schema_from_table(table, s.private, s.schema, s.inferred_schema).to_dict(), s.schema.to_dict())
    text = " ".join(m.value for m in at.markdown)
    c.eq(where, "'Dataset:' line", f"{s.schema.p} modeled attributes" in text, True)
    derived = [m.value for m in at.markdown if "Data-derived domain" in m.value]
    c.eq(where, "data-derived warning", derived[0].split("**")[1] if derived else None,
         "Data-derived domain: job, housing, month, y.")


def check_budget_control(at: AppTest, c: Checks, prefix: str, where: str) -> None:
    c.eq(where, "ε slider", get(at, "select_slider", f"{prefix}:eps"), 0.5)
    c.eq(where, "δ box", get(at, "selectbox", f"{prefix}:delta"), 1e-6)


def test_every_setting_survives_every_step_and_back(tmp_path):
    path = tmp_path / "bank-small.csv"
    path.write_bytes(bank_like_csv())
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    # the budget control's delta defaults to 1e-5 (blowfish_core.base.constants.DEFAULT_DELTA)
    go(at, POLICY)
    assert at.selectbox(key="designer:delta").value == 1e-5
    go(at, DATA)

    # ---- Data: the source, the reading options, the schema edits
    at.radio(key="designer:source").set_value("csv").run()
    at.file_uploader(key="designer:upload:csv").set_value((path.name, path.read_bytes(), "text/csv")).run()
    ok(at)
    at.selectbox(key="designer:intake:missing:job").set_value("drop rows").run()
    at.button(key="designer:intake:missing_apply").click().run()
    at.selectbox(key="designer:intake:sep").set_value(";").run()
    ok(at)
    s = at.session_state["studio"]
    assert s.source == "csv" and s.dataset_name == path.name and len(s.private) == 144, s.dataset_name
    assert at.session_state["designer:intake"][3] == ds.IntakeChoice(sep=";", drop_missing=("job",))
    cols = editor(at).value["column"].tolist()
    row = {c: i for i, c in enumerate(cols)}
    edit_schema(at, {row["duration"]: {"model": False},                                  # unticked
                     row["age"]: {"lo": "18", "hi": "95", "declared public": True},      # bounds, public
                     row["balance"]: {"lo": "-1000", "hi": "10000"},                    # bounds
                     row["month"]: {"type": "ordinal", "levels": "|".join(MONTHS)},      # an ordinal month
                     row["marital"]: {"declared public": True}})                        # declared public
    s = at.session_state["studio"]
    assert "duration" not in s.schema.names and s.schema.p == 7
    assert (s.schema["age"].lo, s.schema["age"].hi) == (18.0, 95.0)
    assert s.schema["month"].kind == "ordinal" and s.schema["month"].levels == MONTHS
    # month names are inferred ordinal in calendar order (model.orderings): typing the same levels declares nothing
    assert s.schema.data_derived_columns == ["job", "housing", "month", "y"]
    data_keys = ("dataset", "source", "rows", "reading", "schema")
    want = {k: model(at)[k] for k in data_keys}
    typed = shown_schema_table(at)
    assert typed.loc[row["month"], "levels"] == "|".join(MONTHS) and not typed.loc[row["duration"], "model"]

    # ---- Policy: a policy, ε and δ, τ (the Data step's settings are kept on arrival)
    c = Checks()
    go(at, POLICY)
    for k in data_keys:
        c.eq("arriving on pages/policy.py", f"model {k}", model(at)[k], want[k])
    at.selectbox(key="pol:kind:age").set_value("threshold").run()
    at.slider(key="pol:theta:age").set_value(5).run()
    at.selectbox(key="pol:kind:marital").set_value("block").run()
    edit_table(at, "pol:blocks:marital", {0: {"block": "B2"}})  # divorced | married, single
    at.select_slider(key="designer:eps").set_value(0.5).run()
    at.selectbox(key="designer:delta").set_value(1e-6).run()
    at.select_slider(key=TAU_KEY).set_value(0.05).run()
    at.number_input(key=ROUNDS_KEY).set_value(6).run()  # T: one key, the Run step shows the same
    ok(at)
    pol = at.session_state["studio"].policy.to_dict()["attributes"]
    assert pol["age"] == {"type": "threshold", "theta": 5}
    assert sorted(map(sorted, pol["marital"]["blocks"])) == [["divorced"], ["married", "single"]], pol["marital"]

    # ---- Run: the methods and the release size
    go(at, RUN)
    at.multiselect(key="rn_methods").set_value(["hard", "bf-soft"]).run()
    at.number_input(key="rn_release").set_value(300).run()
    at.radio(key="rn_sweep_unit").set_value("epsilon").run()  # the sweep grid is rewritten in ε
    ok(at)
    grid = at.text_input(key="rn_sweep_grid").value
    assert grid != ui.RUNNER_DEFAULTS["rn_sweep_grid"], grid

    for k in data_keys:
        c.eq("after the Policy step", f"model {k}", model(at)[k], want[k])
    want = model(at)
    assert want["budget"] == ("epsilon", 0.5, 1e-6, True) and want["tau"] == 0.05
    assert want["methods"] == ["hard", "bf-soft"] and want["release"] == 300
    assert want["sweep"] == ("epsilon", grid) and want["rounds"] == 6
    assert want["reading"] == ds.IntakeChoice(sep=";", drop_missing=("job",))

    # ---- the walk: every step and back; the model never changes and every control shows it
    for page in (DATA, POLICY, TUNE, RUN, RELEASE, DATA, POLICY, RUN, HOME):
        go(at, page)
        now = model(at)
        for k in want:
            c.eq(page, f"model {k}", now[k], want[k])
        if page in (DATA, POLICY):
            check_data_section(at, c, page, typed)
        if page == POLICY:
            check_budget_control(at, c, "designer", page)
            c.eq(page, "τ slider", get(at, "select_slider", TAU_KEY), 0.05)
            c.eq(page, "rounds T", get(at, "number_input", ROUNDS_KEY), 6)
            c.eq(page, "policy kind of age", get(at, "selectbox", "pol:kind:age"), "threshold")
            c.eq(page, "threshold of age", get(at, "slider", "pol:theta:age"), 5)
            c.eq(page, "policy kind of marital", get(at, "selectbox", "pol:kind:marital"), "block")
            c.eq(page, "blocks of marital", blocks_shown(at), ["B2", "B1", "B1"])
        if page == RUN:
            check_budget_control(at, c, "rn_b", page)
            c.eq(page, "τ input", get(at, "number_input", TAU_KEY), 0.05)
            c.eq(page, "rounds T", get(at, "number_input", ROUNDS_KEY), 6)
            c.eq(page, "methods", get(at, "multiselect", "rn_methods"), ["hard", "bf-soft"])
            c.eq(page, "release size", get(at, "number_input", "rn_release"), 300)
            c.eq(page, "sweep grid unit", get(at, "radio", "rn_sweep_unit"), "epsilon")
            c.eq(page, "sweep grid", get(at, "text_input", "rn_sweep_grid"), grid)
        if page == RELEASE:
            c.eq(page, "release size", get(at, "number_input", rel.SIZE_KEY), 300)
            c.eq(page, "privacy guarantee", [m.value for m in at.metric if m.label == "Privacy guarantee"][:1],
                 ["ε = 0.5 at δ = 10⁻⁶"])
        if page == TUNE:
            c.eq(page, "pilot δ", get(at, "number_input", "pl_delta"), 1e-6)
            c.eq(page, "pilot release size", get(at, "number_input", "pl_release"), 300)
            c.eq(page, "pilot rounds T", get(at, "number_input", "pl_rounds"), 6)
        if page == HOME:
            budget = [ln for m in at.markdown for ln in m.value.split("\n") if "**Budget:**" in ln]
            c.eq(page, "Home budget line", budget, ["- **Budget:** ε = 0.5 at δ = 10⁻⁶"])
            tau = [ln for m in at.markdown for ln in m.value.split("\n") if "**Temperature:**" in ln]
            c.eq(page, "Home τ line", tau, ["- **Temperature:** τ = 0.05"])
            lines = {ln.split("**")[1]: ln for m in at.markdown for ln in m.value.split("\n") if ln.startswith("- **")}
            c.eq(page, "Home dataset line", lines.get("Dataset:"),
                 f"- **Dataset:** {path.name} — 144 private rows (separator semicolon (';'), rows with a missing "
                 "job dropped)")
            c.eq(page, "Home schema line", lines.get("Schema:"),
                 "- **Schema:** 7 modelled attributes; domain read off the data: job, housing, month, y")
            c.eq(page, "Home protected line", lines.get("Protected attributes:"),
                 "- **Protected attributes:** age, marital")
            c.eq(page, "Home run line", lines.get("Run:"), "- **Run:** Hard, BF-Soft; release size 300 rows")
    assert not c.problems, "\n".join(c.problems)
    # one release size: changed on the Run step, the Tune and Release steps show the new one
    go(at, RUN)
    at.number_input(key="rn_release").set_value(400).run()
    go(at, TUNE)
    assert at.number_input(key="pl_release").value == 400
    go(at, RELEASE)
    assert at.number_input(key=rel.SIZE_KEY).value == 400


def test_rounds_T_is_one_setting_on_the_policy_and_run_steps():
    """T set on the Policy step is what the Run step shows, and the other way round; the same control
    (label) on both; Tune τ's pilot follows it; Home's budget is unchanged by it."""
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    go(at, POLICY)
    assert at.number_input(key=ROUNDS_KEY).value == 8 and at.number_input(key=ROUNDS_KEY).label == ROUNDS_LABEL
    at.number_input(key=ROUNDS_KEY).set_value(5).run()
    go(at, RUN)
    assert at.number_input(key=ROUNDS_KEY).value == 5 and at.number_input(key=ROUNDS_KEY).label == ROUNDS_LABEL
    assert at.session_state["runner_settings"][ROUNDS_KEY] == 5
    at.number_input(key=ROUNDS_KEY).set_value(12).run()
    go(at, POLICY)
    assert at.number_input(key=ROUNDS_KEY).value == 12
    assert at.session_state["studio"].extras["budget"]["rounds"] == 12  # the read-outs split over this T
    go(at, TUNE)
    assert at.number_input(key="pl_rounds").value == 12
    go(at, DATA)
    go(at, RUN)
    assert at.number_input(key=ROUNDS_KEY).value == 12


def test_preset_source_and_table_radios_survive_the_walk():
    """The Bank preset chosen on the Data step (its table radio too) is what the Data step shows after
    the Policy step (which draws the same radios) and back: not the first option, XOR-3."""
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    go(at, DATA)
    at.radio(key="designer:source").set_value("bank").run()
    at.radio(key="designer:table:bank").set_value("none").run()
    ok(at)
    assert at.session_state["studio"].source == "bank"
    for page in (POLICY, DATA, RUN, POLICY, DATA):
        go(at, page)
        assert at.session_state["studio"].source == "bank", page
        if page in (DATA, POLICY):
            assert at.radio(key="designer:source").value == "bank", page
            assert at.radio(key="designer:table:bank").value == "none", page
    # a choice waiting for its file is kept too (and the loaded data stay in use)
    at.radio(key="designer:source").set_value("csv").run()
    for page in (POLICY, DATA):
        go(at, page)
        assert at.radio(key="designer:source").value == "csv", page
        assert at.session_state["studio"].source == "bank", page


def test_accuracy_first_target_and_cap_survive_the_walk():
    """Tune τ's accuracy-first target and ε cap (studio.accuracy_ui: the plain key acc:settings, the
    boxes bound to it) are the same after Data → Policy → Tune → Run → Release → Data → Tune."""
    from studio.accuracy_ui import SETTINGS_KEY

    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    go(at, TUNE)
    assert at.number_input(key="acc:target").value is None and at.number_input(key="acc:cap").value == 10.0
    at.number_input(key="acc:target").set_value(0.3).run()
    at.number_input(key="acc:cap").set_value(3.0).run()
    ok(at)
    c = Checks()
    for page in (DATA, POLICY, TUNE, RUN, RELEASE, DATA, TUNE):
        go(at, page)
        m = at.session_state[SETTINGS_KEY]
        c.eq(page, "model target", m["target"], 0.3)
        c.eq(page, "model cap", m["cap"], 3.0)
        if page == TUNE:
            c.eq(page, "target box", get(at, "number_input", "acc:target"), 0.3)
            c.eq(page, "ε cap box", get(at, "number_input", "acc:cap"), 3.0)
    assert not c.problems, "\n".join(c.problems)


def test_policy_release_form_spends_the_session_budget_size_and_method():
    """The Policy page's release form (run on its own) has no budget, size or method of its own: it
    spends the ε chosen on the budget control, releases the one release size (runner_settings) and the
    session's release method (release_choice)."""
    at = ok(AppTest.from_file(POLICY_PAGE, default_timeout=TIMEOUT).run())
    at.number_input(key=ROUNDS_KEY).set_value(2).run()
    at.select_slider(key="designer:eps").set_value(0.5).run()  # after the form was first drawn
    at.number_input(key=rel.SIZE_KEY).set_value(40).run()
    at.selectbox(key=rel.METHOD_KEY).set_value("hard").run()
    ok(at)
    assert at.session_state["runner_settings"]["rn_release"] == 40
    assert at.session_state[rel.CHOICE_KEY] == {"run": None, "method": "hard"}
    assert [m.value for m in at.metric if m.label in ("Privacy guarantee", "Release spends")] == (
        ["ε = 0.5 at δ = 10⁻⁵"] * 2)  # the budget control, and the form's figure (its own label: one label, one figure)
    at = ok(at.button(key="designer:release:go").click().run())
    made = at.session_state["designer:release"]
    privacy = made.public_report["privacy"]
    assert round(privacy["epsilon"], 9) == 0.5 and privacy["delta"] == 1e-5 and privacy["rounds"] == 2
    assert made.public_report["methods"] == ["hard"] and len(made.runs[0].release) == 40


def _derived_studio():
    """A 60-row uploaded table (its domain read off the data) with age protected (threshold 5)."""
    import dataclasses

    import blowfish_core as bc

    raw = ("age,color\n" + "".join(f"{20 + (i * 7) % 40},{'rgb'[i % 3]}\n" for i in range(60))).encode()
    studio, _ = ds.handle_upload(raw, "small.csv", "csv")
    studio = dataclasses.replace(studio, policy=bc.Policy({"age": bc.AttributePolicy("threshold", theta=5)}))
    studio.extras.setdefault("budget", {})["set"] = True
    assert studio.schema.data_derived
    return studio


def test_private_choice_settings_and_data_domain_consent_survive_the_walk():
    """Tune τ's private-choice settings (pl_private, pl_rho_sel, pl_allow_data_domain: pilot_settings)
    and the Release step's data-derived-domain consent (studio.extras) are the same after Tune → Data →
    Tune and Release → Data → Release."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["studio"] = _derived_studio()
    ok(at.run())
    go(at, TUNE)
    at.checkbox(key="pl_private").check().run()
    at.number_input(key="pl_rho_sel").set_value(3e-4).run()
    at = ok(at.checkbox(key="pl_allow_data_domain").check().run())
    go(at, RELEASE)
    at = ok(at.checkbox(key=rel.ALLOW_KEY).check().run())
    c = Checks()
    for page in (DATA, TUNE, DATA, RELEASE, POLICY, TUNE):
        go(at, page)
        p = at.session_state["pilot_settings"]
        c.eq(page, "model pl_private", p.get("pl_private"), True)
        c.eq(page, "model pl_rho_sel", p.get("pl_rho_sel"), 3e-4)
        c.eq(page, "model pl_allow_data_domain", p.get("pl_allow_data_domain"), True)
        c.eq(page, "model release consent", at.session_state["studio"].extras.get("allow_data_domain"), True)
        if page == TUNE:
            c.eq(page, "private checkbox", get(at, "checkbox", "pl_private"), True)
            c.eq(page, "rho_sel box", get(at, "number_input", "pl_rho_sel"), 3e-4)
            c.eq(page, "data-domain checkbox", get(at, "checkbox", "pl_allow_data_domain"), True)
        if page == RELEASE:
            c.eq(page, "data-domain checkbox", get(at, "checkbox", rel.ALLOW_KEY), True)
    assert not c.problems, "\n".join(c.problems)
