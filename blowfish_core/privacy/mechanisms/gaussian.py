"""Gaussian mechanism under zCDP (paper §2.1, Thm 2.6).

sigma_t = Delta2_t / sqrt(2 rho_t) (accounting.gaussian_sigma); noise sigma_t * z with
z ~ N(0, I_m) from the round's paired stream (numpy's floating-point normal: study
runs only, DESIGN §7).  :class:`GaussianOpenDP` is the same mechanism (same ledger rows,
same accounting) with OpenDP's samplers for release mode.  Budget: total rho split over rounds (accounting.split_budget).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...base.errors import BlowfishError
from ..accounting import gaussian_sigma, split_budget
from ..accounting.budgets import _sigma, _split
from ..ledger import LedgerRow, _gaussian_totals
from ...model.sensitivity import Calibration
from .registry import register


@dataclass(frozen=True)
class Gaussian:
    name: str = "gaussian"
    norm: str = "l2"
    budget_name: str = "rho"
    #: declared capabilities (the audit, the report, the CLI progress and the app read these, not the name):
    #: label (prose name), scale_name (the per-round noise scale's symbol), accountant (of an all-Gaussian ledger),
    #: samples (a sampling release step, not additive noise), needs_public (needs public rows).
    label: ClassVar[str] = "Gaussian"
    scale_name: ClassVar[str] = "sigma"
    accountant: ClassVar[str] = "gdp-exact"
    samples: ClassVar[bool] = False
    needs_public: ClassVar[bool] = False
    #: the noise sampler: numpy's floating-point draws from the seeded stream (study runs).
    sampler: str = "numpy"

    def split(self, budget: float, rounds: int, weights: Sequence[float] | None = None, *,
              checked: bool = False) -> np.ndarray:
        """Per-round rho_t: (rounds,), summing to rho (BudgetError for a bad rho or weights)."""
        # checked: rho was checked already (RunSpec.build, parsing.parse_budget); rounds and weights are checked here
        return _split(budget, rounds, weights) if checked else split_budget(budget, rounds, weights, name=self.budget_name)

    def scale(self, sensitivity: float, budget_t: float, *, checked: bool = False) -> float:
        """sigma_t = Delta_t / sqrt(2 rho_t); 0 when Delta_t = 0."""
        # checked: rho_t is an entry of a checked split (the round loop); only the sensitivity is checked
        return _sigma(sensitivity, budget_t) if checked else gaussian_sigma(sensitivity, budget_t)

    def noise(self, scale: float, shape: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """sigma_t * z, z ~ N(0, I): float64 of ``shape`` ((m,) for one round, (k, m) for k rounds at
        once, as the audit draws them; the same stream values in C order either way)."""
        return scale * rng.standard_normal(shape)

    def residual_norm2(self, m: int, n: int, rng: np.random.Generator) -> np.ndarray:
        """n draws of ||z||^2 - <z, u>^2 for unit noise z ~ N(0, I_m) and a fixed unit vector u: the
        squared length of the noise orthogonal to u, chi-square with m - 1 degrees of freedom
        (rotation invariance); zeros when m = 1.  (n,) float64.  With the noise's coordinate along u
        (``noise(1.0, n, rng)``) it is the whole noise in the two numbers the audit's exact scalar
        sampler needs (blowfish_core.analysis.audit.statistic)."""
        return rng.chisquare(m - 1, n) if m > 1 else np.zeros(n)

    def release(self, hist: np.ndarray, scale: float, rng: np.random.Generator,
                integer: bool = False) -> np.ndarray:
        """Noisy histogram hist + sigma_t * z from the round's stream: (m,) float64
        (``integer`` is ignored: numpy's sampler has no discrete variant)."""
        return hist + self.noise(scale, hist.size, rng)

    def row(self, t: int, candidates: int, cal: Calibration, scale: float, budget_t: float,
            **extra: Any) -> LedgerRow:
        return LedgerRow(t, candidates, self.name, float(cal.sensitivity), self.norm, float(scale), cal.how,
                         rho_t=float(budget_t), witness=cal.witness, **extra)

    def totals(self, rows: Sequence[LedgerRow], delta: float, rho: float | None = None, *,
               checked: bool = False) -> dict[str, Any]:
        """All-Gaussian ledger: rho, Eq. (1), exact mu-GDP epsilon; accountant 'gdp-exact'."""
        return _gaussian_totals(rows, delta, rho, checked=checked)

    def pld(self, row: LedgerRow, pld: Any, discretization: float) -> Any:
        """The row's privacy-loss distribution (dp-accounting) for mixed ledgers."""
        return pld.from_gaussian_mechanism(row.scale, sensitivity=row.sensitivity,
                                           value_discretization_interval=discretization)


@dataclass(frozen=True)
class GaussianOpenDP(Gaussian):
    """The Gaussian mechanism with OpenDP's samplers (release mode, issue 11; DESIGN §7).

    Same name, ledger rows and accounting as :class:`Gaussian`; only the draw differs:
    the vote histogram goes through OpenDP's vector Gaussian measurement at scale sigma_t
    (l2 sensitivity Delta_t), the **discrete Gaussian** when the method's votes are whole
    counts (``integer``: hard votes; Canonne, Kamath & Steinke 2020), the float Gaussian
    (exact sampling on a 2^k grid, then rounding) for soft votes.  The randomness is the
    OS CSPRNG of OpenDP; the ``rng`` argument is not used.
    """

    sampler: str = "opendp"

    def noise(self, scale: float, shape: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Noise alone (a zero histogram through OpenDP's float Gaussian): float64 of ``shape``."""
        from .opendp_samplers import opendp_noisy

        return opendp_noisy(np.zeros(int(np.prod(shape))), scale, "gaussian", discrete=False).reshape(shape)

    def residual_norm2(self, m: int, n: int, rng: np.random.Generator) -> np.ndarray:
        """Not available: OpenDP has no chi-square sampler (the audit uses the study sampler)."""
        raise BlowfishError("the Gaussian mechanism's OpenDP sampler draws whole noise vectors only "
                            "(noise); audits use the study sampler")

    def release(self, hist: np.ndarray, scale: float, rng: np.random.Generator,
                integer: bool = False) -> np.ndarray:
        """OpenDP's noisy histogram: (m,) float64 (whole numbers when ``integer``)."""
        from .opendp_samplers import opendp_noisy

        return opendp_noisy(hist, scale, "gaussian", discrete=integer).astype(np.float64)


register(Gaussian(), release=GaussianOpenDP())
