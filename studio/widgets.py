"""Widgets and figures of the Policy Designer (UI only: the numbers come from the engine).

* :func:`policy_editor` draws one editor per attribute (none / threshold slider in the
  attribute's units / block partition / complete / hierarchy / explicit edges in an
  adjacency table) plus the participation toggle, and returns the Policy the widgets
  describe.  Widget keys start with ``pol:``; :func:`reset_policy_widgets` drops them so
  the editors re-initialise from ``studio.policy`` (after a preset or JSON load).
* Figures (plotly) are built from the engine's data: ``readouts.policy_readout`` and
  ``graphs.policy_graph_data``.
* ``fmt_*`` format numbers for st.metric (reach 4 decimals, q 2 decimals; small values
  in 3 significant digits, never a misleading 0.0000).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import blowfish_core as bc
from blowfish_core.analysis.graphs import CLUSTERS_PER_ROW, policy_graph_data
from blowfish_core.model.policy import AttributePolicy, value_edges
from blowfish_core.model.schema import _fmt
from studio.plots import HIGHLIGHT, NEUTRAL, OKABE_ITO, log_axis  # one palette: Okabe-Ito
from studio.state import kept_editor, seed

POLICY_KEY_PREFIX = "pol:"
KIND_LABELS = {
    "none": "none (not protected)",
    "threshold": "threshold",
    "block": "block partition",
    "complete": "complete graph",
    "hierarchy": "hierarchy (siblings)",
    "edges": "explicit edges",
}
#: adjacency tables are offered up to this many values.
MAX_ADJACENCY_VALUES = 30
#: graph labels longer than this are abbreviated (full value on hover).
LABEL_CHARS = 11
BASE = OKABE_ITO["blue"]
#: a complete graph on more values than this is described, not drawn (a hairball otherwise).
MAX_COMPLETE_DRAWN = 6
#: above this many attributes the reach bars are horizontal (readable names).
HORIZONTAL_BARS = 8


# ---------------------------------------------------------------- formatting
def fmt_reach(x: float) -> str:
    """Reach in Gower units: 4 decimals from 0.01 up (0.0192, 0.2000, 0 as 0.0000);
    3 significant digits below, so a small reach never shows as 0.0000 (0.000833, 4.1e-05)."""
    return f"{x:.3g}" if 0 < abs(x) < 0.01 else f"{x:.4f}"


def fmt_eps(x: float | None) -> str:
    """An epsilon: 3 decimals from 0.01 up (0.068, 0.500); 3 significant digits below; None as a dash."""
    if x is None:
        return "—"
    if math.isinf(x):
        return "∞"
    return f"{x:.3g}" if 0 < abs(x) < 0.01 else f"{x:.3f}"


def with_unit(text: str, unit: str | None) -> str:
    """'Threshold for age (years)'; the text alone when there is no unit ('Threshold for balance' of an
    uploaded column: never a placeholder such as 'units')."""
    return f"{text} ({unit})" if unit else text


def short_label(label: str, width: int = LABEL_CHARS) -> str:
    """A graph label cut to ``width`` characters with an ellipsis ('Self-emp-n…'); the figure's
    hover shows the full value."""
    return label if len(label) <= width else label[: width - 1] + "…"


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 protected pair', '7 protected pairs' (many: the irregular plural)."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def fmt_q(x: float) -> str:
    """Noise ratio, 2 decimals (0.31) from 0.1 up; 3 significant digits below."""
    return f"{x:.2f}" if x == 0 or abs(x) >= 0.1 else f"{x:.3g}"


def fmt_num(x: float | None, digits: int = 4) -> str:
    """Generic number for a metric: significant digits, inf as the symbol, None as a dash."""
    if x is None:
        return "—"
    if math.isinf(x):
        return "∞"
    return f"{x:.{digits}g}"


# ------------------------------------------------------------- policy editor
def reset_policy_widgets() -> None:
    """Forget every policy-editor widget so the editors re-read ``studio.policy``.

    Call before the editors are drawn in a run (e.g. in a callback)."""
    for k in [k for k in st.session_state.keys() if str(k).startswith(POLICY_KEY_PREFIX)]:
        del st.session_state[k]


def allowed_kinds(a: bc.Attribute, current: str | None = None) -> list[str]:
    """Policy kinds offered for an attribute (its type's declared ``policy_kinds``; the current kind is always kept)."""
    kinds = list(a.policy_kinds)
    if current and current not in kinds:
        kinds.append(current)
    return kinds


def _theta_max(a: bc.Attribute) -> float:
    """The threshold slider's top: the range of a bounded (numeric) type, the level count - 1 of an
    ordered one with levels (ordinal), else the tree diameter (the types' declared capabilities)."""
    if a.bounded:
        return float(a.hi - a.lo)
    if a.ordered:
        return float(max(len(a.levels) - 1, 1))
    return float(max(a.tree_diameter, 1))


def _theta_default(a: bc.Attribute, t3: AttributePolicy | None) -> float:
    if t3 is not None and t3.kind == "threshold":
        return float(t3.theta)
    if not a.whole_steps:
        return _theta_max(a) / 20.0
    return 1.0 if not a.has_tree else 2.0


def _threshold_widget(a: bc.Attribute, ap: AttributePolicy, t3: AttributePolicy | None) -> float:
    key = f"{POLICY_KEY_PREFIX}theta:{a.name}"
    init = float(ap.theta) if ap.kind == "threshold" else _theta_default(a, t3)
    top = max(_theta_max(a), init)
    whole = a.whole_steps and float(init).is_integer() and float(top).is_integer()
    unit = a.threshold_unit or f"the values of {a.name}"  # an uploaded column has no unit: its name, never "units"
    label = with_unit(f"Threshold for {a.name}", a.threshold_unit)
    help_ = (f"Values within this distance, in {unit}, are protected pairs (0 < |u - v| <= theta). "
             "Farther values are linked only through chains of pairs (group privacy).")
    if key not in st.session_state:
        st.session_state[key] = int(init) if whole else float(init)
    step: float = 1 if whole else (0.5 if a.whole_steps else float(10 ** math.floor(math.log10(max(top, 1e-12) / 200))))
    lo, hi = (0, int(top)) if whole else (0.0, float(top))
    # issue 24 item 10: a number box beside the slider (a wide domain, e.g. balance 0-120,000, moves ~430 per
    # pixel).  The slider's key stays THE key of the threshold; the box is seeded from it on every run and its
    # on_change writes the typed value back (studio.state's pattern), so the two always show one value.
    box_key = f"{key}{THETA_BOX_SUFFIX}"
    seed(box_key, int(st.session_state[key]) if whole else float(st.session_state[key]))
    s_col, b_col = st.columns([3, 1], vertical_alignment="bottom")
    b_col.number_input(f"{label}, typed", min_value=lo, max_value=hi, step=step, key=box_key,
                       format=None if whole else "%g", on_change=_theta_typed, args=(key,),
                       label_visibility="collapsed", help=f"Type the threshold, in {unit}; the slider follows.")
    return s_col.slider(label, lo, hi, step=step, key=key, help=help_)


#: the number box of a threshold has the slider's key plus this suffix (studio.state: one key per setting).
THETA_BOX_SUFFIX = ":box"


def _theta_typed(key: str) -> None:
    """The threshold box's on_change: write the typed value into the slider's key (THE threshold)."""
    v = st.session_state.get(f"{key}{THETA_BOX_SUFFIX}")
    if v is not None:
        st.session_state[key] = v


def _block_widget(a: bc.Attribute, ap: AttributePolicy, t3: AttributePolicy | None) -> list[list[Any]]:
    vals = a.domain_values()
    labels = [_fmt(v) for v in vals]
    base_key = f"{POLICY_KEY_PREFIX}blockbase:{a.name}"
    if base_key not in st.session_state:
        src = ap if ap.kind == "block" else (t3 if t3 is not None and t3.kind == "block" else None)
        names = {}
        if src is not None:
            for bi, block in enumerate(src.blocks):
                for v in block:
                    names[_fmt(v)] = f"B{bi + 1}"
        st.session_state[base_key] = pd.DataFrame(
            {"value": labels, "block": [names.get(x, "B1") for x in labels]})
    st.caption("Assign each value to a block: values in the same block are protected from each other "
               "(complete inside each block); a blank block is an error.")
    edited = kept_editor(  # the table is kept with its edits (survives navigation: studio.state)
        base_key, lambda: st.session_state[base_key], key=f"{POLICY_KEY_PREFIX}blocks:{a.name}", hide_index=True,
        disabled=["value"],
        column_config={"block": st.column_config.TextColumn("block", help="any name; same name = same block")},
    )
    by_label = dict(zip(labels, vals))
    blocks: dict[str, list[Any]] = {}
    for v, b in zip(edited["value"].tolist(), edited["block"].tolist()):
        if b is None or (isinstance(b, float) and math.isnan(b)) or not str(b).strip():
            continue  # left out of every block: the engine names it in its error
        blocks.setdefault(str(b).strip(), []).append(by_label[v])
    return list(blocks.values())


def _edges_widget(a: bc.Attribute, ap: AttributePolicy) -> list[list[Any]] | None:
    vals = a.domain_values()
    labels = [_fmt(v) for v in vals]
    L = len(vals)
    if L > MAX_ADJACENCY_VALUES:
        st.info(f"'{a.name}' has {L} values; the adjacency table is offered up to {MAX_ADJACENCY_VALUES}. "
                "Import a policy JSON with an explicit edge list instead.")
        return [list(e) for e in ap.edges] if ap.kind == "edges" and ap.edges else []
    base_key = f"{POLICY_KEY_PREFIX}adjbase:{a.name}"
    if base_key not in st.session_state:
        M = np.zeros((L, L), dtype=bool)
        try:
            ve = value_edges(a, ap)
            if ve is not None:
                M[ve.e0, ve.e1] = True
        except bc.PolicyError:
            pass
        st.session_state[base_key] = pd.DataFrame(M, index=labels, columns=labels)
    st.caption("Tick a cell to protect that pair (either triangle; the diagonal is ignored). "
               "The table starts from the attribute's current graph.")
    edited = kept_editor(base_key, lambda: st.session_state[base_key], key=f"{POLICY_KEY_PREFIX}adj:{a.name}")
    M = edited.to_numpy(dtype=bool)
    M = M | M.T
    i0, i1 = np.nonzero(np.triu(M, 1))
    return [[vals[i], vals[j]] for i, j in zip(i0.tolist(), i1.tolist())]


def attribute_editor(a: bc.Attribute, ap: AttributePolicy, t3: AttributePolicy | None) -> AttributePolicy:
    """Widgets for one attribute's policy graph; returns the AttributePolicy they describe."""
    key = f"{POLICY_KEY_PREFIX}kind:{a.name}"
    kinds = allowed_kinds(a, ap.kind)
    if key not in st.session_state:
        st.session_state[key] = ap.kind if ap.kind in kinds else "none"
    kind = st.selectbox(f"Policy for {a.name}", kinds, format_func=lambda k: KIND_LABELS.get(k, k), key=key)
    if kind == "threshold":
        return AttributePolicy("threshold", theta=_threshold_widget(a, ap, t3))
    if kind == "block":
        return AttributePolicy("block", blocks=_block_widget(a, ap, t3))
    if kind == "edges":
        return AttributePolicy("edges", edges=_edges_widget(a, ap))
    if kind == "hierarchy":
        groups = ", ".join(f"{g} ({len(v) if isinstance(v, list) else '…'})" for g, v in (a.tree or {}).items())
        st.caption(f"Siblings under one parent are protected (tree distance 2). Groups: {groups}.")
    elif kind == "complete":
        st.caption("Every pair of values is protected: the attribute contributes its full weight (Remark 3).")
    return AttributePolicy(kind)


def policy_editor(studio, t3: dict[str, AttributePolicy] | None) -> tuple[bc.Policy, list[str]]:
    """Draw the editors of every attribute and the participation toggle.

    Returns (policy described by the widgets, error messages).  The policy is validated
    with the engine (Policy.validate); on an error the message names the attribute.
    """
    schema = studio.schema
    pkey = f"{POLICY_KEY_PREFIX}participation"
    if pkey not in st.session_state:
        st.session_state[pkey] = bool(studio.policy.participation)
    participation = st.toggle(
        "Participation edges (u, ⊥)", key=pkey,
        help="Also protect adding/removing a whole record (§5.6): a sensitivity floor of 1 for either vote.")
    per: dict[str, AttributePolicy] = {}
    errors: list[str] = []
    protected = set(studio.policy.per_attribute)
    for a in schema.attributes:
        ap = studio.policy.policy_for(a.name)
        with st.expander(f"{a.name} · {a.kind}", expanded=a.name in protected or len(schema.attributes) <= 3):
            new = attribute_editor(a, ap, (t3 or {}).get(a.name))
            try:
                bc.Policy({a.name: new}).validate(schema)
            except bc.PolicyError as e:
                errors.append(str(e))
                st.error(str(e))
                continue
            if new.kind != "none":
                per[a.name] = new
            if new.kind == "complete" and len(a.domain_values()) > MAX_COMPLETE_DRAWN:
                n = len(a.domain_values())
                st.caption(f"Complete graph on {n} values: every pair is protected "
                           f"({plural(n * (n - 1) // 2, 'protected pair')}), so the attribute contributes its full "
                           "weight. Not drawn: every value links to every other.")
                continue
            try:
                data = _graph_data(bc.Schema([a]).to_json(), bc.Policy({a.name: new}).to_json())
            except bc.BlowfishError as e:  # pragma: no cover - validated above
                st.error(str(e))
                continue
            draw_policy_graph(a, data)
    return bc.Policy(per, participation=bool(participation)), errors


# -------------------------------------------------------------------- figures
def reach_bar_figure(ro: dict[str, Any]) -> go.Figure:
    """Weighted reach per attribute; the attribute(s) setting the record-level reach in red."""
    return _reach_bar(json.dumps({"per_attribute": ro["per_attribute"], "argmax_all": ro["argmax_all"]}))


def q_curve_figure(ro: dict[str, Any]) -> go.Figure:
    """q = tanh(r / 2 tau) against tau (log axis), current point marked; standard-DP soft vote dashed."""
    return _q_curve(json.dumps({"curve": ro["curve"], "tau": ro["tau"], "q": ro["q"]}))


#: the reach chart's title and its key (a subtitle), and the top margin that holds both.
REACH_TITLE = "Weighted reach w_i r_i per attribute"
REACH_SUBTITLE = "hatched red: sets the record-level reach (a max)"
REACH_TOP = 75


# Figures are cached by their (JSON) input and shared read-only: building a plotly figure
# costs tens of milliseconds, and the page redraws on every widget change.
@st.cache_resource(max_entries=512, show_spinner=False)
def _reach_bar(spec: str) -> go.Figure:
    ro = json.loads(spec)
    names = list(ro["per_attribute"])
    vals = [ro["per_attribute"][n] for n in names]
    top = set(ro["argmax_all"])
    colors = [HIGHLIGHT if n in top else BASE for n in names]
    patterns = ["/" if n in top else "" for n in names]  # not by colour alone
    # a short title, the key in a subtitle, left-aligned with room above the plot: the one long title was cut
    # off in the Policy step's column (issue 24 item 10)
    title = dict(text=REACH_TITLE, subtitle=dict(text=REACH_SUBTITLE), x=0, xanchor="left", y=0.98,
                 yanchor="top", yref="container")
    if len(names) > HORIZONTAL_BARS:  # many attributes: horizontal bars, names readable
        fig = go.Figure(go.Bar(y=names, x=vals, orientation="h", marker_color=colors, marker_pattern_shape=patterns,
                               text=[fmt_reach(v) for v in vals], textposition="outside",
                               hovertemplate="%{y}: w·r = %{x:.6f}<extra></extra>"))
        fig.update_layout(title=title, xaxis_title="weighted reach (Gower units)", yaxis_title="attribute",
                          height=150 + 22 * len(names), margin=dict(l=10, r=10, t=REACH_TOP, b=10),
                          xaxis_range=[0, max(max(vals) * 1.3, 1e-3)])
        fig.update_yaxes(autorange="reversed")
        return fig
    fig = go.Figure(go.Bar(x=names, y=vals, marker_color=colors, marker_pattern_shape=patterns,
                           text=[fmt_reach(v) for v in vals], textposition="outside",
                           hovertemplate="%{x}: w·r = %{y:.6f}<extra></extra>"))
    fig.update_layout(title=title, xaxis_title="attribute",
                      yaxis_title="weighted reach (Gower units)", height=330, margin=dict(l=10, r=10, t=REACH_TOP, b=10),
                      yaxis_range=[0, max(max(vals) * 1.25, 1e-3)])
    return fig


@st.cache_resource(max_entries=512, show_spinner=False)
def _q_curve(spec: str) -> go.Figure:
    ro = json.loads(spec)
    c = ro["curve"]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=c["tau"], y=c["q"], mode="lines", name="this policy",
                             line=dict(color=BASE, width=2.5)))
    fig.add_trace(go.Scatter(x=c["tau"], y=c["q_standard_dp"], mode="lines", name="soft vote at standard DP",
                             line=dict(color=NEUTRAL, dash="dash")))
    fig.add_trace(go.Scatter(x=[ro["tau"]], y=[ro["q"]], mode="markers", name=f"τ = {ro['tau']:g}",
                             marker=dict(color=HIGHLIGHT, size=12, symbol="diamond")))
    log_axis(fig, c["tau"], pad=0.0)
    fig.update_layout(title="Noise ratio q against τ", xaxis_title="τ (Gower units, log scale)",
                      yaxis_title="q = σ_BF-Soft / σ_Hard (ratio)", yaxis_range=[0, 1.05], height=320,
                      margin=dict(l=10, r=10, t=70, b=10),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return fig


@st.cache_data(max_entries=512, show_spinner=False)
def _graph_data(schema_json: str, policy_json: str) -> dict[str, Any]:
    """graphs.policy_graph_data of the one attribute of ``schema_json`` under ``policy_json``,
    cached by that (public) JSON: every fresh session of a classroom draws the same default
    graphs (issue 11 load test)."""
    a = bc.Schema.from_json(schema_json).attributes[0]
    return policy_graph_data(a, bc.Policy.from_json(policy_json).policy_for(a.name))


def draw_policy_graph(a: bc.Attribute, data: dict[str, Any]) -> None:
    """Draw graphs.policy_graph_data: band diagram, line/arc graph or component clusters."""
    if data["kind"] == "summary":
        st.caption(f"Graph not drawn: {data['reason']}; {plural(data['n_edges'], 'protected pair')}.")
        return
    fig = _graph_figure(json.dumps(data, sort_keys=True))
    st.plotly_chart(fig, key=f"polfig:{a.name}", config={"displayModeBar": False})
    if data["kind"] == "band":
        if data["theta"] > 0:
            within = f"{data['theta']:g} {data['unit']}".strip()
            st.caption(f"Any two values within {within} are a protected pair; crossing "
                       f"the whole domain takes {plural(data['hops'], 'pair')}.")
        else:
            st.caption("No protected pair: every value of this attribute can be told apart.")
        return
    more = "" if data["n_drawn_edges"] == data["n_edges"] else f" (first {data['n_drawn_edges']} drawn)"
    st.caption(f"{plural(data['n_edges'], 'protected pair')}{more}; "
               f"{plural(data['n_components'], 'connected component')}.")


@st.cache_resource(max_entries=512, show_spinner=False)
def _graph_figure(spec: str) -> go.Figure:
    data = json.loads(spec)
    fig = go.Figure()
    if data["kind"] == "band":
        lo, hi, unit = data["lo"], data["hi"], data["unit"]
        fig.add_trace(go.Scatter(x=[lo, hi], y=[0, 0], mode="lines", line=dict(color="lightgray", width=10),
                                 name="public domain", hoverinfo="skip"))
        if data["theta"] > 0:
            b0, b1 = data["band"]
            fig.add_trace(go.Scatter(x=[b0, b1], y=[0, 0], mode="lines", line=dict(color=HIGHLIGHT, width=10),
                                     name=f"protected against {data['center']:g}"))
        fig.add_trace(go.Scatter(x=[data["center"]], y=[0], mode="markers", marker=dict(color="black", size=9),
                                 name="example value"))
        fig.update_layout(height=120, xaxis_title=with_unit(data.get("name") or "", unit) or unit, yaxis_visible=False, showlegend=False,
                          margin=dict(l=10, r=10, t=10, b=30))
        return fig
    nodes = data["nodes"]
    fig.add_trace(go.Scatter(x=data["edge_x"], y=data["edge_y"], mode="lines",
                             line=dict(color="gray", width=1), hoverinfo="skip"))
    fig.add_trace(go.Scatter(
        x=[n["x"] for n in nodes], y=[n["y"] for n in nodes], mode="markers+text",
        text=[short_label(n["label"]) for n in nodes], customdata=[n["label"] for n in nodes],
        textposition=[("top center" if n.get("label_side") == "above" else "bottom center") for n in nodes],
        textfont=dict(size=10), cliponaxis=False,
        marker=dict(size=10, color=[n["component"] for n in nodes], colorscale="Cividis"),
        hovertemplate="%{customdata}<extra></extra>"))
    xs = [n["x"] for n in nodes] or [0.0]
    ys = [n["y"] for n in nodes] or [0.0]
    if data["layout"] == "line":
        h = 180
        fig.update_xaxes(range=[min(xs) - 0.6, max(xs) + 0.6])
    else:  # room for the labels around every cluster
        rows = 1 + (data["n_components"] - 1) // CLUSTERS_PER_ROW
        h = 110 + 120 * rows
        fig.update_xaxes(range=[min(xs) - 1.0, max(xs) + 1.0])
        fig.update_yaxes(range=[min(ys) - 0.7, max(ys) + 0.7])
    fig.update_layout(height=min(h, 650), showlegend=False, xaxis_visible=False, yaxis_visible=False,
                      margin=dict(l=20, r=20, t=20, b=20))
    return fig
