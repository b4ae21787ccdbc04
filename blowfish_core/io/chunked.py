"""Tables of any size: read a CSV in chunks, encode and group as it goes (issue 15).

``read_grouped(path, schema)`` reads a CSV file chunk by chunk (pandas' chunked reader,
the same cell rules as :func:`blowfish_core.io.data.read_table`: only empty cells are
missing), checks and encodes every chunk against the public schema
(``Schema.encode``), and groups identical encoded records as it goes.  Memory is
bounded by the number of *distinct* records plus one chunk, not by the number of rows,
so there is no size cap (the app's upload limit is separate, see data.DEFAULT_MAX_BYTES).

The result equals ``group_records(schema.encode(read_table(path)))`` -- the same unique
records in the same order and the same counts -- so a seeded run on it releases exactly
what the in-memory path releases (tests/algorithm/test_scale.py).  One caveat: pandas infers a
column's type per chunk; a column the schema models as levels that mixes numbers and
text in the file could read as numbers in one chunk and text in another (the in-memory
reader sees the whole column).  Cells that are written consistently are not affected.

The intake's options apply (issue 15g): ``names`` / ``no_header`` for a file without a
header row, ``drop_missing``, ``missing_level`` (text columns only; a numeric column or a
level outside the declared levels is refused before reading), a duplicated or empty header
name is a problem reported with the bad cells (one pass, as the whole-file intake), and the size warnings of :func:`blowfish_core.io.intake.size_warnings` come
back in ``GroupedTable.warnings``.

Bad rows are refused with their **spreadsheet row numbers** (the convention of
:mod:`blowfish_core.io.intake`: row 1 is the header, the first record is row 2, blank lines
count, a quoted field spanning lines is one row), which do not depend on the chunk size.
Every chunk is read: one DataError lists every problem of the file -- rows with more
fields than the header, then per schema column the cells that are not numbers, missing,
or outside the public domain -- each with its count and first five rows (memory bounded:
five rows and three examples per problem).  A row with fewer fields than the header reads
as empty cells (the whole-file intake calls it a field-count problem).  The messages are
the whole-file intake's (interface-neutral: fixes name the intake options).
"""

from __future__ import annotations

import csv
import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..base._lazy import pd
from ..base.errors import DataError, SchemaError
from ..base.fields import Text, join
from .data import NO_DATA_ROWS, NOT_UTF8_FIX, first_bad_utf8_line, not_utf8_message, other_separator
from .intake.cells import finite_values
from .intake.columns import check_missing_options
from .intake.header import check_names, fields_message, unique_names
from .intake.problems import (
    MAX_ROWS_LISTED, Problem, declared_levels, dropped_note, empty_column_fix, missing_message, missing_level_numeric,
    no_rows_left, not_numbers_message, not_whole_message, rows_text, size_warnings,
)
from .intake.reading import separator_hint, sniff_separator
from ..model.schema import Schema

#: rows per chunk (about 10-50 MB of pandas frame for tables of ~15 columns).
DEFAULT_CHUNK_ROWS = 200_000


@dataclass(frozen=True)
class GroupedTable:
    """A private table as its distinct encoded records.

    U: (u, p) float64 distinct encoded records (np.unique order); counts: (u,) float64
    multiplicities (sum = n_rows); n_rows: data rows read; chunks: chunks read; source: label;
    dropped_rows: rows dropped for drop_missing; notes, warnings: lines for the user (the
    intake's wording: the dropped rows, the size warnings).
    """

    U: np.ndarray
    counts: np.ndarray
    n_rows: int
    chunks: int
    source: str
    dropped_rows: int = 0
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

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
    """The first row's fields (trimmed).  Raises DataError for an empty or non-UTF-8 file."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            try:
                first = next((r for r in csv.reader(f, delimiter="," if sep == ", " else sep) if r), None)
            except csv.Error as e:
                raise DataError(f"{label}: cannot parse the header: {e}") from None
    except UnicodeDecodeError as e:
        raise DataError(_not_utf8(path, label, e)) from None
    if not first:
        raise DataError(f"{label}: the file is empty. Fix: give a CSV file with a header row and data rows")
    return [c.strip() for c in first]


def _not_utf8(path, label: str, e: UnicodeDecodeError) -> str:
    """The not-UTF-8 message with the first bad line of the file (data.first_bad_utf8_line)."""
    where = first_bad_utf8_line(path)
    return not_utf8_message(label, *where) if where else f"{label}: not UTF-8 text. {NOT_UTF8_FIX}"


def sniff_file_separator(path: str | os.PathLike, label: str | None = None) -> str:
    """The separator of a CSV file, detected on its first 64 KiB (whole lines; intake.sniff_separator).

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file.
    label : str or None
        The file's label in messages (default: the path).

    Returns
    -------
    str
        The separator.

    Raises
    ------
    DataError
        For a missing file, a folder, or bytes that are not UTF-8 (with their line).
    """
    label = label or str(path)
    if not os.path.isfile(path):
        raise DataError(f"file not found: {path}" if not os.path.exists(path) else f"{path} is a folder, not a CSV file")
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 4:  # not just a character cut at the end of the head
            raise DataError(_not_utf8(path, label, e)) from None
        text = head[:e.start].decode("utf-8-sig")
    return sniff_separator(text.rsplit("\n", 1)[0] if "\n" in text.rstrip("\n") else text)


_SKIPPED = re.compile(r"Skipping line (\d+): expected \d+ fields, saw (\d+)")


def _skipped_lines(said: list, fields: dict[int, list], skipped: np.ndarray) -> np.ndarray:
    """Take pandas' "Skipping line N: expected k fields, saw m" warnings out of ``said`` into
    ``fields`` (m -> [count, first rows]); returns the sorted lines skipped so far.  pandas
    numbers them like the spreadsheet rows (1-based, the header is line 1) when no quoted cell
    spans lines before them."""
    new = []
    for w in list(said):
        if issubclass(w.category, pd.errors.ParserWarning) and "Skipping line" in str(w.message):
            said.remove(w)
            for line, nf in _SKIPPED.findall(str(w.message)):
                ent = fields.setdefault(int(nf), [0, []])
                ent[0] += 1
                if len(ent[1]) < MAX_ROWS_LISTED:
                    ent[1].append(int(line))
                new.append(int(line))
    return np.sort(np.concatenate([skipped, np.asarray(new, dtype=np.int64)])) if new else skipped


class _Problems:
    """Bad cells found while reading, per (column, kind): count, first rows, first values.

    Memory is bounded: MAX_ROWS_LISTED rows and three example values per (column, kind)."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str], list] = {}
        self.why: dict[str, str] = {}  # a column-level refusal's own message

    def add(self, column: str, kind: str, rows: np.ndarray, values) -> None:
        if rows.size == 0:
            return
        ent = self.found.setdefault((column, kind), [0, [], []])
        ent[0] += int(rows.size)
        ent[1].extend(int(r) for r in rows[:MAX_ROWS_LISTED - len(ent[1])])
        for v in values:
            if len(ent[2]) >= 3:
                break
            t = str(int(v)) if isinstance(v, (float, np.floating)) and float(v).is_integer() else str(v)
            if t not in ent[2]:  # a whole number read as float (a column with empty cells): as written
                ent[2].append(t)

    def __bool__(self) -> bool:
        return bool(self.found)

    def messages(self, schema: Schema, n_rows: int) -> list[str]:
        """Problems in schema column order (not numbers, missing, outside the domain), intake wording."""
        out: list[str] = []
        order = {"not-numbers": 0, "missing": 1, "outside-domain": 2, "not-whole": 3, "other": 4}
        for a in schema.attributes:
            for kind in sorted((k for c, k in self.found if c == a.name), key=order.__getitem__):
                n, rows, ex = self.found[(a.name, kind)]
                where = rows_text(rows, n)
                numeric = a.bounded
                if kind == "missing" and n == n_rows:
                    out.append(f"column '{a.name}' is empty in every row ({n} rows). Fix: " + empty_column_fix())
                elif kind == "missing":
                    out.append(missing_message(a.name, n, rows, n_rows, False, numeric,
                                               [b for b in schema.names if b != a.name], declared_levels(a)))
                elif kind == "not-numbers":
                    out.append(not_numbers_message(a.name, n, ex, where))
                elif kind == "outside-domain" and numeric:
                    out.append(f"column '{a.name}': {n} cell(s) outside [{a.lo:g}, {a.hi:g}] of the public domain "
                               f"(e.g. {ex}) in {where}. Fix: widen the declared bounds or remove those rows; "
                               "values are never clipped silently")
                elif kind == "not-whole":
                    out.append(not_whole_message(a.name, n, ex, where))
                elif kind == "outside-domain":
                    out.append(f"column '{a.name}': {n} cell(s) outside the declared categories of the public "
                               f"domain (e.g. {ex}) in {where}. Fix: add them to the levels of '{a.name}' or "
                               "remove those rows")
                else:
                    out.append(f"column '{a.name}': bad cells in {where}: {self.why.get(a.name, '')}")
        return out


def _bad_cells(schema: Schema, chunk, rows: np.ndarray, found: _Problems) -> None:
    """Record every bad cell of the chunk in ``found``: missing, not numbers, outside the domain.

    Each distinct value is checked once (Attribute.encode_series on one value)."""
    for a in schema.attributes:
        col = chunk[a.name]
        try:
            a.encode_series(col)
            continue
        except SchemaError as e:
            why = str(e)
        miss = col.isna().to_numpy(copy=True)  # pandas 3 hands out read-only arrays: own a copy
        found.add(a.name, "missing", rows[miss], [])
        present, prow = col[~miss], rows[~miss]
        refused: dict[str, np.ndarray] = {}
        if a.bounded:  # a numeric type; vectorised: a numbers column may have a value per row
            x = finite_values(present)  # the intake's rule for a number (NaN: not a finite number)
            notnum = np.isnan(x)
            out = ~notnum & ((x < a.lo) | (x > a.hi))
            refused = {"not-numbers": notnum, "outside-domain": out}
            if a.integer:
                refused["not-whole"] = ~notnum & ~out & (np.mod(np.where(notnum, 0.0, x), 1) != 0)
        else:
            vals = []
            for v in pd.unique(present):  # a levels column: few distinct values
                try:
                    a.encode_series(pd.Series([v], dtype=present.dtype))
                except SchemaError:
                    vals.append(v)
            refused = {"outside-domain": present.isin(vals).to_numpy(copy=True)}
        for kind, bad in refused.items():
            found.add(a.name, kind, prow[bad], present[bad].unique()[:3])
        if not any(b.any() for b in refused.values()) and not miss.any():  # a column-level refusal: its message
            found.why[a.name] = why
            found.add(a.name, "other", rows[:1], [])


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
                 name: str | None = None, on_chunk: Callable[[int, int], None] | None = None,
                 no_header: bool = False, names: Sequence[str] | None = None,
                 drop_missing: Iterable[str] | bool = (), missing_level: Mapping[str, str] | None = None,
                 release_size: int | None = None) -> GroupedTable:
    """Read, check, encode and group a CSV of any size chunk by chunk.

    Every chunk is read to the end: the bad cells of the whole file (missing, not numbers,
    outside the public domain) are reported in one DataError, per column and kind with the
    count and the first five spreadsheet rows (memory stays bounded).

    Parameters
    ----------
    path : str or os.PathLike
        A CSV file with a header row naming (at least) every schema column, or with
        ``no_header=True`` / ``names`` a file without one.
    schema : Schema
        The public schema the records are checked and encoded against.
    sep : str
        One character (or ', ').
    chunk_rows : int
        Rows per chunk (>= 1).
    name : str or None
        The file's label in messages (default: the path).
    on_chunk : callable or None
        on_chunk(k, rows_so_far): called after every chunk (progress; tests count chunks with it).
    no_header : bool
        The file has no header row (intake option of :func:`blowfish_core.io.intake.intake_csv`).
    names : sequence of str or None
        Column names of a header-less file (implies no_header).
    drop_missing : iterable of str or bool
        Columns, or True for all, whose rows with an empty cell are dropped.
    missing_level : mapping of str to str or None
        Column -> the text that replaces its empty cells (text columns only).
    release_size : int or None
        The planned release, for the size warning; None: no check.

    Returns
    -------
    GroupedTable
        The distinct encoded records and their counts, with the dropped-rows note and the size
        warnings.

    Raises
    ------
    DataError
        For a missing/empty/non-UTF-8 file, a missing or duplicated column, rows with more
        fields than the header, a header without rows, a bad option, and bad cells.
    """
    label = name or str(path)
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, (int, np.integer)) or chunk_rows < 1:
        raise DataError(f"chunk rows must be a whole number >= 1 (got {chunk_rows!r})")
    if not os.path.exists(path):
        raise DataError(f"file not found: {path}")
    if os.path.isdir(path):
        raise DataError(f"{path} is a folder, not a CSV file")
    first = _header(str(path), sep, label)
    header = not (no_header or names is not None)
    named: list[Problem] = []  # an empty or repeated header name
    cols = _file_columns(first, header, names, label, named)
    _check_schema_columns(schema, cols, header, names, label, sep)
    level = {str(c): str(v) for c, v in dict(missing_level or {}).items()}
    drop_cols = list(cols) if drop_missing is True else [str(c) for c in (drop_missing or ())]
    check_missing_options(level, drop_cols, cols, label)
    attrs = {a.name: a for a in schema.attributes}
    _check_levels(level, attrs, label)
    scan = _Scan(schema, attrs, level, drop_cols, 2 if header else 1, on_chunk)
    _read_chunks(path, sep, header, cols, chunk_rows, label, scan)
    _raise_for_problems(scan, schema, len(cols), label, [q.message for q in named])
    if scan.n == 0 and scan.dropped:
        raise DataError(no_rows_left(label, scan.dropped, [c for c, s in scan.seen.items() if not s]))
    if scan.n == 0:
        raise DataError(f"{label}: {NO_DATA_ROWS}")
    U, counts = scan.grouper.result()
    notes = (dropped_note(scan.dropped, drop_cols),) if drop_cols else ()
    return GroupedTable(U, np.asarray(counts, dtype=float), scan.n, scan.chunks, label, scan.dropped, notes,
                        tuple(size_warnings(scan.n, release_size)))


def _raise_for_problems(scan: _Scan, schema: Schema, k: int, label: str, header: Sequence[str] = ()) -> None:
    """One DataError listing the header's problems (``header``: messages), then the field counts and
    bad cells the scan found (none: returns)."""
    if header or scan.fields or scan.found:
        msgs = list(header) + [fields_message(nf, k, r, c) for nf, (c, r) in sorted(scan.fields.items())] + \
            scan.found.messages(schema, scan.n)
        if len(msgs) == 1:
            raise DataError(f"{label}: " + msgs[0])
        raise DataError(f"{label}: {len(msgs)} problem(s) found:\n" + join("\n", ["- " + m for m in msgs]))


def _file_columns(first: list[str], header: bool, names: Sequence[str] | None, label: str,
                  problems: list[Problem]) -> list[str]:
    """The column names: the given ``names``, the header row, or column_1 .. column_k.

    An empty or repeated header name is a Problem appended to ``problems`` (reported with the bad
    cells, as the whole-file intake does) and gets a unique name (:func:`unique_names`: the first
    of a repeated name keeps it)."""
    if names is not None:
        return check_names(names, len(first), label)
    if not header:
        return [f"column_{j + 1}" for j in range(len(first))]
    return unique_names(first, 1, problems)


def _check_schema_columns(schema: Schema, cols: list[str], header: bool, names: Sequence[str] | None,
                          label: str, sep: str = ",") -> None:
    """Every schema column is in the file. Raises DataError naming the missing ones and the fix (a
    one-column header holding another separator: that separator, as the intake says; issue 27)."""
    missing = [a.name for a in schema.attributes if a.name not in cols]
    if missing and len(cols) == 1 and (other := other_separator(cols[0], sep)) is not None:
        raise DataError(f"{label}: " + other, field="sep")
    if missing:
        hint = separator_hint(cols)
        raise DataError(f"{label}: column(s) {missing} of the schema are not in the file (columns: {cols})"
                        + (hint if hint else ". " + (
                            "Fix: rename the columns or edit the schema" if names is not None else
                            "Fix: rename the columns or edit the schema; if the first row is data, not a header, name "
                            + Text("the columns ({header_names})", names=tuple(a.name for a in schema.attributes))
                            if header else Text("Fix: name the columns ({names_arg}) or edit the schema"))))


def _check_levels(level: dict[str, str], attrs: dict, label: str) -> None:
    """A missing level is refused before reading on a numeric column or outside the declared levels."""
    for c, v in level.items():
        a = attrs.get(c)
        if a is None:  # a column of the file the schema does not model: its level is not used
            continue
        if a.bounded:
            raise DataError(missing_level_numeric(c, v))
        try:
            a.encode_value(v)
        except SchemaError:
            raise DataError(f"{label}: the missing level {v!r} of column '{c}' is not one of its declared "
                            f"levels. Fix: add {v!r} to the levels of '{c}' in the schema") from None


class _Scan:
    """One pass over the chunks: row numbers, dropped rows, missing levels, the grouped records
    and the bad cells found so far (memory bounded, see _Problems)."""

    def __init__(self, schema: Schema, attrs: dict, level: dict[str, str], drop_cols: list[str], first_row: int,
                 on_chunk: Callable[[int, int], None] | None) -> None:
        self.schema, self.attrs, self.level, self.drop_cols = schema, attrs, level, drop_cols
        self.want = [a.name for a in schema.attributes]
        self.first_row, self.on_chunk = first_row, on_chunk
        self.grouper = _Grouper()
        self.found = _Problems()
        self.fields: dict[int, list] = {}  # rows with more fields than the header: field count -> [count, first rows]
        self.skipped = np.zeros(0, dtype=np.int64)  # their lines (pandas skips them), to number the other rows
        self.n = self.chunks = self.dropped = 0
        self.seen = dict.fromkeys(drop_cols, False)  # a dropping column with a value somewhere
        self.records = 0  # data records seen so far, blank ones included (row number = records + first_row)

    def add(self, chunk, said: list) -> None:
        """Number, filter, fill and encode one chunk (or record its bad cells)."""
        self.skipped = _skipped_lines(said, self.fields, self.skipped)
        skipped, first_row = self.skipped, self.first_row
        k = np.arange(self.records, self.records + len(chunk), dtype=np.int64)
        rows = k + first_row + np.searchsorted(skipped - np.arange(skipped.size) - first_row, k,
                                               side="right") if skipped.size else k + first_row
        self.records += len(chunk)
        chunk, rows = self._kept(chunk, rows)
        if len(chunk) == 0:
            return
        self.n += len(chunk)
        self.chunks += 1
        if not self.found:
            try:
                Uk, ck = _encode_grouped(self.schema, chunk)
                self.grouper.add(Uk, ck)
            except SchemaError:
                _bad_cells(self.schema, chunk, rows, self.found)
        else:  # bad cells found already: only check the rest
            try:
                self.schema.encode(chunk)
            except SchemaError:
                _bad_cells(self.schema, chunk, rows, self.found)
        if self.on_chunk is not None:
            self.on_chunk(self.chunks, self.n)

    def _kept(self, chunk, rows: np.ndarray):
        """The chunk's schema columns without blank records and the rows drop_missing drops,
        missing levels filled in."""
        isna = chunk.isna()
        keep = ~isna.all(axis=1).to_numpy()  # blank records (intake drops them too)
        if self.drop_cols:
            gone = isna[self.drop_cols].any(axis=1).to_numpy() & keep
            self.dropped += int(gone.sum())
            for c in self.drop_cols:
                self.seen[c] = self.seen[c] or bool((~isna[c]).any())
            keep &= ~gone
        chunk, rows = chunk.loc[keep, self.want], rows[keep]
        for c, v in self.level.items():
            if c in self.attrs:
                chunk[c] = chunk[c].astype(object).where(chunk[c].notna(), v)
        return chunk, rows


def _read_chunks(path, sep: str, header: bool, cols: list[str], chunk_rows: int, label: str, scan: _Scan) -> None:
    """Feed every chunk of the file to ``scan``; pandas' skipped-line warnings are counted, any
    other warning is passed on. Raises DataError for malformed CSV or bytes that are not UTF-8."""
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", pd.errors.ParserWarning)
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)  # bad cells are reported with their rows
            reader = pd.read_csv(path, sep="," if sep == ", " else sep, skipinitialspace=sep == ", ",
                                 header=0 if header else None, names=cols, keep_default_na=False,
                                 na_values=[""], index_col=False, skip_blank_lines=False,
                                 chunksize=int(chunk_rows), encoding="utf-8-sig", on_bad_lines="warn")
            with reader:
                for chunk in reader:
                    scan.add(chunk, said)
    except pd.errors.ParserError as e:
        raise DataError(f"{label}: malformed CSV ({str(e).strip().splitlines()[-1]}). "
                        "Fix: check the quoting and the number of fields per row") from None
    except UnicodeDecodeError as e:
        raise DataError(_not_utf8(path, label, e)) from None
    scan.skipped = _skipped_lines(said, scan.fields, scan.skipped)
    for w in said:  # anything else pandas said is passed on
        warnings.warn(w.message, w.category, stacklevel=3)  # the caller of read_grouped
