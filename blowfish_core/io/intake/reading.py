"""Intake step 1: read the bytes, detect the separator, parse and trim the records (issue 22).

``read_records`` is the step :func:`blowfish_core.io.intake.intake_csv` runs first: the file's
text (:func:`blowfish_core.io.data.read_text`), the separator (given, checked by :func:`check_sep`,
or :func:`sniff_separator`), the parsed records with every cell trimmed of ASCII and Unicode
spaces, and each record's spreadsheet row number (blank records dropped).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...base._lazy import lazy_module
from ...base.errors import DataError
from ..data import read_text
from .cells import TextColumn, pa, pc

pcsv: Any = lazy_module("pyarrow.csv")

#: separators the sniffer chooses from, in order of preference on ties; ", " is a comma
#: followed by one space after every separator (the UCI Adult original).
SEPARATORS = (",", ";", "\t", "|", ", ")
SEP_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe", ", ": "comma followed by a space"}
SEP_ALIASES = {"\\t": "\t", "tab": "\t", "semicolon": ";", "comma": ",", "pipe": "|"}
#: leading/trailing characters trimmed like ASCII spaces: re's \s covers Unicode spaces
#: (U+00A0 no-break, U+2000-U+200A, U+202F, U+205F, U+3000, ...); add the zero-width ones.
_EDGE = re.compile(r"^[\s\u200b\u2060\ufeff]+|[\s\u200b\u2060\ufeff]+$")
_ZERO_WIDTH = "\u200b\u2060\ufeff"
_LINES = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n|$)")
_ASCII_WS = " \t\r\n\f\v"


@dataclass(frozen=True)
class Records:
    """The file read and parsed: its label, the separator used, the non-blank records with the first
    one's field count k as ``columns`` (k pyarrow string arrays of trimmed cells, the first record
    first) with their spreadsheet rows ``rownum``, the other non-blank records as (row, field count)
    in ``others``, and how many cells had Unicode spaces trimmed."""

    label: str
    sep: str
    columns: list[TextColumn]
    rownum: np.ndarray
    others: list[tuple[int, int]]
    trimmed_unicode: int

    @property
    def first(self) -> list[str]:
        """The first non-blank record's trimmed cells."""
        return [c.text(c.codes[0]) for c in self.columns]

    def head_end(self, n: int) -> int:
        """The k-field records among the first ``n`` non-blank records after the first one are
        ``columns[j].codes[1:head_end(n)]``."""
        other = np.asarray([r for r, _ in self.others[:n]], dtype=np.int64)
        rows = np.sort(np.concatenate([self.rownum[:n + 1], other]))
        return int(np.searchsorted(self.rownum, rows[min(n, len(rows) - 1)], side="right"))


def read_records(source, sep_given: str | None, *, max_bytes: int, name: str | None) -> Records:
    """Read ``source``, use ``sep_given`` or detect the separator, parse, trim and number the records.

    A text without quotes and with a one-byte separator is parsed by pyarrow's CSV reader (its
    records are its lines); any other by Python's csv module (:func:`_parse`).

    Parameters
    ----------
    source : Any
        A path, bytes or a binary file-like object.
    sep_given : str or None
        The separator (checked by :func:`check_sep`), or None to detect it.
    max_bytes : int
        Largest size read, in bytes.
    name : str or None
        The file's label in messages.

    Returns
    -------
    Records
        The label, the separator used, the non-blank records and the count of cells with Unicode
        spaces trimmed.

    Raises
    ------
    DataError
        For an unreadable or empty file or an unclosed quote.
    """
    label, text = read_text(source, max_bytes=max_bytes, name=name)
    sep_used = sep_given if sep_given is not None else sniff_separator(text)
    delim = "," if sep_used == ", " else sep_used
    if '"' in text or len(delim.encode()) != 1:
        records = _parse(text, sep_used)
        if '"' in text:
            _check_quotes(text, sep_used, label)
        raw, others = _table_of_records(records)
    else:
        raw, others = _read_plain(text, delim)
    if raw is None:
        raise DataError(f"{label}: the file is empty. Fix: give a CSV file with a header row and data rows")
    columns, rownum, trimmed_unicode = _trim_table(*raw)
    others, n_other = _non_blank(others)
    return Records(label, sep_used, columns, rownum, others, trimmed_unicode + n_other)


def _blank_and_unicode(fields: list[str]) -> tuple[bool, int]:
    """A record's fields: (every cell is empty once trimmed, cells with Unicode spaces trimmed)."""
    t = [_trim(v) for v in fields]
    return all(v == "" for v in t), sum(1 for v, tv in zip(fields, t)
                                         if len(v) != len(tv) and v.strip(_ASCII_WS) != tv)


def _non_blank(others: list[tuple[int, list[str]]]) -> tuple[list[tuple[int, int]], int]:
    """The records with another field count: the non-blank ones as (row, field count), and the
    count of their cells with Unicode spaces trimmed."""
    out, n_unicode = [], 0
    for rn, fields in others:
        blank, u = _blank_and_unicode(fields)
        n_unicode += u
        if not blank:
            out.append((rn, len(fields)))
    return out, n_unicode


def _table_of_records(records: list[list[str]]):
    """Parsed records -> ((k columns of the k-field records, their rows), [(row, fields)] of the others),
    k the field count of the first non-blank record; (None, []) when every record is blank."""
    first = next((i for i, r in enumerate(records) if r and not _blank_and_unicode(r)[0]), None)
    if first is None:
        return None, []
    k = len(records[first])
    good = [i for i, r in enumerate(records) if len(r) == k]
    others = [(i + 1, r) for i, r in enumerate(records) if len(r) != k and i > first]
    for i in range(first):  # blank records above the first one: their Unicode spaces still count
        if len(records[i]) != k:
            others.append((i + 1, records[i]))
    columns = [pa.array([records[i][j] for i in good], type=pa.string()) for j in range(k)]  # encoded by _trim_table
    return (columns, np.asarray(good, dtype=np.int64) + 1), sorted(others)


def _read_plain(text: str, delim: str):
    """A text without quotes, parsed by pyarrow (records = lines): as :func:`_table_of_records`."""
    k = None
    for line in _LINES.finditer(text):  # the csv module's lines (\r\n, \r or \n), without copying the text
        fields = line.group(1).split(delim)
        if not _blank_and_unicode(fields)[0]:
            k = len(fields)
            break
        if line.end() >= len(text):
            break
    if k is None:
        return None, []
    others: list[tuple[int, list[str]]] = []

    def other(row) -> str:
        others.append((int(row.number), row.text.split(delim)))
        return "skip"

    names = [str(j) for j in range(k)]
    data = text.encode("utf-8")
    tb = pcsv.read_csv(
        io.BytesIO(data),
        read_options=pcsv.ReadOptions(use_threads=False, column_names=names, block_size=max(len(data), 1 << 20)),
        parse_options=pcsv.ParseOptions(delimiter=delim, quote_char=False, ignore_empty_lines=False,
                                        invalid_row_handler=other),
        convert_options=pcsv.ConvertOptions(column_types={c: pa.dictionary(pa.int32(), pa.string()) for c in names},
                                            null_values=[], strings_can_be_null=False, check_utf8=False))
    n = tb.num_rows + len(others)
    rows = np.arange(1, n + 1, dtype=np.int64)
    if others:
        rows = np.delete(rows, np.asarray([r for r, _ in others], dtype=np.int64) - 1)
    columns = [tb.column(j).combine_chunks() for j in range(k)]
    limit = csv.field_size_limit()
    if len(text) > limit and any(len(c) and (pc.max(pc.utf8_length(c.dictionary)).as_py() or 0) > limit
                                 for c in columns if (pc.max(pc.binary_length(c.dictionary)).as_py() or 0) > limit):
        raise DataError(f"malformed CSV (field larger than field limit ({limit})). Fix: check the quoting")
    return (columns, rows), others


def _trim_table(columns: list, rownum: np.ndarray) -> tuple[list[TextColumn], np.ndarray, int]:
    """Trim every cell and drop the blank records: (columns, rows, cells with Unicode spaces trimmed)."""
    out, n_unicode = [], 0
    blank = np.ones(len(rownum), dtype=bool)
    for c in columns:
        col, u = TextColumn.read(c)
        out.append(col)
        n_unicode += u
        blank &= col.blank[col.codes]
    if blank.any():
        out = [c.take(~blank) for c in out]
        rownum = rownum[~blank]
    return out, rownum, n_unicode


def check_sep(sep: str | None) -> str | None:
    """Normalise a user-given separator: None (detect), one character, or ', '.

    Aliases: '\\t' and 'tab' -> tab, 'semicolon', 'comma', 'pipe'.

    Parameters
    ----------
    sep : str or None
        The separator given, or None.

    Returns
    -------
    str or None
        The separator, or None to detect it.

    Raises
    ------
    DataError
        For a non-string, an empty string (it would silently mean ','), a quote or a line break,
        or text longer than one character (other than ', ').
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
    """A hint for a header that holds a separator.

    A row near the top with another number of fields (or an unclosed quote) stops
    :func:`sniff_separator`, and the whole header then reads as one column.

    Parameters
    ----------
    columns : sequence of str
        The column names read.

    Returns
    -------
    str
        '' or, when a column name holds a separator (';', tab, '|', ','), a sentence saying the
        separator was not detected and how to give it.
    """
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
    the first starts with a space.

    Parameters
    ----------
    text : str
        The CSV text.
    sample_lines : int
        Non-blank lines sampled from the top.

    Returns
    -------
    str
        One of SEPARATORS; ',' when nothing splits the lines (one column).
    """
    lines = _first_lines(text, sample_lines)
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


def _first_lines(text: str, n: int) -> list[str]:
    """``[ln for ln in text.splitlines() if ln.strip()][:n]``, splitting only the top of the text."""
    size = 1 << 16
    while True:
        if size >= len(text):
            return [ln for ln in text.splitlines() if ln.strip()][:n]
        lines = [ln for ln in text[:size].splitlines() if ln.strip()]
        if len(lines) > n:  # the last line may be cut at ``size``: only whole ones are kept
            return lines[:n]
        size *= 4
