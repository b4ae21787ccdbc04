"""Public-data pilot: choose tau (or fall back to Hard) without private budget.

Paper §6.2.4 and Eq. (4); "Practical guidance" (§6.2.6); DESIGN §3 "Public-data pilot".

Procedure.  Run Hard and BF-Soft at every tau of a grid on a *public* sample of
n_p records, with paired seeds, at the scaled budget

    rho_p = rho_t (n_t / n_p)^2        (Eq. (4); accounting.pilot_budget)

so that the pilot's Gaussian noise is the same fraction of its histogram mass as
the target's (sigma_p / n_p = sigma_t / n_t).  In Eq. (4) rho_t is the target
run's budget.  Because every round's budget is a fixed share of the total
(equal split rho/T by default), scaling the total budget by (n_t/n_p)^2 scales
every per-round budget rho_t/T by the same factor: applying Eq. (4) per round or
to the total is equivalent under the equal split (and under any fixed split).

The pilot touches public rows only; of the private table it uses its size n_t.
Its budget rho_p is not spent (no private data is read).  Its guidance is
validated only when the public sample and the private table share a
distribution (§6.2.4: pilots were drawn from the same benchmark distribution;
shifted public data is untested).

Recommendation (the paper's tie rule): the candidate with the lowest mean public
error wins; ties favour Hard, then the smaller tau.  A *tie* is defined here as
a mean within ``tie_tol`` (absolute, in the metric's units) of the lowest mean:
the tie set is ``{c : mean_c - min_mean <= tie_tol}``; if Hard is in it Hard is
chosen, otherwise the smallest tau in it.  The default ``tie_tol = 1e-9`` treats
means that differ only by floating-point rounding (errors lie in [0, 2]) as
equal; a larger tolerance (e.g. 0.005) makes the rule prefer Hard / small tau
whenever the gain is below that size.

Modules (issue 22, one idea each; every name is re-exported here): :mod:`.pilot_scaling` (Eq. (4):
:class:`PilotScaling`, :func:`scale_budget`), :mod:`.pilot_choice` (the candidates, the tie rule
:func:`recommend`, :func:`recommendation_strength`), :mod:`.pilot_samples` (:func:`check_pilot_size`,
:func:`subsample`, :func:`holdout_split`); here the tau grid and :func:`run_pilot`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError, BudgetError
from ..algorithm.events import RoundEvent
from ..algorithm.config import SynthConfig
from ..model.metrics import relative_reduction, t_interval
from ..synthesis.parsing import parse_positive_grid
from ..model.policy import Policy, record_reach
from ..synthesis.spec import MAX_SEEDS, RunRequest
from ..synthesis.experiment import PairedResult, run_paired
from ..model.schema import Schema
from ..model.sensitivity import noise_ratio, tau_for_noise_ratio
from ..model.votes import check_tau
from .progress import Unit, run_plan
from .pilot_choice import (  # noqa: F401  (re-exported)
    DEFAULT_TIE_TOL, HARD, SOFT, PilotCandidate, Recommendation, check_tie_tol, recommend, recommendation_strength,
)
from .pilot_samples import MIN_PILOT_ROWS, check_pilot_size, holdout_split, subsample  # noqa: F401  (re-exported)
from .pilot_scaling import PilotScaling, scale_budget  # noqa: F401  (re-exported)

#: the paper's pilot selector for Bank (App. F.8): tau grid, plus the tau giving q = PILOT_Q.
PAPER_TAU_GRID: tuple[float, ...] = (0.001, 0.003, 0.015, 0.03, 0.06, 0.12, 0.3, 0.6)
PILOT_Q = 0.2
#: at most this many temperatures per pilot grid.
MAX_GRID = 24


# --------------------------------------------------------------------------
# tau grid
# --------------------------------------------------------------------------

def tau_grid(reach: float, base: Sequence[float] = PAPER_TAU_GRID, q: float | None = PILOT_Q) -> list[float]:
    """The paper's pilot grid (App. F.8): ``base`` plus the tau with noise ratio ``q``.

    The extra temperature is tau = r / (2 atanh(q)) (App. F.4), added when r > 0 and q is given.

    Parameters
    ----------
    reach : float
        Record-level reach r (Gower units, >= 0).
    base : sequence of float, default PAPER_TAU_GRID
        Temperatures, each > 0.
    q : float or None, default PILOT_Q
        Noise ratio of the extra temperature, in (0, 1); None: none added.

    Returns
    -------
    list of float
        Sorted distinct temperatures (rounded to 6 significant digits).

    Raises
    ------
    BudgetError
        For a temperature <= 0 in ``base``.
    """
    taus = {float(f"{check_tau(t):.6g}") for t in base}
    if q is not None and reach > 0:
        taus.add(float(f"{tau_for_noise_ratio(reach, q):.6g}"))
    return sorted(taus)


def parse_tau_grid(text: str) -> list[float]:
    """Temperatures from text like "0.003, 0.03 0.3" -> sorted distinct floats.

    Parameters
    ----------
    text : str
        Temperatures separated by commas or spaces.

    Returns
    -------
    list of float
        The temperatures, ascending.

    Raises
    ------
    BudgetError
        Naming the bad entry (not a number, tau <= 0), for an empty grid, or for more than
        MAX_GRID temperatures.
    """
    out = parse_positive_grid(text, "tau grid", "temperature", "temperatures like 0.003, 0.03", check_tau)
    if not out:
        raise BudgetError("tau grid is empty. Fix: list temperatures like 0.003, 0.03, 0.3")
    if len(out) > MAX_GRID:
        raise BudgetError(f"tau grid: at most {MAX_GRID} temperatures (got {len(out)})")
    return sorted(out)


# --------------------------------------------------------------------------
# Running the pilot
# --------------------------------------------------------------------------

@dataclass
class PilotResult:
    """Everything the pilot found (JSON-able via to_dict)."""

    scaling: PilotScaling
    metric: str
    seeds: list[int]
    candidates: list[PilotCandidate]
    recommendation: Recommendation
    reach: float
    seconds: float
    public_source: str = ""
    note: str = ("The pilot's guidance is validated only when the public sample and the private table share a "
                 "distribution (paper §6.2.4); shifted or independently collected public data is untested.")
    config: dict[str, Any] = field(default_factory=dict)
    #: the typed runs (experiment.PairedResult), one per candidate, in ``candidates`` order.
    runs: list[PairedResult] = field(default_factory=list)

    def table(self) -> pd.DataFrame:
        """One row per candidate: label, method, tau, q, mean, ci_low, ci_high, R_s vs Hard (%)."""
        return pd.DataFrame([{
            "candidate": c.label, "method": c.method, "tau": c.tau, "q": c.q, "mean": c.mean,
            "ci_low": c.ci95[0], "ci_high": c.ci95[1], "R_s vs Hard (%)": c.reduction_vs_hard,
        } for c in self.candidates])

    def to_dict(self) -> dict[str, Any]:
        return {"scaling": self.scaling.to_dict(), "metric": self.metric, "seeds": list(self.seeds),
                "candidates": [c.to_dict() for c in self.candidates],
                "recommendation": self.recommendation.to_dict(), "reach": self.reach,
                "seconds": self.seconds, "public_source": self.public_source, "note": self.note,
                "config": self.config}


def run_pilot(
    schema: Schema,
    policy: Policy,
    public: pd.DataFrame,
    rho_target: float,
    n_target: int,
    taus: Sequence[float],
    seeds: Sequence[int],
    config: SynthConfig | None = None,
    metric: tuple[str, Callable] | None = None,
    delta: float = DEFAULT_DELTA,
    tie_tol: float = DEFAULT_TIE_TOL,
    reference: pd.DataFrame | None = None,
    public_source: str = "",
    progress: Callable[[dict[str, Any]], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> PilotResult:
    """Evaluate Hard and BF-Soft at every tau on public data at the Eq. (4) budget.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.
    public : pandas.DataFrame
        The public sample, with the schema's columns; n_p = len(public).
    rho_target : float
        The target run's total zCDP budget.
    n_target : int
        Rows of the private table.
    taus : sequence of float
        Temperatures (each > 0, at most MAX_GRID).
    seeds : sequence of int
        Paired seeds shared by every candidate (same initial population, noise and mutation
        streams).
    config : SynthConfig, optional
        The schedule (default SynthConfig()).
    metric : (str, callable), optional
        (name, metric function) of the error (default PWErr).
    delta : float, default DEFAULT_DELTA
        DP delta of the target's epsilon.
    tie_tol : float, default DEFAULT_TIE_TOL
        Tie tolerance of :func:`recommend`.
    reference : pandas.DataFrame, optional
        The table each run's error is measured against (default: the public sample itself).
    public_source : str, default ''
        Where the public sample came from, for the report.
    progress : callable, optional
        progress(event) receives run_synthesis events plus 'config', 'configs' and 'label'.
    should_stop : callable, optional
        Polled during the runs; True stops the pilot.

    Returns
    -------
    PilotResult
        The candidates, their errors and the recommendation.

    Raises
    ------
    BlowfishError, BudgetError
        For bad settings, before any work.
    RunStopped
        When should_stop() turns True.
    """
    cfg = (config or SynthConfig()).validate()
    tie_tol = check_tie_tol(tie_tol)
    taus, seeds = _check_pilot_inputs(schema, public, taus, seeds)
    scaling = scale_budget(rho_target, n_target, len(public), cfg.rounds, cfg.budget_weights, delta)
    reach = record_reach(schema, policy)
    configs: list[tuple[str, float | None]] = [(m, t) for m, t, _label in pilot_configs(taus)]
    t0 = time.perf_counter()
    by_config: list[list[float]] = []
    paired: list[PairedResult] = []
    metric_name = (metric or ("pwerr", None))[0]
    for k, (method, tau, label) in enumerate(pilot_configs(taus), start=1):

        def _progress(ev: RoundEvent, k=k, label=label) -> None:
            if progress is not None:
                progress({**ev, "config": k, "configs": len(configs), "label": label})

        req = RunRequest(schema, policy, public, [method], scaling.rho_pilot, delta, tau, list(seeds), cfg,
                         metric=metric, reference=reference, budget_source="pilot: Eq. (4)",
                         data_source=public_source or "public pilot sample")
        out = run_paired(req, progress=_progress, should_stop=should_stop)
        paired.append(out)
        errs = {r.seed: r.error for r in out.runs}
        by_config.append([float(errs[s]) for s in seeds])
    cands = _candidates(configs, by_config, reach)
    rec = recommend([(c.method, c.tau, c.mean) for c in cands], tie_tol)
    return PilotResult(scaling, metric_name, seeds, cands, rec, reach, time.perf_counter() - t0, public_source,
                       config={"rounds": cfg.rounds, "population": cfg.sizes(), "release": cfg.release,
                               "threshold_h": cfg.threshold_h, "selection": cfg.selection, "delta": delta},
                       runs=paired)



def pilot_configs(taus: Sequence[float]) -> list[tuple[str, float | None, str]]:
    """The pilot's candidates in the order run_pilot runs them, Hard first, then BF-Soft at every tau
    of the grid, sorted and distinct.

    Parameters
    ----------
    taus : sequence of float
        The pilot's tau grid (distance units, > 0); duplicates are run once.

    Returns
    -------
    list of (str, float or None, str)
        (method, tau, label) per candidate: ('hard', None, 'Hard'), ('bf-soft', 0.03, 'BF-Soft tau=0.03'), ...

    Raises
    ------
    BlowfishError
        (check_tau) for a tau that is not a number > 0.
    """
    grid = sorted({check_tau(t) for t in taus})
    return [(HARD, None, "Hard")] + [(SOFT, t, f"BF-Soft tau={t:g}") for t in grid]


def pilot_plan(taus: Sequence[float], seeds: Sequence[int], rounds: int) -> list[Unit]:
    """The units of run_pilot for a live progress clock (workflows.progress.ProgressClock): one
    run_plan per candidate (pilot_configs), its label as the units' group, in the pilot's order.

    Parameters
    ----------
    taus : sequence of float
        The tau grid (as given to run_pilot).
    seeds : sequence of int
        The paired seeds.
    rounds : int
        Rounds T of the pilot's schedule (>= 1).

    Returns
    -------
    list of Unit
        (len(distinct taus) + 1) x len(seeds) units.

    Raises
    ------
    BlowfishError
        As :func:`pilot_configs` and workflows.progress.run_plan.
    """
    return [u for m, _t, label in pilot_configs(taus) for u in run_plan([m], list(seeds), rounds, group=label)]


def _check_pilot_inputs(schema: Schema, public: pd.DataFrame, taus: Sequence[float],
                        seeds: Sequence[int]) -> tuple[list[float], list[int]]:
    """(the sorted distinct taus, the seeds as ints), checked before any work: a non-empty public
    sample with the schema's columns, 1..MAX_GRID taus, 1..MAX_SEEDS seeds."""
    if not isinstance(public, pd.DataFrame) or len(public) == 0:
        raise BlowfishError("the public sample is empty. Fix: choose a held-out split, upload a public CSV "
                            "or generate public rows")
    schema.check_columns(public)
    taus = sorted({check_tau(t) for t in taus})
    if not taus:
        raise BudgetError("tau grid is empty. Fix: list at least one temperature")
    if len(taus) > MAX_GRID:
        raise BudgetError(f"tau grid: at most {MAX_GRID} temperatures (got {len(taus)})")
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise BlowfishError("give at least one seed")
    if len(seeds) > MAX_SEEDS:
        raise BlowfishError(f"at most {MAX_SEEDS} seeds per comparison (got {len(seeds)})")
    return taus, seeds


def _candidates(configs: list[tuple[str, float | None]], by_config: list[list[float]], reach: float
                ) -> list[PilotCandidate]:
    """One PilotCandidate per configuration: mean error, t-interval (stopped at 0), q and the
    paired reduction against Hard (the first configuration)."""
    hard_errs = np.array(by_config[0])
    cands: list[PilotCandidate] = []
    for (method, tau), errs in zip(configs, by_config):
        mean, lo, hi = t_interval(errs)
        if lo is not None:  # errors are >= 0: the interval stops at 0
            lo = max(float(lo), 0.0)
        red = None
        if method == SOFT:
            red = float(np.mean(relative_reduction(hard_errs, np.array(errs))))
        cands.append(PilotCandidate(method, tau, None if tau is None else noise_ratio(reach, tau),
                                    list(errs), mean, (lo, hi), red))
    return cands
