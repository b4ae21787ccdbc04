"""AppTest of the Synthesis Runner page: CLI-identical numbers, Stop, bad settings, downloads."""

from __future__ import annotations

import json
import os

import pandas as pd

import pytest
from streamlit.testing.v1 import AppTest

import blowfish_core as bc
from blowfish_core.interfaces.cli.main import main as cli_main
from blowfish_core.algorithm.evolution import RunStopped
from blowfish_core.io.presets import load_preset_data
from blowfish_core.privacy.accounting import epsilon_exact
from blowfish_core.synthesis.spec import MAX_SEEDS
from blowfish_core.workflows.verdicts import fmt_crossing, sweep_verdict_from_result
from studio import flow
from studio import runner_ui as ui
from studio.state import Studio

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "pages", "run.py")
TIMEOUT = 120
TAU, RHO = 0.03, 6e-4
SMALL = {"rn_rounds": 3, "rn_population": "64x3", "rn_release": 100, "rn_seeds": 2}


def _page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    return at


def _set(at: AppTest, **values) -> None:
    if "rn_budget_mode" in values:  # enables/disables the rho or epsilon inputs
        at.radio(key="rn_budget_mode").set_value(values.pop("rn_budget_mode")).run()
    elif {"rn_rho", "rn_epsilon", "rn_delta"} & set(values) and at.radio(key="rn_budget_mode").value == ui.SESSION_BUDGET:
        # issue 16: the default entry is the session's epsilon-first budget; a rho (or epsilon) given here is
        # the Advanced "rho (zCDP)" (or "epsilon, delta") entry
        at.radio(key="rn_budget_mode").set_value("rho (zCDP)" if "rn_rho" in values else "epsilon, delta").run()
    for key, v in values.items():
        key = "tau" if key == "rn_tau" else key  # the session's tau key (studio.state.TAU_KEY) is the Run's input
        w = at.get("number_input") + at.get("text_input")
        if any(x.key == key and x.disabled for x in w):
            continue  # not used in the current budget mode
        if key == "rn_methods":
            at.multiselect(key=key).set_value(v)
        elif key in ("rn_population", "rn_sweep_grid"):
            at.text_input(key=key).set_value(v)
        elif key == "rn_decomp":
            at.checkbox(key=key).set_value(v)
        else:
            at.number_input(key=key).set_value(v)


def _run(at: AppTest) -> AppTest:
    at.button(key="rn_run_btn").click().run()
    assert not at.exception, at.exception
    return at


def _cli_report(tmp_path, methods: str, seeds: str, extra: list[str] | None = None) -> dict:
    rep = tmp_path / "report.json"
    args = ["synth", "--preset", "xor3", "--method", methods, "--tau", str(TAU), "--rho", str(RHO),
            "--rounds", "3", "--population", "64x3", "--release", "100", "--seeds", seeds,
            "--out", str(tmp_path / "out.csv"), "--out-dir", str(tmp_path / "all"), "--report", str(rep), "--quiet"]
    assert cli_main(args + (extra or [])) == 0
    return json.loads(rep.read_text())


@pytest.fixture(scope="module")
def ran():
    """One page session with a full XOR-3 run of Hard and BF-Soft on 2 paired seeds."""
    at = _page()
    _set(at, rn_methods=["hard", "bf-soft"], rn_tau=TAU, rn_rho=RHO, **SMALL)
    _run(at)
    return at


def test_defaults_are_the_scaled_paper_setting():
    at = _page()
    assert at.multiselect(key="rn_methods").value == ["tab-pe", "hard", "bf-soft"]
    assert at.number_input(key="rn_rounds").value == 8
    assert at.text_input(key="rn_population").value == ""  # paper schedule 512 x 3, 1024 x 5
    assert at.number_input(key="rn_release").value == 512
    assert at.number_input(key="rn_seeds").value == 6
    assert at.button(key="rn_run_btn").label == "Run"
    assert any("No results yet" in i.value for i in at.info)


def test_displayed_errors_equal_the_cli(ran, tmp_path):
    cli = _cli_report(tmp_path, "hard,bf-soft", "0,1")
    assert cli["metric"]["name"] == "hoerr"
    shown = ran.dataframe[0].value
    assert list(shown["method"]) == ["Hard", "BF-Soft"]
    for label, key in (("Hard", "hard"), ("BF-Soft", "bf-soft")):
        row = shown[shown["method"] == label].iloc[0]
        exp = cli["summary"]["per_method"][key]
        assert row["mean hoerr"] == exp["mean"]
        assert [row["ci95 low"], row["ci95 high"]] == exp["ci95"]
        assert row["seeds"] == 2
    per_run = ran.dataframe[1].value  # "Error of every run" table
    for r in cli["runs"]:
        got = per_run[(per_run["method"] == r["label"]) & (per_run["seed"] == r["seed"])]["hoerr"].item()
        assert got == r["hoerr"]
    metrics = {m.label: m.value for m in ran.metric}
    assert metrics["Hard mean HOERR"] == f"{cli['summary']['per_method']['hard']['mean']:.4f}"
    rr = cli["summary"]["relative_reduction_bf_soft_vs_hard"]["mean_percent"]
    assert metrics["BF-Soft vs Hard: paired reduction R_s"] == f"{rr:.1f}%"
    # per-round ledger equals the CLI's rounds
    rounds = ran.dataframe[2].value
    cli_r = [r for r in cli["runs"] if r["method"] == "hard" and r["seed"] == 0][0]["rounds"]
    hard_r = rounds[rounds["method"] == "Hard"]
    assert list(hard_r["sigma_t"]) == [r["sigma_t"] for r in cli_r]
    assert list(hard_r["rho_t"]) == [r["rho_t"] for r in cli_r]
    assert list(hard_r["calibration"]) == [r["calibration"] for r in cli_r]
    # the downloads are the CLI's files, byte for byte
    store = ran.session_state["runner_results"]
    rec = store[max(store)]
    for (m, s), df in rec["releases"].items():
        assert ui.release_csv(df) == (tmp_path / "all" / f"{m}_seed{s}.csv").read_bytes()
    rep = json.loads(ui.report_json(rec["report"]))
    assert rep["summary"] == cli["summary"]
    assert rep["privacy"] == cli["privacy"]
    assert [r["hoerr"] for r in rep["runs"]] == [r["hoerr"] for r in cli["runs"]]
    labels = [b.label for b in ran.get("download_button")]
    assert labels == ["Download synthetic CSV", "Download all releases (zip)", "Download JSON report",
                      "Download run bundle"]
    # the ledger a data owner can paste
    code = [c.value for c in ran.code]
    assert any(f"rho = {RHO:g}" in c and "over 3 rounds" in c for c in code)


def test_epsilon_budget_equals_the_cli(tmp_path):
    at = _page()
    _set(at, rn_methods=["hard"], rn_budget_mode="epsilon, delta", rn_epsilon=0.5, rn_delta=1e-6, **SMALL)
    _run(at)
    rep = tmp_path / "r.json"
    assert cli_main(["synth", "--preset", "xor3", "--method", "hard", "--epsilon", "0.5", "--delta", "1e-6",
                     "--rounds", "3", "--population", "64x3", "--release", "100", "--seeds", "0,1",
                     "--out", str(tmp_path / "o.csv"), "--report", str(rep), "--quiet"]) == 0
    cli = json.loads(rep.read_text())
    shown = at.dataframe[0].value
    assert shown["mean hoerr"].iloc[0] == cli["summary"]["per_method"]["hard"]["mean"]
    store = at.session_state["runner_results"]
    assert store[max(store)]["report"]["privacy"] == cli["privacy"]


def test_identical_settings_reuse_the_stored_run(ran):
    before = dict(ran.session_state["runner_results"])
    _run(ran)
    after = ran.session_state["runner_results"]
    assert sorted(after) == sorted(before)
    assert not ran.error


def test_stop_keeps_earlier_results(ran):
    store = ran.session_state["runner_results"]
    ids = sorted(store)
    shown = ran.dataframe[0].value
    ran.session_state["runner_stop"] = True  # as if Stop was clicked while the run goes
    _set(ran, rn_seeds=3)  # a new setting, so a run really starts
    _run(ran)
    assert any("Run stopped" in w.value for w in ran.warning)
    assert sorted(ran.session_state["runner_results"]) == ids
    assert ran.dataframe[0].value.equals(shown)
    assert ran.session_state["runner_stop"] is False
    # clicking Stop with no run going only reports it and clears the flag
    ran.button(key="rn_stop_btn").click().run()
    assert not ran.exception
    assert any("Stopped" in w.value for w in ran.warning)
    assert ran.session_state["runner_stop"] is False
    assert ran.dataframe[0].value.equals(shown)
    _set(ran, rn_seeds=2)


def test_stop_after_round_one_stores_nothing():
    """A should_stop that trips after round 1 of the first run: no partial record is written."""
    p = bc.get_preset("xor3")
    sp = load_preset_data(p)
    studio = Studio("XOR-3 (built-in)", "xor3", sp.private, sp.public, p.schema, p.default_policy(), metric="hoerr")
    s = dict(ui.RUNNER_DEFAULTS, rn_methods=["hard", "bf-soft"], **SMALL)
    req = ui.build_request(studio, s)
    store = {7: {"id": 7, "fingerprint": "earlier"}}
    snapshot = dict(store)
    rounds = []
    with pytest.raises(RunStopped):
        ui.execute_run(store, 8, req, studio, progress=rounds.append, should_stop=lambda: len(rounds) >= 1)
    assert store == snapshot
    assert len(rounds) == 1
    rec = ui.execute_run(store, 8, req, studio)
    assert sorted(store) == [7, 8] and rec["report"]["methods"] == ["hard", "bf-soft"]


BAD = [
    ({"rn_rho": 0.0}, "rho"),
    ({"rn_rho": -1e-3}, "rho"),
    ({"rn_delta": 0.0}, "delta"),
    ({"rn_delta": 1.0}, "delta"),
    ({"rn_delta": 1.5}, "delta"),
    ({"rn_release": 0}, "release"),
    ({"rn_tau": 0.0}, "tau"),
    ({"rn_tau": -0.03}, "tau"),
    ({"rn_rounds": 0}, "rounds"),
    ({"rn_seeds": MAX_SEEDS + 1}, "seeds"),
    ({"rn_seeds": 0}, "seeds"),
    ({"rn_population": "64x2"}, "population"),
    ({"rn_budget_mode": "epsilon, delta", "rn_epsilon": 0.0}, "epsilon"),
    ({"rn_budget_mode": "epsilon, delta", "rn_epsilon": 1.0, "rn_delta": 2.0}, "delta"),
    ({"rn_methods": []}, "method"),
]


GOOD = {"rn_rho": RHO, "rn_delta": 1e-5, "rn_release": 100, "rn_tau": TAU, "rn_rounds": 3, "rn_seeds": 2,
        "rn_population": "64x3", "rn_epsilon": 1.0, "rn_methods": ["hard", "bf-soft"]}


def test_bad_settings_give_st_error_and_no_exception():
    at = _page()
    for bad, word in BAD:
        mode = bad.get("rn_budget_mode", "rho (zCDP)")
        if at.radio(key="rn_budget_mode").value != mode:
            at.radio(key="rn_budget_mode").set_value(mode).run()
        _set(at, **GOOD)
        _set(at, **{k: v for k, v in bad.items() if k != "rn_budget_mode"})
        _run(at)
        errs = [e.value for e in at.error]
        assert len(errs) == 1 and errs[0].startswith("Cannot run"), (bad, errs)
        assert word in errs[0].lower(), (bad, errs[0])
        assert at.session_state["runner_results"] == {}, bad


def test_failed_run_keeps_earlier_results(ran):
    ids = sorted(ran.session_state["runner_results"])
    shown = ran.dataframe[0].value
    for bad in ({"rn_rho": 0.0}, {"rn_release": 0}):
        _set(ran, **bad)
        _run(ran)
        assert len(ran.error) == 1
        assert sorted(ran.session_state["runner_results"]) == ids
        assert ran.dataframe[0].value.equals(shown)
        _set(ran, **GOOD)


def test_decomposition_and_sweep():
    at = _page()
    _set(at, rn_methods=["hard"], rn_decomp=True, rn_rho=1e-3, **SMALL)
    _run(at)
    store = at.session_state["runner_results"]
    rep = store[max(store)]["report"]
    assert rep["methods"] == ["hard", "bf-soft", "soft-hard-noise"]
    dec = [d.value for d in at.dataframe if "term" in d.value.columns][0]
    assert list(dec["term"]) == ["C", "N", "G"]
    C, N, G = dec["mean"]
    assert G == pytest.approx(N - C, abs=1e-12)
    assert (C, N, G) == tuple(rep["summary"]["decomposition"][k][0]
                              for k in ("C_smoothing_cost", "N_noise_benefit", "G_gain"))
    # budget sweep: a bad grid is an st.error, a good one a table + crossing read-out
    _set(at, rn_sweep_grid="1e-4")
    at.button(key="rn_sweep_btn").click().run()
    assert not at.exception and any("budget grid" in e.value for e in at.error)
    _set(at, rn_sweep_grid="1e-4, 1e-2", rn_sweep_seeds=2)
    at.button(key="rn_sweep_btn").click().run()
    # no input error; the only alert of the error colour may be the sweep's verdict banner
    assert not at.exception and not [e for e in at.error if not flow.is_verdict(e)]
    res = at.session_state["runner_sweep"]["result"]
    v = sweep_verdict_from_result(res)
    shown = at.error if v.level == "bad" else at.success if v.level == "good" else at.info
    assert f"**{v.headline}.** {v.detail}" in [e.value for e in shown]
    metrics = {m.label: m.value for m in at.metric}
    if res.crossing_rho is None:
        assert metrics["Crossing budget rho"] == "none on this grid"
    else:
        assert metrics["Crossing budget rho"] == f"{res.crossing_rho:.4g}"
        # the number the verdict headline and the chart show (issue 24 item 8: one formatting)
        assert metrics["Crossing epsilon (exact)"] == fmt_crossing(res.crossing_epsilon_exact)
    tab = [d.value for d in at.dataframe if "BF-Soft mean" in d.value.columns][0]
    assert list(tab["rho"]) == [1e-4, 1e-2]
    # the decomposition run is still shown (earlier results intact)
    assert sorted(at.session_state["runner_results"]) == sorted(store)


def test_sweep_grid_given_in_epsilon():
    """Issue 24: the sweep grid can be given in ε (at the run's δ); switching the unit rewrites the grid."""
    at = _page()
    assert at.radio(key="rn_sweep_unit").value == "rho"
    at.text_input(key="rn_sweep_grid").set_value("1e-4, 1e-2").run()
    at.radio(key="rn_sweep_unit").set_value("epsilon").run()
    assert not at.exception
    delta = at.session_state["studio"].extras["budget"]["delta"]
    shown = [float(x) for x in at.text_input(key="rn_sweep_grid").value.split(",")]
    assert shown == [float(f"{epsilon_exact(r, delta):.3g}") for r in (1e-4, 1e-2)]
    _set(at, rn_rounds=2, rn_population="32x2", rn_release=40)
    _set(at, rn_sweep_grid="0.05, 0.5", rn_sweep_seeds=1)
    at.button(key="rn_sweep_btn").click().run()
    assert not at.exception and not [e for e in at.error if not flow.is_verdict(e)], [e.value for e in at.error]
    res = at.session_state["runner_sweep"]["result"]
    assert [p.epsilon_exact for p in res.points] == pytest.approx([0.05, 0.5], rel=1e-6)  # the points sit at the ε typed
    _set(at, rn_sweep_grid="0.05, -1")
    at.button(key="rn_sweep_btn").click().run()
    assert any("budget grid" in e.value and "epsilon" in e.value for e in at.error)


def test_studio_without_rows_and_tau_from_the_studio():
    p = bc.get_preset("adult")  # a preset chosen without its table: schema and policy only
    empty = pd.DataFrame({a: pd.Series([], dtype=object) for a in p.schema.names})
    studio = Studio("Adult (no table)", "adult", empty, None, p.schema, p.default_policy(), metric="pwerr")
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.session_state["studio"] = studio
    at.session_state["tau"] = 0.06  # the session's tau (studio.state.TAU_KEY)
    at.run()
    assert not at.exception
    assert at.number_input(key="tau").value == 0.06  # the studio's tau is the default
    assert {m.label: m.value for m in at.metric}["Record-level reach r"] == "0.0192"
    _run(at)
    errs = [e.value for e in at.error]
    assert len(errs) == 1 and "no rows" in errs[0]
    # a tau chosen later in the Policy Designer / Pilot becomes the Runner's tau
    at.session_state["tau"] = 0.015
    at.run()
    assert at.number_input(key="tau").value == 0.015


# ---------------------------------------------------------------- fresh-user fixes
def _display(df_element) -> pd.DataFrame:
    """The cell texts st.dataframe shows (the pandas Styler's display values)."""
    import pyarrow as pa
    return pa.ipc.open_stream(df_element.proto.arrow_data.styler.display_values).read_all().to_pandas()


def test_ledger_significant_figures_plot_styles_and_identical_lines():
    """rho_t = 7.5e-05 is shown as 7.5e-05 (not 0.00008); each method has its own dash and marker, and
    Hard lying on Tab-PE is explained."""
    at = _page()
    _set(at, rn_methods=["tab-pe", "hard", "bf-soft"], rn_tau=TAU, rn_rho=2.25e-4, **SMALL)
    _run(at)
    assert at.dataframe[0].proto.placeholder == ui.NA_CI  # a missing interval reads n/a, never None
    rounds = at.dataframe[2]
    assert list(rounds.value["rho_t"].unique()) == [7.5e-5]  # the data stay the numbers
    shown = _display(rounds)
    assert set(shown["rho_t"]) == {"7.5e-05"}
    assert "1.414" in set(shown["Delta_t"]) and all(len(v.replace(".", "").lstrip("0")) <= 4 for v in shown["sigma_t"])
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    styles = {(d["line"]["dash"], d["marker"]["symbol"]) for d in spec["data"]}
    assert len(styles) == len(spec["data"]) == 3
    rep = at.session_state["runner_results"][max(at.session_state["runner_results"])]
    same = ui.identical_lines(rep["round_errors"])
    notes = [c.value for c in at.caption if "coincide" in c.value]
    assert bool(notes) == bool(same)
    if ("tab-pe", "hard") in same:
        assert "Hard drew exactly Tab-PE's noise" in notes[0]


def test_identical_lines_detects_only_equal_curves():
    re_ = pd.DataFrame({"method": ["tab-pe"] * 2 + ["hard"] * 2 + ["bf-soft"] * 2, "seed": 0,
                        "round": [1, 2] * 3, "what": "population", "error": [0.5, 0.4, 0.5, 0.4, 0.5, 0.3]})
    assert ui.identical_lines(re_) == [("tab-pe", "hard")]


def test_missing_intervals_and_values_are_shown_as_text_not_none():
    """One seed: ci95 = [None, None] -> 'n/a (needs ≥ 2 seeds)'; other missing cells '—'."""
    assert ui.fmt_ci(None, None) == ui.NA_CI == "n/a (needs ≥ 2 seeds)"
    assert ui.fmt_ci(0.1, 0.25) == "[0.1000, 0.2500]"
    assert ui.fmt_num(None) == ui.fmt_num(float("nan")) == "—" and ui.fmt_num(7.5e-5) == "7.5e-05"
    rep = {"metric": {"name": "pwerr"},
           "summary": {"per_method": {"hard": {"mean": 0.3, "ci95": [None, None], "n": 1}}}}
    summ = ui.summary_frame(rep)
    html = ui.styled(summ, {"ci95 low": ".4f"}, na={"ci95 low": ui.NA_CI, "ci95 high": ui.NA_CI}).to_html()
    assert html.count(ui.NA_CI) == 2 and "None" not in html and "nan" not in html
    assert ui.fmt_num("n/a") == "n/a"


def test_population_schedule_messages_name_the_box_not_cli_flags():
    assert ui.parse_population("512x3, 1024X5", 8) == [512] * 3 + [1024] * 5
    assert ui.parse_population("  ", 8) is None
    for text, rounds, part in (("abc", 3, "cannot read 'abc'"), ("64x2", 3, "lists 2 round(s) but Rounds T is 3"),
                               ("64x0,64x3", 3, "repeats a size 0 times")):
        with pytest.raises(bc.BlowfishError, match="population schedule") as e:
            ui.parse_population(text, rounds)
        assert part in str(e.value) and "--" not in str(e.value)
    at = _page()
    _set(at, rn_rounds=3, rn_population="64x2", rn_release=100, rn_seeds=2)
    _run(at)
    errs = [e.value for e in at.error]
    assert any("Rounds T is 3" in e for e in errs) and not any("--" in e for e in errs)
