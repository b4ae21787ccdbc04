"""The Gower kernel's float64 part (paper §2.3, §6.1): per-attribute and fused joint lookup
tables of weighted terms against one candidate population, and blocks of distances from them.

Out of distance.py (issue 22); :class:`~blowfish_core.model.gower_kernel.GowerKernel` adds the
float32 nearest-candidate search on top.

Speed: for every attribute with an enumerable domain of at most
``LOOKUP_MAX`` values the weighted term against the m candidates is tabulated
once per population as an (L_i, m) table, so a block of distances is a sum of p
row gathers; continuous attributes use a direct |x - c| pass.  Blocks are
at most ``chunk_rows(m)`` rows so the (rows, m) working set stays under
``BLOCK_BYTES``.
"""

from __future__ import annotations

from typing import Iterator, cast

import numpy as np

from .rows import distinct_rows, domain_index, sorted_distinct
from .schema import Schema
from .tiling import JOINT_BYTES, LOOKUP_MAX, chunk_rows


class GowerTables:
    """Float64 distances from many records to one fixed candidate population.

    C: (m, p) float64 encoded candidates.  Build once per round; call
    :meth:`block` for row blocks of records (:class:`~blowfish_core.model.gower_kernel.GowerKernel`
    is this with the float32 nearest-candidate search).
    """

    def __init__(self, schema: Schema, C: np.ndarray, joint_bytes: int = JOINT_BYTES):
        self.schema = schema
        self.C = np.asarray(C, dtype=float)
        self.m = self.C.shape[0]
        w = schema.weights
        self.w = w
        tables: dict[int, np.ndarray] = {}
        self.direct: list[int] = []
        for i, a in enumerate(schema.attributes):
            size = a.size
            if size is not None and size <= LOOKUP_MAX:
                vals = a.domain_codes()
                tables[i] = w[i] * a.term(vals[:, None], self.C[None, :, i])
            else:
                self.direct.append(i)
        # Fuse finite attributes into joint tables (mixed-radix index) while a joint
        # table would stay under ``joint_bytes``: fewer passes over the (rows, m) block.
        # A joint table holds rows only for the joint codes the records use, filled on
        # first use (issue 15: Adult uses about 2,400 of the 7,326 rows of its largest
        # table, and the full table was 60 MB rebuilt every round).  Each row is the same
        # left-to-right float sum of the per-attribute rows as a fully fused table, so
        # distances are bit-identical to fusing everything.
        max_rows = max(1, joint_bytes // (8 * max(self.m, 1)))
        order = sorted(tables, key=lambda i: -tables[i].shape[0])
        groups: list[tuple[list[int], list[int]]] = []
        for i in order:
            L = tables[i].shape[0]
            for g in groups:
                if int(np.prod(g[1])) * L <= max_rows:
                    g[0].append(i)
                    g[1].append(L)
                    break
            else:
                groups.append(([i], [L]))
        self._tables = tables
        self._bound: float | None = None  # distance_bound(), computed on first use
        self._t32: dict[tuple[int, bool], np.ndarray] = {}  # GowerKernel._table32 cache, filled on first use
        #: per group: (member attributes, their domain sizes, table); a joint group's
        #: table is compact (used codes only) and ``_slot[g]`` maps a joint code to its row.
        self.groups: list[tuple[list[int], list[int], np.ndarray]] = []
        self._slot: list[np.ndarray | None] = []
        self._used: list[int] = []
        for members, sizes in groups:
            if len(members) == 1:
                self.groups.append((members, sizes, tables[members[0]]))
                self._slot.append(None)
            else:
                self.groups.append((members, sizes, np.empty((0, self.m))))
                self._slot.append(np.full(int(np.prod(sizes)), -1, dtype=np.intp))
            self._used.append(0)

    def _fill(self, g: int, gi: np.ndarray, slot: np.ndarray) -> None:
        """Add the rows of joint group g for the codes in gi that have none (bounds checked).

        slot: the group's ``_slot[g]`` (a joint group's), updated in place."""
        need = gi[slot[gi] < 0]
        if need.size == 0:
            return
        codes = np.unique(need)
        members, sizes, T = self.groups[g]
        digits = []
        rest = codes.copy()
        for L in reversed(sizes):
            digits.append(rest % L)
            rest //= L
        digits.reverse()
        # np.take with mode="clip" (digits are in range by construction): no index buffering
        rows = np.take(self._tables[members[0]], digits[0], axis=0, mode="clip")
        tmp = np.empty_like(rows) if len(members) > 1 else None
        for j, d in zip(members[1:], digits[1:]):
            np.take(self._tables[j], d, axis=0, out=tmp, mode="clip")
            rows += tmp
        used = self._used[g]
        if used == 0 and T.shape[0] == 0:  # first fill: the rows are the table (no copy)
            T = rows
            self.groups[g] = (members, sizes, T)
        elif used + codes.size > T.shape[0]:  # grow geometrically (later fills: calibration contexts)
            grown = np.empty((max(used + codes.size, 2 * T.shape[0]), self.m))
            grown[:used] = T[:used]
            T = grown
            self.groups[g] = (members, sizes, T)
        if T is not rows:
            T[used:used + codes.size] = rows
        slot[codes] = np.arange(used, used + codes.size)
        self._used[g] = used + codes.size

    def _group_index(self, I: np.ndarray, members: list[int], sizes: list[int]) -> np.ndarray:
        g = I[:, members[0]].astype(np.intp)
        for j, L in zip(members[1:], sizes[1:]):
            g = g * L + I[:, j]
        return g

    def _rows_of(self, g: int, I: np.ndarray) -> np.ndarray:
        """Row index into group g's table for each record of I (rows filled as needed)."""
        members, sizes, T = self.groups[g]
        gi = self._group_index(I, members, sizes)
        # Bounds checked here so the gathers can use mode="clip": with out= and the
        # default mode="raise" numpy buffers the whole (rows, m) output (about 3x slower).
        slot = self._slot[g]
        if gi.size and (gi.min() < 0 or gi.max() >= (T.shape[0] if slot is None else slot.size)):
            raise IndexError(f"domain index out of range for attributes {members}: "
                             f"records must be encoded with the kernel's schema")
        if slot is None:
            return gi
        self._fill(g, gi, slot)
        return slot[gi]

    def prepare(self, I: np.ndarray) -> None:
        """Fill the joint-table rows used by records with domain index I (n, p) at once
        (optional: :meth:`block` fills what it needs; one call avoids many small fills)."""
        for g in range(len(self.groups)):
            if self._slot[g] is not None:
                self._rows_of(g, I)

    def block(self, X: np.ndarray, I: np.ndarray | None = None, out: np.ndarray | None = None,
              scratch: np.ndarray | None = None) -> np.ndarray:
        """Gower distances of a block of records: (rows, m) float64.

        X: (rows, p) encoded records; I: their :func:`domain_index` (computed if None).
        out / scratch: optional C-contiguous (>= rows, m) float64 buffers reused for the
        result and the intermediate sums.  Each entry is the same float sum whatever the
        block size, so results do not depend on how records are blocked.
        """
        if I is None:
            I = domain_index(self.schema, X)
        rows = X.shape[0]
        D = out[:rows] if out is not None else np.empty((rows, self.m))
        buf = scratch[:rows] if scratch is not None else None
        first = True
        for g in range(len(self.groups)):
            gi = self._rows_of(g, I)
            T = self.groups[g][2]
            if first:
                np.take(T, gi, axis=0, out=D, mode="clip")
                first = False
            else:
                if buf is None:
                    buf = np.empty_like(D)
                np.take(T, gi, axis=0, out=buf, mode="clip")
                D += buf
        for i in self.direct:
            a = self.schema.attributes[i]
            if buf is None:
                buf = np.empty_like(D)
            a.term_into(X[:, i, None], self.C[None, :, i], buf)
            buf *= self.w[i]
            if first:
                D[...] = buf
                first = False
            else:
                D += buf
        return D


    def distinct(self) -> np.ndarray | None:
        """First occurrence of each distinct candidate row, in increasing index order: int (k,),
        or None when the m candidates are all distinct.  Rows are compared bit for bit (their
        float64 encodings), so candidates in one group have bit-identical distances to every
        record (each term is an elementwise function of (x_i, c_i))."""
        if not hasattr(self, "_distinct"):
            self._by_bits = distinct_rows(self.C, by_bits=True)
            self._distinct: np.ndarray | None = np.sort(self._by_bits)
            if self._by_bits.size == self.m:
                self._distinct = None
        return self._distinct

    def sorted_distinct(self) -> np.ndarray:
        """The distinct candidate rows in lexicographic order of their values, as ``np.unique(C, axis=0)``
        (Hard's crossing-search contexts): (u, p) float64.

        Reuses the sort behind :meth:`distinct` (done once per round for the vote): for finite codes
        without a sign bit (codes are in [0, 1]) the order of the bit patterns is the order of the
        values and bitwise-distinct rows are distinct values.  Otherwise :func:`sorted_distinct`."""
        self.distinct()
        if not hasattr(self, "_sorted"):
            C = self.C
            if np.isfinite(C).all() and not np.signbit(C).any():
                self._sorted = C[self._by_bits]
            else:
                self._sorted = sorted_distinct(C, self._by_bits)
        return self._sorted


    def distance_bound(self) -> float:
        """S: an upper bound on any distance of this kernel (Gower units), sum_i of the largest weighted
        term: the tables' largest entries, and |w_i| for direct attributes (terms in [0, 1]).
        Public (schema and candidates only)."""
        if self._bound is None:
            S = 0.0
            for T in self._tables.values():
                S += float(np.abs(T).max(initial=0.0))
            self._bound = S + float(sum(abs(float(self.w[i])) for i in self.direct))
        return self._bound


    def _exact(self, X: np.ndarray, I: np.ndarray, r: np.ndarray, j: np.ndarray) -> np.ndarray:
        """The float64 distances of :meth:`block` for the (record r, candidate j) pairs, bit for bit:
        the same per-group float64 entries (a joint entry is the left-to-right sum of its members'
        entries, as in ``_fill``) added in the same order."""
        D: np.ndarray | None = None
        for members, _sizes, _T in self.groups:
            e = self._tables[members[0]][I[r, members[0]], j]
            for k in members[1:]:
                e = e + self._tables[k][I[r, k], j]
            D = e if D is None else D + e
        for i in self.direct:
            buf = np.empty(r.size)
            self.schema.attributes[i].term_into(X[r, i], self.C[j, i], buf)
            buf *= self.w[i]
            D = buf if D is None else D + buf
        return cast(np.ndarray, D)  # not None: a Schema has at least one attribute


    def iter_blocks(self, X: np.ndarray, I: np.ndarray | None = None,
                    rows: int | None = None) -> Iterator[tuple[slice, np.ndarray]]:
        """Yield (row slice, (rows, m) distances) over X in memory-bounded blocks.

        rows: block height (default :func:`chunk_rows`; :func:`tile_rows` for
        cache-sized tiles when each row is reduced independently).  The yielded
        array is reused: consume it before advancing.
        """
        if I is None:
            I = domain_index(self.schema, X)
        self.prepare(I)
        step = chunk_rows(self.m) if rows is None else max(1, int(rows))
        h = min(step, X.shape[0])
        out = np.empty((h, self.m))
        scratch = np.empty((h, self.m))
        for s in range(0, X.shape[0], step):
            sl = slice(s, min(s + step, X.shape[0]))
            yield sl, self.block(X[sl], I[sl], out=out, scratch=scratch)
