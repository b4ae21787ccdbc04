"""Accuracy-first budget from public data: the smallest budget that reaches a target error (issue 16).

The user gives a target error (the preset's metric: PWErr, or HOErr on XOR-k).  The public-data
pilot (paper §6.2.4, Eq. (4); pilot.py) runs Hard and the recommended BF-Soft on PUBLIC rows
only, at the pilot budget ``rho_p = rho (n_t / n_p)^2`` (accounting.pilot_budget), so that its
noise is the same fraction of the histogram mass as the private run's would be at ``rho``.
For each method the search

1. evaluates a log grid of target budgets rho (from epsilon_min to epsilon_max at ``delta``,
   the exact Gaussian curve), paired seeds, and takes the first grid budget whose mean public
   error is <= the target (scanning upwards);
2. refines between it and the grid budget below by bisection in log rho on the mean error
   (assumed monotone between the two; noise can make it locally non-monotone: the answer is
   then the first crossing the search meets);
3. reads the budget's interval off the 95% t-intervals of the evaluated points: the budget at
   which the interval's low end reaches the target (optimistic) and at which its high end does
   (conservative), interpolated linearly in log rho.

The returned budget is the cheaper method's (ties favour Hard, the pilot's tie rule); it is an
evaluated budget whose mean pilot error reaches the target, and the bracket below it
(``rho_below``) does not.  BudgetError when neither method reaches the target within the cap.

Privacy: the search takes ``public_df`` and the private table's row COUNT ``n_target`` (Eq. (4)
needs only the count), never the private table; no private budget is spent.  The guidance holds
when public and private rows share a distribution (§6.2.4).
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..privacy.accounting import (
    check_delta,
    check_epsilon,
    epsilon_exact,
    pilot_budget,
    rho_from_epsilon_exact,
)
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError, BudgetError
from ..algorithm.events import RoundEvent
from ..algorithm.config import SynthConfig
from ..synthesis.spec import MAX_SEEDS, RunRequest
from ..synthesis.experiment import run_paired
from ..algorithm.methods import BASELINE, SOFT, get_method
from ..model.metrics import t_interval
from .pilot_samples import check_pilot_size
from ..model.policy import Policy
from ..model.schema import Schema
from .formatting import fmt_sig
from ..model.votes import check_tau

HARD, BF_SOFT = BASELINE.name, SOFT.name
#: search range (epsilon at delta, exact Gaussian curve) and effort defaults.
EPSILON_MIN, EPSILON_MAX = 0.01, 10.0
GRID_POINTS, REFINE_STEPS = 7, 5
MAX_GRID_POINTS, MAX_REFINE_STEPS = 24, 20
#: display names of the metrics.
METRIC_NAMES = {"pwerr": "PWErr", "hoerr": "HOErr"}

PUBLIC_ONLY_NOTE = ("Computed on public rows only (Eq. (4) scales the budget by (n_t / n_p)^2 using the private "
                    "table's row count); no private record is read and no private budget is spent. The guidance "
                    "holds when the public rows and the private table share a distribution (paper §6.2.4).")


@dataclass(frozen=True)
class BudgetPoint:
    """One evaluated target budget: rho (target side), rho_pilot (Eq. (4)), epsilon at delta
    (exact curve), the per-seed pilot errors, their mean and 95% t-interval (None, None with
    one seed; low end clipped at 0)."""

    rho: float
    rho_pilot: float
    epsilon: float
    errors: tuple[float, ...]
    mean: float
    ci95: tuple[float | None, float | None]

    def to_dict(self) -> dict[str, Any]:
        return {"rho": self.rho, "rho_pilot": self.rho_pilot, "epsilon": self.epsilon, "errors": list(self.errors),
                "mean": self.mean, "ci95": list(self.ci95)}


@dataclass(frozen=True)
class MethodBudget:
    """The search for one method.

    reachable: some evaluated budget within the cap has mean error <= target.
    rho / epsilon: the smallest such budget found (an evaluated point); rho_below: the
    evaluated budget just below it whose mean does not reach the target (None when the
    lowest grid budget already reaches it).  rho_interval / epsilon_interval: (optimistic,
    conservative) budgets from the 95% intervals (an end is None when it is not reached
    within the cap, both None with one seed).  points: every evaluated budget, by rho.
    """

    method: str
    tau: float | None
    reachable: bool
    rho: float | None
    epsilon: float | None
    rho_below: float | None
    rho_interval: tuple[float | None, float | None]
    epsilon_interval: tuple[float | None, float | None]
    points: tuple[BudgetPoint, ...]

    @property
    def label(self) -> str:
        return get_method(self.method).label + ("" if self.tau is None else f" (τ = {fmt_sig(self.tau, 2)})")

    @property
    def best_mean(self) -> float:
        return min(p.mean for p in self.points)

    def point(self, rho: float) -> BudgetPoint:
        """The evaluated point at ``rho`` (KeyError if not evaluated)."""
        for p in self.points:
            if p.rho == rho:
                return p
        raise KeyError(rho)

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "tau": self.tau, "label": self.label, "reachable": self.reachable,
                "rho": self.rho, "epsilon": self.epsilon, "rho_below": self.rho_below,
                "rho_interval": list(self.rho_interval), "epsilon_interval": list(self.epsilon_interval),
                "points": [p.to_dict() for p in self.points]}


@dataclass(frozen=True)
class AccuracyBudget:
    """The accuracy-first budget: the cheaper method's smallest budget reaching the target.

    method, tau, label: the chosen method; rho, epsilon (at delta, exact curve): its budget;
    rho_interval, epsilon_interval: its interval; per_method: both searches (evidence).
    """

    target_error: float
    metric: str
    delta: float
    n_target: int
    n_pilot: int
    factor: float
    method: str
    tau: float | None
    rho: float
    epsilon: float
    rho_interval: tuple[float | None, float | None]
    epsilon_interval: tuple[float | None, float | None]
    per_method: dict[str, MethodBudget]
    seeds: tuple[int, ...]
    epsilon_cap: float
    seconds: float
    public_source: str = ""
    note: str = PUBLIC_ONLY_NOTE
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.per_method[self.method].label

    def explain(self) -> str:
        """One paragraph in plain words (the page's 'use this budget' text)."""
        lo, hi = self.epsilon_interval
        if lo is None and hi is None:
            ivl = ""
        else:
            upper = "beyond the cap" if hi is None else fmt_sig(hi, 2)
            ivl = f" (95% range: ε from {fmt_sig(lo, 2)} to {upper})"
        metric = METRIC_NAMES.get(self.metric, self.metric)
        head = (f"On the public pilot, {self.label} reaches {metric} ≤ {fmt_sig(self.target_error, 3)} at "
                f"ε ≈ {fmt_sig(self.epsilon, 2)} (δ = {fmt_sig(self.delta, 2)}; ρ = {fmt_sig(self.rho, 3)}){ivl}.")
        parts = [head]
        for m, mb in self.per_method.items():
            if m == self.method:
                continue
            parts.append(f"{mb.label} needs ε ≈ {fmt_sig(mb.epsilon, 2)}." if mb.reachable else
                         (f"{mb.label} does not reach it within ε ≤ {fmt_sig(self.epsilon_cap, 2)} "
                          f"(lowest mean {fmt_sig(mb.best_mean, 3)})."))
        parts.append(f"{self.n_pilot:,} public rows, {len(self.seeds)} paired seeds. " + self.note)
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"target_error": self.target_error, "metric": self.metric, "delta": self.delta,
                "n_target": self.n_target, "n_pilot": self.n_pilot, "factor": self.factor, "method": self.method,
                "tau": self.tau, "label": self.label, "rho": self.rho, "epsilon": self.epsilon,
                "rho_interval": list(self.rho_interval), "epsilon_interval": list(self.epsilon_interval),
                "per_method": {k: v.to_dict() for k, v in self.per_method.items()}, "seeds": list(self.seeds),
                "epsilon_cap": self.epsilon_cap, "seconds": self.seconds, "public_source": self.public_source,
                "note": self.note, "config": self.config}


def attainable_target(pilot: Any) -> tuple[float, float, float] | None:
    """A default target error inside what the public pilot found attainable (issue 24).

    The pilot (pilot.run_pilot) ran Hard and BF-Soft on the same public rows, schedule and seeds the
    search uses, at the session's budget: its candidates' mean errors span [low, high] there, and
    its recommendation reached its own mean.  The default is that mean rounded up to two
    significant figures (a round number the recommended method reaches at the session's budget),
    kept within [low, high].

    Parameters
    ----------
    pilot : PilotResult or None
        The pilot's result (its ``recommendation.mean`` and ``candidates``' means), or None.

    Returns
    -------
    tuple of (float, float, float) or None
        (target, low, high); None without a pilot or with no finite mean.
    """
    if pilot is None:
        return None
    means = [float(c.mean) for c in getattr(pilot, "candidates", []) if math.isfinite(float(c.mean))]
    rec = float(getattr(getattr(pilot, "recommendation", None), "mean", math.nan))
    if not means or not math.isfinite(rec) or rec <= 0:
        return None
    lo, hi = min(means), max(means)
    step = 10.0 ** (math.floor(math.log10(rec)) - 1)
    up = float(f"{math.ceil(rec / step - 1e-9) * step:.2g}")
    return min(max(up, rec), max(hi, rec)), lo, hi


def _whole(x: Any, name: str, lo: int, hi: int | None = None) -> int:
    v = int(x) if isinstance(x, numbers.Integral) and not isinstance(x, bool) else None
    if v is None or v < lo or (hi is not None and v > hi):
        rng = f">= {lo}" if hi is None else f"between {lo} and {hi}"
        raise BlowfishError(f"{name} must be a whole number {rng} (got {x!r})")
    return v


def _first_reaching(points: Sequence[BudgetPoint], stat: Callable[[BudgetPoint], float | None],
                    target: float) -> float | None:
    """Smallest rho where stat(point) <= target, interpolated in log rho with the point below."""
    prev = None
    for p in points:
        v = stat(p)
        if v is None:
            return None
        if v <= target:
            v0 = None if prev is None else stat(prev)
            if prev is None or v0 is None:
                return p.rho
            x0, x1 = math.log(prev.rho), math.log(p.rho)
            frac = (v0 - target) / (v0 - v) if v0 != v else 1.0
            return float(math.exp(x0 + (x1 - x0) * min(max(frac, 0.0), 1.0)))
        prev = p
    return None


def accuracy_first_budget(
    schema: Schema,
    policy: Policy,
    public_df: pd.DataFrame,
    target_error: float,
    n_target: int,
    tau: float | None,
    seeds: Sequence[int] = (0, 1, 2),
    config: SynthConfig | None = None,
    metric: tuple[str, Callable] | None = None,
    delta: float = DEFAULT_DELTA,
    epsilon_min: float = EPSILON_MIN,
    epsilon_max: float = EPSILON_MAX,
    grid_points: int = GRID_POINTS,
    refine_steps: int = REFINE_STEPS,
    public_source: str = "",
    progress: Callable[[dict[str, Any]], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    cap_name: str = "the cap (epsilon_max)",
) -> AccuracyBudget:
    """Smallest budget at which Hard and the recommended BF-Soft reach ``target_error`` on the pilot.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.
    public_df : pandas.DataFrame
        PUBLIC rows with the schema's columns (n_p = len >= pilot.MIN_PILOT_ROWS).
    target_error : float
        > 0, in the metric's units (PWErr / HOErr in [0, 2]).
    n_target : int
        The private table's row count (a whole number; Eq. (4)).
    tau : float or None
        The pilot's recommended BF-Soft temperature (run_pilot(...).recommendation.tau); None
        when the pilot recommended Hard (then only Hard is searched).
    seeds : sequence of int, default (0, 1, 2)
        Paired seeds.
    config : SynthConfig, optional
        The schedule (default SynthConfig()).
    metric : (str, callable), optional
        (name, fn) as in run_pilot (default PWErr).
    delta : float, default DEFAULT_DELTA
        Reporting DP delta.
    epsilon_min, epsilon_max : float, default EPSILON_MIN, EPSILON_MAX
        The search range (the cap) in epsilon at delta (exact curve).
    grid_points : int, default GRID_POINTS
        Log-spaced budgets of the grid (2..24).
    refine_steps : int, default REFINE_STEPS
        Bisections (0..20).
    public_source : str, default ''
        Where the public rows came from, for the report.
    progress : callable, optional
        progress(event): run_synthesis events plus 'phase' ('grid' | 'refine'), 'method', 'rho'.
    should_stop : callable, optional
        Polled during the runs; True stops the search.
    cap_name : str, default 'the cap (epsilon_max)'
        How the front end names epsilon_max, for the fix of an unreached target (the app: its
        control's label).

    Returns
    -------
    AccuracyBudget
        The cheaper method's budget, its interval and both searches.

    Raises
    ------
    BlowfishError, BudgetError
        For bad settings (before any work).
    BudgetError
        When neither method reaches the target within epsilon_max.
    """
    n_target, n_pilot, target, tau, delta, e_lo, e_hi, grid_points, refine_steps, seeds = _checked_settings(
        schema, policy, public_df, target_error, n_target, tau, seeds, delta, epsilon_min, epsilon_max, grid_points,
        refine_steps)
    cfg = (config or SynthConfig()).validate()
    methods = [HARD] + ([BF_SOFT] if tau is not None else [])
    metric_name = (metric or ("pwerr", None))[0]

    t0 = time.perf_counter()
    evaluated: dict[str, dict[float, BudgetPoint]] = {m: {} for m in methods}

    evaluate = _evaluator(schema, policy, public_df, n_target, n_pilot, delta, tau, seeds, cfg, metric, public_source,
                          progress, should_stop, evaluated)

    r_lo, r_hi = rho_from_epsilon_exact(e_lo, delta), rho_from_epsilon_exact(e_hi, delta)
    grid = [float(x) for x in np.exp(np.linspace(math.log(r_lo), math.log(r_hi), grid_points))]
    grid[0], grid[-1] = r_lo, r_hi
    for rho in grid:
        evaluate(rho, methods, "grid")

    per = {m: _method_budget(m, grid, evaluated, evaluate, target, refine_steps, seeds, tau, delta) for m in methods}

    reachable = [mb for mb in per.values() if mb.reachable]
    if not reachable:
        raise _not_reached(per, metric_name, target, e_hi, delta, cap_name)
    chosen = min(reachable, key=lambda mb: (mb.rho, mb.method != HARD))
    # a reachable search has its budget (_method_budget sets rho and epsilon with reachable)
    rho, epsilon = cast(float, chosen.rho), cast(float, chosen.epsilon)
    return AccuracyBudget(
        target, metric_name, delta, n_target, n_pilot, float((n_target / n_pilot) ** 2), chosen.method, chosen.tau,
        float(rho), float(epsilon), chosen.rho_interval, chosen.epsilon_interval, per, tuple(seeds), e_hi,
        time.perf_counter() - t0, public_source,
        config={"rounds": cfg.rounds, "population": cfg.sizes(), "release": cfg.release,
                "grid_points": grid_points, "refine_steps": refine_steps, "epsilon_min": e_lo})


def _checked_settings(schema, policy, public_df, target_error, n_target, tau, seeds, delta, epsilon_min, epsilon_max,
                      grid_points, refine_steps):
    """Every setting of accuracy_first_budget checked before any work. Returns (n_target, n_pilot,
    target, tau, delta, e_lo, e_hi, grid_points, refine_steps, seeds)."""
    if isinstance(n_target, pd.DataFrame) or not isinstance(n_target, numbers.Integral):
        raise BlowfishError("n_target is the private table's row count (a whole number), not a table: the "
                            "accuracy-first budget reads public rows only")
    n_target = _whole(n_target, "n_target (private row count)", 1)
    if not isinstance(public_df, pd.DataFrame) or len(public_df) == 0:
        raise BlowfishError("public_df: give the public rows (a non-empty table)")
    n_pilot = check_pilot_size(len(public_df))
    schema.check_columns(public_df)
    policy.validate(schema)
    if isinstance(target_error, bool) or not isinstance(target_error, numbers.Real) \
            or not math.isfinite(target_error) or target_error <= 0:
        raise BudgetError(f"target error must be a finite number > 0 in the metric's units (got {target_error!r})")
    target = float(target_error)
    tau = None if tau is None else check_tau(tau)
    delta = check_delta(delta)
    e_lo = check_epsilon(epsilon_min, name="epsilon_min")
    e_hi = check_epsilon(epsilon_max, name="epsilon_max (the cap)")
    if e_lo >= e_hi:
        raise BudgetError(f"epsilon_min must be below epsilon_max (got {e_lo:g} >= {e_hi:g})")
    grid_points = _whole(grid_points, "grid_points", 2, MAX_GRID_POINTS)
    refine_steps = _whole(refine_steps, "refine_steps", 0, MAX_REFINE_STEPS)
    seeds = tuple(int(_whole(s, "seed", 0)) for s in seeds)
    if not seeds or len(seeds) > MAX_SEEDS:
        raise BlowfishError(f"give 1 to {MAX_SEEDS} paired seeds (got {len(seeds)})")
    return n_target, n_pilot, target, tau, delta, e_lo, e_hi, grid_points, refine_steps, seeds


def _evaluator(schema, policy, public_df, n_target, n_pilot, delta, tau, seeds, cfg, metric, public_source, progress,
               should_stop, evaluated):
    """``evaluate(rho, methods, phase)``: the paired pilot runs at the Eq. (4) budget of rho, each
    method's errors stored in ``evaluated[method][rho]`` as a BudgetPoint."""

    def evaluate(rho: float, which: list[str], phase: str) -> None:
        rho_p = pilot_budget(rho, n_target, n_pilot)

        def _progress(ev: RoundEvent) -> None:
            if progress is not None:
                progress({**ev, "phase": phase, "rho": rho})

        req = RunRequest(schema, policy, public_df, which, rho_p, delta, tau, list(seeds), cfg, metric=metric,
                         budget_source="accuracy-first pilot: Eq. (4)",
                         data_source=public_source or "public pilot sample")
        res = run_paired(req, progress=_progress, should_stop=should_stop)
        eps = float(epsilon_exact(rho, delta))
        for m in which:
            errs = tuple(float(x) for x in res.errors(m))
            mean, lo, hi = t_interval(errs)
            ci = (None, None) if len(errs) < 2 else (max(float(lo), 0.0), float(hi))
            evaluated[m][rho] = BudgetPoint(float(rho), float(rho_p), eps, errs, float(mean), ci)

    return evaluate


def _method_budget(m, grid, evaluated, evaluate, target, refine_steps, seeds, tau, delta) -> MethodBudget:
    """Method m's budget: the first grid point reaching ``target``, refined by geometric bisection
    against the point below it; the interval from the points' CIs."""
    found = next((k for k, rho in enumerate(grid) if evaluated[m][rho].mean <= target), None)
    rho_hit = rho_below = None
    if found is not None:
        rho_hit = grid[found]
        if found > 0:
            rho_below = grid[found - 1]
            for _ in range(refine_steps):
                mid = math.sqrt(rho_below * rho_hit)
                if not rho_below < mid < rho_hit:
                    break
                evaluate(mid, [m], "refine")
                if evaluated[m][mid].mean <= target:
                    rho_hit = mid
                else:
                    rho_below = mid
    pts = tuple(evaluated[m][r] for r in sorted(evaluated[m]))
    ivl = (_first_reaching(pts, lambda p: p.ci95[0], target), _first_reaching(pts, lambda p: p.ci95[1], target))
    if len(seeds) < 2:
        ivl = (None, None)
    lo_r, hi_r = ivl
    eivl = (None if lo_r is None else float(epsilon_exact(lo_r, delta)),
            None if hi_r is None else float(epsilon_exact(hi_r, delta)))
    return MethodBudget(m, tau if m == BF_SOFT else None, found is not None, rho_hit,
                        None if rho_hit is None else float(epsilon_exact(rho_hit, delta)), rho_below,
                        ivl, eivl, pts)


def _not_reached(per, metric_name, target, e_hi, delta, cap_name) -> BudgetError:
    """The refusal when no method reaches the target within the cap: the lowest mean error seen."""
    best = min(per.values(), key=lambda mb: mb.best_mean)
    bp = min(best.points, key=lambda p: p.mean)
    return BudgetError(
        f"target {metric_name} <= {fmt_sig(target, 3)} is not reached on the public pilot within "
        f"epsilon <= {fmt_sig(e_hi, 2)} (delta = {fmt_sig(delta, 2)}): the lowest mean error was "
        f"{fmt_sig(bp.mean, 3)} ({best.label} at epsilon {fmt_sig(bp.epsilon, 2)}). Fix: raise the target "
        f"error above that, or raise {cap_name}")
