"""What intake made of a file: :class:`ColumnGuess` per column and the frozen :class:`IntakeResult`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ...base._lazy import pd  # pandas, imported on first use (issue 15)

from ...base.errors import DataError, SchemaError
from ...base.fields import join
from ...model.schema import Attribute, Schema
from .problems import Problem


@dataclass(frozen=True)
class GuessKind:
    """What a kind of column guess can become (issue 23: read from :data:`GUESS_KINDS`, never by
    comparing kind names).

    numbers: its cells are numbers (a numeric attribute, binary when they are 0/1); levels: its
    distinct values are the levels of a binary or categorical attribute; noted: unmodelled, the
    reason is stated in the notes; picked_levels: when picked, its distinct values (kept as text,
    when the guess kept them) are the levels of a categorical attribute (issue 27: zip codes);
    ordered: the levels are in a known natural order
    (model.orderings: month or weekday names), an ordinal attribute.
    """

    numbers: bool = False
    levels: bool = False
    noted: bool = False
    picked_levels: bool = False
    ordered: bool = False


#: every kind intake_csv guesses, with what it can become.
GUESS_KINDS = {
    "numeric": GuessKind(numbers=True),
    "boolean": GuessKind(levels=True),
    "code": GuessKind(levels=True),
    "categorical": GuessKind(levels=True),
    "ordinal": GuessKind(levels=True, ordered=True),
    "identifier": GuessKind(noted=True, picked_levels=True),
    "date": GuessKind(noted=True),
    "text": GuessKind(noted=True),
    "empty": GuessKind(noted=True),
}


@dataclass(frozen=True)
class ColumnGuess:
    """What intake made of one column.

    kind: 'numeric', 'categorical', 'ordinal' (month or weekday names, levels in their natural
    order), 'boolean', 'code' (digits with leading zeros, kept as
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

    @property
    def can(self) -> GuessKind:
        """What this guess can become (:data:`GUESS_KINDS` of its kind)."""
        return GUESS_KINDS[self.kind]


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
        """A data-derived Schema (DESIGN §3) for the modelled columns (:meth:`attribute` of each).

        Flagged data_derived with every modelled column.  Raises SchemaError when there are
        problems, or as :meth:`attribute` for a picked column it cannot model.
        """
        if self.problems:
            raise SchemaError(f"{self.source}: fix the intake problems first (" + self.problems[0].message + ")")
        attrs = [self.attribute(name) for name in self.modelled]
        return Schema(attrs, data_derived=True, data_derived_columns=list(self.modelled))

    def attribute(self, name: str) -> Attribute:
        """The data-derived Attribute of column ``name`` when it is modelled (the one rule of the
        CLI's ``--columns``, the API's ``columns=`` and the app's schema table).

        numeric -> numeric [min, max] (integer when whole; {0, 1} -> binary); boolean / code /
        categorical, and an identifier whose values were kept as text (codes with leading zeros,
        all-distinct text) -> binary (2 values) or categorical with the values in their original
        spelling (leading zeros kept); ordinal (month or weekday names) -> ordinal in that order.

        Raises
        ------
        SchemaError
            For a column of dates, free text or whole-number identifiers (declare an ordinal or
            numeric domain for it instead); DataError for an unknown column.
        """
        g = self.guess(name)
        if g.can.numbers:
            x = self.frame[name].dropna().to_numpy(dtype=float)
            distinct = np.unique(x)
            if len(distinct) == 2 and set(distinct.tolist()) <= {0.0, 1.0}:
                return Attribute(name, "binary", levels=[0, 1])
            lo, hi = float(x.min()), float(x.max())
            return Attribute(name, "numeric", lo=lo, hi=hi if hi > lo else lo + 1.0, integer=g.integer)
        if g.can.levels or (g.can.picked_levels and g.levels is not None):
            levels = list(g.levels or ())
            if g.can.ordered:  # month / weekday names, in calendar / week order (model.orderings)
                return Attribute(name, "ordinal", levels=levels)
            return Attribute(name, "binary" if len(levels) == 2 else "categorical", levels=levels)
        raise SchemaError(
            f"column '{name}' is {g.kind} (" + g.reason + "). Fix: declare an ordinal (levels in order) or "
            "numeric domain for it in a schema file, or leave it out of the modelled columns"
        )

    def offered_schema(self) -> Schema | None:
        """The data-derived Schema of every column :meth:`attribute` can model, modelled or not (in file
        order; None when there is none): what a column becomes when the user picks it (the app's schema
        table offers these)."""
        attrs = []
        for g in self.columns:
            try:
                attrs.append(self.attribute(g.name))
            except (SchemaError, ValueError):  # not modellable as read (dates, free text; cells not numbers)
                continue
        return Schema(attrs, data_derived=True, data_derived_columns=[a.name for a in attrs]) if attrs else None

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
