"""AppTests of the guided flow (issue 16): the router and step bar, gating of the Release step,
the policy verdict banner (wording and colour on constructed cases), the epsilon-first budget
control, the Data/Policy split of the Policy Designer, the Release page and the Voronoi class mode."""

from __future__ import annotations

import io
import math
import os
import zipfile

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import blowfish_core as bc
from blowfish_core.workflows import verdicts
from blowfish_core.workflows.budget import budget_from_epsilon, epsilon_steps
from blowfish_core.interfaces.run_bundle import cli_command
from blowfish_core.workflows.verdicts import policy_verdict
from studio import flow
from studio.state import DEFAULTS, default_budget

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = os.path.join(ROOT, "app.py")
DESIGNER = os.path.join(ROOT, "pages", "policy.py")
DATA = os.path.join(ROOT, "pages", "data.py")
RELEASE = os.path.join(ROOT, "pages", "release.py")
VORONOI = os.path.join(ROOT, "pages", "voronoi.py")
TIMEOUT = 60


def app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def bar(at: AppTest) -> dict[str, object]:
    """The step bar's links (the first five page links) by url path."""
    return {ln.proto.page.rsplit("/", 1)[-1]: ln.proto for ln in at.get("page_link")[:5]}


def banners(at: AppTest) -> list[tuple[str, str]]:
    """(colour, text) of every verdict banner: success -> green, info -> blue, error -> red."""
    out = []
    for colour, elems in (("green", at.success), ("blue", at.info), ("red", at.error)):
        out += [(colour, e.value) for e in elems if flow.is_verdict(e)]
    return out


# ------------------------------------------------------------------ router, step bar, gating
def test_router_home_and_step_bar_in_flow_order():
    at = app()
    assert at.title[0].value == "Blowfish Studio"
    b = bar(at)
    assert list(b) == ["Data", "Policy_Designer", "Temperature_Pilot", "Synthesis_Runner", "Release"]
    labels = [p.label for p in b.values()]
    assert [lab.split(" ", 1)[1] for lab in labels] == ["Data", "Policy", "Tune τ", "Run", "Release"]
    # XOR-3 default: the data and the policy are done, the Release step is gated (no budget chosen yet)
    assert labels[0].startswith(flow.DONE_MARK) and labels[1].startswith(flow.DONE_MARK)
    assert labels[4].startswith(flow.TODO_MARK)
    assert b["Release"].disabled and "privacy budget" in b["Release"].help
    assert at.toggle(key=flow.TUTORIAL_KEY).value is False


def test_release_gated_until_schema_policy_and_budget():
    at = app()
    assert bar(at)["Release"].disabled
    # the Release page itself says what is missing and offers nothing
    at.switch_page("pages/release.py").run()
    assert not at.exception
    assert "not ready" in at.warning[0].value and "privacy budget" in at.warning[0].value
    assert not at.get("download_button")
    # the Policy step draws the budget control: budget chosen -> Release enabled
    at.switch_page("pages/policy.py").run()
    assert at.session_state["studio"].extras["budget"]["set"] is True
    at.switch_page("pages/home.py").run()
    assert not bar(at)["Release"].disabled and bar(at)["Release"].label.startswith(flow.DONE_MARK)
    # clearing the policy gates it again, naming the policy
    at.switch_page("pages/policy.py").run()
    at.button(key="designer:clear").click().run()
    at.switch_page("pages/home.py").run()
    assert bar(at)["Release"].disabled and "policy" in bar(at)["Release"].help
    assert bar(at)["Policy_Designer"].label.startswith(flow.TODO_MARK)
    at.switch_page("pages/release.py").run()
    assert not at.exception and "a policy that protects at least one attribute" in at.warning[0].value
    # under the router: the step bar's five links, then the page's own link
    assert [ln.proto.label for ln in at.get("page_link")][5:] == ["Go to the Policy step"]
    at.switch_page("pages/home.py").run()
    # a preset without its table: the schema has no rows -> gated, naming the table
    at.switch_page("pages/policy.py").run()
    at.radio(key="designer:source").set_value("adult").run()
    at.radio(key="designer:table:adult").set_value("none").run()
    at.switch_page("pages/home.py").run()
    assert bar(at)["Release"].disabled and "table with rows" in bar(at)["Release"].help
    assert bar(at)["Data"].label.startswith(flow.TODO_MARK)


def test_release_link_shows_the_state_the_page_left():
    """The step bar is the state after the page's run (app.py draws it again after the page): the
    budget control marks the budget chosen while the Policy page runs, and that same run's bar has
    Release enabled (it stayed greyed out until the next run before); a run leaves it enabled; a
    policy cleared on a run greys it out on that run."""
    at = app()
    assert bar(at)["Release"].disabled and "privacy budget" in bar(at)["Release"].help  # before any choice
    at.switch_page("pages/policy.py").run()  # the budget control is drawn: chosen
    assert at.session_state["studio"].extras["budget"]["set"] is True
    assert not bar(at)["Release"].disabled and bar(at)["Release"].help == "ready"
    at.select_slider(key="designer:eps").set_value(0.5).run()
    assert not bar(at)["Release"].disabled
    # a small run on the Run step: Release stays enabled, the Run step is done
    at.switch_page("pages/run.py").run()
    for k, v in {"rn_rounds": 2, "rn_release": 40, "rn_seeds": 1}.items():
        at.number_input(key=k).set_value(v)
    at.text_input(key="rn_population").set_value("32x2")
    at.multiselect(key="rn_methods").set_value(["hard"]).run()
    at.button(key="rn_run_btn").click().run()
    assert not at.exception and at.session_state["runner_results"]
    assert not bar(at)["Release"].disabled and bar(at)["Synthesis_Runner"].label.startswith(flow.DONE_MARK)
    at.switch_page("pages/release.py").run()
    assert not at.exception and not [w for w in at.warning if "not ready" in w.value]
    assert not bar(at)["Release"].disabled
    # clearing the policy greys Release out on the run of the click, not one run later
    at.switch_page("pages/policy.py").run()
    at.button(key="designer:clear").click().run()
    assert bar(at)["Release"].disabled and "policy" in bar(at)["Release"].help


def test_release_missing_is_pure_and_complete():
    from studio.state import default_studio

    s = default_studio()
    assert flow.release_missing(s, {}) == ["a privacy budget ε (choose it in the Policy step)"]
    s.extras["budget"]["set"] = True
    assert flow.release_missing(s, {}) == []
    s.policy = bc.Policy()
    assert flow.release_missing(s, {}) == ["a policy that protects at least one attribute (Policy step)"]


def test_release_page_when_ready_offers_bundle_and_exact_cli_command():
    at = app()
    at.switch_page("pages/policy.py").run()
    at.switch_page("pages/release.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.warning or "not ready" not in at.warning[0].value
    s = at.session_state["studio"]
    m = {mm.label: mm for mm in at.metric}
    assert m["Privacy guarantee"].value == "ε = 0.1 at δ = 10⁻⁵"
    assert "Eq. (1)" in m["Privacy guarantee"].help  # the other epsilon only in the tooltip
    # the policy verdict (XOR-3, q = 0.53 at tau 0.03): green
    assert banners(at) == [("green", f"**{policy_verdict(s.schema, s.policy, at.session_state['tau']).headline}.** "
                                      f"{policy_verdict(s.schema, s.policy, at.session_state['tau']).detail}")]
    # the exact CLI command in a code block, and the bundle behind the download button
    from studio.bundle_ui import release_request

    _, settings = release_request(at.session_state, s)
    codes = [c.value for c in at.code]
    assert cli_command(settings) in codes
    assert settings.methods == ["bf-soft"] and settings.tau == at.session_state["tau"] and settings.preset == "xor3"
    assert settings.rho == pytest.approx(budget_from_epsilon(0.1, 1e-5, 8).rho)
    assert any("Privacy budget: rho =" in c for c in codes)  # the ledger in words
    dl = at.get("download_button")
    assert [d.proto.label for d in dl] == ["Download the study bundle (seeded: for study, not for publication)"]
    # release mode (issue 11): the button is there, with the method and the budget in its label
    assert at.button(key="release:make").label == "Make a release (BF-Soft at τ = 0.03, ε = 0.1 at δ = 10⁻⁵)"
    # issue 24: the study bundle is named as such, below the release action, behind a less prominent button
    order = [n for n in at.main if getattr(n, "type", None) in ("button", "download_button")
             or getattr(getattr(n, "proto", None), "label", None)]
    keys = [getattr(n, "key", None) or getattr(getattr(n, "proto", None), "id", "") for n in order]
    make = next(i for i, n in enumerate(order) if getattr(n, "key", None) == "release:make")
    study = next(i for i, n in enumerate(order) if "study bundle" in getattr(getattr(n, "proto", None), "label", ""))
    assert make < study, keys
    assert at.button(key="release:make").proto.type == "primary" and dl[0].proto.type == "tertiary"
    assert "Study bundle (seeded: for study, not for publication)" in [h.value for h in at.subheader]


def test_make_a_release_on_the_release_step_is_unseeded():
    from studio import runner_ui as ui

    at = app()
    at.switch_page("pages/policy.py").run()
    at.session_state["runner_settings"] = dict(ui.RUNNER_DEFAULTS, rn_methods=["hard", "bf-soft"], rn_rounds=2,
                                               rn_release=50)
    at.switch_page("pages/release.py").run()
    at.button(key="release:make").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Release made (unseeded, OS entropy, sampler opendp)." in [x.value for x in at.success]
    made = at.session_state["release:result"]
    assert made.runs[0].seed is None and made.request.methods == ["bf-soft"]
    assert made.request.rho == pytest.approx(budget_from_epsilon(0.1, 1e-5, 2).rho)  # the session's budget
    assert "Download the release bundle (zip: CSV, schema, policy, budget, ledger)" in [
        d.proto.label for d in at.get("download_button")]


def test_release_bundle_zip_holds_the_settings():
    from blowfish_core.interfaces.run_bundle import bundle_zip
    from studio.bundle_ui import release_request
    from studio.state import default_studio

    s = default_studio()
    s.extras["budget"]["set"] = True
    _, settings = release_request({}, s)
    z = zipfile.ZipFile(io.BytesIO(bundle_zip(settings)))
    names = sorted(n.rsplit("/", 1)[-1] for n in z.namelist())
    assert names == ["README.md", "policy.json", "run.ipynb", "run.py", "run.sh", "schema.json"]
    assert cli_command(settings) in z.read("blowfish_run/run.sh").decode().replace('"${PYTHON:-python}"', "python")


# ------------------------------------------------------------------ tutorial
def test_tutorial_toggle_adds_explanations():
    at = app()
    n0 = len(at.info)
    at.toggle(key=flow.TUTORIAL_KEY).set_value(True).run()
    assert len(at.info) == n0 + 1 and "Follow the steps" in at.info[-1].value
    assert at.session_state[flow.TUTORIAL_KEY] is True
    d = AppTest.from_file(DESIGNER, default_timeout=TIMEOUT)
    d.session_state[flow.TUTORIAL_KEY] = True  # the router's toggle (a page run alone has no router)
    d.run()
    tips = [i.value for i in d.info if "policy graph per attribute" in i.value or "ε is the privacy budget" in i.value]
    assert len(tips) == 2
    assert not [i for i in designer().info if "policy graph per attribute" in i.value]  # off by default


# ------------------------------------------------------------------ Data / Policy sections
def test_data_step_shows_only_the_data_section_and_policy_step_folds_it():
    at = AppTest.from_file(DATA, default_timeout=TIMEOUT)
    at.session_state[flow.STEP_KEY] = "Data"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [h.value for h in at.header] == ["1 · Data and public domain"]
    assert not at.metric  # no read-outs on the Data step
    at = AppTest.from_file(DESIGNER, default_timeout=TIMEOUT)
    at.session_state[flow.STEP_KEY] = "Policy_Designer"
    at.run()
    assert [h.value for h in at.header] == ["1 · Data and public domain", "2 · Policy",
                                            "3 · Import and export (the CLI's JSON)"]
    assert at.expander[0].label.startswith("Data and public domain — XOR-3")
    assert {mm.label for mm in at.metric} >= {"Record-level reach", "Noise ratio q", "Privacy guarantee"}


# ------------------------------------------------------------------ policy verdict banners
def designer() -> AppTest:
    at = AppTest.from_file(DESIGNER, default_timeout=TIMEOUT).run()
    assert not at.exception
    return at


def test_policy_banner_clear_gain_is_green_with_the_issue_wording():
    at = designer()
    assert banners(at)[0][0] == "green"
    text = banners(at)[0][1]
    # q = tanh((1/28) / 0.06) = 0.53; Hard needs 1/q^2 = 3.5x the budget
    q = math.tanh((1 / 28) / 0.06)
    want = f"BF-Soft adds {q:.2f}× Hard's noise here — Hard would need {1 / q ** 2:.2g}× the budget for the same noise"
    assert want in text
    assert text.startswith("**BF-Soft adds 0.53× Hard's noise here")


def test_policy_banner_q_near_one_is_red_with_the_cause():
    at = designer()
    at.radio(key="designer:source").set_value("adult").run()
    at.radio(key="designer:table:adult").set_value("none").run()
    at.button(key="designer:load_t3").click().run()
    (colour, text), = banners(at)
    assert colour == "red"
    assert "workclass's block partition and income's complete graph set the reach to 0.2: no gain" in text
    assert "BF-Soft adds 1.00× Hard's noise here" in text


def test_policy_banner_between_is_blue_and_empty_policy_is_red():
    at = designer()
    at.select_slider(key="tau").set_value(0.015).run()  # q = tanh((1/28) / 0.03) = 0.83
    (colour, text), = banners(at)
    assert colour == "blue" and "BF-Soft adds 0.83× Hard's noise here" in text
    at.button(key="designer:clear").click().run()
    (colour, text), = banners(at)
    assert colour == "red" and text.startswith("**The policy protects nothing: no record is hidden.**")


# ------------------------------------------------------------------ epsilon-first budget
def test_budget_control_is_epsilon_first_log_scale_with_ends_and_warning():
    at = designer()
    sl = at.select_slider(key="designer:eps")
    assert sl.value == DEFAULTS["epsilon"] == 0.1
    assert list(sl.options) == ["0.01 · more privacy", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5",
                                "10 · more accuracy"]
    assert tuple(float(o.split(" ")[0]) for o in sl.options) == epsilon_steps()
    m = {mm.label: mm for mm in at.metric}
    assert m["Privacy guarantee"].value == "ε = 0.1 at δ = 10⁻⁵"
    labels = [mm.label for mm in at.metric]
    # one epsilon for the budget (the pair read-out ε′ is the group-privacy figure of two values)
    assert not [lab for lab in labels if (lab.startswith("ε") or "Eq. (1)" in lab) and "′" not in lab]
    tip = m["Privacy guarantee"].help
    v = budget_from_epsilon(0.1, 1e-5, 8)
    assert tip == v.tooltip and "ρ = " in tip and "Eq. (1)" in tip
    assert not [w for w in at.warning if "weak guarantee" in w.value]
    sl.set_value(10.0).run()
    assert [w.value for w in at.warning if "weak guarantee" in w.value]
    assert at.session_state["studio"].extras["budget"]["epsilon"] == 10.0
    sl = at.select_slider(key="designer:eps")
    sl.set_value(5.0).run()
    assert not [w for w in at.warning if "weak guarantee" in w.value]  # the warning is above 5, not at 5
    # rho sits in the advanced expander, off by default
    assert at.toggle(key="designer:use_rho").value is False
    assert at.number_input(key="designer:rho").disabled
    assert any(e.label.startswith("Advanced: give ρ") for e in at.expander)


def test_one_source_of_defaults():
    b = default_budget()
    assert b["epsilon"] == DEFAULTS["epsilon"] and b["delta"] == DEFAULTS["delta"] and b["set"] is False
    assert b["rho"] == pytest.approx(budget_from_epsilon(DEFAULTS["epsilon"], DEFAULTS["delta"]).rho)
    # the same budget whichever page opens first
    for first in (DESIGNER, RELEASE, VORONOI):
        at = AppTest.from_file(first, default_timeout=TIMEOUT).run()
        s = at.session_state["studio"]
        assert s.extras["budget"]["rho"] == pytest.approx(b["rho"]) and at.session_state["tau"] == DEFAULTS["tau"]


# ------------------------------------------------------------------ Voronoi class mode
def test_voronoi_takeaway_and_three_controls():
    at = AppTest.from_file(VORONOI, default_timeout=TIMEOUT).run()
    assert not at.exception
    take = at.success[0].value
    from blowfish_core import Attribute, AttributePolicy, Policy, Schema
    from blowfish_core.analysis.exact import exact_sensitivity

    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=10.0, weight=0.5),
                     Attribute("y", "numeric", lo=0.0, hi=10.0, weight=0.5)])
    policy = Policy({"x": AttributePolicy("threshold", theta=1.0), "y": AttributePolicy("threshold", theta=1.0)})
    C = schema.encode(at.session_state["voronoi:last"]["population"])
    h = exact_sensitivity(schema, policy, C, "hard", grid=11)
    s = exact_sensitivity(schema, policy, C, "soft", DEFAULTS["tau"], grid=11)
    assert take == (f"A protected step that crosses a boundary costs the hard vote √2 = 1.414, the soft vote "
                    f"{s.l2:.3f}: {h.l2 / s.l2:.1f}× less noise.")
    # three controls up front, no sidebar widgets, tightness controls labelled as the construction's
    # (in their lazy expander: drawn once it is open)
    assert not at.sidebar.number_input and not at.sidebar.select_slider
    at.session_state["v_tight_open"] = True
    at.run()
    assert at.select_slider(key="v_t_tau").label == "τ of the construction"


def test_voronoi_gap_reads_zero_exact():
    at = AppTest.from_file(VORONOI, default_timeout=TIMEOUT)
    at.session_state["v_tight_open"] = True  # the tightness expander, open
    at.run()
    assert {mm.label: mm.value for mm in at.metric}["Gap"] == "0 (exact)"


def test_voronoi_limit_shows_the_closed_form_bound_and_keeps_the_page():
    at = AppTest.from_file(VORONOI, default_timeout=TIMEOUT)
    at.session_state["v_tight_open"] = True  # the tightness expander, open
    at.run()
    at.number_input(key="v_x_grid").set_value(100).run()
    at.number_input(key="v_y_grid").set_value(100).run()
    at.number_input(key="v_x_theta").set_value(5.0).run()
    assert not at.exception
    m = {mm.label: mm.value for mm in at.metric}
    from blowfish_core import Attribute, AttributePolicy, Policy, Schema
    from blowfish_core.analysis.exact import closed_form_bound

    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=10.0, weight=0.5),
                     Attribute("y", "numeric", lo=0.0, hi=10.0, weight=0.5)])
    pol = Policy({"x": AttributePolicy("threshold", theta=5.0), "y": AttributePolicy("threshold", theta=1.0)})
    cf = closed_form_bound(schema, pol, DEFAULTS["tau"])
    assert m["Closed-form bound"] == f"{cf:.4f}"
    assert "at most" in at.success[0].value and "closed-form bound" in at.success[0].value
    assert len(at.get("plotly_chart")) == 3  # the page stays: regions, candidates, tightness


def test_voronoi_follows_the_session_tau():
    at = app()
    at.switch_page("pages/policy.py").run()
    at.select_slider(key="tau").set_value(0.1).run()
    at.switch_page("pages/voronoi.py").run()
    assert not at.exception
    assert at.select_slider(key="tau").value == 0.1
    assert at.session_state["voronoi:last"]["tau"] == 0.1
    assert any("τ follows the session (0.1, from Policy)" in c.value for c in at.caption)


def test_toggle_candidate_adds_and_removes():
    from studio.voronoi_ui import toggle_candidate as toggle

    pop = pd.DataFrame({"x": [1.0, 5.0], "y": [2.0, 6.0]})
    new, msg = toggle(pop, {"curve_number": 3, "point_index": 0}, cand_curve=3, grid_curve=1)
    assert new.to_dict("list") == {"x": [5.0], "y": [6.0]} and msg == "Removed candidate #0."
    new2, msg = toggle(new, {"curve_number": 3, "point_index": 0}, cand_curve=3, grid_curve=1)
    assert len(new2) == 1 and "last candidate stays" in msg
    new3, msg = toggle(pop, {"curve_number": 1, "point_index": 7, "x": 3.0, "y": 4.0}, cand_curve=3, grid_curve=1)
    assert new3.to_dict("list") == {"x": [1.0, 5.0, 3.0], "y": [2.0, 6.0, 4.0]} and "Added candidate #2" in msg
    same, msg = toggle(pop, {"curve_number": 1, "x": 5.0, "y": 6.0}, cand_curve=3, grid_curve=1)
    assert len(same) == 2 and "already a candidate" in msg


def test_takeaway_words():
    from studio.voronoi_ui import takeaway

    assert takeaway(math.sqrt(2), 0.643, 1.0) == ("A protected step that crosses a boundary costs the hard vote "
                                                  "√2 = 1.414, the soft vote 0.643: 2.2× less noise.")
    assert takeaway(0.0, 0.2, 1.0).startswith("No protected step crosses a boundary: the hard vote costs 0 here")
    assert "at most 0.500 (closed-form bound): 2.8× less noise" in takeaway(None, None, 0.5)
    assert takeaway(0.0, 0.0, 0.0) == "No protected step moves either vote here: both cost 0."


# ------------------------------------------------------------------ accuracy first on the Tune step
def _accuracy_app():
    from blowfish_core.algorithm.evolution import SynthConfig
    from studio.accuracy_ui import accuracy_first_section
    from studio.state import get_studio

    s = get_studio()
    cfg = SynthConfig(rounds=2, population=[64, 64], release=32)
    accuracy_first_section(s, s.public.iloc[:600], len(s.private), 0.03, [0, 1], cfg, s.metric_fn())


def test_accuracy_first_use_this_budget_sets_the_session_budget():
    at = AppTest.from_function(_accuracy_app, default_timeout=300).run()
    assert not at.exception
    assert any("public rows only" in c.value and "no private record is read" in c.value for c in at.caption)
    at.number_input(key="acc:target").set_value(0.6).run()
    at.button(key="acc:run").click().run()
    assert not at.exception and not at.error
    res = at.session_state["acc:result"]["result"]
    assert res.per_method[res.method].point(res.rho).mean <= 0.6  # reaches the target on the pilot
    assert at.metric[0].value == f"ε ≈ {verdicts.fmt_sig(res.epsilon, 2)}"
    at.button(key="acc:use").click().run()
    b = at.session_state["studio"].extras["budget"]
    assert b["mode"] == "rho" and b["rho"] == res.rho and b["set"] is True
    assert any("In use" in x.value for x in at.success)
    # the Release gate now counts the budget as chosen
    assert flow.release_missing(at.session_state["studio"], {}) == []


def test_accuracy_first_unreachable_target_is_a_clear_failure():
    at = AppTest.from_function(_accuracy_app, default_timeout=300).run()
    at.number_input(key="acc:target").set_value(0.01).run()
    at.button(key="acc:run").click().run()
    assert not at.exception
    assert any("is not reached on the public pilot" in e.value and "Fix:" in e.value for e in at.error)
    assert "acc:result" not in at.session_state


# ------------------------------------------------------------------ the carry from Tune τ says what changed
PILOT = os.path.join(ROOT, "pages", "tune.py")
RUNNER = os.path.join(ROOT, "pages", "run.py")


def test_carry_from_the_pilot_says_what_changed():
    at = AppTest.from_file(PILOT, default_timeout=300).run()
    assert not at.exception
    # the pilot's target budget is the session's (one source), shown as one epsilon
    b = at.session_state["studio"].extras["budget"]
    assert at.number_input(key="pl_rho").value == pytest.approx(b["rho"])
    assert {m.label: m.value for m in at.metric}["Target budget of the private run"] == "ε = 0.1 at δ = 10⁻⁵"
    for k, v in {"pl_rounds": 2, "pl_release": 100, "pl_seeds": 2}.items():
        at.number_input(key=k).set_value(v)
    at.text_input(key="pl_population").set_value("64x2")
    at.text_input(key="pl_grid").set_value("0.1")
    at.number_input(key="pl_tie").set_value(0.0).run()
    at.button(key="pl_run_btn").click().run()
    assert not at.exception and at.session_state.get("pilot_result")
    rec = at.session_state["pilot_result"]["result"].recommendation
    at.button(key="pl_carry_btn").click().run()
    msg = at.session_state["runner_carried"]["message"]
    print("chosen:", rec.label, "message:", msg)
    if rec.method == "hard":
        assert msg == "Tab-PE and BF-Soft removed from the comparison"
    else:
        assert msg == "tau 0.03 → 0.1; Tab-PE removed from the comparison"
        assert at.session_state["tau"] == 0.1
        assert at.session_state["studio"].extras["tau_source"] == "Tune τ"
    assert any(msg in s.value and s.value.startswith("Carried to the Synthesis Runner") for s in at.success)


def test_pilot_grid_and_tie_tolerance_read_for_people():
    at = AppTest.from_file(PILOT, default_timeout=300).run()
    grid = at.text_input(key="pl_grid").value
    assert "0.088" in grid.split(", ") and "0.0880823" not in grid  # 2 significant figures
    assert any(c.value == "Tie tolerance: 10⁻⁹ (floating-point rounding only)" for c in at.caption)


# ------------------------------------------------------------------ one tau key (issue 22)
def test_one_tau_key_across_tune_run_release():
    """tau is one session key (studio.state.TAU_KEY): set on one page, read on the next, under the router."""
    from studio.bundle_ui import release_request
    from studio.state import TAU_KEY

    at = app()
    at.switch_page("pages/policy.py").run()  # the Policy step: budget chosen (Release ready), tau 0.06 here
    at.select_slider(key=TAU_KEY).set_value(0.06).run()
    assert at.session_state[TAU_KEY] == 0.06 and at.session_state["studio"].extras["tau_source"] == "Policy"
    at.switch_page("pages/tune.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("τ = 0.06" in c.value for c in at.caption)  # Tune reads the same key
    for k, v in {"pl_rounds": 2, "pl_release": 100, "pl_seeds": 2}.items():
        at.number_input(key=k).set_value(v)
    at.text_input(key="pl_population").set_value("64x2")
    at.text_input(key="pl_grid").set_value("0.1")
    at.number_input(key="pl_tie").set_value(0.0).run()
    at.button(key="pl_run_btn").click().run()
    rec = at.session_state["pilot_result"]["result"].recommendation
    at.button(key="pl_carry_btn").click().run()
    assert not at.exception, [e.value for e in at.exception]
    carried = 0.06 if rec.method == "hard" else 0.1
    assert at.session_state[TAU_KEY] == carried
    # Run: its tau input is bound to the key; a change there is the session's tau
    at.switch_page("pages/run.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key=TAU_KEY).value == carried
    at.number_input(key=TAU_KEY).set_value(0.02).run()
    assert at.session_state[TAU_KEY] == 0.02 and at.session_state["studio"].extras["tau_source"] == "Run"
    # Release: the bundle and the CLI command use it
    at.switch_page("pages/release.py").run()
    assert not at.exception, [e.value for e in at.exception]
    s = at.session_state["studio"]
    assert policy_verdict(s.schema, s.policy, 0.02).headline in banners(at)[0][1]  # the verdict at the session's tau
    _, settings = release_request(at.session_state, s)
    assert cli_command(settings) in [c.value for c in at.code]
    assert settings.tau == (None if rec.method == "hard" else 0.02)  # Hard (carried from Tune τ) takes no tau
    # and back: the Policy slider and the Voronoi Explorer show it; the old per-page keys are gone
    at.switch_page("pages/policy.py").run()
    assert at.select_slider(key=TAU_KEY).value == 0.02
    at.switch_page("pages/voronoi.py").run()
    assert at.select_slider(key=TAU_KEY).value == 0.02
    assert not [k for k in ("designer:tau", "rn_tau", "v_tau", "v_session_tau") if k in at.session_state]
    assert "rn_tau" not in at.session_state["runner_settings"]
