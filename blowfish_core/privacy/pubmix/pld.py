"""Accounting of one PubMix release as a dp-accounting privacy-loss distribution (App. C): the
n_samples-fold composition of the 3-point pair at the floor N."""

from __future__ import annotations

import math

import numpy as np

from ..accounting import check_delta, check_epsilon
from .checks import _check_pair, _check_unit, check_beta, check_n, check_n_samples
from .delta import beta_min


# ------------------------------------------------------------------ accounting
def pubmix_pld(epsilon: float, delta: float, n: int, n_samples: int, n1: float, n2: float | None = None,
               beta: float | None = None, value_discretization_interval: float = 1e-4):
    """dp-accounting PLD of one PubMix release (for the ledger).

    The n_samples-fold self-composition of the worst-case 3-point pair of App. C,
    P = [beta N + s, beta N, c], Q = [beta N, beta N + s, c], s = (1 - beta)/n, at
    N = min(n1, n2) (dominates both labellings by Lemma C.2's channel argument; with
    n1 = n2 it is exact and symmetric).  Pessimistic discretization (upper bound on
    delta(eps)).  Valid for adaptive composition only if (beta, N) are fixed before the
    run (design notes A6).

    Parameters
    ----------
    epsilon : float
        Nats, ``> 0`` (the release's target; used for beta when ``beta`` is None).
    delta : float
        In (0, 1) (likewise).
    n : int
        Private rows.
    n_samples : int
        Number of released draws.
    n1 : float
        The smallest noise mass.
    n2 : float, optional
        The second smallest (None: n2 = n1).
    beta : float, optional
        Mixing weight in [0, 1]; None: beta_min(epsilon, delta, n, n_samples, n1, n2).
    value_discretization_interval : float, default 1e-4
        dp-accounting's discretization of the privacy loss.

    Returns
    -------
    dp_accounting.pld.PrivacyLossDistribution
        The release's PLD.

    Raises
    ------
    BudgetError
        For a bad epsilon, delta, n_samples, n1, n2 or beta.
    DataError
        For a bad n.
    """
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    n = check_n(n)
    m = check_n_samples(n_samples)
    a, b = _check_pair(n1, n2)
    bt = beta_min(eps, dl, n, m, a, b) if beta is None else check_beta(beta)
    upper, lower = three_point_pair(bt, n, a)

    def logs(p):
        return {i: math.log(x) for i, x in enumerate(p) if x > 0}

    base = pld_mod.from_two_probability_mass_functions(
        logs(lower), logs(upper), pessimistic_estimate=True,
        value_discretization_interval=value_discretization_interval, symmetric=True)
    return base.self_compose(m) if m > 1 else base


def three_point_pair(beta: float, n: int, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """The worst-case pair of App. C at N1 = N2 = floor.

    Parameters
    ----------
    beta : float
        Mixing weight in [0, 1].
    n : int
        Private rows.
    floor : float
        The noise floor N, in [0, 1].

    Returns
    -------
    tuple of two (3,) float64 ndarray
        (P, Q), each over (i, j, rest).

    Raises
    ------
    BudgetError
        For a bad beta or floor.
    DataError
        For a bad n.
    """
    beta = check_beta(beta)
    n = check_n(n)
    N = _check_unit(floor, "floor")
    s = (1.0 - beta) / n
    c = max(1.0 - 2 * beta * N - s, 0.0)
    return np.array([beta * N + s, beta * N, c]), np.array([beta * N, beta * N + s, c])
