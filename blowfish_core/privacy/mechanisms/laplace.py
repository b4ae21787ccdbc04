"""Laplace mechanism, pure epsilon-DP (DESIGN §3 "l1 versions").

b_t = Delta1_t / epsilon_t with the l1 sensitivities Tab-PE 2, Hard 2 (0 when
exhaustively certified), BF-Soft 2 tanh(r / (2 tau)); noise b_t * Lap(0, 1)^m from the
round's paired stream.  Budget: total epsilon, equal split epsilon_t = epsilon / T
(or by weights).  Pure DP composes by summing epsilons; the per-pair argument holds for
Blowfish neighbours as for standard ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..accounting import check_epsilon
from ..accounting.budgets import _split
from ..accounting.checks import _as_real
from ...base.errors import BudgetError
from ..ledger import LedgerRow, _required
from ...model.sensitivity import Calibration
from .registry import register


@dataclass(frozen=True)
class Laplace:
    name: str = "laplace"
    norm: str = "l1"
    budget_name: str = "epsilon"
    #: declared capabilities (the audit, the report, the CLI progress and the app read these, not the name):
    #: label (prose name), scale_name (the per-round noise scale's symbol), accountant (of an all-Laplace ledger),
    #: samples (a sampling release step, not additive noise), needs_public (needs public rows).
    label: ClassVar[str] = "Laplace"
    scale_name: ClassVar[str] = "b"
    accountant: ClassVar[str] = "pure-sum"
    samples: ClassVar[bool] = False
    needs_public: ClassVar[bool] = False
    #: the noise sampler: numpy's floating-point draws from the seeded stream (study runs).
    sampler: str = "numpy"

    def split(self, budget: float, rounds: int, weights: Sequence[float] | None = None, *,
              checked: bool = False) -> np.ndarray:
        """Per-round epsilon_t: (rounds,), summing to epsilon (BudgetError for a bad epsilon)."""
        eps = budget if checked else check_epsilon(budget)  # checked: by RunSpec.build / parsing.parse_budget
        return _split(eps, rounds, weights)  # the same proportional split, in epsilon units

    def scale(self, sensitivity: float, budget_t: float, *, checked: bool = False) -> float:
        """b_t = Delta1_t / epsilon_t; 0 when Delta1_t = 0."""
        d = _as_real(sensitivity, "sensitivity (l1)", "a finite number >= 0", "pass the round's l1 sensitivity")
        if d < 0:
            raise BudgetError(f"sensitivity (l1) must be a finite number >= 0 (got {sensitivity!r})")
        return 0.0 if d == 0 else d / float(budget_t)

    def noise(self, scale: float, shape: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """b_t * Lap(0, 1): float64 of ``shape`` ((m,) for one round, (k, m) for k rounds at once, as
        the audit draws them; the same stream values in C order either way)."""
        return scale * rng.laplace(0.0, 1.0, shape)

    def release(self, hist: np.ndarray, scale: float, rng: np.random.Generator,
                integer: bool = False) -> np.ndarray:
        """Noisy histogram hist + b_t * Lap(0, 1)^m from the round's stream: (m,) float64."""
        return hist + self.noise(scale, hist.size, rng)

    def row(self, t: int, candidates: int, cal: Calibration, scale: float, budget_t: float,
            **extra: Any) -> LedgerRow:
        return LedgerRow(t, candidates, self.name, float(cal.sensitivity), self.norm, float(scale), cal.how,
                         epsilon_t=float(budget_t), witness=cal.witness, **extra)

    def totals(self, rows: Sequence[LedgerRow], delta: float, epsilon: float | None = None, *,
               checked: bool = False) -> dict[str, Any]:
        """All-Laplace ledger: pure epsilon-DP, epsilons add (basic composition); accountant 'pure-sum'."""
        per_round = [_required(r, "epsilon_t", r.epsilon_t) for r in rows]
        total = math.fsum(per_round) if epsilon is None else float(epsilon)
        return {"epsilon": total, "delta": 0.0, "rounds": len(rows),
                "epsilon_per_round": [float(x) for x in per_round], "notion": "pure",
                "accountant": "pure-sum",
                "note": "pure epsilon-DP: every round is a Laplace mechanism; epsilons add (basic composition)"}

    def pld(self, row: LedgerRow, pld: Any, discretization: float) -> Any:
        """The row's privacy-loss distribution (dp-accounting) for mixed ledgers."""
        return pld.from_laplace_mechanism(row.scale, sensitivity=row.sensitivity,
                                          value_discretization_interval=discretization)


@dataclass(frozen=True)
class LaplaceOpenDP(Laplace):
    """The Laplace mechanism with OpenDP's samplers (release mode, issue 11; DESIGN §7).

    Same name, ledger rows and accounting as :class:`Laplace`; the histogram goes through
    OpenDP's vector Laplace measurement at scale b_t (l1 sensitivity Delta1_t): the
    discrete Laplace (geometric) mechanism for whole counts (``integer``: hard votes),
    OpenDP's float Laplace otherwise.  OS CSPRNG; ``rng`` is not used.
    """

    sampler: str = "opendp"

    def noise(self, scale: float, shape: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Noise alone (a zero histogram through OpenDP's float Laplace): float64 of ``shape``."""
        from .opendp_samplers import opendp_noisy

        return opendp_noisy(np.zeros(int(np.prod(shape))), scale, "laplace", discrete=False).reshape(shape)

    def release(self, hist: np.ndarray, scale: float, rng: np.random.Generator,
                integer: bool = False) -> np.ndarray:
        from .opendp_samplers import opendp_noisy

        return opendp_noisy(hist, scale, "laplace", discrete=integer).astype(np.float64)


register(Laplace(), release=LaplaceOpenDP())
