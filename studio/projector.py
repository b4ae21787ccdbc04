"""Projector mode of the teaching pages (issue 24): one toggle, kept in the session, that makes the
figures' fonts, markers and lines larger and the page's text larger for a classroom projector.

* :data:`PROJECTOR_KEY` (studio.state) is the one plain session key of the setting; the toggle
  (:func:`projector_toggle`, in the sidebar of each teaching page: Voronoi Explorer, Selection Lab,
  Public-aware sampler) is bound to it with :func:`studio.state.seed` and writes it back on change,
  so it survives leaving and returning.
* :func:`for_projector` returns a restyled COPY of a figure (cached figures are shared read-only).
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import streamlit as st

from studio.state import PROJECTOR_KEY, seed

#: the toggle's widget key (the value lives in PROJECTOR_KEY).
WIDGET_KEY = "ui:projector_toggle"
#: projector sizes: base font, title font (px) and the factors for marker sizes and line widths.
FONT, TITLE_FONT, MARKER_SCALE, LINE_SCALE = 20, 26, 1.6, 1.5
#: titles longer than this many characters are wrapped in projector mode (a half-width panel at 26 px).
TITLE_WRAP = 30
#: plotly's default marker size (px), scaled when a trace leaves it unset.
DEFAULT_MARKER = 6
#: the page's base text size in projector mode (the default is 16 px).
PAGE_FONT_PX = 22


def projector_on() -> bool:
    """True when the session's projector mode is on."""
    return bool(st.session_state.get(PROJECTOR_KEY, False))


def _keep() -> None:
    st.session_state[PROJECTOR_KEY] = bool(st.session_state.get(WIDGET_KEY, False))


def projector_toggle() -> bool:
    """Draw the 'Projector mode' toggle in the sidebar (bound to PROJECTOR_KEY) and, when it is on,
    enlarge the page's text.

    Returns
    -------
    bool
        Whether projector mode is on.
    """
    seed(WIDGET_KEY, projector_on())
    st.sidebar.toggle("Projector mode", key=WIDGET_KEY, on_change=_keep,
                      help="Larger text, fonts, markers and lines on the teaching pages, for a classroom projector.")
    on = projector_on()
    if on:
        st.html(f"<style>html, body, [data-testid='stAppViewContainer'] {{font-size: {PAGE_FONT_PX}px}}</style>")
    return on


def _scaled(value: Any, factor: float) -> Any:
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return value * factor
    try:
        return [v * factor for v in value]
    except TypeError:
        return value


def wrap_title(text: str, width: int = 0) -> str:
    """``text`` broken into lines of at most ``width`` characters (default TITLE_WRAP) at spaces, joined
    with plotly's ``<br>``.

    Parameters
    ----------
    text : str
        A figure title.
    width : int, optional
        Characters per line (0: TITLE_WRAP).

    Returns
    -------
    str
        The wrapped title.
    """
    width = width or TITLE_WRAP
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def for_projector(fig: go.Figure, on: bool | None = None) -> go.Figure:
    """``fig`` itself when projector mode is off, else a copy with larger fonts, markers and lines.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure (not modified).
    on : bool, optional
        Projector mode; default: the session's (:func:`projector_on`).

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig`` or its restyled copy.
    """
    if not (projector_on() if on is None else on):
        return fig
    f = go.Figure(fig)
    title = f.layout.title.text
    if title and len(title) > TITLE_WRAP and "<br>" not in title:  # the larger font would clip a long title
        f.layout.title.text = wrap_title(title)
        extra = (TITLE_FONT + 6) * f.layout.title.text.count("<br>")
        f.update_layout(margin=dict(t=(f.layout.margin.t if f.layout.margin.t is not None else 80) + extra))
    f.update_layout(font=dict(size=FONT), title_font=dict(size=TITLE_FONT), legend_font=dict(size=FONT),
                    hoverlabel=dict(font_size=FONT))
    # axis titles and ticks explicitly: Streamlit's plotly theme sets them and would keep them small
    f.update_xaxes(title_font_size=FONT, tickfont_size=FONT - 2)
    f.update_yaxes(title_font_size=FONT, tickfont_size=FONT - 2)
    for tr in f.data:
        marker = getattr(tr, "marker", None)
        if marker is not None and "size" in marker:
            mode = getattr(tr, "mode", None) or ""
            if marker.size is not None:
                marker.size = _scaled(marker.size, MARKER_SCALE)
            elif "markers" in mode:
                marker.size = DEFAULT_MARKER * MARKER_SCALE
        if marker is not None and "line" in marker and marker.line.width is not None:
            marker.line.width = _scaled(marker.line.width, LINE_SCALE)
        line = getattr(tr, "line", None)
        if line is not None and "width" in line and line.width is not None:
            line.width = _scaled(line.width, LINE_SCALE)
        textfont = getattr(tr, "textfont", None)
        if textfont is not None and textfont.size is not None:
            textfont.size = _scaled(textfont.size, MARKER_SCALE)
    return f
