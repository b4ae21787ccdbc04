"""Run bundle of the studio's settings (UI glue; the bundle itself is blowfish_core.interfaces.run_bundle).

:func:`source_kwargs` says where run.sh / run.py / run.ipynb find the private table (a built-in
generated XOR table, the shared Adult/Bank file, or the uploaded file's name, which the user must
put next to the bundle: the private table is never written into a bundle) and how to read it
(:func:`reading_kwargs`: the separator, header and missing-value choices of the Data step's
intake, so the scripts read an uploaded semicolon file as the app did; issue 24).
:func:`release_request` is the run the Release step exports: the session's budget (epsilon-first),
tau and schedule, the method chosen on the Release step (studio.release_ui; before any run the one
chosen in Tune τ: BF-Soft, or Hard when the pilot said so), one seed: the *study* bundle (seeded,
for study, not for publication), offered below "Make a release" on the Release step.
"""

from __future__ import annotations

from typing import Any

from blowfish_core import get_preset
from blowfish_core.algorithm.methods import BF_SOFT, HARD
from blowfish_core.io.presets import shared_path
from blowfish_core.interfaces.run_bundle import RunSettings, settings_from_request
from studio import runner_ui as ui
from studio.state import session_budget


def _file_name(studio: Any) -> str:
    """The uploaded file's name from the dataset's label ("Bank (bank-full.csv)" -> "bank-full.csv")."""
    name = str(studio.dataset_name)
    if "(" in name and name.endswith(")"):  # "Adult (my.csv)"
        name = name[name.rindex("(") + 1:-1]
    return name


def reading_kwargs(state: Any, studio: Any) -> dict[str, Any]:
    """The reading options of the studio's uploaded table, as the Data step read it (``studio.reading``,
    the session-state model's one record of them; ``state`` is kept for the callers' signature).

    The separator the intake used (chosen or detected: stated, so the scripts do not detect it
    again), the header choice, the missing-value choices and, for an arbitrary CSV, the modelled
    columns.  {} for a generated or shared table.
    """
    r = getattr(studio, "reading", None)
    if studio.table_source != "upload" or not r:
        return {}
    out: dict[str, Any] = {"sep": r["sep"], "no_header": bool(r["no_header"]), "drop_missing": list(r["drop_missing"]),
                           "missing_level": dict(r["missing_level"])}
    if studio.source == "csv":
        out["columns"] = list(studio.schema.names)
    return out


def source_kwargs(studio: Any, state: Any = None) -> dict[str, Any]:
    """preset / data_path of the studio's table for RunSettings, and the reading options of an upload
    (:func:`reading_kwargs`, from ``state``)."""
    if studio.preset and studio.table_source == "generated":
        return {"preset": studio.preset}
    if studio.preset and studio.table_source == "shared":
        return {"preset": studio.preset, "data_path": shared_path(get_preset(studio.preset))}
    return {"preset": studio.preset, "data_path": _file_name(studio), **reading_kwargs(state, studio)}


def runner_inputs(state: Any, studio: Any) -> dict[str, Any]:
    """A copy of the Runner's settings with the session's budget (the flow's one budget)."""
    ui.runner_settings(state, budget=session_budget(studio))
    s = ui.run_inputs(state)  # the session's tau (TAU_KEY) as "rn_tau"
    b = session_budget(studio)
    if b.get("mode") == "rho":
        s["rn_budget_mode"], s["rn_rho"] = ui.BUDGET_MODES[0], float(b["rho"])
    else:
        s["rn_budget_mode"], s["rn_epsilon"], s["rn_conversion"] = ui.BUDGET_MODES[1], float(b["epsilon"]), "auto"
    s["rn_delta"] = float(b["delta"])
    return s


def flow_method(state: Any) -> str:
    """The flow's method before any run: Hard when Tune τ chose it, else BF-Soft."""
    carried = state.get("runner_carried") or {}
    return HARD.name if carried.get("method") == HARD.name else BF_SOFT.name


def release_request(state: Any, studio: Any, method: str | None = None):
    """(RunRequest, RunSettings) of the release: ``method`` (default: the flow's, :func:`flow_method`),
    the session's budget, tau and schedule (its release size too), one seed."""
    s = runner_inputs(state, studio)
    s["rn_methods"] = [method or flow_method(state)]
    s["rn_decomp"] = False
    s["rn_seeds"] = 1
    req = ui.build_request(studio, s)
    return req, settings_from_request(req, **source_kwargs(studio, state))


def run_settings_of(req: Any, studio: Any, state: Any = None) -> RunSettings:
    """RunSettings of a Runner request (the Run page's bundle); ``state``: the session (reading options)."""
    return settings_from_request(req, **source_kwargs(studio, state))
