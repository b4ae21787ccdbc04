"""The numeric attribute type: public bounds [lo, hi], optionally whole numbers."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from ...base._lazy import pd  # pandas, imported on first use (issue 15)

from ...base.errors import SchemaError
from .base import ENUMERATE_INTEGERS, MAX_FINITE_INTEGER_DOMAIN, Attribute, attribute_type, declared_bounds
from .mixins import _Line, _step_pairs
from .values import _fmt, _num


@attribute_type("numeric")
class NumericAttribute(_Line, Attribute):
    """Numeric attribute on public bounds [lo, hi] (``integer``: whole numbers)."""

    bounded = True
    policy_kinds = ("none", "threshold")

    @classmethod
    def examples(cls) -> tuple[NumericAttribute, ...]:
        return (cls("a", lo=0, hi=4, integer=True), cls("b", lo=-1.5, hi=10.0))

    def _validate(self) -> None:
        n = self.name
        for key in ("lo", "hi"):
            v = getattr(self, key)
            if v is None or isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(float(v)):
                raise SchemaError(
                    f"attribute '{n}': numeric domain needs finite public bounds lo and hi "
                    f"(got {key}={v!r}). Fix: declare e.g. \"lo\": 0, \"hi\": 100"
                )
        lo, hi = declared_bounds(self)
        lo, hi = float(lo), float(hi)
        self._set(lo=lo, hi=hi)
        if not lo < hi:
            raise SchemaError(
                f"attribute '{n}': public bounds must satisfy lo < hi (got lo={lo}, hi={hi})"
            )
        if not math.isfinite(hi - lo):
            raise SchemaError(
                f"attribute '{n}': the width hi - lo of the public bounds exceeds the float range "
                f"(got lo={lo!r}, hi={hi!r}). Fix: declare bounds whose difference is a "
                f"finite number, e.g. the attribute's real public range"
            )
        if self.integer and (not lo.is_integer() or not hi.is_integer()):
            raise SchemaError(f"attribute '{n}': integer attribute needs whole-number bounds")

    @property
    def is_finite(self) -> bool:
        if not self.integer:
            return False
        lo, hi = declared_bounds(self)
        return bool((hi - lo) + 1 <= MAX_FINITE_INTEGER_DOMAIN)

    @property
    def size(self) -> int | None:
        if not self.integer:
            return None
        lo, hi = declared_bounds(self)
        return int(hi - lo) + 1

    @property
    def width(self) -> float:
        """hi - lo, in the attribute's units."""
        lo, hi = declared_bounds(self)
        return hi - lo

    def domain_codes(self) -> np.ndarray:
        if self.size is None:
            raise SchemaError(f"attribute '{self.name}' is continuous; its domain cannot be enumerated")
        lo, hi = declared_bounds(self)
        vals = np.arange(lo, hi + 1.0)
        return (vals - lo) / (hi - lo)

    def domain_values(self) -> list[Any]:
        lo, hi = declared_bounds(self)
        return [int(v) for v in np.arange(lo, hi + 1.0)]

    def index(self, col: np.ndarray) -> np.ndarray:
        lo, hi = declared_bounds(self)
        return np.rint(col * (hi - lo)).astype(np.int32)

    def encode_series(self, s: pd.Series) -> np.ndarray:
        n = self.name
        num = pd.to_numeric(s, errors="coerce")
        bad = num.isna() & s.notna()
        if bad.any():
            ex = s[bad].iloc[0]
            hint = ""
            if (s[bad].astype(str).str.strip() == "?").any():
                hint = (" '?' is a missing-value marker (as in Adult): drop those rows; a numeric "
                        "column cannot hold it.")
            raise SchemaError(
                f"column '{n}': {int(bad.sum())} row(s) are not numbers (e.g. {ex!r}).{hint} "
                "Fix: clean the column or declare it categorical"
            )
        if num.isna().any():
            raise SchemaError(
                f"column '{n}': {int(num.isna().sum())} row(s) are missing (empty cells or NaN). "
                "Fix: drop or impute them before synthesis (the tool does not guess)"
            )
        x = num.to_numpy(dtype=float)
        if not np.isfinite(x).all():
            raise SchemaError(
                f"column '{n}': {int((~np.isfinite(x)).sum())} row(s) are infinite (inf or -inf). "
                "Fix: drop or replace them; a numeric domain needs finite values"
            )
        lo, hi = declared_bounds(self)
        out = (x < lo) | (x > hi)
        if out.any():
            raise SchemaError(
                f"column '{n}': {int(out.sum())} row(s) lie outside the declared public domain "
                f"[{_fmt(lo)}, {_fmt(hi)}] (e.g. {_fmt(x[out][0])}). "
                "Fix: widen the declared bounds or remove those rows; values are never clipped silently"
            )
        if self.integer and not np.all(np.mod(x, 1) == 0):
            bad_i = np.mod(x, 1) != 0
            raise SchemaError(
                f"column '{n}': {int(bad_i.sum())} row(s) are not whole numbers (e.g. {x[bad_i][0]}) "
                "but the attribute is declared integer. Fix: set integer to false"
            )
        return (x - lo) / (hi - lo)

    def decode_array(self, col: np.ndarray) -> np.ndarray:
        lo, hi = declared_bounds(self)
        x = lo + np.asarray(col, dtype=float) * (hi - lo)
        if self.integer:
            return np.rint(x).astype(np.int64)
        return x

    def bin_codes(self, col: np.ndarray, bins: int | str) -> tuple[np.ndarray, int]:
        """``bins`` equal-width cells over [lo, hi], or with bins="exact" one cell per whole
        number (integer attributes only; ValueError for a continuous one, or for another string)."""
        if bins == "exact":
            if not self.integer:
                raise ValueError(f"bins='exact' needs an integer attribute; '{self.name}' is continuous")
            lo, hi = declared_bounds(self)
            span = int(hi - lo)
            return np.clip(np.rint(col * span), 0, span).astype(np.int64), span + 1
        if isinstance(bins, str):
            raise ValueError(f"bins must be a whole number of cells or 'exact' (got {bins!r})")
        return np.minimum((col * bins).astype(np.int64), bins - 1), bins

    def cell_labels(self, bins: int) -> list[str]:
        """The ``bins`` equal-width intervals in the attribute's units ("[0.5, 0.75)");
        integer attributes: the whole numbers of each bin ("17-20", "21")."""
        if self.integer:
            return self._integer_cell_labels(bins)
        lo, hi = declared_bounds(self)
        edges = np.linspace(lo, hi, bins + 1)
        return [f"[{_fmt(round(float(edges[k]), 4))}, {_fmt(round(float(edges[k + 1]), 4))}"
                + ("]" if k == bins - 1 else ")") for k in range(bins)]

    def _integer_cell_labels(self, bins: int) -> list[str]:
        """A bin holding no whole number (domain narrower than ``bins``) is labelled
        "(none: [lo, hi))" and has zero mass."""
        lo, hi = declared_bounds(self)
        lo, hi = float(lo), float(hi)
        width = (hi - lo) / bins
        first: list[float | None] = [None] * bins
        last: list[float | None] = [None] * bins
        if hi - lo + 1 <= ENUMERATE_INTEGERS:
            v = np.arange(lo, hi + 1)
            codes = np.minimum((((v - lo) / (hi - lo)) * bins).astype(np.int64), bins - 1)  # as bin_codes
            ks, starts = np.unique(codes, return_index=True)
            ends = np.r_[starts[1:], len(v)] - 1
            for k, s0, s1 in zip(ks, starts, ends):
                first[int(k)], last[int(k)] = float(v[s0]), float(v[s1])
        else:  # huge domain: the bin edges, rounded inwards to whole numbers
            for k in range(bins):
                first[k] = float(np.ceil(lo + k * width))
                last[k] = hi if k == bins - 1 else float(np.ceil(lo + (k + 1) * width) - 1)
        out = []
        for k in range(bins):
            first_k, last_k = first[k], last[k]  # set together, or both None
            if first_k is None or last_k is None or last_k < first_k:
                out.append(f"(none: [{_fmt(round(lo + k * width, 4))}, {_fmt(round(lo + (k + 1) * width, 4))}))")
            elif first_k == last_k:
                out.append(_fmt(first_k))
            else:
                out.append(f"{_fmt(first_k)}-{_fmt(last_k)}")
        return out

    def mutate(self, col, steps, redraw, picks):
        """A uniform step of +-rate x (hi - lo), clipped; integers rounded to the grid."""
        x = np.clip(col + steps, 0.0, 1.0)
        if self.integer:
            span = self.hi - self.lo
            x = np.rint(x * span) / span
        return x

    def sample(self, rng, size):
        if self.integer:
            v = rng.integers(int(self.lo), int(self.hi) + 1, size=size).astype(float)
        else:
            v = rng.uniform(self.lo, self.hi, size=size)
        return (v - self.lo) / (self.hi - self.lo)

    @property
    def threshold_unit(self) -> str:
        """The declared unit ('years', 'euros'); '' when none was declared (an uploaded column): the
        front ends then show the column's name alone, never a placeholder such as 'units'."""
        return self.unit or ""

    @property
    def whole_steps(self) -> bool:
        return bool(self.integer)

    def threshold_pairs(self, theta):
        """Integer domains: values at most floor(theta) unit steps apart."""
        return _step_pairs(self.size, theta)

    def threshold_reach(self, theta):
        """min(theta, hi - lo) / (hi - lo) (integer domains: floor(theta))."""
        theta = float(theta)
        if self.integer:
            theta = math.floor(theta + 1e-9)
        return min(theta, self.hi - self.lo) / (self.hi - self.lo)

    def _domain_dict(self):
        return {"lo": _num(self.lo), "hi": _num(self.hi), "integer": bool(self.integer)}
