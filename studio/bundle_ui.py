"""Run bundle of the studio's settings (UI glue; the bundle itself is blowfish_core.interfaces.run_bundle).

:func:`source_kwargs` says where run.sh / run.py find the private table (a built-in generated
XOR table, the shared Adult/Bank file, or the uploaded file's name, which the user must put
next to the bundle: the private table is never written into a bundle).
:func:`release_request` is the run the Release step exports: the session's budget (epsilon-first),
tau and schedule, the method chosen on the Release step (studio.release_ui; before any run the one
chosen in Tune τ: BF-Soft, or Hard when the pilot said so), one seed.
"""

from __future__ import annotations

from typing import Any

from blowfish_core import get_preset
from blowfish_core.algorithm.methods import BF_SOFT, HARD
from blowfish_core.io.presets import shared_path
from blowfish_core.interfaces.run_bundle import RunSettings, settings_from_request
from studio import runner_ui as ui
from studio.state import session_budget


def source_kwargs(studio: Any) -> dict[str, Any]:
    """preset / data_path of the studio's table for RunSettings."""
    if studio.preset and studio.table_source == "generated":
        return {"preset": studio.preset}
    if studio.preset and studio.table_source == "shared":
        return {"preset": studio.preset, "data_path": shared_path(get_preset(studio.preset))}
    name = str(studio.dataset_name)
    if "(" in name and name.endswith(")"):  # "Adult (my.csv)"
        name = name[name.rindex("(") + 1:-1]
    return {"preset": studio.preset, "data_path": name}


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
    return req, settings_from_request(req, **source_kwargs(studio))


def run_settings_of(req: Any, studio: Any) -> RunSettings:
    """RunSettings of a Runner request (the Run page's bundle)."""
    return settings_from_request(req, **source_kwargs(studio))
