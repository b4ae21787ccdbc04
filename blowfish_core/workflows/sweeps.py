"""Budget sweeps, the §6.2.3 decomposition and per-run analyses for the Runner.

* Budget sweep (Figure 2, App. F.3): mean error of Hard and BF-Soft over a small
  grid of rho with paired seeds, and the interpolated crossing budget (first sign
  change of mean(E_S - E_H), linear in log rho; metrics.crossing_budget) with its
  epsilon (exact Gaussian curve and Eq. (1)).
* Decomposition (§6.2.3, Eq. (3)): C = E_M - E_H (smoothing cost at matched noise),
  N = E_M - E_S (noise benefit), G = E_H - E_S = N - C, where E_M is the soft vote
  with Hard's noise (method 'soft-hard-noise'); computed by report.summarize.
* Per-round error: the metric of every round's candidate population C_t
  (unweighted) against the reference, and of the final release.
* Real vs synthetic 1-way and 2-way marginals (metrics.bin_codes / marginal).

Every number here is evaluation only (computed against real data); none is
part of a private release.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..privacy.accounting import check_delta, check_epsilon, check_rho, epsilon_eq1, epsilon_exact, rho_from_epsilon_exact
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError, BudgetError
from ..algorithm.events import RoundEvent
from ..algorithm.config import SynthConfig
from ..algorithm.result import SynthResult
from ..model.metrics import NUMERIC_BINS, bin_codes, crossing_budget, marginal
from ..model.policy import Policy
from ..synthesis.spec import MAX_SEEDS, RunRequest
from ..synthesis.experiment import run_paired
from ..model.schema import Attribute, Schema
from ..algorithm.methods import BASELINE, SOFT
from ..synthesis.parsing import parse_positive_grid

_HARD, _SOFT = BASELINE.name, SOFT.name  # the swept pair (method table roles)

#: the paper's highlighted budgets (§6.2.2) plus one weaker budget: a small default grid.
DEFAULT_RHO_GRID: tuple[float, ...] = (1e-4, 6e-4, 3e-3, 1e-2)
#: at most this many budgets per sweep.
MAX_RHO_GRID = 12
#: the name round_errors' progress events carry (the step after the runs: workflows.progress.ANALYSIS).
ROUND_ERRORS_STEP = "errors by round"


# --------------------------------------------------------------------------
# Budget sweep
# --------------------------------------------------------------------------

def parse_epsilon_grid(text: str, delta: float = DEFAULT_DELTA) -> list[float]:
    """Budgets given as epsilon at ``delta`` ("0.05, 0.1, 0.5") -> the sweep's rho grid (issue 24).

    Each epsilon is converted with the exact Gaussian curve, the curve the sweep reports its
    epsilon axis with, so the points sit at the epsilons typed.

    Parameters
    ----------
    text : str
        Comma-separated budgets (epsilon > 0).
    delta : float, default DEFAULT_DELTA
        The sweep's DP delta, in (0, 1).

    Returns
    -------
    list of float
        The budgets as zCDP rho, ascending.

    Raises
    ------
    BudgetError
        Naming the bad entry (not a number, epsilon <= 0), a bad delta, fewer than 2 budgets or
        more than MAX_RHO_GRID.
    """
    delta = check_delta(delta)
    eps = parse_positive_grid(text, "budget grid", "epsilon", "budgets like 0.05, 0.1, 0.5",
                              lambda e: check_epsilon(e, name="epsilon"))
    if len(eps) < 2:
        raise BudgetError(f"budget grid needs at least 2 distinct budgets (got {len(eps)}). Fix: e.g. 0.05, 0.1, 0.5")
    if len(eps) > MAX_RHO_GRID:
        raise BudgetError(f"budget grid: at most {MAX_RHO_GRID} budgets (got {len(eps)})")
    return sorted(float(rho_from_epsilon_exact(e, delta)) for e in eps)


def parse_rho_grid(text: str) -> list[float]:
    """Budgets from text like "1e-4, 6e-4, 3e-3" -> sorted distinct floats.

    Parameters
    ----------
    text : str
        Comma-separated budgets (zCDP rho).

    Returns
    -------
    list of float
        The budgets, ascending.

    Raises
    ------
    BudgetError
        Naming the bad entry (not a number, rho <= 0), when fewer than 2 budgets are given (a
        crossing needs two), or more than MAX_RHO_GRID.
    """
    out = parse_positive_grid(text, "budget grid", "rho", "budgets like 1e-4, 1e-3", check_rho)
    if len(out) < 2:
        raise BudgetError(f"budget grid needs at least 2 distinct budgets (got {len(out)}). Fix: e.g. 1e-4, 1e-3, 1e-2")
    if len(out) > MAX_RHO_GRID:
        raise BudgetError(f"budget grid: at most {MAX_RHO_GRID} budgets (got {len(out)})")
    return sorted(out)


@dataclass
class SweepPoint:
    """Hard and BF-Soft at one budget: per-seed errors, means and 95% t-intervals."""

    rho: float
    epsilon_exact: float
    hard: dict[str, Any]
    soft: dict[str, Any]
    reduction: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return {"rho": self.rho, "epsilon_exact": self.epsilon_exact, "hard": self.hard, "bf_soft": self.soft,
                "relative_reduction_bf_soft_vs_hard": self.reduction}


def _ci(summary: dict[str, Any]) -> tuple[float | None, float | None]:
    """(low, high) of a summary's ci95; (None, None) when it is missing (one seed)."""
    ci = summary.get("ci95") or [None, None]
    return ci[0], ci[1]


@dataclass
class SweepResult:
    """A budget sweep (JSON-able via to_dict).

    crossing_rho: interpolated budget where mean BF-Soft error meets mean Hard
    error (None when the sign never changes on the grid); crossing_epsilon_exact /
    _eq1: its epsilon at ``delta``.
    """

    metric: str
    tau: float
    delta: float
    seeds: list[int]
    points: list[SweepPoint]
    crossing_rho: float | None
    crossing_epsilon_exact: float | None
    crossing_epsilon_eq1: float | None
    seconds: float
    config: dict[str, Any] = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """One row per budget: rho, epsilon, Hard mean/CI, BF-Soft mean/CI, R_s mean (%)."""
        return pd.DataFrame([{
            "rho": p.rho, "epsilon (exact)": p.epsilon_exact,
            "Hard mean": p.hard["mean"], "Hard ci_low": _ci(p.hard)[0], "Hard ci_high": _ci(p.hard)[1],
            "BF-Soft mean": p.soft["mean"], "BF-Soft ci_low": _ci(p.soft)[0], "BF-Soft ci_high": _ci(p.soft)[1],
            "R_s (%)": p.reduction["mean_percent"] if p.reduction else None,
        } for p in self.points])

    def crossing_text(self) -> str:
        if self.crossing_rho is None:
            lo, hi = self.points[0].rho, self.points[-1].rho
            sign = np.sign(self.points[0].soft["mean"] - self.points[0].hard["mean"])
            who = "BF-Soft" if sign < 0 else "Hard"
            return (f"No crossing on this grid: {who} has the lower mean error at every budget from "
                    f"rho = {lo:.3g} to {hi:.3g}.")
        return (f"Crossing budget rho = {self.crossing_rho:.4g} (epsilon = {self.crossing_epsilon_exact:.4g} exact, "
                f"{self.crossing_epsilon_eq1:.4g} by Eq. (1), at delta = {self.delta:g}); interpolated linearly "
                "in log rho between the grid points where mean(E_S - E_H) changes sign (App. F.3).")

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "tau": self.tau, "delta": self.delta, "seeds": list(self.seeds),
                "points": [p.to_dict() for p in self.points], "crossing_rho": self.crossing_rho,
                "crossing_epsilon_exact": self.crossing_epsilon_exact,
                "crossing_epsilon_eq1": self.crossing_epsilon_eq1, "seconds": self.seconds, "config": self.config}


def budget_sweep(
    schema: Schema,
    policy: Policy,
    data: pd.DataFrame,
    rhos: Sequence[float],
    tau: float,
    seeds: Sequence[int],
    config: SynthConfig | None = None,
    metric: tuple[str, Callable] | None = None,
    delta: float = DEFAULT_DELTA,
    reference: pd.DataFrame | None = None,
    data_source: str = "",
    progress: Callable[[dict[str, Any]], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> SweepResult:
    """Hard vs BF-Soft at every rho of a grid, paired seeds; crossing budget (App. F.3).

    Every budget runs experiment.run_paired with methods [hard, bf-soft], so each point equals
    a CLI run with the same settings.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.
    data : pandas.DataFrame
        The private table.
    rhos : sequence of float
        >= 2 budgets (zCDP, each > 0; sorted here), at most MAX_RHO_GRID.
    tau : float
        Softmax temperature of BF-Soft, > 0.
    seeds : sequence of int
        Paired seeds, at most MAX_SEEDS.
    config : SynthConfig, optional
        The schedule (default SynthConfig()).
    metric : (str, callable), optional
        (name, metric function) of the error (default PWErr).
    delta : float, default DEFAULT_DELTA
        DP delta of the reported epsilons.
    reference : pandas.DataFrame, optional
        The table the error is measured against (default ``data``).
    data_source : str, default ''
        Where ``data`` came from, for the report.
    progress : callable, optional
        progress(event) receives run_synthesis events plus 'point', 'points' and 'rho'.
    should_stop : callable, optional
        Polled during the runs; True stops the sweep.

    Returns
    -------
    SweepResult
        One point per budget and the crossing budget with its epsilon.

    Raises
    ------
    BlowfishError, BudgetError
        Before any work, for bad settings.
    RunStopped
        When should_stop() turns True.
    """
    rhos = sorted({check_rho(r) for r in rhos})
    if len(rhos) < 2:
        raise BudgetError("budget grid needs at least 2 distinct budgets. Fix: e.g. 1e-4, 1e-3, 1e-2")
    if len(rhos) > MAX_RHO_GRID:
        raise BudgetError(f"budget grid: at most {MAX_RHO_GRID} budgets (got {len(rhos)})")
    delta = check_delta(delta)
    seeds = [int(s) for s in seeds]
    if len(seeds) > MAX_SEEDS:
        raise BlowfishError(f"at most {MAX_SEEDS} seeds per comparison (got {len(seeds)})")
    cfg = (config or SynthConfig()).validate()
    # validate everything (tau, seeds, policy) once before any work
    from ..synthesis.spec import validate_request
    validate_request(RunRequest(schema, policy, data, [_HARD, _SOFT], rhos[0], delta, tau, seeds, cfg))
    t0 = time.perf_counter()
    points: list[SweepPoint] = []
    metric_name = "pwerr"
    for k, rho in enumerate(rhos, start=1):
        def _progress(ev: RoundEvent, k=k, rho=rho) -> None:
            if progress is not None:
                progress({**ev, "point": k, "points": len(rhos), "rho": rho})

        req = RunRequest(schema, policy, data, [_HARD, _SOFT], rho, delta, tau, seeds, cfg, metric=metric,
                         reference=reference, data_source=data_source)
        res = run_paired(req, progress=_progress, should_stop=should_stop)
        metric_name, summary = res.metric_name, res.summary
        pm = summary["per_method"]
        errs = {m: res.errors(m) for m in (_HARD, _SOFT)}
        points.append(SweepPoint(
            rho, float(epsilon_exact(rho, delta)),
            {"mean": pm[_HARD]["mean"], "ci95": list(pm[_HARD]["ci95"] or [None, None]), "errors": errs[_HARD]},
            {"mean": pm[_SOFT]["mean"], "ci95": list(pm[_SOFT]["ci95"] or [None, None]), "errors": errs[_SOFT]},
            summary.get("relative_reduction_bf_soft_vs_hard"),
        ))
    cross = crossing_budget([p.rho for p in points], [p.hard["mean"] for p in points],
                            [p.soft["mean"] for p in points])
    return SweepResult(
        metric_name, float(tau), delta, seeds, points, cross,
        None if cross is None else float(epsilon_exact(cross, delta)),
        None if cross is None else float(epsilon_eq1(cross, delta)),
        time.perf_counter() - t0,
        config={"rounds": cfg.rounds, "population": cfg.sizes(), "release": cfg.release,
                "threshold_h": cfg.threshold_h, "selection": cfg.selection},
    )


# --------------------------------------------------------------------------
# Decomposition (§6.2.3)
# --------------------------------------------------------------------------

DECOMPOSITION_TERMS = (
    ("C_smoothing_cost", "C = E_M - E_H", "smoothing cost of the soft vote at Hard's noise"),
    ("N_noise_benefit", "N = E_M - E_S", "benefit of the policy-specific noise reduction"),
    ("G_gain", "G = E_H - E_S = N - C", "BF-Soft's gain over Hard (positive favours BF-Soft)"),
)


def decomposition_table(report: dict[str, Any]) -> pd.DataFrame | None:
    """C, N, G (Eq. (3)) from a run_paired report with hard, bf-soft and soft-hard-noise.

    Parameters
    ----------
    report : dict
        A run_paired report.

    Returns
    -------
    pandas.DataFrame or None
        Columns term, formula, meaning, mean, ci_low, ci_high; None when the report lacks one
        of the three methods.
    """
    dec = report.get("summary", {}).get("decomposition")
    if not dec:
        return None
    rows = []
    for key, formula, meaning in DECOMPOSITION_TERMS:
        mean, lo, hi = dec[key]
        rows.append({"term": key.split("_")[0], "formula": formula, "meaning": meaning,
                     "mean": float(mean), "ci_low": None if lo is None else float(lo),
                     "ci_high": None if hi is None else float(hi)})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------
# Per-round error
# --------------------------------------------------------------------------

def round_errors(schema: Schema, X_ref: np.ndarray, results: Sequence[SynthResult],
                 metric_fn: Callable[[Schema, np.ndarray, np.ndarray], float],
                 progress: Callable[[dict[str, Any]], None] | None = None) -> pd.DataFrame:
    """Error of every round's candidate population C_t and of the release.

    The population error is unweighted (every candidate counts once); the release is drawn from
    C_T by the last noisy counts, so its error differs from C_T's.

    Parameters
    ----------
    schema : Schema
        The public domain.
    X_ref : (n, p) float ndarray
        Encoded reference (the private table for the Runner).
    results : sequence of SynthResult
        SynthResults produced with keep_populations=True.
    metric_fn : callable
        metric_fn(schema, X_ref, C) -> float, the error of a population.
    progress : callable, optional
        Called after each result with {'method': ROUND_ERRORS_STEP, 'seed': None, 'round': k,
        'rounds': len(results)} (a live progress line, workflows.progress).

    Returns
    -------
    pandas.DataFrame
        Long format, columns method, seed, round (1..T; T+1 = the release), what
        ('population' or 'release'), error.

    Raises
    ------
    BlowfishError
        For a result run without keep_populations=True.
    """
    rows = []
    for k, res in enumerate(results, start=1):
        if res.populations is None:
            raise BlowfishError("per-round errors need the populations: run with keep_populations=True")
        for t, C in enumerate(res.populations, start=1):
            rows.append({"method": res.method, "seed": res.seed, "round": t, "what": "population",
                         "error": float(metric_fn(schema, X_ref, C))})
        rows.append({"method": res.method, "seed": res.seed, "round": len(res.populations) + 1,
                     "what": "release", "error": float(metric_fn(schema, X_ref, res.release))})
        if progress is not None:
            progress({"method": ROUND_ERRORS_STEP, "seed": None, "round": k, "rounds": len(results)})
    return pd.DataFrame(rows, columns=["method", "seed", "round", "what", "error"])


# --------------------------------------------------------------------------
# Marginals
# --------------------------------------------------------------------------

def cell_labels(a: Attribute, bins: int = NUMERIC_BINS) -> list[str]:
    """Labels of the marginal cells of one attribute (same cells as metrics.bin_codes).

    Parameters
    ----------
    a : Attribute
        The attribute.
    bins : int, default NUMERIC_BINS
        Cells of a numeric attribute.

    Returns
    -------
    list of str
        Numeric: the ``bins`` equal-width intervals of the public domain, in the attribute's
        units ("[0.5, 0.75)"); integer attributes: the whole numbers of each bin ("17-20",
        "21"); finite attributes: their levels.
    """
    return a.cell_labels(bins)


def marginal_comparison(schema: Schema, real: pd.DataFrame | np.ndarray, synthetic: pd.DataFrame | np.ndarray,
                        attrs: Sequence[str], bins: int = NUMERIC_BINS) -> pd.DataFrame:
    """Real vs synthetic normalized marginal over one or two attributes.

    Parameters
    ----------
    schema : Schema
        The public domain.
    real, synthetic : pandas.DataFrame or (n, p) float64 ndarray
        Tables with the schema's columns (original units), or already encoded matrices
        (schema.encode; saves re-encoding).
    attrs : sequence of str
        One or two attribute names.
    bins : int, default NUMERIC_BINS
        Cells of a numeric attribute.

    Returns
    -------
    pandas.DataFrame
        One label column per attribute, 'real', 'synthetic' (proportions summing to 1 each)
        and 'abs_diff'; its abs_diff sum is the l1 error of this marginal (the term PWErr
        averages for a pair; cells of an integer attribute that hold no whole number are left
        out, they are empty).

    Raises
    ------
    SchemaError
        For unknown names.
    BlowfishError
        For an empty or too long attribute list, or the same attribute twice.
    """
    attrs = list(attrs)
    if not 1 <= len(attrs) <= 2:
        raise BlowfishError(f"choose one or two attributes for a marginal (got {len(attrs)})")
    if len(set(attrs)) != len(attrs):
        raise BlowfishError("choose two different attributes for a 2-way marginal")
    idx = tuple(schema.index(a) for a in attrs)
    Xr = real if isinstance(real, np.ndarray) else schema.encode(real)
    Xs = synthetic if isinstance(synthetic, np.ndarray) else schema.encode(synthetic)
    cr, sizes = bin_codes(schema, Xr, bins)
    cs, _ = bin_codes(schema, Xs, bins)
    pr = marginal(cr, sizes, idx)
    ps = marginal(cs, sizes, idx)
    labels = [cell_labels(schema[a], bins) for a in attrs]
    grid = np.indices([sizes[i] for i in idx]).reshape(len(idx), -1)
    out: dict[str, list[str] | np.ndarray] = {a: [labels[k][j] for j in grid[k]] for k, a in enumerate(attrs)}
    out.update(real=pr, synthetic=ps, abs_diff=np.abs(pr - ps))
    df = pd.DataFrame(out)
    # integer attributes narrower than ``bins``: bins holding no whole number have zero mass; drop them
    empty = np.zeros(len(df), dtype=bool)
    for a in attrs:
        empty |= df[a].astype(str).str.startswith("(none:").to_numpy()
    empty &= (pr == 0) & (ps == 0)
    return df[~empty].reset_index(drop=True) if empty.any() else df


def epsilon_of(rho: float, delta: float) -> dict[str, float]:
    """epsilon at ``delta`` of a rho-zCDP run both ways (exact Gaussian curve, Eq. (1)).

    Parameters
    ----------
    rho : float
        Total zCDP budget.
    delta : float
        DP delta.

    Returns
    -------
    dict of str to float
        {'exact': ..., 'eq1': ...}.
    """
    return {"exact": float(epsilon_exact(rho, delta)), "eq1": float(epsilon_eq1(rho, delta))}
