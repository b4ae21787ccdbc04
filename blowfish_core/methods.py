"""The method table: the ONE place that says what each method is (paper Table 1, §6.2.3).

A :class:`Method` names its vote (hard or soft(tau)), its calibrator, the privacy
notion its release satisfies ('standard': bounded DP, any substitution of one
record; 'blowfish': policy-specific DP, substitutions along the policy's edges),
whether it needs a temperature tau, and its label.  Everything else in the engine
(evolution, runner, report, CLI parsing, pages) reads this table; adding a method is
one entry here (plus its calibrator or vote if new).

Report roles: the paired summary compares ``BASELINE`` (Hard) with ``SOFT`` (BF-Soft)
and decomposes the gap with ``DECOMPOSITION`` (soft vote with Hard's noise, §6.2.3).
"""

from __future__ import annotations

from dataclasses import dataclass

from .calibration import Calibrator, ExactHard, Global, HardNoise, SoftBound
from .errors import BlowfishError
from .votes import HardVote, SoftVote, Vote

NOTIONS = {
    "standard": "standard (bounded) DP: hides any substitution of one record",
    "blowfish": "Blowfish DP for the policy: hides only substitutions along the policy's edges",
}


@dataclass(frozen=True)
class Method:
    """One synthesis method.

    name: CLI / report key; label: UI label; vote: the vote class (HardVote or SoftVote);
    calibrator: Calibrator of Delta_t; notion: 'standard' or 'blowfish'; needs_tau: the
    vote (or the calibration) needs a temperature tau > 0.
    """

    name: str
    label: str
    vote: type
    calibrator: Calibrator
    notion: str
    needs_tau: bool

    def make_vote(self, tau: float | None) -> Vote:
        """The round's vote: HardVote() or SoftVote(tau) (BudgetError for a bad tau)."""
        return SoftVote(tau) if self.vote is SoftVote else self.vote()

    @property
    def policy_aware(self) -> bool:
        """True for Blowfish notions (their noise depends on the policy; empty policy -> no noise)."""
        return self.notion == "blowfish"

    @property
    def integer_votes(self) -> bool:
        """True when the vote histogram holds whole counts (hard votes): a release-mode
        sampler then adds discrete noise (OpenDP's discrete Gaussian / Laplace).  A property
        of the method (public), never of the counts' values."""
        return getattr(self.vote, "name", "") == "hard"

    @property
    def notion_text(self) -> str:
        return NOTIONS[self.notion]


TAB_PE = Method("tab-pe", "Tab-PE", HardVote, Global(), "standard", needs_tau=False)
HARD = Method("hard", "Hard", HardVote, ExactHard(), "blowfish", needs_tau=False)
BF_SOFT = Method("bf-soft", "BF-Soft", SoftVote, SoftBound("policy"), "blowfish", needs_tau=True)
SOFT_DP = Method("soft-dp", "Soft vote (standard DP)", SoftVote, SoftBound("standard"), "standard", needs_tau=True)
SOFT_HARD_NOISE = Method("soft-hard-noise", "Soft vote with Hard's noise", SoftVote, HardNoise(), "blowfish",
                         needs_tau=True)

#: name -> Method, in the order the CLI and the report list them.
METHODS: dict[str, Method] = {m.name: m for m in (TAB_PE, HARD, BF_SOFT, SOFT_DP, SOFT_HARD_NOISE)}
#: name -> UI label.
METHOD_LABELS: dict[str, str] = {m.name: m.label for m in METHODS.values()}

#: report roles (see module docstring).
BASELINE, SOFT, DECOMPOSITION = HARD, BF_SOFT, SOFT_HARD_NOISE


def get_method(method: str | Method, flag: str = "method") -> Method:
    """The Method for a name (or a Method).  Raises BlowfishError naming ``flag`` for an unknown name."""
    if isinstance(method, Method):
        return method
    m = METHODS.get(method) if isinstance(method, str) else None
    if m is None:
        raise BlowfishError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    return m


def tau_methods() -> list[str]:
    """Names of the methods that need tau (for messages)."""
    return [m.name for m in METHODS.values() if m.needs_tau]


def needs_tau(methods) -> bool:
    """True when any of the named methods needs tau."""
    return any(get_method(m).needs_tau for m in methods)


def any_policy_aware(methods) -> bool:
    """True when any of the named methods has a Blowfish notion."""
    return any(get_method(m).policy_aware for m in methods)
