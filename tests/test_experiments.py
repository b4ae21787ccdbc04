"""Plumbing of the reproduction experiments (experiments/) on tiny settings.

These check structure, interpolation, caching, report rendering and determinism --
not the paper's results (those live in experiments/REPORT.md).  XOR-3 only, so no
real table is needed; each test takes a few seconds at most.
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from blowfish_core.privacy.accounting import epsilon_eq1
from blowfish_core.io.presets import xor_generate
from experiments import exp_budget, exp_decomposition, exp_trainsize, report, run
from experiments.common import RunCache, execute, run_tasks, task, task_key

TINY = {"grids": {"xor3": {"rhos": [1e-4, 1.0], "seeds": [0, 1]}}, "taus": [0.03]}


@pytest.fixture(scope="module")
def tiny_sweep():
    tasks = exp_budget.plan(TINY)
    results, stats = run_tasks(tasks)
    return tasks, results, stats


def test_tiny_sweep_structure(tiny_sweep):
    tasks, results, stats = tiny_sweep
    # 2 budgets x 2 seeds x (Hard + 1 tau); Hard is shared across temperatures
    assert len(tasks) == 8 and stats["new"] == 8 and stats["reused"] == 0
    summ = exp_budget.analyze(results, TINY)
    ds = summ["datasets"]["xor3"]
    assert ds["reach"] == pytest.approx(1 / 28)
    assert len(ds["hard"]) == 2 and set(ds["hard"][0]) == {"mean", "lo", "hi", "n"}
    tv = ds["taus"]["0.03"]
    assert tv["q"] == pytest.approx(math.tanh((1 / 28) / 0.06))
    assert len(tv["soft"]) == 2 and tv["soft"][0]["n"] == 2
    for r in results.values():
        assert 0.0 <= r["error"] <= 2.0 and sum(r["calibration"].values()) == 8
    hard_rounds = sum(ds["hard_calibration"].values())
    assert hard_rounds == 2 * 2 * 8


def _fake(results, kw, err):
    results[task_key(task(**kw))] = {"error": err, "seconds": 0.0, "calibration": {"bound": 8}, "sensitivity_t": [],
                                     "n": 1}


def test_crossing_interpolation_on_constructed_numbers():
    scale = {"grids": {"xor3": {"rhos": [1e-5, 1e-4, 1e-2, 1.0], "seeds": [0, 1]}}, "taus": [0.03]}
    hard = {1e-5: 0.9, 1e-4: 0.5, 1e-2: 0.5, 1.0: 0.2}
    soft = {1e-5: 0.7, 1e-4: 0.4, 1e-2: 0.6, 1.0: 0.4}   # E_S - E_H: -0.2, -0.1, +0.1, +0.2
    results = {}
    for rho in scale["grids"]["xor3"]["rhos"]:
        for s in scale["grids"]["xor3"]["seeds"]:
            _fake(results, dict(dataset="xor3", method="hard", rho=rho, seed=s), hard[rho])
            _fake(results, dict(dataset="xor3", method="bf-soft", rho=rho, tau=0.03, seed=s), soft[rho])
    tv = exp_budget.analyze(results, scale)["datasets"]["xor3"]["taus"]["0.03"]
    # the sign changes once, between 1e-4 and 1e-2, halfway in log rho -> 1e-3
    assert tv["crossing_rho"] == pytest.approx(1e-3, rel=1e-12)
    assert tv["crossing_eps_eq1"] == pytest.approx(epsilon_eq1(1e-3, 1e-5))
    assert tv["crossing_eps_eq1"] == pytest.approx(1e-3 + 2 * math.sqrt(1e-3 * math.log(1e5)))
    assert tv["sign_changes"] == 1 and tv["soft_better_at_min"] and tv["soft_worse_at_max"]
    # identical seeds -> zero-width intervals
    assert tv["soft"][0] == {"mean": 0.7, "lo": 0.7, "hi": 0.7, "n": 2}


def test_decomposition_identities_on_constructed_numbers():
    scale = {"rhos": [1e-4], "seeds": [0, 1, 2], "datasets": ["xor3"]}
    results = {}
    eh, es, em = [0.5, 0.6, 0.7], [0.4, 0.5, 0.5], [0.55, 0.65, 0.8]
    for s in scale["seeds"]:
        _fake(results, dict(dataset="xor3", method="hard", rho=1e-4, seed=s), eh[s])
        _fake(results, dict(dataset="xor3", method="bf-soft", rho=1e-4, tau=0.02, seed=s), es[s])
        _fake(results, dict(dataset="xor3", method="soft-hard-noise", rho=1e-4, tau=0.02, seed=s), em[s])
    row = exp_decomposition.analyze(results, scale)["datasets"]["xor3"]["rows"][0]
    C, N, G = row["C"]["mean"], row["N"]["mean"], row["G"]["mean"]
    assert C == pytest.approx(np.mean(np.subtract(em, eh)))
    assert N == pytest.approx(np.mean(np.subtract(em, es)))
    assert G == pytest.approx(N - C)


def test_run_cache_reuses_and_persists(tmp_path, tiny_sweep):
    tasks, results, _ = tiny_sweep
    path = str(tmp_path / "cache.jsonl")
    cache = RunCache(path)
    for k, r in results.items():
        cache.put(k, r)
    again, stats = run_tasks(tasks, cache=RunCache(path))
    assert stats["new"] == 0 and stats["reused"] == 8
    assert again == results
    # a torn last line (interrupted run) is skipped, not fatal
    with open(path, "a") as f:
        f.write('{"key": "x", "res')
    assert len(RunCache(path).data) == 8


def test_determinism_serial_and_pool(tiny_sweep, monkeypatch):
    import multiprocessing as mp
    import sys
    import types

    tasks, results, _ = tiny_sweep
    # A fresh __main__ for the pool: after an AppTest in the same xdist worker, sys.modules["__main__"]
    # is a page script, which the forkserver would re-run in every worker (NameError, endless respawns).
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    t = tasks[1]
    assert execute(t)["error"] == results[task_key(t)]["error"]
    # forkserver: a fresh server process, so a worker never inherits threads (e.g. jax, imported by
    # the baseline tests in the same xdist worker) that fork() could deadlock.
    with mp.get_context("forkserver").Pool(2) as pool:
        pooled, _ = run_tasks(tasks[:4], pool=pool)
    for t in tasks[:4]:
        assert pooled[task_key(t)]["error"] == results[task_key(t)]["error"]


def test_task_normalization_and_key():
    a = task(dataset="xor3", method="hard", rho=1e-4, tau=0.03, seed=0)
    assert a["tau"] is None                      # Hard does not depend on tau: one shared run
    b = task(dataset="xor3", method="hard", rho=0.00010000000001, seed=0)
    assert task_key(a) == task_key(b)
    with pytest.raises(ValueError):
        task(dataset="xor3", colour="red")


def test_xor_prefixes_are_nested():
    big = xor_generate(3, 5000, 3)
    assert big.iloc[:1200].reset_index(drop=True).equals(xor_generate(3, 1200, 3))


def test_trainsize_uses_common_test_reference():
    sc = {"seeds": [0], "ns": [3000]}
    tasks = exp_trainsize.plan(sc)
    assert {t["ref"] for t in tasks} == {"xor_test"} and {t["data_seed"] for t in tasks} == {0}
    res, _ = run_tasks(tasks)
    summ = exp_trainsize.analyze(res, sc)
    assert summ["rows"][0]["n"] == 3000 and summ["rows"][0]["hard"]["n"] == 1


def test_run_main_and_report_render(tmp_path, monkeypatch):
    """--quick --only trainsize on a monkeypatched tiny scale, then the report from the cached JSON."""
    monkeypatch.setitem(exp_trainsize.SCALES, "quick", {"seeds": [0, 1], "ns": [3000, 12000]})
    monkeypatch.setattr(run, "RESULTS_DIR", str(tmp_path / "results"))
    rc = run.main(["--quick", "--only", "trainsize", "--workers", "1", "--no-report"])
    assert rc == 0
    stored = json.load(open(tmp_path / "results" / "trainsize.quick.json"))
    assert stored["mode"] == "quick" and len(stored["runs"]) == 8 and stored["wall_seconds"] > 0
    assert stored["environment"]["cpu_count"] == os.cpu_count()
    out = report.generate(results_dir=str(tmp_path / "results"), out=str(tmp_path / "REPORT.md"),
                          figdir=str(tmp_path / "figures"))
    text = open(out).read()
    assert "## 6. Private training size on XOR-3" in text
    assert "| 3,000 |" in text and "| 12,000 |" in text
    assert "not run" in text                      # the other experiments have no cached result
    assert (tmp_path / "figures" / "trainsize_xor3.png").stat().st_size > 1000
    # the report re-analyzes the stored runs: same numbers as the stored errors
    # stored tasks drop their default fields; task() restores them
    assert "table" not in stored["runs"][0]["task"] and task(**stored["runs"][0]["task"])["table"] == "private"
    errs = sorted(r["result"]["error"] for r in stored["runs"] if r["task"]["method"] == "hard"
                  and r["task"]["n"] == 3000)
    assert f"{np.mean(errs):.3f}" in text


def test_tasks_follow_the_new_default_reading_and_the_engine_makes_the_release():
    """Issue 12: task defaults = DESIGN §3's reading (children 1, top release, by the engine);
    the previous reading is the named schedule 'hybrid-256x3'; defaults stay out of the key."""
    import dataclasses

    from blowfish_core.algorithm.evolution import SynthConfig
    from experiments.common import engine_supports, synth_config

    base = dict(dataset="xor3", method="bf-soft", rho=1e-3, tau=0.03, seed=1)
    cfg = synth_config(task(**base))
    assert (cfg.children, cfg.release_mode) == (1, "top")
    old = synth_config(task(schedule="hybrid-256x3", **base))
    assert (old.children, old.release_mode) == (3, "sample")
    key = task_key(task(**base))
    for f in ("children", "release_rule", "rank_by", "mutation_index", "schedule"):
        assert f not in key                          # defaults stay out of the key
    assert task_key(task(schedule="hybrid-256x3", **base)) != key
    fields = {f.name for f in dataclasses.fields(SynthConfig)}
    raw = task(rank_by="raw", **base)
    if "rank_by" in fields:
        assert synth_config(raw).rank_by == "raw"
    else:                                            # an engine without the option refuses, naming the field
        assert not engine_supports(raw)
        with pytest.raises(ValueError, match="rank_by"):
            synth_config(raw)
    top = execute(task(**base))
    sample = execute(task(release_rule="sample", **base))
    assert top["calibration"] == sample["calibration"] == {"bound": 8}
    assert 0 <= top["error"] <= 2 and top["error"] != sample["error"]


def test_crossing_check_ratio_and_within_factor_exact():
    from experiments.findings import crossing_check

    c = crossing_check(1e-3, 1.5e-3)                     # strict default: 1.5x (issue 26), boundary inclusive
    assert c["ratio"] == pytest.approx(1.5) and c["ratio_text"] == "1.50" and c["within"]
    c = crossing_check(2.7e-3, 4.4e-3)                   # Bank τ = 0.015: 1.63x off
    assert c["ratio_text"] == "1.63" and not c["within"]
    c = crossing_check(1e-3, 2e-3, factor=2.0)           # the issue-12 table's lenient factor
    assert c["ratio"] == pytest.approx(2.0) and c["within"]
    assert crossing_check(4e-4, 1.1e-3, factor=2.0)["within"] is False
    assert crossing_check(2.2e-3, 1.1e-3, factor=2.0)["within"] is True
    assert crossing_check(2.3e-3, 1.1e-3, factor=2.0)["within"] is False
    assert crossing_check(None, 1e-3) == {"ratio": None, "ratio_text": "—", "within": False}


def test_must_show_table_says_which_claims_fail():
    """The issue-12 checks table on a synthetic stats dict: yes/no and the failed list come from the data."""
    from experiments.findings import must_show

    taus = {"0.015": {"crossing_rho": 1.4e-3}, "0.03": {"crossing_rho": 8.4e-4}, "0.06": {"crossing_rho": 1e-4}}
    red = lambda m, lo, hi: {"mean": m, "lo": lo, "hi": hi, "n": 12}  # noqa: E731
    summ = {"fig2": {"datasets": {"adult": {"taus": taus}}},
            "trainsize": {"rows": [{"n": 12000, "reduction": red(27.5, 20.0, 35.0)},
                                   {"n": 48000, "reduction": red(-3.0, -9.0, 3.0)},
                                   {"n": 100000, "reduction": red(-77.0, -90.0, -60.0)}]}}
    table, failed = must_show(summ)
    lines = table.splitlines()
    assert len(lines) == 2 + 3 + 3
    assert "| adult crossing at τ = 0.015 within 2× of Table 4 | 2.0e-3 | 1.4e-3 | 1.43 | yes |" in lines
    assert "| adult crossing at τ = 0.03 within 2× of Table 4 | 1.1e-3 | 8.4e-4 | 1.31 | yes |" in lines
    assert "| adult crossing at τ = 0.06 within 2× of Table 4 | 5.5e-4 | 1.0e-4 | 5.50 | no |" in lines
    assert failed == ["adult crossing at τ = 0.06 within 2× of Table 4",
                      "XOR-3 training size n = 48,000: mean reduction positive"]
    assert any(line.startswith("| XOR-3 training size n = 100,000: mean reduction negative") and
               line.endswith("| yes |") for line in lines)


def test_fig6b_pilot_choice_uses_pilot_runs_only():
    """Stage 2 of fig6b is planned from the pilot's runs: lowest mean pilot error, ties to Hard."""
    from experiments import exp_fig6b
    from experiments.common import PILOT_N  # noqa: F401

    sc = {"rhos": [1e-4], "policies": ["balance"], "target_seeds": [0, 1], "pilot_seeds": [100, 101]}
    nt = 27126
    kw = exp_fig6b._pilot_kw(1e-4, "balance", nt)
    taus = exp_fig6b.taus_for("balance")
    assert len(taus) == 9 and 0.003 in taus and 0.6 in taus      # App. F.8: 8 listed + the q = 0.2 tau
    res = {task_key(task(method="hard", seed=s, **kw)): {"error": 0.5} for s in sc["pilot_seeds"]}
    for tau in taus:
        for s in sc["pilot_seeds"]:
            res[task_key(task(method="bf-soft", tau=tau, seed=s, **kw))] = {"error": 0.3 if tau == 0.015 else 0.6}
    rec = exp_fig6b.choose(res, sc, "balance", 1e-4, nt)
    assert (rec.method, rec.tau) == ("bf-soft", 0.015)
    for tau in taus:                                   # a tie with Hard goes to Hard
        for s in sc["pilot_seeds"]:
            res[task_key(task(method="bf-soft", tau=tau, seed=s, **kw))] = {"error": 0.5}
    assert exp_fig6b.choose(res, sc, "balance", 1e-4, nt).method == "hard"


def test_level_variants_well_formed():
    """exp_level (issue 26): every variant is a parameter set the engine/data/metric accept; quick scale is small."""
    from blowfish_core.algorithm.evolution import SynthConfig
    from experiments import exp_level

    assert run.EXPERIMENTS["level"] is exp_level and "level" in report.ORDER
    q = exp_level.SCALES["quick"]
    assert q["datasets"] == ["adult", "bank"] and len(q["seeds"]) <= 2
    assert exp_level.SCALES["full"]["seeds"] == list(range(8))
    labels = [v[1] for v in exp_level.VARIANTS]
    assert len(set(labels)) == len(labels) and exp_level.VARIANTS[0] == (
        "default", "default", exp_level.VARIANTS[0][2], {})
    cands = {v[0] for v in exp_level.VARIANTS}
    assert all(0 < spec.get("rho", 1e-4) < 1 for *_, spec in exp_level.VARIANTS)
    assert {"split", "preprocessing", "metric", "initial population", "release size", "clipping"} <= cands
    for _, label, _, spec in exp_level.VARIANTS:
        assert set(spec) <= {"data", "config", "metric", "rho"} and spec != {} or label == "default"
        SynthConfig(**spec.get("config", {})).validate()
        assert set(spec.get("data", {})) <= {"split", "drop_missing", "ordinal_as"}
        assert set(spec.get("metric", {})) <= {"bins", "cells"}


def test_level_metric_flags_change_what_they_claim():
    """Hand-checked: real (0, a), (10, b); synthetic (4, a), (6, b); x on [0, 10]."""
    import pandas as pd

    from blowfish_core.model.schema import Attribute, Schema
    from experiments import exp_level

    s = Schema([Attribute("x", "numeric", lo=0, hi=10, integer=True), Attribute("y", "binary", levels=["a", "b"])])
    R = s.encode(pd.DataFrame({"x": [0, 10], "y": ["a", "b"]}))
    S = s.encode(pd.DataFrame({"x": [4, 6], "y": ["a", "b"]}))
    assert exp_level.score(s, R, S, {"bins": 2}) == 0.0          # 2 bins: 4 | 6 fall with 0 | 10
    assert exp_level.score(s, R, S, {"bins": 5}) == 2.0          # 5 bins: four different cells
    assert exp_level.score(s, R, S, {"bins": 5, "cells": "tv"}) == 1.0
    assert exp_level.score(s, R, S, {"bins": 5, "cells": "support"}) == 1.0
    assert exp_level.score(s, R, S, {"bins": "exact"}) == 2.0
    assert exp_level.score(s, R, S) == 2.0                       # default: 20 bins, l1
    assert exp_level.variant_schema("adult", "categorical")["education.num"].kind == "categorical"
    assert exp_level.variant_schema("adult", "numeric")["education.num"].kind == "numeric"
    with pytest.raises(ValueError, match="text levels"):
        exp_level.variant_schema("bank", "numeric")


@pytest.mark.skipif(not os.path.exists(os.path.join(os.path.dirname(os.path.dirname(__file__)), "..", "shared",
                                                    "data", "adult.csv")), reason="needs ../shared/data/adult.csv")
def test_level_drop_missing_counts():
    """UCI Adult: 1,836 rows with workclass '?', 30,162 complete rows (held constants); private = floor(0.8 n)."""
    from experiments import exp_level

    assert len(exp_level.variant_private("adult", {})) == 26048
    assert len(exp_level.variant_private("adult", {"drop_missing": "five"})) == int(0.8 * (32561 - 1836))
    assert len(exp_level.variant_private("adult", {"drop_missing": "all"})) == int(0.8 * 30162)
    head = exp_level.variant_private("adult", {"split": "head"})
    assert len(head) == 26048 and head["age"].iloc[0] == 39   # file order: the first row of adult.csv


def test_matched_settings_match_q_and_follow_app_f4():
    """exp_matched (App. F.4): q = 0.1806 (Adult, Bank) / 0.9453 (XOR-3) at all three (tau, theta); 25 x 6 scale."""
    from blowfish_core.io.presets import get_preset
    from blowfish_core.model.policy import record_reach
    from blowfish_core.model.sensitivity import noise_ratio
    from experiments import exp_matched

    assert run.EXPERIMENTS["fig8"] is exp_matched and "fig8" in report.ORDER
    full = exp_matched.SCALES["full"]
    assert len(full["rhos"]) == 25 and full["rhos"][0] == 1e-5 and full["rhos"][-1] == 1.0
    assert full["seeds"] == list(range(6))
    for d, (attr, settings) in exp_matched.SETTINGS.items():
        pre = get_preset(d)
        assert pre.default_protected == [attr]
        for tau, theta in settings:
            pol = pre.policy_with(exp_matched.protect(d, theta))
            assert pol.per_attribute[attr].theta == theta and list(pol.per_attribute) == [attr]
            assert noise_ratio(record_reach(pre.schema, pol), tau) == pytest.approx(exp_matched.PAPER_Q[d], abs=1e-4)


def test_matched_difference_test_on_constructed_numbers():
    from experiments import exp_matched

    assert exp_matched.paired_p([0.0, 0.0, 0.0]) == 1.0
    assert exp_matched.paired_p([0.1, 0.1, 0.1]) < 1e-12
    assert exp_matched.paired_p([1.0, -1.0, 1.0, -1.0]) == pytest.approx(1.0)
    assert exp_matched.holm([0.01, 0.04, 0.03]) == [True, False, False]     # 0.01 <= 0.05/3; 0.03 > 0.05/2
    assert exp_matched.holm([0.01, 0.02, 0.04]) == [True, True, True]       # 0.01/3, 0.02/2, 0.04/1 pass
    assert exp_matched.holm([]) == []


def test_matched_tiny_run_reports_pairs():
    """XOR-3 at two budgets and two seeds: three pairs x two budgets tested, Hard the same under every theta."""
    from experiments import exp_matched

    sc = {"rhos": [1e-4, 1.0], "seeds": [0, 1], "hard": True, "datasets": ["xor3"]}
    res, _ = run_tasks(exp_matched.plan(sc))
    summ = exp_matched.analyze(res, sc)
    dv = summ["datasets"]["xor3"]
    assert len(dv["pairs"]) == 3 and dv["tests"] == 6 and dv["q_spread"] < 1e-9
    assert dv["hard_identical_across_theta"] is True          # every round crosses: Hard = sqrt(2) under all three
    assert "## 15. Matched noise ratios" in exp_matched.section(summ, {"scale": sc})


def test_tempreach_grid_and_population_cycle():
    """exp_tempreach (App. F.6 / F.2): 4 x 12 = 48 settings per panel, 6 runs cycling through 3 populations."""
    from experiments import exp_tempreach

    assert run.EXPERIMENTS["fig10"] is exp_tempreach and "fig10" in report.ORDER
    full = exp_tempreach.SCALES["full"]
    assert len(full["taus"]) * len(full["thetas"]) == 48 and {0.003, 0.01} <= set(full["taus"])
    assert full["rhos"] == [0.03, 0.18, 1.0] and full["seeds"] == list(range(6))
    assert [exp_tempreach.population(s) for s in range(6)] == [0, 1, 2, 0, 1, 2]
    tasks = exp_tempreach.plan(full)
    assert len(tasks) == 3 * 4 * 6 * 13
    assert all(t["data_seed"] == t["seed"] % 3 for t in tasks)


def test_tempreach_argmax_and_ties_on_constructed_numbers():
    """Constructed errors: the largest gain, its ties over theta and r/(2 tau) are read off the cells."""
    from experiments import exp_tempreach

    sc = {"rhos": [0.03], "thetas": [1, 2], "taus": [0.003, 0.03], "seeds": [0, 1, 2]}
    res = {}
    for t in exp_tempreach.plan(sc):
        e = 0.5 if t["method"] == "hard" else (0.25 if t["tau"] == 0.003 else 0.5 + 0.01 * t["seed"])
        res[task_key(t)] = {"error": e}
    p = exp_tempreach.analyze(res, sc)["panels"]["0.03"]
    assert p["best_gain"] == pytest.approx(50.0)
    assert {(b["tau"], b["theta"]) for b in p["best"]} == {(0.003, 1), (0.003, 2)}
    assert p["best_r2t_above_5"] is True and p["best_at_paper_setting"] is True   # (1/28)/0.006 = 5.95
    assert p["settings_above_0"] == 2


def test_hours_alone_reach_is_app_f8s():
    """App. F.8: hours.per.week alone (threshold 8 hours) has record-level reach 0.0163 (= 16/98 / 10)."""
    from experiments import checks

    assert checks.hours_alone_reach() == pytest.approx(0.0163, abs=5e-5)
