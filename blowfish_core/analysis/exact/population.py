"""Bounds of the soft vote's sensitivity: the closed form (Cor. 5.5, every population) and the
population-aware tilt bound (Lemma 5.4 with the population's own logit oscillation)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ...base.errors import SchemaError
from ...model.policy import AttributePolicy, Policy, record_reach
from ...model.schema import Attribute, Schema
from ...model.sensitivity import SQRT2, soft_bound
from ...model.votes import check_tau
from .blocks import _decode, _iter_blocks, _record
from .lattice import DEFAULT_GRID, DEFAULT_MAX_EDGES, _check_limit, attribute_lattice, schema_lattices
from .metric import BLOCK_ELEMS, _check_population, check_distance
from .sensitivity import _grid_info


# ------------------------------------------------------------------- bounds
def closed_form_bound(schema: Schema, policy: Policy, tau: float, norm: str = "l2") -> float:
    """Cor. 5.5: sqrt(2) tanh(r / (2 tau)) (l2) or 2 tanh(r / (2 tau)) (l1).

    r is the record-level reach (Gower units, Cor. 5.2).  Valid for every population.
    Participation edges (§5.6) raise it to at least 1.

    The paper's value (no float pad): the engine calibrates with
    :func:`blowfish_core.model.sensitivity.soft_bound`, this times (1 + SOFT_BOUND_PAD).

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy whose reach r is used.
    tau : float
        Softmax temperature, > 0.
    norm : {'l2', 'l1'}, default 'l2'
        The norm of the bound.

    Returns
    -------
    float
        The bound, in vote-histogram units of ``norm``.

    Raises
    ------
    BudgetError
        For a bad tau.
    SchemaError
        For a norm other than 'l1' or 'l2'.
    """
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
        if ap.kind != "threshold":
            return 0.0, None, None
        theta = float(cast(float, ap.theta))  # the policy was validated: a threshold has a finite theta
        if theta <= 0:
            return 0.0, None, None
        t = min(theta / a.width, 1.0)  # a continuous attribute is numeric: width = hi - lo
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
        osc_blk = cast(np.ndarray, blk.osc)  # osc=True: every block has its oscillations
        ci, ei = np.unravel_index(int(np.argmax(osc_blk)), osc_blk.shape)
        osc = float(osc_blk[ci, ei])
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
    oscillation is taken over the enumerated record-level edges.
    Participation edges (§5.6) raise it to at least 1.  Depends on the policy, tau,
    the public domain and the population only (DESIGN §7).

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy (validated against ``schema``).
    C : (m, p) float ndarray
        Encoded candidates.
    tau : float
        Softmax temperature, > 0.
    distance : {'gower', 'euclidean'}, default 'gower'
        The distance.
    grid : int or dict of str to int, default DEFAULT_GRID
        Lattice points per continuous attribute (Euclidean enumeration).
    max_edges : float, default DEFAULT_MAX_EDGES
        Largest number of record-level edges enumerated (Euclidean).

    Returns
    -------
    PopulationBound
        l2, l1, the oscillation, the per-attribute values and the closed form for comparison.

    Raises
    ------
    BudgetError
        For a bad tau.
    SchemaError
        For a bad population C or distance.
    PolicyError
        When the policy does not fit the schema.
    EnumerationLimitError
        Above ``max_edges`` record-level edges (Euclidean).
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
