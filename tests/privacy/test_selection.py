"""Exponential selection (papers/001; issue 14): the Gibbs law, the exact delta, the regret
bound, the constructions of §4.1/§4.2, the calibrations, the exact selection audit and the
sensitivity of the private tau-choice score (exhaustive on a small table)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import integrate

from blowfish_core.privacy import selection
from blowfish_core.base.errors import BudgetError, PolicyError
from blowfish_core.model.metrics import pwerr
from blowfish_core.model.schema import Attribute, Schema
from blowfish_core.privacy.selection import (
    PTR, GlobalScale, LocalScale, SelectionGraph, ShiftedLaplace, SmoothFixed, law_delta, ptr_tests,
)
from blowfish_core.analysis.selection_audit import (
    audit_selection, construction_multiplicity, construction_path, construction_table, run_selection_audit,
    selection_audit_table,
)

E = math.e
scores_st = st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=12)


# ------------------------------------------------------------------ Gibbs law
def test_em_exact_two_candidates():
    P = selection.em_probabilities([0.0, 2.0], 1.0, 1.0)          # weights e^0, e^1
    assert P == pytest.approx([1 / (1 + E), E / (1 + E)], abs=1e-15)
    P = selection.em_probabilities([3.0, 3.0, 3.0], 0.5, 2.0)
    assert P == pytest.approx([1 / 3] * 3, abs=1e-15)


def test_em_stable_for_huge_scores():
    P = selection.em_probabilities([1e6, 1e6 + 2.0], 1.0, 1.0)
    assert np.all(np.isfinite(P)) and P == pytest.approx([1 / (1 + E), E / (1 + E)], abs=1e-9)
    P = selection.em_probabilities([1e6, 0.0, -1e6], 1.0, 1.0)
    assert P.tolist() == [1.0, 0.0, 0.0]


@settings(deadline=None)
@given(scores_st, st.floats(1e-3, 1e3), st.floats(1e-3, 10.0))
def test_em_sums_to_one(s, b, eps):
    P = selection.em_probabilities(s, b, eps)
    assert P.shape == (len(s),) and abs(P.sum() - 1.0) < 1e-12 and np.all(P >= 0)


@settings(deadline=None)
@given(scores_st, st.floats(-1e6, 1e6, allow_nan=False), st.floats(1e-2, 1e2), st.floats(1e-2, 5.0))
def test_em_invariant_to_constant(s, c, b, eps):
    P = selection.em_probabilities(s, b, eps)
    Q = selection.em_probabilities(np.asarray(s) + c, b, eps)
    assert np.abs(P - Q).max() < 1e-6


def test_em_counts_equal_expanded():
    P = selection.em_probabilities([5.0, 0.0], 2.0, 1.0, counts=[1, 4])
    full = selection.em_probabilities([5.0, 0, 0, 0, 0], 2.0, 1.0)
    assert P == pytest.approx([full[0], full[1:].sum()], abs=1e-15)


@pytest.mark.parametrize("kw", [dict(scale=0.0), dict(scale=-1.0), dict(epsilon=0.0), dict(scale=float("nan"))])
def test_em_bad_inputs(kw):
    args = dict(scores=[1.0, 2.0], scale=1.0, epsilon=1.0) | kw
    with pytest.raises(BudgetError):
        selection.em_probabilities(**args)
    with pytest.raises(BudgetError, match="scores"):
        selection.em_probabilities([1.0, float("nan")], 1.0, 1.0)


# ----------------------------------------------------------------- delta
def test_selection_delta_identical_and_disjoint():
    p = np.array([0.2, 0.3, 0.5])
    assert selection.selection_delta(p, p, 0.0) == 0.0 and selection.selection_delta(p, p, 1.0) == 0.0
    assert selection.selection_delta([1, 0, 0], [0, 0.5, 0.5], 0.0) == 1.0
    assert selection.selection_delta([1, 0, 0], [0, 0.5, 0.5], 3.0) == 1.0
    # hand value: max(0.9 − e·0.1, 0) + ... = 0.9 − 0.27183 one way
    assert selection.hockey_stick([0.9, 0.1], [0.1, 0.9], 1.0) == pytest.approx(0.9 - E * 0.1, abs=1e-15)
    with pytest.raises(BudgetError):
        selection.hockey_stick([0.5, 0.5], [1.0], 1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-50, 50), st.floats(-1, 1)), min_size=2, max_size=10),
       st.floats(0.1, 10.0), st.floats(0.05, 4.0))
def test_lemma_2_3_edge_with_oscillation_below_scale_is_pure(pairs, b, eps):
    """Lemma 2.3: omega(x, x') <= b gives likelihood ratio <= e^eps both ways, so delta(eps) = 0."""
    s = np.array([p[0] for p in pairs])
    s2 = s + b * np.array([p[1] for p in pairs])
    d = selection.selection_delta(selection.em_probabilities(s, b, eps), selection.em_probabilities(s2, b, eps), eps)
    assert d <= 1e-12


# ----------------------------------------------------------------- regret
def test_regret_bound_value_and_budget_helpers():
    assert selection.regret_bound(1.0, 1.0, 10, 0.1) == pytest.approx(2 * math.log(100))
    assert selection.selection_rho(1.0) == 0.125
    assert selection.selection_epsilon(1e-4) == pytest.approx(0.0282843, abs=1e-7)
    assert selection.selection_rho(selection.selection_epsilon(3e-3)) == pytest.approx(3e-3)
    with pytest.raises(BudgetError, match="rho"):
        selection.regret_bound(1.0, 1.0, 10, 1.0)


@settings(max_examples=60, deadline=None)
@given(scores_st, st.floats(0.1, 10.0), st.floats(0.1, 5.0), st.floats(1e-3, 0.5))
def test_regret_bound_holds_exactly(s, b, eps, rho):
    """Eq. (2): Pr[gap > (2b/eps) log(m/rho)] <= rho, on the exact law."""
    s = np.asarray(s)
    P = selection.em_probabilities(s, b, eps)
    gap = s.max() - s
    assert P[gap > selection.regret_bound(b, eps, s.size, rho)].sum() <= rho + 1e-12


# ---------------------------------------------------------- constructions
PATH = {10: 0.46931, 30: 0.49583, 100: 0.49875}
MULT = {(1001, 18.0): 0.40067, (10**6 + 1, 40.0): 0.87675, (10**12 + 1, 80.0): 0.993925}


def test_construction_path_approaches_one_half():
    vals = {}
    for G, want in PATH.items():
        c = construction_path(G, 1.0)
        vals[G] = c.delta
        assert c.delta == pytest.approx(want, abs=5e-6)
    # the two identical score vectors and the hand values of the notes (G = 10)
    c = construction_path(10, 1.0)
    i, j = c.focus
    assert c.graph.scores[i].tolist() == c.graph.scores[j].tolist() == [100.0, 0.0]
    assert c.graph.local_sensitivity()[[i, j]].tolist() == [10.0, 1000.0]
    assert c.broken.law(c.graph, i).marginal()[1] == pytest.approx(1 / (1 + math.exp(5)), abs=1e-12)
    assert c.broken.law(c.graph, j).marginal()[1] == pytest.approx(1 / (1 + math.exp(0.05)), abs=1e-12)
    assert vals[10] < vals[30] < vals[100] < 0.5
    print("\n§4.1 path, local scale, eps_s = 1, M = G^2: " + ", ".join(f"G={G}: {v:.5f}" for G, v in vals.items()))


def test_construction_multiplicity_approaches_one():
    vals = {}
    for (m, C), want in MULT.items():
        c = construction_multiplicity(m, C, 0.25, 0.5)
        vals[m] = c.delta
        assert c.delta == pytest.approx(want, abs=5e-6)
    c = construction_multiplicity(1001, 18.0)
    assert c.graph.smooth_sensitivity(0.5)[:2] == pytest.approx([math.exp(-0.5), 1.0])
    assert c.broken.law(c.graph, 0).marginal()[0] == pytest.approx(0.62516, abs=5e-6)
    assert c.broken.law(c.graph, 1).marginal()[0] == pytest.approx(0.082583, abs=5e-7)
    assert vals[1001] < vals[10**6 + 1] < vals[10**12 + 1] < 1.0
    print("\n§4.2 multiplicity, smooth_fixed lambda = 0.25, beta = 0.5, delta(1): "
          + ", ".join(f"m={m}: {v:.5f}" for m, v in vals.items()))


def test_construction_table_floor_masks_but_does_not_fix():
    assert construction_table(b0=0.01).delta == pytest.approx(0.80937, abs=5e-6)
    assert construction_table(b0=0.1).delta == pytest.approx(0.68693, abs=5e-6)
    c = construction_table(b0=0.5)
    assert c.delta == 0.0                                   # the floor masks the bug here ...
    assert audit_selection(c.graph, c.broken).passed
    c3 = construction_table(b0=0.5, extra=3)                # ... but a larger vote gap breaks it again
    i, j = c3.focus
    assert c3.graph.scores[i].tolist() == c3.graph.scores[j].tolist() == [5, 1, 1, 1, 1, 1, 1, 1]
    want = 7 / (7 + math.exp(2)) - E * 7 / (7 + math.exp(4))
    assert c3.delta == pytest.approx(want, abs=1e-12) and want > 0.17
    assert not audit_selection(c3.graph, c3.broken).passed
    i, j = c.focus
    assert c.graph.scores[i].tolist() == c.graph.scores[j].tolist() == [2, 1, 1, 1, 1, 1, 1, 1]


def test_construction_bad_inputs():
    with pytest.raises(BudgetError, match="G"):
        construction_path(0)
    with pytest.raises(BudgetError, match="m"):
        construction_multiplicity(1, 18.0)


# ----------------------------------------------------------- calibrations
def test_calibration_table_and_labels():
    assert set(selection.SCALE_RULES) == {"global", "shifted_laplace", "ptr", "local", "smooth_fixed"}
    for name, cls in selection.SCALE_RULES.items():
        cal = cls()
        broken = name in ("local", "smooth_fixed")
        assert cal.private is (not broken)
        assert (selection.NOT_PRIVATE in cal.label) is broken
        assert isinstance(cal, selection.ScaleRule)
    assert selection.make_scale_rule("shifted_laplace", eta=1e-3).claim() == (2.0, 1e-3)
    with pytest.raises(BudgetError, match="calibration"):
        selection.make_scale_rule("smooth")
    with pytest.raises(BudgetError, match="parameter"):
        selection.make_scale_rule("global", beta=1.0)
    # deprecated aliases, one release
    assert selection.CALIBRATIONS is selection.SCALE_RULES and selection.make_calibration is selection.make_scale_rule


def test_shifted_laplace_underestimates_with_probability_eta():
    from scipy import stats

    cal = ShiftedLaplace(epsilon_t=0.5, eta=1e-3, b0=0.01, C=2.0)
    g = construction_path(10).graph
    law = cal.law(g, 1)
    mu, a, floor = law.continuous
    assert a == 4.0 and mu == pytest.approx(10 + 4 * math.log(1 / 2e-3))
    assert stats.laplace.cdf(10.0, loc=mu, scale=a) == pytest.approx(1e-3, rel=1e-12)   # Pr[B < LS] = eta
    b, w = selection._quadrature_nodes([law.continuous])
    tot = law.joint.sum() + float((w * stats.laplace.pdf(b, mu, a)).sum())
    assert tot == pytest.approx(1.0, abs=1e-12)
    assert law.joint.sum() == pytest.approx(stats.laplace.cdf(floor, mu, a), rel=1e-12)
    assert law.marginal().sum() == pytest.approx(1.0, abs=1e-12)


def test_shifted_laplace_quadrature_matches_scipy_quad():
    """The composite Gauss-Legendre delta of law_delta against scipy.integrate.quad."""
    c = construction_table()
    cal = ShiftedLaplace(epsilon_s=1.0, epsilon_t=1.0, eta=1e-2, b0=0.01)
    names = c.graph.names
    i, j = names.index("B+(7, 0)"), names.index("B+(8, 0)")
    P, Q = cal.law(c.graph, i), cal.law(c.graph, j)
    for eps in (0.5, 2.0):
        mine = law_delta(P, Q, eps)

        e_eps = math.exp(eps)

        def f(b, A=P, B=Q, e=e_eps):
            return float(np.maximum(0.0, A.density(np.array([b])) - e * B.density(np.array([b]))).sum())

        def g(b, A=P, B=Q, e=e_eps):
            return f(b, B, A, e)

        mu, a, fl = P.continuous
        pts = [fl, 1.0, mu - 5 * a, mu, mu + 5 * a, mu + 60 * a]
        ref = []
        for h in (f, g):
            val = sum(integrate.quad(h, lo, hi, limit=400, epsabs=1e-15, epsrel=1e-12)[0]
                      for lo, hi in zip(pts[:-1], pts[1:]))
            atom = float(np.maximum(0.0, (P.joint if h is f else Q.joint)
                                    - math.exp(eps) * (Q.joint if h is f else P.joint)).sum())
            ref.append(val + atom)
        assert mine == pytest.approx(max(ref), abs=1e-13)
        assert 0 < mine
    assert law_delta(P, Q, 2.0) <= 1e-2


def test_ptr_tests_and_exact_law_against_sampling():
    assert [ptr_tests(J) for J in (1, 2, 3, 4, 5, 8, 9, 11, 16, 17)] == [0, 1, 2, 2, 3, 3, 4, 4, 4, 5]
    cal = PTR(epsilon_t=1.0, eta=0.05, grid=(1.0, 10.0, 100.0, 1000.0), cap=8.0)
    g = construction_path(10).graph
    grid = cal.grid_for(g)
    phi = cal.certificates(g, grid)
    assert phi[:, 0].tolist() == [0, 0, 0, 0] and phi[:, 1].tolist() == [2, 1, 0, 0]
    assert phi[:, 3].tolist() == [8, 8, 8, 8]                # H_J empty: the cap
    rng = np.random.default_rng(3)
    for v in range(4):
        exact = cal.scale_law(phi[v], grid.size)
        assert exact.sum() == pytest.approx(1.0, abs=1e-14)
        draws = np.bincount([cal.sample_index(phi[v], grid.size, rng) for _ in range(20000)], minlength=4) / 20000
        assert np.abs(draws - exact).max() < 0.015
    with pytest.raises(PolicyError, match="grid"):
        PTR(grid=(1.0, 10.0)).grid_for(g)                   # top below GS = 1000


def test_regret_of_valid_calibrations():
    g = construction_table().graph
    v = g.names.index("B+(7, 0)")
    gap, fail = GlobalScale(epsilon_s=1.0).regret(g, v, 0.05)
    assert gap == pytest.approx(2 * math.log(8 / 0.05)) and fail == 0.05
    sl = ShiftedLaplace(epsilon_s=1.0, epsilon_t=1.0, eta=1e-6, b0=0.01)
    gap, fail = sl.regret(g, v, 0.05)
    bbar = 1.0 + math.log(1 / 2e-6) + math.log(1 / 0.1)
    assert gap == pytest.approx(2 * bbar * math.log(8 / 0.05)) and fail == 0.1
    assert sl.shift(g) == pytest.approx(13.122, abs=1e-3)   # the notes' example shift (C = 1, eps_t = 1)
    gap, fail = PTR(grid=(0.25, 0.5, 1.0)).regret(g, v, 0.05)
    assert gap == pytest.approx(2 * 1.0 * math.log(8 / 0.05))   # LS = 1 at D: the search ends at b_J


# ---------------------------------------------------------------- audit
def test_selection_audit_verdicts():
    results = run_selection_audit()
    print("\n" + selection_audit_table(results))
    for r, expected in results:
        assert r.passed is expected, (r.case, r.domain, r.worst_delta)
        if not r.private:
            assert selection.NOT_PRIVATE in r.label
    worst = {(r.calibration, r.domain): r.worst_delta for r, _ in results}
    assert worst[("local", "table")] == pytest.approx(0.80937, abs=5e-6)
    assert worst[("local", "path G=10")] == pytest.approx(0.46931, abs=5e-6)
    assert worst[("smooth_fixed", "multiplicity m=1001")] == pytest.approx(0.40067, abs=5e-6)
    assert worst[("global", "table")] == 0.0
    assert 0 < worst[("shifted_laplace", "table")] <= 1e-6
    assert 0 < worst[("ptr", "path G=10")] <= 1e-6


graph_st = st.tuples(st.integers(3, 6), st.lists(st.integers(0, 12), min_size=18, max_size=18),
                     st.booleans())


def _random_graph(spec) -> SelectionGraph:
    """A path (or a cycle) of V datasets, 3 score groups with multiplicities (1, 2, 3)."""
    V, vals, cycle = spec
    scores = np.array(vals[: 3 * V], dtype=float).reshape(V, 3)
    edges = [(i, i + 1) for i in range(V - 1)] + ([(V - 1, 0)] if cycle and V > 3 else [])
    return SelectionGraph([f"d{i}" for i in range(V)], scores, edges, counts=[1, 2, 3])


@settings(max_examples=25, deadline=None)
@given(graph_st, st.floats(0.2, 2.0), st.floats(0.2, 2.0), st.sampled_from([1e-2, 1e-4]))
def test_valid_calibrations_pass_on_random_graphs(spec, eps_s, eps_t, eta):
    """Property (Thm 5.2 / Cor. 5.3 / §6 / Lemma 2.3): on every edge of random dataset graphs the exact
    delta at the claimed epsilon is <= the claimed delta."""
    g = _random_graph(spec)
    assume(g.global_sensitivity() > 0)
    for cal in (GlobalScale(epsilon_s=eps_s), ShiftedLaplace(epsilon_s=eps_s, epsilon_t=eps_t, eta=eta, b0=0.05),
                PTR(epsilon_s=eps_s, epsilon_t=eps_t, eta=eta, cap=8.0)):
        r = audit_selection(g, cal)
        assert r.passed, (cal.name, r.worst_delta, r.claim)


def test_audit_local_and_smooth_fail_on_every_construction_size():
    for G in (10, 30):
        c = construction_path(G)
        assert not audit_selection(c.graph, LocalScale()).passed
        assert audit_selection(c.graph, GlobalScale()).passed
    c = construction_multiplicity(10**6 + 1, 40.0)
    assert audit_selection(c.graph, SmoothFixed()).worst_delta == pytest.approx(0.87675, abs=5e-6)


# ------------------------------------------------- private choice of tau
def test_score_sensitivity_values_and_errors():
    assert selection.score_sensitivity("dp", 5) == 1.0
    assert selection.score_sensitivity("blowfish", 5) == pytest.approx(0.4)
    assert selection.score_sensitivity("blowfish", 2) == 1.0
    assert selection.score_sensitivity("blowfish", 5, metric="hoerr") == 1.0
    for bad in (dict(notion="policy", p=5), dict(notion="dp", p=1), dict(notion="dp", p=2.0)):
        with pytest.raises(BudgetError):
            selection.score_sensitivity(**bad)


def test_error_regret_bound_adult_example():
    """design/selection.md B5: Adult (n = 26,048), K = 9, rho_sel = 1e-4, 95%: 0.028 (DP), 0.011 (age policy)."""
    eps = selection.selection_epsilon(1e-4)
    dp = selection.error_regret_bound(26048, selection.score_sensitivity("dp", 5), eps, 9, 0.05)
    pol = selection.error_regret_bound(26048, selection.score_sensitivity("blowfish", 5), eps, 9, 0.05)
    assert dp == pytest.approx(2 / 26048 * 2 / eps * math.log(9 / 0.05)) and round(dp, 3) == 0.028
    assert pol == pytest.approx(0.4 * dp) and round(pol, 3) == 0.011


def test_private_choice_plan_adult():
    plan = selection.private_choice_plan(26048, 5, "blowfish", [1e-3] * 9, 1e-4)
    assert plan.K == 9 and plan.sensitivity == pytest.approx(0.4)
    assert plan.epsilon_sel == pytest.approx(math.sqrt(8e-4))
    assert plan.rho_selection == pytest.approx(1e-4) and plan.rho_runs == pytest.approx(9e-3)
    assert plan.rho_total == pytest.approx(9.1e-3)
    assert plan.temperature == pytest.approx(0.8 / math.sqrt(8e-4))
    assert plan.temperature_error == pytest.approx(2 * plan.temperature / 26048)
    assert plan.regret_error == pytest.approx(selection.error_regret_bound(26048, 0.4, plan.epsilon_sel, 9, 0.05))
    with pytest.raises(BudgetError, match="rho_runs"):
        selection.private_choice_plan(100, 5, "dp", [1e-3], 1e-4)
    with pytest.raises(BudgetError, match="rho_sel"):
        selection.private_choice_plan(100, 5, "dp", [1e-3, 1e-3], 0.0)


def test_em_bounded_range_is_not_gdp_counterexample():
    """design/selection.md B4: EM with eps = 1 on two candidates (randomized response, log-odds ±0.5)
    is 1-bounded-range ((1/8)-zCDP) but not mu = sqrt(2 rho) = 0.5-GDP: at alpha = 0.3775 its trade-off
    is 0.3775 < G_0.5(0.3775) = 0.4255.  Hence no mu-GDP epsilon for a ledger with an EM row."""
    from scipy.stats import norm

    P = selection.em_probabilities([1.0, 0.0], 1.0, 1.0)
    Q = selection.em_probabilities([0.0, 1.0], 1.0, 1.0)
    loss = np.log(P / Q)                                             # (0.5, -0.5)
    assert loss.max() - loss.min() == pytest.approx(1.0)             # 1-bounded range
    alpha = P[1]                                                     # test "reject on outcome 1"
    beta = 1.0 - Q[1]
    mu = math.sqrt(2 * selection.selection_rho(1.0))
    assert mu == 0.5 and alpha == pytest.approx(0.3775, abs=1e-4) and beta == pytest.approx(0.3775, abs=1e-4)
    g = norm.cdf(norm.ppf(1 - alpha) - mu)
    assert g == pytest.approx(0.4255, abs=5e-4) and beta < g


def test_select_private_law_and_seed():
    errors = [0.30, 0.10, 0.12]
    sel = selection.select_private(errors, 1000, 0.4, 0.5, np.random.default_rng(1))
    want = selection.em_probabilities([-150.0, -50.0, -60.0], 0.4, 0.5)
    assert sel.probabilities == pytest.approx(want, abs=1e-15)
    idx, P = selection.select_private(errors, 1000, 0.4, 0.5, np.random.default_rng(1))
    assert idx == sel.index and 0 <= idx < 3
    assert selection.error_scores(errors, 10).tolist() == [-1.5, -0.5, -0.6]
    with pytest.raises(BudgetError, match="errors"):
        selection.select_private([-0.1, 0.2], 10, 1.0, 1.0, np.random.default_rng(0))
    with pytest.raises(BudgetError, match="rng"):
        selection.select_private([0.1, 0.2], 10, 1.0, 1.0, 0)


SMALL = Schema([Attribute("A", "ordinal", levels=[0, 1, 2]), Attribute("B", "ordinal", levels=[0, 1]),
                Attribute("C", "ordinal", levels=[0, 1, 2])])
DOMAIN = np.array(list(itertools.product(*[a.domain_codes().tolist() for a in SMALL.attributes])))


def _u(D: np.ndarray, S: np.ndarray) -> float:
    return -0.5 * D.shape[0] * pwerr(SMALL, D, S)


def _policy_neighbours(D: np.ndarray, protected: tuple[int, ...]):
    """Every Blowfish neighbour: one record's protected attribute moves one level (threshold 1)."""
    for r in range(D.shape[0]):
        for a in protected:
            L = SMALL.attributes[a].size
            lev = int(round(D[r, a] * (L - 1)))
            for nl in (lev - 1, lev + 1):
                if 0 <= nl < L:
                    D2 = D.copy()
                    D2[r, a] = nl / (L - 1)
                    yield D2


def _standard_neighbours(D: np.ndarray):
    for r in range(D.shape[0]):
        for x in DOMAIN:
            if not np.array_equal(x, D[r]):
                D2 = D.copy()
                D2[r] = x
                yield D2


def test_score_sensitivity_exhaustive_small_table():
    """Every 2-record table D over a 3 x 2 x 3 domain (324 tables), the released table S in
    {D itself, three fixed tables}, every replace-one neighbour and every policy neighbour
    (A protected, threshold 1; and A and C protected): max |Δu| <= the claim, attained."""
    p = SMALL.p
    rng = np.random.default_rng(0)
    fixed = [DOMAIN[rng.integers(0, len(DOMAIN), size=k)] for k in (1, 3, 5)]
    worst = {"dp": 0.0, "A": 0.0, "A,C": 0.0}
    for i, j in itertools.product(range(len(DOMAIN)), repeat=2):
        D = DOMAIN[[i, j]].copy()
        for S in [D.copy()] + fixed:
            u0 = _u(D, S)
            for D2 in _standard_neighbours(D):
                worst["dp"] = max(worst["dp"], abs(_u(D2, S) - u0))
            for key, prot in (("A", (0,)), ("A,C", (0, 2))):
                for D2 in _policy_neighbours(D, prot):
                    worst[key] = max(worst[key], abs(_u(D2, S) - u0))
    print(f"\nexhaustive max |Δu| (n = 2, p = 3): {worst}")
    assert worst["dp"] == pytest.approx(selection.score_sensitivity("dp", p), abs=1e-12)
    assert worst["A"] == pytest.approx(selection.score_sensitivity("blowfish", p), abs=1e-12)
    assert worst["A,C"] == pytest.approx(selection.score_sensitivity("blowfish", p), abs=1e-12)
    assert selection.score_sensitivity("blowfish", p) == pytest.approx(2 / 3)


def test_score_sensitivity_random_larger_tables():
    """n = 6 and p = 3 random tables: every neighbour stays within the bound."""
    rng = np.random.default_rng(5)
    for _ in range(15):
        D = DOMAIN[rng.integers(0, len(DOMAIN), size=6)].copy()
        S = DOMAIN[rng.integers(0, len(DOMAIN), size=rng.integers(1, 9))]
        u0 = _u(D, S)
        assert max(abs(_u(D2, S) - u0) for D2 in _standard_neighbours(D)) <= 1.0 + 1e-12
        assert max(abs(_u(D2, S) - u0) for D2 in _policy_neighbours(D, (0,))) <= 2 / 3 + 1e-12


def test_audit_has_power_against_mistakes_in_the_valid_calibrations():
    """Pitfalls 3 and 6 of the notes, made on purpose (test-only subclasses): the exact audit FAILS
    a shifted Laplace without its upward shift or with C below GS of LS, and a PTR with tau = 0."""

    class NoShift(ShiftedLaplace):
        def shift(self, graph):
            return 0.0

    class SmallC(ShiftedLaplace):
        def c_value(self, graph):
            return 0.05 * graph.ls_sensitivity()

    class NoTau(PTR):
        def parameters(self, J):
            L, s, _ = super().parameters(J)
            return L, s, 0.0

    path, table = construction_path(10).graph, construction_table().graph
    got = {name: audit_selection(g, cal) for name, g, cal in (
        ("no shift, path", path, NoShift()), ("no shift, table", table, NoShift()),
        ("small C, path", path, SmallC()), ("tau 0, path", path, NoTau()))}
    for r in got.values():
        assert not r.passed and r.claim == (2.0, 1e-6)
    assert got["no shift, table"].worst_delta == pytest.approx(0.21677, abs=5e-5)
    assert got["small C, path"].worst_delta > 0.99
    assert got["tau 0, path"].worst_delta > 0.1
