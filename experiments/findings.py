"""Report text that explains where ours differs from the paper, built from the numbers.

``notes(exp_id, summ, all_summaries)`` returns the "Where ours differs" paragraph of one
experiment.  The explanations cite the investigation (exp_ablate, §8 of the report):
every statement about a cause is tied to a measured ablation number, and what the
ablation does not explain is said to be unexplained.
"""

from __future__ import annotations

import math
import os

from . import paper
from .common import fmt_sci, load_json


def scale_text(scale: dict) -> str:
    """Short human description of an experiment's scale dict."""
    parts = []
    for k, v in scale.items():
        if isinstance(v, dict):
            sub = []
            for name, g in v.items():
                if isinstance(g, dict):
                    sub.append(f"{name} " + " × ".join(f"{len(x)} {kk}" for kk, x in g.items() if isinstance(x, list)))
            parts.append("; ".join(sub))
        elif isinstance(v, list):
            parts.append(f"{len(v)} {k.replace('_', ' ')}")
        else:
            parts.append(f"{k.replace('_', ' ')} {v}")
    return ", ".join(parts)


def data_text(results_dir: str) -> str:
    sizes = {}
    for f in ("fig2.full.json", "fig2.quick.json"):
        p = os.path.join(results_dir, f)
        if os.path.exists(p):
            for r in load_json(p)["runs"]:
                t = r["task"]
                if t["table"] == "private" and t["n"] is None:
                    sizes.setdefault(t["dataset"], r["result"]["n"])
            break
    return ", ".join(f"{d} n = {n:,}" for d, n in sizes.items()) or "sizes in the section tables"


# ------------------------------------------------------------------ ablation helpers
def _abl(all_summ: dict, d: str) -> dict | None:
    a = all_summ.get("ablate")
    if not a:
        return None
    return a["datasets"].get(d)


def _abl_cross(all_summ: dict, d: str, v: str) -> float | None:
    ds = _abl(all_summ, d)
    if ds is None or v not in ds["variants"]:
        return None
    return ds["variants"][v]["crossing_rho"]


def _abl_row(all_summ: dict, d: str, v: str, rho: float) -> dict | None:
    ds = _abl(all_summ, d)
    if ds is None or v not in ds["variants"]:
        return None
    for r in ds["variants"][v]["rows"]:
        if abs(r["rho"] - rho) <= 1e-12 * max(rho, 1):
            return r
    return None


def _ratio(a: float | None, b: float | None) -> str:
    if not a or not b:
        return "—"
    r = a / b
    return f"{r:.1f}×" if r >= 1 else f"1/{1 / r:.1f}"


def _schedule_sentence(all_summ: dict) -> str:
    parts = []
    for d, ptau in (("adult", 0.03), ("bank", 0.03), ("xor3", 0.03)):
        c0, c1 = _abl_cross(all_summ, d, "default"), _abl_cross(all_summ, d, "top+512x1")
        if c0 is None and c1 is None:
            continue
        p = paper.TABLE4[d][ptau][1]
        parts.append(f"{d}: {fmt_sci(c0)} → {fmt_sci(c1)} (paper {fmt_sci(p)})")
    if not parts:
        return ""
    return ("In the investigation (§8, τ = 0.03) keeping 512 parents with one child each in the rank rounds and "
            "releasing the 512 top-count candidates moves the crossing " + "; ".join(parts) + ".")


# ------------------------------------------------------------------------- notes
def notes(exp_id: str, summ: dict, all_summ: dict) -> str:
    fn = {"fig2": _fig2, "fig3": _fig3, "fig4": _fig4, "fig6a": _fig6a, "pilot": _pilot,
          "trainsize": _trainsize, "fig7": _fig7}.get(exp_id)
    return fn(summ, all_summ) if fn else ""


def _fig2(summ: dict, all_summ: dict) -> str:
    rows = []
    for d in ("adult", "bank", "xor3"):
        ds = summ["datasets"].get(d)
        if ds is None:
            continue
        for tk, tv in ds["taus"].items():
            p = paper.TABLE4[d][float(tk)][1]
            rows.append(f"{d} τ={tk}: paper/ours {_ratio(p, tv['crossing_rho'])}")
    L = ["**Where ours differs, and why.** Crossing ratio paper ÷ ours: " + "; ".join(rows) + "."]
    s = _schedule_sentence(all_summ)
    if s:
        L.append(s + " The release rule alone (`top`) and a public threshold H = 10 change it much less "
                 "(§8 table). The paper's \"hybrid\" selection is not specified beyond 512/1,024 candidates and 512 "
                 "released records; the engine's documented reading (docs/DECISIONS.md: 256 parents + 3 children, "
                 "release ∝ clipped counts) is one of several, and this choice is the main measured driver of where "
                 "BF-Soft stops paying off. Fewer kept parents with more children make the rank rounds more "
                 "exploitative, and BF-Soft's smoothed counts (which rank candidates in dense regions first) then pay a "
                 "larger smoothing cost C at moderate budgets (see §3: C grows with ρ).")
    L.append("Absolute error levels also differ at strong privacy (e.g. Hard at ρ = 1e-4: paper 0.696 on Adult, "
             "0.976 on Bank; ours in §2). None of the tested variants closes that gap for Hard (§8), so we do not "
             "attribute it; PWErr binning (20 equal-width bins on numeric attributes, the paper does not state its "
             "bins) and the paper's own split are untested candidates.")
    return "\n\n".join(L)


def _fig3(summ: dict, all_summ: dict) -> str:
    L = []
    for d in ("adult", "bank"):
        ds = summ["datasets"].get(d)
        if ds is None:
            continue
        rv = ds["rhos"].get(str(1e-4))
        p = paper.FIG3[d][1e-4]
        if rv:
            L.append(f"{d} at ρ = 1e-4: best reduction of means {rv['best_reduction_of_means']:.1f}% vs the paper's "
                     f"{p['reduction']}% ({rv['best_reduction_of_means'] - p['reduction']:+.1f} points)")
    txt = "**Where ours differs, and why.** " + "; ".join(L) + "." if L else ""
    r = _abl_row(all_summ, "adult", "top+512x1", 1e-4)
    r0 = _abl_row(all_summ, "adult", "default", 1e-4)
    if r and r0:
        txt += (f" At τ = 0.03 on Adult the §8 variant with 512 kept parents and the top-count release gives a paired "
                f"reduction of {r['reduction']['mean']:.1f}% at ρ = 1e-4 (engine default {r0['reduction']['mean']:.1f}%), "
                "so the selection schedule also explains part of the smaller strong-privacy gain; the remaining gap "
                "comes with our higher absolute errors at ρ = 1e-4 (see §1).")
    return txt


def _fig4(summ: dict, all_summ: dict) -> str:
    return ("**Reading.** E_M (soft vote, Hard's noise) is worse than Hard wherever C > 0: the soft vote alone costs "
            "fidelity, and BF-Soft wins only where the noise it saves (N) exceeds that cost. Our C grows faster with ρ "
            "than the paper's crossings imply, consistent with the earlier crossings of §1.")


def _fig6a(summ: dict, all_summ: dict) -> str:
    if "rows" not in summ:
        return ""
    r0 = str(summ["rhos"][0])
    age = summ["rows"][0]["rhos"][r0]["reduction"]
    txt = (f"**Where ours differs, and why.** Age alone: {age['mean']:.1f}% vs the paper's 33.6% "
           f"({age['mean'] - 33.6:+.1f} points). The ordering of policies matches (narrow numeric policies keep the "
           "gain, reach-0.2 policies lose it), which is the claim; the size of the age-only gain is smaller for the "
           "same reason as §1–§2 (the strong-privacy gain under the engine's selection schedule is smaller, §8).")
    return txt


def _pilot(summ: dict, all_summ: dict) -> str:
    if "settings" not in summ:
        return ""
    near = [r for r in summ["settings"] if not r["agree_scaled"]]
    if not near:
        return "**Reading.** Every setting's sign was predicted by the scaled pilot."
    small = sum(1 for r in near if abs(r["target_gain"]) < 0.02)
    return (f"**Reading.** Of the {len(near)} settings the scaled pilot gets wrong, {small} have a target mean gain "
            "below 0.02 in absolute value (near the zero-gain boundary, where the paper also notes sign accuracy is "
            "fragile). Our grid is smaller than the paper's 210 settings, so the percentages are coarser.")


def _trainsize(summ: dict, all_summ: dict) -> str:
    red = {r["n"]: r["reduction"] for r in summ["rows"]}
    parts = []
    for n in (12000, 48000, 100000):
        if n in red:
            p = paper.TRAINSIZE[n]["reduction"]
            parts.append(f"n = {n:,}: {red[n]['mean']:+.1f}% vs {p:+.1f}% ({red[n]['mean'] - p:+.1f} points)")
    return ("**Where ours differs, and why.** " + "; ".join(parts) + ". The direction (the gain shrinks and reverses "
            "as n grows at a fixed budget) is the claim. On XOR-3 the §8 ablation shows the rank-phase reading "
            "moves the crossing by more than an order of magnitude, so the level of the gain at a given n is "
            "sensitive to the same unspecified schedule.")


def _fig7(summ: dict, all_summ: dict) -> str:
    c = {r["N"]: r for r in summ["c"]["rows"]}
    big = c[max(c)]
    return ("**Reading of the costs.** The bound is a constant-time formula (microseconds here, paper 2e-4 ms). Our "
            f"exact BF-Soft by the N × N softmax enumeration takes {big['exact_soft_enumerate_ms']:.0f} ms at "
            f"N = {big['N']} (paper 1,480 ms at 8,192 on another machine), while the engine's prefix-sum 'line' "
            f"algorithm needs {big['exact_soft_line_ms']:.1f} ms because one-dimensional domains allow it; exact Hard "
            f"({big['exact_hard_ms']:.1f} ms) is faster than the paper's 211 ms for the same reason (sorted nearest "
            "neighbours). The engine's per-round Hard calibration (crossing search over candidate contexts, "
            f"{big['engine_hard_ms']:.0f} ms) is slower on this one-attribute domain because it tries many identical "
            "contexts before the first crossing; on the presets (m = 1,024, uniform population) it certifies √2 within "
            "the first batch of 16 contexts, in about 0.05-0.3 s per round on this machine.")


def investigation(summaries: dict, results_dir: str) -> str:
    return ""
