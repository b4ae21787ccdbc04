"""Epsilon-first budgets (blowfish_core.workflows.budget): one displayed epsilon = the ledger accountant's,
the other figures in the tooltip, the privacy scale, the epsilon > 5 warning, delta vs 1/n."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blowfish_core as bc
from blowfish_core.privacy.accounting import (
    epsilon_eq1,
    epsilon_exact,
    rho_from_epsilon_eq1,
    rho_from_epsilon_exact,
)
from blowfish_core.workflows.budget import (
    EPSILON_WARN,
    budget_from_epsilon,
    budget_from_rho,
    delta_note,
    describe_epsilon,
    epsilon_steps,
    epsilon_warning,
    privacy_scale,
)
from blowfish_core.base.errors import BlowfishError, BudgetError
from blowfish_core.algorithm.evolution import SynthConfig


def test_epsilon_first_gaussian_uses_the_exact_curve_and_one_epsilon():
    v = budget_from_epsilon(1.0, 1e-5, rounds=8)
    assert v.rho == rho_from_epsilon_exact(1.0, 1e-5)
    assert v.rho_per_round == tuple([v.rho / 8] * 8)
    assert v.epsilon == pytest.approx(1.0, abs=1e-9) and v.epsilon <= 1.0
    assert v.label == "ε = 1 at δ = 10⁻⁵" and v.accountant == "gdp-exact"
    # the other epsilon (Eq. (1)) and rho only in the tooltip
    assert v.epsilon_eq1 == pytest.approx(epsilon_eq1(v.rho, 1e-5))
    assert "Eq. (1)" in v.tooltip and "ε = 1.3" in v.tooltip and "ρ = 0.0359" in v.tooltip
    assert "1.3" not in v.label and v.warning is None
    assert v.run_kwargs() == {"rho": v.rho}


def test_epsilon_first_with_eq1_shows_the_accountants_epsilon():
    v = budget_from_epsilon(1.0, 1e-5, conversion="eq1")
    assert v.rho == rho_from_epsilon_eq1(1.0, 1e-5)
    assert v.epsilon == epsilon_exact(v.rho, 1e-5) and v.label == "ε = 0.74 at δ = 10⁻⁵"
    assert "You asked for ε ≤ 1 by Eq. (1)" in v.tooltip


def test_displayed_epsilon_equals_the_ledger_of_a_run():
    xor = bc.get_preset("xor3")
    v = budget_from_epsilon(0.5, 1e-6, rounds=2)
    data = bc.load_preset_data(xor).private
    syn = bc.Synthesizer(xor.schema, xor.default_policy(), method="hard", epsilon=0.5, delta=1e-6, seed=0,
                         config=SynthConfig(rounds=2, population=[16, 16], release=20)).fit(data)
    assert syn.privacy_["accountant"] == v.accountant
    assert syn.privacy_["epsilon_exact"] == v.epsilon and syn.privacy_["rho"] == v.rho


def test_laplace_is_pure_dp_without_delta():
    v = budget_from_epsilon(8.0, None, rounds=4, mechanism="laplace")
    assert v.delta == 0.0 and v.rho is None and v.epsilon_per_round == (2.0,) * 4
    assert v.label == "ε = 8 (pure DP)" and v.accountant == "pure-sum" and v.run_kwargs() == {"epsilon": 8.0}
    assert v.warning is not None and "ε = 8" in v.warning
    with pytest.raises(BlowfishError, match="delta"):
        budget_from_epsilon(1.0, 1e-5, mechanism="laplace")


def test_budget_from_rho_advanced_entry():
    v = budget_from_rho(1e-4, 1e-5)
    assert v.epsilon == epsilon_exact(1e-4, 1e-5) and v.label == "ε = 0.04 at δ = 10⁻⁵"
    assert "ε = 0.068" in v.tooltip  # DESIGN §5: Eq. (1) at rho = 1e-4 gives about 0.07


def test_bad_budgets_name_the_field():
    with pytest.raises(BudgetError, match="epsilon"):
        budget_from_epsilon(0.0)
    with pytest.raises(BudgetError, match="delta"):
        budget_from_epsilon(1.0, 1.5)
    with pytest.raises(BlowfishError, match="rounds"):
        budget_from_epsilon(1.0, rounds=0)
    with pytest.raises(BudgetError, match="rho"):
        budget_from_rho(-1.0)
    with pytest.raises(BudgetError):
        budget_from_epsilon(1.0, conversion="fast")


def test_scale_steps_and_words():
    s = privacy_scale()
    assert (s.left, s.right) == ("more privacy", "more accuracy")
    assert s.steps == (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0) and s.default in s.steps
    assert epsilon_steps(0.1, 1.0) == (0.1, 0.2, 0.5, 1.0)
    assert "e^ε ≈ 2.7" in describe_epsilon(1.0, 1e-5) and "δ = 10⁻⁵" in describe_epsilon(1.0, 1e-5)
    assert describe_epsilon(0.05).startswith("Very strong privacy")
    with pytest.raises(BlowfishError):
        epsilon_steps(1.0, 0.1)


def test_warning_above_five_only():
    assert epsilon_warning(5.0) is None and epsilon_warning(4.99) is None
    assert epsilon_warning(5.01) is not None
    # the exact conversion of epsilon = 5 certifies 5.000000000000002: still "at 5", no warning
    assert budget_from_epsilon(5.0).epsilon > 5.0 and budget_from_epsilon(5.0).warning is None
    assert budget_from_epsilon(6.0).warning is not None and budget_from_epsilon(2.0).warning is None


@settings(max_examples=40, deadline=None)
@given(eps=st.floats(0.01, 50.0), logd=st.floats(-12, -2))
def test_displayed_epsilon_never_exceeds_the_request(eps, logd):
    d = 10.0 ** logd
    v = budget_from_epsilon(eps, d)
    assert v.epsilon <= eps * (1 + 1e-9) and v.epsilon == pytest.approx(eps, rel=1e-6)
    assert v.epsilon_eq1 >= v.epsilon
    # the warning uses the engine's 1e-9 rounding tolerance (budget.epsilon_warning): a request of exactly 5
    # certified at 5.000000000000004 is "at 5", not above it
    assert (v.warning is not None) == (v.epsilon > EPSILON_WARN * (1 + 1e-9))
    assert math.isclose(sum(v.rho_per_round), v.rho, rel_tol=1e-12)


def test_delta_note():
    assert delta_note(1e-3, 26048)[0] == "bad" and "1/n" in delta_note(1e-3, 26048)[1]
    assert delta_note(1e-5, 26048)[0] == "neutral"
