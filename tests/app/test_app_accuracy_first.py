"""Accuracy first on the Tune step (issue 24): the ε cap is a visible control and an unreached
target's fix names it by its label; the default target comes from the pilot's attainable range
(no pilot: no default, the box is empty and the search waits for a typed target)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from studio.accuracy_ui import CAP_LABEL


def _app():
    from types import SimpleNamespace as NS

    import streamlit as st

    from blowfish_core.algorithm.evolution import SynthConfig
    from studio.accuracy_ui import accuracy_first_section
    from studio.state import get_studio

    s = get_studio()
    cfg = SynthConfig(rounds=2, population=[64, 64], release=32)
    pilot = None
    if st.session_state.get("fake_pilot"):  # what the pilot reached (its recommendation and candidates)
        rec = NS(mean=0.4321, label="BF-Soft (τ = 0.03)")
        pilot = NS(recommendation=rec, candidates=[rec, NS(mean=0.52)], scaling=NS(epsilon_target=0.1))
    accuracy_first_section(s, s.public.iloc[:600], len(s.private), 0.03, [0, 1], cfg, s.metric_fn(), pilot=pilot)


def test_no_pilot_no_default_target_and_the_cap_is_a_visible_control():
    at = AppTest.from_function(_app, default_timeout=300).run()
    assert not at.exception
    target, cap = at.number_input(key="acc:target"), at.number_input(key="acc:cap")
    assert target.value is None and at.button(key="acc:run").disabled  # nothing to search for yet
    assert cap.label == CAP_LABEL and cap.value == 10.0 and not cap.disabled
    assert any("No pilot yet" in c.value for c in at.caption)


def test_an_unreached_target_names_the_cap_control_by_its_label():
    at = AppTest.from_function(_app, default_timeout=300).run()
    at.number_input(key="acc:target").set_value(0.01)
    at.number_input(key="acc:cap").set_value(1.0).run()
    at.button(key="acc:run").click().run()
    assert not at.exception
    err = next(e.value for e in at.error if "is not reached on the public pilot" in e.value)
    assert "within epsilon <= 1 " in err  # the cap the control set
    assert err.endswith(f'Fix: raise the target error above that, or raise the "{CAP_LABEL}" input')
    assert "epsilon_max" not in err
    assert any(n.label == CAP_LABEL for n in at.number_input)  # the control the fix names is on the page


def test_the_default_target_comes_from_the_pilots_attainable_range_and_a_typed_one_stays():
    at = AppTest.from_function(_app, default_timeout=300)
    at.session_state["fake_pilot"] = True
    at.run()
    assert not at.exception
    assert at.number_input(key="acc:target").value == 0.44  # 0.4321 rounded up, inside [0.4321, 0.52]
    assert not at.button(key="acc:run").disabled
    assert any(c.value.startswith("Default target 0.44: what the pilot's recommendation (BF-Soft (τ = 0.03)) reached "
                                  "at ε ≈ 0.1") for c in at.caption)
    at.number_input(key="acc:target").set_value(0.5).run()
    at.run()
    assert at.number_input(key="acc:target").value == 0.5  # the person's target is kept
