"""Exponential mechanism as a ledger row: one private choice among K public candidates.

papers/001 (Gibbs law ``P(r) ∝ exp(epsilon u_r / (2 b))``, blowfish_core.privacy.selection) and the
selection notes B4 (design/selection.md).  A pure epsilon_sel-DP exponential mechanism is
epsilon_sel-bounded-range, hence ``epsilon_sel**2 / 8``-zCDP (Cesar & Rogers 2021; Durfee &
Rogers 2019); the per-pair argument holds for Blowfish neighbours as for standard ones.

The row records: mechanism 'exponential', sensitivity = the score's global sensitivity b
(sup-norm over candidates, ``norm = 'linf'``), scale = b (score units), ``epsilon_t`` =
epsilon_sel and ``rho_t`` = epsilon_sel^2/8 (its zCDP cost), candidates = K.

Composition (totals.privacy_totals): every row zCDP (Gaussian rounds and exponential rows)
-> rho adds, epsilon by Eq. (1), ``accountant = "zcdp-eq1"`` (never the mu-GDP curve: the
exponential row is not a Gaussian mechanism, notes B4's counterexample); mixed with pure
rows (Laplace) -> the PLD accountant, the exponential row as a pure epsilon_sel-DP PLD.
This is not a histogram mechanism: it is not a ``--mechanism`` of ``synth``
(mechanisms.SELECTION_MECHANISMS, not MECHANISMS).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...base.errors import BlowfishError
from ...model.sensitivity import Calibration
from ..ledger import LedgerRow, _required, zcdp_totals
from .registry import register


@dataclass(frozen=True)
class Exponential:
    name: str = "exponential"
    norm: str = "linf"
    budget_name: str = "epsilon"
    #: declared capabilities (the audit, the report, the CLI progress and the app read these, not the name):
    #: label (prose name), scale_name (the per-round noise scale's symbol), accountant (of an all-exponential ledger),
    #: samples (a sampling release step, not additive noise), needs_public (needs public rows).
    label: ClassVar[str] = "exponential"
    scale_name: ClassVar[str] = "b"
    accountant: ClassVar[str] = "zcdp-eq1"
    samples: ClassVar[bool] = False
    needs_public: ClassVar[bool] = False
    #: the floating-point-safe sampler of a release's draw: OpenDP's report-noisy-max with Gumbel
    #: noise of scale 2 b / epsilon_sel (opendp_samplers.opendp_noisy_max; issue 21).
    release_sampler: str = "opendp-gumbel"

    # --- Mechanism protocol: the registry's entry (get_mechanism) totals and composes ledgers of its
    # rows; it releases a choice (draw), never a histogram, so the histogram steps refuse.
    def _no_histogram(self) -> BlowfishError:
        return BlowfishError("the exponential mechanism releases a choice, not a histogram: it is not a --mechanism "
                             "of synth. Fix: use gaussian or laplace (a selection's row is selection_row())")

    def split(self, budget: float, rounds: int, weights: Sequence[float] | None = None, *,
              checked: bool = False) -> np.ndarray:
        raise self._no_histogram()

    def scale(self, sensitivity: float, budget_t: float, *, checked: bool = False) -> float:
        raise self._no_histogram()

    def noise(self, scale: float, shape: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        raise self._no_histogram()

    def release(self, hist: np.ndarray, scale: float, rng: np.random.Generator,
                integer: bool = False) -> np.ndarray:
        raise self._no_histogram()

    def row(self, t: int, candidates: int, cal: Calibration, *args: Any, **extra: Any) -> LedgerRow:
        raise self._no_histogram()

    def draw(self, scores: Any, sensitivity: float, epsilon_sel: float) -> int:
        """One release-mode choice: argmax of scores + Gumbel(2 b / epsilon_sel) drawn by OpenDP.
        scores: (K,) float, score units.  Returns the chosen index (int)."""
        from .opendp_samplers import opendp_noisy_max

        return opendp_noisy_max(scores, sensitivity, epsilon_sel)

    def rho(self, epsilon_sel: float) -> float:
        """zCDP cost of one draw: epsilon_sel^2 / 8 (bounded range)."""
        from ..selection import selection_rho

        return selection_rho(epsilon_sel)

    def selection_row(self, t: int, candidates: int, sensitivity: float, epsilon_sel: float,
                      notes: Sequence[str] = ()) -> LedgerRow:
        """The ledger row of one selection: t (its place in the ledger), candidates K >= 2,
        sensitivity b > 0 (score units), epsilon_sel > 0 (nats)."""
        return LedgerRow(int(t), int(candidates), self.name, float(sensitivity), self.norm, float(sensitivity),
                         "global", rho_t=self.rho(epsilon_sel), epsilon_t=float(epsilon_sel),
                         notes=tuple(notes))

    def totals(self, rows: Sequence[LedgerRow], delta: float, total: float | None = None, *,
               checked: bool = False) -> dict[str, Any]:
        """All-exponential ledger: zCDP, rho = sum epsilon_t^2/8, epsilon by Eq. (1)."""
        return zcdp_totals(rows, delta)

    def pld(self, row: LedgerRow, pld: Any, discretization: float) -> Any:
        """Pure epsilon_sel-DP privacy-loss distribution (dp-accounting) for mixed ledgers."""
        from dp_accounting.pld import common

        epsilon_t = float(_required(row, "epsilon_t", row.epsilon_t))
        return pld.from_privacy_parameters(common.DifferentialPrivacyParameters(epsilon_t, 0.0),
                                           value_discretization_interval=discretization)


register(Exponential(), selection=True)
