"""The public-data pilot's budget: Eq. (4), ``rho_p = rho_t (n_t / n_p)^2``, total and per round,
with its numbers (:class:`PilotScaling`).

Paper §6.2.4 and Eq. (4); DESIGN §3 "Public-data pilot".  Issue 22: split off
:mod:`blowfish_core.workflows.pilot`, which re-exports every name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..privacy.accounting import (
    check_delta, check_rho, epsilon_exact, pilot_budget, pilot_scaling, split_budget,
)
from ..base.constants import DEFAULT_DELTA


@dataclass(frozen=True)
class PilotScaling:
    """Eq. (4) with numbers.

    rho_target: target (private run) total zCDP budget.  factor: (n_t/n_p)^2.
    rho_pilot: rho_target * factor (total).  *_per_round: the equal (or weighted)
    split over ``rounds``; rho_pilot_per_round[t] = factor * rho_target_per_round[t].
    epsilon_target: epsilon (exact Gaussian curve) of the target run at ``delta``.
    """

    n_target: int
    n_pilot: int
    rho_target: float
    factor: float
    rho_pilot: float
    rounds: int
    rho_target_per_round: tuple[float, ...]
    rho_pilot_per_round: tuple[float, ...]
    delta: float
    epsilon_target: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_target": self.n_target, "n_pilot": self.n_pilot, "rho_target": self.rho_target,
            "factor": self.factor, "rho_pilot": self.rho_pilot, "rounds": self.rounds,
            "rho_target_per_round": list(self.rho_target_per_round),
            "rho_pilot_per_round": list(self.rho_pilot_per_round),
            "delta": self.delta, "epsilon_target": self.epsilon_target,
        }

    def explain(self) -> str:
        """One paragraph with the numbers of Eq. (4)."""
        return (
            f"Eq. (4): rho_p = rho_t (n_t / n_p)^2 = {self.rho_target:.4g} x ({self.n_target:,} / {self.n_pilot:,})^2 "
            f"= {self.rho_target:.4g} x {self.factor:.4g} = {self.rho_pilot:.4g}. "
            f"Per round (equal split over {self.rounds} rounds): {self.rho_target_per_round[0]:.4g} -> "
            f"{self.rho_pilot_per_round[0]:.4g}; scaling the total or every round's budget by the same factor "
            "is the same thing because each round gets a fixed share. The pilot's noise is then the same "
            "fraction of its histogram mass as the target's (sigma_p / n_p = sigma_t / n_t). "
            "No private budget is spent: the pilot reads public rows only."
        )


def scale_budget(rho_target: float, n_target: int, n_pilot: int, rounds: int = 8,
                 weights: Sequence[float] | None = None, delta: float = DEFAULT_DELTA) -> PilotScaling:
    """Eq. (4) budget of the pilot, total and per round.

    Adult: n_t 26,048, n_p 3,000 gives a factor of about 75.

    Parameters
    ----------
    rho_target : float
        zCDP total of the target run, > 0.
    n_target : int
        Rows of the private table, >= 1.
    n_pilot : int
        Rows of the public sample, >= 1.
    rounds : int, default 8
        Rounds, >= 1.
    weights : sequence of float, optional
        Per-round split (None = equal).
    delta : float, default DEFAULT_DELTA
        DP delta of the target's epsilon.

    Returns
    -------
    PilotScaling
        Eq. (4) with numbers.

    Raises
    ------
    BudgetError
        For out-of-range values (accounting.pilot_budget).
    """
    rho_target = check_rho(rho_target, name="rho (target budget)")
    delta = check_delta(delta)
    factor = pilot_scaling(n_target, n_pilot)
    rho_p = pilot_budget(rho_target, n_target, n_pilot)
    per_t = split_budget(rho_target, rounds, weights)
    per_p = np.array([pilot_budget(float(r), n_target, n_pilot) for r in per_t])
    return PilotScaling(int(n_target), int(n_pilot), rho_target, float(factor), float(rho_p), int(rounds),
                        tuple(float(x) for x in per_t), tuple(float(x) for x in per_p), delta,
                        float(epsilon_exact(rho_target, delta)))
