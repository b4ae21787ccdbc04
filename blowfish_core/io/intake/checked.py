"""``read_checked``: a private table read with the reading options, every problem raised (issue 24).

``check_table`` is the same step without the raise (issue 27): the app's Data step calls it with a
preset's schema, so an upload lists its value *and* domain problems in one pass with their rows, as
the command line does.

The one read of a run's ``--data``: the CLI (``synth``, ``reach``, ``schema``: cli/reading.read_data)
and a run bundle's ``run.py`` / ``run.ipynb`` call it with the same options, so they read the same
table: the separator (None = detect), the header (False = detect), the names of a headerless
file, the columns to model, the missing-value handling (rows dropped, declared missing levels)
and, with a declared schema, the cells outside its public domain as problems too.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .domain_check import domain_problems
from .pipeline import intake_csv
from .result import IntakeResult


#: the order of a column's problems, as the chunked reader (not numbers, missing, outside the domain).
_KIND_ORDER = {"not-numbers": 0, "missing": 1, "outside-domain": 2, "not-whole": 3}


def check_table(source: Any, *, sep: str | None = None, no_header: bool | None = None,
                names: Sequence[str] | None = None, columns: Sequence[str] | None = None,
                drop_missing: Iterable[str] | bool = (), missing_level: Mapping[str, str] | None = None,
                release_size: int | None = None, schema: Any = None, max_bytes: int = sys.maxsize,
                name: str | None = None) -> IntakeResult:
    """The intake (:func:`intake_csv`) with the reading options and, with a declared schema, its
    domain problems too: every problem found in one pass, not raised (the app shows them).

    Parameters
    ----------
    source : Any
        A path, bytes or a binary file-like object.
    sep : str or None
        The separator (None: detected).
    no_header : bool or None
        None: detected; True: the file has no header row (names from ``names``, or the offered
        ones); False: the first row is the header.  ``names`` implies True.
    names : sequence of str or None
        Column names of a headerless file.
    columns : sequence of str or None
        The columns to model (a declared schema's names; default: the intake's choice).
    drop_missing : iterable of str or bool
        Columns (True: all) whose rows with a missing cell are dropped.
    missing_level : mapping of str to str or None
        Column -> its declared missing level (text columns).
    release_size : int or None
        The planned release, for the size warnings.
    schema : Schema, optional
        A declared schema: its cells outside the public domain, and the cells of a column it
        declares numeric that are not numbers (also when the intake read the column as text),
        are problems too (checked on the whole table, before any split, with their spreadsheet
        rows), the problems sorted by column in the schema's order (as the chunked reader).
    max_bytes : int
        Largest file read (default: no cap, as the command line).
    name : str or None
        The file's label in messages (default: the path).

    Returns
    -------
    IntakeResult
        The table, the intake's decisions and every problem (``problems``; none raised).

    Raises
    ------
    DataError
        For an unreadable file, a bad ``sep`` or ``names``, a column of ``columns`` not in the table.
    """
    res = intake_csv(source, sep=sep, no_header=True if (no_header or names) else no_header, names=names,
                     columns=columns, drop_missing=drop_missing, missing_level=dict(missing_level or {}),
                     release_size=release_size, max_bytes=max_bytes, name=name, schema=schema)
    if schema is not None:  # value and domain problems in one pass (issue 15g, finding 8; issue 27)
        order = {a.name: i for i, a in enumerate(schema.attributes)}  # by column, then kind, as the chunked reader
        res = dataclasses.replace(res, problems=tuple(sorted(
            res.problems + domain_problems(schema, res),
            key=lambda p: (order.get(p.column, -1), _KIND_ORDER.get(p.kind, 1)))))
    return res


def read_checked(source: Any, *, sep: str | None = None, no_header: bool = False, names: Sequence[str] | None = None,
                 columns: Sequence[str] | None = None, drop_missing: Iterable[str] | bool = (),
                 missing_level: Mapping[str, str] | None = None, release_size: int | None = None,
                 schema: Any = None, max_bytes: int = sys.maxsize) -> IntakeResult:
    """:func:`check_table` with its problems raised in one error.

    Parameters
    ----------
    source : Any
        A path, bytes or a binary file-like object.
    sep : str or None
        The separator (None: detected, as without ``--sep``).
    no_header : bool
        True: the file has no header row (names from ``names``, or the offered ones); False:
        detected (as without ``--no-header``).  ``names`` implies True.
    names : sequence of str or None
        Column names of a headerless file.
    columns : sequence of str or None
        The columns to model (a declared schema's names; default: the intake's choice).
    drop_missing : iterable of str or bool
        Columns (True: all) whose rows with a missing cell are dropped.
    missing_level : mapping of str to str or None
        Column -> its declared missing level (text columns).
    release_size : int or None
        The planned release, for the size warnings.
    schema : Schema, optional
        A declared schema: its cells outside the public domain are problems too (checked on the
        whole table, before any split), listed by column.
    max_bytes : int
        Largest file read (default: no cap, as the command line).

    Returns
    -------
    IntakeResult
        The checked table and the intake's decisions.

    Raises
    ------
    DataError
        Every problem in one error (IntakeResult.raise_for_problems), or an unreadable file.
    """
    return check_table(source, sep=sep, no_header=True if (no_header or names) else None, names=names,
                       columns=columns, drop_missing=drop_missing, missing_level=missing_level,
                       release_size=release_size, schema=schema, max_bytes=max_bytes).raise_for_problems()
