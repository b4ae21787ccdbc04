"""Fuzzing of the parsers (issue 7) with hypothesis.

* blowfish_core.io.data.read_table: random bytes and random CSV-ish text (random
  delimiters, quotes, blanks, NA markers) -> a DataFrame or DataError, nothing else.
* Schema.from_json / Policy.from_json: random JSON values (nested junk and
  near-valid documents) -> a Schema/Policy or SchemaError/PolicyError only.
* Policy.validate against a preset schema -> the policy or PolicyError only; a
  validated policy then has a finite reach in [0, 1].

A few hundred examples in total (FUZZ_EXAMPLES each), derandomized so CI is stable;
set FUZZ_EXAMPLES=5000 (and FUZZ_RANDOM=1) locally for a deeper random search.
"""

from __future__ import annotations

import json
import math
import os

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blowfish_core.io.data import read_table
from blowfish_core.base.errors import DataError, PolicyError, SchemaError
from blowfish_core.model.policy import Policy, record_reach
from blowfish_core.io.presets import get_preset
from blowfish_core.model.schema import Schema

N = int(os.environ.get("FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=N, deadline=None, derandomize=os.environ.get("FUZZ_RANDOM") != "1",
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], database=None)

# ------------------------------------------------------------------ CSV
CELL_ALPHABET = st.sampled_from(list("ab ?1.0-9eE,;|\t\"'\n\r\\xé") + ["NA", "nan", "inf", "", "  "])
cells = st.lists(CELL_ALPHABET, min_size=0, max_size=6).map("".join)


@st.composite
def csvish(draw) -> bytes:
    sep = draw(st.sampled_from([",", ";", "\t", "|", " ", ",,"]))
    quote = draw(st.sampled_from(['', '"', "'"]))
    ncol = draw(st.integers(1, 5))
    nrow = draw(st.integers(0, 6))
    header = [draw(st.sampled_from(["a", "b", "c", " a", "", "a ", "x y", "1"])) for _ in range(ncol)]
    rows = []
    for _ in range(nrow):
        k = draw(st.integers(max(0, ncol - 1), ncol + 1))  # ragged rows too
        rows.append(sep.join(quote + draw(cells) + quote for _ in range(k)))
    eol = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = eol.join([sep.join(header)] + rows) + draw(st.sampled_from(["", eol, eol * 3]))
    enc = draw(st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]))
    return text.encode(enc, errors="replace")


def _check_read(raw: bytes) -> None:
    try:
        df = read_table(raw, name="fuzz.csv")
    except DataError as e:
        assert str(e).startswith("fuzz.csv") or "fuzz.csv" in str(e)
        return
    assert isinstance(df, pd.DataFrame)
    assert df.shape[0] >= 1 and df.shape[1] >= 1
    assert len(set(df.columns)) == df.shape[1]          # no duplicate names get through
    assert all(isinstance(c, str) and c for c in df.columns)


@FUZZ
@given(st.binary(max_size=400))
def test_read_table_random_bytes(raw):
    _check_read(raw)


@FUZZ
@given(csvish())
def test_read_table_csvish_text(raw):
    _check_read(raw)


@FUZZ
@given(csvish())
def test_read_table_from_path_same_outcome(tmp_path_factory, raw):
    p = tmp_path_factory.mktemp("fz") / "f.csv"
    p.write_bytes(raw)
    try:
        a = read_table(raw, name="x")
    except DataError as e:
        a = type(e)
    try:
        b = read_table(str(p), name="x")
    except DataError as e:
        b = type(e)
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    else:
        assert a is b


# ------------------------------------------------------------------ JSON
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=20,
)
ATTR_KEYS = ["name", "type", "kind", "lo", "hi", "integer", "levels", "tree", "weight", "unit"]
KINDS = st.sampled_from(["numeric", "ordinal", "categorical", "hierarchical", "binary", "other", None, 3])


@st.composite
def near_schema(draw):
    attrs = []
    for _ in range(draw(st.integers(0, 3))):
        a = {"name": draw(st.one_of(st.sampled_from(["a", "b", "", "a"]), json_values)), "type": draw(KINDS)}
        for k in draw(st.lists(st.sampled_from(ATTR_KEYS[2:]), max_size=4, unique=True)):
            if k in ("lo", "hi", "weight"):
                a[k] = draw(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5), json_values))
            elif k == "levels":
                a[k] = draw(st.one_of(st.lists(st.one_of(st.integers(0, 3), st.text(max_size=2)), max_size=5),
                                      json_values))
            elif k == "tree":
                a[k] = draw(st.one_of(
                    st.dictionaries(st.text(max_size=3), st.one_of(
                        st.lists(st.text(max_size=2), max_size=3),
                        st.dictionaries(st.text(max_size=2), st.lists(st.text(max_size=2), max_size=2), max_size=2),
                        json_values), max_size=3),
                    json_values))
            else:
                a[k] = draw(json_values)
        attrs.append(a)
    d = {"attributes": attrs}
    if draw(st.booleans()):
        d["data_derived"] = draw(json_values)
    return d


def _dump(v) -> str:
    return json.dumps(v, allow_nan=True)


@FUZZ
@given(st.one_of(json_values, near_schema()))
def test_schema_from_json_only_schema_errors(value):
    try:
        s = Schema.from_json(_dump(value))
    except SchemaError:
        return
    assert isinstance(s, Schema) and s.p >= 1
    # a parsed schema round-trips through its own JSON
    assert Schema.from_json(s.to_json()).to_dict() == s.to_dict()


@FUZZ
@given(st.one_of(st.text(max_size=40), st.binary(max_size=40).map(lambda b: b.decode("latin-1"))))
def test_schema_and_policy_from_json_garbage_text(text):
    for parse, err in ((Schema.from_json, SchemaError), (Policy.from_json, PolicyError)):
        try:
            parse(text)
        except err:
            pass


POLICY_TYPES = st.sampled_from(["none", "threshold", "hierarchy", "block", "complete", "edges", "bogus", None])


@st.composite
def near_policy(draw, names=("age", "workclass", "income", "education.num", "hours.per.week", "nope")):
    attrs = {}
    for name in draw(st.lists(st.sampled_from(names), max_size=4, unique=True)):
        spec = {"type": draw(POLICY_TYPES)}
        if draw(st.booleans()):
            spec["theta"] = draw(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-3, 100),
                                           json_values))
        if draw(st.booleans()):
            vals = st.sampled_from(["Private", "?", "Federal-gov", "Local-gov", "State-gov", "Self-emp-inc",
                                    "Self-emp-not-inc", "Without-pay", "Never-worked", "<=50K", ">50K", 17, 3, "zz"])
            spec["blocks"] = draw(st.one_of(st.lists(st.lists(vals, max_size=4), max_size=4), json_values))
        if draw(st.booleans()):
            spec["edges"] = draw(st.one_of(st.lists(st.lists(st.one_of(st.integers(0, 99), st.text(max_size=3)),
                                                             min_size=0, max_size=3), max_size=3), json_values))
        attrs[name] = draw(st.one_of(st.just(spec), st.sampled_from(["complete", "none", "block", "x"]), json_values))
    d = {"attributes": attrs}
    if draw(st.booleans()):
        d["participation"] = draw(st.one_of(st.booleans(), json_values))
    return d


@FUZZ
@given(st.one_of(json_values, near_policy()))
def test_policy_from_json_only_policy_errors(value):
    try:
        p = Policy.from_json(_dump(value))
    except PolicyError:
        return
    assert isinstance(p, Policy)
    assert Policy.from_json(p.to_json()).to_dict() == p.to_dict()


ADULT = get_preset("adult").schema


@FUZZ
@given(near_policy())
def test_policy_validate_against_adult_schema(value):
    try:
        p = Policy.from_dict(value)
        p.validate(ADULT)
    except PolicyError:
        return
    r = record_reach(ADULT, p)
    assert math.isfinite(r) and 0.0 <= r <= ADULT.gower_diameter + 1e-12
