"""Paired multi-method runs and the JSON report, shared by the CLI and the UI.

One call runs every (method, seed) pair on the same encoded data, computes the
fidelity metric, and assembles the report of the CLI contract (README "Report").
"""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from . import __version__
from .accounting import PrivacyLedger, check_delta
from .distance import domain_index, group_records
from .errors import BlowfishError
from .evolution import SynthConfig, SynthResult, run_synthesis
from .metrics import NUMERIC_BINS, relative_reduction, t_interval
from .policy import Policy, record_reach, weighted_reaches
from .schema import Schema
from .sensitivity import METHOD_LABELS, METHODS, noise_ratio, soft_bound, SQRT2
from .votes import check_tau

MAX_SEEDS = 50


@dataclass
class RunRequest:
    """Everything one paired comparison needs (all public except ``data``).

    data: the private table (DataFrame, original columns).  methods: subset of METHODS.
    rho: total zCDP budget (already converted from (epsilon, delta) if needed).
    metric: (name, f(schema, X_real, X_syn)).  reference: optional table the metric
    compares against (default: the private table itself).  keep_populations: keep
    every round's candidate population C_t in the results (for per-round errors;
    does not change any draw or released value).
    """

    schema: Schema
    policy: Policy
    data: pd.DataFrame
    methods: list[str]
    rho: float
    delta: float = 1e-5
    tau: float | None = None
    seeds: list[int] = field(default_factory=lambda: [0])
    config: SynthConfig = field(default_factory=SynthConfig)
    metric: tuple[str, Callable] | None = None
    reference: pd.DataFrame | None = None
    budget_source: str = "rho"
    data_source: str = ""
    keep_populations: bool = False
    allow_empty_policy: bool = False


#: methods whose noise is calibrated to the policy (Blowfish); Tab-PE is standard DP.
POLICY_METHODS = ("hard", "bf-soft", "soft-hard-noise")

EMPTY_POLICY_MESSAGE = (
    "the policy protects nothing: Hard/BF-Soft would release noise-free histograms (no record is hidden). "
    "Fix: protect at least one attribute, or set allow_empty_policy / --allow-empty-policy to run anyway"
)

NO_PROTECTION_WARNING = (
    "NO BLOWFISH PROTECTION: the policy protects nothing (record-level reach 0, no participation edges), "
    "so the Hard/BF-Soft releases were computed from noise-free histograms and hide no record."
)


def policy_is_empty(schema: Schema, policy: Policy) -> bool:
    """True when the policy protects nothing: record-level reach 0 and no participation edges (Def. 2.7)."""
    return (not policy.participation) and record_reach(schema, policy) == 0.0


@dataclass
class RunOutcome:
    report: dict[str, Any]
    results: list[SynthResult]
    releases: dict[tuple[str, int], pd.DataFrame]


def validate_request(req: RunRequest) -> None:
    """Raise BlowfishError naming the field for any invalid setting."""
    if not req.methods:
        raise BlowfishError("choose at least one method")
    for m in req.methods:
        if m not in METHODS:
            raise BlowfishError(f"unknown method {m!r}; use one of {', '.join(METHODS)}")
    if len(set(req.methods)) != len(req.methods):
        raise BlowfishError("a method is listed twice")
    if any(m in ("bf-soft", "soft-dp", "soft-hard-noise") for m in req.methods):
        check_tau(req.tau)
    check_delta(req.delta)
    if not req.seeds:
        raise BlowfishError("give at least one seed")
    if len(req.seeds) > MAX_SEEDS:
        raise BlowfishError(f"at most {MAX_SEEDS} seeds per comparison (got {len(req.seeds)})")
    if len(set(req.seeds)) != len(req.seeds):
        raise BlowfishError("a seed is listed twice")
    for s in req.seeds:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise BlowfishError(f"seeds must be whole numbers >= 0 (got {s!r})")
    req.config.validate()
    req.policy.validate(req.schema)
    if (req.metric is None or req.metric[0] == "pwerr") and req.schema.p < 2:
        raise BlowfishError(
            f"PWErr needs at least two modeled attributes (the schema has {req.schema.p}). "
            "Fix: model two or more columns"
        )
    if (any(m in POLICY_METHODS for m in req.methods) and not req.allow_empty_policy
            and policy_is_empty(req.schema, req.policy)):
        raise BlowfishError(EMPTY_POLICY_MESSAGE)


def policy_summary(schema: Schema, policy: Policy, tau: float | None) -> dict[str, Any]:
    """Reach, q and bound of a policy (Cor. 5.2, 5.5) as plain JSON data."""
    per = weighted_reaches(schema, policy)
    r = record_reach(schema, policy)
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
    if tau is not None:
        out["q"] = noise_ratio(r, tau)
        out["sensitivity_bound"] = soft_bound(r, tau)
        if policy.participation:
            out["sensitivity_bound"] = max(out["sensitivity_bound"], 1.0)
    return out


def run_paired(req: RunRequest, progress: Callable[[dict[str, Any]], None] | None = None,
               should_stop: Callable[[], bool] | None = None) -> RunOutcome:
    """Run every method on every seed with paired random streams; build the report.

    Raises BlowfishError for bad settings (before any work) and RunStopped if stopped.
    """
    validate_request(req)
    schema = req.schema
    X = schema.encode(req.data)
    ref = schema.encode(req.reference) if req.reference is not None else X
    U, counts = group_records(X)
    grouped = (U, counts, domain_index(schema, U))
    metric_name, metric_fn = req.metric or ("pwerr", None)
    if metric_fn is None:
        from .metrics import pwerr as metric_fn  # noqa: N813
    ledger = PrivacyLedger.from_budget(rho=req.rho, delta=req.delta, rounds=req.config.rounds,
                                       weights=req.config.budget_weights)
    t0 = time.perf_counter()
    results: list[SynthResult] = []
    runs: list[dict[str, Any]] = []
    releases: dict[tuple[str, int], pd.DataFrame] = {}
    for seed in req.seeds:
        for method in req.methods:
            res = run_synthesis(schema, X, req.policy, method, req.rho, req.tau, req.config, seed,
                                progress=progress, should_stop=should_stop, grouped=grouped,
                                keep_populations=req.keep_populations)
            err = float(metric_fn(schema, ref, res.release))
            results.append(res)
            releases[(method, seed)] = schema.decode(res.release)
            runs.append({
                "method": method,
                "label": METHOD_LABELS[method],
                "seed": int(seed),
                metric_name: err,
                "seconds": round(res.seconds, 4),
                "rounds": [r.to_dict() for r in res.rounds],
            })
    pol = policy_summary(schema, req.policy, req.tau)
    report = {
        "tool": "blowfish-studio",
        "version": __version__,
        "data_source": req.data_source,
        "n_private": int(X.shape[0]),
        "n_unique": int(U.shape[0]),
        "schema": schema.to_dict(),
        "domain_warning": schema.domain_warning(),
        "policy": req.policy.to_dict(),
        "reach": pol["reach"],
        "per_attribute_reach": pol["per_attribute"],
        "tau": req.tau,
        "noise_ratio_q": pol["q"],
        "sensitivity_bound": pol["sensitivity_bound"],
        "privacy": {**ledger.to_dict(), "budget_source": req.budget_source,
                    "notion": "Tab-PE (and soft-dp): standard (bounded) DP as zCDP; Hard/BF-Soft: Blowfish "
                              "(policy-specific) zCDP for the policy; every round is a Gaussian mechanism"},
        "config": {
            "rounds": req.config.rounds, "population": req.config.sizes(), "release": req.config.release,
            "threshold_h": req.config.threshold_h, "selection": req.config.selection,
            "switch_round": req.config.switch_round, "children": req.config.children,
            "release_mode": req.config.release_mode,
            "mutation": [req.config.mutation_start, req.config.mutation_end],
        },
        "metric": {"name": metric_name, "numeric_bins": NUMERIC_BINS,
                   "reference": "private table" if req.reference is None else "reference table",
                   "note": "evaluation only: computed against real data, not part of the release; "
                           "95% t-intervals over seeds, low end clipped at 0 (errors are nonnegative); "
                           "null with fewer than 2 seeds"},
        "methods": list(req.methods),
        "method_notions": {m: _notion(m) for m in req.methods},
        "blowfish_protection": not policy_is_empty(schema, req.policy),
        "warnings": run_warnings(req, runs),
        "seeds": [int(s) for s in req.seeds],
        "runs": runs,
        "summary": summarize(runs, metric_name, req.methods),
        "seconds_total": round(time.perf_counter() - t0, 3),
        "machine": {"python": platform.python_version(), "numpy": np.__version__},
        "seeded_run_note": "Seeded runs are reproducible for study; a real release must use fresh randomness.",
    }
    return RunOutcome(report, results, releases)


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
    """
    out: dict[str, Any] = {"per_method": {}}
    by = {m: {r["seed"]: r[metric] for r in runs if r["method"] == m} for m in methods}
    for m in methods:
        mean, lo, hi = _interval(list(by[m].values()), clip_at_zero=True)
        out["per_method"][m] = {"mean": mean, "ci95": [lo, hi], "n": len(by[m])}
    if "hard" in by and "bf-soft" in by:
        seeds = sorted(set(by["hard"]) & set(by["bf-soft"]))
        r = relative_reduction([by["hard"][s] for s in seeds], [by["bf-soft"][s] for s in seeds])
        mean, lo, hi = _interval(list(r))
        out["relative_reduction_bf_soft_vs_hard"] = {"mean_percent": mean, "ci95": [lo, hi],
                                                     "per_seed": [float(v) for v in r]}
    if all(m in by for m in ("hard", "bf-soft", "soft-hard-noise")):
        seeds = sorted(set(by["hard"]) & set(by["bf-soft"]) & set(by["soft-hard-noise"]))
        eh = np.array([by["hard"][s] for s in seeds])
        es = np.array([by["bf-soft"][s] for s in seeds])
        em = np.array([by["soft-hard-noise"][s] for s in seeds])
        out["decomposition"] = {
            "C_smoothing_cost": _interval(list(em - eh)),
            "N_noise_benefit": _interval(list(em - es)),
            "G_gain": _interval(list(eh - es)),
            "note": "C = E_M - E_H, N = E_M - E_S, G = N - C (§6.2.3); (mean, low, high); "
                    "low/high are null with fewer than 2 seeds",
        }
    return out


def run_warnings(req: RunRequest, runs: list[dict[str, Any]]) -> list[str]:
    """Plain-language warnings for the report: empty policy (when allowed) and rounds
    in which no candidate survived the threshold H (parents then drawn uniformly)."""
    out: list[str] = []
    if any(m in POLICY_METHODS for m in req.methods) and policy_is_empty(req.schema, req.policy):
        out.append(NO_PROTECTION_WARNING)
    for r in runs:
        empty = [rd["t"] for rd in r["rounds"] if rd["surviving"] == 0]
        if empty:
            out.append(f"{r['method']} seed {r['seed']}: no candidate survived the threshold H = "
                       f"{req.config.threshold_h:g} in round(s) {', '.join(map(str, empty))}; "
                       "parents (and the release, if in the last round) were drawn uniformly. "
                       "Fix: lower the threshold H")
    return out


def _notion(method: str) -> str:
    """The privacy notion a method's release satisfies (for the ledger)."""
    if method in ("tab-pe", "soft-dp"):
        return "standard (bounded) DP: hides any substitution of one record"
    return "Blowfish DP for the policy: hides only substitutions along the policy's edges"


def ledger_text(report: dict[str, Any]) -> str:
    """A release note a data owner can paste: budget, notion per method, policy, reach, warnings."""
    p = report["privacy"]
    budget = (f"rho = {p['rho']:.6g} zCDP over {p['rounds']} rounds "
              f"(equivalently epsilon = {p['epsilon_exact']:.4g} at delta = {p['delta']:.3g} by the exact Gaussian "
              f"curve; {p['epsilon_eq1']:.4g} by Eq. (1))")
    methods = report.get("methods") or []
    lines = [f"Privacy budget: {budget}."]
    protected = report.get("blowfish_protection", True)
    for m in methods:
        label = METHOD_LABELS.get(m, m)
        if m in POLICY_METHODS and not protected:
            lines.append(f"  {label}: NO PROTECTION - the policy protects nothing, so its histograms carry no noise.")
        else:
            lines.append(f"  {label}: {_notion(m)} (rho = {p['rho']:.6g}).")
    if not protected and any(m in POLICY_METHODS for m in methods):
        lines.append("WARNING: " + NO_PROTECTION_WARNING)
    lines.append(
        f"Policy: {', '.join(f'{k}: {v}' for k, v in _protected(report).items()) or 'nothing protected'}; "
        f"record-level reach r = {report['reach']:.4g} (Gower units).")
    if report.get("noise_ratio_q") is not None and any(m in ("bf-soft", "soft-hard-noise") for m in methods or ["bf-soft"]):
        lines.append(f"BF-Soft at tau = {report['tau']:.4g}: noise ratio q = {report['noise_ratio_q']:.4g}, "
                     f"sensitivity bound {report['sensitivity_bound']:.4g} (vs sqrt(2) = {SQRT2:.4g}).")
    if report.get("domain_warning"):
        lines.append("WARNING: " + report["domain_warning"])
    for w in report.get("warnings", []):
        if w != NO_PROTECTION_WARNING:
            lines.append("WARNING: " + w)
    if any(m in POLICY_METHODS for m in methods) or not methods:
        lines.append("Blowfish methods: only substitutions along the policy's edges are protected; values in "
                     "different components of a policy graph are not protected from each other.")
    return "\n".join(lines)


def _protected(report: dict[str, Any]) -> dict[str, str]:
    return {k: (v.get("type") + (f" {v['theta']}" if v.get("theta") is not None else ""))
            for k, v in report["policy"]["attributes"].items() if v.get("type") != "none"}
