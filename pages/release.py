"""Release: the last step of the flow — budget, verdict, ledger in words, the release, then the study bundle.

After a release of a method that releases some marginals exactly (bf-mst), the verdict
verdicts.exact_release_verdict and the ledger text name them (issue 25).

Gated like DP Wizard's download: nothing is offered until the schema (a table with rows), a
policy that protects something and a budget are set (studio.flow.release_missing).  Every
number comes from the engine: blowfish_core.workflows.budget (the one epsilon), verdicts.policy_verdict,
ranking.ranking_verdict_from_report (the last run's methods ranked), report.ledger_text,
run_bundle.planned_total / bundle_zip / cli_command, release_words (rows in words).  The method to
release is any private method of the last run, the lowest-error one by default (studio.release_ui).
"Make a release" (the primary button) comes first; the seeded study bundle and its CLI command sit
below it, named and labelled "for study, not for publication", behind a plain button (issue 24).
"""

from __future__ import annotations

import streamlit as st

from blowfish_core.workflows.budget import describe_epsilon
from blowfish_core.base.errors import BlowfishError
from blowfish_core.synthesis.report import ledger_text
from blowfish_core.interfaces.run_bundle import bundle_zip, cli_command, planned_report, planned_total
from blowfish_core.algorithm.methods import get_method
from blowfish_core.workflows.ranking import ranking_verdict_from_report
from blowfish_core.workflows.release_words import total_label
from blowfish_core.workflows.verdicts import exact_release_verdict, policy_verdict, run_verdict_from_report
from studio import data_source as ds
from studio import flow
from studio import release_ui as rel
from studio.budget_ui import session_view
from studio.bundle_ui import release_request
from blowfish_core.synthesis.gate import NOT_DP_LABEL, GateError, total_text
from studio.state import get_studio, get_tau, seed

st.set_page_config(page_title="Release · Blowfish Studio", layout="wide")

#: what the seeded bundle is (issue 24: named and labelled as a study bundle, below the release action).
STUDY_LABEL = "seeded: for study, not for publication"
STUDY_FOLDER = "blowfish_study_bundle"


def flow_method_label(settings) -> str:
    """'BF-Soft at τ = 0.03' / 'Hard' / 'MST'."""
    label = get_method(settings.methods[0]).short_label
    return label + (f" at τ = {settings.tau:g}" if settings.tau is not None else "")


studio = get_studio()
st.title("Release")
st.caption("What a data owner signs off: the privacy budget in one number, what the policy buys, the privacy "
           "ledger in words, the release to publish, and below it a seeded study bundle that reruns the settings "
           "anywhere (schema, policy, run.py, run.sh, run.ipynb).")
flow.tutorial("The Release step collects the choices of the earlier steps. Nothing here reads more private data "
              "than the run itself; the bundle holds no private rows, only the settings and the ledger.")

missing = flow.release_missing(studio, st.session_state)
if missing:
    st.warning("The release is not ready yet. Missing: " + "; ".join(missing) + ".")
    if flow.current_step():  # under the router: a link to each step that still has something to do
        todo = ["Data"] if any("table" in m for m in missing) else []
        todo += ["Policy_Designer"] if any("policy" in m or "budget" in m for m in missing) else []
        for key in todo:
            flow.link(key, label=f"Go to the {flow.step(key).title} step")
    flow.stop()

options = rel.release_options(st.session_state, studio)
st.session_state[rel.METHOD_KEY] = rel.chosen_method(st.session_state, options)
st.session_state[rel.SIZE_KEY] = rel.release_size(st.session_state)
try:
    req, settings = release_request(st.session_state, studio, st.session_state[rel.METHOD_KEY])
except BlowfishError as e:
    st.error(f"Release settings: {e}")
    flow.stop()

view = session_view(studio, rounds=settings.config.rounds)
st.subheader("Privacy budget")
c1, c2 = st.columns([1, 2])
c1.metric("Privacy guarantee", view.label if view else "—", help=view.tooltip if view else None)
if view:
    c2.caption(describe_epsilon(view.epsilon, view.delta))
if view and view.warning:
    st.warning(view.warning)

st.subheader("What the policy buys")
try:
    flow.verdict_banner(policy_verdict(studio.schema, studio.policy, get_tau()))
except BlowfishError as e:
    st.error(f"Policy: {e}")

last = rel.last_run(st.session_state, studio)
if last is not None:
    v = ranking_verdict_from_report(last["report"]) or run_verdict_from_report(last["report"])
    if v is not None:
        st.markdown(f"**Last run (#{last['id']})**")
        flow.verdict_banner(v)

st.subheader("What is released")


def _choose() -> None:
    rel.choose_method(st.session_state, options, st.session_state[rel.METHOD_KEY])


def _resize() -> None:
    rel.set_release_size(st.session_state, int(st.session_state[rel.SIZE_KEY]))


w1, w2 = st.columns([2, 1])
w1.selectbox("Method to release", list(options.methods), key=rel.METHOD_KEY, format_func=options.label,
             on_change=_choose,
             help=("Every private method of the last run, lowest mean error first (the default). Analysis-only "
                   "methods are never offered." if options.ranking is not None else
                   "Run the comparison on the Run step to choose among its private methods (the lowest-error one "
                   "is then the default)."))
w2.number_input("Release size (rows)", min_value=1, step=1, key=rel.SIZE_KEY, on_change=_resize,
                help="The rows of the synthetic table (the Run step's release size: one setting).")
st.markdown(rel.rows_text(studio, int(settings.config.release)))
try:
    release_total = planned_total(settings)
except BlowfishError as e:
    st.error(f"Release settings: {e}")
    flow.stop()

st.subheader("Privacy ledger in words")
st.code(total_text(release_total, 1) + "\n" + ledger_text(planned_report(settings)), language=None,
        wrap_lines=True)
st.caption("The ledger of the release below (method "
           + ", ".join(settings.methods) + (f", τ = {settings.tau:g}" if settings.tau else "") + "): paste it into a "
           "release note.")

st.subheader("Make a release")
st.caption("An unseeded release of the settings above: randomness from the operating system, noise from OpenDP's "
           "floating-point-safe samplers (the discrete Gaussian for hard votes), soft votes in float64 (study runs use "
           "float32 tiles); nothing about the randomness is "
           "recorded except “unseeded, OS entropy, sampler opendp” (“sampler exact” for PubMix/LinMix, whose draws "
           "are exact). The release bundle holds only what may be "
           "published (release CSV, schema, policy, budget, ledger).")
flow.tutorial("'Make a release' draws fresh randomness: this is the table to publish. The study bundle below "
              "reruns a seeded study run anywhere (for study, not for publication). A method that releases some "
              "marginals exactly (bf-MST: a marginal no policy edge changes is not protected by the policy, so it "
              "gets no noise) names them after the release, in a verdict and in the ledger.")


if studio.schema.data_derived:
    seed(rel.ALLOW_KEY, bool(studio.extras.get("allow_data_domain")))
    st.checkbox("Release with a domain read from the private data (NOT differentially private)",
                key=rel.ALLOW_KEY, on_change=rel.keep_allow,
                help="The bounds and levels of " + ", ".join(studio.schema.data_derived_columns or ["some columns"])
                     + " were read off the private table: publishing them leaks the records. Declare them on the "
                       "Data step (type public bounds or levels, or tick 'declared public') to make a DP release.")


def _make_release() -> None:
    if rel.ALLOW_KEY in st.session_state:  # its on_change may run after this callback
        rel.keep_allow()
    try:
        st.session_state["release:result"] = ds.make_release(
            studio, settings.methods[0], float(settings.rho if settings.rho is not None else req.rho),
            int(settings.config.rounds), int(settings.config.release),
            allow_data_domain=rel.allow_data_domain(studio))
        st.session_state.pop("release:error", None)
    except GateError as e:  # the gate's refusal, naming this app's controls
        st.session_state["release:error"] = f"No release made: {e.render('app')}"
        st.session_state.pop("release:result", None)
    except BlowfishError as e:
        st.session_state["release:error"] = f"No release made: {e}"
        st.session_state.pop("release:result", None)


st.button(f"Make a release ({flow_method_label(settings)}, {total_label(release_total)})", key="release:make",
          type="primary", on_click=_make_release)
if st.session_state.get("release:error"):
    st.error(st.session_state["release:error"])
made = st.session_state.get("release:result")
if made is not None:
    pub, internal = made.public_report, made.eval_report
    if pub["label"] == NOT_DP_LABEL:
        st.error(f"Release made, but {NOT_DP_LABEL}.")
    else:
        st.success(f"Release made ({pub['randomness']}).")
    exact = exact_release_verdict(pub)  # bf-mst: what is released exactly, in the ledger's words (issue 25)
    if exact is not None:
        flow.verdict_banner(exact)
    st.code(ledger_text(pub), language=None, wrap_lines=True)
    st.download_button("Download the release bundle (zip: CSV, schema, policy, budget, ledger)", ds.bundle_zip(made),
                       file_name="release_bundle.zip", mime="application/zip", key="release:dl", on_click="ignore")
    with st.expander(internal["label"], expanded=False):
        st.warning(internal["label"])
        m = internal["metric"]["name"]
        if internal["metric"].get("skipped"):  # one modelled column: PWErr skipped (issue 27)
            st.info(internal["metric"]["skipped"])
        st.json({"n_unique": internal["n_unique"], m: internal["runs"][0][m], "seconds": internal["seconds_total"]})

st.divider()
st.subheader(f"Study bundle ({STUDY_LABEL})")
st.caption("A seeded rerun of these settings anywhere, for study and review: the same release byte for byte from "
           "run.sh (the CLI), run.py (the Python API) and run.ipynb (a notebook). A known seed lets anyone recompute "
           "the noise, so its release is never the one to publish: publish what 'Make a release' above gives. The "
           "private table is not included, and nothing computed on it is written into the bundle folder.")
st.download_button(f"Download the study bundle ({STUDY_LABEL})", bundle_zip(settings, folder=STUDY_FOLDER),
                   file_name=f"{STUDY_FOLDER}.zip", mime="application/zip", key="release:bundle", on_click="ignore",
                   type="tertiary",
                   help="schema.json, policy.json, run.py (Python API), run.sh (the CLI command), run.ipynb "
                        "(notebook), README.md (the ledger in words). Seeded: for study, not for publication.")
st.markdown("The exact CLI command of the study bundle (run.sh):")
st.code(cli_command(settings), language="bash", wrap_lines=True)
