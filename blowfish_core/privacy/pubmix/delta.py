"""Thm 4.1's exact delta of one PubMix release (Eqs. (6)-(7) = (22)-(23), App. C) and the smallest
mixing weight beta that meets (epsilon, delta): the binomial and grid routes for h, beta_min by bisection."""

from __future__ import annotations

import functools
import math
from typing import Sequence

import numpy as np

from ...base._lazy import lazy_module
from ...base.errors import BudgetError
from ..accounting import check_delta, check_epsilon
from .checks import _check_pair, check_beta, check_n, check_n_samples

special = lazy_module("scipy.special")  # imported on first use (fast CLI start, issue 15)

#: P-mass below which terms of Eq. (23) are dropped (the dropped mass is added to h).
TAIL = 1e-18
#: bisection on beta: at most 60 halvings, stopping when the bracket is <= 2^-46 (~1.4e-14).
BISECT_STEPS = 60
BISECT_TOL = 2.0**-46


# ------------------------------------------------------------ Eq. (23): h(beta)
def _window(logpmf: np.ndarray, tail: float) -> tuple[np.ndarray, float]:
    """Indices kept (pmf >= tail / size) and the dropped probability mass (exact sum)."""
    cut = math.log(tail) - math.log(logpmf.size)
    keep = logpmf >= cut
    dropped = float(np.exp(logpmf[~keep]).sum()) if (~keep).any() else 0.0
    return np.nonzero(keep)[0], dropped


def _binom_logpmf(m: int, p: float) -> np.ndarray:
    """log Binomial(m, p) pmf at k = 0..m (gammaln, xlogy): float64 (m+1,)."""
    k = np.arange(m + 1, dtype=float)
    with np.errstate(divide="ignore"):
        return (special.gammaln(m + 1.0) - special.gammaln(k + 1.0) - special.gammaln(m - k + 1.0)
                + special.xlogy(k, p) + special.xlog1py(m - k, -p))


def _h_binomial(beta: float, eps: float, n: int, m: int, na: float, nb: float, tail: float = TAIL) -> float:
    """One labelling of Eq. (23) by the k = lambda + mu regrouping (module docstring); an upper bound."""
    if beta >= 1.0:
        return 0.0
    s = (1.0 - beta) / n
    qa, qb = beta * na, beta * nb
    p = qa + qb + s
    if p <= 0.0:
        return 0.0
    p = min(p, 1.0)
    u = min((qa + s) / p, 1.0)
    v = qa / p
    logpk = _binom_logpmf(m, p)
    k, dropped = _window(logpk, tail)
    wk = np.exp(logpk[k])
    kf = k.astype(float)
    e = math.exp(eps)
    if u >= 1.0 and v <= 0.0:  # P puts every {i,j}-draw on i, Q none: positive iff k >= 1
        hk = (k >= 1).astype(float)
    elif u >= 1.0:  # only lambda = k has P-mass; LR there = v^{-k}
        hk = np.maximum(0.0, 1.0 - e * np.exp(kf * math.log(v)))
        hk[k == 0] = 0.0
    else:
        A = math.inf if v <= 0.0 else math.log(u / v)
        B = math.log1p(-v) - math.log1p(-u)  # >= 0
        if math.isinf(A):
            lstar = np.ones_like(k)  # Q has no mass on lambda >= 1
        else:
            lstar = np.floor((eps + kf * B) / (A + B)).astype(np.int64) + 1
        lstar = np.maximum(lstar, 1)
        live = lstar <= k
        hk = np.zeros(k.size)
        if live.any():
            kk, ll = kf[live], (lstar[live] - 1).astype(float)
            tp = special.bdtrc(ll, kk, u)  # P(Bin(k, u) > lstar - 1)
            tq = special.bdtrc(ll, kk, v) if v > 0 else np.zeros_like(tp)
            hk[live] = np.maximum(tp - e * tq, 0.0)
    return float(np.dot(wk, hk)) + dropped


def _h_grid(beta: float, eps: float, n: int, m: int, na: float, nb: float, tail: float = TAIL) -> float:
    """One labelling of Eq. (23) term by term in log space (gammaln) over the P-tail window; an upper bound."""
    if beta >= 1.0:
        return 0.0
    s = (1.0 - beta) / n
    r1, q1 = beta * na + s, beta * na
    r2, q2 = beta * nb + s, beta * nb
    c = max(1.0 - beta * (na + nb) - s, 0.0)
    # marginal P-windows: lambda ~ Bin(m, r1), mu ~ Bin(m, q2) under P
    lam, d1 = _window(_binom_logpmf(m, min(r1, 1.0)), tail / 2)
    mu, d2 = _window(_binom_logpmf(m, min(q2, 1.0)), tail / 2)
    L, M = np.meshgrid(lam, mu, indexing="ij")
    ok = L + M <= m
    L, M = L[ok], M[ok]
    R = m - L - M
    with np.errstate(divide="ignore", invalid="ignore"):
        logc = special.gammaln(m + 1) - special.gammaln(L + 1) - special.gammaln(M + 1) - special.gammaln(R + 1)
        logc = logc + np.where(R > 0, R * np.log(c) if c > 0 else -np.inf, 0.0)

        def xlogy(k, x):
            return np.where(k > 0, k * (np.log(x) if x > 0 else -np.inf), 0.0)

        lp = logc + xlogy(L, r1) + xlogy(M, q2)
        lq = logc + xlogy(M, r2) + xlogy(L, q1) + eps
        term = np.where(lp > lq, np.exp(lp) * -np.expm1(np.minimum(lq - lp, 0.0)), 0.0)
    term = np.nan_to_num(term, nan=0.0)
    return float(term.sum()) + d1 + d2


_H = {"binomial": _h_binomial, "grid": _h_grid}


def pubmix_delta(beta: float, epsilon: float, n: int, n_samples: int, n1: float, n2: float | None = None,
                 method: str = "binomial") -> float:
    """max(h1, h2) of Thm 4.1 (Eqs. (22)-(23)): the exact delta at ``epsilon`` of one release.

    Parameters
    ----------
    beta : float
        Mixing weight in [0, 1].
    epsilon : float
        Nats, ``> 0``.
    n : int
        Private rows.
    n_samples : int
        Draws.
    n1 : float
        The smallest noise mass.
    n2 : float, optional
        The second smallest noise mass (None: n2 = n1).
    method : {"binomial", "grid"}, default "binomial"
        'binomial' (O(n_samples)) or 'grid' (Eq. (23) term by term).

    Returns
    -------
    float
        In [0, 1], an upper bound within TAIL of the exact value.

    Raises
    ------
    BudgetError
        For a bad epsilon, n_samples, beta, n1, n2 or method.
    DataError
        For a bad n.
    """
    eps = check_epsilon(epsilon)
    n = check_n(n)
    m = check_n_samples(n_samples)
    beta = check_beta(beta)
    a, b = _check_pair(n1, n2)
    if method not in _H:
        raise BudgetError(f"method must be 'binomial' or 'grid' (got {method!r})")
    f = _H[method]
    return min(1.0, max(f(beta, eps, n, m, a, b), f(beta, eps, n, m, b, a)))


@functools.lru_cache(maxsize=4096)
def _beta_min_cached(eps: float, delta: float, n: int, m: int, a: float, b: float) -> float:
    def g(beta: float) -> float:
        h1 = _h_binomial(beta, eps, n, m, a, b)
        return h1 if a == b else max(h1, _h_binomial(beta, eps, n, m, b, a))

    if g(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(BISECT_STEPS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi or hi - lo <= BISECT_TOL:
            break
        if g(mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


def beta_min(epsilon: float, delta: float, n: int, n_samples: int, n1: float, n2: float | None = None) -> float:
    """Minimum mixing weight of Thm 4.1: inf{beta in [0,1] : max(h1, h2) <= delta}.

    m = 1 closed form (ours): max(0, (1 - n delta) / (1 + n (e^epsilon - 1) n1)).  Cached on
    the exact argument values (no rounding: rounding a floor up would be unsafe).
    papers/003 Thm 4.1, Eqs. (6)-(7), (22)-(23), (52).

    Parameters
    ----------
    epsilon : float
        Nats, ``> 0``.
    delta : float
        In (0, 1).
    n : int
        Private rows (replace-one neighbours, n public).
    n_samples : int
        Number of released draws m.
    n1 : float
        The smallest mass of P_nse.
    n2 : float, optional
        The second smallest mass of P_nse (None: n2 = n1, the conservative
        beta_min(N*, N*) of Remark 4.5; the order of n1, n2 does not matter: both
        labellings are evaluated).

    Returns
    -------
    float
        In [0, 1]: the smallest beta on a 2^-46 bisection grid at which an upper
        bound of max(h1, h2) (:func:`pubmix_delta`, binomial route) is <= delta, so
        every beta >= the returned value is (epsilon, delta)-DP.

    Raises
    ------
    BudgetError
        For a bad epsilon, delta, n_samples, n1 or n2.
    DataError
        For a bad n.
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    n = check_n(n)
    m = check_n_samples(n_samples)
    a, b = _check_pair(n1, n2)
    return _beta_min_cached(eps, dl, n, m, a, b)


def beta_min_curve(epsilon: float, delta: float, n: int, n_samples_grid: Sequence[int], n1: float,
                   n2: float | None = None) -> np.ndarray:
    """beta_min at each n_samples of a grid (Fig. 2 analogue).

    Parameters
    ----------
    epsilon : float
        Nats, ``> 0``.
    delta : float
        In (0, 1).
    n : int
        Private rows.
    n_samples_grid : sequence of int
        The numbers of released draws.
    n1 : float
        The smallest mass of P_nse.
    n2 : float, optional
        The second smallest (None: n2 = n1).

    Returns
    -------
    (len(n_samples_grid),) float64 ndarray
        :func:`beta_min` at each grid entry.

    Raises
    ------
    BudgetError
        As :func:`beta_min`.
    DataError
        As :func:`beta_min`.
    """
    return np.array([beta_min(epsilon, delta, n, int(m), n1, n2) for m in n_samples_grid], dtype=float)
