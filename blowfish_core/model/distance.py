"""Gower distance between records and candidates, chunked (paper §2.3, §6.1).

``d(x, c) = sum_i w_i d_i(x_i, c_i)`` with per-attribute terms in [0, 1]
(``Attribute.term``, :mod:`blowfish_core.model.domain`).  Distances are in Gower units, in
[0, sum_i w_i] (= [0, 1] with the default weights 1/p).

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

from .schema import Schema

#: memory budget of one (rows, m) float64 block and its scratch buffer.
BLOCK_BYTES = 32 * 2**20
#: size of one (rows, m) float64 tile that stays in a core's L2 cache while it is
#: gathered, summed and reduced (hard votes, nearest candidates, softmax rows).
TILE_BYTES = 512 * 2**10
#: size of one (rows, m) float32 tile of :meth:`GowerKernel.nearest` (256 rows at m = 1,024).
TILE32_BYTES = 1 * 2**20
#: most (record, candidate) near-tie pairs held before :meth:`GowerKernel.nearest` decides them.
PAIRS_MAX = 2**21
#: attributes with at most this many domain values use lookup tables.
LOOKUP_MAX = 4096
#: largest fused joint lookup table (bytes) per population.
JOINT_BYTES = 64 * 2**20


def chunk_rows(m: int, block_bytes: int = BLOCK_BYTES) -> int:
    """Rows per (rows, m) float64 block so that two such blocks fit ``block_bytes``.

    Parameters
    ----------
    m : int
        Number of candidates.
    block_bytes : int
        Memory budget, in bytes.

    Returns
    -------
    int
        Rows, at least 1.
    """
    return max(1, int(block_bytes // (16 * max(int(m), 1))))


def tile_rows(m: int, tile_bytes: int = TILE_BYTES) -> int:
    """Rows per cache-sized (rows, m) float64 tile.

    Parameters
    ----------
    m : int
        Number of candidates.
    tile_bytes : int
        Size of one tile, in bytes.

    Returns
    -------
    int
        Rows, at least 1.
    """
    return max(1, int(tile_bytes // (8 * max(int(m), 1))))


def domain_index(schema: Schema, X: np.ndarray) -> np.ndarray:
    """Integer index of each encoded value in its attribute's domain.

    Parameters
    ----------
    schema : Schema
        The schema.
    X : (n, p) float64 ndarray
        Encoded records.

    Returns
    -------
    (n, p) int32 ndarray
        The indices; -1 in columns whose domain is continuous or larger than LOOKUP_MAX.
    """
    idx = np.full(X.shape, -1, dtype=np.int32)
    for i, a in enumerate(schema.attributes):
        size = a.size
        if size is None or size > LOOKUP_MAX:
            continue
        idx[:, i] = a.index(X[:, i])
    return idx


def distinct_rows(C: np.ndarray, by_bits: bool = False) -> np.ndarray:
    """Index of the first occurrence of each distinct row of C.

    Rows are equal when their float64 bit patterns are (so +0.0 and -0.0 differ; each row
    is one group of equal rows).  A stable lexicographic sort of the bit patterns puts equal
    rows next to each other in index order; the first of each run is its first occurrence.

    Parameters
    ----------
    C : (m, p) float64 ndarray
        Encoded rows.
    by_bits : bool
        Return the first occurrences in the sort's order (rows in lexicographic order of their
        bit patterns, column 0 first) instead of increasing.

    Returns
    -------
    (k,) int ndarray
        The first occurrences, increasing (or in bit-pattern order).
    """
    B = np.ascontiguousarray(C, dtype=np.float64)
    if B.shape[1] == 0:  # rows without attributes are all equal
        return np.arange(min(B.shape[0], 1))
    if B.shape[0] <= 1:
        return np.arange(B.shape[0])
    B = B.view(np.uint64)
    order = np.lexsort(B.T[::-1])  # primary key: column 0; stable for equal rows
    S = B[order]
    starts = np.r_[True, (S[1:] != S[:-1]).any(axis=1)]
    return order[starts] if by_bits else np.sort(order[starts])


def sorted_distinct(C: np.ndarray, first: np.ndarray | None = None) -> np.ndarray:
    """The distinct rows of C in lexicographic order: the values of ``np.unique(C, axis=0)``.

    Sorts only the first occurrences (``first``) with one stable ``np.lexsort``, about 4x faster
    than ``np.unique`` over the rows.  Rows equal as floats but not bit for bit (a -0.0 for a 0.0)
    appear once, as in ``np.unique``; which of them is kept changes no distance or decoded value.

    Parameters
    ----------
    C : (m, p) float64 ndarray
        Encoded rows.
    first : (k,) int ndarray or None
        Indices of rows that include every distinct row (None: all rows).

    Returns
    -------
    (u, p) float64 ndarray
        The distinct rows, sorted by column 0, then column 1, ...
    """
    D = np.asarray(C, dtype=float)
    if first is not None:
        D = D[first]
    if D.shape[0] <= 1:
        return D.copy()
    S = D[np.lexsort(D.T[::-1])]
    return S[np.r_[True, (S[1:] != S[:-1]).any(axis=1)]]


def used_codes(gi: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(gi, return_inverse=True)`` for int codes in [0, bound).

    Computed with a presence table in O(n + bound) instead of a sort when bound is not much
    larger than n (the joint codes of grouped records).

    Parameters
    ----------
    gi : (n,) int ndarray
        Codes in [0, bound) (flattened).
    bound : int
        Exclusive upper bound of the codes.

    Returns
    -------
    codes : (k,) int ndarray
        The sorted distinct codes.
    inverse : (n,) int ndarray
        Each entry's position among them.
    """
    gi = np.asarray(gi, dtype=np.intp).reshape(-1)
    if bound > 8 * gi.size + 65536:
        return np.unique(gi, return_inverse=True)
    present = np.zeros(bound, dtype=bool)
    present[gi] = True
    slot = np.cumsum(present, dtype=np.intp)
    slot -= 1
    return np.flatnonzero(present), slot[gi]


class GowerKernel:
    """Distances from many records to one fixed candidate population.

    C: (m, p) float64 encoded candidates.  Build once per round; call
    :meth:`block` for row blocks of records.
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
        self._t32: dict[tuple[int, bool], np.ndarray] = {}  # float32 tables (_table32), built on first use
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

    # ------------------------------------------------------------ nearest (float32 + exact fallback)
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

    def tables32(self, I: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], float]:
        """:meth:`_tables32` for all m candidates: the float32 soft vote's tables (:meth:`tile32`).
        Raises IndexError for a domain index out of range."""
        return self._tables32(I)

    def _table32(self, j: int, cols: np.ndarray | None) -> np.ndarray:
        """Attribute j's weighted-term table in float32, (L_j, m) or over the candidate columns ``cols``.

        Built once per kernel for all m columns and for the kernel's own distinct columns
        (:meth:`distinct`), so the hard vote and Hard's certification of the same round share it
        (issue 23); other ``cols`` are converted each call."""
        shared = cols is None or cols is getattr(self, "_distinct", None)
        key = (j, cols is None)
        if shared and key in self._t32:
            return self._t32[key]
        T = (self._tables[j] if cols is None else np.take(self._tables[j], cols, axis=1)).astype(np.float32)
        if shared:
            self._t32[key] = T
        return T

    def _tables32(self, I: np.ndarray, cols: np.ndarray | None = None
                  ) -> tuple[list[np.ndarray], list[np.ndarray], float]:
        """Float32 lookup tables for the records of I (n, p): per group (its table, each record's row),
        and the largest table entry summed over groups (a bound on the tables' part of a distance).

        cols: the candidate columns to keep (None: all m).  A joint group's table has a row for each
        joint code the records use (:func:`used_codes`), summed in float32 from the members' float32
        tables (left to right) tile by tile, so no table-sized temporary is allocated."""
        tabs, rows, top = [], [], 0.0
        for members, sizes, _ in self.groups:
            gi = self._group_index(I, members, sizes)
            bound = int(np.prod(sizes))
            if gi.size and (gi.min() < 0 or gi.max() >= bound):
                raise IndexError(f"domain index out of range for attributes {members}: "
                                 f"records must be encoded with the kernel's schema")
            t32 = [self._table32(j, cols) for j in members]
            if len(members) == 1:
                T, r = t32[0], gi
            else:
                codes, r = used_codes(gi, bound)
                digits, rest = [], codes
                for L in reversed(sizes):
                    digits.append(rest % L)
                    rest = rest // L
                digits.reverse()
                T = np.take(t32[0], digits[0], axis=0, mode="clip")
                step = tile_rows(T.shape[1], 2 * TILE32_BYTES)
                tmp = np.empty((min(step, T.shape[0]), T.shape[1]), dtype=np.float32)
                for s in range(0, T.shape[0], step):
                    e = min(s + step, T.shape[0])
                    for t, d in zip(t32[1:], digits[1:]):
                        np.take(t, d[s:e], axis=0, out=tmp[: e - s], mode="clip")
                        T[s:e] += tmp[: e - s]
            tabs.append(T)
            rows.append(np.asarray(r, dtype=np.intp).reshape(-1))
            top += float(sum(np.abs(self._tables[j]).max(initial=0.0) for j in members))
        return tabs, rows, top

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

    def tile32(self, X: np.ndarray, tabs: list[np.ndarray], gidx: list[np.ndarray], s: int, e: int,
               d: np.ndarray, buf: np.ndarray, buf64: np.ndarray | None, S: float = 0.0,
               C: np.ndarray | None = None) -> float:
        """Float32 distances of records X[s:e] into d ((e - s, m) float32), from :meth:`tables32`.

        buf: (>= e - s, m) float32 scratch; buf64: (>= e - s, m) float64 scratch for the direct
        (continuous) attributes, whose terms are computed in float64 and rounded once (ValueError
        when it is None and the kernel has direct attributes).  Returns
        S plus the largest weighted direct term of each direct attribute in this tile (the tile's
        bound on a distance, given S = the tables' part).  C: the candidates the tables were built
        for (default all m; :meth:`nearest` passes the distinct ones).
        """
        C = self.C if C is None else C
        b = buf[: e - s]
        first = True
        for T, gi in zip(tabs, gidx):
            if first:
                np.take(T, gi[s:e], axis=0, out=d, mode="clip")
                first = False
            else:
                np.take(T, gi[s:e], axis=0, out=b, mode="clip")
                d += b
        for i in self.direct:
            if buf64 is None:
                raise ValueError("tile32 needs the float64 scratch buf64 for the direct (continuous) attributes")
            t = buf64[: e - s]
            self.schema.attributes[i].term_into(X[s:e, i, None], C[None, :, i], t)
            t *= self.w[i]
            S += float(np.abs(t).max(initial=0.0))
            if first:
                d[...] = t
                first = False
            else:
                b[...] = t
                d += b
        return S

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

    def _resolve(self, X: np.ndarray, I: np.ndarray, pend_r: list, pend_j: list, out: np.ndarray) -> None:
        """Decide the near-tie records: exact float64 distances of their (record, candidate) pairs,
        the smallest per record, lowest candidate index on exact ties.  Empties the lists."""
        if not pend_r:
            return
        rec = np.concatenate(pend_r)
        jj = np.concatenate(pend_j)
        pend_r.clear()
        pend_j.clear()
        vals = self._exact(X, I, rec, jj)
        order = np.lexsort((jj, vals, rec))  # by record, then distance, then index
        rs = rec[order]
        firsts = order[np.r_[True, rs[1:] != rs[:-1]]]
        out[rec[firsts]] = jj[firsts]

    def nearest(self, X: np.ndarray, I: np.ndarray | None = None, rows: int | None = None) -> np.ndarray:
        """argmin_j d(x, c_j) per record (ties -> lowest index): int (n,), identical to
        ``np.argmin`` over the float64 distances of :meth:`block`, computed mostly in float32.

        Duplicate candidates (issue 15e): the vote runs over the k distinct candidates
        (:meth:`distinct`, first occurrences in increasing index order) and a winner is mapped back
        to its first occurrence.  Equal rows have bit-equal float64 distances, so the lowest index
        reaching the float64 minimum over all m is the first occurrence of its row; among the
        first occurrences the order is the original one, so the lowest-index rule is kept.  (Equal
        candidates were exact ties in every record whose nearest is one of them: in a run's late
        population most near-tie records came from them.)

        Float32 tiles of ``rows`` records (default :func:`tile_rows` at 4 bytes) give D32.  Every
        distance is a sum of p non-negative float64 summands x_i (table entries w_i d_i, or
        w_i d_i computed for direct attributes); D32 rounds each x_i to float32 and adds them in
        float32, so with u = 2^-24 and S = sum_i max x_i (the largest possible distance),
        ``|D32 - sum x_i| <= gamma_p(u) S`` (gamma_k = k u / (1 - k u), Higham 2002 §4.2), and the
        float64 engine's sum obeys the same with u64 = 2^-53.  So ``|D32 - D64| <= E`` with
        ``E = 2 p (u + u64) S`` (twice the first-order bound).  Where the float32 gap between the
        best and second-best candidate exceeds 2E, the float32 argmin is the unique float64
        argmin; in the other rows (exact ties, near ties) only the candidates within 2E of the
        float32 minimum can be the float64 argmin, and those pairs are recomputed exactly in
        float64 (:meth:`_exact`) and the lowest index among the smallest is taken.
        """
        if I is None:
            I = domain_index(self.schema, X)
        n = X.shape[0]
        out = np.empty(n, dtype=np.intp)
        if n == 0:
            return out
        keep = self.distinct()
        C = self.C if keep is None else self.C[keep]
        m = C.shape[0]
        tabs, gidx, top = self._tables32(I, keep)
        step = max(1, int(rows)) if rows is not None else tile_rows(m, 2 * TILE32_BYTES)  # 4-byte entries
        pend_r: list[np.ndarray] = []
        pend_j: list[np.ndarray] = []
        pending = 0
        h = min(step, n)
        D = np.empty((h, m), dtype=np.float32)
        buf = np.empty((h, m), dtype=np.float32)
        buf64 = np.empty((h, m)) if self.direct else None
        base = np.arange(h, dtype=np.intp) * m  # flat index of each tile row's first entry
        p = self.schema.p
        u = 2.0 ** -24 + 2.0 ** -53
        for s in range(0, n, step):
            e = min(s + step, n)
            d = D[: e - s]
            S = self.tile32(X, tabs, gidx, s, e, d, buf, buf64, top, C=C)
            E2 = 2.0 * (2.0 * p * u * S)  # 2E
            best = d.argmin(axis=1)
            out[s:e] = best if keep is None else keep[best]
            flat_d = d.reshape(-1)  # a view (D is C-contiguous): flat indices instead of 2-D fancy ones
            at = base[: e - s] + best
            m1 = flat_d[at].astype(np.float64)
            flat_d[at] = np.inf
            m2 = flat_d[base[: e - s] + d.argmin(axis=1)]  # second best (argmin is faster than min)
            near = np.flatnonzero(m2 - m1 <= E2)  # float32 - float64: the gap in float64
            if near.size:
                flat_d[at[near]] = m1[near]
                # float32 threshold rounded up: a superset of the candidates within 2E (all recomputed)
                thr = np.nextafter((m1[near] + E2).astype(np.float32), np.float32(np.inf))
                flat = np.flatnonzero(d[near] <= thr[:, None])  # (2-D np.nonzero is ~30x slower)
                rr, jj = np.divmod(flat, m)
                pend_r.append(near[rr] + s)
                pend_j.append(jj if keep is None else keep[jj])
                pending += jj.size
                if pending > PAIRS_MAX:  # bounded memory however many ties
                    self._resolve(X, I, pend_r, pend_j, out)
                    pending = 0
        self._resolve(X, I, pend_r, pend_j, out)
        return out

    def nearest_lines(self, Z: np.ndarray, attr: int, codes: np.ndarray) -> np.ndarray:
        """:meth:`nearest` of the records on b lines: context ``Z[z]`` with attribute ``attr`` set to
        ``codes[v]``, for every z and v: int (b, L), identical to ``np.argmin`` over the float64
        distances of :meth:`block` of those records (ties -> lowest index).

        Hard's certification (:func:`blowfish_core.model.sensitivity.hard_sensitivity`) asks this for
        every value of one attribute in a batch of contexts.  Such a distance is the context's distance
        over the other attributes plus the line's term, so the float32 distances are one broadcast sum
        ``A[z] + T[v]`` (A: (b, k), T: (L, k), over the k distinct candidates) of the vote's own float32
        tables (:meth:`_table32`, shared with :meth:`nearest` on the same kernel), instead of a float64
        block per record.  Exactness as in :meth:`nearest`: each D32 entry is a float32 sum of the p
        summands rounded to float32, in another order, and the bound ``|D32 - D64| <= E = 2 p (u + u64) S``
        holds for any order of summation (S = :meth:`distance_bound`); records whose float32 gap between
        the best and the second-best candidate is at most 2E have their candidates within 2E recomputed
        bit for bit in float64 (:meth:`_exact`), lowest index among the smallest.  Memory: float32 tiles
        of ``tile_rows(k, 2 TILE32_BYTES)`` records.

        Parameters
        ----------
        Z : (b, p) float64 ndarray
            Encoded contexts (column ``attr`` is ignored).
        attr : int
            The attribute that varies along each line.
        codes : (L,) float64 ndarray
            Encoded values of ``attr``.

        Returns
        -------
        (b, L) int ndarray
            Index of the nearest candidate of record (z, v).

        Raises
        ------
        IndexError
            For a value outside an attribute's domain.
        """
        Z = np.asarray(Z, dtype=float)
        codes = np.asarray(codes, dtype=float)
        b, L = Z.shape[0], codes.size
        out = np.empty(b * L, dtype=np.intp)
        if out.size == 0:
            return out.reshape(b, L)
        keep = self.distinct()
        C = self.C if keep is None else self.C[keep]
        k = C.shape[0]
        attrs = self.schema.attributes
        IZ = domain_index(self.schema, Z)
        A = np.zeros((b, k), dtype=np.float32)  # float32 sum over every attribute but attr
        for j in range(self.schema.p):
            if j == attr:
                continue
            if j in self._tables:
                T = self._table32(j, keep)
                if (IZ[:, j] < 0).any() or (IZ[:, j] >= T.shape[0]).any():
                    raise IndexError(f"domain index out of range for attribute {j}: "
                                     f"records must be encoded with the kernel's schema")
                A += T[IZ[:, j]]
            else:
                t = np.empty((b, k))
                attrs[j].term_into(Z[:, j, None], C[None, :, j], t)
                t *= self.w[j]
                A += t.astype(np.float32)
        if attr in self._tables:
            T = self._table32(attr, keep)
            iv = attrs[attr].index(codes)
            if (iv < 0).any() or (iv >= T.shape[0]).any():
                raise IndexError(f"domain index out of range for attribute {attr}: "
                                 f"records must be encoded with the kernel's schema")
            line = T[iv]
        else:
            t = np.empty((L, k))
            attrs[attr].term_into(codes[:, None], C[None, :, attr], t)
            t *= self.w[attr]
            line = t.astype(np.float32)
        u = 2.0 ** -24 + 2.0 ** -53
        E2 = 2.0 * (2.0 * self.schema.p * u * self.distance_bound())  # 2E
        # Candidates that cannot come within 2E of a line's minimum are left out, exactly: rounding is
        # monotone, so on every value v of line z candidate j has D32 = fl32(A_zj + T_vj) >=
        # (A_zj + min_v T_vj)(1 - u), and the line's minimum is at most min_j fl32(A_zj + max_v T_vj) <=
        # min_j (A_zj + max_v T_vj)(1 + u) (u = 2^-24; 2^-23 below covers the float64 arithmetic of the
        # test).  A candidate whose lower bound exceeds that upper bound plus 2E is neither a float32
        # argmin nor within 2E of one anywhere on the line (so never recomputed in float64 either).
        lo = line.min(axis=0).astype(np.float64)
        hi = line.max(axis=0).astype(np.float64)
        A64 = A.astype(np.float64)
        ub = (A64 + hi).min(axis=1) * (1.0 + 2.0 ** -23) + E2
        live = (A64 + lo) * (1.0 - 2.0 ** -23) <= ub[:, None]
        budget = tile_rows(k, 2 * TILE32_BYTES) * k  # float32 entries per tile
        buf = np.empty(budget, dtype=np.float32)
        pend_r: list[np.ndarray] = []
        pend_j: list[np.ndarray] = []
        pending = 0
        z0 = 0
        while z0 < b:  # contexts z0..z1-1 over the union of their live candidates, one tile's worth
            mask = live[z0].copy()
            z1 = z0 + 1
            while z1 < b:
                grown = mask | live[z1]
                if (z1 + 1 - z0) * L * int(np.count_nonzero(grown)) > budget:
                    break
                mask = grown
                z1 += 1
            cols = np.flatnonzero(mask)
            kk = cols.size
            Az = np.take(A[z0:z1], cols, axis=1)  # C-contiguous (A[:, cols] is not: 3x slower sums)
            Tz = np.take(line, cols, axis=1)
            vstep = L if (z1 - z0) * L * kk <= budget else max(1, budget // kk)  # one context: value chunks
            for v0 in range(0, L, vstep):
                v1 = min(v0 + vstep, L)
                rows = (z1 - z0) * (v1 - v0)
                d = buf[: rows * kk].reshape(rows, kk)
                np.add(Az[:, None, :], Tz[None, v0:v1, :], out=d.reshape(z1 - z0, v1 - v0, kk))
                pos = (np.arange(z0, z1)[:, None] * L + np.arange(v0, v1)[None, :]).reshape(-1)
                best = d.argmin(axis=1)
                won = cols[best]
                out[pos] = won if keep is None else keep[won]
                base = np.arange(rows, dtype=np.intp) * kk
                flat_d = d.reshape(-1)
                at = base + best
                m1 = flat_d[at].astype(np.float64)
                flat_d[at] = np.inf
                m2 = flat_d[base + d.argmin(axis=1)]  # inf when a single candidate is live
                near = np.flatnonzero(m2 - m1 <= E2)
                if near.size:
                    flat_d[at[near]] = m1[near]
                    thr = np.nextafter((m1[near] + E2).astype(np.float32), np.float32(np.inf))
                    flat = np.flatnonzero(d[near] <= thr[:, None])
                    rr, jl = np.divmod(flat, kk)
                    jj = cols[jl]
                    pend_r.append(pos[near[rr]])
                    pend_j.append(jj if keep is None else keep[jj])
                    pending += jj.size
                    if pending > PAIRS_MAX:  # bounded memory however many ties
                        self._resolve_lines(Z, attr, codes, pend_r, pend_j, out)
                        pending = 0
            z0 = z1
        self._resolve_lines(Z, attr, codes, pend_r, pend_j, out)
        return out.reshape(b, L)

    def _resolve_lines(self, Z: np.ndarray, attr: int, codes: np.ndarray, pend_r: list, pend_j: list,
                       out: np.ndarray) -> None:
        """:meth:`_resolve` for the records of :meth:`nearest_lines` (flat position z * L + v): only the
        near-tie records are built.  Empties the lists."""
        if not pend_r:
            return
        rec = np.concatenate(pend_r)
        jj = np.concatenate(pend_j)
        pend_r.clear()
        pend_j.clear()
        rows, local = np.unique(rec, return_inverse=True)
        R = Z[rows // codes.size].copy()
        R[:, attr] = codes[rows % codes.size]
        vals = self._exact(R, domain_index(self.schema, R), local, jj)
        order = np.lexsort((jj, vals, rec))  # by record, then distance, then index
        rs = rec[order]
        firsts = order[np.r_[True, rs[1:] != rs[:-1]]]
        out[rec[firsts]] = jj[firsts]

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


def gower_distances(schema: Schema, X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Full (n, m) Gower distance matrix (for small inputs and tests).

    Parameters
    ----------
    schema : Schema
        The schema.
    X : (n, p) float64 ndarray
        Encoded records.
    C : (m, p) float64 ndarray
        Encoded candidates.

    Returns
    -------
    (n, m) float64 ndarray
        Distances in Gower units.
    """
    k = GowerKernel(schema, C)
    out = np.empty((X.shape[0], k.m))
    for sl, D in k.iter_blocks(X):
        out[sl] = D
    return out


def gower_pair(schema: Schema, x: np.ndarray, y: np.ndarray) -> float:
    """Gower distance between two encoded records.

    Parameters
    ----------
    schema : Schema
        The schema.
    x, y : (p,) float64 ndarray
        Encoded records.

    Returns
    -------
    float
        d(x, y), in Gower units.
    """
    w = schema.weights
    return float(sum(w[i] * float(a.term(np.array(x[i]), np.array(y[i]))) for i, a in enumerate(schema.attributes)))


def group_records(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group identical encoded records.

    Votes are computed once per group and weighted by its count.

    Parameters
    ----------
    X : (n, p) float64 ndarray
        Encoded records.

    Returns
    -------
    unique : (u, p) float64 ndarray
        The distinct records.
    counts : (u,) float64 ndarray
        Their multiplicities.
    """
    Xc = np.ascontiguousarray(X)
    uniq, counts = np.unique(Xc, axis=0, return_counts=True)
    return uniq, counts.astype(float)
