"""Cells outside a declared schema's public domain, found on the intake's whole table."""

from __future__ import annotations

from typing import Any

import numpy as np
from ...base._lazy import pd  # pandas, imported on first use (issue 15)

from ...base.errors import SchemaError
from .cells import finite_values
from .problems import MAX_ROWS_LISTED, Problem, not_numbers_message, not_whole_message, rows_text
from .result import IntakeResult


def _not_numbers(name: str, col: Any, bad: np.ndarray, rn: np.ndarray) -> list[Problem]:
    """The 'not-numbers' Problem of the present cells ``bad`` of a column declared numeric (none if
    every cell is a number)."""
    if not bad.any():
        return []
    rows, n = rn[bad].tolist(), int(bad.sum())
    ex = list(dict.fromkeys(col[bad].astype(str).tolist()))[:3]
    return [Problem(name, "not-numbers", n, tuple(rows[:MAX_ROWS_LISTED]),
                    not_numbers_message(name, n, ex, rows_text(rows, n)))]


def domain_problems(schema: Any, res: IntakeResult) -> tuple[Problem, ...]:
    """Cells of the intake's frame outside ``schema``'s declared public domain.

    Checked on the whole table, before any split (so a preset's pilot rows are checked too).
    Numeric attributes: numbers outside [lo, hi], for an integer attribute numbers with a
    fraction (kind 'not-whole'), and cells that are not numbers (kind 'not-numbers') when the
    intake read the column as text (mostly text: it found no 'not-numbers' problem itself), in the
    intake's and the chunked reader's wording.  Every other attribute: values its encode_value refuses (one call per distinct
    value).  Missing cells are left to the intake's 'missing' problems.

    Parameters
    ----------
    schema : Schema
        The declared schema (columns absent from the frame are skipped).
    res : IntakeResult
        The intake's result.

    Returns
    -------
    tuple of Problem
        One Problem per column (kind 'outside-domain') with its count and up to five
        spreadsheet row numbers, one 'not-whole' per integer column with fractions and one
        'not-numbers' per numeric column read as text.
    """
    frame, rn = res.frame, np.asarray(res.row_numbers)
    out: list[Problem] = []
    has_not_numbers = {p.column for p in res.problems if p.kind == "not-numbers"}
    for a in schema.attributes:
        if a.name not in frame.columns:
            continue
        col = frame[a.name]
        present = col.notna().to_numpy()
        frac = None  # integer attributes: cells with a fraction
        if a.bounded:
            x = finite_values(col)
            if a.name not in has_not_numbers:
                out.extend(_not_numbers(a.name, col, present & ~np.isfinite(x), rn))
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
                               f"{rows_text(rows, n)}. Fix: {fix}"))
        if frac is not None and frac.any():
            rows, n = rn[frac].tolist(), int(frac.sum())
            ex = list(dict.fromkeys(col[frac].astype(str).tolist()))[:3]
            out.append(Problem(a.name, "not-whole", n, tuple(rows[:MAX_ROWS_LISTED]),
                               not_whole_message(a.name, n, ex, rows_text(rows, n))))
    return tuple(out)
