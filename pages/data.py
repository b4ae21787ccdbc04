"""The Data step: data source, table upload and intake, the schema (public domain).

Thin page: the section itself is studio.data_ui (the Policy step shows it too, collapsed).
"""

from __future__ import annotations

import streamlit as st

from studio import data_ui, flow

st.set_page_config(page_title="Data · Blowfish Studio", layout="wide")
st.title("Data")
st.caption("Load the table and declare the public domain: the bounds and levels every number of the Policy step "
           "depends on. Nothing here is released; only the synthesis reads the private rows.")
data_ui.data_section()
st.divider()
try:
    flow.link("Policy_Designer", label="Next: Policy")
except Exception:  # noqa: BLE001 - a page run without the router (tests) has no navigation
    st.caption("Next: the Policy step.")
