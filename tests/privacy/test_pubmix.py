"""PubMix / LinMix (papers/003): beta_min (Thm 4.1), floor raising (Defs 4.3-4.4), Remark 4.5,
the PLD of one release, the sampler, errors and the one-release audit (issue 13, "Must show" 1 and 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blowfish_core.privacy import pubmix as pm
from blowfish_core.base.errors import BudgetError, DataError
from blowfish_core.analysis.pubmix_audit import PUBMIX_VARIANTS, run_pubmix_audit

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def closed_form_m1(eps, delta, n, n1):
    return max(0.0, (1 - n * delta) / (1 + n * (math.exp(eps) - 1) * n1))


# ---------------------------------------------------------------- beta_min
@pytest.mark.parametrize("eps,delta,n,n1,expected", [
    (1.0, 1e-3, 100, 0.0, 0.9),                        # no noise floor: (1 - n delta)
    (5.0, 1 / 2400, 1200, 1e-3, 0.5 / (1 + 1.2 * (math.e**5 - 1))),
    (math.log(2), 0.0, 10, 0.1, None),                 # delta = 0 is refused (BudgetError below)
    (2.0, 0.2, 10, 0.05, 0.0),                         # delta >= 1/n: one draw of the exact histogram is fine
])
def test_beta_min_m1_exact_values(eps, delta, n, n1, expected):
    if expected is None:
        with pytest.raises(BudgetError, match="delta"):
            pm.beta_min(eps, delta, n, 1, n1)
        return
    assert pm.beta_min(eps, delta, n, 1, n1) == pytest.approx(expected, abs=1e-12)


@SETTINGS
@given(eps=st.floats(0.05, 8.0), n=st.integers(1, 100_000), n1=st.floats(0.0, 0.5),
       frac=st.floats(0.0, 1.2))
def test_beta_min_m1_closed_form(eps, n, n1, frac):
    delta = min(max(frac / n, 1e-12), 0.999)
    assert pm.beta_min(eps, delta, n, 1, n1) == pytest.approx(closed_form_m1(eps, delta, n, n1), abs=1e-12)


@SETTINGS
@given(eps=st.floats(0.1, 6.0), logd=st.floats(-8, -2), n=st.integers(10, 5000), n1=st.floats(1e-5, 0.3),
       m1=st.integers(1, 300), dm=st.integers(0, 300))
def test_beta_min_non_decreasing_in_n_samples(eps, logd, n, n1, m1, dm):
    delta = 10.0**logd
    assert pm.beta_min(eps, delta, n, m1, n1) <= pm.beta_min(eps, delta, n, m1 + dm, n1) + 1e-12


@SETTINGS
@given(eps=st.floats(0.1, 6.0), logd=st.floats(-8, -2), n=st.integers(10, 5000), m=st.integers(1, 400),
       a=st.floats(0.0, 0.4), b=st.floats(0.0, 0.4))
def test_beta_min_non_increasing_in_n1(eps, logd, n, m, a, b):
    delta = 10.0**logd
    lo, hi = min(a, b), max(a, b)
    assert pm.beta_min(eps, delta, n, m, hi) <= pm.beta_min(eps, delta, n, m, lo) + 1e-12
    # and in the second mass (Lemma C.5), both labellings
    assert pm.beta_min(eps, delta, n, m, lo, hi) <= pm.beta_min(eps, delta, n, m, lo, lo) + 1e-12
    assert pm.beta_min(eps, delta, n, m, lo, hi) == pm.beta_min(eps, delta, n, m, hi, lo)


@SETTINGS
@given(eps=st.floats(0.1, 6.0), logd=st.floats(-7, -2), n=st.integers(5, 3000), m=st.integers(1, 200),
       n1=st.floats(1e-4, 0.3))
def test_beta_min_is_the_crossing(eps, logd, n, m, n1):
    """h(beta_min) <= delta, and just below beta_min the release is not (eps, delta)-DP."""
    delta = 10.0**logd
    b = pm.beta_min(eps, delta, n, m, n1)
    assert pm.pubmix_delta(b, eps, n, m, n1) <= delta
    if b > 1e-9:
        assert pm.pubmix_delta(b * (1 - 1e-6), eps, n, m, n1) > delta


@SETTINGS
@given(beta=st.floats(0.0, 1.0), eps=st.floats(0.1, 6.0), n=st.integers(2, 2000), m=st.integers(1, 120),
       n1=st.floats(0.0, 0.3), gap=st.floats(0.0, 0.2))
def test_binomial_route_equals_eq23_grid(beta, eps, n, m, n1, gap):
    """The O(m) regrouping equals Eq. (23) evaluated term by term in log space."""
    a = pm.pubmix_delta(beta, eps, n, m, n1, n1 + gap)
    g = pm.pubmix_delta(beta, eps, n, m, n1, n1 + gap, method="grid")
    assert a == pytest.approx(g, rel=1e-9, abs=1e-15)


def test_eq23_hand_value_m2():
    """m = 2, every (lambda, mu) term of Eq. (23) written out by hand."""
    beta, eps, n, N1, N2 = 0.3, 1.0, 10, 0.05, 0.1
    s = (1 - beta) / n
    r1, q1, r2, q2 = beta * N1 + s, beta * N1, beta * N2 + s, beta * N2
    c = 1 - beta * (N1 + N2) - s
    e = math.e
    terms = {(0, 0): (c**2, c**2), (1, 0): (2 * c * r1, 2 * c * q1), (0, 1): (2 * c * q2, 2 * c * r2),
             (2, 0): (r1**2, q1**2), (0, 2): (q2**2, r2**2), (1, 1): (2 * r1 * q2, 2 * q1 * r2)}
    h1 = sum(max(p - e * q, 0.0) for p, q in terms.values())
    r1, q1, r2, q2 = beta * N2 + s, beta * N2, beta * N1 + s, beta * N1
    terms = {(1, 0): (2 * c * r1, 2 * c * q1), (2, 0): (r1**2, q1**2), (1, 1): (2 * r1 * q2, 2 * q1 * r2)}
    h2 = sum(max(p - e * q, 0.0) for p, q in terms.values())
    assert pm.pubmix_delta(beta, eps, n, 2, N1, N2) == pytest.approx(max(h1, h2), rel=1e-12)


@pytest.mark.parametrize("eps,delta,n,m,N", [
    (1.0, 1e-3, 100, 10, 0.01),
    (2.0, 1e-4, 50, 30, 0.05),
    (0.5, 1e-5, 1000, 64, 0.004),
])
def test_hockey_stick_at_beta_min_matches_dp_accounting(eps, delta, n, m, N):
    """n1 = n2: h at beta_min = dp-accounting's delta(eps) of the m-fold three-point pair, to 1e-6."""
    b = pm.beta_min(eps, delta, n, m, N)
    ours = pm.pubmix_delta(b, eps, n, m, N)
    assert ours == pytest.approx(delta, rel=1e-6)
    pld = pm.pubmix_pld(eps, delta, n, m, N, value_discretization_interval=2e-6)
    theirs = pld.get_delta_for_epsilon(eps)
    assert abs(theirs - ours) <= 1e-6
    assert theirs >= ours - 1e-12  # pessimistic discretization is an upper bound


def test_beta_min_cached():
    pm._beta_min_cached.cache_clear()
    pm.beta_min(1.0, 1e-5, 26048, 512, 1 / 512)
    pm.beta_min(1.0, 1e-5, 26048, 512, 1 / 512)
    info = pm._beta_min_cached.cache_info()
    assert info.hits >= 1 and info.misses == 1


def test_three_point_pair_is_symmetric():
    P, Q = pm.three_point_pair(0.4, 100, 0.01)
    assert P.sum() == pytest.approx(1) and Q.sum() == pytest.approx(1)
    assert P[0] == pytest.approx(Q[1]) and P[1] == pytest.approx(Q[0]) and P[2] == Q[2]


# ---------------------------------------------------------------- WF / MIFR
def test_water_fill_and_mifr_hand_values():
    a = np.array([0.5, 0.3, 0.15, 0.05, 0.0])
    np.testing.assert_allclose(pm.water_fill(a, 0.1), [0.45, 0.25, 0.1, 0.1, 0.1], atol=1e-15)
    # MIFR: M = 0.15; the cheapest donor set with excess >= 0.15 is {0.3} (excess 0.2)
    np.testing.assert_allclose(pm.mifr(a, 0.1), [0.5, 0.15, 0.15, 0.1, 0.1], atol=1e-15)
    np.testing.assert_allclose(pm.water_fill(a, 0.2), np.full(5, 0.2), atol=1e-15)
    np.testing.assert_allclose(pm.mifr(a, 0.0), a)
    # tie: A = (0.6, 0.4, 0, 0), t = 0.2: WF levels to (0.4, 0.2, 0.2, 0.2); MIFR donor {0.6}
    b = np.array([0.6, 0.4, 0.0, 0.0])
    np.testing.assert_allclose(pm.water_fill(b, 0.2), [0.4, 0.2, 0.2, 0.2], atol=1e-15)
    np.testing.assert_allclose(pm.mifr(b, 0.2), [0.2, 0.4, 0.2, 0.2], atol=1e-15)


@pytest.mark.parametrize("search", ["exact", "greedy"])
def test_floor_at_one_over_d_is_uniform(search):
    rng = np.random.default_rng(0)
    for d in (3, 7, 40, 128):
        a = rng.dirichlet(np.full(d, 0.5))
        np.testing.assert_allclose(pm.water_fill(a, 1 / d), np.full(d, 1 / d), atol=1e-14)
        if search == "exact" and (a > 1 / d).sum() > pm.MAX_EXACT_DONORS:
            continue
        np.testing.assert_allclose(pm.mifr(a, 1 / d, search=search), np.full(d, 1 / d), atol=1e-14)


@st.composite
def pmf_and_floor(draw):
    d = draw(st.integers(2, 40))
    w = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=d, max_size=d)))
    zeros = draw(st.lists(st.booleans(), min_size=d, max_size=d))
    w = np.where(zeros, 0.0, w)
    if w.sum() <= 0:
        w[0] = 1.0
    a = w / w.sum()
    t = draw(st.floats(0.0, 1.0)) / d
    return a, t


@SETTINGS
@given(pmf_and_floor(), st.sampled_from(["wf", "mifr-auto", "mifr-greedy"]))
def test_floor_raising_keeps_floor_sums_to_one_minimal_tv(at, how):
    a, t = at
    if how == "wf":
        b = pm.water_fill(a, t)
    else:
        b = pm.mifr(a, t, search=how.split("-")[1])
    assert b.min() >= t - 1e-12
    assert b.sum() == pytest.approx(1.0, abs=1e-12)
    minimal = float(np.maximum(t - a, 0).sum())  # sum over a_i <= t of (t - a_i)
    assert pm.tv(a, b) == pytest.approx(minimal, abs=1e-12)
    raised = a <= t
    assert np.all(b[raised] == pytest.approx(t, abs=1e-12))
    assert np.all(b[~raised] <= a[~raised] + 1e-12)  # mass only removed above t


@SETTINGS
@given(pmf_and_floor())
def test_mifr_leaves_non_donors_unchanged_and_exact_beats_greedy(at):
    a, t = at
    b = pm.mifr(a, t)
    changed = ~np.isclose(a, b, atol=1e-14) & (a > t)
    need = float(np.maximum(t - a, 0).sum())
    if need > 1e-12 and (a > t).sum() <= pm.MAX_EXACT_DONORS:
        # donors are a minimal-mass set covering the need: greedy never does better
        g = pm.mifr(a, t, search="greedy")
        moved_exact = a[changed].sum()
        moved_greedy = a[~np.isclose(a, g, atol=1e-14) & (a > t)].sum()
        assert moved_exact <= moved_greedy + 1e-12
    if need <= 1e-15:
        np.testing.assert_allclose(b, a / a.sum(), atol=1e-15)


@SETTINGS
@given(pmf_and_floor())
def test_lemma_b1_water_filling_moves_towards_uniform(at):
    a, t = at
    u = np.full(a.size, 1.0 / a.size)
    assert pm.tv(pm.water_fill(a, t), u) <= pm.tv(a, u) + 1e-12


# ---------------------------------------------------------------- Remark 4.5 / LinMix / gamma
def test_inner_max_tv_hand_values():
    assert pm.inner_max_tv([1.0, 0.0], [0.5, 0.5], 0.2) == pytest.approx(0.5)
    d = 5
    # gamma = 1: the ball is the whole simplex; worst case TV to uniform is 1 - 1/d (Cor. 4.6)
    pub = np.array([0.4, 0.3, 0.2, 0.1, 0.0])
    assert pm.inner_max_tv(pub, pm.linmix_noise(d), 1.0) == pytest.approx(1 - 1 / d)
    # Eq. (158): on the set A the inner max is gamma + TV(pub, nse)
    nse = pm.mifr(pub, 0.05)
    assert pm.inner_max_tv(pub, nse, 0.1) == pytest.approx(0.1 + pm.tv(pub, nse))


def test_linmix_is_uniform_and_its_beta():
    d = 8
    u = pm.linmix_noise(d)
    np.testing.assert_allclose(u, np.full(d, 1 / d))
    c = pm.choose_noise(u, 0.5, 1.0, 1e-4, 200, 16)  # uniform public data: every floor-raise is the identity
    np.testing.assert_allclose(c.p_noise, u)
    assert c.beta == pm.beta_min(1.0, 1e-4, 200, 16, 1 / d)


def test_choose_noise_returns_a_floor_raised_public_histogram():
    pub = np.array([0.55, 0.25, 0.12, 0.08, 0.0, 0.0])
    c = pm.choose_noise(pub, 0.2, 2.0, 1e-3, 300, 40)
    assert c.which in ("mifr", "wf")
    assert c.p_noise.sum() == pytest.approx(1.0)
    nstar = float(c.p_noise.min())
    assert nstar >= c.t - 1e-12 and nstar > 0
    assert c.beta == pm.beta_min(2.0, 1e-3, 300, 40, nstar)
    ref = pm.mifr(pub, c.t) if c.which == "mifr" else pm.water_fill(pub, c.t)
    np.testing.assert_allclose(c.p_noise, ref)
    # its objective is no worse than LinMix's (1 - 1/d) beta_min(1/d, 1/d) at the same gamma
    u = pm.linmix_noise(pub.size)
    g_lin = pm.beta_min(2.0, 1e-3, 300, 40, 1 / 6) * pm.inner_max_tv(pub, u, 0.2)
    assert c.objective <= g_lin + 1e-12


@SETTINGS
@given(pmf_and_floor(), st.floats(0.01, 1.0), st.sampled_from(["wf", "mifr", "self", "uniform"]))
def test_inner_max_upper_bound_dominates_lemma_e1(at, gamma, how):
    a, t = at
    if a.size > pm.MAX_EXACT_D:
        a = np.r_[a[:pm.MAX_EXACT_D - 1], a[pm.MAX_EXACT_D - 1:].sum()]
        t = min(t, 1.0 / a.size)
    nse = {"wf": lambda: pm.water_fill(a, t), "mifr": lambda: pm.mifr(a, t), "self": lambda: a,
           "uniform": lambda: pm.linmix_noise(a.size)}[how]()
    exact = pm.inner_max_tv(a, nse, gamma)
    assert pm.inner_max_tv_upper(a, nse, gamma) >= exact - 1e-12
    assert exact <= gamma + pm.tv(a, nse) + 1e-12  # Eq. (157)


def test_choose_noise_tie_regression():
    """pub = (0, 0, 1): Lemma F.2's Phi(0) = 0 would pick t = 0 (beta ~ 1); the exact score does not."""
    c = pm.choose_noise([0.0, 0.0, 1.0], 0.35, 5.0, 0.01, 100, 80, t_grid=np.linspace(0, 1 / 3, 41))
    assert c.p_noise.min() > 0.05 and c.beta < 0.2
    assert c.objective == pytest.approx(c.beta * pm.inner_max_tv([0, 0, 1.0], c.p_noise, 0.35))
    # the paper's literal recipe (Lemma F.2's Phi, a lower bound) falls into the trap
    lit = pm.choose_noise([0.0, 0.0, 1.0], 0.35, 5.0, 0.01, 100, 80, t_grid=np.linspace(0, 1 / 3, 41),
                          scoring="lemmas")
    assert lit.p_noise.min() == 0.0 and lit.beta > 0.9 and lit.objective > 10 * c.objective


def test_choose_noise_large_d_uses_upper_bound():
    rng = np.random.default_rng(3)
    pub = rng.dirichlet(np.full(200, 0.3))
    c = pm.choose_noise(pub, 0.1, 1.0, 1e-5, 20_000, 256)
    assert not c.exact and c.p_noise.min() > 0
    assert c.objective == pytest.approx(c.beta * pm.inner_max_tv_upper(pub, c.p_noise, 0.1))
    lin = pm.beta_min(1.0, 1e-5, 20_000, 256, 1 / 200) * pm.inner_max_tv_upper(pub, pm.linmix_noise(200), 0.1)
    assert c.objective <= lin + 1e-12


def test_gamma_from_folds():
    codes = np.zeros(100, dtype=np.int64)
    assert pm.gamma_from_folds(codes, 4, k=4) == pytest.approx(1e-6)  # identical folds
    codes = np.repeat(np.arange(2), 50)
    g = pm.gamma_from_folds(codes, 2, k=2, seed=1)
    assert 0 < g <= 1
    with pytest.raises(DataError, match="bin indices"):
        pm.gamma_from_folds(np.array([0, 5]), 2, k=2)


# ---------------------------------------------------------------- sampler
def test_pubmix_sample_mixture_extremes_and_determinism():
    pp = np.array([1.0, 0.0, 0.0, 0.0])
    pn = np.array([0.0, 0.0, 0.5, 0.5])
    x0 = pm.pubmix_sample(pp, pn, 0.0, 200, np.random.default_rng(0))
    assert x0.dtype == np.int64 and x0.shape == (200,) and set(x0.tolist()) == {0}
    x1 = pm.pubmix_sample(pp, pn, 1.0, 200, np.random.default_rng(0))
    assert set(x1.tolist()) <= {2, 3}
    a = pm.pubmix_sample(pp, pn, 0.3, 1000, np.random.default_rng(5))
    b = pm.pubmix_sample(pp, pn, 0.3, 1000, np.random.default_rng(5))
    assert np.array_equal(a, b)
    assert abs((a == 0).mean() - 0.7) < 0.06


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("kwargs,err,field", [
    (dict(epsilon=0.0), BudgetError, "epsilon"),
    (dict(epsilon=float("nan")), BudgetError, "epsilon"),
    (dict(delta=1.0), BudgetError, "delta"),
    (dict(delta="1e-5"), BudgetError, "delta"),
    (dict(n=0), DataError, "n"),
    (dict(n=10.0), DataError, "n"),
    (dict(n_samples=0), BudgetError, "n_samples"),
    (dict(n_samples=True), BudgetError, "n_samples"),
    (dict(n1=-0.1), BudgetError, "n1"),
    (dict(n1=0.6, n2=0.6), BudgetError, "n1 \\+ n2"),
])
def test_beta_min_bad_inputs(kwargs, err, field):
    args = dict(epsilon=1.0, delta=1e-5, n=100, n_samples=10, n1=0.01)
    args.update(kwargs)
    with pytest.raises(err, match=field):
        pm.beta_min(**args)


@pytest.mark.parametrize("a,t,err,field", [
    ([0.5, 0.6], 0.1, DataError, "a must sum to 1"),
    ([1.2, -0.2], 0.1, DataError, "negative"),
    ([[0.5, 0.5]], 0.1, DataError, "1-d"),
    ([0.5, 0.5], 0.6, BudgetError, "t \\(floor\\)"),
    ([0.5, 0.5], -0.1, BudgetError, "t \\(floor\\)"),
    ([0.5, float("nan")], 0.1, DataError, "non-finite"),
])
def test_floor_raising_bad_inputs(a, t, err, field):
    for f in (pm.water_fill, pm.mifr):
        with pytest.raises(err, match=field):
            f(a, t)


def test_sampler_bad_inputs():
    rng = np.random.default_rng(0)
    with pytest.raises(BudgetError, match="beta"):
        pm.pubmix_sample([0.5, 0.5], [0.5, 0.5], 1.5, 10, rng)
    with pytest.raises(DataError, match="same length"):
        pm.pubmix_sample([0.5, 0.5], [1.0], 0.5, 10, rng)
    with pytest.raises(DataError, match="rng"):
        pm.pubmix_sample([0.5, 0.5], [0.5, 0.5], 0.5, 10, 0)


# ---------------------------------------------------------------- audit
def test_pubmix_audit_pass_fail_fail():
    res = run_pubmix_audit(runs=100_000, seed=0)
    assert [r.variant for r in res] == list(PUBMIX_VARIANTS)
    verdicts = {r.variant: r.passed for r in res}
    assert verdicts == {"correct": True, "beta-quarter": False, "private-noise": False}
    correct = res[0]
    assert correct.true_delta_at_claim <= correct.delta
    assert correct.eps_lb > 0.5 * correct.claimed_eps  # the audit has power near the claim
    assert res[1].true_delta_at_claim > 10 * correct.delta


def test_pubmix_audit_full_sampler_agrees():
    res = run_pubmix_audit(runs=4_000, seed=1, sampler="full")
    assert [r.passed for r in res] == [True, False, False]
