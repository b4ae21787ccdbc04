"""The README of a runnable export: what to run, where the data must be, and the privacy ledger in
words (report.ledger_text of a run's report, or of the budget planned from the settings alone).

Issue 16 "Runnable export"; DESIGN §7 (a seeded run is for study).  Issue 22: split off
:mod:`blowfish_core.interfaces.run_bundle`, which re-exports every name.
"""

from __future__ import annotations

from typing import Any, cast

from ..privacy.accounting import PrivacyLedger, epsilon_eq1
from ..base.errors import BlowfishError
from ..synthesis.gate import total_keys
from ..base.constants import DEFAULT_DELTA
from ..synthesis.spec import policy_is_empty
from ..privacy.mechanisms import get_mechanism
from ..algorithm.methods import get_method
from ..synthesis.parsing import parse_budget, parse_methods
from ..io.presets import get_preset
from ..synthesis.report import policy_summary
from ..synthesis.report_text import ledger_text
from .run_scripts import cli_command
from .run_settings import RunSettings


def planned_report(settings: RunSettings) -> dict[str, Any]:
    """The report fields report.ledger_text needs, from the settings alone (before any run).

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).

    Returns
    -------
    dict
        ``privacy`` (the planned totals: gdp-exact, zcdp-eq1 for reference methods, or pure-sum),
        mechanism (the run's registry name), methods, blowfish_protection, policy, reach, tau, noise_ratio_q,
        sensitivity_bound,
        domain_warning and warnings ([]).

    Raises
    ------
    BlowfishError
        For invalid settings.
    """
    s = settings.validate()
    methods = parse_methods(s.methods, "methods")
    b = parse_budget(s.rho, s.epsilon, s.delta, s.mechanism, s.budget_conversion, flags=False,
                     methods=[get_method(m) for m in methods])
    rounds = s.config.rounds
    privacy: dict[str, Any]
    if b.rho is not None and any(get_method(m).is_reference for m in methods):
        # reference methods (MST, AIM): Gaussian + exponential rows, Eq. (1) only (ledger.zcdp_totals);
        # their number of rows is known only after the run
        eps = epsilon_eq1(b.rho, b.delta)
        privacy = {"rho": b.rho, "delta": b.delta, "epsilon": eps, "epsilon_eq1": eps, "rounds": None,
                   "accountant": "zcdp-eq1"}
    elif b.rho is not None:
        privacy = {**PrivacyLedger.from_budget(rho=b.rho, delta=b.delta, rounds=rounds).to_dict(),
                   "accountant": "gdp-exact"}
    else:
        # parse_budget gives rho or epsilon: here epsilon (pure DP)
        per = [float(x) for x in get_mechanism(b.mechanism).split(cast(float, b.epsilon), rounds)]
        privacy = {"epsilon": b.epsilon, "delta": 0.0, "rounds": rounds, "epsilon_per_round": per,
                   "accountant": "pure-sum"}
    pol = policy_summary(s.schema, s.policy, s.tau)
    return {"privacy": privacy, "mechanism": b.mechanism, "methods": methods,
            "blowfish_protection": not policy_is_empty(s.schema, s.policy),
            "policy": s.policy.to_dict(), "reach": pol["reach"], "tau": s.tau, "noise_ratio_q": pol["q"],
            "sensitivity_bound": pol["sensitivity_bound"], "domain_warning": s.schema.domain_warning(),
            "warnings": []}


def planned_total(settings: RunSettings) -> dict[str, Any]:
    """The total the release gate will state for ONE release of ``settings`` (one method, one table).

    The planned ledger's totals (:func:`planned_report`) in the keys of
    :func:`blowfish_core.synthesis.gate.compose_total`, so the Release step can state before the
    release what the gate's ledger states after it.

    Parameters
    ----------
    settings : RunSettings
        The release's settings (one method).

    Returns
    -------
    dict
        {'rho', 'epsilon', 'delta', 'accountant'} (gate.total_keys).

    Raises
    ------
    BlowfishError
        For invalid settings, or more than one method (a release of several tables composes them).
    """
    if len(settings.methods) != 1:
        raise BlowfishError(f"planned_total is the total of one release: give one method (got {settings.methods})")
    return total_keys(planned_report(settings)["privacy"])


def _rounds_in_words(report: dict[str, Any]) -> list[str]:
    lines = []
    for run in report.get("runs", [])[:1]:
        lines.append(f"Per round ({get_method(run['method']).label}, seed {run['seed']}):")
        for r in run["rounds"]:
            budget = (f"rho_t = {r['rho_t']:.4g}" if r.get("rho_t") is not None
                      else f"epsilon_t = {r.get('epsilon_t', 0):.4g}")
            lines.append(f"- round {r['t']}: {r['candidates']} candidates, sensitivity {r['sensitivity_t']:.4g} "
                         f"({r['calibration']}), noise scale {r['scale_t']:.4g}, {budget}")
    return lines


def _budget_view(s: RunSettings):
    """The epsilon-first view of the settings' budget (blowfish_core.workflows.budget)."""
    from ..workflows.budget import budget_from_epsilon, budget_from_rho

    if s.rho is not None:
        return budget_from_rho(s.rho, DEFAULT_DELTA if s.delta is None else s.delta, s.config.rounds)
    # validated settings have rho or epsilon (parse_budget): here epsilon
    return budget_from_epsilon(cast(float, s.epsilon), s.delta, s.config.rounds, s.mechanism,
                               s.budget_conversion or "exact")


def _reading_words(s: RunSettings) -> str:
    """The reading options in words ('' for a generated table)."""
    if not s.data_path:
        return ""
    o = s.read_options
    parts = [f"separator {o['sep']!r}" if o["sep"] is not None else "separator detected",
             f"no header row, names {', '.join(o['names'])}" if o["names"] else
             "no header row" if o["no_header"] else "header detected"]
    if o["drop_missing"] is True:
        parts.append("rows with a missing cell dropped")
    elif o["drop_missing"]:
        parts.append(f"rows with a missing {', '.join(o['drop_missing'])} dropped")
    parts += [f"missing {c} read as {v!r}" for c, v in o["missing_level"].items()]
    return "Read as the CLI reads `--data`: " + "; ".join(parts) + f"; columns {', '.join(s.schema.names)}."


def readme(settings: RunSettings, report: dict[str, Any] | None = None) -> str:
    """README.md: how to rerun, where the data come from, and the ledger in words.

    The ledger is report.ledger_text of ``report`` when a run's report is given, else of the
    planned budget (planned_report).

    Parameters
    ----------
    settings : RunSettings
        The run's settings (validated here: BlowfishError naming the field).
    report : dict, optional
        The run's report (its ``runs`` give the per-round lines).

    Returns
    -------
    str
        The README's Markdown text.

    Raises
    ------
    BlowfishError
        For invalid settings.
    """
    s = settings.validate()
    src = s._source()
    if src == "generated":
        # a generated source has a preset (_source)
        where = (f"The table is generated ({s.preset}, n = {s.n or get_preset(cast(str, s.preset)).default_n:,}, "
                 f"seed {s.data_seed or 0}); no data file is needed.")
    elif src == "preset-split":
        where = (f"The private table is read from `{s.data_path}` (the {s.preset} preset's private split, "
                 f"seed {s.split_seed or 0}). It is NOT in this bundle: put the file there first.")
    else:
        where = f"The private table is read from `{s.data_path}`. It is NOT in this bundle: put the file there first."
    led = ledger_text(report if report is not None else planned_report(s))
    view = _budget_view(s)
    words = "\n".join(_rounds_in_words(report)) if report is not None else ""
    reading = _reading_words(s)
    internal = (f"run.sh also writes `{s.report}` (errors and timings computed on the private table: internal, "
                "do not publish) outside this folder." if s.report else
                "Nothing computed on the private table but the seeded release is written into this folder (no "
                "report): to see the errors, run the CLI with `--eval-report PATH` outside the folder.")
    return "\n".join([
        "# Blowfish Studio study bundle (seeded: for study, not for publication)", "",
        "Files: `schema.json` (public domain), `policy.json` (Blowfish policy), `run.sh` (the CLI command with "
        "every setting), `run.py` (the same run through the Python API), `run.ipynb` (run.py's calls as notebook "
        "cells), this README.", "",
        "## Run it", "",
        "```sh", "sh run.sh            # or: PYTHON=/path/to/python sh run.sh", "python run.py",
        "jupyter nbconvert --to notebook --execute run.ipynb   # or open it in Jupyter, in this folder", "```", "",
        "Each needs `blowfish_core` importable (install the Blowfish Studio repository or set PYTHONPATH to it) "
        f"and writes `{s.out}`: the release of the first method and seed, byte for byte the same from each.", "",
        where, *([reading] if reading else []), "", internal, "",
        "The command in run.sh:", "", "```sh", cli_command(s), "```", "",
        "## Privacy ledger in words", "",
        f"In one number: {view.label} (the accountant's epsilon; every figure follows).", "", led, "", *([words, ""] if words else []),
        "Seeded runs are reproducible for study; a real release must use fresh randomness (a known seed lets "
        "anyone recompute and subtract the noise).", "",
    ])
