"""The summary of paired runs: per-method mean error with its 95% t-interval, the paired reduction
R_s of BF-Soft vs Hard (App. F.2) and the decomposition C, N, G (§6.2.3).

Issue 22: split off :mod:`blowfish_core.synthesis.report`, which re-exports every name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..algorithm.methods import BASELINE, DECOMPOSITION, SOFT
from ..model.metrics import relative_reduction, t_interval


def _interval(values, clip_at_zero: bool = False) -> tuple[float, float | None, float | None]:
    """(mean, low, high) 95% t-interval; (mean, None, None) for fewer than 2 values
    (no NaN in a report); the low end clipped at 0 for nonnegative error metrics."""
    mean, lo, hi = t_interval(list(values))
    if len(values) < 2:
        return mean, None, None
    if clip_at_zero:
        lo = max(lo, 0.0)
    return mean, lo, hi


def summarize(runs: list[dict[str, Any]], metric: str, methods: list[str]) -> dict[str, Any]:
    """Per-method mean error with 95% t-interval, and paired R_s of BF-Soft vs Hard.

    ci95 is [low, high], or [None, None] (JSON null) with fewer than 2 seeds; the
    error metrics are nonnegative, so their low end is clipped at 0.

    Parameters
    ----------
    runs : list of dict
        One {method, seed, <metric>: error} per run.
    metric : str
        The key of the error in ``runs``.
    methods : list of str
        The methods to summarize (each must appear in ``runs``).

    Returns
    -------
    dict
        ``per_method`` ({method: mean, ci95, n}); with Hard and BF-Soft,
        ``relative_reduction_bf_soft_vs_hard`` (R_s in percent, App. F.2); with the decomposition
        method too, ``decomposition`` (C, N, G of §6.2.3 as (mean, low, high)).
    """
    out: dict[str, Any] = {"per_method": {}}
    by = {m: {r["seed"]: r[metric] for r in runs if r["method"] == m} for m in methods}
    for m in methods:
        mean, lo, hi = _interval(list(by[m].values()), clip_at_zero=True)
        out["per_method"][m] = {"mean": mean, "ci95": [lo, hi], "n": len(by[m])}
    H, S, M = BASELINE.name, SOFT.name, DECOMPOSITION.name
    if H in by and S in by:
        seeds = sorted(set(by[H]) & set(by[S]))
        r = relative_reduction(np.array([by[H][s] for s in seeds], dtype=float),
                               np.array([by[S][s] for s in seeds], dtype=float))
        mean, lo, hi = _interval(list(r))
        out["relative_reduction_bf_soft_vs_hard"] = {"mean_percent": mean, "ci95": [lo, hi],
                                                     "per_seed": [float(v) for v in r]}
    if all(m in by for m in (H, S, M)):
        seeds = sorted(set(by[H]) & set(by[S]) & set(by[M]))
        eh = np.array([by[H][s] for s in seeds])
        es = np.array([by[S][s] for s in seeds])
        em = np.array([by[M][s] for s in seeds])
        out["decomposition"] = {
            "C_smoothing_cost": _interval(list(em - eh)),
            "N_noise_benefit": _interval(list(em - es)),
            "G_gain": _interval(list(eh - es)),
            "note": "C = E_M - E_H, N = E_M - E_S, G = N - C (§6.2.3); (mean, low, high); "
                    "low/high are null with fewer than 2 seeds",
        }
    return out
