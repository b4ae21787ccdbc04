"""Gaussian mechanism under zCDP (paper §2.1, Thm 2.6).

sigma_t = Delta2_t / sqrt(2 rho_t) (accounting.gaussian_sigma); noise sigma_t * z with
z ~ N(0, I_m) from the round's paired stream (numpy's floating-point normal: study
runs only, DESIGN §7).  Budget: total rho split over rounds (accounting.split_rho).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..accounting import gaussian_sigma, split_rho
from ..ledger import LedgerRow, gaussian_totals
from ..sensitivity import Calibration


@dataclass(frozen=True)
class Gaussian:
    name: str = "gaussian"
    norm: str = "l2"
    budget_name: str = "rho"

    def split(self, budget: float, rounds: int, weights: Sequence[float] | None = None) -> np.ndarray:
        """Per-round rho_t: (rounds,), summing to rho (BudgetError for a bad rho or weights)."""
        return split_rho(budget, rounds, weights)

    def scale(self, sensitivity: float, budget_t: float) -> float:
        """sigma_t = Delta_t / sqrt(2 rho_t); 0 when Delta_t = 0."""
        return gaussian_sigma(sensitivity, budget_t)

    def noise(self, scale: float, m: int, rng: np.random.Generator) -> np.ndarray:
        """sigma_t * z, z ~ N(0, I_m): (m,) float64."""
        return scale * rng.standard_normal(m)

    def row(self, t: int, candidates: int, cal: Calibration, scale: float, budget_t: float,
            **extra: Any) -> LedgerRow:
        return LedgerRow(t, candidates, self.name, float(cal.delta), self.norm, float(scale), cal.how,
                         rho_t=float(budget_t), witness=cal.witness, **extra)

    def totals(self, rows: Sequence[LedgerRow], delta: float, rho: float | None = None) -> dict[str, Any]:
        """All-Gaussian ledger: rho, Eq. (1), exact mu-GDP epsilon; accountant 'gdp-exact'."""
        return gaussian_totals(rows, delta, rho)

    def pld(self, row: LedgerRow, pld: Any, discretization: float) -> Any:
        """The row's privacy-loss distribution (dp-accounting) for mixed ledgers."""
        return pld.from_gaussian_mechanism(row.scale, sensitivity=row.sensitivity,
                                           value_discretization_interval=discretization)
