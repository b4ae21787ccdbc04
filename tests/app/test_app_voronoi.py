"""AppTest tests of the Voronoi Explorer (pages/voronoi.py).

Must-show (issue 4): the page loads with defaults; the summary numbers equal the engine's
(blowfish_core.analysis.exact) for the same inputs; one candidate, duplicate candidates, theta = 0 and
a grid above the limit each give a clear message (st.info / st.warning / st.error) and no
exception.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from blowfish_core import Attribute, AttributePolicy, Policy, Schema
from blowfish_core.analysis.exact import (
    closed_form_bound, exact_sensitivity, population_aware_bound, tightness_construction,
)

from studio.state import DEFAULTS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "pages", "voronoi.py")
TIMEOUT = 60
#: the explorer's tau before anyone chose one: the session's default (issue 22: one tau key, studio.state.TAU_KEY)
VTAU = DEFAULTS["tau"]
LABELS = ["Exact hard sensitivity", "Exact soft sensitivity", "Closed-form bound", "Population-aware bound",
          "Boundary-crossing edges", "Most expensive edge (soft)"]


def fmt(v: float) -> str:
    return f"{v:.2e}" if 0 < abs(v) < 1e-4 else f"{v:.4f}"


TIGHT = "v_tight_open"  # the tightness expander's state key (lazy: its content runs only while open)


def open_tightness(at: AppTest) -> AppTest:
    """Open the lazy tightness expander, as a click on it does (one rerun)."""
    at.session_state[TIGHT] = True
    return at.run()


@pytest.fixture(scope="module")
def loaded() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    return open_tightness(at)


def test_closed_expanders_do_no_work():
    """Issue 11 (classroom load): the tightness construction and the charts' data tables are built only
    while their expander is open; the first render has the two region panels and no tightness metric."""
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2
    assert "Attained ‖v(u) − v(v)‖₂" not in metrics(at)
    tables = [e for e in at.expander if e.label == "Data of this chart (table)"]
    assert len(tables) == 2 and all(len(e.children) == 0 for e in tables)
    at.session_state["v_fig_soft:table"] = True
    at.run()
    soft_table = [e for e in at.expander if e.label == "Data of this chart (table)"][1]
    assert soft_table.markdown[0].value.startswith("| u_x | u_y | v_x | v_y | crossing | soft cost |")
    open_tightness(at)
    assert len(at.get("plotly_chart")) == 3
    assert metrics(at)["Attained ‖v(u) − v(v)‖₂"] == fmt(SQ2T1)


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def texts(elements) -> str:
    return " | ".join(str(e.value) for e in elements)


def default_schema(w: float = 0.5) -> Schema:
    return Schema([Attribute("x", "numeric", lo=0.0, hi=10.0, weight=w),
                   Attribute("y", "numeric", lo=0.0, hi=10.0, weight=w)])


def engine_summary(schema, policy, C, tau, distance, grid) -> dict[str, str]:
    h = exact_sensitivity(schema, policy, C, "hard", distance=distance, grid=grid)
    s = exact_sensitivity(schema, policy, C, "soft", tau, distance=distance, grid=grid)
    return {
        "Exact hard sensitivity": fmt(h.l2),
        "Exact soft sensitivity": fmt(s.l2),
        "Closed-form bound": fmt(closed_form_bound(schema, policy, tau)),
        "Population-aware bound": fmt(population_aware_bound(schema, policy, C, tau, distance=distance, grid=grid).l2),
        "Boundary-crossing edges": f"{h.crossing_edges} of {h.edges}",
    }


def paste(at: AppTest, text: str) -> AppTest:
    at.radio(key="v_source").set_value("Paste x, y").run()
    at.text_area(key="v_text").input(text).run()
    return at


# ---------------------------------------------------------------- defaults
def test_defaults_load_and_match_the_engine(loaded):
    at = loaded
    assert not at.exception
    assert not at.error
    got = metrics(at)
    for label in LABELS:
        assert label in got, f"missing metric {label}"
    # the population the page used (random, seed 0, m = 5), rebuilt here from the page's own record
    last = at.session_state["voronoi:last"]
    assert len(last["population"]) == 5 and last["tau"] == VTAU and last["distance"] == "gower"
    schema = default_schema()
    policy = Policy({"x": AttributePolicy("threshold", theta=1.0), "y": AttributePolicy("threshold", theta=1.0)})
    C = schema.encode(last["population"])
    want = engine_summary(schema, policy, C, VTAU, "gower", {"x": 11, "y": 11})
    for label, value in want.items():
        assert got[label] == value, label
    # the default population is the seeded uniform draw, rounded to 2 decimals
    draw = schema.decode(schema.sample_uniform(np.random.default_rng(0), 5)).round(2)
    np.testing.assert_allclose(last["population"][["x", "y"]].to_numpy(dtype=float), draw.to_numpy(dtype=float))
    # tightness panel defaults: tau = 0.5, theta = 1, m = 2 -> sqrt(2) tanh(1)
    assert got["Attained ‖v(u) − v(v)‖₂"] == fmt(SQ2T1)
    assert got["Bound √2·tanh(θ/2τ)"] == fmt(SQ2T1)
    assert len(at.get("plotly_chart")) == 3


SQ2T1 = math.sqrt(2) * math.tanh(1.0)


def test_pasted_population_summary_equals_engine_gower_and_euclidean():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    paste(at, "2, 2\n7, 3\n4, 8\n9.5, 9")
    assert not at.exception and not at.error
    schema = default_schema()
    policy = Policy({"x": AttributePolicy("threshold", theta=1.0), "y": AttributePolicy("threshold", theta=1.0)})
    C = schema.encode(pd.DataFrame({"x": [2, 7, 4, 9.5], "y": [2, 3, 8, 9]}))
    got = metrics(at)
    for label, value in engine_summary(schema, policy, C, VTAU, "gower", {"x": 11, "y": 11}).items():
        assert got[label] == value, label
    soft = exact_sensitivity(schema, policy, C, "soft", VTAU, grid=11)
    u, v = soft.edge["u"], soft.edge["v"]
    assert got["Most expensive edge (soft)"] == f"({u['x']:.4g}, {u['y']:.4g}) → ({v['x']:.4g}, {v['y']:.4g})"
    # Euclidean, protect x only, tau 0.2
    at.radio(key="v_distance").set_value("Euclidean (weighted l2)").run()
    at.radio(key="v_protect").set_value("x").run()
    at.select_slider(key="tau").set_value(0.2).run()
    assert not at.exception and not at.error
    pol_x = Policy({"x": AttributePolicy("threshold", theta=1.0)})
    got = metrics(at)
    for label, value in engine_summary(schema, pol_x, C, 0.2, "euclidean", {"x": 11, "y": 11}).items():
        assert got[label] == value, label


# ------------------------------------------------------------ clear messages
def test_one_candidate_gives_info_and_zero_sensitivities():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    at.number_input(key="v_m").set_value(1).run()
    assert not at.exception and not at.error
    assert "One candidate" in texts(at.info)
    got = metrics(at)
    assert got["Exact hard sensitivity"] == "0.0000"
    assert got["Exact soft sensitivity"] == "0.0000"
    assert got["Population-aware bound"] == "0.0000"
    assert got["Boundary-crossing edges"] == "0 of 220"


def test_duplicate_candidates_give_a_warning():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    paste(at, "2, 2\n7, 3\n2, 2")
    assert not at.exception and not at.error
    msg = texts(at.warning)
    assert "Duplicate candidates #0 = #2" in msg
    schema = default_schema()
    policy = Policy({"x": AttributePolicy("threshold", theta=1.0), "y": AttributePolicy("threshold", theta=1.0)})
    C = schema.encode(pd.DataFrame({"x": [2, 7, 2], "y": [2, 3, 2]}))
    got = metrics(at)
    for label, value in engine_summary(schema, policy, C, VTAU, "gower", {"x": 11, "y": 11}).items():
        assert got[label] == value, label


def test_theta_zero_gives_info_and_zeros():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    at.number_input(key="v_x_theta").set_value(0.0).run()
    at.number_input(key="v_y_theta").set_value(0.0).run()
    assert not at.exception and not at.error
    assert "θ = 0 protects no pair" in texts(at.info)
    got = metrics(at)
    assert got["Exact soft sensitivity"] == "0.0000" and got["Closed-form bound"] == "0.0000"
    assert got["Boundary-crossing edges"] == "0 of 0"
    # theta = 0 in the tightness panel
    open_tightness(at)
    at.slider(key="v_t_theta").set_value(0.0).run()
    assert not at.exception
    assert "θ = 0: u = v" in texts(at.info)
    assert metrics(at)["Attained ‖v(u) − v(v)‖₂"] == "0.0000"


def test_grid_too_large_gives_an_error_not_an_exception():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    at.number_input(key="v_x_grid").set_value(200).run()
    at.number_input(key="v_y_grid").set_value(200).run()
    assert not at.exception
    msg = texts(at.error)
    assert "200 × 200 = 40,000 points" in msg and "limit" in msg and "Fix" in msg
    assert not at.metric                            # nothing computed
    # within the point limit but too many protected edges for the page: the engine's limit error
    at.number_input(key="v_x_grid").set_value(100).run()
    at.number_input(key="v_y_grid").set_value(100).run()
    at.number_input(key="v_x_theta").set_value(5.0).run()
    assert not at.exception
    assert "exact-search limit" in texts(at.error) and "lower the grid resolution" in texts(at.error)


def test_bad_population_values_give_errors():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    paste(at, "2, 2\nabc, 3")
    assert not at.exception
    assert "not numbers" in texts(at.error) and "'x'" in texts(at.error)
    at.text_area(key="v_text").input("2, 2\n20, 3").run()
    assert not at.exception
    assert "outside the declared public domain" in texts(at.error)
    at.text_area(key="v_text").input("2, 2, 5").run()
    assert not at.exception
    assert "needs two values" in texts(at.error)
    at.text_area(key="v_text").input("   ").run()
    assert not at.exception
    assert "population is empty" in texts(at.error)


def test_tightness_panel_more_candidates_matches_engine():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    open_tightness(at)
    at.number_input(key="v_t_m").set_value(4).run()
    at.slider(key="v_t_R").set_value(0.0).run()
    assert not at.exception
    tc = tightness_construction(1.0, 0.5, m=4, L=2.0, R=0.0)
    got = metrics(at)
    assert got["Attained ‖v(u) − v(v)‖₂"] == fmt(tc.attained)
    assert tc.attained < tc.bound


# ---------------------------------------------------------------- fresh-user fixes
def test_absurd_domain_bounds_are_named_before_the_population():
    """An upper bound of 1e308 is a domain-bound error naming the field, not 'row(s) are infinite'."""
    from blowfish_core.base.errors import SchemaError
    from blowfish_core.analysis.exact import MAX_AXIS_WIDTH, check_axis_bounds
    assert check_axis_bounds("attribute x", 0, 10) == (0.0, 10.0)
    for lo, hi, word in ((0, 1e308, "wide"), (0, float("inf"), "upper bound must be a finite"),
                         (float("nan"), 1, "lower bound must be a finite"), (5, 5, "must be below"),
                         (-1e12, 1e12, "wide")):
        with pytest.raises(SchemaError, match=word):
            check_axis_bounds("attribute x", lo, hi)
    assert MAX_AXIS_WIDTH == 1e12
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    at.number_input(key="v_x_hi").set_value(1e308).run()
    assert not at.exception
    errs = texts(at.error)
    assert "attribute x" in errs and "wide" in errs and "infinite" not in errs and "Candidate" not in errs


def test_tiny_bounds_are_displayed_with_significant_figures():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    assert at.number_input(key="v_x_lo").proto.format == "%g"
    assert at.number_input(key="v_x_hi").proto.format == "%g"


# ---------------------------------------------------------------- issue 24: clicks, m, tau, projector
def _curves(at: AppTest) -> dict[str, int]:
    """Curve numbers of the hard panel's click targets (grid points) and candidates (stars)."""
    import json

    names = [d.get("name") for d in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]]
    return {"grid": names.index("add a candidate here"), "cand": names.index("candidates")}


def _click(at: AppTest, curve: int, x: float, y: float, index: int = 0) -> AppTest:
    """A click on the hard panel, as Streamlit's plotly selection event reports it (one point)."""
    rev = int(at.session_state["v_click_rev"]) if "v_click_rev" in at.session_state else 0
    at.session_state[f"v_fig_hard_{rev}"] = {"selection": {"points": [
        {"curve_number": curve, "point_index": index, "x": x, "y": y}]}}
    return at.run()


def _shown(at: AppTest) -> pd.DataFrame:
    return at.session_state["voronoi:last"]["population"]


def test_click_on_a_candidate_centre_removes_it():
    """Issue 24: a click on a star's centre (which is also a grid point, the add-target on top) removed
    nothing ('already a candidate'); now a click on or within 3% of the axis range of a candidate removes it."""
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    paste(at, "2, 2\n7, 3\n4, 8")
    c = _curves(at)
    _click(at, c["grid"], 2.0, 2.0, index=24)            # the grid point under candidate #0
    assert not at.exception
    assert _shown(at).to_dict("list") == {"x": [7.0, 4.0], "y": [3.0, 8.0]}
    _click(at, c["cand"], 7.25, 3.1, index=0)             # 0.25 units off-centre on a 0..10 axis: still removes
    assert _shown(at).to_dict("list") == {"x": [4.0], "y": [8.0]}
    _click(at, c["grid"], 5.0, 5.0, index=60)             # far from every candidate: adds one
    assert _shown(at).to_dict("list") == {"x": [4.0, 5.0], "y": [8.0, 5.0]}
    assert any("within 3% of each axis's range" in x.value for x in at.caption)


def test_click_radius_is_a_fraction_of_the_axis_range():
    from studio.voronoi_ui import CLICK_RADIUS, click_radius, toggle_candidate

    pop = pd.DataFrame({"x": [200.0, 700.0], "y": [20.0, 30.0]})
    ranges = {"x": (0.0, 1000.0), "y": (0.0, 100.0)}
    assert click_radius({"x": 11, "y": 11}) == CLICK_RADIUS == 0.03
    assert click_radius({"x": 101, "y": 11}) == pytest.approx(0.49 / 100)   # below half a grid step
    near, msg = toggle_candidate(pop, {"curve_number": 1, "x": 225.0, "y": 21.0}, 3, 1, ranges=ranges)
    assert msg == "Removed candidate #0." and len(near) == 1
    far, msg = toggle_candidate(pop, {"curve_number": 1, "x": 240.0, "y": 20.0}, 3, 1, ranges=ranges)
    assert msg.startswith("Added candidate #2") and len(far) == 3


def test_m_counts_the_candidates_shown():
    """Issue 24: 'candidates m' stayed 5 with 6 candidates on the plot."""
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    assert at.number_input(key="v_m").value == 5 and len(_shown(at)) == 5
    base = _shown(at).copy()
    far = next((float(x), float(y)) for x in range(11) for y in range(11)
               if ((base["x"] - x) ** 2 + (base["y"] - y) ** 2).min() > 1.0)
    _click(at, _curves(at)["grid"], *far)
    assert not at.exception
    assert len(_shown(at)) == 6 and at.number_input(key="v_m").value == 6
    assert _shown(at).iloc[:5].equals(base)                 # the clicked population, not a new random one
    _click(at, _curves(at)["cand"], float(base.x[0]), float(base.y[0]))
    assert len(_shown(at)) == 5 and at.number_input(key="v_m").value == 5
    at.number_input(key="v_m").set_value(7).run()            # typing m draws a new random population of m
    assert len(_shown(at)) == 7 and at.number_input(key="v_m").value == 7


def test_tau_is_the_sessions_and_survives_navigation():
    """Issue 24: τ on the Voronoi page is the session's τ and survives leaving and returning (through every
    teaching page and a step)."""
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/voronoi.py").run()
    at.select_slider(key="tau").set_value(0.2).run()
    for page in ("pages/selection_lab.py", "pages/public_sampler.py", "pages/run.py", "pages/home.py"):
        at.switch_page(page).run()
        assert not at.exception
        at.switch_page("pages/voronoi.py").run()
        assert at.select_slider(key="tau").value == 0.2, page
        assert at.session_state["voronoi:last"]["tau"] == 0.2


def _spec(at: AppTest, i: int = 0) -> dict:
    import json

    return json.loads(at.get("plotly_chart")[i].proto.spec)


def test_projector_mode_enlarges_fonts_and_markers():
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/voronoi.py").run()
    plain = _spec(at)
    stars = plain["data"][_curves(at)["cand"]]
    assert "font" not in plain["layout"] or plain["layout"]["font"].get("size") in (None, 12)
    at.toggle(key="ui:projector_toggle").set_value(True).run()
    assert not at.exception
    big = _spec(at)
    assert big["layout"]["font"]["size"] == 20 and big["layout"]["title"]["font"]["size"] == 26
    assert big["layout"]["xaxis"]["tickfont"]["size"] == 18 and big["layout"]["yaxis"]["title"]["font"]["size"] == 20
    assert "<br>" in big["layout"]["title"]["text"]          # a long title wraps instead of being clipped
    assert big["data"][_curves(at)["cand"]]["marker"]["size"] == pytest.approx(stars["marker"]["size"] * 1.6)
    # kept in the session: on across the teaching pages and after returning
    at.switch_page("pages/selection_lab.py").run()
    assert at.toggle(key="ui:projector_toggle").value is True and _spec(at)["layout"]["font"]["size"] == 20
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/voronoi.py").run()
    assert at.toggle(key="ui:projector_toggle").value is True and _spec(at)["layout"]["font"]["size"] == 20
    at.toggle(key="ui:projector_toggle").set_value(False).run()
    assert _spec(at)["data"][_curves(at)["cand"]]["marker"]["size"] == stars["marker"]["size"]
