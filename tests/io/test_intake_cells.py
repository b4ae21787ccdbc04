"""The vectorised intake (issue 23): its cell rules equal the per-cell ones they replaced."""

from __future__ import annotations

import random
import sys

import numpy as np
import pandas as pd
import pyarrow as pa

from blowfish_core.io.intake import _trim
from blowfish_core.io.intake.cells import UNICODE_SPACES, TextColumn, finite_values, number_values
from blowfish_core.io.intake.reading import _non_blank, _parse, _read_plain, _table_of_records, _trim_table

TRICKY = ["1", "007", "-4", "+5", ".5", "5.", "1e5", "1E+05", "1e400", "inf", "-inf", "nan", "NaN", "?", "-", ".",
          "", "x", "1_0", "0x1A", "1,0", "\u0661\u0662", "123456789012345", "1234567890123456",
          "99999999999999999999", "-9223372036854775809", "12a", "e5", "+", "++1"]


def test_unicode_spaces_are_every_isspace_character():
    assert set(UNICODE_SPACES) == {c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace()}


def test_trim_equals_the_per_cell_trim():
    cells = [" a", "a\u00a0", "\u200bb\u200b", "\ufeff c \u3000", "\t", "x y", " \u2060", "\x1cq\x1f", "plain"]
    col, n_unicode = TextColumn.read(pa.array(cells, type=pa.string()))
    assert col.cells().tolist() == [_trim(v) for v in cells]
    assert n_unicode == sum(1 for v in cells if len(v) != len(_trim(v)) and v.strip(" \t\r\n\f\v") != _trim(v))


def test_number_values_equal_pandas_to_numeric():
    fast = number_values(pa.array(TRICKY, type=pa.string()))
    ref = pd.to_numeric(pd.Series(TRICKY, dtype=object), errors="coerce").to_numpy(dtype=float, copy=True)
    ref[~np.isfinite(ref)] = np.nan
    np.testing.assert_array_equal(fast, ref)
    np.testing.assert_array_equal(finite_values(TRICKY), ref)


def test_plain_reader_equals_the_csv_module():
    """Quote-free text: pyarrow's records (lines) are the csv module's, with the same rows and field counts."""
    rng = random.Random(3)
    alphabet = ["a", "1", " ", "", "\u00a0", "?", "x y", "02"]
    for _ in range(200):
        sep = rng.choice([",", ";", "\t", "|"])
        rows = [sep.join(rng.choice(alphabet) for _ in range(rng.choice([0, 2, 3, 3, 3, 4])))
                for _ in range(rng.randint(1, 12))]
        text = rng.choice(["\n", "\r\n", "\r"]).join(rows) + rng.choice(["", "\n"])
        got, want = _read_plain(text, sep), _table_of_records(_parse(text, sep))
        if want[0] is None:
            assert got[0] is None
            continue
        g_cols, g_rows, g_uni = _trim_table(*got[0])
        w_cols, w_rows, w_uni = _trim_table(*want[0])
        assert [c.cells().tolist() for c in g_cols] == [c.cells().tolist() for c in w_cols], repr(text)
        assert g_rows.tolist() == w_rows.tolist() and g_uni == w_uni, repr(text)
        assert _non_blank(got[1]) == _non_blank(want[1]), repr(text)  # blank lines: [] in csv, k empty cells in pyarrow
