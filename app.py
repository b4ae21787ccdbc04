"""Blowfish Studio: the router (``st.navigation``) of the guided flow.

Run with ``streamlit run app.py``.  Pages: Home, the steps Data → Policy → Tune τ → Run →
Release, and the teaching pages (Voronoi Explorer, Selection Lab, Public-aware sampler); see
studio.flow.  Every page shares the dataset, schema, policy, tau and budget through
``studio.state.get_studio()`` (XOR-3 by default, no file needed).  The step bar above every page
shows what is done and what is missing; the Release step is disabled until schema, policy and
budget are set.
"""

from __future__ import annotations

import streamlit as st

from studio import flow
from studio.state import get_studio

st.set_page_config(page_title="Blowfish Studio", page_icon=":material/shield:", layout="wide")
nav = flow.navigation()
st.session_state[flow.STEP_KEY] = nav.url_path or "Home"
flow.sidebar_controls()
flow.step_bar(get_studio())
nav.run()
