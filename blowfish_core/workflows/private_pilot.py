"""Private choice of tau (or Hard) on the private table, accounted by the exponential mechanism.

papers/001 (issue 14 "Private choice of tau or Hard"; design/selection.md B5 A1).  The public
pilot (blowfish_core.workflows.pilot) stays the default and spends nothing; this is the route for a data
owner without public data:

1. run the K candidate settings (Hard + a tau grid of BF-Soft) on the PRIVATE table, one
   release each, each spending its own budget rho (zCDP adds: K rho);
2. score each release with ``u_c = −(n/2) · Err(S_c, D)`` (PWErr, or HOErr on XOR presets),
   whose global sensitivity is 1 under standard DP and 2/p under a substitution policy
   (selection.score_sensitivity; exhaustive test in tests/privacy/test_selection.py);
3. choose one setting with the exponential mechanism at epsilon_sel (selection.select_private):
   pure epsilon_sel-DP, epsilon_sel^2/8 zCDP (bounded range), one ledger row of mechanism
   ``exponential`` (mechanisms/exponential.py).

Two entry points (issue 21 "One release gate"; DESIGN §7):

* :func:`choose_tau_private` (``seed=...``): the seeded STUDY path -- every run on paired seeded
  streams with numpy noise and a numpy draw of the choice.  Reproducible, so anyone who knows
  the seed can recompute the noise: every output says :data:`~blowfish_core.algorithm.evolution.SEEDED_NOTE`
  ("seeded: for study, not for publication") and nothing in it is offered for publication.
* :func:`release_tau_choice` (no seed): the RELEASE, through
  :func:`blowfish_core.synthesis.gate.publish`.  Every one of the K runs draws from the gate's OS
  entropy with OpenDP noise (``RunSpec(seeds=None)``), and the choice is drawn by the
  exponential mechanism's release sampler (OpenDP's Gumbel noisy max, 'opendp-gumbel').  Only
  this path's choice, chosen release and ledger may be published, with the gate's label and
  total (K·rho_run + rho_sel: every run spends its budget, chosen or not).

Either way the per-setting errors and the selection probabilities are computed on the private
data without noise: they are internal figures (:data:`INTERNAL`), never published.

Modules (issue 22, one idea each; every name is re-exported here): :mod:`.private_plan` (the K
settings, :class:`PrivatePilotPlan`, :func:`private_pilot_plan`), :mod:`.private_result`
(:class:`PrivateChoiceResult`, :data:`INTERNAL`); here the runs, the choice and the release.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError
from ..algorithm.events import RoundEvent
from ..algorithm.config import SynthConfig
from ..synthesis.experiment import PairedResult, run_paired
from ..synthesis.spec import RunSpec
from ..privacy.ledger import LedgerRow
from ..privacy.totals import privacy_totals
from ..privacy.mechanisms import SELECTION_MECHANISMS
from ..model.policy import Policy
from ..model.schema import Schema
from ..privacy.selection import Selection, select_private
from ..privacy.mechanisms import select_release
from .private_plan import (
    HARD, MAX_SETTINGS, REGRET_RHO, SOFT, PrivatePilotPlan, private_pilot_plan, score_notion, setting_label,
    settings_for,
)
from .private_result import INTERNAL, PrivateChoiceResult

_SELECT_PURPOSE = 14  # seed stream of the selection draw (separate from every synthesis stream)


def _prepare(schema: Schema, policy: Policy, data: pd.DataFrame, rho: float, taus: Sequence[float],
             rho_sel: float | None, epsilon_sel: float | None, seeds: list[int] | None,
             config: SynthConfig | None, metric: tuple[str, Callable] | None, delta: float, regret_rho: float,
             data_source: str, flags: bool) -> tuple[PrivatePilotPlan, SynthConfig, list[RunSpec]]:
    """Validate every input before any work: the plan, the config and the K built RunSpecs
    (seeds: [seed] for the study path, None for a release)."""
    if not isinstance(data, pd.DataFrame) or len(data) == 0:
        raise BlowfishError("the private table is empty. Fix: load the table to choose on")
    cfg = (config or SynthConfig()).validate()
    metric_name = (metric or ("pwerr", None))[0]
    plan = private_pilot_plan(schema, policy, len(data), taus, rho, rho_sel, epsilon_sel, metric=metric_name,
                              delta=delta, regret_rho=regret_rho, flags=flags)
    specs = [RunSpec.build(schema, policy, data, [m], plan.rho_run, plan.delta, t,
                           None if seeds is None else list(seeds), cfg, metric=metric,
                           budget_source="rho (each of the K settings)", data_source=data_source)
             for m, t in plan.settings]  # every setting's error before any work
    return plan, cfg, specs


def _run_settings(plan: PrivatePilotPlan, specs: list[RunSpec], progress, should_stop,
                  streams_factory: Callable[[], Any] | None = None) -> list[PairedResult]:
    """The K runs on the private table, one PairedResult each (progress events carry the setting)."""
    runs: list[PairedResult] = []
    for k, (spec, (m, t)) in enumerate(zip(specs, plan.settings), start=1):
        label = setting_label(m, t)

        def _progress(ev: RoundEvent, k=k, label=label) -> None:
            if progress is not None:
                progress({**ev, "config": k, "configs": plan.K, "label": label})

        runs.append(run_paired(spec, progress=_progress, should_stop=should_stop, streams_factory=streams_factory))
    return runs


def _ledger(plan: PrivatePilotPlan, runs: list[PairedResult], seed: int | None) -> list[LedgerRow]:
    """Every round of the K runs (renumbered 1..), then the exponential row of the choice."""
    rows: list[LedgerRow] = []
    for pr, (m, t) in zip(runs, plan.settings):
        for row in pr.run(m, seed).ledger:
            rows.append(dataclasses.replace(row, t=len(rows) + 1,
                                            notes=row.notes + (f"{setting_label(m, t)}, round {row.t}",)))
    rows.append(SELECTION_MECHANISMS["exponential"].selection_row(
        len(rows) + 1, plan.K, plan.choice.sensitivity, plan.choice.epsilon_sel,
        notes=(f"private choice among {plan.K} settings: exponential mechanism on u = -(n/2)*"
               f"{plan.metric.upper()}, sensitivity {plan.choice.sensitivity:.4g}",)))
    return rows


def _result(plan: PrivatePilotPlan, cfg: SynthConfig, runs: list[PairedResult], errors: np.ndarray,
            sel: Selection, seed: int | None, t0: float) -> PrivateChoiceResult:
    rows = _ledger(plan, runs, seed)
    privacy = {**privacy_totals(rows, plan.delta), "budget_source": "rho per setting + selection"}
    if not math.isclose(privacy["rho"], plan.choice.rho_total, rel_tol=1e-9):
        raise BlowfishError("internal: the ledger's rho differs from the plan's")  # pragma: no cover
    return PrivateChoiceResult(plan, tuple(runs), sel.index, errors, sel.probabilities, tuple(rows), privacy,
                               seed, round(time.perf_counter() - t0, 3),
                               config={"rounds": cfg.rounds, "population": cfg.sizes(), "release": cfg.release,
                                       "threshold_h": cfg.threshold_h, "selection": cfg.selection})


def _errors(plan: PrivatePilotPlan, runs: list[PairedResult]) -> np.ndarray:
    return np.array([pr.errors(m)[0] for pr, (m, _) in zip(runs, plan.settings)], dtype=float)


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
    delta: float = DEFAULT_DELTA,
    regret_rho: float = REGRET_RHO,
    data_source: str = "",
    flags: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> PrivateChoiceResult:
    """Choose Hard or a tau on the private table, privately (exponential mechanism).

    The seeded STUDY path (papers/001 Eq. (1); issue 14).  Its result says :data:`SEEDED_NOTE`
    ("seeded: for study, not for publication"): anyone who knows the seed can recompute every
    run's noise.  For a release use :func:`release_tau_choice` (the release gate, OS entropy,
    OpenDP samplers).  Total cost: K rho + epsilon_sel^2/8 zCDP (``privacy``, accountant
    'zcdp-eq1').

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.
    data : pandas.DataFrame
        The private table, with the schema's columns.
    rho : float
        zCDP budget of each of the K = 1 + len(taus) runs.
    taus : sequence of float
        BF-Soft temperatures.
    rho_sel, epsilon_sel : float, optional
        The selection budget (exactly one; epsilon_sel = sqrt(8 rho_sel)).
    seed : int, default 0
        Whole number >= 0: every run's paired streams and the selection draw, numpy.
    config : SynthConfig, optional
        The schedule (default SynthConfig()).
    metric : (str, callable), optional
        (name, fn) with name 'pwerr' (default) or 'hoerr'.
    delta : float, default DEFAULT_DELTA
        Reporting DP delta.
    regret_rho : float, default REGRET_RHO
        Failure probability of the regret bound.
    data_source : str, default ''
        Where the table came from, for the report.
    flags : bool, default False
        CLI flag names in messages.
    progress : callable, optional
        progress(event) receives run_synthesis events plus 'config', 'configs' and 'label'.
    should_stop : callable, optional
        Polled during the runs; True stops the choice.

    Returns
    -------
    PrivateChoiceResult
        A seeded study result.

    Raises
    ------
    BlowfishError, BudgetError
        Naming the field, before any work.
    RunStopped
        When stopped.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise BlowfishError(f"seed must be a whole number >= 0 (got {seed!r}). Fix: give a seed for a study run, "
                            "or call release_tau_choice for a release")
    plan, cfg, specs = _prepare(schema, policy, data, rho, taus, rho_sel, epsilon_sel, [int(seed)], config, metric,
                                delta, regret_rho, data_source, flags)
    t0 = time.perf_counter()
    runs = _run_settings(plan, specs, progress, should_stop)
    errors = _errors(plan, runs)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 4391, _SELECT_PURPOSE]))
    sel = select_private(errors, runs[0].n_private, plan.choice.sensitivity, plan.choice.epsilon_sel, rng)
    return _result(plan, cfg, runs, errors, sel, int(seed), t0)


def release_claim(schema: Schema, plan: PrivatePilotPlan, *, allow_data_domain: bool = False) -> Any:
    """The release gate's Claim of a private tau choice.

    What 'tau choice', the schema, every setting's method, mechanisms gaussian (the K runs) +
    exponential (the choice), the global selection calibration, unseeded, the reporting delta.

    Parameters
    ----------
    schema : Schema
        The public domain.
    plan : PrivatePilotPlan
        The plan of the choice.
    allow_data_domain : bool, default False
        Release although the domain was read off the private table.

    Returns
    -------
    Claim
        The gate's claim (synthesis.gate.Claim).
    """
    from ..synthesis.gate import Claim

    return Claim("tau choice", schema, tuple(dict.fromkeys(m for m, _ in plan.settings)),
                 ("gaussian", "exponential"), ("global",), False, bool(allow_data_domain), 0, float(plan.delta),
                 int(plan.n))


def release_tau_choice(
    schema: Schema,
    policy: Policy,
    data: pd.DataFrame,
    rho: float,
    taus: Sequence[float],
    rho_sel: float | None = None,
    epsilon_sel: float | None = None,
    *,
    config: SynthConfig | None = None,
    metric: tuple[str, Callable] | None = None,
    delta: float = DEFAULT_DELTA,
    regret_rho: float = REGRET_RHO,
    data_source: str = "",
    flags: bool = False,
    allow_data_domain: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Any:
    """The private choice of Hard or a tau as a RELEASE, through the release gate (issue 21).

    Inside ``release_gate.publish``: each of the K runs is ``run_paired(RunSpec(..., seeds=None),
    streams_factory=entropy)`` (OS entropy, OpenDP noise), and the choice is drawn by
    mechanisms.select_release (the exponential mechanism's OpenDP Gumbel noisy max at scale
    2·sensitivity/epsilon_sel; papers/001 Eq. (1)).  Parts: 'chosen.csv' (the chosen release; its
    rows are EVERY run's ledger rows, since all K runs spent their budget) and 'choice' (the
    choice, its exponential row, sampler 'opendp-gumbel').  Total: K·rho_run + rho_sel zCDP
    (``publication.total``, accountant 'zcdp-eq1').

    Parameters
    ----------
    schema, policy, data, rho, taus, rho_sel, epsilon_sel, config, metric, delta, regret_rho, data_source, flags
        As in :func:`choose_tau_private` (no ``seed``).
    allow_data_domain : bool, default False
        Release with a domain read off the private table anyway, labelled release_gate.NOT_DP_LABEL.
    progress : callable, optional
        As in :func:`choose_tau_private`.
    should_stop : callable, optional
        As in :func:`choose_tau_private`.

    Returns
    -------
    Publication
        The release_gate.Publication; ``publication.result`` is the PrivateChoiceResult (seed
        None; its ``publication`` is this one; ``public_dict()`` carries the gate's label and
        total).

    Raises
    ------
    BlowfishError, BudgetError
        Naming the field, before any work.
    GateError
        When the gate refuses (e.g. a data-derived domain).
    RunStopped
        When stopped.
    """
    from ..synthesis.gate import Part, publish

    plan, cfg, specs = _prepare(schema, policy, data, rho, taus, rho_sel, epsilon_sel, None, config, metric, delta,
                                regret_rho, data_source, flags)
    box: dict[str, PrivateChoiceResult] = {}

    def produce(entropy: Callable[[], Any]) -> list[Any]:
        t0 = time.perf_counter()
        runs = _run_settings(plan, specs, progress, should_stop, streams_factory=entropy)
        errors = _errors(plan, runs)
        sel_streams = entropy()  # the draw itself uses OpenDP's OS CSPRNG; these streams record that it is unseeded
        sel = select_release(errors, runs[0].n_private, plan.choice.sensitivity, plan.choice.epsilon_sel)
        res = _result(plan, cfg, runs, errors, sel, None, t0)
        box["result"] = res
        synths = [r.synth for pr in runs for r in pr.runs]
        samplers = sorted({str(s.noise_sampler) for s in synths})
        randomness = sorted({str(s.randomness) for s in synths})
        return [Part("chosen.csv", res.ledger[:-1], samplers[0] if len(samplers) == 1 else " + ".join(samplers),
                     randomness[0] if len(randomness) == 1 else " + ".join(randomness), res.release),
                Part("choice", res.ledger[-1:], SELECTION_MECHANISMS["exponential"].release_sampler,
                     sel_streams.randomness, res.public_dict()["choice"], counted=False)]

    pub = publish(release_claim(schema, plan, allow_data_domain=allow_data_domain), produce,
                  result_of=lambda parts: box["result"])
    if pub.total.get("rho") is None or not math.isclose(pub.total["rho"], plan.choice.rho_total, rel_tol=1e-9):
        raise BlowfishError("internal: the gate's total differs from K rho_run + rho_sel")  # pragma: no cover
    pub.result.publication = pub
    return pub


__all__ = ["INTERNAL", "MAX_SETTINGS", "PrivateChoiceResult", "PrivatePilotPlan", "choose_tau_private",
           "private_pilot_plan", "release_claim", "release_tau_choice", "settings_for", "setting_label",
           "HARD", "SOFT", "REGRET_RHO", "score_notion"]
