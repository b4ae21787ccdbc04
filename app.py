"""Blowfish Studio: landing page and navigation (Streamlit multipage ``pages/`` convention).

Run with ``streamlit run app.py``.  The pages in ``pages/`` appear in the sidebar in
file-name order; they share the dataset, schema, policy and tau through
``studio.state.get_studio()`` (XOR-3 by default, no file needed).
"""

from __future__ import annotations

import streamlit as st

from studio.state import get_studio

#: (page file, label, icon, blurb).  Icons are Streamlit's bundled Material Symbols, not emoji: an
#: emoji needs a colour-emoji font, which a plain machine lacks (it draws empty boxes).
PAGES = [
    ("pages/1_Policy_Designer.py", "Policy Designer", ":material/tune:",
     "**Data owners.** Declare the public domain, draw a policy graph per attribute and watch reach, the "
     "noise ratio q, the noise per method and the unprotected pairs update live — before touching private data."),
    ("pages/2_Voronoi_Explorer.py", "Voronoi Explorer", ":material/hexagon:",
     "**Educators.** See why the hard nearest-candidate vote cannot exploit a policy (a protected edge costs 0 "
     "or the full √2) while the soft vote grades the cost with distance (§4.3, Figure 1)."),
    ("pages/3_Synthesis_Runner.py", "Synthesis Runner", ":material/play_circle:",
     "**Analysts.** Run Tab-PE, Hard and BF-Soft on the same seeds and budget; compare error, noise and the "
     "privacy ledger side by side."),
    ("pages/4_Temperature_Pilot.py", "Temperature Pilot", ":material/thermostat:",
     "Pick Hard or a temperature tau on public data only, at the pilot budget ρ_p = ρ_t (n_t/n_p)² (§6.2.4)."),
]

st.set_page_config(page_title="Blowfish Studio", page_icon=":material/shield:", layout="wide")
studio = get_studio()

st.title("Blowfish Studio")
st.markdown(
    "Policy-aware differentially private data synthesis, after *Soft Voting for Policy-Aware Private Data "
    "Synthesis*. A **Blowfish policy** says which substitutions of a value must stay indistinguishable "
    "(age 34 vs 35, but not 34 vs 70). Its **reach** r — the largest protected Gower distance — sets the "
    "noise of the soft vote: BF-Soft adds q = tanh(r / 2τ) times the noise of the hard vote, so a local "
    "policy buys the same privacy for less noise (Cor. 5.5)."
)

st.subheader("Three jobs")
for path, label, icon, text in PAGES:
    c1, c2 = st.columns([1, 3])
    with c1:
        st.page_link(path, label=label, icon=icon)
    c2.markdown(text)

st.subheader("Current session")
rows = f"{len(studio.private):,} private rows" if studio.has_rows else "no table (policy design only)"
protected = ", ".join(studio.policy.per_attribute) or "nothing"
st.markdown(
    f"- **Dataset:** {studio.dataset_name} — {rows}\n"
    f"- **Protected attributes:** {protected}{' + participation edges' if studio.policy.participation else ''}\n"
    f"- **Temperature:** τ = {studio.tau:g}"
)
st.caption(
    "Every page uses this dataset, schema and policy; change them in the Policy Designer. Calibration depends "
    "only on the policy, τ, the public domain and the current candidate population — never on private records. "
    "Seeded runs are for study, not for a real release."
)
