"""The JSON reports and the ledger text, built from a PairedResult in ONE place.

Issue 11 splits what a run produces in two (DESIGN §7, docs/PRIVACY.md §6):

* :func:`build_public` -- what may be published with the release: schema, policy,
  budget, the per-round ledger, the settings, the public warnings and the randomness
  line (``"unseeded, OS entropy, sampler opendp"``, ``"... sampler exact"`` for PubMix/LinMix, or
  ``"seeded: for study, not for publication"``).  The CLI's ``--bundle DIR`` writes it (with the synthetic CSVs and
  :func:`ledger_text`).
* :func:`build_internal` -- every figure computed on the private table (PWErr / HOErr,
  the summary, ``n_unique``, timings, the data source, the machine), labelled
  :data:`INTERNAL_LABEL`.  The CLI's ``--eval-report FILE`` writes it.

:func:`build_report` is the union for experiments: top-level ``public`` and ``internal``
plus every historical key of the CLI contract (README "Report", tests/interfaces/test_cli.py);
:func:`ledger_text` is the release note a data owner can paste; :func:`policy_summary`
the reach / q / bound block (also the ``reach`` command's).

Modules (issue 22, one idea each; every name is re-exported here): :mod:`.paired_runs` (the
:class:`PairedRuns` protocol), :mod:`.report_text` (:func:`ledger_text`), :mod:`.report_bundle`
(:func:`release_files`, :func:`bundle_files`, :func:`is_bundle_file`, :func:`bundle_total`),
:mod:`.report_summary` (:func:`summarize`); here the public, internal and union reports.
"""

from __future__ import annotations

import platform
from typing import Any

import numpy as np

from .. import __version__
from ..model.calibration import floor_value
from ..algorithm.streams import SEEDED_NOTE, randomness_of
from .spec import NO_PROTECTION_WARNING, RunRequest, _protects_nothing
from ..privacy.mechanisms import DEFAULT_MECHANISM
from ..model.metrics import NUMERIC_BINS
from ..model.policy import Policy, record_reach, weighted_reaches
from ..model.schema import Schema
from ..model.sensitivity import _noise_ratio, _soft_bound
from ..model.votes import check_tau
from .paired_runs import PairedRuns
from .report_bundle import (  # noqa: F401  (re-exported)
    BUNDLE_FIXED_FILES, _run_label, bundle_files, bundle_total, is_bundle_file, release_files,
)
from .report_summary import _interval, summarize  # noqa: F401  (re-exported)
from .report_text import (  # noqa: F401  (re-exported)
    _budget_text, _ledger_mechanisms, _ledger_text, _method_lines, _protected, _randomness_lines, _soft_bound_lines,
    _mechanism_labels, exact_release_lines, exact_release_text, ledger_text,
)


def policy_summary(schema: Schema, policy: Policy, tau: float | None) -> dict[str, Any]:
    """Reach, q and bound of a policy (Cor. 5.2, 5.5) as plain JSON data.

    Parameters
    ----------
    schema : Schema
        The public schema.
    policy : Policy
        The policy.
    tau : float or None
        Softmax temperature (> 0); None: no q and no bound.

    Returns
    -------
    dict
        ``per_attribute`` (weighted reaches), ``reach`` (record level, Gower units), ``tau``, ``q``
        and ``sensitivity_bound`` (None without tau; the bound floored as the calibration floors it),
        ``protected`` ({attribute: description}) and ``participation``.
    """
    r = record_reach(schema, policy)
    return _policy_summary(schema, policy, tau, r, None if tau is None else check_tau(tau))


def _policy_summary(schema: Schema, policy: Policy, tau: float | None, r: float,
                    checked_tau: float | None) -> dict[str, Any]:
    """:func:`policy_summary` with the record-level reach ``r`` and the checked temperature of a checked
    spec (RunSpec.checked; nothing re-checked).  tau: as given (shown); checked_tau: it, checked."""
    per = weighted_reaches(schema, policy)
    out: dict[str, Any] = {
        "per_attribute": per,
        "reach": r,
        "tau": tau,
        "q": None,
        "sensitivity_bound": None,
        "protected": {a.name: policy.policy_for(a.name).describe(a) for a in schema.attributes
                      if per[a.name] > 0},
        "participation": policy.participation,
    }
    if checked_tau is not None:
        out["q"] = _noise_ratio(r, checked_tau)
        out["sensitivity_bound"] = _soft_bound(r, checked_tau)
        out["sensitivity_bound"] = floor_value(out["sensitivity_bound"], policy)
    return out


def _spec_summary(req: RunRequest) -> dict[str, Any]:
    """policy_summary of a checked spec, from its reach and its checked tau (a tau no method needed was
    not checked by the spec: it is checked here, as policy_summary would)."""
    c = req.checked
    tau = c.tau if c.tau is not None or req.tau is None else check_tau(req.tau)
    return _policy_summary(req.schema, req.policy, req.tau, c.reach, tau)


#: the label of everything computed on the private table (DESIGN §7).
INTERNAL_LABEL = "internal: computed on private data \u2014 do not publish"
#: the label of the publishable part.
PUBLIC_LABEL = "public: DP outputs and public parameters only; may be published with the release"
#: the label of an unseeded run made outside the release gate (a research call of run_paired):
#: not checked for publication (issue 21: only release_gate.publish labels anything publishable).
UNGATED_LABEL = ("unseeded run made outside the release gate: not checked for publication (make releases with "
                 "synth without --seeds, Synthesizer(seed=None) or the app's Release step)")
#: keys of the union report that belong to the internal part (the rest is public).
INTERNAL_KEYS = ("data_source", "n_unique", "metric", "runs", "summary", "seconds_total", "machine")


def randomness_text(result: PairedRuns) -> str:
    """The randomness line of a result: :func:`~blowfish_core.algorithm.streams.randomness_of` its
    runs' noise samplers.

    Parameters
    ----------
    result : PairedResult
        The paired comparison (or a release's result).

    Returns
    -------
    str
        'seeded: for study, not for publication', 'unseeded, OS entropy, sampler opendp', or
        'unseeded, OS entropy, sampler exact' (PubMix/LinMix's exact draws).
    """
    return randomness_of(result.request.seeded, (r.synth.noise_sampler for r in result.runs))


def build_public(result: PairedRuns) -> dict[str, Any]:
    """What may be published with the release (JSON-safe): labelled PUBLIC_LABEL.

    Keys: label, randomness, tool, version, schema, domain_warning, policy, reach,
    per_attribute_reach, tau, noise_ratio_q, sensitivity_bound, privacy (the budget and
    its conversions), mechanism, config, methods, method_notions, blowfish_protection,
    warnings (from noisy counts and public settings only), n_private (only under bounded
    adjacency, where n is public; None with participation edges), seeds (absent when
    unseeded) and ledger: one {method, seed?, file, marginals?, rounds} per release (``marginals``:
    the cliques released exactly and with noise, for a method that releases some exactly: bf-mst).
    Holds no figure computed on the private table (no error, n_unique, timing).

    Parameters
    ----------
    result : PairedResult
        The paired comparison (its ``publication``, when the release gate set one, gives the label).

    Returns
    -------
    dict
        The public part, JSON-safe.
    """
    req = result.request
    c = req.checked
    pol = _spec_summary(req)
    files = release_files(result)
    ledger = []
    for r in result.runs:
        entry: dict[str, Any] = {"method": r.method, "label": c.method(r.method).label}
        if r.seed is not None:
            entry["seed"] = r.seed
        entry["file"] = files[(r.method, r.seed)]
        if r.synth.vote_precision is not None:
            entry["vote_precision"] = r.synth.vote_precision
        if r.synth.noise_sampler is not None:  # what drew the noise: numpy (study), opendp / exact (release)
            entry["noise_sampler"] = r.synth.noise_sampler
        if r.synth.marginals is not None:  # bf-mst: the marginals released exactly / with noise (issue 25)
            entry["marginals"] = r.synth.marginals
        entry["rounds"] = [row.to_dict() for row in r.ledger]
        ledger.append(entry)
    pub = getattr(result, "publication", None)  # set by the release gate (release.release_synthesis)
    out: dict[str, Any] = {
        "label": pub.label if pub is not None else (SEEDED_NOTE if req.seeded else UNGATED_LABEL),
        "randomness": randomness_text(result),
        "tool": "blowfish-studio",
        "version": __version__,
        "n_private": None if req.policy.participation else result.n_private,
        "n_private_note": ("n is public under bounded (substitution) adjacency" if not req.policy.participation
                           else "withheld: with participation edges the number of records is not public"),
        **_setting(result, pol),
        "config": _config(req, result),
        "methods": list(req.methods),
        "method_notions": {m.name: m.notion_text for m in c.methods},
        "blowfish_protection": not _protects_nothing(req.policy, c.reach),
        **({"unprotected_rows": int(req.unprotected_rows), "unprotected_source": req.public_source}
           if req.unprotected_rows else {}),
        "warnings": run_warnings(req, [{"method": e["method"], "seed": e.get("seed"), "rounds": e["rounds"]}
                                       for e in ledger]),
        "ledger": ledger,
    }
    if req.seeds is not None:  # req.seeded
        out["seeds"] = [int(s) for s in req.seeds]
    return out


def build_internal(result: PairedRuns) -> dict[str, Any]:
    """Everything computed on the private table, labelled INTERNAL_LABEL (JSON-safe).

    Keys: label, randomness, data_source, n_private, n_unique (distinct private records,
    un-noised), metric, runs (method, seed, the metric against the private table, seconds,
    round_seconds), summary (means, intervals, R_s, decomposition), seconds_total, machine.

    Parameters
    ----------
    result : PairedResult
        The paired comparison.

    Returns
    -------
    dict
        The internal part, JSON-safe.
    """
    req = result.request
    return {
        "label": INTERNAL_LABEL,
        "randomness": randomness_text(result),
        "data_source": req.data_source,
        "n_private": result.n_private,
        "n_unique": result.n_unique,
        "metric": _metric(result),
        "runs": [{"method": r.method, "seed": r.seed, result.metric_name: _error(result, r), "seconds": round(r.seconds, 4),
                  "round_seconds": [round(float(x), 4) for x in r.synth.round_seconds]} for r in result.runs],
        "summary": result.summary,
        "seconds_total": result.seconds_total,
        "machine": {"python": platform.python_version(), "numpy": np.__version__},
    }


def _vote_precision(result: PairedRuns | None) -> dict[str, str] | None:
    """{method: the soft vote's arithmetic as used} for the soft-vote methods (votes.SoftVote:
    float32 tiles in seeded study runs unless tau is too small for them, float64 in releases);
    several seeds that differ are joined with ' | '.  None when no run has a soft vote."""
    if result is None:
        return None
    out: dict[str, list[str]] = {}
    for r in result.runs:
        if r.synth.vote_precision is not None:
            seen = out.setdefault(r.method, [])
            if r.synth.vote_precision not in seen:
                seen.append(r.synth.vote_precision)
    return {m: " | ".join(v) for m, v in out.items()} or None


def _config(req: RunRequest, result: PairedRuns | None = None) -> dict[str, Any]:
    return {
        "rounds": req.config.rounds, "population": req.config.sizes(), "release": req.config.release,
        "threshold_h": req.config.threshold_h, "selection": req.config.selection,
        "switch_round": req.config.switch_round, "children": req.config.children,
        "release_mode": req.config.release_mode, "rank_by": req.config.rank_by,
        "mutation_index": req.config.mutation_index,
        "mutation": [req.config.mutation_start, req.config.mutation_end],
        "vote_precision": _vote_precision(result),
    }


def _metric(result: PairedRuns) -> dict[str, Any]:
    req = result.request
    skipped = getattr(result, "metric_note", "")
    return {"name": result.metric_name, "numeric_bins": NUMERIC_BINS,
            "reference": "private table" if req.reference is None else "reference table",
            "note": "evaluation only: computed against real data, not part of the release; "
                    "95% t-intervals over seeds, low end clipped at 0 (errors are nonnegative); "
                    "null with fewer than 2 seeds", **({"skipped": skipped} if skipped else {})}


def _error(result: PairedRuns, run: Any) -> float | None:
    """A run's metric in a report: None (JSON null) when the metric was skipped (metric_note)."""
    return None if getattr(result, "metric_note", "") else run.error


def build_report(result: PairedRuns) -> dict[str, Any]:
    """The union report for experiments (JSON-safe, no NaN).

    ``public`` (build_public) and ``internal`` (build_internal) plus every historical key of the
    CLI contract (README "Report"); the keys listed in INTERNAL_KEYS are internal (``parts`` says so).

    Parameters
    ----------
    result : PairedResult
        The paired comparison.

    Returns
    -------
    dict
        The union report.
    """
    req = result.request
    c = req.checked
    runs = [{
        "method": r.method,
        "label": c.method(r.method).label,
        "seed": r.seed,
        result.metric_name: _error(result, r),
        "seconds": round(r.seconds, 4),
        "vote_precision": r.synth.vote_precision,
        **({"marginals": r.synth.marginals} if r.synth.marginals is not None else {}),
        "rounds": [row.to_dict() for row in r.ledger],
    } for r in result.runs]
    pol = _spec_summary(req)
    return {
        "parts": {"public": result.public_report["label"], "internal": INTERNAL_LABEL,
                  "note": "only the 'public' part may be published with the release; the top-level keys "
                          + ", ".join(INTERNAL_KEYS) + " repeat the internal part"},
        "public": result.public_report,
        "internal": result.eval_report,
        "randomness": randomness_text(result),
        "tool": "blowfish-studio",
        "version": __version__,
        "data_source": req.data_source,
        "n_private": result.n_private,
        "n_unique": result.n_unique,
        **_setting(result, pol),
        "noise": c.mechanism.name if c.mechanism.samples else DEFAULT_MECHANISM,
        "public_source": req.public_source or None,
        "config": _config(req, result),
        "metric": _metric(result),
        "methods": list(req.methods),
        "method_notions": {m.name: m.notion_text for m in c.methods},
        "blowfish_protection": not _protects_nothing(req.policy, c.reach),
        **({"unprotected_rows": int(req.unprotected_rows), "unprotected_source": req.public_source}
           if req.unprotected_rows else {}),
        "warnings": run_warnings(req, runs),
        "seeds": [int(s) for s in req.seeds] if req.seeds is not None else [],  # req.seeded
        "runs": runs,
        "summary": result.summary,
        "seconds_total": result.seconds_total,
        "machine": {"python": platform.python_version(), "numpy": np.__version__},
        "seeded_run_note": "Seeded runs are reproducible for study; a real release must use fresh randomness.",
    }



def _setting(result: PairedRuns, pol: dict[str, Any]) -> dict[str, Any]:
    """The public setting of a run, shared by the public part and the full report: schema,
    domain warning, policy, reach, tau, q, the BF-Soft bound, privacy totals, mechanism."""
    req, schema = result.request, result.request.schema
    return {
        "schema": schema.to_dict(),
        "domain_warning": schema.domain_warning(),
        "policy": req.policy.to_dict(),
        "reach": pol["reach"],
        "per_attribute_reach": pol["per_attribute"],
        "tau": req.tau,
        "noise_ratio_q": pol["q"],
        "sensitivity_bound": pol["sensitivity_bound"],
        "privacy": {**result.privacy, "total": bundle_total(result)},
        "mechanism": req.checked.mechanism.name,
    }


def run_warnings(req: RunRequest, runs: list[dict[str, Any]]) -> list[str]:
    # (from public settings and noisy counts only: safe in the public part)
    """Plain-language warnings for the report.

    Empty policy (when allowed), a top release larger than the last population (candidates
    repeat), and rounds in which no candidate survived the threshold H (parents then drawn
    uniformly).  From public settings and noisy counts only: safe in the public part.

    Parameters
    ----------
    req : RunRequest
        The run spec.
    runs : list of dict
        One {method, seed, rounds} per run, ``rounds`` the ledger rows as dicts (``t``, ``surviving``).

    Returns
    -------
    list of str
        The warnings, each with its "Fix:" where there is one.
    """
    out: list[str] = []
    c = req.checked
    if any(m.policy_aware for m in c.methods) and _protects_nothing(req.policy, c.reach):
        out.append(NO_PROTECTION_WARNING)
    cfg = req.config
    m_last = cfg.sizes()[-1]
    loop = any(not m.is_reference for m in c.methods)  # MST / AIM run no Algorithm 1 loop
    if loop and cfg.release_mode in ("top", "top-distinct") and cfg.release > m_last:
        out.append(f"release {cfg.release} > the {m_last} candidates of the last round: the top release repeats "
                   "candidates in rank order. Fix: keep the release at most half the last population "
                   f"(e.g. --release {max(1, m_last // 2)}), or use --release-mode sample")
    for r in runs:
        empty = [rd["t"] for rd in r["rounds"] if rd["surviving"] == 0]
        if empty:
            who = r["method"] if r.get("seed") is None else f"{r['method']} seed {r['seed']}"
            out.append(f"{who}: no candidate survived the threshold H = "
                       f"{req.config.threshold_h:g} in round(s) {', '.join(map(str, empty))}; "
                       "parents (and the release, if in the last round) were drawn uniformly. "
                       "Fix: lower the threshold H")
    return out
