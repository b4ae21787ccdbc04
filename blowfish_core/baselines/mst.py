"""MST: marginal-based synthesis with a maximum spanning tree of 2-way marginals.

Reference method (standard DP only, no policy), written here on top of ``mbi``'s
estimation and sampling (Private-PGM 2.x).  Sources:

* [MST] McKenna, Miklau, Sheldon (2021), "Winning the NIST Contest: A scalable and
  general approach to differentially private synthetic data", J. Privacy and
  Confidentiality 11(3), the section describing MST and its algorithm box (steps: measure
  the 1-way marginals, compress the domain, select a tree, measure it, generate).  The
  steps below are named after those parts (no section numbers: the paper is not in
  ../shared/papers and could not be checked here);
* [PGM] McKenna, Sheldon, Miklau (2019), "Graphical-model based estimation and inference
  for differential privacy", ICML: the estimation step (mirror descent, Alg. 1).

Algorithm steps and where each comes from (zCDP budget ``rho``, split in thirds as in
[MST], "MST"):

1. *Measure all 1-way marginals* with the Gaussian mechanism, rho/3 in total, split
   evenly over the p attributes ([MST] MST step "measure 1-way marginals").
2. *Compress the domain* ([MST] MST step "compress domain"): per attribute, cells whose noisy 1-way count is
   below 3 sigma are merged into one cell; the merged measurement is re-expressed over
   the compressed domain (mbi.LinearMeasurement.compress).  Post-processing of step 1.
3. *Select a spanning tree* ([MST] MST step "select"): estimate a model from the 1-way measurements
   only ([PGM], solved exactly: :func:`.common.independent_estimate`); weight each
   attribute pair by the l1 distance between the data's 2-way marginal and the model's; build the tree Kruskal-style, choosing each of the
   p-1 edges among the pairs that join two components with the exponential mechanism
   (score = the weight), rho/3 in total, split evenly, epsilon_i = sqrt(8 rho_i).
4. *Measure the p-1 selected 2-way marginals* with the Gaussian mechanism, rho/3 in
   total, split evenly ([MST] MST step "measure").
5. *Estimate* a graphical model from all measurements ([PGM], mbi MirrorDescent; every
   estimate stops by the convergence test of :func:`.common.estimate`, capped at ``iters``) and
   *sample* the release from it (mbi MarkovRandomField.synthetic_data, randomized
   rounding), then undo the compression (uniform over merged cells, as [MST] "compress domain") and
   decode cells to values (:mod:`.cells`).

Differences from the published code, on purpose:

* The domain and the numeric bins come from the public schema (:mod:`.cells`), never
  from the private table (the published preprocessing reads them off the data).
* Neighbouring tables: by default "replace-one" (bounded DP, the notion Tab-PE uses in
  this project, DESIGN §3): marginal l2 sensitivity sqrt(2), selection-score sensitivity
  2, and the record count n is public.  "add-remove" gives the paper's sensitivities
  (1 and 1) and estimates the total from the noisy 1-way marginals.
* The release has ``rows`` records (default 512, the Tab-PE release size), not n.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Any
from collections.abc import Sequence

import numpy as np

from ..privacy.accounting import check_rho, gaussian_sigma
from ..model.metrics import NUMERIC_BINS
from ..model.schema import Schema
from ._mbi import in_jax_scope, jax_scope, mbi_clique, mbi_domain, named_cliques, require_mbi
from .cells import PublicCells
from .common import (
    by_value,
    check_fit_args,
    counts,
    encoded_table,
    estimate,
    fit_randomness,
    independent_estimate,
    seeded_global_numpy,
    sensitivities,
)
from .blowfish_sensitivity import MarginalSensitivity, SelectionSensitivity
from .ledger import BaselineResult, LedgerRow
from .measure import Measurer

#: Tab-PE's release size (paper §6.1, App. F.2); the baselines release as many by default.
DEFAULT_ROWS = 512
#: cap on the mirror-descent iterations of an estimate (mbi's fixed default was 1000); each estimate
#: stops earlier by the convergence test of common.estimate (relative loss decrease per 50-iteration
#: block <= common.TOL for common.PATIENCE blocks; about 2,200 iterations on Adult at rho = 1e-2).
DEFAULT_ITERS = 3000
#: cells whose noisy 1-way count is below this many sigmas are merged ([MST] "compress domain").
COMPRESS_SIGMAS = 3.0
#: bf-mst's model capacity for the free exact 2-way marginals, megabytes (AIM's JT-SIZE default, aim.MAX_SIZE_MB).
FREE_MODEL_MB = 80.0


def compress_mapping(y: np.ndarray, sigma: float) -> np.ndarray | None:
    """[MST] "compress domain": cells with noisy count >= 3 sigma keep their own cell (in order).

    The rest share one last cell.

    Parameters
    ----------
    y : (size,) float ndarray
        A noisy 1-way marginal (count units).
    sigma : float
        Its noise standard deviation (count units).

    Returns
    -------
    (size,) int64 ndarray or None
        The map old cell -> new cell, or None if none merge.
    """
    keep = y >= COMPRESS_SIGMAS * sigma
    if keep.all():
        return None
    m = np.empty(y.size, dtype=np.int64)
    m[keep] = np.arange(int(keep.sum()))
    m[~keep] = int(keep.sum())
    return m


def _total(X: np.ndarray, ones: list, sizes, public_total: bool) -> float:
    """The record count: public n (replace-one, or a policy without participation edges), else the
    inverse-variance average of the noisy 1-way totals (post-processing)."""
    if public_total:
        return float(X.shape[0])  # n is public
    est = [float(y.sum()) for _, y in ones]
    var = [float(m.stddev) ** 2 * sizes[i] for i, (m, _) in enumerate(ones)]
    return max(1.0, float(np.average(est, weights=1.0 / np.asarray(var))))


def _compress(mbi: Any, sizes, codes: np.ndarray, ones: list, sigmas: list[float], compress: bool,
              keep: tuple[int, ...] = ()):
    """Step 2: merge rare cells of the noisy 1-way marginals (post-processing): below COMPRESS_SIGMAS
    of the measurement's noise ``sigmas[i]`` (an exact one, noise 0: only its empty cells); the
    attributes in ``keep`` (soft 1-ways: their measurement is not a count) stay uncompressed. Returns (mapping,
    compressed codes, compressed sizes, the compressed mbi Domain, the compressed 1-way measurements);
    mbi's attributes and the mapping's keys are the column indices (common.mbi_domain)."""
    full_domain = mbi_domain(mbi, sizes)
    mapping: dict[int, np.ndarray] = {}
    if compress:
        for i, (_, y) in enumerate(ones):
            if i in keep:
                continue
            m = compress_mapping(y, sigmas[i]) if sigmas[i] > 0 else compress_mapping(y, 0.5 / COMPRESS_SIGMAS)
            if m is not None:
                mapping[i] = m
    ccodes = codes.copy()
    sizes_c = list(sizes)
    for i in range(len(sizes)):
        if i in mapping:
            ccodes[:, i] = mapping[i][codes[:, i]]
            sizes_c[i] = int(mapping[i].max()) + 1
    csizes = tuple(sizes_c)
    domain = mbi_domain(mbi, csizes)
    log1 = [by_value(m.compress(mapping, full_domain)) if m.clique[0] in mapping else m for m, _ in ones]
    return mapping, ccodes, csizes, domain, log1


def _weights(log1: list, total: float, ccodes: np.ndarray, csizes, p: int) -> dict[tuple[int, int], float]:
    """MST's selection score of every attribute pair: the l1 distance between the data's 2-way marginal
    and the 1-way model's (Private-PGM's estimate from the 1-way measurements, solved exactly:
    common.independent_estimate, a product of per-attribute simplex projections)."""
    ones = independent_estimate(log1, total)
    weight = {}
    for i, j in itertools.combinations(range(p), 2):
        x = counts(ccodes, csizes, (i, j))
        xhat = np.outer(ones[i], ones[j]).ravel() / total
        weight[(i, j)] = float(np.abs(x - xhat).sum())
    return weight


def _free_pairs(domain: Any, weight: dict[tuple[int, int], float], plan: Any,
                max_size_mb: float = FREE_MODEL_MB, base: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Step 3a (bf-mst, issue 25): the exact 2-way marginals (sensitivity 0 under the plan) not in
    ``base`` (the cliques already chosen: the tree, when the pairs go on top of it), highest score first,
    each kept while the model's junction tree (``base`` and the kept pairs) stays within ``max_size_mb``
    (AIM's JT-SIZE filter, mbi's hypothetical_model_size).  Their scores have sensitivity 0, so ranking
    them is free (PRIVACY.md §10, Lemma 10.3); none under a standard-DP plan (MST)."""
    have = set(base)
    exact = [e for e in weight if e not in have and plan.marginal(e).exact]
    if not exact:
        return []
    from mbi.junction_tree import hypothetical_model_size

    kept: list[tuple[int, int]] = []
    for e in sorted(exact, key=lambda e: (-weight[e], e)):
        if hypothetical_model_size(domain, [mbi_clique(c) for c in list(base) + kept + [e]]) <= max_size_mb:
            kept.append(e)
    return kept


def _select_tree(weight: dict[tuple[int, int], float], names, rho: float, draws: Any, plan: Any,
                 ledger: list[LedgerRow], free: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Step 3: a spanning tree by the exponential mechanism, rho/3 over its picks (one ledger row each):
    p-1 picks, or, after the free exact pairs ``free`` joined some attributes, one per remaining join.
    Each pick's score sensitivity is ``plan.selection(candidates)``: the maximum over its candidates."""
    p = len(names)
    pairs = list(itertools.combinations(range(p), 2))
    import networkx as nx

    comps = nx.utils.UnionFind(range(p))
    for e in free:
        comps.union(*e)
    picks = len({comps[i] for i in range(p)}) - 1
    if picks == 0:
        return []
    rho_sel = rho / 3.0 / picks
    epsilon = math.sqrt(8.0 * rho_sel)
    tree: list[tuple[int, int]] = []
    for _ in range(picks):
        cand = [e for e in pairs if comps[e[0]] != comps[e[1]]]
        sel = plan.selection(cand)
        k = draws.select(np.array([weight[e] for e in cand]), epsilon, sel.sensitivity)
        e = cand[k]
        tree.append(e)
        comps.union(*e)
        ledger.append(LedgerRow(len(ledger), "select", "exponential", (names[e[0]], names[e[1]]),
                                sel.sensitivity, epsilon, epsilon ** 2 / 8.0, candidates=len(cand), how=sel.how))
    return tree


def _generator(model: Any, mapping: dict, cells: PublicCells, sampling: str):
    """``generate(n_rows, g)``: (n_rows, p) encoded records from the model (post-processing)."""

    def generate(n_rows: int, g: np.random.Generator) -> np.ndarray:
        """(n_rows, p) encoded records from the model (post-processing), randomness from g."""
        with seeded_global_numpy(int(g.integers(2 ** 32))), jax_scope():
            synth = model.synthetic_data(rows=int(n_rows), method=sampling)
            if mapping:
                synth = synth.decompress(mapping)
        out_cells = np.column_stack([np.asarray(synth.data[i], dtype=np.int64) for i in range(len(cells.sizes))])
        return cells.decode(out_cells, g)

    return generate


@in_jax_scope
def fit_mst(schema: Schema, data: Any, rho: float, seed: int | None = 0, rows: int | None = DEFAULT_ROWS,
            bins: int = NUMERIC_BINS, neighbours: str = "replace-one", compress: bool = True,
            iters: int = DEFAULT_ITERS, sampling: str = "round", streams: Any = None) -> BaselineResult:
    """MST release at zCDP budget ``rho`` (standard DP; no policy).  Steps: module docstring.

    Parameters
    ----------
    schema : Schema
        The public schema (domain and bins come from it alone).
    data : pandas.DataFrame or (n, p) array_like
        Private table, a DataFrame in the schema's columns or an encoded (n, p) matrix.
    rho : float
        Total zCDP budget (> 0), split rho/3 (1-ways), rho/3 (selection), rho/3 (2-ways).
    seed : int or None, default 0
        int, a study run (numpy noise): the same seed and inputs give the same
        release; None: a release (OS entropy, OpenDP noise; the same as
        ``streams=OsEntropyStreams()``).
    rows : int or None, default 512
        Release size; None -> the (estimated) record count.
    bins : int, default NUMERIC_BINS
        Equal-width bins per numeric attribute over its public domain (as PWErr).
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        "replace-one" (default) or "add-remove" (the paper's).
    compress : bool, default True
        Merge rare cells after step 1 ([MST] "compress domain").
    iters : int, default DEFAULT_ITERS
        Cap on the mirror-descent iterations per estimate; each stops earlier by
        the convergence test of :func:`.common.estimate` (the iterations run are
        in ``info["iters_run"]``).
    sampling : {"round", "sample"}, default "round"
        "round" (mbi's randomized rounding of the model's marginals, as the
        published MST) or "sample" (i.i.d. records from the model).
    streams : callable, optional
        The run's streams (evolution.SeededStreams / OsEntropyStreams); overrides
        ``seed``.  Release streams (seeded False, sampler 'opendp';
        common.is_release): every Gaussian measurement is OpenDP's Gaussian at the
        ledger's sigma, every selection OpenDP's Gumbel noisy max (the exponential
        mechanism), every other draw from streams(7, 0); the result's
        ``noise_sampler`` is 'opendp' (DESIGN §7, issue 21).

    Returns
    -------
    BaselineResult
        Unpacks as (release DataFrame, ledger rows, seconds); the ledger's rho sums
        to ``rho``.

    Raises
    ------
    BudgetError
        For a bad rho or neighbours.
    SchemaError
        For data outside the public domain, or fewer than 2 attributes.
    MissingDependencyError
        If mbi/jax are not installed.
    BlowfishError
        For a seed that is not a whole number.
    """
    rho = check_rho(rho)
    sens, score_sens = sensitivities(neighbours)  # BudgetError for a bad notion, before any work
    return fit_tree(schema, data, rho, lambda cells: StandardPlan(tuple(cells.names), neighbours),
                    TreeFit("MST", "mst", 0x4D5354, seed, rows, bins, compress, iters, sampling, streams),
                    {"neighbours": neighbours})


@dataclass(frozen=True)
class StandardPlan:
    """MST's sensitivities under a standard-DP notion: the same for every marginal and every
    selection (common.sensitivities: replace-one sqrt 2 and 2, add-remove 1 and 1)."""

    names: tuple[str, ...]
    neighbours: str

    @property
    def public_total(self) -> bool:
        """True when neighbouring tables have the same record count (replace-one: n is public)."""
        return self.neighbours == "replace-one"

    def marginal(self, clique: tuple[int, ...]) -> MarginalSensitivity:
        """The marginal's l2 sensitivity (and l1 score sensitivity); ``how`` '' (the global value)."""
        sens, score = sensitivities(self.neighbours)
        return MarginalSensitivity(tuple(self.names[c] for c in clique), sens, score, "")

    def selection(self, candidates: list[tuple[int, ...]]) -> SelectionSensitivity:
        """The selection score's sensitivity (the same for every candidate)."""
        return SelectionSensitivity(sensitivities(self.neighbours)[1], ())

    def weighted_selection(self, candidates: list[tuple[int, ...]], weights: list[float]) -> SelectionSensitivity:
        """AIM's quality-score sensitivity: the score sensitivity times the largest weight w_r."""
        return SelectionSensitivity(sensitivities(self.neighbours)[1] * max(weights), ())


@dataclass(frozen=True)
class TreeFit:
    """The settings of one fit of MST's pipeline (:func:`fit_tree`): the method's label, key and stream
    tag, and fit_mst's keyword arguments (seed, rows, bins, compress, iters, sampling, streams)."""

    label: str
    key: str
    tag: int
    seed: Any
    rows: int | None
    bins: int
    compress: bool
    iters: int
    sampling: str
    streams: Any
    #: False (default): MST's full spanning tree first (p-1 picks), then the exact pairs on top (3 then 3a);
    #: True: the exact pairs first, the tree only joins what they leave (3a then 3; docs/DECISIONS.md 2026-12-03).
    free_first: bool = False


def fit_tree(schema: Schema, data: Any, rho: float, plan_of: Any, fit: TreeFit,
             extra_info: dict[str, Any]) -> BaselineResult:
    """MST's pipeline (module docstring, steps 1-5) with the marginals' sensitivities from a plan.

    ``plan_of(cells)`` gives the plan: ``marginal(clique)`` (a MarginalSensitivity; sensitivity 0:
    measured exactly, no noise, no budget), ``selection(candidates)`` (a SelectionSensitivity: the
    maximum over the candidates) and ``public_total``.  Each step's third of ``rho`` is split evenly
    over its noisy measurements (fit_mst: all of them; fit_bf_mst: those the policy protects).

    Parameters
    ----------
    schema : Schema
        The public schema.
    data : pandas.DataFrame or (n, p) array_like
        The private table.
    rho : float
        Total zCDP budget (checked by the caller).
    plan_of : callable
        PublicCells -> the plan (above).
    fit : TreeFit
        The method's label, key, stream tag and fit options.
    extra_info : dict
        Added to the result's ``info``.

    Returns
    -------
    BaselineResult
        As fit_mst.

    Raises
    ------
    SchemaError, MissingDependencyError, BlowfishError
        As fit_mst.
    """
    t0 = time.perf_counter()
    c0 = time.process_time()
    check_fit_args(fit.label, schema, fit.rows, fit.sampling, " (it measures 2-way marginals)")
    mbi = require_mbi(fit.label)
    X = encoded_table(schema, data)
    cells = PublicCells.from_schema(schema, fit.bins)
    plan = plan_of(cells)
    names = schema.names
    p = schema.p
    codes = cells.encode(X)
    sizes = cells.sizes
    draws = fit_randomness(fit.seed, fit.streams, fit.tag)
    rng = draws.rng  # public draws (and, seeded, the noise: the order the study fit always drew in)
    ledger: list[LedgerRow] = []
    meas = Measurer(mbi, names, draws, ledger, exact_stddev(rho))

    # Step 1 ([MST] "measure 1-way marginals"): every 1-way marginal, rho/3 split over the noisy ones.
    ones = meas.measure_step(codes, sizes, [(i,) for i in range(p)], rho / 3.0, "measure-1way", plan)
    total = _total(X, ones, sizes, plan.public_total)

    # Step 2 ([MST] "compress domain"): compress rare cells (post-processing of step 1).
    sigmas = [r.scale for r in ledger[:p]]  # the 1-way measurements' noise (0: exact)
    mapping, ccodes, csizes, domain, log1 = _compress(mbi, sizes, codes, ones, sigmas, fit.compress,
                                                      getattr(plan, "soft_columns", ()))

    # Step 3 ([MST] "select"): MST's spanning tree by the exponential mechanism, p-1 picks, rho/3 over
    # them; under a policy (bf-mst) every exact 2-way marginal that still fits the model goes on top, for
    # free (3a).  free_first (the issue-25 order) takes the exact pairs before the tree instead.
    weight = _weights(log1, total, ccodes, csizes, p)
    if fit.free_first:
        free = _free_pairs(domain, weight, plan)
        tree = _select_tree(weight, names, rho, draws, plan, ledger, free)
    else:
        tree = _select_tree(weight, names, rho, draws, plan, ledger)
        free = _free_pairs(domain, weight, plan, base=tree)

    # Step 4 ([MST] "measure"): the selected 2-way marginals, rho/3 split over the noisy ones (the free
    # exact pairs: no noise, no budget).
    log2 = [m for m, _ in meas.measure_step(ccodes, csizes, list(free) + tree, rho / 3.0, "measure-2way", plan)]

    # Step 5 ([PGM]; [MST] "generate", undoing the compression): estimate, sample, decode.
    est = estimate(mbi, domain, log1 + log2, total, fit.iters)
    n_out = int(fit.rows) if fit.rows is not None else max(1, round(total))
    generate = _generator(est.model, mapping, cells, fit.sampling)
    Xr = generate(n_out, rng)
    release = schema.decode(Xr)
    seconds = time.perf_counter() - t0
    cliques = named_cliques(names, [m.clique for m in log1 + log2])
    info = {"tree": [[names[i], names[j]] for i, j in tree], "free_pairs": [[names[i], names[j]] for i, j in free], "cells": dict(zip(names, sizes)),
            "compressed_cells": dict(zip(names, csizes)), **extra_info, "bins": cells.bins,
            "total": total, "iters": int(fit.iters), "iters_run": est.iters_run, "sampling": fit.sampling,
            "rows": n_out, "cpu_seconds": time.process_time() - c0}
    return BaselineResult(release, Xr, tuple(ledger), seconds, rho, fit.key, cliques, info, sampler=generate,
                          noise_sampler=draws.noise_sampler)


#: an exact measurement's stddev for mbi's estimator, as a fraction of the smallest noise stddev any
#: noisy measurement of the fit can have (one holding a whole third of rho at sensitivity sqrt 2),
#: and never below EXACT_STDDEV_FLOOR counts.  mbi weighs each measurement by 1/stddev and needs a
#: positive one; no noise is drawn for it.  Too small is worse: mirror descent is ill-conditioned and
#: stops at the iteration cap (bf-mst on Adult, age theta 7, rho 1e-3, seeds 0-1, PWErr: ratio 1
#: 0.241, 0.3 0.226, 0.1 0.236, 0.03 0.319, 0.01 0.388); at large budgets the ratio alone gives a
#: stddev under 2 counts and the same trouble (Adult, 3 seeds, ratio 0.1: rho 1e-2 0.236, rho 1
#: 0.237; with the floor 0.211 and 0.193; Bank rho 1: 0.115 -> 0.080; docs/DECISIONS.md 2026-12-02).
EXACT_STDDEV_RATIO = 0.1
#: the smallest exact-measurement stddev, count units (an estimator weight; sweep above).
EXACT_STDDEV_FLOOR = 5.0


def exact_stddev(rho: float) -> float:
    """mbi's stddev for an exact (noise-free) measurement: an estimator weight, not noise.

    Parameters
    ----------
    rho : float
        The fit's total zCDP budget (> 0).

    Returns
    -------
    float
        max(EXACT_STDDEV_RATIO x sqrt 2 / sqrt(2 rho / 3), EXACT_STDDEV_FLOOR), count units (> 0);
        a function of rho alone (public).
    """
    return max(EXACT_STDDEV_RATIO * gaussian_sigma(math.sqrt(2.0), rho / 3.0), EXACT_STDDEV_FLOOR)
