"""The guided flow: Home → Data → Policy → Tune τ → Run → Release (issue 16, after DP Wizard).

* :data:`STEPS` and :data:`TEACHING`: the pages of ``st.navigation`` (app.py is the router).
  One file per page in pages/, named by what it is (issue 22): home, data, policy (it shows
  the data section of studio.data_ui collapsed), tune (the Temperature Pilot), run (the
  Synthesis Runner), release; the teaching pages voronoi, selection_lab, public_sampler.  The
  url paths (Step.key) are the old page names.
* :func:`step_status`: what is done and what is missing per step (pure: reads the studio and
  the session state); :func:`release_missing` is the gate of the Release step: schema (a table
  with rows), policy (protects something) and budget (chosen on a budget control) must be set.
* :func:`step_bar`: the bar drawn above every page by the router (links; Release disabled while
  something is missing, i.e. exactly when :func:`release_missing` is not empty).  The router draws it
  before the page and again after it (app.py), so it shows the state the page left; a page that ends
  early calls :func:`stop` (under the router it raises :class:`PageEnd`, which app.py catches, so
  the bar is still drawn again; ``st.stop()`` would forbid any later drawing).
* :func:`tutorial`: ONE helper for the short explanations the sidebar "Tutorial" toggle adds.
* :func:`verdict_banner`: a blowfish_core.workflows.verdicts.Verdict drawn green / blue / red.
* :func:`section_start` / :func:`section_end`: the data section, collapsed on the Policy step.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

#: the repository root: page files are given to st.Page as absolute paths (valid from any page).
ROOT = Path(__file__).resolve().parent.parent
#: session key of the step the router is running ("" when a page file runs on its own).
STEP_KEY = "flow:step"
#: done / missing marks of the step bar (Material Symbols: no emoji font needed).
DONE_MARK, TODO_MARK = ":material/check_circle:", ":material/radio_button_unchecked:"
TUTORIAL_KEY = "flow:tutorial"


@dataclass(frozen=True)
class Step:
    """A page of the flow: key (its url path), title, icon (Material Symbol), page file, blurb."""

    key: str
    title: str
    icon: str
    file: str
    blurb: str


STEPS: tuple[Step, ...] = (
    Step("Data", "Data", ":material/table_view:", "pages/data.py",
         "Load the table and declare the public domain (XOR-3 is built in)."),
    Step("Policy_Designer", "Policy", ":material/tune:", "pages/policy.py",
         "Draw a policy graph per attribute, read the verdict, choose the budget ε."),
    Step("Temperature_Pilot", "Tune τ", ":material/thermostat:", "pages/tune.py",
         "Pick Hard or a temperature τ on public rows only; or find the budget for a target error."),
    Step("Synthesis_Runner", "Run", ":material/play_circle:", "pages/run.py",
         "Run Tab-PE, Hard and BF-Soft on the same seeds and budget; read the verdict."),
    Step("Release", "Release", ":material/verified:", "pages/release.py",
         "The budget, the verdict, the ledger in words, the run bundle and the CLI command."),
)
TEACHING: tuple[Step, ...] = (
    Step("Voronoi_Explorer", "Voronoi Explorer", ":material/hexagon:", "pages/voronoi.py",
         "Why the hard vote cannot exploit a policy and the soft vote can (§4.3, Figure 1)."),
    Step("Selection_Lab", "Selection Lab", ":material/casino:", "pages/selection_lab.py",
         "Why calibrating the exponential mechanism to local sensitivity leaks."),
    Step("Public_Aware_Sampler", "Public-aware sampler", ":material/blender:", "pages/public_sampler.py",
         "PubMix / LinMix: release samples from a mixture with public data."),
)
HOME = Step("", "Home", ":material/home:", "pages/home.py", "Start here.")


# ------------------------------------------------------------------ state checks
def current_step() -> str:
    """The step key the router is running ('' when a page runs on its own, e.g. in an AppTest)."""
    return str(st.session_state.get(STEP_KEY, "") or "")


def _policy_empty(studio: Any) -> bool:
    from blowfish_core.synthesis.spec import policy_is_empty

    try:
        return policy_is_empty(studio.schema, studio.policy)
    except Exception:  # noqa: BLE001 - an invalid policy is "not set"
        return True


def step_status(studio: Any, state: Any) -> dict[str, tuple[bool, str]]:
    """{step key: (done, text)}: what each step has and what it misses, in words."""
    from studio.state import get_tau, session_budget

    out: dict[str, tuple[bool, str]] = {}
    if studio.has_rows:
        out["Data"] = (True, f"{studio.dataset_name}: {len(studio.private):,} rows")
    else:
        out["Data"] = (False, f"{studio.dataset_name}: no table rows yet (load the table)")
    if _policy_empty(studio):
        out["Policy_Designer"] = (False, "the policy protects nothing yet")
    else:
        out["Policy_Designer"] = (True, "protects " + ", ".join(studio.policy.protected(studio.schema))
                                  + (" + participation" if studio.policy.participation else ""))
    b = session_budget(studio)
    src = studio.extras.get("tau_source")
    out["Temperature_Pilot"] = (bool(src) or "pilot_result" in state,
                                f"τ = {get_tau():g}" + (f" (from {src})" if src else " (default; optional step)"))
    runs = state.get("runner_results") or {}
    fresh = [r for r in runs.values() if r.get("studio_version") == studio.version]
    out["Synthesis_Runner"] = (bool(fresh), f"{len(fresh)} run(s) on this data and policy" if fresh
                               else "no run yet (optional before a release)")
    missing = release_missing(studio, state)
    out["Release"] = (not missing, "ready" if not missing else "missing: " + "; ".join(missing))
    out["_budget"] = (bool(b.get("set")), "budget chosen" if b.get("set") else "budget not chosen yet")
    return out


def session_summary(studio: Any, state: Any) -> list[str]:
    """Home's "Current session": one markdown line per setting, read from the session-state model
    (studio.state): the data and how they were read, the schema, the policy, τ, the budget, the run's
    methods and release size."""
    from blowfish_core.algorithm.methods import METHOD_LABELS
    from studio.budget_ui import session_view
    from studio.data_source import sep_label
    from studio.runner_ui import RUNNER_DEFAULTS
    from studio.state import get_tau, session_budget

    rows = f"{len(studio.private):,} private rows" if studio.has_rows else "no table (policy design only)"
    read = getattr(studio, "reading", None)
    how = ""
    if read:
        how = f" (separator {sep_label(read['sep'])}" + (", no header row" if read.get("no_header") else "") + (
            f", rows with a missing {', '.join(read['drop_missing'])} dropped" if read.get("drop_missing") else "") + ")"
    schema = studio.schema
    derived = list(schema.data_derived_columns or []) if schema.data_derived else []
    cols = f"{schema.p} modelled attributes" + (f"; domain read off the data: {', '.join(derived)}" if derived else "")
    protected = ", ".join(studio.policy.per_attribute) or "nothing"
    view = session_view(studio)
    chosen = "" if session_budget(studio).get("set") else " (default, not chosen yet)"
    run = state.get("runner_settings") or RUNNER_DEFAULTS  # read only: the Run step creates it
    methods = ", ".join(METHOD_LABELS.get(m, m) for m in run["rn_methods"]) or "none"
    return [f"- **Dataset:** {studio.dataset_name} — {rows}{how}",
            f"- **Schema:** {cols}",
            f"- **Protected attributes:** {protected}{' + participation edges' if studio.policy.participation else ''}",
            f"- **Temperature:** τ = {get_tau():g}",
            f"- **Budget:** {view.label if view else '—'}{chosen}",
            f"- **Run:** {methods}; release size {int(run['rn_release']):,} rows"]


def release_missing(studio: Any, state: Any) -> list[str]:
    """What the Release step still needs ([] = ready): a table with rows (schema + data), a policy
    that protects something, and a budget chosen on a budget control (Policy or Run step)."""
    from studio.state import session_budget

    missing = []
    if studio.schema is None or not studio.has_rows:
        missing.append("a table with rows for the schema (Data step)")
    if _policy_empty(studio):
        missing.append("a policy that protects at least one attribute (Policy step)")
    if not session_budget(studio).get("set"):
        missing.append("a privacy budget ε (choose it in the Policy step)")
    return missing


# ------------------------------------------------------------------ drawing
def tutorial_on() -> bool:
    return bool(st.session_state.get(TUTORIAL_KEY, False))


def tutorial(text: str) -> None:
    """A short explanation shown only when the sidebar's Tutorial toggle is on."""
    if tutorial_on():
        st.info(text, icon=":material/school:")


def sidebar_controls() -> None:
    """The Tutorial toggle (sidebar)."""
    st.sidebar.toggle("Tutorial", key=TUTORIAL_KEY,
                      help="Adds short explanations to every page: what the step is for and how to read it.")


#: icon of each verdict level: a verdict banner is told apart from an error message by it.
VERDICT_ICONS = {"good": ":material/verified:", "neutral": ":material/balance:", "bad": ":material/block:"}


def verdict_banner(verdict: Any, container: Any = None) -> None:
    """A Verdict as a banner: good -> st.success, neutral -> st.info, bad -> st.error (colour by
    level), icon VERDICT_ICONS[level]; headline in bold, the detail after it."""
    c = container if container is not None else st
    draw = {"good": c.success, "neutral": c.info, "bad": c.error}[verdict.level]
    draw(f"**{verdict.headline}.** {verdict.detail}", icon=VERDICT_ICONS[verdict.level])


def is_verdict(element: Any) -> bool:
    """True for an AppTest alert element drawn by verdict_banner (tests tell banners from errors)."""
    return getattr(element, "icon", None) in VERDICT_ICONS.values()


class PageEnd(Exception):
    """Raised by :func:`stop` under the router: the page ends here; app.py catches it and draws the
    step bar again."""


def stop() -> None:
    """End the page here: under the router raise PageEnd (the router then draws the step bar with
    what the page changed); when a page file runs on its own, st.stop()."""
    if current_step():
        raise PageEnd
    st.stop()


def step_bar(studio: Any) -> None:
    """One link per step with ✓ (done) or ○ (missing), the Release link disabled until ready."""
    status = step_status(studio, st.session_state)
    cols = st.columns(len(STEPS))
    here = current_step()
    for col, s in zip(cols, STEPS):
        done, text = status[s.key]
        mark = DONE_MARK if done else TODO_MARK
        gated = s.key == "Release" and not done
        label = f"{mark} {s.title}" if s.key != here else f"{mark} **{s.title}**"
        col.page_link(page(s), label=label, icon=s.icon, disabled=gated, help=text)


def section_start(section: str, summary: str = "") -> Any:
    """Open ``section`` of the Policy page: the data section (studio.data_ui) is an expander, collapsed,
    when the router runs the Policy step, and drawn open when the page runs on its own (None).  Pair
    with section_end."""
    if section == "data" and current_step() == "Policy_Designer":
        box = st.expander(f"Data and public domain — {summary}" if summary else "Data and public domain")
        box.__enter__()
        return box
    return None


def section_end(box: Any, section: str) -> None:
    """Close what section_start opened."""
    if box is not None:
        box.__exit__(None, None, None)


# ------------------------------------------------------------------ navigation
def step(key: str) -> Step:
    """The Step (or teaching page) with this key; KeyError otherwise."""
    for s in (HOME, *STEPS, *TEACHING):
        if s.key == key:
            return s
    raise KeyError(key)


def page(s: Step) -> Any:
    """The st.Page of a step (the same object st.navigation registers: file, url path, title)."""
    if s is HOME or s.key == "":
        return st.Page(ROOT / HOME.file, title=HOME.title, icon=HOME.icon, url_path="Home", default=True)
    return st.Page(ROOT / s.file, title=s.title, icon=s.icon, url_path=s.key)


def link(key: str, label: str | None = None, container: Any = None, **kw: Any) -> None:
    """st.page_link to a step by key (works under the router only)."""
    s = step(key)
    (container or st).page_link(page(s), label=label or s.title, icon=s.icon, **kw)


def navigation() -> Any:
    """st.navigation of the flow: Home, the steps, the teaching pages (in their own section)."""
    pages = {"Start": [page(HOME)], "Steps": [page(s) for s in STEPS], "Teaching": [page(s) for s in TEACHING]}
    return st.navigation(pages)


def pages_by_key(nav_pages: Any = None) -> dict[str, Any]:
    return {s.key: page(s) for s in (HOME, *STEPS, *TEACHING)}
