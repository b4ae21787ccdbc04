"""bf-mst and bf-soft-mst: MST under a Blowfish policy, with the exact per-marginal sensitivity (issue 25).

Notes: ../shared/design/blowfish-marginals.md.  MST's pipeline (:func:`.mst.fit_tree`, steps 1-5
of :mod:`.mst`) with each marginal's sensitivity from :class:`.blowfish_sensitivity.PolicyMarginals`:

* a marginal no policy edge changes (sensitivity 0) is measured **exactly**: no noise, no
  budget; its ledger row says "released exactly: not protected by the policy" (Blowfish's
  contract: what the policy does not protect is not protected).  mbi's estimator needs a stddev
  for it: :func:`.mst.exact_stddev`, an estimator weight only (no noise is drawn);
* the others (sqrt 2; with participation edges at least 1) get MST's Gaussian measurements: each
  step's third of rho split evenly over its noisy measurements (1-ways: the protected attributes';
  2-ways: the selected pairs touching one);
* MST's whole spanning tree is selected first (p-1 picks, as MST), then every exact 2-way marginal
  not in it is measured on top, for free (step 3a, :func:`.mst._free_pairs`): highest score first
  while the model fits ``FREE_MODEL_MB`` (AIM's JT-SIZE filter).  Taking the exact pairs first and
  letting the tree join only what they leave (issue 25's order, ``TreeFit.free_first``) lost to MST
  under the policy age+hours+education.num on Adult (docs/DECISIONS.md 2026-12-03);
* every tree pick uses the exponential mechanism with the maximum score sensitivity over its
  candidates (0 for an exact pair, 2 for a crossing one, 1 for participation only): rho/3 over the picks.
  A spanning-tree pick always has a candidate touching a protected attribute while one exists, so
  the maximum is 2 whenever the policy protects anything.

Neighbouring tables are the policy's (no ``neighbours`` argument): without participation edges
the record count n is public, as in MST's replace-one.

bf-soft-mst (:func:`fit_bf_soft_mst`) measures the protected marginals soft instead
(:mod:`.soft_marginals`: K_S h_S at sqrt 2 tanh(r_S / (2 tau)), fitted through mbi's query).
"""

from __future__ import annotations

from typing import Any

from ..model.metrics import NUMERIC_BINS
from ..model.policy import Policy
from ..model.schema import Schema
from ..privacy.accounting import check_rho
from ._mbi import in_jax_scope
from .ledger import BaselineResult
from .policy_fit import PolicyPlans
from .mst import DEFAULT_ITERS, DEFAULT_ROWS, TreeFit, fit_tree


@in_jax_scope
def fit_bf_mst(schema: Schema, data: Any, rho: float, policy: Policy, seed: int | None = 0,
               rows: int | None = DEFAULT_ROWS, bins: int = NUMERIC_BINS, compress: bool = True,
               iters: int = DEFAULT_ITERS, sampling: str = "round", streams: Any = None) -> BaselineResult:
    """bf-mst release at zCDP budget ``rho`` under ``policy`` (Blowfish).  Steps: module docstring.

    Parameters
    ----------
    schema : Schema
        The public schema (domain and bins come from it alone).
    data : pandas.DataFrame or (n, p) array_like
        Private table, a DataFrame in the schema's columns or an encoded (n, p) matrix.
    rho : float
        Total zCDP budget (> 0): rho/3 over the noisy 1-ways, rho/3 over the selection, rho/3 over
        the noisy 2-ways (the ledger's rho sums to ``rho`` whenever the policy protects something).
    policy : Policy
        The Blowfish policy (its per-attribute graphs and participation flag).
    seed, rows, bins, compress, iters, sampling, streams
        As :func:`.mst.fit_mst`.

    Returns
    -------
    BaselineResult
        Unpacks as (release DataFrame, ledger rows, seconds); every ledger row says how its
        sensitivity was obtained (``how``); ``info["exact"]`` lists the exactly released marginals
        and ``info["protected"]`` the attributes some policy edge moves across cells,
        ``info["free_pairs"]`` the exact 2-way marginals added on top of the tree (step 3a).

    Raises
    ------
    PolicyError
        When the policy does not fit the schema, or moves no record across any cell.
    BudgetError, SchemaError, MissingDependencyError, BlowfishError
        As :func:`.mst.fit_mst`.
    """
    rho = check_rho(rho)
    policy.validate(schema)
    plans = PolicyPlans(policy, "bf-mst")
    return plans.finish(fit_tree(schema, data, rho, plans,
                                 TreeFit("bf-mst", "bf-mst", 0x42464D, seed, rows, bins, compress, iters, sampling,
                                         streams), plans.extra_info()))


@in_jax_scope
def fit_bf_soft_mst(schema: Schema, data: Any, rho: float, policy: Policy, tau: float, seed: int | None = 0,
                    rows: int | None = DEFAULT_ROWS, bins: int = NUMERIC_BINS, compress: bool = True,
                    iters: int = DEFAULT_ITERS, sampling: str = "round", streams: Any = None) -> BaselineResult:
    """bf-soft-mst release at zCDP budget ``rho`` under ``policy``: bf-mst with soft marginals.

    Every marginal a policy edge changes is measured soft, y_S = K_S h_S + Gaussian noise at
    sqrt 2 tanh(r_S / (2 tau)) (with participation edges at least the kernel's largest column norm),
    and fitted through mbi's query K_S, so the estimate is of h_S (:mod:`.soft_marginals`; PRIVACY
    §10).  The others are bf-mst's: exact (no noise, no budget), or the participation floor 1.  The
    selection is bf-mst's (hard scores: the maximum over the candidates, 2 for a moved pair).  The
    soft 1-ways' attributes are not compressed (MST's compression reads counts; a soft measurement is
    not one); the others are, as in bf-mst.  tau is fixed (given), in Gower units, as BF-Soft's.

    Parameters
    ----------
    schema : Schema
        The public schema (domain and bins come from it alone).
    data : pandas.DataFrame or (n, p) array_like
        Private table, a DataFrame in the schema's columns or an encoded (n, p) matrix.
    rho : float
        Total zCDP budget (> 0), split as bf-mst's.
    policy : Policy
        The Blowfish policy.
    tau : float
        Temperature of the soft marginals (> 0), Gower units (weights not renormalised).
    seed, rows, bins, compress, iters, sampling, streams
        As :func:`.mst.fit_mst`.

    Returns
    -------
    BaselineResult
        As :func:`fit_bf_mst`; soft rows' ``how`` names r_S and tau ("soft bound: ..."),
        ``info["soft"]`` lists the soft marginals and ``info["tau"]`` the temperature.

    Raises
    ------
    BudgetError
        For a bad rho or tau (missing, not a finite number > 0).
    PolicyError, SchemaError, MissingDependencyError, BlowfishError
        As :func:`fit_bf_mst`.
    """
    rho = check_rho(rho)
    policy.validate(schema)
    plans = PolicyPlans(policy, "bf-soft-mst", tau)  # BudgetError for a bad tau, before any work
    return plans.finish(fit_tree(schema, data, rho, plans,
                                 TreeFit("bf-soft-mst", "bf-soft-mst", 0x425346, seed, rows, bins, compress, iters,
                                         sampling, streams), plans.extra_info()))
