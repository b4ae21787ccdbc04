"""Vectorised cells of the intake (issue 23): trimming, finite numbers, one column's distinct values.

The whole-file intake holds every column as a :class:`TextColumn`: its trimmed cells
dictionary-encoded (``codes`` into the distinct ``values``), so every per-value check (blank,
missing marker, number, leading zero) runs once per distinct value with array operations and
reaches the cells through ``codes``.  :func:`finite_values` is the one rule for "a cell is a
finite number" (``pandas.to_numeric(errors='coerce')`` then finite), shared with the chunked
reader and the domain check.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base._lazy import lazy_module, pd

pa: Any = lazy_module("pyarrow")
pc: Any = lazy_module("pyarrow.compute")

#: every character str.isspace() (and re's \s) calls a space, then the zero-width ones
#: (U+200B, U+2060, U+FEFF): a cell is trimmed of these at both ends (tests/io/test_intake_cells.py).
UNICODE_SPACES = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                  "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
ZERO_WIDTH = "\u200b\u2060\ufeff"
ASCII_SPACES = " \t\r\n\f\v"
#: whole numbers of at most this many ASCII digits are read by the fast path (exact as float64).
_FAST_DIGITS = 15


def finite_values(values: Any) -> np.ndarray:
    """The float value of every cell that is a finite number, NaN for the others.

    Parameters
    ----------
    values : array-like
        Cells (text or numbers).

    Returns
    -------
    (n,) float64 ndarray
        ``pandas.to_numeric(errors='coerce')`` as floats, with infinities as NaN.
    """
    x = pd.to_numeric(pd.Series(values, dtype=object) if not isinstance(values, pd.Series) else values,
                      errors="coerce")
    x = np.asarray(x, dtype=float).copy()
    x[~np.isfinite(x)] = np.nan
    return x


def trim(arr: Any) -> tuple[Any, int]:
    """Trim every cell of a pyarrow string array of ASCII, Unicode and zero-width spaces.

    Parameters
    ----------
    arr : pyarrow StringArray
        The cells as read.

    Returns
    -------
    trimmed : pyarrow StringArray
        The cells trimmed (``str.strip`` of UNICODE_SPACES + ZERO_WIDTH).
    n_unicode : int
        The cells that had more than ASCII spaces trimmed.
    """
    t = pc.utf8_trim(arr, characters=UNICODE_SPACES + ZERO_WIDTH)
    changed = pc.not_equal(pc.binary_length(arr), pc.binary_length(t))
    if not pc.any(changed).as_py():
        return t, 0
    ascii_only = pc.utf8_trim(arr.filter(changed), characters=ASCII_SPACES)
    return t, int(pc.sum(pc.not_equal(ascii_only, t.filter(changed))).as_py() or 0)


def number_values(values: Any) -> np.ndarray:
    """:func:`finite_values` of a pyarrow string array of trimmed cells, fast for plain whole numbers.

    Cells of at most 15 ASCII digits are cast by pyarrow (exact); cells that cannot start a
    number (``pandas.to_numeric`` skips only ASCII spaces, which are trimmed) are NaN; the rest
    go through :func:`finite_values`.

    Parameters
    ----------
    values : pyarrow StringArray
        Trimmed cells.

    Returns
    -------
    (n,) float64 ndarray
        The value of every finite number, NaN elsewhere.
    """
    n = len(values)
    out = np.full(n, np.nan)
    if n == 0:
        return out
    fast = pc.and_(pc.ascii_is_decimal(values), pc.less_equal(pc.binary_length(values), _FAST_DIGITS))
    fast_np = fast.to_numpy(zero_copy_only=False)
    if fast_np.any():
        out[fast_np] = pc.cast(values.filter(fast), pa.int64()).to_numpy().astype(float)
    rest = ~fast_np & pc.match_substring_regex(values, r"^[-+.0-9]").to_numpy(zero_copy_only=False)
    if rest.any():
        out[rest] = finite_values(values.filter(pa.array(rest)).to_numpy(zero_copy_only=False))
    return out


class TextColumn:
    """One column's trimmed cells: ``codes`` (n,) into ``values`` (m distinct texts, any order).

    ``values`` is a pyarrow string array and ``objects`` the same as a numpy object array;
    ``number`` (m,) the finite value of each distinct text (NaN when it is not one).
    """

    def __init__(self, codes: np.ndarray, values: Any) -> None:
        self.codes = codes
        self.values = values
        self.objects = values.to_numpy(zero_copy_only=False)
        self._number: np.ndarray | None = None

    @classmethod
    def encode(cls, trimmed: Any) -> TextColumn:
        """The column of a pyarrow string array of trimmed cells."""
        d = pc.dictionary_encode(trimmed)
        return cls(d.indices.to_numpy(zero_copy_only=False).astype(np.intp), d.dictionary)

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def number(self) -> np.ndarray:
        """(m,) float64: the finite value of each distinct text, NaN when it is not a number."""
        if self._number is None:
            self._number = number_values(self.values)
        return self._number

    def per_value(self, flags: Any) -> np.ndarray:
        """A per-distinct-value flag array (numpy or pyarrow) at every cell: (n,) ndarray."""
        f = flags.to_numpy(zero_copy_only=False) if hasattr(flags, "to_numpy") and not isinstance(
            flags, np.ndarray) else flags
        return np.asarray(f)[self.codes]

    def take(self, keep: np.ndarray) -> TextColumn:
        """The cells where ``keep`` (a boolean mask) holds, with the same distinct values."""
        out = TextColumn.__new__(TextColumn)
        out.codes, out.values, out.objects, out._number = self.codes[keep], self.values, self.objects, self._number
        return out

    def filled(self, miss: np.ndarray, level: str) -> TextColumn:
        """The column with ``level`` in the cells where ``miss`` holds."""
        objs = list(self.objects)
        idx = objs.index(level) if level in objs else len(objs)
        values = self.values if idx < len(objs) else pa.array(objs + [level], type=pa.string())
        codes = self.codes.copy()
        codes[miss] = idx
        return TextColumn(codes, values)

    def cells(self, miss: np.ndarray | None = None) -> np.ndarray:
        """The cells as an object ndarray of str, None where ``miss`` holds."""
        out = self.objects[self.codes]
        if miss is not None and miss.any():
            out[miss] = None
        return out

    def first_distinct(self, mask: np.ndarray, k: int) -> list[str]:
        """The first ``k`` distinct texts among the cells where ``mask`` holds, in cell order."""
        return [str(self.objects[c]) for c in pd.unique(self.codes[mask])[:k]]
