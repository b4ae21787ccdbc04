"""What one run of Algorithm 1 gives back: :class:`SynthResult` (the release and the per-round
ledger, DESIGN §7), :class:`RunStopped` (the caller stopped it) and the vote-precision text.

Out of evolution.py (issue 22), which re-exports every name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..base.errors import BlowfishError
from ..privacy.ledger import LedgerRow


class RunStopped(BlowfishError):
    """The run was stopped by the caller (``should_stop`` returned True)."""


#: the per-round ledger entry (DESIGN §7); see blowfish_core.privacy.ledger.LedgerRow.
RoundRecord = LedgerRow


@dataclass
class SynthResult:
    """One run: the released records (encoded (release, p)) and the per-round ledger.

    sampler: reference methods only (experiment.run_method, runner 'baseline'): ``sampler(n, rng)``
    draws n more encoded records from the fitted model (post-processing); None for Algorithm 1,
    whose further samples come from final_population / final_weights (clipped counts) and
    final_scores (what the 'top' release ranks by: config.rank_by's counts).
    """

    method: str
    seed: int | None
    release: np.ndarray
    rounds: list[LedgerRow]
    seconds: float
    round_seconds: list[float]
    populations: list[np.ndarray] | None = None
    final_population: np.ndarray | None = None
    final_weights: np.ndarray | None = None
    final_scores: np.ndarray | None = None
    sampler: Callable[[int, np.random.Generator], np.ndarray] | None = None
    #: the soft vote's arithmetic as used (votes.SoftVote.precision_used): 'float32', 'float64', or
    #: 'float32 in round(s) ..; float64 in round(s) ..' when it changed; None without a soft vote.
    vote_precision: str | None = None
    #: the sampler that drew the noise ('numpy' for study runs; 'opendp' / 'exact' for releases) and
    #: the randomness text of the run's streams (release_gate.publish checks both; issue 21).
    noise_sampler: str | None = None
    randomness: str | None = None
    #: the measured marginals of a method that releases some exactly (a reference method whose fit
    #: reports ``info["exact"]``: bf-mst, issue 25): {"exact": [clique, ...], "noisy": [clique, ...]},
    #: each clique a list of attribute names (public: the policy and the DP selections decide them);
    #: None for every other method.  Read by report.build_public / build_report and the verdict
    #: words (report_text.exact_release_text).
    marginals: dict[str, list[list[str]]] | None = None

    @property
    def sampler_used(self) -> str | None:
        """The noise sampler as release.release_synthesis reads it (= noise_sampler)."""
        return self.noise_sampler


def vote_precision_text(per_round: list[str]) -> str | None:
    """One text for the per-round precisions.

    Parameters
    ----------
    per_round : list of str
        The soft vote's precision of every round ('float32' or 'float64').

    Returns
    -------
    str or None
        The precision when every round used it, else which rounds used which
        ('float32 in round(s) 1, 2; float64 in round(s) 3'); None for no round.
    """
    if not per_round:
        return None
    kinds = sorted(set(per_round), key=per_round.index)
    if len(kinds) == 1:
        return kinds[0]
    return "; ".join(f"{k} in round(s) {', '.join(str(t) for t, p in enumerate(per_round, 1) if p == k)}"
                     for k in kinds)
