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
    check_axis_bounds, closed_form_bound, edge_costs, exact_sensitivity, lattice_records, nearest_candidates,
    population_aware_bound, soft_votes, tightness_construction,
)

st.set_page_config(page_title="Voronoi Explorer · Blowfish Studio", layout="wide")

#: largest lattice (grid points) the page draws.
MAX_GRID_POINTS = 10_000
#: largest number of protected edges the page prices and draws.
MAX_EDGES = 20_000
MAX_CANDIDATES = 200
SQRT2 = math.sqrt(2.0)
TAUS = sorted({round(k * 10.0**e, 10) for e in range(-3, 1) for k in (1, 1.5, 2, 3, 4, 5, 6, 8)} | {10.0})
TAU_DEFAULT = 0.05
COLORSCALE = "Viridis"
N_BINS = 12
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf"]
HIGHLIGHT = "#ff2d55"
AXES = ("x", "y")


def fmt(v: float) -> str:
    """Sensitivities and bounds in the summary: 4 decimals (tiny values in e-notation)."""
    return f"{v:.2e}" if 0 < abs(v) < 1e-4 else f"{v:.4f}"


# -------------------------------------------------------------------- inputs
st.title("Voronoi Explorer")
st.caption(
    "On the decision regions (Voronoi cells) of a candidate population, a protected policy edge either stays "
    "inside one cell — the hard vote does not move, cost 0 — or crosses a boundary and moves the whole vote, "
    "cost √2 (Cor. 5.3). The soft vote softmax(−d/τ) pays a little on every edge instead and never the full √2 "
    "(Cor. 5.5). The sensitivity is the largest cost over all protected edges (Lemma 5.1)."
)

with st.sidebar:
    st.header("Domain")
    specs = {}
    for ax in AXES:
        st.markdown(f"**Attribute {ax}**")
        kind = st.selectbox(f"{ax}: type", ["numeric", "ordinal"], key=f"v_{ax}_kind")
        if kind == "numeric":
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
    st.header("Distance")
    dist_label = st.radio("Distance", ["Gower (weighted l1)", "Euclidean (weighted l2)"], key="v_distance")
    distance = "gower" if dist_label.startswith("Gower") else "euclidean"
    st.header("Policy")
    protect = st.radio("Threshold policy on", ["x", "y", "both"], index=2, key="v_protect", horizontal=True)
    thetas = {}
    for ax in AXES:
        unit = "levels" if specs[ax]["kind"] == "ordinal" else "units"
        thetas[ax] = st.number_input(f"θ on {ax} ({unit})", min_value=0.0, value=1.0, step=0.5, key=f"v_{ax}_theta")
    tau = st.select_slider("Temperature τ (log scale)", options=TAUS, value=TAU_DEFAULT, key="v_tau")

    st.header("Candidate population")
    source = st.radio("Population", ["Random (seeded)", "Edit table", "Paste x, y"], key="v_source")
    m_rand = st.number_input("candidates m", min_value=1, max_value=MAX_CANDIDATES, value=5, step=1, key="v_m")
    seed = st.number_input("seed", min_value=0, value=0, step=1, key="v_seed")

# ------------------------------------------------------------ schema, policy
try:
    attrs = []
    for ax in AXES:
        sp = specs[ax]
        if sp["kind"] == "numeric":
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
n_points = grid["x"] * grid["y"]
if n_points > MAX_GRID_POINTS:
    st.error(
        f"The grid has {grid['x']} × {grid['y']} = {n_points:,} points, above this page's limit of "
        f"{MAX_GRID_POINTS:,}. Fix: lower 'grid points' or 'levels' in the sidebar (e.g. 100 × 100)."
    )
    st.stop()


def random_population(schema: Schema, m: int, seed: int) -> pd.DataFrame:
    """m candidates drawn uniformly from the public domain (numeric values rounded to 2 decimals)."""
    C = schema.sample_uniform(np.random.default_rng(int(seed)), int(m))
    df = schema.decode(C)
    for a in schema.attributes:
        if a.kind == "numeric":
            df[a.name] = df[a.name].round(2)
    return df


base = random_population(schema, m_rand, seed)
if source == "Edit table":
    st.caption("Edit, add or delete candidates (x, y in the attributes' units; ordinal: a level 0 .. L−1).")
    pop = st.data_editor(base, num_rows="dynamic", key=f"v_editor_{seed}_{m_rand}_{hash(schema.to_json())}",
                         width="stretch")
elif source == "Paste x, y":
    default_text = "\n".join(f"{r.x}, {r.y}" for r in base.itertuples())
    text = st.sidebar.text_area("candidates, one 'x, y' per line", value=default_text, key="v_text", height=160)
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
    schema = Schema.from_json(schema_json)
    policy = Policy.from_json(policy_json)
    C = np.frombuffer(C_bytes, dtype=float).reshape(m, schema.p)
    grid = dict(grid_items)
    edges = edge_costs(schema, policy, C, tau=tau, distance=distance, grid=grid, max_edges=MAX_EDGES)
    X = lattice_records(schema, grid=grid)
    return {
        "edges": edges,
        "X": X,
        "regions": nearest_candidates(schema, C, X, distance),
        "hard": exact_sensitivity(schema, policy, C, "hard", distance=distance, grid=grid, max_edges=MAX_EDGES),
        "soft": exact_sensitivity(schema, policy, C, "soft", tau, distance=distance, grid=grid, max_edges=MAX_EDGES),
        "pop": population_aware_bound(schema, policy, C, tau, distance=distance, grid=grid, max_edges=MAX_EDGES),
        "closed": closed_form_bound(schema, policy, tau),
    }


try:
    res = analyse(schema.to_json(), policy.to_json(), np.ascontiguousarray(C).tobytes(), m, float(tau), distance,
                  tuple(sorted(grid.items())))
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


# ------------------------------------------------------------------ summary
st.subheader("Summary")
c = st.columns(3) + st.columns(3)
c[0].metric("Exact hard sensitivity", fmt(hard.l2), help="Cor. 5.3: √2 if a protected edge crosses a boundary, else 0")
c[1].metric("Exact soft sensitivity", fmt(soft.l2), help="max over protected edges of ‖v(u) − v(v)‖₂ at τ (Lemma 5.1)")
c[2].metric("Closed-form bound", fmt(closed), help="√2·tanh(r / 2τ), r = reach (Cor. 5.5): any population")
c[3].metric("Population-aware bound", fmt(popb.l2),
            help="√2·tanh(Ω/4), Ω = the largest logit oscillation this population allows (Lemma 5.4)")
c[4].metric("Boundary-crossing edges", f"{hard.crossing_edges} of {hard.edges}")
c[5].metric("Most expensive edge (soft)", edge_label(soft.edge),
            help=f"cost {fmt(soft.l2)}" if soft.edge else None)
st.caption(
    "Exact soft ≤ population-aware bound ≤ closed-form bound always holds. The closed form depends only on the "
    "policy's reach and τ; the population-aware bound also uses how the candidates sit along the protected "
    "attribute (for numeric thresholds it equals the closed form unless the candidates span less than θ). "
    + (f"Continuous axes are replaced by the grid ({', '.join(f'{k}: {v} points' for k, v in soft.grid.items())}): "
       "exact values are exact on that grid only." if soft.exact_on == "grid" else "")
)

# -------------------------------------------------------------------- panels
xs = np.unique(res["X"][:, 0])
ys = np.unique(res["X"][:, 1])
x_vals = schema.attributes[0].decode(xs).to_numpy(dtype=float)
y_vals = schema.attributes[1].decode(ys).to_numpy(dtype=float)
Z = res["regions"].reshape(xs.size, ys.size).T          # first attribute slowest -> rows are y


def region_colorscale(m: int) -> list:
    cs = []
    for j in range(m):
        col = PALETTE[j % len(PALETTE)]
        cs += [[j / m, col], [(j + 1) / m, col]]
    return cs


def panel(cost_col: str, title: str, best: dict | None) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Heatmap(z=Z, x=x_vals, y=y_vals, colorscale=region_colorscale(m), zmin=-0.5, zmax=m - 0.5,
                             showscale=False, opacity=0.28, hovertemplate="nearest candidate #%{z}<extra></extra>"))
    if len(edges):
        cost = edges[cost_col].to_numpy(dtype=float)
        ux, uy = edges["u_x"].to_numpy(dtype=float), edges["u_y"].to_numpy(dtype=float)
        vx, vy = edges["v_x"].to_numpy(dtype=float), edges["v_y"].to_numpy(dtype=float)
        bins = np.minimum((cost / SQRT2 * N_BINS).astype(int), N_BINS - 1)
        cols = sample_colorscale(COLORSCALE, [(b + 0.5) / N_BINS for b in range(N_BINS)])
        for b in range(N_BINS):
            sel = np.nonzero(bins == b)[0]
            if sel.size == 0:
                continue
            lx = np.column_stack([ux[sel], vx[sel], np.full(sel.size, np.nan)]).ravel()
            ly = np.column_stack([uy[sel], vy[sel], np.full(sel.size, np.nan)]).ravel()
            fig.add_trace(go.Scatter(x=lx, y=ly, mode="lines", line=dict(color=cols[b], width=2), hoverinfo="skip",
                                     showlegend=False))
    if best and "u" in best:
        fig.add_trace(go.Scatter(x=[best["u"]["x"], best["v"]["x"]], y=[best["u"]["y"], best["v"]["y"]],
                                 mode="lines+markers", line=dict(color=HIGHLIGHT, width=6),
                                 name=f"most expensive: {fmt(best['l2'])}", showlegend=True))
    fig.add_trace(go.Scatter(x=pop["x"], y=pop["y"], mode="markers+text", text=[f"#{i}" for i in range(m)],
                             textposition="top center", marker=dict(size=13, color="white", symbol="star",
                                                                    line=dict(color="black", width=1.5)),
                             name="candidates", showlegend=False))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", showlegend=False, hoverinfo="skip",
                             marker=dict(colorscale=COLORSCALE, cmin=0, cmax=SQRT2, color=[0],
                                         colorbar=dict(title="edge cost", tickvals=[0, 0.5, 1.0, SQRT2],
                                                       ticktext=["0", "0.5", "1", "√2"]))))
    fig.update_layout(title=title, height=480, margin=dict(l=10, r=10, t=40, b=10),
                      legend=dict(orientation="h", y=-0.08), xaxis_title="x", yaxis_title="y")
    fig.update_yaxes(scaleanchor="x", scaleratio=1)
    return fig


left, right = st.columns(2)
with left:
    st.plotly_chart(panel("hard", "Hard vote: 0 inside a cell, √2 across a boundary", hard.edge),
                    key="v_fig_hard", width="stretch")
    st.caption(f"{hard.crossing_edges} of {hard.edges} protected edges cross a decision boundary and cost √2; the "
               "others cost 0. One crossing is enough: shortening θ does not lower the hard vote's sensitivity "
               "while any edge still crosses (Cor. 5.3).")
with right:
    st.plotly_chart(panel("soft", f"Soft vote at τ = {tau:g}: graded cost", soft.edge),
                    key="v_fig_soft", width="stretch")
    if len(edges):
        inside = edges.loc[~edges["crossing"], "soft"]
        across = edges.loc[edges["crossing"], "soft"]
        parts = []
        if len(inside):
            parts.append(f"edges inside a cell cost {inside.min():.3g}–{inside.max():.3g} instead of 0")
        if len(across):
            parts.append(f"boundary-crossing edges cost {across.min():.3g}–{across.max():.3g} instead of √2 ≈ 1.414")
        st.caption("Same edges, same colour scale: " + "; ".join(parts) + ". The soft vote pays a little "
                   "everywhere to avoid paying the maximum anywhere (§4.3).")
st.caption(
    "Decision regions: every grid point is coloured by its nearest candidate under the chosen distance "
    f"({'Gower, weighted l1' if distance == 'gower' else 'weighted Euclidean'}; ties go to the lower number) — "
    "not a Euclidean Voronoi routine."
    + (" Under l1 an edge outside the candidates' span moves every distance by the same amount, so even the "
       "soft vote does not move there (cost 0)." if distance == "gower" else "")
)

# --------------------------------------------------------------- tightness
st.divider()
st.subheader("The bound is tight (Prop. 5.6)")
st.caption("Two candidates at 0 and L, a protected pair u = (L − θ)/2, v = (L + θ)/2 straddling their midpoint. "
           "With m = 2 the soft vote is a logistic function and the pair attains √2·tanh(θ / 2τ) exactly; extra "
           "candidates pushed a distance R away make it approach the bound.")
t1, t2, t3, t4 = st.columns(4)
t_tau = t1.select_slider("τ", options=TAUS, value=0.5, key="v_t_tau")
t_theta = t2.slider("θ", min_value=0.0, max_value=5.0, value=1.0, step=0.05, key="v_t_theta")
t_m = t3.number_input("candidates m", min_value=2, max_value=20, value=2, step=1, key="v_t_m")
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
k3.metric("Gap", f"{tc.gap:.2e}")
grid1 = np.linspace(-0.5, tc.L + 0.5, 400)
H = tc.schema.attributes[0].hi
P = soft_votes(tc.schema, tc.C, np.clip(grid1, 0, H)[:, None] / H, float(t_tau))
f1 = go.Figure()
f1.add_trace(go.Scatter(x=grid1, y=P[:, 0], mode="lines", name="v(x)[c₁ = 0]"))
f1.add_trace(go.Scatter(x=grid1, y=P[:, 1], mode="lines", name=f"v(x)[c₂ = L = {tc.L:g}]"))
f1.add_trace(go.Scatter(x=[0, tc.L], y=[0, 0], mode="markers", marker=dict(size=14, symbol="star", color="black"),
                        name="candidates"))
f1.add_trace(go.Scatter(x=[tc.u, tc.v], y=[0.5, 0.5], mode="lines+markers", line=dict(color=HIGHLIGHT, width=5),
                        name="protected pair (u, v)"))
f1.update_layout(height=300, margin=dict(l=10, r=10, t=20, b=10), xaxis_title="x", yaxis_title="vote share",
                 legend=dict(orientation="h", y=-0.25))
st.plotly_chart(f1, key="v_fig_tight", width="stretch")
