"""Release-step helpers (issue 24 "Release what won"; UI glue, the numbers come from the engine).

The Release step offers every private method (``Method.releasable``) of the last run, lowest mean
error first (blowfish_core.workflows.ranking), and defaults to the lowest-error one; before any run
it offers the flow's method (studio.bundle_ui.flow_method).  The release size is the Run step's
"Release size (records)" (one setting: runner_settings["rn_release"]).

Session-state contract:
    release_choice : dict   {"run": the id of the run the choice belongs to (None before a run),
                            "method": the method chosen}; a new last run resets it to its winner
    release:method : the method selectbox's widget key (re-set from release_choice on every page run)
    release:size   : the release-size input's widget key (re-set from runner_settings["rn_release"])
    studio.extras["allow_data_domain"] : bool   "release with a data-derived domain" ticked (the model of
                            the Release step's checkbox ALLOW_KEY and the Policy page's release form's;
                            a new dataset is a new Studio, so the consent is not carried to other data)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, MutableMapping

import streamlit as st

from blowfish_core import get_preset
from blowfish_core.algorithm.methods import get_method
from blowfish_core.workflows.formatting import fmt_sig
from blowfish_core.workflows.ranking import Ranking, ranking_from_report
from blowfish_core.workflows.release_words import release_rows_text
from studio import runner_ui as ui
from studio.bundle_ui import flow_method

CHOICE_KEY = "release_choice"
METHOD_KEY = "release:method"
SIZE_KEY = "release:size"
ALLOW_KEY = "release:allow_data_domain"


def allow_data_domain(studio: Any) -> bool:
    """True when the release may use a data-derived domain: ticked (studio.extras) and the schema has one."""
    return bool(studio.extras.get("allow_data_domain")) and bool(studio.schema.data_derived)


def keep_allow(key: str = ALLOW_KEY) -> None:
    """Widget callback of a "release with a data-derived domain" checkbox: keep its value in the model."""
    from studio.state import get_studio

    get_studio().extras["allow_data_domain"] = bool(st.session_state.get(key))


def last_run(state: Any, studio: Any) -> dict[str, Any] | None:
    """The latest stored run of the current dataset and policy (runner_results), or None."""
    runs = [r for r in (state.get("runner_results") or {}).values()
            if r.get("studio_version") == getattr(studio, "version", 0)]
    return max(runs, key=lambda r: r["id"]) if runs else None


@dataclass(frozen=True)
class ReleaseOptions:
    """The methods the Release step offers (lowest mean error of the run first), the default, the
    run's ranking (None before a run) and the run's id (None before a run)."""

    methods: tuple[str, ...]
    default: str
    ranking: Ranking | None = None
    run_id: int | None = None

    def label(self, method: str) -> str:
        """'MST · mean PWERR 0.507 in run #3 (lowest)' / 'BF-Soft'."""
        name = get_method(method).short_label
        if self.ranking is None:
            return name
        r = self.ranking.row(method)
        best = " (lowest)" if method == self.methods[0] else ""
        return f"{name} · mean {self.ranking.metric.upper()} {fmt_sig(r.mean, 3)} in run #{self.run_id}{best}"


def release_options(state: Any, studio: Any) -> ReleaseOptions:
    """The private methods of the last run, lowest mean error first (the default); before a run, the flow's
    method."""
    last = last_run(state, studio)
    ranking = ranking_from_report(last["report"]) if last is not None else None
    if ranking is not None and ranking.private:
        methods = tuple(r.method for r in ranking.private)
        return ReleaseOptions(methods, methods[0], ranking, int(last["id"]) if last is not None else None)
    m = flow_method(state)
    return ReleaseOptions((m,), m)


def chosen_method(state: MutableMapping[str, Any], options: ReleaseOptions) -> str:
    """The method chosen for the release (release_choice); the options' default when there is no choice
    yet, when the last run changed, or when the choice is not among the options."""
    c = state.get(CHOICE_KEY) or {}
    if c.get("run") != options.run_id or c.get("method") not in options.methods:
        c = {"run": options.run_id, "method": options.default}
        state[CHOICE_KEY] = c
    return str(c["method"])


def choose_method(state: MutableMapping[str, Any], options: ReleaseOptions, method: str) -> None:
    """Record ``method`` as the choice for the options' run."""
    state[CHOICE_KEY] = {"run": options.run_id, "method": method}


def release_size(state: MutableMapping[str, Any]) -> int:
    """The release size: the Run step's "Release size (records)" (runner_settings["rn_release"])."""
    return int(ui.runner_settings(state)["rn_release"])


def set_release_size(state: MutableMapping[str, Any], rows: int) -> None:
    """Set the release size (the one setting the Run step shows too)."""
    ui.runner_settings(state)["rn_release"] = int(rows)
    state.pop("rn_release", None)  # a stale Run-step widget value would overwrite it there


def rows_text(studio: Any, rows: int) -> str:
    """The release's rows against the private table's, and which rows count (release_words.release_rows_text)."""
    public = getattr(studio, "public", None)
    held = len(public) if public is not None and getattr(studio, "table_source", "") != "generated" else 0
    where = str(getattr(studio, "dataset_name", ""))
    if studio.preset and get_preset(studio.preset).csv_name:
        where = get_preset(studio.preset).csv_name
    return release_rows_text(int(rows), len(studio.private), held, where)
