"""One attribute's policy graph: its kinds, :class:`AttributePolicy` (parsed and checked against
the attribute), the protected value pairs :class:`ValueEdges` and the attribute's reach r_i.

Paper Def. 2.3, Def. 2.7; DESIGN §3 "Policy graph" and "Reach".  Issue 22: split off
:mod:`blowfish_core.model.policy`, which re-exports every name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import PolicyError
from .schema import Attribute, _fmt

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
