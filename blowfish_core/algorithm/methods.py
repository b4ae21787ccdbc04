"""The method table: the ONE place that says what each method is (paper Table 1, §6.2.3).

A :class:`Method` names its vote (hard or soft(tau)), its calibrator, the privacy
notion its release satisfies ('standard': bounded DP, any substitution of one
record; 'blowfish': policy-specific DP, substitutions along the policy's edges),
whether it needs a temperature tau, and its label.  Everything else in the engine
(evolution, runner, report, CLI parsing, pages) reads this table; adding a method is
one entry here (plus its calibrator or vote if new).

Report roles: the paired summary compares ``BASELINE`` (Hard) with ``SOFT`` (BF-Soft)
and decomposes the gap with ``DECOMPOSITION`` (soft vote with Hard's noise, §6.2.3).

How a method runs (``Method.runner``): ``"evolution"`` is Algorithm 1
(evolution.run_synthesis: vote + calibrator + mechanism); ``"baseline"`` is a reference
method fitted by a function of blowfish_core.baselines named by ``Method.fit`` (MST, AIM:
standard DP only, no policy, no tau; bf-mst, bf-soft-mst: under the policy, the latter with tau;
optional extra ``pip install .[baseline]``).
experiment.run_method dispatches on ``runner``; nothing compares method names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ..model.calibration import CalibratedMethod, Calibrator, ExactHard, Global, HardNoise, RoundInputs, SoftBound
from ..model.calibration import calibrate_round
from ..base.errors import BlowfishError, BudgetError
from ..model.gower_kernel import GowerKernel
from ..model.policy import Policy
from ..model.schema import Schema
from ..model.sensitivity import DEFAULT_MAX_EDGES, Calibration
from ..model.votes import VOTES, HardVote, SoftVote, Vote

NOTIONS = {
    "standard": "standard (bounded) DP: hides any substitution of one record",
    "blowfish": "Blowfish DP for the policy: hides only substitutions along the policy's edges",
}

#: how a method runs: Algorithm 1, or a reference method's fit function (blowfish_core.baselines).
RUNNERS = ("evolution", "baseline")


@dataclass(frozen=True)
class Method:
    """One synthesis method.

    name: CLI / report key; label: UI label; vote: the vote class (HardVote or SoftVote);
    calibrator: Calibrator of Delta_t; notion: 'standard' or 'blowfish'; needs_tau: the
    vote (or the calibration) needs a temperature tau > 0.
    runner: 'evolution' (Algorithm 1) or 'baseline' (a reference method: vote and
    calibrator are None, ``fit`` names its function in blowfish_core.baselines).
    mechanisms: names of the budget mechanisms it runs with (None: every registered one).
    note: appended to the notion text in reports (e.g. "ignores the policy").
    """

    name: str
    label: str
    vote: type[Vote] | None
    calibrator: Calibrator | None
    notion: str
    needs_tau: bool
    runner: str = "evolution"
    fit: str | None = None
    mechanisms: tuple[str, ...] | None = None
    note: str = ""
    #: why the method is analysis-only (not private); "" for a private method (issue 21).  A
    #: method with a reason is refused by the release gate and never offered in release controls.
    not_private_reason: str = ""
    #: the mechanisms a reference method's ledger uses besides the run's (MST/AIM: exponential
    #: selections); the release gate checks that each has a floating-point-safe release sampler.
    extra_mechanisms: tuple[str, ...] = ()
    #: the epsilon -> rho conversion that matches the accountant of this method's ledger (issue 24
    #: "One epsilon"): 'exact' (Algorithm 1: all-Gaussian rows, the mu-GDP curve, accountant
    #: 'gdp-exact') or 'eq1' (MST/AIM: Gaussian measurements and exponential selections, Eq. (1),
    #: accountant 'zcdp-eq1').  A run converts a chosen epsilon once, with the conversion of its
    #: methods, so the epsilon its ledger reports is the epsilon chosen.
    epsilon_conversion: str = "exact"
    #: a short label for sentences ("MST has 55% lower error than BF-Soft"); "" -> ``label``.
    short: str = ""

    @property
    def short_label(self) -> str:
        """The label for running text: ``short`` when given, else ``label``."""
        return self.short or self.label

    @property
    def releasable(self) -> bool:
        """True when the method's releases are private (the release gate admits it)."""
        return not self.not_private_reason

    @property
    def release_mechanisms(self) -> tuple[str, ...]:
        """Mechanisms the method's ledger uses besides the run's own (release.claim_of)."""
        return self.extra_mechanisms

    def make_vote(self, tau: float | None, precision: str = "float64") -> Vote:
        """The round's vote: HardVote() or SoftVote(tau, precision) (BudgetError for a bad tau).

        precision: the soft vote's arithmetic (votes.PRECISIONS); the hard vote is exact either way.

        Raises BlowfishError for a reference method (it has no vote: it is not Algorithm 1).
        """
        if self.vote is None:
            raise BlowfishError(f"{self.label} has no vote: it is not an Algorithm 1 method")
        # the vote table; a vote built from a temperature (needs_tau) takes tau and precision, the others nothing
        cls: Any = VOTES[self.vote.name]
        return cls(tau, precision) if cls.needs_tau else cls()

    def _vote(self, tau: float | None, precision: str = "float64") -> Vote:
        """:meth:`make_vote` for a tau already checked (a RunSpec's, run_synthesis's set-up): the vote's
        own check of tau is not repeated."""
        if self.vote is None:
            raise BlowfishError(f"{self.label} has no vote: it is not an Algorithm 1 method")
        vote: Any = self.vote
        cls: Any = VOTES[vote.name]
        return cls._checked(tau, precision) if cls.needs_tau else cls()

    @property
    def is_reference(self) -> bool:
        """True for reference methods (runner 'baseline': MST, AIM), not Algorithm 1."""
        return self.runner != "evolution"

    def check_mechanism(self, mechanism: str, flag: str = "mechanism") -> None:
        """BudgetError naming ``flag`` when the method cannot run with ``mechanism`` (a name)."""
        if self.mechanisms is not None and mechanism not in self.mechanisms:
            raise BudgetError(f"{flag} {mechanism}: {self.label} runs only with {flag} "
                              f"{' or '.join(self.mechanisms)} (a zCDP budget rho, or epsilon with delta). "
                              f"Fix: use {flag} {self.mechanisms[0]} for it, or run it separately")

    @property
    def policy_aware(self) -> bool:
        """True for Blowfish notions (their noise depends on the policy; empty policy -> no noise)."""
        return self.notion == "blowfish"

    @property
    def soft_policy_bound(self) -> bool:
        """True when the noise follows BF-Soft's closed-form bound over the policy's record-level
        reach (Cor. 5.5: SoftBound('policy')); not the standard-DP soft vote, not Hard's noise."""
        return isinstance(self.calibrator, SoftBound) and self.calibrator.reach == "policy"

    @property
    def integer_votes(self) -> bool:
        """True when the vote histogram holds whole counts (hard votes): a release-mode
        sampler then adds discrete noise (OpenDP's discrete Gaussian / Laplace).  A property
        of the method (public), never of the counts' values."""
        return getattr(self.vote, "name", "") == "hard"

    @property
    def notion_text(self) -> str:
        return NOTIONS[self.notion] + (f"; {self.note}" if self.note else "")


TAB_PE = Method("tab-pe", "Tab-PE", HardVote, Global(), "standard", needs_tau=False)
HARD = Method("hard", "Hard", HardVote, ExactHard(), "blowfish", needs_tau=False)
BF_SOFT = Method("bf-soft", "BF-Soft", SoftVote, SoftBound("policy"), "blowfish", needs_tau=True)
SOFT_DP = Method("soft-dp", "Soft vote (standard DP)", SoftVote, SoftBound("standard"), "standard", needs_tau=True)
#: the §6.2.3 decomposition device: a soft vote with Hard's noise.  Hard's certified zero does not
#: hold for the soft vote (it moves by up to 0.063 on those rounds), so it is analysis-only (issue 21).
SOFT_HARD_NOISE_REASON = ("it is the §6.2.3 decomposition device: Hard's calibration "
                          "(0 on rounds where no protected edge crosses a Voronoi boundary) does not bound the soft "
                          "vote, which moves on every protected edge, so it is NOT differentially private")
SOFT_HARD_NOISE = Method("soft-hard-noise", "Soft vote with Hard's noise", SoftVote, HardNoise(), "blowfish",
                         needs_tau=True, note="analysis only: NOT private (Hard's noise does not cover a soft vote)",
                         not_private_reason=SOFT_HARD_NOISE_REASON)
#: reference methods (issue 12): marginal-based synthesis on Private-PGM (mbi), zCDP only.
REFERENCE_NOTE = ("not policy-aware: it ignores the policy and tau (reference method on mbi); zCDP throughout "
                  "(Gaussian measurements, exponential selections), rho = the ledger's sum")
MST = Method("mst", "MST (reference: standard DP, not policy-aware)", None, None, "standard", needs_tau=False,
             runner="baseline", fit="fit_mst", mechanisms=("gaussian",), note=REFERENCE_NOTE,
             extra_mechanisms=("exponential",), epsilon_conversion="eq1", short="MST")
AIM = Method("aim", "AIM (reference: standard DP, not policy-aware)", None, None, "standard", needs_tau=False,
             runner="baseline", fit="fit_aim", mechanisms=("gaussian",), note=REFERENCE_NOTE,
             extra_mechanisms=("exponential",), epsilon_conversion="eq1", short="AIM")
#: MST under the policy (issue 25): the policy's exact per-marginal sensitivity (baselines.bf_mst).
BF_MST_NOTE = ("MST under the policy (reference pipeline on mbi): exact per-marginal Blowfish sensitivity; "
               "marginals no policy edge changes are released exactly (not protected by the policy); "
               "zCDP throughout, rho = the ledger's sum")
BF_MST = Method("bf-mst", "bf-MST (MST under the policy: exact per-marginal sensitivity)", None, None, "blowfish",
                needs_tau=False, runner="baseline", fit="fit_bf_mst", mechanisms=("gaussian",), note=BF_MST_NOTE,
                extra_mechanisms=("exponential",), epsilon_conversion="eq1", short="bf-MST")
#: bf-MST with soft marginals (issue 25): K_S h_S at sqrt 2 tanh(r_S / (2 tau)) (baselines.soft_marginals).
BF_SOFT_MST_NOTE = ("bf-MST with soft marginals (reference pipeline on mbi): each protected marginal measured as "
                    "K_S h_S (the soft vote of each cell on the cell centres) at sensitivity √2·tanh(r_S/(2τ)), "
                    "fitted back to h_S; marginals no policy edge changes are released exactly (not protected by "
                    "the policy); zCDP throughout, rho = the ledger's sum")
BF_SOFT_MST = Method("bf-soft-mst", "bf-soft-MST (bf-MST with soft marginals: √2·tanh(r_S/(2τ)))", None, None,
                     "blowfish", needs_tau=True, runner="baseline", fit="fit_bf_soft_mst", mechanisms=("gaussian",),
                     note=BF_SOFT_MST_NOTE, extra_mechanisms=("exponential",), epsilon_conversion="eq1",
                     short="bf-soft-MST")

#: AIM under the policy (issue 25): the policy's exact per-marginal sensitivity (baselines.bf_aim).
BF_AIM_NOTE = ("AIM under the policy (reference pipeline on mbi): exact per-marginal Blowfish sensitivity; "
               "marginals no policy edge changes are released exactly (not protected by the policy); "
               "zCDP throughout, rho = the ledger's sum")
BF_AIM = Method("bf-aim", "bf-AIM (AIM under the policy: exact per-marginal sensitivity)", None, None, "blowfish",
                needs_tau=False, runner="baseline", fit="fit_bf_aim", mechanisms=("gaussian",), note=BF_AIM_NOTE,
                extra_mechanisms=("exponential",), epsilon_conversion="eq1", short="bf-AIM")

#: bf-AIM with soft marginals (issue 25): K_S h_S at sqrt 2 tanh(r_S / (2 tau)) (baselines.bf_aim).
BF_SOFT_AIM_NOTE = ("bf-AIM with soft marginals (reference pipeline on mbi): each protected marginal measured as "
                    "K_S h_S at sensitivity √2·tanh(r_S/(2τ)), fitted back to h_S; marginals no policy edge "
                    "changes are released exactly (not protected by the policy); zCDP throughout, rho = the "
                    "ledger's sum")
BF_SOFT_AIM = Method("bf-soft-aim", "bf-soft-AIM (bf-AIM with soft marginals: √2·tanh(r_S/(2τ)))", None, None,
                     "blowfish", needs_tau=True, runner="baseline", fit="fit_bf_soft_aim", mechanisms=("gaussian",),
                     note=BF_SOFT_AIM_NOTE, extra_mechanisms=("exponential",), epsilon_conversion="eq1",
                     short="bf-soft-AIM")

#: name -> Method, in the order the CLI and the report list them.
METHODS: dict[str, Method] = {m.name: m for m in (TAB_PE, HARD, BF_SOFT, SOFT_DP, SOFT_HARD_NOISE, MST, AIM,
                                                  BF_MST, BF_SOFT_MST, BF_AIM, BF_SOFT_AIM)}
#: name -> UI label.
METHOD_LABELS: dict[str, str] = {m.name: m.label for m in METHODS.values()}

#: report roles (see module docstring).
BASELINE, SOFT, DECOMPOSITION = HARD, BF_SOFT, SOFT_HARD_NOISE


def get_method(method: str | Method, flag: str = "method") -> Method:
    """The Method for a name (or a Method).

    Parameters
    ----------
    method : str or Method
        A name of :data:`METHODS`, or a Method (returned as it is).
    flag : str, default "method"
        How the front end names the setting, for the message.

    Returns
    -------
    Method
        The method table's entry.

    Raises
    ------
    BlowfishError
        For an unknown name.
    """
    if isinstance(method, Method):
        return method
    m = METHODS.get(method) if isinstance(method, str) else None
    if m is None:
        raise BlowfishError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    return m


def tau_methods() -> list[str]:
    """Names of the methods that need tau (for messages).

    Returns
    -------
    list of str
        In table order.
    """
    return [m.name for m in METHODS.values() if m.needs_tau]


def needs_tau(methods) -> bool:
    """True when any of the named methods needs tau.

    Parameters
    ----------
    methods : iterable of str or Method
        Method names (or Methods).

    Returns
    -------
    bool
        Whether any of them needs tau.

    Raises
    ------
    BlowfishError
        For an unknown method name (:func:`get_method`).
    """
    return any(get_method(m).needs_tau for m in methods)


def reference_methods() -> list[str]:
    """Names of the reference methods (runner 'baseline'), for messages and help texts.

    Returns
    -------
    list of str
        In table order.
    """
    return [m.name for m in METHODS.values() if m.is_reference]


def releasable_methods() -> list[str]:
    """Names of the methods the release gate admits (Method.releasable), in table order.

    Returns
    -------
    list of str
        In table order.
    """
    return [m.name for m in METHODS.values() if m.releasable]


def any_policy_aware(methods) -> bool:
    """True when any of the named methods has a Blowfish notion.

    Parameters
    ----------
    methods : iterable of str or Method
        Method names (or Methods).

    Returns
    -------
    bool
        Whether any of them is policy-aware.

    Raises
    ------
    BlowfishError
        For an unknown method name (:func:`get_method`).
    """
    return any(get_method(m).policy_aware for m in methods)


def calibrate(
    method: str,
    schema: Schema,
    policy: Policy,
    tau: float | None,
    C: np.ndarray | None = None,
    reach: float | None = None,
    max_edges: float = DEFAULT_MAX_EDGES,
    kernel: GowerKernel | None = None,
    norm: str = "l2",
) -> Calibration:
    """Per-round sensitivity Delta_t of ``method`` (Algorithm 1 lines 13-19), in ``norm``.

    Delegates to :func:`blowfish_core.model.calibration.calibrate_round` (the method's calibrator
    on one round's public inputs), participation floor applied once.

    Parameters
    ----------
    method : str or Method
        A name of :data:`METHODS` or a Method.
    schema : Schema
        The public schema.
    policy : Policy
        The policy (Blowfish notions).
    tau : float or None
        Temperature of the soft vote (> 0), None for hard votes.
    C : (m, p) ndarray, optional
        The round's candidates, encoded.
    reach : float, optional
        The policy's record-level reach (computed when None).
    max_edges : float, default DEFAULT_MAX_EDGES
        Exhaustive limit of Hard's certification.
    kernel : GowerKernel, optional
        The round's distance kernel on C.
    norm : {"l2", "l1"}, default "l2"
        The mechanism's sensitivity norm.

    Returns
    -------
    Calibration
        Delta_t (in ``norm``), how it was obtained and its witness.

    Raises
    ------
    BlowfishError
        For an unknown method, or one without a calibrator (a reference method).
    BudgetError
        For a bad tau (soft calibrators).
    ValueError
        For an unknown norm.
    """
    return calibrate_round(_calibrated(get_method(method)), RoundInputs(schema, policy, tau, C, reach, max_edges,
                                                                        kernel, norm))


def _calibrated(method: Method) -> CalibratedMethod:
    """``method`` as calibration.calibrate_round reads it (its calibrator and notion); BlowfishError for a
    reference method, which has no calibrator (it is not Algorithm 1)."""
    if method.calibrator is None:
        raise BlowfishError(f"{method.label} has no calibrator: it is not an Algorithm 1 method")
    return cast(CalibratedMethod, method)  # a calibrator (checked) and a notion, read-only
