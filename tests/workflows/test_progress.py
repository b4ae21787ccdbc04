"""The live progress estimate (blowfish_core.workflows.progress): hand-checkable numbers.

Every test drives the clock with explicit times (``now=``), never the wall clock.
"""

from __future__ import annotations

import pytest

from blowfish_core.base.errors import BlowfishError
from blowfish_core.workflows.progress import PRIOR_SECONDS_PER_STEP, ProgressClock, Unit, run_plan, sweep_plan


def _ev(method, seed, t, rounds):
    return {"method": method, "seed": seed, "round": t, "rounds": rounds}


def _feed(clock, plan, per_step, t=0.0, upto=None):
    """Drive ``clock`` through ``plan`` with constant per-step seconds by method; stop after
    ``upto`` units (all by default). Returns the time of the last event."""
    for u in plan[:upto]:
        for r in range(1, u.steps + 1):
            t += per_step[u.method]
            clock.observe(_ev(u.method, u.seed, r if u.runner != "baseline" else 13, u.steps
                              if u.runner != "baseline" else 13), now=t)
    return t


def test_run_plan_is_seeds_outer_methods_inner_with_one_step_per_reference_fit():
    plan = run_plan(["hard", "bf-soft", "mst"], [0, 1], 8)
    assert [(u.method, u.seed, u.steps) for u in plan] == [
        ("hard", 0, 8), ("bf-soft", 0, 8), ("mst", 0, 1), ("hard", 1, 8), ("bf-soft", 1, 8), ("mst", 1, 1)]
    assert plan[2].runner == "baseline" and plan[0].runner == "evolution"
    sp = sweep_plan(["ρ = 1e-4", "ρ = 1e-3"], ["hard"], [0], 2)
    assert [(u.group, u.method) for u in sp] == [("ρ = 1e-4", "hard"), ("ρ = 1e-3", "hard")]
    for bad in (lambda: run_plan([], [0], 8), lambda: run_plan(["hard"], [0], 0), lambda: sweep_plan([], ["hard"], [0], 8),
                lambda: run_plan(["nope"], [0], 8)):
        with pytest.raises(BlowfishError):
            bad()


def test_constant_per_round_times_give_the_exact_time_left_once_every_method_started():
    # Hard 1 s per round, BF-Soft 2 s per round, 8 rounds, 3 seeds: 3 x (8 + 16) = 72 s in all
    plan = run_plan(["hard", "bf-soft"], [0, 1, 2], 8)
    c = ProgressClock(plan).start(now=0.0)
    t = _feed(c, plan, {"hard": 1.0, "bf-soft": 2.0}, upto=2)  # seed 0 done at t = 24
    assert t == 24.0
    s = c.snapshot(now=24.0)
    assert s.elapsed == 24.0 and s.seconds_left == pytest.approx(48.0) and s.fraction == pytest.approx(1 / 3)
    assert s.units_done == 2 and s.current == plan[2] and s.current_step == 1
    # half a Hard round later the estimate has moved down by half a second: it runs with the clock
    assert c.snapshot(now=24.5).seconds_left == pytest.approx(47.5)
    t = _feed(c, plan[2:], {"hard": 1.0, "bf-soft": 2.0}, t=24.0, upto=1)  # seed 1's Hard
    assert c.snapshot(now=t).seconds_left == pytest.approx(40.0)
    t = _feed(c, plan[3:], {"hard": 1.0, "bf-soft": 2.0}, t=t)  # the rest
    s = c.snapshot(now=t)
    assert t == 72.0 and s.seconds_left == 0.0 and s.fraction == 1.0 and s.current is None
    hard, soft = s.methods
    assert (hard.method, hard.units_done, hard.units, hard.steps_done, hard.seconds, hard.per_step, hard.observed) == \
        ("hard", 3, 3, 24, 24.0, 1.0, True)
    assert (soft.units_done, soft.seconds, soft.per_step) == (3, 48.0, 2.0)


def test_mid_round_the_estimate_counts_the_round_in_progress():
    plan = run_plan(["hard"], [0, 1], 4)  # 1 s per round, 8 rounds in all
    c = ProgressClock(plan).start(now=0.0)
    for r in (1, 2):
        c.observe(_ev("hard", 0, r, 4), now=float(r))
    s = c.snapshot(now=2.25)
    assert s.seconds_left == pytest.approx(5.75) and s.current_step == 3
    line = s.methods[0]
    assert line.running == plan[0] and line.running_step == 3 and line.seconds == pytest.approx(2.25)


def test_a_method_not_started_takes_the_rate_of_a_started_method_of_the_same_runner():
    plan = run_plan(["hard", "bf-soft"], [0], 8)
    c = ProgressClock(plan).start(now=0.0)
    for r in range(1, 5):
        c.observe(_ev("hard", 0, r, 8), now=0.5 * r)
    s = c.snapshot(now=2.0)
    # Hard: 4 rounds left at 0.5 s; BF-Soft (not started): Hard's 0.5 s per round, 8 rounds
    assert s.seconds_left == pytest.approx(2.0 + 4.0)
    assert [(m.method, m.per_step, m.observed) for m in s.methods] == [("hard", 0.5, True), ("bf-soft", 0.5, False)]


def test_a_reference_fit_not_started_takes_the_cost_model_scaled_by_this_runs_speed():
    plan = run_plan(["hard", "mst"], [0], 8)
    c = ProgressClock(plan).start(now=0.0)
    per_round = 2 * PRIOR_SECONDS_PER_STEP["evolution"]  # this machine runs at half the prior's speed
    for r in range(1, 9):
        c.observe(_ev("hard", 0, r, 8), now=per_round * r)
    s = c.snapshot(now=8 * per_round)
    assert s.seconds_left == pytest.approx(2 * PRIOR_SECONDS_PER_STEP["baseline"])
    assert s.methods[1].reference and not s.methods[1].observed


def test_nothing_observed_yet_uses_the_priors_and_the_estimate_still_moves():
    plan = run_plan(["hard"], [0], 8)
    c = ProgressClock(plan, priors={"evolution": 1.0, "baseline": 10.0}).start(now=100.0)
    assert c.snapshot(now=100.0).seconds_left == pytest.approx(8.0)
    assert c.snapshot(now=100.5).seconds_left == pytest.approx(7.5)


def test_a_step_running_late_raises_the_estimate_as_time_passes():
    # MST's first fit took 10 s; the second runs 30 s and counting: the estimate must not freeze
    plan = run_plan(["mst"], [0, 1, 2], 8)
    c = ProgressClock(plan).start(now=0.0)
    c.observe(_ev("mst", 0, 13, 13), now=10.0)
    assert c.snapshot(now=15.0).seconds_left == pytest.approx(5.0 + 10.0)  # on time: 5 s left + the third fit
    late = [c.snapshot(now=t).seconds_left for t in (40.0, 60.0, 80.0)]
    # revised rate (10 + in_step) / 2 for the third fit; the running fit counts as due now
    assert late == pytest.approx([(10 + 30) / 2, (10 + 50) / 2, (10 + 70) / 2])
    assert late[0] < late[1] < late[2]


def test_elapsed_always_moves_and_events_out_of_plan_are_ignored():
    plan = [Unit("hard", 0, 2)]
    c = ProgressClock(plan).start(now=0.0)
    c.observe(_ev("bf-soft", 0, 1, 2), now=1.0)  # not in the plan
    s = c.snapshot(now=3.0)
    assert s.elapsed == 3.0 and s.units_done == 0
    with pytest.raises(BlowfishError):
        ProgressClock([])


def test_the_clock_reads_its_time_source_when_no_time_is_given():
    now = iter([0.0, 1.0, 1.5]).__next__
    c = ProgressClock(run_plan(["hard"], [0], 2), clock=now).start()
    c.observe(_ev("hard", 0, 1, 2))  # at 1.0
    assert c.snapshot().seconds_left == pytest.approx(0.5)  # at 1.5: 1 s per round, half of round 2 done


def test_the_round_errors_after_the_runs_are_a_unit_of_their_own():
    """The Run step computes every round's error after the runs (sweeps.round_errors, one event per
    run): the estimate counts it, so the label does not sit at 'finishing' while it works."""
    from blowfish_core.workflows.progress import ANALYSIS
    from blowfish_core.workflows.sweeps import ROUND_ERRORS_STEP

    plan = run_plan(["hard"], [0, 1], 2, round_errors=True)
    assert plan[-1] == Unit(ROUND_ERRORS_STEP, None, 2, ANALYSIS)
    c = ProgressClock(plan, priors={"evolution": 1.0, "baseline": 10.0, ANALYSIS: 0.5}).start(now=0.0)
    for k, t in enumerate((1.0, 2.0, 3.0, 4.0)):
        c.observe(_ev("hard", k // 2, k % 2 + 1, 2), now=t)
    assert c.snapshot(now=4.0).seconds_left == pytest.approx(2 * 0.5)  # the prior: no analysis step done yet
    c.observe({"method": ROUND_ERRORS_STEP, "seed": None, "round": 1, "rounds": 2}, now=4.25)
    s = c.snapshot(now=4.25)
    assert s.seconds_left == pytest.approx(0.25) and s.methods[-1].runner == ANALYSIS
    c.observe({"method": ROUND_ERRORS_STEP, "seed": None, "round": 2, "rounds": 2}, now=4.5)
    assert c.snapshot(now=4.5).current is None
