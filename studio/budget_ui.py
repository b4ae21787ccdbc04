"""The epsilon-first budget control: ONE widget function for every page (issue 16).

:func:`budget_control` draws a log-scale ``st.select_slider`` over
``blowfish_core.workflows.budget.privacy_scale().steps`` whose ends read "more privacy" and "more
accuracy", a delta input, a warning above epsilon = 5 (``BudgetView.warning``), and an
"Advanced: give ρ (zCDP)" expander for the rho entry.  ONE epsilon is shown (the ledger's
accountant's, ``BudgetView.label``); rho, rho per round and the paper's Eq. (1) epsilon are in
its tooltip.  The values live in the session's budget (``studio.state.session_budget``), so
every page opens on the same budget; the numbers come from blowfish_core.workflows.budget.
The widgets are bound to the session budget (studio.state's pattern): seeded from it on every run
(:func:`studio.state.seed`) and written back by their on_change callback, so a value chosen on one
page is shown on every page and survives every navigation (issue 24); δ defaults to DEFAULT_DELTA.

Widget keys: ``{prefix}:eps`` (epsilon, select_slider), ``{prefix}:delta``, ``{prefix}:use_rho``
(toggle), ``{prefix}:rho``.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from blowfish_core.workflows.budget import BudgetView, budget_from_epsilon, budget_from_rho, describe_epsilon, privacy_scale
from blowfish_core.base.constants import DEFAULT_DELTA
from blowfish_core.base.errors import BlowfishError
from blowfish_core.workflows.formatting import fmt_delta
from blowfish_core.workflows.verdicts import fmt_sig
from studio.state import draft, drop_drafts, get_studio, keep_draft, seed, session_budget

DELTA_OPTIONS = (1e-4, DEFAULT_DELTA, 1e-6, 1e-7, 1e-8, 1e-9)  # the default delta (base.constants) among them
#: the format of every δ number box (the Run, Tune and sampler pages): one exponent form, '1.0e-04' and
#: '1.0e-05' alike ('%g' would show '0.0001' beside '1e-05'); the options above read '10⁻⁴' (fmt_delta).
DELTA_FORMAT = "%.1e"


def fmt_epsilon_step(eps: float, steps: tuple[float, ...] | None = None) -> str:
    """A slider value: '0.1'; the two ends carry the scale's words ('0.01 · more privacy')."""
    sc = privacy_scale()
    steps = steps or sc.steps
    text = fmt_sig(eps, 2)
    if eps == steps[0]:
        return f"{text} · {sc.left}"
    if eps == steps[-1]:
        return f"{text} · {sc.right}"
    return text


def _nearest_step(eps: Any, steps: tuple[float, ...]) -> float:
    try:
        e = float(eps)
    except (TypeError, ValueError):
        e = privacy_scale().default
    import math

    if not math.isfinite(e) or e <= 0:
        e = privacy_scale().default
    return min(steps, key=lambda s: abs(math.log(s) - math.log(e)))


def _delta_option(delta: Any) -> float:
    """The δ option showing ``delta`` (DEFAULT_DELTA when it is not one of DELTA_OPTIONS)."""
    try:
        d = float(delta)
    except (TypeError, ValueError):
        return DEFAULT_DELTA
    return d if d in DELTA_OPTIONS else DEFAULT_DELTA


def _on_change(prefix: str, rounds: int) -> None:
    """Callback of every widget of the control: write what the user chose into the session budget
    (the model the widgets are seeded from) with its derived ρ or ε.  An invalid ρ (0) is kept as the
    ρ input's draft (shown with the error) and the session budget stays the last valid one."""
    ss = st.session_state
    b = session_budget(get_studio())
    rk = f"{prefix}:rho"
    use_rho = bool(ss.get(f"{prefix}:use_rho"))
    delta = float(ss.get(f"{prefix}:delta") or DEFAULT_DELTA)
    try:
        if use_rho:
            rho = float(ss.get(rk) or 0.0)
            eps = budget_from_rho(rho, delta, rounds).epsilon
        else:
            eps = float(ss.get(f"{prefix}:eps"))
            rho = budget_from_epsilon(eps, delta, rounds).rho
    except (BlowfishError, TypeError, ValueError):
        keep_draft(rk)  # shown as typed, with the control's error
        return
    drop_drafts(rk)
    b.update({"mode": "rho" if use_rho else "epsilon", "epsilon": eps, "rho": rho, "delta": delta, "set": True})


def budget_control(studio: Any, prefix: str, rounds: int | None = None, container: Any = None,
                   show_metric: bool = True, stacked: bool = False) -> BudgetView | None:
    """Draw the budget control and return the BudgetView (None after a bad rho/delta, with an
    st.error naming the field).  rounds: the run's T (default: the session budget's); stacked: delta
    under the slider (narrow columns).
    Writes the session budget (mode, epsilon, rho, delta, rounds, set=True)."""
    c = container if container is not None else st
    budget = session_budget(studio)
    sc = privacy_scale()
    steps = sc.steps
    T = int(rounds if rounds is not None else budget.get("rounds", 8))
    ek, dk, uk, rk = f"{prefix}:eps", f"{prefix}:delta", f"{prefix}:use_rho", f"{prefix}:rho"
    # the widgets show the session budget (the model), on every page and after every navigation
    seed(ek, _nearest_step(budget.get("epsilon"), steps))
    seed(dk, _delta_option(budget.get("delta")))
    seed(uk, budget.get("mode") == "rho")
    draft(rk, float(budget.get("rho") or 1e-4))  # a draft: an invalid ρ typed (shown with its error)
    kw = {"on_change": _on_change, "args": (prefix, T)}
    use_rho = bool(st.session_state.get(uk, False))
    cols = [c, c] if stacked else c.columns([3, 1])  # stacked: for a narrow column
    eps = cols[0].select_slider(
        "Privacy budget ε (log scale)", options=list(steps), key=ek, format_func=fmt_epsilon_step,
        disabled=use_rho, help=sc.help, **kw)
    ends = cols[0].columns(2)
    ends[0].caption(f":material/arrow_back: {sc.left}")
    ends[1].html(f'<div style="text-align:right;font-size:0.875rem;opacity:0.6">{sc.right} →</div>')
    delta = cols[1].selectbox("δ", DELTA_OPTIONS, key=dk, format_func=fmt_delta,
                              help="The probability that the ε statement fails; keep it well below one over the "
                                   "number of records.", **kw)
    with c.expander("Advanced: give ρ (zCDP) instead of ε"):
        st.toggle("Give the budget as ρ (zCDP total)", key=uk,
                  help="zCDP composes exactly over the rounds; the run is the same, only the entry differs.", **kw)
        st.number_input("ρ (total zCDP over all rounds)", key=rk, format="%.3g", step=1e-4, disabled=not use_rho,
                        min_value=0.0, **kw)
    try:
        if use_rho:
            view = budget_from_rho(float(st.session_state[rk]), float(delta), T)
        else:
            view = budget_from_epsilon(float(eps), float(delta), T)
    except BlowfishError as e:
        c.error(f"Budget: {e}")
        return None
    budget.update({"mode": "rho" if use_rho else "epsilon", "epsilon": float(eps) if not use_rho else view.epsilon,
                   "rho": view.rho, "delta": float(delta), "rounds": T, "set": True})
    if show_metric:
        c.metric("Privacy guarantee", view.label, help=view.tooltip)
        c.caption(describe_epsilon(view.epsilon, view.delta))
    if view.warning:
        c.warning(view.warning)
    return view


def session_view(studio: Any, rounds: int | None = None) -> BudgetView | None:
    """The BudgetView of the session budget without drawing anything (None if it is invalid);
    rounds: the run's T (default: the session budget's)."""
    b = session_budget(studio)
    T = int(b["rounds"] if rounds is None else rounds)
    try:
        if b.get("mode") == "rho":
            return budget_from_rho(float(b["rho"]), float(b["delta"]), T)
        return budget_from_epsilon(float(b["epsilon"]), float(b["delta"]), T)
    except (BlowfishError, KeyError, TypeError, ValueError):
        return None
