"""PubMix with Remark 4.5's noise law per round (mechanism 'pubmix-remark45'; issue 26, docs/PRIVACY.md §5).

* the plan: delta_t = delta / (2T) and epsilon_t from the composition of canonical (epsilon_t, delta_t)
  pairs; T = 1 against the canonical pair's closed form (held constant);
* a round: round_noise picks the law from public data; n_samples = 1 against Thm 4.1's closed form;
* a run: every row is (epsilon_t, delta_t)-DP at its realized (beta_t, floor) (Thm 4.1, exact delta),
  and the total equals composing the canonical pairs (dp-accounting, recomputed here);
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
R45 = MECHANISMS["pubmix-remark45"]

#: T = 1, epsilon = 1, delta = 1e-5: the canonical pair (s, delta/2) has hockey-stick
#: delta(e) = delta/2 + (1 - delta/2)(e^s - e^e)/(1 + e^s) for e <= s; delta(1) = delta gives
#: e^s = ((1 - delta/2) e + delta/2) / (1 - delta), s = ln(...) = 1.0000068394422112 (by hand, math.log).
S_T1 = 1.0000068394422112
#: n_samples = 1, n = 100, epsilon = 1, delta = 1e-4, N = 1/4: Thm 4.1's closed form (design notes A2)
#: beta_min = (1 - n delta) / (1 + n (e - 1) N) = 0.99 / (1 + 25 (e - 1)) = 0.02252198672536209.
BETA_M1 = 0.02252198672536209


def test_registry_entries_and_noise_laws():
    assert MECHANISMS["pubmix"].noise_law == FLOOR_WF and not MECHANISMS["pubmix"].adaptive
    assert R45.noise_law == REMARK45 and R45.adaptive and R45.samples and R45.needs_public
    assert "pubmix-remark45" in SAMPLING and MECHANISMS["linmix"].adaptive is False
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
                                seeds=[0], config=cfg, metric=XOR.metric_fn(), mechanism="pubmix-remark45",
                                epsilon=2.0, public=split.public, public_source="pilot"))
    rows = res.runs[0].ledger
    n = len(split.private)
    assert [r.mechanism for r in rows] == ["pubmix-remark45"] * 3 and [r.delta_dp_t for r in rows] == [1e-5 / 6] * 3
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
                            "pubmix-remark45")
    assert parse_noise("pubmix-remark45", None) == "pubmix-remark45"
