"""Tables of any size: read a CSV in chunks, encode and group as it goes (issue 15).

``read_grouped(path, schema)`` reads a CSV file chunk by chunk (pandas' chunked reader,
the same cell rules as :func:`blowfish_core.data.read_table`: only empty cells are
missing), checks and encodes every chunk against the public schema
(``Schema.encode``), and groups identical encoded records as it goes.  Memory is
bounded by the number of *distinct* records plus one chunk, not by the number of rows,
so there is no size cap (the app's upload limit is separate, see data.DEFAULT_MAX_BYTES).

The result equals ``group_records(schema.encode(read_table(path)))`` -- the same unique
records in the same order and the same counts -- so a seeded run on it releases exactly
what the in-memory path releases (tests/test_scale.py).  One caveat: pandas infers a
column's type per chunk; a column the schema models as levels that mixes numbers and
text in the file could read as numbers in one chunk and text in another (the in-memory
reader sees the whole column).  Cells that are written consistently are not affected.

Bad rows are refused with their **spreadsheet row numbers** (the convention of
:mod:`blowfish_core.intake`: row 1 is the header, the first record is row 2, blank lines
count, a quoted field spanning lines is one row), which do not depend on the chunk size.
Reading stops at the end of the first chunk with a bad row; the error lists up to five
rows per column and how many were found in that chunk.
"""

from __future__ import annotations

import csv
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._lazy import pd
from .errors import DataError, SchemaError
from .schema import Schema

#: rows per chunk (about 10-50 MB of pandas frame for tables of ~15 columns).
DEFAULT_CHUNK_ROWS = 200_000
MAX_ROWS_LISTED = 5


@dataclass(frozen=True)
class GroupedTable:
    """A private table as its distinct encoded records.

    U: (u, p) float64 distinct encoded records (np.unique order); counts: (u,) float64
    multiplicities (sum = n_rows); n_rows: data rows read; chunks: chunks read; source: label.
    """

    U: np.ndarray
    counts: np.ndarray
    n_rows: int
    chunks: int
    source: str

    @property
    def n_unique(self) -> int:
        return int(self.U.shape[0])


class _Grouper:
    """Running (distinct records, counts).  Chunks arrive already grouped; the parts are merged
    by hashing (pandas groupby) when they double, and put in np.unique order once at the end
    (the local engine's order, so grouped runs are bit-identical)."""

    def __init__(self) -> None:
        self.parts: list[tuple[np.ndarray, np.ndarray]] = []
        self.pending = 0
        self.base = 0

    def add(self, U: np.ndarray, counts: np.ndarray) -> None:
        self.parts.append((U, counts))
        self.pending += U.shape[0]
        if self.pending > max(2 * self.base, 1 << 16):
            self._merge()

    def _merge(self) -> None:
        if len(self.parts) > 1:
            U = np.concatenate([q[0] for q in self.parts])
            C = np.concatenate([q[1] for q in self.parts])
            df = pd.DataFrame(U)
            df["_n"] = C
            g = df.groupby(list(range(U.shape[1])), sort=False, dropna=False)["_n"].sum()
            U = np.array(g.index.tolist(), dtype=float).reshape(len(g), U.shape[1]) if U.shape[1] > 1 else \
                g.index.to_numpy(dtype=float).reshape(-1, 1)
            self.parts = [(U, g.to_numpy(dtype=float))]
        self.base = self.pending = self.parts[0][0].shape[0] if self.parts else 0

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        self._merge()
        U, C = self.parts[0]
        u, inv = np.unique(U, axis=0, return_inverse=True)  # already distinct: a permutation
        c = np.zeros(u.shape[0])
        c[inv.reshape(-1)] = C
        return u, c


def _header(path: str, sep: str, label: str) -> list[str]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        try:
            first = next(csv.reader(f, delimiter=sep), None)
        except csv.Error as e:
            raise DataError(f"{label}: cannot parse the header: {e}") from None
    if not first:
        raise DataError(f"{label}: the file is empty. Fix: give a CSV with a header row and data rows")
    return [c.strip() for c in first]


def _bad_rows(schema: Schema, chunk, rows: np.ndarray) -> list[str]:
    """One message per column with bad cells: its problem, count and first row numbers."""
    out = []
    for a in schema.attributes:
        col = chunk[a.name]
        try:
            a.encode_series(col)
            continue
        except SchemaError as e:
            why = str(e)
        bad_vals = set()
        for v in pd.unique(col):
            try:
                a.encode_series(pd.Series([v], dtype=col.dtype))
            except SchemaError:
                bad_vals.add(v if v == v else "__nan__")
        mask = col.isna().to_numpy() if "__nan__" in bad_vals else np.zeros(len(col), dtype=bool)
        mask |= col.isin([v for v in bad_vals if v != "__nan__"]).to_numpy()
        bad = rows[mask]
        shown = ", ".join(str(int(r)) for r in bad[:MAX_ROWS_LISTED])
        more = f" and {bad.size - MAX_ROWS_LISTED} more" if bad.size > MAX_ROWS_LISTED else ""
        out.append(f"column '{a.name}': {bad.size} bad cell(s) at rows {shown}{more}; first problem: {why}")
    return out


def _encode_grouped(schema: Schema, chunk) -> tuple[np.ndarray, np.ndarray]:
    """The chunk's distinct encoded records and their counts: ((k, p) float64, (k,) float64).

    Each column is encoded once per distinct cell value (pd.factorize), the same floats as
    ``schema.encode`` (encoding is per cell); records are grouped by an integer key built from
    the per-column codes.  Raises the same SchemaError as ``schema.encode`` (which is called
    for a chunk with a missing cell, so its message and the row search are unchanged)."""
    cols, key, radix = [], np.zeros(len(chunk), dtype=np.int64), 1
    for a in schema.attributes:
        codes, uniques = pd.factorize(chunk[a.name], use_na_sentinel=True)
        if (codes < 0).any():
            X = schema.encode(chunk)
            u, inv = np.unique(X, axis=0, return_inverse=True)
            return u, np.bincount(inv.reshape(-1), minlength=u.shape[0]).astype(float)
        enc = a.encode_series(pd.Series(uniques, name=a.name))
        cols.append(enc[codes])
        k = max(len(uniques), 1)
        if radix <= (1 << 62) // k:
            key = key * k + codes
            radix *= k
        else:
            radix = 0
    X = np.column_stack(cols).astype(float)
    if radix == 0:  # too many combinations for one int64 key
        u, inv = np.unique(X, axis=0, return_inverse=True)
        return u, np.bincount(inv.reshape(-1), minlength=u.shape[0]).astype(float)
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    return X[first], np.bincount(inv.reshape(-1), minlength=first.size).astype(float)


def read_grouped(path: str | os.PathLike, schema: Schema, *, sep: str = ",", chunk_rows: int = DEFAULT_CHUNK_ROWS,
                 name: str | None = None, on_chunk: Callable[[int, int], None] | None = None) -> GroupedTable:
    """Read, check, encode and group a CSV of any size chunk by chunk.

    path: a CSV file with a header row naming (at least) every schema column.  sep: one
    character.  chunk_rows: rows per chunk (>= 1).  on_chunk(k, rows_so_far): called after
    every chunk (progress; tests count chunks with it).
    Returns a GroupedTable.  Raises DataError for a missing/empty file, a missing column,
    rows with more fields than the header, a header without rows, and bad cells (missing,
    not numbers, outside the public domain...), naming the column and the spreadsheet rows.
    """
    label = name or str(path)
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, (int, np.integer)) or chunk_rows < 1:
        raise DataError(f"chunk rows must be a whole number >= 1 (got {chunk_rows!r})")
    if not os.path.exists(path):
        raise DataError(f"file not found: {path}")
    if os.path.isdir(path):
        raise DataError(f"{path} is a folder, not a CSV file")
    cols = _header(str(path), sep, label)
    missing = [a.name for a in schema.attributes if a.name not in cols]
    if missing:
        raise DataError(f"{label}: column(s) {missing} of the schema are not in the file (columns: {cols}). "
                        "Fix: rename the columns or edit the schema")
    names = [a.name for a in schema.attributes]
    grouper = _Grouper()
    n = chunks = 0
    records = 0  # data records seen so far, blank ones included (row number = records + 2)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            reader = pd.read_csv(path, sep=sep, keep_default_na=False, na_values=[""], index_col=False,
                                 skip_blank_lines=False, chunksize=int(chunk_rows), encoding="utf-8-sig")
            with reader:
                for chunk in reader:
                    chunk.columns = [str(c).strip() for c in chunk.columns]
                    rows = np.arange(records, records + len(chunk), dtype=np.int64) + 2
                    records += len(chunk)
                    keep = ~chunk.isna().all(axis=1).to_numpy()  # blank records (intake drops them too)
                    chunk, rows = chunk.loc[keep, names], rows[keep]
                    if len(chunk) == 0:
                        continue
                    try:
                        Uk, ck = _encode_grouped(schema, chunk)
                    except SchemaError:
                        msgs = _bad_rows(schema, chunk, rows)
                        raise DataError(f"{label}: bad rows (reading stopped at row {int(rows[-1])}):\n"
                                        + "\n".join(f"- {m}" for m in msgs)) from None
                    grouper.add(Uk, ck)
                    n += len(chunk)
                    chunks += 1
                    if on_chunk is not None:
                        on_chunk(chunks, n)
    except pd.errors.ParserWarning:
        raise DataError(f"{label}: some rows have more fields than the header ({len(cols)} columns). "
                        "Fix: check the quoting and the number of fields per row") from None
    except pd.errors.ParserError as e:
        raise DataError(f"{label}: malformed CSV ({str(e).strip().splitlines()[-1]}). "
                        "Fix: check the quoting and the number of fields per row") from None
    except UnicodeDecodeError as e:
        raise DataError(f"{label}: not UTF-8 text (bad byte at position {e.start}). "
                        "Fix: save the file as UTF-8 CSV") from None
    if n == 0:
        raise DataError(f"{label}: the file has a header but no data rows")
    U, counts = grouper.result()
    return GroupedTable(U, np.asarray(counts, dtype=float), n, chunks, label)
