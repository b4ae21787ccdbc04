"""The plan of a private choice of tau (or Hard), before it runs: the K settings, the cost of the K
runs and of the exponential selection, and the regret bound (:class:`PrivatePilotPlan`).

papers/001 (issue 14 "Private choice of tau or Hard").  Issue 22: split off
:mod:`blowfish_core.workflows.private_pilot`, which re-exports every name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..algorithm import methods
from ..privacy.accounting import check_delta, check_rho, epsilon_eq1
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError
from ..synthesis.parsing import parse_selection_budget
from ..model.policy import Policy
from ..model.schema import Schema
from ..privacy.selection import PrivateChoicePlan, private_choice_plan
from ..model.votes import check_tau

HARD = methods.HARD.name
SOFT = methods.BF_SOFT.name
#: at most this many settings (Hard + taus).
MAX_SETTINGS = 25
#: default failure probability of the regret bound.
REGRET_RHO = 0.05


def settings_for(taus: Sequence[float]) -> list[tuple[str, float | None]]:
    """The K candidate settings: Hard, then BF-Soft at every distinct tau (ascending).

    Parameters
    ----------
    taus : sequence of float
        BF-Soft temperatures, each > 0.

    Returns
    -------
    list of (str, float or None)
        (method, tau) per setting; tau None for Hard.

    Raises
    ------
    BudgetError
        For a bad tau.
    BlowfishError
        For an empty grid or K > MAX_SETTINGS.
    """
    ts = sorted({check_tau(t) for t in taus})
    if not ts:
        raise BlowfishError("tau grid is empty. Fix: list temperatures like 0.003, 0.03, 0.3")
    if len(ts) + 1 > MAX_SETTINGS:
        raise BlowfishError(f"at most {MAX_SETTINGS} settings (Hard + {MAX_SETTINGS - 1} taus); got {len(ts) + 1}")
    return [(HARD, None)] + [(SOFT, t) for t in ts]


def setting_label(method: str, tau: float | None) -> str:
    """A setting in words: 'Hard' or 'BF-Soft tau=0.03'.

    Parameters
    ----------
    method : str
        'hard' or 'bf-soft'.
    tau : float or None
        BF-Soft's temperature (None for Hard).

    Returns
    -------
    str
        The label.
    """
    return "Hard" if method == HARD else f"BF-Soft tau={tau:g}"


def score_notion(policy: Policy) -> str:
    """'blowfish' (Hard and BF-Soft are Blowfish methods).

    Parameters
    ----------
    policy : Policy
        The policy of the runs.

    Returns
    -------
    str
        'blowfish'.

    Raises
    ------
    BlowfishError
        For participation edges: they change n, which the score's sensitivity argument does not
        cover.
    """
    if policy.participation:
        raise BlowfishError("the private choice of tau does not cover participation edges (they change n, and "
                            "the score u = -(n/2)*error assumes a fixed n). Fix: drop --participation, or use the "
                            "public pilot")
    return "blowfish"


@dataclass(frozen=True)
class PrivatePilotPlan:
    """Cost and promise of a private choice, before it runs.

    settings: the K (method, tau); rho_run: each run's zCDP budget; choice: the selection's plan
    (selection.PrivateChoicePlan: sensitivity, epsilon_sel, rho_selection, rho_total, temperature,
    regret_error at failure probability ``choice.rho``); delta: reporting delta; epsilon_total:
    rho_total at delta by Eq. (1) (zCDP ledger, accountant 'zcdp-eq1'); metric; n: private rows.
    """

    settings: tuple[tuple[str, float | None], ...]
    rho_run: float
    choice: PrivateChoicePlan
    delta: float
    epsilon_total: float
    metric: str
    n: int
    p: int
    notion: str

    @property
    def K(self) -> int:
        return len(self.settings)

    @property
    def sensitivity_reason(self) -> str:
        if self.metric == "pwerr" and self.notion == "blowfish":
            return f"2/p with p = {self.p} modeled attributes: a policy edge changes one attribute"
        return f"{self.metric.upper()} under {self.notion}: one record moves the error by at most 2/n"

    def lines(self) -> list[str]:
        """The plan as text (CLI and page): settings, cost of the K runs + selection, regret bound.

        Returns
        -------
        list of str
            One statement per line.
        """
        c = self.choice
        return [
            f"private choice among K = {self.K} settings: " + ", ".join(setting_label(*s) for s in self.settings),
            f"cost: {self.K} runs x rho = {self.rho_run:.4g} = {c.rho_runs:.4g} (each run spends its budget on the "
            f"private table) + selection rho_sel = epsilon_sel^2/8 = {c.rho_selection:.4g} "
            f"(exponential mechanism, epsilon_sel = {c.epsilon_sel:.4g})",
            f"total: rho = {c.rho_total:.6g} zCDP = epsilon {self.epsilon_total:.4g} at delta = {self.delta:.3g} "
            "by Eq. (1)",
            f"score u = -(n/2) * {self.metric.upper()} with n = {self.n:,}; sensitivity {c.sensitivity:.4g} "
            f"({self.sensitivity_reason}); EM temperature {c.temperature:.4g} score units = "
            f"{c.temperature_error:.3g} {self.metric.upper()}",
            f"regret bound: with probability >= {1 - c.rho:.2f} the chosen setting's {self.metric.upper()} is within "
            f"{c.regret_error:.4g} of the best of the K",
        ]

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON-able data.

        Returns
        -------
        dict
            settings ({method, tau, label} each), K, rho_run, rho_runs, rho_selection, epsilon_sel,
            rho_total, delta, epsilon_total_eq1, sensitivity, notion, metric, n, p, temperature,
            temperature_error, regret_error, regret_failure_probability.
        """
        c = self.choice
        return {"settings": [{"method": m, "tau": t, "label": setting_label(m, t)} for m, t in self.settings],
                "K": self.K, "rho_run": self.rho_run, "rho_runs": c.rho_runs, "rho_selection": c.rho_selection,
                "epsilon_sel": c.epsilon_sel, "rho_total": c.rho_total, "delta": self.delta,
                "epsilon_total_eq1": self.epsilon_total, "sensitivity": c.sensitivity, "notion": self.notion,
                "metric": self.metric, "n": self.n, "p": self.p, "temperature": c.temperature,
                "temperature_error": c.temperature_error, "regret_error": c.regret_error,
                "regret_failure_probability": c.rho}


def private_pilot_plan(schema: Schema, policy: Policy, n: int, taus: Sequence[float], rho: float,
                       rho_sel: float | None = None, epsilon_sel: float | None = None, *,
                       metric: str = "pwerr", delta: float = DEFAULT_DELTA, regret_rho: float = REGRET_RHO,
                       flags: bool = False) -> PrivatePilotPlan:
    """The plan of :func:`choose_tau_private` (no data read): K, whole cost, regret bound.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.
    n : int
        Private rows, >= 1.
    taus : sequence of float
        BF-Soft temperatures.
    rho : float
        zCDP budget of EACH run.
    rho_sel, epsilon_sel : float, optional
        The selection budget (exactly one).
    metric : {'pwerr', 'hoerr'}, default 'pwerr'
        The error the score uses.
    delta : float, default DEFAULT_DELTA
        Reporting DP delta.
    regret_rho : float, default REGRET_RHO
        Failure probability of the regret bound.
    flags : bool, default False
        CLI flag names in messages.

    Returns
    -------
    PrivatePilotPlan
        Settings, cost of the K runs and the selection, regret bound.

    Raises
    ------
    BlowfishError, BudgetError
        Naming the field.
    """
    sel = parse_selection_budget(rho_sel, epsilon_sel, flags=flags)
    rho = check_rho(rho, name="--rho" if flags else "rho")
    delta = check_delta(delta)
    sets = settings_for(taus)
    notion = score_notion(policy)
    plan = private_choice_plan(n, schema.p, notion, [rho] * len(sets), sel.rho, metric=metric, rho=regret_rho)
    return PrivatePilotPlan(tuple(sets), rho, plan, delta, epsilon_eq1(plan.rho_total, delta), metric, int(n),
                            int(schema.p), notion)
