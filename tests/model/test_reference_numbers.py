"""Reference numbers of DESIGN §5 that the engine can produce (paper §5, §6.1, Table 4, App. F).

Eq. (1) epsilons and the bare pilot-scaling formula are covered in tests/privacy/test_accounting.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from blowfish_core import get_preset, noise_ratio, record_reach, soft_bound, weighted_reaches
from blowfish_core.privacy.accounting import equivalent_budget_multiplier, pilot_scaling
from blowfish_core.model.distance import gower_distances
from blowfish_core.io.presets import load_preset_data
from blowfish_core.model.schema import Attribute, Schema
from blowfish_core.model.sensitivity import SOFT_BOUND_PAD, SQRT2, tau_for_noise_ratio
from blowfish_core.model.votes import vote_vectors


def _reach(preset: str, protect: list[str] | None = None) -> float:
    p = get_preset(preset)
    pol = p.policy_with(protect) if protect else p.default_policy()
    return record_reach(p.schema, pol)


# ------------------------------------------------------------------ reaches (§4, §5.2)


def test_adult_age_threshold_7_reach():
    p = get_preset("adult")
    per = weighted_reaches(p.schema, p.default_policy())
    assert per["age"] == pytest.approx(7 / 73 / 5, rel=1e-12)
    assert round(per["age"], 4) == 0.0192
    assert all(v == 0 for k, v in per.items() if k != "age")


def test_adult_hours_threshold_8_reach():
    p = get_preset("adult")
    per = weighted_reaches(p.schema, p.policy_with(["hours.per.week"]))
    assert per["hours.per.week"] == pytest.approx(8 / 98 / 5, rel=1e-12)
    assert round(per["hours.per.week"], 4) == 0.0163


def test_adult_age_and_hours_keep_age_reach():
    # Record-level reach is a max, not a sum (Cor. 5.2).
    r = _reach("adult", ["age", "hours.per.week"])
    assert r == pytest.approx(7 / 73 / 5, rel=1e-12)
    assert round(r, 4) == 0.0192


@pytest.mark.parametrize("extra", [["income"], ["hours.per.week", "income"], ["workclass"]])
def test_adult_income_or_workclass_floor_is_full_weight(extra):
    # A protected pair at the attribute's diameter contributes the full w_i = 1/5 (Remark 3).
    assert _reach("adult", extra) == pytest.approx(0.2, rel=1e-12)


def test_adult_education_threshold_2_levels():
    p = get_preset("adult")
    per = weighted_reaches(p.schema, p.policy_with(["education.num"]))
    assert per["education.num"] == pytest.approx(2 / 15 / 5, rel=1e-12)


def test_bank_age_reach():
    r = _reach("bank")
    assert r == pytest.approx(7 / 82 / 5, rel=1e-12)
    assert round(r, 4) == 0.0171


def test_bank_job_hierarchy_siblings():
    p = get_preset("bank")
    per = weighted_reaches(p.schema, p.policy_with(["job"]))
    # siblings: 2 tree steps over a leaf-to-leaf diameter of 4 steps, weight 1/5
    assert per["job"] == pytest.approx(0.1, rel=1e-12)
    assert p.schema["job"].tree_diameter == 4


def test_bank_balance_threshold_500():
    p = get_preset("bank")
    per = weighted_reaches(p.schema, p.policy_with(["balance"]))
    assert per["balance"] == pytest.approx(500 / 120000 / 5, rel=1e-12)


def test_xor3_x1_reach_one_28th():
    r = _reach("xor3")
    assert r == pytest.approx(1 / 28, rel=1e-12)


# ------------------------------------------------------------------ q (Table 4)

Q_TABLE = {
    "adult": (0.56, 0.31, 0.16),
    "bank": (0.51, 0.28, 0.14),
    "xor3": (0.83, 0.53, 0.29),
}


@pytest.mark.parametrize("preset", sorted(Q_TABLE))
@pytest.mark.parametrize("k, tau", list(enumerate((0.015, 0.03, 0.06))))
def test_noise_ratio_table4(preset, k, tau):
    q = noise_ratio(_reach(preset), tau)
    assert round(q, 2) == Q_TABLE[preset][k]
    # and it is exactly tanh(r / (2 tau))
    assert q == pytest.approx(math.tanh(_reach(preset) / (2 * tau)), rel=1e-15)


def test_soft_bound_is_sqrt2_q_and_below_sqrt2():
    # the calibrated bound is Cor. 5.5's sqrt(2) q, padded by SOFT_BOUND_PAD for float64 rounding
    r = _reach("adult")
    for tau in (0.015, 0.03, 0.06, 10.0):
        b = soft_bound(r, tau)
        assert b == pytest.approx(SQRT2 * noise_ratio(r, tau) * (1 + SOFT_BOUND_PAD), rel=1e-15)
        assert soft_bound(r, tau, pad=0.0) == pytest.approx(SQRT2 * noise_ratio(r, tau), rel=1e-15)
        assert 0 < b < SQRT2
    assert soft_bound(r, 0.03, norm="l1") == pytest.approx(2 * noise_ratio(r, 0.03) * (1 + SOFT_BOUND_PAD),
                                                          rel=1e-15)


def test_adult_equivalent_budget_multiplier_at_tau_003():
    # BF-Soft at rho has the noise Hard has at rho / q^2 (q = 0.309 -> about 10.5x).
    q = noise_ratio(_reach("adult"), 0.03)
    assert equivalent_budget_multiplier(q) == pytest.approx(1 / q**2, rel=1e-12)
    assert round(equivalent_budget_multiplier(q), 1) == 10.5


# ------------------------------------------------------------------ matched q (App. F.4)


BANK_MATCHED = [(2, 0.01335), (4, 0.02671), (8, 0.05341)]


def _adult_matched_q() -> float:
    """q of Adult's matched settings (tau, theta) = (0.015, 2), (0.03, 4), (0.06, 8)."""
    p = get_preset("adult")
    qs = [noise_ratio(record_reach(p.schema, p.policy_with([f"age=threshold:{th}"])), tau)
          for tau, th in [(0.015, 2), (0.03, 4), (0.06, 8)]]
    assert max(qs) - min(qs) < 1e-15  # theta / tau is constant: one q
    return qs[0]


def test_matched_q_is_0_1806():
    assert round(_adult_matched_q(), 4) == 0.1806


@pytest.mark.parametrize("theta, expected", BANK_MATCHED)
def test_bank_matched_noise_ratio_tau(theta, expected):
    p = get_preset("bank")
    r = record_reach(p.schema, p.policy_with([f"age=threshold:{theta}"]))
    assert r == pytest.approx((1 / 5) * theta / 82, rel=1e-12)  # w = 1/5, width 100 - 18 = 82
    # With the unrounded matched q (0.180644...) the paper's taus agree to their last digit.
    q = _adult_matched_q()
    tau = tau_for_noise_ratio(r, q)
    assert abs(tau - expected) <= 1e-5
    assert noise_ratio(r, tau) == pytest.approx(q, rel=1e-12)
    # With the printed q = 0.1806 the taus move by < 6e-4 relative (0.013357 vs 0.01335).
    assert tau_for_noise_ratio(r, 0.1806) == pytest.approx(expected, rel=6e-4)


def test_matched_tau_linear_in_theta():
    taus = [tau_for_noise_ratio((1 / 5) * th / 82, 0.1806) for th, _ in BANK_MATCHED]
    assert taus[1] == pytest.approx(2 * taus[0], rel=1e-12)
    assert taus[2] == pytest.approx(4 * taus[0], rel=1e-12)


def test_xor3_matched_q_0_9453():
    p = get_preset("xor3")
    qs = []
    for tau, steps in [(0.01, 1), (0.02, 2), (0.04, 4)]:
        r = record_reach(p.schema, p.policy_with([f"X_1=threshold:{steps}"]))
        assert r == pytest.approx(steps / 28, rel=1e-12)
        qs.append(noise_ratio(r, tau))
    assert [round(q, 4) for q in qs] == [0.9453] * 3


def test_tau_for_noise_ratio_rejects_q_outside_open_interval():
    for q in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="q"):
            tau_for_noise_ratio(0.02, q)


# ------------------------------------------------------------------ pilot scaling (§6.2.4, Eq. 4)


def test_adult_split_sizes_and_pilot_scaling(adult_path):
    p = get_preset("adult")
    split = load_preset_data(p, adult_path, split_seed=0)
    assert len(split.private) == 26048
    assert len(split.public) == 3000
    assert round(pilot_scaling(len(split.private), len(split.public))) == 75


def test_bank_split_size(bank_path):
    p = get_preset("bank")
    split = load_preset_data(p, bank_path, split_seed=0)
    assert len(split.private) == 27126
    assert len(split.public) == 3000


# ------------------------------------------------------------------ tightness (Prop. 5.6)


@pytest.mark.parametrize("L, theta, tau", [(100.0, 7.0, 0.03), (10.0, 1.0, 0.5), (1.0, 0.5, 0.01), (82.0, 7.0, 1e-3)])
def test_tightness_two_candidates(L, theta, tau):
    # One numeric attribute on [0, L]; Gower divides by hi - lo = L, so in normalized
    # units the candidates sit at 0 and 1 and the pair at (1 -+ theta/L) / 2.
    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=L)])
    C = np.array([[0.0], [1.0]])
    u = (L - theta) / 2
    v = (L + theta) / 2
    X = np.array([[schema["x"].encode_value(u)], [schema["x"].encode_value(v)]])
    d_uv = gower_distances(schema, X[:1], X[1:])[0, 0]
    assert d_uv == pytest.approx(theta / L, rel=1e-12)
    V = vote_vectors(schema, C, X, "soft", tau)
    change = np.linalg.norm(V[0] - V[1])
    assert change == pytest.approx(SQRT2 * math.tanh(d_uv / (2 * tau)), rel=1e-9, abs=1e-15)
    # the bound of Cor. 5.5 with reach = d(u, v) is attained, and the computed change stays within the padded bound
    assert change == pytest.approx(soft_bound(d_uv, tau, pad=0.0), rel=1e-9, abs=1e-15)
    assert change <= soft_bound(d_uv, tau)


def test_tightness_approached_with_far_extra_candidates():
    # m > 2: extra candidates far away carry vanishing mass (Prop. 5.6, second part).
    L, theta, tau = 100.0, 7.0, 0.01
    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=3 * L)])
    C = np.array([[0.0], [L / (3 * L)], [1.0]])  # third candidate at 3L, far from the pair
    X = np.array([[(L - theta) / 2 / (3 * L)], [(L + theta) / 2 / (3 * L)]])
    V = vote_vectors(schema, C, X, "soft", tau)
    target = SQRT2 * math.tanh((theta / (3 * L)) / (2 * tau))
    change = np.linalg.norm(V[0] - V[1])
    assert change <= target + 1e-12
    assert change == pytest.approx(target, rel=1e-6)


# ------------------------------------------------------------------ Prop. 5.7 on a fixed example


def test_prop57_fixed_example():
    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=1.0)])
    C = np.array([[0.0], [0.3], [0.7], [1.0]])
    x = np.array([[0.1]])  # nn = 0 at distance 0.1; second nearest 0.3 at 0.2: gamma = 0.1
    for tau in (0.005, 0.02, 0.1, 1.0):
        v = vote_vectors(schema, C, x, "soft", tau)[0]
        assert int(np.argmax(v)) == 0
        assert 1 - v[0] <= 3 * math.exp(-0.1 / tau) + 1e-15
        # diam(C) = 1
        assert np.abs(v - 0.25).sum() <= 2 * math.tanh(1.0 / (4 * tau)) + 1e-15
        assert 2 * math.tanh(1.0 / (4 * tau)) <= 1.0 / (2 * tau) + 1e-15
    # the exact value at tau = 0.02, written out: softmax(-[0.1, 0.2, 0.6, 0.9] / 0.02)
    e = np.exp(-np.array([0.1, 0.2, 0.6, 0.9]) / 0.02)
    np.testing.assert_allclose(vote_vectors(schema, C, x, "soft", 0.02)[0], e / e.sum(), rtol=1e-12)
