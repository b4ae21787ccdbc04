"""Tests for blowfish_core.analysis.readouts (policy_readout, pair_path) and blowfish_core.analysis.graphs.

Reference numbers: DESIGN §4-5 (paper Table 3, Table 4, §5.2, Eq. (1)); Cor. 5.2, 5.5;
Remark 3; §5.6.
"""

from __future__ import annotations

import dataclasses

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blowfish_core as bc
from blowfish_core.privacy.accounting import epsilon_eq1, epsilon_exact
from blowfish_core.base.errors import BudgetError, PolicyError, SchemaError
from blowfish_core.analysis.graphs import policy_graph_data
from blowfish_core.model.policy import AttributePolicy, Policy
from blowfish_core.analysis.readouts import pair_path, policy_readout
from blowfish_core.model.sensitivity import SOFT_BOUND_PAD

HSET = settings(max_examples=40, deadline=None)
SQRT2 = math.sqrt(2.0)


def _kinds(ro):
    return [w["kind"] for w in ro["warnings"]]


# ------------------------------------------------------------ reference numbers
@pytest.mark.parametrize("name, reach, qs", [
    ("adult", 0.0192, (0.56, 0.31, 0.16)),
    ("bank", 0.0171, (0.51, 0.28, 0.14)),
    ("xor3", 1 / 28, (0.83, 0.53, 0.29)),
])
def test_table4_reach_and_q(name, reach, qs):
    p = bc.get_preset(name)
    for tau, q in zip((0.015, 0.03, 0.06), qs):
        ro = policy_readout(p.schema, p.default_policy(), tau)
        assert ro["reach"] == pytest.approx(reach, abs=5e-5)
        assert round(ro["q"], 2) == q
        assert ro["q"] == math.tanh(ro["reach"] / (2 * tau))


def test_adult_reaches_section_5_2():
    p = bc.get_preset("adult")
    ro = policy_readout(p.schema, p.policy_with(["hours.per.week"]), 0.03)
    assert ro["per_attribute"]["age"] == pytest.approx(0.2 * 7 / 73, rel=1e-12)
    assert ro["per_attribute"]["hours.per.week"] == pytest.approx(0.2 * 8 / 98, rel=1e-12)
    assert f"{ro['reach']:.4f}" == "0.0192" and ro["argmax"] == "age"
    ro = policy_readout(p.schema, p.policy_with(["hours.per.week", "income"]), 0.03)
    assert ro["reach"] == 0.2 and ro["argmax"] == "income"
    assert "full-weight" in _kinds(ro)


def test_table3_every_attribute():
    p = bc.get_preset("adult")
    ro = policy_readout(p.schema, Policy(dict(p.table3)), 0.03)
    assert ro["per_attribute"]["education.num"] == pytest.approx(0.2 * 2 / 15)
    assert ro["per_attribute"]["workclass"] == 0.2 and ro["per_attribute"]["income"] == 0.2
    assert ro["argmax_all"] == ["workclass", "income"] and ro["argmax"] == "workclass"
    b = bc.get_preset("bank")
    ro = policy_readout(b.schema, Policy(dict(b.table3)), 0.03)
    assert ro["per_attribute"]["job"] == pytest.approx(0.1)  # siblings: 2 of 4 tree steps
    assert ro["per_attribute"]["balance"] == pytest.approx(0.2 * 500 / 120000)
    assert ro["per_attribute"]["age"] == pytest.approx(0.0171, abs=5e-5)


def test_budget_numbers_rho():
    p = bc.get_preset("adult")
    ro = policy_readout(p.schema, p.default_policy(), 0.03, rho=6e-4, delta=1e-5, rounds=8)
    b = ro["budget"]
    assert b["rho"] == 6e-4 and b["rho_t"] == pytest.approx(6e-4 / 8) and b["source"] == "rho"
    assert round(b["epsilon_eq1"], 2) == 0.17
    assert b["epsilon_eq1"] == epsilon_eq1(6e-4, 1e-5)
    assert b["epsilon_exact"] == epsilon_exact(6e-4, 1e-5) < b["epsilon_eq1"]
    s = ro["sigma"]
    assert s["tab-pe"] == pytest.approx(SQRT2 / math.sqrt(2 * 6e-4 / 8), rel=1e-12)
    assert s["hard"] == s["tab-pe"]  # Hard's worst case is sqrt(2) (Cor. 5.3)
    assert s["bf-soft"] == pytest.approx(ro["q"] * (1 + SOFT_BOUND_PAD) * s["hard"], rel=1e-12)  # padded bound
    assert ro["multiplier"] == pytest.approx(1 / ro["q"] ** 2, rel=1e-12)


def test_budget_from_epsilon_round_trips():
    p = bc.get_preset("xor3")
    ro = policy_readout(p.schema, p.default_policy(), 0.03, epsilon=0.5, delta=1e-5)
    assert ro["budget"]["source"] == "epsilon"
    assert ro["budget"]["epsilon_exact"] == pytest.approx(0.5, rel=1e-6)
    ro = policy_readout(p.schema, p.default_policy(), 0.03, epsilon=0.5, delta=1e-5, conversion="eq1")
    assert ro["budget"]["epsilon_eq1"] == pytest.approx(0.5, rel=1e-9)


def test_no_budget_no_sigma():
    p = bc.get_preset("xor3")
    ro = policy_readout(p.schema, p.default_policy(), 0.03)
    assert ro["budget"] is None and ro["sigma"] is None


@pytest.mark.parametrize("kwargs", [dict(tau=0), dict(tau=-1), dict(tau=0.03, rho=-1e-4),
                                    dict(tau=0.03, rho=1e-4, epsilon=1.0), dict(tau=0.03, epsilon=1.0, delta=2.0),
                                    dict(tau=0.03, rho=1e-4, rounds=0)])
def test_bad_budget_raises_budget_error(kwargs):
    p = bc.get_preset("xor3")
    with pytest.raises(BudgetError):
        policy_readout(p.schema, p.default_policy(), **kwargs)


def test_bad_policy_raises_policy_error():
    p = bc.get_preset("adult")
    with pytest.raises(PolicyError, match="threshold must be >= 0"):
        policy_readout(p.schema, Policy({"age": AttributePolicy("threshold", -3)}), 0.03)
    overlap = [["Private", "Federal-gov"], ["Federal-gov", "Local-gov", "State-gov", "Self-emp-not-inc",
                                            "Self-emp-inc", "Without-pay", "Never-worked", "?"]]
    with pytest.raises(PolicyError, match="must not overlap"):
        policy_readout(p.schema, Policy({"workclass": AttributePolicy("block", blocks=overlap)}), 0.03)


# --------------------------------------------------------------------- warnings
def test_warning_full_weight_and_components():
    p = bc.get_preset("adult")
    ro = policy_readout(p.schema, p.policy_with(["workclass"]), 0.03)
    fw = [w for w in ro["warnings"] if w["kind"] == "full-weight"]
    assert [w["attribute"] for w in fw] == ["workclass"]
    assert "Remark 3" in fw[0]["message"] and "near 1" in fw[0]["message"]
    comp = [w for w in ro["warnings"] if w["kind"] == "components"]
    assert comp[0]["attribute"] == "workclass" and "4 connected components" in comp[0]["message"]


def test_warning_participation_floor():
    p = bc.get_preset("adult")
    pol = p.default_policy()
    pol = dataclasses.replace(pol, participation=True)
    ro = policy_readout(p.schema, pol, 0.03)
    assert "participation" in _kinds(ro)
    assert ro["bound"] == 1.0 and ro["bound_l1"] == 1.0  # sqrt(2) q = 0.437 < 1
    assert ro["q_effective"] == pytest.approx(1 / SQRT2)
    assert ro["q"] == pytest.approx(0.3092, abs=1e-4)  # q itself is the policy's


def test_warning_no_protection_and_unprotected():
    p = bc.get_preset("xor3")
    ro = policy_readout(p.schema, Policy(), 0.03)
    assert ro["reach"] == 0 and ro["argmax"] is None and ro["q"] == 0
    assert ro["multiplier"] == math.inf
    assert "no-protection" in _kinds(ro) and "unprotected" not in _kinds(ro)
    ro = policy_readout(p.schema, p.default_policy(), 0.03)
    un = [w for w in ro["warnings"] if w["kind"] == "unprotected"]
    assert un and "'X_2', 'X_3', 'Y'" in un[0]["message"]


def test_warning_threshold_rounds_and_data_derived():
    schema = bc.Schema([bc.Attribute("age", "numeric", lo=0, hi=100, integer=True, unit="years"),
                        bc.Attribute("s", "binary", levels=["a", "b"])],
                       data_derived=True, data_derived_columns=["age"])
    ro = policy_readout(schema, Policy({"age": AttributePolicy("threshold", 7.5)}), 0.03)
    assert ro["per_attribute"]["age"] == pytest.approx(0.5 * 7 / 100)
    assert "threshold-rounds" in _kinds(ro) and "data-derived" in _kinds(ro)


def test_complete_graph_on_ordinal_is_full_weight():
    p = bc.get_preset("xor3")
    ro = policy_readout(p.schema, Policy({"X_1": AttributePolicy("complete")}), 0.03)
    assert ro["per_attribute"]["X_1"] == 0.25
    w = [w for w in ro["warnings"] if w["kind"] == "full-weight"][0]
    assert "complete graph" in w["message"]


# --------------------------------------------------------------------- curves
def test_q_curve_matches_formula_and_is_decreasing():
    p = bc.get_preset("bank")
    ro = policy_readout(p.schema, p.default_policy(), 0.03)
    tau = np.array(ro["curve"]["tau"])
    q = np.array(ro["curve"]["q"])
    assert tau[0] == pytest.approx(1e-3) and tau[-1] == pytest.approx(1.0)
    np.testing.assert_allclose(q, np.tanh(ro["reach"] / (2 * tau)), rtol=1e-12)
    assert np.all(np.diff(q) < 0)
    assert np.all(np.array(ro["curve"]["q_standard_dp"]) >= q)


# ------------------------------------------------------------- property tests
@st.composite
def adult_policies(draw):
    p = bc.get_preset("adult")
    per = {}
    if draw(st.booleans()):
        per["age"] = AttributePolicy("threshold", draw(st.integers(0, 80)))
    if draw(st.booleans()):
        per["hours.per.week"] = AttributePolicy("threshold", draw(st.integers(0, 100)))
    if draw(st.booleans()):
        per["education.num"] = AttributePolicy("threshold", draw(st.integers(0, 16)))
    if draw(st.booleans()):
        per["workclass"] = p.table3["workclass"]
    if draw(st.booleans()):
        per["income"] = AttributePolicy("complete")
    return p.schema, Policy(per, participation=draw(st.booleans()))


@HSET
@given(adult_policies(), st.floats(1e-3, 1.0), st.floats(1e-6, 1.0))
def test_readout_properties(sp, tau, rho):
    schema, pol = sp
    ro = policy_readout(schema, pol, tau, rho=rho)
    per = ro["per_attribute"]
    assert ro["reach"] == max(per.values())  # Cor. 5.2: a max, not a sum
    assert ro["reach"] == bc.record_reach(schema, pol)
    assert 0.0 <= ro["q"] <= 1.0
    assert ro["bound"] <= SQRT2 + 1e-15
    assert ro["bound"] >= (1.0 if pol.participation else SQRT2 * ro["q"]) - 1e-15
    assert ro["sigma"]["bf-soft"] <= ro["sigma"]["hard"] * (1 + 1e-12)
    for n, v in per.items():
        assert 0.0 <= v <= ro["weights"][n] + 1e-15
        assert (n in ro["protected"]) == (v > 0)
    if ro["reach"] > 0:
        assert per[ro["argmax"]] == ro["reach"]


# ------------------------------------------------------------------ pair_path
def test_pair_path_numeric_group_privacy():
    p = bc.get_preset("adult")
    pp = pair_path(p.schema, p.default_policy(), "age", 20, 40, rho=1e-4, epsilon=0.1, delta=1e-5)
    assert pp["length"] == 3 and pp["connected"]  # ceil(20 / 7)
    assert pp["rho_pair"] == pytest.approx(9e-4) and pp["epsilon_pair"] == pytest.approx(0.3)
    assert pp["epsilon_exact_pair"] == epsilon_exact(9e-4, 1e-5)
    assert pp["epsilon_eq1_pair"] == epsilon_eq1(9e-4, 1e-5)  # the zCDP figure at delta, valid for this release
    assert "pure DP" not in pp["message"] and "9 x rho" in pp["message"]
    assert pair_path(p.schema, p.default_policy(), "age", 20, 40, rho=1e-4)["epsilon_eq1_pair"] is None  # no delta
    assert pair_path(p.schema, p.default_policy(), "age", 30, 37)["length"] == 1
    assert pair_path(p.schema, p.default_policy(), "age", 30, 30)["length"] == 0


def test_pair_path_components_and_hierarchy():
    b = bc.get_preset("bank")
    pol = Policy(dict(b.table3))
    pp = pair_path(b.schema, pol, "job", "management", "retired", rho=1e-4)
    assert pp["length"] is None and not pp["connected"] and pp["rho_pair"] is None
    assert "not protected from each other" in pp["message"]
    assert pair_path(b.schema, pol, "job", "management", "admin.", rho=1e-4)["length"] == 1
    assert pair_path(b.schema, pol, "education", "unknown", "tertiary", rho=1e-4)["rho_pair"] == pytest.approx(9e-4)
    a = bc.get_preset("adult")
    pp = pair_path(a.schema, a.default_policy(), "income", "<=50K", ">50K")
    assert pp["length"] is None  # income unprotected under the default policy


def test_pair_path_errors():
    p = bc.get_preset("adult")
    with pytest.raises(PolicyError, match="outside the public domain"):
        pair_path(p.schema, p.default_policy(), "age", 10, 40)
    with pytest.raises(SchemaError, match="unknown attribute"):
        pair_path(p.schema, p.default_policy(), "height", 1, 2)
    with pytest.raises(PolicyError):
        pair_path(p.schema, p.default_policy(), "workclass", "Private", "Astronaut")


# --------------------------------------------------------------------- graphs
def test_graph_band_for_numeric_threshold():
    p = bc.get_preset("adult")
    d = policy_graph_data(p.schema["age"], AttributePolicy("threshold", 7))
    assert d["kind"] == "band" and d["theta"] == 7 and d["unit"] == "years"
    assert d["center"] == 53 and d["band"] == [46, 60] and d["hops"] == math.ceil(73 / 7)
    d = policy_graph_data(p.schema["age"], AttributePolicy("none"))
    assert d["theta"] == 0 and d["hops"] is None


def test_graph_blocks_and_hierarchy_components():
    p = bc.get_preset("adult")
    d = policy_graph_data(p.schema["workclass"], p.table3["workclass"])
    assert d["kind"] == "graph" and d["layout"] == "clusters"
    assert d["n_components"] == 4 and d["n_edges"] == 0 + 3 + 1 + 3
    assert len(d["nodes"]) == 9 and d["edge_x"].count(None) == d["n_drawn_edges"] == 7
    comp = {n["label"]: n["component"] for n in d["nodes"]}
    assert comp["Federal-gov"] == comp["State-gov"] != comp["Private"]
    b = bc.get_preset("bank")
    d = policy_graph_data(b.schema["job"], AttributePolicy("hierarchy"))
    assert d["n_components"] == 4 and d["n_edges"] == 3 + 3 + 1 + 6


def test_graph_cluster_label_sides():
    p = bc.get_preset("adult")
    d = policy_graph_data(p.schema["workclass"], p.table3["workclass"])
    side = {n["label"]: n["label_side"] for n in d["nodes"]}
    assert side["Self-emp-not-inc"] != side["Self-emp-inc"]  # a 2-value cluster: one label above, one below
    assert side["Local-gov"] == "above" and side["State-gov"] == "below"  # away from the cluster centre
    assert side["Never-worked"] == "above" and side["?"] == "below"
    d = policy_graph_data(bc.get_preset("xor3").schema["X_1"], AttributePolicy("threshold", 2))
    assert {n["label_side"] for n in d["nodes"]} == {"below"}


def test_graph_line_for_ordinal_threshold():
    p = bc.get_preset("xor3")
    d = policy_graph_data(p.schema["X_1"], AttributePolicy("threshold", 2))
    assert d["layout"] == "line" and d["n_edges"] == 7 + 6 and d["n_components"] == 1
    assert [n["x"] for n in d["nodes"]] == list(range(8))
    xs = [x for x in d["edge_x"] if x is not None]
    assert min(xs) == 0 and max(xs) == 7
