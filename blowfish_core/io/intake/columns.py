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
from ...model.orderings import known_order
from ...model.schema import MOSTLY_NUMERIC
from .cells import TextColumn, finite_values, pc
from .problems import (MAX_ROWS_LISTED, Problem, dropped_note, missing_message, no_rows_left, not_numbers_message,
                       rows_text)
from .result import ColumnGuess

#: a text column with more distinct values than this is not modelled by default.
MAX_CATEGORIES = 50
#: an all-distinct column of at least this many values is flagged as an identifier.
MIN_IDENTIFIER_ROWS = 10
#: codes with leading zeros (zip codes) are categorical when they have at most this share of the
#: rows as distinct values (each code repeats on average), else an identifier (docs/DECISIONS.md).
MAX_CODE_SHARE = 0.5
#: cells that mean "missing" in a column that is otherwise numbers (besides empty cells).
MISSING_TOKENS = frozenset({"?", "NA", "N/A", "n/a", "na", "null", "NULL", "Null", "None", "none", "nan", "NaN",
                            "NAN", "-", ".", "#N/A"})
#: boolean spellings (lower-cased pairs); the original spelling is kept.
BOOLEAN_PAIRS = (("true", "false"), ("yes", "no"), ("t", "f"), ("y", "n"))
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


def missing_masks(raw: dict[str, TextColumn], cols: list[str]) -> tuple[dict[str, bool], dict[str, np.ndarray]]:
    """Per column: mostly numbers, and the mask of missing cells.

    Parameters
    ----------
    raw : dict of str to TextColumn
        The trimmed text cells per column.
    cols : list of str
        Its columns.

    Returns
    -------
    mostly_num : dict of str to bool
        At least MOSTLY_NUMERIC of the non-empty cells are numbers.
    missing_mask : dict of str to (n,) bool ndarray
        The missing cells (empty, or a MISSING_TOKENS marker in a mostly-numeric column).
    """
    mostly_num = {}
    missing_mask = {}
    for c in cols:
        col = raw[c]
        blank_v = col.blank
        counts = np.bincount(col.codes, minlength=col.m)
        n_nonblank = int(counts[~blank_v].sum())
        n_num = int(counts[np.isfinite(col.number)].sum()) if n_nonblank else 0
        mostly = bool(n_nonblank) and n_num > 0 and n_num >= MOSTLY_NUMERIC * n_nonblank
        mostly_num[c] = mostly
        miss_v = blank_v | col.isin(MISSING_TOKENS) if mostly else blank_v
        missing_mask[c] = miss_v[col.codes]
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
    raw : dict of str to TextColumn
        The trimmed text cells per column.
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
    raw : dict of str to TextColumn
        The rows kept.
    rownum : int64 ndarray
        Their spreadsheet rows.
    mostly_num : dict of str to bool
        As :func:`missing_masks`.
    missing_mask : dict of str to bool ndarray
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
    drop = np.zeros(len(rownum), dtype=bool)
    for c in drop_cols:
        drop |= missing_mask[c]
    dropped = int(drop.sum())
    if drop_cols:
        notes.append(dropped_note(dropped, drop_cols))
    if dropped:
        raw = {c: col.take(~drop) for c, col in raw.items()}
        rownum = rownum[~drop]
        missing_mask = {c: m[~drop] for c, m in missing_mask.items()}
    if len(rownum) == 0:
        raise DataError(no_rows_left(label, dropped, [c for c in drop_cols if missing_mask_all[c]]))
    return raw, rownum, mostly_num, missing_mask, dropped


def guess_column(c: str, col: TextColumn, miss: np.ndarray, mostly: bool, level: Mapping[str, str],
                 rownum: np.ndarray, max_categories: int) -> tuple[pd.Series, ColumnGuess, list[Problem]]:
    """One column: fill a declared missing level, decide its kind, collect its Problems.

    Parameters
    ----------
    c : str
        The column's name.
    col : TextColumn
        Its trimmed text cells.
    miss : (n,) bool ndarray
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
            rns = rownum[miss].tolist()
            probs.append(Problem(c, "missing-level", int(miss.sum()), tuple(rns[:MAX_ROWS_LISTED]),
                                 f"column '{c}' holds numbers; a missing level {level[c]!r} would make it text. "
                                 f"Fix: drop the {int(miss.sum())} row(s) with a missing value instead"))
        else:
            col = col.filled(miss, str(level[c]))
            miss = np.zeros(len(col), dtype=bool)
    keep = ~miss
    vcodes = col.codes[keep]
    nmiss = int(miss.sum())
    used = np.flatnonzero(np.bincount(vcodes, minlength=col.m))
    nd = len(used)
    texts = _Texts(col, used)  # the distinct values (in code order), made on use
    integer, levels, numbers = False, None, None
    if len(vcodes) == 0:
        kind, modelled, reason = "empty", False, "every cell is empty"
    elif nd <= 2 and (bl := _boolean_levels(texts())) is not None:
        kind, modelled, levels = "boolean", nd == 2, bl
        reason = (f"true/false values kept in their spelling ({', '.join(bl)})" if nd == 2
                  else f"one value only ({bl[0]})")
    elif _dates(first := col.text(vcodes[0]), texts):
        kind, modelled = "date", False
        reason = (f"dates (e.g. {first!r}): not modelled; declare an ordinal or numeric domain "
                  "(e.g. the year) to model it")
    elif mostly:
        kind, modelled, reason, integer, levels, numbers = _numbers_kind(c, col, keep, used, texts, rownum,
                                                                         max_categories, probs)
    else:
        kind, modelled, reason, levels = _text_kind(vcodes, texts, max_categories)
    out = numbers if numbers is not None else pd.Series(col.cells(miss), dtype=object)
    if modelled and nmiss and kind != "empty":
        probs.append(_missing_problem(c, miss, rownum, nmiss, mostly))
    return out, ColumnGuess(c, kind, modelled, reason, integer, levels, nmiss, nd), probs


def _numbers_kind(c, col, keep, used, texts, rownum, max_categories, probs):
    """A mostly-numeric column: numbers (with cells that are not), codes with leading zeros,
    identifiers, numbers beyond 64 bits, or numbers. Returns (kind, modelled, reason, integer,
    levels, the frame column or None to keep the text); appends its Problems."""
    integer, levels, numbers = False, None, None
    nd = len(used)
    vcodes, rkeep = col.codes[keep], rownum[keep]
    isnum = np.isfinite(col.number)[vcodes]
    digits_v = pc.ascii_is_decimal(col.values).to_numpy(zero_copy_only=False)
    if not isnum.all():
        bad = ~isnum
        rns = rkeep[bad].tolist()
        ex = col.texts(pd.unique(vcodes[bad])[:3])
        probs.append(Problem(c, "not-numbers", int(bad.sum()), tuple(rns[:MAX_ROWS_LISTED]),
                             not_numbers_message(c, int(bad.sum()), ex, rows_text(rns, int(bad.sum())))))
        kind, modelled, reason = "numeric", True, "numbers with some cells that are not numbers"
    elif digits_v[used].all() and (lead := _leading_zero(col)[vcodes]).any():
        ex = col.text(vcodes[int(np.argmax(lead))])
        kind, modelled, reason, levels = _code_kind(vcodes, texts(), max_categories, ex, c)
    else:
        big_v = np.zeros(col.m, dtype=bool)  # whole numbers beyond 64 bits: 19 characters or more
        long_v = pc.binary_length(col.values).to_numpy(zero_copy_only=False) >= 19
        for i in used[long_v[used]]:
            v = col.text(i)
            big_v[i] = bool(_INT.match(v)) and abs(int(v)) > _INT64_MAX
        too_big = big_v[vcodes]
        if too_big.any():
            rns, n_big = rkeep[too_big].tolist(), int(too_big.sum())
            probs.append(Problem(c, "too-large", n_big, tuple(rns[:MAX_ROWS_LISTED]),
                                 f"column '{c}': {n_big} whole number(s) lie outside the 64-bit range "
                                 f"+-{_INT64_MAX} (e.g. {col.text(vcodes[int(np.argmax(too_big))])}) in "
                                 f"{rows_text(rns, n_big)}. Fix: rescale the column (e.g. thousands) or treat it as text"))
            kind, modelled, reason = "numeric", True, "whole numbers beyond the 64-bit range"
        else:
            ints = col.number[vcodes]
            integer = bool(np.all(np.mod(ints, 1) == 0))
            consecutive = integer and nd == len(ints) and \
                np.array_equal(np.sort(ints), np.arange(ints.min(), ints.min() + len(ints)))
            if integer and nd == len(ints) and nd >= MIN_IDENTIFIER_ROWS and \
                    (consecutive or _IDLIKE.search(c)):
                kind, modelled = "identifier", False
                reason = ("whole numbers, all distinct" + (" and consecutive" if consecutive else "")
                          + ": an identifier, not modelled")
            else:
                kind, modelled = "numeric", True
                reason = "whole numbers" if integer else "numbers"
            full = np.full(len(col), np.nan)
            full[keep] = ints
            numbers = pd.Series(full).astype(np.int64) if integer and bool(keep.all()) else pd.Series(full)
    return kind, modelled, reason, integer, levels, numbers


def _leading_zero(col: TextColumn) -> np.ndarray:
    """(m,) bool: the distinct value starts with 0 and a digit (``^0\\d``)."""
    second = pc.utf8_slice_codeunits(col.values, 1, 2)
    return (pc.starts_with(col.values, "0").to_numpy(zero_copy_only=False)
            & pc.utf8_is_decimal(second).to_numpy(zero_copy_only=False))


def _code_kind(vals, distinct, max_categories, ex, c):
    """Digits with leading zeros (``ex`` the first one), always kept as text (never numbers):
    categorical when they repeat (at most ``max_categories`` distinct values and at most
    MAX_CODE_SHARE of the rows, or fewer than MIN_IDENTIFIER_ROWS distinct), else an identifier.
    The distinct values are the levels either way, so a picked identifier is modelled as
    categorical text (:meth:`IntakeResult.attribute`)."""
    nd, n = len(distinct), len(vals)
    levels = tuple(sorted(distinct))
    if nd < MIN_IDENTIFIER_ROWS or (nd <= max_categories and nd <= MAX_CODE_SHARE * n):
        return "code", True, f"codes with leading zeros (e.g. {ex!r}) kept as text", levels
    why = "all distinct" if nd == n else f"{nd} distinct values (> {max_categories})" if nd > max_categories \
        else f"{nd} distinct values in {n} rows (more than {MAX_CODE_SHARE:.0%} of them)"
    reason = (f"codes with leading zeros (e.g. {ex!r}), {why}: an identifier, not modelled. To model it as "
              "categorical text (its values as levels, leading zeros kept), " + Text("{model_column}", col=c))
    return "identifier", False, reason, levels


def _text_kind(vals, texts, max_categories):
    """A text column: an identifier (all distinct; its values kept as the levels of a pick), free text (too many values), ordinal (month or weekday
    names, model.orderings) or categorical."""
    nd = len(texts)
    if nd == len(vals) and nd >= MIN_IDENTIFIER_ROWS:  # its levels kept: a picked identifier is categorical
        return "identifier", False, f"all {nd} values distinct: an identifier, not modelled", tuple(sorted(texts()))
    if nd > max_categories:
        return "text", False, f"{nd} distinct values (> {max_categories}): not modelled by default", None
    if (known := known_order(texts())) is not None:  # month / weekday names: ordinal in their natural order
        return "ordinal", True, f"{nd} distinct values, {known.reason}", known.levels
    return "categorical", True, f"{nd} distinct values", tuple(sorted(texts()))


class _Texts:
    """A column's distinct values, listed on the first call (``len`` without listing them)."""

    def __init__(self, col: TextColumn, used: np.ndarray) -> None:
        self.col, self.used = col, used
        self.listed: list[str] | None = None

    def __len__(self) -> int:
        return len(self.used)

    def __call__(self) -> list[str]:
        if self.listed is None:
            self.listed = list(self.col.texts(self.used))
        return self.listed


def _missing_problem(c, miss, rownum, nmiss, mostly):
    """The 'missing' Problem of a modelled column with missing cells (its fixes by rows kept, issue 27)."""
    rns = rownum[miss].tolist()
    return Problem(c, "missing", nmiss, tuple(rns[:MAX_ROWS_LISTED]),
                   missing_message(c, nmiss, rns, len(miss), mostly, mostly))


def _is_number(vals: pd.Series) -> pd.Series:
    """Boolean mask: the (trimmed, non-empty) cell is a finite number."""
    return pd.Series(np.isfinite(finite_values(vals)), index=vals.index)


def _date_mask(vals: pd.Series) -> bool:
    """True when every value looks like a date (one pattern for the whole column, and it parses)."""
    if vals.empty:
        return False
    return _dates(str(vals.iloc[0]), lambda: vals.astype(str).tolist())


def _dates(first: str, texts) -> bool:
    """True when ``first`` and every one of the distinct values (``texts()``, all the column's
    values) match one date pattern and parse."""
    for pat, fmt in _DATE_PATTERNS:
        if not pat.match(first):
            continue
        distinct = texts()
        if all(pat.match(v) for v in distinct):
            parsed = pd.to_datetime(pd.Series(distinct, dtype=object), format=fmt, errors="coerce") if fmt else \
                pd.to_datetime(pd.Series(distinct, dtype=object), errors="coerce", format="mixed")
            if parsed.notna().all():
                return True
    return False


def _boolean_levels(distinct: list[str]) -> tuple[str, ...] | None:
    if not 1 <= len(distinct) <= 2:
        return None
    low = {v.lower() for v in distinct}
    if len(low) == len(distinct):
        for pair in BOOLEAN_PAIRS:
            if low <= set(pair):
                return tuple(sorted(distinct))
    return None
