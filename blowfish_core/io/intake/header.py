"""Intake step 2: the header decision, the column names and the rows with the right field count.

A first row that looks like data (numbers where the rest of the column is numbers, or a
preset's UCI layout) is read as data under offered names, with a 'header' Problem; empty or
repeated names and rows with another number of fields are Problems too (issue 22: the
steps of :func:`blowfish_core.io.intake.intake_csv`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from ...base._lazy import pd  # pandas, imported on first use (issue 15)

from ...base.errors import DataError, SchemaError
from ...base.fields import Text
from ..data import NO_DATA_ROWS
from .cells import TextColumn
from .problems import MAX_ROWS_LISTED, Problem, rows_text
from .reading import Records


@dataclass(frozen=True)
class Header:
    """The header decision: ``header`` (the first row holds names) and why, the offered names
    and preset layout, the column names (not yet deduplicated) and the index of the first data
    record in the k-field records (1 after a header row, else 0)."""

    header: bool
    reason: str | Text
    offered: tuple[str, ...] | None
    layout: str | None
    cols: list[str]
    start: int


def decide_header(rec: Records, no_header: bool | None, names: Sequence[str] | None,
                  label: str, problems: list[Problem]) -> Header:
    """Read the first record as names or as data (see the module docstring).

    Parameters
    ----------
    rec : Records
        The records read (:func:`.reading.read_records`).
    no_header : bool or None
        None to detect; True: no header row; False: the first row is the header.
    names : sequence of str or None
        Column names for a headerless file.
    label : str
        The file's label in messages.
    problems : list of Problem
        Appended to: the 'header' Problem of a first row read as data.

    Returns
    -------
    Header
        The decision, its reason, the offered names and layout, the column names and where the
        data records start.

    Raises
    ------
    DataError
        For bad ``names`` (also given with a header row) or a file without data rows.
    """
    from ..preset_tables import PRESET_LAYOUTS

    first_row, first = int(rec.rownum[0]), rec.first
    k = len(first)
    looks, why = _header_looks_like_data(first, rec.columns, rec.head_end(1000))
    layout = _preset_layout(first, k)
    header_layout = next((p for p, cols in PRESET_LAYOUTS.items() if tuple(first) == cols), None)
    if layout is not None and not looks:
        looks, why = True, f"the first row fits the {layout.capitalize()} preset's {k}-column UCI layout"
    offered = None
    if looks or no_header:
        offered = tuple(PRESET_LAYOUTS[layout]) if layout else tuple(f"column_{j + 1}" for j in range(k))
    if no_header is None:
        header = not looks
        header_reason = why if looks else "the first row is text over columns of data"
    else:
        header = not no_header
        header_reason = Text("as given ({no_header_given})") if no_header else "as given (no_header=False)"
    if names is not None:
        if header:
            raise DataError(Text("{label}: names=... applies to a file without a header row. Fix: also pass "
                                 "{no_header_given}", label=label), field="no_header")
        names = check_names(names, k, label)
    if header:
        cols, start = list(first), 1
        if layout is None and header_layout is not None:
            layout = header_layout
    else:
        shown = cast("tuple[str, ...]", offered)  # set above whenever the first row is read as data
        cols = list(names) if names is not None else list(shown)
        start = 0
        if no_header is None:
            problems.append(_data_row_problem(first_row, why, layout, shown, k))
    if len(rec.rownum) - start + len(rec.others) == 0:
        raise DataError(f"{label}: {NO_DATA_ROWS}")
    return Header(header, header_reason, offered, layout, cols, start)


def check_names(names: Sequence[str], k: int, label: str) -> list[str]:
    """The given names of a headerless file of k fields, stripped (shared with the chunked reader).

    Parameters
    ----------
    names : sequence of str
        The names given.
    k : int
        The number of fields per row.
    label : str
        The file's label in messages.

    Returns
    -------
    list of str
        The names, stripped.

    Raises
    ------
    DataError
        For names of the wrong count, repeated or empty.
    """
    names = [str(n).strip() for n in names]
    if len(names) != k:
        raise DataError(f"{label}: {len(names)} names given but the rows have {k} fields. Fix: give {k} names")
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups or "" in names:
        raise DataError(f"{label}: names must be unique and non-empty (duplicates: {dups}). Fix: rename them")
    return names


#: a headerless file's offered names are listed in its fix up to this many columns; beyond, their count
#: and the first and last (``--no-header`` alone takes them).
MAX_NAMES_LISTED = 20


def _data_row_problem(first_row: int, why: str, layout: str | None, offered: tuple[str, ...], k: int) -> Problem:
    """The 'header' Problem: nothing is loaded; the checks read the first row as data under the offered
    names, which the fix gives in full (issue 27: they were cut with '...'), or for a wide file their
    count, first and last."""
    named = f"the {layout.capitalize()} preset's names" if layout else f"the names column_1 .. column_{k}"
    confirm = (Text("{confirm_offered}", names=offered) if k <= MAX_NAMES_LISTED else
               Text("{confirm_offered_count}", count=k, first=offered[0], last=offered[-1]))
    return Problem(
        "", "header", 1, (first_row,),
        f"the first row looks like data, not a header: {why}. Nothing was loaded; to check the rest, row "
        f"{first_row} was taken as data under {named}. Fix: " + confirm + ", or add a header row to the file")


def unique_names(cols: list[str], first_row: int, problems: list[Problem]) -> list[str]:
    """The frame's column names: an empty or repeated name is a Problem and gets a unique name.

    Parameters
    ----------
    cols : list of str
        The column names read or given.
    first_row : int
        The spreadsheet row of the names (in the Problems).
    problems : list of Problem
        Appended to: one 'duplicate-name' Problem per empty or repeated name.

    Returns
    -------
    list of str
        Unique names: ``column_<j>`` for an empty one, ``<name> (<j>)`` for a repeat.
    """
    cols = list(cols)
    seen: dict[str, int] = {}
    for j, c in enumerate(cols):
        if c == "":
            problems.append(Problem("", "duplicate-name", 1, (first_row,),
                                    f"column {j + 1} has an empty name (row {first_row}). Fix: name every column"))
            c = f"column_{j + 1}"
        if c in seen:
            problems.append(Problem(c, "duplicate-name", 1, (first_row,),
                                    f"column '{c}' appears twice (columns {seen[c] + 1} and {j + 1}, row {first_row}). "
                                    "Fix: give every column a unique name"))
            c = f"{c} ({j + 1})"
        seen[c] = j
        cols[j] = c
    return cols


def rows_with_k_fields(others: list[tuple[int, int]], n_good: int, k: int, label: str,
                       problems: list[Problem]) -> None:
    """Every field count other than k is one 'fields' Problem.

    Parameters
    ----------
    others : list of (int, int)
        The non-blank data records with another field count, as (spreadsheet row, field count),
        in row order.
    n_good : int
        The data records with k fields.
    k : int
        The number of columns.
    label : str
        The file's label in messages.
    problems : list of Problem
        Appended to: one 'fields' Problem per other field count.

    Raises
    ------
    DataError
        When no data record has k fields.
    """
    ragged: dict[int, list[int]] = {}
    for rn, nf in others:
        ragged.setdefault(nf, []).append(rn)
    for nf, rns in sorted(ragged.items()):
        problems.append(Problem("", "fields", len(rns), tuple(rns[:MAX_ROWS_LISTED]), fields_message(nf, k, rns, len(rns))))
    if not n_good:
        raise DataError(f"{label}: no row has the {k} fields of the first row. Fix: check the separator")


def fields_message(nf: int, k: int, rows: Sequence[int], count: int) -> str:
    """The message for rows with nf fields instead of k (shared with the chunked reader).

    Parameters
    ----------
    nf : int
        Their number of fields.
    k : int
        The header's number of fields.
    rows : sequence of int
        Their spreadsheet rows (the first ones are listed).
    count : int
        How many rows.

    Returns
    -------
    str
        The message, ending with "Fix: ...".
    """
    return (f"{count} row(s) have {nf} fields instead of {k} ({rows_text(rows, count)}). "
            "Fix: check the quoting, the separator and the number of fields per row")


def _header_looks_like_data(first: list[str], columns: list[TextColumn], end: int) -> tuple[bool, str]:
    """(True, reason) when the first row is data: in every column whose other rows (the records
    ``1 .. end - 1`` of ``columns``) are all numbers, the first cell is a number too."""
    numeric_cols = []
    for j, col in enumerate(columns):
        codes = col.codes[1:end]
        codes = codes[~col.blank[codes]]
        if len(codes) and bool(np.isfinite(col.number[codes]).all()):
            numeric_cols.append(j)
    if not numeric_cols:
        return False, ""
    numeric_cols = [j for j in numeric_cols if first[j] != ""]  # an empty first cell says nothing
    if not numeric_cols:
        return False, ""
    if all(np.isfinite(columns[j].number[columns[j].codes[0]]) for j in numeric_cols):
        shown = ", ".join(f"{first[j]!r}" for j in numeric_cols[:3])
        return True, (f"the first row has numbers ({shown}) where the rest of the column(s) "
                      f"{', '.join(str(j + 1) for j in numeric_cols[:3])} are numbers")
    return False, ""


def _preset_layout(first: list[str], k: int) -> str | None:
    """'adult' / 'bank' when a row of k fields fits that preset's UCI layout (count and
    the preset's modelled columns inside their public domains)."""
    from ..preset_tables import PRESET_LAYOUTS, get_preset

    for name, cols in PRESET_LAYOUTS.items():
        if k != len(cols) or len(first) != k:
            continue
        row = pd.DataFrame([dict(zip(cols, first))])
        schema = get_preset(name).schema
        try:
            for a in schema.attributes:
                v = row[a.name]
                if a.bounded:
                    v = pd.to_numeric(v, errors="raise")
                a.encode_series(v)
        except (SchemaError, ValueError, TypeError):
            continue
        return name
    return None
