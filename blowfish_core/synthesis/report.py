"""The JSON reports and the ledger text, built from a PairedResult in ONE place.

Issue 11 splits what a run produces in two (DESIGN §7, docs/PRIVACY.md §6):

* :func:`build_public` -- what may be published with the release: schema, policy,
  budget, the per-round ledger, the settings, the public warnings and the randomness
  line (``"unseeded, OS entropy, sampler opendp"`` or ``"seeded: for study, not for
  publication"``).  The CLI's ``--bundle DIR`` writes it (with the synthetic CSVs and
  :func:`ledger_text`).
* :func:`build_internal` -- every figure computed on the private table (PWErr / HOErr,
  the summary, ``n_unique``, timings, the data source, the machine), labelled
  :data:`INTERNAL_LABEL`.  The CLI's ``--eval-report FILE`` writes it.

:func:`build_report` is the union for experiments: top-level ``public`` and ``internal``
plus every historical key of the CLI contract (README "Report", tests/interfaces/test_cli.py);
:func:`ledger_text` is the release note a data owner can paste; :func:`policy_summary`
the reach / q / bound block (also the ``reach`` command's).
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from typing import Any, Protocol, cast

import numpy as np

from .. import __version__
from ..model.calibration import floor_value
from ..algorithm.evolution import RANDOMNESS, SEEDED_NOTE
from .gate import NOT_DP_LABEL, total_text
from .spec import NO_PROTECTION_WARNING, RunRequest, _protects_nothing
from ..privacy.mechanisms import DEFAULT_MECHANISM, MECHANISMS
from ..algorithm.methods import BASELINE, DECOMPOSITION, METHODS, SOFT, Method, get_method
from ..model.metrics import NUMERIC_BINS, relative_reduction, t_interval
from ..model.policy import Policy, record_reach, weighted_reaches
from ..model.schema import Schema
from ..model.sensitivity import SQRT2, _noise_ratio, _soft_bound
from ..model.votes import check_tau


class PairedRuns(Protocol):
    """What the reports read of a paired comparison: :class:`blowfish_core.synthesis.experiment.PairedResult`
    (not imported here: experiment builds its reports with this module, issue 22)."""

    # read-only members (the result is a frozen dataclass)
    @property
    def request(self) -> RunRequest: ...

    @property
    def runs(self) -> tuple[Any, ...]: ...

    @property
    def metric_name(self) -> str: ...

    @property
    def n_private(self) -> int: ...

    @property
    def n_unique(self) -> int: ...

    @property
    def privacy(self) -> dict[str, Any]: ...

    @property
    def seconds_total(self) -> float: ...

    def run(self, method: str, seed: int | None = None) -> Any: ...

    @property
    def summary(self) -> dict[str, Any]: ...

    @property
    def public_report(self) -> dict[str, Any]: ...

    @property
    def eval_report(self) -> dict[str, Any]: ...


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
    """The randomness line of a result.

    Parameters
    ----------
    result : PairedResult
        The paired comparison.

    Returns
    -------
    str
        'unseeded, OS entropy, sampler opendp' or 'seeded: for study, not for publication'.
    """
    return SEEDED_NOTE if result.request.seeded else RANDOMNESS


def _run_label(method: str, seed: int | None) -> str:
    return method if seed is None else f"{method}_seed{seed}"


def release_files(result: PairedRuns) -> dict[tuple[str, int | None], str]:
    """The release CSV's file name of every run in a bundle / --out-dir.

    Parameters
    ----------
    result : PairedResult
        The paired comparison.

    Returns
    -------
    dict
        (method, seed) -> ``<method>.csv`` for an unseeded run, ``<method>_seed<S>.csv`` for a seeded one.
    """
    return {(r.method, r.seed): _run_label(r.method, r.seed) + ".csv" for r in result.runs}


def build_public(result: PairedRuns) -> dict[str, Any]:
    """What may be published with the release (JSON-safe): labelled PUBLIC_LABEL.

    Keys: label, randomness, tool, version, schema, domain_warning, policy, reach,
    per_attribute_reach, tau, noise_ratio_q, sensitivity_bound, privacy (the budget and
    its conversions), mechanism, config, methods, method_notions, blowfish_protection,
    warnings (from noisy counts and public settings only), n_private (only under bounded
    adjacency, where n is public; None with participation edges), seeds (absent when
    unseeded) and ledger: one {method, seed?, file, rounds} per release.
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
        "runs": [{"method": r.method, "seed": r.seed, result.metric_name: r.error, "seconds": round(r.seconds, 4),
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
    return {"name": result.metric_name, "numeric_bins": NUMERIC_BINS,
            "reference": "private table" if req.reference is None else "reference table",
            "note": "evaluation only: computed against real data, not part of the release; "
                    "95% t-intervals over seeds, low end clipped at 0 (errors are nonnegative); "
                    "null with fewer than 2 seeds"}


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
        result.metric_name: r.error,
        "seconds": round(r.seconds, 4),
        "vote_precision": r.synth.vote_precision,
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


def bundle_total(result: PairedRuns) -> dict[str, Any]:
    """The composed total of every release of ``result``: what publishing them together spends.

    release_gate.compose_total over all the runs' ledger rows.  One release: its own budget.

    Parameters
    ----------
    result : PairedResult
        The paired comparison.

    Returns
    -------
    dict
        gate.compose_total's total at the request's delta, plus ``releases`` (the number of runs).
    """
    from .gate import _compose_total

    req = result.request
    return {**_compose_total([row for r in result.runs for row in r.ledger], req.delta, req.checked.mechanism),
            "releases": len(result.runs)}


#: the fixed files of a release bundle (bundle_files); the release CSVs are named by release_files.
BUNDLE_FIXED_FILES = ("schema.json", "policy.json", "budget.json", "ledger.json", "ledger.txt")


def is_bundle_file(name: str) -> bool:
    """True for a file name a release bundle writes.

    A fixed file (BUNDLE_FIXED_FILES) or ``<method>[_seed<S>].csv`` of a method in the method
    table.  When --bundle replaces an earlier bundle folder, these (stale releases of other methods
    or seeds) are dropped; any other entry is kept.

    Parameters
    ----------
    name : str
        A file name (no folder).

    Returns
    -------
    bool
        True when a bundle writes files of this name.
    """
    if name in BUNDLE_FIXED_FILES:
        return True
    stem, dot, ext = name.rpartition(".")
    if not dot or ext != "csv":
        return False
    method, sep, seed = stem.rpartition("_seed")
    if sep and seed.isdigit() and seed.isascii():
        stem = method
    return stem in METHODS


def bundle_files(result: PairedRuns, raw: bool = False) -> dict[str, str]:
    """The release bundle as {file name: text}.

    Every synthetic CSV (spreadsheet-safe, exports.to_csv_safe), schema.json, policy.json,
    budget.json, ledger.json (build_public) and ledger.txt (ledger_text).  Nothing computed on the
    private table.

    Parameters
    ----------
    result : PairedResult
        The paired comparison.
    raw : bool, default False
        Keep text cells as they are (default: neutralised for spreadsheets).

    Returns
    -------
    dict of str to str
        File name -> text.
    """
    import json

    from ..io.exports import to_csv_safe

    pub = result.public_report
    # path None: to_csv_safe returns the CSV text
    files = {name: cast(str, to_csv_safe(result.run(m, sd).release, None, raw=raw))
             for (m, sd), name in release_files(result).items()}
    files["schema.json"] = result.request.schema.to_json() + "\n"
    files["policy.json"] = result.request.policy.to_json() + "\n"
    files["budget.json"] = json.dumps({"randomness": pub["randomness"], "mechanism": pub["mechanism"],
                                       **pub["privacy"]}, indent=2, allow_nan=False) + "\n"
    files["ledger.json"] = json.dumps(pub, indent=2, allow_nan=False) + "\n"
    files["ledger.txt"] = _ledger_text(pub, result.request.checked.methods) + "\n"
    return files


def _interval(values, clip_at_zero: bool = False) -> tuple[float, float | None, float | None]:
    """(mean, low, high) 95% t-interval; (mean, None, None) for fewer than 2 values
    (no NaN in a report); the low end clipped at 0 for nonnegative error metrics."""
    mean, lo, hi = t_interval(list(values))
    if len(values) < 2:
        return mean, None, None
    if clip_at_zero:
        lo = max(lo, 0.0)
    return mean, lo, hi


def summarize(runs: list[dict[str, Any]], metric: str, methods: list[str]) -> dict[str, Any]:
    """Per-method mean error with 95% t-interval, and paired R_s of BF-Soft vs Hard.

    ci95 is [low, high], or [None, None] (JSON null) with fewer than 2 seeds; the
    error metrics are nonnegative, so their low end is clipped at 0.

    Parameters
    ----------
    runs : list of dict
        One {method, seed, <metric>: error} per run.
    metric : str
        The key of the error in ``runs``.
    methods : list of str
        The methods to summarize (each must appear in ``runs``).

    Returns
    -------
    dict
        ``per_method`` ({method: mean, ci95, n}); with Hard and BF-Soft,
        ``relative_reduction_bf_soft_vs_hard`` (R_s in percent, App. F.2); with the decomposition
        method too, ``decomposition`` (C, N, G of §6.2.3 as (mean, low, high)).
    """
    out: dict[str, Any] = {"per_method": {}}
    by = {m: {r["seed"]: r[metric] for r in runs if r["method"] == m} for m in methods}
    for m in methods:
        mean, lo, hi = _interval(list(by[m].values()), clip_at_zero=True)
        out["per_method"][m] = {"mean": mean, "ci95": [lo, hi], "n": len(by[m])}
    H, S, M = BASELINE.name, SOFT.name, DECOMPOSITION.name
    if H in by and S in by:
        seeds = sorted(set(by[H]) & set(by[S]))
        r = relative_reduction(np.array([by[H][s] for s in seeds], dtype=float),
                               np.array([by[S][s] for s in seeds], dtype=float))
        mean, lo, hi = _interval(list(r))
        out["relative_reduction_bf_soft_vs_hard"] = {"mean_percent": mean, "ci95": [lo, hi],
                                                     "per_seed": [float(v) for v in r]}
    if all(m in by for m in (H, S, M)):
        seeds = sorted(set(by[H]) & set(by[S]) & set(by[M]))
        eh = np.array([by[H][s] for s in seeds])
        es = np.array([by[S][s] for s in seeds])
        em = np.array([by[M][s] for s in seeds])
        out["decomposition"] = {
            "C_smoothing_cost": _interval(list(em - eh)),
            "N_noise_benefit": _interval(list(em - es)),
            "G_gain": _interval(list(eh - es)),
            "note": "C = E_M - E_H, N = E_M - E_S, G = N - C (§6.2.3); (mean, low, high); "
                    "low/high are null with fewer than 2 seeds",
        }
    return out


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


def ledger_text(report: dict[str, Any]) -> str:
    """A release note a data owner can paste: budget, notion per method, policy, reach, warnings.

    Parameters
    ----------
    report : dict
        The public report (build_public) or a report with its keys (run_bundle.planned_report).

    Returns
    -------
    str
        The note, one statement per line (no trailing newline).
    """
    return _ledger_text(report, [get_method(m) for m in report.get("methods") or []])


def _ledger_text(report: dict[str, Any], methods: "Sequence[Method]") -> str:
    """:func:`ledger_text` with the Method objects of ``report["methods"]`` (RunSpec.checked.methods)."""
    methods = list(methods)
    p = report["privacy"]
    acct = p.get("accountant", "gdp-exact")
    budget, spent = _budget_text(p, acct)
    lines = []
    if report.get("label") == SEEDED_NOTE:  # a seeded bundle says so first (issue 21)
        lines.append(f"WARNING: {SEEDED_NOTE}: anyone who knows the seed can recompute and subtract the noise; "
                     "do not publish these files.")
    if report.get("label") == NOT_DP_LABEL:  # the first line (issue 21, a contract)
        lines.append(f"WARNING: {NOT_DP_LABEL} (the schema's bounds and levels describe the private records; "
                     "declare them from public knowledge to make a DP release).")
    if p.get("total"):
        lines.append(total_text(p["total"], int(p["total"].get("releases") or 1)))
    each = " (each release)" if int((p.get("total") or {}).get("releases") or 1) > 1 else ""
    lines.append(f"Privacy budget{each}: {budget}.")
    lines += _randomness_lines(report)
    protected = report.get("blowfish_protection", True)
    lines += _method_lines(methods, spent, protected)
    if not protected and any(m.policy_aware for m in methods):
        lines.append("WARNING: " + NO_PROTECTION_WARNING)
    lines.append(
        f"Policy: {', '.join(f'{k}: {v}' for k, v in _protected(report).items()) or 'nothing protected'}; "
        f"record-level reach r = {report['reach']:.4g} (Gower units).")
    lines += _soft_bound_lines(report, methods, acct)
    if report.get("domain_warning"):
        lines.append("WARNING: " + report["domain_warning"])
    if report.get("unprotected_rows"):
        from .gate import unprotected_text

        lines.append("WARNING: " + unprotected_text(report["unprotected_rows"], report.get("unprotected_source", ""))
                     + ".")
    for w in report.get("warnings", []):
        if w != NO_PROTECTION_WARNING:
            lines.append("WARNING: " + w)
    if any(m.policy_aware for m in methods) or not methods:
        lines.append("Blowfish methods: only substitutions along the policy's edges are protected; values in "
                     "different components of a policy graph are not protected from each other.")
    return "\n".join(lines)


def _accountant_label(acct: str) -> str:
    """The label of the mechanism(s) whose one-mechanism ledger uses accountant ``acct`` (the table's
    declared ``accountant``; 'pure-sum' -> 'Laplace')."""
    return " or ".join(m.label for m in MECHANISMS.values() if m.accountant == acct)


def _budget_text(p: dict[str, Any], acct: str) -> tuple[str, str]:
    """(the budget sentence, the budget each method spent) of the report's privacy block, per accountant."""
    if acct == "gdp-exact":
        budget = (f"rho = {p['rho']:.6g} zCDP over {p['rounds']} rounds "
                  f"(equivalently epsilon = {p['epsilon_exact']:.4g} at delta = {p['delta']:.3g} by the exact Gaussian "
                  f"curve; {p['epsilon_eq1']:.4g} by Eq. (1))")
        spent = f"rho = {p['rho']:.6g}"
    elif acct == "zcdp-eq1":  # zCDP rows that are not all Gaussian (reference methods' selections)
        rows = f" over {p['rounds']} ledger rows" if p.get("rounds") is not None else ""
        budget = (f"rho = {p['rho']:.6g} zCDP{rows} "
                  f"(equivalently epsilon = {p['epsilon_eq1']:.4g} at delta = {p['delta']:.3g} by Eq. (1); "
                  "no exact Gaussian curve: exponential-selection rows are not Gaussian)")
        spent = f"rho = {p['rho']:.6g}"
    elif acct == "pure-sum":
        budget = (f"epsilon = {p['epsilon']:.6g} pure DP over {p['rounds']} rounds "
                  f"({_accountant_label(acct)} mechanism, epsilon_t = {p['epsilon_per_round'][0]:.4g} per round)")
        spent = f"epsilon = {p['epsilon']:.6g}"
    elif acct == "zcdp-eq1":
        budget = (f"rho = {p['rho']:.6g} zCDP over {p['rounds']} ledger rows ({', '.join(p['mechanisms'])}; "
                  f"epsilon = {p['epsilon']:.4g} at delta = {p['delta']:.3g} by Eq. (1))")
        spent = f"rho = {p['rho']:.6g}"
    elif p.get("epsilon_exact_applicable") is False:  # PubMix / LinMix sampling rounds
        mech = "/".join(x.capitalize().replace("mix", "Mix") for x in p.get("mechanisms", []))
        budget = (f"epsilon = {p['epsilon']:.4g} at delta = {p['delta']:.3g} over {p['rounds']} {mech} rounds "
                  f"(beta_t {min(p['beta_per_round']):.3g}-{max(p['beta_per_round']):.3g}; PLD accountant). "
                  f"NOTE: {p['note']}")
        spent = f"epsilon = {p['epsilon']:.4g} at delta = {p['delta']:.3g}"
    else:
        budget = (f"epsilon = {p['epsilon']:.4g} at delta = {p['delta']:.3g} over {p['rounds']} rounds "
                  f"(mixed mechanisms, PLD accountant)")
        spent = f"epsilon = {p['epsilon']:.4g}"
    return budget, spent


def _randomness_lines(report: dict[str, Any]) -> list[str]:
    """The randomness line (seeded, or the release's sampler; PubMix/LinMix's exact draws)."""
    lines: list[str] = []
    rnd = report.get("randomness")
    if rnd == SEEDED_NOTE:
        lines.append(f"Randomness: {SEEDED_NOTE} (anyone who knows the seed can recompute and subtract the noise).")
    elif rnd:
        samplers = {e.get("noise_sampler") for e in report.get("ledger") or ()}
        if samplers == {"exact"}:  # PubMix / LinMix: no OpenDP sampler draws anything
            rnd = rnd.replace("sampler opendp", "sampler exact")
        lines.append(f"Randomness: {rnd}.")
        if "exact" in samplers:
            lines.append("PubMix/LinMix draws: exact integer-arithmetic sampling from the OS CSPRNG "
                         "(papers/003 Thm 4.1 holds with no floating-point gap).")
    return lines


def _method_lines(methods: list[Method], spent: str, protected: bool) -> list[str]:
    """One line per method: its privacy notion and budget, or why it protects nothing."""
    lines: list[str] = []
    for m in methods:
        if not m.releasable:  # analysis-only methods (release_gate refuses them)
            lines.append(f"  {m.label}: ANALYSIS ONLY, NOT PRIVATE: {m.not_private_reason}.")
        elif m.policy_aware and not protected:
            lines.append(f"  {m.label}: NO PROTECTION - the policy protects nothing, so its histograms carry no noise.")
        else:
            lines.append(f"  {m.label}: {m.notion_text} ({spent}).")
    return lines


def _soft_bound_lines(report: dict[str, Any], methods: list[Method], acct: str) -> list[str]:
    """BF-Soft's noise ratio q and sensitivity bound, for the methods that use it."""
    lines: list[str] = []
    soft_policy = [m for m in methods if m.soft_policy_bound]  # not soft-hard-noise (Hard's noise)
    if report.get("noise_ratio_q") is not None and (soft_policy or not methods):
        if acct == "pure-sum":  # l1 sensitivities (Laplace): 2 q vs 2
            lines.append(f"BF-Soft at tau = {report['tau']:.4g}: noise ratio q = {report['noise_ratio_q']:.4g}, "
                         f"l1 sensitivity bound {2 * report['noise_ratio_q']:.4g} (vs 2).")
        else:
            lines.append(f"BF-Soft at tau = {report['tau']:.4g}: noise ratio q = {report['noise_ratio_q']:.4g}, "
                         f"sensitivity bound {report['sensitivity_bound']:.4g} (vs sqrt(2) = {SQRT2:.4g}).")
    return lines


def _protected(report: dict[str, Any]) -> dict[str, str]:
    return {k: (v.get("type") + (f" {v['theta']}" if v.get("theta") is not None else ""))
            for k, v in report["policy"]["attributes"].items() if v.get("type") != "none"}
