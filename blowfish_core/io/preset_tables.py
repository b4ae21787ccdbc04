"""The preset tables: Adult, Bank and XOR-k declared (paper Table 3, §6.1, App. F.1; DESIGN §4),
their private/pilot split by row position, and the UCI files' column layouts.

The tables and the split live here, below :mod:`blowfish_core.io.presets` (which loads a preset's rows,
in memory or through the chunked reader), so that the intake and the chunked split can read them without
an import circle.  Every name is re-exported by :mod:`blowfish_core.io.presets`.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from ..base._lazy import pd  # pandas, imported on first use (issue 15)

from ..base.errors import BlowfishError, PolicyError
from ..model.policy import AttributePolicy, Policy, parse_protect_spec
from ..model.schema import Attribute, Schema

#: where the real tables live relative to the repository (never copied into it).
SHARED_DATA = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))

ADULT_WORKCLASS_BLOCKS = [
    ["Private"],
    ["Federal-gov", "Local-gov", "State-gov"],
    ["Self-emp-not-inc", "Self-emp-inc"],
    ["Without-pay", "Never-worked", "?"],
]
ADULT_WORKCLASS_BLOCK_NAMES = ["private", "government", "self-employed", "other"]

BANK_JOB_TREE = {
    "professional/technical": ["management", "technician", "admin."],
    "manual/service": ["blue-collar", "services", "housemaid"],
    "independent": ["self-employed", "entrepreneur"],
    "not in the labor force": ["retired", "student", "unemployed", "unknown"],
}


@dataclass(frozen=True)
class Preset:
    """A built-in dataset setting.

    table3: the paper's graph per attribute (used by ``--protect ATTR`` without SPEC).
    default_protected: attributes protected unless told otherwise.
    metric: 'pwerr' or 'hoerr' (XOR-k: inputs X_1..X_k, label Y).
    """

    name: str
    schema: Schema
    table3: dict[str, AttributePolicy]
    default_protected: list[str]
    metric: str = "pwerr"
    csv_name: str | None = None
    private_fraction: float = 1.0
    pilot_size: int = 3000
    generator: Callable[[int, int], pd.DataFrame] | None = None
    default_n: int = 0
    hoerr_inputs: list[str] = field(default_factory=list)
    hoerr_label: str | None = None
    description: str = ""

    def default_policy(self) -> Policy:
        """The paper's default policy: Table 3 graph on the default protected attributes."""
        return Policy({a: _copy(self.table3[a]) for a in self.default_protected})

    def policy_with(self, protect: list[str] | None = None, base: Policy | None = None) -> Policy:
        """Apply CLI ``--protect ATTR[=SPEC]`` items on top of ``base`` (default policy).

        A bare ATTR takes its Table 3 graph; ATTR=none removes protection.
        Raises PolicyError for unknown attributes or specs.
        """
        pol = base if base is not None else self.default_policy()
        per = dict(pol.per_attribute)
        for item in protect or []:
            name, kind, theta = parse_protect_spec(item)
            if name not in self.schema.names:
                raise PolicyError(f"--protect {item}: unknown attribute '{name}'. Known: {', '.join(self.schema.names)}")
            if kind == "":
                per[name] = _copy(self.table3[name])
            elif kind == "block":
                t3 = self.table3.get(name)
                if t3 is None or t3.kind != "block":
                    raise PolicyError(f"--protect {item}: the preset defines no block partition for '{name}'")
                per[name] = _copy(t3)
            elif kind == "none":
                per.pop(name, None)
            else:
                per[name] = AttributePolicy(kind, theta=theta)
        return Policy(per, participation=pol.participation).validate(self.schema)

    def metric_fn(self):
        """(name, f(schema, X_real, X_syn) -> float) for this preset's error."""
        from ..model.metrics import hoerr, pwerr

        if self.metric == "hoerr":
            return "hoerr", lambda s, a, b: hoerr(s, a, b, self.hoerr_inputs, self.hoerr_label)
        return "pwerr", pwerr


def _copy(ap: AttributePolicy) -> AttributePolicy:
    return AttributePolicy(ap.kind, ap.theta, [list(b) for b in ap.blocks] if ap.blocks else None,
                           [list(e) for e in ap.edges] if ap.edges else None)


def adult() -> Preset:
    """Adult (UCI Census Income): five modeled columns, 80% private split (26,048 rows).

    Returns
    -------
    Preset
        Its schema, Table 3 graphs and split.
    """
    schema = Schema([
        Attribute("age", "numeric", lo=17, hi=90, integer=True, unit="years"),
        Attribute("hours.per.week", "numeric", lo=1, hi=99, integer=True, unit="hours"),
        Attribute("education.num", "ordinal", levels=list(range(1, 17))),
        Attribute("workclass", "categorical", levels=[v for b in ADULT_WORKCLASS_BLOCKS for v in b]),
        Attribute("income", "binary", levels=["<=50K", ">50K"]),
    ])
    t3 = {
        "age": AttributePolicy("threshold", 7),
        "hours.per.week": AttributePolicy("threshold", 8),
        "education.num": AttributePolicy("threshold", 2),
        "workclass": AttributePolicy("block", blocks=[list(b) for b in ADULT_WORKCLASS_BLOCKS]),
        "income": AttributePolicy("complete"),
    }
    return Preset("adult", schema, t3, ["age"], csv_name="adult.csv", private_fraction=0.8,
                  description="UCI Adult: age, hours.per.week, education.num, workclass, income")


def bank() -> Preset:
    """Bank Marketing (UCI bank-full): five modeled columns, 60% private split (27,126 rows).

    Returns
    -------
    Preset
        Its schema, Table 3 graphs and split.
    """
    schema = Schema([
        Attribute("age", "numeric", lo=18, hi=100, integer=True, unit="years"),
        Attribute("balance", "numeric", lo=-10000, hi=110000, integer=True, unit="euros"),
        Attribute("education", "ordinal", levels=["unknown", "primary", "secondary", "tertiary"]),
        Attribute("job", "hierarchical", tree=BANK_JOB_TREE),
        Attribute("y", "binary", levels=["no", "yes"]),
    ])
    t3 = {
        "age": AttributePolicy("threshold", 7),
        "balance": AttributePolicy("threshold", 500),
        "education": AttributePolicy("threshold", 1),
        "job": AttributePolicy("hierarchy"),
        "y": AttributePolicy("complete"),
    }
    return Preset("bank", schema, t3, ["age"], csv_name="bank-full.csv", private_fraction=0.6,
                  description="UCI Bank Marketing: age, balance, education, job, y")


def xor_generate(k: int, n: int, seed: int) -> pd.DataFrame:
    """XOR-k (§6.1): X_i ~ Unif{0..7} independent, Y = XOR_i [X_i >= 4].

    Parameters
    ----------
    k : int
        Number of inputs.
    n : int
        Number of records.
    seed : int
        Seed of the generator (with k).

    Returns
    -------
    pandas DataFrame
        n rows, columns X_1..X_k, Y.
    """
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 7919, int(k)]))
    X = rng.integers(0, 8, size=(n, k))
    y = np.bitwise_xor.reduce((X >= 4).astype(int), axis=1)
    df = pd.DataFrame({f"X_{i + 1}": X[:, i] for i in range(k)})
    df["Y"] = y
    return df


def xor(k: int = 3) -> Preset:
    """XOR-k with n = 12,000 private records; X_1 protected with one ordinal step.

    Parameters
    ----------
    k : int
        Number of inputs, 1 <= k <= 12.

    Returns
    -------
    Preset
        The generated preset ``xor<k>``.

    Raises
    ------
    BlowfishError
        If k is outside [1, 12].
    """
    if k < 1 or k > 12:
        raise BlowfishError(f"XOR-k needs 1 <= k <= 12 (got {k})")
    attrs = [Attribute(f"X_{i + 1}", "ordinal", levels=list(range(8))) for i in range(k)]
    attrs.append(Attribute("Y", "binary", levels=[0, 1]))
    t3 = {f"X_{i + 1}": AttributePolicy("threshold", 1) for i in range(k)}
    t3["Y"] = AttributePolicy("complete")
    return Preset(f"xor{k}", Schema(attrs), t3, ["X_1"], metric="hoerr",
                  generator=lambda n, seed: xor_generate(k, n, seed), default_n=12000,
                  hoerr_inputs=[f"X_{i + 1}" for i in range(k)], hoerr_label="Y",
                  description=f"XOR-{k}: {k} ordinal inputs 0..7 and Y = XOR of [X_i >= 4] (generated)")


PRESET_NAMES = ("adult", "bank", "xor3")


def get_preset(name: str) -> Preset:
    """Preset by name.

    Parameters
    ----------
    name : str
        'adult', 'bank', 'xor3' or 'xorK' (K = 1..12); case and '-' ignored.

    Returns
    -------
    Preset
        A fresh preset.

    Raises
    ------
    BlowfishError
        For an unknown name (or a K outside 1..12).
    """
    key = (name or "").strip().lower().replace("-", "")
    if key == "adult":
        return adult()
    if key == "bank":
        return bank()
    m = re.fullmatch(r"xor(\d*)", key)
    if m:
        return xor(int(m.group(1)) if m.group(1) else 3)
    raise BlowfishError(f"unknown preset {name!r}. Use one of adult, bank, xor3 (or xorK)")


@dataclass(frozen=True)
class DataSplit:
    """Private rows and disjoint held-out public rows (for pilots), both DataFrames."""

    private: pd.DataFrame
    public: pd.DataFrame
    source: str


def split_labels(n: int, private_fraction: float, seed: int = 0, pilot_size: int | None = 3000) -> np.ndarray:
    """The seeded split of ``n`` rows by position: which rows are private, which are pilot rows.

    One seeded permutation of the n row positions: its first floor(private_fraction * n) (at
    least 1) are the private rows, the next ``pilot_size`` the pilot rows.  :func:`split_table`
    and the chunked reader (:func:`blowfish_core.io.chunked_split.read_split`) both split by
    these labels, so they take the same rows of the same table.

    Parameters
    ----------
    n : int
        Rows of the table (>= 1).
    private_fraction : float
        In (0, 1].
    seed : int
        Seed of the split.
    pilot_size : int or None
        At most this many pilot rows (None: all the rest).

    Returns
    -------
    (n,) int8 ndarray
        1 for a private row, 2 for a pilot row, 0 for a row in neither.

    Raises
    ------
    BlowfishError
        If private_fraction is not in (0, 1].
    """
    if not 0 < private_fraction <= 1:
        raise BlowfishError(f"private fraction must be in (0, 1] (got {private_fraction})")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 1013]))
    perm = rng.permutation(int(n))
    # floor, as in the paper's splits: 0.8 x 32,561 -> 26,048 (Adult), 0.6 x 45,211 -> 27,126 (Bank)
    n_priv = max(1, int(math.floor(private_fraction * n + 1e-9)))
    labels = np.zeros(int(n), dtype=np.int8)
    labels[perm[:n_priv]] = 1
    rest = perm[n_priv:]
    labels[rest if pilot_size is None else rest[:pilot_size]] = 2
    return labels


def split_table(df: pd.DataFrame, private_fraction: float, seed: int = 0, pilot_size: int | None = 3000) -> DataSplit:
    """Seeded split: a random ``private_fraction`` of rows is private; the pilot is drawn from the rest.

    The rows are those of :func:`split_labels` (one seeded permutation of the row positions).

    Parameters
    ----------
    df : pandas DataFrame
        The table.
    private_fraction : float
        In (0, 1]; the private rows are floor(private_fraction * n) (at least 1).
    seed : int
        Seed of the split.
    pilot_size : int or None
        At most this many pilot rows (None: all the rest).

    Returns
    -------
    DataSplit
        The private rows and the disjoint pilot rows, each in table order.

    Raises
    ------
    BlowfishError
        If private_fraction is not in (0, 1].
    """
    labels = split_labels(len(df), private_fraction, seed, pilot_size)
    priv = df.iloc[np.flatnonzero(labels == 1)].reset_index(drop=True)
    pub = df.iloc[np.flatnonzero(labels == 2)].reset_index(drop=True)
    return DataSplit(priv, pub, "split")




#: column order of the UCI originals, for reading their headerless/semicolon files
#: (Adult ``adult.data``: 15 columns, no header, ", " separated; Bank ``bank-full.csv``:
#: 17 columns, ";" separated).  Names as in ../shared/data/README.md.
ADULT_UCI_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education.num", "marital.status", "occupation",
    "relationship", "race", "sex", "capital.gain", "capital.loss", "hours.per.week", "native.country", "income",
)
BANK_UCI_COLUMNS = (
    "age", "job", "marital", "education", "default", "balance", "housing", "loan", "contact", "day", "month",
    "duration", "campaign", "pdays", "previous", "poutcome", "y",
)
#: preset name -> the UCI file's column names (intake offers them for a file of that shape).
PRESET_LAYOUTS = {"adult": ADULT_UCI_COLUMNS, "bank": BANK_UCI_COLUMNS}
