"""Plot style of every page (issue 16): one colour-blind-safe palette, a marker and dash per method,
axis titles with units, and every chart followed by its data as a table (a text alternative).

* :data:`OKABE_ITO`: the Okabe–Ito palette (Okabe & Ito 2008, "Color Universal Design"), safe for
  the common colour-vision deficiencies; :data:`METHOD_STYLE` gives each method a colour, a marker
  symbol and a dash, so two methods never differ by colour alone.
* :func:`method_style` / :func:`style_methods` style traces by method label or name.
* :func:`chart_with_table` draws a plotly figure and, right under it, an expander with the data.
* :func:`log_axis_range` keeps a log axis to the data (annotations such as "crossing" never stretch
  it to 1); :func:`log_axis` makes an axis log with decade or 1-2-5 ticks in one label form; :func:`mark_x` draws a labelled vertical line inside the plot.
* :data:`REAL_SYNTH` colours real vs synthetic (blue vs orange: never two blues).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd
import streamlit as st

#: Okabe–Ito: black, orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}
#: a categorical sequence (no yellow first: low contrast on white).
SEQUENCE = [OKABE_ITO[k] for k in ("blue", "orange", "green", "vermillion", "purple", "sky", "black", "yellow")]

#: method name -> (label, colour, marker symbol, dash).  Hard and BF-Soft: blue vs vermillion,
#: circle vs diamond, solid vs dash.
METHOD_STYLE: dict[str, dict[str, str]] = {
    "tab-pe": {"label": "Tab-PE", "color": OKABE_ITO["black"], "symbol": "square", "dash": "dot"},
    "hard": {"label": "Hard", "color": OKABE_ITO["blue"], "symbol": "circle", "dash": "solid"},
    "bf-soft": {"label": "BF-Soft", "color": OKABE_ITO["vermillion"], "symbol": "diamond", "dash": "dash"},
    "soft-dp": {"label": "Soft vote (standard DP)", "color": OKABE_ITO["green"], "symbol": "triangle-up",
                "dash": "dashdot"},
    "soft-hard-noise": {"label": "Soft vote with Hard's noise", "color": OKABE_ITO["purple"], "symbol": "x",
                        "dash": "longdash"},
}
_BY_LABEL = {v["label"]: k for k, v in METHOD_STYLE.items()}
#: real vs synthetic in two different hues.
REAL_SYNTH = {"real": OKABE_ITO["blue"], "synthetic": OKABE_ITO["orange"]}
#: highlight (a chosen point, the most expensive edge): vermillion; neutral lines: grey.
HIGHLIGHT = OKABE_ITO["vermillion"]
NEUTRAL = "#7f7f7f"
#: sequential colour scale for heatmaps (colour-blind safe, perceptually uniform).
SEQUENTIAL = "Cividis"


def method_style(method: str) -> dict[str, str]:
    """{'label', 'color', 'symbol', 'dash'} of a method name ('bf-soft') or label ('BF-Soft');
    an unknown method gets a palette colour by its hash-free position (KeyError never)."""
    key = method if method in METHOD_STYLE else _BY_LABEL.get(method)
    if key is not None:
        return METHOD_STYLE[key]
    i = sum(map(ord, method)) % len(SEQUENCE)
    return {"label": method, "color": SEQUENCE[i], "symbol": "circle-open", "dash": "solid"}


def style_methods(fig: Any) -> Any:
    """Restyle every trace whose name is a method label/name: colour, marker and dash."""
    for tr in fig.data:
        name = getattr(tr, "name", None)
        if not name:
            continue
        key = name if name in METHOD_STYLE else _BY_LABEL.get(name)
        if key is None:
            continue
        s = METHOD_STYLE[key]
        upd: dict[str, Any] = {}
        if tr.type in ("scatter", "scattergl"):
            upd = {"marker": {"color": s["color"], "symbol": s["symbol"], "size": 9},
                   "line": {"color": s["color"], "dash": s["dash"], "width": 2.5}}
        elif tr.type == "bar":
            upd = {"marker": {"color": s["color"]}}
        tr.update(**upd)
    return fig


def log_axis_range(values: Iterable[float], pad: float = 0.15) -> list[float]:
    """[log10 lo, log10 hi] of the positive values, padded by ``pad`` decades (for a plotly log
    axis's range): the axis stays on the data."""
    v = [float(x) for x in values if x is not None and float(x) > 0 and math.isfinite(float(x))]
    if not v:
        return [-1.0, 0.0]
    return [math.log10(min(v)) - pad, math.log10(max(v)) + pad]


#: tick mantissas of a log axis shorter than two decades (1, 2, 5 per decade), tried before every digit.
LOG_MANTISSAS = ((1.0,), (1.0, 2.0, 5.0), tuple(float(m) for m in range(1, 10)))


def log_ticks(lo: float, hi: float) -> list[float]:
    """Tick values of a log axis over [10^lo, 10^hi] (exponents): the decades when at least two fall in
    it, else 1-2-5 in each decade, else every digit; never plotly's default minor labels ("3 4 5 ... 0.1
    2 3", issue 24 item 10)."""
    out: list[float] = []
    for mants in LOG_MANTISSAS:
        out = [float(f"{m * 10.0 ** k:.3g}") for k in range(math.floor(lo), math.ceil(hi) + 1) for m in mants
               if lo - 1e-9 <= math.log10(m * 10.0 ** k) <= hi + 1e-9]
        if len(out) >= 2:
            return out
    return sorted({float(f"{10.0 ** lo:.2g}"), float(f"{10.0 ** hi:.2g}")})  # a sliver of a decade: its ends


def log_tick_text(ticks: list[float]) -> list[str]:
    """Labels of log ticks in one form: plain ('0.05', '10') while every tick lies in [0.001, 10^5), else
    every one a power of ten ('10⁻⁵', '10⁻⁴', '2 × 10⁻⁴'; never '0.0001' beside '10⁻⁵')."""
    from blowfish_core.workflows.formatting import fmt_power, fmt_sig

    if all(1e-3 <= t < 1e5 for t in ticks):
        return [fmt_sig(t, 2) for t in ticks]
    out = []
    for t in ticks:
        e = math.floor(math.log10(t) + 1e-9)
        out.append(fmt_power(float(f"{t / 10.0 ** e:.2g}"), e))
    return out


def log_axis(fig: Any, values: Iterable[float], axis: str = "x", pad: float = 0.15, row: Any = None,
             col: Any = None) -> Any:
    """Make ``axis`` ('x' or 'y') of ``fig`` a log axis on the data (:func:`log_axis_range`) with readable
    ticks (:func:`log_ticks`, labelled in one form by :func:`log_tick_text`)."""
    rng = log_axis_range(values, pad)
    ticks = log_ticks(*rng)
    upd = dict(type="log", range=rng, tickmode="array", tickvals=ticks, ticktext=log_tick_text(ticks))
    (fig.update_xaxes if axis == "x" else fig.update_yaxes)(row=row, col=col, **upd)
    return fig


def mark_x(fig: Any, x: float, text: str, color: str = NEUTRAL) -> Any:
    """A dashed vertical line at x with its label at the top inside the plot (paper y), so the
    label never adds a point to the axis."""
    fig.add_vline(x=x, line_dash="dash", line_color=color)
    fig.add_annotation(x=math.log10(x) if fig.layout.xaxis.type == "log" and x > 0 else x, y=1.0, yref="paper",
                       text=text, showarrow=False, yanchor="bottom", font={"color": color})
    return fig


def base_layout(fig: Any, x_title: str, y_title: str, height: int = 340, legend_below: bool = True) -> Any:
    """Axis titles (with units) and a legend that never covers an axis title (above the plot)."""
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40, b=10), xaxis_title=x_title, yaxis_title=y_title,
                      colorway=SEQUENCE)
    if legend_below:
        fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0))
    return fig


#: rows of a chart's data table shown as text (the rest summarised in a line).
MAX_TABLE_ROWS = 200


def _cell(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v).replace("|", "\\|")


def markdown_table(df: pd.DataFrame, max_rows: int = MAX_TABLE_ROWS) -> str:
    """``df`` as a Markdown table (4 significant digits, '—' for a missing value), at most
    ``max_rows`` rows plus a line saying how many were left out."""
    df = pd.DataFrame(df)
    head = "| " + " | ".join(_cell(c) for c in df.columns) + " |"
    rule = "| " + " | ".join("---" for _ in df.columns) + " |"
    rows = ["| " + " | ".join(_cell(v) for v in r) + " |" for r in df.head(max_rows).itertuples(index=False)]
    more = [f"\n… and {len(df) - max_rows:,} more rows."] if len(df) > max_rows else []
    return "\n".join([head, rule, *rows, *more])


def chart_with_table(fig: Any, df: pd.DataFrame, key: str, caption: str | None = None,
                     table_label: str = "Data of this chart (table)", **chart_kw: Any) -> Any:
    """Draw ``fig`` and right under it an expander with ``df`` as a text table (the chart's text
    alternative: Markdown, read by screen readers, copyable).  Returns what st.plotly_chart
    returns (the selection event with on_select).

    The expander is lazy (``on_change="rerun"``, state in ``st.session_state[f"{key}:table"]``): the
    table is built and sent only while it is open, so a first render does no work for a closed
    expander (issue 11 classroom load test: every student's browser would lay out every hidden table).
    """
    out = st.plotly_chart(fig, key=key, **chart_kw)
    if caption:
        st.caption(caption)
    box = st.expander(table_label, key=f"{key}:table", on_change="rerun")
    if box.open:
        box.markdown(markdown_table(df))
    return out
