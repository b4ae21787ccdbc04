"""Temperature Pilot: choose tau (or fall back to Hard) on public data, spending no private budget.

Thin page: widgets -> blowfish_core.workflows.pilot (Eq. (4) scaling, paired runs of Hard and
BF-Soft over a tau grid, recommendation with the tie rule) -> tables and plotly.
The chosen tau (or Hard) is carried back to the Synthesis Runner's settings.
Optional (off by default): "choose on private data" -- the K settings run on the private table
and the exponential mechanism picks one (blowfish_core.workflows.private_pilot; cost and regret bound
shown before it runs).  "Run a seeded study" (choose_tau_private) is for study, not for
publication; "Make a release of the choice" (release_tau_choice) goes through the release gate
(OS entropy, OpenDP samplers) and is the only result offered for publication (issue 21).
Held-out rows of the sensitive table used as the public sample are named as unprotected.
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

from blowfish_core import get_preset
from blowfish_core.io.data import read_table
from blowfish_core.base.constants import DEFAULT_DELTA
from blowfish_core.base.errors import BlowfishError
from blowfish_core.algorithm.evolution import RunStopped
from blowfish_core.algorithm.methods import BF_SOFT, HARD, get_method
from blowfish_core.workflows.pilot import (
    DEFAULT_TIE_TOL, MIN_PILOT_ROWS, PILOT_Q, check_pilot_size, holdout_split, parse_tau_grid, recommend,
    pilot_plan, recommendation_strength, run_pilot, scale_budget, subsample, tau_grid,
)
from blowfish_core.workflows.progress import ProgressClock
from blowfish_core.model.policy import record_reach
from blowfish_core.synthesis.spec import MAX_SEEDS
from blowfish_core.synthesis.gate import GateError, unprotected_text
from blowfish_core.workflows.budget import budget_from_rho
from blowfish_core.workflows.verdicts import fmt_tolerance, tau_grid_for_people
from studio import flow
from studio import runner_ui as ui
from studio.accuracy_ui import accuracy_first_section
from studio.budget_ui import DELTA_FORMAT
from studio.plots import HIGHLIGHT, chart_with_table, mark_x
from studio.run_ui import RunStatus, carry_message, current_text, pilot_figure, run_with_clock
from studio.state import get_studio, get_tau, seed, session_budget, set_studio, set_tau

st.set_page_config(page_title="Temperature Pilot · Blowfish Studio", layout="wide")

studio = get_studio()
R = ui.runner_settings(st.session_state, budget=studio.extras.get("budget"))
reach = record_reach(studio.schema, studio.policy)
is_xor = bool(studio.preset) and str(studio.preset).startswith("xor")
has_rows = getattr(studio, "has_rows", len(studio.private) > 0)

PILOT_DEFAULTS = {
    "pl_np": 3000,
    "pl_seed": 1,
    "pl_rho": float(R["rn_rho"]) if isinstance(R["rn_rho"], (int, float)) and R["rn_rho"] > 0 else 6e-4,
    "pl_delta": float(R["rn_delta"]) if isinstance(R["rn_delta"], (int, float)) and 0 < R["rn_delta"] < 1 else DEFAULT_DELTA,
    "pl_grid": ", ".join(f"{t:g}" for t in tau_grid_for_people(tau_grid(reach))),  # 0.0880823 -> 0.088
    "pl_seeds": 4,
    "pl_first_seed": 0,
    "pl_rounds": int(R["rn_rounds"]) if isinstance(R["rn_rounds"], int) and R["rn_rounds"] >= 1 else 8,
    "pl_population": str(R["rn_population"] or ""),
    "pl_release": int(R["rn_release"]) if isinstance(R["rn_release"], int) and R["rn_release"] >= 1 else 512,
    "pl_tie": DEFAULT_TIE_TOL,
    "pl_nt": 0,
    # the private choice's settings (PRIVATE_KEYS: seeded from pilot_settings on every run, kept by _keep)
    "pl_private": False,
    "pl_rho_sel": 1e-4,
    "pl_allow_data_domain": False,
}
PRIVATE_KEYS = ("pl_private", "pl_rho_sel", "pl_allow_data_domain")
P = st.session_state.setdefault("pilot_settings", dict(PILOT_DEFAULTS))
for _k, _v in PILOT_DEFAULTS.items():  # a session older than a setting gets its default
    P.setdefault(_k, _v)
_sb = session_budget(studio)  # one budget for every page: follow the session's when it changes
if P.get("_budget_seen") != (_sb.get("rho"), _sb.get("delta")):
    P["_budget_seen"] = (_sb.get("rho"), _sb.get("delta"))
    if isinstance(_sb.get("rho"), float) and _sb["rho"] > 0:
        P["pl_rho"] = float(_sb["rho"])
        st.session_state.pop("pl_rho", None)
    if isinstance(_sb.get("delta"), float) and 0 < _sb["delta"] < 1:
        P["pl_delta"] = float(_sb["delta"])
        st.session_state.pop("pl_delta", None)
if P.get("_release_seen") != R["rn_release"]:  # one release size: the Run step's (runner_settings)
    P["_release_seen"] = R["rn_release"]
    if isinstance(R["rn_release"], int) and R["rn_release"] >= 1:
        P["pl_release"] = int(R["rn_release"])
        st.session_state.pop("pl_release", None)
if P.get("_rounds_seen") != R["rn_rounds"]:  # one T: the session's (Policy and Run steps), when it changes
    P["_rounds_seen"] = R["rn_rounds"]
    if isinstance(R["rn_rounds"], int) and R["rn_rounds"] >= 1:
        P["pl_rounds"] = int(R["rn_rounds"])
        st.session_state.pop("pl_rounds", None)
if P.get("_reach") != reach:  # the policy changed: refresh the grid's q = 0.2 temperature
    P["pl_grid"] = PILOT_DEFAULTS["pl_grid"]
    P["_reach"] = reach
    st.session_state.pop("pl_grid", None)
for _k, _v in P.items():
    if not _k.startswith("_") and _k not in st.session_state:
        st.session_state[_k] = _v
for _k in PRIVATE_KEYS:  # bound to the model on every run (studio.state.seed), written back by _keep
    seed(_k, P[_k])


def _keep(key: str) -> None:
    """Widget callback of a PRIVATE_KEYS control: keep its value in pilot_settings."""
    P[key] = st.session_state[key]


def _request_stop() -> None:
    st.session_state["pilot_stop"] = True


st.title("Temperature Pilot")
st.caption(
    "Choose the temperature tau, or fall back to Hard, from a public pilot (paper §6.2.4 and 'Practical "
    "guidance'): Hard and BF-Soft at every tau of a grid run on public rows with paired seeds, at the budget "
    "of Eq. (4). No private record is read and no private budget is spent."
)
flow.tutorial("Tune τ runs Hard and BF-Soft on public rows only and recommends Hard or a temperature τ; "
              "below, 'Accuracy first' finds the smallest budget that reaches an error you choose.")
st.warning(
    "The pilot is validated only when the pilot (public) data and the private data share a distribution. "
    "The paper's pilots were held-out rows of the same benchmark (or independently generated XOR data); "
    "guidance from shifted or independently collected public data is untested."
)

# ------------------------------------------------------------------ public data
st.header("Public data")
options = (["Generated public rows (XOR)"] if is_xor else ["Held-out rows of the table"]) + ["Upload a public CSV"]
if st.session_state.get("pl_source") not in options:
    st.session_state["pl_source"] = options[0]
source = st.radio("Public sample", options, key="pl_source", horizontal=True)
c1, c2 = st.columns(2)
c1.number_input("Pilot size n_p (rows)", key="pl_np", step=100,
                help=f"3,000 as in the paper (at least {MIN_PILOT_ROWS}); for held-out rows a seeded subset "
                     "of the held-out rows")
c2.number_input("Seed of the public sample", key="pl_seed", step=1,
                help="XOR: generator seed (the private rows use seed 0); held-out rows: seed of the subset")

public = None
public_source = ""
public_error = False
try:
    n_p_req = st.session_state["pl_np"]
    if not source.startswith("Upload"):
        check_pilot_size(n_p_req)
    if source.startswith("Generated"):
        gen = get_preset(studio.preset).generator
        if isinstance(n_p_req, bool) or not isinstance(n_p_req, int) or n_p_req < 1:
            raise BlowfishError(f"pilot size n_p must be a whole number >= 1 (got {n_p_req!r})")
        if n_p_req > 1_000_000:
            raise BlowfishError(f"pilot size n_p must be <= 1,000,000 (got {n_p_req:,})")
        public = gen(n_p_req, int(st.session_state["pl_seed"]))
        public_source = f"generated {studio.preset} (n = {n_p_req:,}, seed {st.session_state['pl_seed']})"
    elif source.startswith("Held-out"):
        if studio.public is not None and len(studio.public) > 0:
            public = subsample(studio.public, n_p_req, int(st.session_state["pl_seed"]))
            public_source = (f"{len(public):,} held-out rows of {studio.dataset_name} (disjoint from the "
                             f"{len(studio.private):,} private rows)")
        elif has_rows:
            st.info(f"{studio.dataset_name} has no held-out rows yet. Hold out n_p = {n_p_req:,} rows: they "
                    "become the public sample and the remaining rows the private table (the Runner then uses "
                    "only the remaining rows). Seeded and disjoint; the uploaded file is not changed.")
            if st.button("Hold out these rows", key="pl_holdout_btn"):
                full = studio.extras.get("full_table", studio.private)
                priv, pub = holdout_split(full, n_p_req, int(st.session_state["pl_seed"]))
                extras = {**studio.extras, "full_table": full,
                          "holdout": {"n_public": len(pub), "seed": int(st.session_state["pl_seed"])}}
                set_studio(dataclasses.replace(studio, private=priv, public=pub, extras=extras))
                st.rerun()
        else:
            st.info("The private table is not loaded; load it in the Policy Designer or upload a public CSV.")
    else:
        up = st.file_uploader("Public CSV (same columns as the private table)", type=["csv"], key="pl_upload")
        if up is not None:
            df = read_table(up.getvalue(), name=up.name)
            studio.schema.check_columns(df)
            studio.schema.encode(df)  # validates every value against the public domain
            check_pilot_size(len(df))
            public = df
            public_source = f"uploaded {up.name} ({len(df):,} rows, all used)"
except BlowfishError as e:
    st.error(f"Public sample: {e}")
    public = None
    public_error = True

if has_rows:
    n_t = len(studio.private)
else:
    st.number_input("Rows of the private table n_t", key="pl_nt", step=1,
                    help="the private table is not loaded; give its size to scale the budget")
    n_t = st.session_state["pl_nt"]
if public is not None:
    st.caption(f"Public sample: {public_source}.")
    if source.startswith("Held-out"):  # rows of the sensitive table used as public data (issue 21)
        st.warning(unprotected_text(len(public), f"held out of {studio.dataset_name}") + ".")

# ------------------------------------------------------------------ budget and grid
st.header("Budget scaling (Eq. (4)) and the tau grid")
try:
    _view = budget_from_rho(float(st.session_state["pl_rho"]), float(st.session_state["pl_delta"]),
                            int(P["pl_rounds"]) if isinstance(P["pl_rounds"], int) and P["pl_rounds"] >= 1 else 8)
    st.metric("Target budget of the private run", _view.label, help=_view.tooltip)
    if _view.warning:
        st.warning(_view.warning)
except (BlowfishError, TypeError, ValueError):
    pass
with st.expander("Advanced: the target budget as ρ (zCDP) and δ (the session's budget by default)"):
    b1, b2 = st.columns(2)
    b1.number_input("Target budget rho (total zCDP of the private run)", key="pl_rho", format="%g", step=1e-4)
    b2.number_input("δ", key="pl_delta", format=DELTA_FORMAT, step=1e-6)
scaling = None
if public is not None:
    try:
        scaling = scale_budget(st.session_state["pl_rho"], n_t, len(public), int(st.session_state["pl_rounds"])
                               if isinstance(st.session_state["pl_rounds"], int) and st.session_state["pl_rounds"] >= 1
                               else 8, delta=st.session_state["pl_delta"])
    except BlowfishError as e:
        st.error(f"Budget scaling: {e}")
if scaling is not None:
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("n_t (private rows)", f"{scaling.n_target:,}")
    m2.metric("n_p (pilot rows)", f"{scaling.n_pilot:,}")
    m3.metric("Budget scale (n_t/n_p)^2", f"{scaling.factor:.2f}x")
    m4.metric("Pilot budget rho_p", f"{scaling.rho_pilot:.4g}")
    st.caption(scaling.explain())

g1, g2, g3 = st.columns(3)
g1.text_input("tau grid", key="pl_grid",
              help=f"the paper's selector (App. F.8) plus the tau giving q = {PILOT_Q} for this policy (reach "
                   f"{reach:.4g})")
g2.number_input(f"Paired seeds (at most {MAX_SEEDS})", key="pl_seeds", step=1)
g3.number_input("Tie tolerance", key="pl_tie", format="%g", step=0.001,
                help="a candidate ties with the best when its mean error is within this amount (absolute); "
                     "ties favour Hard, then the smaller tau")
try:
    g3.caption(f"Tie tolerance: {fmt_tolerance(float(st.session_state['pl_tie']))}")
except (BlowfishError, TypeError, ValueError):
    pass
with st.expander("Synthesis settings of the pilot (match the target run: Eq. (4) assumes the same schedule)"):
    h1, h2, h3 = st.columns(3)
    h1.number_input("Rounds T", key="pl_rounds", step=1)
    h2.text_input("Population schedule", key="pl_population", placeholder="paper default: 512 x 3, then 1024")
    h3.number_input("Release size", key="pl_release", step=1)
    st.number_input("First seed", key="pl_first_seed", step=1)
    st.caption(f"Threshold H = {R['rn_h']:g} and selection '{R['rn_selection']}' are taken from the Runner.")
for _k in list(P):
    if not _k.startswith("_") and _k in st.session_state:
        P[_k] = st.session_state[_k]

r1, r2, _sp = st.columns([1, 1, 6])
run_clicked = r1.button("Run pilot", type="primary", key="pl_run_btn")
r2.button("Stop", key="pl_stop_btn", on_click=_request_stop)
status = st.container()

# ------------------------------------------------------------------ results
st.header("Pilot results")
last = st.session_state.get("pilot_result")
if last is None:
    st.info("No pilot yet: choose the public sample and click Run pilot.")
else:
    res = last["result"]
    if last["studio_version"] != studio.version:
        st.warning("This pilot was computed for an earlier dataset or policy; run it again.")
    if public_error:
        st.warning(f"These are the last successful pilot's results, computed on the PREVIOUS public sample "
                   f"({res.public_source or 'unknown'}), not on the public data just chosen, which was rejected "
                   "(see the error above). Fix the public sample and run the pilot again to replace them.")
    elif public is not None and public_source != res.public_source:
        st.info(f"These results were computed on a different public sample ({res.public_source or 'unknown'}); "
                f"the current choice is {public_source}. Run the pilot again to use it.")
    tab = res.table()
    shown = tab
    if tab[["ci_low", "ci_high"]].isna().any().any():  # one seed: say why instead of an empty cell
        shown = tab.astype({"ci_low": object, "ci_high": object})
        for c in ("ci_low", "ci_high"):
            shown[c] = [ui.NA_CI if ui._missing(v) else v for v in tab[c]]
        st.caption(f"95% t-intervals: {ui.NA_CI}.")
    st.dataframe(ui.styled(shown, {"tau": "g", "q": ".3g", "mean": ".4f", "ci_low": ".4f", "ci_high": ".4f",
                                   "R_s vs Hard (%)": ".1f"}),
                 hide_index=True, placeholder=ui.NA)
    fig = pilot_figure(tab, BF_SOFT.name, HARD.name, res.metric)  # every method in the legend
    try:  # live: changing the tie tolerance re-applies the tie rule without re-running
        rec = recommend([(c.method, c.tau, c.mean) for c in res.candidates], P["pl_tie"])
    except BlowfishError as e:
        st.error(f"Tie tolerance: {e}")
        rec = res.recommendation
    if rec.tau is not None:
        mark_x(fig, float(rec.tau), f"chosen τ = {rec.tau:g}", color=HIGHLIGHT)
    chart_with_table(fig, tab[["method", "tau", "mean", "ci_low", "ci_high"]], key="pl_fig")
    st.metric("Recommendation", rec.label)
    strength = recommendation_strength(res.candidates, rec)
    rule = (f"Tie rule: lowest mean public error; candidates within {rec.tie_tol:g} of the lowest mean tie, and "
            "ties favour Hard, then the smaller tau.")
    if strength["weak"]:
        st.warning(f"Weak recommendation: {rec.label} — {rec.reason}, but {strength['reason']}; more pilot seeds "
                   f"would help tell them apart. {rule}")
    else:
        st.success(f"Recommendation: {rec.label} — {rec.reason}; {strength['reason']}. {rule}")
    st.caption(f"Pilot budget rho_p = {res.scaling.rho_pilot:.4g} (target rho {res.scaling.rho_target:.4g} x "
               f"{res.scaling.factor:.2f}); {len(res.seeds)} paired seed(s); {res.public_source}. {res.note}")

    if getattr(res, "runs", None):  # the typed runs (PairedResult), one per candidate
        with st.expander("Per-seed public errors (from the typed runs)"):
            st.table(pd.DataFrame({c.label: pr.errors(c.method) for c, pr in zip(res.candidates, res.runs)},
                                  index=[f"seed {s}" for s in res.seeds]).T)

    def _carry() -> None:
        ui.runner_settings(st.session_state, budget=session_budget(studio))
        before = ui.run_inputs(st.session_state)
        ui.carry_to_runner(st.session_state, rec.method, rec.tau, res.scaling.rho_target)
        if rec.tau is not None:
            set_tau(get_studio(), float(rec.tau), "Tune τ")
        st.session_state["runner_carried"]["message"] = carry_message(before, ui.run_inputs(st.session_state))
        st.session_state["pilot_carried"] = rec.label

    st.button(f"Use {rec.label} in the Synthesis Runner", key="pl_carry_btn", on_click=_carry)
    if st.session_state.get("pilot_carried"):
        _msg = (st.session_state.get("runner_carried") or {}).get("message")
        st.success(f"Carried to the Synthesis Runner: {st.session_state['pilot_carried']} "
                   + (f"— {_msg} " if _msg else "") + "(open the Run step).")


# ------------------------------------------------------------------ action (last: results stay on screen)
def do_pilot() -> None:
    if public is None:
        status.error("Cannot run the pilot: choose a public sample first.")
        return
    try:
        taus = parse_tau_grid(P["pl_grid"])
        seeds = ui.seeds_from_inputs(P["pl_seeds"], P["pl_first_seed"])
        cfg = ui.config_from_inputs({"rn_rounds": P["pl_rounds"], "rn_population": P["pl_population"],
                                     "rn_release": P["pl_release"], "rn_h": R["rn_h"],
                                     "rn_selection": R["rn_selection"],
                                     **{k: R[k] for k in ui.SCHEDULE_KEYS if k in R}})
        clock = ProgressClock(pilot_plan(taus, seeds, cfg.rounds))
    except BlowfishError as e:
        status.error(f"Cannot run the pilot: {e}")
        return
    metric = studio.metric_fn()
    # live progress (issue 24, as the Run step): the pilot works in a thread, the box redraws every half
    # second from the clock (a running clock, an estimate that updates, one line per method)
    with RunStatus("Pilot", status) as rs:
        try:
            res = run_with_clock(lambda progress, stop: run_pilot(
                studio.schema, studio.policy, public, P["pl_rho"], n_t, taus, seeds, cfg, metric, P["pl_delta"],
                P["pl_tie"], public_source=public_source, progress=progress, should_stop=stop),
                clock, lambda snap: rs.show(snap, current_text(snap)),
                lambda: bool(st.session_state.get("pilot_stop")))
        except RunStopped:
            st.session_state["pilot_stop"] = False
            rs.stopped("Pilot stopped. Nothing partial was kept.")
            return
        except (BlowfishError, ValueError, TypeError) as e:
            rs.failed(f"Pilot failed: {e}. Earlier results are unchanged.")
            return
        rs.done()
    st.session_state["pilot_result"] = {"result": res, "studio_version": studio.version}
    st.session_state["pilot_carried"] = None
    st.rerun()


if run_clicked:
    do_pilot()
elif st.session_state.get("pilot_stop"):
    st.session_state["pilot_stop"] = False
    status.warning("Stopped. Nothing partial was kept.")


# ------------------------------------------------------------------ accuracy first (public rows only)
_last = st.session_state.get("pilot_result")
_rec_tau = None
if _last is not None:
    _r = _last["result"].recommendation
    _rec_tau = _r.tau if get_method(_r.method).needs_tau else None
else:
    _rec_tau = get_tau()
try:
    _acc_seeds = ui.seeds_from_inputs(P["pl_seeds"], P["pl_first_seed"])
    _acc_cfg = ui.config_from_inputs({"rn_rounds": P["pl_rounds"], "rn_population": P["pl_population"],
                                      "rn_release": P["pl_release"], "rn_h": R["rn_h"],
                                      "rn_selection": R["rn_selection"],
                                     **{k: R[k] for k in ui.SCHEDULE_KEYS if k in R}})
except BlowfishError:
    _acc_seeds, _acc_cfg = None, None
if _acc_cfg is not None and isinstance(n_t, int) and n_t > 0:
    if _last is None:
        st.caption(f"No pilot yet: the search uses the session's τ = {get_tau():g} for BF-Soft (run the pilot "
                   "above for its recommendation).")
    # the default target comes from this pilot's attainable range (same public rows, schedule and seeds)
    _same = _last is not None and _last["studio_version"] == studio.version and \
        getattr(_last["result"], "public_source", None) == public_source
    accuracy_first_section(studio, public, int(n_t), _rec_tau, _acc_seeds, _acc_cfg, studio.metric_fn(),
                           public_source=public_source,
                           should_stop=lambda: bool(st.session_state.get("pilot_stop")),
                           pilot=_last["result"] if _same else None)


# ------------------------------------------------------------------ private choice (optional, off by default)
st.header("Choose on private data (optional)")
if st.checkbox("Choose on private data (exponential mechanism; spends private budget)", key="pl_private",
               on_change=_keep, args=("pl_private",)):
    from blowfish_core.algorithm.evolution import SEEDED_NOTE
    from blowfish_core.workflows.private_pilot import (INTERNAL, choose_tau_private, private_pilot_plan, release_tau_choice,
                                             setting_label)
    from blowfish_core.synthesis.gate import total_text

    st.warning("Every one of the K settings (Hard + each tau of the grid) runs on the PRIVATE table and spends "
               "the target budget rho; the choice itself spends the selection budget. The public pilot above "
               "spends nothing: prefer it when public rows exist.")
    st.number_input("Selection budget rho_sel (zCDP; epsilon_sel = sqrt(8 rho_sel))", key="pl_rho_sel",
                    format="%g", step=1e-5, on_change=_keep, args=("pl_rho_sel",))
    plan = None
    if not has_rows:
        st.info("The private table is not loaded; load it in the Policy Designer to choose on it.")
    else:
        try:
            taus_p = parse_tau_grid(P["pl_grid"])
            plan = private_pilot_plan(studio.schema, studio.policy, len(studio.private), taus_p,
                                      st.session_state["pl_rho"], st.session_state["pl_rho_sel"],
                                      metric=studio.metric_fn()[0],
                                      delta=st.session_state["pl_delta"])
        except BlowfishError as e:
            st.error(f"Selection budget or settings: {e}")
    if plan is not None:
        c = plan.choice
        q1, q2, q3, q4 = st.columns(4)
        q1.metric("Settings K", f"{plan.K}")
        q2.metric("Total cost rho (K runs + selection)", f"{c.rho_total:.4g}")
        q3.metric(f"Regret bound ({1 - c.rho:.0%})", f"{c.regret_error:.4g} {plan.metric.upper()}")
        q4.metric("EM temperature", f"{c.temperature:.4g}")
        for line in plan.lines():
            st.caption(line)
        data_domain = bool(getattr(studio.schema, "data_derived", False))
        if data_domain:
            st.checkbox("Release with a data-derived domain (labelled not differentially private)",
                        key="pl_allow_data_domain", on_change=_keep, args=("pl_allow_data_domain",),
                        help="the schema's bounds or levels were read off the private table; the release gate "
                             "refuses the release without this")
        b1, b2, _sp2 = st.columns([2, 2, 4])
        study_clicked = b1.button("Run a seeded study (for study, not for publication)", key="pl_private_run_btn",
                                  help=f"seed = the First seed; {SEEDED_NOTE}: anyone who knows the seed can "
                                       "recompute the noise")
        release_clicked = b2.button("Make a release of the choice", key="pl_private_release_btn", type="primary",
                                    help="through the release gate: every run and the choice drawn from OS "
                                         "entropy with OpenDP samplers; spends the whole cost above")

        def _private_kw() -> dict:
            cfg_p = ui.config_from_inputs({"rn_rounds": P["pl_rounds"], "rn_population": P["pl_population"],
                                           "rn_release": P["pl_release"], "rn_h": R["rn_h"],
                                           "rn_selection": R["rn_selection"],
                                           **{k: R[k] for k in ui.SCHEDULE_KEYS if k in R}})
            return dict(rho_sel=st.session_state["pl_rho_sel"], config=cfg_p, metric=studio.metric_fn(),
                        delta=st.session_state["pl_delta"], data_source=studio.dataset_name)

        if study_clicked:
            try:
                seeds_p = ui.seeds_from_inputs(1, P["pl_first_seed"])
                out = choose_tau_private(studio.schema, studio.policy, studio.private, st.session_state["pl_rho"],
                                         taus_p, seed=seeds_p[0], **_private_kw())
                st.session_state["pilot_private"] = {"result": out, "studio_version": studio.version}
            except BlowfishError as e:
                st.error(f"Private choice failed: {e}")
        if release_clicked:
            try:
                pub = release_tau_choice(studio.schema, studio.policy, studio.private, st.session_state["pl_rho"],
                                         taus_p, allow_data_domain=bool(st.session_state.get("pl_allow_data_domain"))
                                         and studio.schema.data_derived,
                                         **_private_kw())
                st.session_state["pilot_private_release"] = {"result": pub.result, "studio_version": studio.version}
            except GateError as e:
                st.error(e.render("app"))
            except BlowfishError as e:
                st.error(f"Release of the choice failed: {e}")

    def _show_private(pres, carry_key: str) -> None:
        """One private choice: the choice, its ledger totals, the internal per-setting figures, carry."""
        pv = pres.privacy
        totals = (f"rho = {pv['rho']:.6g} zCDP over {pv['rounds']} ledger rows (K runs + one exponential row), "
                  f"epsilon = {pv['epsilon']:.4g} at delta = {pv['delta']:.3g} by Eq. (1) "
                  f"(accountant {pv['accountant']})")
        if pres.seeded:
            st.info(f"Seeded study (seed {pres.seed}): {pres.label} — {SEEDED_NOTE}. {totals}. Make a release of "
                    "the choice to get a result that may be published.")
        else:
            pub = pres.publication
            st.success(f"Release of the choice: {pres.label} — {pub.label}. "
                       + total_text(pub.total, len(pub.parts)) + f" Randomness: {pres.randomness}.")
            for line in pub.head_lines[1:]:
                st.warning(line)
        st.caption(f"{pres.plan.metric.upper()} per setting and selection probabilities — {INTERNAL} "
                   "(do not publish):")
        # the errors come from the typed runs (PairedResult.errors), one per setting
        internal = pd.DataFrame([{"setting": setting_label(m, t), pres.plan.metric: pr.errors(m)[0],
                                  "probability": float(pp)}
                                 for pr, (m, t), pp in zip(pres.runs, pres.plan.settings, pres.probabilities)])
        st.dataframe(ui.styled(internal, {pres.plan.metric: ".4f", "probability": ".3g"}), hide_index=True)

        def _carry_private() -> None:
            ui.carry_to_runner(st.session_state, pres.method, pres.tau, pres.plan.rho_run)
            if pres.tau is not None:
                set_tau(get_studio(), float(pres.tau), "Tune τ")
            st.session_state["pilot_carried"] = pres.label

        st.button(f"Use {pres.label} in the Synthesis Runner", key=carry_key, on_click=_carry_private)

    for key, title, stale, metric, carry_key in (  # the release first, then the seeded study
            ("pilot_private_release", "Release of the choice", "This release of the choice", "Released choice",
             "pl_private_release_carry_btn"),
            ("pilot_private", "Seeded study of the choice", "This private choice", "Private choice",
             "pl_private_carry_btn")):
        last = st.session_state.get(key)
        if last is None:
            continue
        st.subheader(title)
        if last["studio_version"] != studio.version:
            st.warning(f"{stale} was computed for an earlier dataset or policy.")
        st.metric(metric, last["result"].label)
        _show_private(last["result"], carry_key)
