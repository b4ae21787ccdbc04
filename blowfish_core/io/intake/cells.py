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


def trim(values: Any) -> tuple[Any, np.ndarray]:
    """Trim every text of a pyarrow string array of ASCII, Unicode and zero-width spaces.

    Parameters
    ----------
    values : pyarrow StringArray
        The texts as read.

    Returns
    -------
    trimmed : pyarrow StringArray
        The texts trimmed (``str.strip`` of UNICODE_SPACES + ZERO_WIDTH).
    unicode : (m,) bool ndarray
        The texts that had more than ASCII spaces trimmed.
    """
    t = pc.utf8_trim(values, characters=UNICODE_SPACES + ZERO_WIDTH)
    changed = pc.not_equal(pc.binary_length(values), pc.binary_length(t))
    flags = np.zeros(len(values), dtype=bool)
    if pc.any(changed).as_py():
        ascii_only = pc.utf8_trim(values.filter(changed), characters=ASCII_SPACES)
        flags[changed.to_numpy(zero_copy_only=False)] = pc.not_equal(ascii_only, t.filter(changed)).to_numpy(
            zero_copy_only=False)
    return t, flags


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

    ``values`` is a pyarrow string array and ``objects`` the same as a numpy object array (made on use);
    ``number`` (m,) the finite value of each distinct text (NaN when it is not one).
    """

    def __init__(self, codes: np.ndarray, values: Any) -> None:
        self.codes = codes
        self.values = values
        self._objects: np.ndarray | None = None
        self._number: np.ndarray | None = None

    @classmethod
    def read(cls, cells: Any) -> tuple[TextColumn, int]:
        """The trimmed column of a pyarrow array of cells as read (string or dictionary-encoded).

        Parameters
        ----------
        cells : pyarrow StringArray or DictionaryArray
            The cells as read.

        Returns
        -------
        column : TextColumn
            The cells trimmed, each distinct trimmed text once in ``values``.
        n_unicode : int
            The cells that had more than ASCII spaces trimmed.
        """
        if not pa.types.is_dictionary(cells.type):
            cells = pc.dictionary_encode(cells)
        codes = cells.indices.to_numpy(zero_copy_only=False).astype(np.intp)
        t, unicode = trim(cells.dictionary)
        n_unicode = int(np.bincount(codes, minlength=len(t))[unicode].sum()) if unicode.any() else 0
        d = pc.dictionary_encode(t)
        if len(d.dictionary) < len(t):  # texts equal once trimmed (or repeated by the reader): one code each
            codes = d.indices.to_numpy(zero_copy_only=False).astype(np.intp)[codes]
            t = d.dictionary
        return cls(codes, t), n_unicode

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def m(self) -> int:
        """The number of distinct texts."""
        return len(self.values)

    @property
    def objects(self) -> np.ndarray:
        """(m,) object ndarray: the distinct texts as str."""
        if self._objects is None:
            self._objects = self.values.to_numpy(zero_copy_only=False)
        return self._objects

    def text(self, i: Any) -> str:
        """The distinct text of code ``i``."""
        return str(self.values[int(i)].as_py())

    def texts(self, idx: np.ndarray) -> list[str]:
        """The distinct texts of the codes ``idx``, in that order."""
        return self.values.take(pa.array(idx)).to_pylist()

    @property
    def number(self) -> np.ndarray:
        """(m,) float64: the finite value of each distinct text, NaN when it is not a number."""
        if self._number is None:
            self._number = number_values(self.values)
        return self._number

    @property
    def blank(self) -> np.ndarray:
        """(m,) bool: the distinct text is empty."""
        return pc.equal(self.values, "").to_numpy(zero_copy_only=False)

    def isin(self, texts: Any) -> np.ndarray:
        """(m,) bool: the distinct text is one of ``texts``."""
        return pc.is_in(self.values, value_set=pa.array(sorted(texts), type=pa.string())).to_numpy(zero_copy_only=False)

    def take(self, keep: Any) -> TextColumn:
        """The cells ``keep`` selects (a boolean mask or a slice), with the same distinct values."""
        out = TextColumn.__new__(TextColumn)
        out.codes, out.values, out._objects, out._number = self.codes[keep], self.values, self._objects, self._number
        return out

    def filled(self, miss: np.ndarray, level: str) -> TextColumn:
        """The column with ``level`` in the cells where ``miss`` holds."""
        objs = self.values.to_pylist()
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
