"""Privacy accounting for the Gaussian mechanism under zero-concentrated DP.

Source: "Soft Voting for Policy-Aware Private Data Synthesis", §2.1 and
Thm 2.6 (zCDP Gaussian mechanism), Eq. (1) (zCDP -> (epsilon, delta)),
Eq. (4) (public-data pilot budget); spec in DESIGN.md §3 "Gaussian mechanism
and accounting".

Units and conventions
---------------------
* ``rho`` is the zCDP parameter (Bun & Steinke 2016), dimensionless, in
  natural-log units; ``rho > 0``. Budgets of rounds add up (composition).
* ``epsilon`` is in nats (natural logarithm), ``epsilon >= 0``.
* ``delta`` is a probability in the open interval (0, 1).
* ``mu`` is the Gaussian-DP parameter (Dong, Roth & Su 2019, "Gaussian
  Differential Privacy"); a rho-zCDP run of Gaussian mechanisms is mu-GDP with
  ``mu = sqrt(2 rho)``.

Per round t the Gaussian mechanism with l2 sensitivity ``Delta_t`` and budget
``rho_t`` adds noise ``N(0, sigma_t^2)`` with ``sigma_t^2 = Delta_t^2 /
(2 rho_t)`` (Thm 2.6); the default split is ``rho_t = rho / T``.

(epsilon, delta) is reported two ways:

* Eq. (1): ``epsilon = rho + 2 sqrt(rho ln(1/delta))`` (Bun & Steinke 2016,
  Prop. 1.3) -- simple, loose.
* The exact Gaussian curve: the whole run is mu-GDP and
  ``delta(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)``
  (Dong, Roth & Su 2019, Cor. 2.13; Balle & Wang 2018, Thm 8) -- tight.

Both are statements about a single pair of neighbours, so both hold for
Blowfish (policy) neighbours as well.

Every validation failure raises :class:`blowfish_core.base.errors.BudgetError`
whose message names the field, the accepted range, the received value and a
fix.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np
from blowfish_core.base._lazy import optimize, special  # scipy, imported on first use (issue 15)

from blowfish_core.base.errors import BudgetError

__all__ = [
    "check_rho",
    "check_delta",
    "check_epsilon",
    "epsilon_eq1",
    "rho_from_epsilon_eq1",
    "gdp_mu",
    "delta_exact",
    "epsilon_exact",
    "rho_from_epsilon_exact",
    "rho_from_budget",
    "split_rho",
    "gaussian_sigma",
    "equivalent_budget_multiplier",
    "pilot_budget",
    "pilot_scaling",
    "PrivacyLedger",
    "CONVERSIONS",
]

#: Accepted values of the ``conversion`` argument.
CONVERSIONS = ("exact", "eq1")

# Stand-in for log(0) inside the root finders: far below log of the smallest
# positive double (about -745), but finite so brentq never sees inf/NaN.
_LOG_ZERO = -1.0e6

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

    Args:
        rho: zCDP parameter (dimensionless, natural-log units). Range:
            finite, ``0 < rho <= MAX_RHO`` (1e8). Python/numpy real numbers
            only; ``bool``, strings, NaN and inf are rejected.
        name: field name used in the error message (e.g. ``"rho_t"``).

    Returns:
        ``float(rho)``.

    Raises:
        BudgetError: if ``rho`` is not a finite real number in (0, 1e8].
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

    Args:
        delta: probability, open interval ``0 < delta < 1`` (typically much
            smaller than 1/n, e.g. 1e-5). ``bool``, NaN, inf rejected.
        name: field name used in the error message.

    Returns:
        ``float(delta)``.

    Raises:
        BudgetError: if ``delta`` is not a finite real number in (0, 1).
    """
    rule = "in (0, 1)"
    fix = "use a small probability such as delta = 1e-5"
    x = _as_real(delta, name, rule, fix)
    if not 0.0 < x < 1.0:
        raise BudgetError(f"{name} must be {rule} (got {delta!r}). Fix: {fix}")
    return x


def check_epsilon(epsilon: Any, *, name: str = "epsilon",
                  allow_zero: bool = False) -> float:
    """Validate a DP epsilon (in nats) and return it as a float.

    Args:
        epsilon: privacy-loss bound in nats. Range: finite,
            ``0 < epsilon <= MAX_EPSILON`` (1e4) for budgets (``epsilon >= 0``,
            no upper limit, when ``allow_zero`` is true: curve evaluation). ``bool``, NaN and
            inf are rejected.
        name: field name used in the error message.
        allow_zero: accept ``epsilon == 0`` (used when evaluating the
            delta(epsilon) curve, not for budgets).

    Returns:
        ``float(epsilon)``.

    Raises:
        BudgetError: if ``epsilon`` is out of range or not a real number.
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


# --------------------------------------------------------------------------
# Eq. (1): zCDP -> (epsilon, delta), closed form
# --------------------------------------------------------------------------

def epsilon_eq1(rho: float, delta: float) -> float:
    """epsilon of a rho-zCDP mechanism at ``delta`` by the paper's Eq. (1).

    ``epsilon = rho + 2 sqrt(rho ln(1/delta))`` (Eq. (1); Bun & Steinke 2016,
    Prop. 1.3). This is an upper bound; :func:`epsilon_exact` is tighter for
    the Gaussian mechanism.

    Args:
        rho: zCDP budget, ``rho > 0``.
        delta: failure probability in (0, 1).

    Returns:
        epsilon in nats, ``> 0``.

    Raises:
        BudgetError: if ``rho`` or ``delta`` is out of range.
    """
    rho = check_rho(rho)
    delta = check_delta(delta)
    return rho + 2.0 * math.sqrt(rho * -math.log(delta))


def rho_from_epsilon_eq1(epsilon: float, delta: float) -> float:
    """Largest rho whose Eq. (1) epsilon at ``delta`` is ``epsilon``.

    Closed-form inverse of Eq. (1): with ``L = ln(1/delta)``,
    ``sqrt(rho) = sqrt(L + epsilon) - sqrt(L)``, evaluated as
    ``epsilon / (sqrt(L + epsilon) + sqrt(L))`` to avoid cancellation for
    small epsilon.

    Args:
        epsilon: target epsilon in nats, ``> 0``.
        delta: failure probability in (0, 1).

    Returns:
        rho (zCDP), ``> 0``.

    Raises:
        BudgetError: if ``epsilon`` or ``delta`` is out of range.
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

    Args:
        rho: zCDP budget, ``rho > 0``.

    Returns:
        mu (dimensionless), ``> 0``.

    Raises:
        BudgetError: if ``rho`` is out of range.
    """
    return math.sqrt(2.0 * check_rho(rho))


def _log_delta_exact(epsilon: float, mu: float) -> float:
    """log of the mu-GDP delta(epsilon) curve; may return -inf. No checks."""
    a = -epsilon / mu + mu / 2.0
    b = -epsilon / mu - mu / 2.0
    log_t1 = float(special.log_ndtr(a))
    log_t2 = epsilon + float(special.log_ndtr(b))
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
    Evaluated in log space with ``scipy.special.log_ndtr``:
    ``delta = Phi(a) * (1 - exp(eps + log Phi(b) - log Phi(a)))``, so there
    is no overflow of ``e^eps`` and no NaN for mu in [1e-6, 1e4] and
    eps in [0, 1e4]; results below the smallest double round to 0.0.

    Args:
        epsilon: nats, ``epsilon >= 0``.
        mu: GDP parameter, ``mu > 0`` (``mu = sqrt(2 rho)``, see
            :func:`gdp_mu`).

    Returns:
        delta in [0, 1] (mathematically < 1; rounds to 1.0 for huge mu).
        Decreasing in epsilon, increasing in mu.

    Raises:
        BudgetError: if ``epsilon < 0``, ``mu <= 0`` or either is not finite.
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
    ``delta_exact(0, mu) <= delta``. Solved with ``scipy.optimize.brentq`` on
    ``log delta_exact(eps, mu) - log delta`` over a bracket grown from the
    Eq. (1) value (which is an upper bound). The returned value is rounded up
    so that ``delta_exact(result, mu) <= delta`` holds in floating point.

    Args:
        rho: zCDP budget, ``rho > 0``.
        delta: failure probability in (0, 1).

    Returns:
        epsilon in nats, ``>= 0``; never larger than :func:`epsilon_eq1`.

    Raises:
        BudgetError: if ``rho`` or ``delta`` is out of range.
    """
    rho = check_rho(rho)
    delta = check_delta(delta)
    mu = math.sqrt(2.0 * rho)
    log_delta = math.log(delta)

    def g(eps: float) -> float:
        return _bounded_log_delta(eps, mu) - log_delta

    if g(0.0) <= 0.0:
        return 0.0
    hi = max(epsilon_eq1(rho, delta), 1e-300)
    while g(hi) > 0.0:  # safety net; Eq. (1) already bounds the answer
        hi *= 2.0
    lo = 0.0
    root = optimize.brentq(g, lo, hi, xtol=max(hi * 1e-15, 1e-300), rtol=4e-15,
                  maxiter=500)
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
    ``delta_exact(epsilon, mu) <= delta`` by ``scipy.optimize.brentq`` on a
    bracket starting at the Eq. (1) inverse (always feasible) and grown
    upward, then returns ``rho = mu^2 / 2``. The result is rounded down so
    that ``epsilon_exact(result, delta) <= epsilon`` up to solver tolerance.

    Args:
        epsilon: target epsilon in nats, ``> 0``.
        delta: failure probability in (0, 1).

    Returns:
        rho (zCDP), ``>= rho_from_epsilon_eq1(epsilon, delta)``.

    Raises:
        BudgetError: if ``epsilon`` or ``delta`` is out of range.
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
    mu = optimize.brentq(h, lo, hi, xtol=max(lo * 1e-15, 1e-300), rtol=4e-15,
                maxiter=500)
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

    Args:
        rho: zCDP budget, ``rho > 0``, or None.
        epsilon: target epsilon in nats, ``> 0``, or None.
        delta: failure probability in (0, 1); required with ``epsilon``.
        conversion: ``"exact"`` or ``"eq1"``.

    Returns:
        rho (zCDP), ``> 0``.

    Raises:
        BudgetError: if both or neither of rho/epsilon are given, if
            ``epsilon`` is given without ``delta``, if ``conversion`` is not
            one of ``"exact"``, ``"eq1"``, or if a value is out of range.
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
            "delta=None). Fix: give a small probability such as delta = 1e-5."
        )
    if conversion == "eq1":
        return rho_from_epsilon_eq1(epsilon, delta)
    return rho_from_epsilon_exact(epsilon, delta)


def split_rho(rho: float, rounds: int,
              weights: Optional[Sequence[float]] = None) -> np.ndarray:
    """Split a total zCDP budget over ``rounds`` rounds (zCDP composes additively).

    Default is the equal split ``rho_t = rho / T`` (DESIGN §3, Algorithm 1).
    With ``weights`` (length ``rounds``, all finite and > 0) the split is
    ``rho * w_t / sum(w)``.

    Args:
        rho: total zCDP budget, ``rho > 0``.
        rounds: number of rounds T, integer ``>= 1``.
        weights: optional positive relative weights, one per round.

    Returns:
        float64 array of shape ``(rounds,)``, entries ``> 0``, summing to
        ``rho`` (up to rounding).

    Raises:
        BudgetError: if ``rho`` is out of range, ``rounds < 1`` or not an
            integer, or ``weights`` has the wrong length or a non-finite,
            zero or negative entry.
    """
    rho = check_rho(rho)
    rounds = _check_positive_int(rounds, "rounds",
                                 "give the number of rounds, e.g. 8")
    if weights is None:
        return np.full(rounds, rho / rounds, dtype=np.float64)
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise BudgetError(
            f"weights must be {rounds} finite numbers > 0 (got {weights!r}). "
            "Fix: pass one positive weight per round or omit weights."
        ) from exc
    if w.shape != (rounds,):
        raise BudgetError(
            f"weights must have one entry per round: length {rounds} "
            f"(got shape {w.shape}). Fix: pass one positive weight per round."
        )
    if not np.all(np.isfinite(w)) or not np.all(w > 0):
        raise BudgetError(
            f"weights must be finite numbers > 0 (got {w.tolist()}). "
            "Fix: every round needs a positive share of the budget."
        )
    return rho * (w / w.sum())


def gaussian_sigma(delta_t: float, rho_t: float) -> float:
    """Noise standard deviation of a rho_t-zCDP Gaussian mechanism (Thm 2.6).

    ``sigma_t = sqrt(Delta_t^2 / (2 rho_t))`` = ``Delta_t / sqrt(2 rho_t)``.

    Args:
        delta_t: l2 sensitivity Delta_t of the round's histogram (same units
            as the histogram counts), finite, ``>= 0``. (Not the DP delta.)
        rho_t: zCDP budget of the round, ``rho_t > 0``.

    Returns:
        sigma_t (histogram count units), ``>= 0``; exactly 0.0 when
        ``delta_t == 0`` (a zero-sensitivity query needs no noise).

    Raises:
        BudgetError: if ``rho_t <= 0``, ``delta_t < 0`` or either is not a
            finite real number.
    """
    rho_t = check_rho(rho_t, name="rho_t")
    rule = "a finite number >= 0"
    fix = "pass the round's l2 sensitivity, e.g. sqrt(2)"
    d = _as_real(delta_t, "delta_t (sensitivity)", rule, fix)
    if d < 0.0:
        raise BudgetError(
            f"delta_t (sensitivity) must be {rule} (got {delta_t!r}). Fix: {fix}"
        )
    if d == 0.0:
        return 0.0
    return d / math.sqrt(2.0 * rho_t)


# --------------------------------------------------------------------------
# Noise ratio and public pilot
# --------------------------------------------------------------------------

def equivalent_budget_multiplier(q: float) -> float:
    """Budget factor at which Hard matches BF-Soft's noise: ``1 / q^2``.

    With ``q = tanh(r / (2 tau))`` (Cor. 5.5), BF-Soft at budget rho adds the
    noise Hard adds at ``rho / q^2`` (sigma scales as Delta / sqrt(rho);
    DESIGN §3 "Sensitivity and calibration").

    Args:
        q: noise ratio, ``0 <= q <= 1`` (dimensionless).

    Returns:
        ``1 / q^2 >= 1``; ``math.inf`` when ``q == 0`` (zero soft
        sensitivity: no noise at any budget).

    Raises:
        BudgetError: if ``q`` is not a finite number in [0, 1].
    """
    rule = "a finite number in [0, 1]"
    fix = "pass q = tanh(r / (2 tau)) for reach r >= 0 and tau > 0"
    x = _as_real(q, "q (noise ratio)", rule, fix)
    if not 0.0 <= x <= 1.0:
        raise BudgetError(f"q (noise ratio) must be {rule} (got {q!r}). Fix: {fix}")
    if x == 0.0:
        return math.inf
    return 1.0 / (x * x)


def pilot_scaling(n_target: int, n_pilot: int) -> float:
    """Budget scale factor of the public pilot: ``(n_target / n_pilot)^2`` (Eq. (4)).

    Args:
        n_target: size n_t of the private (target) table, integer ``>= 1``.
        n_pilot: size n_p of the public pilot sample, integer ``>= 1``.

    Returns:
        ``(n_target / n_pilot)^2 > 0`` (dimensionless).

    Raises:
        BudgetError: if a size is not an integer ``>= 1``.
    """
    nt = _check_positive_int(n_target, "n_target",
                             "pass the number of rows of the private table")
    npl = _check_positive_int(n_pilot, "n_pilot",
                              "pass the number of rows of the public sample")
    return (nt / npl) ** 2


def pilot_budget(rho_t: float, n_target: int, n_pilot: int) -> float:
    """zCDP budget of the public-data pilot: ``rho_p = rho_t (n_t / n_p)^2`` (Eq. (4)).

    The pilot runs on public data only (§6.2.4), so rho_p is not spent; it
    matches the signal-to-noise ratio of the target run at the pilot's size.

    Args:
        rho_t: target zCDP budget, ``> 0``.
        n_target: size n_t of the private table, integer ``>= 1``.
        n_pilot: size n_p of the public sample, integer ``>= 1``.

    Returns:
        rho_p (zCDP), ``> 0``.

    Raises:
        BudgetError: if ``rho_t`` or a size is out of range.
    """
    rho_t = check_rho(rho_t, name="rho_t")
    return rho_t * pilot_scaling(n_target, n_pilot)


# --------------------------------------------------------------------------
# Ledger
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class PrivacyLedger:
    """What a run spends, reported both ways (Eq. (1) and the exact curve).

    Attributes:
        rho: total zCDP budget (> 0).
        delta: reporting delta in (0, 1).
        epsilon_eq1: epsilon in nats at ``delta`` by Eq. (1).
        epsilon_exact: epsilon in nats at ``delta`` by the mu-GDP curve
            (Dong, Roth & Su 2019), ``<= epsilon_eq1``.
        rounds: number of rounds T (>= 1).
        rho_per_round: tuple of T per-round zCDP budgets summing to rho.
    """

    rho: float
    delta: float
    epsilon_eq1: float
    epsilon_exact: float
    rounds: int
    rho_per_round: tuple

    @classmethod
    def from_budget(cls, rho: Optional[float] = None,
                    epsilon: Optional[float] = None,
                    delta: float = 1e-5, rounds: int = 8,
                    conversion: str = "exact",
                    weights: Optional[Sequence[float]] = None) -> "PrivacyLedger":
        """Build a ledger from ``rho`` or an ``(epsilon, delta)`` target.

        See :func:`rho_from_budget` (which rho) and :func:`split_rho` (how it
        is split over ``rounds``, optionally by ``weights``).

        Raises:
            BudgetError: as :func:`rho_from_budget` and :func:`split_rho`.
        """
        total = rho_from_budget(rho=rho, epsilon=epsilon, delta=delta,
                                conversion=conversion)
        d = check_delta(delta)
        per_round = split_rho(total, rounds, weights)
        return cls(
            rho=float(total),
            delta=float(d),
            epsilon_eq1=float(epsilon_eq1(total, d)),
            epsilon_exact=float(epsilon_exact(total, d)),
            rounds=int(rounds),
            rho_per_round=tuple(float(x) for x in per_round),
        )

    def to_dict(self) -> dict:
        """JSON-safe plain-Python view: floats, an int and a list of floats."""
        return {
            "rho": float(self.rho),
            "delta": float(self.delta),
            "epsilon_eq1": float(self.epsilon_eq1),
            "epsilon_exact": float(self.epsilon_exact),
            "rounds": int(self.rounds),
            "rho_per_round": [float(x) for x in self.rho_per_round],
        }
