"""The frozen public schema: an ordered tuple of attributes, Gower weights, encoding, JSON.

DESIGN §3 "Schema and public domain"; paper §2.3, §6.1.  The attribute types (encoding,
Gower term, bins, mutation, sampling) live in :mod:`blowfish_core.model.domain`; they are
re-exported here.  A table is encoded into a float64 matrix ``X`` of shape (n, p), one
column per modeled attribute, each coded by its attribute (``Attribute.encode_series``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from .domain import (  # noqa: F401  (re-exported)
    ATTRIBUTE_TYPES, FINITE_KINDS, KINDS, MAX_FINITE_INTEGER_DOMAIN, Attribute, BinaryAttribute,
    CategoricalAttribute, FrozenList, HierarchicalAttribute, NumericAttribute, OrdinalAttribute, _fmt, _num,
    _plain, _tree_metric,
)
from ..base.errors import SchemaError
from .orderings import known_order


@dataclass(frozen=True)
class Schema:
    """Ordered list of modeled attributes with their public domain.

    data_derived: True when any bound or category list was read off the data
    (DESIGN §3): a disclosure in itself, repeated in every report.
    data_derived_columns: which columns' domains were read off the data.
    """

    attributes: Sequence[Attribute]
    data_derived: bool = False
    data_derived_columns: Sequence[str] = field(default_factory=FrozenList)

    def __post_init__(self) -> None:
        if isinstance(self.attributes, (list, tuple)):
            object.__setattr__(self, "attributes", FrozenList(self.attributes))
        if isinstance(self.data_derived_columns, (list, tuple)):
            object.__setattr__(self, "data_derived_columns", FrozenList(self.data_derived_columns))
        if not self.attributes:
            raise SchemaError("the schema has no modeled attributes. Fix: model at least one column")
        for i, a in enumerate(self.attributes):
            if not isinstance(a, Attribute):
                raise SchemaError(f"schema attribute #{i + 1} must be an Attribute (got {type(a).__name__})")
            if not isinstance(a.name, str) or not a.name:
                raise SchemaError(f"schema attribute #{i + 1}: 'name' must be a non-empty string (got {a.name!r})")
        names = [a.name for a in self.attributes]
        if len(set(names)) != len(names):
            dup = sorted({x for x in names if names.count(x) > 1})
            raise SchemaError(f"schema: duplicate attribute names {dup}")
        for a in self.attributes:
            a.validate()

    # -------------------------------------------------------------- accessors
    @property
    def names(self) -> list[str]:
        return [a.name for a in self.attributes]

    @property
    def p(self) -> int:
        return len(self.attributes)

    def __getitem__(self, name: str) -> Attribute:
        for a in self.attributes:
            if a.name == name:
                return a
        raise SchemaError(f"unknown attribute '{name}'. Known: {', '.join(self.names)}")

    def index(self, name: str) -> int:
        """The position of attribute ``name`` in schema order.

        Parameters
        ----------
        name : str
            An attribute name.

        Returns
        -------
        int
            Its column in the encoded matrix ``X``.

        Raises
        ------
        SchemaError
            For an unknown attribute (naming the known ones).
        """
        try:
            return self.names.index(name)
        except ValueError:
            raise SchemaError(f"unknown attribute '{name}'. Known: {', '.join(self.names)}") from None

    @property
    def weights(self) -> np.ndarray:
        """Gower weights w_i, float64 (p,); default 1/p (paper §6.1)."""
        return np.array([a.weight if a.weight is not None else 1.0 / self.p for a in self.attributes])

    @property
    def gower_diameter(self) -> float:
        """Largest possible Gower distance sum_i w_i (1 with default weights)."""
        return float(self.weights.sum())

    # -------------------------------------------------------------- encoding
    def check_columns(self, df: pd.DataFrame) -> None:
        """Check that every modeled column is in ``df`` once.

        Parameters
        ----------
        df : pandas DataFrame
            The table.

        Raises
        ------
        SchemaError
            If a modeled column is absent or duplicated in ``df``.
        """
        cols = [str(c) for c in df.columns]
        dups = sorted({c for c in cols if cols.count(c) > 1})
        if dups:
            raise SchemaError(f"the table has duplicate column names {dups}. Fix: rename them")
        missing = [n for n in self.names if n not in cols]
        if missing:
            raise SchemaError(
                f"column(s) {missing} of the schema are absent from the table "
                f"(table columns: {cols[:12]}{'...' if len(cols) > 12 else ''}). Fix: rename or drop them from the schema"
            )

    def encode(self, df: pd.DataFrame) -> np.ndarray:
        """Encode the modeled columns of ``df``.

        Parameters
        ----------
        df : pandas DataFrame
            The table, n rows; it holds every modeled column.

        Returns
        -------
        (n, p) float64 ndarray
            One column per modeled attribute, in schema order.

        Raises
        ------
        SchemaError
            If a modeled column is absent or duplicated, the table has no rows, or a value is
            missing or outside the declared public domain (``Attribute.encode_series``).
        """
        self.check_columns(df)
        if len(df) == 0:
            raise SchemaError("the table has no rows. Fix: provide at least one record")
        return np.column_stack([a.encode_series(df[a.name]) for a in self.attributes]).astype(float)

    def decode(self, X: np.ndarray) -> pd.DataFrame:
        """Inverse of :meth:`encode`.

        Parameters
        ----------
        X : (n, p) float64 ndarray
            Encoded records.

        Returns
        -------
        pandas DataFrame
            n rows with the original column names and formats.
        """
        return pd.DataFrame({a.name: a.decode(X[:, i]).to_numpy() for i, a in enumerate(self.attributes)})

    def sample_uniform(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Draw ``size`` records uniformly from the public domain.

        One draw of ``size`` values per attribute, in schema order (Attribute.sample).

        Parameters
        ----------
        rng : numpy.random.Generator
            The random stream.
        size : int
            Number of records.

        Returns
        -------
        (size, p) float64 ndarray
            Encoded records.
        """
        return np.column_stack([a.sample(rng, size) for a in self.attributes])

    # ------------------------------------------------------------------- json
    def to_dict(self) -> dict[str, Any]:
        """The schema in the JSON schema format (docs/FORMATS.md).

        Returns
        -------
        dict
            ``attributes``, ``data_derived`` and ``data_derived_columns``.
        """
        return {
            "attributes": [a.to_dict() for a in self.attributes],
            "data_derived": bool(self.data_derived),
            "data_derived_columns": list(self.data_derived_columns),
        }

    def to_json(self) -> str:
        """The schema as JSON text (:meth:`to_dict`, indented).

        Returns
        -------
        str
            The JSON text.
        """
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, d: Any) -> "Schema":
        """Build from the JSON schema format (see docs/FORMATS.md).

        Parameters
        ----------
        d : Any
            The parsed JSON: an object with a list "attributes".

        Returns
        -------
        Schema
            The validated schema.

        Raises
        ------
        SchemaError
            For a malformed document (not an object, unknown keys or fields, fields of the wrong
            type, 'data_derived' false while 'data_derived_columns' lists columns) or an invalid
            declaration.
        """
        if not isinstance(d, dict) or not isinstance(d.get("attributes"), list):
            raise SchemaError('schema JSON must be an object with a list "attributes"')
        unknown_top = set(d) - {"attributes", "data_derived", "data_derived_columns"}
        if unknown_top:
            raise SchemaError(f"schema JSON: unknown top-level key(s) {sorted(unknown_top)}; "
                              "allowed: attributes, data_derived, data_derived_columns")
        attrs = []
        for i, a in enumerate(d["attributes"]):
            if not isinstance(a, dict):
                raise SchemaError(f"schema attribute #{i + 1} must be an object")
            unknown = set(a) - {"name", "type", "kind", "lo", "hi", "integer", "levels", "tree", "weight", "unit"}
            if unknown:
                raise SchemaError(f"schema attribute #{i + 1}: unknown field(s) {sorted(unknown)}")
            kind = a.get("type", a.get("kind"))
            integer = a.get("integer", False)
            if not isinstance(integer, bool):
                raise SchemaError(f"schema attribute '{a.get('name')}': 'integer' must be true or false")
            levels = a.get("levels")
            if levels is not None and not isinstance(levels, list):
                raise SchemaError(f"schema attribute '{a.get('name')}': 'levels' must be a list")
            tree = a.get("tree")
            if tree is not None and not isinstance(tree, dict):
                raise SchemaError(f"schema attribute '{a.get('name')}': 'tree' must be an object")
            name = a.get("name")
            if not isinstance(name, str) or not name:  # the check Schema() makes, made before Attribute(name=...)
                raise SchemaError(f"schema attribute #{i + 1}: 'name' must be a non-empty string (got {name!r})")
            attrs.append(
                Attribute(
                    name=name, kind=kind, lo=a.get("lo"), hi=a.get("hi"), integer=integer,
                    levels=levels, tree=tree, weight=a.get("weight"), unit=a.get("unit"),
                )
            )
        dd = d.get("data_derived", False)
        cols = d.get("data_derived_columns", [])
        if not isinstance(dd, bool) or not isinstance(cols, list):
            raise SchemaError("schema: 'data_derived' must be true/false and 'data_derived_columns' a list")
        if cols and not dd:  # a contradiction the release gate must not guess about (issue 21)
            raise SchemaError(f"schema: 'data_derived' is false but 'data_derived_columns' still lists "
                              f"{', '.join(map(str, cols))}. Fix: remove each column whose bounds or levels you "
                              "have replaced by public ones from 'data_derived_columns', and set 'data_derived' to "
                              "false only when the list is empty")
        return cls(attrs, data_derived=dd, data_derived_columns=[str(c) for c in cols])

    @classmethod
    def from_json(cls, text: str) -> "Schema":
        """Build from JSON text in the schema format (:meth:`from_dict`).

        Parameters
        ----------
        text : str
            The JSON text.

        Returns
        -------
        Schema
            The validated schema.

        Raises
        ------
        SchemaError
            If ``text`` is not valid JSON, or as :meth:`from_dict`.
        """
        try:
            d = json.loads(text)
        except (json.JSONDecodeError, TypeError, RecursionError) as e:
            raise SchemaError(f"schema file is not valid JSON: {e}") from None
        return cls.from_dict(d)

    def domain_warning(self) -> str | None:
        """The data-derived-domain warning.

        Returns
        -------
        str or None
            The warning naming the data-derived columns, or None when the domain is declared.
        """
        if not self.data_derived:
            return None
        return (
            "DATA-DERIVED DOMAIN: the bounds/categories of "
            f"{', '.join(self.data_derived_columns) or 'some columns'} were read off the private table. "
            "They disclose information outside the privacy guarantee (e.g. the exact minimum and maximum). "
            "Declare public bounds to remove this caveat."
        )


#: infer_schema: a text column whose non-missing values are at least this share numbers
#: is taken to be a numeric column with typos (SchemaError), not a categorical one.
MOSTLY_NUMERIC = 0.5
#: leading / trailing ASCII and Unicode spaces (\s covers U+00A0, U+2000-U+200A, U+202F, ...) and zero-width ones.
_EDGE_SPACES = r"^[\s\u200b\u2060\ufeff]+|[\s\u200b\u2060\ufeff]+$"


def infer_schema(
    df: pd.DataFrame,
    columns: Sequence[str] | None = None,
    max_categories: int = 50,
) -> Schema:
    """Infer a schema from a table; the result is flagged data-derived (DESIGN §3).

    Numeric columns -> numeric [min, max] (integer when all values are whole);
    two distinct values -> binary; month or weekday names (at least 3; the one table
    :data:`blowfish_core.model.orderings.KNOWN_ORDERINGS`) -> ordinal in calendar / week order;
    other columns -> categorical with their sorted distinct values.

    Parameters
    ----------
    df : pandas DataFrame
        The table.
    columns : sequence of str or None
        The columns to model; None for every column of ``df``.
    max_categories : int
        Largest number of distinct values of a categorical column.

    Returns
    -------
    Schema
        With ``data_derived`` True and every modeled column in ``data_derived_columns``.

    Raises
    ------
    SchemaError
        For empty tables, all-missing columns, categorical columns with more than
        ``max_categories`` values, and text columns in which at least half (MOSTLY_NUMERIC) of
        the non-missing values parse as numbers but some do not (e.g. 30, thirty, 32: a typo,
        never silently categorical); every error names the column.
    """
    if df.shape[1] == 0 or len(df) == 0:
        raise SchemaError("cannot infer a schema from an empty table")
    cols = list(columns) if columns is not None else [str(c) for c in df.columns]
    attrs: list[Attribute] = []
    for c in cols:
        if c not in df.columns:
            raise SchemaError(f"column '{c}' is not in the table")
        s = df[c]
        if isinstance(s, pd.DataFrame):
            raise SchemaError(f"the table has duplicate column names ['{c}']. Fix: rename them")
        if s.isna().all():
            raise SchemaError(f"column '{c}' is entirely missing. Fix: drop it from the modeled columns")
        nonnull = s.dropna()
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            x = nonnull.to_numpy(dtype=float)
            if not np.isfinite(x).all():
                raise SchemaError(
                    f"column '{c}' contains {int((~np.isfinite(x)).sum())} infinite value(s) (inf or -inf). "
                    "Fix: drop or replace them before inferring a schema"
                )
            distinct = np.unique(x)
            if len(distinct) == 2 and set(distinct.tolist()) <= {0.0, 1.0}:
                attrs.append(Attribute(c, "binary", levels=[int(v) for v in distinct]))
                continue
            lo, hi = float(x.min()), float(x.max())
            integer = bool(np.all(np.mod(x, 1) == 0))
            if lo == hi:
                hi = lo + 1.0
            attrs.append(Attribute(c, "numeric", lo=lo, hi=hi, integer=integer))
        else:
            # Unicode spaces (no-break, narrow no-break, thin, zero-width) are trimmed like ASCII ones
            parsed = pd.to_numeric(nonnull.astype(str).str.replace(_EDGE_SPACES, "", regex=True), errors="coerce")
            n_num = int(parsed.notna().sum())
            if n_num == len(nonnull) and n_num > 0:  # numbers written as padded text: a numeric column
                x = parsed.to_numpy(dtype=float)
                if np.isfinite(x).all():
                    lo, hi = float(x.min()), float(x.max())
                    attrs.append(Attribute(c, "numeric", lo=lo, hi=hi if hi > lo else lo + 1.0,
                                           integer=bool(np.all(np.mod(x, 1) == 0))))
                    continue
            if n_num > 0 and n_num >= MOSTLY_NUMERIC * len(nonnull):
                bad = nonnull[parsed.isna()]
                ex = list(dict.fromkeys(str(v) for v in bad.tolist()))[:3]
                raise SchemaError(
                    f"column '{c}' is mostly numbers but {len(bad)} value(s) are not (e.g. {ex}). "
                    "Fix: fix the values, or declare the column categorical in the schema"
                )
            vals = sorted({_fmt(v) for v in nonnull.tolist()})
            if len(vals) > max_categories:
                raise SchemaError(
                    f"column '{c}' has {len(vals)} distinct values (> {max_categories}); "
                    "treat it as numeric, declare its categories, or leave it out of the model"
                )
            if (known := known_order(vals)) is not None:  # month / weekday names: their natural order
                attrs.append(Attribute(c, "ordinal", levels=list(known.levels)))
                continue
            kind = "binary" if len(vals) == 2 else "categorical"
            attrs.append(Attribute(c, kind, levels=vals))
    return Schema(attrs, data_derived=True, data_derived_columns=list(cols))


def iter_chunks(n: int, chunk: int) -> Iterable[slice]:
    """Row slices of at most ``chunk`` rows covering range(n).

    Parameters
    ----------
    n : int
        Number of rows.
    chunk : int
        Rows per slice (at least 1 is used).

    Yields
    ------
    slice
        The next slice of rows.
    """
    for start in range(0, n, max(int(chunk), 1)):
        yield slice(start, min(start + chunk, n))
