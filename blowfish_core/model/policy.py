"""Blowfish policy graphs per attribute, reach and group-privacy paths.

Paper Def. 2.3, Def. 2.7, Cor. 5.2, Remark 3, §5.6; DESIGN §3 "Policy graph" and "Reach".

A policy assigns each attribute a value graph:

* ``none``       -- no protected pair on this attribute;
* ``threshold``  -- ``0 < d(u, v) <= theta`` with theta in the attribute's own units
  (numeric: the column's units, e.g. years; ordinal: levels; hierarchical: tree steps,
  2 = siblings);
* ``hierarchy``  -- hierarchical attributes only: siblings under one parent (= threshold 2);
* ``block``      -- a partition of the values; complete inside each block;
* ``complete``   -- every pair of values;
* ``edges``      -- an explicit list of value pairs.

The record-level graph links two records that agree on every attribute but one,
on which they differ by a protected pair.  Optional participation edges
``(u, bottom)`` add add/remove adjacency (§5.6) and impose a sensitivity floor.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.errors import PolicyError
from .domain.base import declared_bounds
from .schema import Attribute, Schema, _fmt

POLICY_KINDS = ("none", "threshold", "hierarchy", "block", "complete", "edges")


@dataclass(frozen=True)
class AttributePolicy:
    """The value graph of one attribute.

    kind: one of POLICY_KINDS.  theta: threshold in the attribute's units (>= 0).
    blocks: list of lists of values (block partition).  edges: list of [u, v] pairs.
    """

    kind: str = "none"
    theta: float | None = None
    blocks: list[list[Any]] | None = None
    edges: list[list[Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The value graph in the JSON policy format (docs/FORMATS.md).

        Returns
        -------
        dict
            ``type``, and ``theta`` / ``blocks`` / ``edges`` for the kinds that have them.
        """
        d: dict[str, Any] = {"type": self.kind}
        if self.kind == "threshold":
            d["theta"] = self.theta
        if self.kind == "block":
            d["blocks"] = self.blocks
        if self.kind == "edges":
            d["edges"] = self.edges
        return d

    def describe(self, attr: Attribute) -> str:
        """One-line human description, e.g. 'threshold 7 (years)'.

        Parameters
        ----------
        attr : Attribute
            The attribute the policy applies to (names the threshold's unit).

        Returns
        -------
        str
            The description.

        Raises
        ------
        PolicyError
            If a threshold, block or edges policy lacks its theta, blocks or edges.
        """
        if self.kind == "threshold":
            unit = attr.threshold_unit
            theta = _theta(self, attr.name)
            if float(theta) == 1 and unit.endswith("s"):
                unit = unit[:-1]  # "1 level", "1 year", "1 tree step"
            return f"threshold {_fmt(theta)} {unit}".strip()
        if self.kind == "block":
            return f"block partition ({len(_blocks(self, attr.name))} blocks)"
        if self.kind == "edges":
            return f"explicit edges ({len(_edges(self, attr.name))})"
        if self.kind == "hierarchy":
            return "hierarchy (siblings under one parent)"
        return self.kind


def _theta(ap: AttributePolicy, name: str) -> float:
    """The theta of a threshold policy; PolicyError when it has none."""
    if ap.theta is None:
        raise PolicyError(f"policy for '{name}': threshold must be a finite number (got None)")
    return ap.theta


def _blocks(ap: AttributePolicy, name: str) -> list[list[Any]]:
    """The blocks of a block policy; PolicyError when it has none."""
    if ap.blocks is None:
        raise PolicyError(f"policy for '{name}': block needs 'blocks', a list of lists of values")
    return ap.blocks


def _edges(ap: AttributePolicy, name: str) -> list[list[Any]]:
    """The pairs of an edges policy; PolicyError when it has none."""
    if ap.edges is None:
        raise PolicyError(f"policy for '{name}': edges needs 'edges', a list of [u, v] pairs")
    return ap.edges


@dataclass(frozen=True)
class ValueEdges:
    """Protected value pairs of one attribute: the engine's one value-edge representation.

    codes: (L,) float64 encoded values (the whole domain, or a grid over a continuous
    one); e0, e1: (E,) int indices into codes, one entry per undirected edge (e0 < e1 on
    a domain).  exact: False when a continuous attribute was replaced by a grid.
    name: the attribute's name.  The record-level edges built on it: blowfish_core.model.edges.
    """

    codes: np.ndarray
    e0: np.ndarray
    e1: np.ndarray
    exact: bool = True
    name: str = ""

    @property
    def size(self) -> int:
        """L, the number of values."""
        return int(self.codes.size)


@dataclass(frozen=True)
class Policy:
    """Per-attribute policy graphs over a schema (Def. 2.3).

    per_attribute: name -> AttributePolicy (attributes not listed are unprotected).
    participation: include participation edges (u, bottom) for every value (§5.6).
    Raises PolicyError (via :meth:`validate`) for unknown attributes or values,
    negative thresholds, and block partitions that overlap or miss values.
    """

    per_attribute: dict[str, AttributePolicy] = field(default_factory=dict)
    participation: bool = False

    # ------------------------------------------------------------ validation
    def validate(self, schema: Schema) -> "Policy":
        """Check every attribute's value graph against ``schema``.

        Parameters
        ----------
        schema : Schema
            The schema the policy applies to.

        Returns
        -------
        Policy
            self.

        Raises
        ------
        PolicyError
            For unknown attributes or values, negative thresholds, and block partitions that
            overlap or miss values.
        """
        for name, ap in self.per_attribute.items():
            if name not in schema.names:
                raise PolicyError(
                    f"policy names unknown attribute '{name}'. Known attributes: {', '.join(schema.names)}"
                )
            _validate_attribute_policy(schema[name], ap)
        return self

    def policy_for(self, name: str) -> AttributePolicy:
        """The value graph of attribute ``name``.

        Parameters
        ----------
        name : str
            An attribute name.

        Returns
        -------
        AttributePolicy
            Its policy; ``none`` for an attribute not listed.
        """
        return self.per_attribute.get(name, AttributePolicy("none"))

    def protected(self, schema: Schema) -> list[str]:
        """Names of attributes with at least one protected pair.

        Parameters
        ----------
        schema : Schema
            The schema the policy applies to.

        Returns
        -------
        list of str
            In schema order.
        """
        return [a.name for a in schema.attributes if attribute_reach(a, self.policy_for(a.name)) > 0]

    # ------------------------------------------------------------------ json
    def to_dict(self) -> dict[str, Any]:
        """The policy in the JSON policy format (docs/FORMATS.md).

        Returns
        -------
        dict
            ``attributes`` (name -> value graph) and ``participation``.
        """
        return {
            "attributes": {k: v.to_dict() for k, v in self.per_attribute.items()},
            "participation": bool(self.participation),
        }

    def to_json(self) -> str:
        """The policy as JSON text (:meth:`to_dict`, indented).

        Returns
        -------
        str
            The JSON text.
        """
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, d: Any) -> "Policy":
        """Parse the JSON policy format (docs/FORMATS.md).

        Parameters
        ----------
        d : Any
            The parsed JSON: an object with an object "attributes".

        Returns
        -------
        Policy
            The policy (not yet validated against a schema).

        Raises
        ------
        PolicyError
            For a malformed document: unknown fields or types, a threshold without a number
            'theta', a block without 'blocks', edges without 'edges', a non-boolean 'participation'.
        """
        if not isinstance(d, dict) or not isinstance(d.get("attributes", {}), dict):
            raise PolicyError('policy JSON must be an object with an object "attributes"')
        unknown = set(d) - {"attributes", "participation"}
        if unknown:
            raise PolicyError(f"policy JSON: unknown field(s) {sorted(unknown)}")
        part = d.get("participation", False)
        if not isinstance(part, bool):
            raise PolicyError("policy JSON: 'participation' must be true or false")
        per = {}
        for name, spec in d.get("attributes", {}).items():
            per[str(name)] = _parse_attr_spec(str(name), spec)
        return cls(per, participation=part)

    @classmethod
    def from_json(cls, text: str) -> "Policy":
        """Parse JSON text in the policy format (:meth:`from_dict`).

        Parameters
        ----------
        text : str
            The JSON text.

        Returns
        -------
        Policy
            The policy (not yet validated against a schema).

        Raises
        ------
        PolicyError
            If ``text`` is not valid JSON, or as :meth:`from_dict`.
        """
        try:
            d = json.loads(text)
        except (json.JSONDecodeError, TypeError, RecursionError) as e:
            raise PolicyError(f"policy file is not valid JSON: {e}") from None
        return cls.from_dict(d)


def _parse_attr_spec(name: str, spec: Any) -> AttributePolicy:
    if isinstance(spec, str):
        spec = {"type": spec}
    if not isinstance(spec, dict):
        raise PolicyError(f"policy for '{name}' must be an object like {{\"type\": \"threshold\", \"theta\": 7}}")
    unknown = set(spec) - {"type", "theta", "blocks", "edges"}
    if unknown:
        raise PolicyError(f"policy for '{name}': unknown field(s) {sorted(unknown)}")
    kind = spec.get("type")
    if kind not in POLICY_KINDS:
        raise PolicyError(f"policy for '{name}': unknown type {kind!r}. Use one of {', '.join(POLICY_KINDS)}")
    theta = spec.get("theta")
    if kind == "threshold":
        if isinstance(theta, bool) or not isinstance(theta, (int, float)):
            raise PolicyError(f"policy for '{name}': threshold needs a number 'theta' (got {theta!r})")
    blocks = spec.get("blocks")
    if kind == "block" and (not isinstance(blocks, list) or not all(isinstance(b, list) for b in blocks)):
        raise PolicyError(f"policy for '{name}': block needs 'blocks', a list of lists of values")
    edges = spec.get("edges")
    if kind == "edges" and (
        not isinstance(edges, list) or not all(isinstance(e, list) and len(e) == 2 for e in edges)
    ):
        raise PolicyError(f"policy for '{name}': edges needs 'edges', a list of [u, v] pairs")
    return AttributePolicy(kind, theta=theta, blocks=blocks, edges=edges)


def parse_protect_spec(text: str) -> tuple[str, str, float | None]:
    """Parse a CLI ``ATTR=SPEC`` or a bare ``ATTR`` (preset default).

    Parameters
    ----------
    text : str
        ``ATTR=SPEC`` (SPEC: threshold:VALUE, block, complete, none, hierarchy) or ``ATTR``.

    Returns
    -------
    attr : str
        The attribute name.
    kind : str
        The policy kind, or '' for a bare ``ATTR``.
    theta : float or None
        The threshold of ``threshold:VALUE``, else None.

    Raises
    ------
    PolicyError
        For a missing attribute name, an unknown policy, a threshold that is not a finite
        number >= 0, or a value given to a kind that takes none.
    """
    name, _, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    if not name:
        raise PolicyError(f"--protect '{text}': missing attribute name. Use ATTR=threshold:7, ATTR=block, ...")
    if not spec:
        return name, "", None
    kind, _, val = spec.partition(":")
    if kind not in POLICY_KINDS or kind == "edges":
        raise PolicyError(
            f"--protect {text}: unknown policy '{kind}'. Use threshold:VALUE, block, complete, hierarchy or none"
        )
    if kind == "threshold":
        try:
            theta = float(val)
        except ValueError:
            raise PolicyError(f"--protect {text}: threshold needs a number, e.g. {name}=threshold:7") from None
        if not math.isfinite(theta) or theta < 0:
            raise PolicyError(f"--protect {text}: threshold must be a finite number >= 0 (got {val})")
        return name, kind, theta
    if val:
        raise PolicyError(f"--protect {text}: '{kind}' takes no value")
    return name, kind, None


def _validate_attribute_policy(a: Attribute, ap: AttributePolicy) -> None:
    n = a.name
    if ap.kind not in POLICY_KINDS:
        raise PolicyError(f"policy for '{n}': unknown type {ap.kind!r}")
    if ap.kind == "threshold":
        t = ap.theta
        if t is None or isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
            raise PolicyError(f"policy for '{n}': threshold must be a finite number (got {t!r})")
        if t < 0:
            raise PolicyError(f"policy for '{n}': threshold must be >= 0 (got {_fmt(t)}). Fix: use a non-negative width")
        if not a.graded:
            raise PolicyError(
                f"policy for '{n}': a threshold needs a graded distance, but '{n}' is {a.kind}. "
                "Fix: use block, complete or explicit edges"
            )
    if ap.kind == "hierarchy" and not a.has_tree:
        raise PolicyError(f"policy for '{n}': 'hierarchy' applies to hierarchical attributes only")
    if ap.kind in ("block", "edges", "complete") and not a.is_finite:
        raise PolicyError(f"policy for '{n}': '{ap.kind}' needs an enumerable domain; use threshold for a continuous column")
    if ap.kind == "block":
        known = {_fmt(v) for v in a.domain_values()}
        seen: dict[str, int] = {}
        for bi, block in enumerate(ap.blocks or []):
            for v in block:
                k = _fmt(v)
                if k not in known:
                    raise PolicyError(f"policy for '{n}': block {bi + 1} names unknown value '{k}'")
                if k in seen:
                    raise PolicyError(
                        f"policy for '{n}': value '{k}' is in blocks {seen[k] + 1} and {bi + 1}; "
                        "blocks must not overlap"
                    )
                seen[k] = bi
        missing = sorted(known - set(seen))
        if missing:
            raise PolicyError(
                f"policy for '{n}': the block partition does not cover {missing[:5]}"
                f"{'...' if len(missing) > 5 else ''}. Fix: put every value in exactly one block"
            )
    if ap.kind == "edges":
        known = {_fmt(v) for v in a.domain_values()}
        for e in ap.edges or []:
            for v in e:
                if _fmt(v) not in known:
                    raise PolicyError(f"policy for '{n}': edge {e} names unknown value '{_fmt(v)}'")


# ---------------------------------------------------------------------- edges
def value_edges(a: Attribute, ap: AttributePolicy) -> ValueEdges | None:
    """Protected value pairs of one attribute.

    Parameters
    ----------
    a : Attribute
        The attribute.
    ap : AttributePolicy
        Its value graph.

    Returns
    -------
    ValueEdges or None
        The pairs over the attribute's domain codes; None for a continuous numeric domain.

    Raises
    ------
    PolicyError
        When the policy does not fit the attribute.
    """
    _validate_attribute_policy(a, ap)
    if not a.is_finite:
        return None
    codes = a.domain_codes()
    L = len(codes)
    if ap.kind == "none" or L < 2:
        return ValueEdges(codes, np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp), name=a.name)
    if ap.kind in ("threshold", "hierarchy"):
        # in the attribute's units: steps on a line, levels, or tree steps (hierarchy = siblings)
        i0, i1 = a.threshold_pairs(2.0 if ap.kind == "hierarchy" else float(_theta(ap, a.name)))
        return ValueEdges(codes, i0, i1, name=a.name)
    if ap.kind == "complete":
        mask = ~np.eye(L, dtype=bool)
    elif ap.kind == "block":
        index = {_fmt(v): i for i, v in enumerate(a.domain_values())}
        lab = np.empty(L, dtype=int)
        for bi, block in enumerate(_blocks(ap, a.name)):
            for v in block:
                lab[index[_fmt(v)]] = bi
        mask = (lab[:, None] == lab[None, :]) & ~np.eye(L, dtype=bool)
    elif ap.kind == "edges":
        index = {_fmt(v): i for i, v in enumerate(a.domain_values())}
        mask = np.zeros((L, L), dtype=bool)
        for u, v in _edges(ap, a.name):
            iu, iv = index[_fmt(u)], index[_fmt(v)]
            if iu != iv:
                mask[iu, iv] = mask[iv, iu] = True
    else:  # pragma: no cover
        raise PolicyError(f"policy for '{a.name}': unknown type {ap.kind!r}")
    i0, i1 = np.nonzero(np.triu(mask, 1))
    return ValueEdges(codes, i0.astype(np.intp), i1.astype(np.intp), name=a.name)


def attribute_reach(a: Attribute, ap: AttributePolicy) -> float:
    """Unweighted reach r_i = max Gower term d_i(u, v) over protected pairs (Def. 2.7).

    Parameters
    ----------
    a : Attribute
        The attribute.
    ap : AttributePolicy
        Its value graph.

    Returns
    -------
    float
        r_i, in [0, 1] (unweighted Gower units).

    Raises
    ------
    PolicyError
        When the policy does not fit the attribute (raised by the policy check).
    """
    _validate_attribute_policy(a, ap)
    if ap.kind == "none":
        return 0.0
    closed = a.threshold_reach(_theta(ap, a.name)) if ap.kind == "threshold" else None
    if closed is not None:
        return closed
    ve = value_edges(a, ap)
    if ve is None or ve.e0.size == 0:
        return 0.0
    d = a.term(ve.codes[ve.e0], ve.codes[ve.e1])
    return float(np.max(d))


def weighted_reaches(schema: Schema, policy: Policy) -> dict[str, float]:
    """w_i r_i per attribute (Cor. 5.2).

    Parameters
    ----------
    schema : Schema
        The schema (its Gower weights w_i).
    policy : Policy
        The policy graphs.

    Returns
    -------
    dict of str to float
        Attribute name -> w_i r_i, in Gower units, in schema order.

    Raises
    ------
    PolicyError
        When the policy does not fit the schema (:meth:`Policy.validate`).
    """
    policy.validate(schema)
    w = schema.weights
    return {a.name: float(w[i] * attribute_reach(a, policy.policy_for(a.name))) for i, a in enumerate(schema.attributes)}


def record_reach(schema: Schema, policy: Policy) -> float:
    """Record-level reach r_d(G) = max_i w_i r_i (Cor. 5.2: a max, not a sum).

    Parameters
    ----------
    schema : Schema
        The schema (its Gower weights w_i).
    policy : Policy
        The policy graphs.

    Returns
    -------
    float
        r_d(G), in Gower units.

    Raises
    ------
    PolicyError
        When the policy does not fit the schema (:meth:`Policy.validate`).
    """
    per = weighted_reaches(schema, policy)
    return max(per.values()) if per else 0.0


def record_edge_count(schema: Schema, policy: Policy) -> float:
    """Number of record-level edges (App. C): sum_i |E_i| prod_{j != i} |T_j|.

    Parameters
    ----------
    schema : Schema
        The schema.
    policy : Policy
        The policy graphs.

    Returns
    -------
    float
        The count; math.inf when a protected attribute or any other attribute is continuous.
    """
    total = 0.0
    sizes = [a.size if a.is_finite else None for a in schema.attributes]
    for i, a in enumerate(schema.attributes):
        ap = policy.policy_for(a.name)
        if attribute_reach(a, ap) == 0:
            continue
        ve = value_edges(a, ap)
        if ve is None or any(s is None for j, s in enumerate(sizes) if j != i):
            return math.inf
        rest = 1.0
        for j, s in enumerate(sizes):
            if j != i and s is not None:  # (a None size returned inf above)
                rest *= s
        total += ve.e0.size * rest
    return total


# ----------------------------------------------------------- group privacy
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
