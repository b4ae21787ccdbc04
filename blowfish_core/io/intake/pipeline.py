"""``intake_csv``: the intake's steps in order (issue 22).

read the bytes, detect the separator and parse (:mod:`.reading`) -> the header decision and
the column names (:mod:`.header`) -> missing cells and one guess per column (:mod:`.columns`)
-> which columns are modelled, the problems collected -> the frozen :class:`IntakeResult`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from ...base._lazy import pd  # pandas, imported on first use (issue 15)

from ...base.errors import DataError
from ...base.fields import Text
from ..data import DEFAULT_MAX_BYTES, other_separator
from .columns import MAX_CATEGORIES, apply_missing, guess_column
from .header import decide_header, rows_with_k_fields, unique_names
from .problems import MAX_ROWS_LISTED, Problem, declared_levels, empty_column_fix, missing_message, size_warnings
from .reading import SEP_NAMES, check_sep, read_records, separator_hint
from .result import ColumnGuess, IntakeResult

#: beyond this many modellable columns only the first ones are modelled by default.
MAX_MODELLED_COLUMNS = 30


def intake_csv(
    source: Any,
    *,
    sep: str | None = None,
    no_header: bool | None = None,
    names: Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
    drop_missing: Iterable[str] | bool = (),
    missing_level: Mapping[str, str] | None = None,
    release_size: int | None = 512,
    max_columns: int = MAX_MODELLED_COLUMNS,
    max_categories: int = MAX_CATEGORIES,
    max_bytes: int = DEFAULT_MAX_BYTES,
    name: str | None = None,
    schema: Any = None,
) -> IntakeResult:
    """Read and check a CSV in one pass; see the module docstring.

    Missing means an empty cell, or in a column that is otherwise numbers one of MISSING_TOKENS.

    Parameters
    ----------
    source : Any
        A path, bytes or a binary file-like object.
    sep : str or None
        None to detect (see :func:`sniff_separator`), else as :func:`check_sep`.
    no_header : bool or None
        None to detect (a first row that looks like data -- numbers where the rest of the column is
        numbers, or a preset's UCI layout -- becomes a 'header' Problem offering names, and the frame is
        read headerless with those names so every other check still runs); True: no header row
        (``names`` or the offered names); False: the first row is the header.
    names : sequence of str or None
        Column names for a headerless file (as many as fields); implies no_header=True unless no_header=False
        is given (then a DataError).
    columns : sequence of str or None
        The columns to model (overrides the default choice; identifiers and dates may be picked).
    drop_missing : iterable of str or bool
        Columns (or True for all) whose rows with a missing cell are dropped (the count is in ``dropped_rows``
        and the notes).
    missing_level : mapping of str to str or None
        Column -> the text that replaces its missing cells (a declared missing level; text columns only).
    release_size : int or None
        The planned release (None: no check).
    max_columns : int
        Modellable columns beyond this are not modelled by default (note).
    max_categories : int
        A text column with more distinct values is not modelled by default.
    max_bytes : int
        Largest file read, in bytes.
    name : str or None
        The file's label in messages.
    schema : Schema, optional
        A declared schema: its columns get no "modelled because it was picked" note, and the
        fixes of their missing cells follow the declaration (no missing level for a numeric
        column; with declared levels, add the level to them).  Its domain is checked by
        :func:`.checked.check_table`, not here.

    Returns
    -------
    IntakeResult
        The table, the decisions, and every problem found.

    Raises
    ------
    DataError
        For an unreadable file (see :func:`blowfish_core.io.data.read_text`), a bad ``sep``, a header without
        data rows, ``names`` of the wrong length or duplicated.
    """
    sep_given = check_sep(sep)
    notes: list[str] = []
    problems: list[Problem] = []
    rec, hdr, cols, raw, rownum = _read_table(source, sep_given, no_header, names, max_bytes, name, notes, problems)
    label, level = rec.label, dict(missing_level or {})
    raw, rownum, mostly_num, missing_mask, dropped = apply_missing(raw, rownum, cols, level, drop_missing, label, notes)
    out = {c: guess_column(c, raw[c], missing_mask[c], mostly_num[c], level, rownum, max_categories) for c in cols}
    guesses, col_problems = {c: o[1] for c, o in out.items()}, {c: o[2] for c, o in out.items()}
    wrong_sep = next((p for p in problems if p.kind == "separator"), None)
    if wrong_sep is not None and columns is not None and not set(map(str, columns)) <= set(cols):
        raise DataError(f"{label}: " + wrong_sep.message, field="sep")  # the picked columns: the same cause
    declared = {a.name: a for a in schema.attributes} if schema is not None else {}
    chosen, reason_out = choose_modelled(cols, guesses, col_problems, columns, max_columns, hdr, label, rownum, notes,
                                         declared=declared)
    _name_missing_fixes(col_problems, chosen, declared, mostly_num, len(rownum))
    final = final_guesses(cols, guesses, chosen, reason_out, col_problems, notes, problems)
    return IntakeResult(
        frame=pd.DataFrame({c: o[0] for c, o in out.items()}, columns=cols), source=label, sep=rec.sep, sep_sniffed=sep_given is None,
        sep_name=SEP_NAMES.get(rec.sep, repr(rec.sep)), header=hdr.header, header_reason=hdr.reason,
        offered_names=hdr.offered, preset_layout=hdr.layout, columns=tuple(final), modelled=tuple(chosen),
        row_numbers=tuple(rownum.tolist()), dropped_rows=dropped, notes=tuple(notes),
        warnings=tuple(size_warnings(len(rownum), release_size)), problems=tuple(problems),
    )


def _read_table(source: Any, sep_given: str | None, no_header: bool | None, names: Sequence[str] | None,
                max_bytes: int, name: str | None, notes: list[str], problems: list[Problem]):
    """The records read, the header decision, the unique column names, the data cells per column and
    their spreadsheet rows (the first steps of :func:`intake_csv`; appends the header, name,
    field-count and one-column separator Problems and the note on Unicode spaces)."""
    if names is not None and no_header is None:
        no_header = True  # names are for a file without a header row
    rec = read_records(source, sep_given, max_bytes=max_bytes, name=name)
    hdr = decide_header(rec, no_header, names, rec.label, problems)
    cols = unique_names(hdr.cols, int(rec.rownum[0]), problems)
    if len(cols) == 1 and (other := other_separator(rec.first[0], rec.sep)):
        problems.append(Problem("", "separator", 1, (int(rec.rownum[0]),), other))  # the real cause (issue 27)
    rows_with_k_fields(rec.others, len(rec.rownum) - hdr.start, len(cols), rec.label, problems)
    raw = {c: col.take(slice(hdr.start, None)) for c, col in zip(cols, rec.columns)}
    if rec.trimmed_unicode:
        notes.append(f"{rec.trimmed_unicode} cell(s) had non-breaking or other Unicode spaces around their value; "
                     "they were trimmed like ordinary spaces")
    return rec, hdr, cols, raw, rec.rownum[hdr.start:]


def choose_modelled(cols: list[str], guesses: dict[str, ColumnGuess], col_problems: dict[str, list[Problem]],
                    columns: Sequence[str] | None, max_columns: int, hdr: Any, label: str, rownum: np.ndarray,
                    notes: list[str], declared: Collection[str] = ()) -> tuple[list[str], str]:
    """The modelled columns and the reason given to the others.

    Parameters
    ----------
    cols : list of str
        The table's columns, in file order.
    guesses : dict of str to ColumnGuess
        One guess per column.
    col_problems : dict of str to list of Problem
        Each column's Problems; a picked column empty in every row gets a 'missing' one.
    columns : sequence of str or None
        The picked columns, or None for the default choice.
    max_columns : int
        The default choice models at most this many columns.
    hdr : Any
        The header decision (:class:`.header.Header`).
    label : str
        The file's label in messages.
    rownum : (n,) int64 ndarray
        The spreadsheet row of each record.
    notes : list of str
        Appended to: picked unmodellable columns (not those a schema declares), a wide table.
    declared : collection of str
        The columns a schema declares (their type is the schema's, so no note).

    Returns
    -------
    chosen : list of str
        The picked ones, else the first ``max_columns`` modellable ones, in file order.
    reason_out : str
        The reason given to the others.

    Raises
    ------
    DataError
        For a picked column not in the table.
    """
    n = len(rownum)
    if columns is not None:
        picked = [str(c) for c in columns]
        unknown = [c for c in picked if c not in guesses]
        if unknown:
            raise DataError(f"{label}: columns {unknown} are not in the table. Columns: {', '.join(cols[:20])}"
                            f"{' ...' if len(cols) > 20 else ''}" + (separator_hint(cols) or (
                                ". Fix: name columns of the table" if hdr.header else
                                ". The file has no header row (" + hdr.reason + "). Fix: name its columns "
                                + Text("({header_names}) or add a header row", names=tuple(picked)))))
        chosen = [c for c in cols if c in picked]
        for c in chosen:
            g = guesses[c]
            if g.kind == "empty":  # picked (or in the schema) but empty in every row: nothing to model
                col_problems[c] = [Problem(c, "missing", n, tuple(rownum[:MAX_ROWS_LISTED].tolist()),
                                           f"column '{c}' is empty in every row ({n} rows). Fix: " + empty_column_fix())]
            elif c in declared:
                continue  # the schema declares its type: no "picked" note (newcomer trial)
            elif not g.modelled and g.can.picked_levels and g.levels is not None:
                notes.append(f"column '{c}' is modelled because it was picked: categorical text with its "
                             f"{len(g.levels)} distinct values as levels (as written, leading zeros kept); the "
                             f"intake guessed {g.kind}")
            elif not g.modelled:
                notes.append(f"column '{c}' is modelled because it was picked, although it is {g.kind} (" + g.reason
                             + ")")
        return chosen, "not picked"
    cand = [c for c in cols if guesses[c].modelled]
    chosen = cand[:max_columns]
    if len(cand) > max_columns:
        notes.append(f"the table has {len(cols)} columns; only the first {max_columns} modellable ones are "
                     f"modelled by default ({chosen[0]} .. {chosen[-1]}); {len(cand) - max_columns} more are not. "
                     + Text("Fix: {pick_columns}"))
    return chosen, f"beyond the first {max_columns} modelled columns (wide table)"


def _name_missing_fixes(col_problems: dict[str, list[Problem]], chosen: list[str], declared: Mapping[str, Any],
                        mostly_num: Mapping[str, bool], n_rows: int) -> None:
    """Rewrite the 'missing' Problems of the modelled columns once the modelled set is known: the
    leave-out fix names the other modelled columns (``--columns age,city``), and for a column a
    schema declares, its type or the data's numbers decide the fixes (no missing level for a numeric one; with declared
    levels the missing-level fix says to add the level to them).  A column empty in every row keeps
    its own message."""
    for c in chosen:
        a = declared.get(c)
        # numeric: no missing-level fix; the data's numbers refuse one too (columns.guess_column), whatever
        # the schema declares (an ordinal 1..16 column holds numbers)
        numeric = bool(mostly_num[c]) or (a is not None and bool(a.bounded))
        rest = [x for x in chosen if x != c]
        col_problems[c] = [
            dataclasses.replace(p, message=missing_message(c, p.count, p.rows, n_rows, bool(mostly_num[c]), numeric,
                                                           rest, declared_levels(a) if a is not None else None))
            if p.kind == "missing" and p.count < n_rows else p for p in col_problems[c]]


def final_guesses(cols: list[str], guesses: dict[str, ColumnGuess], chosen: list[str], reason_out: str,
                  col_problems: dict[str, list[Problem]], notes: list[str], problems: list[Problem]) -> list[ColumnGuess]:
    """The guesses with the final modelled flag.

    The modelled columns' Problems are collected, the others' are noted as ignored, and every
    unmodelled identifier/date/empty/text column is noted.

    Parameters
    ----------
    cols : list of str
        The table's columns, in file order.
    guesses : dict of str to ColumnGuess
        One guess per column.
    chosen : list of str
        The modelled columns (:func:`choose_modelled`).
    reason_out : str
        The reason given to the columns not chosen.
    col_problems : dict of str to list of Problem
        Each column's Problems.
    notes : list of str
        Appended to.
    problems : list of Problem
        Appended to: the modelled columns' Problems.

    Returns
    -------
    list of ColumnGuess
        One per column, in file order.
    """
    final = []
    for c in cols:
        g = guesses[c]
        m = c in chosen
        if m != g.modelled:
            g = ColumnGuess(g.name, g.kind, m, g.reason if m else reason_out + "; " + g.reason, g.integer, g.levels,
                            g.n_missing, g.n_distinct)
        final.append(g)
        if m:
            problems.extend(col_problems[c])
        elif col_problems[c]:
            notes.append(f"column '{c}' is not modelled; it has {len(col_problems[c])} problem(s) that are ignored "
                         "(" + col_problems[c][0].message + ")")
    for g in final:
        if g.can.noted and not g.modelled:
            notes.append(f"column '{g.name}' is not modelled: " + g.reason)  # a fields.Text stays one
    return final
