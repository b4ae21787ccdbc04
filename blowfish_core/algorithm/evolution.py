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

Paired random streams: every random draw comes from a generator seeded by
(seed, purpose, round), so the same seed gives every method the same initial
population, the same standard-normal noise vector per round, and the same
mutation draws; selection uses the same uniforms (different probabilities).

The run's settings and named schedules are in :mod:`.config` (:class:`SynthConfig`,
:data:`SCHEDULES`), what it returns in :mod:`.result` (:class:`SynthResult`, :class:`RunStopped`),
selection, mutation and the release's post-processing in :mod:`.resample`, the paired random
streams in :mod:`.streams`; this module is the loop (:func:`run_synthesis`) and re-exports
every one of those names (issue 22).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, cast

import numpy as np

from ..model.calibration import RoundInputs, calibrate_round
from ..model.gower_kernel import GowerKernel
from ..model.rows import domain_index, group_records
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError
from ..privacy.ledger import LedgerRow
from ..privacy.mechanisms import Mechanism, budget_of, get_mechanism
from .config import MUTATION_INDEX, RANK_BY, RELEASE_MODES, SCHEDULES, SELECTIONS, SynthConfig
from .events import RoundEvent
from .methods import Method, _calibrated, get_method
from .resample import (
    _select, mutate, mutation_rate, rank_order, release_indices, round_mutation_rate, top_release,
)
from .result import RoundRecord, RunStopped, SynthResult, vote_precision_text
from ..model.policy import Policy, record_reach
from ..model.schema import Schema
from ..model.votes import vote_histogram
from .streams import (
    _INIT, _MUTATE, _NO_SEED, _NOISE, _RELEASE, _SELECT, RANDOMNESS, SEEDED_NOTE, OsEntropyStreams,
    SeededStreams, make_streams, rng_for,
)

#: the loop's own names and the ones it re-exports from config, result, resample and streams
#: (tests, pages and external checks import them from here).
__all__ = [
    "run_synthesis",
    # config
    "MUTATION_INDEX", "RANK_BY", "RELEASE_MODES", "SCHEDULES", "SELECTIONS", "SynthConfig",
    # result
    "RoundRecord", "RunStopped", "SynthResult", "vote_precision_text",
    # resample
    "mutate", "mutation_rate", "rank_order", "release_indices", "round_mutation_rate", "top_release",
    # streams
    "RANDOMNESS", "SEEDED_NOTE", "OsEntropyStreams", "SeededStreams", "make_streams", "rng_for",
]


def _weights(noisy: np.ndarray, H: float) -> np.ndarray:
    w = np.where(noisy >= H, noisy, 0.0)
    return np.maximum(w, 0.0)


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
        'pubmix'/'linmix'/'pubmix-floor' take epsilon at delta (PLD).
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
        draws, scale, floor = _sampling_round(run.schema, mech, run.plan, t, C, kernel, Hist, run.n_priv,
                                              run.public, run.rng(_NOISE, t))
        w = np.bincount(draws, minlength=kernel.m).astype(float)
        ledger.append(mech.row(t, kernel.m, cal, run.plan, beta=scale, floor=floor, surviving=int((w > 0).sum()),
                               notes=tuple(cal.notes)))
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


def _sampling_round(schema, mech, plan, t, C, kernel, Hist, n_priv, public, rng) -> tuple[np.ndarray, float, float]:
    """One PubMix/LinMix round: (int64 (n_samples_t,) draws of bin indices in [0, m_t), beta_t, floor).

    P_nse,t and beta_t from the public rows only (their hard-vote histogram on C_t) and the plan
    (``mech.round_noise``: Remark 4.5 or the plan's fixed floor); the mixture is
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
    p_noise, beta, floor = mech.round_noise(p_public, plan, i, kernel.m)
    return mech.draw(Hist, n_priv, p_noise, beta, plan.n_samples[i], floor, rng), beta, floor
