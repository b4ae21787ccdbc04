"""Checks of PubMix's public inputs (papers/003): n, n_samples, beta, distributions, floors, gamma.
BudgetError for budgets and floors, DataError for n and distributions, each naming the field."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ...base.errors import BudgetError, DataError

#: largest n_samples accepted (the binomial route is O(n_samples) per evaluation).
MAX_N_SAMPLES = 1_000_000
#: largest private table size n accepted.
MAX_N = 10**12
#: tolerance on sum(a) = 1 for a distribution argument.
SUM_TOL = 1e-9


# ------------------------------------------------------------------ validation
def _check_int(value: Any, name: str, lo: int, hi: int, err=BudgetError) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral,)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            raise err(f"{name} must be a whole number (int), got the float {value!r}. Fix: pass int({value!r})")
        raise err(f"{name} must be a whole number in [{lo:,}, {hi:,}] (got {value!r})")
    v = int(value)
    if not lo <= v <= hi:
        raise err(f"{name} must be a whole number in [{lo:,}, {hi:,}] (got {v:,})")
    return v


def check_n(n: Any) -> int:
    """Private table size n (rows, public): int in [1, 1e12].

    Parameters
    ----------
    n : int
        Number of private rows, a whole number in [1, MAX_N].

    Returns
    -------
    int
        ``int(n)``.

    Raises
    ------
    DataError
        Naming 'n', if ``n`` is not a whole number in range.
    """
    return _check_int(n, "n (private rows)", 1, MAX_N, DataError)


def check_n_samples(n_samples: Any) -> int:
    """Number of released draws: int in [1, MAX_N_SAMPLES].

    Parameters
    ----------
    n_samples : int
        Number of draws, a whole number in [1, MAX_N_SAMPLES].

    Returns
    -------
    int
        ``int(n_samples)``.

    Raises
    ------
    BudgetError
        Naming 'n_samples', if it is not a whole number in range.
    """
    return _check_int(n_samples, "n_samples", 1, MAX_N_SAMPLES, BudgetError)


def _check_unit(value: Any, name: str, lo: float = 0.0, hi: float = 1.0, err=BudgetError) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise err(f"{name} must be a number in [{lo:g}, {hi:g}] (got {value!r})")
    x = float(value)
    if not math.isfinite(x) or not lo <= x <= hi:
        raise err(f"{name} must be a finite number in [{lo:g}, {hi:g}] (got {value!r})")
    return x


def check_beta(beta: Any) -> float:
    """Mixing weight beta_mix in [0, 1].

    Parameters
    ----------
    beta : float
        Mixing weight, finite, in [0, 1].

    Returns
    -------
    float
        ``float(beta)``.

    Raises
    ------
    BudgetError
        Naming 'beta', if it is not a finite number in [0, 1].
    """
    return _check_unit(beta, "beta (mixing weight)")


def check_distribution(a: Any, name: str = "a") -> np.ndarray:
    """A probability vector: float64 (d,), d >= 1, finite, >= 0, |sum - 1| <= 1e-9.

    Never clips negative entries.

    Parameters
    ----------
    a : (d,) array_like of float
        The distribution.
    name : str, default "a"
        Field name used in the error message.

    Returns
    -------
    (d,) float64 ndarray
        A copy divided by its sum (so it sums to 1 up to rounding).

    Raises
    ------
    DataError
        Naming ``name``, if ``a`` is not a non-empty 1-d array of finite numbers
        >= 0 summing to 1 within 1e-9.
    """
    try:
        x = np.array(a, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{name} must be a 1-d array of probabilities (got {type(a).__name__})") from None
    if x.ndim != 1 or x.size < 1:
        raise DataError(f"{name} must be a non-empty 1-d array of probabilities (got shape {x.shape})")
    if not np.isfinite(x).all():
        raise DataError(f"{name} has {int((~np.isfinite(x)).sum())} non-finite entries (NaN/inf)")
    if (x < 0).any():
        raise DataError(f"{name} has negative entries (e.g. {x[x < 0][0]:g}); a distribution is >= 0")
    s = float(x.sum())
    if abs(s - 1.0) > SUM_TOL:
        raise DataError(f"{name} must sum to 1 (got {s:.12g}). Fix: normalize the histogram (counts / n)")
    return x / s


def check_floor(t: Any, d: int, name: str = "t") -> float:
    """Floor level t in [0, 1/d] (Defs 4.3-4.4).

    Parameters
    ----------
    t : float
        The floor, in [0, 1/d] (up to a relative 1e-12 above 1/d).
    d : int
        Number of bins.
    name : str, default "t"
        Field name used in the error message.

    Returns
    -------
    float
        ``float(t)``.

    Raises
    ------
    BudgetError
        Naming ``name``, if ``t`` is not a finite number in range.
    """
    return _check_unit(t, f"{name} (floor)", 0.0, 1.0 / d * (1.0 + 1e-12))


def check_gamma(gamma: Any) -> float:
    """Proximity gamma_tv in (0, 1] (Eq. (3)).

    Parameters
    ----------
    gamma : float
        TV radius of the public ball, in (0, 1].

    Returns
    -------
    float
        ``float(gamma)``.

    Raises
    ------
    BudgetError
        Naming 'gamma', if it is not a finite number in (0, 1].
    """
    g = _check_unit(gamma, "gamma (TV radius of the public ball)")
    if g <= 0:
        raise BudgetError(f"gamma (TV radius of the public ball) must be > 0 (got {gamma!r})")
    return g


def _check_pair(n1: Any, n2: Any) -> tuple[float, float]:
    a = _check_unit(n1, "n1 (smallest noise mass)")
    b = a if n2 is None else _check_unit(n2, "n2 (second smallest noise mass)")
    if a + b > 1.0 + 1e-12:
        raise BudgetError(f"n1 + n2 must be <= 1 (two entries of one distribution; got {a:g} + {b:g})")
    return (a, b) if a <= b else (b, a)
