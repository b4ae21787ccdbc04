"""The empirical lower bound on epsilon: Clopper-Pearson on false positives and negatives, the
threshold learnt on one half of the runs and tested on the other."""

from __future__ import annotations

import numpy as np

from ...base._lazy import stats  # imported on first use: not at import (issue 23)


# ------------------------------------------------------------- statistics
def clopper_pearson_upper(k: np.ndarray | int, n: int, confidence: float) -> np.ndarray:
    """One-sided Clopper-Pearson upper bound on a binomial rate: k successes of n trials.

    Parameters
    ----------
    k : int or ndarray of int
        Successes (any shape), 0 <= k <= n.
    n : int
        Trials.
    confidence : float
        One-sided confidence level, in (0, 1).

    Returns
    -------
    float64 ndarray
        Same shape as k: beta.ppf(confidence, k + 1, n - k), and 1 when k = n.
    """
    k = np.asarray(k, dtype=float)
    out = np.ones_like(k)
    m = k < n
    out[m] = stats.beta.ppf(confidence, k[m] + 1.0, n - k[m])
    return out


def epsilon_lower_bound(fp: np.ndarray | int, n0: int, fn: np.ndarray | int, n1: int,
                        delta: float, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Statistical lower bound on epsilon from a test's error counts (Jagielski et al. 2020).

    Each rate is bounded by a one-sided Clopper-Pearson bound at level 1 - alpha/2
    (together: probability >= 1 - alpha).

    Parameters
    ----------
    fp : int or ndarray of int
        False positives among n0 runs on D.
    n0 : int
        Runs on D.
    fn : int or ndarray of int
        False negatives among n1 runs on D' (same shape as fp).
    n1 : int
        Runs on D'.
    delta : float
        DP delta of the claim.
    alpha : float, default 0.05
        Total error probability of the two bounds.

    Returns
    -------
    eps_lb : float64 ndarray
        max(log((1 - delta - FNR_ub) / FPR_ub), log((1 - delta - FPR_ub) / FNR_ub), 0).
    fpr_ub : float64 ndarray
        Upper bound on the false-positive rate.
    fnr_ub : float64 ndarray
        Upper bound on the false-negative rate.
    """
    fpr_ub = clopper_pearson_upper(fp, n0, 1.0 - alpha / 2.0)
    fnr_ub = clopper_pearson_upper(fn, n1, 1.0 - alpha / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = 1.0 - delta - fnr_ub
        b = 1.0 - delta - fpr_ub
        e1 = np.where(a > 0, np.log(np.where(a > 0, a, 1.0) / fpr_ub), -np.inf)
        e2 = np.where(b > 0, np.log(np.where(b > 0, b, 1.0) / fnr_ub), -np.inf)
    return np.maximum(np.maximum(e1, e2), 0.0), fpr_ub, fnr_ub

def _candidate_thresholds(t0: np.ndarray, t1: np.ndarray, grid: int = 200) -> np.ndarray:
    """Thresholds at the tails of both samples (geometric quantile levels) and their extremes."""
    n = max(t0.size, t1.size, 2)
    g = np.geomspace(1.0 / n, 0.5, grid)
    qs = np.concatenate([np.quantile(t0, 1.0 - g), np.quantile(t1, g),
                         [t0.min(), t0.max(), t1.min(), t1.max()]])
    return np.unique(qs)


def _counts(t0_sorted: np.ndarray, t1_sorted: np.ndarray, thr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Test 'guess D' iff T > thr': false positives on D, false negatives on D'."""
    fp = t0_sorted.size - np.searchsorted(t0_sorted, thr, side="right")
    fn = np.searchsorted(t1_sorted, thr, side="right")
    return fp, fn


def split_half_bound(t0: np.ndarray, t1: np.ndarray, delta: float, alpha: float,
                     thresholds=None) -> tuple[float, float, float, float, float, float]:
    """The threshold test of one audit: choose the threshold on the first halves of the
    statistics, bound epsilon on the held-out second halves (Clopper-Pearson at ``alpha``).

    Used by every audit (Gaussian/Laplace, OpenDP, PubMix).

    Parameters
    ----------
    t0, t1 : (runs,) float ndarray
        Statistics on D and D'.
    delta : float
        DP delta of the claim.
    alpha : float
        Total error probability of the Clopper-Pearson bounds.
    thresholds : callable, optional
        ``f(s0, s1) -> (k,)`` candidate thresholds from the sorted first halves (default
        :func:`_candidate_thresholds`).

    Returns
    -------
    tuple of 6 float
        (threshold, eps_lb, fpr, fnr, fpr_ub, fnr_ub) of the held-out halves.
    """
    h = t0.size // 2
    s0, s1 = np.sort(t0[:h]), np.sort(t1[:h])
    e0, e1 = np.sort(t0[h:]), np.sort(t1[h:])
    thr = _candidate_thresholds(s0, s1) if thresholds is None else thresholds(s0, s1)
    fp, fn = _counts(s0, s1, thr)
    sel, _, _ = epsilon_lower_bound(fp, s0.size, fn, s1.size, delta, alpha)
    best = float(thr[int(np.argmax(sel))])
    fp_e, fn_e = _counts(e0, e1, np.array([best]))
    eps, fpr_ub, fnr_ub = epsilon_lower_bound(fp_e, e0.size, fn_e, e1.size, delta, alpha)
    return (best, float(eps[0]), float(fp_e[0] / e0.size), float(fn_e[0] / e1.size),
            float(fpr_ub[0]), float(fnr_ub[0]))
