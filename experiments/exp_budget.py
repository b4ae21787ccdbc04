"""Experiment 1 — fixed-temperature budget sweeps (paper Figure 2, Table 4, App. F.3).

Hard vs BF-Soft on Adult, Bank and XOR-3 at tau in {0.015, 0.03, 0.06} over a grid of
budgets rho in [1e-5, 1], paired seeds; mean error with 95% Student-t intervals, the
interpolated crossing budget (first sign change of mean(E_S - E_H), linear in log rho;
blowfish_core.model.metrics.crossing_budget) and its epsilon by Eq. (1) at delta = 1e-5 (as
Table 4 reports).  Hard does not depend on tau, so one Hard run per (rho, seed) serves
all three temperatures.
"""

from __future__ import annotations

import numpy as np

from blowfish_core.privacy.accounting import epsilon_eq1
from blowfish_core.model.metrics import crossing_budget
from blowfish_core.model.policy import record_reach
from blowfish_core.io.presets import get_preset
from blowfish_core.model.sensitivity import noise_ratio

from . import paper
from .common import ci, dataset_available, fmt_sci, lookup, task
from .plots import COLORS, band, new, save

ID = "fig2"
TITLE = "Fixed-temperature budget sweeps (Figure 2, Table 4)"
DATASETS = ("adult", "bank", "xor3")
TAUS = (0.015, 0.03, 0.06)
DELTA = 1e-5
#: the paper's 17 log-spaced budgets in [1e-5, 1] (3 significant digits) and 12 paired seeds (App. F.2, issue 26),
#: plus the 11 budgets of the earlier grid (the report's checks read 1e-4, 6e-4, 3e-3 ...): 26 budgets.
_PAPER_RHOS = [float(f"{v:.3g}") for v in np.geomspace(1e-5, 1, 17)]
_AB_FULL = {"rhos": sorted(set(_PAPER_RHOS) | {1e-5, 3e-5, 1e-4, 3e-4, 6e-4, 1e-3, 2e-3, 3e-3, 1e-2, 1e-1, 1.0}),
            "seeds": list(range(12))}
_AB_QUICK = {"rhos": [1e-5, 1e-4, 6e-4, 1e-3, 3e-3, 1e-2, 1.0], "seeds": [0, 1]}
#: per-dataset grids.  XOR-3 runs are ~10x cheaper, so it gets the paper's full grid
#: (17 log-spaced budgets from 1e-5 to 1, 12 paired seeds).
SCALES = {
    "full": {"grids": {"adult": _AB_FULL, "bank": _AB_FULL,
                       "xor3": {"rhos": _PAPER_RHOS, "seeds": list(range(12))}}},
    "quick": {"grids": {"adult": _AB_QUICK, "bank": _AB_QUICK,
                        "xor3": {"rhos": [1e-5, 1e-4, 1e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0], "seeds": [0, 1, 2]}}},
}


def datasets(scale: dict) -> list[str]:
    return [d for d in DATASETS if d in scale["grids"] and dataset_available(d)]


def plan(scale: dict) -> list[dict]:
    out = []
    for d in datasets(scale):
        g = scale["grids"][d]
        for rho in g["rhos"]:
            for s in g["seeds"]:
                out.append(task(dataset=d, method="hard", rho=rho, seed=s))
                for tau in scale.get("taus", TAUS):
                    out.append(task(dataset=d, method="bf-soft", rho=rho, tau=tau, seed=s))
    return out


def analyze(results: dict, scale: dict) -> dict:
    summ: dict = {"datasets": {}}
    for d in datasets(scale):
        g = scale["grids"][d]
        pre = get_preset(d)
        r = record_reach(pre.schema, pre.default_policy())
        hard_rows, cal = [], {}
        for rho in g["rhos"]:
            e = [lookup(results, dataset=d, method="hard", rho=rho, seed=s) for s in g["seeds"]]
            hard_rows.append(ci([x["error"] for x in e]))
            for x in e:
                for k, v in x["calibration"].items():
                    cal[k] = cal.get(k, 0) + v
        per_tau = {}
        for tau in scale.get("taus", TAUS):
            rows = []
            for rho in g["rhos"]:
                e = [lookup(results, dataset=d, method="bf-soft", rho=rho, tau=tau, seed=s)["error"]
                     for s in g["seeds"]]
                rows.append(ci(e))
            hm = np.array([h["mean"] for h in hard_rows])
            sm = np.array([x["mean"] for x in rows])
            diff = sm - hm
            signs = np.sign(diff)
            changes = int(np.sum(signs[1:] * signs[:-1] < 0))
            cross = crossing_budget(g["rhos"], hm, sm)
            # last sign change (scan from the weak-privacy end): differs from the first on noisy curves
            last = crossing_budget(g["rhos"][::-1], hm[::-1], sm[::-1])
            per_tau[str(tau)] = {
                "tau": tau, "q": noise_ratio(r, tau), "soft": rows,
                "crossing_rho": cross, "crossing_eps_eq1": epsilon_eq1(cross, DELTA) if cross else None,
                "last_crossing_rho": last,
                "sign_changes": changes, "soft_better_at_min": bool(diff[0] < 0),
                "soft_worse_at_max": bool(diff[-1] > 0),
            }
        summ["datasets"][d] = {"reach": r, "hard": hard_rows, "taus": per_tau, "hard_calibration": cal,
                               "rhos": list(g["rhos"]), "seeds": list(g["seeds"])}
    return summ


def figures(summ: dict, figdir: str) -> list[str]:
    paths = []
    for d, ds in summ["datasets"].items():
        rhos = ds["rhos"]
        fig, ax = new(3, 1, sharey=True)
        for j, (tk, tv) in enumerate(ds["taus"].items()):
            a = ax[0, j]
            h = ds["hard"]
            band(a, rhos, [x["mean"] for x in h], [x["lo"] for x in h], [x["hi"] for x in h], "Hard", COLORS["hard"])
            s = tv["soft"]
            band(a, rhos, [x["mean"] for x in s], [x["lo"] for x in s], [x["hi"] for x in s],
                 f"BF-Soft (q={tv['q']:.2f})", COLORS["bf-soft"])
            if tv["crossing_rho"]:
                a.axvline(tv["crossing_rho"], color=COLORS["bf-soft"], ls=":", lw=1, label="our crossing")
            pc = paper.TABLE4.get(d, {}).get(float(tk))
            if pc:
                a.axvline(pc[1], color=COLORS["pilot"], ls="--", lw=1, label="paper crossing")
            a.set_xscale("log")
            a.set_title(f"{d}, tau = {tk}")
            a.set_xlabel("rho (zCDP)")
            if j == 0:
                a.set_ylabel("HOErr" if d.startswith("xor") else "PWErr")
            a.legend(fontsize=7)
        paths.append(save(fig, f"{figdir}/fig2_{d}.png"))
    return paths


def section(summ: dict, meta: dict) -> str:
    L = [f"## 1. {TITLE}", ""]
    grids = "; ".join(f"{d}: {len(ds['rhos'])} budgets ({', '.join(fmt_sci(r) for r in ds['rhos'])}), "
                      f"{len(ds['seeds'])} paired seeds" for d, ds in summ["datasets"].items())
    L.append(f"**Setting.** Default policies (age θ=7 on Adult/Bank, X_1 one step on XOR-3), τ ∈ {{0.015, 0.03, 0.06}}; "
             f"{grids}. The paper uses {paper.FIG2_SETTING['budgets']} budgets from 1e-5 to 1 and "
             f"{paper.FIG2_SETTING['seeds']} paired runs. Crossing: first sign change of mean(E_S − E_H), linear in "
             "log ρ (App. F.3); ε by Eq. (1) at δ = 1e-5.")
    L.append("")
    L.append("| dataset | τ | q (paper) | q (ours) | ρ× paper | ρ× ours (first) | ε paper | ε ours | sign changes | last ρ× ours | Soft better at 1e-5 | Soft worse at 1 |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    holds_ends, total, monotone = 0, 0, {}
    for d, ds in summ["datasets"].items():
        crosses = []
        for tk, tv in ds["taus"].items():
            pq, prho, peps = paper.TABLE4.get(d, {}).get(float(tk), (None, None, None))
            total += 1
            holds_ends += int(tv["soft_better_at_min"] and tv["soft_worse_at_max"] and tv["sign_changes"] == 1)
            crosses.append(tv["crossing_rho"])
            eps = "—" if tv["crossing_eps_eq1"] is None else f"{tv['crossing_eps_eq1']:.2f}"
            L.append(f"| {d} | {tk} | {pq} | {tv['q']:.2f} | {fmt_sci(prho)} | {fmt_sci(tv['crossing_rho'])} | "
                     f"{peps} | {eps} | "
                     f"{tv['sign_changes']} | {fmt_sci(tv.get('last_crossing_rho'))} | "
                     f"{'yes' if tv['soft_better_at_min'] else 'no'} | "
                     f"{'yes' if tv['soft_worse_at_max'] else 'no'} |")
        if d.startswith("xor"):
            crosses = [tv.get("last_crossing_rho") for tv in ds["taus"].values()]
        ok = all(c is not None for c in crosses) and all(crosses[i + 1] <= crosses[i] for i in range(len(crosses) - 1))
        monotone[d] = ok
    L.append("")
    for d in summ["datasets"]:
        L.append(f"![{d}](figures/fig2_{d}.png)")
    L.append("")
    hc = {d: ds["hard_calibration"] for d, ds in summ["datasets"].items()}
    L.append("**Hard's exact sensitivity.** Per-round calibration of every Hard run (Cor. 5.3): " + "; ".join(
        f"{d}: " + ", ".join(f"{k} {v}" for k, v in c.items()) for d, c in hc.items())
        + ". The paper reports that every checked round had a protected boundary crossing (Δ = √2).")
    L.append("")
    L.append(f"**Claims.** (i) In all nine comparisons BF-Soft is lower at ρ = 1e-5, higher at ρ = 1, with one sign "
             f"change: ours {holds_ends}/{total}. (ii) On Adult and Bank the crossing moves down as τ grows: "
             + ", ".join(f"{d} {'yes' if monotone.get(d) else 'no'}" for d in ("adult", "bank") if d in monotone)
             + (f"; XOR-3, using the last sign change: {'yes' if monotone.get('xor3') else 'no'} (paper: yes, over a "
                "wider range)." if "xor3" in monotone else "."))
    return "\n".join(L)


def _below(p: dict, tv: list, key: str = "crossing_rho") -> str:
    """'3-15x below' style comparison of our crossings (``key``) with the paper's, per tau."""
    r = [p[t["tau"]][1] / t[key] for t in tv if t.get(key) and t["tau"] in p]
    if not r:
        return "not comparable to"
    lo, hi = min(r), max(r)
    if hi < 1:
        return f"{1 / hi:.1f}–{1 / lo:.1f}× above"
    if lo > 1:
        return f"{lo:.1f}–{hi:.1f}× below"
    return "on both sides of"


def headline(summ: dict) -> list[tuple[str, str, str, str]]:
    out = []
    for d, ds in summ["datasets"].items():
        p = paper.TABLE4.get(d, {})
        tv = list(ds["taus"].values())
        ours = " / ".join(fmt_sci(t["crossing_rho"]) + (f" (last {fmt_sci(t['last_crossing_rho'])})"
                                                          if t.get("last_crossing_rho") != t["crossing_rho"] else "")
                          for t in tv)
        ends = sum(1 for t in tv if t["soft_better_at_min"] and t["soft_worse_at_max"])
        cr = [t["last_crossing_rho"] if d.startswith("xor") else t["crossing_rho"] for t in tv]
        falls = all(c is not None for c in cr) and all(cr[i + 1] <= cr[i] for i in range(len(cr) - 1))
        holds = "yes" if ends == len(tv) and falls else ("partly" if ends > 0 or falls else "no")
        if d.startswith("xor"):
            falls_txt = "last crossing falls with τ"
        else:
            falls_txt = "crossing falls with τ"
        out.append((f"Table 4 crossing ρ×, {d} (τ = 0.015 / 0.03 / 0.06)",
                    " / ".join(fmt_sci(p[float(k)][1]) for k in ds["taus"] if float(k) in p),
                    f"{ours}; Soft wins at 1e-5 and loses at 1 in {ends}/{len(tv)}; {falls_txt}: "
                    f"{'yes' if falls else 'no'}; ours{' (last)' if d.startswith('xor') else ''} is "
                    f"{_below(p, tv, 'last_crossing_rho' if d.startswith('xor') else 'crossing_rho')} the paper's", holds))
    return out
