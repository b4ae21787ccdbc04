"""Shared session state of the Streamlit app: THE session-state model (issue 24).

Every setting has ONE key, survives every navigation, and every page shows it the same way:

======================  ==========================================================================
setting                 the one key (a plain, non-widget session value)
======================  ==========================================================================
data source, table      ``st.session_state["studio"]`` (:class:`Studio`: source, table_source,
                        private/public tables, dataset_name); a choice waiting for its file
                        ("Upload a CSV", a preset's "Upload") is the draft ``designer:source`` /
                        ``designer:table:<preset>`` (:func:`draft`)
reading options         ``studio.reading`` (how the loaded table was read: sep, no_header, names,
                        drop_missing, missing_level); the separator control's choice SEP_KEY; the
                        missing-value choices not yet applied are drafts
schema edits            ``studio.schema``; the edited schema table (what the user typed, also while
                        invalid) ``data:schema_table`` (studio.data_ui)
policy                  ``studio.policy`` (block / adjacency tables: ``pol:blockbase:*``,
                        ``pol:adjbase:*``, kept with their edits)
ε/δ or ρ                ``studio.extras["budget"]`` (:func:`session_budget`)
τ                       TAU_KEY (a widget key kept by :func:`keep_tau`, see below)
projector mode          PROJECTOR_KEY (studio.projector: the teaching pages' toggle, bound by seed)
methods, release size   ``runner_settings`` (studio.runner_ui.runner_settings: rn_methods,
                        rn_release, ...); the Release step's method ``release_choice`` (the
                        Policy page's own release form uses the same three and the session budget)
private choice (Tune)   ``pilot_settings`` (pl_private, pl_rho_sel, pl_allow_data_domain)
data-derived consent    ``studio.extras["allow_data_domain"]`` (studio.release_ui.keep_allow)
======================  ==========================================================================

The pattern (Streamlit deletes the key of a widget not drawn in a run, and a widget with the same
key on another page is another widget: its value is not carried over): the value lives in the
non-widget key above; a widget is bound to it by :func:`seed` (the model's value is written into
the widget's key on every run, before the widget is drawn) and writes it back in its ``on_change``
callback.  A control whose value is not part of the model yet (a draft: text being typed, a choice
applied by a button) keeps it in ``DRAFTS`` (:func:`draft` / :func:`keep_draft`).  A fixed-row
``st.data_editor`` is drawn on its kept table and the table it returns is kept (:func:`kept_editor`).
The one exception is τ: its widgets (Policy, Run, Voronoi) use TAU_KEY itself as their key, and
:func:`keep_tau` re-assigns ``st.session_state[TAU_KEY] = st.session_state[TAU_KEY]`` at the top of
every page run (get_studio), Streamlit's idiom for a widget key shared by pages.  Decision recorded
in docs/DECISIONS.md ("One session-state model").

Every page reads the dataset, schema and policy from ``st.session_state["studio"]`` through
:func:`get_studio`.  The default is the built-in XOR-3 preset (generated, no file needed).

The temperature tau is not in the Studio: it is the session key TAU_KEY (get_tau / set_tau), the
one key every tau widget is bound to (Policy, Run, Voronoi) and Tune τ's carry writes.

Contract (used by all pages):
    studio.dataset_name : str            e.g. "XOR-3 (built-in)", "Adult", "my.csv"
    studio.preset       : str | None     "xor3", "adult", "bank" or None for an arbitrary CSV
    studio.private      : pd.DataFrame   the private table (never modified by the app)
    studio.public       : pd.DataFrame | None   held-out / generated public rows for pilots
    studio.schema       : blowfish_core.Schema
    studio.policy       : blowfish_core.Policy
    studio.metric       : "pwerr" | "hoerr"
    studio.version      : int            bumped whenever dataset/schema/policy change
    studio.extras       : dict           free-form; the session's budget is extras["budget"] =
                                         {"mode": "epsilon"|"rho", "rho", "epsilon", "delta", "rounds",
                                         "set"} (created from DEFAULTS; written by the budget control,
                                         studio.budget_ui; "set" = a person has seen/chosen it);
                                         extras["tau_source"] = where the tau came from (set_tau,
                                         on_tau_change)
    studio.reading      : dict | None    how an uploaded table was read (None: generated or shared):
                                         {"sep": the separator used, "no_header": bool, "names":
                                         list | None (of a headerless file), "drop_missing": list,
                                         "missing_level": {column: text}} (the run bundle's reading
                                         options; studio.data_ui writes it on a successful load)

Added by the Policy Designer (all with defaults, so older constructors keep working):
    studio.source       : "xor3" | "adult" | "bank" | "csv"   where the dataset came from
    studio.table_source : "generated" | "shared" | "upload" | "none"
                          "none" = a preset chosen without its table: ``private`` then has
                          the schema's columns and 0 rows (policy design only; synthesis
                          pages must check :attr:`Studio.has_rows` and say the table is needed)
    studio.inferred_schema : Schema | None   for an uploaded CSV, the schema inferred from
                          the data (the reference for the "data-derived domain" flag)
    studio.has_rows     : bool (property)    the private table has at least one row
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

import blowfish_core as bc
from blowfish_core.base.constants import DEFAULT_DELTA
from blowfish_core.io.presets import load_preset_data


#: THE defaults of every page (one source; the Runner, the Pilot and the Policy step read them).
#: epsilon 0.1 at delta 1e-5 is rho ~ 5.3e-4 over the run (exact Gaussian curve), next to the paper's
#: highlighted budget rho = 6e-4 (App. F.2); tau 0.03 is the paper's default temperature.
DEFAULTS: dict[str, Any] = {
    "epsilon": 0.1,
    "delta": DEFAULT_DELTA,
    "rounds": 8,
    "tau": 0.03,
    "mode": "epsilon",
}


@functools.lru_cache(maxsize=8)
def _default_rho(epsilon: float, delta: float, rounds: int) -> float:
    """rho of (epsilon, delta) on the exact Gaussian curve (a root search: computed once per process,
    not on every get_studio call of every page run)."""
    from blowfish_core.workflows.budget import budget_from_epsilon

    return float(budget_from_epsilon(epsilon, delta, rounds).rho)


def default_budget() -> dict[str, Any]:
    """The session's budget before anyone chose one (a new dict on every call): DEFAULTS' epsilon and
    delta, its rho on the exact Gaussian curve (blowfish_core.workflows.budget.budget_from_epsilon), set = False."""
    rho = _default_rho(DEFAULTS["epsilon"], DEFAULTS["delta"], DEFAULTS["rounds"])
    return {"mode": DEFAULTS["mode"], "epsilon": DEFAULTS["epsilon"], "rho": rho,
            "delta": DEFAULTS["delta"], "rounds": DEFAULTS["rounds"], "set": False}


@dataclass
class Studio:
    dataset_name: str
    preset: str | None
    private: pd.DataFrame
    public: pd.DataFrame | None
    schema: bc.Schema
    policy: bc.Policy
    metric: str = "pwerr"
    version: int = 0
    extras: dict[str, Any] = field(default_factory=dict)
    source: str = "xor3"
    table_source: str = "generated"
    inferred_schema: bc.Schema | None = None
    reading: dict[str, Any] | None = None

    @property
    def has_rows(self) -> bool:
        """True when the private table has rows (False for a preset chosen without its table)."""
        return self.private is not None and len(self.private) > 0

    def metric_fn(self):
        """(name, f(schema, X_real, X_syn)) for the current dataset."""
        if self.preset:
            return bc.get_preset(self.preset).metric_fn()
        from blowfish_core.model.metrics import pwerr

        return "pwerr", pwerr


@st.cache_data(show_spinner=False)
def _preset_tables(name: str, data_path: str | None = None):
    p = bc.get_preset(name)
    split = load_preset_data(p, data_path)
    return split.private, split.public


def default_studio() -> Studio:
    p = bc.get_preset("xor3")
    priv, pub = _preset_tables("xor3")
    return Studio("XOR-3 (built-in)", "xor3", priv, pub, p.schema, p.default_policy(), metric=p.metric,
                  extras={"budget": default_budget()})


def session_budget(studio: Studio) -> dict[str, Any]:
    """studio.extras["budget"], completed from DEFAULTS (older states and replaced studios keep
    working); the same dict object every page reads and the budget control writes."""
    b = studio.extras.get("budget")
    if not isinstance(b, dict):
        b = studio.extras["budget"] = default_budget()
    for k, v in default_budget().items():
        b.setdefault(k, v)
    return b


#: THE session key of the temperature tau (issue 22: one key per setting).  The tau widgets of the
#: Policy, Run and Voronoi pages use it as their key (they read and write it directly); Tune τ writes
#: it with set_tau.  get_studio keeps it across pages (a widget key not drawn on a page would be
#: dropped at the end of that page's run).
TAU_KEY = "tau"
#: the plain session key of the teaching pages' projector mode (studio.projector).
PROJECTOR_KEY = "ui:projector"


def get_tau() -> float:
    """The session's tau (DEFAULTS["tau"] before anyone chose one, or outside a Streamlit session)."""
    try:
        return float(st.session_state.get(TAU_KEY, DEFAULTS["tau"]))
    except Exception:  # noqa: BLE001 - no session (a helper called from a plain test): the default
        return float(DEFAULTS["tau"])


def keep_tau() -> None:
    """Keep TAU_KEY across pages: re-assigned as a plain session value before any widget of the run
    is drawn (Streamlit's way to keep a widget's value on pages that do not draw the widget)."""
    try:
        st.session_state[TAU_KEY] = get_tau()
    except st.errors.StreamlitAPIException:  # a tau widget is already drawn in this run: it holds the key
        pass


def on_tau_change(source: str) -> None:
    """Widget callback of a tau widget bound to TAU_KEY: record where the tau came from."""
    get_studio().extras["tau_source"] = source


def set_tau(studio: Studio, tau: float, source: str) -> bool:
    """Set the session's tau (TAU_KEY) from code (Tune τ's carry); when it changes, record where it
    came from (extras["tau_source"], e.g. "Tune τ").  Returns True when the value changed."""
    tau = float(tau)
    if tau == get_tau() and studio.extras.get("tau_source"):
        return False
    st.session_state[TAU_KEY] = tau
    studio.extras["tau_source"] = source
    return True


# ------------------------------------------------------------------ binding widgets to the model
#: non-widget dict {widget key: value} of the drafts: controls whose value is not in the model yet.
DRAFTS = "ui:drafts"


def seed(key: str, value: Any) -> None:
    """Bind a widget to the model: write the model's ``value`` into the widget's ``key`` before the
    widget is drawn in this run (the widget then shows it, on every page; see the module docstring).
    ``value`` None removes the key (the widget shows its first option).  A widget already drawn in
    this run keeps its value (Streamlit refuses the write)."""
    try:
        if value is None:
            st.session_state.pop(key, None)
        else:
            st.session_state[key] = value
    except st.errors.StreamlitAPIException:
        pass


def draft(key: str, default: Any) -> Any:
    """The value a draft control shows (DRAFTS[key], else ``default``), seeded into its ``key``.
    Pair with :func:`keep_draft` in the widget's on_change."""
    value = st.session_state.setdefault(DRAFTS, {}).get(key, default)
    seed(key, value)
    return value


def keep_draft(key: str) -> None:
    """Widget callback (or part of one): keep the widget's value as its draft."""
    st.session_state.setdefault(DRAFTS, {})[key] = st.session_state.get(key)


def drop_drafts(prefix: str) -> None:
    """Forget the drafts whose widget key starts with ``prefix`` (their controls show the model again)."""
    d = st.session_state.setdefault(DRAFTS, {})
    for k in [k for k in d if str(k).startswith(prefix)]:
        del d[k]


def kept_editor(table_key: str, make: Any, key: str, **kwargs: Any) -> pd.DataFrame:
    """A fixed-row ``st.data_editor`` whose table survives navigation: drawn on the kept table
    ``st.session_state[table_key]`` (``make()`` builds it the first time) and the edited table it
    returns is kept there.  A keyed fixed-row editor keeps its identity while only values change, so
    its cell edits (absolute values) overlay the kept table idempotently; after a navigation the
    editor is new and shows the kept table.  Returns the edited table."""
    if table_key not in st.session_state:
        st.session_state[table_key] = make()
    edited = st.data_editor(st.session_state[table_key], key=key, num_rows="fixed", **kwargs)
    if not edited.equals(st.session_state[table_key]):
        st.session_state[table_key] = edited.copy()
    return edited


def get_studio() -> Studio:
    """The shared studio state (created with the XOR-3 default on first use)."""
    if "studio" not in st.session_state:
        st.session_state["studio"] = default_studio()
    studio = st.session_state["studio"]
    session_budget(studio)
    keep_tau()
    return studio


def set_studio(studio: Studio) -> None:
    """Replace the shared state (bumps the version so pages drop stale results)."""
    old = st.session_state.get("studio")
    studio.version = (old.version + 1) if old is not None else 0
    st.session_state["studio"] = studio
