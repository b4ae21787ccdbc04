"""The shared base of the attribute types: the registry and the :class:`Attribute` base class
(issue 22: one module per attribute type; see the package docstring).  The value helpers and
``FrozenList`` are in :mod:`.values` (re-exported here), the mixins of the line and level types
in :mod:`.mixins`."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, cast

import numpy as np
from ...base._lazy import pd  # pandas, imported on first use (issue 15)

from ...base.errors import SchemaError
from .values import FrozenList, _fmt, _num, _plain  # noqa: F401  (re-exported)

#: largest integer domain that is treated as finite (enumerable) for calibration.
MAX_FINITE_INTEGER_DOMAIN = 100_000
#: integer domains up to this many values are binned by enumerating them (exact cell members).
ENUMERATE_INTEGERS = 1_000_000

#: kind -> attribute class (filled by :func:`attribute_type`).
ATTRIBUTE_TYPES: dict[str, type["Attribute"]] = {}


_A = TypeVar("_A", bound="type[Attribute]")


def attribute_type(kind: str) -> Callable[[_A], _A]:
    """Class decorator registering an Attribute subclass under its JSON ``type`` name.

    Parameters
    ----------
    kind : str
        The JSON ``type`` name (e.g. 'numeric'); set as the class's ``KIND``.

    Returns
    -------
    callable
        The decorator: it registers the class in :data:`ATTRIBUTE_TYPES` and returns it.
    """
    def register(cls: _A) -> _A:
        cls.KIND = kind
        ATTRIBUTE_TYPES[kind] = cls
        return cls
    return register



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
    #: the policy kinds the Policy Designer offers for this type (flat levels: block, complete, edges).
    policy_kinds: ClassVar[tuple[str, ...]] = ("none", "block", "complete", "edges")

    def __new__(cls, *args: Any, **kwargs: Any) -> "Attribute":
        if cls is Attribute:
            kind = args[1] if len(args) > 1 else kwargs.get("kind")
            # a kind that is not a registered name (unhashable ones included): rejected by validate()
            cls = ATTRIBUTE_TYPES.get(kind, Attribute) if isinstance(kind, str) else Attribute
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
        """Check the declaration and build lookup tables (idempotent).

        Returns
        -------
        Attribute
            self.

        Raises
        ------
        SchemaError
            Naming the attribute and the field to fix.
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

    @classmethod
    def examples(cls) -> tuple["Attribute", ...]:
        """Small valid declarations of this type: the entries of the conformance suite
        (tests/conformance/test_attributes.py).  Default: three levels 'p', 'q', 'r' (the level
        types); a type whose declaration needs other fields overrides it."""
        return (cls("a", levels=["p", "q", "r"]),)

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
        """Encoded coordinates of every domain value (finite attributes).

        Returns
        -------
        (L,) float64 ndarray
            The codes, in domain order.
        """
        return np.arange(len(self.levels), dtype=float)

    def domain_values(self) -> list[Any]:
        """The domain values (finite attributes).

        Returns
        -------
        list
            The values in the attribute's own units/labels, in domain order.
        """
        return list(self.levels)

    def index(self, col: np.ndarray) -> np.ndarray:
        """Integer index in the domain of encoded values (finite attributes).

        Parameters
        ----------
        col : (n,) float64 ndarray
            Encoded values.

        Returns
        -------
        (n,) int32 ndarray
            Their indices into :meth:`domain_codes`.
        """
        return np.asarray(col).astype(np.int32)

    # --------------------------------------------------------- distance
    def term(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per-attribute Gower term d_i(a, b) for encoded arrays (broadcasting).

        Parameters
        ----------
        a, b : float64 ndarray
            Encoded values; their shapes broadcast.

        Returns
        -------
        float64 ndarray
            d_i(a, b) in [0, 1], of the broadcast shape.
        """
        return (a != b).astype(float)

    def term_into(self, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
        """d_i(a, b) written into ``out`` without temporaries.

        The kernel's pass over attributes too large for lookup tables.

        Parameters
        ----------
        a, b : float64 ndarray
            Encoded values; their shapes broadcast.
        out : float64 ndarray
            Of the broadcast shape; overwritten.

        Returns
        -------
        float64 ndarray
            ``out``, holding d_i(a, b).
        """
        np.subtract(a, b, out=out)
        return np.not_equal(out, 0.0, out=out)

    # ---------------------------------------------------------- encoding
    def encode_value(self, v: Any) -> float:
        """Encode one value.

        Parameters
        ----------
        v : Any
            A value in the attribute's units/labels.

        Returns
        -------
        float
            Its code.

        Raises
        ------
        SchemaError
            If ``v`` is outside the domain (raised by :meth:`encode_series`).
        """
        return float(self.encode_series(pd.Series([v]))[0])

    def _level_codes(self, s: pd.Series) -> np.ndarray:
        """Level index of every cell, float64 (n,); SchemaError for missing/unknown values."""
        n = self.name
        if self._level_index is None:
            self.validate()
        level_index = cast("dict[str, int]", self._level_index)  # validate() of a level type builds it
        if s.isna().any():
            raise SchemaError(
                f"column '{n}': {int(s.isna().sum())} row(s) are missing. Fix: drop them, or "
                "declare the missing marker as a level (e.g. '?')"
            )
        keys = s.map(_fmt)
        codes = keys.map(level_index)
        if codes.isna().any():
            bad = keys[codes.isna()]
            ex = list(dict.fromkeys(bad.tolist()))[:3]
            spaced = [v for v in dict.fromkeys(bad.tolist()) if v != v.strip() and v.strip() in level_index]
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

        Parameters
        ----------
        s : (n,) pandas Series
            The column, in the attribute's units/labels.

        Returns
        -------
        (n,) float64 ndarray
            The codes.

        Raises
        ------
        SchemaError
            Naming the column, how many rows are bad and an example, for missing values,
            non-numbers and values outside the declared public domain.
        """
        return self._level_codes(s)

    def _level_array(self, idx: np.ndarray) -> np.ndarray:
        lv = np.array(self.levels, dtype=object)
        vals = lv[idx]
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in self.levels):
            return vals.astype(np.int64)
        return vals

    def decode(self, col: np.ndarray) -> pd.Series:
        """Inverse of encode.

        Parameters
        ----------
        col : (n,) float64 ndarray
            Encoded values.

        Returns
        -------
        (n,) pandas Series
            Values in the original units/labels (ints stay ints), named after the attribute:
            :meth:`decode_array` in a Series.
        """
        return pd.Series(self.decode_array(col), name=self.name)

    def decode_array(self, col: np.ndarray) -> np.ndarray:
        """Inverse of encode, without pandas: the values of :meth:`decode` as a numpy array.

        Parameters
        ----------
        col : (n,) float64 ndarray
            Encoded values.

        Returns
        -------
        (n,) ndarray
            int64 (whole-number levels or an integer attribute), float64 (a continuous attribute)
            or object (labels).
        """
        return self._level_array(np.asarray(col).astype(int))

    def label(self, v: float) -> str:
        """Human label of one encoded value.

        Parameters
        ----------
        v : float
            An encoded value.

        Returns
        -------
        str
            Its label.
        """
        return _fmt(self.decode(np.array([v])).iloc[0])

    # ------------------------------------------------------- marginals
    def bin_codes(self, col: np.ndarray, bins: int | str) -> tuple[np.ndarray, int]:
        """Cells of encoded values for marginals (PWErr).

        Finite types: one cell per level (``bins`` is ignored).

        Parameters
        ----------
        col : (n,) float64 ndarray
            Encoded values.
        bins : int or str
            Number of cells of a numeric attribute, or 'exact' (one cell per whole number).

        Returns
        -------
        codes : (n,) int64 ndarray
            The cell of each value.
        n_cells : int
            The number of cells.
        """
        return np.asarray(col).astype(np.int64), len(self.levels)

    def cell_labels(self, bins: int) -> list[str]:
        """Labels of the cells of :meth:`bin_codes`, in cell order.

        Parameters
        ----------
        bins : int
            Number of cells, as given to :meth:`bin_codes` (ignored by finite types).

        Returns
        -------
        list of str
            One label per cell.
        """
        return [_fmt(v) for v in self.levels]

    # ------------------------------------------------- ResampleMutate, sampling
    def mutate(self, col: np.ndarray, steps: np.ndarray, redraw: np.ndarray, picks: np.ndarray) -> np.ndarray:
        """One ResampleMutate step of encoded values (DESIGN §3).

        Finite unordered types: a value is redrawn uniformly (level floor(pick * L)) where
        ``redraw``.

        Parameters
        ----------
        col : (k,) float64 ndarray
            Encoded values.
        steps : (k,) float64 ndarray
            Uniform in [-rate, rate].
        redraw : (k,) bool ndarray
            True w.p. rate.
        picks : (k,) float64 ndarray
            Uniform in [0, 1).

        Returns
        -------
        (k,) float64 ndarray
            The mutated codes.
        """
        L = len(self.levels)
        new = np.minimum((picks * L).astype(int), L - 1).astype(float)
        return np.where(redraw, new, col)

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` encoded values drawn uniformly from the public domain.

        Parameters
        ----------
        rng : numpy.random.Generator
            The random stream (exactly one draw of ``size`` values).
        size : int
            Number of values.

        Returns
        -------
        (size,) float64 ndarray
            The codes.
        """
        return rng.integers(0, len(self.levels), size=size).astype(float)

    # ------------------------------------------------------------ policies
    @property
    def threshold_unit(self) -> str:
        """Unit of a threshold on this attribute: the numeric unit ('' when none is declared), 'levels' or
        'tree steps'."""
        return ""

    @property
    def whole_steps(self) -> bool:
        """True when the domain moves in whole steps (a threshold acts as floor(theta))."""
        return True

    def threshold_pairs(self, theta: float) -> tuple[np.ndarray, np.ndarray]:
        """Protected pairs (e0, e1), e0 < e1, of ``0 < d(u, v) <= theta`` on the enumerable domain.

        Parameters
        ----------
        theta : float
            The threshold, in attribute units (:attr:`threshold_unit`).

        Returns
        -------
        e0, e1 : (E,) int ndarray
            Indices into :meth:`domain_codes`.

        Raises
        ------
        SchemaError
            If the attribute has no graded distance for a threshold.
        """
        raise SchemaError(f"attribute '{self.name}' has no graded distance for a threshold")

    def threshold_reach(self, theta: float) -> float | None:
        """Unweighted reach of a threshold theta when it has a closed form.

        Parameters
        ----------
        theta : float
            The threshold, in attribute units.

        Returns
        -------
        float or None
            The reach, or None when there is no closed form (then it is the largest term over
            :meth:`threshold_pairs`).
        """
        return None

    def to_dict(self) -> dict[str, Any]:
        """The declaration in the JSON schema format (docs/FORMATS.md).

        Returns
        -------
        dict
            ``name``, ``type``, the domain fields of the type, and ``weight`` / ``unit`` when set.
        """
        d: dict[str, Any] = {"name": self.name, "type": self.kind}
        d.update(self._domain_dict())
        if self.weight is not None:
            d["weight"] = self.weight
        if self.unit:
            d["unit"] = self.unit
        return d

    def _domain_dict(self) -> dict[str, Any]:
        return {"levels": [_plain(v) for v in self.levels]}


def declared_bounds(a: Attribute) -> tuple[float, float]:
    """The declared public bounds of a numeric attribute.

    Parameters
    ----------
    a : Attribute
        A numeric attribute (integer or continuous).

    Returns
    -------
    tuple of float
        ``(lo, hi)`` in the attribute's units.

    Raises
    ------
    SchemaError
        If a bound was never declared.
    """
    lo, hi = a.lo, a.hi
    if lo is None or hi is None:
        raise SchemaError(
            f"attribute '{a.name}': numeric domain needs finite public bounds lo and hi "
            f"(got lo={lo!r}, hi={hi!r}). Fix: declare e.g. \"lo\": 0, \"hi\": 100"
        )
    return lo, hi
