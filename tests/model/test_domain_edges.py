"""Per-type attribute classes (blowfish_core.model.domain) and the record-level edge enumerator
(blowfish_core.model.edges): frozen, hashable types; one enumerator whose order does not depend
on the batch size; Hard, the exact module and the audit agree on the edge set."""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blowfish_core import Attribute, AttributePolicy, Policy, Schema, SchemaError
from blowfish_core.analysis.audit import record_level_edges
from blowfish_core.analysis.exact import schema_lattices
from blowfish_core.model.domain import (
    ATTRIBUTE_TYPES, BinaryAttribute, CategoricalAttribute, HierarchicalAttribute, NumericAttribute,
    OrdinalAttribute,
)
from blowfish_core.model.edges import edge_total, iter_edge_blocks, lattice_edges, offset_edges, search_edges
from blowfish_core.model.policy import record_edge_count, value_edges

TREE = {"g1": ["a", "b"], "g2": ["c", "d", "e"]}


def small_schema() -> Schema:
    return Schema([
        Attribute("n", "numeric", lo=0, hi=4, integer=True),
        Attribute("o", "ordinal", levels=["lo", "mid", "hi"]),
        Attribute("c", "categorical", levels=["x", "y", "z"]),
        Attribute("b", "binary", levels=[0, 1]),
        Attribute("h", "hierarchical", tree=TREE),
    ])


def test_kind_selects_the_class_and_json_keeps_type():
    s = small_schema()
    assert [type(a) for a in s.attributes] == [NumericAttribute, OrdinalAttribute, CategoricalAttribute,
                                              BinaryAttribute, HierarchicalAttribute]
    # the five paper types, in their order (a new type registers after them: tests/conformance, issue 22)
    assert list(ATTRIBUTE_TYPES)[:5] == ["numeric", "ordinal", "categorical", "hierarchical", "binary"]
    assert [a.kind for a in s.attributes] == ["numeric", "ordinal", "categorical", "binary", "hierarchical"]
    d = s.to_dict()
    assert [a["type"] for a in d["attributes"]] == ["numeric", "ordinal", "categorical", "binary", "hierarchical"]
    assert d["attributes"][4]["tree"] == TREE and "levels" not in d["attributes"][4]
    assert Schema.from_json(json.dumps(d)) == s
    # direct construction fills the kind
    assert NumericAttribute("x", lo=0, hi=1).kind == "numeric"


def test_attributes_and_schema_are_frozen_and_hashable():
    s = small_schema()
    a = s["c"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.weight = 2.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.data_derived = True
    with pytest.raises(AttributeError):
        a.levels.append("w")
    assert a.levels == ["x", "y", "z"] and ["x", "y", "z"] == a.levels and a.levels != ["x", "y"]
    assert hash(s) == hash(small_schema()) and s == small_schema()
    assert len({a, dataclasses.replace(a), dataclasses.replace(a, weight=0.5)}) == 2
    h = Attribute("h", "hierarchical", tree=TREE)
    before = hash(h)
    Schema([h])                       # validation fills the leaves; the hash does not move
    assert hash(h) == before and h.levels == ["a", "b", "c", "d", "e"]


def test_unknown_kind_is_rejected_at_validation():
    a = Attribute("x", "nominal", levels=["a"])
    assert type(a) is Attribute
    with pytest.raises(SchemaError, match="unknown type 'nominal'. Fix: use one of numeric, ordinal, "
                                          "categorical, hierarchical, binary"):
        Schema([a])


def test_per_type_codes_terms_bins_and_samples():
    s = small_schema()
    n, o, c, b, h = s.attributes
    np.testing.assert_array_equal(n.domain_codes(), [0, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_array_equal(o.domain_codes(), [0, 0.5, 1.0])
    np.testing.assert_array_equal(c.domain_codes(), [0, 1, 2])
    assert n.term(np.array(0.25), np.array(1.0)) == 0.75
    assert c.term(np.array(0.0), np.array(2.0)) == 1.0 and c.term(np.array(1.0), np.array(1.0)) == 0.0
    # tree: siblings 2 steps, cousins 4 steps (the diameter)
    assert h.term(np.array(0), np.array(1)) == 0.5 and h.term(np.array(0), np.array(4)) == 1.0
    assert (n.width, o.width, c.width, h.width) == (4.0, 2, 1.0, 4.0)
    out = np.empty((1, 3))
    h.term_into(np.array([[0.0]]), np.array([[0.0, 1.0, 2.0]]), out)
    np.testing.assert_array_equal(out, [[0.0, 0.5, 1.0]])
    codes, size = n.bin_codes(np.array([0.0, 0.5, 1.0]), 4)
    assert codes.tolist() == [0, 2, 3] and size == 4
    codes, size = n.bin_codes(np.array([0.0, 0.5, 1.0]), "exact")
    assert codes.tolist() == [0, 2, 4] and size == 5
    assert o.bin_codes(np.array([0.5]), 20)[0].tolist() == [1]
    assert n.cell_labels(2) == ["0-1", "2-4"] and c.cell_labels(20) == ["x", "y", "z"]
    assert n.index(np.array([0.75])).tolist() == [3] and o.index(np.array([1.0])).tolist() == [2]
    X = s.sample_uniform(np.random.default_rng(0), 200)
    assert s.decode(X).shape == (200, 5)
    assert set(np.unique(X[:, 0] * 4)) <= {0, 1, 2, 3, 4} and set(np.unique(X[:, 2])) == {0, 1, 2}


def test_mutation_steps_per_type():
    s = small_schema()
    n, o, c = s["n"], s["o"], s["c"]
    col = np.array([0.5, 0.5])
    steps = np.array([0.3, -0.9])
    no = np.array([False, False])
    yes = np.array([True, True])
    picks = np.array([0.1, 0.99])
    np.testing.assert_array_equal(n.mutate(col, steps, no, picks), [0.75, 0.0])   # rounded, clipped
    np.testing.assert_array_equal(o.mutate(col, steps, no, picks), [1.0, 0.0])
    np.testing.assert_array_equal(c.mutate(np.array([1.0, 1.0]), steps, no, picks), [1.0, 1.0])
    np.testing.assert_array_equal(c.mutate(np.array([1.0, 1.0]), steps, yes, picks), [0.0, 2.0])


def test_threshold_pairs_per_type():
    s = small_schema()
    assert value_edges(s["n"], AttributePolicy("threshold", theta=2.5)).e0.size == 4 + 3
    assert value_edges(s["o"], AttributePolicy("threshold", theta=1)).e0.tolist() == [0, 1]
    ve = value_edges(s["h"], AttributePolicy("hierarchy"))
    assert sorted(zip(ve.e0.tolist(), ve.e1.tolist())) == [(0, 1), (2, 3), (2, 4), (3, 4)]
    cont = Attribute("x", "numeric", lo=0, hi=10).validate()
    assert cont.threshold_reach(2.5) == 0.25
    assert value_edges(cont, AttributePolicy("threshold", theta=2.5)) is None
    lat = lattice_edges(cont, AttributePolicy("threshold", theta=2.5), 11)
    assert not lat.exact and lat.size == 11 and lat.e0.size == 10 + 9
    off = offset_edges(cont, AttributePolicy("threshold", theta=2.5), 5)
    np.testing.assert_allclose(off.codes[off.e1] - off.codes[off.e0], 0.25)
    first = search_edges(s["n"], AttributePolicy("threshold", theta=3), crossing_only=True)
    assert (first.e1 - first.e0).tolist() == [1, 1, 1, 1]


def _brute_edges(schema: Schema, policy: Policy) -> list[tuple[tuple[float, ...], tuple[float, ...]]]:
    """Record-level edges by definition: pairs differing on one attribute by a protected pair."""
    lats = schema_lattices(schema, policy)
    out = []
    for i, ve in enumerate(lats):
        others = [lt.codes.tolist() if j != i else [0.0] for j, lt in enumerate(lats)]
        for ctx in itertools.product(*others):
            for e0, e1 in zip(ve.e0.tolist(), ve.e1.tolist()):
                u, v = list(ctx), list(ctx)
                u[i], v[i] = ve.codes[e0], ve.codes[e1]
                out.append((tuple(u), tuple(v)))
    return out


POLICIES = [
    Policy({"n": AttributePolicy("threshold", theta=1), "h": AttributePolicy("hierarchy")}),
    Policy({"c": AttributePolicy("block", blocks=[["x", "y"], ["z"]]), "b": AttributePolicy("complete")}),
    Policy({"o": AttributePolicy("edges", edges=[["lo", "hi"]])}),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(POLICIES))), st.integers(1, 40))
def test_enumerator_order_does_not_depend_on_batch(k, batch):
    s, policy = small_schema(), POLICIES[k]
    lats = schema_lattices(s, policy)
    got = []
    for blk in iter_edge_blocks(lats, batch):
        assert blk.b <= batch
        U, V = blk.endpoints()
        got += [(tuple(u), tuple(v)) for u, v in zip(U.tolist(), V.tolist())]
    assert got == _brute_edges(s, policy)
    assert len(got) == edge_total(lats) == record_edge_count(s, policy)


def test_audit_edges_are_the_enumerators_edges():
    s = Schema(small_schema().attributes[1:4])
    policy = Policy({"c": AttributePolicy("complete"), "o": AttributePolicy("threshold", theta=1)})
    P, e0, e1 = record_level_edges(s, policy)
    pairs = [(tuple(P[a]), tuple(P[b])) for a, b in zip(e0.tolist(), e1.tolist())]
    assert pairs == _brute_edges(s, policy)
