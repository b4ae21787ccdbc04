"""The intake's problems and the messages it shares with the chunked reader (issue 22).

:class:`Problem` (one thing that stops the table from being used as it is), the wording of
the refusals :mod:`blowfish_core.io.chunked` repeats (missing level on a numeric column, no
rows left, empty columns, fractions in an integer column, the size warnings) and the row
list of a message (:func:`rows_text`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...base.fields import Text, join

#: tables under this many rows get a visible warning.
MIN_ROWS = 1000
#: at most this many row numbers are listed per problem.
MAX_ROWS_LISTED = 5
#: a column with more than this share of its rows missing is mostly empty: leaving it out is offered too.
MOSTLY_EMPTY = 0.5
#: a number written with a decimal comma ('8,11'), not read as a number.
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")
#: the fixes of missing cells, ties in this order (a level keeps the column and its rows).
MISSING_FIX_KINDS = ("missing-level", "leave-out", "drop-rows")


def missing_level_numeric(column: str, level: str) -> Text:
    """The refusal of a missing level for a column the schema declares numeric (before reading).

    Parameters
    ----------
    column : str
        The column.
    level : str
        The missing level given.

    Returns
    -------
    Text
        The message, naming the drop option per front end.
    """
    return Text("column '{col}' is numeric in the schema; a missing level ({level!r}) is for text columns "
                "and would make it text. Fix: drop the rows with a missing value instead ({drop_rows})",
                col=column, level=level)


def no_rows_left(label: str, dropped: int, empty: Sequence[str]) -> str | Text:
    """The refusal when every row was dropped for a missing value.

    Parameters
    ----------
    label : str
        The file's label.
    dropped : int
        Rows dropped.
    empty : sequence of str
        Dropping columns empty in every row.

    Returns
    -------
    str or Text
        The message, ending with the fix.
    """
    if empty:
        shown = ("column " if len(empty) == 1 else "columns ") + ", ".join(repr(c) for c in empty)
        return (f"{label}: no rows are left after dropping {dropped} row(s) with missing values: {shown} "
                f"{'is' if len(empty) == 1 else 'are'} empty in every row. Fix: " + empty_column_fix(len(empty))
                + ", and drop rows only for the other columns")
    return (f"{label}: no rows are left after dropping {dropped} row(s) with missing values. "
            "Fix: declare a missing level instead of dropping")


def empty_column_fix(k: int = 1) -> Text:
    """The fix for modelled column(s) empty in every row (dropping rows or a missing level cannot help).

    Parameters
    ----------
    k : int
        How many columns.

    Returns
    -------
    Text
        The fix, naming the columns option per front end.
    """
    it = "it" if k == 1 else "them"
    return Text("remove {it} from the schema, or leave {it} out of the modelled columns ({columns_arg})", it=it)


@dataclass(frozen=True)
class MissingFix:
    """One fix of a column's missing cells: ``kind`` (one of MISSING_FIX_KINDS), the rows it keeps
    (``rows_kept`` of ``n_rows``)."""

    kind: str
    rows_kept: int
    n_rows: int


def missing_fixes(n_missing: int, n_rows: int, numeric: bool) -> tuple[MissingFix, ...]:
    """The fixes of a column's missing cells, most rows kept first (issue 27).

    A missing level (text columns only: it would make a numeric column text) and leaving the
    column out keep every row; dropping the rows keeps ``n_rows - n_missing``.  Leaving the
    column out is offered for a mostly empty column (more than MOSTLY_EMPTY of its rows missing).

    Parameters
    ----------
    n_missing : int
        The column's missing cells.
    n_rows : int
        Rows of the table.
    numeric : bool
        The column holds numbers (no missing level).

    Returns
    -------
    tuple of MissingFix
        Sorted by rows kept, descending; ties in MISSING_FIX_KINDS order.
    """
    fixes = [] if numeric else [MissingFix("missing-level", n_rows, n_rows)]
    if n_missing > MOSTLY_EMPTY * n_rows:
        fixes.append(MissingFix("leave-out", n_rows, n_rows))
    fixes.append(MissingFix("drop-rows", n_rows - n_missing, n_rows))
    return tuple(sorted(fixes, key=lambda f: (-f.rows_kept, MISSING_FIX_KINDS.index(f.kind))))


def missing_fix(column: str, n_missing: int, n_rows: int, numeric: bool, rest: Sequence[str] | None = None,
                levels: Sequence[str] | None = None) -> Text:
    """'Fix: ...' of a column's missing cells: every fix of :func:`missing_fixes`, in its order,
    with the rows it keeps (shared with the chunked reader).

    Parameters
    ----------
    column : str
        The column.
    n_missing : int
        Its missing cells.
    n_rows : int
        Rows of the table.
    numeric : bool
        The column holds numbers.
    rest : sequence of str or None
        The other modelled columns: the leave-out fix names them (``--columns age,city``);
        None or empty: the placeholder ``a,b,...``.
    levels : sequence of str or None
        The levels a schema declares for the column: the missing-level fix then says to add
        the level to them (else the level is outside the declared categories).

    Returns
    -------
    Text
        E.g. "Fix: treat missing as its own level (...): keeps all 40 rows; or drop those rows
        (...): keeps 8 of 40 rows" (the app names its Missing values choices).
    """
    leave = "{fix_leave_out_named}" if rest else "{fix_leave_out}"
    phrase = {"missing-level": "{fix_level}", "leave-out": leave, "drop-rows": "{fix_drop_rows}"}
    names = [str(c) for c in rest or ()]
    parts = []
    for i, f in enumerate(missing_fixes(n_missing, n_rows, numeric)):
        where = f"for '{column}' under Missing values below" if i == 0 else "there"
        kept = f"all {f.n_rows} rows" if f.rows_kept == f.n_rows else f"{f.rows_kept} of {f.n_rows} rows"
        t = Text(phrase[f.kind], col=column, level="?", where=where, rest=",".join(names), rest_list=names)
        if f.kind == "missing-level" and levels is not None:
            t += Text(" and add '?' to the declared levels of '{col}' in the schema ({levels}), else it is "
                      "outside the declared categories", col=column, levels=", ".join(map(str, levels)))
        parts.append(t + f": keeps {kept}")
    return "Fix: " + join("; or ", parts)


def missing_message(column: str, count: int, rows: Sequence[int], n_rows: int, marker: bool, numeric: bool,
                    rest: Sequence[str] | None = None, levels: Sequence[str] | None = None) -> Text:
    """The message of a column's missing cells with its fixes (:func:`missing_fix`).

    Parameters
    ----------
    column : str
        The column.
    count : int
        Its missing cells.
    rows : sequence of int
        Their spreadsheet rows (the first MAX_ROWS_LISTED suffice).
    n_rows : int
        Rows of the table.
    marker : bool
        The column is otherwise numbers (a marker like '?' counts as missing).
    numeric, rest, levels
        As :func:`missing_fix`.

    Returns
    -------
    Text
        "column 'c': k cell(s) are missing (empty) in rows ... Fix: ...".
    """
    how = " (empty or a marker like '?')" if marker else " (empty)"
    return (f"column '{column}': {count} cell(s) are missing{how} in {rows_text(rows, count)}. "
            + missing_fix(column, count, n_rows, numeric, rest, levels))


def declared_levels(attr: Any) -> list[str] | None:
    """The levels a schema attribute declares (a finite, unbounded attribute), else None.

    Parameters
    ----------
    attr : Attribute
        A schema attribute.

    Returns
    -------
    list of str or None
        Its levels as text, or None (numeric, or no flat levels).
    """
    if getattr(attr, "bounded", False) or getattr(attr, "levels", None) is None:
        return None
    return [str(v) for v in attr.levels]


def not_numbers_message(column: str, n: int, examples: Sequence[str], where: str) -> str:
    """The message for cells that are not numbers in a numeric column (the intake's guess or the
    schema's declaration; shared by the whole-file and the chunked reads).

    Parameters
    ----------
    column : str
        The column.
    n : int
        How many cells.
    examples : sequence of str
        Some of the values.
    where : str
        Their rows (:func:`rows_text`).

    Returns
    -------
    str
        The message, ending with "Fix: ...".
    """
    ex = list(examples)
    comma = ex and all(_DECIMAL_COMMA.match(str(v)) for v in ex)
    hint = (f"they look like numbers with a decimal comma; write them with a point (e.g. "
            f"{str(ex[0]).replace(',', '.')}), " if comma else "")
    return (f"column '{column}': {n} cell(s) are not numbers (e.g. {ex}) in {where}. "
            f"Fix: {hint}correct those cells, or declare the column categorical")


def not_whole_message(column: str, n: int, examples: Sequence[str], where: str) -> str:
    """The message for cells with a fraction in a column the schema declares integer.

    Parameters
    ----------
    column : str
        The column.
    n : int
        How many cells.
    examples : sequence of str
        Some of the values.
    where : str
        Their rows (:func:`rows_text`).

    Returns
    -------
    str
        The message, ending with "Fix: ...".
    """
    return (f"column '{column}': {n} cell(s) are not whole numbers (e.g. {list(examples)}) in {where}, but the "
            "schema declares the column integer. Fix: correct those cells, or set integer to false in the schema")


def dropped_note(dropped: int, drop_cols: Sequence[str]) -> str:
    """The note on the rows dropped for drop_missing (shared with the chunked reader).

    Parameters
    ----------
    dropped : int
        Rows dropped.
    drop_cols : sequence of str
        The drop_missing columns.

    Returns
    -------
    str
        The note.
    """
    return f"dropped {dropped} row(s) with a missing value in {', '.join(repr(c) for c in drop_cols)}"


def size_warnings(n: int, release_size: int | None) -> list[str]:
    """The warnings for a table of n rows: fewer rows than the release, under MIN_ROWS rows.

    Parameters
    ----------
    n : int
        Rows of the table.
    release_size : int or None
        The planned release (None: no check).

    Returns
    -------
    list of str
        Zero, one or two warnings.
    """
    warns = []
    if release_size is not None and n < release_size:
        warns.append(f"the table has {n} rows, fewer than the release size ({release_size}): the synthetic table "
                     f"would hold more records than the original. Fix: release at most {n} records or use a larger table")
    if n < MIN_ROWS:
        warns.append(f"the table has only {n} rows (under {MIN_ROWS:,}): the noise will dominate the vote "
                     "histogram and the synthetic data will be of little use")
    return warns


@dataclass(frozen=True)
class Problem:
    """One thing that stops the table from being used as it is.

    column: the column's name ('' for the whole file); kind: 'header', 'separator', 'fields',
    'duplicate-name', 'not-numbers', 'missing', 'too-large', 'missing-level',
    'unknown-column', 'outside-domain', 'not-whole' (the last two: domain_problems);
    count: cells or rows affected; rows: up to five row numbers (spreadsheet rows, see the
    module docstring); message: names the column, the
    count, the rows and ends with "Fix: ...".
    """

    column: str
    kind: str
    count: int
    rows: tuple[int, ...]
    message: str


def rows_text(rows: Sequence[int], count: int) -> str:
    """'row 4' / 'rows 2, 3, 9 and 12 more'.

    Parameters
    ----------
    rows : sequence of int
        Spreadsheet rows; up to MAX_ROWS_LISTED are shown.
    count : int
        How many rows in all.

    Returns
    -------
    str
        The row list.
    """
    shown = ", ".join(str(r) for r in rows[:MAX_ROWS_LISTED])
    more = count - min(len(rows), MAX_ROWS_LISTED)
    word = "row" if count == 1 else "rows"
    return f"{word} {shown}" + (f" and {more} more" if more > 0 else "")


_rows_text = rows_text  # the old private name (chunked.py, dask_engine.py used it)
