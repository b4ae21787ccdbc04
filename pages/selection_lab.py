"""Selection Lab: why a data-dependent scale breaks the exponential mechanism, and what fixes it
(papers/001 §4 Prop. 4.1 and Thm 4.3; valid calibrations: global scale, Cor. 5.3, §6).

Thin page, for educators: widgets -> one engine call
(:func:`blowfish_core.analysis.selection_lab.selection_lab`) -> metrics, plotly bars and the exact
delta(epsilon) curve.  Two neighbouring datasets x ∼ x' have *identical* scores; only the
scale differs.  Broken calibrations are labelled "demonstration: not private" everywhere.
It does not use the shared studio state.
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from blowfish_core.base.errors import BlowfishError
from blowfish_core.privacy.selection import BROKEN_SCALE_RULES, NOT_PRIVATE, VALID_SCALE_RULES
from blowfish_core.analysis.selection_lab import PRESET_BROKEN, selection_lab
from studio import flow
from studio.projector import for_projector, projector_toggle

st.set_page_config(page_title="Selection Lab · Blowfish Studio", layout="wide")

PRESET_LABELS = {"path": "§4.1 path: local sensitivity (Prop. 4.1)",
                 "multiplicity": "§4.2 multiplicity: smooth sensitivity, fixed β and λ (Thm 4.3)"}
CAL_LABELS = {"global": "global scale (public sensitivity)",
              "shifted_laplace": "shifted Laplace upper scale (Cor. 5.3)",
              "ptr": "PTR certificate search (§6)", "local": "local sensitivity b = max(b0, LS(x))",
              "smooth_fixed": "smooth sensitivity, fixed β and λ"}
M_OPTIONS = [11, 101, 1001, 10_001, 100_001, 10**6 + 1, 10**9 + 1, 10**12 + 1]
ETAS = [1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2]


def cal_label(name: str) -> str:
    return CAL_LABELS[name] + (f" — {NOT_PRIVATE}" if name in BROKEN_SCALE_RULES else "")


def fmt_delta(v: float) -> str:
    """A delta: 0 as '0', below 1e-3 in 3 significant digits, else 5 decimals."""
    return "0" if v == 0 else (f"{v:.3g}" if v < 1e-3 else f"{v:.5f}")


def fmt_num(v: float) -> str:
    return "∞" if math.isinf(v) else f"{v:.4g}"


projector_toggle()
st.title("Selection Lab")
flow.tutorial("Two neighbouring datasets with identical scores: if the two selection laws differ by more than "
              "the claim allows, the calibration leaks. Switch 'fix it' to see the valid calibrations.")
st.caption(
    "The exponential mechanism picks candidate r with probability ∝ exp(ε·q(x,r) / (2b)). It is ε-DP when the "
    "scale b covers how much one neighbour can move the scores. Here two neighbouring datasets x ∼ x′ have "
    "**identical** scores — and still a scale computed from the dataset at hand (its local or smooth "
    "sensitivity) makes their selection laws differ by far more than e^ε allows. Exact numbers, no sampling."
)

with st.sidebar:
    st.header("Preset")
    preset = st.radio("Construction", list(PRESET_LABELS), format_func=PRESET_LABELS.get, key="sel_preset")
    params: dict = {}
    if preset == "path":
        st.caption("Path z ∼ x ∼ x′ ∼ w; q(x) = q(x′) = (M, 0, …); ω(z,x) = G, ω(x′,w) = G³, so LS(x) = G and "
                   "LS(x′) = G³.")
        params["G"] = st.slider("G (local sensitivity of x)", 1.0, 100.0, 10.0, step=1.0, key="sel_G")
        if st.checkbox("M = G² (the paper's choice)", value=True, key="sel_M_auto"):
            params["M"] = None
        else:
            params["M"] = st.number_input("M (score of candidate a)", min_value=0.0, value=100.0, key="sel_M")
        params["m"] = st.slider("candidates m", 2, 50, 2, key="sel_m_path")
    else:
        st.caption("Path x ∼ x′ ∼ w with ω(x,x′) = 0 and ω(x′,w) = 1, so S*(x) = e^−β and S*(x′) = 1; one "
                   "candidate scores C, the m − 1 others 0.")
        params["m"] = st.select_slider("candidates m", options=M_OPTIONS, value=1001, key="sel_m_mult",
                                       format_func=lambda v: f"{v:,}")
        params["C"] = st.slider("C (score of candidate a)", 1.0, 100.0, 18.0, step=1.0, key="sel_C")
        params["lam"] = st.slider("λ (temperature coefficient)", 0.05, 2.0, 0.25, step=0.05, key="sel_lam")
        params["beta"] = st.slider("β (smoothness)", 0.05, 2.0, 0.5, step=0.05, key="sel_beta")
    st.header("Mechanism")
    params["epsilon_s"] = st.slider("ε_s (selection, nats)", 0.1, 5.0, 1.0, step=0.1, key="sel_eps")
    params["b0"] = st.number_input("public floor b0", min_value=1e-6, value=0.01, format="%g", key="sel_b0")
    st.header("Valid calibrations")
    params["epsilon_t"] = st.slider("ε_t (scale search/release)", 0.1, 5.0, 1.0, step=0.1, key="sel_eps_t")
    params["eta"] = st.select_slider("η (underestimation probability, in δ)", options=ETAS, value=1e-6,
                                     key="sel_eta", format_func=lambda v: f"{v:g}")
    params["rho"] = st.select_slider("regret failure probability ρ", options=[0.01, 0.05, 0.1], value=0.05,
                                     key="sel_rho")

fix = st.toggle("Fix it: use a valid calibration", key="sel_fix")
if fix:
    name = st.radio("Valid calibration", list(VALID_SCALE_RULES), format_func=cal_label, key="sel_valid",
                    horizontal=True)
else:
    broken = list(BROKEN_SCALE_RULES)
    name = st.radio("Broken calibration", broken, index=broken.index(PRESET_BROKEN[preset]), format_func=cal_label,
                    key=f"sel_broken_{preset}", horizontal=True)


@st.cache_data(show_spinner=False, max_entries=64)
def compute(preset: str, name: str, items: tuple):
    return selection_lab(preset, name, **dict(items))


try:
    view = compute(preset, name, tuple(sorted(params.items())))
except BlowfishError as e:
    st.error(f"Settings: {e}")
    st.stop()

row = view.calibration
x, xp = view.datasets
if not row.private:
    st.error(f"**{row.label}.** The scale is a function of the records, so the guarantee it claims does not hold. "
             "Shown only to demonstrate the failure.")
else:
    st.success(f"**{row.label}.** The scale uses only public state (or is released privately and accounted).")
st.caption(view.description)

eps, dlt = row.claim
verdict = "pass" if row.passed else "FAIL"
c = st.columns(3) + st.columns(3)
c[0].metric("Claimed (ε, δ)", f"({eps:g}, {dlt:g})")
c[1].metric("Exact δ at claimed ε", fmt_delta(row.exact_delta),
            help=f"max over both orders of Σ_r [P_x(r) − e^ε P_x′(r)]₊ on the edge {x} ∼ {xp}")
c[2].metric("Verdict", verdict, delta=None if row.private else NOT_PRIVATE, delta_color="off", delta_arrow="off",
            help="pass: exact δ at the claimed ε ≤ the claimed δ (+1e-12)")
c[3].metric(f"Scale at {x}", fmt_num(row.scale_x), help="expected scale when it is random")
c[4].metric(f"Scale at {xp}", fmt_num(row.scale_x_prime))
c[5].metric(f"Regret bound (prob. ≥ {1 - row.regret_failure:g})", fmt_num(row.regret_gap),
            help="gap to the best score, in score units: Eq. (2), with the scale's own upper tail for the "
                 "random scales")
if not row.private and row.passed:
    st.warning(f"This pair happens to pass for this calibration, but it is still {NOT_PRIVATE}: pick the other "
               "preset to see it fail.")

st.markdown(f"**Identical scores on {x} and {xp}:** "
            + ", ".join(f"{g} = {s:g}" for g, s in zip(view.group_labels, view.scores))
            + f" · local sensitivity LS({x}) = {view.local_sensitivity[0]:g}, LS({xp}) = {view.local_sensitivity[1]:g}")

left, right = st.columns(2)
with left:
    fig = go.Figure()
    fig.add_trace(go.Bar(x=view.group_labels, y=view.law_x, name=f"P_{x}"))
    fig.add_trace(go.Bar(x=view.group_labels, y=view.law_x_prime, name=f"P_{xp}"))
    fig.update_layout(barmode="group", height=380, margin=dict(l=10, r=10, t=40, b=10), yaxis_title="probability",
                      title=(f"Gibbs laws on {x} and {xp}<br><sup>" + CAL_LABELS[name]
                             + ("" if row.private else f" — {NOT_PRIVATE}") + "</sup>"),
                      legend=dict(orientation="h", y=-0.15))
    st.plotly_chart(for_projector(fig), key="sel_fig_laws", width="stretch")
with right:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=view.curve_epsilon, y=view.curve_delta, mode="lines", name="exact δ(ε)"))
    fig.add_trace(go.Scatter(x=[eps], y=[dlt], mode="markers", marker=dict(size=12, symbol="x", color="#d62728"),
                             name="claimed (ε, δ)"))
    fig.update_layout(height=380, margin=dict(l=10, r=10, t=40, b=10), xaxis_title="ε", yaxis_title="δ(ε)",
                      title=f"Exact δ(ε) on {x} ∼ {xp}", legend=dict(orientation="h", y=-0.15))
    st.plotly_chart(for_projector(fig), key="sel_fig_curve", width="stretch")
st.caption("A point of the curve above the red cross means the claim is false. Laws of grouped candidates show the "
           "total mass of the group.")

st.subheader("Valid calibrations on the same edge")
st.dataframe(pd.DataFrame([{
    "calibration": r.label, "claimed ε": f"{r.claim[0]:g}", "claimed δ": f"{r.claim[1]:g}",
    "exact δ at claimed ε": fmt_delta(r.exact_delta), "verdict": "pass" if r.passed else "FAIL",
    f"scale at {x}": fmt_num(r.scale_x), "regret bound": fmt_num(r.regret_gap),
    "regret prob.": f"≥ {1 - r.regret_failure:g}",
} for r in view.fixes]), hide_index=True, key="sel_fixes")
st.caption("Global: pure ε_s-DP, the scale is the graph's global sensitivity (public). Shifted Laplace and PTR "
           "release a private upper scale and pay ε_t plus η in δ; their scale (and regret) is larger than the "
           "global one unless ε_t is large — calibration from public state is the cheap way.")
st.info(view.note)
