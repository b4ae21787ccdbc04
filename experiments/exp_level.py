"""Experiment 14 — why is Hard's PWErr at rho = 1e-4 on Adult 0.906 and not the paper's 0.696? (issue 26)

papers/000 §6.2.2 (Figure 3): Hard at rho = 1e-4 has mean PWErr 0.696 on Adult and 0.976 on Bank; ours
(default engine, default policy: age theta = 7) is 0.906 and 0.934.  This experiment runs every candidate
cause the issue lists as a *named variant*, a documented change of one parameter of the data preparation,
the engine (``SynthConfig`` fields) or the metric (``metrics.pwerr``'s ``bins``, or a cell rule), on Adult
AND Bank, 8 paired seeds each, and reports where it moves both levels.  Nothing of the defaults is changed:
each variant is a parameter set (:data:`VARIANTS`), the default is the empty one.

Candidates (issue 26):

* data: the train/pilot split (split seeds 1, 2; the first 80% / 60% of the rows in file order instead of
  a seeded permutation), rows with a missing marker dropped (Adult '?', Bank 'unknown': in the five
  modelled columns, or in any column of the table), the ordinal attribute (Adult education.num, Bank
  education) typed as numeric or as categorical;
* the metric (re-scoring the same releases): numeric bins 5 / 10 / 50 / one cell per whole number,
  20 equal-frequency bins of the reference table, 20 equal-width bins over the data's range, total variation
  (half the l1), l1 counted only on the cells the real table occupies;
* the initial population: 1,024 or 2,048 uniform candidates instead of 512 (``SynthConfig.population``);
* the release size: 1,024 released rows (the whole final population), the distinct records of the top 512,
  a release drawn proportionally to the clipped counts;
* clipping (App. B): ranking by the raw (unclipped) noisy counts, a public count threshold H = 10.

Floors (what part of 0.906 is noise, what part the metric and the release size): the error of the engine's
own initial population (512 uniform records), of a perfect 512-row sample from the private table (the floor
of PWErr at release size 512), of Hard without noise (rho = 1e6), and a per-attribute-pair breakdown.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any

import numpy as np

from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis
from blowfish_core.io.data import read_table
from blowfish_core.io.presets import get_preset, shared_path, split_table
from blowfish_core.model.distance import domain_index, group_records
from blowfish_core.model.metrics import bin_codes, marginal
from blowfish_core.model.schema import Attribute, Schema

from . import paper
from .common import PILOT_N, ci, fmt_sci

ID = "level"
TITLE = "Hard's level at ρ = 1e-4: candidate causes (issue 26)"
KIND = "compute"
RHO = 1e-4
NO_NOISE_RHO = 1e6
SCALES = {
    "full": {"datasets": ["adult", "bank"], "seeds": list(range(8))},
    "quick": {"datasets": ["adult", "bank"], "seeds": [0, 1]},
}
PAPER_HARD = {d: paper.FIG3[d][1e-4]["hard"] for d in ("adult", "bank")}
#: the missing-value marker of each preset's table.
MISSING = {"adult": "?", "bank": "unknown"}
#: the ordinal attribute of each preset whose typing is a candidate.
ORDINAL = {"adult": "education.num", "bank": "education"}

#: candidate -> list of (variant name, what it changes, {"data": ..., "config": ..., "metric": ...}).
#: data keys: split ('seed1', 'seed2', 'head'), drop_missing ('five' | 'all'), ordinal_as ('numeric' |
#: 'categorical'); config: SynthConfig fields; rho: the run's budget instead of 1e-4 (noise-scale candidates); metric: bins (int | 'exact' | 'quantile' | 'datarange'),
#: cells ('l1' default | 'tv' | 'support').
VARIANTS: list[tuple[str, str, str, dict[str, Any]]] = [
    ("default", "default", "the engine's defaults (SynthConfig(), 20 equal-width bins, seeded 80%/60% split)", {}),
    ("split", "split seed 1", "another seeded private split", {"data": {"split": "seed1"}}),
    ("split", "split seed 2", "another seeded private split", {"data": {"split": "seed2"}}),
    ("split", "split: first rows", "private = the first 80% (Adult) / 60% (Bank) of the rows in file order",
     {"data": {"split": "head"}}),
    ("preprocessing", "drop missing (5 columns)", "rows with '?' (Adult) / 'unknown' (Bank) in a modelled column dropped",
     {"data": {"drop_missing": "five"}}),
    ("preprocessing", "drop missing (all columns)", "rows with '?' / 'unknown' in any column of the table dropped",
     {"data": {"drop_missing": "all"}}),
    ("preprocessing", "ordinal as numeric", "education.num typed numeric (integer, 1..16); Bank: n/a (text levels)",
     {"data": {"ordinal_as": "numeric"}}),
    ("preprocessing", "ordinal as categorical", "education.num / education typed categorical (0/1 distance, redraw)",
     {"data": {"ordinal_as": "categorical"}}),
    ("metric", "5 bins", "PWErr with 5 equal-width bins per numeric attribute", {"metric": {"bins": 5}}),
    ("metric", "10 bins", "PWErr with 10 equal-width bins", {"metric": {"bins": 10}}),
    ("metric", "50 bins", "PWErr with 50 equal-width bins", {"metric": {"bins": 50}}),
    ("metric", "exact values", "PWErr with one cell per whole number", {"metric": {"bins": "exact"}}),
    ("metric", "20 quantile bins", "20 equal-frequency bins of the reference table", {"metric": {"bins": "quantile"}}),
    ("metric", "10 quantile bins", "10 equal-frequency bins of the reference table", {"metric": {"bins": "quantile:10"}}),
    ("metric", "5 quantile bins", "5 equal-frequency bins of the reference table", {"metric": {"bins": "quantile:5"}}),
    ("metric", "20 bins over data range", "20 equal-width bins over the reference's [min, max]",
     {"metric": {"bins": "datarange"}}),
    ("metric", "TV (half l1)", "mean total variation instead of l1", {"metric": {"cells": "tv"}}),
    ("metric", "l1 on occupied cells", "l1 counted only on cells the real table occupies",
     {"metric": {"cells": "support"}}),
    ("initial population", "initial 1,024", "C_1 = 1,024 uniform candidates (population[0])",
     {"config": {"population": [1024, 512, 512, 1024, 1024, 1024, 1024, 1024]}}),
    ("initial population", "initial 2,048", "C_1 = 2,048 uniform candidates",
     {"config": {"population": [2048, 512, 512, 1024, 1024, 1024, 1024, 1024]}}),
    ("release size", "release 1,024", "1,024 released rows (all of C_T)", {"config": {"release": 1024}}),
    ("release size", "release top-distinct", "the top 512, equal records counted once",
     {"config": {"release_mode": "top-distinct"}}),
    ("release size", "release sampled", "512 draws proportional to the clipped final counts",
     {"config": {"release_mode": "sample"}}),
    ("clipping", "rank by raw counts", "rank rounds and release rank the unclipped noisy counts",
     {"config": {"rank_by": "raw"}}),
    ("clipping", "threshold H = 10", "noisy counts below 10 zeroed (App. B)", {"config": {"threshold_h": 10.0}}),
    ("clipping", "threshold H = σ_t", "noisy counts below one noise sd (σ_t = 282.8 at ρ = 1e-4) zeroed",
     {"config": {"threshold_h": 282.8}}),
    ("mutation (not in the issue's list)", "mutation rate from 0.25", "mutation rate decays from 0.25 (default 0.5)",
     {"config": {"mutation_start": 0.25}}),
    ("mutation (not in the issue's list)", "mutation rate from 0.75", "mutation rate decays from 0.75",
     {"config": {"mutation_start": 0.75}}),
    ("noise scale", "Δ = 1 (σ / √2)", "add/remove adjacency's sensitivity 1 instead of √2: the noise of ρ = 2e-4",
     {"rho": 2e-4}),
    ("noise scale", "ρ per round (σ / √8)", "ρ = 1e-4 spent in every round instead of in total: the noise of ρ = 8e-4",
     {"rho": 8e-4}),
]
#: budgets of Hard's default curve, to read off the budget at which ours reaches the paper's level.
CURVE_RHOS = (5e-5, 1e-4, 2e-4, 4e-4, 8e-4)


# ----------------------------------------------------------------------------- data variants
def variant_schema(name: str, ordinal_as: str | None) -> Schema:
    """The preset's schema with its ordinal attribute (:data:`ORDINAL`) retyped ('numeric' | 'categorical')."""
    schema = get_preset(name).schema
    if ordinal_as is None:
        return schema
    a = schema[ORDINAL[name]]
    if ordinal_as == "numeric":
        if not all(isinstance(v, (int, np.integer)) for v in a.levels):
            raise ValueError(f"ordinal_as='numeric' needs whole-number levels; {a.name} has text levels")
        new = Attribute(a.name, "numeric", lo=min(a.levels), hi=max(a.levels), integer=True)
    elif ordinal_as == "categorical":
        new = Attribute(a.name, "categorical", levels=list(a.levels))
    else:
        raise ValueError(f"ordinal_as must be 'numeric' or 'categorical' (got {ordinal_as!r})")
    return Schema([new if b.name == a.name else b for b in schema.attributes])


_TABLES: dict[str, Any] = {}


def variant_private(name: str, data: dict[str, Any]):
    """The private rows of a data variant (DataFrame): split ('seed0' default | 'seed1' | 'seed2' | 'head'),
    drop_missing (None | 'five' | 'all', before the split)."""
    if name not in _TABLES:
        p = get_preset(name)
        path = shared_path(p)
        if path is None:
            raise FileNotFoundError(f"{p.csv_name} not found under ../shared/data")
        _TABLES[name] = read_table(path)
    df = _TABLES[name]
    preset = get_preset(name)
    drop = data.get("drop_missing")
    if drop is not None:
        cols = preset.schema.names if drop == "five" else list(df.columns)
        bad = np.zeros(len(df), dtype=bool)
        for c in cols:
            bad |= df[c].astype(str).str.strip().to_numpy() == MISSING[name]
        df = df.loc[~bad].reset_index(drop=True)
    split = data.get("split", "seed0")
    if split == "head":
        k = int(math.floor(preset.private_fraction * len(df)))
        return df.iloc[:k].reset_index(drop=True)
    return split_table(df, preset.private_fraction, int(split[4:]), PILOT_N).private


# ----------------------------------------------------------------------------- metric variants
def _codes(schema: Schema, X_ref: np.ndarray, X: np.ndarray, bins: Any) -> tuple[np.ndarray, list[int]]:
    """Cell codes of X under a binning variant; 'quantile' / 'datarange' bins come from X_ref."""
    if not isinstance(bins, str) or bins == "exact":
        return bin_codes(schema, X, bins)
    kind, _, count = bins.partition(":")
    k = int(count or 20)
    codes, sizes = bin_codes(schema, X, k)
    for i, a in enumerate(schema.attributes):
        if a.kind != "numeric":
            continue
        if kind == "quantile":
            edges = np.unique(np.quantile(X_ref[:, i], np.linspace(0, 1, k + 1)[1:-1]))
        elif kind == "datarange":
            lo, hi = float(X_ref[:, i].min()), float(X_ref[:, i].max())
            edges = np.linspace(lo, hi, k + 1)[1:-1]
        else:
            raise ValueError(f"unknown bins variant {bins!r}")
        codes[:, i] = np.searchsorted(edges, X[:, i], side="right")
        sizes[i] = len(edges) + 1
    return codes, sizes


def pair_errors(schema: Schema, X_ref: np.ndarray, X_syn: np.ndarray, metric: dict[str, Any] | None = None
                ) -> dict[str, float]:
    """Per attribute pair 'a×b' the marginal distance of a metric variant (default: metrics.pwerr's l1, 20 bins).

    metric: bins (int | 'exact' | 'quantile[:K]' | 'datarange[:K]', K bins, default 20), cells ('l1' | 'tv' | 'support').
    """
    metric = metric or {}
    bins, cells = metric.get("bins", 20), metric.get("cells", "l1")
    a, sizes = _codes(schema, X_ref, X_ref, bins)
    b, _ = _codes(schema, X_ref, X_syn, bins)
    out = {}
    for i, j in itertools.combinations(range(schema.p), 2):
        r, s = marginal(a, sizes, (i, j)), marginal(b, sizes, (i, j))
        d = np.abs(r - s)
        v = d.sum() / 2 if cells == "tv" else d[r > 0].sum() if cells == "support" else d.sum()
        out[f"{schema.names[i]}×{schema.names[j]}"] = float(v)
    return out


def score(schema: Schema, X_ref: np.ndarray, X_syn: np.ndarray, metric: dict[str, Any] | None = None) -> float:
    """PWErr of a metric variant: the mean of :func:`pair_errors`."""
    return float(np.mean(list(pair_errors(schema, X_ref, X_syn, metric).values())))


# ----------------------------------------------------------------------------- runs
def _run(schema, X, grouped, policy, seed, rho, config: dict[str, Any], keep: bool = False):
    cfg = SynthConfig(**config) if config else SynthConfig()
    return run_synthesis(schema, X, policy, "hard", rho, None, cfg, seed=seed, grouped=grouped,
                         keep_populations=keep)


def compute(scale: dict, log=None) -> dict:
    """Every variant on every dataset and seed; floors and the per-pair breakdown of the default."""
    t0 = time.perf_counter()
    seeds = list(scale["seeds"])
    out: dict[str, Any] = {"rho": RHO, "seeds": seeds, "datasets": {}}
    for name in scale["datasets"]:
        preset = get_preset(name)
        policy = preset.default_policy()
        prepared: dict[str, tuple] = {}

        def data_for(data: dict[str, Any]):
            key = repr(sorted(data.items()))
            if key not in prepared:
                schema = variant_schema(name, data.get("ordinal_as"))
                df = variant_private(name, data)
                X = schema.encode(df)
                U, c = group_records(X)
                prepared[key] = (schema, X, (U, c, domain_index(schema, U)))
            return prepared[key]

        schema, X, grouped = data_for({})
        base = [_run(schema, X, grouped, policy, s, RHO, {}, keep=True) for s in seeds]
        rels = [r.release for r in base]
        rng = [np.random.default_rng([s, 4343]) for s in seeds]
        sample512 = [X[g.choice(X.shape[0], 512, replace=False)] for g in rng]
        initial = [r.populations[0] for r in base]
        final_pop = [r.final_population for r in base]
        no_noise = [_run(schema, X, grouped, policy, s, NO_NOISE_RHO, {}).release for s in seeds]
        ds: dict[str, Any] = {"n": int(X.shape[0]), "variants": [], "floors": {}, "pairs": {}}
        tables = {"hard 1e-4": rels, "initial population (512 uniform)": initial,
                  "perfect 512-row sample": sample512, "hard, no noise (rho = 1e6)": no_noise,
                  "final population C_T (1,024)": final_pop}
        metric_variants = [v for v in VARIANTS if set(v[3]) <= {"metric"}]
        for _, label, _, spec in metric_variants:
            ds["floors"][label] = {k: [score(schema, X, Y, spec.get("metric")) for Y in T] for k, T in tables.items()}
        ds["pairs"] = {k: {p: float(np.mean([pair_errors(schema, X, Y)[p] for Y in T]))
                           for p in pair_errors(schema, X, T[0])} for k, T in tables.items()}
        for cand, label, what, spec in VARIANTS:
            row = {"candidate": cand, "variant": label, "changes": what, "spec": spec}
            if set(spec) <= {"metric"}:
                row["errors"] = ds["floors"][label]["hard 1e-4"]
            elif name == "bank" and spec.get("data", {}).get("ordinal_as") == "numeric":
                row["errors"] = None  # text levels: not applicable
            else:
                sch, Xv, gv = data_for(spec.get("data", {}))
                row["n"] = int(Xv.shape[0])
                rho = spec.get("rho", RHO)
                row["errors"] = [score(sch, Xv, _run(sch, Xv, gv, policy, s, rho, spec.get("config", {})).release)
                                 for s in seeds]
            ds["variants"].append(row)
            if log:
                e = row["errors"]
                log(f"[level] {name} {label}: {np.mean(e):.3f}" if e else f"[level] {name} {label}: n/a")
        ds["curve"] = {str(r): (ds["variants"][0]["errors"] if r == RHO else
                                [score(schema, X, _run(schema, X, grouped, policy, s, r, {}).release) for s in seeds])
                       for r in CURVE_RHOS}
        out["datasets"][name] = ds
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


# ----------------------------------------------------------------------------- analysis / report
def analyze(raw: dict, scale: dict) -> dict:
    """Means and intervals per variant; 'towards' = |ours - paper| shrinks on the dataset; adopted = towards on both."""
    ds = raw["datasets"]
    base = {d: ci(ds[d]["variants"][0]["errors"]) for d in ds}
    rows = []
    for k, (cand, label, what, _spec) in enumerate(VARIANTS):
        r = {"candidate": cand, "variant": label, "changes": what, "datasets": {}}
        towards = []
        for d in ds:
            e = ds[d]["variants"][k]["errors"]
            if e is None:
                r["datasets"][d] = None
                towards.append(False)
                continue
            c = ci(e)
            diff = [a - b for a, b in zip(e, ds[d]["variants"][0]["errors"])]
            c["diff"] = ci(diff) if k else None
            r["datasets"][d] = c
            towards.append(k > 0 and abs(c["mean"] - PAPER_HARD[d]) < abs(base[d]["mean"] - PAPER_HARD[d]) - 1e-9)
        r["towards_both"] = bool(k > 0 and all(towards) and len(towards) == 2)
        # a measurable move: the paired change's interval excludes 0 on both datasets
        r["significant_both"] = bool(r["towards_both"] and all(
            c is not None and c.get("diff") and (c["diff"]["lo"] > 0 or c["diff"]["hi"] < 0)
            for c in r["datasets"].values()))
        r["towards"] = dict(zip(ds, towards))
        rows.append(r)
    equiv = {d: equivalent_rho(ds[d].get("curve", {}), PAPER_HARD[d]) for d in ds}
    floors = {d: {lab: {k: float(np.mean(v)) for k, v in f.items()} for lab, f in ds[d]["floors"].items()} for d in ds}
    return {"rho": raw["rho"], "seeds": raw["seeds"], "rows": rows, "floors": floors,
            "pairs": {d: ds[d]["pairs"] for d in ds}, "paper": PAPER_HARD, "seconds": raw.get("seconds"),
            "curve": {d: {r: ci(v) for r, v in ds[d].get("curve", {}).items()} for d in ds}, "equivalent_rho": equiv,
            "paper_in_interval": {d: bool(rows[0]["datasets"][d]["lo"] <= PAPER_HARD[d] <= rows[0]["datasets"][d]["hi"])
                                  for d in ds}}


def equivalent_rho(curve: dict[str, list[float]], level: float) -> float | None:
    """The budget at which Hard's mean error equals ``level``: log-linear between the two curve budgets
    around it (None when the curve does not cross it)."""
    pts = sorted((float(r), float(np.mean(v))) for r, v in curve.items())
    for (r0, e0), (r1, e1) in zip(pts, pts[1:]):
        if (e0 - level) * (e1 - level) <= 0 and e0 != e1:
            f = (e0 - level) / (e0 - e1)
            return float(math.exp(math.log(r0) + f * (math.log(r1) - math.log(r0))))
    return None


def _cell(c: dict | None) -> str:
    if c is None:
        return "n/a"
    s = f"{c['mean']:.3f} [{c['lo']:.3f}, {c['hi']:.3f}]"
    if c.get("diff"):
        s += f" (Δ {c['diff']['mean']:+.3f})"
    return s


def _towards(r: dict) -> str:
    if r["variant"] == "default":
        return "—"
    if r["towards_both"]:
        return "yes, paired Δ significant on both" if r["significant_both"] else "yes, within seed noise"
    on = [k for k, v in r["towards"].items() if v]
    return "no (" + (", ".join(on) + " only" if on else "neither") + ")"


def _adopted(r: dict) -> str:
    """Recommended only for a measurable move towards the paper on both datasets that is a reading of the
    paper (a split seed is not); the engine's default is never changed here."""
    if r["variant"] == "default":
        return "—"
    return "recommended (lead decides)" if r["significant_both"] and r["candidate"] != "split" else "no"


def section(summ: dict, meta: dict) -> str:
    p = summ["paper"]
    L = [f"## 14. {TITLE}", ""]
    L.append(f"**Setting.** Hard, default policy (age θ = 7), ρ = {fmt_sci(summ['rho'])}, seeds "
             f"{summ['seeds'][0]}–{summ['seeds'][-1]} paired; mean PWErr [95% Student-t interval] (Δ = paired "
             f"change from the default). Paper (Figure 3): adult {p['adult']:.3f}, bank {p['bank']:.3f}. A variant "
             "moves a dataset *towards the paper* when |ours − paper| shrinks; it would be adopted only if it does "
             "so on both. Each variant is a parameter (experiments/exp_level.py VARIANTS), no default changed.")
    L.append("")
    L.append("| candidate | variant: what it changes | Adult Hard 1e-4 | Bank Hard 1e-4 | towards the paper on both? | adopted |")
    L.append("|---|---|---|---|---|---|")
    for r in summ["rows"]:
        d = r["datasets"]
        L.append(f"| {r['candidate']} | {r['variant']}: {r['changes']} | {_cell(d.get('adult'))} | {_cell(d.get('bank'))} | "
                 f"{_towards(r)} | {_adopted(r)} |")
    L.append("")
    L.append("**Floors** (mean PWErr of reference tables under each metric definition; the same seeds):")
    L.append("")
    for d, f in summ["floors"].items():
        kinds = list(next(iter(f.values())))
        L.append(f"*{d}*")
        L.append("")
        L.append("| metric | " + " | ".join(kinds) + " | Hard's place (0 = initial, 1 = perfect sample) |")
        L.append("|---|" + "---|" * (len(kinds) + 1))
        for lab, v in f.items():
            pos = (v["initial population (512 uniform)"] - v["hard 1e-4"]) / (
                v["initial population (512 uniform)"] - v["perfect 512-row sample"])
            L.append(f"| {lab if lab != 'default' else 'default (20 bins, l1)'} | " + " | ".join(f"{v[k]:.3f}" for k in kinds)
                     + f" | {pos:.2f} |")
        L.append("")
    L.append("**Per attribute pair** (default metric, l1 of each 2-way marginal, mean over seeds):")
    L.append("")
    for d, pr in summ["pairs"].items():
        kinds = list(pr)
        pairs = list(pr[kinds[0]])
        L.append(f"*{d}*")
        L.append("")
        L.append("| pair | " + " | ".join(kinds) + " |")
        L.append("|---|" + "---|" * len(kinds))
        for q in pairs:
            L.append(f"| {q} | " + " | ".join(f"{pr[k][q]:.3f}" for k in kinds) + " |")
        L.append("")
    return "\n".join(L)


def headline(summ: dict) -> list[tuple[str, str, str, str]]:
    sig = [r["variant"] for r in summ["rows"] if r["significant_both"]]
    rec = [r["variant"] for r in summ["rows"] if _adopted(r).startswith("recommended")]
    d0 = summ["rows"][0]["datasets"]
    inside = summ["paper_in_interval"]
    return [("Hard's level at ρ = 1e-4 (Adult / Bank): candidate causes (§14)", f"{summ['paper']['adult']:.3f} / "
             f"{summ['paper']['bank']:.3f}", f"{d0['adult']['mean']:.3f} / {d0['bank']['mean']:.3f}; "
             f"{len(summ['rows']) - 1} variants; a significant move towards the paper on both: "
             f"{', '.join(sig) or 'none'}; recommended: {', '.join(rec) or 'none'}",
             f"Adult: {'yes' if inside['adult'] else 'no (gap unexplained)'}; "
             f"Bank: {'yes (paper inside our interval)' if inside['bank'] else 'no'}")]


def figures(summ: dict, figdir: str) -> list[str]:
    return []
