"""Investigation — the old and the new reading of the hybrid schedule, and the reference-library details.

The paper calls its selection "hybrid" (512 candidates in rounds 1–3, 1,024 after, 512
released) without more detail.  DESIGN §3 (updated for issue 12) reads it as the
reference PE library does, and that reading is now the engine's default.  This
investigation reruns Hard and BF-Soft on Adult, Bank and XOR-3 over a budget grid under
the alternatives, all post-processing of the same noisy histograms (no privacy change):

* ``default``      -- the new default (DESIGN §3, schedule "hybrid"): rank rounds keep the
                      top ``release`` parents plus one mutated child each; release = the
                      512 candidates of C_T with the largest final noisy counts (each once).
* ``hybrid-256x3`` -- the previous reading (named schedule): rank rounds keep the top 256 of
                      1,024 plus 3 mutated children each; release = 512 draws from C_T
                      proportional to the clipped noisy counts of round T.
* ``raw``          -- the new default ranking candidates by the raw (unclipped) noisy counts.
* ``t-1``          -- the new default with round t mutating at the rate of index t−1.
* ``raw+t-1``      -- both reference-library details.
* ``H=10``         -- the new default with public count threshold H = 10 (App. B).
"""

from __future__ import annotations


from blowfish_core.model.metrics import crossing_budget

from . import paper
from .common import ci, dataset_available, engine_supports, fmt_sci, lookup, reduction, task
from .plots import COLORS, band, new, save

ID = "ablate"
TITLE = "Investigation: old vs new reading of the hybrid schedule, reference-library details, threshold H"
TAU = 0.03
#: the previous default reading, kept as a named schedule for comparison
OLD = "hybrid-256x3"
VARIANTS = {
    "default": {},
    OLD: {"schedule": OLD},
    "raw": {"rank_by": "raw"},
    "t-1": {"mutation_index": "t-1"},
    "raw+t-1": {"rank_by": "raw", "mutation_index": "t-1"},
    "H=10": {"threshold_h": 10.0},
}
_ALL = list(VARIANTS)
_RHOS = [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 1.0]
SCALES = {
    "full": {"datasets": {
        "adult": {"rhos": _RHOS, "seeds": list(range(6)), "variants": _ALL},
        "bank": {"rhos": _RHOS, "seeds": list(range(6)), "variants": [v for v in _ALL if v != "H=10"]},
        "xor3": {"rhos": [1e-4, 1e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0], "seeds": list(range(6)), "variants": _ALL}}},
    "quick": {"datasets": {
        "adult": {"rhos": [1e-4, 1e-3, 1e-2, 1.0], "seeds": [0, 1], "variants": ["default", OLD]},
        "xor3": {"rhos": [1e-4, 1e-3, 1e-2, 1e-1, 1.0], "seeds": [0, 1, 2], "variants": _ALL}}},
}


def variants(g: dict) -> list[str]:
    """The variants of a dataset grid the engine can run (rank_by / mutation_index need issue 12c's engine)."""
    return [v for v in g["variants"] if v in VARIANTS and engine_supports(task(**VARIANTS[v]))]


def _datasets(scale):
    return {d: g for d, g in scale["datasets"].items() if dataset_available(d)}


def plan(scale: dict) -> list[dict]:
    out = []
    for d, g in _datasets(scale).items():
        for v in variants(g):
            kw = VARIANTS[v]
            for rho in g["rhos"]:
                for s in g["seeds"]:
                    out.append(task(dataset=d, method="hard", rho=rho, seed=s, **kw))
                    out.append(task(dataset=d, method="bf-soft", rho=rho, tau=TAU, seed=s, **kw))
    return out


def analyze(results: dict, scale: dict) -> dict:
    out = {"datasets": {}, "tau": TAU}
    for d, g in _datasets(scale).items():
        per = {}
        for v in variants(g):
            kw = VARIANTS[v]
            rows = []
            for rho in g["rhos"]:
                eh = [lookup(results, dataset=d, method="hard", rho=rho, seed=s, **kw)["error"] for s in g["seeds"]]
                es = [lookup(results, dataset=d, method="bf-soft", rho=rho, tau=TAU, seed=s, **kw)["error"]
                      for s in g["seeds"]]
                rows.append({"rho": rho, "hard": ci(eh), "soft": ci(es), "reduction": ci(reduction(eh, es))})
            hm = [r["hard"]["mean"] for r in rows]
            sm = [r["soft"]["mean"] for r in rows]
            cross = crossing_budget(g["rhos"], hm, sm)
            last = crossing_budget(g["rhos"][::-1], hm[::-1], sm[::-1])
            per[v] = {"rows": rows, "crossing_rho": cross, "last_crossing_rho": last}
        out["datasets"][d] = {"rhos": list(g["rhos"]), "seeds": list(g["seeds"]), "variants": per,
                              "not_run": [v for v in g["variants"] if v not in per]}
    return out


def figures(summ: dict, figdir: str) -> list[str]:
    paths = []
    for d, ds in summ["datasets"].items():
        vs = list(ds["variants"])
        fig, ax = new(len(vs), 1, w=3.6, sharey=True)
        for j, v in enumerate(vs):
            a = ax[0, j]
            rows = ds["variants"][v]["rows"]
            x = [r["rho"] for r in rows]
            for k, lab in (("hard", "Hard"), ("soft", f"BF-Soft tau={summ['tau']}")):
                band(a, x, [r[k]["mean"] for r in rows], [r[k]["lo"] for r in rows], [r[k]["hi"] for r in rows], lab,
                     COLORS["hard" if k == "hard" else "bf-soft"])
            a.set_xscale("log")
            a.set_title(f"{d}: {v}", fontsize=9)
            a.set_xlabel("rho")
            a.legend(fontsize=6)
        paths.append(save(fig, f"{figdir}/ablate_{d}.png"))
    return paths


def section(summ: dict, meta: dict) -> str:
    L = [f"## 8. {TITLE}", ""]
    L.append(__doc__.split("\n\n", 1)[1].strip())
    L.append("")
    L.append(old_vs_new(summ))
    L.append("")
    L.append(f"τ = {summ['tau']}. Cells: mean error Hard / BF-Soft (paired reduction R).")
    L.append("")
    for d, ds in summ["datasets"].items():
        if ds.get("not_run"):
            L.append(f"*{d}: variant(s) {', '.join(ds['not_run'])} not run (this engine has no such option).*")
            L.append("")
        vs = list(ds["variants"])
        L.append(f"**{d}** ({len(ds['seeds'])} paired seeds)")
        L.append("")
        L.append("| ρ | " + " | ".join(vs) + " |")
        L.append("|---|" + "---|" * len(vs))
        for i, rho in enumerate(ds["rhos"]):
            cells = []
            for v in vs:
                r = ds["variants"][v]["rows"][i]
                cells.append(f"{r['hard']['mean']:.3f} / {r['soft']['mean']:.3f} ({r['reduction']['mean']:+.0f}%)")
            L.append(f"| {fmt_sci(rho)} | " + " | ".join(cells) + " |")
        L.append("| crossing ρ× (first) | " + " | ".join(fmt_sci(ds["variants"][v]["crossing_rho"]) for v in vs) + " |")
        L.append("| crossing ρ× (last) | " + " | ".join(fmt_sci(ds["variants"][v].get("last_crossing_rho"))
                                                        for v in vs) + " |")
        L.append("")
        L.append(f"![ablate {d}](figures/ablate_{d}.png)")
        L.append("")
    return "\n".join(L)


def crossing_key(d: str) -> str:
    """XOR-3's mean curves cross several times: its comparison uses the last sign change."""
    return "last_crossing_rho" if d.startswith("xor") else "crossing_rho"


def old_vs_new(summ: dict) -> str:
    """The "old vs new reading" table: crossing per variant beside Table 4, with paper/ours ratios."""
    from .findings import crossing_check

    ds_all = summ["datasets"]
    vs = [v for v in VARIANTS if any(v in ds["variants"] for ds in ds_all.values())]
    L = ["**Old vs new reading.** The new default (`default`, DESIGN §3: top `release` parents with one child "
         f"each in the rank rounds, release = the top final noisy counts) against the previous reading (`{OLD}`) and "
         f"the two reference-library details, τ = {summ['tau']}; crossing ρ× (XOR-3: last sign change) and in "
         "brackets paper ÷ ours.", ""]
    L.append("| dataset | paper (Table 4) | " + " | ".join(vs) + " |")
    L.append("|---|---|" + "---|" * len(vs))
    within: dict[str, list[str]] = {v: [] for v in vs}
    for d, ds in ds_all.items():
        p = paper.TABLE4[d][summ["tau"]][1]
        cells = []
        for v in vs:
            x = ds["variants"].get(v)
            if x is None:
                cells.append("not run")
                continue
            c = crossing_check(x.get(crossing_key(d)), p)
            cells.append(f"{fmt_sci(x.get(crossing_key(d)))} ({c['ratio_text']})")
            if c["within"]:
                within[v].append(d)
        L.append(f"| {d} | {fmt_sci(p)} | " + " | ".join(cells) + " |")
    L.append("")
    n = len(ds_all)
    L.append("Within a factor 1.5 of Table 4: " + "; ".join(
        f"{v} {len(within[v])}/{sum(1 for ds in ds_all.values() if v in ds['variants'])}"
        + (f" ({', '.join(within[v])})" if within[v] else "") for v in vs) + f" (of {n} datasets).")
    return "\n".join(L)


def headline(summ: dict) -> list[tuple[str, str, str, str]]:
    out = []
    for d, ds in summ["datasets"].items():
        key = "last_crossing_rho" if d.startswith("xor") else "crossing_rho"
        out.append((f"Investigation ({d}, τ = {summ['tau']}): {'last ' if d.startswith('xor') else ''}crossing under "
                    "alternative ResampleMutate readings", "—",
                    ", ".join(f"{v}: {fmt_sci(x.get(key))}" for v, x in ds["variants"].items()), "see §8"))
    return out
