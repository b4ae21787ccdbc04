"""Live progress on the Run step (issue 24 "Progress and speed"): the per-method lines, the bar's
text and the worker thread that keeps the clock running while one long fit gives no event."""

from __future__ import annotations

import threading
import time

import pytest

from blowfish_core.workflows.progress import ProgressClock, run_plan
from studio.run_ui import current_text, left_text, method_line, progress_lines, run_with_clock


def _clock(methods, seeds, rounds):
    return ProgressClock(run_plan(methods, seeds, rounds)).start(now=0.0)


def test_method_lines_say_seeds_done_the_running_round_and_the_rate():
    c = _clock(["hard", "mst"], [0, 1], 8)
    for r in range(1, 9):
        c.observe({"method": "hard", "seed": 0, "round": r, "rounds": 8}, now=0.5 * r)
    c.observe({"method": "mst", "seed": 0, "round": 13, "rounds": 13}, now=14.0)  # one fit of 10 s
    c.observe({"method": "hard", "seed": 1, "round": 1, "rounds": 8}, now=14.5)
    snap = c.snapshot(now=14.75)
    hard, mst = progress_lines(snap)  # Hard: 8 x 0.5 s, then 0.5 s and 0.25 s into round 2 of seed 1
    assert hard == "**Hard**: 1 of 2 seeds done · now seed 1, round 2 of 8 · 5 s so far · 0.5 s per round"
    assert mst == "**MST**: 1 of 2 seeds done · 10 s so far · 10 s per fit"
    assert current_text(snap) == "run 3 of 4: Hard, seed 1, round 2 of 8"
    # a reference fit not started yet: its expected cost, from the cost model
    fresh = _clock(["hard", "mst"], [0], 2).snapshot(now=0.0)
    assert method_line(fresh.methods[1]).startswith("**MST**: 0 of 1 seed done · about ")
    assert method_line(fresh.methods[1]).endswith(" per fit expected")
    assert left_text(0.4) == "finishing" and left_text(65) == "about 1 min 05 s left"


def test_the_clock_runs_while_one_long_fit_gives_no_event():
    """The worker sleeps through one 'fit' with no event: the page thread still redraws, with the
    elapsed time growing and the estimate moving (the frozen 'about 8 min 20 s left' of issue 24)."""
    plan = run_plan(["mst"], [0, 1], 8)
    shown = []

    def work(progress, should_stop):
        time.sleep(0.3)
        progress({"method": "mst", "seed": 0, "round": 13, "rounds": 13})
        time.sleep(0.9)  # the second fit: no event for a while
        progress({"method": "mst", "seed": 1, "round": 13, "rounds": 13})
        return "done"

    assert run_with_clock(work, ProgressClock(plan), shown.append, tick=0.05) == "done"
    during = [s for s in shown if s.units_done == 1]
    assert len(during) >= 5
    elapsed = [s.elapsed for s in during]
    assert elapsed == sorted(elapsed) and elapsed[-1] > elapsed[0]
    lefts = [s.seconds_left for s in during]
    assert len(set(lefts)) > 1  # it moves: down while on time, then up as the fit runs late
    assert shown[-1].units_done == 2 and shown[-1].seconds_left == 0.0


def test_a_stop_request_reaches_the_worker_and_errors_come_back_to_the_page():
    seen = threading.Event()

    def work(progress, should_stop):
        while not should_stop():
            time.sleep(0.01)
        seen.set()
        raise RuntimeError("stopped by the page")

    asked = {"n": 0}

    def stop_requested():
        asked["n"] += 1
        return asked["n"] >= 2

    with pytest.raises(RuntimeError, match="stopped by the page"):
        run_with_clock(work, ProgressClock(run_plan(["hard"], [0], 2)), lambda s: None, stop_requested, tick=0.02)
    assert seen.is_set()


def test_the_sweep_chart_marks_the_crossing_the_headline_says():
    """Issue 24 item 8: 'wins below ε ≈ 0.1' over a chart marked 0.15."""
    from blowfish_core.privacy.accounting import epsilon_exact
    from blowfish_core.workflows.sweeps import SweepPoint, SweepResult
    from blowfish_core.workflows.verdicts import sweep_verdict_from_result
    from studio.run_ui import sweep_figure

    pts = [SweepPoint(r, epsilon_exact(r, 1e-5), {"mean": h, "ci95": [None, None]}, {"mean": s, "ci95": [None, None]},
                      None) for r, h, s in [(1e-4, 0.6, 0.4), (6e-4, 0.25, 0.3), (3e-3, 0.1, 0.2)]]
    sw = SweepResult("pwerr", 0.03, 1e-5, [0], pts, 2.7e-4, 0.149, None, 0.0)
    mark = sweep_figure(sw).layout.annotations[0].text
    assert mark == "crossing ε ≈ 0.15"
    assert sweep_verdict_from_result(sw).headline.startswith(f"BF-Soft wins below epsilon ≈ {mark.split('≈ ')[1]} ")


def test_before_a_long_run_the_page_says_what_to_expect():
    from blowfish_core.workflows.progress import PRIOR_SECONDS_PER_STEP as P
    from studio.run_ui import expected_text, fmt_seconds

    assert expected_text(["tab-pe", "hard", "bf-soft"], list(range(6)), 8) is None  # the default Run: quick
    text = expected_text(["hard", "mst"], [0, 1], 8)
    total = 2 * (8 * P["evolution"] + P["baseline"])  # the cost model, no work done yet
    assert text.startswith(f"Expected: about {fmt_seconds(total)} for 4 runs (MST: about 15 s per fit); each paired "
                           f"seed adds about {fmt_seconds(total / 2)}.")
    assert expected_text(["hard"], [0], 0) is None  # bad rounds: nothing to say


def _running_app():
    from blowfish_core.workflows.progress import ProgressClock, run_plan
    from studio.run_ui import RunStatus, current_text

    c = ProgressClock(run_plan(["hard", "bf-soft"], [0, 1], 4)).start(now=0.0)
    for r in (1, 2):
        c.observe({"method": "hard", "seed": 0, "round": r, "rounds": 4}, now=float(r))
    snap = c.snapshot(now=2.2)
    rs = RunStatus("Run").__enter__()  # left running: the state a person sees during the run
    rs.show(snap, current_text(snap))


def test_the_running_box_shows_the_clock_the_estimate_and_a_line_per_method():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_running_app, default_timeout=60).run()
    assert not at.exception
    # Hard 1 s per round: 0.8 + 1 s left of seed 0 + 4 s of seed 1; BF-Soft not started: Hard's rate, 8 rounds
    assert at.status[0].label == "Run: running — 2 s elapsed, about 14 s left"  # 13.8 s
    assert at.get("progress")[0].proto.text == "run 1 of 4: Hard, seed 0, round 3 of 4"
    lines = [m.value for m in at.markdown if "**Hard**" in m.value]
    assert lines and "**Hard**: 0 of 2 seeds done · now seed 0, round 3 of 4 · 2 s so far · 1 s per round" in lines[0]
    assert "**BF-Soft**: 0 of 2 seeds done · about 1 s per round expected" in lines[0]


def test_the_step_after_the_runs_has_its_own_line_and_bar_text():
    from blowfish_core.workflows.sweeps import ROUND_ERRORS_STEP

    c = ProgressClock(run_plan(["hard"], [0], 1, round_errors=True)).start(now=0.0)
    c.observe({"method": "hard", "seed": 0, "round": 1, "rounds": 1}, now=1.0)
    snap = c.snapshot(now=1.5)
    assert current_text(snap) == "errors by round of every run: run 1 of 1"
    assert progress_lines(snap)[-1] == "**Errors by round**: 0 of 1 runs done · 0 s so far"
    c.observe({"method": ROUND_ERRORS_STEP, "seed": None, "round": 1, "rounds": 1}, now=2.0)
    assert current_text(c.snapshot(now=2.0)) == "all 1 runs done: finishing"
    assert current_text(_clock(["hard"], [0, 1], 2).snapshot(now=0.0)) == "run 1 of 2: Hard, seed 0, round 1 of 2"
