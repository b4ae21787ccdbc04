"""The public domain as lattices: every attribute's codes and protected value pairs (continuous
attributes replaced by a grid), the records of the lattice, the number of record-level edges
and the limit of the exact search (:class:`EnumerationLimitError`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base.errors import SchemaError
from ...model.edges import edge_total, lattice_edges
from ...model.policy import AttributePolicy, Policy, ValueEdges
from ...model.schema import Attribute, Schema

#: default lattice resolution (points) of a continuous numeric attribute.
DEFAULT_GRID = 64
#: largest number of record-level edges :func:`exact_sensitivity` enumerates.
DEFAULT_MAX_EDGES = 5_000_000


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

    Parameters
    ----------
    a : Attribute
        The attribute.
    ap : AttributePolicy
        Its policy.
    grid : int, default DEFAULT_GRID
        Points of a continuous numeric attribute (>= 2).

    Returns
    -------
    ValueEdges
        The attribute's codes and protected value pairs.

    Raises
    ------
    SchemaError
        For a grid below 2.
    PolicyError
        When the policy does not fit the attribute.
    """
    return lattice_edges(a, ap, grid)


def schema_lattices(schema: Schema, policy: Policy, grid: int | dict[str, int] = DEFAULT_GRID) -> list[Lattice]:
    """One :class:`Lattice` per attribute, in schema order.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy (validated against ``schema``).
    grid : int or dict of str to int, default DEFAULT_GRID
        Points per continuous attribute (an int for all, or name -> int).

    Returns
    -------
    list of Lattice
        One per attribute.

    Raises
    ------
    PolicyError, SchemaError
        As :func:`attribute_lattice`.
    """
    policy.validate(schema)
    out = []
    for a in schema.attributes:
        g = grid.get(a.name, DEFAULT_GRID) if isinstance(grid, dict) else grid
        out.append(attribute_lattice(a, policy.policy_for(a.name), g))
    return out


def lattice_records(schema: Schema, grid: int | dict[str, int] = DEFAULT_GRID,
                    max_records: int = 1_000_000) -> np.ndarray:
    """Every point of the product lattice, encoded, first attribute slowest.

    Used for decision-region maps.

    Parameters
    ----------
    schema : Schema
        The public domain.
    grid : int or dict of str to int, default DEFAULT_GRID
        Points per continuous attribute.
    max_records : int, default 1_000_000
        Largest number of points N accepted.

    Returns
    -------
    (N, p) float64 ndarray
        The encoded points.

    Raises
    ------
    EnumerationLimitError
        When N > max_records.
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

    Parameters
    ----------
    name : str
        The axis (attribute) name, used in messages.
    lo, hi : number
        The bounds, in the attribute's units.
    max_width : float, default MAX_AXIS_WIDTH
        Largest hi - lo accepted.

    Returns
    -------
    lo, hi : float
        The bounds as floats.

    Raises
    ------
    SchemaError
        Naming the bound field: a bound not a number or not finite, lo >= hi, or hi - lo
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


def record_edge_total(lats: list[Lattice]) -> int:
    """Number of record-level edges of a product lattice: sum_i |E_i| prod_{j != i} L_j.

    Parameters
    ----------
    lats : list of Lattice
        One per attribute.

    Returns
    -------
    int
        The edge count.
    """
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
