"""Investigation — which ResampleMutate / release choices move our numbers toward the paper's.

The paper calls its selection "hybrid" without detail and returns the final
population (Algorithm 1, line 24); the engine's documented defaults
(docs/DECISIONS.md) are one reading.  This ablation reruns Hard and BF-Soft on Adult
and XOR-3 over a budget grid under alternative readings, all post-processing of the
same noisy histograms (no privacy change):

* ``default``   -- the engine: rank rounds keep the top 256 of 1,024 candidates plus 3
                   mutated children each; release = 512 draws from C_T proportional
                   to the clipped noisy counts of round T; H = 0.
* ``top``       -- release = the 512 candidates of C_T with the largest noisy counts
                   (how the reference PE library evaluates its rank-selected samples).
* ``512x1``     -- rank rounds keep the top 512 plus one mutated child each (engine
                   release).
* ``top+512x1`` -- both: 512 selected of 1,024 candidates and released, which is how
                   "1,024 candidates, 512 released" reads with the reference library's
                   rank selection (keep the selected, one variation each).
* ``H=10``      -- public count threshold H = 10 (App. B), engine release.
"""

from __future__ import annotations


from blowfish_core.metrics import crossing_budget

from .common import ci, dataset_available, fmt_sci, lookup, reduction, task
from .plots import COLORS, band, new, save

ID = "ablate"
TITLE = "Investigation: selection schedule, release rule and threshold H"
TAU = 0.03
VARIANTS = {
    "default": {},
    "top": {"release_rule": "top"},
    "512x1": {"children": 1},
    "top+512x1": {"release_rule": "top", "children": 1},
    "H=10": {"threshold_h": 10.0},
}
_ALL = list(VARIANTS)
SCALES = {
    "full": {"datasets": {
        "adult": {"rhos": [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 1.0], "seeds": list(range(6)), "variants": _ALL},
        "bank": {"rhos": [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 1.0], "seeds": list(range(6)),
                 "variants": ["default", "top+512x1"]},
        "xor3": {"rhos": [1e-4, 1e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0], "seeds": list(range(6)), "variants": _ALL}}},
    "quick": {"datasets": {
        "adult": {"rhos": [1e-4, 1e-3, 1e-2, 1.0], "seeds": [0, 1], "variants": ["default", "top+512x1"]},
        "xor3": {"rhos": [1e-4, 1e-3, 1e-2, 1e-1, 1.0], "seeds": [0, 1, 2], "variants": _ALL}}},
}


def _datasets(scale):
    return {d: g for d, g in scale["datasets"].items() if dataset_available(d)}


def plan(scale: dict) -> list[dict]:
    out = []
    for d, g in _datasets(scale).items():
        for v in g["variants"]:
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
        for v in g["variants"]:
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
        out["datasets"][d] = {"rhos": list(g["rhos"]), "seeds": list(g["seeds"]), "variants": per}
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
    L.append(f"τ = {summ['tau']}. Cells: mean error Hard / BF-Soft (paired reduction R).")
    L.append("")
    for d, ds in summ["datasets"].items():
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


def headline(summ: dict) -> list[tuple[str, str, str, str]]:
    out = []
    for d, ds in summ["datasets"].items():
        key = "last_crossing_rho" if d.startswith("xor") else "crossing_rho"
        out.append((f"Investigation ({d}, τ = {summ['tau']}): {'last ' if d.startswith('xor') else ''}crossing under "
                    "alternative ResampleMutate readings", "—",
                    ", ".join(f"{v}: {fmt_sci(x.get(key))}" for v, x in ds["variants"].items()), "see §8"))
    return out
