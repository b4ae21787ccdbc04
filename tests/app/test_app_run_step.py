"""AppTests of the Run step (issue 16): the run verdict banner (wording and colour on constructed
cases and on a real run), the sweep banner, the epsilon-first budget shared with the Policy step,
the carry message on the Runner, the run lifecycle (st.status, inputs locked while running) and
the run bundle download."""

from __future__ import annotations

import io
import os
import zipfile

import pytest
from streamlit.testing.v1 import AppTest

from blowfish_core.workflows.budget import budget_from_epsilon
from blowfish_core.workflows.verdicts import run_verdict_from_report, sweep_verdict
from studio import flow
from studio import runner_ui as ui

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "pages", "run.py")
DESIGNER = os.path.join(ROOT, "pages", "policy.py")
TIMEOUT = 300
SMALL = {"rn_rounds": 3, "rn_release": 100, "rn_seeds": 2}


def banners(at: AppTest) -> list[tuple[str, str]]:
    out = []
    for colour, elems in (("green", at.success), ("blue", at.info), ("red", at.error)):
        out += [(colour, e.value) for e in elems if flow.is_verdict(e)]
    return out


def _report(mean: float, lo: float | None, hi: float | None, seeds: int) -> dict:
    return {"summary": {"relative_reduction_bf_soft_vs_hard": {
        "mean_percent": mean, "ci95": [lo, hi], "per_seed": [mean] * seeds}}, "seeds": list(range(seeds))}


CASES = {  # constructed reports -> (colour, headline)
    "clear win": (_report(14.6, 5.2, 24.0, 6), "green",
                  "BF-Soft 14.6% lower error than Hard (lower is better); clear with 6 seeds — the interval "
                  "excludes 0"),
    "inconclusive": (_report(-14.9, -82.0, 52.0, 3), "blue",
                     "BF-Soft 14.9% higher error than Hard (lower is better); inconclusive with 3 seeds — the "
                     "interval includes 0"),
    "Hard wins": (_report(-20.0, -30.0, -10.0, 4), "red",
                  "BF-Soft 20.0% higher error than Hard (lower is better); clear with 4 seeds — the interval "
                  "excludes 0"),
}


def _banner_app():
    import streamlit as st

    from blowfish_core.workflows.verdicts import run_verdict_from_report as rv
    from studio.flow import verdict_banner

    verdict_banner(rv(st.session_state["report"]))


@pytest.mark.parametrize("case", list(CASES))
def test_run_banner_wording_and_colour(case):
    rep, colour, headline = CASES[case]
    at = AppTest.from_function(_banner_app, default_timeout=60)
    at.session_state["report"] = rep
    at.run()
    (got_colour, text), = banners(at)
    assert got_colour == colour and text.startswith(f"**{headline}.**")
    assert text == f"**{run_verdict_from_report(rep).headline}.** {run_verdict_from_report(rep).detail}"


def test_sweep_banner_wording():
    v = sweep_verdict([1e-4, 6e-4, 3e-3], {"bf-soft": [0.20, 0.21, 0.12], "hard": [0.30, 0.20, 0.10]}, 1e-5,
                      None)
    assert v.level == "neutral" and v.headline.startswith("BF-Soft wins below epsilon ≈ ")
    assert v.headline.endswith("on this table and policy")


def _page() -> AppTest:
    at = AppTest.from_file(RUNNER, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _small(at: AppTest, **extra) -> None:
    for k, v in {**SMALL, **extra}.items():
        if k == "rn_methods":
            at.multiselect(key=k).set_value(v)
        else:
            at.number_input(key=k).set_value(v)
    at.text_input(key="rn_population").set_value("64x3")


def test_runner_budget_is_the_session_epsilon_first():
    at = _page()
    assert at.radio(key="rn_budget_mode").value == ui.SESSION_BUDGET
    assert {m.label: m.value for m in at.metric}["Privacy guarantee"] == "ε = 0.1 at δ = 10⁻⁵"
    assert at.number_input(key="rn_rho").disabled and at.number_input(key="rn_epsilon").disabled
    # chosen on the Policy step, used by the Run step (one source): epsilon 0.2
    d = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=TIMEOUT).run()
    d.switch_page("pages/policy.py").run()
    d.select_slider(key="designer:eps").set_value(0.2).run()
    d.switch_page("pages/run.py").run()
    assert not d.exception
    assert {m.label: m.value for m in d.metric}["Privacy guarantee"] == "ε = 0.2 at δ = 10⁻⁵"
    assert d.select_slider(key="rn_b:eps").value == 0.2


def test_run_banner_bundle_and_lifecycle_on_a_real_run():
    at = _page()
    _small(at, rn_methods=["hard", "bf-soft"])
    at.button(key="rn_run_btn").click().run()
    assert not at.exception, [e.value for e in at.exception]
    store = at.session_state["runner_results"]
    rec = store[max(store)]
    rep = rec["report"]
    # the session budget was used: epsilon 0.1 -> its rho
    assert rep["privacy"]["rho"] == pytest.approx(budget_from_epsilon(0.1, 1e-5, 3).rho)
    v = run_verdict_from_report(rep)
    got = banners(at)
    assert (v.colour, f"**{v.headline}.** {v.detail}") in got
    assert "(lower is better)" in v.headline and "2 seeds" in v.headline
    # lifecycle: unlocked after the run, no progress bar left, no "No results yet"
    assert not at.session_state["rn_busy"] and not at.number_input(key="rn_seeds").disabled
    assert not at.get("progress")
    assert not any("No results yet" in i.value for i in at.info)
    # the run bundle and the exact CLI command of this run
    labels = [b.label for b in at.get("download_button")]
    assert "Download run bundle" in labels
    from blowfish_core.interfaces.run_bundle import bundle_zip, cli_command
    from studio.bundle_ui import run_settings_of

    settings = run_settings_of(rec["result"].request, at.session_state["studio"])
    assert cli_command(settings) in [c.value for c in at.code]
    z = zipfile.ZipFile(io.BytesIO(bundle_zip(settings, report=rep)))
    assert "blowfish_run/run.sh" in z.namelist()


def test_failed_run_shows_a_failed_status_and_unlocks():
    at = _page()
    _small(at, rn_release=0)
    at.button(key="rn_run_btn").click().run()
    assert not at.exception
    box = at.status[0]
    assert box.label.startswith("Run: failed") and box.icon == ":material/error:"
    assert [e.value for e in at.error if not flow.is_verdict(e)][0].startswith("Cannot run")
    assert not at.number_input(key="rn_release").disabled  # inputs unlocked again
    assert not at.get("progress")


def test_carry_message_on_the_runner():
    at = AppTest.from_file(RUNNER, default_timeout=TIMEOUT)
    at.session_state["runner_carried"] = {"method": "bf-soft", "tau": 0.1, "rho": 6e-4,
                                          "message": "tau 0.03 → 0.1; Tab-PE removed from the comparison"}
    at.run()
    assert any("From the Temperature Pilot" in i.value and "tau 0.03 → 0.1; Tab-PE removed from the comparison"
               in i.value for i in at.info)


def test_run_bundle_of_the_app_run_reproduces_its_release_byte_for_byte(tmp_path):
    """Must-show 2 through the app: the bundle the Run step offers, run as run.sh and run.py in fresh
    processes, writes the app's seeded release byte for byte."""
    import subprocess
    import sys

    from blowfish_core.interfaces.run_bundle import write_bundle
    from studio.bundle_ui import run_settings_of

    at = _page()
    at.multiselect(key="rn_methods").set_value(["bf-soft"])
    for k, v in {"rn_rounds": 2, "rn_release": 20, "rn_seeds": 1}.items():
        at.number_input(key=k).set_value(v)
    at.text_input(key="rn_population").set_value("16x2")
    at.button(key="rn_run_btn").click().run()
    assert not at.exception
    store = at.session_state["runner_results"]
    rec = store[max(store)]
    app_bytes = ui.release_csv(rec["releases"][("bf-soft", 0)])
    files = write_bundle(run_settings_of(rec["result"].request, at.session_state["studio"]), tmp_path / "b")
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "PYTHON": sys.executable}
    for cmd in (["sh", str(files["run.sh"])], [sys.executable, str(files["run.py"])]):
        out = tmp_path / "b" / "release.csv"
        if out.exists():
            out.unlink()
        p = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr + p.stdout
        assert out.read_bytes() == app_bytes, cmd
