"""Hard's certificate on the vote's tiles (issue 23): the same certificates as the float64 search.

``hard_sensitivity`` finds the nearest candidates of its edge endpoints with
``GowerKernel.nearest_lines`` (the vote's float32 tables, near ties decided in float64), takes its
contexts from the vote's sort (``GowerKernel.sorted_distinct``) and decodes the witness lazily
(``Witness``, ``decode_record``).  Here every part is compared with the plain version it replaced:
``np.unique`` contexts, one float64 distance block per record and ``schema.decode`` through pandas.
"""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blowfish_core.model.distance import GowerKernel, domain_index
from blowfish_core.model.edges import iter_edge_blocks, search_edges
from blowfish_core.model.policy import AttributePolicy, Policy, ValueEdges, record_edge_count
from blowfish_core.model.schema import Attribute, Schema
from blowfish_core.model.sensitivity import (
    CROSSING_CONTEXTS, DEFAULT_MAX_EDGES, SQRT2, Witness, _search_batch, decode_record, hard_sensitivity,
)
from tests.model.test_votes_properties import random_policy
from tests.strategies import schemas

SET = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference_hard(schema, policy, C, max_edges=DEFAULT_MAX_EDGES, contexts=CROSSING_CONTEXTS):
    """The certification before issue 23: np.unique contexts, float64 blocks, pandas decode."""
    k = GowerKernel(schema, C)
    protected = policy.protected(schema)
    if not protected:
        return ("exhaustive-zero", 0.0, None, 0)
    attrs = [schema.index(n) for n in protected]

    def first(blocks):
        checked = 0
        for blk in blocks:
            ve, L = blk.edges, blk.edges.size
            R = blk.records()
            I = domain_index(schema, R)
            nn = np.empty(R.shape[0], dtype=np.intp)
            for sl, D in k.iter_blocks(R, I):
                nn[sl] = np.argmin(D, axis=1)
            NN = nn.reshape(blk.b, L)
            cross = NN[:, ve.e0] != NN[:, ve.e1]
            checked += cross.size
            if cross.any():
                zi, ei = np.argwhere(cross)[0]
                u, v = R[zi * L + ve.e0[ei]], R[zi * L + ve.e1[ei]]
                return {"attribute": ve.name, "u": schema.decode(u[None, :]).iloc[0].to_dict(),
                        "v": schema.decode(v[None, :]).iloc[0].to_dict(),
                        "nn_u": int(NN[zi, ve.e0[ei]]), "nn_v": int(NN[zi, ve.e1[ei]])}, checked
        return None, checked

    ctx = np.unique(np.asarray(C, dtype=float), axis=0)[:contexts]
    searched = [None] * schema.p
    for i in attrs:
        a = schema.attributes[i]
        searched[i] = search_edges(a, policy.policy_for(a.name), crossing_only=True)
    hit, checked = first(iter_edge_blocks(searched, _search_batch, contexts=ctx, attrs=attrs))
    if hit is not None:
        return ("certified-crossing", SQRT2, hit, checked)
    total = record_edge_count(schema, policy)
    if total <= max_edges:
        grid = [searched[j] if searched[j] is not None
                else ValueEdges(a.domain_codes(), np.zeros(0, np.intp), np.zeros(0, np.intp))
                for j, a in enumerate(schema.attributes)]
        hit, n = first(iter_edge_blocks(grid, _search_batch, attrs=attrs))
        if hit is not None:
            return ("certified-crossing", SQRT2, hit, checked + n)
        return ("exhaustive-zero", 0.0, None, checked + n)
    return ("fallback", SQRT2, None, checked)


def _typed(d):
    """A witness with every value's type, so 1 and 1.0 (or 'a' and np.str_('a')) differ."""
    return None if d is None else json.dumps(d, sort_keys=True, default=lambda v: repr(v)) + repr(
        sorted((k, type(v).__name__, sorted((a, type(b).__name__) for a, b in v.items()) if isinstance(v, dict)
                else None) for k, v in d.items()))


@SET
@given(schema=schemas(max_p=4), seed=st.integers(0, 2**32 - 1), m=st.integers(1, 40), pool=st.integers(1, 10),
       max_edges=st.sampled_from([0, 5_000, DEFAULT_MAX_EDGES]))
def test_certificates_equal_the_float64_search(schema, seed, m, pool, max_edges):
    rng = np.random.default_rng(seed)
    policy = random_policy(schema, rng)
    P = schema.sample_uniform(rng, pool)  # duplicates and exact ties
    C = P[rng.integers(pool, size=m)] if rng.random() < 0.7 else schema.sample_uniform(rng, m)
    k = GowerKernel(schema, C)
    if rng.random() < 0.5:
        k.nearest(P)  # the vote ran first on this kernel (its float32 tables and sort are reused)
    cal = hard_sensitivity(schema, policy, C, max_edges=max_edges, kernel=k)
    how, sens, witness, checked = reference_hard(schema, policy, C, max_edges=max_edges)
    assert (cal.how, cal.sensitivity, cal.edges_checked) == (how, sens, checked)
    assert _typed(None if cal.witness is None else dict(cal.witness)) == _typed(witness)


def test_sorted_distinct_is_np_unique():
    schema = Schema([Attribute("x", "ordinal", levels=list(range(5))), Attribute("c", "categorical", levels=list("abc"))])
    rng = np.random.default_rng(3)
    for _ in range(200):
        C = schema.sample_uniform(rng, 6)[rng.integers(0, 6, size=int(rng.integers(1, 40)))]
        np.testing.assert_array_equal(GowerKernel(schema, C).sorted_distinct(), np.unique(C, axis=0))
    C = np.array([[0.5, 0.0], [-0.0, 1.0], [0.0, 1.0], [0.5, -0.0]])  # -0.0: the value sort, equal rows once
    got = GowerKernel(schema, C).sorted_distinct()
    assert got.shape == (2, 2) and (got == np.unique(C, axis=0)).all()


def _mixed_schema():
    return Schema([
        Attribute("n", "numeric", lo=17, hi=90, integer=True),
        Attribute("f", "numeric", lo=-1.5, hi=2.0),
        Attribute("o", "ordinal", levels=[3, 5, 8]),
        Attribute("c", "categorical", levels=["x", "y", "z"]),
        Attribute("b", "binary", levels=[False, True]),
        Attribute("m", "categorical", levels=[1, "two", 3.5]),
        Attribute("h", "hierarchical", tree={"A": ["a1", "a2"], "B": ["b1"]}),
    ])


@SET
@given(schema=schemas(max_p=5), seed=st.integers(0, 2**32 - 1))
def test_decode_record_equals_pandas_decode(schema, seed):
    x = schema.sample_uniform(np.random.default_rng(seed), 1)
    assert _typed(decode_record(schema, x[0])) == _typed(schema.decode(x).iloc[0].to_dict())


def test_decode_record_types_follow_pandas_rows():
    rng = np.random.default_rng(1)
    full = _mixed_schema()
    for names in (["n"], ["n", "f"], ["n", "o"], ["f", "o"], ["n", "c"], ["n", "b"], ["f", "m"], ["c", "h"],
                  [a.name for a in full.attributes]):
        s = Schema([full[n] for n in names])
        x = s.sample_uniform(rng, 3)
        for r in range(3):
            assert _typed(decode_record(s, x[r])) == _typed(s.decode(x[r:r + 1]).iloc[0].to_dict()), names


def test_witness_decodes_lazily_and_reads_as_a_dict():
    s = _mixed_schema()
    u, v = s.sample_uniform(np.random.default_rng(2), 2)
    ref = {"attribute": "n", "u": s.decode(u[None]).iloc[0].to_dict(), "v": s.decode(v[None]).iloc[0].to_dict(),
           "nn_u": 3, "nn_v": 7}

    def w():
        return Witness.edge(s, "n", u, v, 3, 7)

    fresh = w()
    assert fresh._pending is not None  # nothing decoded yet
    assert len(fresh) == 5 and "u" in fresh and fresh._pending is not None
    assert fresh["u"] == ref["u"] and fresh._pending is None
    for got in (w() == ref, ref == w(), not (w() != ref), dict(w()) == ref, {**w()} == ref, w().copy() == ref,
                (w() | {}) == ref, copy.deepcopy(w()) == ref, pickle.loads(pickle.dumps(w())) == ref,
                w().get("v") == ref["v"], list(w().values()) == list(ref.values()), dict(w().items()) == ref,
                json.loads(json.dumps(w(), default=str)) == json.loads(json.dumps(ref, default=str)),
                json.dumps(w(), indent=1, default=str) == json.dumps(ref, indent=1, default=str),
                repr(w()) == repr(ref), pd.DataFrame([w()]).to_dict("records")[0] == ref,
                [dict(x) for x in json.loads(json.dumps([{"witness": w()}], default=str))[0].values()]
                == [json.loads(json.dumps(ref, default=str))]):
        assert got
    f = lambda **kw: kw  # noqa: E731
    assert f(**w()) == ref
    assert w() != {**ref, "nn_u": 4}


def test_run_ledger_witness_is_decoded_when_read():
    """In a run the ledger keeps the lazy witness; to_dict / JSON read it decoded."""
    from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis

    schema = Schema([Attribute("x", "ordinal", levels=list(range(10))), Attribute("y", "binary", levels=["a", "b"])])
    X = schema.sample_uniform(np.random.default_rng(0), 300)
    cfg = SynthConfig(rounds=2, population=[16, 16], release=8)
    res = run_synthesis(schema, X, Policy({"x": AttributePolicy("threshold", 1)}), "hard", 1.0, config=cfg, seed=0)
    rows = [r for r in res.rounds if r.calibration == "certified-crossing"]
    assert rows
    for r in rows:
        d = json.loads(json.dumps(r.to_dict()))
        assert set(d["witness"]) == {"attribute", "u", "v", "nn_u", "nn_v"}
        assert set(d["witness"]["u"]) == {"x", "y"} and d["witness"]["u"]["y"] in ("a", "b")
        assert abs(d["witness"]["u"]["x"] - d["witness"]["v"]["x"]) == 1
