"""Blowfish Studio: the router (``st.navigation``) of the guided flow.

Run with ``streamlit run app.py``.  Pages: Home, the steps Data → Policy → Tune τ → Run →
Release, and the teaching pages (Voronoi Explorer, Selection Lab, Public-aware sampler); see
studio.flow.  Every page shares the dataset, schema, policy, tau and budget through
``studio.state.get_studio()`` (XOR-3 by default, no file needed).  The step bar above every page
shows what is done and what is missing; the Release step is disabled until schema, policy and
budget are set (studio.flow.release_missing).  The bar is drawn before the page (it is in view while
a page works) and drawn again, in the same place, after the page ran: a page changes the model
while it runs (the budget control marks the budget chosen, a policy editor sets the policy), and the
bar must show the state the page left, not the one it found (a budget chosen on this run left
Release greyed out until the next run).  A page that ends early under the router calls
``flow.stop()`` (not ``st.stop()``, after which nothing more can be drawn).
"""

from __future__ import annotations

import streamlit as st

from studio import flow
from studio.state import get_studio

st.set_page_config(page_title="Blowfish Studio", page_icon=":material/shield:", layout="wide")
nav = flow.navigation()
st.session_state[flow.STEP_KEY] = nav.url_path or "Home"
flow.sidebar_controls()
bar = st.empty()  # one slot: the second drawing replaces the first
with bar.container():
    flow.step_bar(get_studio())
try:
    nav.run()
except flow.PageEnd:  # a page ended early with flow.stop() (st.stop would drop the drawing below)
    pass
with bar.container():
    flow.step_bar(get_studio())
