"""Run-step helpers of issue 16 (UI only; numbers from the engine): the run lifecycle with
``st.status``, the budget-sweep figure on an epsilon axis, and the carry message from Tune τ.

* :class:`RunStatus`: one status box per run — running (progress, elapsed time and an estimate
  of what is left), then done / failed / stopped; the progress bars live inside the box and are
  removed when it closes, so no frozen bar stays above an error.
* :func:`run_with_clock`: the run's work in a worker thread while the page redraws the box every
  half second from a blowfish_core.workflows.progress.ProgressClock (a running clock, one line per
  method and seed, an estimate that moves even while one long fit gives no event; issue 24).
* :func:`sweep_figure`: Hard and BF-Soft mean error against epsilon (exact Gaussian curve at the
  sweep's delta; log axis kept to the data), 95% intervals, a marker and dash per method, the
  crossing marked inside the plot; with its data table.
* :func:`carry_message`: what a carry from the Pilot changed in the Runner's settings, in words
  ("tau 0.03 → 0.1; Tab-PE removed from the comparison").
* :func:`rounds_input`: THE control of the number of rounds T (issue 24, one key per setting): the
  Policy and Run steps draw the same widget (key ROUNDS_KEY, label ROUNDS_LABEL), bound to the
  Runner's settings ``runner_settings["rn_rounds"]`` (studio.state's pattern: seeded on every run,
  written back by on_change); :func:`session_rounds` is the valid T every budget read-out uses.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from blowfish_core.algorithm.methods import METHOD_LABELS, get_method
from blowfish_core.base.errors import BlowfishError
from blowfish_core.workflows.progress import (ANALYSIS, PRIOR_SECONDS_PER_STEP, MethodProgress, ProgressClock,
                                              ProgressSnapshot, run_plan)
from blowfish_core.workflows.formatting import fmt_delta
from blowfish_core.workflows.verdicts import fmt_crossing, fmt_sig
from studio.plots import base_layout, log_axis, mark_x, method_style
from studio.runner_ui import RUNNER_DEFAULTS, runner_settings
from studio.state import seed


# ------------------------------------------------------------------ the rounds T (one key)
#: the one key of T: the Runner's setting and the widget key of the Policy and Run steps.
ROUNDS_KEY = "rn_rounds"
ROUNDS_LABEL = "Rounds T"
ROUNDS_HELP = ("Rounds of Algorithm 1; the budget is split over them (the noise per round). One setting: the "
               "Policy and Run steps show the same T.")


def session_rounds(state: Any) -> int:
    """The session's T (runner_settings["rn_rounds"]) when it is a whole number >= 1, else the default (8)."""
    t = runner_settings(state).get(ROUNDS_KEY)
    return t if isinstance(t, int) and not isinstance(t, bool) and t >= 1 else int(RUNNER_DEFAULTS[ROUNDS_KEY])


def _keep_rounds() -> None:
    runner_settings(st.session_state)[ROUNDS_KEY] = st.session_state.get(ROUNDS_KEY)


def rounds_input(container: Any = None, disabled: bool = False, budget: dict[str, Any] | None = None,
                 show_error: bool = False) -> Any:
    """Draw THE T control (bound to runner_settings["rn_rounds"]) and return its value.  budget: the
    session budget (runner_settings' seed when the Runner's settings do not exist yet); show_error: an
    st.error under the box when T is not a whole number >= 1 (the Run step says it when a run is asked)."""
    c = container if container is not None else st
    s = runner_settings(st.session_state, budget=budget)
    seed(ROUNDS_KEY, s[ROUNDS_KEY])
    value = c.number_input(ROUNDS_LABEL, key=ROUNDS_KEY, step=1, disabled=disabled, on_change=_keep_rounds,
                           help=ROUNDS_HELP)
    if show_error and session_rounds(st.session_state) != value:
        c.error(f"Rounds T must be a whole number >= 1 (got {value!r}); the figures below use T = "
                f"{session_rounds(st.session_state)}.")
    return value


# ------------------------------------------------------------------ lifecycle
def fmt_seconds(s: float) -> str:
    """'8 s', '1 min 05 s'."""
    s = max(0.0, float(s))
    if s < 60:
        return f"{s:.0f} s"
    return f"{int(s // 60)} min {int(s % 60):02d} s"


class RunStatus:
    """``with RunStatus("Run", container) as rs: ... rs.progress(frac, text) ... rs.done(msg)``.

    States: 'running' while inside, then exactly one of done() / failed() / stopped() (an
    exception leaving the block without one marks it failed).  ``progress(frac, text)``: elapsed time
    and the estimate elapsed × (1 − f) / f at fraction f in the label (the pilot, the accuracy-first
    search); ``show(snapshot, text)``: a ProgressClock snapshot's clock, estimate and per-method lines
    (the Run and the budget sweep, driven by run_with_clock)."""

    def __init__(self, what: str, container: Any = None) -> None:
        self.what = what
        self.container = container if container is not None else st
        self.state = "idle"
        self.t0 = 0.0
        self.box = None
        self.bar = None
        self.detail = None

    def __enter__(self) -> RunStatus:
        self.t0 = time.monotonic()
        self.state = "running"
        self.box = self.container.status(f"{self.what}: running…", state="running", expanded=True)
        self.bar = self.box.progress(0.0, text="starting")
        return self

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def progress(self, frac: float, text: str) -> None:
        frac = min(max(float(frac), 0.0), 1.0)
        left = f", about {fmt_seconds(self.elapsed * (1 - frac) / frac)} left" if frac > 0.02 else ""
        self.bar.progress(frac, text=text)
        self.box.update(label=f"{self.what}: running — {fmt_seconds(self.elapsed)} elapsed{left}")

    def show(self, snap: ProgressSnapshot, text: str) -> None:
        """Draw a ProgressClock snapshot: the bar at its fraction with ``text``, the running clock and
        the estimate in the label, one line per method below (progress_lines)."""
        self.bar.progress(min(max(float(snap.fraction), 0.0), 1.0), text=text)
        self.box.update(label=f"{self.what}: running — {fmt_seconds(snap.elapsed)} elapsed, "
                              f"{left_text(snap.seconds_left)}", expanded=True)  # the lines stay in view
        if self.detail is None:
            self.detail = self.box.empty()
        self.detail.markdown("  \n".join(progress_lines(snap)))

    def _close(self, state: str, label: str, box_state: str, message: str | None, kind: str) -> None:
        self.state = state
        if self.bar is not None:
            self.bar.empty()
        if self.detail is not None:
            self.detail.empty()
        self.box.update(label=f"{self.what}: {label} after {fmt_seconds(self.elapsed)}", state=box_state,
                        expanded=bool(message))
        if message:
            getattr(self.box, kind)(message)

    def done(self, message: str | None = None) -> None:
        self._close("done", "done", "complete", message, "success")

    def failed(self, message: str) -> None:
        self._close("failed", "failed", "error", message, "error")

    def stopped(self, message: str) -> None:
        self._close("stopped", "stopped", "complete", message, "warning")

    def __exit__(self, exc_type, exc, tb) -> bool:
        if self.state == "running":
            if exc is not None and not _is_streamlit_control(exc):
                self.failed(f"{exc}")
            elif exc is None:
                self.done()
        return False


def _is_streamlit_control(exc: BaseException) -> bool:
    """st.rerun / st.stop raise control-flow exceptions that are not failures."""
    return type(exc).__name__ in ("RerunException", "StopException")


# ------------------------------------------------------------------ live progress (issue 24)
def left_text(seconds: float) -> str:
    """'about 1 min 05 s left'; 'finishing' under a second."""
    return "finishing" if seconds < 1 else f"about {fmt_seconds(seconds)} left"


def fmt_rate(seconds: float) -> str:
    """Seconds per step: '0.05 s', '12 s', '1 min 05 s'."""
    return f"{fmt_sig(seconds, 2)} s" if seconds < 10 else fmt_seconds(seconds)


def method_line(mp: MethodProgress) -> str:
    """One method's progress: "**Hard**: 2 of 6 seeds done · now seed 2, round 3 of 8 · 4 s so far ·
    0.05 s per round" ("runs" when the method has several fits per seed: the pilot's BF-Soft at every
    tau); a method not started shows its expected cost ("about 15 s per fit expected")."""
    if mp.runner == ANALYSIS:  # the step after the runs: errors of every round, one step per run
        parts = [f"**{mp.method.capitalize()}**: {mp.steps_done} of {mp.steps} runs done"]
        if mp.seconds > 0 or mp.running is not None:
            parts.append(f"{fmt_seconds(mp.seconds)} so far")
        return " · ".join(parts)
    label = get_method(mp.method).short_label
    step = "fit" if mp.reference else "round"
    what = "run" if mp.seeds and mp.seeds != mp.units else "seed"  # several settings per seed (the pilot)
    parts = [f"**{label}**: {mp.units_done} of {mp.units} {what}{'s' if mp.units != 1 else ''} done"]
    if mp.running is not None:
        seed = "" if mp.running.seed is None else f" seed {mp.running.seed}"
        parts.append(f"now{seed}" + (", fitting" if mp.reference else f", round {mp.running_step} of {mp.steps}"))
    if mp.seconds > 0 or mp.running is not None:
        parts.append(f"{fmt_seconds(mp.seconds)} so far")
    parts.append(f"{fmt_rate(mp.per_step)} per {step}" if mp.observed else
                 f"about {fmt_rate(mp.per_step)} per {step} expected")
    return " · ".join(parts)


def progress_lines(snap: ProgressSnapshot) -> list[str]:
    """The per-method lines of a snapshot (method_line), in the run's order."""
    return [method_line(mp) for mp in snap.methods]


def current_text(snap: ProgressSnapshot) -> str:
    """The bar's text: 'run 3 of 12: Hard, seed 1, round 4 of 8' (with the unit's group, e.g. a
    sweep's 'ρ = 0.0006 · '); 'finishing' when every unit is done."""
    u = snap.current
    runs = snap.units - sum(1 for m in snap.methods if m.runner == ANALYSIS)  # fits, not the step after them
    if u is None:
        return f"all {runs} runs done: finishing"
    where = f"{u.group} · " if u.group else ""
    if u.runner == ANALYSIS:
        return f"{where}{u.method} of every run: run {snap.current_step} of {u.steps}"
    seed = "" if u.seed is None else f", seed {u.seed}"
    step = "" if u.steps == 1 else f", round {snap.current_step} of {u.steps}"
    return f"{where}run {snap.units_done + 1} of {runs}: {get_method(u.method).short_label}{seed}{step}"


def expected_text(methods: list[str], seeds: list[int], rounds: int, at_least: float = 30.0) -> str | None:
    """Before a run: its expected time from the cost model (PRIOR_SECONDS_PER_STEP, no work done yet),
    when it includes a reference method or exceeds ``at_least`` seconds, with what one seed costs;
    None for a quick run or bad settings."""
    try:
        plan = run_plan(methods, seeds, rounds)
    except BlowfishError:
        return None
    left = ProgressClock(plan).snapshot(now=0.0).seconds_left
    slow = [get_method(u.method).short_label for u in plan if u.runner == "baseline" and u.seed == plan[0].seed]
    if left < at_least and not slow:
        return None
    per_seed = left / max(len(seeds), 1)
    why = f" ({', '.join(slow)}: about {fmt_rate(PRIOR_SECONDS_PER_STEP['baseline'])} per fit)" if slow else ""
    return (f"Expected: about {fmt_seconds(left)} for {len(plan)} runs{why}; each paired seed adds about "
            f"{fmt_seconds(per_seed)}. A rough cost model: the progress line refines it from the run's own pace.")


def run_with_clock(work: Callable[[Callable[[Any], None], Callable[[], bool]], Any], clock: ProgressClock,
                   show: Callable[[ProgressSnapshot], None], stop_requested: Callable[[], bool] | None = None,
                   tick: float = 0.5) -> Any:
    """``work(progress, should_stop)`` in a worker thread; this thread redraws ``show(snapshot)`` every
    ``tick`` seconds until it ends, then returns its result (or raises its exception).

    The worker only feeds ``clock`` (progress = clock.observe) and polls ``should_stop``; it never
    touches Streamlit.  ``stop_requested`` is polled here; a Stop click also interrupts this
    thread's next redraw (Streamlit's rerun), and then the worker is told to stop at its next round.
    """
    stop = threading.Event()
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = work(clock.observe, stop.is_set)
        except BaseException as e:  # handed to the page thread, raised there
            out["error"] = e

    def poll_stop() -> None:
        if stop_requested is not None and stop_requested():
            stop.set()

    clock.start()
    poll_stop()  # a Stop already asked for: the work stops at its first check
    worker = threading.Thread(target=target, name="blowfish-run", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(tick)
            poll_stop()
            show(clock.snapshot())
    finally:
        if worker.is_alive():  # this thread was interrupted (a Stop click's rerun): stop the work too
            stop.set()
    if "error" in out:
        raise out["error"]
    return out.get("value")


# ------------------------------------------------------------------ sweep figure
def sweep_frame(result: Any) -> pd.DataFrame:
    """The sweep's table with the epsilon axis first (exact Gaussian curve at the sweep's delta)."""
    tab = result.table()
    cols = ["epsilon (exact)", "rho"] + [c for c in tab.columns if c not in ("epsilon (exact)", "rho")]
    return tab[cols]


def sweep_figure(result: Any) -> go.Figure:
    """Mean error of Hard and BF-Soft against epsilon (log axis on the data), 95% intervals, the
    crossing as a labelled line inside the plot; rho in the hover."""
    tab = result.table()
    fig = go.Figure()
    for col, method in (("Hard", "hard"), ("BF-Soft", "bf-soft")):
        s = method_style(method)
        hi = (tab[f"{col} ci_high"].astype(float) - tab[f"{col} mean"]).fillna(0)
        lo = (tab[f"{col} mean"] - tab[f"{col} ci_low"].astype(float).clip(lower=0)).fillna(0)
        fig.add_trace(go.Scatter(
            x=tab["epsilon (exact)"], y=tab[f"{col} mean"], name=s["label"], mode="lines+markers",
            line=dict(color=s["color"], dash=s["dash"], width=2.5), marker=dict(symbol=s["symbol"], size=10),
            customdata=tab["rho"], error_y=dict(type="data", symmetric=False, array=hi, arrayminus=lo),
            hovertemplate=f"{s['label']}: %{{y:.4g}} at ε = %{{x:.3g}} (ρ = %{{customdata:.3g}})<extra></extra>"))
    metric = str(result.metric).upper()
    base_layout(fig, f"privacy budget ε at δ = {fmt_delta(result.delta)} (log scale)",
                f"mean {metric} (lower is better)", height=380)
    log_axis(fig, tab["epsilon (exact)"])
    if result.crossing_epsilon_exact is not None:
        mark_x(fig, float(result.crossing_epsilon_exact), f"crossing ε ≈ {fmt_crossing(result.crossing_epsilon_exact)}")
    return fig


#: legend words of a method without rounds (MST, AIM: one release) on the error-by-round chart.
NO_ROUNDS = "final (no rounds)"


def round_error_figure(g: pd.DataFrame, rounds: int, metric: str, order: list[str]) -> go.Figure:
    """The Run step's "Error by round": mean error per round of every method (a marker and dash each).

    ``g``: one row per (method label, round) with columns method, round (1..T; T + 1 the release),
    step ('round 3' / 'release') and error.  ``order``: the method labels in legend order (others
    follow).  A method with one point only (MST, AIM: no rounds, a final release) is drawn as a dotted
    horizontal line over every round, named '<method>: final (no rounds)', so it reads as a
    reference level instead of a lone dot at the release (issue 24 item 10).
    """
    fig = go.Figure()
    labels = [m for m in order if m in set(g["method"])] + [m for m in dict.fromkeys(g["method"]) if m not in order]
    for label in labels:
        d = g[g["method"] == label].sort_values("round")
        s = method_style(label)
        if d["round"].nunique() == 1:
            err = float(d["error"].iloc[0])
            fig.add_trace(go.Scatter(
                x=[1, rounds + 1], y=[err, err], mode="lines", name=f"{label}: {NO_ROUNDS}", showlegend=True,
                line=dict(color=s["color"], dash="dot", width=2),
                hovertemplate=f"{label}: %{{y:.4g}} ({NO_ROUNDS}: its released records)<extra></extra>"))
            continue
        fig.add_trace(go.Scatter(
            x=d["round"], y=d["error"], mode="lines+markers", name=label, showlegend=True, customdata=d["step"],
            line=dict(color=s["color"], dash=s["dash"], width=2.5), marker=dict(symbol=s["symbol"], size=9),
            hovertemplate=f"{label}, %{{customdata}}: %{{y:.4g}}<extra></extra>"))
    fig.update_layout(height=350, margin=dict(t=40, b=20), xaxis_title="round (T + 1 = release)",
                      yaxis_title=f"mean {metric.upper()}",
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0, title=None))
    fig.update_xaxes(dtick=1)
    return fig


def pilot_figure(tab: pd.DataFrame, soft_name: str, hard_name: str, metric: str) -> go.Figure:
    """The Tune pilot's chart: Hard's mean as a line with its 95% band, BF-Soft's mean per τ with its
    intervals (log τ axis, :func:`studio.plots.log_axis`).  ``tab``: the pilot's table (method, tau, mean,
    ci_low, ci_high); soft_name / hard_name: the methods' names in it.  Every trace that carries a
    method has a legend entry (Hard's line is a shape, so a legend-only trace names it; issue 24
    item 10: BF-Soft alone was one trace, and plotly hides the legend of a single trace)."""
    soft = tab[tab["method"] == soft_name]
    hard = tab[tab["method"] == hard_name].iloc[0]
    fig = go.Figure()
    _hs, _ss = method_style(hard_name), method_style(soft_name)
    h_lo, h_hi = hard["ci_low"], hard["ci_high"]
    if not (pd.isna(h_lo) or pd.isna(h_hi)):
        fig.add_hrect(y0=max(float(h_lo), 0.0), y1=h_hi, fillcolor=_hs["color"], opacity=0.12, line_width=0)
    fig.add_hline(y=hard["mean"], line_dash="solid", line_color=_hs["color"],
                  annotation_text="Hard (mean, 95% CI band)", annotation_position="top left")
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=f"{_hs['label']} (mean, 95% CI band)",
                             line=dict(color=_hs["color"], width=2.5), showlegend=True, hoverinfo="skip"))
    # errors are >= 0: the lower whisker stops at 0; a missing interval (one seed) draws no whisker
    s_hi = (soft["ci_high"].astype(float) - soft["mean"]).fillna(0)
    s_lo = (soft["mean"] - soft["ci_low"].astype(float).clip(lower=0)).fillna(0)
    fig.add_trace(go.Scatter(x=soft["tau"], y=soft["mean"], mode="lines+markers", name=_ss["label"], showlegend=True,
                             line=dict(color=_ss["color"], dash=_ss["dash"], width=2.5),
                             marker=dict(symbol=_ss["symbol"], size=10),
                             error_y=dict(type="data", symmetric=False, array=s_hi, arrayminus=s_lo)))
    fig.update_layout(xaxis_title="τ (Gower units, log scale)",
                      yaxis_title=f"mean public {metric.upper()} (lower is better)", height=380,
                      margin=dict(t=40, b=20), showlegend=True,
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    log_axis(fig, soft["tau"])  # on the grid ("chosen" adds no point); decade or 1-2-5 ticks
    return fig


# ------------------------------------------------------------------ carry
def carry_message(before: dict[str, Any], after: dict[str, Any]) -> str:
    """What a carry changed in the Runner settings ('rn_tau', 'rn_methods', 'rn_rho'; the same rho
    given another way is no change),
    e.g. 'tau 0.03 → 0.1; Tab-PE removed from the comparison'; 'nothing changed' when equal."""
    parts = []
    t0, t1 = before.get("rn_tau"), after.get("rn_tau")
    if t0 is not None and t1 is not None and float(t0) != float(t1):
        parts.append(f"tau {float(t0):g} → {float(t1):g}")
    m0, m1 = list(before.get("rn_methods") or []), list(after.get("rn_methods") or [])
    gone = [METHOD_LABELS.get(m, m) for m in m0 if m not in m1]
    new = [METHOD_LABELS.get(m, m) for m in m1 if m not in m0]
    if gone:
        parts.append(f"{_and(gone)} removed from the comparison")
    if new:
        parts.append(f"{_and(new)} added to the comparison")
    r0, r1 = before.get("rn_rho"), after.get("rn_rho")
    if r1 is not None and (r0 is None or abs(float(r0) - float(r1)) > 1e-12 * abs(float(r1))):
        parts.append(f"budget ρ = {fmt_sig(float(r1), 2)}" + ("" if r0 is None else f" (was {fmt_sig(float(r0), 2)})"))
    return "; ".join(parts) if parts else "nothing changed"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
