"""Experiment 13 — policy-aware marginal synthesis (issue 25): bf-mst, bf-aim, bf-soft-mst, bf-soft-aim.

Adult and Bank under their default policies (age, threshold 7 years), and Adult under the
Figure 6a policy set (exp_policies.POLICIES), over rho 1e-5 .. 1 with paired seeds: Tab-PE, Hard,
BF-Soft (the paper's comparison, kept unchanged beside the rest), the standard-DP references MST
and AIM, and their Blowfish versions (``Method.policy_aware``: exact per-marginal sensitivity;
the soft ones measure K_S h_S at a fixed tau, :data:`MARGINAL_TAU`).  Every run is one task of the
experiment runner (common.execute -> synthesis.experiment.run_method, the method table's runner),
scored by the preset's PWErr against the private table, as every experiment.

Reported (REPORT.md section 13):

* PWErr per method and budget (mean, 95% Student-t interval over the paired seeds);
* the gain of bf-mst over MST per policy: the paired reduction R_s = 100 (E_MST - E_bf) / E_MST;
* the crossing of bf-soft-mst vs bf-mst: the first budget where the soft version stops beating the
  hard one (metrics.crossing_budget, interpolated on log rho), and the number of sign changes.

Methods missing from the method table are skipped (the script runs on every engine version).
The AIM family costs about 100-150 s per Adult run on the 2-core machine (baseline_runs.jsonl):
it runs on :data:`AIM_BUDGETS` with :data:`AIM_SEEDS` on :data:`AIM_DATASETS` under the default policy only, and the report says so.
"""

from __future__ import annotations

import numpy as np

from blowfish_core.algorithm.methods import METHODS
from blowfish_core.model.metrics import crossing_budget

from .common import ci, dataset_available, fmt_sci, lookup, reduction, task
from .exp_policies import POLICIES
from .plots import COLORS, band, new, save

ID = "marginals"
TITLE = "Policy-aware marginal synthesis: bf-mst, bf-aim and their soft versions (issue 25)"
#: the paper's BF-Soft temperature for Adult/Bank comparisons (Fig. 6a's tau).
SOFT_TAU = 0.03
#: the soft marginals' fixed temperature (docs/DECISIONS.md, issue 25; chosen on a 2-seed Adult sweep).
MARGINAL_TAU = 0.03
#: the experiment's methods, in the report's order (those missing from the method table are skipped).
WANTED = ("tab-pe", "hard", "bf-soft", "mst", "aim", "bf-mst", "bf-aim", "bf-soft-mst", "bf-soft-aim")
#: the AIM family's (slow) methods: run on fewer budgets.
AIM_FAMILY = ("aim", "bf-aim", "bf-soft-aim")
_FULL_RHOS = [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 1e-1, 1.0]
#: budgets and seeds of the AIM family (full scale; default policies only): three budgets, 8 seeds, for cost.
AIM_BUDGETS = [1e-4, 1e-3, 1e-2]
AIM_SEEDS = list(range(8))
AIM_DATASETS = ("adult",)
#: budgets of the Fig. 6a policy set (full scale).
POLICY_BUDGETS = [1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0]
SCALES = {
    "full": {"rhos": _FULL_RHOS, "seeds": list(range(8)), "aim_rhos": AIM_BUDGETS, "aim_seeds": AIM_SEEDS,
             "policy_rhos": POLICY_BUDGETS, "datasets": ["adult", "bank"]},
    "quick": {"rhos": [1e-4, 1e-2], "seeds": [0, 1], "aim_rhos": [1e-2], "aim_seeds": [0],
              "policy_rhos": [1e-4], "datasets": ["adult"]},
}


def methods() -> list[str]:
    """The experiment's methods present in the method table, in report order."""
    return [m for m in WANTED if m in METHODS]


def _tau(m: str) -> float | None:
    if not METHODS[m].needs_tau:
        return None
    return MARGINAL_TAU if METHODS[m].is_reference else SOFT_TAU


def settings(scale: dict) -> list[dict]:
    """(dataset, policy name, protect list, budgets) of every setting."""
    out = []
    for d in scale["datasets"]:
        if dataset_available(d):
            out.append({"dataset": d, "policy": "age", "protect": [], "rhos": scale["rhos"]})
    if dataset_available("adult") and "adult" in scale["datasets"]:
        for name, prot in POLICIES.items():
            if prot:
                out.append({"dataset": "adult", "policy": name, "protect": prot, "rhos": scale["policy_rhos"]})
    return out


def _rhos(m: str, st: dict, scale: dict) -> list[float]:
    if m in AIM_FAMILY:
        return [r for r in scale["aim_rhos"] if r in st["rhos"]] if st["protect"] else scale["aim_rhos"]
    return st["rhos"]


def _seeds(m: str, scale: dict) -> list[int]:
    return scale["aim_seeds"] if m in AIM_FAMILY else scale["seeds"]


def _applies(m: str, st: dict) -> bool:
    """Policy-free methods (Tab-PE, MST, AIM) run once per dataset (the default-policy setting); the AIM
    family (slow) runs on Adult's default policy only (AIM_DATASETS)."""
    if m in AIM_FAMILY and (st["protect"] or st["dataset"] not in AIM_DATASETS):
        return False
    return not st["protect"] or METHODS[m].policy_aware or m in ("hard", "bf-soft")


def plan(scale: dict) -> list[dict]:
    out = []
    for st in settings(scale):
        for m in methods():
            if not _applies(m, st):
                continue
            for rho in _rhos(m, st, scale):
                for s in _seeds(m, scale):
                    out.append(task(dataset=st["dataset"], method=m, rho=rho, tau=_tau(m), seed=s,
                                    protect=st["protect"]))
    return out


def _errors(results, st, m, rho, seeds) -> list[float] | None:
    try:
        return [lookup(results, dataset=st["dataset"], method=m, rho=rho, tau=_tau(m), seed=s,
                       protect=st["protect"])["error"] for s in seeds]
    except KeyError:
        return None


def analyze(results: dict, scale: dict) -> dict:
    out: dict = {"settings": [], "methods": methods(), "scale": scale, "marginal_tau": MARGINAL_TAU,
                 "soft_tau": SOFT_TAU}
    for st in settings(scale):
        row: dict = {"dataset": st["dataset"], "policy": st["policy"], "protect": st["protect"], "methods": {}}
        for m in methods():
            if not _applies(m, st) and METHODS[m].policy_aware:  # not run under this policy (the AIM family)
                row["methods"][m] = {}
                continue
            # a policy-free method (Tab-PE, MST, AIM) under a policy setting: its one run per dataset
            src = st if _applies(m, st) else {**st, "protect": []}
            per = {}
            for rho in _rhos(m, src, scale):
                e = _errors(results, src, m, rho, _seeds(m, scale))
                if e is not None:
                    per[repr(rho)] = {"rho": rho, "pwerr": ci(e), "errors": e}
            row["methods"][m] = per
        row["gain"] = _gain(row, "mst", "bf-mst")
        row["gain_aim"] = _gain(row, "aim", "bf-aim")
        row["crossing"] = _crossing(row, "bf-mst", "bf-soft-mst")
        row["crossing_aim"] = _crossing(row, "bf-aim", "bf-soft-aim")
        out["settings"].append(row)
    return out


def _gain(row: dict, base: str, ours: str) -> dict:
    """Paired reduction of ``ours`` vs ``base`` per budget (both present with the same seeds)."""
    a, b = row["methods"].get(base, {}), row["methods"].get(ours, {})
    out = {}
    for k in a:
        if k in b and len(a[k]["errors"]) == len(b[k]["errors"]):
            out[k] = ci(reduction(a[k]["errors"], b[k]["errors"]))
    return out


def _crossing(row: dict, hard: str, soft: str) -> dict:
    """Where ``soft`` stops beating ``hard`` (first sign change of the mean difference, log-rho interpolation)."""
    a, b = row["methods"].get(hard, {}), row["methods"].get(soft, {})
    ks = sorted((k for k in a if k in b), key=lambda k: a[k]["rho"])
    if len(ks) < 2:
        return {}
    rhos = [a[k]["rho"] for k in ks]
    ha = np.array([a[k]["pwerr"]["mean"] for k in ks])
    sb = np.array([b[k]["pwerr"]["mean"] for k in ks])
    sg = np.sign(sb - ha)
    return {"crossing_rho": crossing_budget(rhos, ha, sb), "sign_changes": int(np.sum(sg[1:] * sg[:-1] < 0)),
            "soft_better_at_min": bool(sb[0] < ha[0]), "soft_better_at_max": bool(sb[-1] < ha[-1])}


def _label(m: str) -> str:
    return METHODS[m].short_label if m in METHODS else m


def figures(summ: dict, figdir: str) -> list[str]:
    rows = [r for r in summ.get("settings", []) if r["policy"] == "age"]
    if not rows:
        return []
    fig, ax = new(len(rows), 1, w=5.2, h=3.8)
    palette = {"mst": "#2ca02c", "aim": "#98df8a", "bf-mst": "#9467bd", "bf-aim": "#c5b0d5",
               "bf-soft-mst": "#e377c2", "bf-soft-aim": "#f7b6d2"}
    for j, row in enumerate(rows):
        a = ax[0, j]
        for m, per in row["methods"].items():
            if not per:
                continue
            ks = sorted(per, key=lambda k: per[k]["rho"])
            x = [per[k]["rho"] for k in ks]
            c = [per[k]["pwerr"] for k in ks]
            band(a, x, [v["mean"] for v in c], [v["lo"] for v in c], [v["hi"] for v in c], _label(m),
                 COLORS.get(m, palette.get(m, "#17becf")))
        a.set_xscale("log")
        a.set_xlabel("rho (zCDP)")
        a.set_ylabel("PWErr")
        a.set_title(f"{row['dataset'].capitalize()}, policy: age (θ = 7)")
        a.legend(fontsize=6)
    paths = [save(fig, f"{figdir}/marginals_pwerr.png")]
    pol = [r for r in summ["settings"] if r["dataset"] == "adult" and r["gain"]]
    if pol:
        fig, ax = new(1, 1, w=6.0, h=3.6)
        a = ax[0, 0]
        for r in pol:
            ks = sorted(r["gain"], key=float)
            a.plot([float(k) for k in ks], [r["gain"][k]["mean"] for k in ks], marker="o", label=r["policy"])
        a.axhline(0, color="#888", lw=0.8)
        a.set_xscale("log")
        a.set_xlabel("rho (zCDP)")
        a.set_ylabel("gain of bf-mst over MST, % (paired)")
        a.set_title("Adult: bf-mst vs MST per policy")
        a.legend(fontsize=6)
        paths.append(save(fig, f"{figdir}/marginals_gain.png"))
    return paths


def _f(c: dict | None) -> str:
    if not c:
        return "—"
    if c["n"] < 2:
        return f"{c['mean']:.3f}"
    return f"{c['mean']:.3f} [{c['lo']:.3f}, {c['hi']:.3f}]"


def _g(c: dict | None) -> str:
    if not c:
        return "—"
    return f"{c['mean']:+.1f}% [{c['lo']:+.1f}, {c['hi']:+.1f}]"


def section(summ: dict, meta: dict) -> str:
    L = [f"## 13. {TITLE}", ""]
    rows = summ.get("settings", [])
    if not rows:
        return "\n".join(L + ["Skipped: Adult/Bank not available."])
    sc = summ["scale"]
    ms = summ["methods"]
    L.append(f"**Setting.** {', '.join(r['dataset'].capitalize() for r in rows if r['policy'] == 'age')} under the "
             f"default policy (age, θ = 7); Adult under the Figure 6a policy set at {', '.join(fmt_sci(r) for r in sc['policy_rhos'])}. "
             f"{len(sc['seeds'])} paired seeds over ρ = {', '.join(fmt_sci(r) for r in sc['rhos'])} for every method but the "
             f"AIM family ({', '.join(m for m in AIM_FAMILY if m in ms)}: Adult only, {len(sc['aim_seeds'])} seed(s) at "
             f"{', '.join(fmt_sci(r) for r in sc['aim_rhos'])}; AIM about 10-110 s per Adult run here). BF-Soft at τ = {summ['soft_tau']} "
             f"(the paper's comparison, unchanged); the soft marginals at τ = {summ['marginal_tau']} (fixed). PWErr against the "
             "private table, mean [95% Student-t interval]. Methods run: " + ", ".join(_label(m) for m in ms) + ".")
    L.append("")
    for row in rows:
        if row["policy"] != "age":
            continue
        L.append(f"### {row['dataset'].capitalize()}, default policy (age, θ = 7)")
        L.append("")
        have = [m for m in ms if row["methods"].get(m)]
        L.append("| ρ | " + " | ".join(_label(m) for m in have) + " |")
        L.append("|---|" + "---|" * len(have))
        for rho in sc["rhos"]:
            k = repr(rho)
            L.append(f"| {fmt_sci(rho)} | " + " | ".join(_f(row["methods"][m].get(k, {}).get("pwerr")) for m in have) + " |")
        L.append("")
    L.append("![pwerr](figures/marginals_pwerr.png)")
    L.append("")
    L.append("### Gain of bf-mst over MST, and the crossing of bf-soft-mst vs bf-mst")
    L.append("")
    L.append("Gain: paired R = 100 (E_MST − E_bf-mst) / E_MST, mean [95% interval]; positive = the policy helps. "
             "Crossing: the first budget where bf-soft-mst stops beating bf-mst (log-ρ interpolation), with the number of "
             "sign changes of the mean difference.")
    L.append("")
    ks = [repr(r) for r in sc["policy_rhos"]]
    L.append("| dataset | policy | " + " | ".join(f"gain at ρ={fmt_sci(float(k))}" for k in ks)
             + " | crossing soft vs hard | sign changes |")
    L.append("|---|---|" + "---|" * len(ks) + "---|---|")
    for row in rows:
        cr = row["crossing"]
        ctext = fmt_sci(cr.get("crossing_rho")) if cr.get("crossing_rho") else (
            "none (soft better throughout)" if cr.get("soft_better_at_min") and cr.get("soft_better_at_max") else
            "none (hard better throughout)" if cr else "—")
        L.append(f"| {row['dataset']} | {row['policy']} | " + " | ".join(_g(row["gain"].get(k)) for k in ks)
                 + f" | {ctext} | {cr.get('sign_changes', '—')} |")
    L.append("")
    if any(r["gain"] for r in rows if r["dataset"] == "adult"):
        L.append("![gain](figures/marginals_gain.png)")
        L.append("")
    L.append(_verdict(summ))
    return "\n".join(L)


#: why they win and lose: measured outside this experiment's grid (session of 2026-12-02; docs/DECISIONS.md).
WHY = (
    "**Why.** The gain comes from what the policy does not protect: under age alone, 4 of 5 1-way and 6 of 10 "
    "2-way marginals are released exactly, the whole budget goes to age's measurements, and bf-mst measures every "
    "exact pair, not only a tree's (Adult ρ = 1e-4, 3 seeds: 0.267 with the tree's exact pairs only, 0.231 with "
    "all). It shrinks with the budget because MST's noise shrinks too and the PWErr floor of a 512-row release "
    "(0.258 on Adult at 20 bins, §14) dominates both. Under age+hours+education.num at ρ ≥ 1e-2 issue 25's first "
    "order lost to MST: the one free pair (workclass, income) was forced into the model before the tree picks, "
    "which then only joined the remaining components (4 seeds: 0.229 at ρ = 1e-2 and 0.218 at ρ = 1; MST 0.210 "
    "and 0.198). bf-mst now picks MST's whole tree first and adds the exact pairs on top (docs/DECISIONS.md "
    "2026-12-03; 12 paired seeds: 0.228 → 0.219 at ρ = 1e-2, 0.216 → 0.200 at ρ = 1, MST 0.213 and 0.201). "
    "With all five attributes protected "
    "nothing is exact and bf-mst equals MST within the noise. Soft marginals (bf-soft-mst, bf-soft-aim) help "
    "only where the noise dominates (Adult and Bank ρ ≤ 3e-5; crossing above): de-biasing the smoothing "
    "through mbi's query amplifies the noise in the kernel's fine-scale directions (on Adult's 20 age bins the "
    "soft measurement is more precise in only 2-4 of 20 directions), so a soft marginal buys little once the "
    "hard one is precise. bf-aim's gain over AIM is largest at ρ = 1e-4 (exact cliques free) and becomes a loss "
    "at ρ = 1e-2, where AIM spends its larger per-round budget on better cliques.")


def _verdict(summ: dict) -> str:
    """Where the policy-aware marginal methods win and lose, from the numbers above, and why (WHY)."""
    lines = [WHY, "", "**Where the policy-aware marginal methods win, where they lose.**"]
    for row in summ["settings"]:
        g = row["gain"]
        if not g:
            continue
        wins = [float(k) for k, c in g.items() if c["lo"] > 0]
        loses = [float(k) for k, c in g.items() if c["hi"] < 0]
        ties = [float(k) for k, c in g.items() if c["lo"] <= 0 <= c["hi"]]
        lines.append(f"- {row['dataset'].capitalize()}, {row['policy']}: bf-mst beats MST (interval above 0) at "
                     f"{', '.join(fmt_sci(x) for x in sorted(wins)) or 'no budget'}; worse at "
                     f"{', '.join(fmt_sci(x) for x in sorted(loses)) or 'no budget'}; tied at "
                     f"{', '.join(fmt_sci(x) for x in sorted(ties)) or 'no budget'}.")
    for row in summ["settings"]:
        g = row.get("gain_aim") or {}
        if g:
            lines.append(f"- {row['dataset'].capitalize()}, {row['policy']}: bf-aim vs AIM (paired gain): "
                         + "; ".join(f"ρ = {fmt_sci(float(k))}: {_g(c)}" for k, c in sorted(g.items(), key=lambda kv: float(kv[0]))) + ".")
    return "\n".join(lines)


def headline(summ: dict) -> list[tuple[str, str, str, str]]:
    """No row in the paper-vs-ours summary: bf-mst and the others are not the paper's methods (section 13
    reports them)."""
    return []
