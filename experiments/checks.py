"""Strict checks of every quantitative claim of papers/000 §6 and App. F (issue 26).

    python -m experiments.checks [--results DIR] [--out results/checks.json]

(``python -m experiments.report`` also writes it.)  The output, ``results/checks.json``, is a
contract read by checks outside the repository: a JSON list with one object per claim,
exactly the keys ``claim`` (str), ``paper`` (the paper's value or interval as stated),
``ours`` (our value or interval, None when the experiment was not run), ``ratio`` (float
ours / paper, or None), ``criterion`` (str) and ``holds`` (bool).

Criteria (issue 26):

* crossing budgets: within a factor 1.5, ``1/1.5 <= ours/paper <= 1.5`` (boundaries inclusive);
* gains and other stated numbers: our point estimate inside the paper's interval when the paper
  gives one, else within a factor 1.5;
* signs and shapes as stated, the number of sign changes included;
* a claim with no stored result: ``ours`` None, ``holds`` False, criterion "not run ...".

The paper's numbers are the held constants of experiments/paper.py (plus the few stated
only in the text, below, each citing its place); nothing here recomputes them.  The
Table 4 crossings carry a percentile bootstrap over the paired seeds (``bootstrap_crossing``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any

import numpy as np

from blowfish_core.io import atomic
from blowfish_core.model.metrics import crossing_budget

from . import paper
from .common import RESULTS_DIR, ci, fmt_sci, lookup, task, task_key

#: the tolerance factor for crossings and for numbers stated without an interval (issue 26)
FACTOR = 1.5
#: bootstrap resamples and seed for the crossing intervals
N_BOOT = 2000
BOOT_SEED = 26
CHECKS_NAME = "checks.json"
KEYS = ("claim", "paper", "ours", "ratio", "criterion", "holds")

#: numbers stated in the text of papers/000 but not in experiments/paper.py's tables
TEXT = {
    "eps_examples": {1e-4: 0.07, 6e-4: 0.17, 3e-3: 0.37},           # §6.1 "Measures and protocol"
    "budget_factor_adult_tau003": 10.0,                              # §6.1 "roughly 10x the privacy budget"
    "q_adult_tau003": 0.31,                                          # §6.1 and §6.2.5
    "pilot_factor_adult": 75.0,                                      # §6.2.4 "about 75x the target budget"
    "xor3_abs_improvement_1e4": 0.0022,                              # App. F.5
    "fig6b_all_five_q_3e3": 1.0,                                     # §6.2.5 "q = 1"
    "trainsize_q": 0.5337,                                           # App. F.9
    "fig7_measurements": 1320,                                       # §6.2.6, App. F.2
    "fig7_tau_1pct": 20.0,                                           # §6.2.6 "at tau >= 20 both below 1% of sqrt(2)"
    "fig6a_holm_p_all_five": 0.174,                                  # §6.2.5
    "fig6b_holm_p_all_five": 0.613,                                  # §6.2.5
    "fig6b_all_five_tau_1e4": 0.001,                                 # §6.2.5
    "f6_gains": {0.03: 39.8, 0.18: 40.4, 1.0: 19.9},                 # §6.2.2 / App. F.6
    "f6_eps": {0.03: 1.2, 0.18: 3.1, 1.0: 7.8},                      # §6.2.2 / App. F.6
    "f4_q": {"adult": 0.1806, "bank": 0.1806, "xor3": 0.9453},       # App. F.4
    "n_private": {"adult": 26048, "bank": 27126, "xor3": 12000},     # §6.1 "Datasets"
    "reach": {"adult": 0.0192, "bank": 0.0171, "xor3": 1 / 28},      # §6.1 "Policies and reach"
    "reach_hours": 0.0163,                                           # App. F.8
    "fig7b": {"reaches": 6, "seeds": 12},                            # App. F.2 (Figure 7b)
}


# ------------------------------------------------------------------ criteria
def within_factor(ours: float | None, paper_value: float | None, factor: float = FACTOR) -> tuple[float | None, bool]:
    """(ours / paper, whether 1/factor <= ours/paper <= factor); (None, False) without two positive numbers.

    Boundaries are inclusive: ours = 1.5 x paper holds, anything larger fails.  A ratio of
    values with opposite signs, or with a zero, is None and does not hold.
    """
    if ours is None or paper_value is None or paper_value == 0 or ours == 0:
        return None, False
    r = float(ours) / float(paper_value)
    if r <= 0:
        return r, False
    return r, (1.0 / factor) <= r <= factor


def inside_interval(x: float | None, lo: float, hi: float) -> bool:
    """True iff the point estimate x lies in the closed interval [lo, hi] (False for None)."""
    return x is not None and lo <= x <= hi


def count_sign_changes(values) -> int:
    """Number of sign changes along a sequence; exact zeros are skipped (they do not change the sign)."""
    s = [math.copysign(1.0, v) for v in values if v != 0 and not math.isnan(v)]
    return sum(1 for a, b in zip(s, s[1:]) if a != b)


# ------------------------------------------------------------------ bootstrap of the crossings
def bootstrap_crossing(rhos, hard, soft, n_boot: int = N_BOOT, seed: int = BOOT_SEED) -> dict[str, Any]:
    """Point crossing and a percentile bootstrap over paired seeds.

    rhos: the R budgets in sweep order; hard, soft: arrays (S seeds, R budgets) of errors, row s
    of both from the same paired seed.  Each resample draws S seed indices with replacement
    (the same draw for every budget and both methods, so the pairing is kept), recomputes
    the mean curves, the first crossing (``metrics.crossing_budget``, the point rule: first
    sign change of mean(E_S - E_H), linear in log rho), the last crossing and the number of
    sign changes.  Returns point values, 95% percentile intervals over the resamples that have
    a crossing, the share without one, the distribution of sign-change counts, and per
    budget the paired mean difference with its Student-t interval.
    """
    rhos = [float(r) for r in rhos]
    h, s = np.asarray(hard, dtype=float), np.asarray(soft, dtype=float)
    d = s - h
    rng = np.random.default_rng(seed)
    first, last, changes = [], [], []
    for _ in range(n_boot):
        idx = rng.integers(0, d.shape[0], d.shape[0])
        hm, sm = h[idx].mean(axis=0), s[idx].mean(axis=0)
        first.append(crossing_budget(rhos, hm, sm))
        last.append(crossing_budget(rhos[::-1], hm[::-1], sm[::-1]))
        changes.append(count_sign_changes(sm - hm))

    def pct(v):
        x = np.array([a for a in v if a is not None])
        if not len(x):
            return None
        return [float(np.exp(np.percentile(np.log(x), 2.5))), float(np.exp(np.percentile(np.log(x), 97.5)))]

    hm, sm = h.mean(axis=0), s.mean(axis=0)
    dist: dict[str, float] = {}
    for k in sorted(set(changes)):
        dist[str(k)] = changes.count(k) / n_boot
    per_rho = [{"rho": r, **{k: v for k, v in ci(d[:, j]).items() if k != "n"},
                "share_soft_worse": float(np.mean([1.0 if x > 0 else 0.0 for x in
                                                   _boot_means(d[:, j], n_boot, seed)]))}
               for j, r in enumerate(rhos)]
    return {"rho": crossing_budget(rhos, hm, sm), "ci95": pct(first),
            "no_crossing_share": sum(1 for a in first if a is None) / n_boot,
            "last_rho": crossing_budget(rhos[::-1], hm[::-1], sm[::-1]), "last_ci95": pct(last),
            "sign_changes": count_sign_changes(sm - hm), "boot_sign_changes": dist,
            "n_boot": n_boot, "seeds": int(d.shape[0]), "per_rho": per_rho}


def _boot_means(x, n_boot: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.asarray(x, dtype=float)
    return x[rng.integers(0, len(x), (n_boot, len(x)))].mean(axis=1)


def fig2_crossings(stored: dict, n_boot: int = N_BOOT) -> dict[str, dict[str, dict]]:
    """Bootstrap crossings of the nine dataset x tau cells from the stored fig2 runs: d -> tau -> dict."""
    results = {task_key(task(**r["task"])): r["result"] for r in stored["runs"]}
    out: dict[str, dict[str, dict]] = {}
    for d, g in stored["scale"]["grids"].items():
        rhos, seeds = g["rhos"], g["seeds"]
        try:
            hard = [[lookup(results, dataset=d, method="hard", rho=r, seed=s)["error"] for r in rhos] for s in seeds]
        except KeyError:
            continue
        out[d] = {}
        for tau in paper.FIG2_SETTING["taus"]:
            soft = [[lookup(results, dataset=d, method="bf-soft", rho=r, tau=tau, seed=s)["error"] for r in rhos]
                    for s in seeds]
            out[d][str(tau)] = bootstrap_crossing(rhos, hard, soft, n_boot=n_boot)
    return out


# ------------------------------------------------------------------ rows
def _row(claim: str, paper_v, ours, ratio, criterion: str, holds: bool) -> dict:
    return {"claim": claim, "paper": paper_v, "ours": ours,
            "ratio": None if ratio is None else float(ratio), "criterion": criterion, "holds": bool(holds)}


def _factor_row(claim: str, paper_v: float, ours_v: float | None, what: str = "") -> dict:
    if ours_v is None:
        return _not_run(claim, paper_v, "the stored results have no such value")
    r, ok = within_factor(ours_v, paper_v)
    return _row(claim, paper_v, ours_v, r,
                f"within {FACTOR:g}x of the paper's value (no interval stated){what}", ok)


def _interval_row(claim: str, paper_v: float, paper_ci, ours: dict | None) -> dict:
    if ours is None:
        return _not_run(claim, {"value": paper_v, "ci95": list(paper_ci)}, "the stored results have no such cell")
    r, _ = within_factor(ours["mean"], paper_v)
    return _row(claim, {"value": paper_v, "ci95": list(paper_ci)},
                {"value": ours["mean"], "ci95": [ours["lo"], ours["hi"]]}, r,
                "our point estimate inside the paper's 95% interval", inside_interval(ours["mean"], *paper_ci))


def _shape_row(claim: str, paper_v, ours, holds: bool, criterion: str) -> dict:
    return _row(claim, paper_v, ours, None, "shape as stated: " + criterion, holds)


def _not_run(claim: str, paper_v, why: str = "") -> dict:
    return _row(claim, paper_v, None, None, "not run: " + (why or "no stored result for this experiment"), False)


def _scale_row(claim: str, paper_v: dict, ours_v: dict | None) -> dict:
    if ours_v is None:
        return _not_run(claim, paper_v)
    ok = all(ours_v.get(k) is not None and ours_v[k] >= v for k, v in paper_v.items())
    return _row(claim, paper_v, ours_v, None, "scale as App. F.2 states (every count at least the paper's)", ok)


# ------------------------------------------------------------------ the claims
def build(summaries: dict, loaded: dict, boot: dict | None = None) -> list[dict]:
    """Every row of checks.json from the re-analysed summaries (report.summarize) and the stored results."""
    rows: list[dict] = []
    rows += _fig2_rows(summaries.get("fig2"), boot or {}, loaded.get("fig2"))
    rows += _fig3_rows(summaries.get("fig3"), loaded.get("fig3"))
    rows += _fig4_rows(summaries.get("fig4"), loaded.get("fig4"))
    rows += _pilot_rows(summaries.get("pilot"), loaded.get("pilot"))
    rows += _fig6a_rows(summaries.get("fig6a"), loaded.get("fig6a"))
    rows += _fig6b_rows(summaries.get("fig6b"), loaded.get("fig6b"))
    rows += _fig7_rows(summaries.get("fig7"))
    q_xor = summaries.get("fig2", {}).get("datasets", {}).get("xor3", {}).get("taus", {}).get("0.03", {}).get("q")
    rows += _trainsize_rows(summaries.get("trainsize"), loaded.get("trainsize"), q_xor)
    rows += _fig8_rows(summaries.get("fig8"), loaded.get("fig8"))
    rows += _fig10_rows(summaries.get("fig10"), loaded.get("fig10"))
    return rows


def _fig2_rows(f2: dict | None, boot: dict, st: dict | None) -> list[dict]:
    rows: list[dict] = []
    ds_all = (f2 or {}).get("datasets", {})
    for d in ("adult", "bank", "xor3"):
        ds = ds_all.get(d)
        g = (st or {}).get("scale", {}).get("grids", {}).get(d)
        rows.append(_scale_row(f"App. F.2 / §6.2.1: Figure 2 sweep on {d}: 17 budgets in [1e-5, 1], 12 paired runs",
                               {"budgets": paper.FIG2_SETTING["budgets"], "seeds": paper.FIG2_SETTING["seeds"]},
                               None if g is None else {"budgets": len(g["rhos"]), "seeds": len(g["seeds"])}))
        n_ours = None
        for r in (st or {}).get("runs", []):
            if r["task"]["dataset"] == d and r["task"].get("table", "private") == "private":
                n_ours = r["result"].get("n")
                break
        rows.append(_factor_row(f"§6.1: {d}: private training records", TEXT["n_private"][d], n_ours))
        rows.append(_factor_row(f"§6.1: {d}: default policy's record-level reach", TEXT["reach"][d],
                                None if ds is None else ds.get("reach")))
        for tau in paper.FIG2_SETTING["taus"]:
            pq, prho, peps = paper.TABLE4[d][tau]
            tv = ds["taus"].get(str(tau)) if ds else None
            name = f"Table 4: {d} τ = {tau}"
            if tv is None:
                rows += [_not_run(f"{name}: crossing ρ×", prho), _not_run(f"{name}: q", pq),
                         _not_run(f"{name}: shape", "lower at 1e-5, higher at 1, one sign change")]
                continue
            b = boot.get(d, {}).get(str(tau), {})
            ours = {"rho": tv["crossing_rho"], "ci95": b.get("ci95"), "no_crossing_share": b.get("no_crossing_share"),
                    "last_rho": tv.get("last_crossing_rho"), "last_ci95": b.get("last_ci95"),
                    "eps_eq1": tv.get("crossing_eps_eq1"), "paper_eps_eq1": peps,
                    "sign_changes": tv["sign_changes"], "boot_sign_changes": b.get("boot_sign_changes"),
                    "paper_inside_ci95": bool(b.get("ci95") and b["ci95"][0] <= prho <= b["ci95"][1]),
                    "seeds": len(ds["seeds"]), "budgets": len(ds["rhos"]), "n_boot": b.get("n_boot")}
            r, ok = within_factor(tv["crossing_rho"], prho)
            rows.append(_row(f"{name}: crossing ρ× (first sign change of mean(E_S − E_H), linear in log ρ)", prho,
                             ours, r, f"crossing within {FACTOR:g}x: 1/{FACTOR:g} <= ours/paper <= {FACTOR:g} "
                             "(point estimate; ci95 = percentile bootstrap over paired seeds)", ok))
            rows.append(_factor_row(f"{name}: noise ratio q", pq, tv["q"]))
            rows.append(_factor_row(f"{name}: ε at the crossing (Eq. (1), δ = 1e-5)", peps, tv.get("crossing_eps_eq1"),
                                    " (a function of the crossing ρ; ε grows about as √ρ)"))
            one = tv["soft_better_at_min"] and tv["soft_worse_at_max"] and tv["sign_changes"] == 1
            rows.append(_shape_row(f"§6.2.1 / Table 4: {d} τ = {tau}: BF-Soft lower at ρ = 1e-5, higher at ρ = 1, "
                                   "one sign change", {"lower_at_1e-5": True, "higher_at_1": True, "sign_changes": 1},
                                   {"lower_at_1e-5": tv["soft_better_at_min"], "higher_at_1": tv["soft_worse_at_max"],
                                    "sign_changes": tv["sign_changes"],
                                    "boot_sign_changes": b.get("boot_sign_changes")},
                                   one, "lower at the smallest budget, higher at the largest, exactly 1 sign change "
                                        "of the mean difference"))
        if ds is not None and d in ("adult", "bank"):
            cr = [ds["taus"][str(t)]["crossing_rho"] for t in paper.FIG2_SETTING["taus"]]
            ok = all(c is not None for c in cr) and all(cr[i + 1] < cr[i] for i in range(len(cr) - 1))
            rows.append(_shape_row(f"§6.2.1: {d} crossings shift downward as τ grows (0.015 → 0.03 → 0.06)",
                                   [paper.TABLE4[d][t][1] for t in paper.FIG2_SETTING["taus"]], cr, ok,
                                   "strictly decreasing in τ"))
        if ds is not None:
            cal = ds["hard_calibration"]
            ok = set(cal) == {"certified-crossing"}
            rows.append(_shape_row(f"§6.1: every checked round of the {d} fixed-temperature Hard runs had a protected "
                                   "boundary crossing (Δ = √2)", "every round √2", cal, ok,
                                   "every round's calibration is a certified crossing"))
    return rows


def _fig3_rows(f3: dict | None, st: dict | None) -> list[dict]:
    rows: list[dict] = []
    rows.append(_scale_row("App. F.2 / §6.2.2: temperature sweeps use 20 temperatures in [0.00025, 0.4] and 6 seeds",
                           {"temperatures": paper.FIG3_SETTING["temperatures"], "seeds": paper.FIG3_SETTING["seeds"]},
                           None if st is None else {"temperatures": len(st["scale"]["taus"]),
                                                    "seeds": len(st["scale"]["seeds"])}))
    ds_all = (f3 or {}).get("datasets", {})
    lo_r, hi_r = 0.002, 0.05
    for d in ("adult", "bank", "xor3"):
        for rho in (1e-4, 6e-4, 3e-3):
            rv = ds_all.get(d, {}).get("rhos", {}).get(str(rho))
            claim = (f"§6.2.2: {d} ρ = {rho:g}: lowest sampled BF-Soft mean at an interior τ in [0.002, 0.05] "
                     "and below Hard")
            if rv is None:
                rows.append(_not_run(claim, "interior τ in [0.002, 0.05], below Hard"))
                continue
            ok = rv["best_interior"] and lo_r <= rv["best_tau"] <= hi_r and rv["best_mean"] < rv["hard"]["mean"]
            rows.append(_shape_row(claim, "interior τ in [0.002, 0.05], below Hard",
                                   {"best_tau": rv["best_tau"], "best_mean": rv["best_mean"],
                                    "hard_mean": rv["hard"]["mean"], "interior": rv["best_interior"]}, ok,
                                   "best tested τ not at either end of the grid, inside [0.002, 0.05], mean below "
                                   "Hard's"))
    for rho, v in TEXT["eps_examples"].items():
        rv = next((ds_all[d]["rhos"][str(rho)] for d in ds_all if str(rho) in ds_all[d]["rhos"]), None)
        rows.append(_factor_row(f"§6.1: ε at δ = 1e-5 by Eq. (1) for ρ = {rho:g}", v,
                                None if rv is None else rv["epsilon_eq1"]))
    for d in ("adult", "bank", "xor3"):
        ds = ds_all.get(d, {}).get("rhos", {})
        for rho in (1e-4, 3e-3):
            p = paper.FIG3[d][rho]
            rv = ds.get(str(rho))
            tag = f"§6.2.2{' / App. F.5' if d != 'bank' else ''}: {d} ρ = {rho:g}"
            for key, name, ours_key in (("hard", "Hard mean error", None), ("best", "best tested BF-Soft mean", "best_mean"),
                                        ("reduction", "best-of-sweep reduction of means (%)", "best_reduction_of_means"),
                                        ("tau", "best tested τ", "best_tau"), ("q", "q at the best τ", "best_q")):
                if p.get(key) is None:
                    continue
                o = None if rv is None else (rv["hard"]["mean"] if key == "hard" else rv[ours_key])
                rows.append(_factor_row(f"{tag}: {name}", p[key], o))
    for d, rho in (("adult", 1e-4), ("bank", 6e-4)):
        rv = ds_all.get(d, {}).get("rhos", {}).get(str(rho))
        claim = f"§6.2.2: {d} at ρ = {rho:g} stays below Hard for every tested τ in [0.004, 0.05]"
        if rv is None:
            rows.append(_not_run(claim, "every τ in [0.004, 0.05] below Hard"))
            continue
        sel = [x for x in rv["soft"] if 0.004 <= x["tau"] <= 0.05]
        above = [x["tau"] for x in sel if x["mean"] >= rv["hard"]["mean"]]
        rows.append(_shape_row(claim, "every τ in [0.004, 0.05] below Hard",
                               {"taus_tested": [x["tau"] for x in sel], "taus_not_below": above}, not above and bool(sel),
                               "every tested τ in [0.004, 0.05] has a mean below Hard's"))
    for d in ("adult", "bank"):
        ds = ds_all.get(d, {}).get("rhos", {})
        bt = [ds[str(r)]["best_tau"] for r in (1e-4, 6e-4, 3e-3) if str(r) in ds]
        claim = f"§6.2.2: {d}: the best τ falls as ρ grows (1e-4 → 6e-4 → 3e-3)"
        if len(bt) < 3:
            rows.append(_not_run(claim, "falls"))
            continue
        rows.append(_shape_row(claim, "falls", bt, bt[0] > bt[1] > bt[2], "strictly decreasing over the three budgets"))
    for rho in (1e-4, 6e-4):
        rv = ds_all.get("xor3", {}).get("rhos", {}).get(str(rho))
        claim = f"§6.2.2: XOR-3 ρ = {rho:g}: the paired interval (best tested τ) includes zero"
        if rv is None:
            rows.append(_not_run(claim, "includes 0"))
            continue
        pr = rv["best_paired_reduction"]
        rows.append(_shape_row(claim, "includes 0", {"value": pr["mean"], "ci95": [pr["lo"], pr["hi"]]},
                               pr["lo"] <= 0 <= pr["hi"], "95% paired interval of R at the best τ contains 0"))
    rv = ds_all.get("xor3", {}).get("rhos", {}).get(str(1e-4))
    rows.append(_factor_row("App. F.5: XOR-3 ρ = 1e-4: absolute improvement at the best tested setting",
                            TEXT["xor3_abs_improvement_1e4"],
                            None if rv is None else rv["hard"]["mean"] - rv["best_mean"]))
    f2q = None
    if "adult" in ds_all:
        f2q = 1.0 / (ds_all["adult"]["rhos"][str(1e-4)]["soft"][[x["tau"] for x in ds_all["adult"]["rhos"][str(1e-4)]
                                                                   ["soft"]].index(0.03)]["q"] ** 2)
    rows.append(_factor_row("§6.1: Adult τ = 0.03: BF-Soft's noise equals Hard's at about 10x the budget (1/q²)",
                            TEXT["budget_factor_adult_tau003"], f2q))
    return rows


def _fig4_rows(f4: dict | None, st: dict | None) -> list[dict]:
    rows = [_scale_row("App. F.2 / §6.2.3: the decomposition uses twelve paired runs", {"seeds": 12},
                       None if st is None else {"seeds": len(st["scale"]["seeds"])})]
    ds_all = (f4 or {}).get("datasets", {})
    for d in ("adult", "bank"):
        ds = ds_all.get(d)
        if ds is None:
            rows += [_not_run(f"§6.2.3: {d}: C > 0 at every budget", "C > 0"),
                     _not_run(f"§6.2.3: {d}: as ρ grows N decreases while C grows", "N falls, C grows")]
            continue
        c = [r["C"]["mean"] for r in ds["rows"]]
        n = [r["N"]["mean"] for r in ds["rows"]]
        rows.append(_shape_row(f"§6.2.3: {d} (τ = {ds['tau']}): C > 0 at every budget", "C > 0 at every budget",
                               {"C": c}, all(x > 0 for x in c), "mean C > 0 at every tested budget"))
        rows.append(_shape_row(f"§6.2.3: {d}: as ρ grows N decreases while C grows", "N decreases, C grows",
                               {"N": n, "C": c}, all(b < a for a, b in zip(n, n[1:])) and
                               all(b > a for a, b in zip(c, c[1:])),
                               "mean N strictly decreasing and mean C strictly increasing over the budgets"))
        g = [r["G"]["mean"] for r in ds["rows"]]
        rows.append(_shape_row(f"§6.2.3: {d}: the strong-privacy gain comes from noise reduction (N > 0 wherever G > 0)",
                               "N > 0 where G > 0", {"G": g, "N": n},
                               all(nn > 0 for gg, nn in zip(g, n) if gg > 0) and any(gg > 0 for gg in g),
                               "mean N > 0 at every budget with mean G > 0 (and some G > 0)"))
    ds = ds_all.get("xor3")
    if ds is None:
        rows.append(_not_run("§6.2.3: XOR-3: N first rises and then falls", "rises then falls"))
    else:
        n = [r["N"]["mean"] for r in ds["rows"]]
        k = count_sign_changes(np.diff(n))
        rows.append(_shape_row("§6.2.3: XOR-3 (τ = 0.02): N first rises and then falls", "rises then falls (1 turn)",
                               {"N": n, "turns": k}, k == 1 and n[1] > n[0],
                               "the increments of mean N over the budgets change sign exactly once, rising first"))
    return rows


def _pilot_rows(pi: dict | None, st: dict | None) -> list[dict]:
    sc = None if st is None else st["scale"]
    rows = [_scale_row("§6.2.4 / App. F.2: public pilot on the original 210-setting Adult grid, 3 pilot seeds, "
                       "6 paired target seeds", {"settings": paper.PILOT["settings"], "pilot_seeds": 3,
                                                 "target_seeds": 6},
                       None if sc is None else {"settings": len(sc["rhos"]) * len(sc["thetas"]) * len(sc["taus"]),
                                                "pilot_seeds": len(sc["pilot_seeds"]),
                                                "target_seeds": len(sc["target_seeds"])})]
    if not pi or "settings" not in pi:
        return rows + [_not_run("§6.2.4: scaled pilot sign accuracy (%)", paper.PILOT["scaled_pct"]),
                       _not_run("§6.2.4: unscaled pilot sign accuracy (%)", paper.PILOT["unscaled_pct"])]
    n = pi["n_settings"]
    sa, ua = 100 * pi["agree"]["scaled"] / n, 100 * pi["agree"]["unscaled"] / n
    rows.append(_factor_row("§6.2.4: Eq. (4)-scaled pilot predicts the sign of the mean gain (%)",
                            paper.PILOT["scaled_pct"], sa, f" ({pi['agree']['scaled']}/{n} settings)"))
    rows.append(_factor_row("§6.2.4: unscaled pilot predicts the sign of the mean gain (%)",
                            paper.PILOT["unscaled_pct"], ua, f" ({pi['agree']['unscaled']}/{n} settings)"))
    rows.append(_shape_row("§6.2.4: the scaled pilot's sign accuracy is higher than the unscaled one's",
                           "90.5% > 63.8%", [sa, ua], sa > ua, "scaled > unscaled"))
    rows.append(_factor_row("§6.2.4: Eq. (4) runs the Adult pilot at about 75x the target budget",
                            TEXT["pilot_factor_adult"], pi["factor"]))
    per: dict[float, list[dict]] = {}
    for s in pi["settings"]:
        per.setdefault(s["rho"], []).append(s)
    acc = {str(r): sum(x["agree_scaled"] for x in v) / len(v) for r, v in sorted(per.items())}
    gap = {str(r): float(np.mean([abs(x["pilot_rel_gain_scaled"] - x["target_rel_gain"]) for x in v]))
           for r, v in sorted(per.items())}
    a = list(gap.values())
    rows.append(_shape_row("§6.2.4 / App. F.7: the pilot contour tracks the target better at the two smaller budgets "
                           "than at 3e-3", "better at 1e-4 and 6e-4",
                           {"mean_abs_gap_points": gap, "sign_agreement": acc}, len(a) == 3 and max(a[:2]) < a[2],
                           "mean |pilot − target| relative gain (points) at each of the two smaller budgets below "
                           "that at 3e-3"))
    return rows


def _fig6a_rows(f6: dict | None, st: dict | None) -> list[dict]:
    rows = [_scale_row("§6.2.5 / App. F.2: Figure 6a uses twelve paired runs per setting", {"seeds": 12},
                       None if st is None else {"seeds": len(st["scale"]["seeds"])})]
    if not f6 or "rows" not in f6:
        return rows + [_not_run("§6.2.5: Adult age alone, ρ = 1e-4, τ = 0.03: reduction (%)",
                                {"value": 33.6, "ci95": [28.7, 38.4]})]
    by = {r["policy"]: r for r in f6["rows"]}
    k0, k1 = str(f6["rhos"][0]), str(f6["rhos"][-1])
    age, allf = by["age"], by["all five"]
    rows.append(_interval_row("§6.2.5 / Figure 6a: Adult age alone, ρ = 1e-4, τ = 0.03: paired reduction (%)",
                              paper.FIG6A["age"]["reduction"], paper.FIG6A["age"]["ci"], age["rhos"][k0]["reduction"]))
    rows.append(_factor_row("§6.2.5: Adult age alone: q", paper.FIG6A["age"]["q"], age["q"]))
    rows.append(_interval_row("§6.2.5 / Figure 6a: Adult all five, ρ = 1e-4: paired reduction (%)",
                              paper.FIG6A["all five"]["reduction"], paper.FIG6A["all five"]["ci"],
                              allf["rhos"][k0]["reduction"]))
    rows.append(_factor_row("§6.2.5 / App. F.8: Adult all five: q", paper.FIG6A["all five"]["q"], allf["q"]))
    rows.append(_shape_row("§6.2.5 / App. F.8: age+hours.per.week leaves reach, calibration and errors unchanged",
                           "identical to age alone", by.get("age+hours", {}).get("reach"),
                           bool(f6["identical_to_age"].get("age+hours")), "same errors seed by seed as age alone"))
    num = [p for p in by if not any(a in p for a in ("workclass", "income", "all five"))]
    cat = [p for p in by if p not in num]
    rows.append(_shape_row("§6.2.5: numeric-only policies retain positive reductions at ρ = 1e-4", "positive",
                           {p: by[p]["rhos"][k0]["reduction"]["mean"] for p in num},
                           all(by[p]["rhos"][k0]["reduction"]["mean"] > 0 for p in num), "mean R > 0 for each"))
    rows.append(_shape_row("§6.2.5: policies including workclass or income (reach 0.2) do not retain a positive reduction",
                           "not positive", {p: by[p]["rhos"][k0]["reduction"]["mean"] for p in cat},
                           all(by[p]["rhos"][k0]["reduction"]["mean"] <= 0 for p in cat), "mean R <= 0 for each"))
    rows.append(_shape_row(f"§6.2.5: at the larger budget (ρ = {float(k1):g}) BF-Soft is worse than Hard under every policy",
                           "worse under every policy", {p: by[p]["rhos"][k1]["reduction"]["mean"] for p in by},
                           all(by[p]["rhos"][k1]["reduction"]["mean"] < 0 for p in by), "mean R < 0 for each"))
    rows.append(_factor_row("App. F.8: Adult hours.per.week (θ = 8 hours) alone has reach 0.0163", TEXT["reach_hours"],
                            hours_alone_reach(), " (record_reach of the Adult preset with only hours.per.week "
                            "protected, its Table 3 threshold of 8 hours; computed, no runs)"))
    rows.append(_not_run("§6.2.5: Adult all five not significant after Holm over 680 contrasts (p_Holm)",
                         TEXT["fig6a_holm_p_all_five"], "the 680-contrast Holm family is not reproduced"))
    return rows


def hours_alone_reach() -> float:
    """Record-level reach of the Adult preset with only hours.per.week protected (Table 3: threshold 8 hours)."""
    from blowfish_core.io.presets import get_preset
    from blowfish_core.model.policy import record_reach

    pre = get_preset("adult")
    pol = pre.policy_with(["age=none", "hours.per.week"])
    if set(pol.per_attribute) != {"hours.per.week"}:
        raise RuntimeError(f"hours.per.week-alone policy protects {sorted(pol.per_attribute)}")
    return float(record_reach(pre.schema, pol))


def _fig6b_rows(b6: dict | None, st: dict | None) -> list[dict]:
    rows = [_scale_row("§6.2.5: Figure 6b uses twelve paired target runs", {"target_seeds": 12},
                       None if st is None else {"target_seeds": len(st["scale"]["target_seeds"])})]
    if not b6 or "rows" not in b6:
        return rows + [_not_run("§6.2.5 / Figure 6b: Bank pilot-selected policies", "≈25% / 50% / 25%")]
    by = {r["policy"]: r for r in b6["rows"]}
    k = {float(r): str(r) for r in b6["rhos"]}
    for p in ("age", "balance", "age+balance"):
        rv = by[p]["rhos"][k[1e-4]]
        rows.append(_factor_row(f"§6.2.5 / Figure 6b: Bank {p}, ρ = 1e-4: pilot-selected reduction (%) (\"about\")",
                                paper.FIG6B[p][1e-4]["reduction"], rv["reduction"]["mean"]))
    broad = [p for p in by if any(a in p for a in ("education", "job", "+y")) or p == "all five"]
    rows.append(_shape_row("§6.2.5: adding education, job or y reduces the Bank gain below about 10% (ρ = 1e-4)", "< 10%",
                           {p: by[p]["rhos"][k[1e-4]]["reduction"]["mean"] for p in broad},
                           all(by[p]["rhos"][k[1e-4]]["reduction"]["mean"] < 10 for p in broad), "mean R < 10 for each"))
    rows.append(_shape_row("§6.2.5: balance alone, whose reach is much smaller, gains more than age", "50% > 25%",
                           {"balance": by["balance"]["rhos"][k[1e-4]]["reduction"]["mean"],
                            "age": by["age"]["rhos"][k[1e-4]]["reduction"]["mean"]},
                           by["balance"]["rhos"][k[1e-4]]["reduction"]["mean"] > by["age"]["rhos"][k[1e-4]]["reduction"]["mean"]
                           and by["balance"]["reach"] < by["age"]["reach"], "balance's R above age's, its reach smaller"))
    af = by["all five"]["rhos"]
    for rho in (3e-3, 1e-4):
        p = paper.FIG6B["all five"][rho]
        rv = af.get(k.get(rho, ""))
        rows.append(_interval_row(f"§6.2.5 / Figure 6b: Bank all five, ρ = {rho:g}: pilot-selected reduction (%)",
                                  p["reduction"], p["ci"], None if rv is None else rv["reduction"]))
        claim = f"§6.2.5: Bank all five, ρ = {rho:g}: the pilot selects τ = {p['tau']}"
        if rv is None:
            rows.append(_not_run(claim, p["tau"]))
        elif rv["tau"] is None:
            rows.append(_row(claim, p["tau"], "Hard", None, f"within {FACTOR:g}x of the paper's τ; the pilot chose "
                             "Hard, so there is no τ to compare", False))
        else:
            rows.append(_factor_row(claim, p["tau"], rv["tau"]))
    rv = af.get(k.get(3e-3, ""))
    rows.append(_factor_row("§6.2.5: Bank all five, ρ = 3e-3: q of the selected τ", TEXT["fig6b_all_five_q_3e3"],
                            None if rv is None else rv["q"]))
    rows.append(_not_run("§6.2.5: Bank all five, ρ = 3e-3: the gain does not survive Holm (p_Holm)",
                         TEXT["fig6b_holm_p_all_five"], "the 680-contrast Holm family is not reproduced"))
    return rows


def _fig7_rows(f7: dict | None) -> list[dict]:
    if not f7:
        return [_not_run("§6.2.6 / Figure 7", "every measurement below the bound")]
    rows = [_scale_row("§6.2.6 / App. F.2: Figure 7a covers 1,320 configurations", {"measurements": 1320},
                       {"measurements": f7["n_measurements"]})]
    b = f7.get("b", {}).get("rows", [])
    rows.append(_scale_row("App. F.2: Figure 7b uses six policy reaches and twelve candidate seeds", TEXT["fig7b"],
                           {"reaches": len(b), "seeds": len(b[0]["hard"]) if b and isinstance(b[0].get("hard"), list)
                            else None}))
    rows.append(_shape_row("§6.2.6: every measured BF-Soft sensitivity lies below the bound (Figure 7a)", "0 above",
                           {"above": f7["violations"], "of": f7["n_soft"], "max_exact_over_bound": f7["max_ratio"]},
                           f7["violations"] == 0, "no exact sensitivity above the bound"))
    med = [m["median_exact"] for m in f7["medians"]]
    bnd = [m["bound"] for m in f7["medians"]]
    rows.append(_shape_row("§6.2.6: both the bound and the median exact sensitivity fall with τ", "fall",
                           {"bound": bnd, "median_exact": med},
                           all(b <= a for a, b in zip(med, med[1:])) and all(b <= a for a, b in zip(bnd, bnd[1:])),
                           "non-increasing in τ over the tested temperatures"))
    rows.append(_shape_row("§6.2.6: at τ >= 20 both are below 1% of √2", "τ >= 20",
                           {"first_tau_below_1pct": f7["tau_1pct"]}, f7["tau_1pct"] is not None and
                           f7["tau_1pct"] <= TEXT["fig7_tau_1pct"],
                           "the first tested τ from which both stay below 1% of √2 is at most 20"))
    rows.append(_shape_row("§6.2.6: both sensitivities rise with reach (Figure 7b)", "rise",
                           {"rises": f7["b_rises"], "violations": f7["b_violations"]},
                           bool(f7["b_rises"]) and f7["b_violations"] == 0, "non-decreasing in reach, none above the bound"))
    rows.append(_shape_row("§6.2.6: Hard stays at √2 for every plotted policy (Figure 7b)", "√2",
                           {"sqrt2": f7["b_hard_sqrt2"], "of": f7["b_hard_n"]}, f7["b_hard_sqrt2"] == f7["b_hard_n"],
                           "every Hard measurement is √2"))
    c = {r["N"]: r for r in f7["c"]["rows"]}.get(paper.FIG7C["N"])
    for key, ours_key, name in (("exact_hard_ms", "exact_hard_ms", "exact Hard calibration (ms)"),
                                ("exact_soft_ms", "exact_soft_enumerate_ms", "exact BF-Soft calibration, N x N (ms)"),
                                ("bound_ms", "bound_ms", "the bound (ms)")):
        rows.append(_factor_row(f"§6.2.6 / Figure 7c: N = m = 8192: {name}", paper.FIG7C[key],
                                None if c is None else c[ours_key], " (machine-dependent: the authors' machine vs ours)"))
    if c is not None:
        rows.append(_shape_row("§6.2.6: calibration is cheap: the bound is orders of magnitude faster than exact "
                               "calibration", "bound ≪ exact Hard < exact BF-Soft",
                               {k: c[k] for k in ("bound_ms", "exact_hard_ms", "exact_soft_enumerate_ms")},
                               c["bound_ms"] < c["exact_hard_ms"] < c["exact_soft_enumerate_ms"],
                               "bound < exact Hard < exact BF-Soft (N x N), the order the paper states"))
    return rows


def _trainsize_rows(ts: dict | None, st: dict | None, q_xor: float | None = None) -> list[dict]:
    """App. F.9 rows; q_xor is the engine's q for XOR-3's default policy at τ = 0.03 (the fig2 summary's)."""
    rows = [_scale_row("App. F.2 / F.9: training size uses twelve data/algorithm seed pairs", {"seeds": 12},
                       None if st is None else {"seeds": len(st["scale"]["seeds"])})]
    if not ts:
        return rows + [_not_run("App. F.9: XOR-3 training size", "22.83 / 37.37 / -89.18")]
    by = {r["n"]: r for r in ts["rows"]}
    for n, p in paper.TRAINSIZE.items():
        r = by.get(n)
        rows.append(_interval_row(f"App. F.9 / §6.2.1: XOR-3 n = {n:,}, ρ = 0.003, τ = 0.03: paired reduction (%)",
                                  p["reduction"], p["ci"], None if r is None else r["reduction"]))
        for key, name in (("hard", "Hard"), ("soft", "BF-Soft")):
            if key in p:
                rows.append(_factor_row(f"App. F.9: XOR-3 n = {n:,}: {name} mean error", p[key],
                                        None if r is None else r[key]["mean"]))
    rows.append(_factor_row("App. F.9: XOR-3, τ = 0.03, one-step X_1: q", TEXT["trainsize_q"], q_xor))
    rows.append(_shape_row("App. F.9: both improve with n but Hard improves faster (the gain reverses)",
                           "Hard improves faster", {"reversal": ts["reversal"], "hard_improves_faster":
                                                    ts["hard_improves_faster"]},
                           bool(ts["reversal"] and ts["hard_improves_faster"]), "reversal at 100k and Hard's fall larger"))
    return rows


def _fig8_rows(f8: dict | None, st: dict | None) -> list[dict]:
    """App. F.4 (Figure 8): the scale, the matched q and "the curves still differ" per dataset."""
    sc = None if st is None else st["scale"]
    rows = [_scale_row("App. F.2 / F.4: matched-noise experiments use six seeds at 25 budgets",
                       {"budgets": 25, "seeds": 6},
                       None if sc is None else {"budgets": len(sc["rhos"]), "seeds": len(sc["seeds"])})]
    ds_all = (f8 or {}).get("datasets", {})
    for d in ("adult", "bank", "xor3"):
        pq = TEXT["f4_q"][d]
        dv = ds_all.get(d)
        q_claim = f"App. F.4: {d}: the three matched (τ, θ) settings all have q = {pq}"
        shape_claim = (f"App. F.4 / Figure 8: {d}: matched noise ratio (q = {pq}) still gives different BF-Soft error "
                       "curves (25 budgets, 6 seeds)")
        if dv is None:
            rows += [_not_run(q_claim, pq), _not_run(shape_claim, "curves differ")]
            continue
        qs = dv["q"]
        oks = [within_factor(q, pq)[1] for q in qs]
        r, _ = within_factor(float(np.mean(qs)), pq)
        rows.append(_row(q_claim, pq, {"q": qs, "relative_spread": dv["q_spread"],
                                       "settings": [[x["tau"], x["theta"]] for x in dv["settings"]]}, r,
                         f"every setting's q within {FACTOR:g}x of the paper's and the three equal to within 0.1% "
                         "(matched); ratio of their mean", all(oks) and dv["q_spread"] <= 1e-3))
        rows.append(_shape_row(shape_claim, "curves differ",
                               {"pairs_differing_after_holm": dv["pairs_with_holm"], "pairs": len(dv["pairs"]),
                                "tests_significant_after_holm": dv["budgets_holm"],
                                "tests_with_95pct_interval_excluding_0": dv["budgets_excluding_0"],
                                "tests": dv["tests"]},
                               dv["pairs_with_holm"] > 0,
                               "for at least one pair of matched settings the paired difference of errors (same seed) "
                               "is non-zero at >= 1 budget by a two-sided t-test, Holm-corrected over the panel's "
                               f"pairs x budgets at family-wise {f8.get('alpha', 0.05):g} (the unadjusted count of "
                               "budgets whose 95% t-interval excludes 0 is given too)"))
    return rows


def _fig10_rows(f10: dict | None, st: dict | None) -> list[dict]:
    """App. F.6 / §6.2.2 (Figure 10): the scale, the largest mean gain per ρ, where it is and its r/(2τ)."""
    sc = None if st is None else st["scale"]
    rows = [_scale_row("App. F.2 / F.6: XOR-3 temperature–reach: 48 settings per panel, six paired runs per setting",
                       {"settings": 48, "seeds": 6},
                       None if sc is None else {"settings": len(sc["taus"]) * len(sc["thetas"]),
                                                "seeds": len(sc["seeds"])})]
    panels = (f10 or {}).get("panels", {})
    where = {0.03: "τ = 0.003, tied θ ∈ {2, 3, 4}", 0.18: "(τ, θ) = (0.01, 3)", 1.0: "(τ, θ) = (0.01, 3)"}
    for rho, g in TEXT["f6_gains"].items():
        p = panels.get(str(rho))
        tag = f"§6.2.2 / App. F.6: XOR-3 temperature–reach grid, ρ = {rho:g}"
        c_gain = f"{tag}: largest mean relative gain (%)"
        c_r2t = f"{tag}: the largest gain is at a setting with r_d(G)/(2τ) > 5 (q ≈ 1)"
        c_loc = f"{tag}: the largest gain is at {where[rho]}"
        c_eps = f"App. F.6: ρ = {rho:g} is ε ≈ {TEXT['f6_eps'][rho]} (Eq. (1), δ = 1e-5)"
        if p is None:
            rows += [_not_run(c_gain, g), _not_run(c_r2t, "r/(2τ) > 5"), _not_run(c_loc, where[rho]),
                     _not_run(c_eps, TEXT["f6_eps"][rho])]
            continue
        b5 = p.get("best_where_r2t_above_5")
        r, ok = within_factor(p["best_gain"], g)
        rows.append(_row(c_gain, g, {"value": p["best_gain"], "where": [p["best"][0]["tau"], p["best"][0]["theta"]],
                                     "largest_where_r2t_above_5": None if b5 is None else b5["gain"]["mean"]}, r,
                         f"within {FACTOR:g}x of the paper's value (no interval stated); value = max over the "
                         f"{len(p['cells'])} settings' mean paired R_s (largest_where_r2t_above_5 is shown, not judged)",
                         ok))
        best = [{"tau": b["tau"], "theta": b["theta"], "r_over_2tau": b["r_over_2tau"], "q": b["q"]} for b in p["best"]]
        rows.append(_shape_row(c_r2t, "r/(2τ) > 5", best, p["best_r2t_above_5"],
                               "r_d(G)/(2τ) > 5 at every setting tied for our largest mean gain"))
        rows.append(_shape_row(c_loc, where[rho], {"ours": best, "gain_at_paper_setting": {
            k: None if v is None else v["mean"] for k, v in p["paper_setting_gain"].items()}},
                               p["best_at_paper_setting"], "our largest mean gain (or one tied for it) is at the "
                               "paper's τ and one of the paper's θ"))
        rows.append(_factor_row(c_eps, TEXT["f6_eps"][rho], p["epsilon_eq1"]))
    return rows


# ------------------------------------------------------------------ outputs
def write(rows: list[dict], path: str) -> str:
    """Write checks.json atomically (blowfish_core.io.atomic); returns the path."""
    import json

    for r in rows:
        if tuple(r) != KEYS:
            raise ValueError(f"checks row {r.get('claim')!r}: keys must be exactly {KEYS}")
    atomic.write_text(path, json.dumps(rows, indent=1, ensure_ascii=False, default=_jsonable) + "\n")
    return path


def _jsonable(x):
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    if isinstance(x, np.bool_):
        return bool(x)
    raise TypeError(f"not JSON serializable: {type(x)}")


def counts(rows: list[dict]) -> tuple[int, int]:
    """(holding, total) rows."""
    return sum(1 for r in rows if r["holds"]), len(rows)


def headline(rows: list[dict]) -> str:
    """The REPORT sentence "N of M claims hold ..." computed from the rows."""
    h, m = counts(rows)
    return f"**{h} of {m} claims hold** under the strict criteria"


def _fmt(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return fmt_sci(v, 3) if abs(v) < 0.01 or abs(v) >= 1000 else f"{v:.4g}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, dict):
        if set(v) >= {"value", "ci95"}:
            return f"{_fmt(v['value'])} {_fmt(v['ci95'])}"
        if "rho" in v and "ci95" in v:
            s = f"{_fmt(v['rho'])} [95%: {_fmt(v['ci95'])}]"
            if v.get("sign_changes", 1) != 1:
                s += f"; last {_fmt(v.get('last_rho'))}; {v['sign_changes']} sign changes"
            return s
        return "; ".join(f"{k} {_fmt(x)}" for k, x in v.items() if k not in ("boot_sign_changes",))
    return str(v)


def table(rows: list[dict]) -> str:
    """Markdown table of the rows (claim, paper, ours, ours/paper, criterion, holds?)."""
    L = ["| # | claim | paper | ours | ours ÷ paper | criterion | holds? |", "|---|---|---|---|---|---|---|"]
    for i, r in enumerate(rows, 1):
        cells = [str(i), r["claim"], _fmt(r["paper"]), _fmt(r["ours"]),
                 "—" if r["ratio"] is None else f"{r['ratio']:.2f}", r["criterion"], "yes" if r["holds"] else "**no**"]
        L.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(L)


def crossings_section(boot: dict) -> str:
    """REPORT section: the nine crossings with bootstrap intervals and the XOR-3 near-ties."""
    L = ["## Crossings with bootstrap intervals (Table 4, issue 26)", "",
         f"Percentile bootstrap over the paired seeds: {N_BOOT} resamples (numpy seed {BOOT_SEED}), each drawing the "
         "seeds with replacement (the same draw at every budget and for both methods, so the pairing is kept) and "
         "recomputing the crossing by the point rule (first sign change of mean(E_S − E_H), linear in log ρ; "
         "`metrics.crossing_budget`), the last sign change and the number of sign changes. The interval is over the "
         "resamples that cross at all; \"no crossing\" is the share that never change sign on the grid.", "",
         "| dataset | τ | paper ρ× | ours ρ× [95%] | ours ÷ paper | paper in our interval? | no crossing | last ρ× [95%] "
         "| sign changes: point; bootstrap shares |", "|---|---|---|---|---|---|---|---|---|"]
    for d, taus in boot.items():
        for tk, b in taus.items():
            p = paper.TABLE4[d][float(tk)][1]
            r, _ = within_factor(b["rho"], p)
            inside = b["ci95"] is not None and b["ci95"][0] <= p <= b["ci95"][1]
            dist = ", ".join(f"{k}: {round(v * b['n_boot'])}" for k, v in b["boot_sign_changes"].items())
            L.append(f"| {d} | {tk} | {fmt_sci(p)} | {fmt_sci(b['rho'])} {_fmt(b['ci95'])} | "
                     f"{'—' if r is None else f'{r:.2f}'} | {'yes' if inside else 'no'} | {b['no_crossing_share']:.0%} | "
                     f"{fmt_sci(b['last_rho'])} {_fmt(b['last_ci95'])} | {b['sign_changes']}; {dist} |")
    L.append("")
    L.append(f"(Sign-change shares are counts out of {N_BOOT} resamples.) " + _resolved(boot))
    L.append("")
    L.append(_near_ties(boot))
    return "\n".join(L)


def _resolved(boot: dict) -> str:
    """Which cells the seeds resolve: one sign change in >= 95% of resamples, more than one in >= 95%, or neither."""
    one_, many, unres = [], [], []
    for d, taus in boot.items():
        for tk, b in taus.items():
            one = b["boot_sign_changes"].get("1", 0.0)
            name = f"{d} τ = {tk} ({one:.1%} with one)"
            (one_ if one >= 0.95 else many if one <= 0.05 else unres).append(name)
    txt = ""
    if one_:
        txt += ("Exactly one sign change in at least 95% of the resamples, so the single crossing is resolved by the "
                "seeds: " + ", ".join(one_) + ". ")
    if many:
        txt += ("More than one sign change in at least 95% of the resamples, so the data contradict a single crossing "
                "there: " + ", ".join(many) + ". ")
    if unres:
        txt += ("Neither, so the number of sign changes is not resolved by the seeds (a count like \"3 sign changes\" "
                "cannot be told from noise): " + ", ".join(unres) + ". ")
    return txt + ("Ours ÷ paper is judged on the point estimate; whether the paper's value falls inside our "
                  "interval is shown beside it.")


def _near_ties(boot: dict) -> str:
    """Explain the multi-crossing cells from the data: paired differences at the budgets beside each sign change."""
    out = []
    for d, taus in boot.items():
        for tk, b in taus.items():
            if b["sign_changes"] <= 1:
                continue
            pr = b["per_rho"]
            m = [x["mean"] for x in pr]
            spots, ties = [], 0
            n_cross = 0
            for j in range(len(m) - 1):
                if m[j] != 0 and m[j + 1] != 0 and (m[j] > 0) != (m[j + 1] > 0):
                    a, c = pr[j], pr[j + 1]
                    tie = a["lo"] <= 0 <= a["hi"] and c["lo"] <= 0 <= c["hi"]
                    ties += tie
                    n_cross += 1
                    spots.append(f"between ρ = {fmt_sci(a['rho'])} ({a['mean']:+.3f} [{a['lo']:+.3f}, {a['hi']:+.3f}]) "
                                 f"and {fmt_sci(c['rho'])} ({c['mean']:+.3f} [{c['lo']:+.3f}, {c['hi']:+.3f}]): "
                                 + ("near-tie, both intervals include 0" if tie else "one interval excludes 0"))
            one = b["boot_sign_changes"].get("1", 0.0)
            out.append(f"- **{d}, τ = {tk}**: {b['sign_changes']} sign changes of the mean difference E_S − E_H "
                       f"(paired mean, 95% t-interval over {b['seeds']} seeds): " + "; ".join(spots) + ". "
                       + f"{ties} of the {n_cross} sign changes are near-ties within the seed noise"
                       + (", so the multi-crossing shape is not resolved by these runs"
                          if ties == n_cross else
                          f"; the other {n_cross - ties} {'is' if n_cross - ties == 1 else 'are'} resolved (a "
                          "neighbour's interval excludes 0)")
                       + f". {one:.1%} of the bootstrap resamples show exactly one sign change.")
    if not out:
        return "Every cell's mean curves change sign once."
    return ("**The XOR-3 multi-crossing shape, from the data.** " + "Where the mean curves cross more than once:\n\n"
            + "\n".join(out) + "\n\nThe paired differences there are small against their seed-to-seed spread (HOErr on "
            "the 16-cell joint of a 512-row release is coarse), so which side of zero a mean falls on is noise. A "
            "difference that hovers at zero over a range of budgets gives several sign changes in almost every "
            "resample, so even where the bootstrap rules out a single crossing, the extra crossings mean \"BF-Soft and "
            "Hard are indistinguishable over that range\", not a resolved oscillation; the last sign change (the "
            "\"last ρ×\" column, where BF-Soft stops winning for good) is the better-determined quantity there. Whether "
            "clipping of the noisy counts contributes is not isolated by the stored results (no run records it).")


def generate(summaries: dict, loaded: dict, results_dir: str = RESULTS_DIR) -> tuple[list[dict], dict]:
    """Build the rows (with the fig2 bootstrap), write results/checks.json; returns (rows, bootstrap)."""
    boot = fig2_crossings(loaded["fig2"]) if "fig2" in loaded else {}
    rows = build(summaries, loaded, boot)
    write(rows, os.path.join(results_dir, CHECKS_NAME))
    return rows, boot


def main(argv: list[str] | None = None) -> int:
    from . import report

    ap = argparse.ArgumentParser(prog="python -m experiments.checks")
    ap.add_argument("--results", default=RESULTS_DIR)
    a = ap.parse_args(argv)
    summaries, loaded = report.load_all("auto", a.results)
    rows, _ = generate(summaries, loaded, a.results)
    h, m = counts(rows)
    print(f"{os.path.join(a.results, CHECKS_NAME)}: {h} of {m} claims hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# ------------------------------------------------------------------ what the paper's scale would cost
def scale_needs(loaded: dict) -> list[dict]:
    """Runs missing for the paper's scale (App. F.2) and their CPU estimate from the stored per-run CPU seconds.

    Returns rows {experiment, ours, paper, new_runs, cpu_seconds}.  fig2 (Adult, Bank) counts the
    exact missing tasks of the paper's grid (17 log-spaced budgets in [1e-5, 1], 12 seeds); the
    other experiments scale their stored runs by the missing share (seeds or settings).
    """
    def cpu_table(st):
        acc: dict[tuple, list[float]] = {}
        for r in st["runs"]:
            acc.setdefault((r["task"]["dataset"], r["task"]["method"]), []).append(
                r["result"].get("cpu_seconds", r["result"].get("seconds", 0.0)))
        return {k: float(np.mean(v)) for k, v in acc.items()}

    def total_cpu(st):
        return float(sum(r["result"].get("cpu_seconds", r["result"].get("seconds", 0.0)) for r in st["runs"]))

    out = []
    st = loaded.get("fig2")
    if st:
        cpu = cpu_table(st)
        have = {task_key(task(**r["task"])) for r in st["runs"]}
        rhos = [float(f"{v:.3g}") for v in np.geomspace(1e-5, 1, paper.FIG2_SETTING["budgets"])]
        for d in ("adult", "bank"):
            g = st["scale"]["grids"].get(d)
            if g is None:
                continue
            need = [task(dataset=d, method="hard", rho=r, seed=s) for r in rhos for s in range(12)]
            need += [task(dataset=d, method="bf-soft", rho=r, tau=t, seed=s) for r in rhos for s in range(12)
                     for t in paper.FIG2_SETTING["taus"]]
            new = [t for t in need if task_key(t) not in have]
            out.append({"experiment": f"fig2 {d}", "ours": f"{len(g['rhos'])} budgets × {len(g['seeds'])} seeds",
                        "paper": "17 budgets × 12 seeds", "new_runs": len(new),
                        "cpu_seconds": sum(cpu.get((d, t["method"]), 0.0) for t in new)})
    st = loaded.get("fig3")
    if st:
        cpu = cpu_table(st)
        k = max(0, paper.FIG3_SETTING["temperatures"] - len(st["scale"]["taus"]))
        n = len(st["scale"]["seeds"])
        ds = sorted({r["task"]["dataset"] for r in st["runs"]})
        out.append({"experiment": "fig3", "ours": f"{len(st['scale']['taus'])} temperatures × {n} seeds",
                    "paper": "20 temperatures × 6 seeds", "new_runs": k * 3 * n * len(ds),
                    "cpu_seconds": sum(k * 3 * n * cpu.get((d, "bf-soft"), 0.0) for d in ds)})
    for exp_id, key, target in (("fig4", "seeds", 12), ("fig6a", "seeds", 12)):
        st = loaded.get(exp_id)
        if st:
            have_n = len(st["scale"][key])
            f = max(0.0, target / have_n - 1)
            out.append({"experiment": exp_id, "ours": f"{have_n} seeds", "paper": f"{target} seeds",
                        "new_runs": round(f * len(st["runs"])), "cpu_seconds": f * total_cpu(st)})
    st = loaded.get("pilot")
    if st:
        sc = st["scale"]
        have_n = len(sc["rhos"]) * len(sc["thetas"]) * len(sc["taus"])
        f = max(0.0, paper.PILOT["settings"] / have_n - 1)
        out.append({"experiment": "pilot", "ours": f"{have_n} settings", "paper": f"{paper.PILOT['settings']} settings",
                    "new_runs": round(f * len(st["runs"])), "cpu_seconds": f * total_cpu(st)})
    for exp_id, have_f, paper_n, label in (
            ("fig8", lambda sc: (len(sc["rhos"]), len(sc["seeds"])), (25, 6), "budgets"),
            ("fig10", lambda sc: (len(sc["taus"]) * len(sc["thetas"]), len(sc["seeds"])), (48, 6), "settings")):
        st = loaded.get(exp_id)
        if st:
            k, n = have_f(st["scale"])
            f = max(0.0, paper_n[0] * paper_n[1] / (k * n) - 1)
            out.append({"experiment": exp_id, "ours": f"{k} {label} × {n} seeds",
                        "paper": f"{paper_n[0]} {label} × {paper_n[1]} seeds",
                        "new_runs": round(f * len(st["runs"])), "cpu_seconds": f * total_cpu(st)})
    return out


def scale_section(loaded: dict) -> str:
    """REPORT paragraph and table: what running at the paper's scale would add, from the stored CPU seconds."""
    rows = scale_needs(loaded)
    if not rows:
        return ""
    if not any(r["new_runs"] for r in rows):
        return ("**The paper's scale** (App. F.2): the stored runs cover it for every experiment counted here ("
                + "; ".join(f"{r['experiment']}: {r['ours']} vs the paper's {r['paper']}" for r in rows)
                + "). The matched-noise (F.4) and temperature–reach (F.6) experiments are counted in their own rows.")
    L = ["**What the paper's scale would need** (App. F.2; not run here). New runs and their CPU time estimated "
         "from the stored per-run CPU seconds of the same experiment (fig2: mean per dataset and method; others: the "
         "stored runs scaled by the missing share; fig8 and fig10 count their grid × seeds against App. F.2's).", "",
         "| experiment | ours | paper | new runs | CPU estimate |", "|---|---|---|---|---|"]
    for r in rows:
        L.append(f"| {r['experiment']} | {r['ours']} | {r['paper']} | {r['new_runs']:,} | {r['cpu_seconds'] / 60:.1f} min |")
    tot = sum(r["cpu_seconds"] for r in rows)
    L.append(f"| **total** | | | **{sum(r['new_runs'] for r in rows):,}** | **{tot / 60:.1f} CPU min** |")
    return "\n".join(L)
