"""Attribute types: one frozen, hashable class per type of public domain.

DESIGN §3 "Schema and public domain" and "Gower distance"; paper §2.3, §6.1, App. D.

Each class owns everything that depends on the type of an attribute, so the rest of
the engine never branches on a type name:

==============  ===========================  ===============  =====================
type            encoding (float64 code)      Gower term d_i   mutation (ResampleMutate)
==============  ===========================  ===============  =====================
numeric         (x - lo) / (hi - lo)         |a - b|          uniform step +-rate (x width),
                                                              rounded for integers, clipped
ordinal         rank / (L - 1)               |a - b|          the same on the rank grid
categorical     level index 0..L-1           [a != b]         redrawn uniformly w.p. rate
binary          level index 0..1             [a != b]         as categorical
hierarchical    leaf index 0..L-1            tree path / diam as categorical
==============  ===========================  ===============  =====================

plus: ``index`` (integer domain index for lookup tables), ``bin_codes`` / ``cell_labels``
(cells of PWErr and the marginal plots), ``sample`` (uniform draws from the public
domain), ``threshold_pairs`` / ``threshold_reach`` (the threshold policy graph in the
attribute's own units), ``to_dict`` (the JSON schema format of docs/FORMATS.md).

Construction.  ``Attribute(name, kind, ...)`` returns the subclass registered for
``kind`` (an unknown kind gives a plain :class:`Attribute`, rejected by
:meth:`Attribute.validate`).  Declarations are checked by :meth:`validate`, which
:class:`blowfish_core.model.schema.Schema` calls: it normalizes the bounds, fills the leaves
of a tree and builds lookup tables, once; nothing else ever changes an attribute.
``levels`` is an immutable tuple that compares equal to the same list.

Random streams (paired across methods): :meth:`Attribute.mutate` receives the draws
made for *every* attribute (steps, redraw flags, picks) and :meth:`Attribute.sample`
makes exactly one draw of ``size`` values, so the order of generator calls does not
depend on which types a schema holds beyond what it always did.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..base.errors import SchemaError

#: largest integer domain that is treated as finite (enumerable) for calibration.
MAX_FINITE_INTEGER_DOMAIN = 100_000
#: integer domains up to this many values are binned by enumerating them (exact cell members).
ENUMERATE_INTEGERS = 1_000_000

#: kind -> attribute class (filled by :func:`attribute_type`).
ATTRIBUTE_TYPES: dict[str, type["Attribute"]] = {}


def attribute_type(kind: str):
    """Class decorator registering an Attribute subclass under its JSON ``type`` name."""
    def register(cls):
        cls.KIND = kind
        ATTRIBUTE_TYPES[kind] = cls
        return cls
    return register


def _fmt(v: Any) -> str:
    """Canonical string of a domain value, used to match CSV cells to levels."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _num(v: float) -> float | int:
    return int(v) if float(v).is_integer() else float(v)


def _plain(v: Any) -> Any:
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


class FrozenList(tuple):
    """An immutable sequence that compares equal to a list or tuple with the same items.

    Used for declared levels and schema column lists, so frozen objects stay hashable
    while ``attr.levels == ["a", "b"]`` keeps working; JSON writes it as an array.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple)):
            return tuple.__eq__(self, tuple(other))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return repr(list(self))


@dataclass(frozen=True, eq=True)
class Attribute:
    """One modeled attribute with its public domain (base class of the per-type classes).

    name: column name in the user's table.
    kind: one of ``numeric``, ``ordinal``, ``categorical``, ``hierarchical``, ``binary``
        (the JSON ``type``; selects the subclass).
    lo, hi: public bounds (numeric only), in the attribute's own units, lo < hi.
    integer: numeric values are whole numbers (mutation rounds, output keeps ints).
    levels: the values of a finite attribute; for ordinal in increasing order;
        for hierarchical the leaves (taken from ``tree`` when omitted).
    tree: hierarchical only: nested mapping group -> (subgroups or list of leaves).
    weight: Gower weight w_i (None -> 1/p over the modeled columns).
    unit: display unit of a numeric attribute (e.g. 'years'); thresholds are in it.
    """

    name: str
    kind: str | None = None
    lo: float | None = None
    hi: float | None = None
    integer: bool = False
    levels: Any = None
    tree: dict[str, Any] | None = None
    weight: float | None = None
    unit: str | None = None
    # derived (filled by validate(); not compared, not hashed)
    _tree_dist: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)
    _tree_diameter: int | None = field(default=None, init=False, repr=False, compare=False)
    _level_index: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    KIND: ClassVar[str | None] = None
    #: values lie on a line and d_i = |a - b| (numeric, ordinal).
    ordered: ClassVar[bool] = False
    #: a threshold policy is meaningful (graded distance: numeric, ordinal, tree).
    graded: ClassVar[bool] = False
    #: numbers in [lo, hi] with a unit (threshold edges of any width, band diagrams).
    bounded: ClassVar[bool] = False
    #: a taxonomy tree ('hierarchy' policy: siblings under one parent).
    has_tree: ClassVar[bool] = False
    #: why a protected pair sits at the diameter (Remark 3 read-out).
    diameter_reason: ClassVar[str] = "a protected pair lies at the attribute's diameter"

    def __new__(cls, *args: Any, **kwargs: Any) -> "Attribute":
        if cls is Attribute:
            kind = args[1] if len(args) > 1 else kwargs.get("kind")
            try:
                cls = ATTRIBUTE_TYPES.get(kind, Attribute)
            except TypeError:          # unhashable kind: rejected by validate()
                cls = Attribute
        return object.__new__(cls)

    def __post_init__(self) -> None:
        if self.kind is None and self.KIND is not None:
            object.__setattr__(self, "kind", self.KIND)
        if isinstance(self.levels, (list, tuple)) and not isinstance(self.levels, FrozenList):
            object.__setattr__(self, "levels", FrozenList(self.levels))

    def __hash__(self) -> int:
        tree = None if self.tree is None else json.dumps(self.tree, sort_keys=True, default=str)
        # a tree fixes the leaves (validate() fills them in): hash it alone, so the hash is stable
        levels = None if self.levels is None or self.tree is not None else tuple(map(_fmt, self.levels))
        return hash((type(self).__name__, self.name, self.kind, self.lo, self.hi, self.integer, levels, tree,
                     self.weight, self.unit))

    def _set(self, **values: Any) -> None:
        for k, v in values.items():
            object.__setattr__(self, k, v)

    # ------------------------------------------------------------------ checks
    def validate(self) -> "Attribute":
        """Check the declaration and build lookup tables (idempotent; returns self).

        Raises SchemaError naming the attribute and the field to fix.
        """
        n = self.name
        if not isinstance(n, str) or not n:
            raise SchemaError("attribute name must be a non-empty string")
        if type(self) is Attribute or self.kind != self.KIND:
            raise SchemaError(
                f"attribute '{n}': unknown type '{self.kind}'. Fix: use one of {', '.join(ATTRIBUTE_TYPES)}"
            )
        if self.weight is not None:
            w = self.weight
            if not isinstance(w, (int, float)) or isinstance(w, bool) or not math.isfinite(w) or w <= 0:
                raise SchemaError(f"attribute '{n}': weight must be a finite number > 0 (got {w!r})")
        self._validate()
        return self

    def _validate(self) -> None:  # pragma: no cover - every registered type overrides it
        raise NotImplementedError

    # ---------------------------------------------------------- the domain
    @property
    def is_finite(self) -> bool:
        """True when the public domain can be enumerated (calibration searches)."""
        return True

    @property
    def size(self) -> int | None:
        """Number of domain values (None for a continuous numeric attribute)."""
        return len(self.levels)

    @property
    def width(self) -> float:
        """Normalizer of the Gower term in the attribute's own units (1 unless graded)."""
        return 1.0

    def domain_codes(self) -> np.ndarray:
        """Encoded coordinates of every domain value (finite attributes), float64 (L,)."""
        return np.arange(self.size, dtype=float)

    def domain_values(self) -> list[Any]:
        """The domain values in the attribute's own units/labels (finite attributes)."""
        return list(self.levels)

    def index(self, col: np.ndarray) -> np.ndarray:
        """Integer index in the domain of encoded values (finite attributes): int32 (n,)."""
        return np.asarray(col).astype(np.int32)

    # --------------------------------------------------------- distance
    def term(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per-attribute Gower term d_i(a, b) in [0, 1] for encoded arrays (broadcasting)."""
        return (a != b).astype(float)

    def term_into(self, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
        """d_i(a, b) written into ``out`` (broadcast shape, float64) without temporaries:
        the kernel's pass over attributes too large for lookup tables."""
        np.subtract(a, b, out=out)
        return np.not_equal(out, 0.0, out=out)

    # ---------------------------------------------------------- encoding
    def encode_value(self, v: Any) -> float:
        """Encode one value in the attribute's units/labels; SchemaError if outside the domain."""
        return float(self.encode_series(pd.Series([v]))[0])

    def _level_codes(self, s: pd.Series) -> np.ndarray:
        """Level index of every cell, float64 (n,); SchemaError for missing/unknown values."""
        n = self.name
        if self._level_index is None:
            self.validate()
        if s.isna().any():
            raise SchemaError(
                f"column '{n}': {int(s.isna().sum())} row(s) are missing. Fix: drop them, or "
                "declare the missing marker as a level (e.g. '?')"
            )
        keys = s.map(_fmt)
        codes = keys.map(self._level_index)
        if codes.isna().any():
            bad = keys[codes.isna()]
            ex = list(dict.fromkeys(bad.tolist()))[:3]
            spaced = [v for v in dict.fromkeys(bad.tolist()) if v != v.strip() and v.strip() in self._level_index]
            if spaced:
                raise SchemaError(
                    f"column '{n}': {len(bad)} row(s) have categories outside the declared public domain; "
                    f"values have leading/trailing spaces, e.g. {spaced[0]!r}. Fix: strip them "
                    f"(e.g. {spaced[0].strip()!r}) before loading; the tool never changes values silently"
                )
            raise SchemaError(
                f"column '{n}': {len(bad)} row(s) have categories outside the declared public domain "
                f"(e.g. {ex}). Fix: add them to the levels of '{n}' or remove those rows"
            )
        return codes.to_numpy(dtype=float)

    def encode_series(self, s: pd.Series) -> np.ndarray:
        """Encode a column; never clips or coerces silently.

        Returns float64 (n,). Raises SchemaError naming the column, how many rows are
        bad and an example, for missing values, non-numbers and values outside the
        declared public domain.
        """
        return self._level_codes(s)

    def _level_values(self, idx: np.ndarray) -> pd.Series:
        lv = np.array(self.levels, dtype=object)
        vals = lv[idx]
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in self.levels):
            return pd.Series(vals.astype(np.int64), name=self.name)
        return pd.Series(vals, name=self.name)

    def decode(self, col: np.ndarray) -> pd.Series:
        """Inverse of encode: values in the original units/labels (ints stay ints)."""
        return self._level_values(np.asarray(col).astype(int))

    def label(self, v: float) -> str:
        """Human label of one encoded value."""
        return _fmt(self.decode(np.array([v])).iloc[0])

    # ------------------------------------------------------- marginals
    def bin_codes(self, col: np.ndarray, bins: int | str) -> tuple[np.ndarray, int]:
        """Cells of encoded values for marginals (PWErr): (int64 (n,), number of cells).

        Finite types: one cell per level (``bins`` is ignored)."""
        return np.asarray(col).astype(np.int64), len(self.levels)

    def cell_labels(self, bins: int) -> list[str]:
        """Labels of the cells of :meth:`bin_codes`, in cell order."""
        return [_fmt(v) for v in self.levels]

    # ------------------------------------------------- ResampleMutate, sampling
    def mutate(self, col: np.ndarray, steps: np.ndarray, redraw: np.ndarray, picks: np.ndarray) -> np.ndarray:
        """One ResampleMutate step of encoded values col (k,) (DESIGN §3).

        steps: (k,) uniform in [-rate, rate]; redraw: (k,) bool, True w.p. rate;
        picks: (k,) uniform in [0, 1).  Finite unordered types: a value is redrawn
        uniformly (level floor(pick * L)) where ``redraw``.
        """
        L = len(self.levels)
        new = np.minimum((picks * L).astype(int), L - 1).astype(float)
        return np.where(redraw, new, col)

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` encoded values drawn uniformly from the public domain: float64 (size,)."""
        return rng.integers(0, len(self.levels), size=size).astype(float)

    # ------------------------------------------------------------ policies
    @property
    def threshold_unit(self) -> str:
        """Unit of a threshold on this attribute: the numeric unit, 'levels' or 'tree steps'."""
        return ""

    @property
    def whole_steps(self) -> bool:
        """True when the domain moves in whole steps (a threshold acts as floor(theta))."""
        return True

    def threshold_pairs(self, theta: float) -> tuple[np.ndarray, np.ndarray]:
        """Protected pairs (e0, e1), e0 < e1, of ``0 < d(u, v) <= theta`` (attribute units) on
        the enumerable domain: two int (E,) arrays into :meth:`domain_codes`."""
        raise SchemaError(f"attribute '{self.name}' has no graded distance for a threshold")

    def threshold_reach(self, theta: float) -> float | None:
        """Unweighted reach of a threshold theta when it has a closed form, else None
        (then it is the largest term over :meth:`threshold_pairs`)."""
        return None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "type": self.kind}
        d.update(self._domain_dict())
        if self.weight is not None:
            d["weight"] = self.weight
        if self.unit:
            d["unit"] = self.unit
        return d

    def _domain_dict(self) -> dict[str, Any]:
        return {"levels": [_plain(v) for v in self.levels]}


def _step_pairs(L: int, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of a line of L unit-spaced values at most floor(theta) steps apart, by step."""
    k = min(int(math.floor(theta + 1e-9)), L - 1)
    if k < 1:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    i0 = np.concatenate([np.arange(L - s) for s in range(1, k + 1)])
    i1 = np.concatenate([np.arange(s, L) for s in range(1, k + 1)])
    return i0.astype(np.intp), i1.astype(np.intp)


class _Levels(Attribute):
    """Shared checks of the types declared by a list of levels."""

    def _check_levels(self) -> None:
        n = self.name
        if not self.levels:
            raise SchemaError(f"attribute '{n}': a {self.kind} attribute needs a non-empty list of levels")
        keys = [_fmt(v) for v in self.levels]
        if len(set(keys)) != len(keys):
            dup = sorted({k for k in keys if keys.count(k) > 1})
            raise SchemaError(f"attribute '{n}': duplicate levels {dup}")
        self._check_count(len(keys))
        self._set(_level_index={k: i for i, k in enumerate(keys)})

    def _check_count(self, L: int) -> None:
        pass

    def _validate(self) -> None:
        self._check_levels()


class _Line:
    """Mixin of the types whose values lie on a line: Gower term |a - b| of the codes."""

    ordered = True
    graded = True

    def term(self, a, b):
        return np.abs(a - b)

    def term_into(self, a, b, out):
        np.subtract(a, b, out=out)
        return np.abs(out, out=out)


@attribute_type("numeric")
class NumericAttribute(_Line, Attribute):
    """Numeric attribute on public bounds [lo, hi] (``integer``: whole numbers)."""

    bounded = True

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
        self._set(lo=float(self.lo), hi=float(self.hi))
        if not self.lo < self.hi:
            raise SchemaError(
                f"attribute '{n}': public bounds must satisfy lo < hi (got lo={self.lo}, hi={self.hi})"
            )
        if not math.isfinite(self.hi - self.lo):
            raise SchemaError(
                f"attribute '{n}': the width hi - lo of the public bounds exceeds the float range "
                f"(got lo={self.lo!r}, hi={self.hi!r}). Fix: declare bounds whose difference is a "
                f"finite number, e.g. the attribute's real public range"
            )
        if self.integer and (not float(self.lo).is_integer() or not float(self.hi).is_integer()):
            raise SchemaError(f"attribute '{n}': integer attribute needs whole-number bounds")

    @property
    def is_finite(self) -> bool:
        return bool(self.integer and (self.hi - self.lo) + 1 <= MAX_FINITE_INTEGER_DOMAIN)

    @property
    def size(self) -> int | None:
        return int(self.hi - self.lo) + 1 if self.integer else None

    @property
    def width(self) -> float:
        """hi - lo, in the attribute's units."""
        return self.hi - self.lo

    def domain_codes(self) -> np.ndarray:
        if self.size is None:
            raise SchemaError(f"attribute '{self.name}' is continuous; its domain cannot be enumerated")
        vals = np.arange(self.lo, self.hi + 1.0)
        return (vals - self.lo) / (self.hi - self.lo)

    def domain_values(self) -> list[Any]:
        return [int(v) for v in np.arange(self.lo, self.hi + 1.0)]

    def index(self, col: np.ndarray) -> np.ndarray:
        return np.rint(col * (self.hi - self.lo)).astype(np.int32)

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
        out = (x < self.lo) | (x > self.hi)
        if out.any():
            raise SchemaError(
                f"column '{n}': {int(out.sum())} row(s) lie outside the declared public domain "
                f"[{_fmt(self.lo)}, {_fmt(self.hi)}] (e.g. {_fmt(x[out][0])}). "
                "Fix: widen the declared bounds or remove those rows; values are never clipped silently"
            )
        if self.integer and not np.all(np.mod(x, 1) == 0):
            bad_i = np.mod(x, 1) != 0
            raise SchemaError(
                f"column '{n}': {int(bad_i.sum())} row(s) are not whole numbers (e.g. {x[bad_i][0]}) "
                "but the attribute is declared integer. Fix: set integer to false"
            )
        return (x - self.lo) / (self.hi - self.lo)

    def decode(self, col: np.ndarray) -> pd.Series:
        x = self.lo + np.asarray(col, dtype=float) * (self.hi - self.lo)
        if self.integer:
            return pd.Series(np.rint(x).astype(np.int64), name=self.name)
        return pd.Series(x, name=self.name)

    def bin_codes(self, col: np.ndarray, bins: int | str) -> tuple[np.ndarray, int]:
        """``bins`` equal-width cells over [lo, hi], or with bins="exact" one cell per whole
        number (integer attributes only; ValueError for a continuous one)."""
        if bins == "exact":
            if not self.integer:
                raise ValueError(f"bins='exact' needs an integer attribute; '{self.name}' is continuous")
            span = int(self.hi - self.lo)
            return np.clip(np.rint(col * span), 0, span).astype(np.int64), span + 1
        return np.minimum((col * bins).astype(np.int64), bins - 1), bins

    def cell_labels(self, bins: int) -> list[str]:
        """The ``bins`` equal-width intervals in the attribute's units ("[0.5, 0.75)");
        integer attributes: the whole numbers of each bin ("17-20", "21")."""
        if self.integer:
            return self._integer_cell_labels(bins)
        edges = np.linspace(self.lo, self.hi, bins + 1)
        return [f"[{_fmt(round(float(edges[k]), 4))}, {_fmt(round(float(edges[k + 1]), 4))}"
                + ("]" if k == bins - 1 else ")") for k in range(bins)]

    def _integer_cell_labels(self, bins: int) -> list[str]:
        """A bin holding no whole number (domain narrower than ``bins``) is labelled
        "(none: [lo, hi))" and has zero mass."""
        lo, hi = float(self.lo), float(self.hi)
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
            if first[k] is None or last[k] < first[k]:
                out.append(f"(none: [{_fmt(round(lo + k * width, 4))}, {_fmt(round(lo + (k + 1) * width, 4))}))")
            elif first[k] == last[k]:
                out.append(_fmt(first[k]))
            else:
                out.append(f"{_fmt(first[k])}-{_fmt(last[k])}")
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
        return self.unit or "units"

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


@attribute_type("ordinal")
class OrdinalAttribute(_Line, _Levels):
    """Ordered levels; code rank / (L - 1), Gower term |a - b| = rank difference / (L - 1)."""

    @property
    def _gap(self) -> int:
        return max(len(self.levels) - 1, 1)

    @property
    def width(self) -> float:
        """L - 1 levels."""
        return self._gap

    def domain_codes(self):
        return np.arange(self.size, dtype=float) / max(self.size - 1, 1)

    def index(self, col):
        return np.rint(col * max(self.size - 1, 1)).astype(np.int32)

    def encode_series(self, s):
        return self._level_codes(s) / self._gap

    def decode(self, col):
        return self._level_values(np.rint(np.asarray(col) * self._gap).astype(int))

    def bin_codes(self, col, bins):
        return np.rint(col * self._gap).astype(np.int64), len(self.levels)

    def mutate(self, col, steps, redraw, picks):
        """A uniform step of +-rate x (L - 1) levels, rounded and clipped."""
        L = len(self.levels)
        r = np.rint(np.clip(col * (L - 1) + steps * (L - 1), 0, L - 1))
        return r / max(L - 1, 1)

    def sample(self, rng, size):
        L = len(self.levels)
        return rng.integers(0, L, size=size).astype(float) / max(L - 1, 1)

    @property
    def threshold_unit(self):
        return "levels"

    def threshold_pairs(self, theta):
        """Levels at most floor(theta) steps apart."""
        return _step_pairs(self.size, theta)


@attribute_type("categorical")
class CategoricalAttribute(_Levels):
    """Flat categorical: level index, Gower term [a != b]; every distinct pair at the diameter."""

    diameter_reason = "a flat categorical attribute has every pair of distinct values at Gower term 1"


@attribute_type("hierarchical")
class HierarchicalAttribute(_Levels):
    """Leaves of a taxonomy tree; Gower term = tree-path distance / tree diameter (App. D)."""

    graded = True
    has_tree = True

    def _validate(self):
        n = self.name
        if not self.tree:
            raise SchemaError(f"attribute '{n}': hierarchical type needs a 'tree' of groups")
        leaves, dist = _tree_metric(self.tree, n)
        if self.levels is None:
            self._set(levels=FrozenList(leaves))
        elif sorted(map(_fmt, self.levels)) != sorted(map(_fmt, leaves)):
            raise SchemaError(f"attribute '{n}': 'levels' and the leaves of 'tree' differ")
        order = [leaves.index(_fmt(v)) if _fmt(v) in leaves else None for v in self.levels]
        self._set(_tree_dist=dist[np.ix_(order, order)])
        self._check_levels()

    @property
    def width(self):
        """The tree diameter, in tree steps."""
        return float(self.tree_diameter)

    @property
    def tree_diameter(self) -> int:
        """Tree-path diameter in edges (App. D)."""
        if self._tree_diameter is None:
            _, raw = _tree_metric(self.tree, self.name, normalized=False)
            self._set(_tree_diameter=int(raw.max()) if raw.size else 0)
        return self._tree_diameter

    def term(self, a, b):
        return self._tree_dist[np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp)]

    def term_into(self, a, b, out):
        out[...] = self.term(a, b)
        return out

    @property
    def threshold_unit(self):
        return "tree steps"

    def threshold_pairs(self, theta):
        """Leaves at most theta tree steps apart (2 = siblings under one parent)."""
        steps = self._tree_dist * self.tree_diameter
        mask = (steps > 0) & (steps <= theta + 1e-9)
        i0, i1 = np.nonzero(np.triu(mask, 1))
        return i0.astype(np.intp), i1.astype(np.intp)

    def _domain_dict(self):
        return {"tree": self.tree}


@attribute_type("binary")
class BinaryAttribute(CategoricalAttribute):
    """Two levels; as a flat categorical."""

    diameter_reason = "a binary attribute's two values are at Gower term 1"

    def _check_count(self, L):
        if L != 2:
            raise SchemaError(f"attribute '{self.name}': binary needs exactly 2 levels (got {L})")


#: the attribute types, in the order error messages list them.
KINDS = tuple(ATTRIBUTE_TYPES)
#: the types whose domain is always enumerable.
FINITE_KINDS = tuple(k for k, c in ATTRIBUTE_TYPES.items() if not c.bounded)


def _tree_metric(tree: dict[str, Any], name: str, normalized: bool = True) -> tuple[list[str], np.ndarray]:
    """Leaves and tree-path distances depth(u)+depth(v)-2 depth(lca) (App. D).

    Uses networkx for the rooted tree's shortest paths. Returns (leaves, (L, L)
    float64 matrix), divided by the diameter over leaves when ``normalized``.
    """
    import networkx as nx

    g = nx.Graph()
    root = ("__root__",)
    leaves: list[str] = []

    def add(parent, node):
        if isinstance(node, dict):
            for k, sub in node.items():
                key = ("group", str(k))
                if key in g:
                    raise SchemaError(f"attribute '{name}': group '{k}' appears twice in the tree")
                g.add_edge(parent, key)
                add(key, sub)
        elif isinstance(node, (list, tuple)):
            for leaf in node:
                if isinstance(leaf, (dict, list, tuple)):
                    add(parent, leaf)
                    continue
                key = ("leaf", _fmt(leaf))
                if key in g:
                    raise SchemaError(f"attribute '{name}': value '{leaf}' appears twice in the tree")
                g.add_edge(parent, key)
                leaves.append(_fmt(leaf))
        else:
            raise SchemaError(f"attribute '{name}': tree nodes must be objects or lists of values")

    g.add_node(root)
    add(root, tree)
    if len(leaves) < 1:
        raise SchemaError(f"attribute '{name}': the tree has no leaf values")
    dist = np.zeros((len(leaves), len(leaves)))
    keys = [("leaf", lf) for lf in leaves]
    for i, u in enumerate(keys):
        lengths = nx.single_source_shortest_path_length(g, u)
        for j, v in enumerate(keys):
            dist[i, j] = lengths[v]
    if normalized and dist.max() > 0:
        dist = dist / dist.max()
    return leaves, dist
