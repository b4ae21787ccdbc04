"""The walk over record-level policy edges in blocks (one protected attribute, a chunk of contexts):
nearest candidates of both endpoints (hard; the sorted 1-D fast path), soft costs (line or
enumeration) and logit oscillations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from ...base.errors import BudgetError, SchemaError
from ...model.edges import EdgeBlock, iter_edge_blocks
from ...model.policy import ValueEdges
from ...model.schema import Schema
from ...model.votes import check_tau, soft_rows
from .lattice import Lattice
from .metric import BLOCK_ELEMS, _Metric
from .soft import _soft_line


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


# ------------------------------------------------------------ the enumeration
@dataclass
class _Block:
    """Costs of every edge of attribute ``attr`` in a batch of contexts."""

    attr: int
    Z: np.ndarray                      # (b, p) contexts (column attr unused)
    edges: EdgeBlock                   # the enumerator's block (value edges, contexts)
    cross: np.ndarray | None = None    # (b, E) bool: nn(u) != nn(v)
    nn_u: np.ndarray | None = None     # (b, E)
    nn_v: np.ndarray | None = None
    l2: np.ndarray | None = None       # (b, E) soft-vote costs
    l1: np.ndarray | None = None
    osc: np.ndarray | None = None      # (b, E) logit oscillation (enumerate path only)


def _soft_tau(tau: float | None) -> float:
    """check_tau for the soft and oscillation paths, where tau may still be None (BudgetError either way)."""
    if tau is None:
        raise BudgetError("tau must be a finite number > 0 (got None). Fix: use a positive temperature such as 0.03")
    return check_tau(tau)


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
            tau_ = _soft_tau(tau)
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
    t = _soft_tau(tau)  # called with soft or osc: both need tau
    l2: np.ndarray | None = None
    l1: np.ndarray | None = None
    osc_out: np.ndarray | None = None
    if soft:
        blk.l2 = l2 = np.empty((b, E))
        blk.l1 = l1 = np.empty((b, E))
    if osc:
        blk.osc = osc_out = np.empty((b, E))
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
        if osc_out is not None:
            dd = D[:, p0, :] - D[:, p1, :]
            osc_out[:, sel] = (dd.max(axis=2) - dd.min(axis=2)) / t
        if l2 is not None and l1 is not None:
            P = soft_rows(D.reshape(b * rows.size, m), t).reshape(b, rows.size, m)
            diff = P[:, p0, :] - P[:, p1, :]
            l1[:, sel] = np.abs(diff).sum(axis=2)
            l2[:, sel] = np.sqrt(np.einsum("bem,bem->be", diff, diff))


def _record(lats: list[Lattice], blk: _Block, ci: int, ei: int, which: int) -> np.ndarray:
    return blk.edges.endpoint(ci, ei, which)


def _decode(schema: Schema, r: np.ndarray) -> dict[str, Any]:
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in schema.decode(r[None, :]).iloc[0].to_dict().items()}
