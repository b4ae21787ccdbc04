"""The public-data pilot's choice: its candidates (:class:`PilotCandidate`), the tie rule
(:func:`recommend`: lowest mean public error; ties favour Hard, then the smaller tau) and how clear
the choice is (:func:`recommendation_strength`).

Paper §6.2.4, "Practical guidance" (§6.2.6); the tie rule is described in
:mod:`blowfish_core.workflows.pilot`, which re-exports every name (issue 22).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..base.errors import BlowfishError, BudgetError
from ..algorithm import methods
from ..model.votes import check_tau

#: default tie tolerance of :func:`recommend` (absolute, metric units): floating-point equality.
DEFAULT_TIE_TOL = 1e-9

HARD = methods.HARD.name
SOFT = methods.BF_SOFT.name


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
