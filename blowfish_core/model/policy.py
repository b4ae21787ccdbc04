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

Modules (issue 22, one idea each; every name is re-exported here): :mod:`.attribute_policy` (one
attribute's value graph: :class:`AttributePolicy`, :class:`ValueEdges`, :func:`value_edges`,
:func:`attribute_reach`), :mod:`.policy_paths` (group privacy: :func:`path_length`,
:func:`components`, :func:`group_privacy`); here the policy over a schema and its record-level reach.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import PolicyError
from .attribute_policy import (  # noqa: F401  (re-exported)
    POLICY_KINDS, AttributePolicy, ValueEdges, _blocks, _edges, _parse_attr_spec, _theta, _validate_attribute_policy,
    attribute_reach, value_edges,
)
from .policy_paths import components, group_privacy, path_length, value_graph  # noqa: F401  (re-exported)
from .schema import Schema


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
