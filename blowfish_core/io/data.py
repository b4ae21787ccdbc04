"""Reading user tables safely (pandas), with clear errors for bad files.

The user's file is never modified.  Errors name the file/column and the fix.
"""

from __future__ import annotations

import csv
import io
import os
import warnings
from typing import Any

from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..base.errors import DataError
from ..base.fields import Text

#: files larger than this are refused before being read whole (the app's upload limit; set
#: BLOWFISH_MAX_UPLOAD_MB to change it, together with .streamlit/config.toml maxUploadSize).
#: The CLI and the API read larger CSVs in chunks (blowfish_core.io.chunked; issue 15).
DEFAULT_MAX_BYTES = int(float(os.environ.get("BLOWFISH_MAX_UPLOAD_MB", "100")) * 2**20)


def read_text(source: Any, *, max_bytes: int = DEFAULT_MAX_BYTES, name: str | None = None) -> tuple[str, str]:
    """The decoded text of a CSV source and its label.

    The file is only read, never modified.

    Parameters
    ----------
    source : Any
        A path, bytes or a binary file-like object.
    max_bytes : int
        Largest size read, in bytes (checked before reading).
    name : str or None
        The label in messages (default: the path, or "uploaded file").

    Returns
    -------
    label : str
        The source's label.
    text : str
        The decoded text (UTF-8; a BOM is dropped).

    Raises
    ------
    DataError
        For a missing file, a folder, a file over ``max_bytes``, non-UTF-8 bytes, NUL bytes and
        an empty file.
    """
    label = name or (str(source) if isinstance(source, (str, os.PathLike)) else "uploaded file")
    if isinstance(source, (str, os.PathLike)):
        if not os.path.exists(source):
            raise DataError(f"file not found: {source}")
        if os.path.isdir(source):
            raise DataError(f"{source} is a folder, not a CSV file")
        size = os.path.getsize(source)
        if size > max_bytes:
            raise DataError(_too_big(label, size, max_bytes))
        with open(source, "rb") as f:
            raw = f.read()
    elif isinstance(source, (bytes, bytearray)):
        raw = bytes(source)
        if len(raw) > max_bytes:
            raise DataError(_too_big(label, len(raw), max_bytes))
    else:
        declared = getattr(source, "size", None)  # an upload's size, when the object has one
        if declared is not None and declared > max_bytes:
            raise DataError(_too_big(label, declared, max_bytes))
        raw = source.read(max_bytes + 1)
        if len(raw) > max_bytes:
            raise DataError(_too_big(label, len(raw), max_bytes))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
        raise DataError(not_utf8_message(label, raw.count(b"\n", 0, e.start + bom) + 1, raw[e.start + bom])) from None
    if "\x00" in text:
        raise DataError(
            f"{label}: contains NUL bytes; this looks like a binary file, not a CSV. "
            "Fix: export the table as a UTF-8 CSV"
        )
    if not text.strip():
        raise DataError(f"{label}: the file is empty. Fix: give a CSV file with a header row and data rows")
    return label, text


#: the separators a one-column header is checked for (issue 27): the character, its name, how it is typed.
OTHER_SEPARATORS = ((";", "semicolon", "';'"), ("\t", "tab", "'\\t'"), ("|", "pipe", "'|'"), (",", "comma", "','"))


def other_separator(header: str, sep: str) -> Text | None:
    """The message for a file read as one column whose header holds another separator (issue 27).

    A one-column read whose header holds ';' (tab, '|', ',') is the sign of a wrong separator: the
    schema would have no modelled column, the app "only one column".  Shared by :func:`read_table`
    the intake (a 'separator' Problem) and the chunked reader, in the same words.

    Parameters
    ----------
    header : str
        The header as read (the one column's name, or the first line).
    sep : str
        The separator used.

    Returns
    -------
    Text or None
        "the file looks ';'-separated: pass --sep ';' (...)" per front end, or None when the
        header holds no other separator.
    """
    for other, word, shown in OTHER_SEPARATORS:
        if other != sep and other in header:
            used = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}.get(sep, repr(sep))
            return (Text("the file looks {sep_shown}-separated: {sep_choice}", sep_shown=shown, sep_word=word)
                    + f" (read with the {used} separator, the header "
                      f"{header[:60]!r} is one column holding {header.count(other)} {shown})")
    return None


def read_table(source: Any, *, max_bytes: int = DEFAULT_MAX_BYTES, name: str | None = None, sep: str = ",") -> pd.DataFrame:
    """Read a CSV from a path, bytes or a binary file-like object into a DataFrame.

    Missing values: only empty cells.  Text such as "NA", "None", "null", "nan",
    "N/A" and '?' (Adult's marker) is kept as a value, so a category named "None"
    survives and a numeric column holding such text gets the schema's clear
    "not numbers" error naming the column instead of silent coercion.

    Parameters
    ----------
    source : Any
        A path, bytes or a binary file-like object.
    max_bytes : int
        Largest size read, in bytes (checked before reading).
    name : str or None
        The label in messages (default: the path, or "uploaded file").
    sep : str
        The field separator.

    Returns
    -------
    pandas DataFrame
        The table; column names stripped.

    Raises
    ------
    DataError
        For a missing file, a file over ``max_bytes``, non-UTF-8 bytes, an empty file, a header
        without rows, a file that looks separated by another delimiter, ragged rows and duplicate
        column names.
    """
    label, text = read_text(source, max_bytes=max_bytes, name=name)
    lines = text.splitlines()
    header = lines[0]
    try:
        cols = next(csv.reader([header], delimiter=sep))
    except csv.Error as e:
        raise DataError(f"{label}: cannot parse the header: {e}") from None
    if len(cols) == 1 and (other := other_separator(header, sep)) is not None:
        raise DataError(f"{label}: " + other, field="sep")
    stripped = [c.strip() for c in cols]
    dups = sorted({c for c in stripped if stripped.count(c) > 1})
    if dups:
        raise DataError(f"{label}: duplicate column names {dups}. Fix: give every column a unique name")
    if any(c == "" for c in stripped):
        raise DataError(f"{label}: a column has an empty name (column {stripped.index('') + 1}). Fix: name every column")
    if len([ln for ln in lines[1:] if ln.strip()]) == 0:
        raise DataError(f"{label}: {NO_DATA_ROWS}")
    try:
        # index_col=False: a row with more fields than the header must not silently
        # become an index; pandas warns (ParserWarning) and we turn that into an error.
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            df = pd.read_csv(io.StringIO(text), sep=sep, keep_default_na=False, na_values=[""],
                             skipinitialspace=False,
                             index_col=False)
    except pd.errors.ParserWarning:
        raise DataError(
            f"{label}: some rows have more fields than the header ({len(cols)} columns). "
            "Fix: check the quoting and the number of fields per row"
        ) from None
    except pd.errors.ParserError as e:
        raise DataError(f"{label}: malformed CSV ({str(e).strip().splitlines()[-1]}). Fix: check the quoting and the number of fields per row") from None
    except (ValueError, csv.Error) as e:
        raise DataError(f"{label}: cannot read as CSV ({e})") from None
    df.columns = [str(c).strip() for c in df.columns]
    if df.shape[0] == 0:
        raise DataError(f"{label}: {NO_DATA_ROWS}")
    return df


#: a file with a header row and nothing under it (every reader uses this wording).
NO_DATA_ROWS = ("the file has a header but no data rows. Fix: add the data rows under the header "
                "(or check that this is the right file)")
#: the fix for a file that is not UTF-8 (the tool reads UTF-8 only; there is no encoding option).
NOT_UTF8_FIX = ("Fix: save the file as UTF-8 CSV (in a spreadsheet: Save as > CSV UTF-8; on the command line: "
                "iconv -f latin1 -t utf-8 old.csv > new.csv)")


def not_utf8_message(label: str, line: int, byte: int) -> str:
    """The message for a file that is not UTF-8.

    Parameters
    ----------
    label : str
        The file's label.
    line : int
        The first bad byte's 1-based line (the spreadsheet row, unless a quoted cell spans lines
        before it).
    byte : int
        The first bad byte's value.

    Returns
    -------
    str
        The message, with :data:`NOT_UTF8_FIX`.
    """
    return f"{label}: not UTF-8 text (byte {byte:#04x} on line {line}). {NOT_UTF8_FIX}"


def first_bad_utf8_line(path: Any) -> tuple[int, int] | None:
    """Where a file's first bytes that are not UTF-8 are.  Reads line by line.

    Parameters
    ----------
    path : Any
        A path to the file.

    Returns
    -------
    tuple of (int, int) or None
        (1-based line, byte value), or None when the file is UTF-8.
    """
    with open(path, "rb") as f:
        for i, line in enumerate(f, 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as e:
                if not (i == 1 and line.startswith(b"\xef\xbb\xbf") and e.start < 3):
                    return i, line[e.start]
    return None


def _too_big(label: str, size: int, limit: int) -> str:
    return (
        f"{label}: {size / 2**20:.1f} MB is larger than the {limit / 2**20:.0f} MB limit; it was not read. "
        "Fix: sample or split the table (synthesis fidelity does not need more rows), or use the command line, "
        "which reads a CSV of any size in chunks: python -m blowfish_core synth --schema SCHEMA.json --data BIG.csv ..."
    )


def read_text_file(path: str, what: str) -> str:
    """Read a small UTF-8 text file (schema/policy JSON).

    Parameters
    ----------
    path : str
        The file.
    what : str
        What the file is, in messages (e.g. 'schema').

    Returns
    -------
    str
        The text.

    Raises
    ------
    DataError
        Naming ``what``, for a missing file, a file over 10 MB or one that is not UTF-8.
    """
    if not os.path.exists(path):
        raise DataError(f"{what} file not found: {path}")
    if os.path.getsize(path) > 10 * 2**20:
        raise DataError(f"{what} file {path} is larger than 10 MB")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError:
        raise DataError(f"{what} file {path} is not UTF-8 text") from None
