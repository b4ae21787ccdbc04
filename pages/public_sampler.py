"""Public-aware sampler: release n_samples rows of a k-way marginal by PubMix / LinMix (papers/003).

Thin page: widgets -> blowfish_core.workflows.public_sampler.public_aware_sample -> metrics, plotly
figures and the download.  The dataset comes from the Policy Designer (get_studio):
XOR-3 by default (generated public rows), Adult/Bank with their held-out pilot split as
the public side, or an uploaded public CSV.  Two actions (issue 21): "Study preview (seeded)"
draws with numpy's sampler from the Seed and is labelled evolution.SEEDED_NOTE ("seeded: for
study, not for publication"); "Make a release" calls
blowfish_core.workflows.public_sampler.release_marginal_samples (release_gate.publish: OS entropy, the exact
integer sampler) and only its rows carry the gate's label.  Public rows held out of the sensitive
table are named as unprotected (release_gate.unprotected_text).  The TV comparison is computed on
private data and labelled "evaluation only".
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from blowfish_core.io.data import read_table
from blowfish_core.base.constants import DEFAULT_DELTA
from blowfish_core.base.errors import BlowfishError
from blowfish_core.algorithm.evolution import SEEDED_NOTE
from blowfish_core.workflows.public_sampler import EVALUATION_LABEL, public_aware_sample, release_marginal_samples
from blowfish_core.synthesis.gate import GateError, total_text, unprotected_text
from studio.budget_ui import DELTA_FORMAT
from studio import flow
from studio.plots import OKABE_ITO, log_axis
from studio.projector import for_projector, projector_toggle
from studio.state import get_studio

st.set_page_config(page_title="Public-aware Sampler · Blowfish Studio", layout="wide")

studio = get_studio()
has_rows = getattr(studio, "has_rows", len(studio.private) > 0)
DEFAULTS = {"ps_eps": 1.0, "ps_delta": DEFAULT_DELTA, "ps_n": 512, "ps_method": "PubMix", "ps_gamma": 0.0, "ps_seed": 0}
for _k, _v in DEFAULTS.items():
    st.session_state.setdefault(_k, _v)
names = studio.schema.names
if not set(st.session_state.get("ps_attrs", [])) <= set(names):
    st.session_state["ps_attrs"] = names[:2]
st.session_state.setdefault("ps_attrs", names[:2])

projector_toggle()
st.title("Public-aware sampler")
flow.tutorial("PubMix releases rows drawn from a mixture of the private histogram and a noise distribution "
              "built from public rows; beta, the mixing weight, is the smallest that makes a release from OS "
              "entropy (ε, δ)-DP. A seeded preview is for study only.")
st.caption(
    "Releases rows that follow the private table's counts over a few attributes: each released row is drawn "
    "from the private table or, with a small probability β, from noise built from public data. Only the rows are "
    "released. It opens on a seeded study preview of the dataset's own public rows; change the settings and press "
    "a button below."
)
with st.expander("In the paper's notation (papers/003)"):
    st.caption(
    "PubMix (papers/003, Alg. 1): n_samples rows drawn i.i.d. from (1 - beta) P_prv + beta P_nse, where P_prv is "
    "the private k-way marginal and P_nse a floor-raised public histogram (Remark 4.5; LinMix: uniform). beta is the "
    "exact minimum of Thm 4.1 under replace-one neighbours (n public). 'Make a release' draws from OS entropy with "
    "exact integer sampling through the release gate; 'Study preview (seeded)' uses the Seed and numpy's sampler: "
    "seeded: for study, not for publication. Only the rows are released: the mixture would reveal the private "
    "marginal."
    )

#: the takeaway and its picture, filled in below once a result exists: first thing on the page
summary_box = st.container()

# ------------------------------------------------------------------ inputs
st.header("Marginal, public data and budget")
st.multiselect("Attributes (k-way marginal over the schema's public bins)", names, key="ps_attrs")
pub_opts = (["Public rows of the dataset"] if studio.public is not None and len(studio.public) else []) + \
    ["Upload a public CSV"]
if st.session_state.get("ps_source") not in pub_opts:
    st.session_state["ps_source"] = pub_opts[0]
source = st.radio("Public side", pub_opts, key="ps_source", horizontal=True,
                  help="XOR: generated public rows; Adult/Bank: the held-out pilot split (disjoint from the "
                       "private rows); any dataset: a public CSV with the same columns")
public, public_note, held_out = None, "", 0
if source.startswith("Upload"):
    up = st.file_uploader("Public CSV (same columns, same public domain)", type=["csv"], key="ps_upload")
    if up is not None:
        try:
            public = read_table(up.getvalue(), name=up.name)
            public_note = f"uploaded {up.name} ({len(public):,} rows)"
        except BlowfishError as e:
            st.error(f"Public CSV: {e}")
else:
    public = studio.public
    public_note = f"{len(public):,} public rows of {studio.dataset_name} (disjoint from the private rows)"
    # a real table's pilot split (Adult/Bank) or the Pilot page's hold-out: rows of the sensitive table
    if studio.table_source in ("shared", "upload") or "holdout" in studio.extras:
        held_out = len(public)
        public_note = f"{held_out:,} held-out rows of {studio.dataset_name} (disjoint from the private rows)"
c1, c2, c3, c4 = st.columns(4)
c1.number_input("epsilon (nats)", key="ps_eps", format="%g", step=0.5)
c2.number_input("δ", key="ps_delta", format=DELTA_FORMAT, step=1e-6)
c3.number_input("n_samples (rows to release)", key="ps_n", step=64)
c4.number_input("Seed (study preview only)", key="ps_seed", step=1)
d1, d2 = st.columns(2)
d1.radio("Mechanism", ["PubMix", "LinMix"], key="ps_method", horizontal=True,
         help="LinMix: uniform noise (Cor. 4.6), no public data needed for the noise")
d2.number_input("gamma (TV radius of the public ball; 0 = mean pairwise TV of 5 public folds)", key="ps_gamma",
                format="%g", step=0.05, help="gamma affects utility only, never privacy (footnote 1)")
if public is not None:
    st.caption(f"Public side: {public_note}.")
if held_out:
    UNPROTECTED = unprotected_text(held_out, f"held out of {studio.dataset_name}") + "."
    st.warning(UNPROTECTED)
st.info("Releasing again spends the budget again: two batches of n_samples are not covered by one beta_min.")


def _inputs() -> dict:
    """The page's settings as keyword arguments (BlowfishError when nothing can be drawn)."""
    if not has_rows:
        raise BlowfishError(f"{studio.dataset_name} has no private rows loaded. Fix: load the table in the "
                            "Policy Designer")
    if public is None:
        raise BlowfishError("no public table. Fix: upload a public CSV with the same columns")
    g = st.session_state["ps_gamma"]
    return {"schema": studio.schema, "attrs": list(st.session_state["ps_attrs"]), "private_df": studio.private,
            "public_df": public, "epsilon": st.session_state["ps_eps"], "delta": st.session_state["ps_delta"],
            "n_samples": st.session_state["ps_n"], "method": st.session_state["ps_method"].lower(),
            "gamma": None if g == 0 else g}


b1, b2 = st.columns(2)
if b1.button("Make a release", type="primary", key="ps_release",
             help="OS entropy and exact integer sampling, through the release gate: the only publishable rows"):
    st.session_state.pop("ps_result", None)
    try:
        pub = release_marginal_samples(**_inputs(), unprotected_rows=held_out,
                                       unprotected_source=public_note if held_out else "")
        st.session_state["ps_result"] = {"res": pub.result, "version": studio.version, "publication": pub}
    except GateError as e:
        st.error(f"Not released: {e.render('app')}")
    except BlowfishError as e:
        st.error(f"Not released: {e}")
if b2.button("Study preview (seeded)", key="ps_run",
             help=f"numpy's sampler from the Seed: {SEEDED_NOTE}"):
    st.session_state.pop("ps_result", None)
    try:
        res = public_aware_sample(**_inputs(), seed=int(st.session_state["ps_seed"]))
        st.session_state["ps_result"] = {"res": res, "version": studio.version, "publication": None}
    except BlowfishError as e:
        st.error(f"No preview: {e}")

# The page opens on a result (issue 24): a seeded study preview of the current settings on the dataset's own
# public rows, drawn once per dataset (again when the dataset changes); the buttons replace it.
_prev = st.session_state.get("ps_result")
if (_prev is None and st.session_state.get("ps_auto") != studio.version) or \
        (_prev is not None and _prev.get("auto") and _prev["version"] != studio.version):
    st.session_state["ps_auto"] = studio.version
    try:
        st.session_state["ps_result"] = {"res": public_aware_sample(**_inputs(), seed=int(st.session_state["ps_seed"])),
                                         "version": studio.version, "publication": None, "auto": True}
    except BlowfishError as e:
        st.session_state.pop("ps_result", None)
        st.info(f"Nothing to preview yet: {e}.")

# ------------------------------------------------------------------ results
out = st.session_state.get("ps_result")
if out is None:
    st.stop()
res = out["res"]
pub = out.get("publication")
if out["version"] != studio.version:
    st.warning("These rows were drawn for an earlier dataset or schema.")
if pub is not None:
    st.header("Release")
    st.success(f"{pub.label}. {total_text(pub.total, len(pub.parts))}")
    for note in pub.notes:
        st.warning(note)
else:
    st.header("Study preview")
    st.warning(f"{SEEDED_NOTE}: drawn from Seed {int(st.session_state['ps_seed'])} with numpy's sampler; anyone "
               "who knows the seed can recompute these rows. Use 'Make a release' for rows to publish.")
with summary_box:
    # the one-line takeaway and its picture: what each released row is drawn from
    st.caption("From the release below." if pub is not None else f"From the study preview below ({SEEDED_NOTE}).")
    st.markdown(f"**Takeaway:** each of the {res.n_samples:,} rows is drawn from the private table with probability "
                f"{1 - res.beta:.1%} and from noise made of public data with probability {res.beta:.1%} (β). That small "
                f"share of noise is the whole price of ε = {res.epsilon:g} here; releasing more rows needs a larger share.")
    mix = go.Figure()
    mix.add_bar(y=["each released row"], x=[1 - res.beta], orientation="h", name="from the private table (1 − β)",
                marker_color=OKABE_ITO["blue"], text=[f"private table {1 - res.beta:.1%}"], textposition="inside")
    mix.add_bar(y=["each released row"], x=[res.beta], orientation="h", name="from public-data noise (β)",
                marker_color=OKABE_ITO["orange"])
    mix.update_layout(barmode="stack", height=190, margin=dict(l=10, r=10, t=30, b=10), showlegend=True,
                      xaxis=dict(title="share of the draws", range=[0, 1], tickformat=".0%"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0, traceorder="normal"))
    b_col, mix_col = st.columns([1, 3])
    b_col.metric("beta (mixing weight)", f"{res.beta:.6g}", help="β: the share of draws from public-data noise")
    mix_col.plotly_chart(for_projector(mix), use_container_width=True, key="ps_fig_mix")
st.dataframe(res.rows.head(200), use_container_width=True)
if pub is not None:
    st.download_button("Download the released rows (CSV)", res.rows.to_csv(index=False).encode(),
                       file_name=f"{res.method}_release.csv", mime="text/csv", key="ps_download")
else:
    st.download_button(f"Download the preview rows (CSV; {SEEDED_NOTE})", res.rows.to_csv(index=False).encode(),
                       file_name=f"{res.method}_study_preview_seeded.csv", mime="text/csv", key="ps_download")
details = st.expander("Details: β, the noise floor and the paper's figures")
with details:
    m2, m3, m4, m5 = st.columns(4)
    m2.metric("Noise floor min P_nse", f"{res.floor:.4g}")
    m3.metric("Cells d", f"{res.d:,}")
    m4.metric("Private rows n", f"{res.n:,}")
    m5.metric("gamma", f"{res.gamma:.3g}")
    st.caption(f"{res.method}: noise = {res.which} at floor t = {res.t:.4g}; gamma: {res.gamma_source}; "
               f"(epsilon, delta) = ({res.epsilon:g}, {res.delta:g}) for these {res.n_samples:,} rows"
               + (" (a release: exact sampler, OS entropy)." if pub is not None else f" ({SEEDED_NOTE})."))
    f1, f2 = st.columns(2)
    fig = go.Figure()
    if res.curve.get("pubmix") is not None:
        fig.add_scatter(x=res.curve["n_samples"], y=res.curve["pubmix"], mode="lines+markers",
                        name=f"PubMix floor {res.floor:.3g}")
    fig.add_scatter(x=res.curve["n_samples"], y=res.curve["linmix"], mode="lines+markers", name="LinMix floor 1/d")
    fig.add_vline(x=res.n_samples, line_dash="dot")
    fig.update_layout(title="beta_min vs n_samples (Fig. 2 analogue)", xaxis_title="n_samples",
                      yaxis_title="beta_min", height=360)
    log_axis(fig, res.curve["n_samples"])
    f1.plotly_chart(for_projector(fig), use_container_width=True)
    fig = go.Figure()
    fig.add_bar(x=list(range(res.d)), y=res.p_public, name="public histogram", opacity=0.6)
    fig.add_bar(x=list(range(res.d)), y=res.p_noise, name=f"P_nse ({res.which})", opacity=0.6)
    fig.add_hline(y=res.floor, line_dash="dot", annotation_text="floor")
    fig.update_layout(title="Floor raising over the public histogram", xaxis_title="cell", barmode="overlay",
                      yaxis_title="probability", height=360)
    f2.plotly_chart(for_projector(fig), use_container_width=True)

ev = res.evaluation
if ev:
    st.header("Evaluation only: computed on private data")
    st.warning(f"{EVALUATION_LABEL}. TV between the private marginal and the empirical distribution of n_samples "
               "draws, for PubMix, LinMix and the Gaussian mechanism at the same (epsilon, delta) "
               "(mean of repetitions).")
    fig = go.Figure()
    for key, label in (("pubmix", "PubMix"), ("linmix", "LinMix"), ("gaussian", "Gaussian mechanism")):
        fig.add_scatter(x=ev["n_samples"], y=ev[key], mode="lines+markers", name=label)
    fig.update_layout(title="TV(private marginal, draws) -- evaluation only", xaxis_title="n_samples",
                      yaxis_title="TV", height=360)
    log_axis(fig, ev["n_samples"])
    st.plotly_chart(for_projector(fig), use_container_width=True)
