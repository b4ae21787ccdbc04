"""The public choice of the noise law (Cor. 4.6, §5): :func:`choose_noise` over water filling, MIFR
and LinMix, and gamma from public folds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ...base.errors import BudgetError, DataError
from .checks import _check_int, check_distribution, check_floor, check_gamma
from .delta import beta_min
from .noise import MAX_EXACT_D, inner_max_tv, inner_max_tv_upper, linmix_noise, mifr, water_fill


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
    (family, t, N*, beta, objective) scored; pruned: every (family, t, lower bound) not built
    because its lower bound (:func:`_objective_floor`) showed it could not win.
    """

    p_noise: np.ndarray
    beta: float
    t: float
    which: str
    objective: float
    exact: bool
    rows: list
    pruned: list = field(default_factory=list)


#: relative and absolute slack of a pruning bound (:func:`_objective_floor`): covers the rounding of
#: N* = t / sum(B) against t and beta_min's bisection tolerance (BISECT_TOL = 2^-46), by orders of magnitude.
PRUNE_RTOL = 1e-9
PRUNE_ATOL = 1e-12


def _donor_mass_floor(pub: np.ndarray, t: float) -> float:
    """A lower bound on MIFR(pub, t)'s donor mass sum_{U*} pub_i (Def. 4.4's program), ours.

    The program's LP relaxation (x in [0, 1]^k) is a fractional knapsack; its optimum, taking the
    candidates by largest excess pub_i - t first (mass / excess = 1 + t / excess is smallest there),
    is <= the 0/1 optimum.  t is in Lemma F.1's set F iff 1 - sum_{U*} pub_i >= gamma, so a floor
    above 1 - gamma proves t not in F without solving the program.
    """
    low = pub <= t
    need = float((t - pub[low]).sum())
    if need <= 0:
        return 0.0
    exc = np.sort(pub[~low] - t)[::-1]
    cum = np.cumsum(exc)
    r = int(np.searchsorted(cum, need))
    if r >= exc.size:
        return float(pub[~low].sum())
    done = float(cum[r - 1]) if r else 0.0
    return need + t * (r + (need - done) / float(exc[r]))


def _objective_floor(pub: np.ndarray, t: float, g: float, beta_low: float) -> float:
    """A lower bound on g = beta_min(N*, N*) x max_{P in B_gamma} TV(P, P_nse) of MIFR(pub, t) and WF(pub, t), ours.

    Both raise every pub_j <= t to exactly t and keep every mass >= t, so N* = t (up to the final
    renormalization) and beta_min(N*) = beta_min(t) >= ``beta_low``, a lower bound on it (beta_min(t)
    itself, or beta_min at a larger floor: Lemma C.5, non-increasing in N).
    If some pub_j <= t also has pub_j <= 1 - gamma, the P in B_gamma that moves gamma of mass onto
    bin j has TV(P, P_nse) >= P_j - t = pub_j + gamma - t >= gamma - t, which bounds the exact inner
    maximum (Lemma E.1) and hence :func:`inner_max_tv_upper` from below.  Returns 0 when no such j
    exists (no bound).  Slack PRUNE_RTOL / PRUNE_ATOL.
    """
    low = pub <= t
    if not low.any() or float(pub[low].min()) > 1.0 - g:
        return 0.0
    return beta_low * (g - t) * (1.0 - PRUNE_RTOL) - PRUNE_ATOL


def default_t_grid(d: int, size: int = 48) -> np.ndarray:
    """Floors tried by :func:`choose_noise`: (1/d) x (geometric 1e-3..1 and linear).

    Parameters
    ----------
    d : int
        Number of bins.
    size : int, default 48
        Number of grid points before de-duplication (half geometric, half linear).

    Returns
    -------
    float64 ndarray
        The sorted, distinct floors, in (0, 1/d].
    """
    r = np.unique(np.concatenate([np.geomspace(1e-3, 1.0, size // 2), np.linspace(0.02, 1.0, size // 2)]))
    return r / d


def choose_noise(p_public: Any, gamma: float, epsilon: float, delta: float, n: int, n_samples: int,
                 t_grid: Sequence[float] | None = None, exact_inner: bool | None = None,
                 scoring: str = "exact") -> NoiseChoice:
    """Near-optimal noise distribution and mixing weight of Remark 4.5 (Eq. (13)).

    Candidates, over the floors of ``t_grid`` (1/d, LinMix, is always added): MIFR(pub, t)
    for t in F (Lemma F.1: the public mass left unchanged is >= gamma) and WF(pub, t) for t
    in G (Lemma F.2: sum_{pub_i <= t} pub_i < gamma).  Each is scored by g = beta_min(N*, N*)
    x max_{P in B_gamma} TV(P, P_nse), N* = min P_nse, with the inner max exact (Lemma
    E.1) when ``exact_inner`` and else the upper bound :func:`inner_max_tv_upper`; the
    smallest g wins (ties: MIFR, then the larger t).  A candidate whose lower bound
    (:func:`_objective_floor`: beta_min(t) x (gamma - t), with beta_min(t) >= beta_min at a larger
    floor already solved, Lemma C.5, before solving it) is not below the best g found so far is
    not built (it could not replace the best; recorded in ``pruned``), and MIFR's donor program is
    not solved when the relaxation's donor mass shows t not in F (:func:`_donor_mass_floor`): the
    choice is the same as scoring every candidate, at a fraction of the cost at d ~ 1,000
    (docs/DECISIONS.md).
    scoring='exact' (default) picks (family, t) by that g directly.  scoring='lemmas'
    is the paper's literal recipe: t1 = argmin_F beta_min(t,t)(gamma + sum_{pub_i<=t}
    (t - pub_i)) (F.1), t2 = argmin_G beta_min(t,t) Phi(t) (F.2; arg min, Eq. (181)'s
    arg max is a typo), then Eq. (13) compares g(MIFR(t1)) with g(WF(t2)).  'exact' is
    the default (docs/DECISIONS.md) because Phi is only a lower bound on the inner max
    and is 0 at ties (pub = (0, 0, 1), t = 0: Phi = 0, true inner max = gamma), which
    makes 'lemmas' pick t = 0 and beta ~ 1.

    Parameters
    ----------
    p_public : (d,) array_like of float
        Normalized public histogram.
    gamma : float
        In (0, 1]: TV radius of the ball B_gamma around it (utility only, never privacy).
    epsilon : float
        As :func:`beta_min`.
    delta : float
        As :func:`beta_min`.
    n : int
        As :func:`beta_min`.
    n_samples : int
        As :func:`beta_min`.
    t_grid : sequence of float, optional
        Floors to try (default :func:`default_t_grid`).
    exact_inner : bool, optional
        Exact inner maximum (default: d <= MAX_EXACT_D).
    scoring : {"exact", "lemmas"}, default "exact"
        How (family, t) is picked (see above).

    Returns
    -------
    NoiseChoice
        The chosen noise law, beta, floor, family, objective and every row tried.

    Raises
    ------
    BudgetError
        As :func:`beta_min`; for gamma, t_grid or scoring.
    DataError
        As :func:`beta_min`; for p_public, or exact_inner with d > MAX_EXACT_D.
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

    rows: list = []
    pruned: list = []
    best = None
    beta_above = None  # beta_min at the last floor solved for a bound: <= beta_min(t) below it (Lemma C.5)
    for t in grid[::-1]:
        tf = float(t)
        bound = None  # the lower bound on both families' objective at t (computed once, when needed)
        for which in ("mifr", "wf"):
            if which == "mifr":  # t in F possible (the relaxation does not rule it out)
                live = _donor_mass_floor(pub, tf) <= (1.0 - g) * (1.0 + PRUNE_RTOL) + PRUNE_ATOL
            else:  # t in G
                live = float(pub[pub <= t].sum()) < g
            if not live:
                continue
            if best is not None:
                if bound is None:  # cheap first (no beta_min solve), then with beta_min(t) if that is short
                    bound = 0.0 if beta_above is None else _objective_floor(pub, tf, g, beta_above)
                    if bound < best[0] and _objective_floor(pub, tf, g, 1.0) > 0.0:
                        beta_above = beta_min(epsilon, delta, n, n_samples, tf)
                        bound = _objective_floor(pub, tf, g, beta_above)
                if bound >= best[0]:
                    pruned.append((which, tf, bound))
                    continue
            if which == "mifr":
                p = mifr(pub, t)
                if float(pub[pub <= p + 1e-15].sum()) < g:  # t not in F
                    continue
            else:
                p = water_fill(pub, t)
            nstar = float(p.min())
            b = beta_min(epsilon, delta, n, n_samples, nstar)
            obj = b * inner(pub, p, g)
            rows.append((which, tf, nstar, b, obj))
            if best is None or obj < best[0] - 1e-15:
                best = (obj, which, tf, p, b)
    if best is None:  # neither set met on the grid: LinMix (Cor. 4.6)
        u = linmix_noise(d)
        b = beta_min(epsilon, delta, n, n_samples, 1.0 / d)
        return NoiseChoice(u, b, 1.0 / d, "linmix", b * inner(pub, u, g), exact, rows, pruned)
    obj, which, t, p, b = best
    return NoiseChoice(p, b, t, which, obj, exact, rows, pruned)


def _choose_lemmas(pub, g, epsilon, delta, n, n_samples, grid, exact, inner) -> NoiseChoice:
    """Remark 4.5 with the lemmas' closed-form objectives for t1 (F.1) and t2 (F.2)."""
    d = pub.size
    rows: list[tuple[str, float, float, float, float]] = []
    fam: dict[str, tuple[float, float, np.ndarray]] = {}
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

    Public data only.

    Parameters
    ----------
    public_codes : (l,) array_like of int
        Bin index per public row, in [0, d).
    d : int
        Bins.
    k : int, default 5
        Folds, ``>= 2``.
    seed : int, default 0
        Seed of the fold permutation.
    stat : {"mean", "max", "median"}, default "mean"
        'mean' (the paper's PUMS choice, footnote 5), 'max' or 'median'.

    Returns
    -------
    float
        In (0, 1] (at least 1e-6).

    Raises
    ------
    DataError
        For bad codes, d or k.
    BudgetError
        For an unknown stat.
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
    val = float(np.mean(tvs) if stat == "mean" else np.max(tvs) if stat == "max" else np.median(tvs))
    return float(min(1.0, max(val, 1e-6)))
