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
                    "notion": "Blowfish (policy-specific) zCDP; every round is a Gaussian mechanism"},
        "config": {
            "rounds": req.config.rounds, "population": req.config.sizes(), "release": req.config.release,
            "threshold_h": req.config.threshold_h, "selection": req.config.selection,
            "switch_round": req.config.switch_round, "children": req.config.children,
            "mutation": [req.config.mutation_start, req.config.mutation_end],
        },
        "metric": {"name": metric_name, "numeric_bins": NUMERIC_BINS,
                   "reference": "private table" if req.reference is None else "reference table",
                   "note": "evaluation only: computed against real data, not part of the release"},
        "methods": list(req.methods),
        "seeds": [int(s) for s in req.seeds],
        "runs": runs,
        "summary": summarize(runs, metric_name, req.methods),
        "seconds_total": round(time.perf_counter() - t0, 3),
        "machine": {"python": platform.python_version(), "numpy": np.__version__},
        "seeded_run_note": "Seeded runs are reproducible for study; a real release must use fresh randomness.",
    }
    return RunOutcome(report, results, releases)


def summarize(runs: list[dict[str, Any]], metric: str, methods: list[str]) -> dict[str, Any]:
    """Per-method mean error with 95% t-interval, and paired R_s of BF-Soft vs Hard."""
    out: dict[str, Any] = {"per_method": {}}
    by = {m: {r["seed"]: r[metric] for r in runs if r["method"] == m} for m in methods}
    for m in methods:
        mean, lo, hi = t_interval(list(by[m].values()))
        out["per_method"][m] = {"mean": mean, "ci95": [lo, hi], "n": len(by[m])}
    if "hard" in by and "bf-soft" in by:
        seeds = sorted(set(by["hard"]) & set(by["bf-soft"]))
        r = relative_reduction([by["hard"][s] for s in seeds], [by["bf-soft"][s] for s in seeds])
        mean, lo, hi = t_interval(r)
        out["relative_reduction_bf_soft_vs_hard"] = {"mean_percent": mean, "ci95": [lo, hi],
                                                     "per_seed": [float(v) for v in r]}
    if all(m in by for m in ("hard", "bf-soft", "soft-hard-noise")):
        seeds = sorted(set(by["hard"]) & set(by["bf-soft"]) & set(by["soft-hard-noise"]))
        eh = np.array([by["hard"][s] for s in seeds])
        es = np.array([by["bf-soft"][s] for s in seeds])
        em = np.array([by["soft-hard-noise"][s] for s in seeds])
        out["decomposition"] = {
            "C_smoothing_cost": t_interval(em - eh),
            "N_noise_benefit": t_interval(em - es),
            "G_gain": t_interval(eh - es),
            "note": "C = E_M - E_H, N = E_M - E_S, G = N - C (§6.2.3); (mean, low, high)",
        }
    return out


def ledger_text(report: dict[str, Any]) -> str:
    """A release note a data owner can paste: budget, policy, reach, per-round noise."""
    p = report["privacy"]
    lines = [
        f"Privacy: Blowfish zCDP with rho = {p['rho']:.6g} over {p['rounds']} rounds "
        f"(equivalently epsilon = {p['epsilon_exact']:.4g} at delta = {p['delta']:.3g} by the exact Gaussian curve; "
        f"{p['epsilon_eq1']:.4g} by Eq. (1)).",
        f"Policy: {', '.join(f'{k}: {v}' for k, v in _protected(report).items()) or 'nothing protected'}; "
        f"record-level reach r = {report['reach']:.4g} (Gower units).",
    ]
    if report.get("noise_ratio_q") is not None:
        lines.append(f"BF-Soft at tau = {report['tau']:.4g}: noise ratio q = {report['noise_ratio_q']:.4g}, "
                     f"sensitivity bound {report['sensitivity_bound']:.4g} (vs sqrt(2) = {SQRT2:.4g}).")
    if report.get("domain_warning"):
        lines.append("WARNING: " + report["domain_warning"])
    lines.append("Only substitutions along the policy's edges are protected at this level; values in different "
                 "components of a policy graph are not protected from each other.")
    return "\n".join(lines)


def _protected(report: dict[str, Any]) -> dict[str, str]:
    return {k: (v.get("type") + (f" {v['theta']}" if v.get("theta") is not None else ""))
            for k, v in report["policy"]["attributes"].items() if v.get("type") != "none"}
