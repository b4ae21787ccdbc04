"""PubMix / LinMix: release n_samples i.i.d. draws of a public-aware mixture (papers/003).

The mechanism (papers/003 §2, Eq. (1), Alg. 1): with P_prv the normalized
private histogram over d bins (n records, replace-one neighbours, n public) and
a noise distribution P_nse fixed from public data only, release ``n_samples``
i.i.d. draws from

    P_syn = (1 - beta_mix) P_prv + beta_mix P_nse.

Only the draws are released; P_syn, P_prv and the weights are never returned by
any function here except inside :func:`pubmix_sample` / :func:`exact_mixture_sample`
(which return draws).

Sampling: :func:`pubmix_sample` (numpy's ``choice`` on float weights, a seeded stream: study
runs only) and :func:`exact_mixture_sample` (releases, issue 21: exact integer arithmetic with
uniform integers from the OS CSPRNG, so the sampled law is exactly Thm 4.1's mixture).

Privacy (Thm 4.1, Eqs. (6)-(7) = (22)-(23), App. C): the worst neighbouring pair
reduces to two 3-point laws over (bin i, bin j, rest),

    P = [beta N_a + s, beta N_b,     c],   Q = [beta N_a, beta N_b + s, c],
    s = (1 - beta)/n,  c = 1 - beta (N_a + N_b) - s,

for both labellings (N_a, N_b) = (N1, N2) and (N2, N1), N1 <= N2 the two smallest
entries of P_nse, and the release is (epsilon, delta)-DP iff
``max(h1, h2) = max_labelling E_{e^eps}(P^{(x)m} || Q^{(x)m}) <= delta``.

Evaluation of h (Eq. (23)).  Two exact routes:

* ``method="binomial"`` (default, O(n_samples)): P and Q put the same mass
  p = beta (N_a + N_b) + s on {i, j}, so the count k = lambda + mu of draws in
  {i, j} is Binomial(m, p) under both, and given k, lambda ~ Binomial(k, u) under
  P and Binomial(k, v) under Q with u = (beta N_a + s)/p > v = beta N_a / p.  The
  likelihood ratio is increasing in lambda, so the positive part of Eq. (23) is a
  tail: h = sum_k Bin(m, p)(k) [P(Bin(k,u) >= l_k) - e^eps P(Bin(k,v) >= l_k)].
  This is the same sum as Eq. (23), regrouped by k (ours).
* ``method="grid"``: Eq. (23) literally, every (lambda, mu) term in log space
  (gammaln), vectorized over the grid, restricted to the P-tail window.

Both drop only k (resp. lambda, mu) whose P-probability is below a tail bound; the
dropped P-mass bounds the error (only P-mass enters the positive part), and it is
*added* to h, so the returned value is an upper bound and beta_min is never too
small.  beta_min bisects on beta (h is continuous and decreasing, Lemmas C.3-C.4).

Noise (Defs 4.3-4.4, Remark 4.5, Cor. 4.6, §5): :func:`water_fill`, :func:`mifr`,
:func:`choose_noise`, :func:`linmix_noise`, :func:`gamma_from_folds`,
:func:`inner_max_tv` (Lemma E.1, small d).

Accounting: :func:`pubmix_pld`, the dp-accounting PLD of one release (the
n_samples-fold composition of the 3-point pair at the floor N, App. C).

Errors: BudgetError for epsilon, delta, n_samples, beta, floors (n1, n2, t) and
gamma; DataError for n and for distributions (a, p_private, p_noise, public
histograms), each naming the field.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import numbers
import os
import secrets
from fractions import Fraction
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..base._lazy import lazy_module
from .accounting import check_delta, check_epsilon
from ..base.errors import BudgetError, DataError

special = lazy_module("scipy.special")  # imported on first use (fast CLI start, issue 15)

#: P-mass below which terms of Eq. (23) are dropped (the dropped mass is added to h).
TAIL = 1e-18
#: largest n_samples accepted (the binomial route is O(n_samples) per evaluation).
MAX_N_SAMPLES = 1_000_000
#: largest private table size n accepted.
MAX_N = 10**12
#: bisection on beta: at most 60 halvings, stopping when the bracket is <= 2^-46 (~1.4e-14).
BISECT_STEPS = 60
BISECT_TOL = 2.0**-46
#: largest d for the exact inner maximum of Lemma E.1 (2^d - 2 subsets).
MAX_EXACT_D = 16
#: largest number of donor candidates for the exact MIFR subset search (2^k subsets).
MAX_EXACT_DONORS = 16
#: tolerance on sum(a) = 1 for a distribution argument.
SUM_TOL = 1e-9


# ------------------------------------------------------------------ validation
def _check_int(value: Any, name: str, lo: int, hi: int, err=BudgetError) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral,)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            raise err(f"{name} must be a whole number (int), got the float {value!r}. Fix: pass int({value!r})")
        raise err(f"{name} must be a whole number in [{lo:,}, {hi:,}] (got {value!r})")
    v = int(value)
    if not lo <= v <= hi:
        raise err(f"{name} must be a whole number in [{lo:,}, {hi:,}] (got {v:,})")
    return v


def check_n(n: Any) -> int:
    """Private table size n (rows, public): int in [1, 1e12]. Raises DataError naming 'n'."""
    return _check_int(n, "n (private rows)", 1, MAX_N, DataError)


def check_n_samples(n_samples: Any) -> int:
    """Number of released draws: int in [1, MAX_N_SAMPLES]. Raises BudgetError naming 'n_samples'."""
    return _check_int(n_samples, "n_samples", 1, MAX_N_SAMPLES, BudgetError)


def _check_unit(value: Any, name: str, lo: float = 0.0, hi: float = 1.0, err=BudgetError) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise err(f"{name} must be a number in [{lo:g}, {hi:g}] (got {value!r})")
    x = float(value)
    if not math.isfinite(x) or not lo <= x <= hi:
        raise err(f"{name} must be a finite number in [{lo:g}, {hi:g}] (got {value!r})")
    return x


def check_beta(beta: Any) -> float:
    """Mixing weight beta_mix in [0, 1]. Raises BudgetError naming 'beta'."""
    return _check_unit(beta, "beta (mixing weight)")


def check_distribution(a: Any, name: str = "a") -> np.ndarray:
    """A probability vector: float64 (d,), d >= 1, finite, >= 0, |sum - 1| <= 1e-9.

    Returns a copy divided by its sum (so it sums to 1 up to rounding).  Raises
    DataError naming ``name``; never clips negative entries.
    """
    try:
        x = np.array(a, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{name} must be a 1-d array of probabilities (got {type(a).__name__})") from None
    if x.ndim != 1 or x.size < 1:
        raise DataError(f"{name} must be a non-empty 1-d array of probabilities (got shape {x.shape})")
    if not np.isfinite(x).all():
        raise DataError(f"{name} has {int((~np.isfinite(x)).sum())} non-finite entries (NaN/inf)")
    if (x < 0).any():
        raise DataError(f"{name} has negative entries (e.g. {x[x < 0][0]:g}); a distribution is >= 0")
    s = float(x.sum())
    if abs(s - 1.0) > SUM_TOL:
        raise DataError(f"{name} must sum to 1 (got {s:.12g}). Fix: normalize the histogram (counts / n)")
    return x / s


def check_floor(t: Any, d: int, name: str = "t") -> float:
    """Floor level t in [0, 1/d] (Defs 4.3-4.4). Raises BudgetError naming ``name``."""
    return _check_unit(t, f"{name} (floor)", 0.0, 1.0 / d * (1.0 + 1e-12))


def check_gamma(gamma: Any) -> float:
    """Proximity gamma_tv in (0, 1] (Eq. (3)). Raises BudgetError naming 'gamma'."""
    g = _check_unit(gamma, "gamma (TV radius of the public ball)")
    if g <= 0:
        raise BudgetError(f"gamma (TV radius of the public ball) must be > 0 (got {gamma!r})")
    return g


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

    beta: mixing weight in [0, 1]; epsilon: nats; n: private rows; n_samples: draws;
    n1, n2: the two smallest noise masses (n2=None: n2 = n1); method 'binomial'
    (O(n_samples)) or 'grid' (Eq. (23) term by term).  Returns a float in [0, 1],
    an upper bound within TAIL of the exact value.  Raises BudgetError/DataError.
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


def _check_pair(n1: Any, n2: Any) -> tuple[float, float]:
    a = _check_unit(n1, "n1 (smallest noise mass)")
    b = a if n2 is None else _check_unit(n2, "n2 (second smallest noise mass)")
    if a + b > 1.0 + 1e-12:
        raise BudgetError(f"n1 + n2 must be <= 1 (two entries of one distribution; got {a:g} + {b:g})")
    return (a, b) if a <= b else (b, a)


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

    epsilon: nats (> 0); delta in (0, 1); n: private rows (replace-one neighbours, n
    public); n_samples: number of released draws m; n1, n2: the two smallest masses
    of P_nse (n2=None: n2 = n1, the conservative beta_min(N*, N*) of Remark 4.5;
    the order of n1, n2 does not matter: both labellings are evaluated).

    Returns a float in [0, 1]: the smallest beta on a 2^-46 bisection grid at which
    an upper bound of max(h1, h2) (:func:`pubmix_delta`, binomial route) is <= delta,
    so every beta >= the returned value is (epsilon, delta)-DP.  m = 1 closed form
    (ours): max(0, (1 - n delta) / (1 + n (e^epsilon - 1) n1)).  Cached on the exact
    argument values (no rounding: rounding a floor up would be unsafe).
    Raises BudgetError (epsilon, delta, n_samples, n1, n2) / DataError (n).
    papers/003 Thm 4.1, Eqs. (6)-(7), (22)-(23), (52).
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    n = check_n(n)
    m = check_n_samples(n_samples)
    a, b = _check_pair(n1, n2)
    return _beta_min_cached(eps, dl, n, m, a, b)


def beta_min_curve(epsilon: float, delta: float, n: int, n_samples_grid: Sequence[int], n1: float,
                   n2: float | None = None) -> np.ndarray:
    """beta_min at each n_samples of a grid (Fig. 2 analogue): float64 (len(grid),)."""
    return np.array([beta_min(epsilon, delta, n, int(m), n1, n2) for m in n_samples_grid], dtype=float)


# ------------------------------------------------------------------ noise: WF / MIFR
def _level(a: np.ndarray, t: float, target: float) -> np.ndarray:
    """B_i = max(t, a_i - tau) with tau >= 0 chosen so that sum B = target (bisection, then exact)."""
    if np.maximum(a, t).sum() <= target + 1e-15:
        return np.maximum(a, t) if a.size else a.copy()
    lo, hi = 0.0, float(a.max())
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if np.maximum(t, a - mid).sum() > target:
            lo = mid
        else:
            hi = mid
    tau = hi
    active = a - tau > t
    k = int(active.sum())
    if k:  # exact level on the active set: sum_active (a - tau) + t * (#rest) = target
        tau = (float(a[active].sum()) - (target - t * (a.size - k))) / k
    return np.where(active, np.maximum(a - tau, t), t)


def water_fill(a: Any, t: float) -> np.ndarray:
    """t-water-filled version WF(a, t) of a distribution (Def. 4.3).

    a: (d,) probabilities; t in [0, 1/d].  Returns float64 (d,): B_i = max(t, a_i - tau)
    with the unique tau >= 0 making sum B = 1, found by bisection on the level (the
    paper's closed form has tie/index traps).  B >= t, sum B = 1 and TV(a, B) =
    sum_{a_i <= t} (t - a_i), the minimum under the floor.  Raises DataError (a) /
    BudgetError (t).  papers/003 Def. 4.3, Lemma B.1.
    """
    x = check_distribution(a, "a")
    t = min(check_floor(t, x.size), 1.0 / x.size)
    b = _level(x, t, 1.0)
    return b / b.sum()


def _mifr_donors(exc: np.ndarray, mass: np.ndarray, need: float, search: str) -> np.ndarray:
    """Donor set U* among candidates: minimize sum mass s.t. sum exc >= need (Def. 4.4).

    exc: a_i - t > 0, mass: a_i, for the candidates (indices into them are returned).
    'exact': every subset (<= MAX_EXACT_DONORS candidates); ties -> fewer donors, then
    the lexicographically smallest index tuple.  'greedy': the fewest donors (largest
    excess first); the last of them is swapped for the smallest-mass candidate that
    still covers the remaining need.
    """
    k = exc.size
    if need <= 0:
        return np.zeros(0, dtype=np.intp)
    if float(exc.sum()) <= need * (1 + 1e-12):  # every candidate must give (t = 1/d up to rounding)
        return np.arange(k, dtype=np.intp)
    if search == "exact":
        best = None
        tol = 1e-15
        for r in range(1, k + 1):
            for combo in itertools.combinations(range(k), r):
                c = list(combo)
                if exc[c].sum() >= need - tol:
                    key = float(mass[c].sum())
                    if best is None or key < best[0] - 1e-15:
                        best = (key, c)
        return np.arange(k, dtype=np.intp) if best is None else np.array(best[1], dtype=np.intp)
    order = np.argsort(-exc, kind="stable")
    cum = np.cumsum(exc[order])
    r = min(int(np.searchsorted(cum, need - 1e-15)) + 1, k)
    chosen = list(order[:r - 1])
    rest_need = need - (float(exc[chosen].sum()) if chosen else 0.0)
    pool = order[r - 1:]
    ok = pool[exc[pool] >= rest_need - 1e-15]
    last = ok[np.argmin(mass[ok])] if ok.size else order[r - 1]
    return np.array(sorted(chosen + [int(last)]), dtype=np.intp)


def mifr(a: Any, t: float, search: str = "auto") -> np.ndarray:
    """Maximum-invariance floor raising MIFR(a, t) (Def. 4.4).

    a: (d,) probabilities; t in [0, 1/d].  L = {i : a_i <= t} is raised to t; the
    added mass M = sum_L (t - a_i) is taken from a donor set U* of L^c minimizing
    sum_{U*} a_i subject to sum_{U*} (a_i - t) >= M; all other entries are unchanged.
    Rules where the paper is silent (docs/DECISIONS.md): the subset search is exact
    for at most MAX_EXACT_DONORS candidates (search='auto' or 'exact'; ties -> fewer
    donors, then smallest indices) and greedy above ('greedy': fewest donors, the
    last swapped for the smallest one that still covers M); inside U* the mass M is
    removed by water-filling at floor t (b_i = max(t, a_i - tau)).  Returns float64
    (d,) with B >= t, sum 1, TV(a, B) = M.  Raises DataError (a) / BudgetError (t, search).
    """
    x = check_distribution(a, "a")
    d = x.size
    t = min(check_floor(t, d), 1.0 / d)
    if search not in ("auto", "exact", "greedy"):
        raise BudgetError(f"search must be 'auto', 'exact' or 'greedy' (got {search!r})")
    low = x <= t
    need = float((t - x[low]).sum())
    out = x.copy()
    out[low] = t
    if need <= 0:
        return out
    cand = np.nonzero(~low)[0]
    if cand.size == 0:  # every entry <= t: then t = 1/d and all equal
        return np.full(d, 1.0 / d)
    mode = search if search != "auto" else ("exact" if cand.size <= MAX_EXACT_DONORS else "greedy")
    if mode == "exact" and cand.size > MAX_EXACT_DONORS:
        raise BudgetError(f"search='exact' supports at most {MAX_EXACT_DONORS} entries above t "
                          f"(got {cand.size}). Fix: use search='greedy' or 'auto'")
    U = cand[_mifr_donors(x[cand] - t, x[cand], need, mode)]
    out[U] = _level(x[U], t, float(x[U].sum()) - need)
    return out / out.sum()


def floor_tv(a: Any, t: float) -> float:
    """Minimal TV of any floor-t distribution to a: sum_{a_i <= t} (t - a_i) (Defs 4.3-4.4)."""
    x = check_distribution(a, "a")
    t = check_floor(t, x.size)
    return float(np.maximum(t - x, 0.0).sum())


def tv(p: Any, q: Any) -> float:
    """Total variation 0.5 * ||p - q||_1 of two distributions of the same length."""
    x, y = check_distribution(p, "p"), check_distribution(q, "q")
    if x.size != y.size:
        raise DataError(f"p and q must have the same length (got {x.size} and {y.size})")
    return 0.5 * float(np.abs(x - y).sum())


def linmix_noise(d: int) -> np.ndarray:
    """LinMix noise (Cor. 4.6): the uniform distribution 1_d / d, float64 (d,). DataError if d < 1."""
    d = _check_int(d, "d (number of bins)", 1, 10**8, DataError)
    return np.full(d, 1.0 / d)


def inner_max_tv(pub: Any, nse: Any, gamma: float) -> float:
    """max_{P in B_gamma(pub)} TV(P, nse) by Lemma E.1, exact for d <= MAX_EXACT_D.

    = max over S with 1 <= |S| <= d-1 of min(pub(S) + gamma, 1) - nse(S) (2^d - 2
    subsets).  Returns 0 for d = 1.  Raises DataError (pub, nse, d too large) /
    BudgetError (gamma).  papers/003 Eq. (127).
    """
    p = check_distribution(pub, "pub")
    q = check_distribution(nse, "nse")
    g = check_gamma(gamma)
    d = p.size
    if q.size != d:
        raise DataError(f"pub and nse must have the same length (got {d} and {q.size})")
    if d > MAX_EXACT_D:
        raise DataError(f"inner_max_tv is exact only for d <= {MAX_EXACT_D} bins (got {d})")
    if d == 1:
        return 0.0
    masks = ((np.arange(1, 2**d - 1)[:, None] >> np.arange(d)[None, :]) & 1).astype(float)
    return float(np.max(np.minimum(masks @ p + g, 1.0) - masks @ q))


# ------------------------------------------------------------------ Remark 4.5
def inner_max_tv_upper(pub: Any, nse: Any, gamma: float) -> float:
    """An upper bound on max_{P in B_gamma(pub)} TV(P, nse) for any d (ours).

    With R = S^c, Lemma E.1 reads max_R min(gamma - pub(R) + nse(R), nse(R)); for every
    lambda in [0, 1] this is <= lambda gamma + sum_i max(0, nse_i - lambda pub_i) (min <=
    convex combination, then drop the subset constraint).  Returns the minimum of that
    convex piecewise-linear bound (over its breakpoints), gamma + TV(pub, nse) (Eq. (157))
    and 1 - min nse.  Raises DataError / BudgetError.
    """
    p = check_distribution(pub, "pub")
    q = check_distribution(nse, "nse")
    g = check_gamma(gamma)
    if q.size != p.size:
        raise DataError(f"pub and nse must have the same length (got {p.size} and {q.size})")
    pos = p > 0
    c0 = float(q[~pos].sum())
    lam = q[pos] / p[pos]
    order = np.argsort(lam)
    lam_s, q_s, p_s = lam[order], q[pos][order], p[pos][order]
    # f(l) = l g + c0 + sum_{lam_i > l} (q_i - l p_i): evaluate at 0, 1 and every breakpoint in [0, 1]
    suf_q = np.r_[np.cumsum(q_s[::-1])[::-1], 0.0]
    suf_p = np.r_[np.cumsum(p_s[::-1])[::-1], 0.0]
    pts = np.unique(np.r_[0.0, 1.0, lam_s[(lam_s >= 0) & (lam_s <= 1)]])
    k = np.searchsorted(lam_s, pts, side="right")  # items with lam_i > l start at index k
    f = pts * g + c0 + suf_q[k] - pts * suf_p[k]
    return float(min(f.min(), g + 0.5 * float(np.abs(p - q).sum()), 1.0 - float(q.min())))


def _phi(pub: np.ndarray, wf: np.ndarray, gamma: float, kt: int) -> float:
    """Phi(t) of Lemma F.2 (Eq. (149)), indices sorted so that pub - WF ascends (a lower bound)."""
    order = np.argsort(pub - wf, kind="stable")
    c1 = gamma - np.cumsum((pub - wf)[order])
    c2 = np.cumsum(wf[order])
    u = np.arange(1, pub.size + 1)
    ok = (u >= kt) & (u <= pub.size - 1)
    return float(np.max(np.minimum(c1, c2)[ok])) if ok.any() else 0.0


@dataclass
class NoiseChoice:
    """Result of :func:`choose_noise` (Remark 4.5).  Public quantities only.

    p_noise: (d,) the noise distribution P_nse; beta: beta_min(N*, N*) with N* = min
    p_noise; t: the floor used; which: 'mifr', 'wf' or 'linmix'; objective: g of the
    chosen distribution = beta x the worst-case TV over B_gamma (exact by Lemma E.1 when
    ``exact``, else :func:`inner_max_tv_upper`); exact: which of the two; rows: every
    (family, t, N*, beta, objective) tried.
    """

    p_noise: np.ndarray
    beta: float
    t: float
    which: str
    objective: float
    exact: bool
    rows: list


def default_t_grid(d: int, size: int = 48) -> np.ndarray:
    """Floors tried by :func:`choose_noise`: (1/d) x (geometric 1e-3..1 and linear), float64."""
    r = np.unique(np.concatenate([np.geomspace(1e-3, 1.0, size // 2), np.linspace(0.02, 1.0, size // 2)]))
    return r / d


def choose_noise(p_public: Any, gamma: float, epsilon: float, delta: float, n: int, n_samples: int,
                 t_grid: Sequence[float] | None = None, exact_inner: bool | None = None,
                 scoring: str = "exact") -> NoiseChoice:
    """Near-optimal noise distribution and mixing weight of Remark 4.5 (Eq. (13)).

    p_public: (d,) normalized public histogram; gamma in (0, 1]: TV radius of the ball
    B_gamma around it (utility only, never privacy); epsilon, delta, n, n_samples as
    :func:`beta_min`.  Candidates, over the floors of ``t_grid`` (default
    :func:`default_t_grid`; 1/d, LinMix, is always added): MIFR(pub, t) for t in F
    (Lemma F.1: the public mass left unchanged is >= gamma) and WF(pub, t) for t in G
    (Lemma F.2: sum_{pub_i <= t} pub_i < gamma).  Each is scored by g = beta_min(N*, N*)
    x max_{P in B_gamma} TV(P, P_nse), N* = min P_nse, with the inner max exact (Lemma
    E.1) when ``exact_inner`` (default: d <= MAX_EXACT_D) and else the upper bound
    :func:`inner_max_tv_upper`; the smallest g wins (ties: MIFR, then the larger t).
    scoring='exact' (default) picks (family, t) by that g directly.  scoring='lemmas'
    is the paper's literal recipe: t1 = argmin_F beta_min(t,t)(gamma + sum_{pub_i<=t}
    (t - pub_i)) (F.1), t2 = argmin_G beta_min(t,t) Phi(t) (F.2; arg min, Eq. (181)'s
    arg max is a typo), then Eq. (13) compares g(MIFR(t1)) with g(WF(t2)).  'exact' is
    the default (docs/DECISIONS.md) because Phi is only a lower bound on the inner max
    and is 0 at ties (pub = (0, 0, 1), t = 0: Phi = 0, true inner max = gamma), which
    makes 'lemmas' pick t = 0 and beta ~ 1.  Returns NoiseChoice.
    Raises as :func:`beta_min`, DataError (p_public), BudgetError (gamma, t_grid).
    """
    pub = check_distribution(p_public, "p_public")
    g = check_gamma(gamma)
    d = pub.size
    grid = default_t_grid(d) if t_grid is None else np.array([check_floor(x, d, "t_grid entry") for x in t_grid])
    grid = np.unique(np.concatenate([np.minimum(grid, 1.0 / d), [1.0 / d]]))
    exact = (d <= MAX_EXACT_D) if exact_inner is None else bool(exact_inner)
    if exact and d > MAX_EXACT_D:
        raise DataError(f"exact_inner needs d <= {MAX_EXACT_D} bins (got {d})")
    inner = inner_max_tv if exact else inner_max_tv_upper
    if scoring not in ("exact", "lemmas"):
        raise BudgetError(f"scoring must be 'exact' or 'lemmas' (got {scoring!r})")
    if scoring == "lemmas":
        return _choose_lemmas(pub, g, epsilon, delta, n, n_samples, grid, exact, inner)

    rows = []
    best = None
    for t in grid[::-1]:
        cands = []
        mf = mifr(pub, t)
        if float(pub[pub <= mf + 1e-15].sum()) >= g:  # t in F
            cands.append(("mifr", mf))
        if float(pub[pub <= t].sum()) < g:  # t in G
            cands.append(("wf", water_fill(pub, t)))
        for which, p in cands:
            nstar = float(p.min())
            b = beta_min(epsilon, delta, n, n_samples, nstar)
            obj = b * inner(pub, p, g)
            rows.append((which, float(t), nstar, b, obj))
            if best is None or obj < best[0] - 1e-15:
                best = (obj, which, float(t), p, b)
    if best is None:  # neither set met on the grid: LinMix (Cor. 4.6)
        u = linmix_noise(d)
        b = beta_min(epsilon, delta, n, n_samples, 1.0 / d)
        return NoiseChoice(u, b, 1.0 / d, "linmix", b * inner(pub, u, g), exact, rows)
    obj, which, t, p, b = best
    return NoiseChoice(p, b, t, which, obj, exact, rows)


def _choose_lemmas(pub, g, epsilon, delta, n, n_samples, grid, exact, inner) -> NoiseChoice:
    """Remark 4.5 with the lemmas' closed-form objectives for t1 (F.1) and t2 (F.2)."""
    d = pub.size
    rows, fam = [], {}
    for t in grid[::-1]:
        b = beta_min(epsilon, delta, n, n_samples, float(t))
        mf = mifr(pub, t)
        if float(pub[pub <= mf + 1e-15].sum()) >= g:
            obj = b * (g + float(np.maximum(t - pub, 0.0).sum()))
            rows.append(("mifr", float(t), float(t), b, obj))
            if "mifr" not in fam or obj < fam["mifr"][0] - 1e-15:
                fam["mifr"] = (obj, float(t), mf)
        if float(pub[pub <= t].sum()) < g:
            wf = water_fill(pub, t)
            obj = b * _phi(pub, wf, g, int((pub <= t).sum()))
            rows.append(("wf", float(t), float(t), b, obj))
            if "wf" not in fam or obj < fam["wf"][0] - 1e-15:
                fam["wf"] = (obj, float(t), wf)
    if not fam:
        u = linmix_noise(d)
        b = beta_min(epsilon, delta, n, n_samples, 1.0 / d)
        return NoiseChoice(u, b, 1.0 / d, "linmix", b * inner(pub, u, g), exact, rows)
    scored = {}
    for which, (_, t, p) in fam.items():
        b = beta_min(epsilon, delta, n, n_samples, float(p.min()))
        scored[which] = (b * inner(pub, p, g), t, p, b)
    which = "mifr" if "mifr" in scored and ("wf" not in scored or scored["mifr"][0] <= scored["wf"][0]) else "wf"
    obj, t, p, b = scored[which]
    return NoiseChoice(p, b, t, which, obj, exact, rows)


# ------------------------------------------------------------------ §5: gamma
def gamma_from_folds(public_codes: Any, d: int, k: int = 5, seed: int = 0, stat: str = "mean") -> float:
    """gamma_tv from k random folds of the public data (§5): a statistic of pairwise fold TVs.

    public_codes: (l,) int bin index per public row in [0, d); d: bins; k >= 2 folds;
    stat 'mean' (the paper's PUMS choice, footnote 5), 'max' or 'median'.  Public data
    only.  Returns a float in (0, 1] (at least 1e-6).  Raises DataError (codes, d, k) /
    BudgetError (stat).
    """
    d = _check_int(d, "d (number of bins)", 1, 10**8, DataError)
    k = _check_int(k, "k (folds)", 2, 1000, DataError)
    c = np.asarray(public_codes)
    if c.ndim != 1 or c.size < k:
        raise DataError(f"public_codes must be a 1-d array with at least k = {k} rows (got shape {c.shape})")
    if not np.issubdtype(c.dtype, np.integer) or c.min() < 0 or c.max() >= d:
        raise DataError(f"public_codes must be integer bin indices in [0, {d})")
    if stat not in ("mean", "max", "median"):
        raise BudgetError(f"stat must be 'mean', 'max' or 'median' (got {stat!r})")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 3031]))
    folds = np.array_split(rng.permutation(c.size), k)
    H = np.stack([np.bincount(c[f], minlength=d) / max(f.size, 1) for f in folds])
    tvs = [0.5 * float(np.abs(H[i] - H[j]).sum()) for i in range(k) for j in range(i + 1, k)]
    val = {"mean": np.mean, "max": np.max, "median": np.median}[stat](tvs)
    return float(min(1.0, max(val, 1e-6)))


# ------------------------------------------------------------------ accounting
def pubmix_pld(epsilon: float, delta: float, n: int, n_samples: int, n1: float, n2: float | None = None,
               beta: float | None = None, value_discretization_interval: float = 1e-4):
    """dp-accounting PLD of one PubMix release (for the ledger).

    The n_samples-fold self-composition of the worst-case 3-point pair of App. C,
    P = [beta N + s, beta N, c], Q = [beta N, beta N + s, c], s = (1 - beta)/n, at
    N = min(n1, n2) (dominates both labellings by Lemma C.2's channel argument; with
    n1 = n2 it is exact and symmetric).  beta=None: beta_min(epsilon, delta, n,
    n_samples, n1, n2).  Pessimistic discretization (upper bound on delta(eps)).
    Returns a ``dp_accounting.pld.PrivacyLossDistribution``.  Valid for adaptive
    composition only if (beta, N) are fixed before the run (design notes A6).
    """
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    n = check_n(n)
    m = check_n_samples(n_samples)
    a, b = _check_pair(n1, n2)
    bt = beta_min(eps, dl, n, m, a, b) if beta is None else check_beta(beta)
    upper, lower = three_point_pair(bt, n, a)

    def logs(p):
        return {i: math.log(x) for i, x in enumerate(p) if x > 0}

    base = pld_mod.from_two_probability_mass_functions(
        logs(lower), logs(upper), pessimistic_estimate=True,
        value_discretization_interval=value_discretization_interval, symmetric=True)
    return base.self_compose(m) if m > 1 else base


def three_point_pair(beta: float, n: int, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """The worst-case pair of App. C at N1 = N2 = floor: (P, Q), each float64 (3,) over (i, j, rest)."""
    beta = check_beta(beta)
    n = check_n(n)
    N = _check_unit(floor, "floor")
    s = (1.0 - beta) / n
    c = max(1.0 - 2 * beta * N - s, 0.0)
    return np.array([beta * N + s, beta * N, c]), np.array([beta * N, beta * N + s, c])


# ------------------------------------------------------------------ sampling
def pubmix_sample(p_private: Any, p_noise: Any, beta: float, n_samples: int,
                  rng: np.random.Generator) -> np.ndarray:
    """Draw n_samples i.i.d. bin indices from (1 - beta) p_private + beta p_noise (Alg. 1, step 3).

    p_private, p_noise: (d,) distributions (p_noise must come from public data only);
    beta in [0, 1]; rng: numpy Generator.  Returns int64 (n_samples,).  The mixture is
    formed inside this call and never returned or stored.  Raises DataError/BudgetError.
    """
    pp = check_distribution(p_private, "p_private")
    pn = check_distribution(p_noise, "p_noise")
    if pp.size != pn.size:
        raise DataError(f"p_private and p_noise must have the same length (got {pp.size} and {pn.size})")
    b = check_beta(beta)
    m = check_n_samples(n_samples)
    if not isinstance(rng, np.random.Generator):
        raise DataError(f"rng must be a numpy.random.Generator (got {type(rng).__name__})")
    w = (1.0 - b) * pp + b * pn
    w = w / w.sum()
    out = rng.choice(w.size, size=m, p=w).astype(np.int64)
    del w
    return out


# ------------------------------------------------------------------ exact sampling (releases)
#: the OS CSPRNG the exact sampler reads (module attributes so a test can check they are called).
_os_bytes = os.urandom
_randbelow = secrets.randbelow
#: largest bound drawn with vectorised 64-bit words (larger bounds use Python integers).
_WORD_BOUND = 2**63


def _uniform_below(bound: int, size: int) -> np.ndarray:
    """``size`` i.i.d. integers uniform on {0, ..., bound - 1}, exactly, from the OS CSPRNG.

    bound <= 2^63: vectorised rejection sampling on 64-bit words from ``os.urandom`` (each
    word masked to bit_length(bound - 1) bits, kept iff < bound; every kept value is
    equally likely), int64 (size,).  Larger bounds: ``secrets.randbelow`` per draw, an
    object array of Python ints.  Raises ValueError for bound < 1.
    """
    if bound < 1:
        raise ValueError(f"bound must be >= 1 (got {bound})")
    if bound > _WORD_BOUND:
        return np.array([_randbelow(bound) for _ in range(size)], dtype=object)
    if bound == 1 or size == 0:
        return np.zeros(size, dtype=np.int64)
    mask = np.uint64((1 << (bound - 1).bit_length()) - 1)
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        need = size - filled
        k = need + need // 2 + 8  # acceptance >= 1/2 per word
        words = np.frombuffer(_os_bytes(8 * k), dtype=np.uint64) & mask
        ok = words[words < np.uint64(bound)][:need]
        out[filled:filled + ok.size] = ok.astype(np.int64)
        filled += ok.size
    return out


def _draw_by_weights(weights: Sequence[int], size: int) -> np.ndarray:
    """``size`` i.i.d. indices i with probability weights[i] / sum(weights), exactly.

    weights: non-negative Python ints with a positive sum.  One uniform integer r below the
    sum per draw (:func:`_uniform_below`), then the index of the cumulative interval holding r
    (bisect on the exact cumulative integers).  Returns int64 (size,).
    """
    cum = list(itertools.accumulate(int(w) for w in weights))
    total = cum[-1]
    if size == 0:
        return np.zeros(0, dtype=np.int64)
    r = _uniform_below(total, size)
    if total <= _WORD_BOUND:
        return np.searchsorted(np.asarray(cum, dtype=np.int64), r, side="right").astype(np.int64)
    return np.fromiter((bisect.bisect_right(cum, int(x)) for x in r), dtype=np.int64, count=size)


def exact_noise_weights(p_noise: Any, floor: float | None = None) -> tuple[Fraction, list[int]]:
    """The noise law of :func:`exact_mixture_sample` as exact integers.

    p_noise: (m,) finite floats >= 0 with a positive sum (public).  Returns (u, w): with
    probability u (a Fraction in [0, 1]) the noise draw is uniform on the m bins, else it is
    index i with probability w[i] / sum(w) (Python ints).  floor=None: u = 0, w = the floats'
    exact rationals over their common power-of-two denominator, so the law is exactly
    p_noise / sum(p_noise).  floor = f: u = m f and w proportional to (p_i - f)_+ (exact), so
    every mass is f + (1 - m f) w_i / sum(w) >= f exactly -- equal to p_noise whenever p_noise is
    (rationally) a distribution with min >= f, and the smallest correction otherwise (w all
    zero: uniform).  Raises DataError (p_noise) / BudgetError (floor with m f > 1 exactly).
    """
    try:
        x = np.asarray(p_noise, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"p_noise must be a 1-d array of probabilities (got {type(p_noise).__name__})") from None
    if x.ndim != 1 or x.size < 1 or not np.isfinite(x).all() or (x < 0).any() or not x.sum() > 0:
        raise DataError("p_noise must be a non-empty 1-d array of finite numbers >= 0 with a positive sum")
    m = x.size
    # every float is num / 2^k exactly (float.as_integer_ratio); over the common denominator 2^K
    # (K the largest k) entry i is the integer num_i * 2^(K - k_i)
    ratios = [float(v).as_integer_ratio() for v in x.tolist()]
    if floor is None:
        u = Fraction(0)
    else:
        f = Fraction(_check_unit(floor, "floor"))
        u = m * f
        if u > 1:
            raise BudgetError(f"floor {float(floor)!r} is above 1/m for m = {m} bins in exact arithmetic "
                              "(m * floor > 1). Fix: round the floor down (PubMix.plan does for releases)")
        ratios.append((f.numerator, f.denominator))
    K = max(q for _, q in ratios).bit_length() - 1
    ints = [a << (K - (q.bit_length() - 1)) for a, q in ratios]
    if floor is None:
        return u, ints
    fi = ints.pop()
    exc = [v - fi if v > fi else 0 for v in ints]
    return u, exc if any(exc) else [1] * m


def exact_mixture_sample(counts: Any, p_noise: Any, beta: float, n_samples: int,
                         floor: float | None = None) -> np.ndarray:
    """Draw n_samples i.i.d. bin indices from (1 - beta) H/n + beta P_nse EXACTLY, from the OS CSPRNG.

    The release sampler of PubMix / LinMix (papers/003 Alg. 1 step 3; Thm 4.1).
    counts: (m,) whole numbers >= 0, H, the private hard-vote histogram (n = sum >= 1
    records); p_noise: (m,) public noise distribution (floats >= 0, normalised exactly
    here); beta: the mixing weight in [0, 1] (a float, used as its exact rational value);
    n_samples: draws; floor: the floor f the accounting assumed (min P_nse >= f), or None
    (see :func:`exact_noise_weights`).  Returns int64 (n_samples,) bin indices in [0, m).

    Why it is exact.  Every float is a dyadic rational, so beta = a / 2^k exactly
    (``Fraction(beta)``).  Each draw: (1) a uniform integer below 2^k is < a with probability
    exactly beta (noise component); (2) private component: a uniform record index r below n,
    bin i iff cum(H)_{i-1} <= r < cum(H)_i: probability H_i / n exactly; (3) noise component:
    with probability u = m f uniform on the bins, else index i with probability w_i / sum(w),
    w the exact integers of :func:`exact_noise_weights`, so every noise mass is >= f exactly.
    Uniform integers come from ``os.urandom`` (rejection sampling, vectorised) or
    ``secrets.randbelow``; no floating-point number is involved in any draw.  So the
    released law is exactly the (beta, H/n, P_nse) mixture of Thm 4.1 (papers/003 Thm 4.1,
    Eqs. (6)-(7)) with min P_nse >= f, and the theorem's (epsilon, delta) holds with no
    floating-point gap in the sampling (the numpy sampler :func:`pubmix_sample`, for seeded
    study runs, forms float weights and inverts a float CDF instead).

    Raises DataError (counts, p_noise, lengths) / BudgetError (beta, n_samples, floor).
    """
    try:
        c = np.asarray(counts)
    except (TypeError, ValueError):
        raise DataError("counts must be a 1-d array of whole numbers") from None
    if c.ndim != 1 or c.size < 1:
        raise DataError(f"counts must be a non-empty 1-d array (got shape {c.shape})")
    if c.dtype.kind == "f":
        if not np.isfinite(c).all() or (c != np.rint(c)).any():
            raise DataError("counts must be whole numbers (the hard vote's integer histogram)")
    elif c.dtype.kind not in "iu":
        raise DataError(f"counts must be whole numbers (got dtype {c.dtype})")
    H = [int(v) for v in c.tolist()]
    if any(v < 0 for v in H) or sum(H) < 1:
        raise DataError("counts must be >= 0 with a positive sum n")
    check_n(sum(H))
    m = check_n_samples(n_samples)
    b = Fraction(check_beta(beta))
    u, w = exact_noise_weights(p_noise, floor)
    if len(w) != len(H):
        raise DataError(f"counts and p_noise must have the same length (got {len(H)} and {len(w)})")
    d = len(H)
    out = np.empty(m, dtype=np.int64)
    noise = _uniform_below(b.denominator, m) < b.numerator if b.numerator else np.zeros(m, dtype=bool)
    if not isinstance(noise, np.ndarray) or noise.dtype != bool:
        noise = np.asarray(noise, dtype=bool)
    k = int(noise.sum())
    out[~noise] = _draw_by_weights(H, m - k)
    if k:
        uni = (_uniform_below(u.denominator, k) < u.numerator) if u.numerator else np.zeros(k, dtype=bool)
        uni = np.asarray(uni, dtype=bool)
        nz = np.empty(k, dtype=np.int64)
        ku = int(uni.sum())
        nz[uni] = _uniform_below(d, ku)
        nz[~uni] = _draw_by_weights(w, k - ku)
        out[noise] = nz
    return out
