"""Verdict banners (blowfish_core.workflows.verdicts): wording and level on constructed cases, and the
number formatting for people (issue 16)."""

from __future__ import annotations

import dataclasses

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blowfish_core as bc
from blowfish_core.privacy.accounting import epsilon_exact
from blowfish_core.base.errors import BlowfishError, BudgetError
from blowfish_core.workflows.verdicts import (
    Verdict,
    fmt_crossing,
    fmt_gap,
    fmt_percent,
    fmt_q,
    fmt_sig,
    fmt_tau,
    fmt_tolerance,
    policy_verdict,
    round_sig,
    run_verdict,
    sweep_verdict,
    tau_grid_for_people,
)

ADULT = bc.get_preset("adult")
XOR = bc.get_preset("xor3")


# ------------------------------------------------------------------ policy verdict
def test_policy_verdict_adult_age_is_green_with_q_and_multiplier():
    v = policy_verdict(ADULT.schema, ADULT.default_policy(), 0.03)
    q = math.tanh((7 / 73 / 5) / 0.06)  # Table 4: Adult q = 0.31 at tau = 0.03
    assert f"{q:.2f}" == "0.31" and f"{1 / q**2:.2g}" == "10"
    assert v.level == "good" and v.colour == "green"
    assert v.headline == "BF-Soft adds 0.31× Hard's noise here — Hard would need 10× the budget for the same noise"
    assert v.cause == "age's threshold of 7 years sets the reach to 0.019"
    assert "set by age's threshold of 7 years" in v.detail


def test_policy_verdict_q_near_one_names_the_block_partition():
    pol = ADULT.policy_with(["workclass"])  # age + workclass blocks: reach 0.2, q = tanh(0.2/0.06) = 0.9975
    v = policy_verdict(ADULT.schema, pol, 0.03)
    assert v.level == "bad" and v.colour == "red"
    assert v.headline == "workclass's block partition sets the reach to 0.2: no gain"
    assert v.cause == "workclass's block partition sets the reach to 0.2"
    assert "1.00× Hard's noise" in v.detail and "full distance" in v.detail


@pytest.mark.parametrize("name, kind, fits, unfit", [
    ("workclass", "block", "drop workclass from the policy", "protect only closer pairs"),  # flat categorical
    ("y", "complete", "drop y from the policy", "protect only closer pairs"),  # binary
    ("age", "threshold", "protect only closer pairs (pairs within a threshold below the full range)", "For age"),
    ("job", "complete", "siblings under one parent, the hierarchy policy", "For job"),  # a tree
])
def test_policy_verdict_at_the_diameter_advises_what_fits_the_attribute(name, kind, fits, unfit):
    """Issue 24 item 8: 'protect fewer of its pairs' cannot help a flat categorical (every distinct
    pair is at Gower term 1); the advice is read from the attribute's capabilities (graded)."""
    from blowfish_core.model.attribute_policy import AttributePolicy
    from blowfish_core.model.policy import Policy

    schema = (ADULT if name == "workclass" else bc.get_preset("bank")).schema
    if kind == "block":
        levels = list(schema[name].levels)
        ap = AttributePolicy("block", blocks=[levels])
    else:
        ap = AttributePolicy(kind, theta=1000) if kind == "threshold" else AttributePolicy(kind)
    v = policy_verdict(schema, Policy({name: ap}), 0.03)
    assert v.level == "bad" and fits in v.detail and unfit not in v.detail
    if not schema[name].graded:
        assert schema[name].diameter_reason in v.detail and "cannot lower the reach" in v.detail


def test_policy_verdict_two_setters_and_complete_graph():
    pol = ADULT.policy_with(["workclass", "income"])
    v = policy_verdict(ADULT.schema, pol, 0.03)
    assert v.headline == "workclass's block partition and income's complete graph set the reach to 0.2: no gain"


def test_policy_verdict_small_tau_suggests_a_temperature():
    v = policy_verdict(ADULT.schema, ADULT.default_policy(), 0.005)  # q = tanh(0.0192/0.01) = 0.958
    assert v.level == "bad" and v.headline == "age's threshold of 7 years sets the reach to 0.019: no gain"
    tau_half = (7 / 73 / 5) / (2 * math.atanh(0.5))
    assert f"τ = {fmt_tau(tau_half)} halves the noise" in v.detail


def test_policy_verdict_neutral_band_and_participation_floor():
    # XOR-3, X_1 one step: reach 1/28; tau 0.015 -> q = tanh(1/28/0.03) = 0.83 (Table 4) -> neutral
    v = policy_verdict(XOR.schema, XOR.default_policy(), 0.015)
    assert v.level == "neutral" and v.headline.startswith("BF-Soft adds 0.83× Hard's noise here")
    pol = ADULT.default_policy()
    pol = dataclasses.replace(pol, participation=True)  # sensitivity floored at 1: ratio 1/sqrt(2) = 0.71 however small q
    v = policy_verdict(ADULT.schema, pol, 0.03)
    assert v.headline == "BF-Soft adds 0.71× Hard's noise here — Hard would need 2× the budget for the same noise"
    assert "Participation edges" in v.detail


def test_policy_verdict_empty_policy_cites_no_cli_flag():
    v = policy_verdict(ADULT.schema, bc.Policy(), 0.03)
    assert v.level == "bad" and v.headline == "The policy protects nothing: no record is hidden"
    text = v.headline + v.detail + (v.cause or "")
    assert "--" not in text and "allow_empty" not in text


def test_policy_verdict_bad_input():
    with pytest.raises(BudgetError):
        policy_verdict(ADULT.schema, ADULT.default_policy(), 0.0)
    with pytest.raises(bc.PolicyError):
        policy_verdict(ADULT.schema, bc.Policy({"nope": bc.AttributePolicy("complete")}), 0.03)


@settings(max_examples=60, deadline=None)
@given(tau=st.floats(1e-4, 10.0))
def test_policy_verdict_level_follows_q(tau):
    reach = 7 / 73 / 5
    q = math.tanh(reach / (2 * tau))
    v = policy_verdict(ADULT.schema, ADULT.default_policy(), tau)
    assert v.level == ("bad" if q >= 0.9 else "good" if q < 0.7 else "neutral")


# --------------------------------------------------------------------- run verdict
def test_run_verdict_inconclusive_wording():
    v = run_verdict(14.6, -82.0, 52.0, 3)
    assert v.level == "neutral" and v.colour == "blue"
    assert v.headline == ("BF-Soft 14.6% lower error than Hard (lower is better); inconclusive with 3 seeds — "
                          "the interval includes 0")
    assert "[−82%, 52%]" in v.detail


def test_run_verdict_clear_win_and_loss():
    win = run_verdict(33.6, 21.0, 46.2, 5)
    assert win.level == "good" and win.headline == ("BF-Soft 33.6% lower error than Hard (lower is better); "
                                                    "clear with 5 seeds — the interval excludes 0")
    loss = run_verdict(-14.9, -30.0, -2.0, 5)
    assert loss.level == "bad" and loss.headline.startswith("BF-Soft 14.9% higher error than Hard")
    assert loss.cause == "Hard has the lower error"


def test_run_verdict_one_seed_and_custom_names():
    v = run_verdict(20.0, None, None, 1, method_a="Hard", method_b="Tab-PE")
    assert v.level == "neutral"
    assert v.headline == "Hard 20.0% lower error than Tab-PE (lower is better); needs ≥ 2 seeds for an interval"
    with pytest.raises(BlowfishError):
        run_verdict(float("nan"), 0, 1, 3)
    with pytest.raises(BlowfishError):
        run_verdict(1.0, 2.0, 1.0, 3)
    with pytest.raises(BlowfishError):
        run_verdict(1.0, 0.0, 2.0, 0)


@settings(max_examples=100, deadline=None)
@given(lo=st.floats(-100, 100), width=st.floats(0, 100), n=st.integers(2, 20))
def test_run_verdict_level_matches_interval(lo, width, n):
    hi = lo + width
    v = run_verdict((lo + hi) / 2, lo, hi, n)
    assert v.level == ("good" if lo > 0 else "bad" if hi < 0 else "neutral")
    assert ("inconclusive" in v.headline) == (v.level == "neutral")


# ------------------------------------------------------------------- sweep verdict
def test_sweep_verdict_crossing_epsilon_from_the_exact_curve():
    rhos = [1e-4, 6e-4, 3e-3]
    v = sweep_verdict(rhos, {"bf-soft": [0.4, 0.3, 0.2], "hard": [0.6, 0.25, 0.1]}, 1e-5, 2.7e-4)
    assert round(epsilon_exact(2.7e-4, 1e-5), 3) == 0.069
    assert v.level == "neutral" and v.headline == "BF-Soft wins below epsilon ≈ 0.069 on this table and policy"
    assert "ε ≈ 0.069" in v.detail and "ρ ≈ 0.00027" in v.detail


def test_sweep_headline_says_the_crossing_epsilon_the_chart_marks():
    """Issue 24 item 8: the headline said 'wins below ε ≈ 0.1' while the chart said 0.15 (one
    figure rounded to 1 significant figure, the other to 2). One number, one formatting (the chart:
    tests/app/test_run_progress.py)."""
    from blowfish_core.workflows.sweeps import SweepPoint, SweepResult
    from blowfish_core.workflows.verdicts import sweep_verdict_from_result

    pts = [SweepPoint(r, epsilon_exact(r, 1e-5), {"mean": h, "ci95": [None, None]}, {"mean": s, "ci95": [None, None]},
                      None) for r, h, s in [(1e-4, 0.6, 0.4), (6e-4, 0.25, 0.3), (3e-3, 0.1, 0.2)]]
    sw = SweepResult("pwerr", 0.03, 1e-5, [0], pts, 2.7e-4, 0.149, None, 0.0)
    v = sweep_verdict_from_result(sw)
    assert v.headline == "BF-Soft wins below epsilon ≈ 0.15 on this table and policy"
    assert fmt_crossing(0.149) == "0.15" and "ε ≈ 0.15 " in v.detail


def test_sweep_verdict_computes_the_crossing_when_not_given_and_other_cases():
    rhos = [1e-4, 1e-3]
    errs = {"bf-soft": [0.5, 0.3], "hard": [0.6, 0.2]}  # g = -0.1, +0.1: crossing at the log midpoint
    v = sweep_verdict(rhos, errs, 1e-5, None)
    mid = math.sqrt(1e-4 * 1e-3)
    assert f"ρ ≈ {fmt_sig(mid, 2)}" in v.detail
    assert sweep_verdict(rhos, {"bf-soft": [0.1, 0.1], "hard": [0.2, 0.2]}, 1e-5, None).level == "good"
    bad = sweep_verdict(rhos, {"bf-soft": [0.3, 0.3], "hard": [0.2, 0.2]}, 1e-5, None)
    assert bad.level == "bad" and bad.headline == "Hard wins at every budget of this sweep on this table and policy"
    up = sweep_verdict(rhos, {"bf-soft": [0.7, 0.1], "hard": [0.6, 0.2]}, 1e-5, None)
    assert up.headline.startswith("BF-Soft wins above epsilon ≈")
    with pytest.raises(BlowfishError):
        sweep_verdict(rhos, {"bf-soft": [0.1]}, 1e-5, None)
    with pytest.raises(BlowfishError):
        sweep_verdict([1e-3, 1e-4], errs, 1e-5, None)


# ------------------------------------------------------------------------- numbers
def test_number_formats_for_people():
    assert fmt_gap(2.22e-16) == "0 (exact)" and fmt_gap(-1e-13) == "0 (exact)" and fmt_gap(0.25) == "0.25"
    assert round_sig(0.047299) == 0.047 and fmt_tau(0.047299) == "0.047"
    assert tau_grid_for_people([0.047299, 0.0473, 0.03]) == [0.03, 0.047]
    assert fmt_tolerance(1e-9) == "10⁻⁹ (floating-point rounding only)" and "e-" not in fmt_tolerance(1e-9)
    assert fmt_tolerance(0.005) == "0.005" and fmt_tolerance(0) == "0 (exact ties only)"
    assert fmt_sig(2.7e-5) == "2.7 × 10⁻⁵" and fmt_sig(0.00027) == "0.00027" and fmt_sig(12000) == "12,000"
    assert fmt_sig(9.96e-5) == "0.0001" and fmt_sig(9.96e-6) == "10⁻⁵" and fmt_sig(None) == "—"
    assert fmt_sig(math.inf) == "∞" and fmt_sig(-0.5) == "−0.5"
    assert fmt_percent(-14.9) == "−14.9%" and fmt_percent(3.0, signed=True) == "+3.0%"
    assert fmt_q(0.9975) == "1.00" and fmt_q(0.0636) == "0.064"


@settings(max_examples=200, deadline=None)
@given(x=st.floats(min_value=1e-300, max_value=1e300), digits=st.integers(1, 4))
def test_fmt_sig_reads_back_within_rounding(x, digits):
    s = fmt_sig(x, digits)
    assert "e" not in s
    table = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
    if any(c in s for c in "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"):  # power form: 'a × 10ⁿ' or '10ⁿ'
        mant, _, exp = s.partition("× 10") if "×" in s else ("1", "", s[2:])
        value = float(mant.strip() or 1) * 10.0 ** int(exp.strip().translate(table))
    else:
        value = float(s.replace(",", ""))
    assert value == pytest.approx(x, rel=0.5 * 10 ** (1 - digits) + 1e-12)


def test_verdict_level_is_checked():
    with pytest.raises(ValueError):
        Verdict("amber", "x", "y")


def test_verdicts_from_engine_results():
    from blowfish_core.algorithm.evolution import SynthConfig
    from blowfish_core.synthesis.spec import RunRequest
    from blowfish_core.synthesis.experiment import run_paired
    from blowfish_core.workflows.sweeps import SweepPoint, SweepResult
    from blowfish_core.workflows.verdicts import (
        run_verdict_from_report,
        sweep_verdict_from_result,
    )

    data = bc.load_preset_data(XOR).private
    cfg = SynthConfig(rounds=2, population=[16, 16], release=20)
    res = run_paired(RunRequest(XOR.schema, XOR.default_policy(), data, ["hard", "bf-soft"], 1e-3, 1e-5, 0.03,
                                [0, 1, 2], cfg, metric=XOR.metric_fn()))
    rr = res.summary["relative_reduction_bf_soft_vs_hard"]
    v = run_verdict_from_report(res.report)
    assert v == run_verdict(rr["mean_percent"], rr["ci95"][0], rr["ci95"][1], 3)
    assert run_verdict_from_report({"summary": {}}) is None
    pts = [SweepPoint(r, 0.0, {"mean": h}, {"mean": s}, None) for r, h, s in
           [(1e-4, 0.6, 0.4), (6e-4, 0.25, 0.3), (3e-3, 0.1, 0.2)]]
    sw = SweepResult("pwerr", 0.03, 1e-5, [0], pts, 2.7e-4, None, None, 0.0)
    assert sweep_verdict_from_result(sw).headline == "BF-Soft wins below epsilon ≈ 0.069 on this table and policy"
