"""Accuracy-first budget on the Tune τ step (issue 16): the user gives a target error, the public
pilot (blowfish_core.workflows.accuracy_budget.accuracy_first_budget, Eq. (4) scaling) finds the smallest
budget at which Hard and the recommended BF-Soft reach it, and "Use this budget" makes it the
session's budget.  Only public rows and the private table's row COUNT are passed in; the page
says so (accuracy_budget.PUBLIC_ONLY_NOTE).

Issue 24: the default target comes from the pilot's attainable range (accuracy_budget.attainable_target;
no pilot, no default: the box is empty until one is typed), and the search's ε cap is a visible
control (CAP_LABEL), the one an unreached target's fix names.

Session state (studio.state's model, issue 24): the settings live in the plain key SETTINGS_KEY
(``acc:settings`` = {"target": float | None, "cap": float, "target_default": float | None (the default
last put in the box)}); the widgets ``acc:target`` and ``acc:cap`` are bound to it (seeded on every
run, written back by their on_change), so both survive every navigation.  acc:result: the last search.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from blowfish_core.workflows.accuracy_budget import (EPSILON_MAX, EPSILON_MIN, METRIC_NAMES, PUBLIC_ONLY_NOTE,
                                                     accuracy_first_budget, attainable_target)
from blowfish_core.base.errors import BlowfishError
from blowfish_core.algorithm.evolution import RunStopped
from blowfish_core.workflows.formatting import fmt_delta
from blowfish_core.workflows.verdicts import fmt_sig
from studio.plots import base_layout, chart_with_table, log_axis, method_style
from studio.run_ui import RunStatus
from studio.state import seed, session_budget

RESULT_KEY = "acc:result"
TARGET_KEY, CAP_KEY = "acc:target", "acc:cap"
#: the plain session key of the section's settings (the model the two widgets are bound to).
SETTINGS_KEY = "acc:settings"
#: the ε cap control's label; an unreached target's fix names it (cap_name).
CAP_LABEL = "ε cap (largest ε searched)"
CAP_NAME = f'the "{CAP_LABEL}" input'


def accuracy_settings(state: Any) -> dict[str, Any]:
    """The section's settings in ``state`` (SETTINGS_KEY; created: no target, the cap EPSILON_MAX)."""
    m = state.setdefault(SETTINGS_KEY, {})
    m.setdefault("target", None)
    m.setdefault("cap", float(EPSILON_MAX))
    m.setdefault("target_default", None)
    return m


def default_target(state: Any, pilot: Any) -> tuple[float, float, float] | None:
    """Put the pilot's default target (attainable_target) in the settings' target before the box is
    drawn: when it is empty or still holds the previous default (a typed target stays).
    Returns (target, low, high) or None without a pilot."""
    m = accuracy_settings(state)
    att = attainable_target(pilot)
    if att is not None and m["target_default"] != att[0]:
        if m["target"] is None or m["target"] == m["target_default"]:
            m["target"] = att[0]
        m["target_default"] = att[0]
    return att


def _keep(which: str, key: str) -> None:
    """on_change of the target / cap box: the value typed becomes the setting."""
    v = st.session_state.get(key)
    accuracy_settings(st.session_state)[which] = None if v is None else float(v)


def use_budget(studio: Any, rho: float, epsilon: float, delta: float) -> None:
    """Make the found budget the session's (mode rho: the exact figure the search evaluated)."""
    b = session_budget(studio)
    b.update({"mode": "rho", "rho": float(rho), "epsilon": float(epsilon), "delta": float(delta), "set": True,
              "source": "accuracy-first (Tune τ)"})


def accuracy_figure(res: Any) -> tuple[go.Figure, pd.DataFrame]:
    """Mean pilot error against epsilon per method, the target as a horizontal line."""
    fig = go.Figure()
    rows = []
    for m, mb in res.per_method.items():
        s = method_style(m)
        pts = list(mb.points)
        fig.add_trace(go.Scatter(x=[p.epsilon for p in pts], y=[p.mean for p in pts], name=mb.label,
                                 mode="lines+markers", line=dict(color=s["color"], dash=s["dash"]),
                                 marker=dict(symbol=s["symbol"], size=9)))
        rows += [{"method": mb.label, "epsilon": p.epsilon, "rho": p.rho, "rho_pilot": p.rho_pilot,
                  "mean error": p.mean, "ci95 low": p.ci95[0], "ci95 high": p.ci95[1]} for p in pts]
    fig.add_hline(y=res.target_error, line_dash="dot", line_color="#7f7f7f",
                  annotation_text=f"target {fmt_sig(res.target_error, 3)}", annotation_position="top left")
    metric = METRIC_NAMES.get(res.metric, res.metric)
    base_layout(fig, f"privacy budget ε at δ = {fmt_delta(res.delta)} (log scale)",
                f"mean pilot {metric} (lower is better)", height=340)
    log_axis(fig, [r["epsilon"] for r in rows])
    return fig, pd.DataFrame(rows)


def accuracy_first_section(studio: Any, public_df: pd.DataFrame | None, n_target: int, tau: float | None,
                           seeds: list[int], config: Any, metric: tuple[str, Any] | None,
                           public_source: str = "", should_stop: Any = None, pilot: Any = None) -> None:
    """Draw the accuracy-first section (target input, ε cap, search, result, 'Use this budget').

    pilot: the Tune step's pilot result on the same public rows and schedule (its attainable range
    gives the default target), or None."""
    st.subheader("Accuracy first: the budget for a target error")
    st.caption(PUBLIC_ONLY_NOTE)
    if public_df is None or len(public_df) == 0:
        st.info("Needs public rows: choose the public data above.")
        return
    c1, c2, c3 = st.columns([1, 1, 2])
    metric_name = METRIC_NAMES.get((metric or ("pwerr",))[0], "PWErr")
    att = default_target(st.session_state, pilot)
    m = accuracy_settings(st.session_state)
    seed(TARGET_KEY, m["target"])  # the widgets show the settings (on every visit of the page)
    seed(CAP_KEY, m["cap"])
    target = c1.number_input(f"Target error ({metric_name}, lower is better)", min_value=0.0001, max_value=2.0,
                             value=None, step=0.005, format="%.4f", key=TARGET_KEY,
                             placeholder="run the pilot, or type one", on_change=_keep, args=("target", TARGET_KEY))
    cap = c2.number_input(CAP_LABEL, min_value=2 * EPSILON_MIN, max_value=100.0, step=1.0,
                          format="%g", key=CAP_KEY, on_change=_keep, args=("cap", CAP_KEY),
                          help=f"The search looks for the budget from ε = {fmt_sig(EPSILON_MIN, 1)} up to this cap "
                               f"(at the session's δ); a target not reached by then is reported with the lowest "
                               "error seen.")
    c3.caption(f"Searched for Hard and for BF-Soft at τ = {fmt_sig(tau, 2)} (the pilot's recommendation)"
               if tau is not None else "Searched for Hard (the pilot recommended Hard).")
    if att is not None:
        eps_p = getattr(getattr(pilot, "scaling", None), "epsilon_target", None)
        at_eps = "" if eps_p is None else f" at ε ≈ {fmt_sig(eps_p, 2)}"
        c3.caption(f"Default target {fmt_sig(att[0], 3)}: what the pilot's recommendation ({pilot.recommendation.label}"
                   f") reached{at_eps}; the pilot's candidates reached {fmt_sig(att[1], 3)} to "
                   f"{fmt_sig(att[2], 3)} there.")
        if eps_p is not None and cap is not None and float(eps_p) > float(cap):
            c3.warning(f"The cap ε = {fmt_sig(cap, 2)} is below the pilot's budget ε ≈ {fmt_sig(eps_p, 2)}: the "
                       "default target may not be reached within it.")
    else:
        c3.caption("No pilot yet: run the pilot above for a default target inside what it finds attainable, or type "
                   "a target.")
    clicked = st.button("Find the budget", key="acc:run", disabled=target is None or cap is None,
                        help="Type a target error first." if target is None else None)
    if clicked and target is not None and cap is not None:
        with RunStatus("Accuracy-first search") as rs:
            def _progress(ev: dict[str, Any]) -> None:
                rs.progress(min(0.99, float(ev.get("round", 0)) / max(int(ev.get("rounds", 1)), 1)),
                            f"{ev.get('phase', '')}: {ev.get('method', '')} at ρ = {fmt_sig(ev.get('rho', 0), 2)}")
            try:
                res = accuracy_first_budget(studio.schema, studio.policy, public_df, float(target), int(n_target),
                                            tau, seeds=seeds, config=config, metric=metric,
                                            delta=float(session_budget(studio)["delta"]), public_source=public_source,
                                            progress=_progress, should_stop=should_stop, epsilon_max=float(cap),
                                            cap_name=CAP_NAME)
            except RunStopped:
                rs.stopped("Stopped. Nothing partial was kept.")
            except BlowfishError as e:
                rs.failed(f"{e}")
            else:
                st.session_state[RESULT_KEY] = {"result": res, "studio_version": studio.version}
                rs.done()
    rec = st.session_state.get(RESULT_KEY)
    if not rec:
        return
    res = rec["result"]
    if rec["studio_version"] != studio.version:
        st.warning("This search was computed on an earlier dataset or policy; search again to refresh it.")
    st.markdown(res.explain())
    m1, m2 = st.columns(2)
    lo, hi = res.epsilon_interval
    m1.metric("Budget for the target", f"ε ≈ {fmt_sig(res.epsilon, 2)}",
              help=f"ρ = {fmt_sig(res.rho, 3)} zCDP at δ = {fmt_delta(res.delta)} (exact Gaussian curve); "
                   f"95% range ε {fmt_sig(lo, 2)} to {'beyond the cap' if hi is None else fmt_sig(hi, 2)}")
    m2.metric("Method", res.label)
    fig, df = accuracy_figure(res)
    chart_with_table(fig, df, key="acc:fig")
    st.button(f"Use this budget (ε ≈ {fmt_sig(res.epsilon, 2)})", key="acc:use", type="primary",
              on_click=use_budget, args=(studio, res.rho, res.epsilon, res.delta),
              help="Makes it the session's budget: the Policy, Run and Release steps use it.")
    if session_budget(studio).get("source") == "accuracy-first (Tune τ)" and \
            session_budget(studio).get("rho") == res.rho:
        st.success(f"In use: the session's budget is now ε ≈ {fmt_sig(res.epsilon, 2)} (ρ = {fmt_sig(res.rho, 3)}).")
