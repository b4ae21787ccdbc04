"""The privacy ledger: typed rows, one per released histogram, and their compositions (DESIGN §7).

A :class:`LedgerRow` records round t, the mechanism that released the round, the
sensitivity and its norm, the noise scale, the budget spent in the mechanism's own
terms (rho_t for zCDP Gaussian rows, epsilon_t for pure-DP Laplace rows, plus
delta_dp_t for approximate-DP mechanisms later), how the sensitivity was obtained
(calibration: global / bound / certified-crossing / exhaustive-zero / fallback /
participation-floor) and its witness.

Totals (:func:`blowfish_core.privacy.totals.privacy_totals`, one module up: it reads the
mechanism registry, which imports these rows):

* one mechanism throughout -> that mechanism's own composition (``Mechanism.totals``):
  all-Gaussian: rho = sum rho_t, epsilon at delta by Eq. (1) and by the exact mu-GDP
  curve (accounting.PrivacyLedger, unchanged), ``accountant = "gdp-exact"``;
  all-Laplace: pure epsilon-DP, epsilon = sum epsilon_t (basic composition),
  ``notion = "pure"``, ``accountant = "pure-sum"``.
* every row zCDP (a ``rho_t``) but not all Gaussian -- e.g. the reference methods' exponential
  selections (epsilon-DP exponential mechanism = epsilon-bounded range, hence epsilon^2/8-zCDP,
  Cesar & Rogers 2021; design/selection.md B4) -> rho = sum rho_t and epsilon at delta by Eq. (1)
  only, ``accountant = "zcdp-eq1"`` (:func:`zcdp_totals`).
  Mechanisms whose rows count here: :data:`ZCDP_MECHANISMS`.
* any other mix -> privacy-loss distributions composed with dp-accounting's PLD
  accountant, epsilon at delta; ``accountant = "pld"``.  The mu-GDP epsilon is never
  reported for a ledger with a non-Gaussian row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..base.errors import BudgetError
from .accounting import PrivacyLedger, check_delta, epsilon_eq1
from .accounting.conversions import _epsilon_eq1

_T = TypeVar("_T")

#: notion of an all-Gaussian ledger (the report's historical wording).
GAUSSIAN_NOTION = ("Tab-PE (and soft-dp): standard (bounded) DP as zCDP; Hard/BF-Soft: Blowfish "
                   "(policy-specific) zCDP for the policy; every round is a Gaussian mechanism")


@dataclass(frozen=True)
class LedgerRow:
    """One released histogram.

    t: round (1..T); candidates: m_t; mechanism: its name ('gaussian', 'laplace');
    sensitivity: Delta_t in ``norm`` ('l2' or 'l1'); scale: noise scale (Gaussian sigma_t,
    Laplace b_t), histogram count units; rho_t / epsilon_t / delta_dp_t: budget in the
    mechanism's own terms (None when not its unit); calibration: how Delta_t was obtained;
    witness: the crossing edge for 'certified-crossing'; surviving: candidates with a
    positive weight after the threshold H; notes: plain-language remarks.
    Sampling (PubMix / LinMix, papers/003) rows also carry beta_t (mixing weight), floor
    (the fixed lower bound f_t on every noise mass), n_samples (draws released this round)
    and n_private (n, public); their scale is beta_t.  They never carry the mixture or
    the private histogram.
    """

    t: int
    candidates: int
    mechanism: str
    sensitivity: float
    norm: str
    scale: float
    calibration: str
    surviving: int = 0
    rho_t: float | None = None
    epsilon_t: float | None = None
    delta_dp_t: float | None = None
    witness: dict[str, Any] | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    beta_t: float | None = None
    floor: float | None = None
    n_samples: int | None = None
    n_private: int | None = None

    @property
    def kind(self) -> str:
        """The row's kind (issue 13's name for the mechanism): 'gaussian', 'laplace', 'pubmix', 'linmix'."""
        return self.mechanism

    @property
    def delta_t(self) -> float:
        """Deprecated alias of :attr:`sensitivity` (the report's historical name of Delta_t, not the DP
        delta); kept for one release (CHANGELOG "Unreleased"), read ``sensitivity``."""
        return self.sensitivity

    @property
    def sigma_t(self) -> float | None:
        """Gaussian noise standard deviation: the scale of an l2 (zCDP) row; None for other rows
        (an exponential-selection row is zCDP but its scale is the Gumbel scale 2 Delta / epsilon)."""
        return self.scale if self.rho_t is not None and self.norm == "l2" else None

    def to_dict(self) -> dict[str, Any]:
        """The report row (JSON-safe).

        Returns
        -------
        dict
            t, candidates, rho_t, delta_t (deprecated legacy name of the sensitivity Delta_t, kept
            for one release; not the DP delta, which is delta_dp_t), sensitivity_t (the same value), sigma_t,
            calibration, surviving, witness, notes (the historical keys), then mechanism,
            sensitivity_norm, scale_t and, for pure/approximate DP rows, epsilon_t (and delta_dp_t).
        """
        d: dict[str, Any] = {
            "t": self.t, "candidates": self.candidates, "rho_t": self.rho_t,
            "delta_t": self.sensitivity, "sensitivity_t": self.sensitivity, "sigma_t": self.sigma_t,
            "calibration": self.calibration, "surviving": self.surviving,
            "witness": self.witness, "notes": list(self.notes),
            "mechanism": self.mechanism, "sensitivity_norm": self.norm, "scale_t": self.scale,
        }
        if self.epsilon_t is not None:
            d["epsilon_t"] = self.epsilon_t
        if self.delta_dp_t is not None:
            d["delta_dp_t"] = self.delta_dp_t
        if self.beta_t is not None:
            d.update(kind=self.kind, beta_t=self.beta_t, floor=self.floor, n_samples=self.n_samples,
                     n_private=self.n_private)
        return d


def _required(row: LedgerRow, name: str, value: _T | None) -> _T:
    """``value`` (the row's field ``name``); BudgetError when the row does not carry it."""
    if value is None:
        raise BudgetError(f"ledger row t={row.t} ({row.mechanism}) has no {name}, so it cannot be totalled that "
                          "way. Fix: build rows with their mechanism's row() and total them with privacy_totals")
    return value


def _rho_per_round(rows: Sequence[LedgerRow]) -> list[float]:
    """Every row's rho_t; BudgetError naming the first row without one (not a zCDP row)."""
    return [_required(r, "rho_t", r.rho_t) for r in rows]


def gaussian_totals(rows: Sequence[LedgerRow], delta: float, rho: float | None = None) -> dict[str, Any]:
    """All-Gaussian ledger: rho, Eq. (1) and the exact mu-GDP epsilon (accounting.PrivacyLedger).

    Parameters
    ----------
    rows : sequence of LedgerRow
        The rows of one run, every one a zCDP Gaussian row (a ``rho_t``).
    delta : float
        Reporting delta in (0, 1).
    rho : float, optional
        Declared total zCDP budget; default the sum of the rows' rho_t (then the
        rows' rho_t are the split's weights).

    Returns
    -------
    dict
        ``PrivacyLedger.to_dict()`` (rho, delta, epsilon_eq1, epsilon_exact, rounds,
        rho_per_round: the rows' rho_t) plus epsilon (= epsilon_exact), notion and
        ``accountant = "gdp-exact"``.

    Raises
    ------
    BudgetError
        If a row has no rho_t, or as :meth:`PrivacyLedger.from_budget` for a bad
        delta or budget.
    """
    return _gaussian_totals(rows, delta, rho, checked=False)


def _gaussian_totals(rows: Sequence[LedgerRow], delta: float, rho: float | None = None, *,
                     checked: bool = True) -> dict[str, Any]:
    """:func:`gaussian_totals`; ``checked``: the rows, ``rho`` and ``delta`` are a checked run's
    (RunSpec.build), so nothing is re-checked."""
    per_round = _rho_per_round(rows)
    total = math.fsum(per_round) if rho is None else rho
    weights: list[float] | None = per_round if rho is None else None
    led = (PrivacyLedger._of(total, delta, len(rows), weights) if checked
           else PrivacyLedger.from_budget(rho=total, delta=delta, rounds=len(rows), weights=weights))
    out = led.to_dict()
    out["rho_per_round"] = [float(x) for x in per_round]
    # "epsilon": the statement this accountant makes (the exact curve's), a key every totals dict has
    # (issue 24 contract: privacy.epsilon for every budget kind)
    return {**out, "epsilon": out["epsilon_exact"], "notion": GAUSSIAN_NOTION, "accountant": "gdp-exact"}


#: mechanisms whose rows are zCDP with rho_t their exact cost (Gaussian; exponential by bounded range):
#: a ledger of only these is totalled in rho (zcdp_totals) when it is not all-Gaussian.
ZCDP_MECHANISMS = frozenset({"gaussian", "exponential"})


def zcdp_totals(rows: Sequence[LedgerRow], delta: float, rho: float | None = None) -> dict[str, Any]:
    """A ledger of zCDP rows that are not all Gaussian, totalled in rho.

    rho = sum rho_t (zCDP composes by addition) and epsilon at ``delta`` by Eq. (1)
    only (the exact mu-GDP curve does not hold for exponential-mechanism rows,
    design/selection.md B4).  ``accountant = "zcdp-eq1"``.

    Parameters
    ----------
    rows : sequence of LedgerRow
        The rows of one run, every one zCDP (a ``rho_t``).
    delta : float
        Reporting delta in (0, 1).
    rho : float, optional
        Declared total zCDP budget; default the sum of the rows' rho_t.

    Returns
    -------
    dict
        Keys: rho, delta, epsilon (= epsilon_eq1), epsilon_eq1, rounds,
        rho_per_round, mechanisms, notion, accountant, note.

    Raises
    ------
    BudgetError
        For a bad delta, or if a row has no rho_t.
    """
    return _zcdp_totals(rows, check_delta(delta), rho, checked=False)


def _zcdp_totals(rows: Sequence[LedgerRow], delta: float, rho: float | None = None, *,
                 checked: bool = True) -> dict[str, Any]:
    """:func:`zcdp_totals` for a checked delta; ``checked``: the rows and ``rho`` are a checked run's
    (RunSpec.build), so nothing is re-checked."""
    per_round = _rho_per_round(rows)
    total = math.fsum(per_round) if rho is None else float(rho)
    eps = _epsilon_eq1(total, delta) if checked else epsilon_eq1(total, delta)
    return {"rho": total, "delta": delta, "epsilon": eps, "epsilon_eq1": eps, "rounds": len(rows),
            "rho_per_round": [float(x) for x in per_round], "mechanisms": sorted({r.mechanism for r in rows}),
            "notion": "zcdp",
            "accountant": "zcdp-eq1",
            "note": "every row is a zCDP mechanism (Gaussian rho_t = Delta^2 / (2 sigma^2); exponential selection "
                    "rho_t = epsilon_t^2 / 8, bounded range): rho adds over rows; epsilon at delta by Eq. (1) only "
                    "(no exact Gaussian curve: not every "
                    "row is Gaussian)"}
