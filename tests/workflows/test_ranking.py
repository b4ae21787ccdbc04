"""The ranking verdict (issue 24, "Verdicts that rank"): every method of a paired run ranked by mean
error with its interval, a baseline's win said in words, an inconclusive comparison said as such.

Hand-checkable: constant per-seed errors give paired differences with zero spread (the interval is
the point itself), so every number below can be checked by hand."""

from __future__ import annotations

import math

import pytest

from blowfish_core.base.errors import BlowfishError
from blowfish_core.model.metrics import t_interval
from blowfish_core.workflows.ranking import (
    TEST_WORDS,
    rank_methods,
    ranking_from_report,
    ranking_verdict,
    ranking_verdict_from_report,
)

SEEDS = (0, 1, 2)


def const(**errors: float) -> dict[str, dict[int, float]]:
    """{method: {seed: error}} with the same error on every seed."""
    return {m.replace("_", "-"): {s: e for s in SEEDS} for m, e in errors.items()}


def test_rank_orders_by_mean_with_intervals():
    r = rank_methods({"hard": {0: 0.4, 1: 0.6}, "mst": {0: 0.1, 1: 0.3}, "bf-soft": {0: 0.5, 1: 0.5}}, "pwerr")
    assert [x.method for x in r.rows] == ["mst", "hard", "bf-soft"]  # equal means: method-table order
    assert [x.mean for x in r.rows] == pytest.approx([0.2, 0.5, 0.5])
    # 95% t-interval with 2 seeds: mean ± t(0.975, 1) · sd / sqrt(2) = 0.2 ± 12.706 · 0.1414 / 1.414; low end clipped at 0
    m, lo, hi = t_interval([0.1, 0.3])
    assert r.rows[0].ci95 == (pytest.approx(max(lo, 0.0)), pytest.approx(hi))
    assert r.rows[0].ci95[0] == 0.0 and r.rows[0].ci95[1] == pytest.approx(0.2 + 12.7062 * 0.1, rel=1e-4)
    # equal means: method-table order (hard before bf-soft)
    assert [x.method for x in rank_methods(const(bf_soft=0.5, hard=0.5)).rows] == ["hard", "bf-soft"]
    assert r.best_private.method == "mst" and r.rows[0].label == "MST" and r.rows[0].is_reference


def test_reference_method_wins_clearly_in_words():
    # MST 0.198, BF-Soft 0.44, Hard 0.5 on every seed: MST has 100 (0.44 - 0.198) / 0.44 = 55% lower error than
    # the best policy-aware method (BF-Soft); the paired differences are 0.242 on every seed: interval [0.242, 0.242]
    r = rank_methods(const(mst=0.198, bf_soft=0.44, hard=0.5), "pwerr", epsilon=0.7123, delta=1e-5)
    c = r.compare("mst", "bf-soft")
    assert c.percent == pytest.approx(55.0) and c.diff == pytest.approx(0.242) and c.clear and c.n == 3
    assert c.diff_ci == (pytest.approx(0.242), pytest.approx(0.242))
    v = ranking_verdict(r)
    assert v.level == "bad"
    assert v.headline == ("MST has 55% lower error than BF-Soft at ε = 0.71 on this table; BF-Soft's policy "
                          "advantage is not enough here")
    assert "1. MST 0.198 [0.198, 0.198], 2. BF-Soft 0.44 [0.44, 0.44], 3. Hard 0.5 [0.5, 0.5]" in v.detail
    assert TEST_WORDS in v.detail and "above 0: clear" in v.detail


def test_best_policy_aware_is_the_rival_of_a_reference_winner():
    # Hard beats BF-Soft here, so MST is compared with Hard: 100 (0.4 - 0.1) / 0.4 = 75%
    v = ranking_verdict(rank_methods(const(aim=0.1, hard=0.4, bf_soft=0.8), epsilon=1.0))
    assert v.headline.startswith("AIM has 75% lower error than Hard at ε = 1 on this table; Hard's policy")


def test_policy_aware_winner_is_green_and_names_the_baseline_it_beats():
    # BF-Soft 0.2, Hard 0.25, MST 0.4: BF-Soft has 20% lower error than Hard (the runner-up) and 50% than MST
    v = ranking_verdict(rank_methods(const(bf_soft=0.2, hard=0.25, mst=0.4), epsilon=0.5))
    assert v.level == "good"
    assert v.headline == ("BF-Soft has 20% lower error than Hard at ε = 0.5 on this table; clear with 3 seeds — "
                          "the interval excludes 0")
    assert "BF-Soft also has 50% lower error than MST." in v.detail


def test_inconclusive_when_the_paired_interval_contains_zero():
    # Hard mean 0.38, BF-Soft 0.4: Hard first, 100 (0.4 - 0.38) / 0.4 = 5% lower; per-seed differences
    # E_BF-Soft - E_Hard = -0.1, +0.14: mean 0.02, sd 0.1697, se 0.12, half-width 12.706 · 0.12 = 1.52:
    # the interval [-1.50, 1.54] contains 0
    r = rank_methods({"hard": {0: 0.4, 1: 0.36}, "bf-soft": {0: 0.3, 1: 0.5}})
    c = r.compare("hard", "bf-soft")
    assert c.diff == pytest.approx(0.02) and not c.clear and c.diff_ci[0] < 0 < c.diff_ci[1]
    assert c.diff_ci[1] - c.diff == pytest.approx(12.7062 * 0.12, rel=1e-4)
    v = ranking_verdict(r)
    assert v.level == "neutral" and v.cause == "the interval includes 0"
    assert v.headline == ("Hard has 5.0% lower error than BF-Soft on this table, but the comparison is inconclusive "
                          "with 2 seeds — the interval includes 0")
    # a reference winner that is not clear is inconclusive too, never red
    v = ranking_verdict(rank_methods({"mst": {0: 0.1, 1: 0.5}, "bf-soft": {0: 0.4, 1: 0.35}}))
    assert v.level == "neutral" and "inconclusive" in v.headline and "policy advantage" not in v.headline


def test_one_seed_tie_and_too_few_private_methods():
    v = ranking_verdict(rank_methods({"mst": {0: 0.1}, "hard": {0: 0.2}}))
    assert v.level == "neutral" and v.headline.endswith("needs ≥ 2 seeds for an interval")
    v = ranking_verdict(rank_methods(const(hard=0.3, bf_soft=0.3)))
    assert v.level == "neutral" and v.headline == "Hard and BF-Soft have the same mean error on this table"
    assert ranking_verdict(rank_methods(const(hard=0.3))) is None
    # the analysis-only decomposition device is ranked but never compared (it is not private)
    r = rank_methods(const(soft_hard_noise=0.01, hard=0.3))
    assert r.rows[0].method == "soft-hard-noise" and r.best_private.method == "hard"
    assert ranking_verdict(r) is None
    v = ranking_verdict(rank_methods(const(soft_hard_noise=0.01, hard=0.3, bf_soft=0.2)))
    assert v.headline.startswith("BF-Soft has") and "Soft vote with Hard's noise 0.01 [0.01, 0.01] (analysis only, not private)" \
        in v.detail


def test_from_report_reads_runs_metric_and_stated_epsilon():
    runs = [{"method": m, "seed": s, "pwerr": e} for m, e in (("hard", 0.5), ("mst", 0.2)) for s in (0, 1)]
    rep = {"runs": runs, "metric": {"name": "pwerr"},
           "privacy": {"accountant": "zcdp-eq1", "rho": 0.01, "epsilon": 0.9623, "delta": 1e-5}}
    r = ranking_from_report(rep)
    assert r.metric == "pwerr" and r.epsilon == pytest.approx(0.9623) and r.delta == 1e-5
    assert ranking_verdict_from_report(rep).headline.startswith("MST has 60% lower error than Hard at ε = 0.96")
    # the exact Gaussian curve's epsilon when that is the accountant
    rep["privacy"] = {"accountant": "gdp-exact", "rho": 0.01, "epsilon_exact": 0.71, "epsilon_eq1": 1.3, "delta": 1e-5}
    assert ranking_from_report(rep).epsilon == 0.71
    assert ranking_from_report({"runs": []}) is None


def test_bad_input_is_a_clear_error():
    with pytest.raises(BlowfishError, match="unknown method"):
        rank_methods({"nope": {0: 0.1}})
    with pytest.raises(BlowfishError, match="no errors"):
        rank_methods({"hard": {}})
    with pytest.raises(BlowfishError, match=r"hard error \(seed 0\) must be a finite error"):
        rank_methods({"hard": {0: math.nan}})
    with pytest.raises(BlowfishError, match="share no seed"):
        rank_methods({"hard": {0: 0.1}, "mst": {1: 0.2}}).compare("hard", "mst")
