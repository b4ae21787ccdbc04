"""Gower distance between records and candidates, chunked (paper §2.3, §6.1).

``d(x, c) = sum_i w_i d_i(x_i, c_i)`` with per-attribute terms in [0, 1]
(``Attribute.term``, :mod:`blowfish_core.domain`).  Distances are in Gower units, in
[0, sum_i w_i] (= [0, 1] with the default weights 1/p).

Speed: for every attribute with an enumerable domain of at most
``LOOKUP_MAX`` values the weighted term against the m candidates is tabulated
once per population as an (L_i, m) table, so a block of distances is a sum of p
row gathers; continuous attributes use a direct |x - c| pass.  Blocks are
at most ``chunk_rows(m)`` rows so the (rows, m) working set stays under
``BLOCK_BYTES``.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from .schema import Schema

#: memory budget of one (rows, m) float64 block and its scratch buffer.
BLOCK_BYTES = 32 * 2**20
#: size of one (rows, m) float64 tile that stays in a core's L2 cache while it is
#: gathered, summed and reduced (hard votes, nearest candidates, softmax rows).
TILE_BYTES = 512 * 2**10
#: attributes with at most this many domain values use lookup tables.
LOOKUP_MAX = 4096
#: largest fused joint lookup table (bytes) per population.
JOINT_BYTES = 64 * 2**20


def chunk_rows(m: int, block_bytes: int = BLOCK_BYTES) -> int:
    """Rows per (rows, m) float64 block so that two such blocks fit ``block_bytes``."""
    return max(1, int(block_bytes // (16 * max(int(m), 1))))


def tile_rows(m: int, tile_bytes: int = TILE_BYTES) -> int:
    """Rows per cache-sized (rows, m) float64 tile (at least 1)."""
    return max(1, int(tile_bytes // (8 * max(int(m), 1))))


def domain_index(schema: Schema, X: np.ndarray) -> np.ndarray:
    """Integer index of each encoded value in its attribute's domain.

    X: (n, p) float64 encoded records.  Returns int32 (n, p); -1 in columns whose
    domain is continuous or larger than LOOKUP_MAX.
    """
    idx = np.full(X.shape, -1, dtype=np.int32)
    for i, a in enumerate(schema.attributes):
        size = a.size
        if size is None or size > LOOKUP_MAX:
            continue
        idx[:, i] = a.index(X[:, i])
    return idx


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

    def _fill(self, g: int, gi: np.ndarray) -> None:
        """Add the rows of joint group g for the codes in gi that have none (bounds checked)."""
        slot = self._slot[g]
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
        if gi.size and (gi.min() < 0 or gi.max() >= (T.shape[0] if self._slot[g] is None else self._slot[g].size)):
            raise IndexError(f"domain index out of range for attributes {members}: "
                             f"records must be encoded with the kernel's schema")
        if self._slot[g] is None:
            return gi
        self._fill(g, gi)
        return self._slot[g][gi]

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

    X: (n, p), C: (m, p) encoded; returns float64 (n, m) in Gower units.
    """
    k = GowerKernel(schema, C)
    out = np.empty((X.shape[0], k.m))
    for sl, D in k.iter_blocks(X):
        out[sl] = D
    return out


def gower_pair(schema: Schema, x: np.ndarray, y: np.ndarray) -> float:
    """Gower distance between two encoded records (p,) -> float."""
    w = schema.weights
    return float(sum(w[i] * float(a.term(np.array(x[i]), np.array(y[i]))) for i, a in enumerate(schema.attributes)))


def group_records(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group identical encoded records: (unique (u, p), counts (u,) float64).

    Votes are computed once per group and weighted by its count.
    """
    Xc = np.ascontiguousarray(X)
    uniq, counts = np.unique(Xc, axis=0, return_counts=True)
    return uniq, counts.astype(float)
