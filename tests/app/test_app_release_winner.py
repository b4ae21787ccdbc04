"""AppTests of the Release step after a run (issue 24 "Release what won", must-show 4): the step offers
every private method of the last run, defaults to the lowest-error one, shows the release size as a
control and says how many rows the release has against the private table, states the total of what
is released, and releases MST through the one release gate (OS entropy: publishable; a seeded MST
run is labelled for study, not for publication).

The table: 2,000 XOR-3 rows read as an uploaded CSV with PWErr (pairwise marginals), where MST (it
models every 2-way marginal) clearly beats Hard with a tiny population; 2 seeds, 2 rounds, so the
run (Hard + MST) and the release take about half a minute here (MST on jax)."""

from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

import blowfish_core as bc
from blowfish_core.algorithm.streams import SEEDED_NOTE
from blowfish_core.interfaces.run_bundle import planned_total
from blowfish_core.io.presets import xor_generate
from blowfish_core.synthesis.gate import RELEASE_LABEL, total_text
from blowfish_core.workflows.ranking import ranking_verdict_from_report
from blowfish_core.workflows.release_words import release_rows_text, total_label
from studio import flow
from studio import release_ui as rel
from studio.bundle_ui import release_request
from studio.state import Studio, default_budget

pytest.importorskip("mbi", reason="MST needs the optional [baseline] extra")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = os.path.join(ROOT, "app.py")
TIMEOUT = 600
N_ROWS = 2000


def _studio() -> Studio:
    p = bc.get_preset("xor3")
    budget = {**default_budget(), "set": True}  # epsilon 0.1 at delta 1e-5, chosen
    return Studio("my.csv", None, xor_generate(3, N_ROWS, 5), None, p.schema, p.default_policy(), metric="pwerr",
                  extras={"budget": budget}, source="csv", table_source="upload")


def _banners(at: AppTest) -> list[str]:
    return [e.value for elems in (at.success, at.info, at.error) for e in elems if flow.is_verdict(e)]


def test_release_step_releases_the_method_that_won():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["studio"] = _studio()
    at.run()
    at.switch_page("pages/run.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.multiselect(key="rn_methods").set_value(["hard", "mst"])
    for k, v in {"rn_rounds": 2, "rn_release": 100, "rn_seeds": 2}.items():
        at.number_input(key=k).set_value(v)
    at.text_input(key="rn_population").set_value("16x2")
    at.button(key="rn_run_btn").click().run()
    assert not at.exception, [e.value for e in at.exception]
    rec = at.session_state["runner_results"][max(at.session_state["runner_results"])]
    per = rec["report"]["summary"]["per_method"]
    assert per["mst"]["mean"] < per["hard"]["mean"]  # MST won this run
    # the Run verdict ranks every method and names the baseline's win
    v = ranking_verdict_from_report(rec["report"])
    assert v.headline.startswith("MST has ") and " lower error than Hard at ε = " in v.headline
    assert f"**{v.headline}.** {v.detail}" in _banners(at)

    at.switch_page("pages/release.py").run()
    assert not at.exception, [e.value for e in at.exception]
    box = at.selectbox(key=rel.METHOD_KEY)
    assert box.options == [box.format_func("mst"), box.format_func("hard")]  # private methods, lowest error first
    assert box.value == "mst" and "(lowest)" in box.format_func("mst")  # the default: the run's winner
    assert f"**{v.headline}.** {v.detail}" in _banners(at)  # the last run's ranking on the Release step too
    # the release size is a control (the Run step's release size) and the rows are said in words
    assert at.number_input(key=rel.SIZE_KEY).value == 100
    assert release_rows_text(100, N_ROWS) in [m.value for m in at.markdown]
    assert release_rows_text(100, N_ROWS).startswith(
        "The release has 100 synthetic rows against 2,000 rows of the private table (5% as many). Only the 2,000 "
        "private rows count")
    at.number_input(key=rel.SIZE_KEY).set_value(150).run()
    assert at.session_state["runner_settings"]["rn_release"] == 150  # one setting
    assert release_rows_text(150, N_ROWS) in [m.value for m in at.markdown]
    # the ledger states the total of what is released (one MST table: zCDP, Eq. (1))
    studio = at.session_state["studio"]
    _, settings = release_request(at.session_state, studio, "mst")
    assert settings.methods == ["mst"] and settings.tau is None and settings.config.release == 150
    total = planned_total(settings)
    assert total["accountant"] == "zcdp-eq1"
    assert any(c.value.startswith(total_text(total, 1) + "\n") for c in at.code)
    assert at.button(key="release:make").label == f"Make a release (MST, {total_label(total)})"

    at.button(key="release:make").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.session_state.get("release:error"), at.session_state.get("release:error")
    made = at.session_state["release:result"]
    assert made.request.methods == ["mst"] and made.runs[0].seed is None
    assert len(made.runs[0].release) == 150
    # through the gate with OS entropy: admitted (MST's exponential selections have a release sampler)
    pub = made.publication
    assert pub.claim.methods == ("mst",) and not pub.claim.seeded and "exponential" in pub.claim.mechanisms
    assert pub.label == RELEASE_LABEL and made.public_report["label"] == RELEASE_LABEL
    assert "OS entropy" in made.public_report["randomness"]
    assert any(s.value == f"Release made ({made.public_report['randomness']})." for s in at.success)
    # the total shown before the release is the gate's total of the release
    assert pub.total["accountant"] == total["accountant"]
    assert pub.total["rho"] == pytest.approx(total["rho"], rel=1e-9)
    assert pub.total["epsilon"] == pytest.approx(total["epsilon"], rel=1e-9)
    assert any(c.value.startswith(total_text(pub.total, 1)) for c in at.code)

    # the choice is kept across steps
    at.selectbox(key=rel.METHOD_KEY).set_value("hard").run()
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/release.py").run()
    assert at.selectbox(key=rel.METHOD_KEY).value == "hard"
    assert at.button(key="release:make").label.startswith("Make a release (Hard, ")


def test_a_seeded_mst_run_is_for_study_not_for_publication():
    """Publishable only through the gate with OS entropy: the same MST with a seed is a study run."""
    from studio import data_source as ds

    studio = _studio()
    seeded = ds.make_release(studio, "mst", 5e-4, rounds=2, release=50, seed=0)
    assert getattr(seeded, "publication", None) is None
    assert seeded.public_report["label"] == SEEDED_NOTE


# ------------------------------------------------------------------ the helpers, without a run
def _record(run_id: int, errors: dict[str, float], version: int = 0) -> dict:
    runs = [{"method": m, "seed": s, "pwerr": e + 0.01 * s} for m, e in errors.items() for s in (0, 1)]
    return {"id": run_id, "studio_version": version,
            "report": {"runs": runs, "metric": {"name": "pwerr"},
                       "privacy": {"accountant": "zcdp-eq1", "rho": 1e-3, "epsilon": 0.2, "delta": 1e-5}}}


def test_release_options_are_the_private_methods_of_the_last_run():
    studio = _studio()
    state: dict = {"runner_results": {
        1: _record(1, {"hard": 0.1, "bf-soft": 0.2}),
        2: _record(2, {"soft-hard-noise": 0.01, "bf-soft": 0.3, "hard": 0.5, "aim": 0.2}),
        3: _record(3, {"tab-pe": 0.05}, version=7)}}  # an earlier dataset: not the last run
    o = rel.release_options(state, studio)
    assert o.run_id == 2 and o.methods == ("aim", "bf-soft", "hard")  # never the analysis-only device
    assert o.default == "aim" and rel.chosen_method(state, o) == "aim"
    rel.choose_method(state, o, "hard")
    assert rel.chosen_method(state, o) == "hard"  # kept
    state["runner_results"][4] = _record(4, {"hard": 0.1, "bf-soft": 0.2})
    o = rel.release_options(state, studio)
    assert o.run_id == 4 and rel.chosen_method(state, o) == "hard"  # a new run: its winner
    state["runner_results"][5] = _record(5, {"hard": 0.3, "bf-soft": 0.2})
    assert rel.chosen_method(state, rel.release_options(state, studio)) == "bf-soft"
    # before any run: the flow's method only (Hard when Tune τ chose it)
    assert rel.release_options({}, studio).methods == ("bf-soft",)
    assert rel.release_options({"runner_carried": {"method": "hard"}}, studio).methods == ("hard",)


def test_rows_text_names_the_rows_held_out_of_the_file():
    assert release_rows_text(512, 45_211, 3_000, "bank-full.csv") == (
        "The release has 512 synthetic rows against 45,211 rows of the private table (1.1% as many). Only the "
        "45,211 private rows count: the release is drawn from their noisy counts, and the guarantee protects each "
        "of them. The synthetic rows are new records, not copies of private rows; their number is post-processing "
        "and does not change the privacy budget. The 3,000 rows of bank-full.csv held out as public pilot data do "
        "not count: they are not in the private table, and they get no protection wherever they are used.")
    assert "(2× as many)" in release_rows_text(200, 100)
    with pytest.raises(bc.BlowfishError, match="release_rows"):
        release_rows_text(0, 100)
