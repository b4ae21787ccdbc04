"""AIM: adaptive, iterative, workload-aware marginal selection on Private-PGM.

Reference method (standard DP only, no policy), written here on top of ``mbi``.  Source:
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
from typing import Any, Callable

import numpy as np

from ..privacy.accounting import check_rho
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
from .mst import DEFAULT_ITERS, DEFAULT_ROWS

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
    """One AIM fit's measurements: the Gaussian mechanism on a marginal and the exponential
    selection of the next one, each with its ledger row."""

    def __init__(self, mbi: Any, names, sens: float, draws: Any, answers: dict, domain: Any, cand: dict,
                 ncells: dict, model_size: Callable) -> None:
        self.mbi, self.names, self.sens, self.draws, self.model_size = mbi, names, sens, draws, model_size
        self.answers, self.domain, self.cand, self.ncells = answers, domain, cand, ncells
        self.ledger: list[LedgerRow] = []
        self.measurements: list = []
        self.iters_run: list[int] = []  # per estimate, in order

    def measure(self, r, sigma_unit, step):
        """Gaussian mechanism on marginal r; sigma_unit in units of the l2 sensitivity."""
        sens, names = self.sens, self.names
        sigma = sens * sigma_unit
        y = self.draws.gaussian(self.answers[r], sigma)
        clique = tuple(names[i] for i in r)
        self.ledger.append(LedgerRow(len(self.ledger), step, "gaussian", clique, sens, sigma,
                                     sens ** 2 / (2 * sigma ** 2), candidates=int(y.size)))
        self.measurements.append(self.mbi.LinearMeasurement(y, mbi_clique(r), stddev=sigma))

    def fitting(self, limit: float) -> list:
        """JT-SIZE: the candidates whose junction tree with the current cliques stays under ``limit`` MB."""
        cand = self.cand
        current = [m.clique for m in self.measurements]
        small = [r for r in cand if self.model_size(self.domain, current + [mbi_clique(r)]) <= limit]
        if not small:  # nothing fits (cannot happen with the 1-ways): measure the cheapest
            small = [min(cand, key=lambda r: self.ncells[r])]
        return small

    def select(self, model: Any, small: list, sigma: float, epsilon: float, score_sens: float):
        """The exponential mechanism over ``small`` (bias-corrected quality scores); its ledger row."""
        names, cand, ncells = self.names, self.cand, self.ncells
        # quality score: quality score, bias-corrected by the expected noise of measuring r
        scores = []
        ests = model_marginals(model, [mbi_clique(r) for r in small])
        for r in small:
            est = ests[mbi_clique(r)]
            scores.append(cand[r] * (np.abs(self.answers[r] - est).sum() - math.sqrt(2 / math.pi) * sigma * ncells[r]))
        k = self.draws.select(np.array(scores), epsilon, score_sens)
        r = small[k]
        clique = tuple(names[i] for i in r)
        self.ledger.append(LedgerRow(len(self.ledger), "select", "exponential", clique, score_sens, epsilon,
                                     epsilon ** 2 / 8.0, candidates=len(small)))
        return r, clique


def _rounds(st: _Aim, model: Any, rho: float, rho_used: float, sigma_u: float, epsilon: float, n: float,
            round_iters: int, max_size_mb: float, score_unit: float):
    """Step 3 (Alg. 1 lines 5-16) with step 4's budget annealing: select, measure, re-estimate
    until the budget is spent. Returns (model, the chosen cliques, anneals, rounds)."""
    w_max = max(st.cand.values())
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
        rho_used += 1.0 / (2.0 * sigma_u ** 2) + epsilon ** 2 / 8.0
        small = st.fitting(max_size_mb * rho_used / rho)
        sigma = st.sens * sigma_u
        r, clique = st.select(model, small, sigma, epsilon, score_unit * w_max)
        st.measure(r, sigma_u, "measure")
        chosen.append(clique)
        key = mbi_clique(r)
        before = model_marginals(model, [key])[key]
        est = estimate(st.mbi, st.domain, st.measurements, n, round_iters, warm_start=model)
        model = est.model
        st.iters_run.append(est.iters_run)
        after = model_marginals(model, [key])[key]
        # Step 4 (budget annealing): anneal when the measured marginal barely moved the model
        if not last and np.abs(after - before).sum() <= math.sqrt(2 / math.pi) * sigma * st.ncells[r]:
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
    t0 = time.perf_counter()
    c0 = time.process_time()
    rho = check_rho(rho)
    sens, score_unit = sensitivities(neighbours)
    check_fit_args("AIM", schema, rows, sampling)
    names = schema.names
    p = schema.p
    T = int(rounds) if rounds is not None else ROUNDS_PER_ATTRIBUTE * p
    if T < 1:
        raise SchemaError(f"rounds must be >= 1 (got {rounds!r})")
    cand = workload_candidates(names, workload, workload_weights)
    mbi = require_mbi("AIM")
    from mbi.junction_tree import hypothetical_model_size

    X = encoded_table(schema, data)
    cells = PublicCells.from_schema(schema, bins)
    codes, sizes = cells.encode(X), cells.sizes
    domain = mbi_domain(mbi, sizes)
    n = float(X.shape[0])  # replace-one: n public
    draws = fit_randomness(seed, streams, 0x41494D)  # "AIM"
    rng = draws.rng  # public draws (and, seeded, the noise: the order the study fit always drew in)
    answers = {r: counts(codes, sizes, r) for r in cand}
    ncells = {r: int(np.prod([sizes[i] for i in r])) for r in cand}
    st = _Aim(mbi, names, sens, draws, answers, domain, cand, ncells, hypothetical_model_size)

    # Step 2 (Alg. 1 lines 1-4): all 1-way marginals at sigma_0.
    sigma_u = math.sqrt(T / (2.0 * ALPHA * rho))
    epsilon = math.sqrt(8.0 * (1.0 - ALPHA) * rho / T)
    for i in range(p):
        st.measure((i,), sigma_u, "measure-1way")
    rho_used = math.fsum(x.rho for x in st.ledger)
    if neighbours == "add-remove":
        n = max(1.0, float(np.mean([np.sum(np.asarray(m.noisy_measurement)) for m in st.measurements])))
    est = estimate(mbi, domain, st.measurements, n, round_iters)
    model = est.model
    st.iters_run.append(est.iters_run)
    # Step 3 (lines 5-16): rounds until the budget is spent.
    model, chosen, anneals, t = _rounds(st, model, rho, rho_used, sigma_u, epsilon, n, round_iters, max_size_mb,
                                        score_unit)
    ledger, measurements = st.ledger, st.measurements

    # Step 5: final estimate, sample, decode.
    est = estimate(mbi, domain, measurements, n, iters, warm_start=model)
    model = est.model
    st.iters_run.append(est.iters_run)
    n_out = int(rows) if rows is not None else max(1, round(n))

    generate = _generator(model, cells, sampling)
    Xr = generate(n_out, rng)
    release = schema.decode(Xr)
    info = {"rounds": t, "max_rounds": T, "anneals": anneals, "selected": [list(c) for c in chosen],
            "cells": dict(zip(names, sizes)), "neighbours": neighbours, "bins": cells.bins, "total": n,
            "iters": int(iters), "round_iters": int(round_iters),
            "iters_run": list(st.iters_run), "sampling": sampling, "rows": n_out,
            "cpu_seconds": time.process_time() - c0}
    return BaselineResult(release, Xr, tuple(ledger), time.perf_counter() - t0, rho, "aim",
                          named_cliques(names, [m.clique for m in measurements]), info, sampler=generate,
                          noise_sampler=draws.noise_sampler)
