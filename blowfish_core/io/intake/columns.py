"""Intake step 3: missing cells and the choices about them, then one guess per column.

Missing means an empty cell, or in a column that is otherwise numbers one of MISSING_TOKENS.
:func:`apply_missing` drops the rows ``drop_missing`` names; :func:`guess_column` fills a
declared missing level, decides the column's kind (empty, boolean, date, numeric, code,
identifier, text, categorical) and collects its Problems (issue 22: the steps of
:func:`blowfish_core.io.intake.intake_csv`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import numpy as np
from ...base._lazy import pd  # pandas, imported on first use (issue 15)

from ...base.errors import DataError
from ...base.fields import Text
from ...model.schema import MOSTLY_NUMERIC
from .problems import MAX_ROWS_LISTED, Problem, dropped_note, no_rows_left, rows_text
from .result import ColumnGuess

#: a text column with more distinct values than this is not modelled by default.
MAX_CATEGORIES = 50
#: an all-distinct column of at least this many values is flagged as an identifier.
MIN_IDENTIFIER_ROWS = 10
#: cells that mean "missing" in a column that is otherwise numbers (besides empty cells).
MISSING_TOKENS = frozenset({"?", "NA", "N/A", "n/a", "na", "null", "NULL", "Null", "None", "none", "nan", "NaN",
                            "NAN", "-", ".", "#N/A"})
#: boolean spellings (lower-cased pairs); the original spelling is kept.
BOOLEAN_PAIRS = (("true", "false"), ("yes", "no"), ("t", "f"), ("y", "n"))
_DIGITS = re.compile(r"^\d+$")
_INT = re.compile(r"^[+-]?\d+$")
_IDLIKE = re.compile(r"(^|[^a-z])(id|key|uuid|guid)([^a-z]|$)|_id$|^id", re.IGNORECASE)
_DATE_PATTERNS = (
    (re.compile(r"^\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$"), None),
    (re.compile(r"^\d{4}/\d{1,2}/\d{1,2}$"), "%Y/%m/%d"),
    (re.compile(r"^\d{1,2}/\d{1,2}/\d{4}$"), None),
    (re.compile(r"^\d{1,2}\.\d{1,2}\.\d{4}$"), "%d.%m.%Y"),
    (re.compile(r"^\d{1,2}-[A-Za-z]{3}-\d{2,4}$"), None),
)
_INT64_MAX = 2**63 - 1


def missing_masks(raw: pd.DataFrame, cols: list[str]) -> tuple[dict[str, bool], dict[str, pd.Series]]:
    """Per column: mostly numbers, and the mask of missing cells.

    Parameters
    ----------
    raw : pandas DataFrame
        The trimmed text cells.
    cols : list of str
        Its columns.

    Returns
    -------
    mostly_num : dict of str to bool
        At least MOSTLY_NUMERIC of the non-empty cells are numbers.
    missing_mask : dict of str to pandas Series
        The missing cells (empty, or a MISSING_TOKENS marker in a mostly-numeric column).
    """
    mostly_num = {}
    missing_mask = {}
    for c in cols:
        s = raw[c]
        blank = s == ""
        nonblank = s[~blank]
        isnum = _is_number(nonblank)
        mostly = bool(len(nonblank)) and int(isnum.sum()) > 0 and isnum.sum() >= MOSTLY_NUMERIC * len(nonblank)
        mostly_num[c] = mostly
        miss = blank.copy()
        if mostly:
            miss |= s.isin(MISSING_TOKENS)
        missing_mask[c] = miss
    return mostly_num, missing_mask


def check_missing_options(level: Mapping[str, str], drop_cols: list[str], cols: list[str], label: str) -> None:
    """Check that every column named by missing_level / drop_missing is in the table.

    Shared with the chunked reader.

    Parameters
    ----------
    level : mapping of str to str
        missing_level: column -> missing level.
    drop_cols : list of str
        The drop_missing columns.
    cols : list of str
        The table's columns.
    label : str
        The file's label in messages.

    Raises
    ------
    DataError
        Naming the first unknown one.
    """
    for c in list(level) + drop_cols:
        if c not in cols:
            raise DataError(f"{label}: no column '{c}' (in " + Text("{missing_options}") + f"). Columns: {', '.join(cols)}")


def apply_missing(raw: pd.DataFrame, rownum: np.ndarray, cols: list[str], level: Mapping[str, str],
                  drop_missing: Iterable[str] | bool, label: str, notes: list[str]):
    """Check the columns named by the missing options, find the missing cells and drop the rows.

    Parameters
    ----------
    raw : pandas DataFrame
        The trimmed text cells.
    rownum : (n,) int64 ndarray
        The spreadsheet row of each record.
    cols : list of str
        The table's columns.
    level : mapping of str to str
        missing_level: column -> missing level.
    drop_missing : iterable of str or bool
        Columns (or True for all) whose rows with a missing cell are dropped.
    label : str
        The file's label in messages.
    notes : list of str
        Appended to: the note on the dropped rows.

    Returns
    -------
    raw : pandas DataFrame
        The rows kept.
    rownum : int64 ndarray
        Their spreadsheet rows.
    mostly_num : dict of str to bool
        As :func:`missing_masks`.
    missing_mask : dict of str to pandas Series
        As :func:`missing_masks`, for the rows kept.
    dropped : int
        Rows dropped.

    Raises
    ------
    DataError
        For an unknown column or when no row is left.
    """
    drop_cols = list(cols) if drop_missing is True else list(drop_missing or ())
    check_missing_options(level, drop_cols, cols, label)
    mostly_num, missing_mask = missing_masks(raw, cols)
    missing_mask_all = {c: bool(m.all()) for c, m in missing_mask.items()}
    drop = np.zeros(len(raw), dtype=bool)
    for c in drop_cols:
        drop |= missing_mask[c].to_numpy()
    dropped = int(drop.sum())
    if drop_cols:
        notes.append(dropped_note(dropped, drop_cols))
    raw = raw[~drop].reset_index(drop=True)
    rownum = rownum[~drop]
    missing_mask = {c: m[~drop].reset_index(drop=True) for c, m in missing_mask.items()}
    if len(raw) == 0:
        raise DataError(no_rows_left(label, dropped, [c for c in drop_cols if missing_mask_all[c]]))
    return raw, rownum, mostly_num, missing_mask, dropped


def guess_column(c: str, s: pd.Series, miss: pd.Series, mostly: bool, level: Mapping[str, str],
                 rownum: np.ndarray, max_categories: int) -> tuple[pd.Series, ColumnGuess, list[Problem]]:
    """One column: fill a declared missing level, decide its kind, collect its Problems.

    Parameters
    ----------
    c : str
        The column's name.
    s : pandas Series
        Its trimmed text cells.
    miss : pandas Series
        Its missing cells (:func:`missing_masks`).
    mostly : bool
        It is mostly numbers.
    level : mapping of str to str
        missing_level: column -> missing level.
    rownum : (n,) int64 ndarray
        The spreadsheet row of each record.
    max_categories : int
        A text column with more distinct values is not modelled by default.

    Returns
    -------
    column : pandas Series
        Its frame column (numbers as int64/float64, missing cells as NaN/None).
    guess : ColumnGuess
        Its kind, whether it is modelled, and why.
    problems : list of Problem
        Its Problems.
    """
    probs: list[Problem] = []
    if c in level:
        if mostly:
            rns = rownum[miss.to_numpy()].tolist()
            probs.append(Problem(c, "missing-level", int(miss.sum()), tuple(rns[:MAX_ROWS_LISTED]),
                                 f"column '{c}' holds numbers; a missing level {level[c]!r} would make it text. "
                                 f"Fix: drop the {int(miss.sum())} row(s) with a missing value instead"))
        else:
            s = s.where(~miss, str(level[c]))
            miss = pd.Series(False, index=s.index)
    vals = s[~miss]
    nmiss = int(miss.sum())
    distinct = list(dict.fromkeys(vals.tolist()))
    integer, levels, numbers = False, None, None
    if len(vals) == 0:
        kind, modelled, reason = "empty", False, "every cell is empty"
    elif (bl := _boolean_levels(distinct)) is not None:
        kind, modelled, levels = "boolean", len(distinct) == 2, bl
        reason = (f"true/false values kept in their spelling ({', '.join(bl)})" if len(distinct) == 2
                  else f"one value only ({bl[0]})")
    elif _date_mask(vals.astype(str)):
        kind, modelled = "date", False
        reason = (f"dates (e.g. {distinct[0]!r}): not modelled; declare an ordinal or numeric domain "
                  "(e.g. the year) to model it")
    elif mostly:
        kind, modelled, reason, integer, levels, numbers = _numbers_kind(c, s, vals, miss, distinct, rownum,
                                                                         max_categories, probs)
    else:
        kind, modelled, reason, levels = _text_kind(vals, distinct, max_categories)
    out = numbers if numbers is not None else s.where(~miss, None)
    if modelled and nmiss and kind != "empty":
        probs.append(_missing_problem(c, miss, rownum, nmiss, mostly))
    return out.reset_index(drop=True), ColumnGuess(c, kind, modelled, reason, integer, levels, nmiss, len(distinct)), probs


def _numbers_kind(c, s, vals, miss, distinct, rownum, max_categories, probs):
    """A mostly-numeric column: numbers (with cells that are not), codes with leading zeros,
    identifiers, numbers beyond 64 bits, or numbers. Returns (kind, modelled, reason, integer,
    levels, the frame column or None to keep the text); appends its Problems."""
    integer, levels, numbers = False, None, None
    nd = len(distinct)
    isnum = _is_number(vals)
    if not isnum.all():
        bad = ~isnum
        rns = rownum[(~miss).to_numpy()][bad.to_numpy()].tolist()
        ex = list(dict.fromkeys(vals[bad].tolist()))[:3]
        probs.append(Problem(c, "not-numbers", int(bad.sum()), tuple(rns[:MAX_ROWS_LISTED]),
                             f"column '{c}': {int(bad.sum())} cell(s) are not numbers (e.g. {ex}) in "
                             f"{rows_text(rns, int(bad.sum()))}. Fix: correct those cells, or declare "
                             "the column categorical"))
        kind, modelled, reason = "numeric", True, "numbers with some cells that are not numbers"
    elif vals.str.match(_DIGITS).all() and vals.str.match(r"^0\d").any():
        kind, modelled, reason, levels = _code_kind(vals, distinct, max_categories)
    else:
        big = vals[vals.str.match(_INT)]
        too_big = big[big.map(lambda v: abs(int(v)) > _INT64_MAX)]
        if len(too_big):
            rns = rownum[(~miss).to_numpy()][vals.index.isin(too_big.index)].tolist()
            probs.append(Problem(c, "too-large", len(too_big), tuple(rns[:MAX_ROWS_LISTED]),
                                 f"column '{c}': {len(too_big)} whole number(s) lie outside the 64-bit range "
                                 f"+-{_INT64_MAX} (e.g. {too_big.iloc[0]}) in {rows_text(rns, len(too_big))}. "
                                 "Fix: rescale the column (e.g. thousands) or treat it as text"))
            kind, modelled, reason = "numeric", True, "whole numbers beyond the 64-bit range"
        else:
            num = pd.to_numeric(vals)
            integer = bool(np.all(np.mod(num.to_numpy(dtype=float), 1) == 0))
            ints = num.to_numpy(dtype=float)
            consecutive = integer and nd == len(vals) and \
                np.array_equal(np.sort(ints), np.arange(ints.min(), ints.min() + len(ints)))
            if integer and nd == len(vals) and nd >= MIN_IDENTIFIER_ROWS and \
                    (consecutive or _IDLIKE.search(c)):
                kind, modelled = "identifier", False
                reason = ("whole numbers, all distinct" + (" and consecutive" if consecutive else "")
                          + ": an identifier, not modelled")
            else:
                kind, modelled = "numeric", True
                reason = "whole numbers" if integer else "numbers"
            full = pd.Series(np.nan, index=s.index, dtype=float)
            full[~miss] = num.to_numpy(dtype=float)
            numbers = full.astype(np.int64) if integer and int(miss.sum()) == 0 else full
    return kind, modelled, reason, integer, levels, numbers


def _code_kind(vals, distinct, max_categories):
    """Digits with leading zeros: an identifier when all distinct, else codes kept as text."""
    nd = len(distinct)
    kind, levels = "code", tuple(sorted(distinct))
    ex = next(v for v in distinct if re.match(r"^0\d", v))
    if nd == len(vals) and nd >= MIN_IDENTIFIER_ROWS:
        kind, modelled, levels = "identifier", False, None
        reason = f"codes with leading zeros (e.g. {ex!r}), all distinct: an identifier, not modelled"
    elif nd > max_categories:
        modelled, reason = False, f"codes with leading zeros (e.g. {ex!r}): {nd} distinct (> {max_categories})"
    else:
        modelled, reason = True, f"codes with leading zeros (e.g. {ex!r}) kept as text"
    return kind, modelled, reason, levels


def _text_kind(vals, distinct, max_categories):
    """A text column: an identifier (all distinct), free text (too many values) or categorical."""
    nd = len(distinct)
    if nd == len(vals) and nd >= MIN_IDENTIFIER_ROWS:
        return "identifier", False, f"all {nd} values distinct: an identifier, not modelled", None
    if nd > max_categories:
        return "text", False, f"{nd} distinct values (> {max_categories}): not modelled by default", None
    return "categorical", True, f"{nd} distinct values", tuple(sorted(distinct))


def _missing_problem(c, miss, rownum, nmiss, mostly):
    """The 'missing' Problem of a modelled column with missing cells."""
    rns = rownum[miss.to_numpy()].tolist()
    marker = " (empty or a marker like '?')" if mostly else " (empty)"
    return Problem(c, "missing", nmiss, tuple(rns[:MAX_ROWS_LISTED]),
                   f"column '{c}': {nmiss} cell(s) are missing{marker} in {rows_text(rns, nmiss)}. "
                   "Fix: " + Text("{drop_those_rows}", col=c)
                   + ("" if mostly else Text(" or {declare_level}", col=c, level="?")))


def _is_number(vals: pd.Series) -> pd.Series:
    """Boolean mask: the (trimmed, non-empty) cell is a finite number."""
    num = pd.to_numeric(vals, errors="coerce")
    return num.notna() & np.isfinite(num.astype(float))


def _date_mask(vals: pd.Series) -> bool:
    """True when every value looks like a date (one pattern for the whole column, and it parses)."""
    if vals.empty:
        return False
    for pat, fmt in _DATE_PATTERNS:
        if pat.match(vals.iloc[0]) and vals.str.match(pat).all():
            parsed = pd.to_datetime(vals, format=fmt, errors="coerce") if fmt else \
                pd.to_datetime(vals, errors="coerce", format="mixed")
            if parsed.notna().all():
                return True
    return False


def _boolean_levels(distinct: list[str]) -> tuple[str, ...] | None:
    low = {v.lower() for v in distinct}
    if 1 <= len(distinct) <= 2 and len(low) == len(distinct):
        for pair in BOOLEAN_PAIRS:
            if low <= set(pair):
                return tuple(sorted(distinct))
    return None
