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
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..model.rows import domain_index, group_records
from ..base.errors import BlowfishError
from ..algorithm.events import RoundEvent
from ..algorithm.config import SynthConfig
from ..algorithm.evolution import _run_checked, run_synthesis
from ..algorithm.result import SynthResult
from ..algorithm.streams import make_streams
from ..privacy.ledger import LedgerRow
from ..privacy.totals import _privacy_totals
from ..algorithm.methods import Method, get_method
from ..model.policy import Policy
from ..model.metrics import PWERR_SKIPPED
from ..model.schema import Schema
from .report import build_internal, build_public, build_report, summarize
from .spec import RunRequest

def run_method(schema: Schema, X: np.ndarray, policy: Policy, method, rho: float | None, tau: float | None = None,
               config: SynthConfig | None = None, seed: "int | None | str" = "required", **kw: Any) -> SynthResult:
    """Run one method once, by how the method table says it runs (``Method.runner``).

    'evolution' -> Algorithm 1 (evolution.run_synthesis); 'baseline' -> a reference method
    (baselines.run.run_reference: MST, AIM).  Same arguments and result (SynthResult) for both.

    Parameters
    ----------
    schema : Schema
        The public schema of ``X``.
    X : (n, p) float64 ndarray
        Encoded private records (``schema.encode``).
    policy : Policy
        The policy the method calibrates to.
    method : str or Method
        A name of the method table (``algorithm.methods.METHODS``) or a Method.
    rho : float or None
        Total zCDP budget (None when the budget is ``epsilon`` in ``kw``).
    tau : float, optional
        Softmax temperature for soft votes (> 0).
    config : SynthConfig, optional
        Schedule of the run (default: the paper's).
    seed : int or None
        Whole number (paired study streams) or None (release mode).
    **kw
        Passed to the runner (streams, progress, should_stop, grouped, mechanism, epsilon, delta,
        public, engine, ...; see evolution.run_synthesis).

    Returns
    -------
    SynthResult
        The encoded release, its ledger rows and timings.

    Raises
    ------
    BlowfishError
        For an unknown method (get_method) or bad settings (from the runner); RunStopped if stopped.
    """
    return RUNNERS[get_method(method).runner](schema, X, policy, method, rho, tau, config, seed, **kw)


def _run_reference(*a: Any, **kw: Any) -> SynthResult:
    from ..baselines.run import run_reference

    return run_reference(*a, **kw)


#: Method.runner -> the function that runs it (methods.RUNNERS).
RUNNERS: dict[str, Callable[..., SynthResult]] = {"evolution": run_synthesis, "baseline": _run_reference}


def _run_spec_method(req: RunRequest, meth: Method, seed: int | None, X: Any, grouped: Any = None,
                     public: Any = None, streams: Any = None,
                     progress: Callable[[RoundEvent], None] | None = None,
                     should_stop: Callable[[], bool] | None = None) -> SynthResult:
    """One run of ``meth`` (a Method of the spec) for a validated spec: Algorithm 1 receives the
    spec's checked objects (evolution._run_checked; nothing re-checked); a reference method runs
    through its runner as run_method does.  streams: the run's randomness (default make_streams(seed))."""
    c = req.checked
    engine = {"engine": req.engine} if req.engine is not None else {}
    if meth.is_reference:
        return RUNNERS[meth.runner](req.schema, X, req.policy, meth, req.rho, req.tau, c.config, seed,
                                    streams=streams, progress=progress, should_stop=should_stop, grouped=grouped,
                                    keep_populations=req.keep_populations, mechanism=req.mechanism,
                                    epsilon=req.epsilon, delta=req.delta, public=public, **engine)
    streams = streams if streams is not None else make_streams(seed)
    return _run_checked(req.schema, X, req.policy, meth, c.mechanism_for(getattr(streams, "sampler", "numpy")),
                        c.budgets, c.reach, c.tau if meth.needs_tau else None, c.config, streams, seed=seed,
                        grouped=grouped, epsilon=req.epsilon, delta=req.delta, public=public,
                        progress=progress, should_stop=should_stop, keep_populations=req.keep_populations, **engine)


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

    privacy: the ledger totals (totals.privacy_totals) with the budget source.
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
    #: why the metric was not computed (metrics.PWERR_SKIPPED for fewer than two modelled columns;
    #: the errors are then NaN and the reports say null), else "".
    metric_note: str = ""

    def attach_publication(self, publication: Any) -> None:
        """Record the release gate's Publication (release.release_synthesis).

        Its label and total go into the public report.  Called once, before the report is read.

        Parameters
        ----------
        publication : gate.Publication
            The release gate's Publication of this result.
        """
        object.__setattr__(self, "publication", publication)

    def errors(self, method: str) -> list[float]:
        """The metric of ``method`` per seed, in seed order.

        Parameters
        ----------
        method : str
            A method name of the comparison.

        Returns
        -------
        list of float
            One error per seed (empty when the method did not run).
        """
        return [r.error for r in self.runs if r.method == method]

    def run(self, method: str, seed: int | None = None) -> RunResult:
        """The run of (method, seed).

        Parameters
        ----------
        method : str
            A method name of the comparison.
        seed : int or None, optional
            The seed of the run; None: the unseeded run.

        Returns
        -------
        RunResult
            The run.

        Raises
        ------
        KeyError
            When no run has this (method, seed).
        """
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
        if self.metric_note:  # nothing to summarize: the note instead (issue 27)
            return {"per_method": {}, "note": self.metric_note}
        rows = [{"method": r.method, "seed": r.seed, self.metric_name: r.error} for r in self.runs]
        return summarize(rows, self.metric_name, list(self.request.methods))

    @property
    def seeded(self) -> bool:
        return self.request.seeded

    @cached_property
    def report(self) -> dict[str, Any]:
        """The union report (``public`` / ``internal`` plus every historical key)."""
        return build_report(self)

    @cached_property
    def public_report(self) -> dict[str, Any]:
        """What may be published with the release (report.build_public)."""
        return build_public(self)

    @cached_property
    def eval_report(self) -> dict[str, Any]:
        """Figures computed on the private table, labelled internal (report.build_internal)."""
        return build_internal(self)


def paired_privacy(runs: list[RunResult], req: RunRequest) -> dict[str, Any]:
    """The ledger totals of a paired comparison (every run spends the same budget).

    Methods whose ledgers compose differently (Algorithm 1's all-Gaussian rows, 'gdp-exact';
    a reference method's Gaussian + exponential rows, 'zcdp-eq1') are stated with the totals
    that hold for every release: those of the first run whose accountant is not 'gdp-exact'
    (Eq. (1) holds for any rho-zCDP ledger; the exact Gaussian curve only for all-Gaussian ones).

    Parameters
    ----------
    runs : list of RunResult
        The runs of the comparison (at least one).
    req : RunRequest
        Their spec (delta, rho, epsilon of the totals).

    Returns
    -------
    dict
        The totals of totals.privacy_totals (``accountant``, epsilon, ...), with a ``note`` when the
        methods' ledgers differ.
    """
    first: dict[str, RunResult] = {}
    for r in runs:
        first.setdefault(r.method, r)
    c = req.checked
    tots = [_privacy_totals(r.synth.rounds, req.delta, c.mechanism, c.budget) for r in first.values()]
    if len({t["accountant"] for t in tots}) == 1:
        return tots[0]
    weaker = next(t for t in tots if t["accountant"] != "gdp-exact")
    return {**weaker, "note": weaker.get("note", "") + "; the methods' ledgers differ (Algorithm 1: Gaussian "
            "rounds; reference methods: Gaussian measurements and exponential selections), so the statement "
            "that holds for every release is given"}


#: the previous name of the result type.
RunOutcome = PairedResult


def run_paired(req: RunRequest, progress: Callable[[RoundEvent], None] | None = None,
               should_stop: Callable[[], bool] | None = None,
               streams_factory: Callable[[], Any] | None = None) -> PairedResult:
    """Run every method on every seed with paired random streams.

    seeds=None: one unseeded release-mode run per method, each with its own OS entropy and OpenDP
    noise.  A spec built by RunSpec.build is trusted; any other is validated here.

    Parameters
    ----------
    req : RunRequest
        The run spec (schema, policy, data, methods, budget, seeds, config, ...).
    progress : callable, optional
        ``progress(event)``, called after every round (evolution.run_synthesis's events).
    should_stop : callable, optional
        ``should_stop() -> bool``; True stops the run (RunStopped).
    streams_factory : callable, optional
        seeds=None only: makes each run's streams (the release gate passes its own OS-entropy
        factory, release_gate.publish); default evolution.OsEntropyStreams.

    Returns
    -------
    PairedResult
        Every run in (seed, method) order, the metric name, the private table's row and
        distinct-record counts, the ledger totals and the total wall time (s).

    Raises
    ------
    BlowfishError
        For bad settings (before any work), or a metric that needs the table row by row on a
        grouped table; RunStopped if stopped.
    """
    req = req.validate()  # a spec built by RunSpec.build is itself; any other is checked once here
    c = req.checked
    schema = req.schema
    metric_fn: Callable[..., Any] | None
    metric_name, metric_fn = req.metric or ("pwerr", None)
    note = PWERR_SKIPPED if metric_name == "pwerr" and schema.p < 2 else ""
    if note:  # PWErr compares pairs of columns: skipped with a note, never a refusal (issue 27)
        metric_fn = _skipped_metric
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
    if req.public is not None and c.mechanism.samples:
        Up, cp = group_records(schema.encode(req.public))
        public = (Up, cp, domain_index(schema, Up))
    if metric_fn is None:
        from ..model.metrics import pwerr as metric_fn_default

        metric_fn = metric_fn_default
    t0 = time.perf_counter()
    runs: list[RunResult] = []
    for seed in (req.seeds if req.seeds is not None else [None]):  # req.seeded: seeds given
        for meth in c.methods:
            # seed None: a fresh OsEntropyStreams per run (evolution.make_streams), never paired
            streams = None if seed is not None or streams_factory is None else streams_factory()
            res = _run_spec_method(req, meth, seed, X, grouped, public, streams, progress, should_stop)
            err = float(metric_fn(schema, ref, res.release))
            runs.append(RunResult(meth.name, None if seed is None else int(seed), schema.decode(res.release), err,
                                  res.seconds, res))
    privacy = {**paired_privacy(runs, req), "budget_source": req.budget_source}
    return PairedResult(req, tuple(runs), metric_name, int(round(float(counts.sum()))), int(U.shape[0]), privacy,
                        round(time.perf_counter() - t0, 3), note)


def _skipped_metric(schema: Any, real: Any, synthetic: Any) -> float:
    """The metric of a run whose metric is skipped (PWERR_SKIPPED): NaN, reported as null."""
    return float("nan")


_skipped_metric.grouped_ok = True  # type: ignore[attr-defined]  # reads no rows
