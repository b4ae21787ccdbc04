"""Public-data pilot (§6.2.4, Eq. (4)): budget scaling, tau grid, tie rule, paired runs."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blowfish_core as bc
from blowfish_core.privacy.accounting import pilot_budget
from blowfish_core.base.errors import BlowfishError, BudgetError
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.model.metrics import t_interval
from blowfish_core.workflows.pilot import (
    DEFAULT_TIE_TOL, MAX_GRID, PAPER_TAU_GRID, holdout_split, parse_tau_grid, recommend, run_pilot, scale_budget,
    subsample, tau_grid,
)
from blowfish_core.io.presets import load_preset_data
from blowfish_core.synthesis.spec import MAX_SEEDS, RunRequest
from blowfish_core.synthesis.experiment import run_paired
from blowfish_core.model.sensitivity import noise_ratio

SMALL = SynthConfig(rounds=2, population=[48, 48], release=80)


# ---------------------------------------------------------------- Eq. (4)
def test_adult_scaling_is_about_75x():
    s = scale_budget(1e-4, 26_048, 3_000)
    assert s.factor == pytest.approx((26_048 / 3_000) ** 2, rel=1e-15)
    assert round(s.factor) == 75
    assert s.rho_pilot == pytest.approx(1e-4 * 75.389, rel=1e-4)
    assert s.rho_pilot == pilot_budget(1e-4, 26_048, 3_000)
    assert "75.39" in s.explain()


def test_scaling_total_equals_scaling_each_round():
    s = scale_budget(3e-3, 12_000, 3_000, rounds=8)
    assert s.factor == 16.0
    assert len(s.rho_pilot_per_round) == 8
    for a, b in zip(s.rho_target_per_round, s.rho_pilot_per_round):
        assert b == pytest.approx(16.0 * a, rel=1e-14)
    assert sum(s.rho_pilot_per_round) == pytest.approx(s.rho_pilot, rel=1e-12)
    w = scale_budget(3e-3, 12_000, 3_000, rounds=3, weights=[1, 2, 3])
    assert w.rho_pilot_per_round[2] == pytest.approx(16.0 * 3e-3 / 2, rel=1e-12)


@pytest.mark.parametrize("args", [(0.0, 100, 10), (-1e-3, 100, 10), (1e-3, 0, 10), (1e-3, 100, 0)])
def test_scaling_rejects_bad_values(args):
    with pytest.raises(BudgetError):
        scale_budget(*args)


# ---------------------------------------------------------------- tau grid
def test_tau_grid_is_paper_selector_plus_q02():
    r = 1 / 28  # XOR-3, X_1 one step
    g = tau_grid(r)
    assert set(PAPER_TAU_GRID) <= set(g)
    extra = sorted(set(g) - set(PAPER_TAU_GRID))
    assert len(extra) == 1
    assert noise_ratio(r, extra[0]) == pytest.approx(0.2, abs=1e-6)
    assert g == sorted(g)
    assert tau_grid(0.0) == sorted(PAPER_TAU_GRID)  # nothing protected: no q = 0.2 temperature


def test_parse_tau_grid():
    assert parse_tau_grid("0.03, 0.003;0.3 0.03") == [0.003, 0.03, 0.3]
    for bad, word in [("", "empty"), ("0.03, abc", "'abc'"), ("0.03, 0", "> 0"), ("-1", "> 0"), ("nan", "> 0")]:
        with pytest.raises(BudgetError, match="tau grid") as e:
            parse_tau_grid(bad)
        assert word in str(e.value)
    with pytest.raises(BudgetError, match=f"at most {MAX_GRID}"):
        parse_tau_grid(",".join(str(0.001 * (k + 1)) for k in range(MAX_GRID + 1)))


# ---------------------------------------------------------------- tie rule
def test_recommend_lowest_mean_wins():
    r = recommend([("hard", None, 0.50), ("bf-soft", 0.03, 0.40), ("bf-soft", 0.01, 0.45)])
    assert (r.method, r.tau, r.mean) == ("bf-soft", 0.03, 0.40)
    assert len(r.tied) == 1
    r = recommend([("hard", None, 0.30), ("bf-soft", 0.03, 0.40)])
    assert (r.method, r.tau) == ("hard", None)


def test_recommend_exact_tie_favours_hard():
    r = recommend([("bf-soft", 0.003, 0.4), ("hard", None, 0.4), ("bf-soft", 0.03, 0.4)])
    assert (r.method, r.tau) == ("hard", None)
    assert len(r.tied) == 3
    assert "Hard is preferred" in r.reason


def test_recommend_tie_between_temperatures_favours_smaller_tau():
    r = recommend([("hard", None, 0.6), ("bf-soft", 0.06, 0.4), ("bf-soft", 0.015, 0.4), ("bf-soft", 0.3, 0.41)])
    assert (r.method, r.tau) == ("bf-soft", 0.015)
    assert "smallest tau" in r.reason


def test_recommend_tolerance_defines_the_tie():
    cands = [("hard", None, 0.505), ("bf-soft", 0.06, 0.500), ("bf-soft", 0.03, 0.503)]
    assert recommend(cands, 0.0).tau == 0.06  # strict: lowest mean
    assert recommend(cands, 0.004).tau == 0.03  # 0.03 within 0.004 of 0.500: smaller tau
    assert recommend(cands, 0.006).method == "hard"  # Hard within 0.006: Hard
    assert recommend(cands, 0.0049).tau == 0.03
    # floating-point noise counts as a tie with the default tolerance
    a = 0.1 + 0.2
    assert recommend([("bf-soft", 0.03, 0.3), ("hard", None, a)], DEFAULT_TIE_TOL).method == "hard"


@pytest.mark.parametrize("cands,tol,match", [
    ([], 0.0, "no candidates"),
    ([("tab-pe", None, 0.1)], 0.0, "method"),
    ([("hard", None, float("nan"))], 0.0, "finite"),
    ([("hard", None, 0.1)], -0.1, "tie tolerance"),
    ([("hard", None, 0.1)], float("inf"), "tie tolerance"),
    ([("bf-soft", 0.0, 0.1)], 0.0, "tau"),
])
def test_recommend_rejects_bad_input(cands, tol, match):
    with pytest.raises(BlowfishError, match=match):
        recommend(cands, tol)


_cand = st.one_of(
    st.tuples(st.just("hard"), st.none(), st.sampled_from([0.1, 0.2, 0.3, 0.30000000001])),
    st.tuples(st.just("bf-soft"), st.sampled_from([0.001, 0.003, 0.03, 0.3]),
              st.sampled_from([0.1, 0.2, 0.3, 0.30000000001])),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_cand, min_size=1, max_size=8), st.sampled_from([0.0, 1e-9, 0.05, 0.1, 2.0]), st.randoms())
def test_recommend_property(cands, tol, rnd):
    r = recommend(cands, tol)
    best = min(c[2] for c in cands)
    tied = [c for c in cands if c[2] - best <= tol]
    assert r.mean - best <= tol
    if any(c[0] == "hard" for c in tied):
        assert r.method == "hard"
    else:
        assert r.method == "bf-soft" and r.tau == min(c[1] for c in tied)
    shuffled = list(cands)
    rnd.shuffle(shuffled)
    r2 = recommend(shuffled, tol)
    assert (r2.method, r2.tau) == (r.method, r.tau)


# ---------------------------------------------------------------- public samples
def test_holdout_split_is_seeded_and_disjoint():
    df = pd.DataFrame({"id": np.arange(1000), "x": np.arange(1000) % 7})
    priv, pub = holdout_split(df, 300, seed=5)
    assert len(priv) == 700 and len(pub) == 300
    assert set(priv["id"]).isdisjoint(pub["id"])
    assert set(priv["id"]) | set(pub["id"]) == set(range(1000))
    assert list(priv.columns) == ["id", "x"]
    p2, q2 = holdout_split(df, 300, seed=5)
    assert p2.equals(priv) and q2.equals(pub)
    assert not holdout_split(df, 300, seed=6)[1].equals(pub)
    assert df["id"].tolist() == list(range(1000))  # input untouched
    for bad in (0, 1000, 5000, -3, 2.5):
        with pytest.raises(BlowfishError, match="n_p"):
            holdout_split(df, bad)


def test_subsample():
    df = pd.DataFrame({"id": np.arange(50)})
    s = subsample(df, 20, 3)
    assert len(s) == 20 and s["id"].is_unique and s["id"].is_monotonic_increasing
    assert s.equals(subsample(df, 20, 3))
    assert subsample(df, 50).equals(df)
    with pytest.raises(BlowfishError, match="only 50 public rows"):
        subsample(df, 51)


# ---------------------------------------------------------------- run_pilot
@pytest.fixture(scope="module")
def xor():
    p = bc.get_preset("xor3")
    sp = load_preset_data(p, n=2000)
    return p, sp


def test_run_pilot_pairs_seeds_and_follows_the_rule(xor):
    p, sp = xor
    pub = sp.public.iloc[:600].reset_index(drop=True)
    res = run_pilot(p.schema, p.default_policy(), pub, 6e-4, len(sp.private), [0.03, 0.01], [0, 1, 2], SMALL,
                    p.metric_fn())
    assert [c.label for c in res.candidates] == ["Hard", "BF-Soft tau=0.01", "BF-Soft tau=0.03"]
    assert res.scaling.factor == pytest.approx((2000 / 600) ** 2)
    # each candidate = run_paired on the public sample at rho_p, same seeds (paired streams)
    rep = run_paired(RunRequest(p.schema, p.default_policy(), pub, ["hard", "bf-soft"], res.scaling.rho_pilot,
                                tau=0.01, seeds=[0, 1, 2], config=SMALL, metric=p.metric_fn())).report
    hard = [r["hoerr"] for r in rep["runs"] if r["method"] == "hard"]
    soft = [r["hoerr"] for r in rep["runs"] if r["method"] == "bf-soft"]
    assert res.candidates[0].errors == hard
    assert res.candidates[1].errors == soft
    for c in res.candidates:
        mean, lo, hi = t_interval(c.errors)
        assert (c.mean, *c.ci95) == (mean, max(lo, 0.0), hi)  # error intervals are clipped at 0
    assert res.candidates[1].q == pytest.approx(noise_ratio(1 / 28, 0.01))
    exp = recommend([(c.method, c.tau, c.mean) for c in res.candidates])
    assert (res.recommendation.method, res.recommendation.tau) == (exp.method, exp.tau)
    d = res.to_dict()
    assert d["recommendation"]["label"] == exp.label and "distribution" in d["note"]
    assert list(res.table()["candidate"]) == ["Hard", "BF-Soft tau=0.01", "BF-Soft tau=0.03"]


@pytest.mark.parametrize("kw,match", [
    ({"taus": [0.03, 0.0]}, "tau"),
    ({"taus": []}, "empty"),
    ({"seeds": list(range(MAX_SEEDS + 1))}, "at most"),
    ({"seeds": []}, "at least one seed"),
    ({"rho_target": 0.0}, "rho"),
    ({"n_target": 0}, "n_target"),
    ({"tie_tol": -1.0}, "tie tolerance"),
    ({"public": "empty"}, "empty"),
])
def test_run_pilot_rejects_bad_settings_before_work(xor, kw, match):
    p, sp = xor
    args = dict(schema=p.schema, policy=p.default_policy(), public=sp.public.iloc[:100], rho_target=6e-4,
                n_target=2000, taus=[0.03], seeds=[0], config=SMALL, metric=p.metric_fn())
    args.update(kw)
    if isinstance(args["public"], str):
        args["public"] = sp.public.iloc[:0]
    calls = []
    with pytest.raises(BlowfishError, match=match):
        run_pilot(**args, progress=calls.append)
    assert calls == []


def test_run_pilot_stops_without_result(xor):
    p, sp = xor
    seen = []

    def stop():
        return len(seen) >= 1

    with pytest.raises(bc.RunStopped):
        run_pilot(p.schema, p.default_policy(), sp.public.iloc[:200], 6e-4, 2000, [0.03], [0], SMALL,
                  p.metric_fn(), progress=seen.append, should_stop=stop)
    assert len(seen) == 1 and seen[0]["label"] == "Hard" and seen[0]["configs"] == 2


# ---------------------------------------------------------------- fresh-user fixes
def test_check_pilot_size_refuses_tiny_pilots():
    from blowfish_core.workflows.pilot import MIN_PILOT_ROWS, check_pilot_size
    assert MIN_PILOT_ROWS == 50 and check_pilot_size(50) == 50 and check_pilot_size(np.int64(3000)) == 3000
    for bad in (0, 1, 49):
        with pytest.raises(BlowfishError, match=r"n_p = .* too small: use at least 50 .*sampling noise"):
            check_pilot_size(bad)
    for bad in (True, 2.5, "100"):
        with pytest.raises(BlowfishError, match="whole number"):
            check_pilot_size(bad)


def _cand(method, tau, mean, ci):
    from blowfish_core.workflows.pilot import PilotCandidate
    return PilotCandidate(method, tau, None, [mean], mean, ci)


def test_recommendation_strength_overlap_is_weak():
    from blowfish_core.workflows.pilot import recommendation_strength
    cands = [_cand("hard", None, 0.50, (0.45, 0.55)), _cand("bf-soft", 0.03, 0.30, (0.25, 0.35)),
             _cand("bf-soft", 0.1, 0.33, (0.20, 0.46))]
    rec = recommend([(c.method, c.tau, c.mean) for c in cands])
    s = recommendation_strength(cands, rec)
    assert rec.tau == 0.03 and s["weak"] and s["runner_up"] == "BF-Soft tau=0.1" and "overlap" in s["reason"]
    # separated intervals: a clear recommendation
    cands[2] = _cand("bf-soft", 0.1, 0.40, (0.36, 0.44))
    s = recommendation_strength(cands, recommend([(c.method, c.tau, c.mean) for c in cands]))
    assert not s["weak"] and s["runner_up"] == "BF-Soft tau=0.1"
    # one seed: no intervals, so the recommendation is weak
    cands = [_cand("hard", None, 0.5, (None, None)), _cand("bf-soft", 0.03, 0.3, (None, None))]
    s = recommendation_strength(cands, recommend([(c.method, c.tau, c.mean) for c in cands]))
    assert s["weak"] and "one paired seed" in s["reason"]


def test_pilot_intervals_are_clipped_at_zero(xor):
    """Errors are >= 0: a wide t-interval's lower end is 0, never negative (2 seeds, tiny pilot)."""
    p, sp = xor
    pub = sp.public.iloc[:60].reset_index(drop=True)
    res = run_pilot(p.schema, p.default_policy(), pub, 6e-4, len(sp.private), [0.1], [0, 1], SMALL, p.metric_fn())
    raw = [t_interval(c.errors)[1] for c in res.candidates]
    assert min(raw) < 0  # the raw t-interval reaches below 0 here ...
    assert all(c.ci95[0] >= 0 for c in res.candidates)  # ... the pilot's does not
