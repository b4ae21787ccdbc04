"""AppTest tests of the app shell: the landing page (app.py), the page order and the shared
session state (studio.state) across pages."""

from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

import blowfish_core as bc
from studio import state

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = os.path.join(ROOT, "app.py")
PAGES = ["data.py", "policy.py", "voronoi.py", "run.py", "tune.py"]
#: issue 22: one file per step or teaching page, named by what it is (the router orders them, no numbers).
PAGE_FILES = ["data.py", "home.py", "policy.py", "public_sampler.py", "release.py", "run.py", "selection_lab.py",
              "tune.py", "voronoi.py"]
TIMEOUT = 60


def test_pages_are_named_by_what_they_are():
    found = sorted(f for f in os.listdir(os.path.join(ROOT, "pages")) if f.endswith(".py"))
    assert found == PAGE_FILES
    assert not os.path.exists(os.path.join(ROOT, "steps"))
    from studio import flow

    assert sorted({os.path.basename(s.file) for s in (flow.HOME, *flow.STEPS, *flow.TEACHING)}) == PAGE_FILES


def test_landing_page_links_every_page_and_shows_session():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert at.title[0].value.endswith("Blowfish Studio")
    links = at.get("page_link")
    # issue 16: app.py is the router; the step bar (5 links), then Home's steps (5) and teaching pages (3).
    # The url paths of the old numbered pages stay (set by studio.flow.STEPS, not by the file names).
    steps = ["Data", "Policy_Designer", "Temperature_Pilot", "Synthesis_Runner", "Release"]
    teaching = ["Voronoi_Explorer", "Selection_Lab", "Public_Aware_Sampler"]
    assert [ln.proto.page.rsplit("/", 1)[-1] for ln in links] == steps + steps + teaching
    assert [ln.proto.label for ln in links][5:] == ["1 · Data", "2 · Policy", "3 · Tune τ", "4 · Run", "5 · Release",
                                                    "Voronoi Explorer", "Selection Lab", "Public-aware sampler"]
    assert at.title[0].value == "Blowfish Studio"  # the landing page is "Home", not "app"
    text = " ".join(m.value for m in at.markdown)
    assert "XOR-3 (built-in)" in text and "12,000 private rows" in text and "**Protected attributes:** X_1" in text
    assert at.session_state["studio"].preset == "xor3"


@pytest.mark.parametrize("page", PAGES)
def test_each_page_loads_standalone(page):
    at = AppTest.from_file(os.path.join(ROOT, "pages", page), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title, "every page has a title"
    if page in ("data.py", "policy.py"):
        assert "studio" in at.session_state  # the page creates the shared state itself


def test_state_is_shared_between_pages():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/policy.py").run()
    assert not at.exception
    at.button(key="designer:load_t3").click().run()
    at.select_slider(key="tau").set_value(0.06).run()
    v = at.session_state["studio"].version
    assert at.session_state["studio"].policy.to_dict() == bc.Policy(dict(bc.get_preset("xor3").table3)).to_dict()
    at.switch_page("pages/home.py").run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "X_1, X_2, X_3, Y" in text and "τ = 0.06" in text
    assert at.session_state["studio"].version == v  # the landing page only reads
    at.switch_page("pages/tune.py").run()
    assert not at.exception


def test_set_studio_bumps_version_and_has_rows():
    s = state.default_studio()
    assert s.has_rows and s.source == "xor3" and s.table_source == "generated"
    from studio.data_source import preset_studio

    t = preset_studio("adult", None)
    assert not t.has_rows and t.table_source == "none" and t.private.shape == (0, 5)


def test_icons_are_material_symbols_not_emoji():
    """Emoji icons draw as empty boxes without a colour-emoji font (fresh-user trial)."""
    import re

    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception
    for ln in at.get("page_link"):
        assert re.fullmatch(r":material/[a-z_]+:", ln.proto.icon), ln.proto.icon
    assert at.title[0].value == "Blowfish Studio"
    src = open(APP, encoding="utf-8").read()
    assert not re.search("[\U0001F300-\U0001FAFF\u2600-\u27BF]", src)
