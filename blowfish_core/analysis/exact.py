"""Exact policy-specific sensitivity of the vote histogram for a fixed candidate population.

Paper: Lemma 5.1 (sensitivity is a maximum over policy edges), Cor. 5.2 (attribute
by attribute), Cor. 5.3 (hard vote: 0 or sqrt(2)), Lemma 5.4 / Cor. 5.5 (soft vote:
tilt bound), Prop. 5.6 (tightness), §6.2.6 and Figure 7 (exact vs bound, cost).

What is computed here, for a population C (m candidates, encoded as in
:mod:`blowfish_core.model.schema`) and a policy:

* :func:`exact_sensitivity` -- ``S_p = max over record-level policy edges (x, y) of
  ||v(x) - v(y)||_p`` for the hard vote ``e_nn(x)`` or the soft vote
  ``softmax(-d(x, c_j) / tau)`` (Eq. 2), p = 2 and p = 1, with the edge that attains
  it (decoded values), the number of record-level edges and, for the hard vote, the
  number of boundary-crossing edges (nn(x) != nn(y)).  Record-level edges change one
  attribute by a protected value pair and keep the others (the context) fixed; they
  are enumerated in vectorized, memory-bounded batches.  Continuous numeric
  attributes are replaced by a lattice of ``grid`` points (edges join lattice points
  at most theta apart); the value is then exact *on that grid only*.
* :func:`population_aware_bound` -- the tilt bound of Lemma 5.4 evaluated with the
  population's own logit oscillation instead of the worst case ``2 d(x, y) / tau``.
  Under the Gower distance an edge that changes attribute i shifts the logits by
  ``-(w_i/tau) (d_i(v, c_ji) - d_i(u, c_ji))``, which depends on attribute i of the
  candidates only, so it is computed per attribute without enumerating contexts.
  Always ``exact <= population-aware <= closed form`` (up to rounding).
* :func:`tightness_construction` -- Prop. 5.6: two candidates at 0 and L, the
  protected pair (L -+ theta)/2; extra candidates pushed R away.
* :func:`crossing_search` -- the fast crossing search of
  :func:`blowfish_core.model.sensitivity.hard_sensitivity` (returns the certifying crossing).

Two exact soft-vote algorithms give the same numbers (tests compare them):

* ``enumerate`` -- softmax rows of every edge endpoint (:func:`blowfish_core.model.votes.soft_rows`
  on :class:`blowfish_core.model.distance.GowerKernel` blocks), differences per edge.
  Cost O(edges x m).
* ``line`` -- Gower distance, protected attribute numeric or ordinal: with the
  candidates sorted along the protected attribute, the vote of every value and every
  edge difference follow from log-domain prefix sums (candidates left of u, right of
  v) plus the few candidates strictly between u and v.  Cost O((m + L + E) log m)
  per context instead of O(L m); used automatically when it applies.

Privacy (DESIGN §7): everything here depends on the policy, tau, the public domain and
the candidate population only -- never on private records.  The exact value is a
teaching and checking tool; synthesis calibrates to the closed-form bound (Cor. 5.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..model.distance import GowerKernel, domain_index
from ..model.edges import EdgeBlock, edge_total, iter_edge_blocks, lattice_edges
from ..base.errors import SchemaError
from ..model.policy import AttributePolicy, Policy, ValueEdges, record_reach
from ..model.schema import Attribute, Schema
from ..model.sensitivity import SQRT2, Calibration, hard_sensitivity, soft_bound
from ..model.votes import VOTES, HardVote, check_tau, soft_rows

#: distances supported by the exact engine: Gower (weighted l1, the project default) and
#: weighted Euclidean sqrt(sum_i (w_i d_i)^2).  Both are metrics, and a record-level edge
#: that changes one attribute has the same length w_i d_i(u, v) under both, so reach and
#: the closed-form bound (Cor. 5.5) are the same.
DISTANCES = ("gower", "euclidean")
#: default lattice resolution (points) of a continuous numeric attribute.
DEFAULT_GRID = 64
#: largest number of record-level edges :func:`exact_sensitivity` enumerates.
DEFAULT_MAX_EDGES = 5_000_000
#: float64 elements per working block (about 16 MiB).
BLOCK_ELEMS = 2**21
METHODS = ("auto", "line", "enumerate")


class EnumerationLimitError(SchemaError):
    """The record-level edge set is too large (or infinite) to enumerate."""


# --------------------------------------------------------------------- lattices
#: the value edges of one attribute used for enumeration (name, codes, e0, e1, exact):
#: the engine's one value-edge type, :class:`blowfish_core.model.policy.ValueEdges`.
Lattice = ValueEdges


def attribute_lattice(a: Attribute, ap: AttributePolicy, grid: int = DEFAULT_GRID) -> ValueEdges:
    """Lattice of attribute ``a`` under its policy ``ap`` (:func:`blowfish_core.model.edges.lattice_edges`).

    Finite domains (ordinal, categorical, binary, hierarchical, integer numeric): every
    value and every protected pair (:func:`blowfish_core.model.policy.value_edges`).
    Continuous numeric: ``grid`` equally spaced points over [lo, hi] and the pairs of
    points at most theta apart (threshold policies; 'none' gives no pair).
    Raises SchemaError for a grid below 2, PolicyError when the policy does not fit.
    """
    return lattice_edges(a, ap, grid)


def schema_lattices(schema: Schema, policy: Policy, grid: int | dict[str, int] = DEFAULT_GRID) -> list[Lattice]:
    """One :class:`Lattice` per attribute, in schema order.

    grid: points per continuous attribute (an int for all, or name -> int).
    Raises PolicyError / SchemaError as :func:`attribute_lattice`.
    """
    policy.validate(schema)
    out = []
    for a in schema.attributes:
        g = grid.get(a.name, DEFAULT_GRID) if isinstance(grid, dict) else grid
        out.append(attribute_lattice(a, policy.policy_for(a.name), g))
    return out


def lattice_records(schema: Schema, grid: int | dict[str, int] = DEFAULT_GRID,
                    max_records: int = 1_000_000) -> np.ndarray:
    """Every point of the product lattice, encoded: float64 (N, p), first attribute slowest.

    Used for decision-region maps.  Raises EnumerationLimitError when N > max_records.
    """
    lats = schema_lattices(schema, Policy(), grid)
    sizes = [lt.size for lt in lats]
    N = int(np.prod(sizes, dtype=float))
    if N > max_records:
        raise EnumerationLimitError(
            f"the lattice has {N:,} points (sizes {sizes}), above the limit of {max_records:,}. "
            "Fix: lower the grid resolution"
        )
    idx = np.unravel_index(np.arange(N), sizes)
    return np.column_stack([lt.codes[ix] for lt, ix in zip(lats, idx)])


# -------------------------------------------------------------------- distances
#: widest numeric domain an explorer axis accepts (hi - lo); wider bounds are a typo, not a domain.
MAX_AXIS_WIDTH = 1e12


def check_axis_bounds(name: str, lo: Any, hi: Any, max_width: float = MAX_AXIS_WIDTH) -> tuple[float, float]:
    """The public domain [lo, hi] of a numeric axis, checked before any record is read.

    lo, hi: numbers in the attribute's units.  Returns (lo, hi) as floats.  Raises
    SchemaError naming the bound field: non-finite bound, lo >= hi, or hi - lo
    above ``max_width`` (the Gower encoding (x - lo)/(hi - lo) loses every record
    distinction on such a range).
    """
    vals = {}
    for field_, v in (("lower bound", lo), ("upper bound", hi)):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise SchemaError(f"{name}: {field_} must be a number (got {v!r})") from None
        if not math.isfinite(f):
            raise SchemaError(f"{name}: {field_} must be a finite number (got {v!r}). Fix: enter a finite value")
        vals[field_] = f
    lo_f, hi_f = vals["lower bound"], vals["upper bound"]
    if not lo_f < hi_f:
        raise SchemaError(f"{name}: lower bound {lo_f:g} must be below the upper bound {hi_f:g}. Fix: raise the "
                          "upper bound or lower the lower bound")
    width = hi_f - lo_f
    if not math.isfinite(width) or width > max_width:
        raise SchemaError(f"{name}: the domain [{lo_f:g}, {hi_f:g}] is {width:.3g} wide, above the limit of "
                          f"{max_width:g}. Fix: enter the real public bounds of the axis (e.g. upper bound 10)")
    return lo_f, hi_f


def check_distance(distance: str) -> str:
    """Validate a distance name (one of DISTANCES). Raises SchemaError naming it."""
    if distance not in DISTANCES:
        raise SchemaError(f"distance must be one of {', '.join(DISTANCES)} (got {distance!r})")
    return distance


def _check_population(schema: Schema, C: Any) -> np.ndarray:
    C = np.asarray(C, dtype=float)
    if C.ndim != 2 or C.shape[1] != schema.p:
        raise SchemaError(
            f"the candidate population must be an (m, {schema.p}) encoded matrix (got shape {C.shape}). "
            "Fix: encode it with schema.encode(table)"
        )
    if C.shape[0] == 0:
        raise SchemaError("the candidate population is empty. Fix: give at least one candidate")
    if not np.isfinite(C).all():
        raise SchemaError("the candidate population contains missing or infinite values")
    return C


class _Metric:
    """Distances from record blocks to the population: Gower (via GowerKernel) or Euclidean."""

    def __init__(self, schema: Schema, C: np.ndarray, distance: str):
        self.schema = schema
        self.C = C
        self.m = C.shape[0]
        self.distance = check_distance(distance)
        self._kernel: GowerKernel | None = None      # built on first use (lookup tables cost L x m)
        self.w = schema.weights

    def block(self, R: np.ndarray) -> np.ndarray:
        """(rows, p) encoded records -> (rows, m) distances."""
        if self.distance == "gower":
            if self._kernel is None:
                self._kernel = GowerKernel(self.schema, self.C)
            return self._kernel.block(R, domain_index(self.schema, R))
        D = np.zeros((R.shape[0], self.m))
        for i, a in enumerate(self.schema.attributes):
            t = self.w[i] * a.term(R[:, i, None], self.C[None, :, i])
            D += t * t
        return np.sqrt(D, out=D)

    def rows_per_block(self) -> int:
        return max(1, BLOCK_ELEMS // max(self.m, 1))


def distances(schema: Schema, C: np.ndarray, X: np.ndarray, distance: str = "gower") -> np.ndarray:
    """Distances of records X (n, p) to candidates C (m, p), both encoded: float64 (n, m).

    Gower units (weighted l1) or weighted Euclidean.  Raises SchemaError for a bad shape.
    """
    C = _check_population(schema, C)
    met = _Metric(schema, C, distance)
    X = np.asarray(X, dtype=float)
    out = np.empty((X.shape[0], met.m))
    step = met.rows_per_block()
    for s in range(0, X.shape[0], step):
        out[s:s + step] = met.block(X[s:s + step])
    return out


def nearest_candidates(schema: Schema, C: np.ndarray, X: np.ndarray, distance: str = "gower") -> np.ndarray:
    """nn(x) = argmin_j d(x, c_j) per record (ties -> lowest index): int (n,).

    Decision regions ("Voronoi cells" under the chosen distance, not a Euclidean
    Voronoi routine).  Chunked.
    """
    C = _check_population(schema, C)
    met = _Metric(schema, C, distance)
    X = np.asarray(X, dtype=float)
    out = np.empty(X.shape[0], dtype=np.intp)
    step = met.rows_per_block()
    for s in range(0, X.shape[0], step):
        out[s:s + step] = np.argmin(met.block(X[s:s + step]), axis=1)
    return out


def soft_votes(schema: Schema, C: np.ndarray, X: np.ndarray, tau: float, distance: str = "gower") -> np.ndarray:
    """Soft votes softmax(-d(x, c_j)/tau) (Eq. 2): float64 (n, m), rows on the simplex."""
    tau = check_tau(tau)
    return soft_rows(distances(schema, C, X, distance), tau)


# ------------------------------------------------------------- 1-D fast paths
def _nn_line(x: np.ndarray, c: np.ndarray, w: float) -> np.ndarray:
    """Nearest candidate of every value x (L,) on one numeric/ordinal axis, ties -> lowest
    index, with distances w*|x - c| computed exactly as GowerKernel does. int (L,)."""
    order = np.lexsort((np.arange(c.size), c))
    cs = c[order]
    first = np.ones(cs.size, dtype=bool)
    first[1:] = cs[1:] != cs[:-1]
    cu = cs[first]            # unique values, ascending
    iu = order[first]         # lowest original index per value
    pos = np.searchsorted(cu, x)
    lo = np.clip(pos - 1, 0, cu.size - 1)
    hi = np.clip(pos, 0, cu.size - 1)
    dl = w * np.abs(x - cu[lo])
    dr = w * np.abs(x - cu[hi])
    pick_hi = (dr < dl) | ((dr == dl) & (iu[hi] < iu[lo]))
    return np.where(pick_hi, iu[hi], iu[lo])


def _log_cum(v: np.ndarray, reverse: bool = False) -> np.ndarray:
    """Exclusive log-sum-exp prefix (or suffix) along axis 1: (b, m) -> (b, m + 1).

    Prefix: out[:, t] = log sum_{j < t} exp(v[:, j]).  Suffix: out[:, t] = log sum_{j >= t}.
    """
    b, m = v.shape
    out = np.full((b, m + 1), -np.inf)
    if reverse:
        acc = np.logaddexp.accumulate(v[:, ::-1], axis=1)[:, ::-1]
        out[:, :m] = acc
    else:
        out[:, 1:] = np.logaddexp.accumulate(v, axis=1)
    return out


def _seg_sum(vals: np.ndarray, starts: np.ndarray, nseg: int, seg_of_start: np.ndarray) -> np.ndarray:
    """Sum (b, T) flat items into (b, nseg) segments; starts: offsets of nonempty segments."""
    out = np.zeros((vals.shape[0], nseg))
    if starts.size:
        out[:, seg_of_start] = np.add.reduceat(vals, starts, axis=1)
    return out


def _soft_mid(l2sq: np.ndarray, l1: np.ndarray, iu: np.ndarray, jv: np.ndarray, cs: np.ndarray,
              Bs: np.ndarray, k: float, xu: np.ndarray, xv: np.ndarray, lzu: np.ndarray,
              lzv: np.ndarray) -> None:
    """Add, in place to l2sq and l1 (b, E), the terms of the candidates strictly between u and v
    (sorted positions iu .. jv - 1 of cs) of every edge, in edge chunks of at most about
    BLOCK_ELEMS elements.  The middle sum of :func:`_soft_line`."""
    b = Bs.shape[0]
    cnt = np.maximum(jv - iu, 0)
    if cnt.any():
        cum = np.cumsum(cnt)
        budget = max(int(cnt.max()), BLOCK_ELEMS // max(b, 1))
        s = 0
        E = cnt.size
        while s < E:
            base = cum[s - 1] if s else 0
            t = int(np.searchsorted(cum, base + budget, side="right"))
            t = max(t, s + 1)
            sl = slice(s, t)
            c_ = cnt[sl]
            total = int(c_.sum())
            if total:
                n = c_.size
                offs = np.concatenate([[0], np.cumsum(c_)[:-1]])
                seg = np.repeat(np.arange(n), c_)
                j = iu[sl][seg] + (np.arange(total) - offs[seg])
                cj = cs[j]
                pu = np.exp(Bs[:, j] - k * (cj - xu[sl][seg]) - lzu[:, sl][:, seg])
                pv = np.exp(Bs[:, j] - k * (xv[sl][seg] - cj) - lzv[:, sl][:, seg])
                d = pu - pv
                nz = c_ > 0
                starts = offs[nz]
                segs = np.nonzero(nz)[0]
                l2sq[:, sl] += _seg_sum(d * d, starts, n, segs)
                l1[:, sl] += _seg_sum(np.abs(d), starts, n, segs)
            s = t


def _soft_line(x: np.ndarray, e0: np.ndarray, e1: np.ndarray, c: np.ndarray, B: np.ndarray,
               k: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact ||v(u) - v(v)||_2 and ||.||_1 of every edge along one numeric/ordinal axis.

    x: (L,) codes; e0, e1: (E,) edges; c: (m,) candidate codes on this axis;
    B: (b, m) log prior weights of the candidates per context (-A/tau, A the Gower
    distance over the other attributes; zeros for a one-attribute schema); k = w_i / tau.
    The soft vote at value x in context z is p_j ∝ exp(B_zj - k |x - c_j|).
    Returns (l2 (b, E), l1 (b, E)).

    Derivation.  For an edge u < v with S = k (v - u), candidates left of u (c <= u) are
    all tilted by e^{-S}, those right of v (c >= v) by e^{+S}, so with r = Z_v / Z_u,
    p_v = p_u e^{-S}/r on the left and p_u e^{S}/r on the right:
    ||p_u - p_v||_2^2 = S2_L a_L^2 + S2_R a_R^2 + sum_mid (p_u - p_v)^2 with
    a_L = 1 - e^{-S}/r, a_R = 1 - e^{S}/r and S2_* the sums of p_u^2 over each side,
    taken from log-domain prefix/suffix sums over the sorted candidates.  Candidates
    strictly between u and v are summed directly.
    """
    b, m = B.shape
    x = np.asarray(x, dtype=float)
    xu, xv = x[e0], x[e1]
    swap = xu > xv
    xu, xv = np.where(swap, xv, xu), np.where(swap, xu, xv)
    order = np.argsort(c, kind="stable")
    cs = c[order]
    Bs = B[:, order]
    LA1 = _log_cum(Bs + k * cs)
    RA1 = _log_cum(Bs - k * cs, reverse=True)
    LA2 = _log_cum(2 * Bs + 2 * k * cs)
    RA2 = _log_cum(2 * Bs - 2 * k * cs, reverse=True)
    # log partition function of every value
    il = np.searchsorted(cs, x, side="right")
    logZ = np.logaddexp(LA1[:, il] - k * x, RA1[:, il] + k * x)            # (b, L)
    # edges: left group j < iu (c <= u), right group j >= jv (c >= v), mid in between
    iu = np.searchsorted(cs, xu, side="right")
    jv = np.searchsorted(cs, xv, side="left")
    lzu = np.where(swap, logZ[:, e1], logZ[:, e0])
    lzv = np.where(swap, logZ[:, e0], logZ[:, e1])
    S = k * (xv - xu)
    lr = lzv - lzu
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lPL = LA1[:, iu] - k * xu - lzu
        lPR = RA1[:, jv] + k * xu - lzu
        lS2L = LA2[:, iu] - 2 * k * xu - 2 * lzu
        lS2R = RA2[:, jv] + 2 * k * xu - 2 * lzu
        yL = np.maximum(S + lr, 0.0)          # a_L = 1 - e^{-yL} >= 0
        yR = np.maximum(S - lr, 0.0)          # |a_R| = e^{yR} - 1 >= 0
        log_aL = np.log(-np.expm1(-yL))
        log_aR = yR + np.log(-np.expm1(-yR))
        tL2 = np.where(np.isfinite(lS2L) & (yL > 0), np.exp(lS2L + 2 * log_aL), 0.0)
        tR2 = np.where(np.isfinite(lS2R) & (yR > 0), np.exp(lS2R + 2 * log_aR), 0.0)
        tL1 = np.where(np.isfinite(lPL) & (yL > 0), np.exp(lPL + log_aL), 0.0)
        tR1 = np.where(np.isfinite(lPR) & (yR > 0), np.exp(lPR + log_aR), 0.0)
    l2sq = tL2 + tR2
    l1 = tL1 + tR1
    # candidates strictly between u and v: summed directly, in edge chunks of bounded size
    _soft_mid(l2sq, l1, iu, jv, cs, Bs, k, xu, xv, lzu, lzv)
    return np.sqrt(l2sq), l1


# ------------------------------------------------------------ the enumeration
@dataclass
class _Block:
    """Costs of every edge of attribute ``attr`` in a batch of contexts."""

    attr: int
    Z: np.ndarray                      # (b, p) contexts (column attr unused)
    edges: EdgeBlock | None = None     # the enumerator's block (value edges, contexts)
    cross: np.ndarray | None = None    # (b, E) bool: nn(u) != nn(v)
    nn_u: np.ndarray | None = None     # (b, E)
    nn_v: np.ndarray | None = None
    l2: np.ndarray | None = None       # (b, E) soft-vote costs
    l1: np.ndarray | None = None
    osc: np.ndarray | None = None      # (b, E) logit oscillation (enumerate path only)


def record_edge_total(lats: list[Lattice]) -> int:
    """Number of record-level edges of a product lattice: sum_i |E_i| prod_{j != i} L_j."""
    return edge_total(lats)


def _check_limit(lats: list[Lattice], max_edges: float) -> int:
    total = record_edge_total(lats)
    if total > max_edges:
        sizes = {lt.name: lt.size for lt in lats}
        raise EnumerationLimitError(
            f"the record-level policy graph has {total:,} edges (domain sizes {sizes}), above the "
            f"exact-search limit of {int(max_edges):,}. Fix: lower the grid resolution, protect fewer "
            "attributes, or use the closed-form bound (Cor. 5.5), which needs no enumeration"
        )
    return total


def _line_ok(schema: Schema, i: int, distance: str) -> bool:
    return distance == "gower" and schema.attributes[i].ordered


def _iter_blocks(schema: Schema, lats: list[Lattice], C: np.ndarray, *, tau: float | None,
                 distance: str, hard: bool, soft: bool, osc: bool = False,
                 method: str = "auto") -> Iterator[_Block]:
    met = _Metric(schema, C, distance)
    m = C.shape[0]
    w = schema.weights
    single = bool((C == C[0]).all())

    def plan(i: int, lt: ValueEdges, n_ctx: int) -> int:
        """Contexts per block: keep every (b, *) working array under BLOCK_ELEMS."""
        E, L = lt.e0.size, lt.size
        line = soft and method != "enumerate" and _line_ok(schema, i, distance)
        if method == "line" and soft and not line:
            raise SchemaError(
                f"method='line' needs the Gower distance and a numeric or ordinal attribute "
                f"('{lt.name}' is {schema.attributes[i].kind}, distance {distance}). Fix: use method='auto'"
            )
        width = max(E, L, 1)
        if line:
            width = max(width, m + 1)
        if hard and not (schema.p == 1 and _line_ok(schema, i, distance)):
            width = max(width, L * m)
        bz = max(1, min(n_ctx, BLOCK_ELEMS // width))
        if (soft and not line) or osc:
            bz = max(1, min(bz, BLOCK_ELEMS // (2 * m * min(E, 4096))))
        return bz

    for eb in iter_edge_blocks(lats, plan):
        i, lt, Z, b = eb.attr, eb.edges, eb.Z, eb.b
        E, L = lt.e0.size, lt.size
        line = soft and method != "enumerate" and _line_ok(schema, i, distance)
        fast_nn = hard and schema.p == 1 and _line_ok(schema, i, distance)
        brute_soft = soft and not line
        blk = _Block(i, Z, eb)
        if hard:
            if fast_nn:
                NN = _nn_line(lt.codes, C[:, i], float(w[i]))[None, :].repeat(b, axis=0)
            else:
                R = eb.records()
                nn = np.empty(R.shape[0], dtype=np.intp)
                step = met.rows_per_block()
                for r in range(0, R.shape[0], step):
                    nn[r:r + step] = np.argmin(met.block(R[r:r + step]), axis=1)
                NN = nn.reshape(b, L)
            blk.nn_u, blk.nn_v = NN[:, lt.e0], NN[:, lt.e1]
            blk.cross = blk.nn_u != blk.nn_v
        if soft and single:
            # one distinct candidate: every vote is the same one-hot vector
            blk.l2 = np.zeros((b, E))
            blk.l1 = np.zeros((b, E))
        elif line:
            tau_ = check_tau(tau)
            A = np.zeros((b, m))
            for j, a in enumerate(schema.attributes):
                if j != i:
                    A += w[j] * a.term(Z[:, j, None], C[None, :, j])
            blk.l2, blk.l1 = _soft_line(lt.codes, lt.e0, lt.e1, C[:, i], -A / tau_, float(w[i]) / tau_)
        if (brute_soft and not single) or osc:
            _brute_edges(met, lt, i, Z, tau, blk, soft=brute_soft and not single, osc=osc)
        yield blk


def _brute_edges(met: _Metric, lt: Lattice, i: int, Z: np.ndarray, tau: float | None, blk: _Block,
                 soft: bool, osc: bool) -> None:
    """Soft-vote costs (and logit oscillations) of every edge by direct softmax rows."""
    b = Z.shape[0]
    E = lt.e0.size
    m = met.m
    if soft:
        tau = check_tau(tau)
        blk.l2 = np.empty((b, E))
        blk.l1 = np.empty((b, E))
    if osc:
        tau = check_tau(tau)
        blk.osc = np.empty((b, E))
    order = np.argsort(lt.e0, kind="stable")
    ec = max(1, min(E, BLOCK_ELEMS // (2 * m * b)))
    for s in range(0, E, ec):
        sel = order[s:s + ec]
        a0, a1 = lt.e0[sel], lt.e1[sel]
        rows = np.unique(np.concatenate([a0, a1]))
        R = np.repeat(Z, rows.size, axis=0)
        R[:, i] = np.tile(lt.codes[rows], b)
        D = met.block(R).reshape(b, rows.size, m)
        p0 = np.searchsorted(rows, a0)
        p1 = np.searchsorted(rows, a1)
        if osc:
            dd = D[:, p0, :] - D[:, p1, :]
            blk.osc[:, sel] = (dd.max(axis=2) - dd.min(axis=2)) / tau
        if soft:
            P = soft_rows(D.reshape(b * rows.size, m), tau).reshape(b, rows.size, m)
            diff = P[:, p0, :] - P[:, p1, :]
            blk.l1[:, sel] = np.abs(diff).sum(axis=2)
            blk.l2[:, sel] = np.sqrt(np.einsum("bem,bem->be", diff, diff))


def _record(lats: list[Lattice], blk: _Block, ci: int, ei: int, which: int) -> np.ndarray:
    return blk.edges.endpoint(ci, ei, which)


def _decode(schema: Schema, r: np.ndarray) -> dict[str, Any]:
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in schema.decode(r[None, :]).iloc[0].to_dict().items()}


# ------------------------------------------------------------------ results
@dataclass
class ExactSensitivity:
    """Exact policy-specific sensitivity of one vote for one population (Lemma 5.1).

    vote: 'hard' or 'soft'; tau: temperature (soft) or None; distance: 'gower' | 'euclidean'.
    l2, l1: the sensitivities S_2 and S_1 (hard: {0, sqrt 2} and {0, 2}).
    edge: the record-level edge attaining S_2 -- {'attribute', 'u', 'v' (decoded dicts),
    'u_codes', 'v_codes' (encoded lists), 'l2', 'l1', 'nn_u', 'nn_v' (hard)}; None without edges
    (or, for the hard vote, without a crossing).
    edges: record-level edges enumerated; crossing_edges: edges with nn(u) != nn(v) (hard only).
    exact_on: 'domain' or 'grid' (a continuous attribute was replaced by ``grid`` points:
    the value is exact on that grid only).  method: the algorithm(s) used, '+'-joined:
    'line', 'enumerate', 'fast-nn' (one-attribute hard vote, sorted candidates), or 'none'.
    """

    vote: str
    tau: float | None
    distance: str
    l2: float
    l1: float
    edge: dict[str, Any] | None
    edges: int
    crossing_edges: int | None
    exact_on: str
    grid: dict[str, int]
    method: str
    notes: list[str] = field(default_factory=list)

    def value(self, norm: str = "l2") -> float:
        return self.l2 if norm == "l2" else self.l1


def _grid_info(schema: Schema, lats: list[Lattice]) -> tuple[str, dict[str, int], list[str]]:
    gridded = {lt.name: lt.size for lt in lats if not lt.exact}
    notes = []
    if gridded:
        notes.append(
            "continuous attribute(s) " + ", ".join(f"'{k}' ({v} points)" for k, v in gridded.items())
            + " replaced by a grid: the value is exact on that grid only"
        )
    return ("grid" if gridded else "domain"), gridded, notes


def _scan_blocks(schema: Schema, lats: list[Lattice], C: np.ndarray, *, tau: float | None, distance: str,
                 hard: bool, method: str) -> tuple[tuple[float, float, Any], int, set[str]]:
    """Walk every edge block once: the costliest edge (l2, l1, (blk, ci, ei)) -- for the hard vote
    the first crossing edge --, the number of crossing edges (hard) and the algorithms used.
    The scan of :func:`exact_sensitivity`; best is (-1, -1, None) without an edge."""
    best = (-1.0, -1.0, None)       # (l2, l1, (blk, ci, ei))
    crossings = 0
    used: set[str] = set()
    for blk in _iter_blocks(schema, lats, C, tau=tau, distance=distance, hard=hard, soft=not hard, method=method):
        if hard:
            used.add("fast-nn" if schema.p == 1 and _line_ok(schema, blk.attr, distance) else "enumerate")
            n = int(blk.cross.sum())
            if n and crossings == 0:
                ci, ei = map(int, np.argwhere(blk.cross)[0])
                best = (SQRT2, 2.0, (blk, ci, ei))
            crossings += n
        else:
            used.add("line" if method != "enumerate" and _line_ok(schema, blk.attr, distance) else "enumerate")
            ci, ei = np.unravel_index(int(np.argmax(blk.l2)), blk.l2.shape)
            v2 = float(blk.l2[ci, ei])
            v1 = float(blk.l1.max())
            if v2 > best[0]:
                best = (v2, max(best[1], v1), (blk, int(ci), int(ei)))
            else:
                best = (best[0], max(best[1], v1), best[2])
    return best, crossings, used


def _edge_record(schema: Schema, lats: list[Lattice], best: tuple[float, float, Any],
                 hard: bool) -> dict[str, Any] | None:
    """The ``edge`` of :class:`ExactSensitivity` for the scan's best (blk, ci, ei): both endpoints
    decoded and encoded, their l2 and l1 (and nearest candidates, hard); None without an edge."""
    if best[2] is None:
        return None
    blk, ci, ei = best[2]
    u = _record(lats, blk, ci, ei, 0)
    v = _record(lats, blk, ci, ei, 1)
    edge = {
        "attribute": lats[blk.attr].name,
        "u": _decode(schema, u), "v": _decode(schema, v),
        "u_codes": u.tolist(), "v_codes": v.tolist(),
        "l2": float(SQRT2 if hard else blk.l2[ci, ei]),
        "l1": float(2.0 if hard else blk.l1[ci, ei]),
    }
    if hard:
        edge["nn_u"], edge["nn_v"] = int(blk.nn_u[ci, ei]), int(blk.nn_v[ci, ei])
    return edge


def exact_sensitivity(
    schema: Schema,
    policy: Policy,
    C: np.ndarray,
    vote: str = "soft",
    tau: float | None = None,
    distance: str = "gower",
    grid: int | dict[str, int] = DEFAULT_GRID,
    max_edges: float = DEFAULT_MAX_EDGES,
    method: str = "auto",
) -> ExactSensitivity:
    """Exact l2 and l1 policy-specific sensitivity of the vote histogram for population C.

    S_p = max over record-level policy edges (x, y) of ||v(x) - v(y)||_p (Lemma 5.1,
    Cor. 5.2).  C: (m, p) encoded candidates.  vote: 'hard' (Cor. 5.3: 0 or sqrt 2) or
    'soft' (Eq. 2, tau > 0).  distance: 'gower' (default) or 'euclidean'.  grid: lattice
    points for continuous attributes.  method: 'auto' (the prefix-sum 'line' algorithm
    where it applies, else 'enumerate'), 'line' or 'enumerate' (both exact).
    Participation edges (§5.6) add the removal of one vote: hard 1, soft max_x ||v(x)||_2.

    Raises BudgetError (bad tau), SchemaError (bad population / grid / distance),
    PolicyError, EnumerationLimitError (more than ``max_edges`` record-level edges).
    """
    if not isinstance(vote, str) or vote not in VOTES:
        raise SchemaError(f"vote must be 'hard' or 'soft' (got {vote!r})")
    if method not in METHODS:
        raise SchemaError(f"method must be one of {', '.join(METHODS)} (got {method!r})")
    check_distance(distance)
    hard = VOTES[vote] is HardVote
    if not hard:
        tau = check_tau(tau)
    C = _check_population(schema, C)
    lats = schema_lattices(schema, policy, grid)
    total = _check_limit(lats, max_edges)
    exact_on, gridded, notes = _grid_info(schema, lats)
    if total == 0:
        notes.append("the policy graph has no edge: nothing is protected, every sensitivity is 0")
    best, crossings, used = _scan_blocks(schema, lats, C, tau=tau, distance=distance, hard=hard, method=method)
    l2 = max(best[0], 0.0)
    l1 = max(best[1], 0.0)
    edge = _edge_record(schema, lats, best, hard)
    if policy.participation:
        floor2 = 1.0 if hard else _max_vote_norm(schema, lats, C, tau, distance)
        if floor2 > l2:
            notes.append("participation edges (u, bottom) dominate: removing one vote (§5.6)")
            l2, edge = floor2, {"attribute": "participation", "l2": floor2, "l1": 1.0}
        l1 = max(l1, 1.0)
    return ExactSensitivity(
        vote=vote, tau=tau if not hard else None, distance=distance, l2=float(l2), l1=float(l1),
        edge=edge, edges=total, crossing_edges=crossings if hard else None, exact_on=exact_on,
        grid=gridded, method="+".join(sorted(used)) or "none", notes=notes,
    )


def _max_vote_norm(schema, lats, C, tau, distance) -> float:
    """max over lattice records of ||v(x)||_2 (the cost of a participation edge)."""
    sizes = [lt.size for lt in lats]
    N = int(np.prod(sizes, dtype=float))
    met = _Metric(schema, C, distance)
    best = 0.0
    step = met.rows_per_block()
    for s in range(0, N, step):
        idx = np.unravel_index(np.arange(s, min(s + step, N)), sizes)
        R = np.column_stack([lt.codes[ix] for lt, ix in zip(lats, idx)])
        P = soft_rows(met.block(R), tau)
        best = max(best, float(np.sqrt((P * P).sum(axis=1)).max()))
    return best


def edge_costs(
    schema: Schema,
    policy: Policy,
    C: np.ndarray,
    tau: float | None = None,
    distance: str = "gower",
    grid: int | dict[str, int] = DEFAULT_GRID,
    max_edges: float = 200_000,
) -> pd.DataFrame:
    """Every record-level policy edge with its cost under the hard and (if tau) soft vote.

    Returns a DataFrame, one row per edge: 'attribute', 'u_<name>' / 'v_<name>' (decoded
    values of both endpoints), 'nn_u', 'nn_v', 'crossing' (bool), 'hard' (0 or sqrt 2),
    and with tau: 'soft' (||v(u) - v(v)||_2) and 'soft_l1'.  Its maxima are the exact
    sensitivities of :func:`exact_sensitivity`.  Raises as exact_sensitivity.
    """
    check_distance(distance)
    if tau is not None:
        tau = check_tau(tau)
    C = _check_population(schema, C)
    lats = schema_lattices(schema, policy, grid)
    _check_limit(lats, max_edges)
    parts = []
    for blk in _iter_blocks(schema, lats, C, tau=tau, distance=distance, hard=True, soft=tau is not None):
        lt = lats[blk.attr]
        U, V = blk.edges.endpoints()
        du = schema.decode(U).add_prefix("u_")
        dv = schema.decode(V).add_prefix("v_")
        df = pd.concat([du, dv], axis=1)
        df.insert(0, "attribute", lt.name)
        df["nn_u"] = blk.nn_u.ravel()
        df["nn_v"] = blk.nn_v.ravel()
        df["crossing"] = blk.cross.ravel()
        df["hard"] = np.where(blk.cross.ravel(), SQRT2, 0.0)
        if tau is not None:
            df["soft"] = blk.l2.ravel()
            df["soft_l1"] = blk.l1.ravel()
        parts.append(df)
    if not parts:
        cols = ["attribute"] + [f"u_{n}" for n in schema.names] + [f"v_{n}" for n in schema.names]
        cols += ["nn_u", "nn_v", "crossing", "hard"] + (["soft", "soft_l1"] if tau is not None else [])
        return pd.DataFrame(columns=cols)
    return pd.concat(parts, ignore_index=True)


def crossing_search(schema: Schema, policy: Policy, C: np.ndarray, **kwargs: Any) -> Calibration:
    """The hard-vote crossing search of :func:`blowfish_core.model.sensitivity.hard_sensitivity`.

    Returns its Calibration: delta sqrt(2) with ``how='certified-crossing'`` and the
    crossing edge as ``witness`` (decoded values, nn_u != nn_v), 'exhaustive-zero' or
    'fallback' (Cor. 5.3; Gower distance).  kwargs: max_edges, contexts.
    """
    C = _check_population(schema, C)
    return hard_sensitivity(schema, policy, C, **kwargs)


# ------------------------------------------------------------------- bounds
def closed_form_bound(schema: Schema, policy: Policy, tau: float, norm: str = "l2") -> float:
    """Cor. 5.5: sqrt(2) tanh(r / (2 tau)) (l2) or 2 tanh(r / (2 tau)) (l1), r the record-level
    reach (Gower units, Cor. 5.2).  Valid for every population.  Participation edges
    (§5.6) raise it to at least 1.  Raises BudgetError for a bad tau.

    The paper's value (no float pad): the engine calibrates with
    :func:`blowfish_core.model.sensitivity.soft_bound`, this times (1 + SOFT_BOUND_PAD)."""
    tau = check_tau(tau)
    if norm not in ("l1", "l2"):
        raise SchemaError(f"norm must be 'l1' or 'l2' (got {norm!r})")
    v = soft_bound(record_reach(schema, policy), tau, norm, pad=0.0)
    return max(v, 1.0) if policy.participation else v


@dataclass
class PopulationBound:
    """The tilt bound of Lemma 5.4 with the population's own logit oscillation.

    l2 = sqrt(2) tanh(osc / 4), l1 = 2 tanh(osc / 4), osc = the largest oscillation
    max_j a_j - min_j a_j of the logit shift a over policy edges (dimensionless, logit units).
    per_attribute: name -> {'osc', 'l2', 'u', 'v'} for protected attributes.
    edge: the edge with the largest oscillation {'attribute', 'u', 'v'} (decoded, attribute i
    only for Gower; full records for Euclidean).  closed_form: Cor. 5.5 for comparison.
    how: 'per-attribute' (Gower: no context enumeration) or 'enumerated' (Euclidean).
    """

    l2: float
    l1: float
    osc: float
    per_attribute: dict[str, dict[str, Any]]
    edge: dict[str, Any] | None
    closed_form: float
    how: str
    notes: list[str] = field(default_factory=list)


def _attr_oscillation(a: Attribute, ap: AttributePolicy, w: float, c: np.ndarray, tau: float,
                      grid: int) -> tuple[float, Any, Any]:
    """Largest logit oscillation over the protected pairs of one attribute (Gower).

    c: (m,) candidate codes on this attribute.  Returns (osc, u, v) with u, v encoded codes.
    Continuous numeric threshold: the supremum over the continuous domain,
    2 (w / tau) min(theta, span of the candidates), attained by the pair centred on the
    candidates' midpoint; finite domains: the maximum over value_edges.
    """
    if not a.is_finite:
        if ap.kind != "threshold" or float(ap.theta) <= 0:
            return 0.0, None, None
        t = min(float(ap.theta) / (a.hi - a.lo), 1.0)
        lo, hi = float(c.min()), float(c.max())
        t_eff = min(t, hi - lo)
        if t_eff <= 0:
            return 0.0, None, None
        mid = 0.5 * (lo + hi)
        return 2.0 * w * t_eff / tau, mid - t_eff / 2, mid + t_eff / 2
    lt = attribute_lattice(a, ap, grid)
    if lt.e0.size == 0:
        return 0.0, None, None
    xu, xv = lt.codes[lt.e0], lt.codes[lt.e1]
    if a.ordered:
        # g(c) = |u - c| - |v - c| is monotone in c: its range over the candidates is
        # attained at the extreme candidates.
        cmin, cmax = float(c.min()), float(c.max())
        g = lambda cc: np.abs(xu - cc) - np.abs(xv - cc)  # noqa: E731
        osc = np.abs(g(cmax) - g(cmin)) * w / tau
    else:
        uniq = np.unique(c)
        T = a.term(lt.codes[:, None], uniq[None, :])
        osc = np.empty(lt.e0.size)
        step = max(1, BLOCK_ELEMS // max(uniq.size, 1))
        for s in range(0, lt.e0.size, step):
            d = T[lt.e0[s:s + step]] - T[lt.e1[s:s + step]]
            osc[s:s + step] = (d.max(axis=1) - d.min(axis=1)) * w / tau
    e = int(np.argmax(osc))
    return float(osc[e]), float(xu[e]), float(xv[e])


def _gower_oscillations(schema: Schema, policy: Policy, C: np.ndarray, tau: float,
                        grid: int | dict[str, int]) -> tuple[dict[str, dict[str, Any]], float, dict[str, Any] | None]:
    """Gower distance: the largest logit oscillation of every protected attribute, taken per
    attribute (no context enumeration).  Returns (per_attribute, best_osc, best_edge)."""
    w = schema.weights
    per: dict[str, dict[str, Any]] = {}
    best_osc, best_edge = 0.0, None
    for i, a in enumerate(schema.attributes):
        ap = policy.policy_for(a.name)
        g = grid.get(a.name, DEFAULT_GRID) if isinstance(grid, dict) else grid
        if ap.kind == "none":
            continue
        osc, u, v = _attr_oscillation(a, ap, float(w[i]), C[:, i], tau, g)
        if u is None:
            continue
        du, dv = a.label(u), a.label(v)
        per[a.name] = {"osc": osc, "l2": SQRT2 * math.tanh(osc / 4), "u": du, "v": dv}
        if osc > best_osc or best_edge is None:
            best_osc, best_edge = osc, {"attribute": a.name, "u": du, "v": dv}
    return per, best_osc, best_edge


def _enumerated_oscillations(schema: Schema, policy: Policy, C: np.ndarray, tau: float, distance: str,
                             grid: int | dict[str, int], max_edges: float
                             ) -> tuple[dict[str, dict[str, Any]], float, dict[str, Any] | None, list[str]]:
    """Euclidean distance: the largest logit oscillation over the enumerated record-level edges.
    Returns (per_attribute, best_osc, best_edge, notes); raises EnumerationLimitError."""
    per: dict[str, dict[str, Any]] = {}
    best_osc, best_edge = 0.0, None
    notes: list[str] = []
    lats = schema_lattices(schema, policy, grid)
    _check_limit(lats, max_edges)
    _, _, gnotes = _grid_info(schema, lats)
    notes += gnotes
    for blk in _iter_blocks(schema, lats, C, tau=tau, distance=distance, hard=False, soft=False, osc=True):
        lt = lats[blk.attr]
        ci, ei = np.unravel_index(int(np.argmax(blk.osc)), blk.osc.shape)
        osc = float(blk.osc[ci, ei])
        rec = per.setdefault(lt.name, {"osc": 0.0, "l2": 0.0, "u": None, "v": None})
        if osc >= rec["osc"]:
            u = _decode(schema, _record(lats, blk, int(ci), int(ei), 0))
            v = _decode(schema, _record(lats, blk, int(ci), int(ei), 1))
            rec.update(osc=osc, l2=SQRT2 * math.tanh(osc / 4), u=u, v=v)
            if osc > best_osc or best_edge is None:
                best_osc, best_edge = osc, {"attribute": lt.name, "u": u, "v": v}
    return per, best_osc, best_edge, notes


def population_aware_bound(
    schema: Schema,
    policy: Policy,
    C: np.ndarray,
    tau: float,
    distance: str = "gower",
    grid: int | dict[str, int] = DEFAULT_GRID,
    max_edges: float = DEFAULT_MAX_EDGES,
) -> PopulationBound:
    """Population-aware soft-vote bound: Lemma 5.4 with the population's oscillation.

    For an edge (x, y), y = x with attribute i changed from u to v, the soft vote at y is
    the exponential tilt of the vote at x by a_j = -(d(y, c_j) - d(x, c_j)) / tau, so
    ||v(x) - v(y)||_1 <= 2 tanh(osc(a) / 4) and ||.||_2 <= sqrt(2) tanh(osc(a) / 4)
    (Lemma 5.4 and the l1 -> l2 step of Cor. 5.5).  Under the Gower distance
    a_j = -(w_i / tau) (d_i(v, c_ji) - d_i(u, c_ji)) depends on attribute i of the
    candidates only, so the maximum over edges is taken per attribute over protected value
    pairs, without enumerating the other attributes.  Since osc(a) <= 2 w_i d_i(u, v) / tau
    <= 2 r / tau (reverse triangle inequality):

        exact soft sensitivity <= population-aware bound <= closed-form bound (Cor. 5.5).

    It is smaller than the closed form when the candidates do not separate the protected
    values: e.g. a categorical pair (u, v) of which at most one value occurs among the
    candidates, or candidates spanning less than theta on a numeric attribute.  For
    numeric/ordinal thresholds with candidates spread wider than theta it equals the
    closed form.  Euclidean distance: the shift depends on all attributes, so the
    oscillation is taken over the enumerated record-level edges (needs ``grid`` for
    continuous attributes; raises EnumerationLimitError above ``max_edges``).
    Participation edges (§5.6) raise it to at least 1.

    tau > 0 (BudgetError); C: (m, p) encoded (SchemaError).  Depends on the policy, tau,
    the public domain and the population only (DESIGN §7).
    """
    tau = check_tau(tau)
    check_distance(distance)
    C = _check_population(schema, C)
    policy.validate(schema)
    closed = closed_form_bound(schema, policy, tau)
    if distance == "gower":
        how = "per-attribute"
        per, best_osc, best_edge = _gower_oscillations(schema, policy, C, tau, grid)
        notes: list[str] = []
    else:
        how = "enumerated"
        per, best_osc, best_edge, notes = _enumerated_oscillations(schema, policy, C, tau, distance, grid, max_edges)
    l2 = SQRT2 * math.tanh(best_osc / 4)
    l1 = 2.0 * math.tanh(best_osc / 4)
    if policy.participation:
        l2, l1 = max(l2, 1.0), max(l1, 1.0)
        notes.append("participation edges (u, bottom): at least 1 (§5.6)")
    return PopulationBound(l2=l2, l1=l1, osc=best_osc, per_attribute=per, edge=best_edge,
                           closed_form=closed, how=how, notes=notes)


# --------------------------------------------------------------- tightness
@dataclass
class Tightness:
    """Prop. 5.6 construction and the value it attains.

    schema: one numeric attribute 'x' on [0, H] with Gower weight H, so the Gower distance
    equals the raw distance |x - y| (the paper's d on the real line).  policy: threshold
    theta on 'x'.  C: (m, 1) encoded candidates; candidates: their raw positions
    (0, L, then L + R + k for k = 3..m).  u, v: raw positions of the protected pair
    (L -+ theta)/2.  attained: ||v(u) - v(v)||_2 of the soft vote at tau (via
    :func:`blowfish_core.model.votes.soft_rows`); bound: sqrt(2) tanh(theta / (2 tau)).
    """

    theta: float
    tau: float
    m: int
    L: float
    R: float
    schema: Schema
    policy: Policy
    C: np.ndarray
    candidates: np.ndarray
    u: float
    v: float
    attained: float
    bound: float

    @property
    def gap(self) -> float:
        """bound - attained (0 up to rounding for m = 2; -> 0 as R grows for m > 2)."""
        return self.bound - self.attained


def tightness_construction(theta: float, tau: float, m: int = 2, L: float | None = None,
                           R: float | None = None) -> Tightness:
    """Prop. 5.6 (App. E): the population and protected pair that attain the BF-Soft bound.

    theta >= 0: threshold (= d(u, v)); tau > 0; m >= 2 candidates: c_1 = 0, c_2 = L and, for
    m > 2, c_k = L + R + k (k = 3..m), pushed R away.  L >= theta (default max(2 theta, 1)).
    R >= 0 (default tau (ln m + 40), far enough that the extra candidates' mass is below
    1e-17 of the pair's).  For m = 2 attained = sqrt(2) tanh(theta / (2 tau)) exactly
    (up to rounding); for m > 2 it approaches it as R grows.  theta = 0 gives u = v and 0.
    Raises BudgetError for a bad tau, SchemaError for bad theta, m, L or R.
    """
    tau = check_tau(tau)
    if isinstance(theta, bool) or not isinstance(theta, (int, float, np.floating)) or not math.isfinite(theta) or theta < 0:
        raise SchemaError(f"theta must be a finite number >= 0 (got {theta!r})")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 2:
        raise SchemaError(f"m must be a whole number >= 2 (got {m!r}); Prop. 5.6 needs two candidates")
    theta = float(theta)
    L = max(2.0 * theta, 1.0) if L is None else float(L)
    if not math.isfinite(L) or L < theta or L <= 0:
        raise SchemaError(f"L must be a finite number >= theta and > 0 (got L={L}, theta={theta})")
    R = tau * (math.log(m) + 40.0) if R is None else float(R)
    if not math.isfinite(R) or R < 0:
        raise SchemaError(f"R must be a finite number >= 0 (got {R})")
    cand = np.concatenate([[0.0, L], L + R + np.arange(3, m + 1, dtype=float)])
    H = float(cand.max())
    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=H, weight=H)])
    policy = Policy({"x": AttributePolicy("threshold", theta=theta)})
    u, v = (L - theta) / 2.0, (L + theta) / 2.0
    C = (cand / H)[:, None]
    X = np.array([[u / H], [v / H]])
    P = soft_votes(schema, C, X, tau)
    attained = float(np.linalg.norm(P[0] - P[1]))
    bound = float(SQRT2 * math.tanh(theta / (2.0 * tau)))
    return Tightness(theta, tau, int(m), L, R, schema, policy, C, cand, u, v, attained, bound)


__all__ = [
    "DISTANCES", "DEFAULT_GRID", "DEFAULT_MAX_EDGES", "EnumerationLimitError",
    "Lattice", "attribute_lattice", "schema_lattices", "lattice_records", "record_edge_total",
    "distances", "nearest_candidates", "soft_votes",
    "ExactSensitivity", "exact_sensitivity", "edge_costs", "crossing_search",
    "closed_form_bound", "PopulationBound", "population_aware_bound",
    "Tightness", "tightness_construction",
]
