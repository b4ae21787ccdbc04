"""Checks of privacy parameters: rho, delta, epsilon, mu and whole counts.  Every failure raises
:class:`blowfish_core.base.errors.BudgetError` naming the field, the accepted range, the value and a fix."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from blowfish_core.base.constants import DEFAULT_DELTA_TEXT
from blowfish_core.base.errors import BudgetError

#: Largest accepted zCDP budget and target epsilon (budgets): beyond these the
#: noise is negligible and the root finders lose meaning (brentq overflow).
MAX_RHO = 1e8
MAX_EPSILON = 1e4


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------

def _as_real(value: Any, name: str, rule: str, fix: str) -> float:
    """Convert ``value`` to a finite float or raise BudgetError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise BudgetError(
            f"{name} must be {rule} (got {value!r} of type "
            f"{type(value).__name__}). Fix: {fix}"
        )
    x = float(value)
    if not math.isfinite(x):
        raise BudgetError(f"{name} must be {rule} (got {x!r}). Fix: {fix}")
    return x


def check_rho(rho: Any, *, name: str = "rho") -> float:
    """Validate a zCDP budget and return it as a float.

    Parameters
    ----------
    rho : float
        zCDP parameter (dimensionless, natural-log units). Range: finite,
        ``0 < rho <= MAX_RHO`` (1e8). Python/numpy real numbers only; ``bool``,
        strings, NaN and inf are rejected.
    name : str, default "rho"
        Field name used in the error message (e.g. ``"rho_t"``).

    Returns
    -------
    float
        ``float(rho)``.

    Raises
    ------
    BudgetError
        If ``rho`` is not a finite real number in (0, 1e8].
    """
    rule = "a finite number > 0"
    fix = "use a positive zCDP budget such as rho = 1e-3"
    x = _as_real(rho, name, rule, fix)
    if not x > 0.0:
        raise BudgetError(f"{name} must be {rule} (got {rho!r}). Fix: {fix}")
    if x > MAX_RHO:
        raise BudgetError(f"{name} must be <= {MAX_RHO:g}; larger budgets are numerically meaningless "
                          f"(got {rho!r}). Fix: {fix}")
    return x


def check_delta(delta: Any, *, name: str = "delta") -> float:
    """Validate an (epsilon, delta)-DP failure probability.

    Parameters
    ----------
    delta : float
        Probability, open interval ``0 < delta < 1`` (typically much smaller
        than 1/n, e.g. 1e-5). ``bool``, NaN, inf rejected.
    name : str, default "delta"
        Field name used in the error message.

    Returns
    -------
    float
        ``float(delta)``.

    Raises
    ------
    BudgetError
        If ``delta`` is not a finite real number in (0, 1).
    """
    rule = "in (0, 1)"
    fix = f"use a small probability such as delta = {DEFAULT_DELTA_TEXT}"
    x = _as_real(delta, name, rule, fix)
    if not 0.0 < x < 1.0:
        raise BudgetError(f"{name} must be {rule} (got {delta!r}). Fix: {fix}")
    return x


def check_epsilon(epsilon: Any, *, name: str = "epsilon",
                  allow_zero: bool = False) -> float:
    """Validate a DP epsilon (in nats) and return it as a float.

    Parameters
    ----------
    epsilon : float
        Privacy-loss bound in nats. Range: finite, ``0 < epsilon <= MAX_EPSILON``
        (1e4) for budgets (``epsilon >= 0``, no upper limit, when ``allow_zero``
        is true: curve evaluation). ``bool``, NaN and inf are rejected.
    name : str, default "epsilon"
        Field name used in the error message.
    allow_zero : bool, default False
        Accept ``epsilon == 0`` (used when evaluating the delta(epsilon) curve,
        not for budgets).

    Returns
    -------
    float
        ``float(epsilon)``.

    Raises
    ------
    BudgetError
        If ``epsilon`` is out of range or not a real number.
    """
    rule = "a finite number >= 0" if allow_zero else "a finite number > 0"
    fix = "use a positive privacy budget in nats such as epsilon = 1.0"
    x = _as_real(epsilon, name, rule, fix)
    if x < 0.0 or (x == 0.0 and not allow_zero):
        raise BudgetError(f"{name} must be {rule} (got {epsilon!r}). Fix: {fix}")
    if not allow_zero and x > MAX_EPSILON:
        raise BudgetError(f"{name} must be <= {MAX_EPSILON:g}; larger budgets are numerically meaningless "
                          f"(got {epsilon!r}). Fix: {fix}")
    return x


def _check_mu(mu: Any) -> float:
    rule = "a finite number > 0"
    fix = "use mu = sqrt(2 rho) with rho > 0 (see gdp_mu)"
    x = _as_real(mu, "mu", rule, fix)
    if not x > 0.0:
        raise BudgetError(f"mu must be {rule} (got {mu!r}). Fix: {fix}")
    return x


def _check_positive_int(value: Any, name: str, fix: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise BudgetError(
            f"{name} must be an integer >= 1 (got {value!r} of type "
            f"{type(value).__name__}). Fix: {fix}"
        )
    n = int(value)
    if n < 1:
        raise BudgetError(f"{name} must be an integer >= 1 (got {n}). Fix: {fix}")
    return n
