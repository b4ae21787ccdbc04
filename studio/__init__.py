"""UI-side helpers for the Streamlit pages (session state, widgets). No math here:
everything numeric comes from blowfish_core."""
