"""Noise mechanisms: plug-ins that release one round's vote histogram.

A mechanism knows its sensitivity norm, how to split a total budget over rounds,
the noise scale for a sensitivity and a per-round budget, how to draw the noise,
how to write the round's ledger row, how a ledger of its rows composes (``totals``)
and its privacy-loss distribution for mixed ledgers (``pld``, dp-accounting).  Algorithm 1 (evolution.run_synthesis)
only calls these; adding a mechanism is one module here plus one entry in
:data:`MECHANISMS` (and its parsing in blowfish_core.parsing).

* gaussian: zCDP Gaussian mechanism (Thm 2.6), l2 sensitivity, budget rho.
* laplace:  pure epsilon-DP Laplace mechanism, l1 sensitivity, budget epsilon.
* exponential (SELECTION_MECHANISMS): one private choice among K candidates (papers/001),
  epsilon_sel-DP, epsilon_sel^2/8 zCDP; a ledger row, not a histogram mechanism.
* pubmix / linmix: sampling release steps of the hard vote (papers/003): the round's
  draws come from (1 - beta_t) H_t/n + beta_t P_nse,t; budget (epsilon, delta), PLD
  ledger.  They have ``samples = True`` and, instead of scale/noise, ``plan`` and
  ``noise_distribution`` (see mechanisms/pubmix.py).  Additive mechanisms have no
  ``samples`` attribute (or False).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from ..errors import BlowfishError
from ..ledger import LedgerRow
from ..sensitivity import Calibration
from .gaussian import Gaussian
from .laplace import Laplace
from .exponential import Exponential
from .pubmix import PubMix


class Mechanism(Protocol):
    """name: ledger name; norm: 'l2' or 'l1'; budget_name: 'rho' or 'epsilon'."""

    name: str
    norm: str
    budget_name: str

    def split(self, budget: float, rounds: int, weights: Sequence[float] | None = None) -> np.ndarray: ...

    def scale(self, sensitivity: float, budget_t: float) -> float: ...

    def noise(self, scale: float, m: int, rng: np.random.Generator) -> np.ndarray: ...

    def row(self, t: int, candidates: int, cal: Calibration, scale: float, budget_t: float,
            **extra: Any) -> LedgerRow: ...

    def totals(self, rows: Sequence[LedgerRow], delta: float, total: float | None = None) -> dict[str, Any]: ...

    def pld(self, row: LedgerRow, pld: Any, discretization: float) -> Any: ...


#: name -> mechanism instance (the only mechanism registry).
MECHANISMS: dict[str, Mechanism] = {m.name: m for m in (Gaussian(), Laplace(), PubMix(), PubMix("linmix", linmix=True))}
#: the additive-noise mechanisms (--mechanism) and the sampling release steps (--noise pubmix|linmix).
ADDITIVE = tuple(k for k, m in MECHANISMS.items() if not getattr(m, "samples", False))
SAMPLING = tuple(k for k, m in MECHANISMS.items() if getattr(m, "samples", False))
DEFAULT_MECHANISM = "gaussian"
#: mechanisms that release a choice, not a histogram: ledger rows only, not a ``--mechanism`` of synth.
SELECTION_MECHANISMS: dict[str, Exponential] = {m.name: m for m in (Exponential(),)}


def get_mechanism(mechanism: str | Mechanism | None) -> Mechanism:
    """The mechanism for a name (None -> Gaussian).  Raises BlowfishError for an unknown name."""
    if mechanism is None:
        return MECHANISMS[DEFAULT_MECHANISM]
    if not isinstance(mechanism, str):
        return mechanism
    m = MECHANISMS.get(mechanism) or SELECTION_MECHANISMS.get(mechanism)
    if m is None:
        raise BlowfishError(f"unknown mechanism {mechanism!r}; use one of {', '.join(MECHANISMS)}")
    return m


__all__ = ["ADDITIVE", "DEFAULT_MECHANISM", "MECHANISMS", "SAMPLING", "SELECTION_MECHANISMS", "Exponential",
           "Gaussian", "Laplace", "Mechanism", "PubMix", "get_mechanism"]
