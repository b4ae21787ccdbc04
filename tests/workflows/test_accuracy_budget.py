"""Accuracy-first budget from public data (blowfish_core.workflows.accuracy_budget): the returned budget reaches
the target on the pilot and the budget just below it does not; only public rows are ever read."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import blowfish_core as bc
import blowfish_core.workflows.accuracy_budget as ab
from blowfish_core.privacy.accounting import epsilon_exact, pilot_budget
from blowfish_core.workflows.accuracy_budget import accuracy_first_budget
from blowfish_core.base.errors import BlowfishError, BudgetError
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.synthesis.spec import RunRequest
from blowfish_core.synthesis.experiment import run_paired
from blowfish_core.io.presets import shared_path

XOR = bc.get_preset("xor3")
SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def xor_split():
    return bc.load_preset_data(XOR)  # private: 12,000 generated rows; public: 3,000 separately generated rows


def pilot_mean(schema, policy, public, method, tau, rho, n_target, seeds, metric, config=None) -> float:
    """Mean pilot error of one method at target budget rho, recomputed independently (Eq. (4))."""
    req = RunRequest(schema, policy, public, [method], pilot_budget(rho, n_target, len(public)), 1e-5, tau,
                     list(seeds), config or SynthConfig(), metric=metric)
    return float(sum(run_paired(req).errors(method)) / len(seeds))


def check_result(res, schema, policy, public, n_target, metric, target, config=None):
    mb = res.per_method[res.method]
    assert res.rho == mb.rho and res.epsilon == pytest.approx(epsilon_exact(res.rho, 1e-5))
    # the returned budget reaches the target on the pilot, recomputed from scratch
    assert mb.point(res.rho).mean <= target
    assert pilot_mean(schema, policy, public, res.method, res.tau, res.rho, n_target, res.seeds, metric,
                      config) <= target
    # ... and the bisection's neighbour just below does not
    assert mb.rho_below is not None and mb.rho_below < res.rho
    assert mb.point(mb.rho_below).mean > target
    assert pilot_mean(schema, policy, public, res.method, res.tau, mb.rho_below, n_target, res.seeds, metric,
                      config) > target
    for other in res.per_method.values():  # the chosen method is the cheaper one
        if other.reachable:
            assert res.rho <= other.rho
    lo, hi = res.rho_interval
    assert lo is not None and lo <= res.rho * (1 + 1e-12)
    assert hi is None or hi >= lo


def test_xor3_budget_reaches_the_target_and_one_step_less_does_not(xor_split, monkeypatch):
    public, private = xor_split.public, xor_split.private
    seen: list[pd.DataFrame] = []
    real_run = ab.run_paired

    def spy(req, **kw):
        seen.append(req.data)
        assert req.reference is None  # errors are measured against the public rows themselves
        return real_run(req, **kw)

    monkeypatch.setattr(ab, "run_paired", spy)
    res = accuracy_first_budget(XOR.schema, XOR.default_policy(), public, 0.4, len(private), 0.03, seeds=SEEDS,
                                metric=XOR.metric_fn(), grid_points=6, refine_steps=4)
    assert seen and all(d is public for d in seen)  # every run reads the public rows, nothing else
    monkeypatch.setattr(ab, "run_paired", real_run)
    assert res.n_pilot == 3000 and res.n_target == 12000 and res.factor == 16.0
    assert set(res.per_method) == {"hard", "bf-soft"} and res.metric == "hoerr"
    check_result(res, XOR.schema, XOR.default_policy(), public, len(private), XOR.metric_fn(), 0.4)
    # refined: the bracket is the grid step split 4 times
    step = (res.per_method[res.method].points[-1].rho / res.per_method[res.method].points[0].rho) ** (1 / 5)
    mb = res.per_method[res.method]
    assert mb.rho / mb.rho_below == pytest.approx(step ** (1 / 16), rel=1e-9)
    text = res.explain()
    assert "public" in text and "no private record is read" in text and "ε ≈" in text


def test_never_reads_private_rows(xor_split, monkeypatch):
    """A private table passed where the count belongs is refused; loading private data fails the test."""

    class PrivateSentinel(pd.DataFrame):
        def __getattribute__(self, name):
            if name in ("values", "to_numpy", "iloc", "loc", "__getitem__", "__array__", "columns"):
                raise AssertionError("private rows were read")
            return super().__getattribute__(name)

    sentinel = PrivateSentinel(xor_split.private.head(100))
    with pytest.raises(BlowfishError, match="public rows only"):
        accuracy_first_budget(XOR.schema, XOR.default_policy(), xor_split.public, 0.4, sentinel, 0.03)

    def boom(*a, **k):
        raise AssertionError("private data loaded")

    from blowfish_core.io import data, presets
    monkeypatch.setattr(presets, "load_preset_data", boom)
    monkeypatch.setattr(data, "read_table", boom)
    res = accuracy_first_budget(XOR.schema, XOR.default_policy(), xor_split.public, 0.6, 12000, None, seeds=(0, 1),
                                metric=XOR.metric_fn(), grid_points=3, refine_steps=1)
    assert set(res.per_method) == {"hard"} and res.method == "hard"  # tau None: the pilot recommended Hard


def test_unreachable_target_is_a_clear_error(xor_split):
    with pytest.raises(BudgetError, match=r"not reached on the public pilot within epsilon <= 1 .*Fix"):
        accuracy_first_budget(XOR.schema, XOR.default_policy(), xor_split.public, 0.001, 12000, 0.03,
                              seeds=(0, 1), metric=XOR.metric_fn(), epsilon_max=1.0, grid_points=2,
                              refine_steps=0)


def test_bad_settings_before_any_work(xor_split):
    pub = xor_split.public
    pol = XOR.default_policy()
    for kw, msg in [({"target_error": 0.0}, "target error"), ({"target_error": math.nan}, "target error"),
                    ({"n_target": 0}, "n_target"), ({"tau": -1.0}, "tau"), ({"grid_points": 1}, "grid_points"),
                    ({"epsilon_min": 5.0, "epsilon_max": 1.0}, "epsilon_min"), ({"seeds": ()}, "seeds"),
                    ({"public_df": pub.head(10)}, "too small")]:
        args = {"schema": XOR.schema, "policy": pol, "public_df": pub, "target_error": 0.4, "n_target": 12000,
                "tau": 0.03}
        args.update(kw)
        with pytest.raises(BlowfishError, match=msg):
            accuracy_first_budget(**args)


@pytest.mark.skipif(shared_path(bc.get_preset("adult")) is None, reason="needs ../shared/data/adult.csv")
def test_adult_held_out_pilot_split():
    adult = bc.get_preset("adult")
    split = bc.load_preset_data(adult)  # 26,048 private rows; 3,000 held-out public pilot rows (disjoint)
    public, n_target = split.public, len(split.private)
    assert (n_target, len(public)) == (26048, 3000)
    pol = adult.default_policy()
    res = accuracy_first_budget(adult.schema, pol, public, 0.55, n_target, 0.03, seeds=(0, 1),
                                epsilon_min=0.03, epsilon_max=3.0, grid_points=4, refine_steps=3)
    assert res.factor == pytest.approx((26048 / 3000) ** 2) and res.metric == "pwerr"
    check_result(res, adult.schema, pol, public, n_target, adult.metric_fn(), 0.55)


# ------------------------------------------------------------------ issue 24: default target, the cap's name
def test_attainable_target_rounds_the_recommendations_mean_up_within_the_pilots_range():
    from types import SimpleNamespace as NS

    def pilot(rec, *others):
        return NS(recommendation=NS(mean=rec), candidates=[NS(mean=m) for m in (rec, *others)])

    assert ab.attainable_target(pilot(0.4321, 0.5, 0.61)) == (0.44, 0.4321, 0.61)
    assert ab.attainable_target(pilot(0.44, 0.5)) == (0.44, 0.44, 0.5)  # already round: kept
    assert ab.attainable_target(pilot(0.4321, 0.435)) == (0.435, 0.4321, 0.435)  # rounding up left the range
    assert ab.attainable_target(pilot(1.234, 1.9)) == (1.3, 1.234, 1.9)
    assert ab.attainable_target(pilot(0.0123, 0.2)) == (0.013, 0.0123, 0.2)
    assert ab.attainable_target(None) is None
    assert ab.attainable_target(NS(recommendation=NS(mean=math.nan), candidates=[NS(mean=math.nan)])) is None


def test_the_default_target_is_reached_by_the_search_on_the_same_pilot_setting(xor_split):
    """The 'target 0.05 fails after 41 s' of issue 24: the default now comes from what the pilot
    reached on the same public rows, schedule and seeds, so the search finds a budget for it."""
    from blowfish_core.privacy.accounting import rho_from_epsilon_exact
    from blowfish_core.workflows.pilot import run_pilot

    pub, n_t, pol = xor_split.public.iloc[:600], 12000, XOR.default_policy()
    cfg = SynthConfig(rounds=2, population=[64, 64], release=32)
    rho = rho_from_epsilon_exact(1.0, 1e-5)
    pilot = run_pilot(XOR.schema, pol, pub, rho, n_t, [0.03, 0.3], [0, 1], cfg, metric=XOR.metric_fn())
    target, lo, hi = ab.attainable_target(pilot)
    assert lo <= pilot.recommendation.mean <= target <= hi
    tau = pilot.recommendation.tau
    res = accuracy_first_budget(XOR.schema, pol, pub, target, n_t, tau, seeds=(0, 1), config=cfg,
                                metric=XOR.metric_fn(), grid_points=4, refine_steps=1)
    assert res.per_method[res.method].point(res.rho).mean <= target


def test_an_unreached_target_names_the_cap_as_the_front_end_calls_it(xor_split):
    with pytest.raises(BudgetError, match=r'Fix: raise the target error above that, or raise the "ε cap" input$'):
        accuracy_first_budget(XOR.schema, XOR.default_policy(), xor_split.public, 0.001, 12000, None,
                              seeds=(0,), metric=XOR.metric_fn(), epsilon_max=1.0, grid_points=2, refine_steps=0,
                              cap_name='the "ε cap" input')
