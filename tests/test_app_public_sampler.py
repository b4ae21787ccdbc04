"""AppTest of the Public-aware sampler page: displayed beta equals the engine's; bad inputs give st.error."""

from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

import blowfish_core as bc
from blowfish_core.public_sampler import EVALUATION_LABEL, public_aware_sample
from studio.state import default_studio

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "pages", "5_Public_Aware_Sampler.py")
TIMEOUT = 180


def _page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    return at


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _release(at: AppTest) -> AppTest:
    at.button(key="ps_run").click().run()
    assert not at.exception, at.exception
    return at


def test_xor_default_release_shows_engine_beta():
    at = _page()
    assert at.multiselect(key="ps_attrs").value == ["X_1", "X_2"]
    assert at.radio(key="ps_source").value == "Public rows of the dataset"
    at.number_input(key="ps_n").set_value(256)
    _release(at)
    assert not at.error
    s = default_studio()
    ref = public_aware_sample(s.schema, ["X_1", "X_2"], s.private, s.public, 1.0, 1e-5, 256, evaluate=False)
    m = _metrics(at)
    assert m["beta (mixing weight)"] == f"{ref.beta:.6g}"
    assert m["beta (mixing weight)"] == f"{bc.beta_min(1.0, 1e-5, 12000, 256, ref.floor):.6g}"
    assert m["Cells d"] == "64" and m["Private rows n"] == "12,000"
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 200
    assert any(EVALUATION_LABEL in w.value for w in at.warning)
    assert any(h.value == "Evaluation only: computed on private data" for h in at.header)


def test_linmix_beta_is_uniform_floor():
    at = _page()
    at.radio(key="ps_method").set_value("LinMix")
    at.number_input(key="ps_n").set_value(128)
    _release(at)
    assert not at.error
    m = _metrics(at)
    assert m["beta (mixing weight)"] == f"{bc.beta_min(1.0, 1e-5, 12000, 128, 1 / 64):.6g}"
    assert m["Noise floor min P_nse"] == f"{1 / 64:.4g}"


def test_bad_inputs_give_errors_not_exceptions():
    at = _page()
    at.number_input(key="ps_eps").set_value(0.0)
    _release(at)
    assert any("epsilon" in e.value for e in at.error)
    assert not at.metric  # nothing released
    at.number_input(key="ps_eps").set_value(1.0)
    at.number_input(key="ps_delta").set_value(1.5)
    _release(at)
    assert any("delta" in e.value for e in at.error)
    at.number_input(key="ps_delta").set_value(1e-5)
    at.number_input(key="ps_n").set_value(0)
    _release(at)
    assert any("n_samples" in e.value for e in at.error)
    at.number_input(key="ps_n").set_value(64)
    at.multiselect(key="ps_attrs").set_value([])
    _release(at)
    assert any("attribute" in e.value for e in at.error)
    at.multiselect(key="ps_attrs").set_value(["X_1"])
    at.number_input(key="ps_gamma").set_value(-0.5)
    _release(at)
    assert any("gamma" in e.value for e in at.error)


def test_adult_preset_uses_held_out_split(adult_path):
    from studio import data_source as ds

    s = ds.studio_for_source("adult")
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.session_state["studio"] = s
    at.run()
    assert not at.exception
    assert at.multiselect(key="ps_attrs").value == ["age", "hours.per.week"]
    at.multiselect(key="ps_attrs").set_value(["workclass", "income"])
    at.number_input(key="ps_n").set_value(128)
    _release(at)
    assert not at.error
    ref = public_aware_sample(s.schema, ["workclass", "income"], s.private, s.public, 1.0, 1e-5, 128,
                              evaluate=False)
    assert _metrics(at)["beta (mixing weight)"] == f"{ref.beta:.6g}"
    assert _metrics(at)["Private rows n"] == f"{len(s.private):,}"
