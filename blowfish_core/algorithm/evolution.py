"""Algorithm 1 (evolutionary DP synthesis) with Tab-PE-style ResampleMutate.

Paper Algorithm 1, §4, App. B, App. F.2; DESIGN §3 "ResampleMutate".

Per round t = 1..T on population C_t (m_t candidates):
  1. vote histogram H_t = sum_x v(x)   (hard one-hot or soft softmax, Eq. (2));
  2. Delta_t from the method's calibrator (methods.METHODS -> calibration.calibrate_round),
     in the mechanism's norm;
  3. noisy histogram H~_t = H_t + noise from the mechanism (mechanisms/: Gaussian
     sigma_t^2 = Delta_t^2 / (2 rho_t), or Laplace b_t = Delta1_t / epsilon_t), one ledger row;
  4. post-processing only: entries below the public threshold H are zeroed and
     negative entries clipped (App. B); C_{t+1} = ResampleMutate(H~_t, C_t).
After round T the release (``release`` records) is taken from C_T by post-processing of the
round-T noisy counts, unmutated: release_mode 'top' (default) = the ``release`` candidates
with the largest counts (each candidate of C_T once); 'top-distinct' = the same with equal
records counted once; 'sample' = drawn proportionally to the clipped counts.

Sampling release steps (mechanism ``pubmix`` / ``linmix``, papers/003; hard votes
only): steps 3-4 become "draw n_samples_t i.i.d. bin indices from
(1 - beta_t) H_t/n + beta_t P_nse,t" (P_nse,t from the public rows' hard-vote
histogram on C_t, mechanisms/pubmix.py), with n_samples_t = m_{t+1} (t < T) or the
release size (t = T), and (beta_t, f_t) fixed before the run (PubMix.plan).  "sample"
selection uses the draws as the parents; "rank" selection ranks by the counts among
the draws (post-processing); the release is made from the round-T draws: release_mode
'sample' = the draws themselves, 'top' (default) = the candidates with the most
draws ('top-distinct': equal records once).  The mixture and H_t are never stored.

Default schedule ("hybrid", the paper's setting read as the reference library does,
DESIGN §3; the named schedules are in :data:`SCHEDULES`): 8 rounds, 512 candidates in
rounds 1-3 and 1024 in rounds 4-8.  Populations of rounds <= ``switch_round`` are
produced by "sample" selection (parents drawn proportionally to the clipped counts,
one mutated child each, parents not kept); later ones by "rank" selection (the top
m/(1+children) parents kept plus ``children`` mutated children each; children = 1 by
default, so at the paper's sizes the top 512 = ``release`` parents are kept plus one
child each); the release is the 512 candidates with the largest final noisy
counts.  Ranking uses the clipped counts (``rank_by='clipped'``) or the raw noisy
counts (``'raw'``, as the reference library).  The previous reading (top m/4 kept with
3 children, release drawn proportionally) is the named schedule ``hybrid-256x3``.
If every clipped count is zero, parents are drawn uniformly (documented fallback).
Mutation (rate_t = a - (a - b) (t/T)^0.2, a=0.5, b=0.01; round t mutates at rate_t,
or at rate_{t-1} with ``mutation_index='t-1'``, as the reference library): numeric and ordinal
values move by a uniform step in [-rate, rate] x (domain width), rounded to the
grid and clipped; categorical/binary/hierarchical values are redrawn uniformly
with probability rate.

Paired random streams: every random draw comes from a generator seeded by
(seed, purpose, round), so the same seed gives every method the same initial
population, the same standard-normal noise vector per round, and the same
mutation draws; selection uses the same uniforms (different probabilities).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, cast

import numpy as np

from ..model.calibration import RoundInputs, calibrate_round
from ..model.distance import GowerKernel, domain_index, group_records
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError, BudgetError
from ..privacy.ledger import LedgerRow
from ..privacy.mechanisms import Mechanism, budget_of, get_mechanism
from .events import RoundEvent
from .methods import Method, _calibrated, get_method
from ..model.policy import Policy, record_reach
from ..model.schema import Schema
from ..model.sensitivity import DEFAULT_MAX_EDGES
from ..model.votes import vote_histogram
from .streams import (  # noqa: F401  (re-exported: the random streams live in streams.py)
    _INIT, _MUTATE, _NO_SEED, _NOISE, _RELEASE, _SELECT, RANDOMNESS, SEEDED_NOTE, OsEntropyStreams,
    SeededStreams, make_streams, rng_for,
)

SELECTIONS = ("hybrid", "sample", "rank")
RELEASE_MODES = ("top", "top-distinct", "sample")
RANK_BY = ("clipped", "raw")
MUTATION_INDEX = ("t", "t-1")

#: the named schedules (DESIGN §3), the ONE place their settings live.  "hybrid" (the
#: default): the reference library's reading -- rank rounds keep the top m/2 (= release at
#: the paper's sizes) parents with one child each, release = the top final counts.
#: "hybrid-256x3": the earlier reading (top m/4 kept, 3 children each, release drawn
#: proportionally to the clipped counts), kept for comparison.
SCHEDULES: dict[str, dict[str, Any]] = {
    "hybrid": {"selection": "hybrid", "switch_round": 3, "children": 1, "release_mode": "top",
               "rank_by": "clipped", "mutation_index": "t"},
}
SCHEDULES["hybrid-256x3"] = {**SCHEDULES["hybrid"], "children": 3, "release_mode": "sample"}
_DEFAULT = SCHEDULES["hybrid"]


class RunStopped(BlowfishError):
    """The run was stopped by the caller (``should_stop`` returned True)."""


@dataclass(frozen=True)
class SynthConfig:
    """Settings of one synthesis run (defaults = the paper's setting, App. F.2).

    rounds: T >= 1.  population: m_t per round (length T); None -> 512 for rounds
    1-3 and 1024 after (scaled down when T < 4).  release: records released (>= 1).
    threshold_h: public count threshold H (App. B), >= 0.  selection: 'hybrid',
    'sample' or 'rank'.  switch_round: hybrid switches to rank for populations of
    rounds > switch_round.  children: mutated children per kept parent in rank mode
    (default 1: the top m/(1+children) = m/2 kept, i.e. 512 = release at the paper's sizes).
    release_mode: 'top' (default: the ``release`` candidates of C_T with the largest final
    noisy counts, unmutated, each candidate once; when m_T < release they repeat in rank order),
    'top-distinct' (the same, equal records counted once: the distinct records in rank order)
    or 'sample' (drawn proportionally to the last clipped noisy counts).
    rank_by: what rank selection and the 'top' release rank by: 'clipped' (default: the
    H-thresholded, clipped counts) or 'raw' (the unclipped noisy counts, as the reference
    library).  mutation_index: 't' (default: round t mutates at rate_t) or 't-1' (at rate_{t-1},
    as the reference library).  mutation_start/end: a and b of the decaying mutation rate.
    max_edges: exhaustive limit of Hard's certification.  budget_weights: per-round rho split
    (None = equal).  Named schedules: :meth:`from_schedule` (:data:`SCHEDULES`).
    """

    rounds: int = 8
    population: list[int] | None = None
    release: int = 512
    release_mode: str = _DEFAULT["release_mode"]
    threshold_h: float = 0.0
    selection: str = _DEFAULT["selection"]
    switch_round: int = _DEFAULT["switch_round"]
    children: int = _DEFAULT["children"]
    rank_by: str = _DEFAULT["rank_by"]
    mutation_index: str = _DEFAULT["mutation_index"]
    mutation_start: float = 0.5
    mutation_end: float = 0.01
    max_edges: float = DEFAULT_MAX_EDGES
    budget_weights: list[float] | None = None

    @classmethod
    def from_schedule(cls, name: str = "hybrid", **overrides: Any) -> "SynthConfig":
        """The named schedule ``name`` with ``overrides`` on top.  Not validated (call .validate()).

        Parameters
        ----------
        name : str, optional
            A key of :data:`SCHEDULES` (default 'hybrid', DESIGN §3).
        **overrides
            Any SynthConfig field; None values are ignored, so unset CLI flags keep the schedule's.

        Returns
        -------
        SynthConfig
            The schedule's settings with the overrides.

        Raises
        ------
        BlowfishError
            Naming ``schedule`` for an unknown name, or the field for an unknown override.
        """
        if name not in SCHEDULES:
            raise BlowfishError(f"schedule must be one of {', '.join(SCHEDULES)} (got {name!r})")
        fields = set(cls.__dataclass_fields__)
        bad = sorted(set(overrides) - fields)
        if bad:
            raise BlowfishError(f"unknown schedule setting {bad[0]!r}. Fix: use one of {', '.join(sorted(fields))}")
        kw = {**SCHEDULES[name], **{k: v for k, v in overrides.items() if v is not None}}
        return cls(**kw)

    def sizes(self) -> list[int]:
        """m_t per round: ``population``, or the paper's 512 up to ``switch_round`` and 1024 after.

        Returns
        -------
        list of int
            One population size per round.
        """
        if self.population is not None:
            return [int(v) for v in self.population]
        return [512 if t <= self.switch_round else 1024 for t in range(1, self.rounds + 1)]

    def validate(self) -> "SynthConfig":
        """Raise BlowfishError naming the field for an invalid setting.

        Returns
        -------
        SynthConfig
            ``self``, checked.

        Raises
        ------
        BlowfishError
            Naming the field for an invalid setting (BudgetError for the rounds).
        """
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, (int, np.integer)) or self.rounds < 1:
            raise BudgetError(f"rounds must be a whole number >= 1 (got {self.rounds!r})")
        if self.rounds > 200:
            raise BudgetError(f"rounds must be <= 200 (got {self.rounds})")
        sizes = self.sizes()
        if len(sizes) != self.rounds:
            raise BlowfishError(
                f"population schedule has {len(sizes)} entries but rounds = {self.rounds}. "
                "Fix: give one candidate count per round"
            )
        if any(s < 1 or s > 200_000 for s in sizes):
            raise BlowfishError(f"population sizes must be between 1 and 200000 (got {sizes})")
        if isinstance(self.release, bool) or not isinstance(self.release, (int, np.integer)) or self.release < 1:
            raise BlowfishError(f"release size must be a whole number >= 1 (got {self.release!r})")
        if self.release > 10_000_000:
            raise BlowfishError(f"release size must be <= 10,000,000 (got {self.release})")
        if not math.isfinite(self.threshold_h) or self.threshold_h < 0:
            raise BlowfishError(f"threshold H must be a finite number >= 0 (got {self.threshold_h})")
        if self.release_mode not in RELEASE_MODES:
            raise BlowfishError(f"release mode must be one of {', '.join(RELEASE_MODES)} (got {self.release_mode!r})")
        if self.rank_by not in RANK_BY:
            raise BlowfishError(f"rank_by must be 'clipped' or 'raw' (got {self.rank_by!r})")
        if self.mutation_index not in MUTATION_INDEX:
            raise BlowfishError(f"mutation_index must be 't' or 't-1' (got {self.mutation_index!r})")
        if self.selection not in SELECTIONS:
            raise BlowfishError(f"selection must be one of {', '.join(SELECTIONS)} (got {self.selection!r})")
        if isinstance(self.children, bool) or not isinstance(self.children, (int, np.integer)) or self.children < 1:
            raise BlowfishError(f"children per parent must be a whole number >= 1 (got {self.children!r})")
        if not (0 <= self.mutation_end <= self.mutation_start <= 1):
            raise BlowfishError("mutation rates must satisfy 0 <= end <= start <= 1")
        return self


#: the per-round ledger entry (DESIGN §7); see blowfish_core.privacy.ledger.LedgerRow.
RoundRecord = LedgerRow


@dataclass
class SynthResult:
    """One run: the released records (encoded (release, p)) and the per-round ledger.

    sampler: reference methods only (experiment.run_method, runner 'baseline'): ``sampler(n, rng)``
    draws n more encoded records from the fitted model (post-processing); None for Algorithm 1,
    whose further samples come from final_population / final_weights (clipped counts) and
    final_scores (what the 'top' release ranks by: config.rank_by's counts).
    """

    method: str
    seed: int | None
    release: np.ndarray
    rounds: list[LedgerRow]
    seconds: float
    round_seconds: list[float]
    populations: list[np.ndarray] | None = None
    final_population: np.ndarray | None = None
    final_weights: np.ndarray | None = None
    final_scores: np.ndarray | None = None
    sampler: Callable[[int, np.random.Generator], np.ndarray] | None = None
    #: the soft vote's arithmetic as used (votes.SoftVote.precision_used): 'float32', 'float64', or
    #: 'float32 in round(s) ..; float64 in round(s) ..' when it changed; None without a soft vote.
    vote_precision: str | None = None
    #: the sampler that drew the noise ('numpy' for study runs; 'opendp' / 'exact' for releases) and
    #: the randomness text of the run's streams (release_gate.publish checks both; issue 21).
    noise_sampler: str | None = None
    randomness: str | None = None

    @property
    def sampler_used(self) -> str | None:
        """The noise sampler as release.release_synthesis reads it (= noise_sampler)."""
        return self.noise_sampler


def vote_precision_text(per_round: list[str]) -> str | None:
    """One text for the per-round precisions.

    Parameters
    ----------
    per_round : list of str
        The soft vote's precision of every round ('float32' or 'float64').

    Returns
    -------
    str or None
        The precision when every round used it, else which rounds used which
        ('float32 in round(s) 1, 2; float64 in round(s) 3'); None for no round.
    """
    if not per_round:
        return None
    kinds = sorted(set(per_round), key=per_round.index)
    if len(kinds) == 1:
        return kinds[0]
    return "; ".join(f"{k} in round(s) {', '.join(str(t) for t, p in enumerate(per_round, 1) if p == k)}"
                     for k in kinds)


def mutation_rate(t: int, T: int, a: float = 0.5, b: float = 0.01) -> float:
    """rate_t = a - (a - b) (t/T)^0.2 (DESIGN §3).

    Parameters
    ----------
    t : int
        Round, in [0, T] (rate_0 = a).
    T : int
        Number of rounds.
    a : float, default 0.5
        Starting rate.
    b : float, default 0.01
        Final rate (at t = T).

    Returns
    -------
    float
        The mutation rate, in [b, a].
    """
    return a - (a - b) * (t / T) ** 0.2


def round_mutation_rate(t: int, cfg: SynthConfig) -> float:
    """The rate round t (1..T-1) mutates its parents at.

    rate_t (mutation_index 't') or rate_{t-1} ('t-1', the reference library's indexing).

    Parameters
    ----------
    t : int
        Round, 1..T-1.
    cfg : SynthConfig
        The run's settings (rounds, mutation_index, mutation_start/end).

    Returns
    -------
    float
        The mutation rate.
    """
    i = t if cfg.mutation_index == "t" else t - 1
    return mutation_rate(i, cfg.rounds, cfg.mutation_start, cfg.mutation_end)


def mutate(schema: Schema, parents: np.ndarray, rate: float, rng: np.random.Generator) -> np.ndarray:
    """Tab-PE-style mutation of encoded parents (k, p) -> children (k, p).

    Draws for every attribute regardless of its type so streams stay paired; each
    attribute applies its own step (Attribute.mutate, blowfish_core.model.domain).

    Parameters
    ----------
    schema : Schema
        The public schema.
    parents : (k, p) float ndarray
        Encoded parents.
    rate : float
        Mutation rate, in [0, 1].
    rng : numpy.random.Generator
        The round's mutation stream.

    Returns
    -------
    (k, p) float ndarray
        The encoded children.
    """
    k, p = parents.shape
    out = parents.copy()
    steps = rng.uniform(-1.0, 1.0, size=(k, p)) * rate
    redraw = rng.random(size=(k, p)) < rate
    picks = rng.random(size=(k, p))
    for i, a in enumerate(schema.attributes):
        out[:, i] = a.mutate(out[:, i], steps[:, i], redraw[:, i], picks[:, i])
    return out


def _weights(noisy: np.ndarray, H: float) -> np.ndarray:
    w = np.where(noisy >= H, noisy, 0.0)
    return np.maximum(w, 0.0)


def rank_order(w: np.ndarray, scores: np.ndarray | None = None) -> np.ndarray:
    """Candidate indices from the highest count down (stable: ties keep index order).

    Parameters
    ----------
    w : (m,) float ndarray
        Clipped counts.
    scores : (m,) float ndarray, optional
        What to rank by instead (the raw noisy counts for rank_by='raw'); None
        ranks by w (as w / sum(w), which is the same order).

    Returns
    -------
    (m,) int ndarray
        Candidate indices, best first.
    """
    if scores is not None:
        return np.argsort(-scores, kind="stable")
    total = w.sum()
    prob = w / total if total > 0 else np.full(w.size, 1.0 / w.size)
    return np.argsort(-prob, kind="stable")


def _select(mode: str, w: np.ndarray, size: int, children: int, rng: np.random.Generator,
            scores: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Return (kept parent indices, parent index of every child to mutate).

    'sample': size parents drawn proportionally to the clipped counts w; 'rank': the top
    size // (1 + children) by rank_order(w, scores) kept, children cycled over them."""
    m = w.size
    u = rng.random(size)
    total = w.sum()
    prob = w / total if total > 0 else np.full(m, 1.0 / m)
    if mode == "sample":
        cdf = np.cumsum(prob)
        cdf[-1] = 1.0
        return np.zeros(0, dtype=np.intp), np.searchsorted(cdf, u, side="right").astype(np.intp)
    keep_n = max(1, size // (1 + children))
    order = rank_order(w, scores)
    kept = order[: min(keep_n, m)]
    n_child = size - kept.size
    child_parents = np.resize(kept, n_child)
    return kept.astype(np.intp), child_parents.astype(np.intp)


def run_synthesis(
    schema: Schema,
    X: np.ndarray,
    policy: Policy,
    method: "str | Method",
    rho: float | None,
    tau: float | None = None,
    config: SynthConfig | None = None,
    seed: "int | None | str" = "required",
    progress: Callable[[RoundEvent], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    grouped: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    keep_populations: bool = False,
    mechanism: "str | Mechanism | None" = None,
    epsilon: float | None = None,
    streams: Callable[[int, int], np.random.Generator] | None = None,
    delta: float | None = None,
    public: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    engine: Any = None,
) -> SynthResult:
    """Run Algorithm 1 once.

    Parameters
    ----------
    schema : Schema
        The public schema.
    X : (n, p) float64 ndarray
        Encoded private records (schema.encode).
    policy : Policy
        The policy.
    method : str or Method
        A name of the method table or a Method.
    rho : float or None
        Total zCDP budget (mechanism 'gaussian'); split over rounds.
    tau : float, optional
        Temperature for soft votes (> 0).
    config : SynthConfig, optional
        The run's settings (default SynthConfig()).
    seed : int or None
        Whole number (paired study streams) or None (release mode:
        OsEntropyStreams, OpenDP noise); required unless ``streams`` is given.
    progress : callable, optional
        progress(event) is called after every round with a
        :class:`~blowfish_core.algorithm.events.RoundEvent` (t, rounds, method, seed
        (None when unseeded), candidates, sensitivity, scale and its scale_name from
        the mechanism table, mechanism, how: the calibration, bound,
        certified-crossing, ...).
    should_stop : callable, optional
        Checked before every round; the run stops when it returns True.
    grouped : tuple of (U, counts, I), optional
        Precomputed (unique records, counts, domain index) to share across runs.
    keep_populations : bool, default False
        Keep every round's population in the result.
    mechanism : str or Mechanism, optional
        'gaussian' (default; budget rho, total zCDP) or 'laplace' (budget epsilon,
        pure DP); the budget is split over rounds.  The sampling mechanisms
        'pubmix'/'linmix' take epsilon at delta (PLD).
    epsilon : float, optional
        Total budget in nats (laplace, pubmix, linmix).
    streams : callable, optional
        The source of randomness (default make_streams(seed)); its ``sampler``
        picks the mechanism's noise sampler.
    delta : float, optional
        For pubmix/linmix: delta in (0, 1) (default 1e-5).
    public : tuple of (U, counts, I), optional
        For pubmix/linmix: the grouped PUBLIC rows (unique records, counts, domain
        index), required by PubMix.
    engine : object, optional
        Vote engine with ``histogram(schema, C, vote)`` (e.g.
        dask_engine.DaskEngine, which holds the grouped records on its workers; X
        and grouped are then unused); None = the local engine.

    Returns
    -------
    SynthResult
        The release (encoded (release, p)) and the per-round ledger.

    Raises
    ------
    BudgetError
        For bad budget settings.
    BlowfishError
        For bad settings (no seed or streams, a method or mechanism that cannot
        run, a sampling mechanism with a vote engine, ...).
    RunStopped
        When should_stop() returns True (nothing partial is returned).
    """
    run = _setup_run(schema, X, policy, method, rho, tau, config, seed, grouped, mechanism, epsilon, streams, delta,
                     public, engine)
    return _run_rounds(run, progress, should_stop, keep_populations)


def _run_checked(schema: Schema, X: np.ndarray | None, policy: Policy, meth: Method, mech: Mechanism,
                 budgets: np.ndarray | None, reach: float, tau: float | None, cfg: SynthConfig, streams: Any, *,
                 seed: Any, grouped: Any = None, epsilon: float | None = None, delta: float | None = None,
                 public: Any = None, engine: Any = None, progress: Callable[[RoundEvent], None] | None = None,
                 should_stop: Callable[[], bool] | None = None, keep_populations: bool = False) -> SynthResult:
    """:func:`run_synthesis` for the settings of a checked RunSpec (synthesis.experiment, RunSpec.build):
    the layers below the spec receive its resolved objects and nothing is re-checked or looked up again.

    meth: the Method; mech: the Mechanism whose sampler the ``streams`` ask for; budgets: (T,) the
    per-round budgets (``mech.split`` of the checked total; None for a sampling mechanism, whose plan is
    made here from the run's n); reach: the record-level reach (Cor. 5.2); tau: the checked temperature
    (None for a method without one); cfg: the validated SynthConfig; streams: the run's randomness.
    """
    vote = meth._vote(tau, precision=getattr(streams, "vote_precision", "float64"))
    U, counts, I = _grouped(schema, X, grouped, engine)
    seed = seed if getattr(streams, "seeded", True) else None
    run = _assemble(schema, policy, meth, mech, vote, tau, cfg, streams, seed, U, counts, I, engine, budgets,
                    epsilon, delta, public, reach)
    return _run_rounds(run, progress, should_stop, keep_populations)


def _run_rounds(run: "_Run", progress: Callable[[RoundEvent], None] | None,
                should_stop: Callable[[], bool] | None, keep_populations: bool) -> SynthResult:
    """Rounds 1..T of Algorithm 1 on a set-up run, then the release (trusts ``run``)."""
    rng, T = run.rng, run.cfg.rounds
    t0 = time.perf_counter()
    C = run.schema.sample_uniform(rng(_INIT, 0), run.sizes[0])
    ledger: list[LedgerRow] = []
    round_secs: list[float] = []
    pops: list[np.ndarray] = []
    w = np.zeros(0)
    scores = draws = None
    precisions: list[str] = []  # the soft vote's arithmetic per round (votes.SoftVote.precision_used)
    for t in range(1, T + 1):
        rt = time.perf_counter()
        if should_stop is not None and should_stop():
            raise RunStopped(f"run stopped by the user before round {t}")
        if keep_populations:
            pops.append(C.copy())
        kernel = GowerKernel(run.schema, C)
        if hasattr(run.vote, "precision_used"):
            precisions.append(run.vote.precision_used(kernel))
        Hist, cal = _vote_and_calibrate(run, C, kernel)
        w, scores, scale, draws = _release_round(run, t, C, kernel, Hist, cal, ledger)
        del Hist  # the private histogram leaves the round only through the noisy weights (or the draws)
        if t < T:
            C = _next_population(run, t, C, w, scores, draws)
        round_secs.append(time.perf_counter() - rt)
        if progress is not None:
            progress(RoundEvent(t, T, run.meth.name, run.seed, kernel.m, float(cal.sensitivity), float(scale),
                                run.mech.scale_name, run.mech.name, cal.how))
    release = C[_release_indices(run, C, w, scores, draws)]
    return SynthResult(run.meth.name, run.seed, release, ledger, time.perf_counter() - t0, round_secs,
                       pops if keep_populations else None, C, w, scores if scores is not None else w,
                       vote_precision=vote_precision_text(precisions),
                       noise_sampler=getattr(run.mech, "sampler", "numpy"),
                       randomness=getattr(rng, "randomness", "custom streams"))


@dataclass(frozen=True)
class _Run:
    """What every round of one run needs, decided once before round 1 (run_synthesis's set-up)."""

    schema: Schema
    policy: Policy
    meth: Method
    mech: Any
    vote: Any
    tau: float | None
    cfg: SynthConfig
    rng: Any
    seed: Any
    sizes: list[int]
    U: np.ndarray | None
    counts: np.ndarray | None
    I: np.ndarray | None
    engine: Any
    sampling: bool
    plan: Any
    budgets: np.ndarray
    n_priv: int | None
    public: Any
    reach: Any
    integer_votes: bool


def _setup_run(schema, X, policy, method, rho, tau, config, seed, grouped, mechanism, epsilon, streams, delta,
               public, engine) -> _Run:
    """The method, the streams and the noise sampler, the vote, the grouped records and the
    budget per round (a PubMix plan for sampling mechanisms), checked once."""
    meth = get_method(method)
    if streams is None and (isinstance(seed, str) or seed is _NO_SEED):
        raise BlowfishError("run_synthesis needs seed= or streams=: seed=0 (a whole number) for a reproducible "
                            "study run, or streams=OsEntropyStreams() for fresh randomness. Fix: pass one; a "
                            "release to publish goes through blowfish_core.synthesis.gate (Synthesizer(seed=None), "
                            "or synth without --seeds)")
    rng = streams if streams is not None else make_streams(seed)
    # the noise sampler follows the randomness source (numpy for seeded study streams,
    # OpenDP for OS entropy): chosen once here, never branched on in the loop
    mech = get_mechanism(mechanism, sampler=getattr(rng, "sampler", "numpy"))
    seed = seed if getattr(rng, "seeded", True) else None
    cfg = (config or SynthConfig()).validate()
    # ... and so does the soft vote's arithmetic (float32 for seeded study runs, float64 for
    # releases and for any streams object that does not say)
    vote = meth.make_vote(tau if meth.needs_tau else None, precision=getattr(rng, "vote_precision", "float64"))
    if meth.needs_tau:
        tau = vote.tau
    policy.validate(schema)
    U, counts, I = _grouped(schema, X, grouped, engine)
    budgets = None
    if mech.samples:
        from ..privacy.mechanisms.pubmix import check_sampling

        check_sampling(mech, meth, policy, cfg.threshold_h, public is not None)
        if counts is None:
            raise BlowfishError(f"noise {mech.name} runs on the local engine only (its sampler reads the private "
                                "rows' counts). Fix: drop --engine dask (engine='local' in the API)")
    else:
        # a missing budget (None) is refused by the split (BudgetError naming it)
        budgets = mech.split(budget_of(mech, rho, epsilon), cfg.rounds, cfg.budget_weights)  # type: ignore[arg-type]
    return _assemble(schema, policy, meth, mech, vote, tau, cfg, rng, seed, U, counts, I, engine, budgets, epsilon,
                     delta, public, record_reach(schema, policy))


def _grouped(schema: Schema, X: Any, grouped: Any, engine: Any) -> tuple[Any, Any, Any]:
    """(distinct records U, counts, domain index) of the private table (all None with a vote engine)."""
    if engine is not None:
        return None, None, None
    if grouped is None:
        U, counts = group_records(X)
        return U, counts, domain_index(schema, U)
    U, counts, I = grouped
    return U, counts, I


def _assemble(schema, policy, meth, mech, vote, tau, cfg, rng, seed, U, counts, I, engine, budgets, epsilon, delta,
              public, reach) -> "_Run":
    """The run's _Run from checked settings: a sampling mechanism's plan (its per-round budgets) is made
    here, from the run's n."""
    sizes = cfg.sizes()
    plan = n_priv = None
    if mech.samples:
        from ..privacy.mechanisms.pubmix import SamplingMechanism

        n_priv = int(round(float(counts.sum())))
        smech = cast(SamplingMechanism, mech)  # samples = True: the sampling protocol (mechanisms.Mechanism)
        plan = smech.plan(epsilon, DEFAULT_DELTA if delta is None else delta, n_priv, sizes, cfg.release,
                          cfg.budget_weights)
        budgets = np.asarray(plan.epsilon_t)
    return _Run(schema, policy, meth, mech, vote, tau, cfg, rng, seed, sizes, U, counts, I, engine, mech.samples, plan,
                budgets, n_priv, public, reach, meth.integer_votes)


def _vote_and_calibrate(run: _Run, C: np.ndarray, kernel: GowerKernel):
    """(the vote histogram of C_t -- private data touched here only --, the calibration from
    public inputs only: policy, tau, domain, C_t)."""
    if run.engine is None:  # the local engine: _setup_run grouped the records
        Hist = vote_histogram(run.schema, C, cast(np.ndarray, run.U), run.counts, run.vote, I=run.I, kernel=kernel)
    else:
        Hist = run.engine.histogram(run.schema, C, run.vote)
    cal = calibrate_round(_calibrated(run.meth), RoundInputs(run.schema, run.policy, run.tau, C, run.reach,
                                                       run.cfg.max_edges, kernel, run.mech.norm, checked=True))
    return Hist, cal


def _release_round(run: _Run, t: int, C: np.ndarray, kernel: GowerKernel, Hist, cal, ledger: list[LedgerRow]):
    """Round t's private release: noisy weights (additive mechanisms) or draws (sampling ones)
    and its ledger row. Returns (weights, scores or None, the noise scale, draws or None)."""
    mech, cfg, T = run.mech, run.cfg, run.cfg.rounds
    if run.sampling:
        draws = _sampling_round(run.schema, mech, run.plan, t, C, kernel, Hist, run.n_priv, run.public,
                                run.rng(_NOISE, t))
        w = np.bincount(draws, minlength=kernel.m).astype(float)
        scale = run.plan.beta_t[t - 1]
        ledger.append(mech.row(t, kernel.m, cal, run.plan, surviving=int((w > 0).sum()), notes=tuple(cal.notes)))
        return w, None, scale, draws  # the draw counts are never negative: raw = clipped
    scale = mech.scale(cal.sensitivity, run.budgets[t - 1], checked=True)
    noisy = mech.release(Hist, scale, run.rng(_NOISE, t), integer=run.integer_votes)
    w = _weights(noisy, cfg.threshold_h)
    scores = noisy if cfg.rank_by == "raw" else None
    notes = list(cal.notes)
    if not (w > 0).any():
        notes.append(f"no candidate survived the threshold H = {cfg.threshold_h:g}: "
                     + ("parents drawn uniformly" if t < T else "release drawn uniformly from C_t"))
    ledger.append(mech.row(t, kernel.m, cal, scale, run.budgets[t - 1], surviving=int((w > 0).sum()),
                           notes=tuple(notes)))
    return w, scores, scale, None


def _next_population(run: _Run, t: int, C: np.ndarray, w: np.ndarray, scores, draws) -> np.ndarray:
    """C_{t+1}: select parents (sample / rank / hybrid; PubMix's draws are the parents) and
    ResampleMutate them."""
    cfg = run.cfg
    mode = cfg.selection
    if mode == "hybrid":
        mode = "sample" if t + 1 <= cfg.switch_round else "rank"
    if run.sampling and mode == "sample":  # the PubMix draws are the parents
        kept, parents = np.zeros(0, dtype=np.intp), draws.astype(np.intp)
    else:
        kept, parents = _select(mode, w, run.sizes[t], cfg.children, run.rng(_SELECT, t), scores)
    rate = round_mutation_rate(t, cfg)
    children = mutate(run.schema, C[parents], rate, run.rng(_MUTATE, t))
    return np.vstack([C[kept], children]) if kept.size else children


def _release_indices(run: _Run, C: np.ndarray, w: np.ndarray, scores, draws) -> np.ndarray:
    """The release: post-processing of the last noisy histogram (sampling: the round-T draws)."""
    cfg = run.cfg
    if run.sampling:
        return draws if cfg.release_mode == "sample" else top_release(C, rank_order(w), cfg.release,
                                                                      cfg.release_mode == "top-distinct")
    return release_indices(w, cfg.release, cfg.release_mode, run.rng(_RELEASE, 0), scores, C)


def _sampling_round(schema, mech, plan, t, C, kernel, Hist, n_priv, public, rng) -> np.ndarray:
    """One PubMix/LinMix round: int64 (n_samples_t,) draws of bin indices in [0, m_t).

    P_nse,t from the public rows only (their hard-vote histogram on C_t); the mixture is
    formed inside ``mech.draw`` and never kept (study: pubmix_sample on the seeded stream;
    release: the exact sampler from the OS CSPRNG, mechanisms.pubmix.PubMixExact).
    """
    from ..model.votes import HardVote

    i = t - 1
    p_public = None
    if not getattr(mech, "linmix", False):
        Up, cp, Ip = public
        hp = vote_histogram(schema, C, Up, cp, HardVote(), I=Ip, kernel=kernel)
        p_public = hp / hp.sum()
    p_noise = mech.noise_distribution(p_public, plan.floor[i], kernel.m)
    return mech.draw(Hist, n_priv, p_noise, plan.beta_t[i], plan.n_samples[i], plan.floor[i], rng)


def top_release(C: np.ndarray | None, order: np.ndarray, n: int, distinct: bool = False) -> np.ndarray:
    """The first n indices of ``order`` (candidate indices in rank order, best first).

    Each candidate appears once; when there are fewer than n, they repeat cyclically in rank
    order.  Post-processing only.

    Parameters
    ----------
    C : (m, p) ndarray or None
        The candidates (needed with ``distinct``).
    order : (m,) int ndarray
        Candidate indices in rank order, best first.
    n : int
        Number of indices to return.
    distinct : bool, default False
        'top-distinct': a record that appears several times in C counts once, at
        its best-ranked copy, before the cut.

    Returns
    -------
    (n,) int ndarray
        Indices into C.
    """
    if distinct and C is not None and order.size:
        _, first = np.unique(C[order], axis=0, return_index=True)
        order = order[np.sort(first)]
    return np.resize(order[: min(n, order.size)], n)


def release_indices(w: np.ndarray, n: int, mode: str, rng: np.random.Generator,
                    scores: np.ndarray | None = None, C: np.ndarray | None = None) -> np.ndarray:
    """Indices into C_T of n released records, from the last clipped noisy counts w (m_T,).

    Post-processing only (no privacy cost).

    Parameters
    ----------
    w : (m_T,) float ndarray
        The last clipped noisy counts.
    n : int
        Number of released records.
    mode : {"sample", "top", "top-distinct"}
        'sample': drawn proportionally to w (uniformly when every w is 0), by n
        uniforms of ``rng``; 'top': the n candidates of C with the largest counts
        (rank_order(w, scores); stable order); 'top-distinct': the same with equal
        records once; see top_release.
    rng : numpy.random.Generator
        The release stream (n uniforms are drawn in every mode).
    scores : (m_T,) float ndarray, optional
        The raw noisy counts for rank_by='raw'.
    C : (m_T, p) ndarray, optional
        The final candidates (for 'top-distinct').

    Returns
    -------
    (n,) int ndarray
        Indices into C_T.
    """
    total = w.sum()
    prob = w / total if total > 0 else np.full(w.size, 1.0 / w.size)
    cdf = np.cumsum(prob)
    cdf[-1] = 1.0
    u = rng.random(n)
    if mode in ("top", "top-distinct"):
        return top_release(C, rank_order(w, scores), n, mode == "top-distinct")
    return np.searchsorted(cdf, u, side="right")
