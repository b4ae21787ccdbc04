"""The result of a private choice of tau (or Hard): :class:`PrivateChoiceResult`, a seeded study
result or a release, with its DP outputs and its internal figures (:data:`INTERNAL`).

papers/001 (issue 14), issue 21 "One release gate"; DESIGN §7.  Issue 22: split off
:mod:`blowfish_core.workflows.private_pilot`, which re-exports every name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..algorithm.streams import RANDOMNESS, SEEDED_NOTE
from ..synthesis.experiment import PairedResult
from ..privacy.ledger import LedgerRow
from ..synthesis.report import INTERNAL_LABEL
from .private_plan import PrivatePilotPlan, setting_label

#: label of every figure computed on the private data without noise.
INTERNAL = "internal: computed on private data"


@dataclass
class PrivateChoiceResult:
    """The private choice: a seeded study result (``seed`` a whole number) or a release
    (``seed`` None, made by :func:`release_tau_choice`; ``publication`` is then the gate's
    :class:`~blowfish_core.synthesis.gate.Publication`).

    The DP outputs: ``chosen`` (index), ``method``/``tau``/``label`` of the chosen setting,
    ``release`` (its synthetic table), ``ledger`` (every round of the K runs, then the exponential
    row) and ``privacy`` (their totals).  They may be published only from a release (``seeded``
    False) together with the gate's label and total; a seeded result says :data:`SEEDED_NOTE`.
    Internal (:data:`INTERNAL`): ``errors`` (K,) and ``probabilities`` (K,), computed on the
    private data.  ``runs``: the K typed PairedResults (one per setting).
    """

    plan: PrivatePilotPlan
    runs: tuple[PairedResult, ...]
    chosen: int
    errors: np.ndarray
    probabilities: np.ndarray
    ledger: tuple[LedgerRow, ...]
    privacy: dict[str, Any]
    seed: int | None
    seconds: float
    config: dict[str, Any] = field(default_factory=dict)
    #: the release gate's Publication (releases only; None for a seeded study result).
    publication: Any = None

    @property
    def seeded(self) -> bool:
        """True for a study result (seeded streams), False for a release (OS entropy, the gate)."""
        return self.seed is not None

    @property
    def randomness(self) -> str:
        """:data:`SEEDED_NOTE` for a study result, evolution.RANDOMNESS for a release."""
        return SEEDED_NOTE if self.seeded else RANDOMNESS

    @property
    def status(self) -> str:
        """What the result is: :data:`SEEDED_NOTE`, or the gate's label of the release."""
        if self.seeded or self.publication is None:
            return SEEDED_NOTE
        return self.publication.label

    @property
    def method(self) -> str:
        return self.plan.settings[self.chosen][0]

    @property
    def tau(self) -> float | None:
        return self.plan.settings[self.chosen][1]

    @property
    def label(self) -> str:
        return setting_label(self.method, self.tau)

    @property
    def release(self) -> pd.DataFrame:
        return self.runs[self.chosen].run(self.method, self.seed).release

    def internal_table(self) -> pd.DataFrame:
        """One row per setting: setting, method, tau, error, probability (all :data:`INTERNAL`).

        Returns
        -------
        pandas.DataFrame
            K rows; the error column is named after the plan's metric.
        """
        return pd.DataFrame([{"setting": setting_label(m, t), "method": m, "tau": t,
                              self.plan.metric: float(e), "probability": float(p)}
                             for (m, t), e, p in zip(self.plan.settings, self.errors, self.probabilities)])

    def public_dict(self) -> dict[str, Any]:
        """JSON-able, no figure computed on the private data (see :meth:`internal_dict`): choice,
        plan, ledger, privacy totals, settings, ``randomness`` and ``status``.  A seeded result:
        ``seed``, randomness = status = :data:`SEEDED_NOTE` (for study, not for publication).  A
        release: randomness = evolution.RANDOMNESS (no seed), status = the gate's label, and
        ``release`` = {label, total (release_gate.compose_total), lines (the ledger head)}.

        Returns
        -------
        dict
            The public part.
        """
        out: dict[str, Any] = {
            "choice": {"index": self.chosen, "method": self.method, "tau": self.tau, "label": self.label},
            "plan": self.plan.to_dict(), "randomness": self.randomness, "status": self.status,
            "config": self.config, "ledger": [r.to_dict() for r in self.ledger], "privacy": self.privacy,
        }
        if self.seeded:
            out["seed"] = self.seed
        elif self.publication is not None:
            pub = self.publication
            out["release"] = {"label": pub.label, "total": dict(pub.total), "lines": pub.head_lines}
        return out

    def internal_dict(self) -> dict[str, Any]:
        """JSON-able, the figures computed on the private data without noise, labelled
        :data:`blowfish_core.synthesis.report.INTERNAL_LABEL`: per-setting errors and selection probabilities.

        Returns
        -------
        dict
            label, errors and probabilities ({setting label: value}) and seconds.
        """
        return {"label": INTERNAL_LABEL,
                "errors": {setting_label(m, t): float(e) for (m, t), e in zip(self.plan.settings, self.errors)},
                "probabilities": {setting_label(m, t): float(p)
                                  for (m, t), p in zip(self.plan.settings, self.probabilities)},
                "seconds": self.seconds}

    def to_dict(self) -> dict[str, Any]:
        """JSON-able union for experiments: :meth:`public_dict` plus ``internal`` (labelled).

        Returns
        -------
        dict
            public_dict, ``internal`` (internal_dict) and ``seconds``.
        """
        return {**self.public_dict(), "internal": self.internal_dict(), "seconds": self.seconds}
