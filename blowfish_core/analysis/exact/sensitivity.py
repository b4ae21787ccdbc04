"""Exact policy-specific sensitivity for a fixed population (Lemma 5.1): :func:`exact_sensitivity`
(hard and soft), every edge's cost (:func:`edge_costs`) and the hard crossing search."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ...base._lazy import pd
from ...base.errors import SchemaError
from ...model.policy import Policy
from ...model.schema import Schema
from ...model.sensitivity import SQRT2, Calibration, hard_sensitivity
from ...model.votes import VOTES, HardVote, check_tau, soft_rows
from .blocks import _Block, _decode, _iter_blocks, _line_ok, _record, _soft_tau
from .lattice import DEFAULT_GRID, DEFAULT_MAX_EDGES, Lattice, _check_limit, schema_lattices
from .metric import _check_population, _Metric, check_distance

METHODS = ("auto", "line", "enumerate")


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
    best: tuple[float, float, tuple[_Block, int, int] | None] = (-1.0, -1.0, None)  # (l2, l1, (blk, ci, ei))
    crossings = 0
    used: set[str] = set()
    for blk in _iter_blocks(schema, lats, C, tau=tau, distance=distance, hard=hard, soft=not hard, method=method):
        if hard:
            used.add("fast-nn" if schema.p == 1 and _line_ok(schema, blk.attr, distance) else "enumerate")
            cross = cast(np.ndarray, blk.cross)  # hard=True: every block has its crossings
            n = int(cross.sum())
            if n and crossings == 0:
                ci, ei = map(int, np.argwhere(cross)[0])
                best = (SQRT2, 2.0, (blk, ci, ei))
            crossings += n
        else:
            used.add("line" if method != "enumerate" and _line_ok(schema, blk.attr, distance) else "enumerate")
            l2, l1 = cast(np.ndarray, blk.l2), cast(np.ndarray, blk.l1)  # soft=True: every block has its costs
            ci, ei = map(int, np.unravel_index(int(np.argmax(l2)), l2.shape))
            v2 = float(l2[ci, ei])
            v1 = float(l1.max())
            if v2 > best[0]:
                best = (v2, max(best[1], v1), (blk, ci, ei))
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
    Cor. 5.2).  Participation edges (§5.6) add the removal of one vote: hard 1, soft
    max_x ||v(x)||_2.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.
    C : (m, p) float ndarray
        Encoded candidates.
    vote : {'soft', 'hard'}, default 'soft'
        'hard' (Cor. 5.3: 0 or sqrt 2) or 'soft' (Eq. 2, tau > 0).
    tau : float, optional
        Softmax temperature, > 0; required for the soft vote.
    distance : {'gower', 'euclidean'}, default 'gower'
        The distance.
    grid : int or dict of str to int, default DEFAULT_GRID
        Lattice points for continuous attributes.
    max_edges : float, default DEFAULT_MAX_EDGES
        Largest number of record-level edges enumerated.
    method : {'auto', 'line', 'enumerate'}, default 'auto'
        'auto' (the prefix-sum 'line' algorithm where it applies, else 'enumerate'), 'line'
        or 'enumerate' (both exact).

    Returns
    -------
    ExactSensitivity
        S_2, S_1, the edge attaining S_2 and how they were found.

    Raises
    ------
    BudgetError
        For a bad tau.
    SchemaError
        For a bad vote, method, population, grid or distance.
    PolicyError
        When the policy does not fit the schema.
    EnumerationLimitError
        For more than ``max_edges`` record-level edges.
    """
    if not isinstance(vote, str) or vote not in VOTES:
        raise SchemaError(f"vote must be 'hard' or 'soft' (got {vote!r})")
    if method not in METHODS:
        raise SchemaError(f"method must be one of {', '.join(METHODS)} (got {method!r})")
    check_distance(distance)
    hard = VOTES[vote] is HardVote
    if not hard:
        tau = _soft_tau(tau)
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

    Its maxima are the exact sensitivities of :func:`exact_sensitivity`.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.
    C : (m, p) float ndarray
        Encoded candidates.
    tau : float, optional
        Softmax temperature (> 0) of the soft vote; None: hard costs only.
    distance : {'gower', 'euclidean'}, default 'gower'
        The distance.
    grid : int or dict of str to int, default DEFAULT_GRID
        Lattice points for continuous attributes.
    max_edges : float, default 200_000
        Largest number of record-level edges listed.

    Returns
    -------
    pandas.DataFrame
        One row per edge: 'attribute', 'u_<name>' / 'v_<name>' (decoded values of both
        endpoints), 'nn_u', 'nn_v', 'crossing' (bool), 'hard' (0 or sqrt 2), and with tau:
        'soft' (||v(u) - v(v)||_2) and 'soft_l1'.

    Raises
    ------
    BudgetError, SchemaError, PolicyError, EnumerationLimitError
        As :func:`exact_sensitivity`.
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
        # hard=True fills the nearest candidates and crossings, soft=(tau given) the soft costs
        cross = cast(np.ndarray, blk.cross)
        df["nn_u"] = cast(np.ndarray, blk.nn_u).ravel()
        df["nn_v"] = cast(np.ndarray, blk.nn_v).ravel()
        df["crossing"] = cross.ravel()
        df["hard"] = np.where(cross.ravel(), SQRT2, 0.0)
        if tau is not None:
            df["soft"] = cast(np.ndarray, blk.l2).ravel()
            df["soft_l1"] = cast(np.ndarray, blk.l1).ravel()
        parts.append(df)
    if not parts:
        cols = ["attribute"] + [f"u_{n}" for n in schema.names] + [f"v_{n}" for n in schema.names]
        cols += ["nn_u", "nn_v", "crossing", "hard"] + (["soft", "soft_l1"] if tau is not None else [])
        return pd.DataFrame(columns=cols)
    return pd.concat(parts, ignore_index=True)


def crossing_search(schema: Schema, policy: Policy, C: np.ndarray, **kwargs: Any) -> Calibration:
    """The hard-vote crossing search of :func:`blowfish_core.model.sensitivity.hard_sensitivity`.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.
    C : (m, p) float ndarray
        Encoded candidates.
    **kwargs
        max_edges, contexts (passed to hard_sensitivity).

    Returns
    -------
    Calibration
        ``sensitivity`` sqrt(2) with ``how='certified-crossing'`` and the crossing
        edge as ``witness`` (decoded values, nn_u != nn_v), 'exhaustive-zero' or 'fallback'
        (Cor. 5.3; Gower distance).

    Raises
    ------
    SchemaError
        For a bad population C.
    """
    C = _check_population(schema, C)
    return hard_sensitivity(schema, policy, C, **kwargs)
