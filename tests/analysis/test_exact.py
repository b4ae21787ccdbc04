"""Exact policy-specific sensitivity, population-aware bound, tightness (blowfish_core.analysis.exact).

Paper: Lemma 5.1, Cor. 5.3, Lemma 5.4, Cor. 5.5, Prop. 5.6, Figure 1, Figure 7.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blowfish_core import Attribute, AttributePolicy, BudgetError, Policy, Schema, SchemaError
from blowfish_core.analysis.exact.blocks import _iter_blocks
from blowfish_core.analysis.exact import (
    EnumerationLimitError, attribute_lattice, closed_form_bound, crossing_search, distances,
    edge_costs, exact_sensitivity, lattice_records, nearest_candidates, population_aware_bound,
    schema_lattices, soft_votes, tightness_construction,
)

SQRT2 = math.sqrt(2.0)
TOL = 1e-12
TREE = {"g1": ["a", "b"], "g2": ["c", "d", "e"]}


# ------------------------------------------------------------------ strategies
@st.composite
def settings_(draw, allow_continuous=True):
    """(schema, policy, C, tau, distance): 1-2 attributes, small domains, m in 1..7."""
    p = draw(st.integers(1, 2))
    kinds = ["ordinal", "integer", "categorical", "hierarchical"] + (["continuous"] if allow_continuous else [])
    attrs, per = [], {}
    for i in range(p):
        kind = draw(st.sampled_from(kinds))
        name = f"a{i}"
        if kind == "ordinal":
            L = draw(st.integers(2, 9))
            attrs.append(Attribute(name, "ordinal", levels=list(range(L))))
            per[name] = AttributePolicy("threshold", theta=draw(st.integers(0, 4)))
        elif kind == "integer":
            hi = draw(st.integers(1, 9))
            attrs.append(Attribute(name, "numeric", lo=0, hi=hi, integer=True))
            per[name] = AttributePolicy("threshold", theta=draw(st.floats(0, 5)))
        elif kind == "continuous":
            attrs.append(Attribute(name, "numeric", lo=0.0, hi=10.0))
            per[name] = AttributePolicy("threshold", theta=draw(st.floats(0, 6)))
        elif kind == "categorical":
            attrs.append(Attribute(name, "categorical", levels=list("abcd")))
            per[name] = draw(st.sampled_from([
                AttributePolicy("complete"), AttributePolicy("none"),
                AttributePolicy("block", blocks=[["a", "b"], ["c", "d"]]),
                AttributePolicy("edges", edges=[["a", "c"]]),
            ]))
        else:
            attrs.append(Attribute(name, "hierarchical", tree=TREE))
            per[name] = draw(st.sampled_from([AttributePolicy("hierarchy"), AttributePolicy("complete")]))
        w = draw(st.sampled_from([None, None, 0.3, 2.0]))
        attrs[-1] = dataclasses.replace(attrs[-1], weight=w)   # attributes are frozen
    schema = Schema(attrs)
    policy = Policy(per)
    m = draw(st.integers(1, 7))
    seed = draw(st.integers(0, 10_000))
    C = schema.sample_uniform(np.random.default_rng(seed), m)
    if m > 1 and draw(st.booleans()):
        C[1] = C[0]                                     # duplicate candidates
    tau = float(10 ** draw(st.floats(-3, 1)))
    distance = draw(st.sampled_from(["gower", "gower", "euclidean"]))
    return schema, policy, C, tau, distance


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -------------------------------------------------------------- properties
@FAST
@given(settings_())
def test_exact_soft_below_population_aware_below_closed_form(s):
    schema, policy, C, tau, distance = s
    ex = exact_sensitivity(schema, policy, C, "soft", tau, distance=distance, grid=7)
    pop = population_aware_bound(schema, policy, C, tau, distance=distance, grid=7)
    cf = closed_form_bound(schema, policy, tau)
    assert 0.0 <= ex.l2 <= pop.l2 + TOL
    assert pop.l2 <= cf + TOL
    assert pop.closed_form == pytest.approx(cf)
    # l1 versions: Lemma 5.4 directly; and ||z||_2 <= ||z||_1 / sqrt(2) for zero-sum z
    assert ex.l1 <= pop.l1 + TOL <= closed_form_bound(schema, policy, tau, "l1") + 2 * TOL
    assert ex.l2 <= ex.l1 / SQRT2 + TOL


@FAST
@given(settings_())
def test_hard_exact_is_zero_or_sqrt2_and_matches_crossings(s):
    schema, policy, C, tau, distance = s
    h = exact_sensitivity(schema, policy, C, "hard", distance=distance, grid=7)
    assert h.l2 in (0.0, SQRT2)
    assert h.l1 == (2.0 if h.l2 else 0.0)
    assert (h.crossing_edges > 0) == (h.l2 == SQRT2)
    assert 0 <= h.crossing_edges <= h.edges
    if h.edge is not None:                      # the reported edge really crosses a boundary
        U = np.array([h.edge["u_codes"], h.edge["v_codes"]])
        nn = nearest_candidates(schema, C, U, distance)
        assert nn[0] != nn[1]
        assert (int(nn[0]), int(nn[1])) == (h.edge["nn_u"], h.edge["nn_v"])
    if len(np.unique(C, axis=0)) == 1:
        assert h.l2 == 0.0


@FAST
@given(settings_(allow_continuous=True))
def test_line_algorithm_equals_plain_enumeration_edge_by_edge(s):
    schema, policy, C, tau, _ = s
    lats = schema_lattices(schema, policy, 6)
    a = list(_iter_blocks(schema, lats, C, tau=tau, distance="gower", hard=False, soft=True, method="auto"))
    b = list(_iter_blocks(schema, lats, C, tau=tau, distance="gower", hard=False, soft=True, method="enumerate"))
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.l2, y.l2, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(x.l1, y.l1, rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(theta=st.floats(0.01, 5.0), tau=st.floats(0.01, 5.0))
def test_tightness_two_candidates_attains_the_bound(theta, tau):
    t = tightness_construction(theta, tau, m=2)
    expected = SQRT2 * math.tanh(theta / (2 * tau))
    assert t.bound == pytest.approx(expected, rel=1e-14)
    assert t.attained == pytest.approx(expected, rel=1e-9, abs=1e-15)
    # the construction is a valid instance: its closed form (Cor. 5.5) is the same bound
    assert closed_form_bound(t.schema, t.policy, tau) == pytest.approx(expected, rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(theta=st.floats(0.05, 3.0), tau=st.floats(0.05, 3.0), m=st.integers(3, 12))
def test_tightness_more_candidates_approaches_the_bound(theta, tau, m):
    near = tightness_construction(theta, tau, m=m, R=0.0)
    far = tightness_construction(theta, tau, m=m, R=5 * tau)
    farther = tightness_construction(theta, tau, m=m)        # default R = tau (ln m + 40)
    assert near.attained <= far.attained + 1e-12 <= farther.attained + 2e-12
    assert farther.attained <= farther.bound + 1e-12
    assert farther.gap < 1e-9
    assert near.gap >= -1e-12


def test_tightness_values_and_theta_zero():
    t = tightness_construction(1.0, 0.5, m=2, L=4.0)
    assert (t.u, t.v) == (1.5, 2.5)
    assert list(t.candidates) == [0.0, 4.0]
    assert t.attained == pytest.approx(SQRT2 * math.tanh(1.0), rel=1e-12)
    t3 = tightness_construction(1.0, 0.5, m=4, L=4.0, R=2.0)
    assert list(t3.candidates) == [0.0, 4.0, 9.0, 10.0]
    # m > 2: nearby extra candidates cost something; pushing them away closes the gap
    gaps = [tightness_construction(1.0, 2.0, m=5, R=R).gap for R in (0.0, 3.0, 10.0, 100.0)]
    assert gaps[0] > 0.01 and all(a > b for a, b in zip(gaps, gaps[1:])) and gaps[-1] < 1e-9
    z = tightness_construction(0.0, 0.5)
    assert z.attained == 0.0 and z.bound == 0.0
    with pytest.raises(SchemaError, match="m must be"):
        tightness_construction(1.0, 0.5, m=1)
    with pytest.raises(SchemaError, match="L must be"):
        tightness_construction(2.0, 0.5, L=1.0)
    with pytest.raises(BudgetError, match="tau"):
        tightness_construction(1.0, 0.0)


# ------------------------------------------------------------ exact values
def _line(L, points, theta=1, weight=None):
    schema = Schema([Attribute("x", "ordinal", levels=list(range(L)), weight=weight)])
    policy = Policy({"x": AttributePolicy("threshold", theta=theta)})
    C = schema.encode(pd.DataFrame({"x": points}))
    return schema, policy, C


def test_hard_one_boundary_exact_counts_and_witness():
    schema, policy, C = _line(10, [2, 7])
    h = exact_sensitivity(schema, policy, C, "hard")
    assert (h.l2, h.l1, h.edges, h.crossing_edges) == (SQRT2, 2.0, 9, 1)
    assert h.edge["u"] == {"x": 4} and h.edge["v"] == {"x": 5}
    assert (h.edge["nn_u"], h.edge["nn_v"]) == (0, 1)
    assert h.exact_on == "domain" and h.method == "fast-nn"
    # tie at x = 4 between candidates at 2 and 6 -> lowest index (0): boundary edge (4, 5)
    schema, policy, C = _line(10, [2, 6])
    h = exact_sensitivity(schema, policy, C, "hard")
    assert h.crossing_edges == 1 and h.edge["u"] == {"x": 4}
    # no boundary inside the reach: sensitivity 0 (all candidates at one value)
    schema, policy, C = _line(10, [3, 3])
    h = exact_sensitivity(schema, policy, C, "hard")
    assert (h.l2, h.crossing_edges, h.edge) == (0.0, 0, None)


def test_soft_exact_equals_bound_on_the_symmetric_lattice_instance():
    # ordinal 0..9 with weight 9: Gower distance in steps; candidates at 0 and 9,
    # the middle edge (4, 5) sits symmetrically: exact = sqrt(2) tanh(1 / (2 tau)) (Prop. 5.6)
    schema, policy, C = _line(10, [0, 9], weight=9.0)
    for tau in (0.3, 1.0, 4.0):
        for method in ("line", "enumerate"):
            ex = exact_sensitivity(schema, policy, C, "soft", tau, method=method)
            assert ex.l2 == pytest.approx(SQRT2 * math.tanh(1 / (2 * tau)), rel=1e-12)
            assert ex.l1 == pytest.approx(2 * math.tanh(1 / (2 * tau)), rel=1e-12)
            assert ex.edge["u"] == {"x": 4} and ex.edge["v"] == {"x": 5}
        assert closed_form_bound(schema, policy, tau) == pytest.approx(ex.l2, rel=1e-12)


def test_soft_exact_hand_computed_three_candidates():
    # x in 0..4 (weight 4: distance in steps), candidates at 0, 2, 4, tau = 1, one-step edges.
    schema, policy, C = _line(5, [0, 2, 4], weight=4.0)
    ex = exact_sensitivity(schema, policy, C, "soft", 1.0)
    xs = np.arange(5.0)
    P = np.exp(-np.abs(xs[:, None] - np.array([0.0, 2.0, 4.0])[None, :]))
    P /= P.sum(axis=1, keepdims=True)
    costs = np.linalg.norm(P[1:] - P[:-1], axis=1)
    assert ex.l2 == pytest.approx(costs.max(), rel=1e-12)
    assert ex.l1 == pytest.approx(np.abs(P[1:] - P[:-1]).sum(axis=1).max(), rel=1e-12)
    assert ex.edges == 4


def test_population_aware_categorical_gains_when_values_are_absent():
    schema = Schema([Attribute("c", "categorical", levels=list("abcd")), Attribute("x", "ordinal", levels=[0, 1, 2])])
    policy = Policy({"c": AttributePolicy("block", blocks=[["a", "c"], ["b", "d"]])})
    tau, w = 0.1, 0.5
    # no protected pair has both values among the candidates: the shift is -w/tau on the
    # candidates holding u and 0 elsewhere, oscillation w/tau instead of 2w/tau
    C_one = schema.encode(pd.DataFrame({"c": ["a", "b", "a"], "x": [0, 1, 2]}))
    pop = population_aware_bound(schema, policy, C_one, tau)
    assert pop.osc == pytest.approx(w / tau)
    assert pop.l2 == pytest.approx(SQRT2 * math.tanh(w / (4 * tau)))
    cf = closed_form_bound(schema, policy, tau)
    assert cf == pytest.approx(SQRT2 * math.tanh(w / (2 * tau)))
    assert pop.l2 < cf
    assert exact_sensitivity(schema, policy, C_one, "soft", tau).l2 <= pop.l2 + TOL
    # every candidate on one value: the shift is constant, votes never move
    C_same = schema.encode(pd.DataFrame({"c": ["a", "a"], "x": [0, 2]}))
    assert population_aware_bound(schema, policy, C_same, tau).l2 == 0.0
    assert exact_sensitivity(schema, policy, C_same, "soft", tau).l2 == pytest.approx(0.0, abs=1e-15)
    # both values of a protected pair present: the closed form again
    C_two = schema.encode(pd.DataFrame({"c": ["a", "c"], "x": [0, 0]}))
    assert population_aware_bound(schema, policy, C_two, tau).l2 == pytest.approx(cf)


def test_population_aware_continuous_closed_form_and_grid_note():
    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=10.0), Attribute("y", "numeric", lo=0.0, hi=10.0)])
    policy = Policy({"x": AttributePolicy("threshold", theta=2.0)})
    tau = 0.05
    C_narrow = schema.encode(pd.DataFrame({"x": [4.0, 5.0], "y": [1.0, 9.0]}))  # span 1 < theta 2
    pop = population_aware_bound(schema, policy, C_narrow, tau)
    assert pop.l2 == pytest.approx(SQRT2 * math.tanh(0.5 * 0.1 / (2 * tau)))
    assert pop.l2 < closed_form_bound(schema, policy, tau) == pytest.approx(SQRT2 * math.tanh(0.5 * 0.2 / (2 * tau)))
    ex = exact_sensitivity(schema, policy, C_narrow, "soft", tau, grid=21)
    assert ex.exact_on == "grid" and ex.grid == {"x": 21, "y": 21}
    assert any("exact on that grid only" in n for n in ex.notes)
    assert ex.l2 <= pop.l2 + TOL
    # a lattice point count that makes the theta-edge land on the grid: edge (4.5 -> 5.5)? no:
    # edges join grid points at most theta apart; grid 21 has step 0.5, so 4 steps = 2.0
    assert attribute_lattice(schema["x"], policy.policy_for("x"), 21).e0.size == 20 + 19 + 18 + 17


def test_edge_costs_table_maxima_equal_exact():
    schema = Schema([Attribute("x", "ordinal", levels=list(range(6))), Attribute("y", "ordinal", levels=list(range(5)))])
    policy = Policy({"x": AttributePolicy("threshold", theta=1), "y": AttributePolicy("threshold", theta=2)})
    C = schema.encode(pd.DataFrame({"x": [0, 5, 2], "y": [0, 1, 4]}))
    for distance in ("gower", "euclidean"):
        df = edge_costs(schema, policy, C, tau=0.2, distance=distance)
        assert list(df.columns[:5]) == ["attribute", "u_x", "u_y", "v_x", "v_y"]
        assert len(df) == 5 * 5 + 6 * (4 + 3)
        ex = exact_sensitivity(schema, policy, C, "soft", 0.2, distance=distance)
        h = exact_sensitivity(schema, policy, C, "hard", distance=distance)
        assert df["soft"].max() == pytest.approx(ex.l2, rel=1e-12)
        assert df["soft_l1"].max() == pytest.approx(ex.l1, rel=1e-12)
        assert int(df["crossing"].sum()) == h.crossing_edges
        assert set(df["hard"].unique()) <= {0.0, SQRT2}
        assert (df["hard"] == np.where(df["nn_u"] != df["nn_v"], SQRT2, 0.0)).all()
    empty = edge_costs(schema, Policy(), C, tau=0.2)
    assert len(empty) == 0 and "soft" in empty.columns


def test_crossing_search_agrees_with_exact_hard():
    schema, policy, C = _line(10, [2, 7])
    cal = crossing_search(schema, policy, C)
    assert cal.how == "certified-crossing" and cal.sensitivity == SQRT2
    u, v = cal.witness["u"]["x"], cal.witness["v"]["x"]
    assert abs(u - v) == 1 and {u, v} == {4, 5}
    schema, policy, C = _line(10, [3])
    cal = crossing_search(schema, policy, C)
    assert cal.how == "exhaustive-zero" and cal.sensitivity == 0.0
    assert exact_sensitivity(schema, policy, C, "hard").l2 == 0.0


# ------------------------------------------------------------------ Figure 1
def test_figure1_hard_steps_soft_grades():
    """Figure 1: same population and threshold policy; hard 0 inside / sqrt 2 across,
    soft (tau = 0.5) graded: inside edges strictly between 0 and the crossing edge,
    crossing edges strictly below sqrt 2.  Units: weight 9 on a 0..9 lattice, so the
    Gower distance counts grid steps (a policy edge has length 1)."""
    lv = list(range(10))
    schema = Schema([Attribute("x", "ordinal", levels=lv, weight=9.0), Attribute("y", "ordinal", levels=lv, weight=9.0)])
    policy = Policy({"x": AttributePolicy("threshold", theta=1), "y": AttributePolicy("threshold", theta=1)})
    C = schema.encode(pd.DataFrame({"x": [0, 9, 0, 9], "y": [0, 9, 9, 0]}))
    for distance in ("gower", "euclidean"):
        df = edge_costs(schema, policy, C, tau=0.5, distance=distance)
        inside, crossing = df[~df["crossing"]], df[df["crossing"]]
        assert len(inside) > 0 and len(crossing) > 0
        assert (inside["hard"] == 0).all() and (crossing["hard"] == SQRT2).all()
        top = crossing["soft"].max()                           # "the" crossing edge of the figure
        assert (inside["soft"] > 0).all()
        assert (inside["soft"] < top).all()
        assert inside["soft"].max() < crossing["soft"].min()
        assert (crossing["soft"] < SQRT2).all()
        assert top <= SQRT2 * math.tanh(1 / (2 * 0.5)) + TOL  # Cor. 5.5 with reach 1
        assert exact_sensitivity(schema, policy, C, "hard", distance=distance).l2 == SQRT2
        assert exact_sensitivity(schema, policy, C, "soft", 0.5, distance=distance).l2 == pytest.approx(top)


# ----------------------------------------------------------- distances, errors
def test_distances_gower_and_euclidean_and_regions():
    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=10.0), Attribute("y", "numeric", lo=0.0, hi=10.0)])
    C = schema.encode(pd.DataFrame({"x": [0.0, 6.0], "y": [0.0, 6.0]}))
    X = schema.encode(pd.DataFrame({"x": [3.0, 10.0], "y": [4.0, 0.0]}))
    dg = distances(schema, C, X, "gower")
    de = distances(schema, C, X, "euclidean")
    np.testing.assert_allclose(dg, 0.5 * np.array([[0.7, 0.5], [1.0, 1.0]]))
    np.testing.assert_allclose(de, 0.5 * np.array([[0.5, math.hypot(0.3, 0.2)], [1.0, math.hypot(0.4, 0.6)]]))
    # (10, 0) is equidistant in l1 (tie -> candidate 0) but closer to (6, 6) in l2
    assert list(nearest_candidates(schema, C, X, "gower")) == [1, 0]
    assert list(nearest_candidates(schema, C, X, "euclidean")) == [1, 1]
    P = soft_votes(schema, C, X, 0.1, "gower")
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert P[1, 0] == pytest.approx(0.5)
    grid = lattice_records(schema, grid=5)
    assert grid.shape == (25, 2) and grid[1].tolist() == [0.0, 0.25]


def test_errors_are_clear():
    schema, policy, C = _line(10, [2, 7])
    with pytest.raises(BudgetError, match="tau"):
        exact_sensitivity(schema, policy, C, "soft", tau=0.0)
    with pytest.raises(SchemaError, match="distance must be one of"):
        exact_sensitivity(schema, policy, C, "hard", distance="manhattan")
    with pytest.raises(SchemaError, match="population is empty"):
        exact_sensitivity(schema, policy, np.zeros((0, 1)), "hard")
    with pytest.raises(SchemaError, match=r"\(m, 1\) encoded matrix"):
        exact_sensitivity(schema, policy, np.zeros((3, 2)), "hard")
    with pytest.raises(SchemaError, match="vote must be"):
        exact_sensitivity(schema, policy, C, "median")
    big = Schema([Attribute("x", "numeric", lo=0.0, hi=1.0), Attribute("y", "numeric", lo=0.0, hi=1.0)])
    pol = Policy({"x": AttributePolicy("threshold", theta=0.5)})
    with pytest.raises(EnumerationLimitError, match="lower the grid resolution"):
        exact_sensitivity(big, pol, big.sample_uniform(np.random.default_rng(0), 3), "hard", grid=2000)
    with pytest.raises(SchemaError, match="grid of at least 2"):
        exact_sensitivity(big, pol, big.sample_uniform(np.random.default_rng(0), 3), "hard", grid=1)
    with pytest.raises(SchemaError, match="method='line' needs"):
        cat = Schema([Attribute("c", "categorical", levels=list("ab"))])
        exact_sensitivity(cat, Policy({"c": AttributePolicy("complete")}), np.array([[0.0]]), "soft", 0.1,
                          method="line")


def test_theta_zero_and_participation():
    schema, _, C = _line(10, [2, 7])
    none = Policy({"x": AttributePolicy("threshold", theta=0)})
    ex = exact_sensitivity(schema, none, C, "soft", 0.1)
    assert (ex.l2, ex.edges, ex.edge) == (0.0, 0, None)
    assert any("no edge" in n for n in ex.notes)
    assert population_aware_bound(schema, none, C, 0.1).l2 == 0.0 == closed_form_bound(schema, none, 0.1)
    part = Policy({"x": AttributePolicy("threshold", theta=0)}, participation=True)
    assert exact_sensitivity(schema, part, C, "hard").l2 == 1.0
    s = exact_sensitivity(schema, part, C, "soft", 0.1)
    assert 1 / SQRT2 < s.l2 <= 1.0 and s.edge["attribute"] == "participation"
    assert closed_form_bound(schema, part, 0.1) == 1.0
