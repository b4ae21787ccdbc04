"""Paired multi-method runs: ``run_paired(RunRequest) -> PairedResult`` (typed results).

One call runs every (method, seed) pair on the same encoded data with paired random
streams and computes the fidelity metric.  The result is typed (:class:`PairedResult`
of :class:`RunResult`); the CLI, the pages, the sweep and the pilot read it, and the
JSON report of the CLI contract (README "Report") is built from it in one place,
:func:`blowfish_core.synthesis.report.build_report` (``PairedResult.report``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..privacy.accounting import check_delta
from ..model.distance import domain_index, group_records
from ..base.errors import BlowfishError
from ..base.input_checks import check_integer_bounds
from ..algorithm.evolution import SynthConfig, SynthResult, run_synthesis
from ..privacy.ledger import LedgerRow, privacy_totals
from ..privacy.mechanisms import get_mechanism
from ..algorithm.methods import METHODS, any_policy_aware, get_method, needs_tau
from ..model.policy import Policy, record_reach
from ..model.schema import Schema
from ..model.votes import check_tau

MAX_SEEDS = 50


@dataclass(frozen=True)
class RunSpec:
    """The one validated run specification (issue 21): everything one paired comparison needs
    (all public except ``data``).  Frozen; every front end (CLI ``synth``, ``Synthesizer.fit``,
    ``RunSettings.validate``, the app) builds it with :meth:`RunSpec.build`, which validates
    every setting once (:func:`validate_request`, the integer-bound check included); the layers
    below (run_paired, the release gate) trust a built spec.  ``RunRequest`` is the same class
    (its historical name); constructing one directly leaves it unvalidated, and run_paired then
    validates it.

    data: the private table (DataFrame, original columns).  methods: names of the method
    table (blowfish_core.algorithm.methods.METHODS).  mechanism: 'gaussian' (budget ``rho``: total
    zCDP, already converted from (epsilon, delta) if needed) or 'laplace' (budget
    ``epsilon``: pure DP; ``rho`` and ``delta`` unused).
    metric: (name, f(schema, X_real, X_syn)).  reference: optional table the metric
    compares against (default: the private table itself).  seeds: whole numbers (paired,
    reproducible study streams; numpy noise) or None (**release mode**: one run per method,
    each from its own OS entropy with OpenDP noise; not paired, nothing recorded about the
    randomness -- docs/DECISIONS.md "unseeded comparisons").  keep_populations: keep
    every round's candidate population C_t in the results (for per-round errors;
    does not change any draw or released value).
    Sampling release steps (mechanism 'pubmix' / 'linmix', papers/003; hard-vote methods
    only): budget ``epsilon`` at ``delta`` (PLD); ``public``: public rows of the same
    domain, disjoint from ``data`` (required by PubMix; the preset's pilot split or a
    user file), described by ``public_source``.
    """

    schema: Schema
    policy: Policy
    data: pd.DataFrame
    methods: list[str]
    rho: float
    delta: float = 1e-5
    tau: float | None = None
    seeds: list[int] | None = field(default_factory=lambda: [0])
    config: SynthConfig = field(default_factory=SynthConfig)
    metric: tuple[str, Callable] | None = None
    reference: pd.DataFrame | None = None
    budget_source: str = "rho"
    data_source: str = ""
    keep_populations: bool = False
    allow_empty_policy: bool = False
    mechanism: str = "gaussian"
    epsilon: float | None = None
    public: pd.DataFrame | None = None
    public_source: str = ""
    #: release with a domain read off the private table anyway (the release gate then labels it
    #: release_gate.NOT_DP_LABEL); refused without it (issue 21).
    allow_data_domain: bool = False
    #: rows of the sensitive table used as public data (a preset's pilot split as PubMix's public
    #: rows, the app's hold-out): named as unprotected in the ledger text (issue 21).
    unprotected_rows: int = 0
    #: True once :meth:`build` has validated the spec (the layers below then trust it).
    validated: bool = field(default=False, compare=False, repr=False)

    @classmethod
    def build(cls, *args: Any, **kw: Any) -> "RunSpec":
        """The validated spec: the same arguments as the constructor; raises BlowfishError /
        BudgetError / SchemaError / PolicyError naming the field for any invalid setting."""
        from dataclasses import replace

        spec = cls(*args, **kw)
        validate_request(spec)
        return replace(spec, validated=True)

    @property
    def seeded(self) -> bool:
        """True for a study run (seeds given), False for release mode (seeds=None)."""
        return self.seeds is not None

    #: optional pre-grouped private table (chunked.GroupedTable or (U, counts)): used instead
    #: of ``data`` (which may then be None) for tables read in chunks (issue 15).
    grouped: Any = None
    #: optional vote engine (e.g. dask_engine.DaskEngine); None = the local engine.
    engine: Any = None

    @property
    def budget(self) -> float | None:
        """The total budget in the mechanism's own terms (rho or epsilon)."""
        return self.rho if get_mechanism(self.mechanism).budget_name == "rho" else self.epsilon


#: the historical name of the run specification.
RunRequest = RunSpec

#: methods whose noise is calibrated to the policy (Blowfish); Tab-PE is standard DP.
POLICY_METHODS = tuple(m.name for m in METHODS.values() if m.policy_aware)

EMPTY_POLICY_MESSAGE = (
    "the policy protects nothing: Hard/BF-Soft would release noise-free histograms (no record is hidden). "
    "Fix: protect at least one attribute, or set allow_empty_policy / --allow-empty-policy to run anyway"
)

NO_PROTECTION_WARNING = (
    "NO BLOWFISH PROTECTION: the policy protects nothing (record-level reach 0, no participation edges), "
    "so the Hard/BF-Soft releases were computed from noise-free histograms and hide no record."
)


def policy_is_empty(schema: Schema, policy: Policy) -> bool:
    """True when the policy protects nothing: record-level reach 0 and no participation edges (Def. 2.7)."""
    return (not policy.participation) and record_reach(schema, policy) == 0.0


def check_soft_tau(schema: Schema, policy: Policy, methods, tau: float | None) -> None:
    """Refuse a tau so large that a soft vote's noise ratio q = tanh(r / (2 tau)) is below
    sensitivity.MIN_NOISE_RATIO (BudgetError with a tau that works; docs/DECISIONS.md "tau floor").

    r: the record-level reach for BF-Soft (Cor. 5.5), the Gower diameter for the standard-DP soft
    vote and the soft vote with Hard's noise (the spread of its distances).  Methods without tau and
    a reach of 0 (an empty policy, refused or allowed on its own) are not checked here.
    """
    if tau is None:
        return
    from ..model.sensitivity import check_noise_ratio

    for m in methods:
        meth = get_method(m)
        if not meth.needs_tau:
            continue
        if meth.soft_policy_bound:
            check_noise_ratio(record_reach(schema, policy), tau)
        else:
            check_noise_ratio(schema.gower_diameter, tau, "the Gower diameter (standard DP)")


def run_method(schema: Schema, X: np.ndarray, policy: Policy, method, rho: float | None, tau: float | None = None,
               config: SynthConfig | None = None, seed: "int | None | str" = "required", **kw: Any) -> SynthResult:
    """Run one method once, by how the method table says it runs (``Method.runner``):
    'evolution' -> Algorithm 1 (evolution.run_synthesis); 'baseline' -> a reference method
    (baselines.run.run_reference: MST, AIM).  Same arguments and result (SynthResult) for both."""
    return RUNNERS[get_method(method).runner](schema, X, policy, method, rho, tau, config, seed, **kw)


def _run_reference(*a: Any, **kw: Any) -> SynthResult:
    from ..baselines.run import run_reference

    return run_reference(*a, **kw)


#: Method.runner -> the function that runs it (methods.RUNNERS).
RUNNERS: dict[str, Callable[..., SynthResult]] = {"evolution": run_synthesis, "baseline": _run_reference}


def validate_request(req: RunRequest) -> None:
    """Raise BlowfishError naming the field for any invalid setting.

    Reference methods (MST, AIM) need a zCDP budget and their optional extra (mbi): a
    MissingDependencyError saying how to install it, before any work.  They ignore the
    policy, so an empty policy is not refused for them (only for policy-aware methods).
    """
    if not req.methods:
        raise BlowfishError("choose at least one method")
    for m in req.methods:
        get_method(m).check_mechanism(get_mechanism(req.mechanism).name)
    if len(set(req.methods)) != len(req.methods):
        raise BlowfishError("a method is listed twice")
    if needs_tau(req.methods):
        check_tau(req.tau)
    mech = get_mechanism(req.mechanism)
    if mech.budget_name == "rho" or getattr(mech, "samples", False):
        check_delta(req.delta)
    if getattr(mech, "samples", False):
        from ..privacy.mechanisms.pubmix import check_sampling

        for m in req.methods:
            check_sampling(mech, get_method(m), req.policy, req.config.threshold_h, req.public is not None)
        if req.public is not None:
            if not isinstance(req.public, pd.DataFrame) or len(req.public) == 0:
                raise BlowfishError("public rows: give a non-empty table of the same domain")
            req.schema.encode(req.public)  # SchemaError naming the column when outside the domain
    mech.split(req.budget, req.config.rounds, req.config.budget_weights)  # BudgetError for a bad budget
    if req.seeds is None:
        get_mechanism(req.mechanism, sampler="opendp")  # release mode needs an OpenDP sampler
    elif not req.seeds:
        raise BlowfishError("give at least one seed")
    if len(req.seeds or ()) > MAX_SEEDS:
        raise BlowfishError(f"at most {MAX_SEEDS} seeds per comparison (got {len(req.seeds)})")
    if req.seeds is not None and len(set(req.seeds)) != len(req.seeds):
        raise BlowfishError("a seed is listed twice")
    for s in req.seeds or ():
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise BlowfishError(f"seeds must be whole numbers >= 0 (got {s!r})")
    req.config.validate()
    req.policy.validate(req.schema)
    check_integer_bounds(req.schema)
    if (req.metric is None or req.metric[0] == "pwerr") and req.schema.p < 2:
        raise BlowfishError(
            f"PWErr needs at least two modeled attributes (the schema has {req.schema.p}). "
            "Fix: model two or more columns"
        )
    if (any_policy_aware(req.methods) and not req.allow_empty_policy
            and policy_is_empty(req.schema, req.policy)):
        raise BlowfishError(EMPTY_POLICY_MESSAGE)
    if needs_tau(req.methods):
        check_soft_tau(req.schema, req.policy, req.methods, req.tau)
    for m in req.methods:
        if get_method(m).is_reference:
            from ..baselines.run import require_reference

            require_reference(get_method(m))


@dataclass(frozen=True)
class RunResult:
    """One (method, seed) run: the decoded release, its error, time and ledger.

    release: DataFrame in the original names and formats; error: the metric against the
    reference (evaluation only); seconds: wall time of the run; synth: the engine's
    SynthResult (encoded release, per-round times, populations when kept).  seed: None for
    an unseeded (release-mode) run.
    """

    method: str
    seed: int | None
    release: pd.DataFrame
    error: float
    seconds: float
    synth: SynthResult

    @property
    def ledger(self) -> tuple[LedgerRow, ...]:
        return tuple(self.synth.rounds)


@dataclass(frozen=True)
class PairedResult:
    """Every run of a paired comparison, in (seed, method) order, plus what the report needs.

    privacy: the ledger totals (ledger.privacy_totals) with the budget source.
    ``report`` (the JSON report, built once by report.build_report), ``results`` (the
    SynthResults) and ``releases`` ({(method, seed): DataFrame}) are views of the runs.
    """

    request: RunRequest
    runs: tuple[RunResult, ...]
    metric_name: str
    n_private: int
    n_unique: int
    privacy: dict[str, Any]
    seconds_total: float

    def attach_publication(self, publication: Any) -> None:
        """Record the release gate's Publication (release_gate.release_synthesis): its label and total
        go into the public report.  Called once, before the report is read."""
        object.__setattr__(self, "publication", publication)

    def errors(self, method: str) -> list[float]:
        """The metric of ``method`` per seed, in seed order."""
        return [r.error for r in self.runs if r.method == method]

    def run(self, method: str, seed: int | None = None) -> RunResult:
        """The run of (method, seed) (seed None: the unseeded run); KeyError when absent."""
        for r in self.runs:
            if r.method == method and r.seed == seed:
                return r
        raise KeyError((method, seed))

    @property
    def results(self) -> list[SynthResult]:
        return [r.synth for r in self.runs]

    @property
    def releases(self) -> dict[tuple[str, int | None], pd.DataFrame]:
        return {(r.method, r.seed): r.release for r in self.runs}

    @cached_property
    def summary(self) -> dict[str, Any]:
        """Per-method mean and 95% t-interval, paired R_s and the decomposition (report.summarize)."""
        from .report import summarize

        rows = [{"method": r.method, "seed": r.seed, self.metric_name: r.error} for r in self.runs]
        return summarize(rows, self.metric_name, list(self.request.methods))

    @property
    def seeded(self) -> bool:
        return self.request.seeded

    @cached_property
    def report(self) -> dict[str, Any]:
        """The union report (``public`` / ``internal`` plus every historical key)."""
        from .report import build_report

        return build_report(self)

    @cached_property
    def public_report(self) -> dict[str, Any]:
        """What may be published with the release (report.build_public)."""
        from .report import build_public

        return build_public(self)

    @cached_property
    def eval_report(self) -> dict[str, Any]:
        """Figures computed on the private table, labelled internal (report.build_internal)."""
        from .report import build_internal

        return build_internal(self)


def paired_privacy(runs: list[RunResult], req: RunRequest) -> dict[str, Any]:
    """The ledger totals of a paired comparison (every run spends the same budget).

    Methods whose ledgers compose differently (Algorithm 1's all-Gaussian rows, 'gdp-exact';
    a reference method's Gaussian + exponential rows, 'zcdp-eq1') are stated with the totals
    that hold for every release: those of the first run whose accountant is not 'gdp-exact'
    (Eq. (1) holds for any rho-zCDP ledger; the exact Gaussian curve only for all-Gaussian ones).
    """
    first: dict[str, RunResult] = {}
    for r in runs:
        first.setdefault(r.method, r)
    tots = [privacy_totals(r.synth.rounds, req.delta, rho=req.rho, epsilon=req.epsilon) for r in first.values()]
    if len({t["accountant"] for t in tots}) == 1:
        return tots[0]
    weaker = next(t for t in tots if t["accountant"] != "gdp-exact")
    return {**weaker, "note": weaker.get("note", "") + "; the methods' ledgers differ (Algorithm 1: Gaussian "
            "rounds; reference methods: Gaussian measurements and exponential selections), so the statement "
            "that holds for every release is given"}


#: the previous name of the result type.
RunOutcome = PairedResult


def run_paired(req: RunRequest, progress: Callable[[dict[str, Any]], None] | None = None,
               should_stop: Callable[[], bool] | None = None,
               streams_factory: Callable[[], Any] | None = None) -> PairedResult:
    """Run every method on every seed with paired random streams (seeds=None: one
    unseeded release-mode run per method, each with its own OS entropy and OpenDP noise).

    streams_factory: seeds=None only: makes each run's streams (the release gate passes its own
    OS-entropy factory, release_gate.publish); default evolution.OsEntropyStreams.  A spec built
    by RunSpec.build is trusted; any other is validated here.
    Raises BlowfishError for bad settings (before any work) and RunStopped if stopped.
    """
    if not getattr(req, "validated", False):
        validate_request(req)
    schema = req.schema
    metric_name, metric_fn = req.metric or ("pwerr", None)
    if req.grouped is not None:  # a table read in chunks (issue 15): only its distinct records
        U, counts = (req.grouped.U, req.grouped.counts) if hasattr(req.grouped, "U") else req.grouped
        X = U
        if req.reference is not None:
            ref = schema.encode(req.reference)
        elif getattr(metric_fn, "grouped_ok", False):  # a metric that reads no rows (the API's NO_METRIC)
            ref = U
        elif metric_fn is None:
            from functools import partial

            from ..model.metrics import pwerr

            ref, metric_fn = U, partial(pwerr, weights=counts)
        else:
            raise BlowfishError(f"metric {metric_name!r} needs the table row by row; a grouped table supports "
                                "PWErr (the default) or a reference table")
    else:
        X = schema.encode(req.data)
        ref = schema.encode(req.reference) if req.reference is not None else X
        U, counts = group_records(X)
    grouped = (U, counts, domain_index(schema, U))
    public = None
    if req.public is not None and getattr(get_mechanism(req.mechanism), "samples", False):
        Up, cp = group_records(schema.encode(req.public))
        public = (Up, cp, domain_index(schema, Up))
    if metric_fn is None:
        from ..model.metrics import pwerr as metric_fn
    t0 = time.perf_counter()
    runs: list[RunResult] = []
    for seed in (req.seeds if req.seeded else [None]):
        for method in req.methods:
            # seed None: a fresh OsEntropyStreams per run (evolution.make_streams), never paired
            streams = None if seed is not None or streams_factory is None else streams_factory()
            res = run_method(schema, X, req.policy, method, req.rho, req.tau, req.config, seed,
                             streams=streams, progress=progress, should_stop=should_stop, grouped=grouped,
                             keep_populations=req.keep_populations, mechanism=req.mechanism,
                             epsilon=req.epsilon, delta=req.delta, public=public,
                             **({"engine": req.engine} if req.engine is not None else {}))
            err = float(metric_fn(schema, ref, res.release))
            runs.append(RunResult(method, None if seed is None else int(seed), schema.decode(res.release), err,
                                  res.seconds, res))
    privacy = {**paired_privacy(runs, req), "budget_source": req.budget_source}
    return PairedResult(req, tuple(runs), metric_name, int(round(float(counts.sum()))), int(U.shape[0]), privacy,
                        round(time.perf_counter() - t0, 3))
