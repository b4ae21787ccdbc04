"""What a ledger spends in total: :func:`privacy_totals` and the PLD composition :func:`pld_epsilon`.

The rows and the per-mechanism compositions are :mod:`blowfish_core.privacy.ledger`'s; this
module sits above the mechanism registry (:mod:`blowfish_core.privacy.mechanisms`), which it
reads to find each row's mechanism: one mechanism throughout -> ``Mechanism.totals``; every row
zCDP -> ledger.zcdp_totals; any other mix -> dp-accounting's PLD accountant (see the ledger's
module docstring for the keys).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..base.constants import DEFAULT_DELTA
from .accounting import check_delta
from .ledger import ZCDP_MECHANISMS, LedgerRow, _zcdp_totals, zcdp_totals
from .mechanisms import MECHANISMS, Mechanism, budget_of, get_mechanism

def privacy_totals(rows: Sequence[LedgerRow], delta: float = DEFAULT_DELTA, rho: float | None = None,
                   epsilon: float | None = None) -> dict[str, Any]:
    """What a ledger spends in total (see module docstring): a JSON-safe dict.

    One mechanism throughout: that mechanism's own composition
    (``Mechanism.totals``). All zCDP (Gaussian + exponential): rho summed,
    epsilon by Eq. (1) (``ledger.zcdp_totals``). Mixed: dp-accounting's PLD
    accountant (:func:`pld_epsilon`).

    Parameters
    ----------
    rows : sequence of LedgerRow
        The rows of one run (every run of a paired comparison spends the same).
    delta : float, default DEFAULT_DELTA
        Reporting delta in (0, 1) for (epsilon, delta) statements.
    rho : float, optional
        The declared total in zCDP terms, so the totals equal the requested
        budget exactly (default: the sum of the rows).
    epsilon : float, optional
        The declared total in pure-DP terms (a Laplace ledger), likewise
        (default: the sum of the rows).

    Returns
    -------
    dict
        Gaussian -> rho, delta, epsilon (= epsilon_exact), epsilon_eq1, epsilon_exact, rounds, rho_per_round,
        notion, accountant='gdp-exact'; Laplace -> epsilon, delta=0, rounds,
        epsilon_per_round, notion='pure', accountant='pure-sum'.  All zCDP
        (Gaussian + exponential): rho, delta, epsilon (= epsilon_eq1), rounds,
        rho_per_round, mechanisms, notion='zcdp', accountant='zcdp-eq1'.
        Mixed: epsilon, delta, rounds, mechanisms, notion='approximate',
        accountant='pld'.

    Raises
    ------
    BudgetError
        For a bad delta.
    ValueError
        For an empty ledger.
    """
    if not rows:
        raise ValueError("the ledger is empty")
    kinds = sorted({r.mechanism for r in rows})
    if len(kinds) == 1 and kinds[0] in MECHANISMS:
        mech = get_mechanism(kinds[0])
        return mech.totals(rows, delta, budget_of(mech, rho, epsilon))
    if set(kinds) <= ZCDP_MECHANISMS:
        return zcdp_totals(rows, delta, rho)
    delta = check_delta(delta)
    return {"epsilon": pld_epsilon(rows, delta), "delta": delta, "rounds": len(rows),
            "mechanisms": kinds, "notion": "approximate", "accountant": "pld",
            "note": "mixed mechanisms: privacy-loss distributions composed with dp-accounting's PLD accountant"}


def _privacy_totals(rows: Sequence[LedgerRow], delta: float, mechanism: Mechanism,
                    total: float | None = None) -> dict[str, Any]:
    """:func:`privacy_totals` of the ledger of a checked run (RunSpec.build): ``mechanism`` is the run's
    Mechanism, ``total`` its budget in the mechanism's own terms (RunSpec.checked.budget; None: the
    rows' sum) and ``delta`` checked; nothing is re-checked or looked up again.  A ledger that is not
    all ``mechanism`` (a reference method's zCDP rows, a mixed one) composes as privacy_totals does."""
    if not rows:
        raise ValueError("the ledger is empty")
    kinds = {r.mechanism for r in rows}
    if kinds == {mechanism.name}:
        return mechanism.totals(rows, delta, total, checked=True)
    if kinds <= ZCDP_MECHANISMS:
        return _zcdp_totals(rows, delta, total)
    return privacy_totals(rows, delta)


def pld_epsilon(rows: Sequence[LedgerRow], delta: float, discretization: float = 1e-4) -> float:
    """epsilon at ``delta`` of the composition of every row, by dp-accounting's PLD (pessimistic).

    Gaussian rows: N(0, sigma^2) with l2 sensitivity Delta; Laplace rows: Lap(b) with
    l1 sensitivity Delta.  Rows with zero sensitivity release nothing private and are skipped.

    Parameters
    ----------
    rows : sequence of LedgerRow
        The rows of one run; each row's mechanism (``get_mechanism``) gives its PLD.
    delta : float
        Reporting delta in (0, 1).
    discretization : float, default 1e-4
        Value discretization interval of the privacy-loss distributions.

    Returns
    -------
    float
        epsilon in nats, ``>= 0``; ``math.inf`` if a row with a positive
        sensitivity adds no noise (scale 0, not a sampling row); 0.0 if no row
        releases anything private.
    """
    from dp_accounting.pld import privacy_loss_distribution as pld

    total = None
    for r in rows:
        if r.sensitivity == 0:
            continue
        if r.scale == 0 and r.beta_t is None:  # noise-free additive release (a sampling row's scale is beta_t)
            return math.inf
        p = get_mechanism(r.mechanism).pld(r, pld, discretization)
        total = p if total is None else total.compose(p)
    return 0.0 if total is None else float(total.get_epsilon_for_delta(delta))
