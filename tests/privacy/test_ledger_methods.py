"""The method table, calibrators, mechanisms and ledger totals (blowfish_core.algorithm.methods / calibration /
mechanisms / ledger): exact values, the participation floor applied once, composition checks
against dp-accounting."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blowfish_core as bc
from blowfish_core.privacy.accounting import PrivacyLedger, epsilon_exact, split_budget
from blowfish_core.model.calibration import RoundInputs, calibrate_round
from blowfish_core.privacy.ledger import LedgerRow
from blowfish_core.privacy.totals import pld_epsilon, privacy_totals
from blowfish_core.privacy.mechanisms import MECHANISMS, get_mechanism
from blowfish_core.algorithm.methods import METHODS, get_method
from blowfish_core.model.policy import AttributePolicy, Policy
from blowfish_core.model.sensitivity import SQRT2, Calibration, hard_sensitivity
from blowfish_core.model.votes import HardVote, SoftVote

XOR = bc.get_preset("xor3")


def test_table_entries():
    # the paper's methods as declared (a new entry of the table does not change these; what every entry
    # must declare is checked by tests/conformance/test_methods.py, issue 22)
    named = ["tab-pe", "hard", "bf-soft", "soft-dp", "soft-hard-noise", "mst", "aim"]
    assert [m for m in METHODS if m in named] == named
    assert [m for m in named if METHODS[m].runner == "baseline"] == ["mst", "aim"]  # issue 12 references
    assert [m for m in named if METHODS[m].needs_tau] == ["bf-soft", "soft-dp", "soft-hard-noise"]
    assert [m for m in named if METHODS[m].notion == "blowfish"] == ["hard", "bf-soft", "soft-hard-noise"]
    assert METHODS["tab-pe"].make_vote(0.03) == HardVote()
    assert METHODS["bf-soft"].make_vote(0.03) == SoftVote(0.03)
    with pytest.raises(bc.BudgetError, match="tau"):
        METHODS["bf-soft"].make_vote(None)
    with pytest.raises(bc.BlowfishError, match="unknown method 'magic'"):
        get_method("magic")


@pytest.mark.parametrize("norm,tab,hard", [("l2", SQRT2, SQRT2), ("l1", 2.0, 2.0)])
def test_calibrators_both_norms(norm, tab, hard):
    s, pol = XOR.schema, XOR.default_policy()
    C = np.array([[0.0, 0, 0, 0], [1.0, 0, 0, 0]])  # X_1 = 0 vs 7: the X_1 step 3 -> 4 crosses
    x = RoundInputs(s, pol, 0.03, C, norm=norm)
    assert calibrate_round(METHODS["tab-pe"], x).sensitivity == tab
    h = calibrate_round(METHODS["hard"], x)
    assert (h.sensitivity, h.how) == (hard, "certified-crossing")
    q = math.tanh((1 / 28) / 0.06)
    assert calibrate_round(METHODS["bf-soft"], x).sensitivity == pytest.approx((SQRT2 if norm == "l2" else 2.0) * q)
    shn = calibrate_round(METHODS["soft-hard-noise"], x)
    assert (shn.sensitivity, shn.how) == (hard, "global")


def test_participation_floor_once_for_blowfish_methods_only():
    s = XOR.schema
    part = Policy({"X_1": AttributePolicy("threshold", theta=1)}, participation=True)
    one = np.array([[0.0, 0, 0, 0]])  # one candidate: Hard is exhaustively 0, floored to 1
    for norm in ("l2", "l1"):
        x = RoundInputs(s, part, 0.03, one, norm=norm)
        h = calibrate_round(METHODS["hard"], x)
        assert (h.sensitivity, h.how) == (1.0, "participation-floor")
        assert hard_sensitivity(s, part, one).sensitivity == 0.0  # the raw certificate
        assert calibrate_round(METHODS["soft-hard-noise"], x).sensitivity == 1.0
        soft = calibrate_round(METHODS["bf-soft"], x)
        bound = bc.soft_bound(1 / 28, 0.03, norm)  # l2 0.755 -> floored to 1; l1 1.067 stays
        assert soft.how == ("participation-floor" if bound < 1 else "bound")
        assert soft.sensitivity == pytest.approx(max(bound, 1.0), rel=1e-12)
        # standard-DP methods: no participation floor (their sensitivities exceed 1 anyway)
        assert calibrate_round(METHODS["tab-pe"], x).how == "global"
        assert calibrate_round(METHODS["soft-dp"], x).how == "bound"


def test_mechanism_scales_exact():
    g, lap = MECHANISMS["gaussian"], MECHANISMS["laplace"]
    assert g.scale(SQRT2, 0.25) == 2.0 and g.scale(0.0, 0.25) == 0.0
    assert lap.scale(2.0, 0.5) == 4.0 and lap.scale(0.0, 0.5) == 0.0
    assert list(lap.split(2.0, 4)) == [0.5] * 4
    with pytest.raises(bc.BudgetError, match="epsilon"):
        lap.split(-1.0, 4)
    with pytest.raises(bc.BlowfishError, match="unknown mechanism"):
        get_mechanism("no-such-mechanism")  # pubmix and exponential are registered (issues 13, 14)
    cal = Calibration(2.0, "certified-crossing")
    row = lap.row(3, 16, cal, 4.0, 0.5, surviving=9)
    assert row.to_dict()["epsilon_t"] == 0.5 and row.to_dict()["scale_t"] == 4.0
    assert row.sigma_t is None and row.rho_t is None and row.sensitivity == 2.0


def test_report_row_has_sensitivity_t_next_to_the_legacy_delta_t():
    cal = Calibration(2.0, "certified-crossing")
    d = get_mechanism("laplace").row(3, 16, cal, 4.0, 0.5, surviving=9).to_dict()
    assert d["delta_t"] == d["sensitivity_t"] == 2.0
    keys = list(d)
    assert keys[keys.index("delta_t") + 1] == "sensitivity_t"
    assert "delta_dp_t" not in d  # pure DP row: no DP delta; delta_t is the sensitivity
    assert get_mechanism("laplace").row(3, 16, cal, 4.0, 0.5).delta_t == 2.0  # the deprecated alias, one release


def test_gaussian_totals_equal_privacy_ledger():
    rows = [LedgerRow(t, 8, "gaussian", SQRT2, "l2", 1.0, "global", rho_t=float(r))
            for t, r in enumerate(split_budget(1e-3, 8), 1)]
    tot = privacy_totals(rows, 1e-5, rho=1e-3)
    ref = PrivacyLedger.from_budget(rho=1e-3, delta=1e-5, rounds=8).to_dict()
    assert {k: tot[k] for k in ref} == ref and tot["accountant"] == "gdp-exact"


@settings(max_examples=15, deadline=None)
@given(st.floats(1e-3, 0.5), st.integers(1, 6))
def test_pld_of_gaussian_rows_matches_the_exact_curve(rho, T):
    """PLD (pessimistic) of T Gaussian rounds >= the exact mu-GDP epsilon and within 2%."""
    rows = [LedgerRow(t, 8, "gaussian", SQRT2, "l2", SQRT2 / math.sqrt(2 * rho / T), "global", rho_t=rho / T)
            for t in range(1, T + 1)]
    exact = epsilon_exact(rho, 1e-5)
    pld = pld_epsilon(rows, 1e-5)
    assert exact - 1e-6 <= pld <= exact * 1.02 + 1e-3


@settings(max_examples=15, deadline=None)
@given(st.floats(0.05, 2.0), st.integers(1, 5))
def test_pld_of_laplace_rows_at_most_the_pure_sum(eps, T):
    rows = [LedgerRow(t, 8, "laplace", 2.0, "l1", 2.0 / (eps / T), "global", epsilon_t=eps / T)
            for t in range(1, T + 1)]
    assert privacy_totals(rows, 1e-5)["epsilon"] == pytest.approx(eps)
    assert pld_epsilon(rows, 1e-9) <= eps + 1e-3
