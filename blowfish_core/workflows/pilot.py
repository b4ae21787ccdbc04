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
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..privacy.accounting import (
    check_delta, check_rho, epsilon_exact, pilot_budget, pilot_scaling, split_budget,
)
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError, BudgetError
from ..algorithm.events import RoundEvent
from ..algorithm.evolution import SynthConfig
from ..algorithm import methods
from ..model.metrics import relative_reduction, t_interval
from ..synthesis.parsing import parse_positive_grid
from ..model.policy import Policy, record_reach
from ..synthesis.spec import MAX_SEEDS, RunRequest
from ..synthesis.experiment import PairedResult, run_paired
from ..model.schema import Schema
from ..model.sensitivity import noise_ratio, tau_for_noise_ratio
from ..model.votes import check_tau

#: the paper's pilot selector for Bank (App. F.8): tau grid, plus the tau giving q = PILOT_Q.
PAPER_TAU_GRID: tuple[float, ...] = (0.001, 0.003, 0.015, 0.03, 0.06, 0.12, 0.3, 0.6)
PILOT_Q = 0.2
#: default tie tolerance of :func:`recommend` (absolute, metric units): floating-point equality.
DEFAULT_TIE_TOL = 1e-9
#: at most this many temperatures per pilot grid.
MAX_GRID = 24

HARD = methods.HARD.name
SOFT = methods.BF_SOFT.name
#: smallest public sample the pilot accepts.  Eq. (4) scales the budget by (n_t/n_p)^2 to keep the
#: signal-to-noise ratio of the vote histograms, but with a few dozen records the marginals the
#: pilot scores (PWErr/HOERR over 20 bins or more) are themselves mostly sampling noise, so the
#: pilot's ranking says nothing about the private run (the paper's pilots use n_p = 3,000).
MIN_PILOT_ROWS = 50


# --------------------------------------------------------------------------
# Eq. (4) budget scaling
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class PilotScaling:
    """Eq. (4) with numbers.

    rho_target: target (private run) total zCDP budget.  factor: (n_t/n_p)^2.
    rho_pilot: rho_target * factor (total).  *_per_round: the equal (or weighted)
    split over ``rounds``; rho_pilot_per_round[t] = factor * rho_target_per_round[t].
    epsilon_target: epsilon (exact Gaussian curve) of the target run at ``delta``.
    """

    n_target: int
    n_pilot: int
    rho_target: float
    factor: float
    rho_pilot: float
    rounds: int
    rho_target_per_round: tuple[float, ...]
    rho_pilot_per_round: tuple[float, ...]
    delta: float
    epsilon_target: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_target": self.n_target, "n_pilot": self.n_pilot, "rho_target": self.rho_target,
            "factor": self.factor, "rho_pilot": self.rho_pilot, "rounds": self.rounds,
            "rho_target_per_round": list(self.rho_target_per_round),
            "rho_pilot_per_round": list(self.rho_pilot_per_round),
            "delta": self.delta, "epsilon_target": self.epsilon_target,
        }

    def explain(self) -> str:
        """One paragraph with the numbers of Eq. (4)."""
        return (
            f"Eq. (4): rho_p = rho_t (n_t / n_p)^2 = {self.rho_target:.4g} x ({self.n_target:,} / {self.n_pilot:,})^2 "
            f"= {self.rho_target:.4g} x {self.factor:.4g} = {self.rho_pilot:.4g}. "
            f"Per round (equal split over {self.rounds} rounds): {self.rho_target_per_round[0]:.4g} -> "
            f"{self.rho_pilot_per_round[0]:.4g}; scaling the total or every round's budget by the same factor "
            "is the same thing because each round gets a fixed share. The pilot's noise is then the same "
            "fraction of its histogram mass as the target's (sigma_p / n_p = sigma_t / n_t). "
            "No private budget is spent: the pilot reads public rows only."
        )


def scale_budget(rho_target: float, n_target: int, n_pilot: int, rounds: int = 8,
                 weights: Sequence[float] | None = None, delta: float = DEFAULT_DELTA) -> PilotScaling:
    """Eq. (4) budget of the pilot, total and per round.

    Adult: n_t 26,048, n_p 3,000 gives a factor of about 75.

    Parameters
    ----------
    rho_target : float
        zCDP total of the target run, > 0.
    n_target : int
        Rows of the private table, >= 1.
    n_pilot : int
        Rows of the public sample, >= 1.
    rounds : int, default 8
        Rounds, >= 1.
    weights : sequence of float, optional
        Per-round split (None = equal).
    delta : float, default DEFAULT_DELTA
        DP delta of the target's epsilon.

    Returns
    -------
    PilotScaling
        Eq. (4) with numbers.

    Raises
    ------
    BudgetError
        For out-of-range values (accounting.pilot_budget).
    """
    rho_target = check_rho(rho_target, name="rho (target budget)")
    delta = check_delta(delta)
    factor = pilot_scaling(n_target, n_pilot)
    rho_p = pilot_budget(rho_target, n_target, n_pilot)
    per_t = split_budget(rho_target, rounds, weights)
    per_p = np.array([pilot_budget(float(r), n_target, n_pilot) for r in per_t])
    return PilotScaling(int(n_target), int(n_pilot), rho_target, float(factor), float(rho_p), int(rounds),
                        tuple(float(x) for x in per_t), tuple(float(x) for x in per_p), delta,
                        float(epsilon_exact(rho_target, delta)))


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
# Recommendation with the tie rule
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Recommendation:
    """The pilot's choice.

    method: 'hard' or 'bf-soft'; tau: None for Hard.  mean: its mean public error.
    best_mean: the lowest mean; tied: the candidates (method, tau, mean) within
    ``tie_tol`` of it (the choice is one of them); reason: one sentence.
    """

    method: str
    tau: float | None
    mean: float
    best_mean: float
    tie_tol: float
    tied: tuple[tuple[str, float | None, float], ...]
    reason: str

    @property
    def label(self) -> str:
        return "Hard" if self.method == HARD else f"BF-Soft (tau = {self.tau:g})"

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "tau": self.tau, "mean": self.mean, "best_mean": self.best_mean,
                "tie_tol": self.tie_tol, "tied": [list(t) for t in self.tied], "reason": self.reason,
                "label": self.label}


def check_tie_tol(tie_tol: Any) -> float:
    """Validate the tie tolerance: a finite number >= 0.

    Parameters
    ----------
    tie_tol : float
        Absolute tolerance, metric units.

    Returns
    -------
    float
        The tolerance.

    Raises
    ------
    BlowfishError
        If it is a bool, not a number, not finite or negative.
    """
    if isinstance(tie_tol, bool) or not isinstance(tie_tol, (int, float, np.floating)) \
            or not math.isfinite(tie_tol) or tie_tol < 0:
        raise BlowfishError(f"tie tolerance must be a finite number >= 0 (got {tie_tol!r})")
    return float(tie_tol)


def recommend(candidates: Sequence[tuple[str, float | None, float]], tie_tol: float = DEFAULT_TIE_TOL) -> Recommendation:
    """Pick Hard or a tau by lowest mean public error; ties favour Hard, then the smaller tau.

    Parameters
    ----------
    candidates : sequence of (str, float or None, float)
        (method, tau, mean error) with method 'hard' (tau None) or 'bf-soft' (tau > 0); mean
        errors finite.
    tie_tol : float, default DEFAULT_TIE_TOL
        >= 0: a candidate ties with the best when ``mean - best_mean <= tie_tol`` (absolute,
        metric units).

    Returns
    -------
    Recommendation
        The choice, the tied candidates and the reason.

    Raises
    ------
    BlowfishError
        For an empty list, an unknown method, a non-finite mean or a negative/non-finite
        tolerance.
    BudgetError
        For a BF-Soft candidate without a valid tau.
    """
    tie_tol = check_tie_tol(tie_tol)
    if not candidates:
        raise BlowfishError("the pilot has no candidates to choose from. Fix: evaluate Hard and at least one tau")
    clean: list[tuple[str, float | None, float]] = []
    for method, tau, mean in candidates:
        if method not in (HARD, SOFT):
            raise BlowfishError(f"pilot candidate method must be '{HARD}' or '{SOFT}' (got {method!r})")
        if method == SOFT:
            if tau is None:
                raise BudgetError(f"pilot candidate {method}: tau must be a finite number > 0 (got None). Fix: give "
                                  "every BF-Soft candidate its temperature")
            tau = check_tau(tau)
        else:
            tau = None
        if not isinstance(mean, (int, float, np.floating)) or not math.isfinite(float(mean)):
            raise BlowfishError(f"pilot candidate {method} tau={tau}: mean error must be finite (got {mean!r})")
        clean.append((method, tau, float(mean)))
    best = min(c[2] for c in clean)
    tied = [c for c in clean if c[2] - best <= tie_tol]
    # Hard first, then the smaller tau (Hard sorts before every tau).
    tied.sort(key=lambda c: (c[0] != HARD, c[1] if c[1] is not None else -1.0))
    method, tau, mean = tied[0]
    if len(tied) == 1:
        reason = f"lowest mean public error ({mean:.4g})"
    else:
        names = ", ".join("Hard" if m == HARD else f"tau={t:g}" for m, t, _ in tied)
        rule = "Hard is preferred" if method == HARD else "the smallest tau is preferred"
        reason = (f"{len(tied)} candidates tie within {tie_tol:g} of the lowest mean {best:.4g} "
                  f"({names}); by the tie rule {rule}")
    return Recommendation(method, tau, mean, best, float(tie_tol), tuple(tied), reason)


# --------------------------------------------------------------------------
# Running the pilot
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class PilotCandidate:
    """One pilot configuration: Hard, or BF-Soft at one tau, over the paired seeds."""

    method: str
    tau: float | None
    q: float | None
    errors: list[float]
    mean: float
    ci95: tuple[float, float]
    reduction_vs_hard: float | None = None  # mean paired R_s (percent), BF-Soft only

    @property
    def label(self) -> str:
        return "Hard" if self.method == HARD else f"BF-Soft tau={self.tau:g}"

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "tau": self.tau, "q": self.q, "errors": list(self.errors),
                "mean": self.mean, "ci95": list(self.ci95), "reduction_vs_hard_percent": self.reduction_vs_hard,
                "label": self.label}


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
    configs: list[tuple[str, float | None]] = [(HARD, None)] + [(SOFT, t) for t in taus]
    t0 = time.perf_counter()
    by_config: list[list[float]] = []
    paired: list[PairedResult] = []
    metric_name = (metric or ("pwerr", None))[0]
    for k, (method, tau) in enumerate(configs, start=1):
        label = "Hard" if tau is None else f"BF-Soft tau={tau:g}"

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


# --------------------------------------------------------------------------
# Public samples
# --------------------------------------------------------------------------

def check_pilot_size(n_pilot: Any) -> int:
    """The public sample size n_p, checked: a whole number >= MIN_PILOT_ROWS.

    Parameters
    ----------
    n_pilot : int
        Rows of the public sample.

    Returns
    -------
    int
        n_p.

    Raises
    ------
    BlowfishError
        Naming n_p and why small pilots are refused.
    """
    if isinstance(n_pilot, bool) or not isinstance(n_pilot, (int, np.integer)):
        raise BlowfishError(f"pilot size n_p must be a whole number (got {n_pilot!r})")
    if n_pilot < MIN_PILOT_ROWS:
        raise BlowfishError(
            f"pilot size n_p = {int(n_pilot):,} rows is too small: use at least {MIN_PILOT_ROWS} (the paper uses "
            "3,000). With fewer rows the pilot's marginals are mostly sampling noise, so its ranking of tau "
            "says nothing about the private run")
    return int(n_pilot)


def recommendation_strength(candidates: Sequence[PilotCandidate], rec: Recommendation) -> dict[str, Any]:
    """Is the recommendation clear?  Compares its 95% interval with the runner-up's.

    Weak when the two t-intervals overlap, or when an interval is missing (one seed).

    Parameters
    ----------
    candidates : sequence of PilotCandidate
        The pilot's candidates.
    rec : Recommendation
        recommend(...) over them.

    Returns
    -------
    dict
        {"weak": bool, "runner_up": label or None, "reason": str}.
    """
    chosen = [c for c in candidates if c.method == rec.method and (c.tau == rec.tau)]
    others = [c for c in candidates if not (c.method == rec.method and c.tau == rec.tau)]
    if not chosen or not others:
        return {"weak": False, "runner_up": None, "reason": "only one candidate"}
    a = chosen[0]
    b = min(others, key=lambda c: c.mean)
    ca = a.ci95 if a.ci95 is not None else (None, None)
    cb = b.ci95 if b.ci95 is not None else (None, None)
    if None in (ca[0], ca[1], cb[0], cb[1]):
        return {"weak": True, "runner_up": b.label,
                "reason": f"no 95% intervals (one paired seed), so {a.label} cannot be told apart from {b.label}"}
    if ca[0] <= cb[1] and cb[0] <= ca[1]:
        return {"weak": True, "runner_up": b.label,
                "reason": f"the 95% intervals of {a.label} [{ca[0]:.4g}, {ca[1]:.4g}] and of the runner-up "
                          f"{b.label} [{cb[0]:.4g}, {cb[1]:.4g}] overlap"}
    return {"weak": False, "runner_up": b.label,
            "reason": f"its 95% interval does not overlap the runner-up's ({b.label})"}


def _rng(seed: int, purpose: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), 4391, int(purpose)]))


def _check_size(n: Any, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise BlowfishError(f"{name} must be a whole number >= 1 (got {n!r})")
    return int(n)


def subsample(public: pd.DataFrame, n_pilot: int, seed: int = 0) -> pd.DataFrame:
    """A seeded random subset of ``n_pilot`` rows of a public table (all rows when n_pilot == len).

    Rows keep their original order; the input is not modified.

    Parameters
    ----------
    public : pandas.DataFrame
        The public table.
    n_pilot : int
        Rows kept, 1 <= n_pilot <= len(public).
    seed : int, default 0
        Seed of the subset.

    Returns
    -------
    pandas.DataFrame
        The subset, index reset.

    Raises
    ------
    BlowfishError
        When n_pilot < 1 or exceeds the rows available.
    """
    n_pilot = _check_size(n_pilot, "pilot size n_p")
    if n_pilot > len(public):
        raise BlowfishError(f"pilot size n_p = {n_pilot:,} but only {len(public):,} public rows are available. "
                            f"Fix: choose n_p <= {len(public):,}")
    if n_pilot == len(public):
        return public.reset_index(drop=True)
    idx = np.sort(_rng(seed, 1).permutation(len(public))[:n_pilot])
    return public.iloc[idx].reset_index(drop=True)


def holdout_split(table: pd.DataFrame, n_pilot: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split an uploaded table into (private rows, held-out public rows), seeded and disjoint.

    Both parts keep the original row order and columns; the input is not modified.

    Parameters
    ----------
    table : pandas.DataFrame
        The uploaded table.
    n_pilot : int
        Rows held out uniformly at random, 1 <= n_pilot <= len(table) - 1.
    seed : int, default 0
        Seed of the split.

    Returns
    -------
    private, public : pandas.DataFrame
        The two parts, indexes reset.

    Raises
    ------
    BlowfishError
        For a size out of range.
    """
    n_pilot = _check_size(n_pilot, "pilot size n_p")
    if n_pilot >= len(table):
        raise BlowfishError(f"cannot hold out {n_pilot:,} of {len(table):,} rows: the private table would be "
                            f"empty. Fix: choose n_p < {len(table):,}")
    perm = _rng(seed, 2).permutation(len(table))
    pub = np.sort(perm[:n_pilot])
    priv = np.sort(perm[n_pilot:])
    return table.iloc[priv].reset_index(drop=True), table.iloc[pub].reset_index(drop=True)
