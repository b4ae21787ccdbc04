"""Voronoi Explorer: why the hard vote cannot exploit a policy and the soft vote can
(paper §4.3 and Figure 1; Lemma 5.1, Cor. 5.3, Lemma 5.4, Cor. 5.5, Prop. 5.6).

Thin page: widgets and plotly figures.  Every number comes from blowfish_core.analysis.exact
(exact sensitivities, per-edge costs, the population-aware and closed-form bounds, the
tightness construction) on the page's own two-attribute domain -- it does not use the
shared studio state.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.colors import sample_colorscale

from blowfish_core import Attribute, AttributePolicy, BlowfishError, Policy, Schema
from blowfish_core.analysis.exact import (
    EnumerationLimitError, check_axis_bounds, closed_form_bound, edge_costs, exact_sensitivity, lattice_records,
    nearest_candidates, population_aware_bound, soft_votes, tightness_construction,
)
from blowfish_core.model.domain import ATTRIBUTE_TYPES
from blowfish_core.workflows.verdicts import fmt_gap
from studio import flow
from studio.plots import HIGHLIGHT, OKABE_ITO, SEQUENCE, chart_with_table
from studio.state import TAU_KEY, get_studio, get_tau, on_tau_change
from studio.projector import for_projector, projector_toggle
from studio.voronoi_ui import CLICK_RADIUS, click_radius, takeaway, toggle_candidate

st.set_page_config(page_title="Voronoi Explorer · Blowfish Studio", layout="wide")

#: largest lattice (grid points) the page draws.
MAX_GRID_POINTS = 10_000
#: largest number of protected edges the page prices and draws.
MAX_EDGES = 20_000
MAX_CANDIDATES = 200
SQRT2 = math.sqrt(2.0)
TAUS = sorted({round(k * 10.0**e, 10) for e in range(-3, 1) for k in (1, 1.5, 2, 3, 4, 5, 6, 8)} | {10.0})
#: edge cost 0 -> light grey, sqrt(2) -> vermillion (Okabe-Ito; no yellow mesh on many crossing edges).
COLORSCALE = [[0.0, "#d9d9d9"], [0.5, OKABE_ITO["orange"]], [1.0, OKABE_ITO["vermillion"]]]
N_BINS = 12
PALETTE = SEQUENCE
AXES = ("x", "y")
#: click-to-add targets (one per grid point) are drawn up to this many grid points.
MAX_CLICK_POINTS = 2_500
CLICK_KEY, CLICK_REV = "v_click_pop", "v_click_rev"
#: the candidate count after a click, written into the m widget ("v_m") at the top of the next run.
M_PENDING = "v_m_pending"
#: session key of the tightness expander's open state (lazy: its content runs only while it is open).
TIGHT_KEY = "v_tight_open"


def fmt(v: float) -> str:
    """Sensitivities and bounds in the summary: 4 decimals (tiny values in e-notation)."""
    return f"{v:.2e}" if 0 < abs(v) < 1e-4 else f"{v:.4f}"


# -------------------------------------------------------------------- inputs
studio = get_studio()
projector_toggle()
st.title("Voronoi Explorer")
st.caption(
    "A protected policy edge either stays inside one decision region (Voronoi cell) of the candidates — the hard "
    "vote does not move, cost 0 — or crosses a boundary and moves the whole vote, cost √2. The soft vote pays a "
    "little on every edge instead and never the full √2. The sensitivity is the largest cost over all edges."
)
flow.tutorial("Move τ, θ and m and watch the takeaway line: it compares what one boundary-crossing protected step "
              "costs the hard vote (always √2) with what it costs the soft vote. Click a star to remove a "
              "candidate, click an empty spot of the hard-vote plot to add one.")

# the explorer's tau is the session's (TAU_KEY: the Policy step, Run and Tune τ read and write the same key)
_session_tau = get_tau()
if not (math.isfinite(_session_tau) and _session_tau > 0):
    st.warning(f"The session's τ = {_session_tau:g} is not a temperature. Fix: choose τ > 0 in the Policy or Run step.")
    st.stop()
tau_options = sorted(set(TAUS) | {_session_tau})
k1, k2, k3 = st.columns(3)
tau = k1.select_slider("Temperature τ (Gower units, log scale)", options=tau_options, key=TAU_KEY,
                       format_func=lambda t: f"{t:g}", on_change=on_tau_change, args=("Voronoi Explorer",))
if studio.extras.get("tau_source"):
    k1.caption(f"τ follows the session ({tau:g}, from {studio.extras['tau_source']}).")

with st.expander("Domain, distance and policy"):
    specs = {}
    dcols = st.columns(2)
    for ax, col in zip(AXES, dcols):
        with col:
            st.markdown(f"**Attribute {ax}**")
            kind = st.selectbox(f"{ax}: type", ["numeric", "ordinal"], key=f"v_{ax}_kind")
            if ATTRIBUTE_TYPES[kind].bounded:  # the chosen type's declared capability (numeric: lo, hi)
                c1, c2 = st.columns(2)
                lo = c1.number_input(f"{ax}: lower bound", value=0.0, key=f"v_{ax}_lo", format="%g")
                hi = c2.number_input(f"{ax}: upper bound", value=10.0, key=f"v_{ax}_hi", format="%g")
                g = st.number_input(f"{ax}: grid points", min_value=2, max_value=1000, value=11, step=1,
                                    key=f"v_{ax}_grid", help="the continuous axis is replaced by this many points; "
                                    "exact values are exact on this grid only")
                specs[ax] = {"kind": kind, "lo": lo, "hi": hi, "grid": int(g)}
            else:
                L = st.number_input(f"{ax}: levels (0 .. L-1)", min_value=2, max_value=1000, value=11, step=1,
                                    key=f"v_{ax}_levels")
                specs[ax] = {"kind": kind, "levels": int(L), "grid": int(L)}
            specs[ax]["weight"] = st.number_input(
                f"{ax}: Gower weight w", min_value=0.001, max_value=1000.0, value=0.5, step=0.1, format="%.3f",
                key=f"v_{ax}_w", help="default 1/p = 0.5; use the axis range to measure distance in raw units")
    dist_label = st.radio("Distance", ["Gower (weighted l1)", "Euclidean (weighted l2)"], key="v_distance",
                          horizontal=True)
    distance = "gower" if dist_label.startswith("Gower") else "euclidean"
    protect = st.radio("Threshold policy on", ["x", "y", "both"], index=2, key="v_protect", horizontal=True)
    unit_y = "units" if ATTRIBUTE_TYPES[specs["y"]["kind"]].bounded else "levels"
    theta_y = st.number_input(f"θ on y ({unit_y})", min_value=0.0, value=1.0, step=0.5, key="v_y_theta")
    source = st.radio("Population", ["Random (seeded)", "Edit table", "Paste x, y"], key="v_source",
                      horizontal=True)
    seed = st.number_input("seed of the random population", min_value=0, value=0, step=1, key="v_seed")

unit_x = "units" if ATTRIBUTE_TYPES[specs["x"]["kind"]].bounded else "levels"
thetas = {"x": k2.number_input(f"θ: protected distance on x ({unit_x})", min_value=0.0, value=1.0, step=0.5,
                               key="v_x_theta", help="values of x within θ are a protected pair; θ on y is in "
                               "'Domain, distance and policy'"),
          "y": theta_y}
# the m read-out counts the candidates shown: a click that adds or removes one writes the new count here
# (M_PENDING, applied before the widget is drawn on the rerun); typing another m draws a new random population.
if M_PENDING in st.session_state:
    st.session_state["v_m"] = st.session_state.pop(M_PENDING)
st.session_state.setdefault("v_m", 5)
m_rand = k3.number_input("candidates m", min_value=1, max_value=MAX_CANDIDATES, step=1, key="v_m",
                         help="number of candidates shown (click the plot to add or remove one; a new m draws a "
                              "new random population)")

# ------------------------------------------------------------ schema, policy
try:
    attrs = []
    for ax in AXES:
        sp = specs[ax]
        if ATTRIBUTE_TYPES[sp["kind"]].bounded:
            lo_, hi_ = check_axis_bounds(f"attribute {ax}", sp["lo"], sp["hi"])
            attrs.append(Attribute(ax, "numeric", lo=lo_, hi=hi_, weight=float(sp["weight"])))
        else:
            attrs.append(Attribute(ax, "ordinal", levels=list(range(sp["levels"])), weight=float(sp["weight"])))
    schema = Schema(attrs)
    protected_axes = list(AXES) if protect == "both" else [protect]
    policy = Policy({ax: AttributePolicy("threshold", theta=float(thetas[ax])) for ax in protected_axes})
    policy.validate(schema)
except BlowfishError as e:
    st.error(f"Domain or policy: {e}")
    st.stop()

grid = {ax: specs[ax]["grid"] for ax in AXES}
#: each axis's (lo, hi) in plot units: the click radius is a fraction of it (CLICK_RADIUS).
axis_ranges = {a.name: ((float(a.lo), float(a.hi)) if a.bounded else (0.0, float(len(a.levels) - 1)))
               for a in schema.attributes}
n_points = grid["x"] * grid["y"]
if n_points > MAX_GRID_POINTS:
    st.error(
        f"The grid has {grid['x']} × {grid['y']} = {n_points:,} points, above this page's limit of "
        f"{MAX_GRID_POINTS:,}. Fix: lower 'grid points' or 'levels' under 'Domain, distance and policy' "
        "(e.g. 100 × 100)."
    )
    _cf = closed_form_bound(schema, policy, float(tau))
    st.markdown(f"Without the exact search, the closed-form bound still holds for every population: the soft vote "
                f"costs at most **√2·tanh(r / 2τ) = {fmt(_cf)}** per protected step, against the hard vote's √2 = "
                f"1.414 on a boundary-crossing step ({SQRT2 / _cf:.1f}× less noise)." if _cf > 0 else
                "The closed-form bound is 0: the policy protects no pair.")
    st.stop()


def random_population(schema: Schema, m: int, seed: int) -> pd.DataFrame:
    """m candidates drawn uniformly from the public domain (numeric values rounded to 2 decimals)."""
    C = schema.sample_uniform(np.random.default_rng(int(seed)), int(m))
    df = schema.decode(C)
    for a in schema.attributes:
        if a.bounded:
            df[a.name] = df[a.name].round(2)
    return df


base = random_population(schema, m_rand, seed)
base_sig = (source, int(seed), schema.to_json())
_ov = st.session_state.get(CLICK_KEY)
if _ov is not None and (_ov["base"] != base_sig or _ov.get("m") != int(m_rand)):
    st.session_state.pop(CLICK_KEY, None)
    _ov = None
if source == "Edit table":
    st.caption("Edit, add or delete candidates (x, y in the attributes' units; ordinal: a level 0 .. L−1).")
    pop = st.data_editor(base, num_rows="dynamic", key=f"v_editor_{seed}_{m_rand}_{hash(schema.to_json())}",
                         width="stretch")
elif source == "Paste x, y":
    default_text = "\n".join(f"{r.x}, {r.y}" for r in base.itertuples())
    text = st.text_area("candidates, one 'x, y' per line", value=default_text, key="v_text", height=160)
    rows = []
    for ln, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.replace(";", ",").split(",")]
        if len(parts) != 2:
            st.error(f"Population line {ln} ('{line}') needs two values 'x, y'. Fix: write e.g. '2.5, 7'.")
            st.stop()
        rows.append(parts)
    pop = pd.DataFrame(rows, columns=list(AXES))
else:
    pop = base
if _ov is not None:
    pop = _ov["pop"]
    st.caption(f"{len(_ov['pop'])} candidates after your clicks on the plot.")
    st.button("Reset the clicked candidates", key="v_click_reset", on_click=lambda: st.session_state.pop(CLICK_KEY))

pop = pd.DataFrame(pop).reset_index(drop=True)
if len(pop) == 0:
    st.error("The candidate population is empty. Fix: add at least one candidate (one 'x, y' row).")
    st.stop()
if len(pop) > MAX_CANDIDATES:
    st.error(f"{len(pop)} candidates exceed this page's limit of {MAX_CANDIDATES}. Fix: remove some rows.")
    st.stop()
try:
    for ax in AXES:
        num = pd.to_numeric(pop[ax], errors="coerce")
        if num.isna().any():
            bad = pop[ax][num.isna()].iloc[0]
            st.error(f"Candidate column '{ax}': {int(num.isna().sum())} value(s) are missing or not numbers "
                     f"(e.g. {bad!r}). Fix: give a number for every candidate.")
            st.stop()
        pop[ax] = num
    C = schema.encode(pop)
except BlowfishError as e:
    st.error(f"Candidate population: {e}")
    st.stop()

m = C.shape[0]
st.session_state["voronoi:last"] = {"population": pop.copy(), "schema": schema.to_dict(),
                                    "policy": policy.to_dict(), "tau": tau, "distance": distance, "grid": grid}

# ------------------------------------------------------------- clear messages
if m == 1:
    st.info("One candidate: every record votes for it, under the hard and the soft vote alike, so no edge moves "
            "a vote and both exact sensitivities are 0. The closed-form bound does not look at the population "
            "and stays positive. Add candidates to see decision boundaries.")
seen: dict[tuple, list[int]] = {}
for i, row in enumerate(C):
    seen.setdefault(tuple(row), []).append(i)
groups = [ix for ix in seen.values() if len(ix) > 1]
if groups:
    st.warning("Duplicate candidates " + "; ".join("#" + " = #".join(map(str, g)) for g in groups) + ": they "
               "share one decision region (the hard vote gives ties to the lower number) and split every soft vote "
               "equally. The numbers below are still exact for this population.")
no_edges = [ax for ax in protected_axes if policy.policy_for(ax).theta == 0]
if no_edges and len(no_edges) == len(protected_axes):
    st.info("θ = 0 protects no pair: the policy graph has no edges, so every sensitivity — hard, soft and both "
            "bounds — is 0 (Lemma 5.1 with an empty edge set). Raise θ to protect neighbouring values.")


# ---------------------------------------------------------------- analysis
@st.cache_data(show_spinner=False, max_entries=16)
def analyse(schema_json: str, policy_json: str, C_bytes: bytes, m: int, tau: float, distance: str,
            grid_items: tuple) -> dict:
    """Regions always; the exact search (edges, hard, soft, population-aware) unless it exceeds its
    limit, then 'limit' holds the engine's message and the closed-form bound stands alone."""
    schema = Schema.from_json(schema_json)
    policy = Policy.from_json(policy_json)
    C = np.frombuffer(C_bytes, dtype=float).reshape(m, schema.p)
    grid = dict(grid_items)
    X = lattice_records(schema, grid=grid)
    out = {"X": X, "regions": nearest_candidates(schema, C, X, distance),
           "closed": closed_form_bound(schema, policy, tau), "limit": None}
    try:
        out.update({
            "edges": edge_costs(schema, policy, C, tau=tau, distance=distance, grid=grid, max_edges=MAX_EDGES),
            "hard": exact_sensitivity(schema, policy, C, "hard", distance=distance, grid=grid, max_edges=MAX_EDGES),
            "soft": exact_sensitivity(schema, policy, C, "soft", tau, distance=distance, grid=grid,
                                      max_edges=MAX_EDGES),
            "pop": population_aware_bound(schema, policy, C, tau, distance=distance, grid=grid, max_edges=MAX_EDGES),
        })
    except EnumerationLimitError as e:
        out.update({"edges": pd.DataFrame(), "hard": None, "soft": None, "pop": None, "limit": str(e)})
    return out


akey = (schema.to_json(), policy.to_json(), np.ascontiguousarray(C).tobytes(), m, float(tau), distance,
        tuple(sorted(grid.items())))
try:
    res = analyse(*akey)
except BlowfishError as e:
    st.error(f"{e}")
    st.stop()

hard, soft, popb, closed = res["hard"], res["soft"], res["pop"], res["closed"]
edges = res["edges"]


def edge_label(e: dict | None) -> str:
    if not e or "u" not in e:
        return "—"
    def g(v) -> str:
        return f"{float(v):.4g}"

    return f"({g(e['u']['x'])}, {g(e['u']['y'])}) → ({g(e['v']['x'])}, {g(e['v']['y'])})"


# ------------------------------------------------------------------ takeaway and summary
st.success(takeaway(None if hard is None else hard.l2, None if soft is None else soft.l2, closed),
           icon=":material/lightbulb:")
if res["limit"]:
    st.error(f"Exact search skipped: {res['limit']} The closed-form bound below holds for every population.")
with st.expander("All numbers", expanded=False):
    if hard is None:
        st.metric("Closed-form bound", fmt(closed), help="√2·tanh(r / 2τ), r = reach (Cor. 5.5): any population")
    else:
        c = st.columns(3) + st.columns(3)
        c[0].metric("Exact hard sensitivity", fmt(hard.l2),
                    help="√2 if a protected edge crosses a boundary, else 0 (Cor. 5.3)")
        c[1].metric("Exact soft sensitivity", fmt(soft.l2),
                    help="the largest cost ‖v(u) − v(v)‖₂ over the protected edges at τ (Lemma 5.1)")
        c[2].metric("Closed-form bound", fmt(closed),
                    help="√2·tanh(r / 2τ), r = reach (Cor. 5.5): holds for any population")
        c[3].metric("Population-aware bound", fmt(popb.l2),
                    help="√2·tanh(Ω/4), Ω = the largest logit oscillation this population allows (Lemma 5.4)")
        c[4].metric("Boundary-crossing edges", f"{hard.crossing_edges} of {hard.edges}")
        c[5].metric("Most expensive edge (soft)", edge_label(soft.edge),
                    help=f"cost {fmt(soft.l2)}" if soft.edge else None)
        st.caption(
            "Exact soft ≤ population-aware bound ≤ closed-form bound always holds. The closed form depends only on "
            "the policy's reach and τ; the population-aware bound also uses where the candidates sit along the "
            "protected attribute (for numeric thresholds it equals the closed form unless the candidates span "
            "less than θ). "
            + (f"Continuous axes are replaced by the grid "
               f"({', '.join(f'{k}: {v} points' for k, v in soft.grid.items())}): exact values are exact on that "
               "grid only." if soft.exact_on == "grid" else "")
        )

# -------------------------------------------------------------------- panels
def region_colorscale(m: int) -> list:
    cs = []
    for j in range(m):
        col = PALETTE[j % len(PALETTE)]
        cs += [[j / m, col], [(j + 1) / m, col]]
    return cs


# Figures are cached by their inputs and shared read-only (st.plotly_chart copies a figure, never
# changes it): every student of a class opens the same default picture and moves the same sliders,
# and building the two panels' plotly figures was the larger part of this page's server time
# (issue 11 load test, docs/BENCHMARKS.md).
@st.cache_resource(max_entries=64, show_spinner=False)
def panel(akey: tuple, pop_xy: tuple, vote: str, title: str, clickable: bool = False) -> tuple[go.Figure, dict]:
    """A decision-region panel of ``vote`` ("hard" / "soft") for the analysis ``analyse(*akey)`` and the
    candidates ``pop_xy`` = (x values, y values); returns (figure, {'cand': curve number, 'grid': curve
    number or None})."""
    res = analyse(*akey)
    sch = Schema.from_json(akey[0])
    m_, n_pts = len(pop_xy[0]), int(np.prod([v for _, v in akey[6]]))
    edges_ = res["edges"]
    exact = res[vote]
    cost_col = vote if exact is not None else None
    best = exact.edge if exact is not None else None
    xs_, ys_ = np.unique(res["X"][:, 0]), np.unique(res["X"][:, 1])
    x_vals = sch.attributes[0].decode(xs_).to_numpy(dtype=float)
    y_vals = sch.attributes[1].decode(ys_).to_numpy(dtype=float)
    Z = res["regions"].reshape(xs_.size, ys_.size).T          # first attribute slowest -> rows are y
    axis_title = {a.name: f"{a.name} (levels)" if a.ordered and not a.bounded else f"{a.name} ({a.unit})" if a.unit
                  else a.name for a in sch.attributes}  # no placeholder unit: the name alone
    fig = go.Figure()
    fig.add_trace(go.Heatmap(z=Z, x=x_vals, y=y_vals, colorscale=region_colorscale(m_), zmin=-0.5, zmax=m_ - 0.5,
                             showscale=False, opacity=0.22, hovertemplate="nearest candidate #%{z}<extra></extra>"))
    curves = {"grid": None}
    if clickable and n_pts <= MAX_CLICK_POINTS:
        gx, gy = np.meshgrid(x_vals, y_vals)
        fig.add_trace(go.Scatter(x=gx.ravel(), y=gy.ravel(), mode="markers", name="add a candidate here",
                                 marker=dict(size=9, color="rgba(0,0,0,0.02)"), showlegend=False,
                                 hovertemplate="click: add a candidate at (%{x:g}, %{y:g})<extra></extra>"))
        curves["grid"] = len(fig.data) - 1
    if cost_col is not None and len(edges_):
        cost = edges_[cost_col].to_numpy(dtype=float)
        ux, uy = edges_["u_x"].to_numpy(dtype=float), edges_["u_y"].to_numpy(dtype=float)
        vx, vy = edges_["v_x"].to_numpy(dtype=float), edges_["v_y"].to_numpy(dtype=float)
        bins = np.minimum((cost / SQRT2 * N_BINS).astype(int), N_BINS - 1)
        cols = sample_colorscale(COLORSCALE, [(b + 0.5) / N_BINS for b in range(N_BINS)])
        width = 2 if len(edges_) <= 400 else 1
        for b in range(N_BINS):
            sel = np.nonzero(bins == b)[0]
            if sel.size == 0:
                continue
            lx = np.column_stack([ux[sel], vx[sel], np.full(sel.size, np.nan)]).ravel()
            ly = np.column_stack([uy[sel], vy[sel], np.full(sel.size, np.nan)]).ravel()
            fig.add_trace(go.Scatter(x=lx, y=ly, mode="lines", line=dict(color=cols[b], width=width),
                                     hoverinfo="skip", showlegend=False))
    if best and "u" in best:
        fig.add_trace(go.Scatter(x=[best["u"]["x"], best["v"]["x"]], y=[best["u"]["y"], best["v"]["y"]],
                                 mode="lines+markers", line=dict(color=OKABE_ITO["black"], width=5),
                                 name=f"most expensive edge: {fmt(best['l2'])}", showlegend=True))
    fig.add_trace(go.Scatter(x=list(pop_xy[0]), y=list(pop_xy[1]), mode="markers+text",
                             text=[f" #{i}" for i in range(m_)],
                             textposition="middle right", textfont=dict(size=12), cliponaxis=False,
                             marker=dict(size=15, color="white", symbol="star", line=dict(color="black", width=1.5)),
                             name="candidates", showlegend=False,
                             hovertemplate="candidate #%{pointNumber}: (%{x:g}, %{y:g})"
                                           + ("<br>click: remove it" if clickable else "") + "<extra></extra>"))
    curves["cand"] = len(fig.data) - 1
    if cost_col is not None:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", showlegend=False, hoverinfo="skip",
                                 marker=dict(colorscale=COLORSCALE, cmin=0, cmax=SQRT2, color=[0],
                                             colorbar=dict(title="edge cost", tickvals=[0, 0.5, 1.0, SQRT2],
                                                           ticktext=["0", "0.5", "1", "√2"]))))
    fig.update_layout(title=dict(text=title, y=0.98), height=500, margin=dict(l=10, r=10, t=70, b=10),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
                      xaxis_title=axis_title["x"], yaxis_title=axis_title["y"])
    fig.update_yaxes(scaleanchor="x", scaleratio=1)
    return fig, curves


def edge_table(col: str | None) -> pd.DataFrame:
    if col is None or not len(edges):
        return pd.DataFrame({"candidate": range(m), "x": pop["x"], "y": pop["y"]})
    t = edges[["u_x", "u_y", "v_x", "v_y", "crossing", col]].copy()
    return t.sort_values(col, ascending=False).head(500).rename(columns={col: f"{col} cost"})


rev = int(st.session_state.get(CLICK_REV, 0))
left, right = st.columns(2)
with left:
    pop_xy = (tuple(pop["x"].astype(float)), tuple(pop["y"].astype(float)))
    fig_h, curves_h = panel(akey, pop_xy, "hard", "Hard vote: 0 inside a cell, √2 across a boundary", clickable=True)
    event = chart_with_table(for_projector(fig_h), edge_table("hard" if hard is not None else None), key=f"v_fig_hard_{rev}",
                             on_select="rerun", selection_mode="points", width="stretch")
    if hard is not None:
        st.caption(f"{hard.crossing_edges} of {hard.edges} protected edges cross a decision boundary and cost √2; "
                   "the others cost 0. One crossing is enough: shortening θ does not lower the hard vote's "
                   "sensitivity while any edge still crosses.")
    st.caption(f"Click on or near a star (within {CLICK_RADIUS:.0%} of each axis's range) to remove that candidate; "
               "click an empty spot to add one there"
               + ("" if n_points <= MAX_CLICK_POINTS else f" (adding works up to {MAX_CLICK_POINTS:,} grid points)")
               + ".")
with right:
    fig_s, _ = panel(akey, pop_xy, "soft", f"Soft vote at τ = {tau:g}: graded cost")
    chart_with_table(for_projector(fig_s), edge_table("soft" if soft is not None else None), key="v_fig_soft", width="stretch")
    if len(edges):
        inside = edges.loc[~edges["crossing"], "soft"]
        across = edges.loc[edges["crossing"], "soft"]
        parts = []
        if len(inside):
            parts.append(f"edges inside a cell cost {inside.min():.3g}–{inside.max():.3g} instead of 0")
        if len(across):
            parts.append(f"boundary-crossing edges cost {across.min():.3g}–{across.max():.3g} instead of √2 ≈ 1.414")
        st.caption("Same edges, same colour scale: " + "; ".join(parts) + ". The soft vote pays a little "
                   "everywhere to avoid paying the maximum anywhere.")

_points = list(((event or {}).get("selection") or {}).get("points") or [])
if _points:
    _new, _msg = toggle_candidate(pop, _points[0], curves_h["cand"], curves_h["grid"], ranges=axis_ranges,
                                  radius=click_radius(grid))
    if _msg:
        st.session_state["v_click_msg"] = _msg
    if len(_new) != len(pop):
        st.session_state[CLICK_KEY] = {"base": base_sig, "pop": _new, "m": len(_new)}
        st.session_state[M_PENDING] = len(_new)
    st.session_state[CLICK_REV] = rev + 1
    st.rerun()
if st.session_state.get("v_click_msg"):
    st.toast(st.session_state.pop("v_click_msg"))

with st.expander("How the regions are drawn"):
    st.caption(
        "Decision regions: every grid point is coloured by its nearest candidate under the chosen distance "
        f"({'Gower, weighted l1' if distance == 'gower' else 'weighted Euclidean'}; ties go to the lower number) — "
        "not a Euclidean Voronoi routine."
        + (" Under l1 an edge outside the candidates' span moves every distance by the same amount, so even the "
           "soft vote does not move there (cost 0)." if distance == "gower" else "")
    )

# --------------------------------------------------------------- tightness
@st.cache_resource(max_entries=64, show_spinner=False)
def tightness_figure(theta: float, tau: float, m: int, R: float | None) -> tuple[go.Figure, pd.DataFrame]:
    """The vote shares v(x) of the tightness construction (blowfish_core tightness_construction with
    these arguments and L = max(2 theta, 2)) on 400 points of the line, and every 20th point as the
    chart's table; cached and shared read-only like the panels."""
    tc = tightness_construction(theta, tau, m=m, L=max(2.0 * theta, 2.0), R=R)
    grid1 = np.linspace(-0.5, tc.L + 0.5, 400)
    H = tc.schema.attributes[0].hi
    P = soft_votes(tc.schema, tc.C, np.clip(grid1, 0, H)[:, None] / H, tau)
    f1 = go.Figure()
    f1.add_trace(go.Scatter(x=grid1, y=P[:, 0], mode="lines", name="v(x)[c₁ = 0]",
                            line=dict(color=OKABE_ITO["blue"])))
    f1.add_trace(go.Scatter(x=grid1, y=P[:, 1], mode="lines", name=f"v(x)[c₂ = L = {tc.L:g}]",
                            line=dict(color=OKABE_ITO["orange"], dash="dash")))
    f1.add_trace(go.Scatter(x=[0, tc.L], y=[0, 0], mode="markers", marker=dict(size=14, symbol="star", color="black"),
                            name="candidates"))
    f1.add_trace(go.Scatter(x=[tc.u, tc.v], y=[0.5, 0.5], mode="lines+markers", line=dict(color=HIGHLIGHT, width=5),
                            name="protected pair (u, v)"))
    f1.update_layout(height=320, margin=dict(l=10, r=10, t=40, b=10), xaxis_title="x (units of the line)",
                     yaxis_title="vote share (0 to 1)", legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    return f1, pd.DataFrame({"x": grid1[::20], "v(x)[c1]": P[::20, 0], "v(x)[c2]": P[::20, 1]})


def tightness_panel() -> None:
    """The construction's controls, its three numbers and its chart (inside the open expander)."""
    st.caption("Its own small example, separate from the plane above: two candidates at 0 and L, a protected pair "
               "u = (L − θ)/2, v = (L + θ)/2 straddling their midpoint. With m = 2 the soft vote is a logistic "
               "function and the pair attains √2·tanh(θ / 2τ) exactly; extra candidates pushed a distance R away "
               "make it approach the bound.")
    t1, t2, t3, t4 = st.columns(4)
    t_tau = t1.select_slider("τ of the construction", options=TAUS, value=0.5, key="v_t_tau")
    t_theta = t2.slider("θ of the construction", min_value=0.0, max_value=5.0, value=1.0, step=0.05, key="v_t_theta")
    t_m = t3.number_input("candidates in the construction", min_value=2, max_value=20, value=2, step=1, key="v_t_m")
    t_R = t4.slider("R (distance of extra candidates)", min_value=0.0, max_value=20.0, value=10.0, step=0.5,
                    key="v_t_R", disabled=t_m == 2)
    if t_theta == 0:
        st.info("θ = 0: u = v, nothing is protected, attained value and bound are both 0. Raise θ.")
    try:
        tc = tightness_construction(float(t_theta), float(t_tau), m=int(t_m), L=max(2.0 * t_theta, 2.0),
                                    R=float(t_R) if t_m > 2 else None)
    except BlowfishError as e:
        st.error(f"Tightness construction: {e}")
        st.stop()
    k1, k2, k3 = st.columns(3)
    k1.metric("Attained ‖v(u) − v(v)‖₂", fmt(tc.attained))
    k2.metric("Bound √2·tanh(θ/2τ)", fmt(tc.bound))
    k3.metric("Gap", fmt_gap(tc.gap), help="bound − attained; '0 (exact)' below 10⁻¹² (floating-point rounding)")
    f1, table1 = tightness_figure(float(t_theta), float(t_tau), int(t_m), float(t_R) if t_m > 2 else None)
    chart_with_table(for_projector(f1), table1, key="v_fig_tight", width="stretch")


# Lazy (on_change="rerun"): the construction, its numbers and its chart are computed and sent only while the
# expander is open (issue 11: a first render does no work for what a student does not see).
_tight = st.expander("The bound is tight (Prop. 5.6): a construction on one line", expanded=False, key=TIGHT_KEY,
                     on_change="rerun")
if _tight.open:
    with _tight:
        tightness_panel()
