"""Drawing data for one attribute's policy graph (Def. 2.3): positions, not pictures.

Front ends turn the returned coordinates into figures (the Studio uses plotly); the
engine only lays the graph out (networkx) so the layout is testable and identical
everywhere.

* numeric attributes -> a *band diagram*: the public domain [lo, hi] and the band of
  values within theta of an example value (every value in the band is protected
  against the example; farther values are reached by chains of edges, l = ceil(|u-v|/theta));
* ordinal attributes -> values on a line, protected pairs drawn as arcs above it;
* categorical, binary and hierarchical attributes -> each connected component on its
  own circle, so blocks and hierarchy groups appear as separate clusters.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from ..model.policy import AttributePolicy, attribute_reach, value_edges
from ..model.schema import Attribute, _fmt

#: finite attributes with more values than this are summarized instead of drawn.
MAX_DRAWN_VALUES = 60
#: at most this many edges are drawn (the rest are counted).
MAX_DRAWN_EDGES = 1500
#: points per arc of a line layout.
ARC_POINTS = 13
#: components per row of a cluster layout (2: the editor column is narrow and labels need room).
CLUSTERS_PER_ROW = 2


def policy_graph_data(a: Attribute, ap: AttributePolicy, max_values: int = MAX_DRAWN_VALUES) -> dict[str, Any]:
    """Layout of attribute ``a``'s policy graph under ``ap``.

    Parameters
    ----------
    a : Attribute
        The attribute.
    ap : AttributePolicy
        Its policy.
    max_values : int, default MAX_DRAWN_VALUES
        Finite attributes with more values are summarized instead of drawn.

    Returns
    -------
    dict
        One of

        - {'kind': 'band', lo, hi, unit, theta (effective, attribute units), center, band: [a, b],
          hops (edges needed to cross the whole domain, None if unprotected), reach}
        - {'kind': 'graph', layout: 'line'|'clusters', nodes: [{label, x, y, component, label_side}],
          edge_x, edge_y (coordinates with None between edges), n_edges, n_drawn_edges,
          n_components, reach}; label_side is 'above' or 'below': away from the node's
          cluster centre, alternating for nodes level with it, so labels of a cluster do not collide
        - {'kind': 'summary', n_values, n_edges, reach, reason}   (too many values to draw)

    Raises
    ------
    PolicyError
        When the policy does not fit the attribute.
    """
    reach = attribute_reach(a, ap)
    if a.bounded and ap.kind in ("none", "threshold"):
        return _band(a, ap, reach)
    ve = value_edges(a, ap)
    if ve is None:  # pragma: no cover - continuous numeric with a non-threshold policy is rejected earlier
        return {"kind": "summary", "n_values": None, "n_edges": None, "reach": reach,
                "reason": "continuous domain"}
    vals = a.domain_values()
    L = len(vals)
    if L > max_values:
        return {"kind": "summary", "n_values": L, "n_edges": int(ve.e0.size), "reach": reach,
                "reason": f"{L} values (more than {max_values} are not drawn)"}
    comp = _component_labels(L, ve.e0, ve.e1)
    if a.ordered:
        pos = np.column_stack([np.arange(L, dtype=float), np.zeros(L)])
        layout = "line"
    else:
        pos = _cluster_positions(comp)
        layout = "clusters"
    ex: list[float | None] = []
    ey: list[float | None] = []
    drawn = min(int(ve.e0.size), MAX_DRAWN_EDGES)
    for i, j in zip(ve.e0[:drawn].tolist(), ve.e1[:drawn].tolist()):
        if layout == "line":
            t = np.linspace(0.0, 1.0, ARC_POINTS)
            xs = pos[i, 0] + (pos[j, 0] - pos[i, 0]) * t
            ys = 0.35 * math.sqrt(abs(j - i)) * np.sin(math.pi * t)
            ex.extend(xs.tolist())
            ey.extend(ys.tolist())
        else:
            ex.extend([float(pos[i, 0]), float(pos[j, 0])])
            ey.extend([float(pos[i, 1]), float(pos[j, 1])])
        ex.append(None)
        ey.append(None)
    side = ["below"] * L if layout == "line" else _label_sides(pos, comp)
    nodes = [{"label": _fmt(v), "x": float(pos[k, 0]), "y": float(pos[k, 1]), "component": int(comp[k]),
              "label_side": side[k]} for k, v in enumerate(vals)]
    return {
        "kind": "graph", "layout": layout, "nodes": nodes, "edge_x": ex, "edge_y": ey,
        "n_edges": int(ve.e0.size), "n_drawn_edges": drawn, "n_components": int(comp.max() + 1) if L else 0,
        "reach": reach,
    }


def _band(a: Attribute, ap: AttributePolicy, reach: float) -> dict[str, Any]:
    # a bounded (numeric) attribute has validated public bounds; attribute_reach validated ap
    lo, hi = cast(float, a.lo), cast(float, a.hi)
    width = hi - lo
    theta = 0.0
    if ap.kind == "threshold":
        theta = float(cast(float, ap.theta))
        if a.integer:
            theta = float(math.floor(theta + 1e-9))
        theta = min(theta, width)
    center = lo + width / 2.0
    if a.integer:
        center = float(math.floor(center))
    hops = None if theta <= 0 else int(math.ceil(width / theta - 1e-12))
    return {
        "kind": "band", "lo": float(lo), "hi": float(hi), "unit": a.threshold_unit, "name": a.name, "theta": theta,
        "center": center, "band": [max(lo, center - theta), min(hi, center + theta)],
        "hops": hops, "reach": reach,
    }


def _component_labels(L: int, e0: np.ndarray, e1: np.ndarray) -> np.ndarray:
    """Connected-component label per value, numbered by first appearance: int (L,)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if L == 0:
        return np.zeros(0, dtype=int)
    g = coo_matrix((np.ones(e0.size), (e0, e1)), shape=(L, L))
    _, lab = connected_components(g, directed=False)
    first: dict[int, int] = {}
    out = np.empty(L, dtype=int)
    for k, c in enumerate(lab.tolist()):
        out[k] = first.setdefault(c, len(first))
    return out


def _cluster_positions(comp: np.ndarray) -> np.ndarray:
    """Each component on its own circle (networkx circular layout), clusters in rows: (L, 2)."""
    import networkx as nx

    L = comp.size
    pos = np.zeros((L, 2))
    n_comp = int(comp.max() + 1) if L else 0
    for c in range(n_comp):
        idx = np.flatnonzero(comp == c)
        row, col = divmod(c, CLUSTERS_PER_ROW)
        cx, cy = 3.0 * col, -3.0 * row
        if idx.size == 1:
            pos[idx[0]] = (cx, cy)
            continue
        radius = 0.6 + 0.12 * math.sqrt(idx.size)
        lay = nx.circular_layout(list(range(idx.size)), scale=radius)
        for k, node in enumerate(idx):
            pos[node] = (cx + lay[k][0], cy + lay[k][1])
    return pos


def _label_sides(pos: np.ndarray, comp: np.ndarray) -> list[str]:
    """'above'/'below' per node of a cluster layout: the side facing away from its cluster's
    centre; nodes level with the centre alternate (a 2-node cluster gets one of each)."""
    out = ["below"] * comp.size
    for c in range(int(comp.max() + 1) if comp.size else 0):
        idx = np.flatnonzero(comp == c)
        cy = float(pos[idx, 1].mean())
        radius = float(np.abs(pos[idx] - pos[idx].mean(axis=0)).max()) if idx.size > 1 else 0.0
        level = 0
        for k in idx.tolist():
            dy = float(pos[k, 1]) - cy
            if abs(dy) > 0.25 * radius:
                out[k] = "above" if dy > 0 else "below"
            else:
                out[k] = "above" if level % 2 == 0 else "below"
                level += 1
    return out
