"""The record-level policy graph, enumerated in batches (Def. 2.3, §2.2; App. C).

A record-level edge changes one attribute i by a protected value pair (u, v) of that
attribute and keeps every other attribute (the *context*) fixed.  Everything that
walks these edges -- Hard's certification (:func:`blowfish_core.model.sensitivity.hard_sensitivity`),
the exact sensitivity module and the privacy audit (:mod:`blowfish_core.analysis`) --
uses this one enumerator:

* per attribute, the protected value pairs are one :class:`~blowfish_core.model.policy.ValueEdges`
  (codes (L,), e0, e1 (E,)); finite domains from :func:`~blowfish_core.model.policy.value_edges`,
  continuous numeric domains from a grid (:func:`lattice_edges` for exact enumeration,
  :func:`offset_edges` for Hard's crossing search);
* :func:`iter_edge_blocks` yields :class:`EdgeBlock` s: attribute i, its value edges and a
  batch of b contexts -- either given (Hard's candidate contexts) or the product of the
  other attributes' codes, first attribute slowest.  Edge (context c, pair e) of a block
  joins rows ``c*L + e0[e]`` and ``c*L + e1[e]`` of :meth:`EdgeBlock.records`.

Order: attributes in schema order, then contexts, then pairs in ValueEdges order; the
batch size never changes which edge comes first, so searches that stop at the first
crossing find the same one whatever the memory budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from .domain import Attribute
from ..base.errors import SchemaError
from .attribute_policy import AttributePolicy, ValueEdges, _theta, value_edges

#: grid points along a continuous protected attribute in Hard's crossing search.
CONTINUOUS_GRID = 256


def _empty() -> np.ndarray:
    return np.zeros(0, dtype=np.intp)


def lattice_edges(a: Attribute, ap: AttributePolicy, grid: int) -> ValueEdges:
    """Value edges on a lattice.

    Every value of a finite domain, or ``grid`` equally spaced points over a continuous one
    with the pairs at most theta apart (exact=False).

    Parameters
    ----------
    a : Attribute
        The attribute.
    ap : AttributePolicy
        Its value graph.
    grid : int
        Number of points over a continuous domain, >= 2 (unused for a finite one).

    Returns
    -------
    ValueEdges
        The lattice's codes and protected pairs.

    Raises
    ------
    SchemaError
        For a grid below 2 on a continuous attribute.
    PolicyError
        When the policy does not fit.
    """
    ve = value_edges(a, ap)
    if ve is not None:
        return ValueEdges(ve.codes.astype(float), ve.e0.astype(np.intp), ve.e1.astype(np.intp), True, a.name)
    if isinstance(grid, bool) or not isinstance(grid, (int, np.integer)) or grid < 2:
        raise SchemaError(
            f"attribute '{a.name}' is continuous: the exact search needs a grid of at least 2 points "
            f"(got grid={grid!r}). Fix: pass e.g. grid=64"
        )
    G = int(grid)
    codes = np.linspace(0.0, 1.0, G)
    if ap.kind != "threshold" or float(_theta(ap, a.name)) <= 0:
        return ValueEdges(codes, _empty(), _empty(), False, a.name)
    step = 1.0 / (G - 1)
    k = int(math.floor(float(_theta(ap, a.name)) / a.width / step + 1e-9))
    k = min(k, G - 1)
    if k < 1:
        return ValueEdges(codes, _empty(), _empty(), False, a.name)
    e0 = np.concatenate([np.arange(G - s) for s in range(1, k + 1)]).astype(np.intp)
    e1 = np.concatenate([np.arange(s, G) for s in range(1, k + 1)]).astype(np.intp)
    return ValueEdges(codes, e0, e1, False, a.name)


def offset_edges(a: Attribute, ap: AttributePolicy, points: int = CONTINUOUS_GRID) -> ValueEdges:
    """Continuous threshold: ``points`` grid values g and g + theta (clipped), paired.

    Every pair is a true protected edge (Hard's crossing search; exact=False).

    Parameters
    ----------
    a : Attribute
        A continuous numeric attribute.
    ap : AttributePolicy
        Its threshold policy (theta in the attribute's units).
    points : int
        Number of pairs.

    Returns
    -------
    ValueEdges
        2 * points codes (g, then g + theta) and the pairs (k, points + k).

    Raises
    ------
    PolicyError
        If the policy has no theta (raised by the theta check).
    """
    theta = float(_theta(ap, a.name)) / a.width
    g = np.linspace(0.0, 1.0 - min(theta, 1.0), points)
    h = np.minimum(g + theta, 1.0)
    G = g.size
    return ValueEdges(np.concatenate([g, h]), np.arange(G), np.arange(G, 2 * G), False, a.name)


def search_edges(a: Attribute, ap: AttributePolicy, crossing_only: bool = False) -> ValueEdges:
    """Values along ``a`` and the protected pairs among them, for Hard's searches.

    Finite domains: every value and every protected pair.  Continuous numeric:
    :func:`offset_edges`.  crossing_only: for a threshold on an ordered domain keep only
    consecutive pairs -- enough to decide whether *some* protected edge crosses a decision
    boundary (if nn(a) != nn(b) with |a - b| <= theta, some consecutive pair between them
    differs too), not for measuring the largest soft change.

    Parameters
    ----------
    a : Attribute
        The attribute.
    ap : AttributePolicy
        Its value graph.
    crossing_only : bool
        Keep only consecutive pairs of a threshold on an ordered domain.

    Returns
    -------
    ValueEdges
        exact=True for a finite domain, False for the continuous grid.

    Raises
    ------
    PolicyError
        When the policy does not fit the attribute (raised by the policy check).
    """
    ve = value_edges(a, ap)
    if ve is None:
        return offset_edges(a, ap)
    ve = ValueEdges(ve.codes, ve.e0, ve.e1, True, a.name)
    if crossing_only and ap.kind == "threshold" and a.ordered and ve.e0.size:
        first = ve.e1 - ve.e0 == 1
        return ValueEdges(ve.codes, ve.e0[first], ve.e1[first], True, a.name)
    return ve


def context_count(edges: Sequence[ValueEdges], i: int) -> int:
    """Number of contexts of attribute i: the product of the other attributes' value counts.

    Parameters
    ----------
    edges : sequence of ValueEdges
        One per attribute, in schema order.
    i : int
        The changed attribute.

    Returns
    -------
    int
        prod_{j != i} L_j.
    """
    n = 1
    for j, ve in enumerate(edges):
        if j != i:
            n *= ve.size
    return n


def edge_total(edges: Sequence[ValueEdges]) -> int:
    """Record-level edges of a product lattice: sum_i |E_i| prod_{j != i} L_j (App. C).

    Parameters
    ----------
    edges : sequence of ValueEdges
        One per attribute, in schema order.

    Returns
    -------
    int
        The number of edges.
    """
    return int(sum(ve.e0.size * context_count(edges, i) for i, ve in enumerate(edges) if ve.e0.size))


@dataclass(frozen=True)
class EdgeBlock:
    """The record-level edges of attribute ``attr`` in a batch of b contexts.

    edges: the attribute's ValueEdges (L values, E pairs).  Z: (b, p) float64 encoded
    contexts (column ``attr`` is 0 for product contexts, ignored in any case).  index:
    (b, p) int value indices of product contexts into each attribute's codes (column
    ``attr`` 0), None for given contexts.  start: position of the first context.
    """

    attr: int
    edges: ValueEdges
    Z: np.ndarray
    index: np.ndarray | None = None
    start: int = 0

    @property
    def b(self) -> int:
        return int(self.Z.shape[0])

    def records(self) -> np.ndarray:
        """Every value of the attribute in every context: float64 (b*L, p), context-major."""
        L = self.edges.size
        R = np.repeat(self.Z, L, axis=0)
        R[:, self.attr] = np.tile(self.edges.codes, self.b)
        return R

    def endpoints(self) -> tuple[np.ndarray, np.ndarray]:
        """Both endpoints of every edge: two float64 (b*E, p), context-major."""
        E = self.edges.e0.size
        U = np.repeat(self.Z, E, axis=0)
        V = U.copy()
        U[:, self.attr] = np.tile(self.edges.codes[self.edges.e0], self.b)
        V[:, self.attr] = np.tile(self.edges.codes[self.edges.e1], self.b)
        return U, V

    def endpoint(self, ci: int, ei: int, which: int) -> np.ndarray:
        """Endpoint u (which=0) or v (which=1) of edge ei in context ci: float64 (p,)."""
        r = self.Z[ci].copy()
        e = self.edges.e0 if which == 0 else self.edges.e1
        r[self.attr] = self.edges.codes[e[ei]]
        return r


def product_contexts(edges: Sequence[ValueEdges], i: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Contexts start..stop-1 of attribute i in the product of the other attributes' codes.

    Parameters
    ----------
    edges : sequence of ValueEdges
        One per attribute, in schema order (p of them).
    i : int
        The changed attribute.
    start, stop : int
        The contexts' positions in the product, first attribute slowest; b = stop - start.

    Returns
    -------
    Z : (b, p) float64 ndarray
        Encoded contexts; column i is 0.
    index : (b, p) int ndarray
        Value indices into each attribute's codes; column i is 0.
    """
    p = len(edges)
    sizes = [ve.size for j, ve in enumerate(edges) if j != i]
    Z = np.zeros((stop - start, p))
    index = np.zeros((stop - start, p), dtype=np.intp)
    if sizes:
        idx = np.unravel_index(np.arange(start, stop), sizes)
        col = 0
        for j, ve in enumerate(edges):
            if j != i:
                index[:, j] = idx[col]
                Z[:, j] = ve.codes[idx[col]]
                col += 1
    return Z, index


def iter_edge_blocks(
    edges: Sequence[ValueEdges | None],
    batch: int | Callable[[int, ValueEdges, int], int],
    contexts: np.ndarray | None = None,
    attrs: Sequence[int] | None = None,
) -> Iterator[EdgeBlock]:
    """Yield the record-level edges attribute by attribute in blocks of contexts.

    Parameters
    ----------
    edges : sequence of ValueEdges or None
        One per attribute in schema order (None or no pair: skipped as a changed attribute;
        a product needs every entry).
    batch : int or callable
        Contexts per block, or batch(i, value_edges, n_contexts) -> int.
    contexts : (n, p) float64 ndarray or None
        Encoded contexts to use for every attribute (e.g. candidates), or None for the product
        of the other attributes' codes.
    attrs : sequence of int or None
        Attribute indices to enumerate (default all).

    Yields
    ------
    EdgeBlock
        Attributes in ``attrs`` order, then contexts in order.

    Raises
    ------
    ValueError
        For a product of contexts when an entry of ``edges`` is None.
    """
    order = range(len(edges)) if attrs is None else attrs
    for i in order:
        ve = edges[i]
        if ve is None or ve.e0.size == 0:
            continue
        full: list[ValueEdges] = []
        if contexts is not None:
            n_ctx = contexts.shape[0]
        else:
            full = [e for e in edges if e is not None]
            if len(full) != len(edges):
                raise ValueError("a product of contexts needs the ValueEdges of every attribute (got None)")
            n_ctx = context_count(full, i)
        bz = batch(i, ve, n_ctx) if callable(batch) else batch
        bz = max(1, int(bz))
        for s in range(0, n_ctx, bz):
            t = min(s + bz, n_ctx)
            if contexts is not None:
                yield EdgeBlock(i, ve, contexts[s:t], None, s)
            else:
                Z, index = product_contexts(full, i, s, t)
                yield EdgeBlock(i, ve, Z, index, s)
