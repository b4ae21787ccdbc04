"""bf-aim: AIM under a Blowfish policy, with the exact per-marginal sensitivity (issue 25).

Notes: ../shared/design/blowfish-marginals.md; proof: docs/PRIVACY.md §10 (the AIM lemma).  AIM's
pipeline (:func:`.aim.fit_workload`, steps 1-5 of :mod:`.aim`) with each marginal's sensitivity
from :class:`.blowfish_sensitivity.PolicyMarginals`:

* a marginal no policy edge changes (sensitivity 0) is measured **exactly**: no noise, no budget;
  its ledger row says "released exactly: not protected by the policy".  Every exact 1-way is
  measured up front; an exact workload clique enters the model when a round selects it, and then
  costs only that round's selection (its measurement is free; each is measured at most once).  Not
  all exact cliques up front: on Adult (age protected) the 91 exact pairs of the other 14
  attributes make one junction-tree clique over all 14, far past mbi's capacity (DECISIONS.md);
* the noisy 1-ways are measured at sigma_0 and every noisy pick at the round's sigma (AIM's
  budget annealing); the last round selects among the noisy candidates only, so it spends exactly
  the remainder and the ledger's rho sums to ``rho``;
* every round's exponential mechanism uses the maximum over its candidates of w_r x (the l1
  sensitivity of the candidate's marginal: 0 exact, 2 crossing, 1 participation only); the bias
  term sqrt(2/pi) sigma_r n_r is public (sigma_r = the candidate's sensitivity x the round's sigma
  unit: 0 for an exact one), so it does not change the sensitivity;
* T defaults to 16 x the number of noisy 1-ways (16 per protected attribute; AIM's 16 p).

Neighbouring tables are the policy's (no ``neighbours`` argument): without participation edges
the record count n is public, as in AIM's replace-one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model.metrics import NUMERIC_BINS
from ..model.policy import Policy
from ..model.schema import Schema
from ..privacy.accounting import check_rho
from ._mbi import in_jax_scope
from .aim import MAX_SIZE_MB, ROUND_ITERS, AimFit, fit_workload
from .ledger import BaselineResult
from .policy_fit import PolicyPlans
from .mst import DEFAULT_ITERS, DEFAULT_ROWS


@in_jax_scope
def fit_bf_aim(schema: Schema, data: Any, rho: float, policy: Policy, seed: int | None = 0,
               rows: int | None = DEFAULT_ROWS, bins: int = NUMERIC_BINS,
               workload: Sequence[tuple[str, ...]] | None = None, workload_weights: Sequence[float] | None = None,
               rounds: int | None = None, iters: int = DEFAULT_ITERS, round_iters: int = ROUND_ITERS,
               max_size_mb: float = MAX_SIZE_MB, sampling: str = "round", streams: Any = None) -> BaselineResult:
    """bf-aim release at zCDP budget ``rho`` under ``policy`` (Blowfish).  Steps: module docstring.

    Parameters
    ----------
    schema : Schema
        The public schema (domain and bins come from it alone).
    data : pandas.DataFrame or (n, p) array_like
        Private table, a DataFrame in the schema's columns or an encoded (n, p) matrix.
    rho : float
        Total zCDP budget (> 0); the ledger's rho sums to ``rho``.
    policy : Policy
        The Blowfish policy (its per-attribute graphs and participation flag).
    seed, rows, bins, workload, workload_weights, iters, round_iters, max_size_mb, sampling, streams
        As :func:`.aim.fit_aim`.
    rounds : int, optional
        T (default 16 x the noisy 1-ways).

    Returns
    -------
    BaselineResult
        Unpacks as (release DataFrame, ledger rows, seconds); every ledger row says how its
        sensitivity was obtained (``how``); ``info["exact"]`` lists the exactly released marginals
        and ``info["protected"]`` the attributes some policy edge moves across cells.

    Raises
    ------
    PolicyError
        When the policy does not fit the schema, or moves no record across any cell.
    BudgetError, SchemaError, MissingDependencyError, BlowfishError
        As :func:`.aim.fit_aim`.
    """
    rho = check_rho(rho)
    policy.validate(schema)
    plans = PolicyPlans(policy, "bf-aim")
    fit = AimFit("bf-aim", "bf-aim", 0x424641, seed, rows, bins, workload, workload_weights, rounds, iters,
                 round_iters, max_size_mb, sampling, streams)
    return plans.finish(fit_workload(schema, data, rho, plans, fit, plans.extra_info()))


@in_jax_scope
def fit_bf_soft_aim(schema: Schema, data: Any, rho: float, policy: Policy, tau: float, seed: int | None = 0,
                    rows: int | None = DEFAULT_ROWS, bins: int = NUMERIC_BINS,
                    workload: Sequence[tuple[str, ...]] | None = None,
                    workload_weights: Sequence[float] | None = None, rounds: int | None = None,
                    iters: int = DEFAULT_ITERS, round_iters: int = ROUND_ITERS, max_size_mb: float = MAX_SIZE_MB,
                    sampling: str = "round", streams: Any = None) -> BaselineResult:
    """bf-soft-aim: bf-aim with soft marginals (issue 25): each noisy marginal touching a protected
    attribute is measured as K_S h_S at sqrt 2 tanh(r_S / (2 tau)) and fitted back to h_S through mbi's
    query (:mod:`.soft_marginals`; PRIVACY §10, Lemma 10.5); the rounds' selection is bf-aim's (the
    quality score reads the hard marginal: Lemma 10.8); exact marginals as bf-aim.

    Parameters
    ----------
    schema, data, rho, policy, seed, rows, bins, workload, workload_weights, rounds, iters, round_iters, max_size_mb, sampling, streams
        As :func:`fit_bf_aim`.
    tau : float
        The soft marginals' temperature (Gower units, > 0; fixed by the caller).

    Returns
    -------
    BaselineResult
        As :func:`fit_bf_aim`; ``info["soft"]`` lists the softly measured marginals, ``info["tau"]`` tau.

    Raises
    ------
    BudgetError
        For a bad tau or rho.
    PolicyError, SchemaError, MissingDependencyError, BlowfishError
        As :func:`fit_bf_aim`.
    """
    rho = check_rho(rho)
    policy.validate(schema)
    plans = PolicyPlans(policy, "bf-soft-aim", tau)  # BudgetError for a bad tau, before any work
    fit = AimFit("bf-soft-aim", "bf-soft-aim", 0x425341, seed, rows, bins, workload, workload_weights, rounds,
                 iters, round_iters, max_size_mb, sampling, streams)
    return plans.finish(fit_workload(schema, data, rho, plans, fit, plans.extra_info()))
