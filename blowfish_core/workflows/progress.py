"""Live progress of a run of many (method, seed) units, with an estimate that updates (issue 24).

A run (run_paired, a budget sweep) is a sequence of *units*, one (method, seed) fit each, done one
after the other.  An Algorithm 1 unit has ``rounds`` steps (one progress event per round); a
reference method (MST, AIM) reports one event when its fit ends, so its unit is one step.

:class:`ProgressClock` receives the run's progress events (``observe``, safe to call from a worker
thread) and answers, at any time ``now`` (``snapshot``), how far the run is and how long it still
needs.  The estimate is read from the work done so far, per method:

* a method with finished steps costs ``seconds spent on it / its finished steps`` per step;
* a method not started yet costs the cost model's prior per step (``PRIOR_SECONDS_PER_STEP`` by
  the method's runner), scaled by how fast this run's finished methods went against their own
  priors (the machine's speed today);
* the step in progress has already used ``now - (end of the last step)``: that is taken off its
  cost, and when it runs past its method's rate the rate is revised to include it (so the
  estimate grows while a slow step runs, and shrinks while a step runs on time: it moves as time
  passes, it never freezes).

With constant per-step times and every method started the estimate is exact (tests check it by
hand).  No wall clock is read unless ``now`` is omitted (``clock`` then gives it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..algorithm.methods import get_method
from ..base.errors import BlowfishError
from .sweeps import ROUND_ERRORS_STEP

#: the cost model (seconds per step on the project's 2-core machine under load, issue 24's
#: benchmarks/bench_runner.py): an Algorithm 1 round on Adult / Bank takes 0.02-0.08 s; a
#: reference fit (MST, AIM on jax) 5-26 s.  Only used until a method of the run has finished a step.
PRIOR_SECONDS_PER_STEP: dict[str, float] = {"evolution": 0.05, "baseline": 15.0, "analysis": 0.07}
#: the runner of the step after the runs: the error of every round of every run (sweeps.round_errors,
#: one step per run; about 0.07 s per run on XOR-3, Adult and Bank).
ANALYSIS = "analysis"


@dataclass(frozen=True)
class Unit:
    """One fit of a run: ``method`` on ``seed`` in ``steps`` steps (rounds; 1 for a reference
    method); ``runner`` 'evolution' or 'baseline' (the method table's); ``group`` an optional label
    of the part of the run it belongs to (a sweep's budget point)."""

    method: str
    seed: int | None
    steps: int
    runner: str = "evolution"
    group: str = ""


@dataclass(frozen=True)
class MethodProgress:
    """One method's line of a snapshot.

    units_done / units: finished fits of the method and all its fits; steps_done: finished steps;
    seconds: time spent on it so far (the step in progress included); per_step: its seconds per
    step used by the estimate (observed, else the prior: ``observed`` False); running: the unit in
    progress when it is this method's (else None); running_step: the step in progress (1-based)
    of ``running``; steps: steps per fit; reference: a reference method (one step per fit);
    seeds: the distinct seeds of its fits (fewer than ``units`` when one method runs several settings,
    e.g. the pilot's BF-Soft at every tau).
    """

    method: str
    units_done: int
    units: int
    steps_done: int
    seconds: float
    per_step: float
    observed: bool
    running: Unit | None
    running_step: int
    steps: int
    reference: bool
    runner: str = "evolution"
    seeds: int = 0


@dataclass(frozen=True)
class ProgressSnapshot:
    """The run at one moment: elapsed seconds, seconds_left (the estimate), fraction = elapsed /
    (elapsed + left) (0..1), units_done / units, the unit in progress (None when all are done) and
    its step (1-based), per method lines in the run's order."""

    elapsed: float
    seconds_left: float
    fraction: float
    units_done: int
    units: int
    current: Unit | None
    current_step: int
    methods: tuple[MethodProgress, ...]


def run_plan(methods: Sequence[str], seeds: Sequence[int | None], rounds: int,
             group: str = "", round_errors: bool = False) -> list[Unit]:
    """The units of run_paired in its order: seeds outer, methods inner.

    Parameters
    ----------
    methods : sequence of str
        Method names (the method table's), in the run's order.
    seeds : sequence of int or None
        The paired seeds.
    rounds : int
        Rounds T of an Algorithm 1 fit (>= 1); a reference method's fit is one step.
    group : str, default ''
        Label of the units (a sweep's budget point).
    round_errors : bool, default False
        Add the step after the runs: the error of every round of every run (sweeps.round_errors,
        one step per run; the Run step's "Error by round").

    Returns
    -------
    list of Unit
        One per (seed, method), then the round errors' unit if asked.

    Raises
    ------
    BlowfishError
        For rounds < 1, no methods or no seeds, or a method the method table does not know.
    """
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise BlowfishError(f"rounds must be a whole number >= 1 (got {rounds!r})")
    if not methods or not seeds:
        raise BlowfishError("a run needs at least one method and one seed")
    kinds = {m: get_method(m).runner for m in methods}
    units = [Unit(m, s, 1 if kinds[m] == "baseline" else rounds, kinds[m], group) for s in seeds for m in methods]
    if round_errors:
        units.append(Unit(ROUND_ERRORS_STEP, None, len(units), ANALYSIS, group))
    return units


def sweep_plan(groups: Sequence[str], methods: Sequence[str], seeds: Sequence[int | None],
               rounds: int) -> list[Unit]:
    """The units of a budget sweep: one run_plan per budget point (``groups``: their labels), in order.

    Parameters
    ----------
    groups : sequence of str
        One label per budget point ('ρ = 0.0001').
    methods, seeds, rounds
        As :func:`run_plan`.

    Returns
    -------
    list of Unit
        The points' units, one after the other.

    Raises
    ------
    BlowfishError
        As :func:`run_plan`, and for no points.
    """
    if not groups:
        raise BlowfishError("a sweep needs at least one budget")
    return [u for g in groups for u in run_plan(methods, seeds, rounds, g)]


@dataclass
class ProgressClock:
    """The run's clock: ``start()``, ``observe(event)`` per progress event, ``snapshot()`` any time.

    units: the plan (run_plan / sweep_plan); clock: the time source (seconds, monotonic);
    priors: seconds per step by runner (default PRIOR_SECONDS_PER_STEP).
    """

    units: Sequence[Unit]
    clock: Callable[[], float] = time.monotonic
    priors: Mapping[str, float] = field(default_factory=lambda: dict(PRIOR_SECONDS_PER_STEP))
    t0: float | None = None
    last: float | None = None
    index: int = 0
    done_in_unit: int = 0
    spent: dict[str, float] = field(default_factory=dict)
    steps: dict[str, int] = field(default_factory=dict)
    lock: Any = field(default_factory=threading.Lock, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.units = tuple(self.units)
        if not self.units:
            raise BlowfishError("a progress clock needs at least one unit")

    def start(self, now: float | None = None) -> ProgressClock:
        """Start the clock at ``now`` (default: the clock's time). Returns self."""
        with self.lock:
            self.t0 = self.last = self.clock() if now is None else float(now)
        return self

    def observe(self, event: Mapping[str, Any], now: float | None = None) -> None:
        """Record one progress event (keys 'method', 'seed', 'round', 'rounds'): the time since the
        previous event is the finished step's, its method's; the last round ends the unit."""
        t = self.clock() if now is None else float(now)
        with self.lock:
            if self.t0 is None:
                self.t0 = self.last = t
            k = self._unit_of(event)
            if k is None:
                return
            if k != self.index:  # the plan skipped ahead (a unit without events): take it from there
                self.index, self.done_in_unit = k, 0
            u = self.units[k]
            finished = int(event["round"]) >= int(event["rounds"])
            now_done = u.steps if finished else min(max(int(event["round"]), 0), u.steps - 1)
            new = max(now_done - self.done_in_unit, 0)
            self.spent[u.method] = self.spent.get(u.method, 0.0) + max(t - (t if self.last is None else self.last), 0.0)
            self.steps[u.method] = self.steps.get(u.method, 0) + new
            self.last = t
            if finished:
                self.index, self.done_in_unit = k + 1, 0
            else:
                self.done_in_unit = now_done

    def _unit_of(self, event: Mapping[str, Any]) -> int | None:
        """Index of the unit the event belongs to: the current one, else the next with its method and seed."""
        for k in range(self.index, len(self.units)):
            u = self.units[k]
            if u.method == event.get("method") and (u.seed == event.get("seed") or event.get("seed") is None):
                return k
        return None

    def _rates(self) -> dict[str, tuple[float, bool]]:
        """Seconds per step of every method of the plan: (rate, observed)."""
        methods = {u.method: u.runner for u in self.units}
        seen = {m: self.spent.get(m, 0.0) / self.steps[m] for m in methods if self.steps.get(m, 0) > 0}
        # the machine's speed today: observed rates against their priors (1 before any step)
        ratios = [seen[m] / self.priors[methods[m]] for m in seen if self.priors.get(methods[m], 0) > 0]
        speed = sum(ratios) / len(ratios) if ratios else 1.0
        out = {}
        for m, runner in methods.items():
            same = [seen[x] for x in seen if methods[x] == runner]
            if m in seen:
                out[m] = (seen[m], True)
            elif same:  # a method of the same runner has finished steps in this run
                out[m] = (sum(same) / len(same), False)
            else:
                out[m] = (float(self.priors.get(runner, PRIOR_SECONDS_PER_STEP["evolution"])) * speed, False)
        return out

    def snapshot(self, now: float | None = None) -> ProgressSnapshot:
        """The run at ``now`` (default: the clock's time): elapsed, the estimate of the time left,
        the fraction done and one line per method (see the module docstring for the estimate)."""
        t = self.clock() if now is None else float(now)
        with self.lock:
            t0 = self.t0 if self.t0 is not None else t
            last = self.last if self.last is not None else t0
            elapsed, in_step = max(t - t0, 0.0), max(t - last, 0.0)
            rates = self._rates()
            cur = self.units[self.index] if self.index < len(self.units) else None
            if cur is not None:  # the step in progress: revise its method's rate when it runs late
                r, obs = rates[cur.method]
                if in_step > r:
                    n = self.steps.get(cur.method, 0)
                    rates[cur.method] = ((self.spent.get(cur.method, 0.0) + in_step) / (n + 1), obs)
            left = 0.0
            if cur is not None:
                r = rates[cur.method][0]
                left += max(r - in_step, 0.0) + r * (cur.steps - self.done_in_unit - 1)
                left += sum(rates[u.method][0] * u.steps for u in self.units[self.index + 1:])
            lines = self._lines(rates, cur, in_step)
            total = elapsed + left
            return ProgressSnapshot(elapsed, left, 1.0 if total <= 0 else min(elapsed / total, 1.0),
                                    self.index, len(self.units), cur, self.done_in_unit + 1 if cur else 0, lines)

    def _lines(self, rates: dict[str, tuple[float, bool]], cur: Unit | None,
               in_step: float) -> tuple[MethodProgress, ...]:
        order = list(dict.fromkeys(u.method for u in self.units))
        out = []
        for m in order:
            mine = [k for k, u in enumerate(self.units) if u.method == m]
            running = cur if cur is not None and cur.method == m else None
            u0 = self.units[mine[0]]
            out.append(MethodProgress(
                m, sum(1 for k in mine if k < self.index), len(mine), self.steps.get(m, 0),
                self.spent.get(m, 0.0) + (in_step if running else 0.0), rates[m][0], rates[m][1], running,
                self.done_in_unit + 1 if running else 0, u0.steps, u0.runner == "baseline", u0.runner,
                len({self.units[k].seed for k in mine})))
        return tuple(out)
