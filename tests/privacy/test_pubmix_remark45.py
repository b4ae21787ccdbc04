"""PubMix with Remark 4.5's noise law per round (mechanism 'pubmix', the default; issue 26, docs/PRIVACY.md §5).

* the plan: delta_t = delta / (2T) and epsilon_t from the composition of canonical (epsilon_t, delta_t)
  pairs; T = 1 against the canonical pair's closed form (held constant);
* a round: round_noise picks the law from public data; n_samples = 1 against Thm 4.1's closed form;
* a run: every row is (epsilon_t, delta_t)-DP at its realized (beta_t, floor) (Thm 4.1, exact delta),
  and the total equals composing the canonical pairs (dp-accounting, recomputed here);
* several releases together are stated at R x delta (the totals rule), recomputed with dp-accounting;
* choose_noise's pruning gives the choice of scoring every candidate (a reference loop here);
* the name is one entry of the mechanism table: the same unknown-value error on every front end.
"""

from __future__ import annotations

import numpy as np
import pytest

import blowfish_core as bc
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.base.errors import BlowfishError
from blowfish_core.privacy.mechanisms import MECHANISMS, SAMPLING
from blowfish_core.privacy.mechanisms.pubmix import FLOOR_WF, REMARK45, SamplingPlan, check_noise_law
from blowfish_core.privacy.pubmix import pubmix_delta
from blowfish_core.synthesis.experiment import run_paired
from blowfish_core.synthesis.parsing import parse_noise
from blowfish_core.synthesis.spec import RunRequest

XOR = bc.get_preset("xor3")
R45 = MECHANISMS["pubmix"]

#: T = 1, epsilon = 1, delta = 1e-5: the canonical pair (s, delta/2) has hockey-stick
#: delta(e) = delta/2 + (1 - delta/2)(e^s - e^e)/(1 + e^s) for e <= s; delta(1) = delta gives
#: e^s = ((1 - delta/2) e + delta/2) / (1 - delta), s = ln(...) = 1.0000068394422112 (by hand, math.log).
S_T1 = 1.0000068394422112
#: n_samples = 1, n = 100, epsilon = 1, delta = 1e-4, N = 1/4: Thm 4.1's closed form (design notes A2)
#: beta_min = (1 - n delta) / (1 + n (e - 1) N) = 0.99 / (1 + 25 (e - 1)) = 0.02252198672536209.
BETA_M1 = 0.02252198672536209


def test_registry_entries_and_noise_laws():
    assert MECHANISMS["pubmix-floor"].noise_law == FLOOR_WF and not MECHANISMS["pubmix-floor"].adaptive
    assert R45.noise_law == REMARK45 and R45.adaptive and R45.samples and R45.needs_public
    assert "pubmix-floor" in SAMPLING and "pubmix-remark45" not in SAMPLING and MECHANISMS["linmix"].adaptive is False
    assert (R45.label, MECHANISMS["pubmix-floor"].label) == ("PubMix", "PubMix-floor")
    with pytest.raises(BlowfishError, match=r"noise_law must be one of remark45, floor-wf \(got 'r45'\)"):
        check_noise_law("r45")


def test_plan_one_round_matches_the_canonical_pair_closed_form():
    plan = R45.plan(1.0, 1e-5, 1000, [8], 8)
    assert plan.adaptive and plan.delta_t == (1e-5 / 2,)
    # the PLD's pessimistic discretization only lowers the epsilon_t it allows
    assert S_T1 * (1 - 1e-3) <= plan.epsilon_t[0] <= S_T1
    assert plan.epsilon <= 1.0


def test_plan_several_rounds_splits_delta_and_stays_within_the_target():
    plan = R45.plan(2.0, 1e-5, 5003, [16, 24, 32], 40)
    assert plan.delta_t == (1e-5 / 6,) * 3 and len(set(plan.epsilon_t)) == 1
    assert 0.99 * 2.0 <= plan.epsilon <= 2.0


def test_round_noise_uniform_public_data_one_sample_closed_form():
    plan = SamplingPlan(epsilon_t=(1.0,), delta_t=(1e-4,), beta_t=(0.0,), floor=(0.25,), n_samples=(1,), n=100,
                        epsilon=1.0, delta=1e-4, adaptive=True)
    p, beta, floor = R45.round_noise(np.full(4, 0.25), plan, 0, 4)
    np.testing.assert_allclose(p, np.full(4, 0.25), atol=1e-15)  # floor-raising uniform data is the identity
    assert floor == pytest.approx(0.25, abs=1e-15)
    assert beta == pytest.approx(BETA_M1, rel=1e-9)


def test_round_noise_is_a_floor_raised_public_histogram():
    plan = R45.plan(1.0, 1e-5, 3000, [6, 6], 6)
    pub = np.array([0.55, 0.25, 0.12, 0.08, 0.0, 0.0])
    p, beta, floor = R45.round_noise(pub, plan, 0, 6)
    assert p.sum() == pytest.approx(1.0) and floor == p.min() > 0
    assert pubmix_delta(beta, plan.epsilon_t[0], 3000, plan.n_samples[0], floor) <= plan.delta_t[0] * (1 + 1e-9)
    assert np.all(p[pub > floor] <= pub[pub > floor] + 1e-12)  # mass only taken from entries above the floor


def test_run_rows_are_dp_at_their_realized_beta_and_the_total_composes_canonical_pairs():
    from dp_accounting.pld import common, privacy_loss_distribution as pld

    split = bc.load_preset_data(XOR, None, n=5003)
    cfg = SynthConfig(rounds=3, population=[16, 24, 32], release=40)
    res = run_paired(RunRequest(XOR.schema, XOR.default_policy(), split.private, ["tab-pe"], None, 1e-5,
                                seeds=[0], config=cfg, metric=XOR.metric_fn(), mechanism="pubmix",
                                epsilon=2.0, public=split.public, public_source="pilot"))
    rows = res.runs[0].ledger
    n = len(split.private)
    assert [r.mechanism for r in rows] == ["pubmix"] * 3 and [r.delta_dp_t for r in rows] == [1e-5 / 6] * 3
    total = None
    for r in rows:
        assert r.floor > 0 and r.scale == r.beta_t
        assert pubmix_delta(r.beta_t, r.epsilon_t, n, r.n_samples, r.floor) <= r.delta_dp_t * (1 + 1e-9)
        p = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(r.epsilon_t, r.delta_dp_t),
                                        value_discretization_interval=1e-4)
        total = p if total is None else total.compose(p)
    eps = float(total.get_epsilon_for_delta(1e-5))
    assert res.privacy["epsilon"] == pytest.approx(eps, rel=1e-12) and eps <= 2.0
    assert res.privacy["accountant"] == "pld" and "canonical" in res.privacy["note"]


@pytest.mark.parametrize("field", ["--noise", "noise"])
def test_unknown_noise_value_is_the_same_error_everywhere(field):
    with pytest.raises(BlowfishError) as e:
        parse_noise("pubmix-r45", None, name=field)
    assert str(e.value) == (f"{field}: unknown noise step 'pubmix-r45'; use gaussian, pubmix, linmix, "
                            "pubmix-floor")
    assert parse_noise("pubmix-floor", None) == "pubmix-floor" and parse_noise("pubmix", None) == "pubmix"
    with pytest.raises(BlowfishError) as e:  # the retired name says what it is called now
        parse_noise("pubmix-remark45", None, name=field)
    assert str(e.value) == (f"{field}: unknown noise step 'pubmix-remark45' (retired: Remark 4.5's law is now "
                            "the default, 'pubmix'); use gaussian, pubmix, linmix, pubmix-floor")


def _canonical_total(rows, delta):
    """dp-accounting's composition of the rows' canonical (epsilon_t, delta_t) pairs, epsilon at delta."""
    from dp_accounting.pld import common, privacy_loss_distribution as pld

    total = None
    for r in rows:
        p = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(r.epsilon_t, r.delta_dp_t),
                                        value_discretization_interval=1e-4)
        total = p if total is None else total.compose(p)
    return float(total.get_epsilon_for_delta(delta))


def test_two_releases_are_stated_at_twice_delta_and_one_release_at_delta():
    import json

    from blowfish_core.synthesis.gate import total_text
    from blowfish_core.synthesis.report import bundle_total

    split = bc.load_preset_data(XOR, None, n=5003)
    cfg = SynthConfig(rounds=2, population=[16, 24], release=32)
    delta = 1e-5
    res = run_paired(RunRequest(XOR.schema, XOR.default_policy(), split.private, ["tab-pe"], None, delta,
                                seeds=[0, 1], config=cfg, metric=XOR.metric_fn(), mechanism="pubmix",
                                epsilon=1.0, public=split.public, public_source="pilot"))
    rows = [row for r in res.runs for row in r.ledger]
    assert len(rows) == 4 and [r.delta_dp_t for r in rows] == [delta / 4] * 4  # T = 2: delta_t = delta / (2T)
    at_delta = _canonical_total(rows, delta)  # 1 - (1 - delta/4)^4 just below delta at infinite loss
    assert 1.99 < at_delta <= 2.0  # no slack left: about the sum of the four epsilon_t
    tot = bundle_total(res)
    assert tot["releases"] == 2 and tot["delta"] == 2 * delta and tot["delta_requested"] == delta
    assert tot["epsilon"] == pytest.approx(_canonical_total(rows, 2 * delta), rel=1e-12)
    assert 1.0 < tot["epsilon"] < 2.0 + 1e-9  # finite; at most the two releases' epsilons added
    assert tot["delta_note"] == ("stated at delta = 2e-05 = 2 x the chosen delta (basic composition of the releases' delta: "
                                 "each Remark 4.5 round keeps delta_t as a failure probability, so 2 releases "
                                 "together are (epsilon, 2 x delta)-DP, not (epsilon, delta)-DP; at the chosen delta = 1e-05 "
                                 f"itself they are (epsilon = {at_delta:.4g}, delta = 1e-05)-DP, about the sum of every round's "
                                 "epsilon_t)")
    json.dumps(tot, allow_nan=False)  # the JSON report can state it
    text = total_text(tot, 2)
    assert "at delta = 2e-05" in text and "The total is stated at delta = 2e-05 = 2 x the chosen delta" in text
    # one release: stated at the requested delta, as before (no note)
    one = R45.totals(res.runs[0].ledger, delta)
    assert one["delta"] == delta and "delta_note" not in one
    assert one["epsilon"] == pytest.approx(_canonical_total(res.runs[0].ledger, delta), rel=1e-12)
    assert one["epsilon"] <= 1.0


def test_three_releases_are_unbounded_at_delta_and_stated_at_three_times_delta():
    split = bc.load_preset_data(XOR, None, n=5003)
    cfg = SynthConfig(rounds=1, population=[16], release=16)
    delta = 1e-5
    res = run_paired(RunRequest(XOR.schema, XOR.default_policy(), split.private, ["tab-pe"], None, delta,
                                seeds=[0, 1, 2], config=cfg, metric=XOR.metric_fn(), mechanism="pubmix",
                                epsilon=1.0, public=split.public, public_source="pilot"))
    rows = [row for r in res.runs for row in r.ledger]
    assert [r.delta_dp_t for r in rows] == [delta / 2] * 3 and _canonical_total(rows, delta) == float("inf")
    tot = R45.totals(rows, delta)
    assert tot["delta"] == pytest.approx(3 * delta, rel=1e-15) and tot["delta_requested"] == delta
    assert tot["epsilon"] == pytest.approx(_canonical_total(rows, tot["delta"]), rel=1e-12)
    assert tot["delta_note"] == ("stated at delta = 3e-05 = 3 x the chosen delta (basic composition of the releases' delta: "
                                 "each Remark 4.5 round keeps delta_t as a failure probability, so 3 releases "
                                 "together are (epsilon, 3 x delta)-DP, not (epsilon, delta)-DP)")


def test_the_floor_law_total_is_unchanged_by_the_rule():
    split = bc.load_preset_data(XOR, None, n=5003)
    cfg = SynthConfig(rounds=2, population=[16, 24], release=32)
    res = run_paired(RunRequest(XOR.schema, XOR.default_policy(), split.private, ["tab-pe"], None, 1e-5,
                                seeds=[0, 1], config=cfg, metric=XOR.metric_fn(), mechanism="pubmix-floor",
                                epsilon=1.0, public=split.public, public_source="pilot"))
    from blowfish_core.synthesis.report import bundle_total

    tot = bundle_total(res)
    assert tot["delta"] == 1e-5 and "delta_note" not in tot and np.isfinite(tot["epsilon"])


def _choose_every_candidate(pub, g, eps, delta, n, m, grid):
    """choose_noise's rule scoring every candidate (no pruning): the reference of the pruned search."""
    from blowfish_core.privacy.pubmix import beta_min, inner_max_tv, inner_max_tv_upper, mifr, water_fill

    d = pub.size
    inner = inner_max_tv if d <= 16 else inner_max_tv_upper
    grid = np.unique(np.concatenate([np.minimum(np.asarray(grid), 1.0 / d), [1.0 / d]]))
    best = None
    for t in grid[::-1]:
        cands = []
        mf = mifr(pub, t)
        if pub[pub <= mf + 1e-15].sum() >= g:
            cands.append(("mifr", mf))
        if pub[pub <= t].sum() < g:
            cands.append(("wf", water_fill(pub, t)))
        for which, p in cands:
            b = beta_min(eps, delta, n, m, float(p.min()))
            obj = b * inner(pub, p, g)
            if best is None or obj < best[0] - 1e-15:
                best = (obj, which, float(t), p, b)
    return best


@pytest.mark.parametrize("d, seed, gamma", [(6, 0, 0.3), (12, 1, 0.05), (40, 2, 0.1), (40, 3, 0.9), (200, 4, 0.6),
                                            (300, 5, 0.9)])
def test_pruned_choice_equals_scoring_every_candidate(d, seed, gamma):
    from blowfish_core.privacy.pubmix import choose_noise, default_t_grid

    rng = np.random.default_rng(seed)
    h = rng.multinomial(400, rng.dirichlet(np.full(d, 0.2))).astype(float)
    pub = h / h.sum()
    grid = default_t_grid(d, 16)
    ch = choose_noise(pub, gamma, 0.5, 1e-6, 2000, 50, t_grid=grid.tolist())
    obj, which, t, p, b = _choose_every_candidate(pub, gamma, 0.5, 1e-6, 2000, 50, grid)
    assert (ch.which, ch.t, ch.beta, ch.objective) == (which, t, b, obj)
    np.testing.assert_array_equal(ch.p_noise, p)
    assert all(bound >= obj for _, _, bound in ch.pruned)  # nothing pruned could have won
