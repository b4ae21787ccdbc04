"""PubMix Table 1 analogue under a distribution shift (issue 26, must-show 5; papers/003 Table 1).

The paper's Table 1 (Person Activity) takes its public rows from *other users* than the private
ones and scores each synthesizer by the accuracy of a classifier trained on the synthetic rows.
This script does the same on Adult:

* **Shift.** The Adult table (the preset's private and pilot rows together, split seed 0) is split
  by ``sex``: the public rows are 3,000 rows drawn (seed 0) from the **Female** rows, the private
  rows are the **Male** rows.  ``sex`` is *not* a modelled column (the Adult preset models age,
  hours.per.week, education.num, workclass, income), so no released column reveals the split; the
  shift shows in the modelled columns instead (income > 50K: about 11% of women vs 31% of men, and
  different hours/workclass marginals).  30% of the Male rows (seed 0) are held out as the test set
  (real rows of the private distribution), the other 70% are the private table the synthesizers see.
* **Metric.** Downstream accuracy (%): a scikit-learn logistic regression (one-hot workclass,
  standardised numeric columns, C = 1.0, lbfgs, max_iter 2000; fixed) trained on a method's released
  rows to predict ``income`` from the other four modelled columns, tested on the held-out Male rows.
  A release whose income column holds a single class gets that constant prediction.
* **Methods** at epsilon in {1, 2, 4}, delta = 1e-5 (as exp_pubmix_loop.py), paired seeds:
  Tab-PE (Gaussian noise, rho from (epsilon, delta) by the exact mu-GDP curve), Tab-PE + PubMix (Remark 4.5,
  the engine's default `pubmix`), Tab-PE + PubMix-floor (the fixed floor 0.25/m_t, `pubmix-floor`) and
  Tab-PE + LinMix (PLD-composed to epsilon at delta; the Female rows are the public data), MST (mbi,
  same rho); and epsilon-free rows: *public-only (real)* = the classifier trained on the 3,000 public
  rows; *public-only (Tab-PE loop)* = the Tab-PE loop run on the public rows with no noise (no private
  data at all); *real private (ceiling)* = trained on all private rows; *real private, 512 rows* =
  512 private rows resampled (the release size). Release size 512, the paper's default Tab-PE schedule
  (8 rounds, hybrid selection).  AIM (mbi, same rho; the paper's baseline) unless --no-aim.

    PYTHONPATH=. nice python experiments/exp_pubmix_table1.py [--seeds 3] [--quick]
    -> experiments/results/pubmix_table1.json (and prints the Markdown section)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import blowfish_core as bc  # noqa: E402
from blowfish_core.io import atomic  # noqa: E402
from blowfish_core.io.presets import get_preset, load_preset_data, shared_path  # noqa: E402
from blowfish_core.model.metrics import t_interval  # noqa: E402
from blowfish_core.privacy.accounting import rho_from_budget  # noqa: E402
from blowfish_core.synthesis.experiment import run_paired  # noqa: E402
from blowfish_core.synthesis.spec import RunRequest  # noqa: E402
from experiments.paper import PUBMIX_TABLE1, PUBMIX_TEXT_GAINS  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "results", "pubmix_table1.json")
EPSILONS = (1.0, 2.0, 4.0)
#: the paper's budgets, the order of PUBMIX_TABLE1's entries.
PAPER_EPS = (1.0, 2.0, 4.0)
DELTA = 1e-5
SUBGROUP = "sex"
PUBLIC_GROUP = "Female"
N_PUBLIC = 3000
TEST_FRACTION = 0.3
TARGET = "income"
STEPS = ("gaussian", "pubmix", "pubmix-floor", "linmix")
LABELS = {"gaussian": "Tab-PE", "pubmix": "Tab-PE + PubMix (Remark 4.5, default)",
          "pubmix-floor": "Tab-PE + PubMix-floor (fixed floor 0.25/m_t)", "linmix": "Tab-PE + LinMix", "mst": "MST",
          "aim": "AIM"}
#: the noise law of each PubMix step (issue 26 made Remark 4.5 the default 'pubmix'); results written before
#: the flip have no "laws" key and their 'pubmix' cells are the fixed-floor law.
LAWS = {"pubmix": "remark45", "pubmix-floor": "floor-wf"}
LEGACY_LAWS = {"pubmix": "floor-wf"}
SECTION_TITLE = "## 11b. PubMix Table 1 analogue (distribution shift)"


def shift_split(table: pd.DataFrame, seed: int = 0, n_public: int = N_PUBLIC) -> dict[str, pd.DataFrame]:
    """Split Adult by ``sex``: public = n_public Female rows, private train / test = Male rows (70/30).

    Returns {"public", "private", "test"} (DataFrames, disjoint by row index of ``table``).
    Raises ValueError if the table lacks the subgroup column.
    """
    if SUBGROUP not in table.columns:
        raise ValueError(f"column {SUBGROUP!r} missing. Fix: pass the full Adult table (all 15 columns)")
    rng = np.random.default_rng(seed)
    grp = table[SUBGROUP].astype(str).str.strip()
    pub_idx = np.flatnonzero(grp.to_numpy() == PUBLIC_GROUP)
    prv_idx = np.flatnonzero(grp.to_numpy() != PUBLIC_GROUP)
    pub_idx = np.sort(rng.choice(pub_idx, size=min(n_public, pub_idx.size), replace=False))
    prv_idx = rng.permutation(prv_idx)
    n_test = int(round(TEST_FRACTION * prv_idx.size))
    test_idx, train_idx = np.sort(prv_idx[:n_test]), np.sort(prv_idx[n_test:])
    take = table.iloc
    return {"public": take[pub_idx].reset_index(drop=True), "private": take[train_idx].reset_index(drop=True),
            "test": take[test_idx].reset_index(drop=True),
            "_index": {"public": pub_idx.tolist(), "private": train_idx.tolist(), "test": test_idx.tolist()}}


def accuracy(train: pd.DataFrame, test: pd.DataFrame, features: list[str], numeric: list[str]) -> float:
    """Test accuracy (%) of a fixed logistic regression trained on ``train`` to predict income."""
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    y_tr = train[TARGET].astype(str).str.strip().str.rstrip(".")
    y_te = test[TARGET].astype(str).str.strip().str.rstrip(".")
    if y_tr.nunique() < 2:
        return float(100.0 * np.mean(y_te.to_numpy() == y_tr.iloc[0]))
    cat = [c for c in features if c not in numeric]
    pre = ColumnTransformer([("num", StandardScaler(), numeric),
                             ("cat", OneHotEncoder(handle_unknown="ignore"), cat)])
    clf = make_pipeline(pre, LogisticRegression(C=1.0, max_iter=2000))
    Xtr = train[features].copy()
    Xte = test[features].copy()
    for c in numeric:
        Xtr[c], Xte[c] = pd.to_numeric(Xtr[c]), pd.to_numeric(Xte[c])
    for c in cat:
        Xtr[c], Xte[c] = Xtr[c].astype(str).str.strip(), Xte[c].astype(str).str.strip()
    clf.fit(Xtr, y_tr)
    return float(100.0 * np.mean(clf.predict(Xte) == y_te.to_numpy()))


def _ci(values: list[float]) -> dict[str, Any]:
    if len(values) == 1:
        return {"values": values, "mean": values[0], "sd": 0.0, "low": values[0], "high": values[0], "n": 1}
    mean, lo, hi = t_interval(list(values))
    return {"values": values, "mean": mean, "sd": float(np.std(values, ddof=1)), "low": lo, "high": hi,
            "n": len(values)}


def run(seeds: list[int], epsilons=EPSILONS, steps=STEPS, mst: bool = True, public_loop: bool = True, aim: bool = True,
        config: bc.SynthConfig | None = None) -> dict:
    preset = get_preset("adult")
    split0 = load_preset_data(preset, split_seed=0)
    full = pd.concat([split0.private, split0.public], ignore_index=True)
    sp = shift_split(full, seed=0)
    schema, cfg = preset.schema, config or bc.SynthConfig()
    names = list(schema.names)
    features = [c for c in names if c != TARGET]
    numeric = [c for c in features if pd.api.types.is_numeric_dtype(sp["private"][c])]
    pub, prv, test = sp["public"][names], sp["private"][names], sp["test"]

    def acc(df: pd.DataFrame) -> float:
        return accuracy(df, test, features, numeric)

    rate = {k: float(np.mean(sp[k][TARGET].astype(str).str.contains(">50K"))) for k in ("public", "private", "test")}
    out: dict = {"seeds": seeds, "epsilons": list(epsilons), "delta": DELTA,
                 "shift": {"subgroup": SUBGROUP, "public_group": PUBLIC_GROUP, "modelled": SUBGROUP in names,
                           "n_public": len(pub), "n_private": len(prv), "n_test": len(test),
                           "income_gt50k_rate": rate},
                 "classifier": "LogisticRegression(C=1.0, lbfgs, max_iter=2000), one-hot workclass, "
                               "standardised numeric; features " + ", ".join(features),
                 "config": "paper default (8 rounds, 512x3,1024x5, release %d, selection %s)" % (cfg.release,
                                                                                                  cfg.selection),
                 "laws": dict(LAWS), "cells": {}, "reference": {}}
    for eps in epsilons:
        rho = rho_from_budget(epsilon=eps, delta=DELTA, conversion="exact")
        for step in steps:
            t0 = time.perf_counter()
            if step == "gaussian":
                req = RunRequest(schema, bc.Policy(), prv, ["tab-pe"], rho, DELTA, seeds=seeds, config=cfg)
            else:
                req = RunRequest(schema, bc.Policy(), prv, ["tab-pe"], None, DELTA, seeds=seeds, config=cfg,
                                 mechanism=step, epsilon=eps, public=pub, public_source="Female rows (shifted)")
            res = run_paired(req)
            accs = [acc(res.releases[("tab-pe", s)]) for s in seeds]
            cell = {**_ci(accs), "seconds": round(time.perf_counter() - t0, 1)}
            if step != "gaussian":
                cell["beta_per_round"] = res.privacy.get("beta_per_round")
            out["cells"][f"{step}@{eps:g}"] = cell
            print(f"eps={eps:g} {step:<12} acc {cell['mean']:.2f} ± {cell['sd']:.2f}  ({cell['seconds']:.0f} s)",
                  flush=True)
        if mst:
            from blowfish_core.baselines import fit_mst

            t0 = time.perf_counter()
            accs = [acc(fit_mst(schema, prv, rho, seed=s).release) for s in seeds]
            out["cells"][f"mst@{eps:g}"] = {**_ci(accs), "seconds": round(time.perf_counter() - t0, 1)}
            print(f"eps={eps:g} mst      acc {np.mean(accs):.2f}", flush=True)
        if aim:
            from blowfish_core.baselines import fit_aim

            t0 = time.perf_counter()
            accs = [acc(fit_aim(schema, prv, rho, seed=s).release) for s in seeds]
            out["cells"][f"aim@{eps:g}"] = {**_ci(accs), "seconds": round(time.perf_counter() - t0, 1)}
            print(f"eps={eps:g} aim      acc {np.mean(accs):.2f}  ({out['cells'][f'aim@{eps:g}']['seconds']:.0f} s)",
                  flush=True)
        if "gaussian" in steps:
            g = np.array(out["cells"][f"gaussian@{eps:g}"]["values"])
            for step in [s for s in steps if s != "gaussian"]:
                d = np.array(out["cells"][f"{step}@{eps:g}"]["values"]) - g
                out["cells"][f"{step}@{eps:g}"]["minus_tabpe"] = _ci(d.tolist())
    ref = out["reference"]
    ref["public-real"] = _ci([acc(pub)])
    if public_loop:
        req = RunRequest(schema, bc.Policy(), pub, ["hard"], 1.0, DELTA, seeds=seeds, config=cfg,
                         reference=prv, allow_empty_policy=True)
        res = run_paired(req)
        ref["public-loop"] = _ci([acc(res.releases[("hard", s)]) for s in seeds])
    ref["private-real"] = _ci([acc(prv)])
    vals = []
    for s in seeds:
        rng = np.random.default_rng(np.random.SeedSequence([int(s), 707]))
        vals.append(acc(prv.iloc[rng.integers(0, len(prv), cfg.release)]))
    ref["private-512"] = _ci(vals)
    ref["majority-class"] = _ci([float(100.0 * max(rate["test"], 1 - rate["test"]))])
    for k, v in ref.items():
        print(f"{k:<16} acc {v['mean']:.2f}", flush=True)
    return out


#: quick mode's loop: 2 rounds of 128 candidates, release 128 (a smoke test, not a result).
QUICK_CONFIG = {"rounds": 2, "population": [128, 128], "release": 128}


def quick() -> dict:
    """Quick mode: 1 seed, epsilon = 4, Tab-PE and Tab-PE + PubMix on a 2-round loop, no MST."""
    res = run([0], epsilons=(4.0,), steps=("gaussian", "pubmix"), mst=False, aim=False, public_loop=False,
              config=bc.SynthConfig(**QUICK_CONFIG))
    res["quick"] = True
    return res


def _fmt(c: dict) -> str:
    return f"{c['mean']:.2f} ± {c['sd']:.2f}"


def section(results: dict) -> str:
    """REPORT.md section "PubMix Table 1 analogue (distribution shift)" rendered from pubmix_table1.json."""
    L = [SECTION_TITLE, ""]
    if not results or not results.get("cells"):
        return "\n".join(L + ["not run (`PYTHONPATH=. nice python experiments/exp_pubmix_table1.py`).", ""])
    eps, sh = results["epsilons"], results["shift"]
    r = sh["income_gt50k_rate"]
    remark45 = results.get("laws", LEGACY_LAWS).get("pubmix") == "remark45"
    labels = dict(LABELS) if remark45 else {**LABELS, "pubmix": "Tab-PE + PubMix-floor (fixed floor 0.25/m_t; run "
                                                                "before Remark 4.5 became the default)"}
    steps_txt = ("Release steps: PubMix = the engine's default `pubmix` (papers/003 Remark 4.5 per round: gamma = "
                 "0.9, MIFR or water-filling at an optimised floor, beta_t from the public Female rows' hard-vote "
                 "histogram on C_t; canonical-pair PLD total), PubMix-floor = `pubmix-floor` (water-filled public "
                 "histogram at the fixed floor 0.25/m_t, exact-pair PLD total), LinMix = uniform noise. "
                 if remark45 else
                 "Release steps: as §11 (c) (the engine's PubMix step before issue 26's flip, now `pubmix-floor`: "
                 "floor 0.25/m_t, P_nse,t = water-filled public hard-vote histogram on C_t, PLD-composed; *not* "
                 "Remark 4.5's gamma / t1, t2 / MIFR-or-WF construction). ")
    L += [f"papers/003 Table 1 takes the public data from other users than the private ones. Analogue here "
          f"(`experiments/exp_pubmix_table1.py`, cached in `experiments/results/pubmix_table1.json`"
          f"{', QUICK scale' if results.get('quick') else ''}): Adult split by `{sh['subgroup']}` — "
          f"public = {sh['n_public']:,} {sh['public_group']} rows, private = {sh['n_private']:,} Male rows, test = "
          f"{sh['n_test']:,} held-out Male rows (real, private distribution). `{sh['subgroup']}` is "
          f"{'a' if sh['modelled'] else 'not a'} modelled column, so the shift shows only through the modelled "
          f"columns (income > 50K: {100 * r['public']:.1f}% public vs {100 * r['private']:.1f}% private). Metric: "
          f"test accuracy (%) of {results['classifier']}, predicting income. Tab-PE loop: {results['config']}; "
          f"epsilon in {{{', '.join(f'{e:g}' for e in eps)}}}, delta = {results['delta']:g}; "
          f"{len(results['seeds'])} paired seeds; mean ± sd over seeds (as the paper). "
          + steps_txt + "Paper: Person Activity (11 classes, 6 features), so its levels are not comparable with ours; "
          "compare the ordering and the gaps.", ""]
    paper = PUBMIX_TABLE1
    L.append("| method | " + " | ".join(f"ours ε = {e:g}" for e in eps) + " | "
             + " | ".join(f"paper ε = {e:g}" for e in eps) + " |")
    L.append("|---|" + "---|" * (2 * len(eps)))
    for key, pkey in (("gaussian", "TabPE"), ("pubmix", "PubMix"), ("pubmix-floor", None), ("linmix", None),
                      ("mst", None), ("aim", "AIM")):
        ours = [results["cells"].get(f"{key}@{e:g}") for e in eps] if key else [None] * len(eps)
        if key and not any(ours):
            continue
        p = paper.get(pkey) if pkey else None
        label = labels.get(key, pkey) if key else f"{pkey} (not run here)"
        theirs = [f"{p[PAPER_EPS.index(e)][0]:.2f} ± {p[PAPER_EPS.index(e)][1]:.2f}" for e in eps] if p \
            else ["—"] * len(eps)
        L.append(f"| {label} | " + " | ".join(_fmt(c) if c else "—" for c in ours) + " | "
                 + " | ".join(theirs) + " |")
    ref_labels = {"public-real": "public only: classifier on the public rows",
                  "public-loop": "public only: Tab-PE loop on the public rows, no noise",
                  "private-512": "real private data, 512 rows resampled",
                  "private-real": "real private data, all rows (ceiling)",
                  "majority-class": "majority class of the test set"}
    for k, label in ref_labels.items():
        v = results["reference"].get(k)
        if v:
            L.append(f"| {label} | " + " | ".join([_fmt(v)] * len(eps)) + " | " + " | ".join(["—"] * len(eps)) + " |")
    L.append("")
    L.append("PubMix minus Tab-PE (accuracy points, paired over seeds, mean [95% t-interval]) beside the paper's "
             "claims:")
    L.append("")
    L.append("| ε | ours | paper table (PubMix − TabPE) | paper text |")
    L.append("|---|---|---|---|")
    verdicts = []
    for e in eps:
        i = PAPER_EPS.index(e)
        d = results["cells"].get(f"pubmix@{e:g}", {}).get("minus_tabpe")
        tab = PUBMIX_TABLE1["PubMix"][i][0] - PUBMIX_TABLE1["TabPE"][i][0]
        txt = PUBMIX_TEXT_GAINS[i]
        if d is None:
            continue
        L.append(f"| {e:g} | {d['mean']:+.2f} [{d['low']:+.2f}, {d['high']:+.2f}] | {tab:+.2f} | {txt:+.2f} |")
        reproduced = d["n"] > 1 and d["low"] > 0
        within = d["low"] <= tab <= d["high"]
        verdicts.append(f"ε = {e:g}: PubMix − Tab-PE = {d['mean']:+.2f} points [{d['low']:+.2f}, {d['high']:+.2f}]"
                        f" — {'a gain (interval above 0)' if reproduced else ('one seed: no interval' if d['n'] == 1 else ('significantly worse (interval below 0)' if d['high'] < 0 else 'no significant difference (interval includes 0)'))}"
                        f"{'; the paper table gap ' + format(tab, '+.2f') + (' lies inside' if within else ' lies outside') + ' our interval'}")
    L.append("")
    n_rep = sum("a gain" in v for v in verdicts)
    L.append(f"**Which claims were reproduced.** The paper's headline (PubMix beats Tab-PE at every ε, by "
             f"+5.60/+3.25/+2.61 points in the table, +5.8/+2.9/+1.9 in the text; the two disagree) was reproduced "
             f"as a significant gain at {n_rep} of {len(verdicts)} budgets here:")
    L.append("")
    L += [f"- {v}." for v in verdicts]
    L.append("")
    c = results["cells"]
    ref = results["reference"]
    if all(f"pubmix@{e:g}" in c and f"gaussian@{e:g}" in c for e in eps) and "public-real" in ref:
        betas = [b for e in eps for b in (c[f"pubmix@{e:g}"].get("beta_per_round") or [])]
        b_txt = f"beta_t {min(betas):.2f}-{max(betas):.2f}" if betas else "beta_t not recorded"
        above = [e for e in eps if f"mst@{e:g}" in c and c[f"gaussian@{e:g}"]["mean"] > c[f"mst@{e:g}"]["mean"]]
        above_aim = [e for e in eps if f"aim@{e:g}" in c
                     and c[f"gaussian@{e:g}"]["mean"] > c[f"aim@{e:g}"]["mean"]]
        gap = max(ref["private-512"]["mean"] - c[f"gaussian@{e:g}"]["mean"] for e in eps)
        lo_pm, hi_pm = min(c[f"pubmix@{e:g}"]["mean"] for e in eps), max(c[f"pubmix@{e:g}"]["mean"] for e in eps)
        L.append(f"**Reading.** The downstream task is narrow here: the majority class scores "
                 f"{ref['majority-class']['mean']:.2f}%, the classifier trained on all real private rows "
                 f"{ref['private-real']['mean']:.2f}% (on 512 resampled private rows "
                 f"{ref['private-512']['mean']:.2f}%), so every private synthesizer lies in a ~6-point band. Tab-PE "
                 f"(Gaussian) is already within {gap:.2f} points of the 512-row real-data ceiling, so a better release "
                 f"step has little room to help; PubMix ({lo_pm:.2f}-{hi_pm:.2f}%) mixes the public (Female) "
                 f"distribution into every round's draws ({b_txt}); under this shift that plausibly pulls the "
                 f"release towards the public rows (income > 50K in 10% of them; not measured on the releases) and "
                 f"lowers accuracy. It still beats both public-only "
                 f"baselines ({ref['public-real']['mean']:.2f}% on the real public rows"
                 + (f", {ref['public-loop']['mean']:.2f}% from the noise-free loop on them" if 'public-loop' in ref
                    else "") + "), i.e. the private votes do correct the shift. The paper's ordering PubMix > TabPE "
                 f"was not reproduced; TabPE's mean is above MST's at {len(above)} of {len(eps)} budgets"
                 + (f" and above AIM's at {len(above_aim)} of {len(eps)} (the paper: TabPE above AIM at 3 of 3)"
                    if any(f"aim@{e:g}" in c for e in eps) else " (the paper: above AIM)") + ".")
        L.append("")
    L.append(f"Time: {results.get('seconds_total', float('nan')):.0f} s (one process, nice, on the shared 2-core "
             f"machine; load {results.get('loadavg', '?')}).")
    L.append("")
    return "\n".join(L)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="smoke test: quick() (1 seed, epsilon = 4, 2-round loop)")
    ap.add_argument("--no-mst", action="store_true")
    ap.add_argument("--no-aim", action="store_true", help="skip AIM (about 30-60 s per Adult fit)")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args(argv)
    if shared_path(get_preset("adult")) is None:
        print("Adult not found in ../shared/data")
        return 1
    t0 = time.perf_counter()
    if a.quick:
        res = quick()
    else:
        res = run(list(range(a.seeds)), mst=not a.no_mst, aim=not a.no_aim)
    res["seconds_total"] = round(time.perf_counter() - t0, 1)
    res["loadavg"] = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    atomic.write_text(a.out, json.dumps(res, indent=2))
    print(section(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
