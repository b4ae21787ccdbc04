"""AppTest tests of the Selection Lab (pages/selection_lab.py, issue 14): the numbers on screen
equal the engine's (blowfish_core.analysis.selection_lab), every broken calibration is labelled
"demonstration: not private", both presets load, and "fix it" switches to valid calibrations."""

from __future__ import annotations

import math
import os

import pytest
from streamlit.testing.v1 import AppTest

from blowfish_core.privacy.selection import NOT_PRIVATE
from blowfish_core.analysis.selection_lab import selection_lab

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "pages", "selection_lab.py")
TIMEOUT = 120


def fmt_delta(v: float) -> str:
    return "0" if v == 0 else (f"{v:.3g}" if v < 1e-3 else f"{v:.5f}")


def fmt_num(v: float) -> str:
    return "∞" if math.isinf(v) else f"{v:.4g}"


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def verdict_note(at: AppTest) -> str:
    return next(m for m in at.metric if m.label == "Verdict").proto.delta


def expected(view) -> dict[str, str]:
    r = view.calibration
    x, xp = view.datasets
    return {
        "Claimed (ε, δ)": f"({r.claim[0]:g}, {r.claim[1]:g})",
        "Exact δ at claimed ε": fmt_delta(r.exact_delta),
        "Verdict": "pass" if r.passed else "FAIL",
        f"Scale at {x}": fmt_num(r.scale_x),
        f"Scale at {xp}": fmt_num(r.scale_x_prime),
        f"Regret bound (prob. ≥ {1 - r.regret_failure:g})": fmt_num(r.regret_gap),
    }


@pytest.fixture(scope="module")
def loaded() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    return at


def test_default_path_preset_matches_engine(loaded):
    at = loaded
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Selection Lab"
    view = selection_lab("path", "local")
    assert metrics(at) == expected(view)
    assert metrics(at)["Exact δ at claimed ε"] == "0.46931"          # §4.1, G = 10, M = G^2, eps_s = 1
    assert any(NOT_PRIVATE in e.value for e in at.error)
    assert verdict_note(at) == NOT_PRIVATE
    fixes = at.dataframe[0].value
    assert list(fixes["exact δ at claimed ε"]) == [fmt_delta(r.exact_delta) for r in view.fixes]
    assert list(fixes["verdict"]) == ["pass", "pass", "pass"]
    assert not any(NOT_PRIVATE in c for c in fixes["calibration"])
    assert "never the records" in at.info[0].value


def test_broken_calibrations_are_labelled_everywhere(loaded):
    at = loaded
    opts = at.radio(key="sel_broken_path").options
    assert len(opts) == 2 and all(NOT_PRIVATE in o for o in opts)
    at.radio(key="sel_broken_path").set_value("smooth_fixed").run()
    assert not at.exception
    assert metrics(at) == expected(selection_lab("path", "smooth_fixed"))
    # this pair passes, but the calibration is still flagged, with a warning
    assert metrics(at)["Verdict"] == "pass" and verdict_note(at) == NOT_PRIVATE
    assert any(NOT_PRIVATE in e.value for e in at.error)
    assert any(NOT_PRIVATE in w.value for w in at.warning)


def test_multiplicity_preset_loads_and_matches():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    at.radio(key="sel_preset").set_value("multiplicity").run()
    assert not at.exception, [e.value for e in at.exception]
    assert metrics(at) == expected(selection_lab("multiplicity", "smooth_fixed"))
    assert metrics(at)["Exact δ at claimed ε"] == "0.40067"          # §4.2, m = 1001, C = 18
    at.select_slider(key="sel_m_mult").set_value(10**6 + 1).run()
    at.slider(key="sel_C").set_value(40.0).run()
    assert metrics(at)["Exact δ at claimed ε"] == "0.87675"
    assert any(NOT_PRIVATE in e.value for e in at.error)


def test_fix_it_switches_to_valid_calibrations():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    at.toggle(key="sel_fix").set_value(True).run()
    assert not at.exception
    assert all(NOT_PRIVATE not in o for o in at.radio(key="sel_valid").options)
    for name in ("global", "shifted_laplace", "ptr"):
        at.radio(key="sel_valid").set_value(name).run()
        assert not at.exception
        m = metrics(at)
        assert m == expected(selection_lab("path", name))
        assert m["Verdict"] == "pass" and not verdict_note(at)
        assert not at.error and at.success


def test_g_one_local_pair_passes_but_stays_flagged():
    """G = 1: LS(x) = LS(x') = 1, the two scales agree, this pair passes -- still labelled."""
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    at.slider(key="sel_G").set_value(1.0).run()
    assert not at.exception
    m = metrics(at)
    assert m == expected(selection_lab("path", "local", G=1.0))
    assert m["Exact δ at claimed ε"] == "0" and m["Verdict"] == "pass" and verdict_note(at) == NOT_PRIVATE
    assert any(NOT_PRIVATE in w.value for w in at.warning)


def test_projector_mode_enlarges_fonts_and_markers():
    """Issue 24: one projector toggle (sidebar, kept in the session) enlarges the figures' fonts and markers."""
    import json

    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    curve = json.loads(at.get("plotly_chart")[1].proto.spec)
    point = next(d for d in curve["data"] if d.get("mode") == "markers")
    assert curve["layout"].get("font", {}).get("size") != 20
    at.toggle(key="ui:projector_toggle").set_value(True).run()
    assert not at.exception
    assert at.session_state["ui:projector"] is True
    for i in (0, 1):
        assert json.loads(at.get("plotly_chart")[i].proto.spec)["layout"]["font"]["size"] == 20
    big = next(d for d in json.loads(at.get("plotly_chart")[1].proto.spec)["data"] if d.get("mode") == "markers")
    assert big["marker"]["size"] == pytest.approx(point["marker"]["size"] * 1.6)
