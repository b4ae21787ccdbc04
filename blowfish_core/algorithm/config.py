"""The settings of one run of Algorithm 1: :class:`SynthConfig` and the named schedules.

Paper App. F.2 (the paper's setting); DESIGN §3 "ResampleMutate" (the schedules).  Out of
evolution.py (issue 22), which re-exports every name.

Default schedule ("hybrid", the paper's setting read as the reference library does,
DESIGN §3; the named schedules are in :data:`SCHEDULES`): 8 rounds, 512 candidates in
rounds 1-3 and 1024 in rounds 4-8.  Populations of rounds <= ``switch_round`` are
produced by "sample" selection (parents drawn proportionally to the clipped counts,
one mutated child each, parents not kept); later ones by "rank" selection (the top
m/(1+children) parents kept plus ``children`` mutated children each; children = 1 by
default, so at the paper's sizes the top 512 = ``release`` parents are kept plus one
child each); the release is the 512 candidates with the largest final noisy
counts.  Ranking uses the clipped counts (``rank_by='clipped'``) or the raw noisy
counts (``'raw'``, as the reference library).  The previous reading (top m/4 kept with
3 children, release drawn proportionally) is the named schedule ``hybrid-256x3``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import BlowfishError, BudgetError
from ..model.sensitivity import DEFAULT_MAX_EDGES

SELECTIONS = ("hybrid", "sample", "rank")
RELEASE_MODES = ("top", "top-distinct", "sample")
RANK_BY = ("clipped", "raw")
MUTATION_INDEX = ("t", "t-1")

#: the named schedules (DESIGN §3), the ONE place their settings live.  "hybrid" (the
#: default): the reference library's reading -- rank rounds keep the top m/2 (= release at
#: the paper's sizes) parents with one child each, release = the top final counts.
#: "hybrid-256x3": the earlier reading (top m/4 kept, 3 children each, release drawn
#: proportionally to the clipped counts), kept for comparison.
SCHEDULES: dict[str, dict[str, Any]] = {
    "hybrid": {"selection": "hybrid", "switch_round": 3, "children": 1, "release_mode": "top",
               "rank_by": "clipped", "mutation_index": "t"},
}
SCHEDULES["hybrid-256x3"] = {**SCHEDULES["hybrid"], "children": 3, "release_mode": "sample"}
_DEFAULT = SCHEDULES["hybrid"]


@dataclass(frozen=True)
class SynthConfig:
    """Settings of one synthesis run (defaults = the paper's setting, App. F.2).

    rounds: T >= 1.  population: m_t per round (length T); None -> 512 for rounds
    1-3 and 1024 after (scaled down when T < 4).  release: records released (>= 1).
    threshold_h: public count threshold H (App. B), >= 0.  selection: 'hybrid',
    'sample' or 'rank'.  switch_round: hybrid switches to rank for populations of
    rounds > switch_round.  children: mutated children per kept parent in rank mode
    (default 1: the top m/(1+children) = m/2 kept, i.e. 512 = release at the paper's sizes).
    release_mode: 'top' (default: the ``release`` candidates of C_T with the largest final
    noisy counts, unmutated, each candidate once; when m_T < release they repeat in rank order),
    'top-distinct' (the same, equal records counted once: the distinct records in rank order)
    or 'sample' (drawn proportionally to the last clipped noisy counts).
    rank_by: what rank selection and the 'top' release rank by: 'clipped' (default: the
    H-thresholded, clipped counts) or 'raw' (the unclipped noisy counts, as the reference
    library).  mutation_index: 't' (default: round t mutates at rate_t) or 't-1' (at rate_{t-1},
    as the reference library).  mutation_start/end: a and b of the decaying mutation rate.
    max_edges: exhaustive limit of Hard's certification.  budget_weights: per-round rho split
    (None = equal).  Named schedules: :meth:`from_schedule` (:data:`SCHEDULES`).
    """

    rounds: int = 8
    population: list[int] | None = None
    release: int = 512
    release_mode: str = _DEFAULT["release_mode"]
    threshold_h: float = 0.0
    selection: str = _DEFAULT["selection"]
    switch_round: int = _DEFAULT["switch_round"]
    children: int = _DEFAULT["children"]
    rank_by: str = _DEFAULT["rank_by"]
    mutation_index: str = _DEFAULT["mutation_index"]
    mutation_start: float = 0.5
    mutation_end: float = 0.01
    max_edges: float = DEFAULT_MAX_EDGES
    budget_weights: list[float] | None = None

    @classmethod
    def from_schedule(cls, name: str = "hybrid", **overrides: Any) -> "SynthConfig":
        """The named schedule ``name`` with ``overrides`` on top.  Not validated (call .validate()).

        Parameters
        ----------
        name : str, optional
            A key of :data:`SCHEDULES` (default 'hybrid', DESIGN §3).
        **overrides
            Any SynthConfig field; None values are ignored, so unset CLI flags keep the schedule's.

        Returns
        -------
        SynthConfig
            The schedule's settings with the overrides.

        Raises
        ------
        BlowfishError
            Naming ``schedule`` for an unknown name, or the field for an unknown override.
        """
        if name not in SCHEDULES:
            raise BlowfishError(f"schedule must be one of {', '.join(SCHEDULES)} (got {name!r})")
        fields = set(cls.__dataclass_fields__)
        bad = sorted(set(overrides) - fields)
        if bad:
            raise BlowfishError(f"unknown schedule setting {bad[0]!r}. Fix: use one of {', '.join(sorted(fields))}")
        kw = {**SCHEDULES[name], **{k: v for k, v in overrides.items() if v is not None}}
        return cls(**kw)

    def sizes(self) -> list[int]:
        """m_t per round: ``population``, or the paper's 512 up to ``switch_round`` and 1024 after.

        Returns
        -------
        list of int
            One population size per round.
        """
        if self.population is not None:
            return [int(v) for v in self.population]
        return [512 if t <= self.switch_round else 1024 for t in range(1, self.rounds + 1)]

    def validate(self) -> "SynthConfig":
        """Raise BlowfishError naming the field for an invalid setting.

        Returns
        -------
        SynthConfig
            ``self``, checked.

        Raises
        ------
        BlowfishError
            Naming the field for an invalid setting (BudgetError for the rounds).
        """
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, (int, np.integer)) or self.rounds < 1:
            raise BudgetError(f"rounds must be a whole number >= 1 (got {self.rounds!r})")
        if self.rounds > 200:
            raise BudgetError(f"rounds must be <= 200 (got {self.rounds})")
        sizes = self.sizes()
        if len(sizes) != self.rounds:
            raise BlowfishError(
                f"population schedule has {len(sizes)} entries but rounds = {self.rounds}. "
                "Fix: give one candidate count per round"
            )
        if any(s < 1 or s > 200_000 for s in sizes):
            raise BlowfishError(f"population sizes must be between 1 and 200000 (got {sizes})")
        if isinstance(self.release, bool) or not isinstance(self.release, (int, np.integer)) or self.release < 1:
            raise BlowfishError(f"release size must be a whole number >= 1 (got {self.release!r})")
        if self.release > 10_000_000:
            raise BlowfishError(f"release size must be <= 10,000,000 (got {self.release})")
        if not math.isfinite(self.threshold_h) or self.threshold_h < 0:
            raise BlowfishError(f"threshold H must be a finite number >= 0 (got {self.threshold_h})")
        if self.release_mode not in RELEASE_MODES:
            raise BlowfishError(f"release mode must be one of {', '.join(RELEASE_MODES)} (got {self.release_mode!r})")
        if self.rank_by not in RANK_BY:
            raise BlowfishError(f"rank_by must be 'clipped' or 'raw' (got {self.rank_by!r})")
        if self.mutation_index not in MUTATION_INDEX:
            raise BlowfishError(f"mutation_index must be 't' or 't-1' (got {self.mutation_index!r})")
        if self.selection not in SELECTIONS:
            raise BlowfishError(f"selection must be one of {', '.join(SELECTIONS)} (got {self.selection!r})")
        if isinstance(self.children, bool) or not isinstance(self.children, (int, np.integer)) or self.children < 1:
            raise BlowfishError(f"children per parent must be a whole number >= 1 (got {self.children!r})")
        if not (0 <= self.mutation_end <= self.mutation_start <= 1):
            raise BlowfishError("mutation rates must satisfy 0 <= end <= start <= 1")
        return self
