"""Noise laws built from public data (Defs 4.3-4.4, Remark 4.5, Lemma E.1): water filling, MIFR, the
LinMix noise, total variation and the inner maximum of Lemma E.1."""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
from typing import Any

import numpy as np

from ...base.errors import BudgetError, DataError
from .checks import _check_int, check_distribution, check_floor, check_gamma

#: largest d for the exact inner maximum of Lemma E.1 (2^d - 2 subsets).
MAX_EXACT_D = 16
#: largest number of donor candidates for mifr(search='exact'), the enumeration cross-check (2^k subsets).
MAX_EXACT_DONORS = 16


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

    B_i = max(t, a_i - tau) with the unique tau >= 0 making sum B = 1, found by bisection
    on the level (the paper's closed form has tie/index traps).  B >= t, sum B = 1 and
    TV(a, B) = sum_{a_i <= t} (t - a_i), the minimum under the floor.
    papers/003 Def. 4.3, Lemma B.1.

    Parameters
    ----------
    a : (d,) array_like of float
        Probabilities.
    t : float
        The floor, in [0, 1/d].

    Returns
    -------
    (d,) float64 ndarray
        WF(a, t).

    Raises
    ------
    DataError
        For a bad distribution ``a``.
    BudgetError
        For a bad floor ``t``.
    """
    x = check_distribution(a, "a")
    t = min(check_floor(t, x.size), 1.0 / x.size)
    b = _level(x, t, 1.0)
    return b / b.sum()


def _mifr_donors(exc: np.ndarray, mass: np.ndarray, need: float, search: str) -> np.ndarray:
    """Donor set U* among the candidates L^c: the 0/1 program of Def. 4.4 (indices into them).

    exc: a_i - t > 0, mass: a_i, for the candidates.  'lp' (the default): the program
    solved exactly by :func:`_mifr_program` (HiGHS branch and bound).  'exact': every
    subset (<= MAX_EXACT_DONORS candidates); ties -> fewer donors, then the
    lexicographically smallest index tuple.  'greedy': the old heuristic, kept for
    comparison only (fewest donors, largest excess first; the last of them swapped for the
    smallest-mass candidate that still covers the remaining need); it is not optimal.
    """
    k = exc.size
    if need <= 0:
        return np.zeros(0, dtype=np.intp)
    if float(exc.sum()) <= need * (1 + 1e-12):  # every candidate must give (t = 1/d up to rounding)
        return np.arange(k, dtype=np.intp)
    if search == "lp":
        return _mifr_program(exc, mass, need)
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


#: the scale of the donor program's objective, so that HiGHS's absolute gap (1e-6, not settable
#: through linprog) is 1e-6 / MIFR_OBJECTIVE_SCALE of the largest candidate mass.
MIFR_OBJECTIVE_SCALE = 1e7
#: at most this many donor candidates (after the reductions of :func:`_mifr_program`): every subset
#: is enumerated (vectorized, 2^k - 1 masks) instead of calling HiGHS (~10 ms per call).
MIFR_ENUMERATE = 16


@contextlib.contextmanager
def _quiet_stdout():
    """Silence file descriptor 1 around a HiGHS MIP solve.

    HiGHS 1.12 (bundled with scipy 1.17) prints a stray debug line,
    "HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();", to stdout from C++
    whatever its output options (ERGO-Code/HiGHS#2783, fixed upstream); on the CLI it would land in
    the middle of the output.  Process-wide for the few milliseconds of the solve, under a lock.
    """
    with _STDOUT_LOCK:
        try:
            sys.stdout.flush()
            fd = os.dup(1)
        except (OSError, ValueError, AttributeError):  # no real fd 1 (embedded, closed): nothing to silence
            yield
            return
        try:
            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 1)
                try:
                    yield
                finally:
                    os.dup2(fd, 1)
        finally:
            os.close(fd)


_STDOUT_LOCK = threading.Lock()


def _mifr_program(exc: np.ndarray, mass: np.ndarray, need: float) -> np.ndarray:
    """Def. 4.4's donor program, exact: min sum_i mass_i x_i s.t. sum_i exc_i x_i >= need, x in {0,1}^k.

    Solved by ``scipy.optimize.linprog`` (HiGHS branch and bound, mip_rel_gap = 0) on an
    equivalent, smaller program (or, with at most MIFR_ENUMERATE candidates left, by enumerating
    every subset; ties: fewer donors, then the first).  (i) Candidates of equal mass are interchangeable, so they
    are merged into one integer variable y_v in [0, multiplicity] (the y_v lightest-index ones
    are then taken); count histograms have many equal masses, and the 0/1 form's symmetric
    branches made HiGHS take seconds at d = 512.  (ii) A candidate whose excess alone covers
    the need gets coefficient need (min(exc, need): the same feasible integer points).  (iii) A
    candidate at least as heavy as the lightest one that covers alone is never in an optimal
    set with others, so it is dropped unless it is that one.  The objective is scaled by
    MIFR_OBJECTIVE_SCALE (HiGHS's absolute gap, 1e-6, is not settable through linprog).  The
    rounded solution is checked to cover the need; a shortfall within HiGHS's feasibility
    tolerance is repaired by the lightest candidate that covers it.
    """
    from scipy.optimize import linprog  # lazy: scipy stays off the default synth paths (tests/test_imports.py)

    covers = exc >= need
    keep = np.ones(exc.size, dtype=bool)
    if covers.any():
        single = int(np.flatnonzero(covers)[np.argmin(mass[covers])])
        keep = mass < mass[single]
        keep[single] = True
    idx = np.flatnonzero(keep)
    if idx.size <= MIFR_ENUMERATE:  # small: every subset (vectorized), faster than a HiGHS call
        masks = ((np.arange(1, 2 ** idx.size)[:, None] >> np.arange(idx.size)[None, :]) & 1).astype(np.uint8)
        ok = masks @ exc[idx] >= need - 1e-15 * need
        tot = np.where(ok, masks @ mass[idx], np.inf)
        best = np.flatnonzero(tot <= tot.min() * (1 + 1e-15))
        pick = best[np.argmin(masks[best].sum(axis=1))]  # ties: fewer donors, then the first mask
        return idx[masks[pick].astype(bool)]
    vals, inv, mult = np.unique(mass[idx], return_inverse=True, return_counts=True)
    ex = np.array([float(exc[idx][inv == j].max()) for j in range(vals.size)])  # equal mass: equal excess
    coef = np.minimum(ex / need, 1.0)
    obj = vals / float(vals.max()) * MIFR_OBJECTIVE_SCALE
    with _quiet_stdout():
        res = linprog(obj, A_ub=-coef[None, :], b_ub=[-1.0], bounds=list(zip([0] * vals.size, mult.tolist())),
                      integrality=np.ones(vals.size), method="highs", options={"mip_rel_gap": 0.0})
    if res.x is None:  # cannot happen: the full set covers the need (checked by the caller)
        raise DataError(f"MIFR's donor program failed ({res.message})")
    take = np.rint(res.x).astype(int)
    chosen: set[int] = set()
    for v in np.flatnonzero(take):
        chosen.update(idx[inv == v][:take[v]].tolist())
    short = need - (float(exc[sorted(chosen)].sum()) if chosen else 0.0)
    while short > 1e-15 * need:
        rest = np.array([i for i in range(exc.size) if i not in chosen], dtype=np.intp)
        ok = rest[exc[rest] >= short]
        add = int(ok[np.argmin(mass[ok])]) if ok.size else int(rest[np.argmax(exc[rest])])
        chosen.add(add)
        short -= float(exc[add])
    return np.array(sorted(chosen), dtype=np.intp)


def mifr(a: Any, t: float, search: str = "auto") -> np.ndarray:
    """Maximum-invariance floor raising MIFR(a, t) (Def. 4.4), exact for every d.

    L = {i : a_i <= t} is raised to t; the added mass M = sum_L (t - a_i) is taken from a
    donor set U* of L^c, all other entries unchanged.  U* solves Def. 4.4's program,
    with x_i = 1 iff i in U*::

        min_x  sum_{i in L^c} a_i x_i
        s.t.   sum_{i in L^c} (a_i - t) x_i >= M = sum_{i in L} (t - a_i),   x_i in {0, 1},

    i.e. it maximizes the mass left unchanged, 1 - sum_{U*} a_i (= sum over i with
    a_i <= B_i, the quantity of Lemma F.1's set F; Claim F.3).  This is a 0/1 linear
    program (a knapsack), not an LP: its relaxation x in [0, 1] is in general not
    integral.  search='auto' ('lp') solves it exactly for every d with
    ``scipy.optimize.linprog`` (HiGHS branch and bound, integrality constraints,
    mip_rel_gap = 0; ties: HiGHS's choice, deterministic for the same input).  Inside U*
    the mass M is removed by water-filling at floor t (b_i = max(t, a_i - tau)), which
    Def. 4.4 leaves open (docs/DECISIONS.md).

    Parameters
    ----------
    a : (d,) array_like of float
        Probabilities.
    t : float
        The floor, in [0, 1/d].
    search : {"auto", "lp", "exact", "greedy"}, default "auto"
        The donor search: 'auto' = 'lp' (the exact 0/1 program above, every d);
        'exact' (enumeration of every subset, at most MAX_EXACT_DONORS entries above t;
        ties -> fewer donors, then smallest indices) and 'greedy' (the former heuristic
        above 16 candidates: fewest donors, the last swapped for the smallest one that still
        covers M; NOT optimal) are kept for cross-checks.

    Returns
    -------
    (d,) float64 ndarray
        B >= t, sum 1, TV(a, B) = M.

    Raises
    ------
    DataError
        For a bad distribution ``a``.
    BudgetError
        For a bad floor ``t`` or ``search`` (including 'exact' with more than
        MAX_EXACT_DONORS entries above t).
    """
    x = check_distribution(a, "a")
    d = x.size
    t = min(check_floor(t, d), 1.0 / d)
    if search not in ("auto", "lp", "exact", "greedy"):
        raise BudgetError(f"search must be 'auto', 'lp', 'exact' or 'greedy' (got {search!r})")
    low = x <= t
    need = float((t - x[low]).sum())
    out = x.copy()
    out[low] = t
    if need <= 0:
        return out
    cand = np.nonzero(~low)[0]
    if cand.size == 0:  # every entry <= t: then t = 1/d and all equal
        return np.full(d, 1.0 / d)
    mode = "lp" if search == "auto" else search
    if mode == "exact" and cand.size > MAX_EXACT_DONORS:
        raise BudgetError(f"search='exact' supports at most {MAX_EXACT_DONORS} entries above t "
                          f"(got {cand.size}). Fix: use search='auto'")
    U = cand[_mifr_donors(x[cand] - t, x[cand], need, mode)]
    out[U] = _level(x[U], t, float(x[U].sum()) - need)
    return out / out.sum()


def floor_tv(a: Any, t: float) -> float:
    """Minimal TV of any floor-t distribution to a: sum_{a_i <= t} (t - a_i) (Defs 4.3-4.4).

    Parameters
    ----------
    a : (d,) array_like of float
        Probabilities.
    t : float
        The floor, in [0, 1/d].

    Returns
    -------
    float
        The minimal total variation, in [0, 1].

    Raises
    ------
    DataError
        For a bad distribution ``a``.
    BudgetError
        For a bad floor ``t``.
    """
    x = check_distribution(a, "a")
    t = check_floor(t, x.size)
    return float(np.maximum(t - x, 0.0).sum())


def tv(p: Any, q: Any) -> float:
    """Total variation 0.5 * ||p - q||_1 of two distributions of the same length.

    Parameters
    ----------
    p : (d,) array_like of float
        Probabilities.
    q : (d,) array_like of float
        Probabilities, the same length.

    Returns
    -------
    float
        TV(p, q), in [0, 1].

    Raises
    ------
    DataError
        For a bad distribution or lengths that differ.
    """
    x, y = check_distribution(p, "p"), check_distribution(q, "q")
    if x.size != y.size:
        raise DataError(f"p and q must have the same length (got {x.size} and {y.size})")
    return 0.5 * float(np.abs(x - y).sum())


def linmix_noise(d: int) -> np.ndarray:
    """LinMix noise (Cor. 4.6): the uniform distribution 1_d / d.

    Parameters
    ----------
    d : int
        Number of bins, a whole number ``>= 1``.

    Returns
    -------
    (d,) float64 ndarray
        Every entry 1 / d.

    Raises
    ------
    DataError
        If d < 1 (or not a whole number).
    """
    d = _check_int(d, "d (number of bins)", 1, 10**8, DataError)
    return np.full(d, 1.0 / d)


def inner_max_tv(pub: Any, nse: Any, gamma: float) -> float:
    """max_{P in B_gamma(pub)} TV(P, nse) by Lemma E.1, exact for d <= MAX_EXACT_D.

    = max over S with 1 <= |S| <= d-1 of min(pub(S) + gamma, 1) - nse(S) (2^d - 2
    subsets).  papers/003 Eq. (127).

    Parameters
    ----------
    pub : (d,) array_like of float
        The public distribution (centre of the ball).
    nse : (d,) array_like of float
        The noise distribution.
    gamma : float
        TV radius of the ball, in (0, 1].

    Returns
    -------
    float
        The inner maximum; 0 for d = 1.

    Raises
    ------
    DataError
        For a bad pub or nse, lengths that differ, or d > MAX_EXACT_D.
    BudgetError
        For a bad gamma.
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
    convex combination, then drop the subset constraint).

    Parameters
    ----------
    pub : (d,) array_like of float
        The public distribution (centre of the ball).
    nse : (d,) array_like of float
        The noise distribution.
    gamma : float
        TV radius of the ball, in (0, 1].

    Returns
    -------
    float
        The minimum of that convex piecewise-linear bound (over its breakpoints),
        gamma + TV(pub, nse) (Eq. (157)) and 1 - min nse.

    Raises
    ------
    DataError
        For a bad pub or nse, or lengths that differ.
    BudgetError
        For a bad gamma.
    """
    p = check_distribution(pub, "pub")
    q = check_distribution(nse, "nse")
    g = check_gamma(gamma)
    if q.size != p.size:
        raise DataError(f"pub and nse must have the same length (got {p.size} and {q.size})")
    pos = p > 0
    c0 = float(q[~pos].sum())
    with np.errstate(over="ignore"):  # a subnormal p_i gives lam_i = inf: above every breakpoint in [0, 1]
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
