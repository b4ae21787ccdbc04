"""First reproduction check (issue 2, "Must show" 4; paper Figure 2, §6.2.1).

Adult, the preset's default policy (age, threshold 7 years), tau = 0.03, paired
seeds 0..5, rho in {1e-4, 1e-3, 1e-2, 1}: mean PWErr of Hard and BF-Soft with 95%
Student-t intervals and the paired relative reduction
R_s = 100 (E_H - E_S) / E_H (App. F.2), through the same engine entry point the
CLI and the app use (:func:`blowfish_core.synthesis.experiment.run_paired`).

The paper reports BF-Soft lower than Hard at rho = 1e-4 and higher at rho = 1.

Usage (from the repository root)::

    python experiments/first_check.py [--rhos 1e-4,1e-3,1e-2,1] [--seeds 0,1,2,3,4,5]
        [--tau 0.03] [--methods hard,bf-soft] [--out experiments/out/first_check.json]

Needs ../shared/data/adult.csv (exits with a message otherwise).  Also records,
per run, how often Hard's per-round sensitivity was certified sqrt(2) vs 0, and
the release's one-way errors, so a direction that differs from the paper can be
traced (noise vs smoothing).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import datetime, timezone

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from blowfish_core.io import atomic  # noqa: E402
from blowfish_core.base.errors import BlowfishError  # noqa: E402
from blowfish_core.algorithm.evolution import SynthConfig  # noqa: E402
from blowfish_core.model.metrics import one_way_errors  # noqa: E402
from blowfish_core.io.presets import get_preset, load_preset_data, shared_path  # noqa: E402
from blowfish_core.synthesis.spec import RunRequest  # noqa: E402
from blowfish_core.synthesis.experiment import run_paired  # noqa: E402
from blowfish_core.algorithm.methods import METHOD_LABELS  # noqa: E402

DEFAULT_RHOS = (1e-4, 1e-3, 1e-2, 1.0)
DEFAULT_SEEDS = (0, 1, 2, 3, 4, 5)


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v.strip()]


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v.strip()]


def run_check(rhos, seeds, tau: float, methods: list[str], config: SynthConfig | None = None,
              data=None) -> dict:
    """Run the paired sweep and return a JSON-ready result.

    Returns {"setting": ..., "budgets": [{"rho", "epsilon_exact", "per_method":
    {method: {"mean", "ci95", "per_seed"}}, "relative_reduction": {...},
    "hard_calibration": counts of Hard's per-round calibration kinds,
    "sigma_t": {method: per-round sigma of seed 0}}]}.
    Raises BlowfishError when the Adult table is missing or a setting is invalid.
    """
    preset = get_preset("adult")
    split = load_preset_data(preset, data)
    policy = preset.default_policy()
    cfg = config or SynthConfig()
    out = {
        "setting": {
            "dataset": "adult", "data_source": split.source, "n_private": len(split.private),
            "policy": policy.to_dict(), "tau": tau, "seeds": list(seeds), "methods": list(methods),
            "config": {"rounds": cfg.rounds, "population": cfg.sizes(), "release": cfg.release,
                       "threshold_h": cfg.threshold_h, "selection": cfg.selection,
                       "switch_round": cfg.switch_round, "children": cfg.children},
            "metric": "pwerr (20 equal-width bins on numeric attributes; reference = private table)",
        },
        "budgets": [],
    }
    for rho in rhos:
        t0 = time.perf_counter()
        req = RunRequest(schema=preset.schema, policy=policy, data=split.private, methods=list(methods),
                         rho=float(rho), tau=tau, seeds=list(seeds), config=cfg,
                         metric=preset.metric_fn(), data_source=split.source)
        outcome = run_paired(req)
        rep = outcome.report
        summ = rep["summary"]
        X = preset.schema.encode(split.private)
        entry = {
            "rho": float(rho),
            "epsilon_exact": rep["privacy"]["epsilon_exact"],
            "epsilon_eq1": rep["privacy"]["epsilon_eq1"],
            "q": rep["noise_ratio_q"],
            "per_method": {},
            "seconds": round(time.perf_counter() - t0, 2),
        }
        for m in methods:
            pm = summ["per_method"][m]
            entry["per_method"][m] = {
                "mean": pm["mean"], "ci95": pm["ci95"],
                "per_seed": [r["pwerr"] for r in rep["runs"] if r["method"] == m],
                "sigma_t_seed0": [rd["sigma_t"] for r in rep["runs"] if r["method"] == m and r["seed"] == seeds[0]
                                  for rd in r["rounds"]],
                "surviving_last_round": [r["rounds"][-1]["surviving"] for r in rep["runs"] if r["method"] == m],
                "one_way_mean": _mean_dicts([one_way_errors(preset.schema, X, res.release)
                                             for res in outcome.results if res.method == m]),
            }
            if m == "hard":
                kinds: dict[str, int] = {}
                for r in rep["runs"]:
                    if r["method"] == "hard":
                        for rd in r["rounds"]:
                            kinds[rd["calibration"]] = kinds.get(rd["calibration"], 0) + 1
                entry["hard_calibration"] = kinds
        if "relative_reduction_bf_soft_vs_hard" in summ:
            entry["relative_reduction"] = summ["relative_reduction_bf_soft_vs_hard"]
        out["budgets"].append(entry)
        print(f"  rho={rho:g}: done in {entry['seconds']:.1f} s", file=sys.stderr, flush=True)
    return out


def _mean_dicts(ds: list[dict]) -> dict:
    return {k: float(np.mean([d[k] for d in ds])) for k in ds[0]} if ds else {}


def format_table(result: dict) -> str:
    """Plain-text table: rho, epsilon, mean PWErr [95% CI] per method, R_s [95% CI], winner."""
    methods = result["setting"]["methods"]
    head = f"{'rho':>8} {'eps exact/Eq1':>14} " + " ".join(f"{METHOD_LABELS[m] + ' PWErr [95% CI]':>30}" for m in methods)
    if {"hard", "bf-soft"} <= set(methods):
        head += f" {'R_s % [95% CI]':>24} {'lower':>8}"
    lines = [head, "-" * len(head)]
    for b in result["budgets"]:
        row = f"{b['rho']:>8g} {b['epsilon_exact']:>6.3g}/{b['epsilon_eq1']:<7.3g} "
        row += " ".join(f"{pm['mean']:>12.4f} [{pm['ci95'][0]:.4f}, {pm['ci95'][1]:.4f}]"
                        for pm in (b["per_method"][m] for m in methods))
        if "relative_reduction" in b:
            rr = b["relative_reduction"]
            lower = "BF-Soft" if b["per_method"]["bf-soft"]["mean"] < b["per_method"]["hard"]["mean"] else "Hard"
            row += f" {rr['mean_percent']:>8.1f} [{rr['ci95'][0]:.1f}, {rr['ci95'][1]:.1f}] {lower:>8}"
        lines.append(row)
    lines.append("(epsilon at delta = 1e-5: exact Gaussian curve / the paper's Eq. (1))")
    lines += direction_check(result)
    return "\n".join(lines)


def direction_check(result: dict) -> list[str]:
    """Compare the sign of mean(E_S) - mean(E_H) at the smallest and largest budget with
    Figure 2 (BF-Soft lower at strong privacy, higher at rho = 1)."""
    bs = [b for b in result["budgets"] if {"hard", "bf-soft"} <= set(b["per_method"])]
    if not bs:
        return []
    out = []
    lo, hi = min(bs, key=lambda b: b["rho"]), max(bs, key=lambda b: b["rho"])
    for b, want in ((lo, "lower"), (hi, "higher")):
        d = b["per_method"]["bf-soft"]["mean"] - b["per_method"]["hard"]["mean"]
        got = "lower" if d < 0 else "higher"
        out.append(f"rho={b['rho']:g}: BF-Soft {got} than Hard (paper, Figure 2: {want}) -> "
                   f"{'same direction' if got == want else 'DIFFERENT direction'}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rhos", default=",".join(f"{r:g}" for r in DEFAULT_RHOS))
    ap.add_argument("--seeds", default=",".join(str(s) for s in DEFAULT_SEEDS))
    ap.add_argument("--tau", type=float, default=0.03)
    ap.add_argument("--methods", default="hard,bf-soft")
    ap.add_argument("--data", default=None, help="path to adult.csv (default: ../shared/data/adult.csv)")
    ap.add_argument("--children", type=int, default=3, help="rank-mode children per kept parent (default 3)")
    ap.add_argument("--switch-round", type=int, default=3, help="last round with 'sample' selection (default 3)")
    ap.add_argument("--threshold-h", type=float, default=0.0, help="public count threshold H (default 0)")
    ap.add_argument("--out", default=os.path.join(ROOT, "experiments", "out", "first_check.json"))
    args = ap.parse_args(argv)
    if args.data is None and shared_path(get_preset("adult")) is None:
        print("first_check: ../shared/data/adult.csv not found; pass --data PATH/adult.csv", file=sys.stderr)
        return 2
    try:
        rhos, seeds = _floats(args.rhos), _ints(args.seeds)
        methods = [m.strip() for m in args.methods.split(",") if m.strip()]
        t0 = time.perf_counter()
        cfg = SynthConfig(children=args.children, switch_round=args.switch_round, threshold_h=args.threshold_h)
        result = run_check(rhos, seeds, args.tau, methods, config=cfg, data=args.data)
    except (BlowfishError, ValueError) as exc:
        print(f"first_check: {exc}", file=sys.stderr)
        return 2
    result["meta"] = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                      "python": platform.python_version(), "numpy": np.__version__,
                      "seconds_total": round(time.perf_counter() - t0, 1),
                      "machine": f"{os.cpu_count()} cores, shared"}
    print(f"Adult, age threshold 7, tau = {args.tau}, seeds {seeds}, paper setting "
          f"({result['setting']['config']['rounds']} rounds, release {result['setting']['config']['release']})")
    print(format_table(result))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    atomic.write_text(args.out, json.dumps(result, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
