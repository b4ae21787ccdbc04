"""The record-level policy edges of an audit setting (enumerated domain points) and the edge that
attains the exact sensitivity of a vote."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np

from ...base.errors import PolicyError, SchemaError
from ...model.edges import iter_edge_blocks, product_contexts
from ...model.policy import Policy, ValueEdges, value_edges
from ...model.schema import Schema
from ...model.votes import vote_vectors
from .cases import _CHUNK, MAX_AUDIT_POINTS


# ------------------------------------------------------------------- edges
def domain_points(schema: Schema, max_points: int = MAX_AUDIT_POINTS) -> np.ndarray:
    """Every record of a finite public domain, encoded.

    Row order is mixed radix with the last attribute fastest.

    Parameters
    ----------
    schema : Schema
        The public domain; every attribute finite.
    max_points : int, default MAX_AUDIT_POINTS
        Largest number of records N accepted.

    Returns
    -------
    (N, p) float64 ndarray
        The encoded records, N = prod |T_i|.

    Raises
    ------
    SchemaError
        If an attribute is continuous or N exceeds ``max_points``.
    """
    sizes = []
    for a in schema.attributes:
        size = a.size
        if not a.is_finite or size is None:
            raise SchemaError(f"audit: attribute '{a.name}' is continuous; the audit needs a finite domain")
        sizes.append(size)
    total = math.prod(sizes)
    if total > max_points:
        raise SchemaError(
            f"audit: the domain has {total} records (> {max_points}). Fix: audit a smaller schema"
        )
    lats = [ValueEdges(a.domain_codes(), _NONE, _NONE) for a in schema.attributes]
    return product_contexts(lats, -1, 0, total)[0]


_NONE = np.zeros(0, dtype=np.intp)


def record_level_edges(
    schema: Schema, policy: Policy, complete: bool = False, max_points: int = MAX_AUDIT_POINTS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Record-level neighbour pairs on a finite domain (Def. 2.3; §2.2 "Specifying policies").

    Parameters
    ----------
    schema : Schema
        The public domain; every attribute finite.
    policy : Policy
        Substitution edges only (no participation edges).
    complete : bool, default False
        ``False``: records that agree on all attributes but one and differ there by a protected
        value pair (the policy's substitution edges).  ``True``: every pair of distinct records
        (bounded DP, Tab-PE's notion).
    max_points : int, default MAX_AUDIT_POINTS
        Largest domain (records) accepted.

    Returns
    -------
    P : (N, p) float64 ndarray
        The domain, from :func:`domain_points`.
    e0, e1 : (E,) int ndarray
        Indices into P of the two ends of each edge.

    Raises
    ------
    SchemaError
        For a continuous or too large domain (from :func:`domain_points`).
    PolicyError
        For participation edges (the audit covers substitutions only).
    """
    P = domain_points(schema, max_points)
    N = P.shape[0]
    if complete:
        i0, i1 = np.triu_indices(N, 1)
        return P, i0.astype(np.intp), i1.astype(np.intp)
    if policy.participation:
        raise PolicyError("audit: participation edges (u, bottom) are not audited; set participation to false")
    policy.validate(schema)
    # every attribute is finite (domain_points refused a continuous one), so none is None
    lats = cast("list[ValueEdges]", [value_edges(a, policy.policy_for(a.name)) for a in schema.attributes])
    sizes = [ve.size for ve in lats]
    strides = np.array([math.prod(sizes[i + 1:]) for i in range(schema.p)], dtype=np.intp)
    e0s, e1s = [], []
    # row of a record in P = its value indices . strides (mixed radix, last attribute fastest)
    for blk in iter_edge_blocks(lats, _CHUNK):
        base = cast(np.ndarray, blk.index) @ strides  # product contexts carry their value indices
        ve, st = blk.edges, strides[blk.attr]
        e0s.append((base[:, None] + ve.e0[None, :] * st).ravel())
        e1s.append((base[:, None] + ve.e1[None, :] * st).ravel())
    if not e0s:
        z = np.zeros(0, dtype=np.intp)
        return P, z, z.copy()
    return P, np.concatenate(e0s).astype(np.intp), np.concatenate(e1s).astype(np.intp)


@dataclass(frozen=True)
class WorstEdge:
    """The neighbour pair attaining the exact l2 sensitivity of the vote for C.

    x, x_prime: (p,) encoded records; shift: ||v(x') - v(x)||_2 (histogram units);
    n_edges: how many record-level edges were checked.
    """

    x: np.ndarray
    x_prime: np.ndarray
    shift: float
    n_edges: int


def _edge_norms(schema, policy, C, vote, tau, complete, ord=2):
    P, e0, e1 = record_level_edges(schema, policy, complete=complete)
    V = vote_vectors(schema, C, P, vote=vote, tau=tau)
    norms = np.linalg.norm(V[e1] - V[e0], ord=ord, axis=1) if e0.size else np.zeros(0)
    return P, e0, e1, norms


def worst_case_edge(
    schema: Schema, policy: Policy, C: np.ndarray, vote: str = "hard", tau: float | None = None,
    complete: bool = False, norm: str = "l2",
) -> WorstEdge:
    """Exact sensitivity of the vote histogram for population C by enumeration.

    Parameters
    ----------
    schema : Schema
        The finite public domain.
    policy : Policy
        Substitution edges only.
    C : (m, p) float ndarray
        Encoded candidates.
    vote : {'hard', 'soft'}, default 'hard'
        The vote.
    tau : float, optional
        Temperature of the soft vote (> 0; required for 'soft').
    complete : bool, default False
        Every pair of distinct records instead of the policy edges (bounded DP).
    norm : {'l2', 'l1'}, default 'l2'
        Norm of the vote shift.

    Returns
    -------
    WorstEdge
        The first edge (in enumeration order) with the largest ``||v(x') - v(x)||`` in ``norm``
    (``||.||_2`` by default); shift 0
        and x = x' when the edge set is empty.

    Raises
    ------
    SchemaError, PolicyError
        As :func:`record_level_edges`.
    """
    P, e0, e1, norms = _edge_norms(schema, policy, C, vote, tau, complete, ord=1 if norm == "l1" else 2)
    if norms.size == 0:
        return WorstEdge(P[0].copy(), P[0].copy(), 0.0, 0)
    k = int(np.argmax(norms))
    return WorstEdge(P[e0[k]].copy(), P[e1[k]].copy(), float(norms[k]), int(norms.size))


def _point_index(P: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Row index in P of each row of X (exact match of encoded coordinates)."""
    lookup = {row.tobytes(): i for i, row in enumerate(np.ascontiguousarray(P))}
    try:
        return np.array([lookup[np.ascontiguousarray(r).tobytes()] for r in np.asarray(X, dtype=float)], dtype=np.intp)
    except KeyError:
        raise SchemaError("audit: a background record is not a point of the public domain") from None
