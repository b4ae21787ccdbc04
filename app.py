"""Blowfish Studio: landing page (placeholder until the app-shell issue lands)."""
import streamlit as st

st.set_page_config(page_title="Blowfish Studio", layout="wide")
st.title("Blowfish Studio")
st.write("Policy-aware differentially private data synthesis.")
