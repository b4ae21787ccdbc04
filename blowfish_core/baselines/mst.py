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
from typing import Any

import numpy as np

from ..privacy.accounting import check_rho, gaussian_sigma
from ..model.metrics import NUMERIC_BINS
from ..model.schema import Schema
from ._mbi import in_jax_scope, jax_scope, mbi_clique, mbi_domain, named_cliques, require_mbi
from .cells import PublicCells
from .common import (
    FitRandomness,
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
from .ledger import BaselineResult, LedgerRow

#: Tab-PE's release size (paper §6.1, App. F.2); the baselines release as many by default.
DEFAULT_ROWS = 512
#: cap on the mirror-descent iterations of an estimate (mbi's fixed default was 1000); each estimate
#: stops earlier by the convergence test of common.estimate (relative loss decrease per 50-iteration
#: block <= common.TOL for common.PATIENCE blocks; about 2,200 iterations on Adult at rho = 1e-2).
DEFAULT_ITERS = 3000
#: cells whose noisy 1-way count is below this many sigmas are merged ([MST] "compress domain").
COMPRESS_SIGMAS = 3.0


class _Measurer:
    """Gaussian measurements of marginals with typed ledger rows (noise: FitRandomness.gaussian)."""

    def __init__(self, mbi, names, sens, draws: FitRandomness, ledger):
        self.mbi, self.names, self.sens, self.draws, self.ledger = mbi, names, sens, draws, ledger

    def measure(self, codes, sizes, cols, rho_i, step):
        sigma = gaussian_sigma(self.sens, rho_i)
        x = counts(codes, sizes, cols)
        y = self.draws.gaussian(x, sigma)
        clique = tuple(self.names[c] for c in cols)
        self.ledger.append(LedgerRow(len(self.ledger), step, "gaussian", clique, self.sens, sigma,
                                     self.sens ** 2 / (2.0 * sigma ** 2), candidates=int(x.size)))
        return self.mbi.LinearMeasurement(y, mbi_clique(cols), stddev=sigma), y


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


def _total(X: np.ndarray, ones: list, sigma1: float, sizes, neighbours: str) -> float:
    """The record count: public n (replace-one), else the inverse-variance average of the noisy
    1-way totals (post-processing)."""
    p = len(sizes)
    if neighbours == "replace-one":
        return float(X.shape[0])  # bounded DP: n is public
    est = [float(y.sum()) for _, y in ones]
    var = [sigma1 ** 2 * sizes[i] for i in range(p)]
    return max(1.0, float(np.average(est, weights=1.0 / np.asarray(var))))


def _compress(mbi: Any, sizes, codes: np.ndarray, ones: list, sigma1: float, compress: bool):
    """Step 2: merge rare cells of the noisy 1-way marginals (post-processing). Returns (mapping,
    compressed codes, compressed sizes, the compressed mbi Domain, the compressed 1-way measurements);
    mbi's attributes and the mapping's keys are the column indices (common.mbi_domain)."""
    full_domain = mbi_domain(mbi, sizes)
    mapping: dict[int, np.ndarray] = {}
    if compress:
        for i, (_, y) in enumerate(ones):
            m = compress_mapping(y, sigma1)
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


def _select_tree(mbi: Any, domain: Any, log1: list, total: float, iters: int, ccodes: np.ndarray, csizes, names,
                 rho: float, draws: Any, score_sens: float, ledger: list[LedgerRow]) -> list[tuple[int, int]]:
    """Step 3: a spanning tree by the exponential mechanism, rho/3 over p-1 picks (one ledger row each).
    The 1-way model is Private-PGM's estimate from the 1-way measurements, solved exactly
    (common.independent_estimate: a product of per-attribute simplex projections)."""
    p = len(names)
    ones = independent_estimate(log1, total)
    pairs = list(itertools.combinations(range(p), 2))
    weight = {}
    for i, j in pairs:
        x = counts(ccodes, csizes, (i, j))
        xhat = np.outer(ones[i], ones[j]).ravel() / total
        weight[(i, j)] = float(np.abs(x - xhat).sum())
    import networkx as nx

    comps = nx.utils.UnionFind(range(p))
    rho_sel = rho / 3.0 / (p - 1)
    epsilon = math.sqrt(8.0 * rho_sel)
    tree: list[tuple[int, int]] = []
    for _ in range(p - 1):
        cand = [e for e in pairs if comps[e[0]] != comps[e[1]]]
        k = draws.select(np.array([weight[e] for e in cand]), epsilon, score_sens)
        e = cand[k]
        tree.append(e)
        comps.union(*e)
        ledger.append(LedgerRow(len(ledger), "select", "exponential", (names[e[0]], names[e[1]]),
                                score_sens, epsilon, epsilon ** 2 / 8.0, candidates=len(cand)))
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
    t0 = time.perf_counter()
    c0 = time.process_time()
    rho = check_rho(rho)
    sens, score_sens = sensitivities(neighbours)
    check_fit_args("MST", schema, rows, sampling, " (it measures 2-way marginals)")
    mbi = require_mbi("MST")
    X = encoded_table(schema, data)
    cells = PublicCells.from_schema(schema, bins)
    names = schema.names
    p = schema.p
    codes = cells.encode(X)
    sizes = cells.sizes
    draws = fit_randomness(seed, streams, 0x4D5354)  # "MST"
    rng = draws.rng  # public draws (and, seeded, the noise: the order the study fit always drew in)
    ledger: list[LedgerRow] = []
    meas = _Measurer(mbi, names, sens, draws, ledger)

    # Step 1 ([MST] "measure 1-way marginals"): every 1-way marginal, rho/3 split evenly.
    ones = [meas.measure(codes, sizes, (i,), rho / 3.0 / p, "measure-1way") for i in range(p)]
    sigma1 = ledger[0].scale
    total = _total(X, ones, sigma1, sizes, neighbours)

    # Step 2 ([MST] "compress domain"): compress rare cells (post-processing of step 1).
    mapping, ccodes, csizes, domain, log1 = _compress(mbi, sizes, codes, ones, sigma1, compress)

    # Step 3 ([MST] "select"): spanning tree by the exponential mechanism, rho/3 over p-1 picks.
    tree = _select_tree(mbi, domain, log1, total, iters, ccodes, csizes, names, rho, draws, score_sens, ledger)

    # Step 4 ([MST] "measure"): the selected 2-way marginals, rho/3 split evenly.
    log2 = [meas.measure(ccodes, csizes, e, rho / 3.0 / (p - 1), "measure-2way")[0] for e in tree]

    # Step 5 ([PGM]; [MST] "generate", undoing the compression): estimate, sample, decode.
    est = estimate(mbi, domain, log1 + log2, total, iters)
    model = est.model
    n_out = int(rows) if rows is not None else max(1, round(total))

    generate = _generator(model, mapping, cells, sampling)
    Xr = generate(n_out, rng)
    release = schema.decode(Xr)
    seconds = time.perf_counter() - t0
    cliques = named_cliques(names, [m.clique for m in log1 + log2])
    info = {"tree": [[names[i], names[j]] for i, j in tree], "cells": dict(zip(names, sizes)),
            "compressed_cells": dict(zip(names, csizes)), "neighbours": neighbours, "bins": cells.bins,
            "total": total, "iters": int(iters),
            "iters_run": est.iters_run, "sampling": sampling, "rows": n_out,
            "cpu_seconds": time.process_time() - c0}
    return BaselineResult(release, Xr, tuple(ledger), seconds, rho, "mst", cliques, info, sampler=generate,
                          noise_sampler=draws.noise_sampler)
