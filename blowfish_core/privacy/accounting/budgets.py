"""Spending a zCDP budget: the per-round split, the Gaussian noise scale (Thm 2.6), the public-data
pilot budget (Eq. (4)), the equivalent-budget multiplier and the :class:`PrivacyLedger`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from blowfish_core.base.constants import DEFAULT_DELTA
from blowfish_core.base.errors import BudgetError

from .checks import _as_real, _check_positive_int, check_delta, check_rho
from .conversions import _epsilon_eq1, _epsilon_exact, rho_from_budget


def split_budget(budget: float, rounds: int,
                 weights: Optional[Sequence[float]] = None, *, name: str = "rho") -> np.ndarray:
    """Split a total budget over ``rounds`` rounds: zCDP rho (Gaussian) or pure-DP
    epsilon (Laplace), both of which compose additively.

    Default is the equal split ``budget_t = budget / T`` (DESIGN §3, Algorithm 1).
    With ``weights`` (length ``rounds``, all finite and > 0) the split is
    ``budget * w_t / sum(w)``.

    Parameters
    ----------
    budget : float
        Total budget in the mechanism's own units, ``> 0`` (at most MAX_RHO; a
        Laplace epsilon is checked by check_epsilon first).
    rounds : int
        Number of rounds T, integer ``>= 1``.
    weights : sequence of float, optional
        Positive relative weights, one per round.
    name : str, default "rho"
        The budget's field name in messages (the mechanism's ``budget_name``:
        "rho" or "epsilon").

    Returns
    -------
    (rounds,) float64 ndarray
        Entries ``> 0``, summing to ``budget`` (up to rounding).

    Raises
    ------
    BudgetError
        If ``budget`` is out of range, ``rounds < 1`` or not an integer, or
        ``weights`` has the wrong length or a non-finite, zero or negative entry.
    """
    return _split(check_rho(budget, name=name), rounds, weights)


def _split(total: float, rounds: int, weights: Optional[Sequence[float]] = None) -> np.ndarray:
    """:func:`split_budget` of a total already checked (RunSpec.build, parsing.parse_budget): only
    ``rounds`` and ``weights`` are checked here.  ``total`` in any budget unit (rho or epsilon)."""
    rounds = _check_positive_int(rounds, "rounds",
                                 "give the number of rounds, e.g. 8")
    if weights is None:
        return np.full(rounds, total / rounds, dtype=np.float64)
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
    return total * (w / w.sum())


def gaussian_sigma(sensitivity: float, rho_t: float) -> float:
    """Noise standard deviation of a rho_t-zCDP Gaussian mechanism (Thm 2.6).

    ``sigma_t = sqrt(Delta_t^2 / (2 rho_t))`` = ``Delta_t / sqrt(2 rho_t)``.

    Parameters
    ----------
    sensitivity : float
        l2 sensitivity Delta_t of the round's histogram (same units as the
        histogram counts), finite, ``>= 0``.
    rho_t : float
        zCDP budget of the round, ``rho_t > 0``.

    Returns
    -------
    float
        sigma_t (histogram count units), ``>= 0``; exactly 0.0 when
        ``sensitivity == 0`` (a zero-sensitivity query needs no noise).

    Raises
    ------
    BudgetError
        If ``rho_t <= 0``, ``sensitivity < 0`` or either is not a finite real number.
    """
    return _sigma(sensitivity, check_rho(rho_t, name="rho_t"))


def _sigma(sensitivity: float, rho_t: float) -> float:
    """:func:`gaussian_sigma` for a per-round budget already checked (an entry of the split of a
    checked total): only the sensitivity, computed anew each round, is checked."""
    rule = "a finite number >= 0"
    fix = "pass the round's l2 sensitivity, e.g. sqrt(2)"
    d = _as_real(sensitivity, "sensitivity (l2)", rule, fix)
    if d < 0.0:
        raise BudgetError(
            f"sensitivity (l2) must be {rule} (got {sensitivity!r}). Fix: {fix}"
        )
    if d == 0.0:
        return 0.0
    return d / math.sqrt(2.0 * float(rho_t))


# --------------------------------------------------------------------------
# Noise ratio and public pilot
# --------------------------------------------------------------------------

def equivalent_budget_multiplier(q: float) -> float:
    """Budget factor at which Hard matches BF-Soft's noise: ``1 / q^2``.

    With ``q = tanh(r / (2 tau))`` (Cor. 5.5), BF-Soft at budget rho adds the
    noise Hard adds at ``rho / q^2`` (sigma scales as Delta / sqrt(rho);
    DESIGN §3 "Sensitivity and calibration").

    Parameters
    ----------
    q : float
        Noise ratio, ``0 <= q <= 1`` (dimensionless).

    Returns
    -------
    float
        ``1 / q^2 >= 1``; ``math.inf`` when ``q == 0`` (zero soft sensitivity:
        no noise at any budget).

    Raises
    ------
    BudgetError
        If ``q`` is not a finite number in [0, 1].
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

    Parameters
    ----------
    n_target : int
        Size n_t of the private (target) table, integer ``>= 1``.
    n_pilot : int
        Size n_p of the public pilot sample, integer ``>= 1``.

    Returns
    -------
    float
        ``(n_target / n_pilot)^2 > 0`` (dimensionless).

    Raises
    ------
    BudgetError
        If a size is not an integer ``>= 1``.
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

    Parameters
    ----------
    rho_t : float
        Target zCDP budget, ``> 0``.
    n_target : int
        Size n_t of the private table, integer ``>= 1``.
    n_pilot : int
        Size n_p of the public sample, integer ``>= 1``.

    Returns
    -------
    float
        rho_p (zCDP), ``> 0``.

    Raises
    ------
    BudgetError
        If ``rho_t`` or a size is out of range.
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
                    delta: float = DEFAULT_DELTA, rounds: int = 8,
                    conversion: str = "exact",
                    weights: Optional[Sequence[float]] = None) -> "PrivacyLedger":
        """Build a ledger from ``rho`` or an ``(epsilon, delta)`` target.

        See :func:`rho_from_budget` (which rho) and :func:`split_budget` (how it
        is split over ``rounds``, optionally by ``weights``).

        Raises:
            BudgetError: as :func:`rho_from_budget` and :func:`split_budget`.
        """
        total = rho_from_budget(rho=rho, epsilon=epsilon, delta=delta,
                                conversion=conversion)
        return cls._of(total, check_delta(delta), rounds, weights)

    @classmethod
    def _of(cls, total: float, delta: float, rounds: int,
            weights: Optional[Sequence[float]] = None) -> "PrivacyLedger":
        """:meth:`from_budget` of a rho and a delta already checked (a checked run's ledger): only
        ``rounds`` and ``weights`` are checked (BudgetError)."""
        per_round = _split(total, rounds, weights)
        return cls(
            rho=float(total),
            delta=float(delta),
            epsilon_eq1=float(_epsilon_eq1(total, delta)),
            epsilon_exact=float(_epsilon_exact(total, delta)),
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
