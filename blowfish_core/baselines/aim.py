"""AIM: adaptive, iterative, workload-aware marginal selection on Private-PGM.

Reference method (standard DP, :func:`fit_aim`), written here on top of ``mbi``; the same pipeline
(:func:`fit_workload`) runs bf-aim under a Blowfish policy (:mod:`.bf_aim`: exact per-marginal
sensitivities, exact marginals measured without noise; docs/PRIVACY.md §10).  Source:
[AIM] McKenna, Mullins, Sheldon, Miklau (2022), "AIM: An Adaptive and Iterative
Mechanism for Differentially Private Synthetic Data", PVLDB 15(11), Algorithm 1 ("AIM")
and the parts of its method section it uses: workload-aware candidates and weights,
the quality score, budget annealing, and the JT-SIZE model-capacity filter (named, not
numbered: the paper is not in ../shared/papers, so its section numbers are unchecked).

Steps (zCDP budget ``rho``; T = 16 p rounds, alpha = 0.9 as in Algorithm 1):

1. *Candidates and weights* (workload-aware candidates): the workload W (default: every attribute pair, the
   PWErr workload) closed downward, W+ (all pairs and single attributes); candidate r
   has weight w_r = sum_{s in W} c_s |r ∩ s|.
2. *Initialize* (Alg. 1 lines 1-4): sigma_0 = sqrt(T / (2 alpha rho)),
   epsilon_0 = sqrt(8 (1 - alpha) rho / T); measure every 1-way marginal with the
   Gaussian mechanism at sigma_0; estimate the model (Private-PGM).
3. *Rounds* (lines 5-16), while budget remains: if less than twice a round's cost is
   left, this is the last round and (sigma, epsilon) use exactly the remainder
   (alpha / (1 - alpha) split); keep the candidates whose junction tree fits in
   (rho_used / rho) x MAX_SIZE MB (JT-SIZE filter, mbi's hypothetical_model_size); select one by
   the exponential mechanism with score w_r (||M_r(D) - M_r(p̂)||_1 - sqrt(2/pi) sigma n_r)
   (quality score; n_r = cells of r; sensitivity max_r w_r); measure it at sigma; re-estimate
   warm-started.
4. *Anneal* (budget annealing): if the new model's r-marginal moved less (l1) than the expected
   noise sqrt(2/pi) sigma n_r, halve sigma and double epsilon.
5. *Sample* the release from the final model (mbi randomized rounding) and decode cells
   to values (:mod:`.cells`).

As for MST (see mst.py): domain and bins from the public schema (never the data);
neighbours "replace-one" by default (noise and score sensitivities scaled by sqrt(2) and
2; the budget formulas above are in units of sensitivity), n public; 512 released rows.
AIM has no domain compression.  Every estimate is warm-started from the previous round's
model (its potentials, expanded to the new clique) and stops by the convergence test of
:func:`.common.estimate`: mirror descent in blocks of 50 iterations until PATIENCE (2)
consecutive blocks lower the loss by at most TOL (1e-4) relative, capped at ``round_iters``
per round and ``iters`` for the final estimate (engineering choice for speed; the published
code runs a fixed count every round).  The selection scores and the annealing test read the
model's marginals in numpy (:func:`.common.model_marginals`, exact), not through one jax
compilation per candidate.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..privacy.accounting import check_rho, gaussian_sigma
from ..base.errors import SchemaError
from ..model.metrics import NUMERIC_BINS
from ..model.schema import Schema
from ._mbi import in_jax_scope, jax_scope, mbi_clique, mbi_domain, named_cliques, require_mbi
from .cells import PublicCells
from .common import (
    check_fit_args,
    counts,
    encoded_table,
    estimate,
    fit_randomness,
    model_marginals,
    seeded_global_numpy,
    sensitivities,
)
from .ledger import BaselineResult, LedgerRow
from .measure import Measurer
from .mst import DEFAULT_ITERS, DEFAULT_ROWS, EXACT_STDDEV_RATIO, StandardPlan

#: [AIM] Algorithm 1: alpha (share of each round's budget for measurement), rounds T = 16 p.
ALPHA = 0.9
ROUNDS_PER_ATTRIBUTE = 16
#: [AIM] JT-SIZE filter: model capacity in megabytes.
MAX_SIZE_MB = 80.0
#: cap on the warm-started mirror-descent iterations per round (the final estimate's cap is
#: ``iters``); the convergence test of common.estimate usually stops a round earlier.
ROUND_ITERS = 500


def workload_candidates(names: list[str], workload: Sequence[tuple[str, ...]] | None,
                        weights: Sequence[float] | None = None) -> dict[tuple[int, ...], float]:
    """[AIM] workload-aware candidates: downward closure W+ of the workload with weights w_r = sum_s c_s |r ∩ s|.

    Parameters
    ----------
    names : list of str
        Attribute names (p,).
    workload : sequence of tuple of str, optional
        Cliques of names (default: all pairs).
    weights : sequence of float, optional
        c_s per workload clique (default 1).

    Returns
    -------
    dict of tuple of int to float
        {clique of indices: w_r > 0}.

    Raises
    ------
    SchemaError
        For unknown names or a bad weight list.
    """
    p = len(names)
    W: list[tuple[int, ...]]
    if workload is None:
        W = list(itertools.combinations(range(p), 2))
    else:
        W = []
        for s in workload:
            unknown = [a for a in s if a not in names]
            if unknown or not s:
                raise SchemaError(f"workload clique {tuple(s)!r}: unknown attribute(s) {unknown}; known: {names}")
            W.append(tuple(sorted({names.index(a) for a in s})))
    c = [1.0] * len(W) if weights is None else [float(x) for x in weights]
    if len(c) != len(W) or any(not math.isfinite(x) or x <= 0 for x in c):
        raise SchemaError("workload weights must be one finite number > 0 per workload clique")
    closure = sorted({sub for s in W for k in range(1, len(s) + 1) for sub in itertools.combinations(s, k)},
                     key=lambda r: (len(r), r))
    return {r: sum(cs * len(set(r) & set(s)) for s, cs in zip(W, c)) for r in closure}


class _Aim:
    """One AIM fit's measurements (:class:`.measure.Measurer`, each marginal's sensitivity from the
    plan; exact ones free) and the exponential selection of the next one, each with its ledger row."""

    def __init__(self, meas: Measurer, plan: Any, answers: dict, domain: Any, cand: dict,
                 ncells: dict, model_size: Callable) -> None:
        self.meas, self.plan, self.model_size = meas, plan, model_size
        self.names, self.ledger = meas.names, meas.ledger
        self.answers, self.domain, self.cand, self.ncells = answers, domain, cand, ncells
        self.measurements: list = []
        self.iters_run: list[int] = []  # per estimate, in order

    def exact(self, r) -> bool:
        """True when no neighbouring table changes marginal r (it is measured without noise)."""
        return self.plan.marginal(r).exact

    def measure(self, r, sigma_unit, step):
        """Measure marginal r: Gaussian at sigma_unit x its l2 sensitivity, or exactly (no budget)."""
        m = self.plan.marginal(r)
        meas, _ = self.meas.measure_counts(self.answers[r], r, m.sensitivity * sigma_unit, step, m,
                                           tuple(int(k) for k in self.domain.shape))  # sizes: soft marginals
        self.measurements.append(meas)

    def fitting(self, pool: list, limit: float) -> list:
        """JT-SIZE: the candidates of ``pool`` whose junction tree with the current cliques stays under
        ``limit`` MB (none fits: the cheapest)."""
        current = [m.clique for m in self.measurements]
        small = [r for r in pool if self.model_size(self.domain, current + [mbi_clique(r)]) <= limit]
        return small or [min(pool, key=lambda r: self.ncells[r])]

    def select(self, model: Any, small: list, sigma_u: float, epsilon: float, sel: Any):
        """The exponential mechanism over ``small`` (bias-corrected quality scores, score sensitivity
        ``sel.sensitivity``); its ledger row.  Candidate r's bias term uses its own noise
        sigma_r = (its l2 sensitivity) x sigma_u: 0 for an exact one (public, data-independent)."""
        names, cand, ncells = self.names, self.cand, self.ncells
        scores = []
        ests = model_marginals(model, [mbi_clique(r) for r in small])
        for r in small:
            est = ests[mbi_clique(r)]
            sigma = self.plan.marginal(r).sensitivity * sigma_u
            scores.append(cand.get(r, 1.0) * (np.abs(self.answers[r] - est).sum()
                                              - math.sqrt(2 / math.pi) * sigma * ncells[r]))
        k = self.meas.draws.select(np.array(scores), epsilon, sel.sensitivity)
        r = small[k]
        clique = tuple(names[i] for i in r)
        self.ledger.append(LedgerRow(len(self.ledger), "select", "exponential", clique, sel.sensitivity, epsilon,
                                     epsilon ** 2 / 8.0, candidates=len(small), how=sel.how))
        return r, clique


def _pool(st: _Aim, done: set, last: bool) -> list:
    """The round's candidates: every noisy candidate, and the exact ones not measured yet (their
    measurement is free); the last round only the noisy ones (it spends the remainder on a
    measurement).  No noisy workload candidate: the noisy 1-ways."""
    noisy = [r for r in st.cand if not st.exact(r)]
    if not noisy:
        noisy = [(i,) for i in range(len(st.names)) if not st.exact((i,))]
    return noisy if last else noisy + [r for r in st.cand if st.exact(r) and r not in done]


def _rounds(st: _Aim, model: Any, rho: float, rho_used: float, sigma_u: float, epsilon: float, n: float,
            round_iters: int, max_size_mb: float, done: set):
    """Step 3 (Alg. 1 lines 5-16) with step 4's budget annealing: select, measure, re-estimate
    until the budget is spent. An exact pick spends only its selection (its measurement is free).
    Returns (model, the chosen cliques, anneals, rounds)."""
    chosen: list[tuple[str, ...]] = []
    anneals = 0
    t = 0
    while rho - rho_used > 1e-15 * rho:
        t += 1
        cost = 1.0 / (2.0 * sigma_u ** 2) + epsilon ** 2 / 8.0
        last = rho - rho_used < 2.0 * cost
        if last:  # spend exactly the remainder
            rem = rho - rho_used
            sigma_u = math.sqrt(1.0 / (2.0 * ALPHA * rem))
            epsilon = math.sqrt(8.0 * (1.0 - ALPHA) * rem)
        pool = _pool(st, done, last)
        planned = rho_used + (1.0 / (2.0 * sigma_u ** 2) + epsilon ** 2 / 8.0)
        small = st.fitting(pool, max_size_mb * planned / rho)
        sel = st.plan.weighted_selection(pool, [st.cand.get(r, 1.0) for r in pool])
        r, clique = st.select(model, small, sigma_u, epsilon, sel)
        exact = st.exact(r)
        rho_used = rho_used + epsilon ** 2 / 8.0 if exact else planned  # an exact pick's measurement is free
        sigma = st.plan.marginal(r).sensitivity * sigma_u
        st.measure(r, sigma_u, "measure")
        done.add(r)
        chosen.append(clique)
        key = mbi_clique(r)
        before = model_marginals(model, [key])[key]
        est = estimate(st.meas.mbi, st.domain, st.measurements, n, round_iters, warm_start=model)
        model = est.model
        st.iters_run.append(est.iters_run)
        after = model_marginals(model, [key])[key]
        # Step 4 (budget annealing): anneal when the measured marginal barely moved the model
        if not last and not exact and np.abs(after - before).sum() <= math.sqrt(2 / math.pi) * sigma * st.ncells[r]:
            sigma_u /= 2.0
            epsilon *= 2.0
            anneals += 1
        if last:
            break
    return model, chosen, anneals, t


def _generator(model: Any, cells: PublicCells, sampling: str):
    """``generate(n_rows, g)``: (n_rows, p) encoded records from the final model (post-processing)."""

    def generate(n_rows: int, g: np.random.Generator) -> np.ndarray:
        """(n_rows, p) encoded records from the final model (post-processing), randomness from g."""
        with seeded_global_numpy(int(g.integers(2 ** 32))), jax_scope():
            synth = model.synthetic_data(rows=int(n_rows), method=sampling)
        out_cells = np.column_stack([np.asarray(synth.data[i], dtype=np.int64) for i in range(len(cells.sizes))])
        return cells.decode(out_cells, g)

    return generate


@in_jax_scope
def fit_aim(schema: Schema, data: Any, rho: float, seed: int | None = 0, rows: int | None = DEFAULT_ROWS,
            bins: int = NUMERIC_BINS, neighbours: str = "replace-one",
            workload: Sequence[tuple[str, ...]] | None = None, workload_weights: Sequence[float] | None = None,
            rounds: int | None = None, iters: int = DEFAULT_ITERS, round_iters: int = ROUND_ITERS,
            max_size_mb: float = MAX_SIZE_MB, sampling: str = "round", streams: Any = None) -> BaselineResult:
    """AIM release at zCDP budget ``rho`` (standard DP; no policy).  Steps: module docstring.

    Parameters
    ----------
    schema : Schema
        As :func:`fit_mst`.
    data : pandas.DataFrame or (n, p) array_like
        As :func:`fit_mst`.
    rho : float
        Total zCDP budget (> 0).
    seed : int or None, default 0
        As :func:`fit_mst` (None: a release, OpenDP Gaussian measurements and
        Gumbel noisy-max selections).
    rows : int or None, default 512
        As :func:`fit_mst`.
    bins : int, default NUMERIC_BINS
        As :func:`fit_mst`.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        As :func:`fit_mst`.
    workload : sequence of tuple of str, optional
        Cliques of attribute names the release should answer (default every pair,
        the PWErr workload).
    workload_weights : sequence of float, optional
        Their weights c_s (default 1).
    rounds : int, optional
        T (default 16 p).
    iters : int, default DEFAULT_ITERS
        Cap on the final estimate's iterations (warm-started from the last round).
    round_iters : int, default ROUND_ITERS
        Cap on each round's warm-started estimate.  Every estimate stops earlier by
        the convergence test of :func:`.common.estimate`; the iterations run are in
        ``info["iters_run"]``.
    max_size_mb : float, default MAX_SIZE_MB
        Model capacity (JT-SIZE filter).
    sampling : {"round", "sample"}, default "round"
        As :func:`fit_mst`.
    streams : callable, optional
        As :func:`fit_mst` (release streams: a release, OpenDP Gaussian
        measurements and Gumbel noisy-max selections).

    Returns
    -------
    BaselineResult
        Unpacks as (release, ledger, seconds); ledger rho sums to rho.

    Raises
    ------
    BudgetError
        As :func:`fit_mst`.
    SchemaError
        As :func:`fit_mst`; also for rounds < 1.
    MissingDependencyError
        As :func:`fit_mst`.
    """
    rho = check_rho(rho)
    sensitivities(neighbours)  # BudgetError for a bad notion, before any work
    fit = AimFit("AIM", "aim", 0x41494D, seed, rows, bins, workload, workload_weights, rounds, iters, round_iters,
                 max_size_mb, sampling, streams)
    return fit_workload(schema, data, rho, lambda cells: StandardPlan(tuple(cells.names), neighbours), fit,
                        {"neighbours": neighbours})


@dataclass(frozen=True)
class AimFit:
    """The settings of one fit of AIM's pipeline (:func:`fit_workload`): the method's label, key and
    stream tag, and fit_aim's keyword arguments."""

    label: str
    key: str
    tag: int
    seed: Any
    rows: int | None
    bins: int
    workload: Sequence[tuple[str, ...]] | None
    workload_weights: Sequence[float] | None
    rounds: int | None
    iters: int
    round_iters: int
    max_size_mb: float
    sampling: str
    streams: Any


def aim_exact_stddev(rho: float) -> float:
    """mbi's stddev for an exact AIM measurement (bf-aim): an estimator weight, not noise.

    Parameters
    ----------
    rho : float
        The fit's total zCDP budget (> 0).

    Returns
    -------
    float
        EXACT_STDDEV_RATIO x sqrt 2 / sqrt(2 rho): a tenth of the smallest noise any AIM measurement
        can have (the whole budget on one marginal of sensitivity sqrt 2), count units.
    """
    return EXACT_STDDEV_RATIO * gaussian_sigma(math.sqrt(2.0), rho)


def fit_workload(schema: Schema, data: Any, rho: float, plan_of: Any, fit: AimFit,
                 extra_info: dict[str, Any]) -> BaselineResult:
    """AIM's pipeline (module docstring, steps 1-5) with the marginals' sensitivities from a plan.

    ``plan_of(cells)`` gives the plan (:class:`.mst.StandardPlan` or
    :class:`.blowfish_sensitivity.PolicyMarginals`): ``marginal(clique)`` (sensitivity 0: measured
    exactly, no noise, no budget), ``weighted_selection(candidates, weights)`` (the quality score's
    sensitivity, max over the round's candidates of w_r x l1 sensitivity) and ``public_total``.
    T defaults to 16 x the noisy 1-ways (16 p under standard DP).

    Parameters
    ----------
    schema, data
        As :func:`fit_aim`.
    rho : float
        Total zCDP budget (checked by the caller).
    plan_of : callable
        PublicCells -> the plan (above).
    fit : AimFit
        The method's label, key, stream tag and fit options.
    extra_info : dict
        Added to the result's ``info``.

    Returns
    -------
    BaselineResult
        As fit_aim.

    Raises
    ------
    SchemaError, MissingDependencyError, BlowfishError
        As fit_aim.
    """
    t0 = time.perf_counter()
    c0 = time.process_time()
    check_fit_args(fit.label, schema, fit.rows, fit.sampling)
    names = schema.names
    p = schema.p
    cand = workload_candidates(names, fit.workload, fit.workload_weights)
    mbi = require_mbi(fit.label)
    from mbi.junction_tree import hypothetical_model_size

    X = encoded_table(schema, data)
    cells = PublicCells.from_schema(schema, fit.bins)
    plan = plan_of(cells)
    noisy1 = sum(not plan.marginal((i,)).exact for i in range(p))
    T = int(fit.rounds) if fit.rounds is not None else ROUNDS_PER_ATTRIBUTE * noisy1
    if T < 1:
        raise SchemaError(f"rounds must be >= 1 (got {fit.rounds!r})")
    codes, sizes = cells.encode(X), cells.sizes
    domain = mbi_domain(mbi, sizes)
    n = float(X.shape[0])  # replace-one / no participation edges: n public
    draws = fit_randomness(fit.seed, fit.streams, fit.tag)
    rng = draws.rng  # public draws (and, seeded, the noise: the order the study fit always drew in)
    keys = list(cand) + [(i,) for i in range(p) if (i,) not in cand]
    answers = {r: counts(codes, sizes, r) for r in keys}
    ncells = {r: int(np.prod([sizes[i] for i in r])) for r in keys}
    meas = Measurer(mbi, names, draws, [], aim_exact_stddev(rho))
    st = _Aim(meas, plan, answers, domain, cand, ncells, hypothetical_model_size)

    # Step 2 (Alg. 1 lines 1-4): all 1-way marginals at sigma_0 (the exact ones free).
    sigma_u = math.sqrt(T / (2.0 * ALPHA * rho))
    epsilon = math.sqrt(8.0 * (1.0 - ALPHA) * rho / T)
    for i in range(p):
        st.measure((i,), sigma_u, "measure-1way")
    done: set[tuple[int, ...]] = {(i,) for i in range(p)}
    # (bf-aim) every exact workload clique, free, in workload order while the model fits (JT-SIZE)
    for r in cand:
        if r not in done and st.exact(r) and hypothetical_model_size(
                domain, [m.clique for m in st.measurements] + [mbi_clique(r)]) <= fit.max_size_mb:
            st.measure(r, sigma_u, "measure-exact")
            done.add(r)
    rho_used = math.fsum(x.rho for x in st.ledger)
    if not plan.public_total:
        n = max(1.0, float(np.mean([np.sum(np.asarray(m.noisy_measurement)) for m in st.measurements])))
    est = estimate(mbi, domain, st.measurements, n, fit.round_iters)
    model = est.model
    st.iters_run.append(est.iters_run)
    # Step 3 (lines 5-16): rounds until the budget is spent.
    model, chosen, anneals, t = _rounds(st, model, rho, rho_used, sigma_u, epsilon, n, fit.round_iters,
                                        fit.max_size_mb, done)
    ledger, measurements = st.ledger, st.measurements

    # Step 5: final estimate, sample, decode.
    est = estimate(mbi, domain, measurements, n, fit.iters, warm_start=model)
    model = est.model
    st.iters_run.append(est.iters_run)
    n_out = int(fit.rows) if fit.rows is not None else max(1, round(n))

    generate = _generator(model, cells, fit.sampling)
    Xr = generate(n_out, rng)
    release = schema.decode(Xr)
    info = {"rounds": t, "max_rounds": T, "anneals": anneals, "selected": [list(c) for c in chosen],
            "cells": dict(zip(names, sizes)), **extra_info, "bins": cells.bins, "total": n,
            "iters": int(fit.iters), "round_iters": int(fit.round_iters),
            "iters_run": list(st.iters_run), "sampling": fit.sampling, "rows": n_out,
            "cpu_seconds": time.process_time() - c0}
    return BaselineResult(release, Xr, tuple(ledger), time.perf_counter() - t0, rho, fit.key,
                          named_cliques(names, [m.clique for m in measurements]), info, sampler=generate,
                          noise_sampler=draws.noise_sampler)
