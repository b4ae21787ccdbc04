"""CSV intake: one engine step that turns a user's file into a checked table (issue 11).

``intake_csv(source, ...)`` reads a CSV (path, bytes or binary file-like object; any
extension: ``.csv``, ``.tsv``, ``.txt``, ``.data``), and returns a frozen
:class:`IntakeResult` holding

* the table (``frame``): every cell trimmed of ASCII *and* Unicode spaces (non-breaking,
  thin, ideographic, zero-width), text kept as text (``02165`` stays ``"02165"``,
  ``TRUE`` stays ``"TRUE"``), numbers as int64/float64, missing cells as NaN;
* the separator it used (sniffed among ``,`` ``;`` tab ``|`` and ``", "``, or given);
* the header decision and, for a file whose first row looks like data, the offered
  column names (a known preset's UCI names when the shape matches Adult or Bank);
* one :class:`ColumnGuess` per column (kind, modelled or not, and why);
* notes, warnings, and every :class:`Problem` found in one pass.

The user's file is only read, never written.  Nothing is coerced silently: trimmed
cells, dropped rows and unmodelled columns are stated in the notes; anything that
would make the run fail is a Problem naming the column, the count, up to five row
numbers and the fix.  ``IntakeResult.raise_for_problems()`` turns them into one
DataError for callers that must stop (the CLI).

**Row numbers** are the rows a spreadsheet shows when it opens the file: row 1 is the
first line of the file -- the header when there is one -- so with a header the first
data record is row 2, and without one it is row 1.  Blank lines count (a spreadsheet
shows them as empty rows); a quoted field spanning lines is one row (one record).

Structured wording (issue 21): a fix naming an intake option is a
:class:`~blowfish_core.base.fields.Text` (phrases ``header_names``, ``drop_rows``, ``level_arg``,
``columns_arg``, ... of ``fields.PHRASES``); its ``str`` is the API wording (``no_header=True
and names=[...]``, ``drop_missing=[...]``, ``missing_level={...}``, ``columns=[...]``) and
``fields.render(msg, 'cli' | 'app')`` the command line's flags or the app's controls.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from .data import DEFAULT_MAX_BYTES, NO_DATA_ROWS, read_text
from ..base.errors import DataError, SchemaError
from ..base.fields import Text, join
from ..model.schema import MOSTLY_NUMERIC, Attribute, Schema

#: separators the sniffer chooses from, in order of preference on ties; ", " is a comma
#: followed by one space after every separator (the UCI Adult original).
SEPARATORS = (",", ";", "\t", "|", ", ")
SEP_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe", ", ": "comma followed by a space"}
SEP_ALIASES = {"\\t": "\t", "tab": "\t", "semicolon": ";", "comma": ",", "pipe": "|"}
#: beyond this many modellable columns only the first ones are modelled by default.
MAX_MODELLED_COLUMNS = 30
#: tables under this many rows get a visible warning.
MIN_ROWS = 1000
#: a text column with more distinct values than this is not modelled by default.
MAX_CATEGORIES = 50
#: an all-distinct column of at least this many values is flagged as an identifier.
MIN_IDENTIFIER_ROWS = 10
#: at most this many row numbers are listed per problem.
MAX_ROWS_LISTED = 5
#: cells that mean "missing" in a column that is otherwise numbers (besides empty cells).
MISSING_TOKENS = frozenset({"?", "NA", "N/A", "n/a", "na", "null", "NULL", "Null", "None", "none", "nan", "NaN",
                            "NAN", "-", ".", "#N/A"})
#: boolean spellings (lower-cased pairs); the original spelling is kept.
BOOLEAN_PAIRS = (("true", "false"), ("yes", "no"), ("t", "f"), ("y", "n"))
#: leading/trailing characters trimmed like ASCII spaces: re's \s covers Unicode spaces
#: (U+00A0 no-break, U+2000-U+200A, U+202F, U+205F, U+3000, ...); add the zero-width ones.
_EDGE = re.compile(r"^[\s\u200b\u2060\ufeff]+|[\s\u200b\u2060\ufeff]+$")
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
def missing_level_numeric(column: str, level: str) -> Text:
    """The refusal of a missing level for a column the schema declares numeric (before reading)."""
    return Text("column '{col}' is numeric in the schema; a missing level ({level!r}) is for text columns "
                "and would make it text. Fix: drop the rows with a missing value instead ({drop_rows})",
                col=column, level=level)


def no_rows_left(label: str, dropped: int, empty: Sequence[str]) -> str | Text:
    """Every row was dropped for a missing value; ``empty``: dropping columns empty in every row."""
    if empty:
        shown = ("column " if len(empty) == 1 else "columns ") + ", ".join(repr(c) for c in empty)
        return (f"{label}: no rows are left after dropping {dropped} row(s) with missing values: {shown} "
                f"{'is' if len(empty) == 1 else 'are'} empty in every row. Fix: " + empty_column_fix(len(empty))
                + ", and drop rows only for the other columns")
    return (f"{label}: no rows are left after dropping {dropped} row(s) with missing values. "
            "Fix: declare a missing level instead of dropping")


def empty_column_fix(k: int = 1) -> Text:
    """The fix for modelled column(s) empty in every row (dropping rows or a missing level cannot help)."""
    it = "it" if k == 1 else "them"
    return Text("remove {it} from the schema, or leave {it} out of the modelled columns ({columns_arg})", it=it)


def not_whole_message(column: str, n: int, examples: Sequence[str], where: str) -> str:
    """Cells with a fraction in a column the schema declares integer."""
    return (f"column '{column}': {n} cell(s) are not whole numbers (e.g. {list(examples)}) in {where}, but the "
            "schema declares the column integer. Fix: correct those cells, or set integer to false in the schema")


def size_warnings(n: int, release_size: int | None) -> list[str]:
    """The warnings for a table of n rows: fewer rows than the release, under MIN_ROWS rows."""
    warns = []
    if release_size is not None and n < release_size:
        warns.append(f"the table has {n} rows, fewer than the release size ({release_size}): the synthetic table "
                     f"would hold more records than the original. Fix: release at most {n} records or use a larger table")
    if n < MIN_ROWS:
        warns.append(f"the table has only {n} rows (under {MIN_ROWS:,}): the noise will dominate the vote "
                     "histogram and the synthetic data will be of little use")
    return warns


# ------------------------------------------------------------------ results
@dataclass(frozen=True)
class Problem:
    """One thing that stops the table from being used as it is.

    column: the column's name ('' for the whole file); kind: 'header', 'fields',
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


@dataclass(frozen=True)
class ColumnGuess:
    """What intake made of one column.

    kind: 'numeric', 'categorical', 'boolean', 'code' (digits with leading zeros, kept as
    text), 'identifier' (all values distinct), 'date', 'text' (too many distinct values)
    or 'empty'.  modelled: used for synthesis by default (or picked).  reason: why, in
    one sentence.  integer: numeric with whole numbers only.  levels: distinct values in
    their original spelling for boolean/code/categorical columns (sorted), else None.
    n_missing: missing cells after the intake's choices (drop / level) were applied.
    """

    name: str
    kind: str
    modelled: bool
    reason: str
    integer: bool = False
    levels: tuple[str, ...] | None = None
    n_missing: int = 0
    n_distinct: int = 0


@dataclass(frozen=True)
class IntakeResult:
    """The outcome of :func:`intake_csv` (frozen; ``frame`` is the intake's own copy).

    frame: the table, n rows x k columns (all columns, modelled or not).
    source: the file's label.  sep: the separator used (one of SEPARATORS, or the one
    given); sep_sniffed: True when detected; sep_name: e.g. 'semicolon'.
    header: the first row was read as column names.  header_reason: why.
    offered_names: column names offered for a headerless file (the preset's names when
    preset_layout is set), else None.  preset_layout: 'adult' / 'bank' when the file has
    that UCI layout.  columns: one ColumnGuess per column of ``frame``.  modelled: names
    modelled by default (or picked).  row_numbers: (n,) spreadsheet row of each frame row.
    dropped_rows: rows removed because of drop_missing.  notes, warnings, problems: tuples
    of strings / Problems.
    """

    frame: pd.DataFrame
    source: str
    sep: str
    sep_sniffed: bool
    sep_name: str
    header: bool
    header_reason: str
    offered_names: tuple[str, ...] | None
    preset_layout: str | None
    columns: tuple[ColumnGuess, ...]
    modelled: tuple[str, ...]
    row_numbers: tuple[int, ...]
    dropped_rows: int = 0
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        """True when there is no problem."""
        return not self.problems

    def guess(self, name: str) -> ColumnGuess:
        """The ColumnGuess of column ``name``. Raises DataError for an unknown column."""
        for g in self.columns:
            if g.name == name:
                return g
        raise DataError(f"{self.source}: no column '{name}'. Columns: {', '.join(g.name for g in self.columns)}")

    def raise_for_problems(self) -> IntakeResult:
        """Return self when there is no problem, else raise one DataError listing every
        problem (one line for a single problem; else a head line and one line per problem,
        each with its column, count, rows and fix)."""
        if len(self.problems) == 1:
            raise DataError(f"{self.source}: " + self.problems[0].message)
        if self.problems:
            head = f"{self.source}: {len(self.problems)} problem(s) found"
            raise DataError(head + ":\n" + join("\n", ["- " + p.message for p in self.problems]))
        return self

    def modelled_frame(self) -> pd.DataFrame:
        """The modelled columns of ``frame`` (a copy), in file order."""
        return self.frame[list(self.modelled)].copy()

    def schema(self) -> Schema:
        """A data-derived Schema (DESIGN §3) for the modelled columns.

        numeric -> numeric [min, max] (integer when whole; {0, 1} -> binary);
        boolean / code / categorical -> binary (2 values) or categorical with the values in
        their original spelling.  Flagged data_derived with every modelled column.
        Raises SchemaError when there are problems, or a picked column holds dates,
        identifiers or free text (declare an ordinal or numeric domain for it instead).
        """
        if self.problems:
            raise SchemaError(f"{self.source}: fix the intake problems first (" + self.problems[0].message + ")")
        attrs = []
        for name in self.modelled:
            g = self.guess(name)
            s = self.frame[name].dropna()
            if g.kind == "numeric":
                x = s.to_numpy(dtype=float)
                distinct = np.unique(x)
                if len(distinct) == 2 and set(distinct.tolist()) <= {0.0, 1.0}:
                    attrs.append(Attribute(name, "binary", levels=[0, 1]))
                    continue
                lo, hi = float(x.min()), float(x.max())
                attrs.append(Attribute(name, "numeric", lo=lo, hi=hi if hi > lo else lo + 1.0, integer=g.integer))
            elif g.kind in ("boolean", "code", "categorical"):
                levels = list(g.levels or ())
                attrs.append(Attribute(name, "binary" if len(levels) == 2 else "categorical", levels=levels))
            else:
                raise SchemaError(
                    f"column '{name}' is {g.kind} ({g.reason}). Fix: declare an ordinal (levels in order) or "
                    "numeric domain for it in a schema file, or leave it out of the modelled columns"
                )
        return Schema(attrs, data_derived=True, data_derived_columns=list(self.modelled))

    def summary_lines(self) -> list[str]:
        """Plain-text lines: separator, header, modelled columns, notes, warnings, problems (each a
        str, a fields.Text where it names an intake option: render it per front end)."""
        lines = [(f"{self.source}: separator {self.sep_name} ({'detected' if self.sep_sniffed else 'given'}); "
                  f"{'header row' if self.header else 'no header row'} (" + self.header_reason + "); "
                  f"{len(self.frame)} rows, {len(self.columns)} columns, {len(self.modelled)} modelled")]
        lines += ["note: " + t for t in self.notes]
        lines += ["WARNING: " + t for t in self.warnings]
        lines += ["problem: " + p.message for p in self.problems]
        return lines


# ----------------------------------------------------------------- checks
def check_sep(sep: str | None) -> str | None:
    """Normalise a user-given separator: None (detect), one character, or ', '.

    Aliases: '\\t' and 'tab' -> tab, 'semicolon', 'comma', 'pipe'.  Raises DataError for
    an empty string (it would silently mean ','), a quote or a line break, or text
    longer than one character (other than ', ').
    """
    if sep is None:
        return None
    if not isinstance(sep, str):
        raise DataError(f"separator must be text such as ',' (got {sep!r})")
    if sep == "":
        raise DataError("the separator is empty (''). Fix: give one character such as ',', ';', '\\t' or '|', "
                        "or leave it out to detect it")
    sep = SEP_ALIASES.get(sep, sep)
    if sep == ", ":
        return sep
    if len(sep) != 1:
        raise DataError(f"the separator must be one character such as ',', ';', '\\t' or '|' (got {sep!r})")
    if sep in ('"', "\n", "\r"):
        raise DataError(f"the separator cannot be {sep!r}. Fix: give ',', ';', '\\t' or '|'")
    return sep


def domain_problems(schema: Any, res: "IntakeResult") -> tuple[Problem, ...]:
    """Cells of the intake's frame outside ``schema``'s declared public domain, one Problem per
    column (kind 'outside-domain') with its count and up to five spreadsheet row numbers.

    Checked on the whole table, before any split (so a preset's pilot rows are checked too).
    Numeric attributes: numbers outside [lo, hi], and for an integer attribute numbers with a
    fraction (kind 'not-whole'); cells that are not numbers are the intake's 'not-numbers'
    problems.  Every other attribute: values its encode_value refuses (one call per distinct
    value).  Missing cells are left to the intake's 'missing' problems.
    """
    from ..model.domain import NumericAttribute
    from ..base.errors import SchemaError

    frame, rn = res.frame, np.asarray(res.row_numbers)
    out: list[Problem] = []
    for a in schema.attributes:
        if a.name not in frame.columns:
            continue
        col = frame[a.name]
        present = col.notna().to_numpy()
        frac = None  # integer attributes: cells with a fraction
        if isinstance(a, NumericAttribute):
            x = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
            bad = present & np.isfinite(x) & ((x < a.lo) | (x > a.hi))
            where = f"outside [{a.lo:g}, {a.hi:g}]"
            fix = "widen the declared bounds or remove those rows; values are never clipped silently"
            frac = present & np.isfinite(x) & ~bad & (np.mod(np.nan_to_num(x), 1) != 0) if a.integer else None
        else:
            refused = set()
            for v in pd.unique(col[present]):
                try:
                    a.encode_value(v)
                except SchemaError:
                    refused.add(v)
            bad = present & col.isin(refused).to_numpy()
            where = "outside the declared categories"
            fix = f"add them to the levels of '{a.name}' or remove those rows"
        if bad.any():
            rows = rn[bad].tolist()
            ex = list(dict.fromkeys(col[bad].astype(str).tolist()))[:3]
            n = int(bad.sum())
            out.append(Problem(a.name, "outside-domain", n, tuple(rows[:MAX_ROWS_LISTED]),
                               f"column '{a.name}': {n} cell(s) {where} of the public domain (e.g. {ex}) in "
                               f"{_rows_text(rows, n)}. Fix: {fix}"))
        if frac is not None and frac.any():
            rows, n = rn[frac].tolist(), int(frac.sum())
            ex = list(dict.fromkeys(col[frac].astype(str).tolist()))[:3]
            out.append(Problem(a.name, "not-whole", n, tuple(rows[:MAX_ROWS_LISTED]),
                               not_whole_message(a.name, n, ex, _rows_text(rows, n))))
    return tuple(out)


def _rows_text(rows: Sequence[int], count: int) -> str:
    shown = ", ".join(str(r) for r in rows[:MAX_ROWS_LISTED])
    more = count - min(len(rows), MAX_ROWS_LISTED)
    word = "row" if count == 1 else "rows"
    return f"{word} {shown}" + (f" and {more} more" if more > 0 else "")


_ZERO_WIDTH = "\u200b\u2060\ufeff"
_ASCII_WS = " \t\r\n\f\v"


def _trim(v: str) -> str:
    """Strip ASCII and Unicode spaces (str.strip: every isspace() character, e.g. U+00A0,
    U+2007, U+202F, U+3000) and the zero-width ones."""
    t = v.strip()
    if t and (t[0] in _ZERO_WIDTH or t[-1] in _ZERO_WIDTH):
        t = _EDGE.sub("", t)
    return t


def _parse(text: str, sep: str) -> list[list[str]]:
    delim, skip = (",", True) if sep == ", " else (sep, False)
    try:
        return [row for row in csv.reader(io.StringIO(text, newline=""), delimiter=delim, skipinitialspace=skip,
                                          strict=False)]
    except csv.Error as e:
        raise DataError(f"malformed CSV ({e}). Fix: check the quoting") from None


def _check_quotes(text: str, sep: str, label: str) -> None:
    """A quote opened and never closed swallows the rest of the file into one cell: an error."""
    delim = "," if sep == ", " else sep
    try:
        for _ in csv.reader(io.StringIO(text, newline=""), delimiter=delim, skipinitialspace=sep == ", ",
                            strict=True):
            pass
    except csv.Error as e:
        if "unexpected end of data" in str(e):
            raise DataError(f"{label}: malformed CSV (a quote \" is opened and never closed). "
                            "Fix: check the quoting and the number of fields per row") from None


def separator_hint(columns) -> str:
    """'' or, when a column name holds a separator (';', tab, '|', ','), a sentence saying the separator
    was not detected and how to give it: a row near the top with another number of fields (or an
    unclosed quote) stops :func:`sniff_separator`, and the whole header then reads as one column."""
    for c in columns:
        for sep, shown in ((";", "';'"), ("\t", "'\\t'"), ("|", "'|'"), (",", "','")):
            if sep in str(c):
                return (f". The header reads as {len(columns)} column(s) and {str(c)[:60]!r} holds {shown}: the "
                        "separator was not detected (a row near the top with another number of fields, or an "
                        f"unclosed quote, stops the detection). Fix: give it (--sep {shown} on the command line, "
                        f"sep={shown} in Python); the rows with a wrong number of fields are then listed")
    return ""


def sniff_separator(text: str, sample_lines: int = 64) -> str:
    """The separator of a CSV text: one of SEPARATORS.

    csv.Sniffer proposes a delimiter among , ; tab |; it is kept when every sampled line
    then has the same number (> 1) of fields, else the candidate with the most fields that
    splits every sampled line equally wins.  A comma becomes ', ' when every field after
    the first starts with a space.  Returns ',' when nothing splits the lines (one column).
    """
    lines = [ln for ln in text.splitlines() if ln.strip()][:sample_lines]
    sample = "\n".join(lines)

    def counts(d: str) -> list[int]:
        try:
            return [len(r) for r in csv.reader(io.StringIO(sample), delimiter=d) if r]
        except csv.Error:
            return []

    def consistent(d: str) -> int:
        c = counts(d)
        return c[0] if c and c[0] > 1 and len(set(c)) == 1 else 0

    best = None
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
        if consistent(sniffed):
            best = sniffed
    except csv.Error:
        pass
    if best is None:
        scored = [(consistent(d), -i, d) for i, d in enumerate(SEPARATORS[:4])]
        top = max(scored)
        best = top[2] if top[0] > 0 else ","
    if best == ",":
        rows = [r for r in csv.reader(io.StringIO(sample), delimiter=",") if len(r) > 1]
        if rows and all(all(f.startswith(" ") for f in r[1:]) for r in rows):
            return ", "
    return best


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


def _header_looks_like_data(first: list[str], rest: list[list[str]]) -> tuple[bool, str]:
    """(True, reason) when the first row is data: in every column whose other rows are
    all numbers, the first cell is a number too."""
    k = len(first)
    numeric_cols = []
    for j in range(k):
        col = pd.Series([r[j] for r in rest if len(r) == k and r[j] != ""], dtype=object)
        if len(col) and _is_number(col).all():
            numeric_cols.append(j)
    if not numeric_cols:
        return False, ""
    numeric_cols = [j for j in numeric_cols if first[j] != ""]  # an empty first cell says nothing
    if not numeric_cols:
        return False, ""
    first_s = pd.Series([first[j] for j in numeric_cols], dtype=object)
    if _is_number(first_s).all():
        shown = ", ".join(f"{first[j]!r}" for j in numeric_cols[:3])
        return True, (f"the first row has numbers ({shown}) where the rest of the column(s) "
                      f"{', '.join(str(j + 1) for j in numeric_cols[:3])} are numbers")
    return False, ""


def _preset_layout(first: list[str], k: int) -> str | None:
    """'adult' / 'bank' when a row of k fields fits that preset's UCI layout (count and
    the preset's modelled columns inside their public domains)."""
    from .presets import PRESET_LAYOUTS, get_preset

    for name, cols in PRESET_LAYOUTS.items():
        if k != len(cols) or len(first) != k:
            continue
        row = pd.DataFrame([dict(zip(cols, first))])
        schema = get_preset(name).schema
        try:
            for a in schema.attributes:
                v = row[a.name]
                if a.kind == "numeric":
                    v = pd.to_numeric(v, errors="raise")
                a.encode_series(v)
        except (SchemaError, ValueError, TypeError):
            continue
        return name
    return None


# ------------------------------------------------------------------ intake
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
) -> IntakeResult:
    """Read and check a CSV in one pass; see the module docstring.

    source: path, bytes or binary file-like.  sep: None to detect (see
    :func:`sniff_separator`), else as :func:`check_sep`.  no_header: None to detect
    (a first row that looks like data -- numbers where the rest of the column is numbers,
    or a preset's UCI layout -- becomes a 'header' Problem offering names, and the frame
    is read headerless with those names so every other check still runs); True: no
    header row (``names`` or the offered names); False: the first row is the header.
    names: column names for a headerless file (as many as fields); implies no_header=True
    unless no_header=False is given (then a DataError).
    columns: the columns to model (overrides the default choice; identifiers and dates
    may be picked).  drop_missing: columns (or True for all) whose rows with a missing
    cell are dropped (the count is in ``dropped_rows`` and the notes).  missing_level:
    column -> the text that replaces its missing cells (a declared missing level; text
    columns only).  Missing means an empty cell, or in a column that is otherwise numbers
    one of MISSING_TOKENS.  release_size: the planned release (None: no check).
    max_columns: modellable columns beyond this are not modelled by default (note).

    Returns an IntakeResult.  Raises DataError for an unreadable file (see
    :func:`blowfish_core.io.data.read_text`), a bad ``sep``, a header without data rows,
    ``names`` of the wrong length or duplicated.
    """
    sep_given = check_sep(sep)
    if names is not None and no_header is None:
        no_header = True  # names are for a file without a header row
    label, text = read_text(source, max_bytes=max_bytes, name=name)
    sep_used = sep_given if sep_given is not None else sniff_separator(text)
    records = _parse(text, sep_used)
    if '"' in text:
        _check_quotes(text, sep_used, label)
    # spreadsheet row of every record (1-based, blank lines included), then drop blank records
    numbered = []
    trimmed_unicode = 0
    for i, r in enumerate(records):
        t = [_trim(v) for v in r]
        for v, tv in zip(r, t):
            if len(v) != len(tv) and v.strip(_ASCII_WS) != tv:
                trimmed_unicode += 1
        numbered.append((i + 1, t))
    numbered = [(i, r) for i, r in numbered if any(v != "" for v in r)]
    if not numbered:
        raise DataError(f"{label}: the file is empty. Fix: give a CSV file with a header row and data rows")
    notes: list[str] = []
    warns: list[str] = []
    problems: list[Problem] = []
    first_row, first = numbered[0]
    k = len(first)
    rest = [r for _, r in numbered[1:1001]]
    looks, why = _header_looks_like_data(first, rest)
    layout = _preset_layout(first, k)
    from .presets import PRESET_LAYOUTS

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
        names = [str(n).strip() for n in names]
        if len(names) != k:
            raise DataError(f"{label}: {len(names)} names given but the rows have {k} fields. Fix: give {k} names")
        dups = sorted({n for n in names if names.count(n) > 1})
        if dups or "" in names:
            raise DataError(f"{label}: names must be unique and non-empty (duplicates: {dups}). Fix: rename them")
    if header:
        cols = list(first)
        data = numbered[1:]
        if layout is None and header_layout is not None:
            layout = header_layout
    else:
        cols = list(names) if names is not None else list(offered)
        data = numbered
        if no_header is None:
            named = f"the {layout.capitalize()} preset's names" if layout else f"column_1 .. column_{k}"
            problems.append(Problem(
                "", "header", 1, (first_row,),
                f"the first row looks like data, not a header: {why}. It was read as data (row {first_row}) "
                f"with columns named {named}. Fix: " + Text("{confirm_offered}", names=tuple(offered[:4])
                                                             + (("...",) if k > 4 else ()))
                + ", or add a header row to the file"))
    if not data:
        raise DataError(f"{label}: {NO_DATA_ROWS}")
    # column names: empty or duplicated names are problems; the frame gets unique names
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
    # ragged rows: every row with another field count, in one problem per count
    ragged: dict[int, list[int]] = {}
    good = []
    for rn, r in data:
        if len(r) != k:
            ragged.setdefault(len(r), []).append(rn)
        else:
            good.append((rn, r))
    for nf, rns in sorted(ragged.items()):
        problems.append(Problem("", "fields", len(rns), tuple(rns[:MAX_ROWS_LISTED]),
                                f"{len(rns)} row(s) have {nf} fields instead of {k} ({_rows_text(rns, len(rns))}). "
                                "Fix: check the quoting, the separator and the number of fields per row"))
    if not good:
        raise DataError(f"{label}: no row has the {k} fields of the first row. Fix: check the separator")
    raw = pd.DataFrame([r for _, r in good], columns=cols, dtype=object)
    rownum = np.array([rn for rn, _ in good], dtype=np.int64)
    if trimmed_unicode:
        notes.append(f"{trimmed_unicode} cell(s) had non-breaking or other Unicode spaces around their value; "
                     "they were trimmed like ordinary spaces")

    # ---- missing cells and the choices about them
    level = dict(missing_level or {})
    drop_cols = list(cols) if drop_missing is True else list(drop_missing or ())
    for c in list(level) + drop_cols:
        if c not in raw.columns:
            raise DataError(f"{label}: no column '{c}' (in " + Text("{missing_options}") + f"). Columns: {', '.join(cols)}")
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
    missing_mask_all = {c: bool(m.all()) for c, m in missing_mask.items()}
    drop = np.zeros(len(raw), dtype=bool)
    for c in drop_cols:
        drop |= missing_mask[c].to_numpy()
    dropped = int(drop.sum())
    if drop_cols:
        notes.append(f"dropped {dropped} row(s) with a missing value in {', '.join(repr(c) for c in drop_cols)}")
    raw = raw[~drop].reset_index(drop=True)
    rownum = rownum[~drop]
    missing_mask = {c: m[~drop].reset_index(drop=True) for c, m in missing_mask.items()}
    if len(raw) == 0:
        raise DataError(no_rows_left(label, dropped, [c for c in drop_cols if missing_mask_all[c]]))

    # ---- per-column guesses
    frame = {}
    guesses: dict[str, ColumnGuess] = {}
    col_problems: dict[str, list[Problem]] = {}
    n = len(raw)
    for c in cols:
        s = raw[c]
        miss = missing_mask[c]
        probs: list[Problem] = []
        if c in level:
            if mostly_num[c]:
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
        nd = len(distinct)
        integer = False
        levels = None
        out = s.where(~miss, None)
        if len(vals) == 0:
            kind, modelled, reason = "empty", False, "every cell is empty"
        elif (bl := _boolean_levels(distinct)) is not None:
            kind, modelled, levels = "boolean", nd == 2, bl
            reason = (f"true/false values kept in their spelling ({', '.join(bl)})" if nd == 2
                      else f"one value only ({bl[0]})")
        elif _date_mask(vals.astype(str)):
            kind, modelled = "date", False
            reason = (f"dates (e.g. {distinct[0]!r}): not modelled; declare an ordinal or numeric domain "
                      "(e.g. the year) to model it")
        elif mostly_num[c]:
            isnum = _is_number(vals)
            if not isnum.all():
                bad = ~isnum
                rns = rownum[(~miss).to_numpy()][bad.to_numpy()].tolist()
                ex = list(dict.fromkeys(vals[bad].tolist()))[:3]
                probs.append(Problem(c, "not-numbers", int(bad.sum()), tuple(rns[:MAX_ROWS_LISTED]),
                                     f"column '{c}': {int(bad.sum())} cell(s) are not numbers (e.g. {ex}) in "
                                     f"{_rows_text(rns, int(bad.sum()))}. Fix: correct those cells, or declare "
                                     "the column categorical"))
                kind, modelled, reason = "numeric", True, "numbers with some cells that are not numbers"
            elif vals.str.match(_DIGITS).all() and vals.str.match(r"^0\d").any():
                kind, levels = "code", tuple(sorted(distinct))
                ex = next(v for v in distinct if re.match(r"^0\d", v))
                if nd == len(vals) and nd >= MIN_IDENTIFIER_ROWS:
                    kind, modelled, levels = "identifier", False, None
                    reason = f"codes with leading zeros (e.g. {ex!r}), all distinct: an identifier, not modelled"
                elif nd > max_categories:
                    modelled, reason = False, f"codes with leading zeros (e.g. {ex!r}): {nd} distinct (> {max_categories})"
                else:
                    modelled, reason = True, f"codes with leading zeros (e.g. {ex!r}) kept as text"
            else:
                big = vals[vals.str.match(_INT)]
                too_big = big[big.map(lambda v: abs(int(v)) > _INT64_MAX)]
                if len(too_big):
                    rns = rownum[(~miss).to_numpy()][vals.index.isin(too_big.index)].tolist()
                    probs.append(Problem(c, "too-large", len(too_big), tuple(rns[:MAX_ROWS_LISTED]),
                                         f"column '{c}': {len(too_big)} whole number(s) lie outside the 64-bit range "
                                         f"+-{_INT64_MAX} (e.g. {too_big.iloc[0]}) in {_rows_text(rns, len(too_big))}. "
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
                    out = full.astype(np.int64) if integer and nmiss == 0 else full
        else:
            if nd == len(vals) and nd >= MIN_IDENTIFIER_ROWS:
                kind, modelled, reason = "identifier", False, f"all {nd} values distinct: an identifier, not modelled"
            elif nd > max_categories:
                kind, modelled = "text", False
                reason = f"{nd} distinct values (> {max_categories}): not modelled by default"
            else:
                kind, modelled, levels = "categorical", True, tuple(sorted(distinct))
                reason = f"{nd} distinct values"
        if modelled and nmiss and kind != "empty":
            rns = rownum[miss.to_numpy()].tolist()
            marker = " (empty or a marker like '?')" if mostly_num[c] else " (empty)"
            probs.append(Problem(c, "missing", nmiss, tuple(rns[:MAX_ROWS_LISTED]),
                                 f"column '{c}': {nmiss} cell(s) are missing{marker} in {_rows_text(rns, nmiss)}. "
                                 "Fix: " + Text("{drop_those_rows}", col=c)
                                 + ("" if mostly_num[c] else Text(" or {declare_level}", col=c, level="?"))))
        frame[c] = out.reset_index(drop=True)
        guesses[c] = ColumnGuess(c, kind, modelled, reason, integer, levels, nmiss, nd)
        col_problems[c] = probs

    # ---- which columns are modelled
    if columns is not None:
        picked = [str(c) for c in columns]
        unknown = [c for c in picked if c not in guesses]
        if unknown:
            raise DataError(f"{label}: columns {unknown} are not in the table. Columns: {', '.join(cols[:20])}"
                            f"{' ...' if len(cols) > 20 else ''}" + (separator_hint(cols) or (
                                ". Fix: name columns of the table" if header else
                                ". The file has no header row (" + header_reason + "). Fix: name its columns "
                                + Text("({header_names}) or add a header row", names=tuple(picked)))))
        chosen = [c for c in cols if c in picked]
        for c in chosen:
            g = guesses[c]
            if g.kind == "empty":  # picked (or in the schema) but empty in every row: nothing to model
                col_problems[c] = [Problem(c, "missing", n, tuple(rownum[:MAX_ROWS_LISTED].tolist()),
                                           f"column '{c}' is empty in every row ({n} rows). Fix: " + empty_column_fix())]
            elif not g.modelled:
                notes.append(f"column '{c}' is modelled because it was picked, although it is {g.kind} ({g.reason})")
        reason_out = "not picked"
    else:
        cand = [c for c in cols if guesses[c].modelled]
        chosen = cand[:max_columns]
        if len(cand) > max_columns:
            notes.append(f"the table has {len(cols)} columns; only the first {max_columns} modellable ones are "
                         f"modelled by default ({chosen[0]} .. {chosen[-1]}); {len(cand) - max_columns} more are not. "
                         + Text("Fix: {pick_columns}"))
        reason_out = f"beyond the first {max_columns} modelled columns (wide table)"
    final = []
    for c in cols:
        g = guesses[c]
        m = c in chosen
        if m != g.modelled:
            g = ColumnGuess(g.name, g.kind, m, g.reason if m else f"{reason_out}; {g.reason}", g.integer, g.levels,
                            g.n_missing, g.n_distinct)
        final.append(g)
        if m:
            problems.extend(col_problems[c])
        elif col_problems[c]:
            notes.append(f"column '{c}' is not modelled; it has {len(col_problems[c])} problem(s) that are ignored "
                         "(" + col_problems[c][0].message + ")")
    for g in final:
        if g.kind in ("identifier", "date", "empty", "text") and not g.modelled:
            notes.append(f"column '{g.name}' is not modelled: {g.reason}")

    # ---- size warnings
    warns.extend(size_warnings(n, release_size))
    df = pd.DataFrame(frame, columns=cols)
    return IntakeResult(
        frame=df, source=label, sep=sep_used, sep_sniffed=sep_given is None, sep_name=SEP_NAMES.get(sep_used, repr(sep_used)),
        header=header, header_reason=header_reason, offered_names=offered, preset_layout=layout,
        columns=tuple(final), modelled=tuple(chosen), row_numbers=tuple(int(r) for r in rownum),
        dropped_rows=dropped, notes=tuple(notes), warnings=tuple(warns), problems=tuple(problems),
    )
