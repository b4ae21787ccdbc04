"""AppTest of the Public-aware sampler page: displayed beta equals the engine's; bad inputs give st.error.

Issue 21: 'Study preview (seeded)' (key ps_run) is labelled "seeded: for study, not for
publication" and never with the gate's label; 'Make a release' (key ps_release) goes through
release_gate.publish, draws with the exact sampler from the OS CSPRNG (two clicks differ; a
fixed source would make them equal), and held-out public rows are named as unprotected.
"""

from __future__ import annotations

import json
import os

from streamlit.testing.v1 import AppTest

import numpy as np

import blowfish_core.privacy.pubmix as pm
import blowfish_core.workflows.public_sampler as ps
from blowfish_core.synthesis import gate
from blowfish_core.algorithm.evolution import SEEDED_NOTE
from blowfish_core.workflows.public_sampler import EVALUATION_LABEL, public_aware_sample
from studio.state import default_studio

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "pages", "public_sampler.py")
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
    assert m["beta (mixing weight)"] == f"{pm.beta_min(1.0, 1e-5, 12000, 256, ref.floor):.6g}"
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
    assert m["beta (mixing weight)"] == f"{pm.beta_min(1.0, 1e-5, 12000, 128, 1 / 64):.6g}"
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
    words = gate.unprotected_text(len(s.public), f"held out of {s.dataset_name}")
    assert any(words in w.value for w in at.warning)  # the pilot split gets no protection
    at.button(key="ps_release").click().run()
    assert not at.exception and not at.error
    assert any(gate.RELEASE_LABEL in m.value for m in at.success)
    assert any("get no protection" in w.value for w in at.warning)


def _texts(at: AppTest) -> list[str]:
    return [e.value for kind in ("success", "warning", "info", "caption", "markdown", "header", "error")
            for e in getattr(at, kind)]


def test_seeded_preview_is_labelled_for_study():
    at = _page()
    at.number_input(key="ps_n").set_value(128)
    _release(at)  # the seeded action
    assert not at.error
    assert any(h.value == "Study preview" for h in at.header) and not any(h.value == "Release" for h in at.header)
    assert any(w.value.startswith(SEEDED_NOTE) for w in at.warning)
    assert not any(gate.RELEASE_LABEL in t for t in _texts(at)) and not at.success
    assert not any("(ε, δ)-DP" in t and "seed" not in t.lower() for t in _texts(at))


def _release_rows(at: AppTest) -> np.ndarray:
    at.button(key="ps_release").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at.dataframe[0].value.to_numpy()


def test_release_button_publishes_through_the_gate_from_os_entropy(monkeypatch):
    calls = {"publish": 0, "bytes": 0}
    real_publish, real_bytes = gate.publish, pm._os_bytes

    def publish(*a, **k):
        calls["publish"] += 1
        return real_publish(*a, **k)

    def os_bytes(k):
        calls["bytes"] += 1
        return real_bytes(k)

    def no_numpy(*a, **k):
        raise AssertionError("numpy's pubmix_sample used by the release")

    at = _page()  # opens on a seeded study preview (numpy's sampler): patch the release path after it
    monkeypatch.setattr(gate, "publish", publish)
    monkeypatch.setattr(pm, "_os_bytes", os_bytes)
    monkeypatch.setattr(ps, "pubmix_sample", no_numpy)
    at.number_input(key="ps_n").set_value(256)
    a = _release_rows(at)
    assert calls["publish"] == 1 and calls["bytes"] >= 1
    assert any(h.value == "Release" for h in at.header)
    assert any(m.value.startswith(gate.RELEASE_LABEL) for m in at.success)
    assert not any(SEEDED_NOTE in w.value for w in at.warning)
    b = _release_rows(at)
    assert calls["publish"] == 2
    assert not np.array_equal(a, b)  # fresh OS entropy per release


def test_a_release_from_a_fixed_source_would_be_caught(monkeypatch):
    """The mutation 'the sampler page releases from seed 0': with the OS CSPRNG replaced by a
    fixed source, two releases are equal, so the 'two clicks differ' check above fails."""
    monkeypatch.setattr(pm, "_os_bytes", lambda k: bytes(k))
    monkeypatch.setattr(pm, "_randbelow", lambda b: 0)
    at = _page()
    at.number_input(key="ps_n").set_value(256)
    assert np.array_equal(_release_rows(at), _release_rows(at))


# ------------------------------------------------------------------ issue 24: opens on a result, plain words first
def test_opens_on_a_preview_of_the_presets_public_rows():
    """No upload and no click needed: the page opens on a seeded study preview of the dataset's public rows,
    with a one-line takeaway in plain words and its picture; the paper's notation sits in expanders."""
    at = _page()
    assert not at.error
    assert at.radio(key="ps_source").value == "Public rows of the dataset"
    assert any(h.value == "Study preview" for h in at.header)
    assert any(w.value.startswith(SEEDED_NOTE) for w in at.warning)
    s = default_studio()
    ref = public_aware_sample(s.schema, ["X_1", "X_2"], s.private, s.public, 1.0, 1e-5, 512, evaluate=False)
    assert _metrics(at)["beta (mixing weight)"] == f"{ref.beta:.6g}"
    take = [m.value for m in at.markdown if m.value.startswith("**Takeaway:**")]
    assert len(take) == 1 and f"{ref.beta:.1%}" in take[0] and "P_nse" not in take[0] and "beta" not in take[0]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [d["name"] for d in spec["data"]] == ["from the private table (1 − β)", "from public-data noise (β)"]
    assert spec["data"][1]["x"] == [ref.beta]
    labels = [e.label for e in at.expander]
    assert "In the paper's notation (papers/003)" in labels
    assert "Details: β, the noise floor and the paper's figures" in labels
    # the paper's notation is not in the page's opening text
    assert not any("papers/003" in c.value for c in at.main.caption[:1])
    # the upload stays an option
    at.radio(key="ps_source").set_value("Upload a public CSV").run()
    assert not at.exception


def test_projector_mode_enlarges_the_sampler_figures():
    at = _page()
    before = json.loads(at.get("plotly_chart")[0].proto.spec)
    at.toggle(key="ui:projector_toggle").set_value(True).run()
    assert not at.exception
    after = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert after["layout"]["font"]["size"] == 20 and before["layout"].get("font", {}).get("size") != 20
    curve = json.loads(at.get("plotly_chart")[1].proto.spec)  # beta_min curve: lines+markers, default size 6
    assert curve["data"][0]["marker"]["size"] == 6 * 1.6
