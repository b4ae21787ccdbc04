"""The power of the empirical rule: the exact probability that it detects a calibration off by
:data:`POWER_SCALE`, and the run count that reaches :data:`POWER_TARGET`."""

from __future__ import annotations

import math

import numpy as np

from ...base._lazy import stats  # imported on first use: not at import (issue 23)
from ...base.constants import DEFAULT_DELTA
from ...base.errors import BlowfishError
from .bounds import clopper_pearson_upper
from .pair import AuditPair, check_sensitivity_scale

#: the mis-calibration the run counts are chosen to detect: the sensitivity times 0.5 ...
POWER_SCALE = 0.5
#: ... with this probability (empirical rule alone), see the module docstring.
POWER_TARGET = 0.95
#: runs per side the empirical rule needs for POWER_TARGET at POWER_SCALE on the default
#: setting (rho_t = 0.25, delta = 1e-5, alpha = 0.05, BF-Soft's pair), best fixed threshold:
#: runs_for_power(scaled_mu(build_pair("bf-soft")), 2.943) (tests/analysis/test_audit.py recomputes it).
POWER_RUNS_95 = 27_425
#: default run counts are at least this multiple of POWER_RUNS_95 (the audit learns its threshold
#: on half the runs; simulated power of the learned threshold at 2 x: 0.99).
POWER_MARGIN = 2.0


# ---------------------------------------------------------------- power
def _power_at(mu: float, claimed_eps: float, N: int, delta: float, alpha: float, t: float) -> float:
    """P(log((1 - delta - FNR_ub) / FPR_ub) > claimed_eps) at threshold t, N held-out runs per side."""
    c = 1.0 - alpha / 2.0
    p0, p1 = float(stats.norm.sf(t)), float(stats.norm.cdf(t - mu))
    lo, hi = (int(v) for v in stats.binom.ppf([1e-12, 1.0 - 1e-12], N, p0))
    ks = np.arange(max(lo - 1, 0), min(hi + 1, N) + 1)
    x = 1.0 - delta - math.exp(claimed_eps) * clopper_pearson_upper(ks, N, c)
    # FNR_ub(f) < x  <=>  P(Bin(N, x) <= f) < 1 - c: the largest such f is ppf(1 - c) - 1
    f_star = np.full(ks.shape, -1.0)
    ok = x > 0
    f_star[ok] = stats.binom.ppf(1.0 - c, N, x[ok]) - 1.0
    return float(np.sum(stats.binom.pmf(ks, N, p0) * stats.binom.cdf(f_star, N, p1)))


def detection_power(mu: float, claimed_eps: float, n_samples: int, delta: float = DEFAULT_DELTA, alpha: float = 0.05,
                    threshold: float | None = None) -> tuple[float, float]:
    """Power of the empirical rule against a Gaussian pair whose true shift is mu sigma.

    The projection statistic is N(0, 1) on D and N(mu, 1) on D' (sigma units); the held-out
    half has N = n_samples - n_samples // 2 runs per side; at threshold t the false positives are
    Bin(N, 1 - Phi(t)) and the false negatives Bin(N, Phi(t - mu)).  The power is the
    exact probability that eps_lb's first form log((1 - delta - FNR_ub) / FPR_ub) (Clopper-Pearson
    at 1 - alpha / 2 each) exceeds claimed_eps -- a lower bound on the power at t, since eps_lb
    takes the larger of two forms.
    The audit learns its t on the other half, so its power is a little lower (module docstring).

    Parameters
    ----------
    mu : float
        True shift of the pair, in sigma units (> 0).
    claimed_eps : float
        The epsilon the calibration claims.
    n_samples : int
        Runs per side (>= 100).
    delta : float, default DEFAULT_DELTA
        DP delta of the claim.
    alpha : float, default 0.05
        Error probability of the audit's Clopper-Pearson bounds.
    threshold : float, optional
        The threshold t (sigma units); None: the best t of a grid.

    Returns
    -------
    power : float
        The probability above, at t.
    t : float
        The threshold it was computed at.

    Raises
    ------
    BlowfishError
        For mu <= 0 (or not finite) or n_samples < 100 (or not a whole number).
    """
    if not (math.isfinite(mu) and mu > 0):
        raise BlowfishError(f"audit: mu must be a finite number > 0 (got {mu!r})")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 100:
        raise BlowfishError(f"audit: n_samples must be a whole number >= 100 (got {n_samples!r})")
    N = int(n_samples) - int(n_samples) // 2
    if threshold is not None:
        return _power_at(mu, claimed_eps, N, delta, alpha, float(threshold)), float(threshold)
    coarse = np.linspace(0.0, mu + 8.0, 65)
    pw = [_power_at(mu, claimed_eps, N, delta, alpha, t) for t in coarse]
    i = int(np.argmax(pw))
    step = coarse[1] - coarse[0]
    fine = np.linspace(coarse[i] - step, coarse[i] + step, 21)
    pf = [_power_at(mu, claimed_eps, N, delta, alpha, t) for t in fine]
    j = int(np.argmax(pf))
    return (pf[j], float(fine[j])) if pf[j] >= pw[i] else (pw[i], float(coarse[i]))


def runs_for_power(mu: float, claimed_eps: float, delta: float = DEFAULT_DELTA, alpha: float = 0.05,
                   power: float = POWER_TARGET, max_runs: int = 10**9) -> int:
    """Smallest run count per side (to 0.1%) at which :func:`detection_power` reaches ``power``.

    Doubling from 200, then bisection.

    Parameters
    ----------
    mu : float
        True shift of the pair, in sigma units (> 0).
    claimed_eps : float
        The epsilon the calibration claims.
    delta : float, default DEFAULT_DELTA
        DP delta of the claim.
    alpha : float, default 0.05
        Error probability of the audit's Clopper-Pearson bounds.
    power : float, default POWER_TARGET
        Target power, in (0, 1).
    max_runs : int, default 10**9
        Largest run count per side tried.

    Returns
    -------
    int
        Runs per side.

    Raises
    ------
    BlowfishError
        If ``power`` is not in (0, 1), or when even ``max_runs`` falls short (mu too small for the
        claim: the pair is not distinguishable enough at any budget near it).
    """
    if not 0 < power < 1:
        raise BlowfishError(f"audit: power must be in (0, 1) (got {power!r})")
    lo, hi = 100, 200
    while detection_power(mu, claimed_eps, hi, delta, alpha)[0] < power:
        lo, hi = hi, 2 * hi
        if hi > max_runs:
            raise BlowfishError(f"audit: power {power:g} needs more than {max_runs:,} runs per side (mu = {mu:g})")
    while hi - lo > max(2, lo // 1000):
        mid = (lo + hi) // 2
        if detection_power(mu, claimed_eps, mid, delta, alpha)[0] >= power:
            hi = mid
        else:
            lo = mid
    return int(hi)


def scaled_mu(pair: AuditPair, sensitivity_scale: float = POWER_SCALE) -> float:
    """mu = shift / sigma of ``pair`` had its calibration been scaled by S (sigma times S).

    The alternative :func:`detection_power` is evaluated at.

    Parameters
    ----------
    pair : AuditPair
        A pair with equal sigmas > 0.
    sensitivity_scale : float, default POWER_SCALE
        S, finite and > 0.

    Returns
    -------
    float
        mu, in sigma units.

    Raises
    ------
    BlowfishError
        If the pair's sigmas differ or are not > 0, or S is not a finite number > 0.
    """
    if pair.sigma != pair.sigma_prime or pair.sigma <= 0:
        raise BlowfishError("audit: scaled_mu needs a pair with one shared sigma > 0")
    return pair.shift / (pair.sigma * check_sensitivity_scale(sensitivity_scale))
