"""The progress event of one round (issue 22): what a run reports to its ``progress`` callback.

:func:`blowfish_core.algorithm.evolution.run_synthesis` emits one :class:`RoundEvent` after every
round, and the reference methods (:func:`blowfish_core.baselines.run.run_reference`) one after
their last measurement.  The event names the round's noise scale by the mechanism table's
``scale_name`` (sigma for Gaussian, b for Laplace, beta for PubMix / LinMix), so a front end
labels it without comparing mechanism names.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RoundEvent(Mapping[str, Any]):
    """One finished round of one run.

    t: the round (1..rounds); rounds: T; method: the method's table name; seed: the study seed
    (None when unseeded); candidates: m_t; sensitivity: Delta_t in the mechanism's norm
    (vote-histogram units); scale: the round's noise scale in the mechanism's terms (Gaussian
    sigma_t, Laplace b_t, PubMix / LinMix mixing weight beta_t); scale_name: its symbol from the
    mechanism table (``Mechanism.scale_name``: 'sigma', 'b', 'beta'); mechanism: the mechanism's
    name; how: how Delta_t was obtained (the ledger's calibration: 'bound', 'certified-crossing',
    ...), None when the run does not say (the reference methods).

    Also a read-only mapping (for callbacks written for the dict events, and for wrappers that add
    keys with ``{**event, ...}``): keys ``round``, ``rounds``, ``method``, ``seed``, ``candidates``,
    ``sensitivity_t``, ``scale_t``, ``scale_name``, ``mechanism``, ``how``, and the deprecated
    ``sigma_t`` (the scale, whatever the mechanism) and ``delta_t`` (the sensitivity), kept for one
    release (CHANGELOG "Unreleased").
    """

    t: int
    rounds: int
    method: str
    seed: int | None
    candidates: int
    sensitivity: float
    scale: float
    scale_name: str
    mechanism: str
    how: str | None = None

    @property
    def scale_key(self) -> str:
        """The scale's per-round name, e.g. 'sigma_t', 'b_t', 'beta_t'."""
        return f"{self.scale_name}_t"

    def as_dict(self) -> dict[str, Any]:
        """The event as a plain dict (the mapping keys, deprecated ones included)."""
        return {"round": self.t, "rounds": self.rounds, "method": self.method, "seed": self.seed,
                "candidates": self.candidates, "sensitivity_t": self.sensitivity, "scale_t": self.scale,
                "scale_name": self.scale_name, "mechanism": self.mechanism, "how": self.how,
                "sigma_t": self.scale, "delta_t": self.sensitivity}

    def __getitem__(self, key: str) -> Any:
        return self.as_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_dict())

    def __len__(self) -> int:
        return len(self.as_dict())
