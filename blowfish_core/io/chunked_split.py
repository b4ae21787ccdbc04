"""A preset's private/pilot split of a CSV of any size, read in chunks (issue 23).

:func:`read_split` gives the rows :func:`blowfish_core.io.presets.split_table` gives for the same
table -- the same private and pilot rows in table order -- without holding the file's text or
its unmodelled columns in memory:

1. the chunked reader (:func:`blowfish_core.io.chunked.read_grouped`) checks every cell of the
   file against the public schema, with its messages and spreadsheet row numbers, and counts
   the data rows n (blank records and rows ``drop_missing`` drops are not rows);
2. the split's labels for n rows are drawn (:func:`blowfish_core.io.presets.split_labels`, the
   seeded permutation ``split_table`` uses): an (n,) int8 array, 1 byte per row;
3. a second pass over the chunks keeps each chunk's private and pilot rows, schema columns only.

Memory is one chunk plus the private and pilot rows of the schema's columns (pandas' string
columns are Arrow-backed: a few bytes per cell); the n-byte labels and the permutation drawn
for them (8 bytes per row, freed at once) are the only per-row arrays.  A file that changes
between the two passes is refused.
"""

from __future__ import annotations

import csv
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..base._lazy import pd
from ..base.errors import DataError
from ..model.schema import Schema
from .chunked import DEFAULT_CHUNK_ROWS, read_grouped
from .data import read_text
from .preset_tables import DataSplit, split_labels


@dataclass(frozen=True)
class ChunkedSplit:
    """The outcome of :func:`read_split`.

    split: the private and pilot rows (schema columns, table order); n_rows: the table's data
    rows (the split's n); chunks: chunks read per pass; dropped_rows: rows dropped for
    drop_missing; notes, warnings: lines for the user (the chunked reader's wording).
    """

    split: DataSplit
    n_rows: int
    chunks: int
    dropped_rows: int = 0
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def read_split(path: str | os.PathLike, schema: Schema, private_fraction: float, seed: int = 0,
               pilot_size: int | None = 3000, *, sep: str = ",", chunk_rows: int = DEFAULT_CHUNK_ROWS,
               name: str | None = None, on_chunk: Callable[[int, int], None] | None = None,
               no_header: bool = False, names: Sequence[str] | None = None,
               drop_missing: Iterable[str] | bool = (), missing_level: Mapping[str, str] | None = None,
               release_size: int | None = None) -> ChunkedSplit:
    """Check a CSV of any size in chunks and split it as ``split_table`` splits the whole table.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file (a header row naming every schema column, or ``no_header`` / ``names``).
    schema : Schema
        The public schema every cell is checked against.
    private_fraction : float
        In (0, 1]: the private rows are floor(private_fraction * n) (at least 1).
    seed : int
        Seed of the split.
    pilot_size : int or None
        At most this many pilot rows (None: all the rest).
    sep : str
        One character (or ', ').
    chunk_rows : int
        Rows per chunk (>= 1); the split does not depend on it.
    name : str or None
        The file's label in messages (default: the path).
    on_chunk : callable or None
        on_chunk(k, rows_so_far) after every chunk of the checking pass (progress).
    no_header : bool
        The file has no header row.
    names : sequence of str or None
        Column names of a header-less file (implies no_header).
    drop_missing : iterable of str or bool
        Columns, or True for all, whose rows with an empty cell are dropped (before the split).
    missing_level : mapping of str to str or None
        Column -> the text that replaces its empty cells (text columns only).
    release_size : int or None
        The planned release, for the size warning; None: no check.

    Returns
    -------
    ChunkedSplit
        The private and pilot rows (the schema's columns, in table order, index 0..k-1) with the
        row count, the chunks read, the dropped-rows note and the size warnings.

    Raises
    ------
    DataError
        Every problem of the file in one error (:func:`blowfish_core.io.chunked.read_grouped`),
        a file with NUL bytes (the intake's wording), or a file that changed between the passes.
    BlowfishError
        If private_fraction is not in (0, 1].
    """
    label = name or str(path)
    split_labels(1, private_fraction)  # a bad fraction is refused before the file is read
    _refuse_binary(path, label)
    checked = read_grouped(path, schema, sep=sep, chunk_rows=chunk_rows, name=name, on_chunk=on_chunk,
                           no_header=no_header, names=names, drop_missing=drop_missing,
                           missing_level=missing_level, release_size=release_size)
    labels = split_labels(checked.n_rows, private_fraction, seed, pilot_size)
    header = not (no_header or names is not None)
    cols = list(names) if names is not None else _columns(path, sep, header)
    drop_cols = list(cols) if drop_missing is True else [str(c) for c in (drop_missing or ())]
    level = {str(c): str(v) for c, v in dict(missing_level or {}).items() if c in schema.names}
    changed = f"{label}: the file changed while it was read ({checked.n_rows:,} rows when it was checked, "
    fix = "Fix: do not write to the file during the run"
    try:
        private, pilot, seen = _take(path, sep, header, cols, chunk_rows, list(schema.names), drop_cols, level,
                                     labels)
    except (pd.errors.ParserError, UnicodeDecodeError, OSError):
        raise DataError(changed + f"then it could not be read again). {fix}") from None
    if seen != checked.n_rows:
        raise DataError(changed + f"{seen:,} when it was split). {fix}")
    return ChunkedSplit(DataSplit(private, pilot, "split"), checked.n_rows, checked.chunks, checked.dropped_rows,
                        checked.notes, checked.warnings)


def _refuse_binary(path, label: str) -> None:
    """NUL bytes near the top: the whole-file intake's message (data.read_text on the same bytes)."""
    if not os.path.isfile(path):
        return  # read_grouped names a missing file or a folder
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    if b"\x00" in head:
        read_text(head, max_bytes=len(head), name=label)  # raises its not-UTF-8 or NUL-bytes DataError


def _columns(path, sep: str, header: bool) -> list[str]:
    """The file's column names as the chunked reader names them: the trimmed header row, or
    column_1 .. column_k (read_grouped has checked them already)."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        first = next(r for r in csv.reader(f, delimiter="," if sep == ", " else sep) if r)
    return [c.strip() for c in first] if header else [f"column_{j + 1}" for j in range(len(first))]


def _take(path, sep: str, header: bool, cols: list[str], chunk_rows: int, want: list[str], drop_cols: list[str],
          level: dict[str, str], labels: np.ndarray):
    """The second pass: each chunk's rows kept as the chunked reader keeps them (blank records and
    drop_missing rows out, missing levels filled in), split by ``labels``.  Returns (private
    frame, pilot frame, rows seen)."""
    parts: dict[int, list] = {1: [], 2: []}
    seen = 0
    empty = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pd.errors.DtypeWarning)  # as the checking pass
        # the checking pass's reader (chunked._read_chunks) with its options; it has refused rows with
        # more fields than the header, so any here means the file changed (a ParserError, refused below)
        reader = pd.read_csv(path, sep="," if sep == ", " else sep, skipinitialspace=sep == ", ",
                             header=0 if header else None, names=cols, keep_default_na=False,
                             na_values=[""], index_col=False, skip_blank_lines=False,
                             chunksize=int(chunk_rows), encoding="utf-8-sig")
        with reader:
            for chunk in reader:
                isna = chunk.isna()
                keep = ~isna.all(axis=1).to_numpy()
                if drop_cols:
                    keep &= ~isna[drop_cols].any(axis=1).to_numpy()
                chunk = chunk.loc[keep, want]
                for c, v in level.items():
                    chunk[c] = chunk[c].astype(object).where(chunk[c].notna(), v)
                if empty is None:
                    empty = chunk.iloc[:0]
                lab = labels[seen:seen + len(chunk)]
                seen += len(chunk)
                if lab.size < len(chunk):  # more rows than were checked: the caller refuses the file
                    continue
                for k in (1, 2):
                    sel = lab == k
                    if sel.any():
                        parts[k].append(chunk[sel])
    none = pd.DataFrame(columns=want) if empty is None else empty.reset_index(drop=True)  # no rows: the columns
    private, pilot = (pd.concat(parts[k], ignore_index=True) if parts[k] else none for k in (1, 2))
    return private, pilot, seen
