"""The exponential mechanism (papers/001 Eq. (1), (2)): the Gibbs law of a score vector and its regret bound."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base._lazy import special  # imported on first use: not at import (issue 23)
from ...base.errors import BudgetError


# ------------------------------------------------------------------ validation
def _real(x: Any, name: str, *, positive: bool = True, allow_zero: bool = False, fix: str = "") -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not math.isfinite(float(x)):
        raise BudgetError(f"{name} must be a finite number (got {x!r}). Fix: {fix or 'give a finite number'}")
    v = float(x)
    if positive and (v < 0 or (v == 0 and not allow_zero)):
        rule = ">= 0" if allow_zero else "> 0"
        raise BudgetError(f"{name} must be {rule} (got {x!r}). Fix: {fix or 'give a positive number'}")
    return v


def _prob(x: Any, name: str, fix: str) -> float:
    v = _real(x, name, fix=fix)
    if not v < 1.0:
        raise BudgetError(f"{name} must be in (0, 1) (got {x!r}). Fix: {fix}")
    return v


def _scores(scores: Any, name: str = "scores") -> np.ndarray:
    try:
        s = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise BudgetError(f"{name} must be a 1-d array of numbers (got {type(scores).__name__}). "
                          "Fix: pass one float score per candidate") from None
    if s.ndim != 1 or s.size == 0:
        raise BudgetError(f"{name} must be a non-empty 1-d array (got shape {s.shape}). "
                          "Fix: pass one float score per candidate")
    if not np.all(np.isfinite(s)):
        raise BudgetError(f"{name} must be finite (got {int((~np.isfinite(s)).sum())} NaN/inf). "
                          "Fix: replace missing scores")
    return s


def _counts(counts: Any, m: int) -> np.ndarray:
    c = np.asarray(counts, dtype=float)
    if c.shape != (m,) or not np.all(np.isfinite(c)) or np.any(c < 1) or np.any(c != np.floor(c)):
        raise BudgetError(f"counts must be {m} whole numbers >= 1, one per score (got {counts!r}). "
                          "Fix: give the multiplicity of each distinct score")
    return c


# ------------------------------------------------------------------ Gibbs law
def em_probabilities(scores: Any, scale: float, epsilon: float, *, counts: Any = None) -> np.ndarray:
    """The exponential mechanism's law: ``P(r) ∝ exp(epsilon · score_r / (2 · scale))``.

    papers/001 Eq. (1) [R] (the factor 2 is kept: scores need not be monotone).

    Parameters
    ----------
    scores : (m,) array_like of float
        Score units.
    scale : float
        ``> 0``, score units (the sensitivity b).
    epsilon : float
        ``> 0``, nats.
    counts : (m,) array_like of int, optional
        Whole numbers >= 1 -- score r stands for ``counts[r]`` candidates with that
        score, and the result is the total mass of each group (so 10^12 identical
        candidates cost one entry).

    Returns
    -------
    (m,) float ndarray
        Summing to 1, computed by log-sum-exp (stable for scores of 1e6 and more;
        invariant to adding a constant to every score).

    Raises
    ------
    BudgetError
        For a non-positive scale or epsilon, or bad scores/counts.
    """
    s = _scores(scores)
    b = _real(scale, "scale", fix="use a positive sensitivity, e.g. the policy's global sensitivity 1")
    eps = _real(epsilon, "epsilon", fix="use a positive selection budget such as epsilon = 1")
    logits = eps * s / (2.0 * b)
    if counts is not None:
        logits = logits + np.log(_counts(counts, s.size))
    out = np.exp(logits - special.logsumexp(logits))
    return out / out.sum()


def regret_bound(scale: float, epsilon: float, m: float, rho: float) -> float:
    """Eq. (2) [R] of papers/001: ``Pr[gap > (2 scale / epsilon) log(m / rho)] <= rho``.

    The gap is ``max_r' q(x,r') − q(x,R)`` in score units.  Proof: each candidate with gap > g
    has probability <= exp(−epsilon g / (2 scale)) (the maximizer's weight is >= its own).

    Parameters
    ----------
    scale : float
        ``> 0``, score units.
    epsilon : float
        ``> 0``, nats.
    m : float
        Number of candidates ``>= 1``.
    rho : float
        Failure probability in (0, 1).

    Returns
    -------
    float
        The gap bound (score units).

    Raises
    ------
    BudgetError
        For a non-positive scale or epsilon, m < 1 or rho outside (0, 1).
    """
    b = _real(scale, "scale")
    eps = _real(epsilon, "epsilon")
    mm = _real(m, "m", fix="give the number of candidates (>= 1)")
    if mm < 1:
        raise BudgetError(f"m must be >= 1 (got {m!r}). Fix: give the number of candidates")
    r = _prob(rho, "rho", "use a failure probability such as 0.05")
    return 2.0 * b / eps * math.log(mm / r)
