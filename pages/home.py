"""Home: what Blowfish Studio does, the steps of the flow and the teaching pages, the session."""

from __future__ import annotations

import streamlit as st

from studio import flow
from studio.state import get_studio

studio = get_studio()
st.title("Blowfish Studio")
st.markdown(
    "Policy-aware differentially private data synthesis, after *Soft Voting for Policy-Aware Private Data "
    "Synthesis*. A **Blowfish policy** says which substitutions of a value must stay indistinguishable "
    "(age 34 vs 35, but not 34 vs 70). The smaller the protected distance (the policy's **reach**), the less "
    "noise the soft vote BF-Soft needs for the same privacy: it adds q = tanh(reach / 2τ) times the noise of "
    "the hard vote."
)
flow.tutorial("Follow the steps from left to right. Each step says what it needs; the Release step opens once "
              "the data, a policy and a budget are set. The teaching pages explain the ideas behind the numbers.")

st.subheader("The steps")
status = flow.step_status(studio, st.session_state)
for i, s in enumerate(flow.STEPS, 1):
    done, text = status[s.key]
    c1, c2 = st.columns([1, 3])
    flow.link(s.key, label=f"{i} · {s.title}", container=c1, disabled=(s.key == "Release" and not done))
    c2.markdown(f"{s.blurb}  \n{flow.DONE_MARK if done else flow.TODO_MARK} *{text}*")

st.subheader("Teaching pages")
for s in flow.TEACHING:
    c1, c2 = st.columns([1, 3])
    flow.link(s.key, container=c1)
    c2.markdown(s.blurb)

st.subheader("Current session")
st.markdown("\n".join(flow.session_summary(studio, st.session_state)))
st.caption(
    "Calibration depends only on the policy, τ, the public domain and the current candidate population — never "
    "on private records. Seeded runs are for study, not for a real release."
)
