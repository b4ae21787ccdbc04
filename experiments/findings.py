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
from .common import fmt_sci, load_json, task


def _list_text(k: str, x: list) -> str:
    name = k.replace("_", " ")
    if "seeds" in k and x and all(isinstance(v, int) for v in x):
        if x == list(range(x[0], x[0] + len(x))):
            return f"{len(x)} {name} ({x[0]}–{x[-1]})"
        return f"{len(x)} {name} ({', '.join(map(str, x))})"
    return f"{len(x)} {name}"


def scale_text(scale: dict) -> str:
    """Short human description of an experiment's scale dict (seed ranges spelled out)."""
    parts = []
    for k, v in scale.items():
        if isinstance(v, dict):
            sub = []
            for name, g in v.items():
                if isinstance(g, dict):
                    sub.append(f"{name} " + " × ".join(_list_text(kk, x) for kk, x in g.items() if isinstance(x, list)))
            parts.append("; ".join(sub))
        elif isinstance(v, list):
            parts.append(_list_text(k, v))
        else:
            parts.append(f"{k.replace('_', ' ')} {v}")
    return ", ".join(parts)


def data_text(results_dir: str) -> str:
    sizes = {}
    for f in ("fig2.full.json", "fig2.quick.json"):
        p = os.path.join(results_dir, f)
        if os.path.exists(p):
            for r in load_json(p)["runs"]:
                t = task(**r["task"])
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
    """Ablation crossing of variant v: the first sign change on Adult/Bank, the last on XOR-3 (noisy curves)."""
    ds = _abl(all_summ, d)
    if ds is None or v not in ds["variants"]:
        return None
    key = "last_crossing_rho" if d.startswith("xor") else "crossing_rho"
    return ds["variants"][v].get(key)


def _abl_row(all_summ: dict, d: str, v: str, rho: float) -> dict | None:
    ds = _abl(all_summ, d)
    if ds is None or v not in ds["variants"]:
        return None
    for r in ds["variants"][v]["rows"]:
        if abs(r["rho"] - rho) <= 1e-12 * max(rho, 1):
            return r
    return None


def _span(v: list[float], digits: int = 1) -> str:
    lo, hi = f"{min(v):.{digits}f}", f"{max(v):.{digits}f}"
    return lo if lo == hi else f"{lo}–{hi}"


def _ratio(a: float | None, b: float | None) -> str:
    if not a or not b:
        return "—"
    r = a / b
    return f"{r:.1f}×" if r >= 1 else f"1/{1 / r:.1f}"


#: the previous default reading, a named schedule in the ablation (exp_ablate.OLD)
OLD = "hybrid-256x3"


def _schedule_sentence(all_summ: dict) -> str:
    parts = []
    for d, ptau in (("adult", 0.03), ("bank", 0.03), ("xor3", 0.03)):
        c_old, c_new = _abl_cross(all_summ, d, OLD), _abl_cross(all_summ, d, "default")
        if c_old is None and c_new is None:
            continue
        p = paper.TABLE4[d][ptau][1]
        parts.append(f"{d}: {fmt_sci(c_old)} → {fmt_sci(c_new)} (paper {fmt_sci(p)})")
    if not parts:
        return ""
    return ("In the investigation (§8, τ = 0.03) the change of default from the previous reading (rank rounds keep "
            "256 parents with 3 children, release drawn ∝ clipped counts) to DESIGN §3's (top `release` parents with "
            "one child each, release = top final noisy counts) moves the crossing (XOR-3: last sign change) "
            + "; ".join(parts) + ".")


# ------------------------------------------------------------------------- notes
def notes(exp_id: str, summ: dict, all_summ: dict) -> str:
    fn = {"fig2": _fig2, "fig3": _fig3, "fig4": _fig4, "fig6a": _fig6a, "pilot": _pilot,
          "trainsize": _trainsize, "fig7": _fig7, "ablate": _level_text}.get(exp_id)
    return fn(summ, all_summ) if fn else ""


def _fig2(summ: dict, all_summ: dict) -> str:
    rows = []
    for d in ("adult", "bank", "xor3"):
        ds = summ["datasets"].get(d)
        if ds is None:
            continue
        for tk, tv in ds["taus"].items():
            p = paper.TABLE4[d][float(tk)][1]
            txt = f"{d} τ={tk}: {_ratio(p, tv['crossing_rho'])}"
            if tv.get("last_crossing_rho") != tv["crossing_rho"]:
                txt += f" (last sign change: {_ratio(p, tv.get('last_crossing_rho'))}; {tv['sign_changes']} sign changes)"
            rows.append(txt)
    ab = [(paper.TABLE4[d][float(tk)][1], tv) for d in ("adult", "bank") if d in summ["datasets"]
          for tk, tv in summ["datasets"][d]["taus"].items() if tv["crossing_rho"]]
    L = ["**Where ours differs, and why.** Crossing budget, paper ÷ ours: " + "; ".join(rows) + "."]
    if ab:
        rat = [p / tv["crossing_rho"] for p, tv in ab]
        eps = [tv["crossing_eps_eq1"] for _, tv in ab]
        within = sum(1 for r in rat if 1 / 1.5 <= r <= 1.5)
        side = ("smaller" if min(rat) > 1 else "larger" if max(rat) < 1 else "smaller or larger")
        L[0] += (f" On Adult and Bank paper ÷ ours spans {_span(rat, 2)} (our crossing is at a {side} budget than "
                 f"the paper's; ε {_span(eps, 2)} instead of 0.16–0.46); {within}/{len(rat)} crossings are within a "
                 "factor 1.5 of Table 4 (the strict criterion of issue 26; §Checks).")
    xr = summ["datasets"].get("xor3")
    if xr:
        lr = [paper.TABLE4["xor3"][float(tk)][1] / tv["last_crossing_rho"] for tk, tv in xr["taus"].items()
              if tv.get("last_crossing_rho") and tv["sign_changes"] > 1]
        if lr:
            L[0] += (" On XOR-3 the mean curves cross several times (HOErr differences are small relative to the seed "
                     "noise, as the paper also notes for XOR-3); where they do, the last sign change — where BF-Soft "
                     f"stops winning for good — is {_span(lr)}× below the paper's crossing.")
    s = _schedule_sentence(all_summ)
    if s:
        L.append(s + " The paper calls its selection \"hybrid\" without more detail; the reading of the rank rounds "
                 "is the main measured driver of where BF-Soft stops paying off, and the two reference-library details "
                 "(ranking by raw counts, mutating at the rate of index t−1) move it further (§8).")
    t3 = all_summ.get("fig3", {}).get("datasets", {})
    hard = {d: t3[d]["rhos"][str(1e-4)]["hard"]["mean"] for d in ("adult", "bank")
            if d in t3 and str(1e-4) in t3[d]["rhos"]}
    if hard:
        ours = ", ".join(f"{d} {paper.FIG3[d][1e-4]['hard']:.3f} (paper) vs {v:.3f} (ours)" for d, v in hard.items())
        var, far = [], []
        for d, h0 in hard.items():
            r = _abl_row(all_summ, d, OLD, 1e-4)
            ph = paper.FIG3[d][1e-4]["hard"]
            if r:
                h1 = r["hard"]["mean"]
                var.append(f"{d} {h1:.3f} ({'closer to' if abs(h1 - ph) < abs(h0 - ph) else 'no closer to'} the paper)")
                if abs(h1 - ph) > 0.1:
                    far.append(d)
            elif abs(h0 - ph) > 0.1:
                far.append(d)
        txt = f"Absolute error levels also differ at strong privacy: Hard at ρ = 1e-4 is {ours}."
        if var:
            txt += (f" Under the previous reading ({OLD}, §8) Hard at ρ = 1e-4 is "
                    + ", ".join(var) + ".")
        if far:
            txt += (f" The remaining gap on {', '.join(far)} (more than 0.1) is not explained by the schedule; §9 lists "
                    "what has been ruled out.")
        L.append(txt)
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
    if not L:
        return ""
    txt = "**Where ours differs, and why.** " + "; ".join(L) + ". " + _strong_privacy_gap(all_summ)
    late = []
    for d in ("adult", "bank"):
        ds = summ["datasets"].get(d)
        if ds is None:
            continue
        for rk in (str(6e-4), str(3e-3)):
            rv = ds["rhos"].get(rk)
            if rv and (not rv["best_interior"] or rv["best_mean"] >= rv["hard"]["mean"]):
                late.append(f"{d} ρ = {float(rk):g}")
    if late:
        txt += (" At the weaker budgets (" + ", ".join(late) + ") no interior temperature beats Hard or the best "
                "'temperature' is the smallest tested (τ = 0.00025, where the soft vote is the hard vote with ties "
                "split and q = 1); this is the same early crossing as in §1.")
    return txt


def _fig4(summ: dict, all_summ: dict) -> str:
    txt = ("**Reading.** E_M (soft vote, Hard's noise) is worse than Hard wherever C > 0: the soft vote alone costs "
           "fidelity, and BF-Soft wins only where the noise it saves (N) exceeds that cost. Our C is already large at "
           "ρ = 1e-3, consistent with the earlier crossings of §1.")
    neg = []
    for d in ("adult", "bank"):
        ds = summ["datasets"].get(d)
        if ds:
            k = [fmt_sci(r["rho"]) for r in ds["rows"] if r["N"]["hi"] < 0]
            if k:
                neg.append(f"{d} at ρ = {', '.join(k)}")
    if neg:
        txt += (" A difference from the paper's picture: N is significantly *negative* at weak privacy (" + "; ".join(neg)
                + "): there BF-Soft with its smaller noise is worse than the same soft vote with Hard's larger noise, "
                "i.e. extra noise helps the soft vote. A mechanism consistent with this (not isolated by a separate "
                "experiment) is that noise keeps the deterministic top-count (rank) rounds from concentrating the "
                "population on the soft vote's high-density candidates; the rank-round schedule is also what the "
                "investigation (§8) identifies as the main measured driver of the early crossings.")
    return txt


def _strong_privacy_gap(all_summ: dict) -> str:
    """What the ablation says about the gain at rho = 1e-4 (tau = 0.03): new default vs the previous reading."""
    r = _abl_row(all_summ, "adult", "default", 1e-4)
    r0 = _abl_row(all_summ, "adult", OLD, 1e-4)
    if not (r and r0):
        return "The investigation (§8) was not run, so the schedule's share of the gap is not measured."
    txt = (f"In the investigation (§8) the paired reduction at ρ = 1e-4 on Adult (τ = 0.03) is "
           f"{r['reduction']['mean']:+.1f}% [{r['reduction']['lo']:+.1f}, {r['reduction']['hi']:+.1f}] under the new "
           f"default and {r0['reduction']['mean']:+.1f}% under the previous reading ({OLD}).")
    b, b0 = _abl_row(all_summ, "bank", "default", 1e-4), _abl_row(all_summ, "bank", OLD, 1e-4)
    if b and b0:
        txt += (f" On Bank: {b['reduction']['mean']:+.1f}% vs {b0['reduction']['mean']:+.1f}% (paper's best-τ "
                f"reduction at ρ = 1e-4: {paper.FIG3['bank'][1e-4]['reduction']}%).")
    return txt


def _fig6a(summ: dict, all_summ: dict) -> str:
    if "rows" not in summ:
        return ""
    r0 = str(summ["rhos"][0])
    age = summ["rows"][0]["rhos"][r0]["reduction"]
    allf = summ["rows"][-1]["rhos"][r0]["reduction"]
    return (f"**Where ours differs, and why.** Age alone: {age['mean']:.1f}% vs the paper's 33.6% "
            f"({age['mean'] - 33.6:+.1f} points); all five: {allf['mean']:.1f}% vs −12.0% "
            f"({allf['mean'] + 12.0:+.1f} points). The ordering of policies and the loss of the gain at reach 0.2 match "
            "the paper; the size of the age-only gain is smaller. " + _strong_privacy_gap(all_summ))


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
    txt = ("**Where ours differs, and why.** " + "; ".join(parts) + ". The paper's claim is the direction: at a fixed "
           "budget the gain shrinks and finally reverses as n grows, because the histogram noise becomes small relative "
           "to the counts.")
    c_old, c_new = _abl_cross(all_summ, "xor3", OLD), _abl_cross(all_summ, "xor3", "default")
    if c_old and c_new:
        side = (", so ρ = 0.003 lies on different sides of the crossing under the two readings"
                if min(c_old, c_new) < 0.003 < max(c_old, c_new) else "")
        txt += (f" The level of the gain at a given n depends on the rank-round reading: on XOR-3 (n = 12,000, "
                f"τ = 0.03) the last crossing is ρ = {fmt_sci(c_new)} under the new default and {fmt_sci(c_old)} "
                f"under the previous reading{side} (§8).")
    return txt


def _fig7(summ: dict, all_summ: dict) -> str:
    c = {r["N"]: r for r in summ["c"]["rows"]}
    big = c[max(c)]
    return ("**Reading of the costs.** The bound is a constant-time formula (tens of microseconds here because the "
            "benchmark's call also derives the reach from the policy; the formula alone is below 1 µs; paper 2e-4 ms). Our "
            f"exact BF-Soft by the N × N softmax enumeration takes {big['exact_soft_enumerate_ms']:.0f} ms at "
            f"N = {big['N']} (paper 1,480 ms at 8,192 on another machine), while the engine's prefix-sum 'line' "
            f"algorithm needs {big['exact_soft_line_ms']:.1f} ms because one-dimensional domains allow it; exact Hard "
            f"({big['exact_hard_ms']:.1f} ms) is faster than the paper's 211 ms for the same reason (sorted nearest "
            "neighbours). The engine's per-round Hard calibration (crossing search over candidate contexts, "
            f"{big['engine_hard_ms']:.0f} ms) is slower on this one-attribute domain because each search batch "
            "evaluates several candidate contexts that are all identical when there is only one attribute (a batch is "
            "8 contexts × N values × N candidates at N = 8,192); on the presets (m = 1,024, uniform population) it "
            "certifies √2 within the first batch of 16 contexts, in about 0.05-0.3 s per round on this machine.")


def _move(c0: float | None, c1: float | None) -> float | None:
    return c1 / c0 if c0 and c1 else None


def _hard_gap_text(results_dir: str) -> str:
    """Sentence on Adult's Hard error gap at rho = 1e-4, from results/hard_gap.json (experiments/hard_gap.py)."""
    p = os.path.join(results_dir, "hard_gap.json")
    if not os.path.exists(p):
        return ("The absolute error at ρ = 1e-4 on Adult: no variant brings Hard near the paper's 0.696, so that gap "
                "stays unattributed (candidates not tested: PWErr binning, the paper's split).")
    g = load_json(p)
    d, mu, sp = g["definitions"], g["mutation_timing"], g["split_seed"]
    paper_h = g["setting"]["paper_hard"]
    h = lambda k: d[k]["hard"]["mean"]  # noqa: E731
    base = h("bins20/private80")
    pos = lambda k: (d[k]["uniform512"]["mean"] - h(k)) / (d[k]["uniform512"]["mean"] - d[k]["real512"]["mean"])  # noqa: E731
    bins = [k for k in ("exact/private80", "bins50/private80", "bins10/private80", "bins5/private80") if k in d]
    sv = [v["mean"] for v in sp.values()]
    txt = (f"The absolute error at ρ = 1e-4 on Adult (Hard {base:.3f} vs the paper's {paper_h:.3f}, a gap of "
           f"{base - paper_h:.3f}; `experiments/hard_gap.py`, seeds {g['setting']['seeds'][0]}–"
           f"{g['setting']['seeds'][-1]}). Re-scoring the same releases: the reference set does not matter (full "
           f"table {h('bins20/full'):.3f}, held-out 20% {h('bins20/heldout20'):.3f}); neither does the split seed "
           f"({min(sv):.3f}–{max(sv):.3f} over split seeds {', '.join(sp)}); starting the mutation rate one round "
           f"earlier (first mutation 0.5) does not help ({mu['shifted_first_0.5']['mean']:.3f}). The PWErr "
           "binning of the numeric attributes is the only lever: " +
           ", ".join(f"{k.split('/')[0].replace('bins', '').replace('exact', 'exact values')}"
                     f"{' bins' if k.startswith('bins') else ''} {h(k):.3f}" for k in bins) +
           f" (ours: 20 bins, {base:.3f}). It shifts every table alike, though: a uniform-random 512-record table "
           f"scores {d['bins20/private80']['uniform512']['mean']:.3f} at 20 bins and "
           f"{d['bins5/private80']['uniform512']['mean']:.3f} at 5, a 512-row real sample "
           f"{d['bins20/private80']['real512']['mean']:.3f} and {d['bins5/private80']['real512']['mean']:.3f}, and "
           f"Hard's relative place between that floor (0) and ceiling (1) moves less ({pos('bins20/private80'):.2f} at 20 bins, "
           f"{pos('bins10/private80'):.2f} at 10, {pos('bins5/private80'):.2f} at 5). So a coarser binning than "
           f"ours (between 5 and 10 bins per numeric attribute; 10 bins closes {base - h('bins10/private80'):.3f} of "
           f"the {base - paper_h:.3f}) would account for most or all of Adult's gap with no difference in the synthesis; "
           "the paper (§6, \"mean ℓ1 error over all two-way marginals\") does not state its binning, so this is "
           "consistent, not confirmed. Reference set, split seed and mutation timing are ruled out.")
    return txt


def _hard_levels(summaries: dict) -> dict[str, float]:
    """Our Hard mean error at rho = 1e-4 per real dataset (temperature sweep, else budget sweep)."""
    out = {}
    t3 = summaries.get("fig3", {}).get("datasets", {})
    f2 = summaries.get("fig2", {}).get("datasets", {})
    for d in ("adult", "bank"):
        rv = t3.get(d, {}).get("rhos", {}).get(str(1e-4))
        if rv:
            out[d] = rv["hard"]["mean"]
        elif d in f2 and 1e-4 in f2[d]["rhos"]:
            out[d] = f2[d]["hard"][f2[d]["rhos"].index(1e-4)]["mean"]
    return out


def adult_hard_level(summaries: dict, results_dir: str) -> str:
    """Paragraph on Adult's Hard level at rho = 1e-4 vs the paper's 0.696: what is ruled out (no tuning)."""
    lv = _hard_levels(summaries)
    if "adult" not in lv:
        return ""
    ph = paper.FIG3["adult"][1e-4]["hard"]
    L = [f"**Adult's Hard level at ρ = 1e-4.** Ours {lv['adult']:.3f}, paper {ph:.3f} "
         f"(gap {lv['adult'] - ph:+.3f}); nothing was tuned to close it."]
    ab = summaries.get("ablate", {}).get("datasets", {}).get("adult")
    if ab:
        hs = {v: x["rows"][0]["hard"]["mean"] for v, x in ab["variants"].items() if x["rows"][0]["rho"] == 1e-4}
        near = [v for v, h in hs.items() if abs(h - ph) < 0.05]
        L.append("Schedule readings (§8, Hard at 1e-4): " + ", ".join(f"{v} {h:.3f}" for v, h in hs.items())
                 + (" — none within 0.05 of the paper, so the schedule is ruled out." if not near else
                    f" — {', '.join(near)} within 0.05 of the paper."))
    L.append(_hard_gap_text(results_dir))
    if "bank" in lv:
        pb = paper.FIG3["bank"][1e-4]["hard"]
        opposite = (lv["adult"] - ph) * (lv["bank"] - pb) < 0
        L.append(f"Bank's Hard level at 1e-4 is {lv['bank']:.3f} vs the paper's {pb:.3f} (gap {lv['bank'] - pb:+.3f})"
                 + (": the two gaps have opposite signs, and a coarser (or finer) PWErr binning lowers (or raises) "
                    "every table's error alike, so binning alone cannot explain both consistently."
                    if opposite else ": both gaps have the same sign, so a common metric definition (binning) stays "
                                     "a consistent candidate."))
    lv26 = summaries.get("level")
    if lv26:
        ok = [r["variant"] for r in lv26["rows"] if r["towards_both"]]
        L.append(f"The candidate causes of issue 26 (§14, summarized in §8) were each run as a variant on both datasets: "
                 f"{'towards the paper on both: ' + ', '.join(ok) if ok else 'none moves both towards the paper'}; "
                 "the gap stays unexplained by them (§8).")
    else:
        L.append("The gap stays unexplained.")
    return " ".join(L)


def _level_text(summ: dict, all_summ: dict) -> str:
    """§8's paragraph on Hard's level at rho = 1e-4 (issue 26), from experiments/exp_level.py's summary (§14)."""
    lv = all_summ.get("level")
    if not lv:
        return ""
    p, rows = lv["paper"], lv["rows"]
    d0 = rows[0]["datasets"]
    f = {d: lv["floors"][d]["default"] for d in lv["floors"]}
    ini, smp, nn, hd = ("initial population (512 uniform)", "perfect 512-row sample", "hard, no noise (rho = 1e6)",
                        "hard 1e-4")
    place = {d: (f[d][ini] - f[d][hd]) / (f[d][ini] - f[d][smp]) for d in f}
    pplace = {d: (f[d][ini] - p[d]) / (f[d][ini] - f[d][smp]) for d in f}
    eq = lv["equivalent_rho"]
    a, b = d0["adult"], d0["bank"]
    L = [f"**Hard's level at ρ = 1e-4 (issue 26; table in §14).** Default, seeds {lv['seeds'][0]}–{lv['seeds'][-1]}: "
         f"adult {a['mean']:.3f} [{a['lo']:.3f}, {a['hi']:.3f}] vs the paper's {p['adult']:.3f}; bank "
         f"{b['mean']:.3f} [{b['lo']:.3f}, {b['hi']:.3f}] vs {p['bank']:.3f}"
         + (" (the paper's Bank value lies inside our interval: Bank agrees, only Adult is off)."
            if lv["paper_in_interval"]["bank"] and not lv["paper_in_interval"]["adult"] else ".")]
    L.append(f"*Floors* (20 bins, l1): on Adult the engine's initial population scores {f['adult'][ini]:.3f}, a perfect "
             f"512-row sample of the private table {f['adult'][smp]:.3f} (the floor of PWErr at release size 512), "
             f"Hard without noise (ρ = 1e6) {f['adult'][nn]:.3f}; so of Adult's {f['adult'][hd]:.3f}, "
             f"{f['adult'][smp]:.3f} is the metric's floor at 512 rows, {f['adult'][nn] - f['adult'][smp]:.3f} the "
             f"synthesis without noise and {f['adult'][hd] - f['adult'][nn]:.3f} the noise (Bank: {f['bank'][smp]:.3f}, "
             f"{f['bank'][nn] - f['bank'][smp]:.3f}, {f['bank'][hd] - f['bank'][nn]:.3f}). Hard's place between the "
             f"initial population (0) and a perfect sample (1): adult {place['adult']:.2f}, bank {place['bank']:.2f}; "
             f"the paper's levels against the same floors: adult {pplace['adult']:.2f}, bank {pplace['bank']:.2f}. "
             "Bank's place agrees with the paper's, Adult's does not, so the difference is specific to Adult.")
    if eq.get("adult") and eq.get("bank"):
        L.append(f"*Noise scale.* Our Hard reaches the paper's level at ρ ≈ {fmt_sci(eq['adult'])} on Adult "
                 f"({eq['adult'] / lv['rho']:.1f}× the budget) and ρ ≈ {fmt_sci(eq['bank'])} on Bank "
                 f"({eq['bank'] / lv['rho']:.1f}×): a difference in noise scale or accounting (Δ = 1 instead of √2, ρ "
                 "per round) would move both by the same factor, so it cannot explain both.")
    fam: dict[str, list] = {}
    for r in rows[1:]:
        if r["datasets"].get("adult"):
            fam.setdefault(r["candidate"], []).append(r)
    parts = []
    for c, rs in fam.items():
        best = min(rs, key=lambda r: abs(r["datasets"]["adult"]["mean"] - p["adult"]))
        bd = best["datasets"].get("bank")
        parts.append(f"{c}: best on Adult '{best['variant']}' {best['datasets']['adult']['mean']:.3f}"
                     + (f" (Bank {bd['mean']:.3f})" if bd else " (Bank n/a)"))
    L.append("*Each candidate, closest Adult level it reaches* (paired changes in §14): " + "; ".join(parts) + ".")
    ok = [r for r in rows if r["towards_both"]]
    sig = [r["variant"] for r in ok if r["significant_both"]]
    gap = a["mean"] - p["adult"]
    close = max((a["mean"] - r["datasets"]["adult"]["mean"] for r in ok), default=0.0)
    rec = [r["variant"] for r in ok if r["significant_both"] and r["candidate"] != "split"]
    L.append("*Towards the paper on both datasets* (|ours − paper| shrinks on Adult and on Bank): "
             + (", ".join(r["variant"] for r in ok) if ok else "none")
             + (f"; of these the paired change is significant on both for {', '.join(sig)}" if sig else
                "; for none of them is the paired change significant on both datasets")
             + f". The most any of them closes of Adult's gap ({gap:.3f}) is {close:.3f}; the metric's binning, the "
             "noise scale and the count threshold move Adult further but lower Bank below the paper alike. Since "
             "the paper's Bank value is inside our seed interval, 'towards' on Bank is decided by changes smaller "
             "than that interval. Recommendation: "
             + (f"{', '.join(rec)} (the lead decides; the engine's defaults are unchanged)." if rec else
                "adopt none; the engine's defaults are unchanged.")
             + " Adult's level is not explained by the listed candidates.")
    pa = lv["pairs"]["adult"]
    ex = sorted(pa[nn], key=lambda q: -(pa[nn][q] - pa[smp][q]))[:3]
    L.append("*Where Adult's error sits:* the pairs with the largest excess over the perfect-sample floor even without "
             "noise are " + ", ".join(f"{q} ({pa[nn][q]:.2f} vs {pa[smp][q]:.2f})" for q in ex)
             + "; hours.per.week (public domain [1, 99], which the paper's reach 0.0163 = 0.2 · 8/98 confirms) is the "
             "attribute the synthesis reproduces worst.")
    return " ".join(L)


def investigation(summaries: dict, results_dir: str) -> str:
    """Closing section: what the investigation (§8) shows, computed from its numbers."""
    a = summaries.get("ablate")
    if not a:
        return ""
    L = ["## 9. Conclusions of the investigation", ""]
    verdicts = []
    for d, ds in a["datasets"].items():
        v = ds["variants"]
        p = paper.TABLE4[d][a["tau"]][1]
        key = "last_crossing_rho" if d.startswith("xor") else "crossing_rho"
        best = min(v, key=lambda k: abs(math.log(v[k][key] / p)) if v[k].get(key) else math.inf)
        cr = ", ".join(f"{k} {fmt_sci(x.get(key))}" for k, x in v.items())
        r0 = v["default"]["rows"][0] if "default" in v else next(iter(v.values()))["rows"][0]
        L.append(f"- **{d}** (τ = {a['tau']}, paper crossing {fmt_sci(p)}): {'last ' if d.startswith('xor') else ''}"
                 f"crossings {cr}. Closest to the paper: **{best}**. At ρ = {fmt_sci(r0['rho'])} the paired reduction is "
                 + ", ".join(f"{k} {x['rows'][0]['reduction']['mean']:+.1f}%" for k, x in v.items())
                 + "; Hard's mean error there is "
                 + ", ".join(f"{k} {x['rows'][0]['hard']['mean']:.3f}" for k, x in v.items())
                 + (f" (paper {paper.FIG3[d][1e-4]['hard']:.3f})" if paper.FIG3.get(d, {}).get(1e-4, {}).get("hard")
                    else "") + ".")
        c_new, c_old = v.get("default", {}).get(key), v.get(OLD, {}).get(key)
        craw, ct1 = v.get("raw", {}).get(key), v.get("t-1", {}).get(key)
        verdicts.append({"d": d, "p": p, "new": c_new, "old": c_old, "raw": craw, "t-1": ct1,
                         "new_within": crossing_check(c_new, p)["within"],
                         "old_within": crossing_check(c_old, p)["within"]})
    L.append("")
    txt = "**What this establishes.** "
    nw = [x["d"] for x in verdicts if x["new_within"]]
    ow = [x["d"] for x in verdicts if x["old_within"]]
    txt += (f"The new default (DESIGN §3's reading) puts the crossing within a factor 1.5 of Table 4 on "
            f"{len(nw)}/{len(verdicts)} datasets ({', '.join(nw) or 'none'}); the previous reading ({OLD}) on "
            f"{len(ow)}/{len(verdicts)} ({', '.join(ow) or 'none'}). ")
    closer = [x["d"] for x in verdicts if x["new"] and x["old"]
              and abs(math.log(x["new"] / x["p"])) < abs(math.log(x["old"] / x["p"]))]
    if closer:
        txt += "The new default is closer to the paper than the previous reading on " + ", ".join(closer) + ". "
    br = [x["d"] for x in verdicts if x["raw"] and x["t-1"] and (x["raw"] - x["p"]) * (x["t-1"] - x["p"]) < 0]
    nb = [x["d"] for x in verdicts if x["raw"] and x["t-1"] and x["d"] not in br]
    if br or nb:
        txt += ("Ranking by raw counts and mutating at the rate of index t−1 bracket the paper's crossing on "
                + (", ".join(br) if br else "no dataset") + (f" (not on {', '.join(nb)})" if nb else "") + ". ")
    xd = a["datasets"].get("xor3")
    if xd and xd["variants"].get("H=10", {}).get("last_crossing_rho"):
        txt += f"On XOR-3, H = 10 gives a last crossing of {fmt_sci(xd['variants']['H=10']['last_crossing_rho'])}. "
    L.append(txt)
    L.append("")
    hl = adult_hard_level(summaries, results_dir)
    L.append("**What it does not establish.** " + (hl or _hard_gap_text(results_dir)) + " The mechanism of the "
             "crossing is not isolated either: the decomposition (§3) shows the soft vote's smoothing cost C growing "
             "with ρ, which fits a rank phase that rewards sharp counts, but no separate experiment proves it.")
    L.append("")
    L.append("**Defaults.** The engine's default schedule is now DESIGN §3's reading (schedule \"hybrid\": top "
             "`release` parents with one child each in the rank rounds, release = the top final noisy counts); the "
             f"previous reading stays available as the named schedule `{OLD}`, and `rank_by` / `mutation_index` are "
             "options, not defaults. All are post-processing of the noisy histograms, so none changes any privacy "
             "statement.")
    return "\n".join(L)


# ------------------------------------------------------------- issue 12 checks
def crossing_check(ours: float | None, paper_rho: float, factor: float | None = None) -> dict:
    """Paper/ours ratio of a crossing budget and whether it is within ``factor`` (default checks.FACTOR = 1.5).

    ours: our crossing rho (None = no sign change on the grid); paper_rho: Table 4's.
    Returns {'ratio': paper/ours or None, 'ratio_text': '1.4' or '—', 'within': bool}
    (within means 1/factor <= paper/ours <= factor, boundaries inclusive; False when there is no crossing).
    The issue-12 table (must_show, the "before" count of issue 26) used factor 2.
    """
    from .checks import FACTOR, within_factor

    if not ours or not paper_rho:
        return {"ratio": None, "ratio_text": "—", "within": False}
    r, ok = within_factor(paper_rho, ours, FACTOR if factor is None else factor)
    return {"ratio": r, "ratio_text": f"{r:.2f}", "within": ok}


def _yn(b: bool) -> str:
    return "yes" if b else "no"


def must_show(summaries: dict) -> tuple[str, list[str]]:
    """Issue 12's lenient "must show" table from the cached results: (markdown, list of failed claims).

    Kept only as the "before" count of issue 26 (crossings within 2x, failing claims left out of the
    paper's list); the report's check table is experiments/checks.py's.  Every yes/no is computed
    from the data here; a failed claim is named in the list."""
    L = ["| claim | paper | ours | paper ÷ ours | holds? |", "|---|---|---|---|---|"]
    failed: list[str] = []

    def row(claim, p, o, ratio, ok):
        L.append(f"| {claim} | {p} | {o} | {ratio} | {_yn(ok)} |")
        if not ok:
            failed.append(claim)

    f2 = summaries.get("fig2", {}).get("datasets", {})
    for d in ("adult", "bank"):
        for tau in (0.015, 0.03, 0.06):
            tv = f2.get(d, {}).get("taus", {}).get(str(tau))
            if tv is None:
                continue
            p = paper.TABLE4[d][tau][1]
            c = crossing_check(tv["crossing_rho"], p, factor=2.0)
            row(f"{d} crossing at τ = {tau} within 2× of Table 4", fmt_sci(p), fmt_sci(tv["crossing_rho"]),
                c["ratio_text"], c["within"])
    f3 = summaries.get("fig3", {}).get("datasets", {})
    for d in ("adult", "bank"):
        rv = f3.get(d, {}).get("rhos", {}).get(str(1e-4))
        if rv is None:
            continue
        p = paper.FIG3[d][1e-4]["reduction"]
        o = rv["best_reduction_of_means"]
        row(f"temperature sweep, {d}, ρ = 1e-4: best BF-Soft below Hard (gain within 2× of the paper's)",
            f"{p:.1f}%", f"{o:.1f}% (τ = {rv['best_tau']:g})", f"{p / o:.2f}" if o > 0 else "—",
            o > 0 and 0.5 <= p / o <= 2)
    f6 = summaries.get("fig6a", {})
    if "rows" in f6:
        r0 = str(f6["rhos"][0])
        age = f6["rows"][0]["rhos"][r0]["reduction"]
        allf = f6["rows"][-1]["rhos"][r0]["reduction"]
        row("policies (Fig. 6a), Adult age alone, ρ = 1e-4: reduction with interval above 0",
            "33.6% [28.7, 38.4]", f"{age['mean']:.1f}% [{age['lo']:.1f}, {age['hi']:.1f}]",
            f"{33.6 / age['mean']:.2f}" if age["mean"] > 0 else "—", age["lo"] > 0)
        row("policies (Fig. 6a), Adult all five, ρ = 1e-4: no gain (mean ≤ 0 or interval includes 0)",
            "−12.0% [−17.6, −6.5]", f"{allf['mean']:.1f}% [{allf['lo']:.1f}, {allf['hi']:.1f}]", "—",
            allf["mean"] <= 0 or allf["lo"] <= 0)
    ts = summaries.get("trainsize")
    if ts:
        red = {r["n"]: r["reduction"] for r in ts["rows"]}
        for n, sign in ((12000, 1), (48000, 1), (100000, -1)):
            if n in red:
                p = paper.TRAINSIZE[n]["reduction"]
                m = red[n]["mean"]
                row(f"XOR-3 training size n = {n:,}: mean reduction {'positive' if sign > 0 else 'negative'}",
                    f"{p:+.1f}%", f"{m:+.1f}% [{red[n]['lo']:+.1f}, {red[n]['hi']:+.1f}]",
                    f"{p / m:.2f}" if m * p > 0 else "—", m * sign > 0)
    f4 = summaries.get("fig4", {}).get("datasets", {})
    for d in ("adult", "bank"):
        ds = f4.get(d)
        if ds is None:
            continue
        n0, n1 = ds["N_first_last"]
        c0, c1 = ds["C_first_last"]
        row(f"decomposition, {d}: C > 0 at every budget", "yes",
            f"C > 0 at {sum(1 for r in ds['rows'] if r['C']['mean'] > 0)}/{len(ds['rows'])} budgets", "—",
            bool(ds["C_positive_all"]))
        row(f"decomposition, {d}: N falls and C grows with ρ", "yes", f"N {n0:+.3f} → {n1:+.3f}, C {c0:+.3f} → {c1:+.3f}",
            "—", n1 < n0 and c1 > c0)
    pi = summaries.get("pilot", {})
    if "settings" in pi:
        n, a = pi["n_settings"], pi["agree"]["scaled"]
        row("Figure 5 / public pilot (Adult): scaled pilot's sign agreement ≥ 80%", "190/210 (90.5%)",
            f"{a}/{n} ({100 * a / n:.1f}%)", f"{90.5 / (100 * a / n):.2f}" if a else "—", a / n >= 0.8)
    b6 = summaries.get("fig6b", {})
    if "rows" in b6:
        from .exp_fig6b import checks as fig6b_checks

        for claim, p, o, ok in fig6b_checks(b6):
            row(claim, p, o, "—", ok)
    return "\n".join(L), failed
