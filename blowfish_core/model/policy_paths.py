"""Group privacy on a policy graph: the value graph of a finite attribute, shortest paths and
connected components (networkx), and the budget that protects a pair joined by a path.

DESIGN §3 "Policy graph" (group privacy); paper Def. 2.3.  Issue 22: split off
:mod:`blowfish_core.model.policy`, which re-exports every name.
"""

from __future__ import annotations

import math
from typing import Any

from ..base.errors import PolicyError
from .attribute_policy import AttributePolicy, _theta, _validate_attribute_policy, value_edges
from .domain.base import declared_bounds
from .schema import Attribute, _fmt


def value_graph(a: Attribute, ap: AttributePolicy):
    """The attribute's policy graph on its domain values (finite domains only).

    Parameters
    ----------
    a : Attribute
        The attribute.
    ap : AttributePolicy
        Its value graph.

    Returns
    -------
    networkx.Graph
        Nodes: the domain values; edges: the protected pairs.

    Raises
    ------
    PolicyError
        For a continuous attribute, or when the policy does not fit the attribute.
    """
    import networkx as nx

    ve = value_edges(a, ap)
    if ve is None:
        raise PolicyError(f"attribute '{a.name}' is continuous; its graph cannot be enumerated")
    vals = a.domain_values()
    g = nx.Graph()
    g.add_nodes_from(vals)
    g.add_edges_from((vals[i], vals[j]) for i, j in zip(ve.e0.tolist(), ve.e1.tolist()))
    return g


def path_length(a: Attribute, ap: AttributePolicy, u: Any, v: Any) -> int | None:
    """Shortest-path length l between values u and v in the attribute's policy graph.

    Group privacy: the pair gets l*epsilon (pure) or l^2*rho (zCDP) (DESIGN §3).  Numeric
    thresholds use ceil(|u - v| / theta) (integer domains: floor(theta)); other graphs use
    networkx shortest paths.

    Parameters
    ----------
    a : Attribute
        The attribute.
    ap : AttributePolicy
        Its value graph.
    u, v : Any
        Two domain values, in the attribute's units/labels.

    Returns
    -------
    int or None
        l, in edges; None when u and v lie in different connected components (not protected
        from each other).

    Raises
    ------
    PolicyError
        If u or v is outside the public domain, or the policy does not fit the attribute.
    SchemaError
        If a bounded attribute has no declared bounds.
    """
    import networkx as nx

    _validate_attribute_policy(a, ap)
    if a.bounded and ap.kind in ("threshold", "none"):
        x, y = float(u), float(v)
        lo, hi = declared_bounds(a)
        for z in (x, y):
            if not lo <= z <= hi:
                raise PolicyError(f"value {_fmt(z)} is outside the public domain of '{a.name}'")
        if x == y:
            return 0
        theta = 0.0 if ap.kind == "none" else float(_theta(ap, a.name))
        if a.integer:
            theta = math.floor(theta + 1e-9)
        if theta <= 0:
            return None
        return int(math.ceil(abs(x - y) / theta - 1e-12))
    g = value_graph(a, ap)
    key = {_fmt(val): val for val in g.nodes}
    if _fmt(u) not in key or _fmt(v) not in key:
        raise PolicyError(f"value {u!r} or {v!r} is not in the domain of '{a.name}'")
    try:
        return int(nx.shortest_path_length(g, key[_fmt(u)], key[_fmt(v)]))
    except nx.NetworkXNoPath:
        return None


def components(a: Attribute, ap: AttributePolicy) -> list[list[Any]]:
    """Connected components of a finite attribute's policy graph (networkx).

    Parameters
    ----------
    a : Attribute
        The attribute (finite domain).
    ap : AttributePolicy
        Its value graph.

    Returns
    -------
    list of list
        One list of values per component, values and components in domain order.

    Raises
    ------
    PolicyError
        For a continuous attribute, or when the policy does not fit it (:func:`value_graph`).
    """
    import networkx as nx

    g = value_graph(a, ap)
    order = {_fmt(v): i for i, v in enumerate(a.domain_values())}
    comps = [sorted(c, key=lambda v: order[_fmt(v)]) for c in nx.connected_components(g)]
    return sorted(comps, key=lambda c: order[_fmt(c[0])])


def group_privacy(length: int | None, rho: float, epsilon: float | None = None) -> dict[str, float | None]:
    """Budget that protects a pair joined by a path of ``length`` edges (DESIGN §3).

    Parameters
    ----------
    length : int or None
        l, the path length in edges; None when the pair is not connected.
    rho : float
        The zCDP budget.
    epsilon : float or None
        The pure-DP budget, or None.

    Returns
    -------
    dict
        ``length``, ``rho`` = l^2 rho (zCDP) and ``epsilon`` = l epsilon (pure DP); the budgets
        are None when not connected (``epsilon`` also when not given).
    """
    if length is None:
        return {"length": None, "rho": None, "epsilon": None}
    return {
        "length": length,
        "rho": float(length**2 * rho),
        "epsilon": None if epsilon is None else float(length * epsilon),
    }
