"""The Policy step: policy graph per attribute -> live read-outs -> import/export of the CLI's JSON.

The data section (studio.data_ui, the Data step's page pages/data.py) is drawn first: collapsed
under the router (the Policy step), open when the page runs on its own (AppTest), which also adds
a "make a release" section at the end (in the flow that is the Release step's).

Thin page: widgets and plots only.  Reading, inference and validation are in
blowfish_core (through studio.data_source); every number shown comes from
blowfish_core.analysis.readouts.policy_readout / pair_path; graph layouts from blowfish_core.analysis.graphs.
Loads and imports run in widget callbacks and only replace the shared state on
success, so a failed upload or import leaves the data, schema and policy as they were.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

import blowfish_core as bc
from blowfish_core.analysis.readouts import pair_path, policy_readout
from blowfish_core.synthesis.gate import GateError
from blowfish_core.synthesis.report import ledger_text
from blowfish_core.model.schema import _fmt
from blowfish_core.workflows.verdicts import policy_verdict
from blowfish_core.workflows.formatting import fmt_delta
from studio import data_source as ds
from studio import data_ui
from studio import flow
from studio import widgets as w
from studio import release_ui as rel
from studio.budget_ui import budget_control, session_view
from studio.bundle_ui import release_request
from studio.plots import chart_with_table
from studio.run_ui import ROUNDS_LABEL, rounds_input, session_rounds
from studio.data_ui import SCHEMA_REV, flash, show_flash
from studio.state import TAU_KEY, get_studio, get_tau, on_tau_change, seed, session_budget, set_studio

st.set_page_config(page_title="Policy Designer · Blowfish Studio", layout="wide")

TAU_GRID = sorted({round(m * 10.0 ** e, 10) for e in (-3, -2, -1) for m in (1, 1.5, 2, 3, 4, 5, 6, 8)} | {1.0})


def _apply_schema_text(text: str, name: str) -> None:
    try:
        new, notes = ds.with_schema(get_studio(), ds.schema_from_json(text))
    except bc.BlowfishError as e:
        flash("import", "error", f"Schema not applied ({name}): {e}")
        return
    set_studio(new)
    w.reset_policy_widgets()
    st.session_state[SCHEMA_REV] = st.session_state.get(SCHEMA_REV, 0) + 1
    for n in notes:
        flash("import", "info", n)
    flash("import", "success", f"Schema applied from {name}.")


def _apply_policy_text(text: str, name: str) -> None:
    try:
        new = ds.with_policy(get_studio(), ds.policy_from_json(text))
    except bc.BlowfishError as e:
        flash("import", "error", f"Policy not applied ({name}): {e}")
        return
    set_studio(new)
    w.reset_policy_widgets()
    flash("import", "success", f"Policy applied from {name}.")


def on_import_file(what: str) -> None:
    f = st.session_state.get(f"designer:import:{what}")
    if f is None:
        return
    try:
        text = f.getvalue().decode("utf-8")
    except UnicodeDecodeError:
        flash("import", "error", f"{what.capitalize()} not applied ({f.name}): the file is not UTF-8 text")
        return
    (_apply_schema_text if what == "schema" else _apply_policy_text)(text, f.name)


def on_apply_json(what: str) -> None:
    text = st.session_state.get("designer:json_text", "") or ""
    (_apply_schema_text if what == "schema" else _apply_policy_text)(text, "pasted JSON")


def on_load_policy(which: str) -> None:
    studio = get_studio()
    if which == "clear":
        new = bc.Policy()
    else:
        p = bc.get_preset(studio.preset)
        new = bc.Policy(p.table3) if which == "table3" else p.default_policy()
        new = bc.Policy.from_dict(new.to_dict())  # a fresh copy
    try:
        set_studio(ds.with_policy(studio, new))
    except bc.BlowfishError as e:
        flash("policy", "error", str(e))
        return
    w.reset_policy_widgets()


# ======================================================================= page
studio = get_studio()
st.title("Policy Designer")
st.caption("Declare the public domain, draw a Blowfish policy graph per attribute, and see at once what it buys: "
           "reach, the noise ratio q, the noise per method, and what stays unprotected. Nothing here looks at "
           "private records: every number depends only on the schema, the policy, tau and the budget.")

# ---------------------------------------------------------------- 1. data
_data_box = flow.section_start("data", studio.dataset_name)
studio = data_ui.data_section()
flow.section_end(_data_box, "data")
# -------------------------------------------------------------- 2. policy
st.header("2 · Policy")
flow.tutorial("A policy graph per attribute says which values must stay indistinguishable. The smaller the "
              "largest protected distance (the reach), the less noise BF-Soft needs.")
show_flash("policy")
t3 = bc.get_preset(studio.preset).table3 if studio.preset else None
b1, b2, b3 = st.columns(3)
b1.button("Load preset policies (Table 3, all attributes)", key="designer:load_t3", disabled=t3 is None,
          on_click=on_load_policy, args=("table3",),
          help="The paper's Table 3 graph on every attribute of the preset.")
b2.button("Paper default (protect one attribute)", key="designer:load_default", disabled=t3 is None,
          on_click=on_load_policy, args=("default",), help="Age on Adult/Bank, X_1 on XOR-3 (§6.1).")
b3.button("Clear policy", key="designer:clear", on_click=on_load_policy, args=("clear",))

left, right = st.columns([4, 7], gap="medium")
with left:
    policy, errors = w.policy_editor(studio, t3)
    if errors:
        st.warning("The read-outs show the last valid policy until the error above is fixed.")
    elif policy.to_dict() != studio.policy.to_dict():
        studio = ds.with_policy(studio, policy)
        set_studio(studio)

# ----------------------------------------------------------- 3. read-outs
with right:
    st.subheader("Live read-outs")
    grid = sorted(set(TAU_GRID) | {get_tau()})  # the session's tau is always one of the options
    tau = st.select_slider("Temperature tau (Gower units, log scale)", options=grid, key=TAU_KEY,
                           format_func=lambda t: f"{t:g}", on_change=on_tau_change, args=("Policy",))
    verdict = None
    try:
        verdict = policy_verdict(studio.schema, studio.policy, float(tau))
        flow.verdict_banner(verdict)
    except bc.BlowfishError as e:
        st.error(str(e))

    view = budget_control(studio, "designer", rounds=session_rounds(st.session_state))
    rounds_input(budget=session_budget(studio), show_error=True)  # the one T (the Run step shows the same)
    flow.tutorial("ε is the privacy budget of the whole run: smaller is more private and noisier. The noise per "
                  "round below splits it over the T rounds.")
    if view is not None and view.rho is not None:
        ro = policy_readout(studio.schema, studio.policy, tau, rho=view.rho, delta=view.delta, rounds=view.rounds)
    else:
        ro = policy_readout(studio.schema, studio.policy, tau)
    st.session_state["designer:readout"] = ro  # unrounded numbers (tests, other pages)

    m = st.columns(3)
    m[0].metric("Record-level reach", w.fmt_reach(ro["reach"]),
                help=f"r = max_i w_i r_i = {ro['reach']!r} (Cor. 5.2: a max over attributes, not a sum)")
    m[1].metric("Noise ratio q", w.fmt_q(ro["q"]),
                help=f"q = tanh(r / (2 tau)) = {ro['q']!r}: BF-Soft's noise is q times Hard's worst case (Cor. 5.5)")
    m[2].metric("BF-Soft sensitivity bound", w.fmt_num(ro["bound"]),
                help="sqrt(2) tanh(r / (2 tau)), valid for every candidate population (Cor. 5.5)"
                + ("; participation edges floor it at 1 (§5.6)" if ro["participation"] else ""))
    m = st.columns(3)
    top = ro["argmax_all"]
    m[0].metric("Set by attribute", (top[0] + (f" +{len(top) - 1}" if len(top) > 1 else "")) if top else "—",
                help="the attribute(s) attaining the max of w_i r_i (red in the bar chart): "
                + (", ".join(top) if top else "nothing is protected"))
    m[1].metric("Budget multiplier 1/q²", w.fmt_num(ro["multiplier"]) + ("" if ro["q"] == 0 else "×"),
                help="BF-Soft at budget ρ adds the noise Hard adds at ρ / q²: Hard would need this many "
                "times the budget for the same noise (equivalent_budget_multiplier).")
    m[2].metric("q at standard DP", w.fmt_q(ro["q_standard_dp"]),
                help="the soft vote under standard DP protects every pair: reach = the whole Gower diameter "
                f"({ro['standard_dp_reach']:g})")
    if ro["budget"] is not None:
        b = ro["budget"]
        s = ro["sigma"]
        m = st.columns(3)
        m[0].metric("σ per round: Tab-PE", w.fmt_num(s["tab-pe"]), help="Δ = sqrt(2) (bounded DP)")
        m[1].metric("σ per round: Hard", w.fmt_num(s["hard"]),
                    help="worst case: Δ = sqrt(2) unless an exhaustive search certifies 0 for the population at "
                    "hand (Cor. 5.3)")
        m[2].metric("σ per round: BF-Soft", w.fmt_num(s["bf-soft"]), help="Δ = the bound above")
        st.caption("σ in vote-count units per round, σ_t = Δ_t / sqrt(2 ρ_t) (Thm 2.6); Hard shown at its worst "
                   "case √2 — the Synthesis Runner certifies the actual Δ_t round by round.")
    chart_with_table(w.reach_bar_figure(ro), pd.DataFrame(
        {"attribute": list(ro["per_attribute"]), "weighted reach (Gower units)": list(ro["per_attribute"].values()),
         "sets the reach": [n in ro["argmax_all"] for n in ro["per_attribute"]]}),
        key="designer:reach_fig", config={"displayModeBar": False})
    chart_with_table(w.q_curve_figure(ro), pd.DataFrame(
        {"tau": ro["curve"]["tau"], "q (this policy)": ro["curve"]["q"],
         "q (standard DP)": ro["curve"]["q_standard_dp"]}),
        key="designer:q_fig", config={"displayModeBar": False})

    st.subheader("What the policy leaves open")
    # the red verdict above already says "protects nothing": its read-out warning is not shown again (issue 27)
    said = {"no-protection"} if verdict is not None and verdict.level == "bad" and ro["reach"] == 0 else set()
    for item in ro["warnings"]:
        if item["kind"] not in said:
            (st.warning if item["severity"] == "warning" else st.info)(item["message"])
    if not ro["warnings"]:
        st.success("No warning: every attribute is protected below its diameter and the graphs are connected.")

    st.subheader("Group privacy of two values")
    names = studio.schema.names
    pk = "designer:pair_attr"
    if st.session_state.get(pk) not in names:
        st.session_state[pk] = ro["argmax"] or names[0]
    attr = st.selectbox("Attribute", names, key=pk)
    a = studio.schema[attr]
    c1, c2 = st.columns(2)
    # keys carry the attribute's domain, so a new dataset with the same column name starts afresh
    sig = f"{a.lo}:{a.hi}" if a.bounded else str(abs(hash(tuple(_fmt(x) for x in a.domain_values()))))
    if a.bounded:
        ukey, vkey = f"designer:pair_u:{attr}:{sig}", f"designer:pair_v:{attr}:{sig}"
        if a.integer:  # whole values (age 35, not 35.25), whole steps
            lo_i, hi_i = math.ceil(a.lo), math.floor(a.hi)
            st.session_state.setdefault(ukey, int(lo_i))
            st.session_state.setdefault(vkey, int(lo_i + (hi_i - lo_i) // 4))
            u = c1.number_input(w.with_unit("u", a.threshold_unit), key=ukey, step=1)
            v = c2.number_input(w.with_unit("v", a.threshold_unit), key=vkey, step=1)
        else:
            st.session_state.setdefault(ukey, float(a.lo))
            st.session_state.setdefault(vkey, float(a.lo + (a.hi - a.lo) / 4))
            u = c1.number_input(w.with_unit("u", a.threshold_unit), key=ukey, format="%g")
            v = c2.number_input(w.with_unit("v", a.threshold_unit), key=vkey, format="%g")
    else:
        labels = [_fmt(x) for x in a.domain_values()]
        by = dict(zip(labels, a.domain_values()))
        u = by[c1.selectbox("u", labels, index=0, key=f"designer:pair_u:{attr}:{sig}")]
        v = by[c2.selectbox("v", labels, index=len(labels) - 1, key=f"designer:pair_v:{attr}:{sig}")]
    b = ro["budget"]
    try:
        pp = pair_path(studio.schema, studio.policy, attr, u, v,
                       rho=b["rho"] if b else None, epsilon=b["epsilon_exact"] if b else None,
                       delta=b["delta"] if b else None)
    except bc.BlowfishError as e:
        st.error(str(e))
    else:
        st.session_state["designer:pair"] = pp
        # the valid figures for this (Gaussian, zCDP) release first: ρ' = l²ρ and its (ε, δ)
        at_delta = f" at δ = {fmt_delta(b['delta'])}" if b else ""
        m = st.columns(4)
        m[0].metric("Path length l", "no path" if pp["length"] is None else str(pp["length"]),
                    help="fewest protected edges joining u and v; 'no path': different components, not protected")
        m[1].metric("ρ′ = l²·ρ (zCDP)", "—" if pp["rho_pair"] is None else f"{pp['rho_pair']:.3g}",
                    help="group privacy of this release for the pair u, v (zCDP composes over the l edges)")
        m[2].metric("ε′ exact", w.fmt_eps(pp["epsilon_exact_pair"]),
                    help=f"(ε, δ) of ρ′ on the exact Gaussian curve{at_delta}: the pair's guarantee for this run")
        m[3].metric("ε′ Eq. (1)", w.fmt_eps(pp["epsilon_eq1_pair"]),
                    help=f"ρ′ + 2 sqrt(ρ′ ln(1/δ)){at_delta}: the paper's conversion (looser)")
        (st.warning if not pp["connected"] else st.caption)(pp["message"])
        if pp["epsilon_pair"] is not None and pp["length"]:
            st.caption(f"Pure-DP reading, for comparison only: l·ε = {pp['length']} × {w.fmt_eps(b['epsilon_exact'])} "
                       f"= {w.fmt_eps(pp['epsilon_pair'])}. This applies only to a pure ε-DP mechanism (e.g. a "
                       "Laplace variant of the vote), not to this Gaussian (zCDP) release — use ε′ above.")

# --------------------------------------------------------- import / export
st.header("3 · Import and export (the CLI's JSON)")
show_flash("import")
with st.expander("Schema and policy files", expanded=False):
    st.caption("The same files `python -m blowfish_core reach|synth --schema schema.json --policy policy.json` reads.")
    e1, e2 = st.columns(2)
    e1.download_button("Download schema.json", studio.schema.to_json(), file_name="schema.json",
                       mime="application/json", key="designer:dl_schema", on_click="ignore")
    e2.download_button("Download policy.json", studio.policy.to_json(), file_name="policy.json",
                       mime="application/json", key="designer:dl_policy", on_click="ignore")
    e1.file_uploader("Import a schema JSON", type=["json"], key="designer:import:schema",
                     on_change=on_import_file, args=("schema",))
    e2.file_uploader("Import a policy JSON", type=["json"], key="designer:import:policy",
                     on_change=on_import_file, args=("policy",))
    st.text_area("…or paste JSON", key="designer:json_text", height=140)
    j1, j2 = st.columns(2)
    j1.button("Apply as schema", key="designer:apply_schema", on_click=on_apply_json, args=("schema",))
    j2.button("Apply as policy", key="designer:apply_policy", on_click=on_apply_json, args=("policy",))


# --------------------------------------------------------- 4. make a release (issue 11)
if flow.current_step() == "Policy_Designer":  # in the flow, the release is the Release step's
    st.divider()
    flow.link("Release", label="Next: Tune τ and Run, then make the release on the Release step")
    flow.stop()
RELEASE = "designer:release"
st.header("4 · Make a release")
st.caption("An unseeded release: randomness from the operating system, noise from OpenDP's floating-point-safe "
           "samplers (the discrete Gaussian for hard votes). Nothing about the randomness is recorded except "
           "“unseeded, OS entropy, sampler opendp” (“sampler exact” for PubMix/LinMix, whose draws are exact). "
           "The bundle holds only what may be published.")


# the form shows and spends the session's settings (issue 24, one key per setting): the budget chosen
# above (studio.extras["budget"]: the ε chosen is the ε spent), the one release size (runner_settings
# ["rn_release"], the Run and Release steps' too) and the release method (release_choice, bound as on the
# Release step; before a run it offers every method the form can release, the flow's first)
_opts = rel.release_options(st.session_state, studio)
if _opts.ranking is None:
    _opts = rel.ReleaseOptions(tuple(dict.fromkeys((_opts.default, *ds.RELEASE_METHODS))), _opts.default)
seed(rel.METHOD_KEY, rel.chosen_method(st.session_state, _opts))
seed(rel.SIZE_KEY, rel.release_size(st.session_state))


def on_make_release() -> None:
    ss = st.session_state
    studio_now = get_studio()
    if f"{RELEASE}:allow_data_domain" in ss:  # its on_change may run after this callback
        rel.keep_allow(f"{RELEASE}:allow_data_domain")
    try:
        req, settings = release_request(ss, studio_now, rel.chosen_method(ss, _opts))
        res = ds.make_release(studio_now, settings.methods[0], float(settings.rho if settings.rho is not None
                                                                     else req.rho),
                              int(settings.config.rounds), int(settings.config.release),
                              allow_data_domain=rel.allow_data_domain(studio_now))
    except GateError as e:  # the gate's refusal, naming this app's controls
        flash("release", "error", f"No release made: {e.render('app')}")
        ss.pop(RELEASE, None)
        return
    except bc.BlowfishError as e:
        flash("release", "error", f"No release made: {e}")
        ss.pop(RELEASE, None)
        return
    ss[RELEASE] = res


show_flash("release")
r1, r2, r3, r4 = st.columns(4)
r1.selectbox("Method", list(_opts.methods), key=rel.METHOD_KEY, format_func=_opts.label,
             on_change=lambda: rel.choose_method(st.session_state, _opts, st.session_state[rel.METHOD_KEY]))
_view = session_view(studio, rounds=session_rounds(st.session_state))
r2.metric("Release spends", _view.label if _view else "—",
          help="the session's budget (the budget control above): the release spends it")
r3.metric(ROUNDS_LABEL, session_rounds(st.session_state), help="the session's T (the box above)")
r4.number_input("Released records", min_value=1, max_value=100_000, step=1, key=rel.SIZE_KEY,
                on_change=lambda: rel.set_release_size(st.session_state, int(st.session_state[rel.SIZE_KEY])),
                help="the one release size (the Run and Release steps show the same)")
if studio.schema.data_derived:
    seed(f"{RELEASE}:allow_data_domain", bool(studio.extras.get("allow_data_domain")))
    st.checkbox("Release with a domain read from the private data (NOT differentially private)",
                key=f"{RELEASE}:allow_data_domain", on_change=rel.keep_allow, args=(f"{RELEASE}:allow_data_domain",))
st.button("Make a release", key=f"{RELEASE}:go", type="primary", on_click=on_make_release,
          disabled=not studio.has_rows, help=None if studio.has_rows else "needs the private table")
made = st.session_state.get(RELEASE)
if made is not None:
    pub, internal = made.public_report, made.eval_report
    st.success(f"Release made ({pub['randomness']}).")
    st.code(ledger_text(pub), language=None)
    st.download_button("Download the release bundle (zip: CSV, schema, policy, budget, ledger)", ds.bundle_zip(made),
                       file_name="release_bundle.zip", mime="application/zip", key=f"{RELEASE}:dl",
                       on_click="ignore")
    with st.expander(internal["label"], expanded=False):
        st.warning(internal["label"])
        m = internal["metric"]["name"]
        if internal["metric"].get("skipped"):  # one modelled column: PWErr skipped (issue 27)
            st.info(internal["metric"]["skipped"])
        st.json({"n_unique": internal["n_unique"], m: internal["runs"][0][m],
                 "seconds": internal["seconds_total"]})
