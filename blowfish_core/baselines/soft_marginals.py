"""Soft marginals: the paper's soft vote on the public cells of a marginal, and its Blowfish sensitivity.

Notes: ../shared/design/blowfish-marginals.md ("Soft marginals"); issue 25; paper
../shared/papers/000 (BF-Soft, Lemma 5.4 / Cor. 5.5: ||v(x) - v(y)||_2 <= sqrt 2 tanh(d(x, y) / (2 tau))).
The proof is docs/PRIVACY.md §10 ("Soft marginals").

For a clique S (attributes, column indices) with cells x (products of the attributes' public cells,
:mod:`.cells`) and the count vector h_S, the soft marginal is y_S = K_S h_S with the public kernel

    K_S[c, x] = softmax_c(-d_S(x, c) / tau),   c, x over S's cells (c: the cell centres),

each column K_S[:, x] the soft vote of a record in cell x on the cell centres.  Choices (docs/DECISIONS.md):

* **centres**: a level's own code (levels), a numeric bin's midpoint (encoded units), public;
* **d_S** is the Gower distance restricted to the attributes of S *that a policy edge moves across
  cells* (the smoothed attributes), with the schema's Gower weights **not renormalised** over S:
  d_S(x, c) = sum_{i smoothed} w_i d_i(x_i, c_i), so tau is in BF-Soft's Gower units and r_S is the
  same in every clique holding the attribute.  The other attributes of S keep their cells apart
  (the identity: tau -> 0 on them); smoothing them lowers no sensitivity bound and only costs
  conditioning.  ``smooth="all"`` smooths every attribute of S (the brief's literal kernel; the bound
  and the tests cover both);
* the kernel factorises: softmax over a sum of per-attribute scores is the product of per-attribute
  softmaxes, so K_S = kron_{i in S} K_i (K_i the identity for a kept attribute), in the C order of
  S's cells (:func:`.common.counts`).  K_S is never formed in a fit: it is applied axis by axis.

Sensitivity (Blowfish neighbours: one record's value on ONE attribute a moves along a's policy edge
u -> u', cells x -> x'; participation edges add or remove a record):

* r_a = max over a's edges (x -> x', x != x') of max_c w_a |d_a(x_a, c_a) - d_a(x'_a, c_a)| over the
  public centres c: computed here (:func:`attribute_shift`).  It equals w_a d_a(x, x') for the
  largest-moving edge (triangle inequality, attained at c = x), and binning can make it larger than
  the attribute's reach (a 7-year edge can join bin centres more than 7 years apart);
* r_S = max_{a in S} r_a (an edge changes one attribute), and y_S changes by K_S[:, x'] - K_S[:, x],
  whose l2 norm is at most sqrt 2 tanh(r_S / (2 tau)) (Cor. 5.5 on the columns, PRIVACY §10);
* with participation edges y_S changes by K_S[:, x] (a probability vector, l2 <= 1): its exact
  largest l2 norm, prod_i max_x ||K_i[:, x]||_2, is computed here; the sensitivity is the max of both;
* a clique no policy edge moves (r_S = 0) keeps bf-mst's exact (or participation-floor) hard
  marginal (:class:`.blowfish_sensitivity.PolicyMarginals`).

The estimator fits h_S, not its smoothed version: the measurement goes to mbi as
``LinearMeasurement(y, clique, stddev, query=KernelQuery(...))`` (query: the factor -> K_S f), so the
estimate is de-biased by construction (:meth:`SoftKernel.query`).  Checked exhaustively in
tests/baselines/test_soft_marginals.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model.policy import Policy, attribute_reach, value_edges
from ..model.votes import check_tau
from .blowfish_sensitivity import HOW_SOFT, MarginalSensitivity, PolicyMarginals, SelectionSensitivity
from .cells import PublicCells

SQRT2 = math.sqrt(2.0)
#: the kernel variants: smooth only the attributes a policy edge moves across cells, or all of S's.
SMOOTH = ("protected", "all")


def cell_centres(cells: PublicCells, i: int) -> np.ndarray:
    """The public centres of attribute i's cells, encoded coordinates (the schema's encoding).

    Parameters
    ----------
    cells : PublicCells
        The public cells.
    i : int
        The attribute's column index.

    Returns
    -------
    (L_i,) float64 ndarray
        A numeric bin's midpoint (b + 0.5) / bins for each used bin b, in cell order; a level's code.
    """
    a = cells.schema.attributes[i]
    if a.bounded:
        remap = cells.remap[i]
        used = np.arange(cells.bins) if remap is None else np.flatnonzero(remap >= 0)
        return (used + 0.5) / cells.bins
    return np.asarray(a.domain_codes(), dtype=float)


def attribute_distances(cells: PublicCells, i: int) -> np.ndarray:
    """D[x, c] = w_i d_i(centre_x, centre_c): attribute i's weighted Gower term between cell centres.

    Parameters
    ----------
    cells : PublicCells
        The public cells.
    i : int
        The attribute's column index.

    Returns
    -------
    (L_i, L_i) float64 ndarray
        Gower units (schema weights, not renormalised).
    """
    a = cells.schema.attributes[i]
    z = cell_centres(cells, i)
    return float(cells.schema.weights[i]) * np.asarray(a.term(z[:, None], z[None, :]), dtype=float)


def cell_edges(cells: PublicCells, policy: Policy, i: int) -> np.ndarray:
    """The distinct cell moves (x, x'), x != x', that one of attribute i's policy edges makes.

    Finite domains: every value edge u - u' (both directions) mapped to its two cells.  A continuous
    numeric attribute with threshold reach r (encoded units) and b bins: values u < u' with
    u' - u <= r lie in bins j apart for every j with (j - 1) / b < r, so every pair of bins at most
    J = ceil(r b) apart (J <= b - 1) is a move.

    Parameters
    ----------
    cells : PublicCells
        The public cells.
    policy : Policy
        The policy (attribute i's value graph).
    i : int
        The attribute's column index.

    Returns
    -------
    (E, 2) int64 ndarray
        Directed moves (both directions of each), no duplicates; empty when no edge crosses a cell.
    """
    a = cells.schema.attributes[i]
    ap = policy.policy_for(a.name)
    L = cells.sizes[i]
    r = attribute_reach(a, ap)
    if r == 0 or L < 2:
        return np.zeros((0, 2), dtype=np.int64)
    ve = value_edges(a, ap)
    if ve is None:
        t = r * cells.bins
        J = min(int(round(t)) if abs(t - round(t)) <= 1e-9 * max(t, 1.0) else math.ceil(t), L - 1)
        b = np.arange(L)
        pairs = [(x, x + j) for j in range(1, J + 1) for x in b[: L - j]]
        e = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    else:
        X = np.zeros((ve.size, cells.schema.p))
        X[:, i] = ve.codes
        cell = cells.encode(X)[:, i]
        e = np.column_stack([cell[ve.e0], cell[ve.e1]]).astype(np.int64)
        e = e[e[:, 0] != e[:, 1]]
    e = np.unique(np.vstack([e, e[:, ::-1]]), axis=0)
    return e


def attribute_shift(cells: PublicCells, policy: Policy, i: int) -> tuple[float, tuple[int, int] | None]:
    """r_i = max over attribute i's cell moves (x -> x') of max_c |D[x, c] - D[x', c]| (Gower units).

    D: :func:`attribute_distances` (weighted).  Computed over the public centres, never from records.

    Parameters
    ----------
    cells : PublicCells
        The public cells.
    policy : Policy
        The policy (attribute i's value graph).
    i : int
        The attribute's column index.

    Returns
    -------
    (float, (int, int) or None)
        r_i (0 when no edge crosses a cell) and a move (x, x') attaining it (cells), or None.
    """
    e = cell_edges(cells, policy, i)
    if e.size == 0:
        return 0.0, None
    D = attribute_distances(cells, i)
    shift = np.abs(D[e[:, 0]] - D[e[:, 1]]).max(axis=1)
    k = int(np.argmax(shift))
    return float(shift[k]), (int(e[k, 0]), int(e[k, 1]))


def attribute_kernel(D: np.ndarray, tau: float) -> np.ndarray:
    """K[c, x] = softmax_c(-D[x, c] / tau): each column the soft vote of cell x on the centres.

    Parameters
    ----------
    D : (L, L) float64 ndarray
        D[x, c], Gower units.
    tau : float
        Temperature (> 0), Gower units.

    Returns
    -------
    (L, L) float64 ndarray
        Column-stochastic (every column sums to 1).
    """
    from scipy.special import softmax

    return np.ascontiguousarray(softmax(-np.asarray(D, dtype=float) / tau, axis=1).T)


def soft_bound(r: float, tau: float) -> float:
    """The soft marginal's l2 sensitivity bound sqrt 2 tanh(r / (2 tau)) (Cor. 5.5 on K_S's columns).

    Parameters
    ----------
    r : float
        r_S, Gower units (>= 0).
    tau : float
        Temperature (> 0), Gower units.

    Returns
    -------
    float
        The bound, count units, in [0, sqrt 2).
    """
    return SQRT2 * math.tanh(r / (2.0 * tau))


@dataclass(frozen=True, eq=False)
class SoftKernel:
    """K_S = kron of per-attribute kernels over a clique's cells (C order of the clique).

    kernels: per clique attribute, its (L_i, L_i) column-stochastic kernel, or None (identity, of
    whatever size the attribute's cells have: a kept attribute may be compressed).
    """

    kernels: tuple[np.ndarray | None, ...]

    def _check(self, sizes: tuple[int, ...]) -> None:
        if len(sizes) != len(self.kernels) or any(K is not None and K.shape != (L, L)
                                                  for K, L in zip(self.kernels, sizes)):
            raise ValueError(f"the soft kernel's attributes have {[None if K is None else K.shape[0] for K in self.kernels]}"
                             f" cells, the marginal {list(sizes)}: a smoothed attribute must keep its public cells "
                             "(bf-soft-mst does not compress it)")

    def matrix(self, sizes: tuple[int, ...]) -> np.ndarray:
        """The dense (N, N) K_S over cells ``sizes`` (N = prod sizes; small cliques and tests only)."""
        self._check(tuple(sizes))
        out = np.ones((1, 1))
        for K, L in zip(self.kernels, sizes):
            out = np.kron(out, np.eye(L) if K is None else K)
        return out

    def apply(self, h: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
        """K_S h for a flat (N,) count vector h in the C order of cells ``sizes``, without forming
        K_S: (N,) float64 (ValueError when a smoothed attribute's cells differ from its kernel)."""
        self._check(tuple(sizes))
        v = np.asarray(h, dtype=float).reshape(tuple(sizes))
        for k, K in enumerate(self.kernels):
            if K is not None:
                v = np.moveaxis(np.tensordot(K, v, axes=([1], [k])), 0, k)
        return v.ravel()

    @property
    def column_norm(self) -> float:
        """max_x ||K_S[:, x]||_2 = prod_i max_x ||K_i[:, x]||_2 (exact; a kron column is a product)."""
        return math.prod(1.0 if K is None else float(np.linalg.norm(K, axis=0).max()) for K in self.kernels)

    def query(self, clique: tuple[int, ...]) -> KernelQuery:
        """mbi's query for this kernel on ``clique`` (mbi attribute names, the clique's order)."""
        return KernelQuery(tuple(clique), tuple(None if K is None else tuple(map(tuple, K)) for K in self.kernels))


@dataclass(frozen=True)
class KernelQuery:
    """mbi 2.x query f -> K_S f.datavector() (jax-traceable), compared by value (jit cache reuse).

    clique: the factor's attributes in the measurement's order; mats: per attribute its kernel as
    nested tuples, or None (identity).
    """

    clique: tuple[Any, ...]
    mats: tuple[tuple[tuple[float, ...], ...] | None, ...]
    #: K_S h sums to sum h (column-stochastic), but mbi's total estimate reads identity queries only.
    use_for_total_estimation: bool = field(default=False, compare=False)

    def __call__(self, f: Any) -> Any:
        """K_S applied to factor ``f`` over the clique: a flat jax array in the clique's C order."""
        import jax.numpy as jnp

        if tuple(f.domain.attributes) != self.clique:
            f = f.transpose(self.clique)
        v = f.values
        for k, M in enumerate(self.mats):
            if M is not None:
                v = jnp.moveaxis(jnp.tensordot(jnp.asarray(M), v, axes=([1], [k])), 0, k)
        return v.flatten()

    def op_norm_sq(self) -> float:
        """||K_S||_2^2 = prod_i ||K_i||_2^2 (mbi's Lipschitz bound reads it)."""
        return math.prod(1.0 if M is None else float(np.linalg.norm(np.asarray(M), 2)) ** 2 for M in self.mats)

    def simplex_fit(self, z: np.ndarray, total: float) -> np.ndarray:
        """Private-PGM's 1-way estimate for this measurement: argmin ||K x - z||_2 over x >= 0,
        sum x = total (scipy's bounded least squares, the sum as a heavily weighted row; then
        scaled to ``total``).  Post-processing of the noisy measurement z.  (L,) float64."""
        from scipy.optimize import lsq_linear

        if len(self.mats) != 1 or self.mats[0] is None:
            raise ValueError("simplex_fit is for a smoothed 1-way measurement")
        K = np.asarray(self.mats[0], dtype=float)
        big = 1e3 * max(1.0, float(np.linalg.norm(K, 2)))
        A = np.vstack([K, big * np.ones((1, K.shape[1]))])
        b = np.concatenate([np.asarray(z, dtype=float).ravel(), [big * total]])
        x = np.maximum(lsq_linear(A, b, bounds=(0.0, np.inf), method="bvls").x, 0.0)
        s = x.sum()
        return x * (total / s) if s > 0 else np.full(K.shape[1], total / K.shape[1])


@dataclass(frozen=True)
class SoftMarginalSensitivity(MarginalSensitivity):
    """A soft marginal's sensitivity (``how`` HOW_SOFT) with its kernel.

    kernel: K_S (:class:`SoftKernel`); reach: r_S (Gower units); tau: the temperature; bound:
    sqrt 2 tanh(r_S / (2 tau)); column_norm: max_x ||K_S[:, x]||_2 (counts only with participation).
    ``sensitivity`` is the bound, or max(bound, column_norm) with participation edges; ``score``
    stays the hard score's (the selection scores the hard marginal, PRIVACY §10).
    """

    kernel: SoftKernel | None = field(default=None, compare=False)
    reach: float = 0.0
    tau: float = 0.0
    bound: float = 0.0
    column_norm: float = 0.0


@dataclass(frozen=True)
class SoftPolicyMarginals:
    """Per-marginal sensitivities of bf-soft-mst: soft where a policy edge moves a cell, else bf-mst's.

    hard: the hard plan (exact / sqrt 2 / floor; the selection's scores); tau: temperature (Gower
    units, fixed); shifts: per attribute (r_i, the move attaining it); kernels: per attribute its
    kernel K_i, or None (kept: identity).
    """

    hard: PolicyMarginals
    tau: float
    shifts: tuple[tuple[float, tuple[int, int] | None], ...]
    kernels: tuple[np.ndarray | None, ...]
    cell_labels: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, cells: PublicCells, policy: Policy, tau: float, smooth: str = "protected") -> SoftPolicyMarginals:
        """The plan from the public cells, the policy and tau alone.

        Raises BudgetError for a bad tau, ValueError for an unknown ``smooth``, PolicyError when the
        policy does not fit the schema.
        """
        tau = cls.check_tau(tau)
        if smooth not in SMOOTH:
            raise ValueError(f"smooth must be one of {SMOOTH} (got {smooth!r})")
        hard = PolicyMarginals.of(cells, policy)
        p = cells.schema.p
        shifts = tuple(attribute_shift(cells, policy, i) for i in range(p))
        kern = tuple(attribute_kernel(attribute_distances(cells, i), tau)
                     if (smooth == "all" or shifts[i][0] > 0) else None for i in range(p))
        return cls(hard, tau, shifts, kern, tuple(_labels(cells, i) for i in range(p)))

    @staticmethod
    def check_tau(tau: Any) -> float:
        """tau as a float; BudgetError naming tau when it is missing or not a finite number > 0
        (votes.check_tau: the same message as every tau method's)."""
        return check_tau(tau)

    @property
    def names(self) -> tuple[str, ...]:
        """The attribute names, schema order."""
        return self.hard.names

    @property
    def public_total(self) -> bool:
        """True without participation edges (the record count n is public)."""
        return self.hard.public_total

    @property
    def crossing(self) -> tuple[str, ...]:
        """The attributes some policy edge moves to another cell (their marginals are soft)."""
        return tuple(n for n, (r, _) in zip(self.names, self.shifts) if r > 0)

    @property
    def soft_columns(self) -> tuple[int, ...]:
        """Column indices of the moved attributes: their 1-ways are soft, so MST's compression
        (which reads noisy counts) leaves them uncompressed."""
        return tuple(i for i, (r, _) in enumerate(self.shifts) if r > 0)

    def marginal(self, clique: tuple[int, ...]) -> MarginalSensitivity:
        """The measured marginal of ``clique`` and its sensitivity: a SoftMarginalSensitivity when an
        attribute of the clique is moved by a policy edge, else bf-mst's hard one."""
        hard = self.hard.marginal(clique)
        moved = [c for c in clique if self.shifts[c][0] > 0]
        if not moved:
            return hard
        a = max(moved, key=lambda c: self.shifts[c][0])
        r, (x, x2) = self.shifts[a][0], self.shifts[a][1] or (0, 0)
        kernel = SoftKernel(tuple(self.kernels[c] for c in clique))
        bound = soft_bound(r, self.tau)
        how = (f"{HOW_SOFT}: √2·tanh(r_S/(2τ)) with r_S = {r:.4g} (Gower units; {self.names[a]} "
               f"{self.cell_labels[a][x]} → {self.cell_labels[a][x2]}), τ = {self.tau:g} (fixed)")
        col = kernel.column_norm
        sens = bound
        if self.hard.participation:
            sens = max(bound, col)
            how += f"; participation: max column norm {col:.4g}"
        wit = {"attribute": self.names[a], "from": self.cell_labels[a][x], "to": self.cell_labels[a][x2]}
        return SoftMarginalSensitivity(hard.clique, sens, hard.score, how, wit, kernel=kernel, reach=r,
                                       tau=self.tau, bound=bound, column_norm=col)

    def selection(self, candidates: list[tuple[int, ...]]) -> SelectionSensitivity:
        """The selection's sensitivity: bf-mst's (hard scores, l1: 2 for a moved pair)."""
        return self.hard.selection(candidates)

    def weighted_selection(self, candidates: list[tuple[int, ...]], weights: list[float]) -> SelectionSensitivity:
        """AIM's quality-score sensitivity (bf-soft-aim): bf-aim's, since the score reads the hard
        marginal h_r (w_r x its l1 sensitivity; PRIVACY §10, Lemma 10.8)."""
        return self.hard.weighted_selection(candidates, weights)


def _labels(cells: PublicCells, i: int) -> tuple[str, ...]:
    """Public names of attribute i's cells: a level, or a numeric bin's range in the attribute's units."""
    a = cells.schema.attributes[i]
    if not a.bounded:
        return tuple(str(v) for v in a.domain_values())
    from ..model.domain.base import declared_bounds

    lo, hi = declared_bounds(a)
    remap = cells.remap[i]
    used = np.arange(cells.bins) if remap is None else np.flatnonzero(remap >= 0)
    w = (hi - lo) / cells.bins
    return tuple(f"bin [{lo + b * w:g}, {lo + (b + 1) * w:g})" for b in used)
