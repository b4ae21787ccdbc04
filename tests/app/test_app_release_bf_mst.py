"""AppTest of issue 25's must-show 4: the Run step runs bf-mst (MST under the policy) beside Hard, and
its result names the marginals released exactly; the Release step offers bf-mst, releases it through
the one release gate, and its verdict and its ledger view name the marginals released exactly (not
protected by the policy, no noise) and those released with noise.

The table: 600 XOR-3 rows read as an uploaded CSV, the preset's policy (X_1 protected, threshold 1),
so every marginal without X_1 is released exactly: (X_2), (X_3), (Y) always, and the selected pairs
without X_1.  One seed, 2 rounds of Hard; about 30 s here (bf-mst on jax).  The expected words are
held here (the sentence of report_text.exact_release_text), not rebuilt from the code under test."""

from __future__ import annotations

import io
import json
import os
import re
import zipfile

import pytest
from streamlit.testing.v1 import AppTest

import blowfish_core as bc
from blowfish_core.io.presets import xor_generate
from blowfish_core.synthesis.gate import RELEASE_LABEL
from studio import data_source as ds
from studio import flow
from studio import release_ui as rel
from studio.state import Studio, default_budget

pytest.importorskip("mbi", reason="bf-mst needs the optional [baseline] extra")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = os.path.join(ROOT, "app.py")
TIMEOUT = 600
N_ROWS = 600
#: the exact 1-way marginals (the policy protects X_1 only) and the sentence's fixed words.
HEAD = "Released exactly (not protected by the policy, no noise): the marginals (X_2), (X_3), (Y)"
#: the whole sentence: the exact 1-ways, then the exact selected pairs, then the noisy ones ((X_1) first).
SENTENCE = re.compile(r"bf-MST: Released exactly \(not protected by the policy, no noise\): the marginals "
                      r"\(X_2\), \(X_3\), \(Y\)(, \((X_2|X_3), (X_3|Y)\))*; noisy: \(X_1\)(, \(X_1, (X_2|X_3|Y)\))+\.")
WHY = "Blowfish protects only what the policy's edges change"


def _studio() -> Studio:
    p = bc.get_preset("xor3")
    budget = {**default_budget(), "set": True}  # epsilon 0.1 at delta 1e-5, chosen
    return Studio("my.csv", None, xor_generate(3, N_ROWS, 5), None, p.schema, p.default_policy(), metric="pwerr",
                  extras={"budget": budget}, source="csv", table_source="upload")


def _banners(at: AppTest) -> list[str]:
    return [e.value for elems in (at.success, at.info, at.error) for e in elems if flow.is_verdict(e)]


def _exact_banners(at: AppTest) -> list[str]:
    return [b for b in _banners(at) if b.startswith("**Released exactly: what the policy does not protect.**")]


def test_release_step_releases_bf_mst_and_names_the_marginals_released_exactly():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["studio"] = _studio()
    at.run()
    at.switch_page("pages/run.py").run()
    assert not at.exception, [e.value for e in at.exception]
    box = at.multiselect(key="rn_methods")
    assert "bf-mst" in box.options or box.format_func("bf-mst") in box.options  # a Run-step option
    box.set_value(["hard", "bf-mst"])
    for k, v in {"rn_rounds": 2, "rn_release": 100, "rn_seeds": 1}.items():
        at.number_input(key=k).set_value(v)
    at.text_input(key="rn_population").set_value("16x2")
    at.button(key="rn_run_btn").click().run()
    assert not at.exception, [e.value for e in at.exception]
    # the Run step's result names what bf-mst released exactly, in the engine's words
    run_banner = _exact_banners(at)
    assert len(run_banner) == 1 and SENTENCE.search(run_banner[0]), _banners(at)
    assert HEAD in run_banner[0] and WHY in run_banner[0]

    at.switch_page("pages/release.py").run()
    assert not at.exception, [e.value for e in at.exception]
    box = at.selectbox(key=rel.METHOD_KEY)
    assert set(box.options) == {box.format_func("hard"), box.format_func("bf-mst")}  # the run's private methods
    at.selectbox(key=rel.METHOD_KEY).set_value("bf-mst").run()
    assert at.button(key="release:make").label.startswith("Make a release (bf-MST, ")
    assert not _exact_banners(at)  # nothing released yet: no list of exact marginals
    at.button(key="release:make").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.session_state.get("release:error"), at.session_state.get("release:error")
    made = at.session_state["release:result"]
    assert made.request.methods == ["bf-mst"] and made.runs[0].seed is None
    assert made.publication.label == RELEASE_LABEL and "OS entropy" in made.public_report["randomness"]
    # the verdict of the release names the marginals released exactly and the noisy ones
    verdict = _exact_banners(at)
    assert len(verdict) == 1 and SENTENCE.search(verdict[0]), _banners(at)
    # the ledger view says the same sentence, as the published ledger.json lists them
    marginals = made.public_report["ledger"][0]["marginals"]
    assert marginals["exact"][:3] == [["X_2"], ["X_3"], ["Y"]] and marginals["noisy"][0] == ["X_1"]
    assert all("X_1" not in c for c in marginals["exact"]) and all("X_1" in c for c in marginals["noisy"])
    sentence = SENTENCE.search(verdict[0]).group(0)
    assert any(("  " + sentence) in c.value.splitlines() for c in at.code), [c.value for c in at.code]
    # the release bundle the step offers (its download) carries the same line and the cliques
    with zipfile.ZipFile(io.BytesIO(ds.bundle_zip(made))) as z:
        assert ("  " + sentence) in z.read("ledger.txt").decode("utf-8").splitlines()
        assert json.loads(z.read("ledger.json"))["ledger"][0]["marginals"] == marginals
