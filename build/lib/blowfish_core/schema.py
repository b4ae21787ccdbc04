"""Public schema: attribute types, public domains, Gower weights, encoding.

DESIGN §3 "Schema and public domain"; paper §2.3, §6.1 and App. D (tree metric).

Encoding.  A table is encoded into a float64 matrix ``X`` of shape (n, p), one
column per modeled attribute:

* numeric  -> (x - lo) / (hi - lo), in [0, 1]
* ordinal  -> rank / (L - 1), in [0, 1]   (0 when L == 1)
* categorical, binary, hierarchical -> integer code 0..L-1 (stored as float)

The per-attribute Gower term ``d_i`` (in [0, 1]) is then ``|a - b|`` for numeric and
ordinal columns, ``[a != b]`` for categorical/binary ones and a table lookup of the
normalized tree-path distance for hierarchical ones.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from .errors import SchemaError

KINDS = ("numeric", "ordinal", "categorical", "hierarchical", "binary")
FINITE_KINDS = ("ordinal", "categorical", "hierarchical", "binary")

#: largest integer domain that is treated as finite (enumerable) for calibration.
MAX_FINITE_INTEGER_DOMAIN = 100_000


def _fmt(v: Any) -> str:
    """Canonical string of a domain value, used to match CSV cells to levels."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


@dataclass
class Attribute:
    """One modeled attribute with its public domain.

    name: column name in the user's table.
    kind: one of ``numeric``, ``ordinal``, ``categorical``, ``hierarchical``, ``binary``.
    lo, hi: public bounds (numeric only), in the attribute's own units, lo < hi.
    integer: numeric values are whole numbers (mutation rounds, output keeps ints).
    levels: the values of a finite attribute; for ordinal in increasing order;
        for hierarchical the leaves (taken from ``tree`` when omitted).
    tree: hierarchical only: nested mapping group -> (subgroups or list of leaves).
    weight: Gower weight w_i (None -> 1/p over the modeled columns).
    unit: display unit of a numeric attribute (e.g. 'years'); thresholds are in it.
    """

    name: str
    kind: str
    lo: float | None = None
    hi: float | None = None
    integer: bool = False
    levels: list[Any] | None = None
    tree: dict[str, Any] | None = None
    weight: float | None = None
    unit: str | None = None
    # derived (filled by validate())
    _tree_dist: np.ndarray | None = field(default=None, repr=False, compare=False)
    _level_index: dict[str, int] | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ checks
    def validate(self) -> "Attribute":
        """Check the declaration and build lookup tables.

        Raises SchemaError naming the attribute and the field to fix.
        """
        n = self.name
        if not isinstance(n, str) or not n:
            raise SchemaError("attribute name must be a non-empty string")
        if self.kind not in KINDS:
            raise SchemaError(
                f"attribute '{n}': unknown type '{self.kind}'. Fix: use one of {', '.join(KINDS)}"
            )
        if self.weight is not None:
            w = self.weight
            if not isinstance(w, (int, float)) or isinstance(w, bool) or not math.isfinite(w) or w <= 0:
                raise SchemaError(f"attribute '{n}': weight must be a finite number > 0 (got {w!r})")
        if self.kind == "numeric":
            for key in ("lo", "hi"):
                v = getattr(self, key)
                if v is None or isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(float(v)):
                    raise SchemaError(
                        f"attribute '{n}': numeric domain needs finite public bounds lo and hi "
                        f"(got {key}={v!r}). Fix: declare e.g. \"lo\": 0, \"hi\": 100"
                    )
            self.lo, self.hi = float(self.lo), float(self.hi)
            if not self.lo < self.hi:
                raise SchemaError(
                    f"attribute '{n}': public bounds must satisfy lo < hi (got lo={self.lo}, hi={self.hi})"
                )
            if self.integer and (not float(self.lo).is_integer() or not float(self.hi).is_integer()):
                raise SchemaError(f"attribute '{n}': integer attribute needs whole-number bounds")
            return self
        if self.kind == "hierarchical":
            if not self.tree:
                raise SchemaError(f"attribute '{n}': hierarchical type needs a 'tree' of groups")
            leaves, dist = _tree_metric(self.tree, n)
            if self.levels is None:
                self.levels = leaves
            elif sorted(map(_fmt, self.levels)) != sorted(map(_fmt, leaves)):
                raise SchemaError(f"attribute '{n}': 'levels' and the leaves of 'tree' differ")
            order = [leaves.index(_fmt(v)) if _fmt(v) in leaves else None for v in self.levels]
            self._tree_dist = dist[np.ix_(order, order)]
        if not self.levels:
            raise SchemaError(f"attribute '{n}': a {self.kind} attribute needs a non-empty list of levels")
        keys = [_fmt(v) for v in self.levels]
        if len(set(keys)) != len(keys):
            dup = sorted({k for k in keys if keys.count(k) > 1})
            raise SchemaError(f"attribute '{n}': duplicate levels {dup}")
        if self.kind == "binary" and len(keys) != 2:
            raise SchemaError(f"attribute '{n}': binary needs exactly 2 levels (got {len(keys)})")
        self._level_index = {k: i for i, k in enumerate(keys)}
        return self

    # ---------------------------------------------------------------- helpers
    @property
    def is_finite(self) -> bool:
        """True when the public domain can be enumerated (calibration searches)."""
        if self.kind in FINITE_KINDS:
            return True
        return bool(self.integer and (self.hi - self.lo) + 1 <= MAX_FINITE_INTEGER_DOMAIN)

    @property
    def size(self) -> int | None:
        """Number of domain values (None for a continuous numeric attribute)."""
        if self.kind in FINITE_KINDS:
            return len(self.levels)
        if self.integer:
            return int(self.hi - self.lo) + 1
        return None

    @property
    def width(self) -> float:
        """Normalizer of the Gower term in the attribute's own units.

        numeric: hi - lo; ordinal: L - 1 levels; hierarchical: tree diameter (steps);
        categorical/binary: 1.
        """
        if self.kind == "numeric":
            return self.hi - self.lo
        if self.kind == "ordinal":
            return max(len(self.levels) - 1, 1)
        if self.kind == "hierarchical":
            return float(self.tree_diameter)
        return 1.0

    @property
    def tree_diameter(self) -> int:
        """Tree-path diameter in edges (App. D); hierarchical only."""
        _, raw = _tree_metric(self.tree, self.name, normalized=False)
        return int(raw.max()) if raw.size else 0

    def domain_codes(self) -> np.ndarray:
        """Encoded coordinates of every domain value (finite attributes), float64 (L,)."""
        size = self.size
        if size is None:
            raise SchemaError(f"attribute '{self.name}' is continuous; its domain cannot be enumerated")
        if self.kind == "numeric":
            vals = np.arange(self.lo, self.hi + 1.0)
            return (vals - self.lo) / (self.hi - self.lo)
        if self.kind == "ordinal":
            return np.arange(size, dtype=float) / max(size - 1, 1)
        return np.arange(size, dtype=float)

    def domain_values(self) -> list[Any]:
        """The domain values in the attribute's own units/labels (finite attributes)."""
        if self.kind == "numeric":
            return [int(v) for v in np.arange(self.lo, self.hi + 1.0)]
        return list(self.levels)

    def term(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per-attribute Gower term d_i(a, b) in [0, 1] for encoded arrays (broadcasting)."""
        if self.kind in ("numeric", "ordinal"):
            return np.abs(a - b)
        if self.kind == "hierarchical":
            return self._tree_dist[np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp)]
        return (a != b).astype(float)

    def encode_value(self, v: Any) -> float:
        """Encode one value in the attribute's units/labels; SchemaError if outside the domain."""
        return float(self.encode_series(pd.Series([v]))[0])

    def encode_series(self, s: pd.Series) -> np.ndarray:
        """Encode a column; never clips or coerces silently.

        Returns float64 (n,). Raises SchemaError naming the column, how many rows are
        bad and an example, for missing values, non-numbers and values outside the
        declared public domain.
        """
        n = self.name
        if self.kind == "numeric":
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
        idx = codes.to_numpy(dtype=float)
        if self.kind == "ordinal":
            return idx / max(len(self.levels) - 1, 1)
        return idx

    def decode(self, col: np.ndarray) -> pd.Series:
        """Inverse of encode: values in the original units/labels (ints stay ints)."""
        if self.kind == "numeric":
            x = self.lo + np.asarray(col, dtype=float) * (self.hi - self.lo)
            if self.integer:
                return pd.Series(np.rint(x).astype(np.int64), name=self.name)
            return pd.Series(x, name=self.name)
        if self.kind == "ordinal":
            idx = np.rint(np.asarray(col) * max(len(self.levels) - 1, 1)).astype(int)
        else:
            idx = np.asarray(col).astype(int)
        lv = np.array(self.levels, dtype=object)
        vals = lv[idx]
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in self.levels):
            return pd.Series(vals.astype(np.int64), name=self.name)
        return pd.Series(vals, name=self.name)

    def label(self, v: float) -> str:
        """Human label of one encoded value."""
        return _fmt(self.decode(np.array([v])).iloc[0])

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "type": self.kind}
        if self.kind == "numeric":
            d.update(lo=_num(self.lo), hi=_num(self.hi), integer=bool(self.integer))
        elif self.kind == "hierarchical":
            d["tree"] = self.tree
        else:
            d["levels"] = [_plain(v) for v in self.levels]
        if self.weight is not None:
            d["weight"] = self.weight
        if self.unit:
            d["unit"] = self.unit
        return d

    @property
    def threshold_unit(self) -> str:
        """Unit of a threshold on this attribute: the numeric unit, 'levels' or 'tree steps'."""
        if self.kind == "numeric":
            return self.unit or "units"
        return {"ordinal": "levels", "hierarchical": "tree steps"}.get(self.kind, "")


def _num(v: float) -> float | int:
    return int(v) if float(v).is_integer() else float(v)


def _plain(v: Any) -> Any:
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


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
    depth = nx.single_source_shortest_path_length(g, root)
    dist = np.zeros((len(leaves), len(leaves)))
    keys = [("leaf", lf) for lf in leaves]
    for i, u in enumerate(keys):
        lengths = nx.single_source_shortest_path_length(g, u)
        for j, v in enumerate(keys):
            dist[i, j] = lengths[v]
    del depth
    if normalized and dist.max() > 0:
        dist = dist / dist.max()
    return leaves, dist


@dataclass
class Schema:
    """Ordered list of modeled attributes with their public domain.

    data_derived: True when any bound or category list was read off the data
    (DESIGN §3): a disclosure in itself, repeated in every report.
    data_derived_columns: which columns' domains were read off the data.
    """

    attributes: list[Attribute]
    data_derived: bool = False
    data_derived_columns: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
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
        """Raise SchemaError if a modeled column is absent or duplicated in ``df``."""
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
        """Encode the modeled columns of ``df``: float64 (n, p). Raises SchemaError."""
        self.check_columns(df)
        if len(df) == 0:
            raise SchemaError("the table has no rows. Fix: provide at least one record")
        return np.column_stack([a.encode_series(df[a.name]) for a in self.attributes]).astype(float)

    def decode(self, X: np.ndarray) -> pd.DataFrame:
        """Encoded (n, p) matrix -> DataFrame with the original column names and formats."""
        return pd.DataFrame({a.name: a.decode(X[:, i]).to_numpy() for i, a in enumerate(self.attributes)})

    def sample_uniform(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Draw ``size`` records uniformly from the public domain: float64 (size, p)."""
        cols = []
        for a in self.attributes:
            if a.kind == "numeric":
                if a.integer:
                    v = rng.integers(int(a.lo), int(a.hi) + 1, size=size).astype(float)
                else:
                    v = rng.uniform(a.lo, a.hi, size=size)
                cols.append((v - a.lo) / (a.hi - a.lo))
            else:
                L = len(a.levels)
                idx = rng.integers(0, L, size=size).astype(float)
                cols.append(idx / max(L - 1, 1) if a.kind == "ordinal" else idx)
        return np.column_stack(cols)

    # ------------------------------------------------------------------- json
    def to_dict(self) -> dict[str, Any]:
        return {
            "attributes": [a.to_dict() for a in self.attributes],
            "data_derived": bool(self.data_derived),
            "data_derived_columns": list(self.data_derived_columns),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, d: Any) -> "Schema":
        """Build from the JSON schema format (see docs/FORMATS.md). Raises SchemaError."""
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
            attrs.append(
                Attribute(
                    name=a.get("name"), kind=kind, lo=a.get("lo"), hi=a.get("hi"), integer=integer,
                    levels=levels, tree=tree, weight=a.get("weight"), unit=a.get("unit"),
                )
            )
        dd = d.get("data_derived", False)
        cols = d.get("data_derived_columns", [])
        if not isinstance(dd, bool) or not isinstance(cols, list):
            raise SchemaError("schema: 'data_derived' must be true/false and 'data_derived_columns' a list")
        return cls(attrs, data_derived=dd, data_derived_columns=[str(c) for c in cols])

    @classmethod
    def from_json(cls, text: str) -> "Schema":
        try:
            d = json.loads(text)
        except (json.JSONDecodeError, TypeError, RecursionError) as e:
            raise SchemaError(f"schema file is not valid JSON: {e}") from None
        return cls.from_dict(d)

    def domain_warning(self) -> str | None:
        """The data-derived-domain warning, or None when the domain is declared."""
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


def infer_schema(
    df: pd.DataFrame,
    columns: Sequence[str] | None = None,
    max_categories: int = 50,
) -> Schema:
    """Infer a schema from a table; the result is flagged data-derived (DESIGN §3).

    Numeric columns -> numeric [min, max] (integer when all values are whole);
    two distinct values -> binary; other columns -> categorical with their sorted
    distinct values. Raises SchemaError for empty tables, all-missing columns,
    categorical columns with more than ``max_categories`` values, and text columns
    in which at least half (MOSTLY_NUMERIC) of the non-missing values parse as
    numbers but some do not (e.g. 30, thirty, 32: a typo, never silently
    categorical); every error names the column.
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
            parsed = pd.to_numeric(nonnull.astype(str).str.strip(), errors="coerce")
            n_num = int(parsed.notna().sum())
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
            kind = "binary" if len(vals) == 2 else "categorical"
            attrs.append(Attribute(c, kind, levels=vals))
    return Schema(attrs, data_derived=True, data_derived_columns=list(cols))


def iter_chunks(n: int, chunk: int) -> Iterable[slice]:
    """Row slices of at most ``chunk`` rows covering range(n)."""
    for start in range(0, n, max(int(chunk), 1)):
        yield slice(start, min(start + chunk, n))
