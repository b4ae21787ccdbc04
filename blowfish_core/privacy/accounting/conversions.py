"""zCDP and Gaussian DP to (epsilon, delta) and back: Eq. (1) (Bun & Steinke 2016, Prop. 1.3), the
exact Gaussian curve (Dong, Roth & Su 2019, Cor. 2.13; Balle & Wang 2018, Thm 8) and rho_from_budget."""

from __future__ import annotations

import math
from typing import Optional

from blowfish_core.base.constants import DEFAULT_DELTA_TEXT
from blowfish_core.base.errors import BudgetError
from blowfish_core.base.numerics import brentq, log_ndtr  # math only: no scipy on the release path (issue 23)

from .checks import _check_mu, check_delta, check_epsilon, check_rho

#: Accepted values of the ``conversion`` argument.
CONVERSIONS = ("exact", "eq1")

# Stand-in for log(0) inside the root finders: far below log of the smallest
# positive double (about -745), but finite so brentq never sees inf/NaN.
_LOG_ZERO = -1.0e6


# --------------------------------------------------------------------------
# Eq. (1): zCDP -> (epsilon, delta), closed form
# --------------------------------------------------------------------------

def epsilon_eq1(rho: float, delta: float) -> float:
    """epsilon of a rho-zCDP mechanism at ``delta`` by the paper's Eq. (1).

    ``epsilon = rho + 2 sqrt(rho ln(1/delta))`` (Eq. (1); Bun & Steinke 2016,
    Prop. 1.3). This is an upper bound; :func:`epsilon_exact` is tighter for
    the Gaussian mechanism.

    Parameters
    ----------
    rho : float
        zCDP budget, ``rho > 0``.
    delta : float
        Failure probability in (0, 1).

    Returns
    -------
    float
        epsilon in nats, ``> 0``.

    Raises
    ------
    BudgetError
        If ``rho`` or ``delta`` is out of range.
    """
    return _epsilon_eq1(check_rho(rho), check_delta(delta))


def _epsilon_eq1(rho: float, delta: float) -> float:
    """:func:`epsilon_eq1` of a rho and a delta already checked (nothing re-checked)."""
    return rho + 2.0 * math.sqrt(rho * -math.log(delta))


def rho_from_epsilon_eq1(epsilon: float, delta: float) -> float:
    """Largest rho whose Eq. (1) epsilon at ``delta`` is ``epsilon``.

    Closed-form inverse of Eq. (1): with ``L = ln(1/delta)``,
    ``sqrt(rho) = sqrt(L + epsilon) - sqrt(L)``, evaluated as
    ``epsilon / (sqrt(L + epsilon) + sqrt(L))`` to avoid cancellation for
    small epsilon.

    Parameters
    ----------
    epsilon : float
        Target epsilon in nats, ``> 0``.
    delta : float
        Failure probability in (0, 1).

    Returns
    -------
    float
        rho (zCDP), ``> 0``.

    Raises
    ------
    BudgetError
        If ``epsilon`` or ``delta`` is out of range.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    L = -math.log(delta)
    s = epsilon / (math.sqrt(L + epsilon) + math.sqrt(L))
    return s * s


# --------------------------------------------------------------------------
# Exact Gaussian curve (mu-GDP)
# --------------------------------------------------------------------------

def gdp_mu(rho: float) -> float:
    """Gaussian-DP parameter of a rho-zCDP composition of Gaussian mechanisms.

    ``mu = sqrt(2 rho)``: a Gaussian mechanism with sensitivity Delta and
    noise sigma is rho-zCDP with ``rho = Delta^2 / (2 sigma^2)`` (Thm 2.6) and
    mu-GDP with ``mu = Delta / sigma`` (Dong, Roth & Su 2019, Thm 2.7);
    both compose additively in rho = mu^2 / 2 (Dong, Roth & Su 2019,
    Cor. 3.3).

    Parameters
    ----------
    rho : float
        zCDP budget, ``rho > 0``.

    Returns
    -------
    float
        mu (dimensionless), ``> 0``.

    Raises
    ------
    BudgetError
        If ``rho`` is out of range.
    """
    return math.sqrt(2.0 * check_rho(rho))


def _log_delta_exact(epsilon: float, mu: float) -> float:
    """log of the mu-GDP delta(epsilon) curve; may return -inf. No checks."""
    a = -epsilon / mu + mu / 2.0
    b = -epsilon / mu - mu / 2.0
    log_t1 = log_ndtr(a)
    log_t2 = epsilon + log_ndtr(b)
    # Mathematically log_t2 < log_t1; clip rounding noise so expm1 stays
    # in [-1, 0] (it could otherwise overflow when both logs are huge and
    # negative, where the difference is pure rounding and t1 is 0 anyway).
    diff = min(log_t2 - log_t1, 0.0)
    frac = -math.expm1(diff)  # 1 - t2/t1, in [0, 1]
    if frac <= 0.0 or log_t1 == -math.inf:
        return -math.inf
    return log_t1 + math.log(frac)


def delta_exact(epsilon: float, mu: float) -> float:
    """delta(epsilon) of a mu-GDP mechanism (the exact Gaussian curve).

    ``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``
    (Dong, Roth & Su 2019 (mu-GDP), Cor. 2.13; Balle & Wang 2018, Thm 8).
    Evaluated in log space with :func:`~blowfish_core.base.numerics.log_ndtr`:
    ``delta = Phi(a) * (1 - exp(eps + log Phi(b) - log Phi(a)))``, so there
    is no overflow of ``e^eps`` and no NaN for mu in [1e-6, 1e4] and
    eps in [0, 1e4]; results below the smallest double round to 0.0.

    Parameters
    ----------
    epsilon : float
        Nats, ``epsilon >= 0``.
    mu : float
        GDP parameter, ``mu > 0`` (``mu = sqrt(2 rho)``, see :func:`gdp_mu`).

    Returns
    -------
    float
        delta in [0, 1] (mathematically < 1; rounds to 1.0 for huge mu).
        Decreasing in epsilon, increasing in mu.

    Raises
    ------
    BudgetError
        If ``epsilon < 0``, ``mu <= 0`` or either is not finite.
    """
    epsilon = check_epsilon(epsilon, allow_zero=True)
    mu = _check_mu(mu)
    return math.exp(_log_delta_exact(epsilon, mu))


def _bounded_log_delta(epsilon: float, mu: float) -> float:
    v = _log_delta_exact(epsilon, mu)
    return v if v > _LOG_ZERO else _LOG_ZERO


def epsilon_exact(rho: float, delta: float) -> float:
    """Tight epsilon of a rho-zCDP run of Gaussian mechanisms at ``delta``.

    The run is mu-GDP with ``mu = sqrt(2 rho)`` (Dong, Roth & Su 2019 (mu-GDP));
    this returns the smallest ``epsilon >= 0`` with
    ``delta_exact(epsilon, mu) <= delta``, or 0.0 if already
    ``delta_exact(0, mu) <= delta``. Solved with Brent's method
    (:func:`~blowfish_core.base.numerics.brentq`, scipy.optimize.brentq's steps) on
    ``log delta_exact(eps, mu) - log delta`` over a bracket grown from the
    Eq. (1) value (which is an upper bound). The returned value is rounded up
    so that ``delta_exact(result, mu) <= delta`` holds in floating point.

    Parameters
    ----------
    rho : float
        zCDP budget, ``rho > 0``.
    delta : float
        Failure probability in (0, 1).

    Returns
    -------
    float
        epsilon in nats, ``>= 0``; never larger than :func:`epsilon_eq1`.

    Raises
    ------
    BudgetError
        If ``rho`` or ``delta`` is out of range.
    """
    return _epsilon_exact(check_rho(rho), check_delta(delta))


def _epsilon_exact(rho: float, delta: float) -> float:
    """:func:`epsilon_exact` of a rho and a delta already checked (nothing re-checked)."""
    mu = math.sqrt(2.0 * rho)
    log_delta = math.log(delta)

    def g(eps: float) -> float:
        return _bounded_log_delta(eps, mu) - log_delta

    if g(0.0) <= 0.0:
        return 0.0
    hi = max(_epsilon_eq1(rho, delta), 1e-300)
    while g(hi) > 0.0:  # safety net; Eq. (1) already bounds the answer
        hi *= 2.0
    lo = 0.0
    root = brentq(g, lo, hi, xtol=max(hi * 1e-15, 1e-300), rtol=4e-15, maxiter=500)
    # Round up to the feasible side, checked exactly as delta_exact reports it.
    step = max(abs(root) * 1e-15, 1e-300)
    while math.exp(_log_delta_exact(root, mu)) > delta and root < hi:
        root = min(root + step, hi)
        step *= 2.0
    return float(root)


def rho_from_epsilon_exact(epsilon: float, delta: float) -> float:
    """Largest rho whose exact Gaussian epsilon at ``delta`` is <= ``epsilon``.

    Inverts the mu-GDP curve in mu (``delta_exact`` is increasing in mu at
    fixed epsilon; Dong, Roth & Su 2019 (mu-GDP)): finds the largest mu with
    ``delta_exact(epsilon, mu) <= delta`` by Brent's method (:func:`~blowfish_core.base.numerics.brentq`) on a
    bracket starting at the Eq. (1) inverse (always feasible) and grown
    upward, then returns ``rho = mu^2 / 2``. The result is rounded down so
    that ``epsilon_exact(result, delta) <= epsilon`` up to solver tolerance.

    Parameters
    ----------
    epsilon : float
        Target epsilon in nats, ``> 0``.
    delta : float
        Failure probability in (0, 1).

    Returns
    -------
    float
        rho (zCDP), ``>= rho_from_epsilon_eq1(epsilon, delta)``.

    Raises
    ------
    BudgetError
        If ``epsilon`` or ``delta`` is out of range (or, which cannot happen for
        valid inputs, no positive rho is found).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    log_delta = math.log(delta)

    def h(mu: float) -> float:
        return _bounded_log_delta(epsilon, mu) - log_delta

    lo = math.sqrt(2.0 * rho_from_epsilon_eq1(epsilon, delta))
    while lo > 0.0 and h(lo) > 0.0:  # safety net; Eq. (1) is conservative
        lo *= 0.5
    if lo == 0.0:  # pragma: no cover - cannot happen for valid inputs
        raise BudgetError(
            f"could not find a positive rho for epsilon={epsilon!r}, "
            f"delta={delta!r}. Fix: use a larger epsilon or delta."
        )
    hi = 2.0 * lo
    while h(hi) <= 0.0:
        lo, hi = hi, 2.0 * hi
    mu = brentq(h, lo, hi, xtol=max(lo * 1e-15, 1e-300), rtol=4e-15, maxiter=500)
    # Round down to the feasible side, checked exactly as delta_exact reports it.
    step = max(mu * 1e-15, 1e-300)
    while math.exp(_log_delta_exact(epsilon, mu)) > delta and mu > lo:
        mu = max(mu - step, lo)
        step *= 2.0
    return float(mu * mu / 2.0)


# --------------------------------------------------------------------------
# Budget entry point and per-round split
# --------------------------------------------------------------------------

def rho_from_budget(rho: Optional[float] = None,
                    epsilon: Optional[float] = None,
                    delta: Optional[float] = None,
                    conversion: str = "exact") -> float:
    """Total zCDP budget from either ``rho`` or an ``(epsilon, delta)`` target.

    Give exactly one of ``rho`` or ``(epsilon, delta)``. With ``epsilon`` the
    returned rho is the largest whose epsilon at ``delta`` does not exceed
    ``epsilon`` under ``conversion``: ``"exact"`` (mu-GDP curve,
    :func:`rho_from_epsilon_exact`; Dong, Roth & Su 2019) or ``"eq1"``
    (paper Eq. (1), :func:`rho_from_epsilon_eq1`; smaller rho, more noise).
    With ``rho``, a ``delta`` may be passed too (it is validated and only
    used for reporting elsewhere; it does not change rho).

    Parameters
    ----------
    rho : float, optional
        zCDP budget, ``rho > 0``.
    epsilon : float, optional
        Target epsilon in nats, ``> 0``.
    delta : float, optional
        Failure probability in (0, 1); required with ``epsilon``.
    conversion : {"exact", "eq1"}, default "exact"
        How epsilon converts to rho (see above).

    Returns
    -------
    float
        rho (zCDP), ``> 0``.

    Raises
    ------
    BudgetError
        If both or neither of rho/epsilon are given, if ``epsilon`` is given
        without ``delta``, if ``conversion`` is not one of ``"exact"``,
        ``"eq1"``, or if a value is out of range.
    """
    if not isinstance(conversion, str) or conversion not in CONVERSIONS:
        raise BudgetError(
            f"conversion must be 'exact' or 'eq1' (got {conversion!r}). "
            "Fix: use 'exact' (tight Gaussian curve) or 'eq1' (paper Eq. (1))."
        )
    if rho is not None and epsilon is not None:
        raise BudgetError(
            f"give either rho or (epsilon, delta), not both (got rho={rho!r}, "
            f"epsilon={epsilon!r}). Fix: give only one of rho and epsilon."
        )
    if rho is not None:
        if delta is not None:
            check_delta(delta)
        return check_rho(rho)
    if epsilon is None:
        raise BudgetError(
            "no privacy budget given: rho and epsilon are both missing. "
            "Fix: give rho (zCDP), or epsilon together with delta."
        )
    if delta is None:
        raise BudgetError(
            f"delta is required when epsilon is given (got epsilon={epsilon!r}, "
            f"delta=None). Fix: give a small probability such as delta = {DEFAULT_DELTA_TEXT}."
        )
    if conversion == "eq1":
        return rho_from_epsilon_eq1(epsilon, delta)
    return rho_from_epsilon_exact(epsilon, delta)
