"""Schema (public domain, encoding, Gower distance) and policy graphs (DESIGN §3; paper §2.3, Def. 2.3,
Def. 2.7, Cor. 5.2, App. C, App. D)."""

from __future__ import annotations

import dataclasses

import math

import numpy as np
import pandas as pd
import pytest

from blowfish_core import get_preset
from blowfish_core.model import gower_tables  # iter_blocks reads chunk_rows there
from blowfish_core.model.distance import GowerKernel, gower_distances, gower_pair, group_records
from blowfish_core.base.errors import PolicyError, SchemaError
from blowfish_core.model.policy import (
    AttributePolicy,
    Policy,
    attribute_reach,
    components,
    group_privacy,
    parse_protect_spec,
    path_length,
    record_edge_count,
    record_reach,
    value_edges,
    weighted_reaches,
)
from blowfish_core.synthesis.report import policy_summary
from blowfish_core.model.schema import Attribute, Schema, infer_schema
from blowfish_core.model.sensitivity import SQRT2, soft_bound
from blowfish_core.algorithm.methods import calibrate


def mixed_schema() -> Schema:
    return Schema([
        Attribute("age", "numeric", lo=17, hi=90, integer=True, unit="years"),
        Attribute("score", "numeric", lo=-1.0, hi=3.0),
        Attribute("edu", "ordinal", levels=["low", "mid", "high"]),
        Attribute("color", "categorical", levels=["red", "green", "blue"]),
        Attribute("job", "hierarchical", tree=get_preset("bank").schema["job"].tree),
        Attribute("y", "binary", levels=[0, 1]),
    ])


def mixed_table() -> pd.DataFrame:
    return pd.DataFrame({
        "age": [17, 90, 40],
        "score": [-1.0, 3.0, 0.5],
        "edu": ["low", "high", "mid"],
        "color": ["blue", "red", "green"],
        "job": ["management", "unknown", "student"],
        "y": [0, 1, 1],
    })


# ------------------------------------------------------------------ encoding


def test_encoding_per_type():
    s = mixed_schema()
    X = s.encode(mixed_table())
    np.testing.assert_allclose(X[:, 0], [0.0, 1.0, 23 / 73])  # (x - lo) / (hi - lo)
    np.testing.assert_allclose(X[:, 1], [0.0, 1.0, 1.5 / 4])
    np.testing.assert_allclose(X[:, 2], [0.0, 1.0, 0.5])  # rank / (L - 1)
    np.testing.assert_array_equal(X[:, 3], [2, 0, 1])  # integer codes
    leaves = s["job"].levels
    np.testing.assert_array_equal(X[:, 4], [leaves.index("management"), leaves.index("unknown"), leaves.index("student")])
    np.testing.assert_array_equal(X[:, 5], [0, 1, 1])


def test_decode_roundtrip_keeps_values_and_integer_dtype():
    s = mixed_schema()
    df = mixed_table()
    back = s.decode(s.encode(df))
    assert list(back.columns) == list(df.columns)
    assert back["age"].dtype == np.int64 and back["y"].dtype == np.int64
    pd.testing.assert_frame_equal(back.astype(object), df.astype(object), check_dtype=False)


def test_out_of_domain_names_column_and_count_and_never_clips():
    s = mixed_schema()
    df = mixed_table()
    df.loc[:, "age"] = [16, 91, 40]
    with pytest.raises(SchemaError, match=r"column 'age': 2 row\(s\) lie outside the declared public domain \[17, 90\]"):
        s.encode(df)
    assert df["age"].tolist() == [16, 91, 40]  # the user's data is not modified


@pytest.mark.parametrize("col, bad, pattern", [
    ("color", "purple", r"column 'color': 1 row\(s\) have categories outside.*purple"),
    ("edu", "phd", r"column 'edu': 1 row\(s\) have categories outside.*phd"),
    ("job", "astronaut", r"column 'job': 1 row\(s\).*astronaut"),
    ("score", "abc", r"column 'score': 1 row\(s\) are not numbers"),
    ("age", 40.5, r"column 'age': 1 row\(s\) are not whole numbers"),
    ("score", None, r"column 'score': 1 row\(s\) are missing"),
    ("color", None, r"column 'color': 1 row\(s\) are missing"),
])
def test_bad_cells_raise_schema_error_naming_the_column(col, bad, pattern):
    df = mixed_table().astype(object)
    df.loc[2, col] = bad
    with pytest.raises(SchemaError, match=pattern):
        mixed_schema().encode(df)


def test_absent_column():
    with pytest.raises(SchemaError, match=r"column\(s\) \['color'\] of the schema are absent"):
        mixed_schema().encode(mixed_table().drop(columns=["color"]))


@pytest.mark.parametrize("attr, pattern", [
    (Attribute("x", "numeric", lo=5, hi=5), "lo < hi"),
    (Attribute("x", "numeric", lo=0, hi=None), "finite public bounds"),
    (Attribute("x", "numeric", lo=0, hi=float("inf")), "finite public bounds"),
    (Attribute("x", "numeric", lo=-1e308, hi=1e308),
     r"attribute 'x': the width hi - lo of the public bounds exceeds the float range "
     r"\(got lo=-1e\+308, hi=1e\+308\)\. Fix: declare bounds whose difference is a finite number"),
    (Attribute("x", "numeric", lo=0.5, hi=3, integer=True), "whole-number bounds"),
    (Attribute("x", "binary", levels=["a", "b", "c"]), "exactly 2 levels"),
    (Attribute("x", "categorical", levels=["a", "a"]), "duplicate levels"),
    (Attribute("x", "categorical", levels=[]), "non-empty list of levels"),
    (Attribute("x", "hierarchical"), "needs a 'tree'"),
    (Attribute("x", "hierarchical", tree={"g": ["a"], "h": ["a"]}), "appears twice"),
    (Attribute("x", "numeric", lo=0, hi=1, weight=0), "weight"),
    (Attribute("x", "nominal", levels=["a"]), "unknown type 'nominal'"),
])
def test_bad_declarations(attr, pattern):
    with pytest.raises(SchemaError, match=pattern):
        Schema([attr])


def test_schema_json_roundtrip_and_errors():
    s = mixed_schema()
    s2 = Schema.from_json(s.to_json())
    assert s2.to_dict() == s.to_dict()
    np.testing.assert_array_equal(s2.encode(mixed_table()), s.encode(mixed_table()))
    with pytest.raises(SchemaError, match="not valid JSON"):
        Schema.from_json("{nope")
    with pytest.raises(SchemaError, match="unknown field"):
        Schema.from_dict({"attributes": [{"name": "a", "type": "numeric", "lo": 0, "hi": 1, "bounds": 3}]})
    with pytest.raises(SchemaError, match="list \"attributes\""):
        Schema.from_dict({"attrs": []})


# ------------------------------------------------------------------ tree metric (App. D)


def test_bank_job_tree_distances():
    job = get_preset("bank").schema["job"]
    t = lambda a, b: float(job.term(np.array(job.encode_value(a)), np.array(job.encode_value(b))))  # noqa: E731
    assert job.tree_diameter == 4
    assert t("management", "technician") == 0.5  # siblings: 2 steps / 4
    assert t("management", "retired") == 1.0  # cousins: 4 steps / 4
    assert t("student", "student") == 0.0


def test_unequal_depth_tree_metric():
    a = Attribute("x", "hierarchical", tree={"A": {"A1": ["a", "b"], "A2": ["c"]}, "B": ["d"]}).validate()
    t = lambda u, v: float(a.term(np.array(a.encode_value(u)), np.array(a.encode_value(v))))  # noqa: E731
    assert a.tree_diameter == 5  # a - A1 - A - root - B - d
    assert t("a", "b") == pytest.approx(2 / 5)
    assert t("a", "c") == pytest.approx(4 / 5)
    assert t("a", "d") == pytest.approx(1.0)
    assert t("c", "d") == pytest.approx(1.0)  # c - A2 - A - root - B - d


def test_tree_metric_equals_graph_shortest_paths():
    """The tree metric (common-prefix depths, no graph library; issue 23) is the tree's shortest-path
    length between leaves, exactly, on random trees with nested lists, empty groups and unequal depths."""
    import random

    import networkx as nx

    from blowfish_core.model.domain import _tree_metric

    rng = random.Random(3)
    count = [0]

    def tree(d):
        if d <= 0 or rng.random() < 0.3:
            out = []
            for _ in range(rng.randint(0, 4)):
                if d > 0 and rng.random() < 0.15:
                    out.append(tree(d - 1))  # a nested list: its leaves hang off the same parent
                else:
                    count[0] += 1
                    out.append(f"v{count[0]}")
            return out
        out = {}
        for _ in range(rng.randint(1, 3)):
            count[0] += 1
            key = f"g{count[0]}"
            out[key] = tree(d - 1)
        return out

    checked = 0
    for _ in range(150):
        t = tree(rng.randint(1, 5))
        g = nx.Graph()

        def add(parent, node, g=g):  # g bound per loop iteration (the graph of this tree)
            if isinstance(node, dict):
                for k, sub in node.items():
                    g.add_edge(parent, ("g", k))
                    add(("g", k), sub)
            else:
                for leaf in node:
                    if isinstance(leaf, (dict, list)):
                        add(parent, leaf)
                    else:
                        g.add_edge(parent, ("l", leaf))

        g.add_node("root")
        add("root", t)
        leaves = [n[1] for n in g.nodes if n != "root" and n[0] == "l"]
        if not leaves:
            with pytest.raises(SchemaError, match="no leaf values"):
                _tree_metric(t, "x")
            continue
        got_leaves, raw = _tree_metric(t, "x", normalized=False)
        assert sorted(got_leaves) == sorted(leaves)
        want = np.array([[nx.shortest_path_length(g, ("l", u), ("l", v)) for v in got_leaves] for u in got_leaves],
                        dtype=float)
        assert raw.dtype == np.float64 and np.array_equal(raw, want)
        _, norm = _tree_metric(t, "x")
        assert np.array_equal(norm, want / want.max() if want.max() > 0 else want)
        checked += 1
    assert checked > 100


# ------------------------------------------------------------------ Gower distance


def test_gower_exact_value_adult():
    s = get_preset("adult").schema
    df = pd.DataFrame({"age": [30, 37], "hours.per.week": [40, 48], "education.num": [9, 13],
                       "workclass": ["Private", "State-gov"], "income": ["<=50K", ">50K"]})
    X = s.encode(df)
    expected = (7 / 73 + 8 / 98 + 4 / 15 + 1 + 1) / 5
    assert gower_pair(s, X[0], X[1]) == pytest.approx(expected, rel=1e-12)
    assert gower_distances(s, X[:1], X[1:])[0, 0] == pytest.approx(expected, rel=1e-12)


def _naive_gower(schema: Schema, X: np.ndarray, C: np.ndarray) -> np.ndarray:
    w = schema.weights
    D = np.zeros((X.shape[0], C.shape[0]))
    for i, a in enumerate(schema.attributes):
        for j in range(C.shape[0]):
            D[:, j] += w[i] * a.term(X[:, i], np.full(X.shape[0], C[j, i]))
    return D


@pytest.mark.parametrize("preset", ["adult", "bank", "xor3"])
def test_gower_kernel_matches_naive_and_chunking(preset, monkeypatch):
    s = get_preset(preset).schema  # bank's balance (120,001 values) takes the direct path
    rng = np.random.default_rng(3)
    X = s.sample_uniform(rng, 57)
    C = s.sample_uniform(rng, 23)
    ref = _naive_gower(s, X, C)
    np.testing.assert_allclose(gower_distances(s, X, C), ref, rtol=0, atol=1e-12)
    monkeypatch.setattr(gower_tables, "chunk_rows", lambda m, block_bytes=None: 4)
    np.testing.assert_allclose(gower_distances(s, X, C), ref, rtol=0, atol=1e-12)
    # tiny joint-table budget: no fusion of lookup tables
    k = GowerKernel(s, C, joint_bytes=1)
    np.testing.assert_allclose(k.block(X), ref, rtol=0, atol=1e-12)


def test_gower_weights_and_continuous_path():
    s = Schema([Attribute("a", "numeric", lo=0.0, hi=2.0, weight=0.25),
                Attribute("b", "categorical", levels=["p", "q"], weight=0.75)])
    X = np.array([[0.5, 0.0]])
    C = np.array([[0.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(gower_distances(s, X, C), [[0.125, 0.125 + 0.75]])
    assert s.gower_diameter == 1.0


def test_group_records_counts():
    X = np.array([[0.0, 1.0], [0.5, 0.0], [0.0, 1.0], [0.0, 1.0]])
    U, c = group_records(X)
    assert U.shape == (2, 2)
    assert sorted(c.tolist()) == [1.0, 3.0]
    assert c.sum() == 4


# ------------------------------------------------------------------ policy graphs


def test_value_edge_counts():
    adult = get_preset("adult")
    s, t3 = adult.schema, adult.table3
    assert value_edges(s["age"], t3["age"]).e0.size == sum(74 - k for k in range(1, 8))  # 490
    assert value_edges(s["workclass"], t3["workclass"]).e0.size == 0 + 3 + 1 + 3
    assert value_edges(s["income"], t3["income"]).e0.size == 1
    assert value_edges(s["education.num"], t3["education.num"]).e0.size == 15 + 14
    bank = get_preset("bank")
    assert value_edges(bank.schema["job"], bank.table3["job"]).e0.size == 3 + 3 + 1 + 6


def test_threshold_fractional_on_integer_domain_floors():
    a = get_preset("adult").schema["age"]
    assert attribute_reach(a, AttributePolicy("threshold", 7.9)) == pytest.approx(7 / 73)
    assert attribute_reach(a, AttributePolicy("threshold", 0.5)) == 0.0
    assert attribute_reach(a, AttributePolicy("threshold", 500)) == 1.0


def test_continuous_threshold_reach():
    a = Attribute("x", "numeric", lo=0.0, hi=8.0).validate()
    assert attribute_reach(a, AttributePolicy("threshold", 0.5)) == pytest.approx(0.5 / 8)
    assert value_edges(a, AttributePolicy("threshold", 0.5)) is None


def test_components_and_path_lengths():
    adult = get_preset("adult")
    s, t3 = adult.schema, adult.table3
    comps = components(s["workclass"], t3["workclass"])
    assert sorted(map(sorted, comps)) == sorted(map(sorted, [list(b) for b in t3["workclass"].blocks]))
    assert path_length(s["workclass"], t3["workclass"], "Private", "State-gov") is None
    assert path_length(s["workclass"], t3["workclass"], "Local-gov", "State-gov") == 1
    assert path_length(s["age"], t3["age"], 17, 90) == 11  # ceil(73 / 7)
    assert path_length(s["age"], t3["age"], 30, 37) == 1
    assert path_length(s["age"], t3["age"], 30, 30) == 0
    assert path_length(s["income"], t3["income"], "<=50K", ">50K") == 1
    assert path_length(s["education.num"], t3["education.num"], 1, 16) == 8
    assert len(components(s["age"], t3["age"])) == 1
    bank = get_preset("bank")
    job, hier = bank.schema["job"], bank.table3["job"]
    assert path_length(job, hier, "management", "retired") is None
    assert path_length(job, hier, "management", "admin.") == 1
    assert len(components(job, hier)) == 4
    assert len(components(job, AttributePolicy("threshold", 4))) == 1
    with pytest.raises(PolicyError, match="outside the public domain"):
        path_length(s["age"], t3["age"], 10, 20)


def test_group_privacy_scaling():
    assert group_privacy(3, 1e-3, 0.5) == {"length": 3, "rho": pytest.approx(9e-3), "epsilon": pytest.approx(1.5)}
    assert group_privacy(None, 1e-3)["rho"] is None


def test_record_edge_count():
    x = get_preset("xor3")
    assert record_edge_count(x.schema, x.default_policy()) == 7 * 8 * 8 * 2
    b = get_preset("bank")  # balance is a 120,001-value integer domain: finite but huge
    assert record_edge_count(b.schema, b.default_policy()) > 1e9
    s = Schema([Attribute("x", "numeric", lo=0.0, hi=1.0), Attribute("y", "binary", levels=[0, 1])])
    assert math.isinf(record_edge_count(s, Policy({"y": AttributePolicy("complete")})))


@pytest.mark.parametrize("spec, pattern", [
    ({"workclass": {"type": "block", "blocks": [["Private"], ["Federal-gov", "Local-gov", "State-gov"]]}},
     r"does not cover"),
    ({"workclass": {"type": "block", "blocks": [["Private", "?"], ["Private", "Federal-gov", "Local-gov",
                                                 "State-gov", "Self-emp-not-inc", "Self-emp-inc",
                                                 "Without-pay", "Never-worked"]]}},
     r"value 'Private' is in blocks 1 and 2"),
    ({"workclass": {"type": "block", "blocks": [["Pirate"]]}}, r"unknown value 'Pirate'"),
    ({"age": {"type": "threshold", "theta": -1}}, r"policy for 'age': threshold must be >= 0"),
    ({"workclass": {"type": "threshold", "theta": 1}}, r"threshold needs a graded distance"),
    ({"age": {"type": "hierarchy"}}, r"hierarchical attributes only"),
    ({"salary": {"type": "complete"}}, r"unknown attribute 'salary'"),
    ({"income": {"type": "edges", "edges": [["<=50K", "rich"]]}}, r"unknown value 'rich'"),
])
def test_bad_policies(spec, pattern):
    s = get_preset("adult").schema
    with pytest.raises(PolicyError, match=pattern):
        Policy.from_dict({"attributes": spec}).validate(s)


@pytest.mark.parametrize("spec, pattern", [
    ({"attributes": {"age": {"type": "threshold"}}}, "threshold needs a number"),
    ({"attributes": {"age": {"type": "wobble"}}}, "unknown type 'wobble'"),
    ({"attributes": {"age": {"type": "threshold", "theta": 7, "extra": 1}}}, "unknown field"),
    ({"attributes": {}, "participation": "yes"}, "participation"),
    ([], "must be an object"),
])
def test_bad_policy_json(spec, pattern):
    with pytest.raises(PolicyError, match=pattern):
        Policy.from_dict(spec)


def test_policy_json_roundtrip():
    adult = get_preset("adult")
    pol = adult.policy_with(["workclass", "hours.per.week", "income"])
    pol = dataclasses.replace(pol, participation=True)
    back = Policy.from_json(pol.to_json()).validate(adult.schema)
    assert back.to_dict() == pol.to_dict()
    assert record_reach(adult.schema, back) == record_reach(adult.schema, pol) == pytest.approx(0.2)


def test_parse_protect_spec():
    assert parse_protect_spec("age=threshold:7") == ("age", "threshold", 7.0)
    assert parse_protect_spec("age") == ("age", "", None)
    assert parse_protect_spec("workclass=block") == ("workclass", "block", None)
    for bad, pattern in [("age=threshold:-2", ">= 0"), ("age=threshold:x", "needs a number"),
                         ("age=fuzzy", "unknown policy 'fuzzy'"), ("=complete", "missing attribute"),
                         ("age=complete:3", "takes no value")]:
        with pytest.raises(PolicyError, match=pattern):
            parse_protect_spec(bad)


def test_policy_with_none_removes_protection_and_unknown_attribute():
    adult = get_preset("adult")
    pol = adult.policy_with(["age=none"])
    assert record_reach(adult.schema, pol) == 0.0
    with pytest.raises(PolicyError, match="unknown attribute 'salary'"):
        adult.policy_with(["salary"])


def test_weighted_reach_with_custom_weights():
    s = Schema([Attribute("a", "numeric", lo=0, hi=10, integer=True, weight=0.5),
                Attribute("b", "binary", levels=[0, 1], weight=0.1)])
    pol = Policy({"a": AttributePolicy("threshold", 2), "b": AttributePolicy("complete")})
    assert weighted_reaches(s, pol) == {"a": pytest.approx(0.1), "b": pytest.approx(0.1)}
    assert record_reach(s, pol) == pytest.approx(0.1)


def test_participation_floor():
    adult = get_preset("adult")
    pol = adult.default_policy()
    pol = dataclasses.replace(pol, participation=True)
    cal = calibrate("bf-soft", adult.schema, pol, 0.03)
    assert (cal.sensitivity, cal.how) == (1.0, "participation-floor")
    assert policy_summary(adult.schema, pol, 0.03)["sensitivity_bound"] == 1.0
    pol = dataclasses.replace(pol, participation=False)
    cal = calibrate("bf-soft", adult.schema, pol, 0.03)
    assert (cal.how, cal.sensitivity) == ("bound", pytest.approx(soft_bound(7 / 365, 0.03)))
    assert calibrate("tab-pe", adult.schema, pol, None).sensitivity == SQRT2


def test_soft_dp_reach_is_gower_diameter():
    adult = get_preset("adult")
    cal = calibrate("soft-dp", adult.schema, adult.default_policy(), 0.03)
    assert cal.sensitivity == pytest.approx(SQRT2 * math.tanh(1 / 0.06))


# ------------------------------------------------------------------ data-derived domain (DESIGN §3)


def test_infer_schema_is_flagged_data_derived():
    df = pd.DataFrame({"n": [3, 7, 5], "f": [0.5, 1.5, 1.0], "c": ["a", "b", "c"], "b": [0, 1, 1], "s": ["x", "y", "x"]})
    s = infer_schema(df)
    assert s.data_derived and s.data_derived_columns == ["n", "f", "c", "b", "s"]
    assert (s["n"].kind, s["n"].lo, s["n"].hi, s["n"].integer) == ("numeric", 3.0, 7.0, True)
    assert (s["f"].kind, s["f"].integer) == ("numeric", False)
    assert s["c"].kind == "categorical" and s["c"].levels == ["a", "b", "c"]
    assert s["b"].kind == "binary" and s["s"].kind == "binary"
    w = s.domain_warning()
    assert w and "DATA-DERIVED DOMAIN" in w and "n, f, c, b, s" in w
    assert Schema.from_json(s.to_json()).domain_warning() == w  # survives the JSON file
    assert get_preset("adult").schema.domain_warning() is None


def test_infer_schema_errors():
    with pytest.raises(SchemaError, match="empty table"):
        infer_schema(pd.DataFrame())
    with pytest.raises(SchemaError, match="column 'z' has 60 distinct values"):
        infer_schema(pd.DataFrame({"z": [f"v{i}" for i in range(60)]}))
    with pytest.raises(SchemaError, match="column 'e' is entirely missing"):
        infer_schema(pd.DataFrame({"e": [None, None], "x": [1, 2]}))
