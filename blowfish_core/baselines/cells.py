"""Public discretization for the marginal-based baselines: schema -> cells and back.

PRIVACY RULE (DESIGN §3 "Schema and public domain", §7): every cell count and bin edge
comes from the *public* schema, never from the private table.  (MST's published
preprocessing builds the domain from the data; this module deliberately does not.)

Cells per attribute, the same cells PWErr uses (blowfish_core.model.metrics.bin_codes):

* numeric: ``bins`` equal-width bins over the public [lo, hi] (default
  metrics.NUMERIC_BINS = 20).  For an integer attribute whose span is narrower than
  the bins, bins that hold no whole number are dropped (they could never be filled),
  so the cells are the non-empty bins, in order;
* ordinal, categorical, binary, hierarchical: one cell per declared level.

Decoding a cell back to a value (docs/DECISIONS.md "Baselines"): finite attributes map
back exactly; a numeric bin becomes a value drawn *uniformly within the bin* (whole
numbers in the bin for an integer attribute), so the release re-bins to the same cell
and keeps the within-bin spread that a midpoint would collapse.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base.errors import SchemaError
from ..model.domain.base import Attribute, declared_bounds
from ..model.metrics import NUMERIC_BINS, bin_codes
from ..model.schema import Schema

#: integer attributes with a span up to this are decoded by enumerating their whole numbers.
MAX_ENUMERATED = 2_000_000


def _width(a: Attribute) -> float:
    """hi - lo of a bounded attribute (SchemaError when a bound was never declared)."""
    lo, hi = declared_bounds(a)
    return hi - lo


@dataclass(frozen=True)
class PublicCells:
    """Cell layout of a schema.

    names: attribute names (p,); sizes: cells per attribute (p,), all from the schema.
    bins: numeric bin count.  remap[i]: for an attribute whose bin codes are not the
    cells (integer attributes with empty bins) an int array bin code -> cell, else None.
    """

    schema: Schema
    bins: int
    sizes: tuple[int, ...]
    remap: tuple[np.ndarray | None, ...]

    @classmethod
    def from_schema(cls, schema: Schema, bins: int = NUMERIC_BINS) -> PublicCells:
        """Cells of every modeled attribute from the public schema alone.

        Raises SchemaError if ``bins`` is not an integer >= 1.
        """
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
            raise SchemaError(f"bins must be an integer >= 1 (got {bins!r})")
        bins = int(bins)
        sizes: list[int] = []
        remap: list[np.ndarray | None] = []
        for i, a in enumerate(schema.attributes):
            used = None
            if a.bounded and a.integer and _width(a) < 4 * bins:
                # which bins hold a whole number of the public domain (computed on the domain itself)
                used = np.unique(_bin_of(schema, i, _integer_codes(a), bins))
            if used is not None and used.size < bins:
                m = np.full(bins, -1, dtype=np.int64)
                m[used] = np.arange(used.size)
                sizes.append(int(used.size))
                remap.append(m)
            elif a.bounded:
                sizes.append(bins)
                remap.append(None)
            else:
                sizes.append(len(a.levels))
                remap.append(None)
        return cls(schema, bins, tuple(sizes), tuple(remap))

    @property
    def names(self) -> list[str]:
        return self.schema.names

    def config(self) -> dict[str, int]:
        """{attribute name: cell count}, all public."""
        return dict(zip(self.names, self.sizes))

    def encode(self, X: np.ndarray) -> np.ndarray:
        """Encoded records (n, p) float -> cell indices (n, p) int64 in [0, sizes[i])."""
        codes, _ = bin_codes(self.schema, X, self.bins)
        for i, m in enumerate(self.remap):
            if m is not None:
                codes[:, i] = m[codes[:, i]]
        return codes

    def decode(self, cells: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Cell indices (r, p) int -> encoded records (r, p) float64 (schema encoding).

        Numeric cells: uniform within the bin (whole numbers for integer attributes);
        other cells: the level itself.  Raises SchemaError for a cell out of range.
        """
        cells = np.asarray(cells, dtype=np.int64)
        out = np.empty(cells.shape, dtype=float)
        for i, a in enumerate(self.schema.attributes):
            c = cells[:, i]
            if c.size and (c.min() < 0 or c.max() >= self.sizes[i]):
                raise SchemaError(f"attribute '{a.name}': cell index out of range 0..{self.sizes[i] - 1}")
            if a.bounded and a.integer:
                out[:, i] = self._decode_integer(i, c, rng)
            elif a.bounded:
                lo = c / self.bins
                x = lo + rng.uniform(0.0, 1.0, size=c.size) / self.bins
                # keep the draw inside the bin as bin_codes computes it (float edges)
                x = np.clip(x, 0.0, 1.0)
                back = np.minimum((x * self.bins).astype(np.int64), self.bins - 1)
                out[:, i] = np.where(back == c, x, lo)
            elif a.ordered:  # levels in order (ordinal): code rank / (L - 1)
                out[:, i] = c / max(len(a.levels) - 1, 1)
            else:
                out[:, i] = c
        return out

    def _decode_integer(self, i: int, c: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        a = self.schema.attributes[i]
        lo, hi = declared_bounds(a)
        if hi - lo > MAX_ENUMERATED:
            # very wide integer domain: uniform in the bin, rounded; bins are >= 1 wide here
            x = (c + rng.uniform(0.0, 1.0, size=c.size)) / self.bins
            v = np.clip(np.rint(lo + x * (hi - lo)), lo, hi)
            return (v - lo) / (hi - lo)
        vals = _integer_codes(a)
        cell = _bin_of(self.schema, i, vals, self.bins)
        remap = self.remap[i]
        if remap is not None:
            cell = remap[cell]
        order = np.argsort(cell, kind="stable")
        counts = np.bincount(cell, minlength=self.sizes[i])
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        pick = starts[c] + np.floor(rng.uniform(0.0, 1.0, size=c.size) * counts[c]).astype(np.int64)
        return vals[order[pick]]


def _integer_codes(a) -> np.ndarray:
    """Encoded coordinates of every whole number of an integer attribute's public range."""
    return (np.arange(a.lo, a.hi + 1.0) - a.lo) / (a.hi - a.lo)


def _bin_of(schema: Schema, i: int, col: np.ndarray, bins: int) -> np.ndarray:
    """Bin code of encoded values of attribute i exactly as metrics.bin_codes computes it."""
    X = np.zeros((col.size, schema.p))
    X[:, i] = col
    return bin_codes(schema, X, bins)[0][:, i]
