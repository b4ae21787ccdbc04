"""Exact privacy of one selection: the hockey-stick divergence of two finite laws, delta(epsilon),
and the zCDP / epsilon of a pure epsilon-DP exponential mechanism (bounded range)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base.errors import BudgetError
from .em import _real


def _gibbs_rows(scores: np.ndarray, counts: np.ndarray, scales: np.ndarray, epsilon: float) -> np.ndarray:
    """Vectorized Gibbs laws for many scales: (len(scales), m) grouped probabilities."""
    logits = epsilon * scores[None, :] / (2.0 * scales[:, None]) + np.log(counts)[None, :]
    w = np.exp(logits - logits.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def _law(p: Any, name: str) -> np.ndarray:
    a = np.asarray(p, dtype=float).ravel()
    if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a < 0):
        raise BudgetError(f"{name} must be a non-empty array of probabilities >= 0. Fix: pass a finite law")
    return a


def hockey_stick(p: Any, q: Any, epsilon: float) -> float:
    """``sum_r max(0, p_r − e^epsilon q_r)``: the smallest delta with P(S) <= e^eps Q(S) + delta.

    Parameters
    ----------
    p : (m,) array_like of float
        Probabilities on a finite set of outcomes (any shape, flattened).
    q : (m,) array_like of float
        Probabilities on the same outcomes (flattened alike).
    epsilon : float
        ``>= 0``, nats.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    BudgetError
        For shapes that differ, negative or non-finite entries, or a negative epsilon.
    """
    a, b = _law(p, "p"), _law(q, "q")
    if a.shape != b.shape:
        raise BudgetError(f"p and q must have the same number of outcomes (got {a.size} and {b.size}). "
                          "Fix: compute both laws on the same candidate range")
    eps = _real(epsilon, "epsilon", allow_zero=True, fix="use epsilon >= 0")
    return float(np.maximum(0.0, a - math.exp(eps) * b).sum())


def selection_delta(p: Any, q: Any, epsilon: float) -> float:
    """Exact delta(epsilon) between two selection laws: max of the hockey stick both ways.

    Parameters
    ----------
    p : (m,) array_like of float
        As :func:`hockey_stick`.
    q : (m,) array_like of float
        As :func:`hockey_stick`.
    epsilon : float
        ``>= 0``, nats.

    Returns
    -------
    float
        0 for identical laws, 1 for disjoint ones.

    Raises
    ------
    BudgetError
        As :func:`hockey_stick`.
    """
    return max(hockey_stick(p, q, epsilon), hockey_stick(q, p, epsilon))


def selection_rho(epsilon_sel: float) -> float:
    """zCDP cost of one pure epsilon_sel-DP EM draw: ``epsilon_sel**2 / 8``.

    Bounded range; Cesar & Rogers 2021, Durfee & Rogers 2019.  A generic epsilon-DP mechanism
    would cost epsilon^2/2.  Per-pair argument, so it holds for Blowfish neighbours too.

    Parameters
    ----------
    epsilon_sel : float
        The EM's budget, ``> 0`` (nats).

    Returns
    -------
    float
        rho (zCDP).

    Raises
    ------
    BudgetError
        If epsilon_sel is not a finite number > 0.
    """
    return _real(epsilon_sel, "epsilon_sel", fix="use a positive selection budget") ** 2 / 8.0


def selection_epsilon(rho_sel: float) -> float:
    """Inverse of :func:`selection_rho`: the EM epsilon that costs rho_sel zCDP, ``sqrt(8 rho_sel)``.

    rho_sel = 1e-4 gives 0.0283.

    Parameters
    ----------
    rho_sel : float
        zCDP budget of the selection, ``> 0``.

    Returns
    -------
    float
        epsilon_sel (nats).

    Raises
    ------
    BudgetError
        If rho_sel is not a finite number > 0.
    """
    return math.sqrt(8.0 * _real(rho_sel, "rho_sel", fix="use a positive zCDP budget such as 1e-4"))
