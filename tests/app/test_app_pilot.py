"""AppTest of the Temperature Pilot page: Eq. (4) factor, tie rule, carry-over, public samples."""

from __future__ import annotations

import dataclasses
import os

from streamlit.testing.v1 import AppTest

import blowfish_core as bc
from blowfish_core.synthesis import gate as release_gate
from blowfish_core.privacy.accounting import pilot_scaling
from blowfish_core.algorithm.evolution import RANDOMNESS, SEEDED_NOTE
from blowfish_core.io.presets import load_preset_data, xor_generate
from blowfish_core.synthesis.spec import MAX_SEEDS
from studio.state import Studio

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "pages", "tune.py")
RUNNER = os.path.join(ROOT, "pages", "run.py")
TIMEOUT = 120
SMALL = {"pl_rounds": 2, "pl_population": "64x2", "pl_release": 100, "pl_seeds": 2}


def _page(studio: Studio | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    if studio is not None:
        at.session_state["studio"] = studio
    at.run()
    assert not at.exception, at.exception
    return at


def _set(at: AppTest, **values) -> None:
    for k, v in values.items():
        if k in ("pl_population", "pl_grid"):
            at.text_input(key=k).set_value(v)
        else:
            at.number_input(key=k).set_value(v)


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _rule(table, tol: float) -> str:
    """The tie rule computed independently from the displayed table."""
    best = table["mean"].min()
    tied = table[table["mean"] - best <= tol]
    if (tied["method"] == "hard").any():
        return "Hard"
    return f"BF-Soft (tau = {tied['tau'].min():g})"


def _check_tie_rule(at: AppTest) -> None:
    """Re-apply the tie rule live for tolerances that construct ties from the displayed means."""
    tab = at.dataframe[0].value
    means = sorted(tab["mean"])
    gaps = [0.0] + [m - means[0] + 1e-12 for m in means[1:]] + [2.0]
    seen_tie = False
    for tol in gaps:
        _set(at, pl_tie=tol)
        at.run()
        assert not at.exception
        shown = _metrics(at)["Recommendation"]
        assert shown == _rule(tab, tol), (tol, shown)
        seen_tie |= int((tab["mean"] - means[0] <= tol).sum()) > 1
    assert seen_tie
    # tolerance 2 (errors lie in [0, 2]): every candidate ties, so Hard is chosen
    assert shown == "Hard"


def test_xor_pilot_scaling_tie_rule_and_carry():
    at = _page()
    m = _metrics(at)
    assert m["n_t (private rows)"] == "12,000" and m["n_p (pilot rows)"] == "3,000"
    assert m["Budget scale (n_t/n_p)^2"] == f"{pilot_scaling(12_000, 3_000):.2f}x" == "16.00x"
    assert at.radio(key="pl_source").value == "Generated public rows (XOR)"
    assert any("share a distribution" in w.value for w in at.warning)
    grid = at.text_input(key="pl_grid").value
    assert grid.startswith("0.001, 0.003, 0.015, 0.03, 0.06")  # the paper's selector + q = 0.2
    _set(at, pl_grid="0.01, 0.03, 0.1", **SMALL)
    at.button(key="pl_run_btn").click().run()
    assert not at.exception and not at.error
    tab = at.dataframe[0].value
    assert list(tab["candidate"]) == ["Hard", "BF-Soft tau=0.01", "BF-Soft tau=0.03", "BF-Soft tau=0.1"]
    res = at.session_state["pilot_result"]["result"]
    assert res.scaling.factor == 16.0 and res.scaling.n_pilot == 3000
    assert list(tab["mean"]) == [c.mean for c in res.candidates]
    assert _metrics(at)["Recommendation"] == _rule(tab, 1e-9)
    _check_tie_rule(at)

    # carry the choice back to the Runner: constructed so that a tau wins (tolerance 0)
    _set(at, pl_tie=0.0)
    at.run()
    chosen = _metrics(at)["Recommendation"]
    at.button(key="pl_carry_btn").click().run()
    assert not at.exception
    rs = at.session_state["runner_settings"]
    runner = AppTest.from_file(RUNNER, default_timeout=TIMEOUT)
    runner.session_state["runner_settings"] = rs
    runner.session_state["runner_carried"] = at.session_state["runner_carried"]
    runner.session_state["tau"] = at.session_state["tau"]  # the session's one tau key (studio.state.TAU_KEY)
    runner.run()
    assert not runner.exception
    if chosen == "Hard":
        assert runner.multiselect(key="rn_methods").value == ["hard"]
    else:
        tau = float(chosen.split("= ")[1].rstrip(")"))
        assert runner.multiselect(key="rn_methods").value == ["hard", "bf-soft"]
        assert runner.number_input(key="tau").value == tau
    assert runner.number_input(key="rn_rho").value == at.number_input(key="pl_rho").value
    assert any("From the Temperature Pilot" in i.value for i in runner.info)


def test_bad_pilot_settings_give_st_error():
    at = _page()
    _set(at, **SMALL)
    for bad, word in [({"pl_grid": "0.03, 0"}, "tau grid"), ({"pl_grid": "abc"}, "tau grid"),
                      ({"pl_seeds": MAX_SEEDS + 1}, "at most"), ({"pl_rounds": 0}, "rounds"),
                      ({"pl_release": 0}, "release"), ({"pl_rho": 0.0}, "rho"), ({"pl_delta": 1.0}, "delta"),
                      ({"pl_np": 0}, "n_p"), ({"pl_tie": -1.0}, "tie tolerance")]:
        _set(at, pl_grid="0.03", pl_seeds=2, pl_rounds=2, pl_release=100, pl_rho=6e-4, pl_delta=1e-5, pl_np=3000,
             pl_tie=1e-9)
        _set(at, **bad)
        at.button(key="pl_run_btn").click().run()
        assert not at.exception, bad
        errs = " ".join(e.value for e in at.error)
        assert word in errs, (bad, errs)
        assert "pilot_result" not in at.session_state, bad  # nothing stored by a failed pilot


def test_uploaded_public_csv():
    at = _page()
    at.radio(key="pl_source").set_value("Upload a public CSV").run()
    pub = xor_generate(3, 800, 99)
    at.file_uploader(key="pl_upload").upload("public.csv", pub.to_csv(index=False).encode(), "text/csv").run()
    assert not at.exception and not at.error
    m = _metrics(at)
    assert m["n_p (pilot rows)"] == "800"
    assert m["Budget scale (n_t/n_p)^2"] == f"{pilot_scaling(12_000, 800):.2f}x"
    # a CSV outside the public domain and a broken CSV are clear errors
    bad = pub.copy()
    bad.loc[0, "X_1"] = 9
    at.file_uploader(key="pl_upload").clear().upload("bad.csv", bad.to_csv(index=False).encode(), "text/csv").run()
    assert not at.exception and any("X_1" in e.value for e in at.error)
    at.file_uploader(key="pl_upload").clear().upload("x.csv", b"", "text/csv").run()
    assert not at.exception and at.error


def test_holdout_split_of_an_uploaded_table():
    p = bc.get_preset("xor3")
    df = xor_generate(3, 2000, 5)
    st_ = Studio("my.csv", None, df, None, p.schema, p.default_policy(), metric="pwerr")
    at = _page(st_)
    assert at.radio(key="pl_source").value == "Held-out rows of the table"
    _set(at, pl_np=500)
    at.run()
    at.button(key="pl_holdout_btn").click().run()
    assert not at.exception
    s = at.session_state["studio"]
    assert len(s.private) == 1500 and len(s.public) == 500
    assert s.extras["full_table"] is df and len(df) == 2000  # the uploaded table is kept unchanged
    # the held-out rows are rows of the sensitive table used as public data: named as unprotected (issue 21)
    assert any(w.value == release_gate.unprotected_text(500, "held out of my.csv") + "." for w in at.warning)
    assert _metrics(at)["Budget scale (n_t/n_p)^2"] == f"{pilot_scaling(1500, 500):.2f}x"
    _set(at, pl_np=600)  # more rows than were held out
    at.run()
    assert any("only 500 public rows" in e.value for e in at.error)


def test_adult_pilot(adult_path):
    p = bc.get_preset("adult")
    split = load_preset_data(p, adult_path)
    studio = Studio("Adult", "adult", split.private, split.public, p.schema, p.default_policy(), metric="pwerr")
    for f, v in (("source", "adult"), ("table_source", "shared")):
        if f in {x.name for x in dataclasses.fields(Studio)}:
            setattr(studio, f, v)
    at = _page(studio)
    m = _metrics(at)
    assert m["n_t (private rows)"] == f"{len(split.private):,}"
    assert m["n_p (pilot rows)"] == "3,000"
    factor = pilot_scaling(len(split.private), 3000)
    assert m["Budget scale (n_t/n_p)^2"] == f"{factor:.2f}x"
    assert round(factor) == 75  # paper §6.2.4: about 75x
    assert at.radio(key="pl_source").value == "Held-out rows of the table"
    _set(at, pl_grid="0.015, 0.06", pl_rounds=2, pl_population="48x2", pl_release=100, pl_seeds=2)
    at.button(key="pl_run_btn").click().run()
    assert not at.exception and not at.error
    tab = at.dataframe[0].value
    assert list(tab["candidate"]) == ["Hard", "BF-Soft tau=0.015", "BF-Soft tau=0.06"]
    assert at.session_state["pilot_result"]["result"].metric == "pwerr"
    _check_tie_rule(at)


# ---------------------------------------------------------------- fresh-user fixes
def test_pilot_size_below_minimum_is_an_error():
    at = _page()
    _set(at, pl_np=10)
    at.run()
    assert not at.exception
    errs = " ".join(e.value for e in at.error)
    assert "n_p = 10 rows is too small: use at least 50" in errs
    assert not at.metric or "n_p (pilot rows)" not in _metrics(at)  # no scaling from a 10-row pilot
    at.button(key="pl_run_btn").click().run()
    assert "pilot_result" not in at.session_state


def test_bad_upload_labels_old_results_weak_recommendation_and_whiskers():
    import json
    at = _page()
    at.radio(key="pl_source").set_value("Upload a public CSV").run()
    pub = xor_generate(3, 400, 99)
    at.file_uploader(key="pl_upload").upload("good.csv", pub.to_csv(index=False).encode(), "text/csv").run()
    _set(at, pl_grid="0.01, 0.1", **SMALL)
    at.button(key="pl_run_btn").click().run()
    assert not at.exception and not at.error
    res = at.session_state["pilot_result"]["result"]
    # the recommendation's strength follows the overlap of the 95% intervals
    from blowfish_core.workflows.pilot import recommendation_strength
    s = recommendation_strength(res.candidates, res.recommendation)
    weak = [w.value for w in at.warning if w.value.startswith("Weak recommendation")]
    assert bool(weak) == s["weak"]
    if weak:
        assert "more pilot seeds would help" in weak[0]
    else:
        assert any(x.value.startswith("Recommendation:") for x in at.success)
    # lower whiskers stop at 0 (errors are >= 0)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    tr = [d for d in spec["data"] if d.get("name") == "BF-Soft"][0]
    def arr(v):  # plotly's typed-array JSON ({"dtype", "bdata"}) or a plain list
        import base64
        import numpy as np
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]) if isinstance(v, dict) else list(v)

    lows = [y - m for y, m in zip(arr(tr["y"]), arr(tr["error_y"]["arrayminus"]))]
    assert min(lows) >= -1e-12
    # a rejected upload keeps the old results, labelled with the data they came from
    bad = pub.copy()
    bad.loc[0, "X_1"] = 9
    at.file_uploader(key="pl_upload").clear().upload("bad.csv", bad.to_csv(index=False).encode(), "text/csv").run()
    assert not at.exception and any("X_1" in e.value for e in at.error)
    assert at.session_state["pilot_result"]["result"] is res and len(at.dataframe) == 1
    labelled = [w.value for w in at.warning if "PREVIOUS public sample" in w.value]
    assert labelled and "uploaded good.csv (400 rows" in labelled[0]


def test_choose_on_private_data_option():
    """Off by default; on: the plan (K, whole cost, regret bound) before running, then the choice,
    the ledger totals and the internal per-setting errors; a bad selection budget gives st.error."""
    at = _page()
    assert at.checkbox(key="pl_private").value is False
    assert "Private choice" not in _metrics(at)
    _set(at, pl_grid="0.01, 0.1", pl_rho=1e-3, **SMALL)
    at.checkbox(key="pl_private").check().run()
    assert not at.exception and not at.error
    m = _metrics(at)
    assert m["Settings K"] == "3"
    assert m["Total cost rho (K runs + selection)"] == f"{3 * 1e-3 + 1e-4:.4g}"  # 0.0031
    plan = bc.private_pilot_plan(bc.get_preset("xor3").schema, bc.get_preset("xor3").default_policy(), 12_000,
                                 [0.01, 0.1], 1e-3, 1e-4, metric="hoerr")
    assert m["Regret bound (95%)"] == f"{plan.choice.regret_error:.4g} HOERR"
    assert any("Every one of the K settings" in w.value for w in at.warning)
    at.button(key="pl_private_run_btn").click().run()
    assert not at.exception and not at.error
    res = at.session_state["pilot_private"]["result"]
    assert _metrics(at)["Private choice"] == res.label
    # a seeded run is a study: labelled so, never offered for publication (issue 21)
    assert any(i.value.startswith(f"Seeded study (seed 0): {res.label} — {SEEDED_NOTE}") and "zcdp-eq1" in i.value
               for i in at.info)
    assert not at.success
    assert "publishable" not in " ".join(x.value for x in [*at.caption, *at.info, *at.warning]).lower()
    assert any("internal: computed on private data" in c.value for c in at.caption)
    shown = at.dataframe[-1].value
    assert list(shown["setting"]) == ["Hard", "BF-Soft tau=0.01", "BF-Soft tau=0.1"]
    assert list(shown["hoerr"]) == list(res.errors)
    # the broken selection calibrations never appear on this page
    texts = " ".join(x.value for x in [*at.caption, *at.warning, *at.success, *at.markdown])
    assert "local sensitivity" not in texts and "smooth" not in texts
    # a bad selection budget: st.error naming it, no run button
    at.number_input(key="pl_rho_sel").set_value(-1.0).run()
    assert not at.exception
    assert any("rho_sel must be a finite number > 0" in e.value for e in at.error)
    assert "Settings K" not in _metrics(at)


def test_public_pilot_reads_the_typed_runs():
    """The per-seed table comes from PilotResult.runs (one experiment.PairedResult per candidate)."""
    at = _page()
    _set(at, pl_grid="0.01, 0.1", **SMALL)
    at.button(key="pl_run_btn").click().run()
    assert not at.exception and not at.error
    res = at.session_state["pilot_result"]["result"]
    assert len(res.runs) == 3 and all(isinstance(pr, bc.PairedResult) for pr in res.runs)
    for c, pr in zip(res.candidates, res.runs):
        assert pr.errors(c.method) == c.errors  # the typed runs are what the candidates summarize
    table = at.table[0].value
    assert list(table.index) == ["Hard", "BF-Soft tau=0.01", "BF-Soft tau=0.1"]
    assert list(table.loc["Hard"]) == res.runs[0].errors("hard")


def test_private_choice_release_through_the_gate(monkeypatch):
    """'Make a release of the choice': release_tau_choice through the gate (OS entropy; total K rho + rho_sel);
    a gate that refuses shows st.error and keeps nothing."""
    at = _page()
    _set(at, pl_grid="0.01, 0.1", pl_rho=1e-3, **SMALL)
    at.checkbox(key="pl_private").check().run()
    at.button(key="pl_private_release_btn").click().run()
    assert not at.exception and not at.error
    res = at.session_state["pilot_private_release"]["result"]
    pub = res.publication
    assert not res.seeded and abs(pub.total["rho"] - (3 * 1e-3 + 1e-4)) < 1e-15
    assert _metrics(at)["Released choice"] == res.label
    assert any(s.value.startswith(f"Release of the choice: {res.label} — {release_gate.RELEASE_LABEL}")
               and "rho = 0.0031 zCDP" in s.value and RANDOMNESS in s.value for s in at.success)
    assert "pilot_private" not in at.session_state  # no seeded study was run

    def refuse(*a, **k):
        raise release_gate.GateError([("seeds", "refused by the test's gate", "none")])

    monkeypatch.setattr(release_gate, "publish", refuse)
    del at.session_state["pilot_private_release"]
    at.button(key="pl_private_release_btn").click().run()
    assert not at.exception
    assert any("refused by the test's gate" in e.value for e in at.error)
    assert "pilot_private_release" not in at.session_state


def test_pilot_plan_is_the_order_run_pilot_reports():
    """workflows.pilot.pilot_plan has one unit per (candidate, seed) in run_pilot's order: every progress
    event of a real pilot lands on the unit of its candidate (label = the unit's group), and the clock
    ends with every unit done."""
    from blowfish_core.workflows.pilot import pilot_plan, run_pilot
    from blowfish_core.workflows.progress import ProgressClock

    p = bc.get_preset("xor3")
    public = xor_generate(3, 300, seed=5)
    cfg = bc.SynthConfig(rounds=2, population=[32, 32], release=40)
    taus, seeds = [0.1, 0.03, 0.03], [0, 1]  # unsorted, a duplicate: the pilot sorts and drops it
    clock = ProgressClock(pilot_plan(taus, seeds, cfg.rounds)).start()
    assert [(u.group, u.seed) for u in clock.units] == [("Hard", 0), ("Hard", 1), ("BF-Soft tau=0.03", 0),
                                                         ("BF-Soft tau=0.03", 1), ("BF-Soft tau=0.1", 0),
                                                         ("BF-Soft tau=0.1", 1)]
    landed = []

    def observe(ev):
        landed.append((ev["label"], clock.units[clock._unit_of(ev)].group))
        clock.observe(ev)

    run_pilot(p.schema, p.default_policy(), public, 6e-4, 12_000, taus, seeds, cfg, progress=observe)
    assert len(landed) == 6 * 2 and all(label == group for label, group in landed), landed
    snap = clock.snapshot()
    assert (snap.units_done, snap.units, snap.current, snap.seconds_left) == (6, 6, None, 0.0)


def test_pilot_progress_is_the_run_steps_clock(monkeypatch):
    """The pilot runs in a worker thread driven by studio.run_ui.run_with_clock and a ProgressClock of
    pilot_plan (the Run step's path, issue 24): the box shows the clock's snapshots (a running clock and
    an estimate, one line per method, 'runs' for BF-Soft's several taus per seed); the result is kept."""
    from studio import run_ui

    calls = []
    original = run_ui.run_with_clock

    def spy(work, clock, show, stop_requested=None, tick=0.5):
        shown = []
        out = original(work, clock, lambda snap: (shown.append(snap), show(snap)), stop_requested, tick=0.005)
        calls.append((clock, shown))
        return out

    monkeypatch.setattr(run_ui, "run_with_clock", spy)
    at = _page()
    _set(at, pl_grid="0.01, 0.03, 0.1", **SMALL)
    at.button(key="pl_run_btn").click().run()
    assert not at.exception and not at.error
    assert len(calls) == 1
    clock, shown = calls[0]
    assert [u.group for u in clock.units] == ["Hard"] * 2 + [f"BF-Soft tau={t}" for t in ("0.01", "0.03", "0.1")
                                                              for _ in range(2)]
    final = clock.snapshot()
    assert (final.units_done, final.units, final.current) == (8, 8, None)  # every event matched the plan
    assert shown and all(0.0 <= s.fraction <= 1.0 for s in shown)
    lines = run_ui.progress_lines(shown[-1])
    assert lines[0].startswith("**Hard**: ") and " of 2 seeds done" in lines[0]
    assert lines[1].startswith("**BF-Soft**: ") and " of 6 runs done" in lines[1]
    assert at.session_state["pilot_result"]["result"].recommendation is not None
