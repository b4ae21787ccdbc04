"""Synthesis Runner: paired what-if runs of Tab-PE, Hard and BF-Soft on the studio's data.

Thin page: widgets -> studio.runner_ui (requests, storage) -> blowfish_core.synthesis.experiment.run_paired
(the function the CLI calls) -> tables and plotly figures, read from the typed
PairedResult (the JSON report is only pasted and downloaded).  The "Noise step" is the
CLI's --noise, read from the mechanism table (studio.runner_ui.NOISE_STEPS: the default additive
mechanism and the sampling steps, with their declared labels; a sampling step runs hard votes only:
soft-vote methods are greyed out with the reason).  Results are stored in
st.session_state only after a run succeeded, so a failed or stopped run leaves the
earlier results intact.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from blowfish_core.base.constants import DEFAULT_DELTA
from blowfish_core.privacy.accounting import check_delta
from blowfish_core.base.errors import BlowfishError
from blowfish_core.algorithm.evolution import RunStopped
from blowfish_core.synthesis.spec import MAX_SEEDS
from blowfish_core.synthesis.experiment import PairedResult
from blowfish_core.synthesis.report import ledger_text, policy_summary
from blowfish_core.algorithm.methods import BF_SOFT, HARD, METHOD_LABELS
from blowfish_core.workflows.sweeps import budget_sweep, decomposition_table, marginal_comparison
from blowfish_core.interfaces.run_bundle import bundle_zip, cli_command
from blowfish_core.workflows.progress import ProgressClock, run_plan, sweep_plan
from blowfish_core.workflows.ranking import ranking_verdict_from_report
from blowfish_core.workflows.verdicts import (
    exact_release_verdict, fmt_crossing, fmt_sig, run_verdict_from_report, sweep_verdict_from_result,
)
from studio import flow
from studio import runner_ui as ui
from studio.budget_ui import DELTA_FORMAT, budget_control
from studio.bundle_ui import run_settings_of
from studio.plots import OKABE_ITO, REAL_SYNTH, SEQUENTIAL, chart_with_table
from studio.run_ui import (NO_ROUNDS, RunStatus, current_text, expected_text, fmt_seconds, round_error_figure,
                           rounds_input, run_with_clock, session_rounds, sweep_figure, sweep_frame)
from studio.state import TAU_KEY, get_studio, get_tau, on_tau_change, seed as seed_widget
from studio.widgets import fmt_q, fmt_reach

st.set_page_config(page_title="Synthesis Runner · Blowfish Studio", layout="wide")

studio = get_studio()
S = ui.runner_settings(st.session_state, budget=studio.extras.get("budget"))  # tau: the session's TAU_KEY
for _k, _v in S.items():
    if not _k.startswith("_") and _k not in st.session_state:
        st.session_state[_k] = list(_v) if isinstance(_v, list) else _v
if "runner_show_next" in st.session_state:
    st.session_state["runner_show"] = st.session_state.pop("runner_show_next")
store: dict = st.session_state.setdefault("runner_results", {})


def _request_stop() -> None:
    st.session_state["runner_stop"] = True
    if st.session_state.get("rn_busy"):  # the click interrupted the run: say so and unlock the inputs
        st.session_state["rn_last_status"] = {
            "what": "Run" if st.session_state["rn_busy"] == "run" else "Budget sweep", "state": "stopped",
            "elapsed": "", "message": "Run stopped. Nothing partial was kept; the results below are from earlier runs."}
        st.session_state["rn_busy"] = st.session_state["rn_armed"] = None
        _pin_inputs()
        st.session_state["runner_stop"] = False


def _start(kind: str) -> None:
    """Run / sweep clicked.  This script run takes the inputs as they are (unlocked); at its end it
    arms the run and reruns, and the armed run draws every input locked and does the work."""
    st.session_state["rn_busy"] = kind
    st.session_state["rn_armed"] = False


def _pin_inputs() -> None:
    """Write the inputs' values into session state before their ``disabled`` flag flips (a widget whose
    parameters change is a new widget: a pinned value carries over, an unpinned one would be lost)."""
    st.session_state["rn_pinned"] = {k: st.session_state[k] for k in S if not k.startswith("_") and
                                     k in st.session_state}


for _k, _v in (st.session_state.pop("rn_pinned", None) or {}).items():  # before any input is drawn
    st.session_state[_k] = _v


def _finish(what: str, state: str, message: str, elapsed: float = 0.0) -> None:
    """End a run that did not succeed: keep its state for the next render (inputs unlocked) and rerun."""
    st.session_state["rn_last_status"] = {"what": what, "state": state, "message": message,
                                          "elapsed": fmt_seconds(elapsed) if elapsed else ""}
    st.session_state["rn_busy"] = st.session_state["rn_armed"] = None
    _pin_inputs()
    st.rerun()


busy = st.session_state.get("rn_busy")
lock = bool(busy) and bool(st.session_state.get("rn_armed"))


def _should_stop() -> bool:
    return bool(st.session_state.get("runner_stop", False))


# ------------------------------------------------------------------ header
st.title("Synthesis Runner")
st.caption(
    "Launch small synthesis runs on the data and policy chosen in the Policy Designer, compare methods on "
    "the same seeds (paired random streams: same initial population, noise vector and mutation draws), and "
    "see where the privacy budget went. Seeded runs are reproducible for study, not for a real release."
)
flow.tutorial("Run compares the methods on the same seeds and budget. Read the verdict under the results: an "
              "interval that includes 0 means the difference may be chance; more seeds narrow it.")
st.markdown(
    f"**Data:** {studio.dataset_name} — {len(studio.private):,} private rows · **metric:** "
    f"{studio.metric.upper()} · **protected:** "
    + (", ".join(studio.policy.protected(studio.schema)) or "nothing")
)
carried = st.session_state.get("runner_carried")
if carried:
    what = "Hard" if carried["method"] == HARD.name else f"BF-Soft at tau = {carried['tau']:g} (with Hard for comparison)"
    st.info(f"From the Temperature Pilot: {what}" + (f", target rho = {carried['rho']:g}" if carried.get("rho") else "")
            + ". The inputs below were set accordingly"
            + (f": {carried['message']}." if carried.get("message") else "."))

# ------------------------------------------------------------------ inputs
c1, c2, c3 = st.columns(3)
with c1:
    st.radio("Noise step", list(ui.NOISE_STEPS), format_func=lambda k: ui.NOISE_STEPS[k], key="rn_noise",
             horizontal=True, disabled=lock,
             help=" ".join(ui.noise_step_help(k) for k in ui.NOISE_STEPS))
    noise = st.session_state["rn_noise"]
    sampling = ui.is_sampling(noise)
    if sampling:
        _kept, _dropped = ui.drop_unavailable(list(st.session_state.get("rn_methods", [])), noise)
        if _dropped:
            st.session_state["rn_methods"] = _kept
            st.session_state["rn_dropped_note"] = list(_dropped)
    st.multiselect("Methods", ui.available_methods(noise) if sampling else list(ui.USER_METHODS),
                   format_func=lambda m: METHOD_LABELS[m], key="rn_methods", disabled=lock,
                   help="Tab-PE: sqrt(2) noise (standard DP). Hard: exact policy sensitivity per population "
                        "(Cor. 5.3). BF-Soft: soft vote with the closed-form bound (Cor. 5.5). Soft vote at "
                        "standard DP: reach = the whole Gower diameter. MST, AIM: reference methods (standard DP, "
                        "zCDP only). bf-MST: MST under the policy; the marginals no policy edge changes are released "
                        "exactly (no noise), and the result names them.")
    if sampling:
        for _m, _ok, _why in ui.method_availability(noise):
            if not _ok:
                st.checkbox(f"{METHOD_LABELS[_m]} (not available with {ui.mechanism_label(noise)})",
                            value=False, disabled=True, key=f"rn_na_{_m}", help=_why)
        _na = [m for m, ok, _why in ui.method_availability(noise) if not ok]
        if _na:  # each method's own reason (the method table's), not the first one's for all
            st.caption(f"Greyed out: {', '.join(METHOD_LABELS[m] for m in _na)}. "
                       f"Reasons: {ui.unavailable_text(_na, noise)}.")
        if st.session_state.get("rn_dropped_note"):
            st.info(ui.removed_note(st.session_state.pop("rn_dropped_note"), noise))
    st.checkbox("Decomposition (§6.2.3): also run the soft vote with Hard's noise", key="rn_decomp",
                disabled=lock or sampling,
                help="Adds Hard, BF-Soft and the soft vote with Hard's noise: smoothing cost C, noise "
                     "benefit N and gain G = N - C." + (f" Not available with {ui.SAMPLING_LABELS} (it needs BF-Soft)."
                                                        if sampling else ""))
    st.number_input("Temperature tau", key=TAU_KEY, disabled=lock, format="%g", step=0.005,
                    on_change=on_tau_change, args=("Run",),
                    help="Gower units; used by BF-Soft and the soft votes (must be > 0). The session's τ: the "
                         "Policy step and Tune τ set the same value.")
with c2:
    budget_view = budget_control(studio, "rn_b", rounds=session_rounds(st.session_state), stacked=True)
    with st.expander("Advanced: the budget as numbers (ρ, or ε with δ)", expanded=sampling):
        st.radio("Budget given as", [ui.SESSION_BUDGET, *ui.BUDGET_MODES], key="rn_budget_mode",
                 disabled=lock, help=(f"{ui.mechanism_label(noise)} takes (epsilon, delta): the session's ε above, "
                                      "or the numbers below with 'epsilon'") if sampling else None)
        # one epsilon (issue 24): the session's budget applies to every mechanism, PubMix/LinMix included
        session_mode = st.session_state["rn_budget_mode"] == ui.SESSION_BUDGET
        rho_mode = st.session_state["rn_budget_mode"] == ui.BUDGET_MODES[0] and not sampling
        st.number_input("rho (total zCDP budget)", key="rn_rho", format="%g", step=1e-4,
                        disabled=lock or session_mode or not rho_mode)
        st.number_input("epsilon", key="rn_epsilon", format="%g", step=0.05, disabled=lock or session_mode or rho_mode)
        st.number_input("δ", key="rn_delta", format=DELTA_FORMAT, step=1e-6, disabled=lock or session_mode,
                        help="in (0, 1); used for the (epsilon, delta) report either way")
        st.radio("epsilon -> rho conversion", [ui.AUTO_CONVERSION, "exact", "eq1"], key="rn_conversion",
                 horizontal=True, disabled=lock or session_mode or rho_mode or sampling,
                 help="auto: the accountant the run's ledger uses (the exact Gaussian curve, tight, for Hard, "
                      "BF-Soft and Tab-PE; the paper's Eq. (1) when MST or AIM is in the run), so the ε "
                      "reported is the ε chosen; exact / eq1 force one")
    if sampling:
        _pub = getattr(studio, "public", None)
        st.caption(f"Public source: the pilot split ({len(_pub):,} rows, disjoint from the private rows)."
                   if _pub is not None else (f"Public source: none ({ui.mechanism_label(noise)} needs "
                                             + ("the preset's pilot split)." if ui.needs_public(noise)
                                                else "none).")))
with c3:
    rounds_input(disabled=lock)  # the one T (the Policy step shows the same)
    st.text_input("Population schedule", key="rn_population", disabled=lock,
                  placeholder="paper default: 512 in rounds 1-3, 1024 after",
                  help="candidates per round as size x rounds, e.g. 512x3,1024x5 (8 rounds); "
                       "empty = the paper's schedule")
    st.number_input("Release size (records)", key="rn_release", disabled=lock, step=1)
    st.number_input("Threshold H (App. B)", key="rn_h", disabled=lock, format="%g", step=1.0)
    st.selectbox("Selection", ["hybrid", "sample", "rank"], key="rn_selection", disabled=lock,
                 help="hybrid (default): 'sample' selection up to round 3, then 'rank' (the top parents kept "
                      "+ mutated children; see Advanced: schedule)")
    with st.expander("Advanced: schedule (DESIGN §3)"):
        st.selectbox("Schedule", ui.SCHEDULE_CHOICES, key="rn_schedule", disabled=lock,
                     help="hybrid (default): rank rounds keep the top m/2 parents + 1 mutated child each, the "
                          "release is the top final noisy counts (the reference library's reading). "
                          "hybrid-256x3: the earlier reading (top m/4 kept + 3 children each, release drawn "
                          "proportionally to the counts), for comparison")
        st.radio("Rank by", ui.RANK_BY_CHOICES, key="rn_rank_by", disabled=lock, horizontal=True,
                 help="clipped (default): the H-thresholded, clipped noisy counts; raw: the unclipped noisy "
                      "counts (as the reference library)")
        st.radio("Mutation index", ui.MUTATION_INDEX_CHOICES, key="rn_mutation_index", disabled=lock,
                 horizontal=True, help="t (default): round t mutates at rate_t; t-1: at rate_(t-1) (as the "
                                       "reference library)")
        st.selectbox("Children per kept parent (rank rounds)", ui.CHILDREN_CHOICES, key="rn_children",
                     disabled=lock, help="from the schedule: 1 for hybrid (top m/2 kept), 3 for hybrid-256x3 "
                                         "(top m/4 kept); the top m/(1 + children) parents are kept")
        st.selectbox("Release", ui.RELEASE_MODE_CHOICES, key="rn_release_mode", disabled=lock,
                     help="from the schedule: top for hybrid, sample for hybrid-256x3. top: the release candidates "
                          "with the largest final noisy counts, each once; top-distinct: the same with equal "
                          "records once; sample: drawn proportionally to the counts")
    st.number_input(f"Paired seeds (at most {MAX_SEEDS})", key="rn_seeds", disabled=lock, step=1)
    st.number_input("First seed", key="rn_first_seed", disabled=lock, step=1)
    try:  # before running: the expected time when it is long (MST/AIM fits), from the progress cost model
        _expect = expected_text(ui.methods_from_inputs(list(st.session_state["rn_methods"]),
                                                       bool(st.session_state["rn_decomp"]) and not sampling),
                                ui.seeds_from_inputs(st.session_state["rn_seeds"], st.session_state["rn_first_seed"]),
                                st.session_state["rn_rounds"])
    except (BlowfishError, TypeError, ValueError):
        _expect = None
    if _expect:
        st.caption(_expect)
for _k in S:
    if not _k.startswith("_") and _k in st.session_state:
        S[_k] = st.session_state[_k]

try:
    _ps = policy_summary(studio.schema, studio.policy, get_tau() if get_tau() > 0 else None)
    m1, m2, m3 = st.columns(3)
    m1.metric("Record-level reach r", fmt_reach(_ps["reach"]))  # the Policy step's formats: one q everywhere
    if _ps["q"] is not None:
        m2.metric("Noise ratio q at tau", fmt_q(_ps["q"]))
        m3.metric("BF-Soft sensitivity bound", f"{_ps['sensitivity_bound']:.4f}")
except (BlowfishError, ValueError, TypeError):
    pass

b1, b2, _sp = st.columns([1, 1, 6])
b1.button("Run", type="primary", key="rn_run_btn", on_click=_start, args=("run",), disabled=lock)
b2.button("Stop", key="rn_stop_btn", on_click=_request_stop,
          help="Stops the run (or the sweep); nothing partial is kept and earlier results stay.")
run_clicked, sweep_clicked = lock and busy == "run", lock and busy == "sweep"
status = st.container()
_last = st.session_state.pop("rn_last_status", None)
if _last and not busy:  # the outcome of the run that just ended (its progress bars are gone)
    _box = status.status(f"{_last['what']}: {_last['state']}" + (f" after {_last['elapsed']}" if _last["elapsed"]
                                                                 else ""),
                         state="error" if _last["state"] == "failed" else "complete", expanded=True)
    (_box.error if _last["state"] == "failed" else _box.warning)(_last["message"])


# ------------------------------------------------------------------ results
def _fmt_ci(lo: float | None, hi: float | None) -> str:
    return ui.fmt_ci(lo, hi)


@st.fragment
def draw_results() -> None:
    """The results of the run picked (a fragment: changing a plot option reruns only this part)."""
    ids = sorted(store, reverse=True)
    if st.session_state.get("runner_show") not in ids:
        st.session_state["runner_show"] = ids[0]
    rid = st.selectbox(
        "Results shown", ids, key="runner_show",
        format_func=lambda i: (f"run #{i}: " + ", ".join(METHOD_LABELS[m] for m in store[i]["result"].request.methods)
                               + f" · {ui.budget_label(store[i]['result'])}"
                               + f" · {len(store[i]['result'].request.seeds)} seed(s)"),
    )
    rec = store[rid]
    res: PairedResult = rec["result"]  # the typed result; rec["report"] is only pasted / downloaded
    rep = rec["report"]
    metric = res.metric_name
    seeds = list(res.request.seeds)
    if rec["studio_version"] != studio.version or rec["dataset"] != studio.dataset_name:
        st.warning("These results were computed on an earlier dataset or policy; run again to refresh them.")

    _exact = exact_release_verdict(rep)  # bf-mst: the marginals released exactly / with noise (issue 25)
    if res.metric_note:  # fewer than two modelled columns: PWErr skipped (issue 27)
        st.info(res.metric_note)
        if _exact is not None:
            flow.verdict_banner(_exact)
    else:
        st.subheader(f"Mean {metric.upper()} over {len(seeds)} paired seed(s), 95% t-interval")
        summ = ui.summary_frame(res)
        st.dataframe(ui.styled(summ.drop(columns="key"), {f"mean {metric}": ".4f", "ci95 low": ".4f", "ci95 high": ".4f"},
                               na={"ci95 low": ui.NA_CI, "ci95 high": ui.NA_CI}), hide_index=True, placeholder=ui.NA_CI)
        _ranked = ranking_verdict_from_report(rep)  # every private method ranked, a baseline's win said in words
        if _ranked is not None:
            flow.verdict_banner(_ranked)
        _verdict = run_verdict_from_report(rep)  # BF-Soft vs Hard: the paired reduction R_s (App. F.2)
        if _verdict is not None:
            flow.verdict_banner(_verdict)
        if _exact is not None:
            flow.verdict_banner(_exact)
        if summ[["ci95 low", "ci95 high"]].isna().any().any():
            st.caption(f"95% t-intervals: {ui.NA_CI} (one paired seed gives no spread to estimate).")
        cols = st.columns(max(len(summ), 1))
        for col, (_, row) in zip(cols, summ.iterrows()):
            col.metric(f"{row['method']} mean {metric.upper()}", f"{row[f'mean {metric}']:.4f}",
                       help=f"95% t-interval {_fmt_ci(row['ci95 low'], row['ci95 high'])}")
        rr = res.summary.get("relative_reduction_bf_soft_vs_hard")
        if rr:
            st.metric("BF-Soft vs Hard: paired reduction R_s", f"{rr['mean_percent']:.1f}%",
                      help="R_s = 100 (E_H - E_S) / E_H per seed, averaged (App. F.2); positive favours BF-Soft")
            rr_ci = list(rr.get("ci95") or [None, None])
            st.caption(f"R_s 95% t-interval {ui.fmt_ci(rr_ci[0], rr_ci[1], spec='.1f', unit='%')}; per seed: "
                       + ", ".join(f"{v:.1f}%" for v in rr["per_seed"]))
        with st.expander("Error of every run (method x seed)"):
            st.dataframe(ui.styled(ui.runs_frame(res).drop(columns="key"), {metric: ".4f", "seconds": ".3g"}),
                         hide_index=True)

        dec = decomposition_table({"summary": res.summary})
        if dec is not None:
            st.subheader("Decomposition (§6.2.3): smoothing cost C, noise benefit N, gain G = N - C")
            st.dataframe(ui.styled(dec, {c: ".4g" for c in ("mean", "ci_low", "ci_high")},
                                   na={"ci_low": ui.NA_CI, "ci_high": ui.NA_CI}), hide_index=True, placeholder=ui.NA_CI)
            _hi = (dec["ci_high"].astype(float) - dec["mean"]).fillna(0)
            _lo = (dec["mean"] - dec["ci_low"].astype(float)).fillna(0)
            fig = go.Figure(go.Bar(x=dec["term"], y=dec["mean"], marker_color=OKABE_ITO["blue"],
                                   error_y=dict(type="data", symmetric=False, array=_hi, arrayminus=_lo)))
            fig.update_layout(height=300, xaxis_title="term (C smoothing cost, N noise benefit, G gain)",
                              yaxis_title=f"{metric.upper()} difference", margin=dict(t=20, b=20))
            chart_with_table(fig, dec, key=f"rn_dec_fig_{rid}")
            st.caption("E_M is the soft vote with Hard's noise. BF-Soft wins iff N > C.")

        st.subheader("Error by round")
        re_ = rec["round_errors"]
        T = res.request.config.rounds
        g = re_.groupby(["method", "round", "what"], as_index=False)["error"].mean()
        g["method"] = g["method"].map(METHOD_LABELS)
        g["step"] = g["round"].map(lambda r: f"round {r}" if r <= T else "release")
        order = [METHOD_LABELS[m] for m in ui.METHOD_ORDER]
        # Okabe-Ito colour, marker and dash per method; MST / AIM (no rounds) as a level line "final (no rounds)"
        fig = round_error_figure(g, T, metric, order)
        chart_with_table(fig, g[["method", "round", "step", "error"]], key=f"rn_round_fig_{rid}")
        st.caption(f"Rounds 1..{T}: error of the candidate population C_t (every candidate counted once), mean over "
                   f"seeds; point {T + 1}: the released records ("
                   + (f"the round-{T} {ui.mechanism_label(res.request.mechanism)} draws" if ui.is_sampling(
                       res.request.mechanism) else f"drawn from C_{T} by the last noisy counts") + "). "
                   "Each method has its own dash style and marker"
                   + (f"; a dotted level line marks a method without rounds ({NO_ROUNDS}: its released records)."
                      if any(g.groupby("method")["round"].nunique() == 1) else "."))
        for a, b in ui.identical_lines(re_):
            why = (" Every round of Hard certified sensitivity sqrt(2) (a protected edge crosses a cell boundary), "
                   "so Hard drew exactly Tab-PE's noise on the same seeds." if {a, b} == {"tab-pe", "hard"} else "")
            st.caption(f"**{METHOD_LABELS[a]} and {METHOD_LABELS[b]} coincide**: their lines are identical, so one "
                       f"lies on top of the other.{why}")

    st.subheader("Per-round ledger")
    seed = st.selectbox("Seed", seeds, key=f"rn_round_seed_{rid}")
    rt = ui.rounds_frame(res, seed)
    st.dataframe(ui.styled(rt, ui.ROUNDS_FORMATS), hide_index=True, placeholder=ui.NA)
    for how in rt["calibration"].unique():
        st.caption(f"**{how}**: {ui.CALIBRATION_WORDS.get(how, how)}")

    st.subheader("Real vs synthetic marginals")
    keys = list(rec["releases"])
    # open on the method of interest (BF-Soft, else Hard), not on whatever ran first
    _first = next((i for want in (BF_SOFT.name, HARD.name) for i, k in enumerate(keys) if k[0] == want), 0)
    pick = st.selectbox("Synthetic table", range(len(keys)), index=_first, key=f"rn_marg_run_{rid}",
                        format_func=lambda i: f"{METHOD_LABELS[keys[i][0]]}, seed {keys[i][1]}")
    syn = rec["X_releases"][keys[pick]]
    rs = rec["schema"]
    names = rs.names
    one = st.multiselect("1-way: attributes", names, default=names[:2], key=f"rn_marg1_{rid}")
    try:
        for a in one:
            m = marginal_comparison(rs, rec["X_real"], syn, [a])
            fig = go.Figure([go.Bar(name="real", x=m[a], y=m["real"], marker_color=REAL_SYNTH["real"]),
                             go.Bar(name="synthetic", x=m[a], y=m["synthetic"], marker_color=REAL_SYNTH["synthetic"],
                                    marker_pattern_shape="/")])
            fig.update_layout(barmode="group", height=300, title=f"{a}: l1 error {m['abs_diff'].sum():.4f}",
                              margin=dict(t=60, b=20), yaxis_title="share of records", xaxis_title=a,
                              legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
            fig.update_xaxes(type="category")  # bin labels such as "17-20" are names, never dates or numbers
            chart_with_table(fig, m, key=f"rn_m1_{rid}_{a}")
        ca, cb = st.columns(2)
        a2 = ca.selectbox("2-way: first attribute", names, index=0, key=f"rn_marg2a_{rid}")
        b2_ = cb.selectbox("2-way: second attribute", names, index=min(1, len(names) - 1), key=f"rn_marg2b_{rid}")
        if a2 == b2_:
            st.info("Pick two different attributes for a 2-way marginal.")
        else:
            m = marginal_comparison(rs, rec["X_real"], syn, [a2, b2_])
            fig = make_subplots(rows=1, cols=2, subplot_titles=("real", "synthetic"), shared_yaxes=True)
            for k, col in enumerate(("real", "synthetic"), start=1):
                piv = m.pivot_table(index=b2_, columns=a2, values=col, sort=False)
                fig.add_trace(go.Heatmap(z=piv.values, x=list(piv.columns), y=list(piv.index), coloraxis="coloraxis"),
                              row=1, col=k)
            fig.update_layout(height=400, coloraxis=dict(colorscale=SEQUENTIAL, colorbar=dict(title="share")),
                              margin=dict(t=60, b=20), title=f"({a2}, {b2_}): l1 error {m['abs_diff'].sum():.4f}")
            fig.update_xaxes(type="category", title_text=a2)
            fig.update_yaxes(type="category", title_text=b2_, col=1)
            chart_with_table(fig, m, key=f"rn_m2_{rid}")
    except BlowfishError as e:
        st.error(f"Marginals: {e}")

    st.subheader("Privacy ledger (paste into a release note)")
    if ui.pld_note(res):
        st.markdown(f":red[**{ui.pld_note(res)}.**]")
        if res.request.public_source:
            st.caption(f"Public source of P_nse: {res.request.public_source}. Only the draws of every round are "
                       "released; the mixture and the private vote histogram are never shown or stored.")
    st.code(ledger_text(rep), language=None, wrap_lines=True)
    st.caption(rep["seeded_run_note"] + " Errors are evaluation only (computed against the real table) and are "
               "not part of a release.")

    st.subheader("Downloads")
    d1, d2, d3, d4 = st.columns(4)
    pick_dl = d1.selectbox("Release", range(len(keys)), key=f"rn_dl_{rid}",
                           format_func=lambda i: f"{METHOD_LABELS[keys[i][0]]}, seed {keys[i][1]}")
    m_, s_ = keys[pick_dl]
    d1.download_button("Download synthetic CSV", ui.release_csv(rec["releases"][keys[pick_dl]]),
                       file_name=f"{m_}_seed{s_}.csv", mime="text/csv", on_click="ignore", key=f"rn_dl_csv_{rid}")
    releases = rec["releases"]
    d2.download_button("Download all releases (zip)", lambda: ui.releases_zip(releases),
                       file_name=f"releases_run{rid}.zip", mime="application/zip", on_click="ignore",
                       key=f"rn_dl_zip_{rid}")
    d3.download_button("Download JSON report", ui.report_json(rep), file_name=f"report_run{rid}.json",
                       mime="application/json", on_click="ignore", key=f"rn_dl_json_{rid}")
    try:
        _settings = run_settings_of(rec["result"].request, studio, st.session_state)
        d4.download_button("Download run bundle", lambda: bundle_zip(_settings, report=rep),
                           file_name=f"blowfish_run{rid}.zip", mime="application/zip", on_click="ignore",
                           key=f"rn_dl_bundle_{rid}",
                           help="A study bundle (seeded: for study, not for publication): schema.json, policy.json, "
                                "run.py, run.sh, run.ipynb and a README with the ledger in words: reruns this run "
                                "byte for byte (the private table is not included)")
        st.markdown("The exact CLI command of this run:")
        st.code(cli_command(_settings), language="bash", wrap_lines=True)
    except BlowfishError as e:
        d4.caption(f"No run bundle for this run: {e}")


st.header("Results")
if store:
    draw_results()
elif not busy:
    st.info("No results yet: choose the settings above and click Run.")

# ------------------------------------------------------------------ budget sweep
st.header("Budget sweep")
st.caption(f"{ui.NOISE_STEPS[ui.DEFAULT_NOISE]} noise step. Hard and BF-Soft over a small grid of budgets (ε at "
           "the run's δ, or ρ) with the settings above "
           "(tau, delta, rounds, schedule, "
           "release, H, selection) and paired seeds; the crossing budget is interpolated linearly in log rho "
           "where mean(E_S - E_H) changes sign (App. F.3).")
try:  # the delta the sweep will use (do_sweep): the session's, or the Advanced entry's
    _sweep_delta = float(ui.session_budget_settings(ui.run_inputs(st.session_state, S), budget_view)["rn_delta"])
except (BlowfishError, TypeError, ValueError):
    _sweep_delta = DEFAULT_DELTA


def _convert_grid(delta: float) -> None:
    """The unit radio changed: the grid box keeps the same budgets, written in the new unit."""
    new = st.session_state["rn_sweep_unit"]
    S["rn_sweep_grid"] = st.session_state["rn_sweep_grid"] = ui.convert_sweep_grid(
        st.session_state["rn_sweep_grid"], S.get("rn_sweep_unit", "rho"), new, delta)
    S["rn_sweep_unit"] = new


s0, s1, s2 = st.columns([1, 2, 1])
seed_widget("rn_sweep_unit", S["rn_sweep_unit"])  # bound to the Runner's settings (studio.state's model)
s0.radio("Grid given as", list(ui.SWEEP_UNITS), format_func=lambda k: ui.SWEEP_UNITS[k], key="rn_sweep_unit",
         disabled=lock, on_change=_convert_grid, args=(_sweep_delta,),
         help="ε at the run's δ (exact Gaussian curve, the sweep's ε axis) or zCDP ρ; switching rewrites the grid "
              "in the other unit")
s1.text_input("Budget grid", key="rn_sweep_grid", disabled=lock,
              help="budgets separated by commas, in the unit chosen (ε like 0.05, 0.1, 0.5; ρ like 1e-4, 1e-3)")
s2.number_input("Paired seeds per budget", key="rn_sweep_seeds", step=1, disabled=lock)
S["rn_sweep_grid"] = st.session_state["rn_sweep_grid"]
S["rn_sweep_unit"] = st.session_state["rn_sweep_unit"]
S["rn_sweep_seeds"] = st.session_state["rn_sweep_seeds"]
st.button("Run budget sweep", key="rn_sweep_btn", on_click=_start, args=("sweep",), disabled=lock)
sweep_status = st.container()
sweep = st.session_state.get("runner_sweep")
if sweep:
    res = sweep["result"]
    if sweep["studio_version"] != studio.version:
        st.warning("This sweep was computed on an earlier dataset or policy.")
    tab = res.table()
    st.dataframe(ui.styled(tab, {c: ".4g" for c in tab.columns},
                           na={c: ui.NA_CI for c in tab.columns if "ci_" in c}), hide_index=True,
                 placeholder=ui.NA_CI)
    flow.verdict_banner(sweep_verdict_from_result(res))
    chart_with_table(sweep_figure(res), sweep_frame(res), key="rn_sweep_fig")
    x1, x2 = st.columns(2)
    x1.metric("Crossing budget rho", "none on this grid" if res.crossing_rho is None else f"{res.crossing_rho:.4g}")
    x2.metric("Crossing epsilon (exact)", fmt_crossing(res.crossing_epsilon_exact),
              help=None if res.crossing_epsilon_exact is None else f"ε = {res.crossing_epsilon_exact:.4g} exactly")
    st.caption(res.crossing_text())


# ------------------------------------------------------------------ actions (last, so results stay on screen)
def do_run() -> None:
    try:
        req = ui.build_request(studio, ui.session_budget_settings(ui.run_inputs(st.session_state, S), budget_view))
    except BlowfishError as e:
        _finish("Run", "failed", f"Cannot run: {e}")
    fp = ui.fingerprint(req, studio.version, studio.dataset_name)
    same = ui.find_identical(store, fp)
    if same is not None:
        st.session_state["runner_show_next"] = same["id"]
        st.session_state["runner_stop"] = False
        st.session_state["rn_busy"] = st.session_state["rn_armed"] = None
        _pin_inputs()
        st.rerun()
    next_id = int(st.session_state.get("runner_next_id", 1))
    # live progress (issue 24): the run works in a thread, the box redraws every half second
    clock = ProgressClock(run_plan(list(req.methods), list(req.seeds), req.config.rounds, round_errors=True))
    scratch: dict = {}  # the worker stores here; the record joins the session's only if this thread goes on
    with RunStatus("Run", status) as rs:
        try:
            rec = run_with_clock(lambda progress, stop: ui.execute_run(scratch, next_id, req, studio,
                                                                      progress=progress, should_stop=stop),
                                 clock, lambda snap: rs.show(snap, current_text(snap)), _should_stop)
            ui.keep_record(store, rec)
        except RunStopped:
            st.session_state["runner_stop"] = False
            _finish("Run", "stopped", "Run stopped. Nothing partial was kept; the results below are from earlier "
                    "runs.", rs.elapsed)
        except (BlowfishError, ValueError) as e:
            _finish("Run", "failed", f"Run failed: {e}. Earlier results are unchanged.", rs.elapsed)
        rs.done()
    st.session_state["runner_next_id"] = next_id + 1
    st.session_state["runner_show_next"] = rec["id"]
    st.session_state["rn_busy"] = st.session_state["rn_armed"] = None
    _pin_inputs()
    st.rerun()


def do_sweep() -> None:
    try:
        S2 = ui.session_budget_settings(ui.run_inputs(st.session_state, S), budget_view)
        delta = check_delta(S2["rn_delta"])
        rhos = ui.sweep_rhos(S2["rn_sweep_grid"], S2.get("rn_sweep_unit", "rho"), delta)
        seeds = ui.seeds_from_inputs(S2["rn_sweep_seeds"], S2["rn_first_seed"])
        cfg = ui.config_from_inputs(S2)
        if not getattr(studio, "has_rows", len(studio.private) > 0):
            raise BlowfishError("the private table has no rows. Fix: load the table in the Policy Designer")
    except BlowfishError as e:
        _finish("Budget sweep", "failed", f"Cannot run the sweep: {e}")
    clock = ProgressClock(sweep_plan([f"ρ = {fmt_sig(r, 2)} ({k} of {len(rhos)})" for k, r in enumerate(rhos, 1)],
                                     [HARD.name, BF_SOFT.name], seeds, cfg.rounds))
    metric = studio.metric_fn()
    with RunStatus("Budget sweep", status) as rs:
        try:
            res = run_with_clock(lambda progress, stop: budget_sweep(
                studio.schema, studio.policy, studio.private, rhos, float(S2["rn_tau"]), seeds, cfg, metric, delta,
                data_source=studio.dataset_name, progress=progress, should_stop=stop),
                clock, lambda snap: rs.show(snap, current_text(snap)), _should_stop)
        except RunStopped:
            st.session_state["runner_stop"] = False
            _finish("Budget sweep", "stopped", "Sweep stopped. Nothing partial was kept.", rs.elapsed)
        except (BlowfishError, ValueError) as e:
            _finish("Budget sweep", "failed", f"Sweep failed: {e}. Earlier results are unchanged.", rs.elapsed)
        rs.done()
    st.session_state["runner_sweep"] = {"result": res, "studio_version": studio.version}
    st.session_state["rn_busy"] = st.session_state["rn_armed"] = None
    _pin_inputs()
    st.rerun()


if busy and not lock:  # the click's run: inputs are committed; rerun with them locked, then work
    st.session_state["rn_armed"] = True
    _pin_inputs()
    st.rerun()
if run_clicked:
    do_run()
elif sweep_clicked:
    do_sweep()
elif st.session_state.get("runner_stop"):
    st.session_state["runner_stop"] = False
    status.warning("Stopped. Nothing partial was kept; the results below are from earlier runs.")
