"""GowerKernel: the float64 lookup tables of :class:`~blowfish_core.model.gower_tables.GowerTables`
plus the nearest-candidate search the hard vote and Hard's certification ask for (paper §6.1;
issue 15), mostly in float32 with an exact float64 fallback for near ties, so every argmin is
the float64 one (lowest index on exact ties).

Out of distance.py (issue 22), which re-exports :class:`GowerKernel`.  Memory: float32 tiles of
``TILE32_BYTES`` and at most ``PAIRS_MAX`` near-tie pairs held at once (read here at each call).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from .gower_tables import GowerTables
from .rows import domain_index, used_codes
from .tiling import PAIRS_MAX, TILE32_BYTES, tile_rows


class GowerKernel(GowerTables):
    """Distances from many records to one fixed candidate population.

    C: (m, p) float64 encoded candidates.  Build once per round; call
    :meth:`block` for row blocks of records, :meth:`nearest` for the nearest candidate.
    """

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


    def _resolve(self, X: np.ndarray, I: np.ndarray, pend_r: list, pend_j: list, out: np.ndarray) -> None:
        """Decide the near-tie records: exact float64 distances of their (record, candidate) pairs,
        the smallest per record, lowest candidate index on exact ties.  Empties the lists."""
        if not pend_r:
            return
        rec, jj = _take_pending(pend_r, pend_j)
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
            best, near, rr, jj = _near_ties(d, base[: e - s], E2)
            out[s:e] = best if keep is None else keep[best]
            if near.size:
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
        A, line = self._line_terms(Z, attr, codes, keep, C)
        u = 2.0 ** -24 + 2.0 ** -53
        E2 = 2.0 * (2.0 * self.schema.p * u * self.distance_bound())  # 2E
        live = _live_candidates(A, line, E2)
        budget = tile_rows(k, 2 * TILE32_BYTES) * k  # float32 entries per tile
        buf = np.empty(budget, dtype=np.float32)
        pend_r: list[np.ndarray] = []
        pend_j: list[np.ndarray] = []
        pending = 0
        for z0, z1, cols in _context_tiles(live, L, budget):
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
                best, near, rr, jl = _near_ties(d, np.arange(rows, dtype=np.intp) * kk, E2)
                won = cols[best]
                out[pos] = won if keep is None else keep[won]
                if near.size:
                    jj = cols[jl]
                    pend_r.append(pos[near[rr]])
                    pend_j.append(jj if keep is None else keep[jj])
                    pending += jj.size
                    if pending > PAIRS_MAX:  # bounded memory however many ties
                        self._resolve_lines(Z, attr, codes, pend_r, pend_j, out)
                        pending = 0
        self._resolve_lines(Z, attr, codes, pend_r, pend_j, out)
        return out.reshape(b, L)

    def _line_terms(self, Z: np.ndarray, attr: int, codes: np.ndarray, keep: np.ndarray | None,
                    C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The two float32 parts of :meth:`nearest_lines`' distances over the candidates C (``keep``: their
        columns, None for all m): A (b, k), each context's sum over every attribute but ``attr``
        (attribute order), and the line's table (L, k) of ``attr`` at ``codes``.  Raises IndexError for
        a value outside an attribute's domain."""
        b, L, k = Z.shape[0], codes.size, C.shape[0]
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
        return A, line

    def _resolve_lines(self, Z: np.ndarray, attr: int, codes: np.ndarray, pend_r: list, pend_j: list,
                       out: np.ndarray) -> None:
        """:meth:`_resolve` for the records of :meth:`nearest_lines` (flat position z * L + v): only the
        near-tie records are built.  Empties the lists."""
        if not pend_r:
            return
        rec, jj = _take_pending(pend_r, pend_j)
        rows, local = np.unique(rec, return_inverse=True)
        R = Z[rows // codes.size].copy()
        R[:, attr] = codes[rows % codes.size]
        vals = self._exact(R, domain_index(self.schema, R), local, jj)
        order = np.lexsort((jj, vals, rec))  # by record, then distance, then index
        rs = rec[order]
        firsts = order[np.r_[True, rs[1:] != rs[:-1]]]
        out[rec[firsts]] = jj[firsts]


def _near_ties(d: np.ndarray, base: np.ndarray, E2: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The float32 argmin of every row of a C-contiguous tile d (rows, k) and its near ties.

    base: the flat index of each row's first entry; E2: 2E.  Returns (best, near, rr, jj): best (rows,),
    near the rows whose best and second-best candidates are at most 2E apart, and (rr, jj) each
    (position in near, column) within 2E of its row's float32 minimum (a superset: all recomputed in
    float64).  d is scratch: the best entry of a row without near ties is left at inf."""
    best = d.argmin(axis=1)
    flat_d = d.reshape(-1)  # a view (d is C-contiguous): flat indices instead of 2-D fancy ones
    at = base + best
    m1 = flat_d[at].astype(np.float64)
    flat_d[at] = np.inf
    m2 = flat_d[base + d.argmin(axis=1)]  # second best (argmin is faster than min); inf for one column
    near = np.flatnonzero(m2 - m1 <= E2)  # float32 - float64: the gap in float64
    if not near.size:
        return best, near, near, near
    flat_d[at[near]] = m1[near]
    # float32 threshold rounded up: a superset of the candidates within 2E (all recomputed)
    thr = np.nextafter((m1[near] + E2).astype(np.float32), np.float32(np.inf))
    flat = np.flatnonzero(d[near] <= thr[:, None])  # (2-D np.nonzero is ~30x slower)
    rr, jj = np.divmod(flat, d.shape[1])
    return best, near, rr, jj


def _live_candidates(A: np.ndarray, line: np.ndarray, E2: float) -> np.ndarray:
    """(b, k) bool: the candidates that can come within 2E (E2) of the minimum somewhere on each line.

    Candidates that cannot come within 2E of a line's minimum are left out, exactly: rounding is
    monotone, so on every value v of line z candidate j has D32 = fl32(A_zj + T_vj) >=
    (A_zj + min_v T_vj)(1 - u), and the line's minimum is at most min_j fl32(A_zj + max_v T_vj) <=
    min_j (A_zj + max_v T_vj)(1 + u) (u = 2^-24; 2^-23 below covers the float64 arithmetic of the
    test).  A candidate whose lower bound exceeds that upper bound plus 2E is neither a float32
    argmin nor within 2E of one anywhere on the line (so never recomputed in float64 either)."""
    lo = line.min(axis=0).astype(np.float64)
    hi = line.max(axis=0).astype(np.float64)
    A64 = A.astype(np.float64)
    ub = (A64 + hi).min(axis=1) * (1.0 + 2.0 ** -23) + E2
    return (A64 + lo) * (1.0 - 2.0 ** -23) <= ub[:, None]


def _context_tiles(live: np.ndarray, L: int, budget: int) -> Iterator[tuple[int, int, np.ndarray]]:
    """(z0, z1, cols): consecutive contexts z0..z1-1 of :meth:`GowerKernel.nearest_lines` over the union
    ``cols`` of their live candidates, as many as fit one tile of ``budget`` float32 entries (L values
    each; at least one context)."""
    b = live.shape[0]
    z0 = 0
    while z0 < b:
        mask = live[z0].copy()
        z1 = z0 + 1
        while z1 < b:
            grown = mask | live[z1]
            if (z1 + 1 - z0) * L * int(np.count_nonzero(grown)) > budget:
                break
            mask = grown
            z1 += 1
        yield z0, z1, np.flatnonzero(mask)
        z0 = z1


def _take_pending(pend_r: list, pend_j: list) -> tuple[np.ndarray, np.ndarray]:
    """The pending near-tie (record, candidate) pairs as two flat arrays; empties both lists."""
    rec, jj = np.concatenate(pend_r), np.concatenate(pend_j)
    pend_r.clear()
    pend_j.clear()
    return rec, jj
