"""PubMix / LinMix as the release step of the hard vote (papers/003, Alg. 1; design notes A6-A7).

Instead of "add noise to H_t, then resample", round t of Algorithm 1 draws the next
population's parents (and, in round T, the release) i.i.d. from

    P_syn,t = (1 - beta_t) H_t / n + beta_t P_nse,t,

H_t the private hard-vote histogram on C_t (a histogram of n labels: Thm 4.1's
structure under replace-one neighbours with n public), P_nse,t built from PUBLIC rows
only: PubMix water-fills the hard-vote histogram of the public rows on C_t to the
floor f_t (Def. 4.3, so min P_nse,t >= f_t); LinMix uses the uniform distribution
(Cor. 4.6, f_t = 1/m_t).  Only the draws leave the round; the mixture and H_t are
never returned or stored (the sampler forms the mixture inside the call: pubmix.pubmix_sample
on the seeded stream for study runs; pubmix.exact_mixture_sample, exact integer arithmetic on the
OS CSPRNG, for releases, :class:`PubMixExact`).

Fixed-floor schedule (mechanism 'pubmix-floor'; LinMix), fixed before the run from public quantities only
(n, the population schedule, the release size, epsilon, delta, the floor constant):
f_t = floor_c / m_t (LinMix: 1 / m_t), delta_t = delta / T, epsilon_t = s * w_t (w the
normalized budget weights, equal by default) with the largest s (bisection) such that
the PLD composition of the T rounds is <= epsilon at delta; beta_t = beta_min(epsilon_t,
delta_t, n, n_samples_t, f_t) (Thm 4.1, conservative N1 = N2 = f_t).  Each round's
dominating pair is the n_samples_t-fold 3-point pair at (beta_t, f_t) (App. C); since
(beta_t, f_t) are fixed in advance and min P_nse,t >= f_t, the PLD composition is a
valid adaptive bound (Lemma C.2 monotonicity; notes A6.3).  The run's total is that
PLD (accountant 'pld'); the exact Gaussian (mu-GDP) curve does NOT apply.

Remark 4.5 (mechanism 'pubmix', the default since issue 26): the plan fixes only (epsilon_t, delta_t), with
delta_t = delta / (2T) and epsilon_t such that the PLD composition of the T canonical (epsilon_t,
delta_t) pairs is <= epsilon at delta; each round then picks P_nse,t and beta_t from the public
vote histogram on C_t (:meth:`PubMix.round_noise`, choose_noise) so that it is (epsilon_t,
delta_t)-DP, and the row records the realized beta_t and floor.  The total composes the canonical
pairs, not the realized three-point ones, which were chosen adaptively (docs/PRIVACY.md §5).  Each
canonical pair keeps delta_t of infinite loss, so R >= 2 releases published together (a paired run) are
stated at R x delta (:func:`stated_delta`; one release at delta).

Hard votes only: BF-Soft and other soft-vote methods are refused (SOFT_VOTE_REASON).
Also refused: participation edges (add/remove changes n) and a threshold H > 0 (no
noisy histogram exists to threshold).  Hard under PubMix spends the same beta_t as
Tab-PE (a protected edge moves one label, notes A7); a round that Hard certifies
exhaustively zero releases nothing about protected secrets, but the total still composes
every round's pair (conservative; the notes' beta_t = 0 exception is not used).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from ..accounting import check_delta, check_epsilon
from ...base.errors import BlowfishError, BudgetError
from ..ledger import LedgerRow, _required
from ..pubmix import (beta_min, choose_noise, default_t_grid, exact_mixture_sample, linmix_noise, pubmix_pld,
                      pubmix_sample, water_fill)
from ...model.sensitivity import Calibration
from .pubmix_totals import delta_note, stated_delta
from .registry import MECHANISMS, register

#: why a soft-vote method is refused (the issue's wording; shown by CLI, API and the Runner page).
SOFT_VOTE_REASON = "Theorem 4.1 (papers/003) covers histograms of labels (hard votes), not soft votes"
#: PubMix floor f_t = DEFAULT_FLOOR_C / m_t (notes A9's proof of concept: c = 0.25).
DEFAULT_FLOOR_C = 0.25
#: PubMix's noise laws (issue 26): 'remark45' (mechanism 'pubmix', the default: papers/003 Remark 4.5 per
#: round from the public rows' vote histogram on C_t, canonical-pair total) and 'floor-wf' (mechanism
#: 'pubmix-floor': WF at the fixed floor DEFAULT_FLOOR_C / m_t, exact pairs fixed before the run).
REMARK45 = "remark45"
FLOOR_WF = "floor-wf"
NOISE_LAWS = (REMARK45, FLOOR_WF)
#: Remark 4.5 in the loop: the TV radius gamma of B_gamma (utility only, never privacy; papers/003 footnote 1),
#: the paper's tabular setting (Person Activity, App. I.1: gamma = 0.9), and the number of floors tried.
DEFAULT_GAMMA = 0.9
T_GRID_SIZE = 16
#: PLD discretization of the ledger (ledger.pld_epsilon's default; the plan uses the same).
DISCRETIZATION = 1e-4
#: the note every PubMix/LinMix total carries (red in the app).
PLD_NOTE = ("PubMix/LinMix rounds are (epsilon, delta)-DP sampling releases: the total is the PLD composition "
            "of their exact dominating pairs (dp-accounting); the exact Gaussian (mu-GDP) curve does not apply")
#: the note of a Remark 4.5 PubMix total (its rounds pick beta_t from public data during the run).
PLD_NOTE_ADAPTIVE = ("PubMix rounds are (epsilon, delta)-DP sampling releases whose noise law and beta_t are chosen "
                     "from public data during the run (papers/003 Remark 4.5): the total is the PLD composition of "
                     "the rounds' canonical (epsilon_t, delta_t) pairs (dp-accounting), fixed before the run; the "
                     "exact Gaussian (mu-GDP) curve does not apply")


@dataclass(frozen=True)
class SamplingPlan:
    """Per-round public parameters of a PubMix/LinMix run (all tuples of length T).

    epsilon_t, delta_t: each round's own (epsilon, delta) guarantee; beta_t: mixing
    weight; floor: f_t, the lower bound on every noise mass; n_samples: draws per round
    (m_{t+1} for t < T, the release size in round T); n: private rows (public);
    epsilon, delta: the PLD composition of the T rounds (epsilon at delta).
    adaptive: the Remark 4.5 law (REMARK45): each round picks its noise law and beta_t from public
    data at (epsilon_t, delta_t), so beta_t / floor here are only the LinMix-floor reference
    (beta_min at f = 1/m_t) and the rows carry the realized ones; the total composes the rounds'
    canonical (epsilon_t, delta_t) pairs (module docstring).
    """

    epsilon_t: tuple[float, ...]
    delta_t: tuple[float, ...]
    beta_t: tuple[float, ...]
    floor: tuple[float, ...]
    n_samples: tuple[int, ...]
    n: int
    epsilon: float
    delta: float
    adaptive: bool = False


@functools.lru_cache(maxsize=1024)
def _round_pld(eps_t: float, delta_t: float, n: int, m: int, f: float, beta: float):
    return pubmix_pld(eps_t, delta_t, n, m, f, beta=beta, value_discretization_interval=DISCRETIZATION)


#: the plan's bisection on the per-round scale s stops when hi / lo <= PLAN_RATIO: the planned PLD total is
#: then within about 0.03% below the chosen epsilon (issue 24 "One epsilon": reported within a relative 1e-3
#: of the chosen epsilon; the earlier 1.002 left up to 0.15% at epsilon = 0.1).
PLAN_RATIO = 1.0002


@functools.lru_cache(maxsize=256)
def _plan_cached(linmix: bool, floor_c: float, epsilon: float, delta: float, n: int,
                 n_samples: tuple[int, ...], sizes: tuple[int, ...], weights: tuple[float, ...],
                 exact_floor: bool = False) -> SamplingPlan:
    T = len(sizes)
    floors = tuple((exact_floor_of if exact_floor else _float_floor)(1.0 if linmix else floor_c, m) for m in sizes)
    deltas = tuple(delta / T for _ in range(T))
    w = np.asarray(weights, float) / math.fsum(weights)

    def at(s: float):
        eps_t = tuple(float(s * wi) for wi in w)
        betas = tuple(beta_min(e, d, n, m, f) for e, d, m, f in zip(eps_t, deltas, n_samples, floors))
        total = None
        for e, d, m, f, b in zip(eps_t, deltas, n_samples, floors, betas):
            p = _round_pld(e, d, n, m, f, b)
            total = p if total is None else total.compose(p)
        if total is None:
            raise BudgetError("a PubMix/LinMix plan needs at least one round (got sizes=()). Fix: give the "
                              "population size of every round")
        return eps_t, betas, float(total.get_epsilon_for_delta(delta))

    lo, hi = epsilon * 1e-3, epsilon * T * 4.0  # s = the basic-composition total of the epsilon_t
    best = at(lo)
    if best[2] > epsilon:
        raise BudgetError(f"epsilon = {epsilon:g} at delta = {delta:g} is too small for {T} PubMix rounds "
                          "(even a tiny per-round epsilon exceeds it). Fix: raise epsilon or use fewer rounds")
    top = at(hi)
    if top[2] <= epsilon:
        best, lo = top, hi
    while hi / lo > PLAN_RATIO:
        mid = math.sqrt(lo * hi)
        cand = at(mid)
        if cand[2] <= epsilon:
            lo, best = mid, cand
        else:
            hi = mid
    eps_t, betas, tot = best
    return SamplingPlan(eps_t, deltas, betas, floors, tuple(n_samples), n, tot, delta)


@functools.lru_cache(maxsize=1024)
def _canonical_pld(eps_t: float, delta_t: float):
    """The canonical (epsilon_t, delta_t) pair's PLD: dominates every (epsilon_t, delta_t)-DP mechanism."""
    from dp_accounting.pld import privacy_loss_distribution as pld_mod  # lazy, as pubmix_pld

    return pld_mod.from_privacy_parameters(_dp_params(eps_t, delta_t), value_discretization_interval=DISCRETIZATION)


@functools.lru_cache(maxsize=256)
def _plan_adaptive_cached(epsilon: float, delta: float, n: int, n_samples: tuple[int, ...], sizes: tuple[int, ...],
                          weights: tuple[float, ...], exact_floor: bool = False) -> SamplingPlan:
    """Remark 4.5's plan: delta_t = delta / (2T), epsilon_t = s w_t with the largest s (bisection) such that
    the PLD composition of the T canonical (epsilon_t, delta_t) pairs is <= epsilon at delta."""
    T = len(sizes)
    if T == 0:
        raise BudgetError("a PubMix/LinMix plan needs at least one round (got sizes=()). Fix: give the "
                          "population size of every round")
    deltas = tuple(delta / (2 * T) for _ in range(T))
    w = np.asarray(weights, float) / math.fsum(weights)

    def at(s: float):
        eps_t = tuple(float(s * wi) for wi in w)
        total = None
        for e, d in zip(eps_t, deltas):
            p = _canonical_pld(e, d)
            total = p if total is None else total.compose(p)
        assert total is not None  # T >= 1 (checked above)
        return eps_t, float(total.get_epsilon_for_delta(delta))

    lo, hi = epsilon * 1e-3, epsilon * T * 4.0
    best = at(lo)
    if best[1] > epsilon:
        raise BudgetError(f"epsilon = {epsilon:g} at delta = {delta:g} is too small for {T} PubMix rounds "
                          "(even a tiny per-round epsilon exceeds it). Fix: raise epsilon or use fewer rounds")
    top = at(hi)
    if top[1] <= epsilon:
        best, lo = top, hi
    while hi / lo > PLAN_RATIO:
        mid = math.sqrt(lo * hi)
        cand = at(mid)
        if cand[1] <= epsilon:
            lo, best = mid, cand
        else:
            hi = mid
    eps_t, tot = best
    floors = tuple((exact_floor_of if exact_floor else _float_floor)(1.0, m) for m in sizes)
    betas = tuple(beta_min(e, d, n, m, f) for e, d, m, f in zip(eps_t, deltas, n_samples, floors))
    return SamplingPlan(eps_t, deltas, betas, floors, tuple(n_samples), n, tot, delta, adaptive=True)


def _sampling_params(row: LedgerRow) -> tuple[float, float, int, int, float, float]:
    """A sampling row's (epsilon_t, delta_dp_t, n_private, n_samples, floor, beta_t), as stored;
    BudgetError when the row lacks one (it was not written by :meth:`PubMix.row`)."""
    return (_required(row, "epsilon_t", row.epsilon_t), _required(row, "delta_dp_t", row.delta_dp_t),
            _required(row, "n_private", row.n_private), _required(row, "n_samples", row.n_samples),
            _required(row, "floor", row.floor), _required(row, "beta_t", row.beta_t))


def _float_floor(c: float, m: int) -> float:
    """The study plan's floor c / m (float division, as seeded runs have always used)."""
    return c / m


def exact_floor_of(c: float, m: int) -> float:
    """The release plan's floor: c / m rounded DOWN so that m * floor <= c in exact arithmetic.

    c / m in floating point is rounded to nearest, so for about half of all m (e.g. m = 5)
    m * fl(1/m) > 1: no distribution over m bins has every mass >= fl(1/m), and LinMix's uniform
    noise would sit one ulp below the floor its beta was computed for.  The release plan uses the
    largest float f with m f <= c exactly (one ``nextafter`` step at most); beta_min is decreasing in
    the floor, so this only raises beta (by ~1e-16 relative).  papers/003 Thm 4.1, Cor. 4.6.

    Parameters
    ----------
    c : float
        The floor constant (``floor_c``; 1 for LinMix).
    m : int
        Number of bins m_t.

    Returns
    -------
    float
        The largest float f with ``m * f <= c`` exactly.
    """
    f = c / m
    if Fraction(f) * m > Fraction(c):
        f = math.nextafter(f, 0.0)
    return f


class SamplingMechanism(Protocol):
    """What Algorithm 1 calls on a sampling release step (a Mechanism with ``samples = True``):
    :meth:`PubMix.plan`, :meth:`PubMix.noise_distribution` and :meth:`PubMix.draw`."""

    def plan(self, epsilon: float, delta: float, n: int, sizes: Sequence[int], release: int,
             weights: Sequence[float] | None = None) -> SamplingPlan: ...

    def noise_distribution(self, p_public: np.ndarray | None, floor: float, m: int) -> np.ndarray: ...

    def round_noise(self, p_public: np.ndarray | None, plan: SamplingPlan, i: int, m: int
                    ) -> tuple[np.ndarray, float, float]: ...

    def draw(self, hist: np.ndarray, n: int, p_noise: np.ndarray, beta: float, n_samples: int, floor: float,
             rng: np.random.Generator) -> np.ndarray: ...


@dataclass(frozen=True)
class PubMix:
    """The PubMix (or, with linmix=True, LinMix) sampling release step (module docstring)."""

    name: str = "pubmix"
    linmix: bool = False
    floor_c: float = DEFAULT_FLOOR_C
    #: the noise law (NOISE_LAWS; LinMix's is uniform whatever this says): 'remark45' (default) or 'floor-wf'.
    noise_law: str = REMARK45
    #: Remark 4.5's TV radius gamma (utility only).
    gamma: float = DEFAULT_GAMMA
    norm: str = "l1"
    budget_name: str = "epsilon"
    #: a sampling release step (evolution draws from the mixture instead of adding noise).
    samples: bool = True
    #: the sampler that draws the mixture: 'numpy' (pubmix_sample on the round's seeded stream; study
    #: runs) or 'exact' (:class:`PubMixExact`: integer arithmetic from the OS CSPRNG; releases).
    sampler: str = "numpy"
    #: the floating-point-safe sampler releases use (release_gate.release_sampler reads it).
    release_sampler: ClassVar[str] = "exact"

    #: scale_name: the per-round mixture weight's symbol; accountant: of a PubMix/LinMix ledger.
    scale_name: ClassVar[str] = "beta"
    accountant: ClassVar[str] = "pld"

    def __post_init__(self) -> None:
        check_noise_law(self.noise_law)

    @property
    def label(self) -> str:
        return "LinMix" if self.linmix else ("PubMix" if self.noise_law == REMARK45 else "PubMix-floor")

    @property
    def law_words(self) -> str:
        """How P_nse,t (and beta_t) are made, in words (the Runner's help)."""
        if self.linmix:
            return "P_nse uniform (no public rows)"
        if self.noise_law == REMARK45:
            return ("P_nse and beta per round from the public pilot rows by Remark 4.5 (MIFR or water-filling at an "
                    "optimised floor)")
        return f"P_nse = the public pilot rows' histogram water-filled to the fixed floor {self.floor_c:g}/m_t"

    @property
    def adaptive(self) -> bool:
        """Remark 4.5's law: the round picks its noise and beta_t from public data (canonical-pair total)."""
        return not self.linmix and self.noise_law == REMARK45

    @property
    def needs_public(self) -> bool:
        """PubMix mixes a public histogram in; LinMix's noise is uniform (no public rows)."""
        return not self.linmix

    # --- Mechanism protocol
    def split(self, budget: float, rounds: int, weights: Sequence[float] | None = None, *,
              checked: bool = False) -> np.ndarray:
        """Validation only (BudgetError for a bad epsilon); the run's per-round epsilon_t come from :meth:`plan`."""
        eps = budget if checked else check_epsilon(budget)  # checked: by RunSpec.build / parsing.parse_budget
        w = np.ones(rounds) if weights is None else np.asarray(weights, float)
        if w.shape != (rounds,) or not np.isfinite(w).all() or (w <= 0).any():
            raise BudgetError(f"budget weights must be {rounds} finite numbers > 0 (got {weights!r})")
        return eps * w / w.sum()

    def scale(self, sensitivity: float, budget_t: float, *, checked: bool = False) -> float:
        raise BlowfishError(f"{self.label} has no noise scale: it samples (use plan())")

    def noise(self, scale: float, shape: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        raise BlowfishError(f"{self.label} adds no noise: it samples (use draw())")

    def release(self, hist: np.ndarray, scale: float, rng: np.random.Generator,
                integer: bool = False) -> np.ndarray:
        raise BlowfishError(f"{self.label} releases no noisy histogram: it samples (use draw())")

    def row(self, t: int, candidates: int, cal: Calibration, plan: SamplingPlan, beta: float | None = None,
            floor: float | None = None, **extra: Any) -> LedgerRow:
        """Round t's row; ``beta`` / ``floor``: the round's realized values (Remark 4.5), else the plan's."""
        i = t - 1
        b = float(plan.beta_t[i] if beta is None else beta)
        f = float(plan.floor[i] if floor is None else floor)
        return LedgerRow(t, candidates, self.name, float(cal.sensitivity), self.norm, b, cal.how,
                         epsilon_t=float(plan.epsilon_t[i]), delta_dp_t=float(plan.delta_t[i]),
                         witness=cal.witness, beta_t=b, floor=f,
                         n_samples=int(plan.n_samples[i]), n_private=int(plan.n), **extra)

    def totals(self, rows: Sequence[LedgerRow], delta: float, epsilon: float | None = None, *,
               checked: bool = False) -> dict[str, Any]:
        """PLD composition of EVERY row's dominating pair (the plan's; no round is discounted, so a paired
        run's total does not depend on which method comes first); accountant 'pld'.

        Remark 4.5 rows (``adaptive``) of R >= 2 releases (rows with t = 1; a paired run's methods x seeds)
        keep a total infinite-loss mass of about sum(delta_t) = R delta / 2 >= delta in their canonical pairs:
        epsilon at delta is infinite (R >= 3) or without slack (R = 2: 1 - (1 - delta_t)^(2T) is just below
        delta, and epsilon is about the sum of every epsilon_t).  Their total is stated at
        :func:`stated_delta` (R x delta), with ``delta_requested`` and the words ``delta_note``
        (docs/PRIVACY.md §5).  A single release is stated at delta."""
        from dp_accounting.pld import privacy_loss_distribution as pld_mod

        d = delta if checked else check_delta(delta)  # checked: a checked run's delta (RunSpec.build)
        total = None
        for r in rows:
            p = self.pld(r, pld_mod, DISCRETIZATION)
            total = p if total is None else total.compose(p)
        if total is None:
            raise ValueError("the ledger is empty")
        params = [_sampling_params(r) for r in rows]
        eps, stated, why = float(total.get_epsilon_for_delta(d)), d, {}
        releases = sum(1 for r in rows if r.t == 1)  # each release's rounds start at t = 1
        if self.adaptive and (releases >= 2 or math.isinf(eps)):
            stated = stated_delta(d, [dt for _, dt, _, _, _, _ in params])
            if stated > d:
                why = {"delta_requested": d, "delta_note": delta_note(d, stated, eps)}
                eps = float(total.get_epsilon_for_delta(stated))
        return {"epsilon": eps, "delta": stated, **why, "rounds": len(rows),
                "epsilon_target": None if epsilon is None else float(epsilon),
                "epsilon_per_round": [float(e) for e, _, _, _, _, _ in params],
                "delta_per_round": [float(dt) for _, dt, _, _, _, _ in params],
                "beta_per_round": [float(b) for _, _, _, _, _, b in params],
                "floor_per_round": [float(f) for _, _, _, _, f, _ in params],
                "n_samples_per_round": [int(m) for _, _, _, m, _, _ in params],
                "mechanisms": [self.name], "notion": "approximate", "accountant": "pld",
                "epsilon_exact_applicable": False, "note": PLD_NOTE_ADAPTIVE if self.adaptive else PLD_NOTE}

    def pld(self, row: LedgerRow, pld: Any, discretization: float) -> Any:
        """The row's PLD: pubmix_pld at (beta_t, floor, n, n_samples) (the n_samples-fold 3-point pair,
        fixed before the run); for Remark 4.5 (``adaptive``: beta_t and the floor were picked during the run)
        the canonical (epsilon_t, delta_t) pair, which the plan fixed and which dominates the round."""
        epsilon_t, delta_t, n, n_samples, floor, beta = _sampling_params(row)
        if self.adaptive:
            return pld.from_privacy_parameters(_dp_params(epsilon_t, delta_t),
                                               value_discretization_interval=discretization)
        return pubmix_pld(epsilon_t, delta_t, n, n_samples, floor, beta=beta,
                          value_discretization_interval=discretization)

    # --- sampling release step
    def plan(self, epsilon: float, delta: float, n: int, sizes: Sequence[int], release: int,
             weights: Sequence[float] | None = None) -> SamplingPlan:
        """The run's public schedule (module docstring), cached.  sizes: m_t (T,); release: draws of round T.

        Raises BudgetError for a bad epsilon/delta/weights or a budget too small for T rounds.
        """
        eps = check_epsilon(epsilon)
        dl = check_delta(delta)
        T = len(sizes)
        w = tuple(float(x) for x in self.split(1.0, T, weights))
        n_samples = tuple(int(v) for v in list(sizes[1:]) + [int(release)])
        if self.adaptive:
            return _plan_adaptive_cached(eps, dl, int(n), n_samples, tuple(int(v) for v in sizes), w,
                                         self.sampler == "exact")
        return _plan_cached(self.linmix, float(self.floor_c), eps, dl, int(n), n_samples,
                            tuple(int(v) for v in sizes), w, self.sampler == "exact")

    def noise_distribution(self, p_public: np.ndarray | None, floor: float, m: int) -> np.ndarray:
        """P_nse,t over m bins from PUBLIC data only: WF(p_public, floor) (PubMix) or uniform (LinMix)."""
        if self.linmix:
            return linmix_noise(m)
        if p_public is None:
            raise BlowfishError("PubMix needs the public rows' hard-vote histogram")
        return water_fill(p_public, floor)

    def round_noise(self, p_public: np.ndarray | None, plan: SamplingPlan, i: int, m: int
                    ) -> tuple[np.ndarray, float, float]:
        """Round i+1's (P_nse, beta_t, floor) from PUBLIC data and the plan only.

        floor-wf / LinMix: (:meth:`noise_distribution` at the plan's floor, the plan's beta_t and floor).
        Remark 4.5: :func:`~blowfish_core.privacy.pubmix.choose_noise` on the public vote histogram at the
        plan's (epsilon_t, delta_t), gamma = :attr:`gamma`, T_GRID_SIZE floors; beta_t = beta_min(N*, N*)
        at N* = min P_nse (the floor recorded), so the round is (epsilon_t, delta_t)-DP (Thm 4.1).
        """
        if not self.adaptive:
            return self.noise_distribution(p_public, plan.floor[i], m), float(plan.beta_t[i]), float(plan.floor[i])
        if p_public is None:
            raise BlowfishError("PubMix needs the public rows' hard-vote histogram")
        ch = choose_noise(p_public, self.gamma, plan.epsilon_t[i], plan.delta_t[i], plan.n, plan.n_samples[i],
                          t_grid=default_t_grid(m, T_GRID_SIZE).tolist())
        return ch.p_noise, float(ch.beta), float(ch.p_noise.min())

    def draw(self, hist: np.ndarray, n: int, p_noise: np.ndarray, beta: float, n_samples: int, floor: float,
             rng: np.random.Generator) -> np.ndarray:
        """The round's draws: int64 (n_samples,) bin indices from (1 - beta) hist / n + beta p_noise.

        hist: (m,) the private hard-vote histogram (counts of n records); p_noise: (m,) public;
        floor: the plan's floor (min p_noise >= floor).  Study sampler: :func:`pubmix_sample` on
        the round's seeded stream ``rng`` (numpy's inverse CDF; seeded runs are for study only).
        """
        return pubmix_sample(hist / n, p_noise, beta, n_samples, rng)


@dataclass(frozen=True)
class PubMixExact(PubMix):
    """PubMix / LinMix with the exact release sampler (issue 21; papers/003 Thm 4.1).

    Same name, ledger rows and accounting as :class:`PubMix`; the plan's floors are rounded down
    to be exact (:func:`exact_floor_of`), and the draws come from
    :func:`blowfish_core.privacy.pubmix.exact_mixture_sample`: integer arithmetic on the hard-vote
    counts, the exact rationals of beta and P_nse, and uniform integers from the OS CSPRNG (the
    round's ``rng`` is not used).  ``get_mechanism('pubmix', sampler='opendp')`` (what release
    streams ask for) returns it.
    """

    sampler: str = "exact"

    def draw(self, hist: np.ndarray, n: int, p_noise: np.ndarray, beta: float, n_samples: int, floor: float,
             rng: Any = None) -> np.ndarray:
        """Exact draws (see the class docstring); ``rng`` is ignored.  Raises BlowfishError when
        ``hist`` is not a histogram of whole counts summing to n (a hard vote's)."""
        h = np.asarray(hist)
        counts = np.rint(h).astype(np.int64)
        if (counts != h).any() or int(counts.sum()) != int(n):
            raise BlowfishError(f"{self.label}'s exact sampler needs the hard vote's whole counts summing to n = "
                                f"{int(n):,} (got a histogram summing to {float(h.sum()):.17g})")
        return exact_mixture_sample(counts, p_noise, beta, n_samples, floor=floor)


def _dp_params(epsilon_t: float, delta_t: float) -> Any:
    from dp_accounting.pld import common

    return common.DifferentialPrivacyParameters(epsilon_t, delta_t)


def check_noise_law(value: Any, field: str = "noise_law") -> str:
    """A PubMix noise law name (issue 26), checked.

    Parameters
    ----------
    value : object
        The noise law: one of NOISE_LAWS ('remark45', 'floor-wf').
    field : str, default "noise_law"
        Its name in the message.

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    BlowfishError
        Naming ``field``, the choices and the mechanism name of each.
    """
    if value not in NOISE_LAWS:
        raise BlowfishError(f"{field} must be one of {', '.join(NOISE_LAWS)} (got {value!r}). Fix: use "
                            f"{REMARK45} (papers/003 Remark 4.5 per round: noise pubmix, the default) or "
                            f"{FLOOR_WF} (water-filling at the fixed floor {DEFAULT_FLOOR_C:g}/m_t: noise pubmix-floor)")
    return str(value)


def check_sampling(mech: Any, method: Any, policy: Any, threshold_h: float, has_public: bool,
                   public_flag: str = "--public CSV, or public= in the API") -> None:
    """Refuse settings a sampling release step does not cover (BlowfishError naming the reason).

    Parameters
    ----------
    mech : Mechanism
        The run's mechanism; nothing is checked unless ``mech.samples``.
    method : Method
        Its vote class is read from the method table.
    policy : Policy
        The run's policy (participation edges are refused).
    threshold_h : float
        The config's H (must be 0).
    has_public : bool
        Public rows were given (PubMix only).
    public_flag : str, default "--public CSV, or public= in the API"
        How the front end names the public rows, for the message.

    Raises
    ------
    BlowfishError
        If the method's vote is not one of whole counts (or the method does not
        run with this mechanism), the policy has participation edges, H > 0, or
        PubMix has no public rows.
    """
    if not mech.samples:
        return
    ok, why = supports(mech, method)
    if not ok:
        raise BlowfishError(f"noise {mech.name} cannot run {method.label} ({method.name}): {why}. "
                            "Fix: use a hard-vote method (tab-pe, hard) or noise gaussian")
    if policy.participation:
        raise BlowfishError(f"noise {mech.name} needs replace-one neighbours with n public; participation edges "
                            "(add/remove a record) change n. Fix: drop participation edges or use noise gaussian")
    if threshold_h > 0:
        raise BlowfishError(f"the threshold H does not apply to noise {mech.name} (no noisy histogram is formed). "
                            "Fix: set threshold H = 0")
    if mech.needs_public and not has_public:
        raise BlowfishError(f"noise {mech.name} needs public rows from the same domain ({public_flag}): the "
                            "preset's pilot split, or a public CSV disjoint from the private rows")


def supports(mech: Any, method: Any) -> tuple[bool, str]:
    """Whether the release step can run ``method``.

    The sampling steps need a vote of whole counts, the vote class's declared ``whole_counts``.

    Parameters
    ----------
    mech : Mechanism
        The mechanism; an additive one (``samples = False``) runs every method.
    method : Method
        The method (its ``vote`` class and, if declared, its ``mechanisms``).

    Returns
    -------
    tuple of (bool, str)
        (True, '') when it can; else (False, the reason).
    """
    if not mech.samples:
        return True, ""
    if getattr(method, "mechanisms", None) is not None and mech.name not in method.mechanisms:
        only = " or ".join(str(getattr(MECHANISMS.get(m), "label", m)) for m in method.mechanisms)
        return False, f"a marginal-based method (not Algorithm 1): it runs only with the {only} mechanism"
    if method.vote is None or not method.vote.whole_counts:
        return False, SOFT_VOTE_REASON
    return True, ""


register(PubMix(), release=PubMixExact())
register(PubMix("linmix", linmix=True), release=PubMixExact("linmix", linmix=True))
register(PubMix("pubmix-floor", noise_law=FLOOR_WF), release=PubMixExact("pubmix-floor", noise_law=FLOOR_WF))
