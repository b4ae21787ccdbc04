"""Private choice of tau (or Hard) on the private table, accounted by the exponential mechanism.

papers/001 (issue 14 "Private choice of tau or Hard"; design/selection.md B5 A1).  The public
pilot (blowfish_core.pilot) stays the default and spends nothing; this is the route for a data
owner without public data:

1. run the K candidate settings (Hard + a tau grid of BF-Soft) on the PRIVATE table, one
   release each, each spending its own budget rho (zCDP adds: K rho);
2. score each release with ``u_c = −(n/2) · Err(S_c, D)`` (PWErr, or HOErr on XOR presets),
   whose global sensitivity is 1 under standard DP and 2/p under a substitution policy
   (selection.score_sensitivity; exhaustive test in tests/test_selection.py);
3. choose one setting with the exponential mechanism at epsilon_sel (selection.select_private):
   pure epsilon_sel-DP, epsilon_sel^2/8 zCDP (bounded range), one ledger row of mechanism
   ``exponential`` (mechanisms/exponential.py).

What may be published: the choice, the chosen setting (and its release, like any of the K
releases) and the ledger.  The per-setting errors and the selection probabilities are computed
on the private data without noise: they are internal figures (:data:`INTERNAL`).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from . import methods
from .accounting import check_delta, check_rho, epsilon_eq1
from .errors import BlowfishError
from .evolution import SEEDED_NOTE, SynthConfig
from .experiment import PairedResult, RunRequest, run_paired, validate_request
from .ledger import LedgerRow, privacy_totals
from .mechanisms import SELECTION_MECHANISMS
from .parsing import parse_selection_budget
from .policy import Policy
from .report import INTERNAL_LABEL
from .schema import Schema
from .selection import PrivateChoicePlan, private_choice_plan, select_private
from .votes import check_tau

#: label of every figure computed on the private data without noise.
INTERNAL = "internal: computed on private data"
HARD = methods.HARD.name
SOFT = methods.BF_SOFT.name
#: at most this many settings (Hard + taus).
MAX_SETTINGS = 25
#: default failure probability of the regret bound.
REGRET_RHO = 0.05
_SELECT_PURPOSE = 14  # seed stream of the selection draw (separate from every synthesis stream)


def settings_for(taus: Sequence[float]) -> list[tuple[str, float | None]]:
    """The K candidate settings: Hard, then BF-Soft at every distinct tau (ascending).

    Raises BudgetError for a bad tau, BlowfishError for an empty grid or K > MAX_SETTINGS."""
    ts = sorted({check_tau(t) for t in taus})
    if not ts:
        raise BlowfishError("tau grid is empty. Fix: list temperatures like 0.003, 0.03, 0.3")
    if len(ts) + 1 > MAX_SETTINGS:
        raise BlowfishError(f"at most {MAX_SETTINGS} settings (Hard + {MAX_SETTINGS - 1} taus); got {len(ts) + 1}")
    return [(HARD, None)] + [(SOFT, t) for t in ts]


def setting_label(method: str, tau: float | None) -> str:
    return "Hard" if method == HARD else f"BF-Soft tau={tau:g}"


def score_notion(policy: Policy) -> str:
    """'blowfish' (Hard and BF-Soft are Blowfish methods).  Participation edges change n, which the
    score's sensitivity argument does not cover: BlowfishError."""
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
        """The plan as text (CLI and page): settings, cost of the K runs + selection, regret bound."""
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
                       metric: str = "pwerr", delta: float = 1e-5, regret_rho: float = REGRET_RHO,
                       flags: bool = False) -> PrivatePilotPlan:
    """The plan of :func:`choose_tau_private` (no data read): K, whole cost, regret bound.

    n: private rows (>= 1); taus: BF-Soft temperatures; rho: zCDP budget of EACH run; rho_sel or
    epsilon_sel: the selection budget (exactly one); metric: 'pwerr' or 'hoerr'; delta: reporting
    delta; regret_rho: failure probability of the regret bound.  flags: CLI flag names in messages.
    Raises BlowfishError / BudgetError naming the field.
    """
    sel = parse_selection_budget(rho_sel, epsilon_sel, flags=flags)
    rho = check_rho(rho, name="--rho" if flags else "rho")
    delta = check_delta(delta)
    sets = settings_for(taus)
    notion = score_notion(policy)
    plan = private_choice_plan(n, schema.p, notion, [rho] * len(sets), sel.rho, metric=metric, rho=regret_rho)
    return PrivatePilotPlan(tuple(sets), rho, plan, delta, epsilon_eq1(plan.rho_total, delta), metric, int(n),
                            int(schema.p), notion)


@dataclass
class PrivateChoiceResult:
    """The private choice.

    Publishable: ``chosen`` (index), ``method``/``tau``/``label`` of the chosen setting, ``release``
    (its synthetic table), ``ledger`` (every round of the K runs, then the exponential row) and
    ``privacy`` (their totals).  Internal (:data:`INTERNAL`): ``errors`` (K,) and ``probabilities``
    (K,), computed on the private data.  ``runs``: the K typed PairedResults (one per setting).
    """

    plan: PrivatePilotPlan
    runs: tuple[PairedResult, ...]
    chosen: int
    errors: np.ndarray
    probabilities: np.ndarray
    ledger: tuple[LedgerRow, ...]
    privacy: dict[str, Any]
    seed: int
    seconds: float
    config: dict[str, Any] = field(default_factory=dict)

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
        """One row per setting: setting, method, tau, error, probability (all :data:`INTERNAL`)."""
        return pd.DataFrame([{"setting": setting_label(m, t), "method": m, "tau": t,
                              self.plan.metric: float(e), "probability": float(p)}
                             for (m, t), e, p in zip(self.plan.settings, self.errors, self.probabilities)])

    def public_dict(self) -> dict[str, Any]:
        """JSON-able, what may be published: choice, plan, ledger, privacy totals, settings (config,
        seed) and the randomness note (a seeded run is :data:`SEEDED_NOTE`: for study, not for
        publication).  No figure computed on the private data (see :meth:`internal_dict`)."""
        return {
            "choice": {"index": self.chosen, "method": self.method, "tau": self.tau, "label": self.label},
            "plan": self.plan.to_dict(), "seed": self.seed, "randomness": SEEDED_NOTE, "config": self.config,
            "ledger": [r.to_dict() for r in self.ledger], "privacy": self.privacy,
        }

    def internal_dict(self) -> dict[str, Any]:
        """JSON-able, the figures computed on the private data without noise, labelled
        :data:`blowfish_core.report.INTERNAL_LABEL`: per-setting errors and selection probabilities."""
        return {"label": INTERNAL_LABEL,
                "errors": {setting_label(m, t): float(e) for (m, t), e in zip(self.plan.settings, self.errors)},
                "probabilities": {setting_label(m, t): float(p)
                                  for (m, t), p in zip(self.plan.settings, self.probabilities)},
                "seconds": self.seconds}

    def to_dict(self) -> dict[str, Any]:
        """JSON-able union for experiments: :meth:`public_dict` plus ``internal`` (labelled)."""
        return {**self.public_dict(), "internal": self.internal_dict(), "seconds": self.seconds}


def choose_tau_private(
    schema: Schema,
    policy: Policy,
    data: pd.DataFrame,
    rho: float,
    taus: Sequence[float],
    rho_sel: float | None = None,
    epsilon_sel: float | None = None,
    *,
    seed: int = 0,
    config: SynthConfig | None = None,
    metric: tuple[str, Callable] | None = None,
    delta: float = 1e-5,
    regret_rho: float = REGRET_RHO,
    data_source: str = "",
    flags: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> PrivateChoiceResult:
    """Choose Hard or a tau on the private table, privately (exponential mechanism).

    data: the private table (DataFrame, the schema's columns); rho: zCDP budget of each of the
    K = 1 + len(taus) runs; rho_sel / epsilon_sel: the selection budget (exactly one;
    epsilon_sel = sqrt(8 rho_sel)); seed: whole number >= 0 (every run's paired streams and the
    selection draw); metric: (name, fn) with name 'pwerr' (default) or 'hoerr'.
    Total cost: K rho + epsilon_sel^2/8 zCDP (``privacy``, accountant 'zcdp-eq1').
    progress(event) receives run_synthesis events plus 'config', 'configs' and 'label'.
    Raises BlowfishError / BudgetError naming the field before any work; RunStopped when stopped.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise BlowfishError(f"seed must be a whole number >= 0 (got {seed!r})")
    if not isinstance(data, pd.DataFrame) or len(data) == 0:
        raise BlowfishError("the private table is empty. Fix: load the table to choose on")
    cfg = (config or SynthConfig()).validate()
    metric_name = (metric or ("pwerr", None))[0]
    plan = private_pilot_plan(schema, policy, len(data), taus, rho, rho_sel, epsilon_sel, metric=metric_name,
                              delta=delta, regret_rho=regret_rho, flags=flags)
    reqs = [RunRequest(schema, policy, data, [m], plan.rho_run, plan.delta, t, [int(seed)], cfg, metric=metric,
                       budget_source="rho (each of the K settings)", data_source=data_source)
            for m, t in plan.settings]
    for r in reqs:
        validate_request(r)  # every setting error before any work
    t0 = time.perf_counter()
    runs: list[PairedResult] = []
    for k, (req, (m, t)) in enumerate(zip(reqs, plan.settings), start=1):
        label = setting_label(m, t)

        def _progress(ev: dict[str, Any], k=k, label=label) -> None:
            if progress is not None:
                progress({**ev, "config": k, "configs": plan.K, "label": label})

        runs.append(run_paired(req, progress=_progress, should_stop=should_stop))
    errors = np.array([pr.errors(m)[0] for pr, (m, _) in zip(runs, plan.settings)], dtype=float)
    n = runs[0].n_private
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 4391, _SELECT_PURPOSE]))
    sel = select_private(errors, n, plan.choice.sensitivity, plan.choice.epsilon_sel, rng)
    rows: list[LedgerRow] = []
    for pr, (m, t) in zip(runs, plan.settings):
        for row in pr.run(m, int(seed)).ledger:
            rows.append(dataclasses.replace(row, t=len(rows) + 1,
                                            notes=row.notes + (f"{setting_label(m, t)}, round {row.t}",)))
    rows.append(SELECTION_MECHANISMS["exponential"].selection_row(
        len(rows) + 1, plan.K, plan.choice.sensitivity, plan.choice.epsilon_sel,
        notes=(f"private choice among {plan.K} settings: exponential mechanism on u = -(n/2)*"
               f"{metric_name.upper()}, sensitivity {plan.choice.sensitivity:.4g}",)))
    privacy = {**privacy_totals(rows, plan.delta), "budget_source": "rho per setting + selection"}
    if not math.isclose(privacy["rho"], plan.choice.rho_total, rel_tol=1e-9):
        raise BlowfishError("internal: the ledger's rho differs from the plan's")  # pragma: no cover
    return PrivateChoiceResult(plan, tuple(runs), sel.index, errors, sel.probabilities, tuple(rows), privacy,
                               int(seed), round(time.perf_counter() - t0, 3),
                               config={"rounds": cfg.rounds, "population": cfg.sizes(), "release": cfg.release,
                                       "threshold_h": cfg.threshold_h, "selection": cfg.selection})


__all__ = ["INTERNAL", "MAX_SETTINGS", "PrivateChoiceResult", "PrivatePilotPlan", "choose_tau_private",
           "private_pilot_plan", "settings_for", "setting_label"]
