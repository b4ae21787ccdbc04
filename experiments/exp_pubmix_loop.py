"""PubMix reproduction (issue 13, item (c)): a Table 1 analogue on Adult and Bank.

Tab-PE (Algorithm 1, hard votes, the paper's default schedule: 8 rounds, 512/1024
candidates, hybrid selection, release 512) with four release steps, at epsilon in
{1, 2, 4}, delta = 1e-5, on paired seeds; PWErr of the release against the private
table (evaluation only), mean and 95% t-interval (metrics.t_interval):

* gaussian: Gaussian noise on the vote histogram, rho from (epsilon, delta) by the exact
  mu-GDP curve (the CLI default), then resampling (the existing loop);
* pubmix:   the PubMix sampling step (mechanisms/pubmix.py, floor f_t = 0.25/m_t, P_nse,t
  = water-filled hard-vote histogram of the public pilot rows on C_t), PLD-composed to
  epsilon at delta;
* linmix:   the LinMix sampling step (uniform P_nse,t), PLD-composed likewise;
* public-only (no private data, two definitions):
  - "public-loop": the same Tab-PE loop run on the 3,000 public pilot rows as if they
    were the private table, with NO noise (the public rows' exact hard-vote histogram
    replaces the private one; engine: Hard under the empty policy, sensitivity 0);
  - "public-resample": 512 rows drawn uniformly with replacement from the pilot rows.
  Neither touches the private rows except to evaluate PWErr.
* non-private loop (reference, NOT private): the same loop on the private rows without
  noise (Hard under the empty policy), the floor every private step is chasing.

Both selection modes are run: "hybrid" (the paper's default; PubMix's rank rounds rank
by the counts among the draws) and "sample" (every round draws its parents, which is
exactly PubMix's sampling; notes A7).

The public rows are the preset's held-out pilot split (3,000 rows, disjoint from the
private rows; presets.split_table, split seed 0).

    PYTHONPATH=. python experiments/exp_pubmix_loop.py [--seeds 10] [--selections hybrid,sample]
    -> experiments/results/pubmix_loop.json (and prints the Markdown table)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import blowfish_core as bc  # noqa: E402
from blowfish_core.accounting import rho_from_budget  # noqa: E402
from blowfish_core.experiment import RunRequest, run_paired  # noqa: E402
from blowfish_core.metrics import pwerr, t_interval  # noqa: E402
from blowfish_core.presets import get_preset, load_preset_data, shared_path  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "results", "pubmix_loop.json")
EPSILONS = (1.0, 2.0, 4.0)
DELTA = 1e-5
STEPS = ("gaussian", "pubmix", "linmix")


def _ci(values) -> dict:
    mean, lo, hi = t_interval(list(values))
    return {"mean": mean, "low": lo, "high": hi, "n": len(values)}


def run_dataset(name: str, seeds: list[int], epsilons=EPSILONS, config: bc.SynthConfig | None = None) -> dict:
    preset = get_preset(name)
    split = load_preset_data(preset, split_seed=0)
    schema, cfg = preset.schema, config or bc.SynthConfig()
    out: dict = {"n_private": len(split.private), "n_public": len(split.public), "cells": {}, "public_only": {}}
    for eps in epsilons:
        for step in STEPS:
            t0 = time.perf_counter()
            if step == "gaussian":
                req = RunRequest(schema, bc.Policy(), split.private, ["tab-pe"],
                                 rho_from_budget(epsilon=eps, delta=DELTA, conversion="exact"), DELTA,
                                 seeds=seeds, config=cfg)
            else:
                req = RunRequest(schema, bc.Policy(), split.private, ["tab-pe"], None, DELTA, seeds=seeds,
                                 config=cfg, mechanism=step, epsilon=eps, public=split.public,
                                 public_source="pilot split")
            res = run_paired(req)
            errs = res.errors("tab-pe")
            cell = {"errors": errs, **_ci(errs), "seconds": round(time.perf_counter() - t0, 2),
                    "privacy_epsilon": res.privacy.get("epsilon", res.privacy.get("epsilon_exact")),
                    "accountant": res.privacy["accountant"]}
            if step != "gaussian":
                cell["beta_per_round"] = res.privacy["beta_per_round"]
                cell["epsilon_per_round"] = res.privacy["epsilon_per_round"]
            else:
                cell["rho"] = res.privacy["rho"]
            out["cells"][f"{step}@{eps:g}"] = cell
            print(f"  {name} eps={eps:g} {step:<8} PWErr {cell['mean']:.4f} [{cell['low']:.4f}, {cell['high']:.4f}]"
                  f"  ({cell['seconds']:.1f} s)", flush=True)
        # paired differences vs the Gaussian step
        g = np.array(out["cells"][f"gaussian@{eps:g}"]["errors"])
        for step in ("pubmix", "linmix"):
            d = np.array(out["cells"][f"{step}@{eps:g}"]["errors"]) - g
            out["cells"][f"{step}@{eps:g}"]["minus_gaussian"] = _ci(d)
    # public-only baselines (epsilon-free)
    t0 = time.perf_counter()
    req = RunRequest(schema, bc.Policy(), split.public, ["hard"], 1.0, DELTA, seeds=seeds, config=cfg,
                     reference=split.private, allow_empty_policy=True)
    res = run_paired(req)
    errs = res.errors("hard")
    out["public_only"]["public-loop"] = {"errors": errs, **_ci(errs), "seconds": round(time.perf_counter() - t0, 2),
                                         "sensitivity": [r.sensitivity for r in res.runs[0].ledger]}
    req = RunRequest(schema, bc.Policy(), split.private, ["hard"], 1.0, DELTA, seeds=seeds, config=cfg,
                     allow_empty_policy=True)
    errs = run_paired(req).errors("hard")
    out["non_private_loop"] = {"errors": errs, **_ci(errs)}
    Xp, Xr = schema.encode(split.public), schema.encode(split.private)
    errs = []
    for s in seeds:
        rng = np.random.default_rng(np.random.SeedSequence([int(s), 707]))
        errs.append(float(pwerr(schema, Xr, Xp[rng.integers(0, Xp.shape[0], cfg.release)])))
    out["public_only"]["public-resample"] = {"errors": errs, **_ci(errs)}
    errs = [float(pwerr(schema, Xr, Xp))]
    out["public_only"]["public-all-rows"] = {"errors": errs, "mean": errs[0]}
    for k, v in out["public_only"].items():
        print(f"  {name} {k:<16} PWErr {v['mean']:.4f}", flush=True)
    return out


def table(results: dict, selection: str) -> str:
    lines = []
    for name, r in results["selections"][selection].items():
        lines.append(f"\n**{name}, selection = {selection}** (n = {r['n_private']:,} private rows, "
                     f"{r['n_public']:,} public pilot rows; PWErr, mean [95% t-interval] over "
                     f"{len(results['seeds'])} paired seeds)\n")
        lines.append("| release step | " + " | ".join(f"epsilon = {e:g}" for e in results["epsilons"]) + " |")
        lines.append("|---|" + "---|" * len(results["epsilons"]))
        for step, label in (("gaussian", "Tab-PE + Gaussian"), ("pubmix", "Tab-PE + PubMix"),
                            ("linmix", "Tab-PE + LinMix")):
            cells = [r["cells"][f"{step}@{e:g}"] for e in results["epsilons"]]
            lines.append(f"| {label} | " + " | ".join(f"{c['mean']:.4f} [{c['low']:.4f}, {c['high']:.4f}]"
                                                       for c in cells) + " |")
        for step in ("pubmix", "linmix"):
            cells = [r["cells"][f"{step}@{e:g}"]["minus_gaussian"] for e in results["epsilons"]]
            lines.append(f"| {step} minus Gaussian (paired) | " + " | ".join(
                f"{c['mean']:+.4f} [{c['low']:+.4f}, {c['high']:+.4f}]" for c in cells) + " |")
        po = r["public_only"]
        for k, label in (("public-loop", "public only: Tab-PE loop on the pilot rows, no noise"),
                         ("public-resample", "public only: 512 pilot rows resampled")):
            v = po[k]
            lines.append(f"| {label} | " + " | ".join([f"{v['mean']:.4f} [{v['low']:.4f}, {v['high']:.4f}]"]
                                                      * len(results["epsilons"])) + " |")
        v = r["non_private_loop"]
        lines.append("| (reference, not private) the loop on the private rows, no noise | " + " | ".join(
            [f"{v['mean']:.4f} [{v['low']:.4f}, {v['high']:.4f}]"] * len(results["epsilons"])) + " |")
        betas = {step: [r["cells"][f"{step}@{e:g}"]["beta_per_round"] for e in results["epsilons"]]
                 for step in ("pubmix", "linmix")}
        lines.append("")
        lines.append("beta_t per round (min-max): " + "; ".join(
            f"{step} eps={e:g}: {min(b):.3f}-{max(b):.3f}" for step in betas
            for e, b in zip(results["epsilons"], betas[step])) + ".")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--datasets", default="adult,bank")
    ap.add_argument("--selections", default="hybrid,sample")
    args = ap.parse_args()
    seeds = list(range(args.seeds))
    t0 = time.perf_counter()
    results = {"seeds": seeds, "epsilons": list(EPSILONS), "delta": DELTA, "config": "paper default (8 rounds, "
               "512x3,1024x5, release 512)", "floor_c": 0.25, "selections": {}}
    for sel in args.selections.split(","):
        results["selections"][sel] = {}
        for name in args.datasets.split(","):
            if shared_path(get_preset(name)) is None:
                print(f"skip {name}: table not found in ../shared/data")
                continue
            print(f"selection = {sel}", flush=True)
            results["selections"][sel][name] = run_dataset(name, seeds, config=bc.SynthConfig(selection=sel))
    results["seconds_total"] = round(time.perf_counter() - t0, 1)
    results["machine"] = {"cores_used": 1, "note": "2 shared cores; single process"}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2)
    for sel in results["selections"]:
        print(table(results, sel))
    print(f"\ntotal {results['seconds_total']:.0f} s; wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
