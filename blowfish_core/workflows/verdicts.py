"""Verdicts in plain words: one banner per question a person asks of a number (issue 16).

* :func:`policy_verdict` -- "does soft voting save noise under this policy?" (paper §6.2.6
  "Practical guidance"; q and 1/q^2 from Cor. 5.5; the floor of Remark 3 named as a cause).
* :func:`run_verdict` -- "did BF-Soft beat Hard in these paired runs?" (paired reduction R_s,
  App. F.2, with its 95% t-interval).
* :func:`sweep_verdict` -- "below which budget does BF-Soft win?" (the crossing of App. F.3,
  with its epsilon on the exact Gaussian curve, accounting.epsilon_exact).
* :func:`exact_release_verdict` -- "what does this release publish without noise?" (issue 25:
  the marginals no policy edge changes, named by report_text.exact_release_lines).
* Number formatting for people: :func:`fmt_sig`, :func:`fmt_gap`, :func:`round_sig`,
  :func:`fmt_tau`, :func:`fmt_tolerance`, :func:`fmt_percent`, :func:`fmt_q` (in
  :mod:`.formatting`, re-exported here; issue 22).

Each verdict is a :class:`Verdict`: a level ('good' / 'neutral' / 'bad', drawn green / blue /
red by the pages), a one-line headline (the banner), a detail sentence with the numbers and
what to do, and the cause (a short phrase naming what drives the verdict, or None).
Pure functions; no streamlit.  Every number comes from the engine (policy.weighted_reaches,
sensitivity.noise_ratio, accounting); nothing here reads private rows.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..privacy.accounting import (
    check_delta,
    check_rho,
    epsilon_exact,
    equivalent_budget_multiplier,
)
from ..model.calibration import floor_value
from ..base.errors import BlowfishError, PolicyError
from ..algorithm.methods import BASELINE, SOFT
from ..model.metrics import crossing_budget
from ..model.attribute_policy import attribute_reach
from ..model.policy import Policy, weighted_reaches
from ..model.schema import Attribute, Schema, _fmt
from ..model.sensitivity import SQRT2, noise_ratio, tau_for_noise_ratio
from ..model.votes import check_tau
from ..synthesis.report_text import exact_release_lines
from .formatting import (  # noqa: F401  (re-exported)
    EXACT_ZERO, _finite, _MINUS, _plain, _SUPERSCRIPT, fmt_crossing, fmt_gap, fmt_interval, fmt_percent, fmt_power, fmt_q, fmt_sig,
    fmt_tau, fmt_tolerance, round_sig, tau_grid_for_people,
)

LEVELS = ("good", "neutral", "bad")
#: UI colour of each level (the pages map it to st.success / st.info / st.error).
LEVEL_COLOURS = {"good": "green", "neutral": "blue", "bad": "red"}

#: q at or above this: soft voting saves (almost) nothing -> red (same threshold as readouts.Q_NEAR_ONE).
Q_NO_GAIN = 0.9
#: q below this: Hard would need more than 1/0.7^2 ~ 2x the budget for BF-Soft's noise -> green.
Q_CLEAR_GAIN = 0.7
#: the ratio q at which the policy verdict suggests a temperature (tau = r / (2 atanh q)).
SUGGESTED_Q = 0.5


@dataclass(frozen=True)
class Verdict:
    """A banner: level 'good' | 'neutral' | 'bad' (green / blue / red), headline (one line,
    plain words), detail (numbers and what to do), cause (what drives it, or None)."""

    level: str
    headline: str
    detail: str
    cause: str | None = None

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"verdict level must be one of {LEVELS} (got {self.level!r})")

    @property
    def colour(self) -> str:
        """'green', 'blue' or 'red'."""
        return LEVEL_COLOURS[self.level]

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "colour": self.colour, "headline": self.headline, "detail": self.detail,
                "cause": self.cause}


# ================================================================ policy verdict
def graph_phrase(a: Attribute, policy: Policy) -> str:
    """The attribute's policy graph in words.

    'threshold of 7 years', 'block partition', 'complete graph', 'sibling graph', 'edge list'.

    Parameters
    ----------
    a : Attribute
        The attribute.
    policy : Policy
        The policy.

    Returns
    -------
    str
        The phrase.

    Raises
    ------
    PolicyError
        For a threshold policy without a theta (a policy that was not validated).
    """
    ap = policy.policy_for(a.name)
    if ap.kind == "threshold":
        if ap.theta is None:  # a policy that was not validated
            raise PolicyError(f"policy for '{a.name}': threshold must be a finite number (got None)")
        unit = a.threshold_unit
        if float(ap.theta) == 1 and unit.endswith("s"):
            unit = unit[:-1]
        return f"threshold of {_fmt(ap.theta)} {unit}".strip()
    return {"block": "block partition", "complete": "complete graph", "hierarchy": "sibling graph",
            "edges": "edge list", "none": "empty graph"}[ap.kind]


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def reach_setters(schema: Schema, policy: Policy) -> list[str]:
    """Attributes attaining the record-level reach max_i w_i r_i (Cor. 5.2).

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.

    Returns
    -------
    list of str
        Their names in schema order; [] at reach 0.
    """
    per = weighted_reaches(schema, policy)
    r = max(per.values()) if per else 0.0
    return [n for n, v in per.items() if r > 0 and v == r]


def policy_verdict(schema: Schema, policy: Policy, tau: float) -> Verdict:
    """Does soft voting save noise under this policy?  (paper §6.2.6 guidance, Cor. 5.5.)

    q = tanh(r / (2 tau)) with r the record-level reach; participation edges floor BF-Soft's
    sensitivity at 1, so the ratio used is max(sqrt(2) q, 1) / sqrt(2) with them.

    Parameters
    ----------
    schema : Schema
        The public domain.
    policy : Policy
        The policy.
    tau : float
        Softmax temperature, > 0.

    Returns
    -------
    Verdict
        'bad' (red) when the policy protects nothing, or when q >= Q_NO_GAIN (0.9), with the cause
        naming the attribute(s) and graph that set the reach ("workclass's block partition sets the
        reach to 0.2: no gain"); 'good' when q < Q_CLEAR_GAIN (0.7: Hard needs > 2x the budget);
        'neutral' between.

    Raises
    ------
    PolicyError
        If the policy does not fit the schema.
    BudgetError
        For tau <= 0.
    """
    tau = check_tau(tau)
    policy.validate(schema)
    per = weighted_reaches(schema, policy)
    reach = max(per.values()) if per else 0.0
    if reach == 0.0 and not policy.participation:
        return Verdict(
            "bad", "The policy protects nothing: no record is hidden",
            "With no protected pair of values (reach 0) Hard and BF-Soft add no noise, so their releases "
            "would show the table as it is. Choose a graph for at least one attribute before running.",
            "no attribute has a protected pair")
    q = noise_ratio(reach, tau)
    q_eff = floor_value(SQRT2 * q, policy) / SQRT2
    setters = reach_setters(schema, policy)
    if setters:
        names = [f"{n}'s {graph_phrase(schema[n], policy)}" for n in setters]
        verb = "sets" if len(names) == 1 else "set"
        reach_cause = f"{_join(names)} {verb} the reach to {fmt_sig(reach, 2)}"
        reach_sentence = f"The reach is {fmt_sig(reach, 2)}, set by {_join(names)}"
    else:
        reach_cause = "participation edges alone protect records (reach 0)"
        reach_sentence = "Only participation edges protect records (reach 0)"
    floor_text = (" Participation edges keep BF-Soft's sensitivity at 1 or more, so its noise never drops "
                  f"below {fmt_q(1 / SQRT2)}× Hard's." if policy.participation else "")
    if q_eff >= Q_NO_GAIN:
        at_diameter = [n for n in setters if attribute_reach(schema[n], policy.policy_for(n)) >= 1.0 - 1e-12]
        if at_diameter:
            how = _diameter_advice(schema, at_diameter)
        else:
            how = (f"τ = {fmt_tau(tau)} is small against the reach: τ = "
                   f"{fmt_tau(tau_for_noise_ratio(reach, SUGGESTED_Q))} halves the noise (q = {SUGGESTED_Q:g}); "
                   "the pilot (Tune τ) tells whether that also lowers the error.")
        return Verdict(
            "bad", f"{reach_cause}: no gain",
            f"BF-Soft adds {fmt_q(q_eff)}× Hard's noise here (noise ratio q = tanh(r / 2τ) at τ = "
            f"{fmt_tau(tau)}), so soft voting saves almost nothing over Hard. {how}{floor_text}",
            reach_cause)
    mult = equivalent_budget_multiplier(q_eff)
    level = "good" if q_eff < Q_CLEAR_GAIN else "neutral"
    return Verdict(
        level,
        f"BF-Soft adds {fmt_q(q_eff)}× Hard's noise here — Hard would need {fmt_sig(mult, 2)}× the budget "
        "for the same noise",
        f"{reach_sentence}; at τ = {fmt_tau(tau)} the noise ratio is q = "
        f"{fmt_q(q_eff)} for every candidate population. Less noise is not always less error: the soft vote "
        f"also blurs, and the pilot (Tune τ) or a budget sweep shows which wins.{floor_text}",
        reach_cause)


def _diameter_advice(schema: Schema, names: Sequence[str]) -> str:
    """What can lower a reach set by protected pairs at the attributes' full distance, read from
    each attribute's capabilities: a graded distance (``graded``) has closer pairs to protect
    instead (its ``policy_kinds``: a threshold, siblings in a hierarchy); an ungraded one (a flat
    categorical, a binary) has every distinct pair at the full distance (``diameter_reason``), so
    only dropping it from the policy helps."""
    graded = [n for n in names if schema[n].graded]
    flat = [n for n in names if not schema[n].graded]
    out = []
    if graded:
        kinds = {k for n in graded for k in schema[n].policy_kinds}
        closer = ("siblings under one parent, the hierarchy policy, or pairs within a threshold"
                  if "hierarchy" in kinds else "pairs within a threshold below the full range")
        out.append(f"A protected pair at {_join(graded)}'s full distance puts a floor on the reach; raising τ "
                   f"lowers q only by blurring the vote. To gain, drop {'it' if len(graded) == 1 else 'them'} from "
                   f"the policy or protect only closer pairs ({closer}).")
    for n in flat:
        out.append(f"For {n}, {schema[n].diameter_reason}: every protected pair sits at its full distance, so "
                   f"protecting fewer of its pairs cannot lower the reach while any stays protected; to gain, drop "
                   f"{n} from the policy.")
    return " ".join(out)


# =================================================================== run verdict
def run_verdict(reduction_mean: float, ci_low: float | None, ci_high: float | None, n_seeds: int,
                method_a: str = "BF-Soft", method_b: str = "Hard") -> Verdict:
    """Did ``method_a`` beat ``method_b`` in paired runs?  (R_s = 100 (E_b - E_a) / E_b, App. F.2.)

    Parameters
    ----------
    reduction_mean : float
        Mean paired reduction in percent (positive: method_a has the lower error).
    ci_low, ci_high : float or None
        Its 95% t-interval in percent (None with one seed).
    n_seeds : int
        Paired seeds, >= 1.
    method_a : str, default 'BF-Soft'
        Label of the first method.
    method_b : str, default 'Hard'
        Label of the method compared against.

    Returns
    -------
    Verdict
        'good' when the interval lies above 0, 'bad' when below, 'neutral' when it includes 0
        ("inconclusive with 3 seeds — the interval includes 0") or is missing ("needs ≥ 2 seeds for
        an interval").

    Raises
    ------
    BlowfishError
        For non-finite values, n_seeds < 1 or ci_low > ci_high.
    """
    m = _finite(reduction_mean, "reduction_mean")
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, numbers.Integral) or n_seeds < 1:
        raise BlowfishError(f"n_seeds must be a whole number >= 1 (got {n_seeds!r})")
    n = int(n_seeds)
    if abs(m) < 0.05:
        claim = f"{method_a} has the same error as {method_b}"
    else:
        claim = f"{method_a} {fmt_percent(abs(m))} {'lower' if m > 0 else 'higher'} error than {method_b}"
    claim += " (lower is better)"
    missing = ci_low is None or ci_high is None or n < 2
    if not missing:
        lo, hi = _finite(ci_low, "ci_low"), _finite(ci_high, "ci_high")
        if lo > hi:
            raise BlowfishError(f"ci_low must be <= ci_high (got {lo!r} > {hi!r})")
    seeds = f"{n} seed{'s' if n != 1 else ''}"
    if missing:
        return Verdict("neutral", f"{claim}; needs ≥ 2 seeds for an interval",
                       f"With {seeds} there is no 95% interval, so the difference may be chance. Run two or more "
                       "paired seeds.", "one seed")
    ivl = fmt_interval(lo, hi, percent=True)
    if lo > 0 or hi < 0:
        winner = method_a if lo > 0 else method_b
        return Verdict("good" if lo > 0 else "bad", f"{claim}; clear with {seeds} — the interval excludes 0",
                       f"95% interval of the paired reduction: {ivl}. {winner} has the lower error in this "
                       "comparison (same seeds, same budget).",
                       None if lo > 0 else f"{method_b} has the lower error")
    return Verdict("neutral", f"{claim}; inconclusive with {seeds} — the interval includes 0",
                   f"95% interval of the paired reduction: {ivl}. The two methods cannot be told apart yet; "
                   "more paired seeds narrow the interval.", "the interval includes 0")


# ================================================================= sweep verdict
def _means(errors_by_method: Mapping[str, Sequence[Any]], key: str, n: int) -> list[float]:
    if key not in errors_by_method:
        raise BlowfishError(f"errors_by_method needs '{key}' (got {sorted(errors_by_method)})")
    vals = list(errors_by_method[key])
    if len(vals) != n:
        raise BlowfishError(f"errors_by_method['{key}'] needs one mean error per budget ({n}; got {len(vals)})")
    out = []
    for v in vals:
        if isinstance(v, (list, tuple)):  # per-seed errors -> their mean
            v = sum(_finite(x, f"{key} error") for x in v) / max(len(v), 1)
        out.append(_finite(v, f"{key} error"))
    return out


def sweep_verdict(rhos: Sequence[float], errors_by_method: Mapping[str, Sequence[Any]], delta: float,
                  crossing: float | None, method_a: str = SOFT.name, method_b: str = BASELINE.name,
                  crossing_epsilon: float | None = None) -> Verdict:
    """Below which budget does BF-Soft win?  (App. F.3 crossing; epsilon on the exact Gaussian curve.)

    Parameters
    ----------
    rhos : sequence of float
        The sweep's budgets (zCDP, > 0, increasing; at least 2).
    errors_by_method : mapping of str to sequence
        Method name -> mean error per budget (or per-seed lists, averaged); keys ``method_a``
        and ``method_b``.
    delta : float
        The reporting DP delta.
    crossing : float or None
        The crossing rho (sweeps.SweepResult.crossing_rho) or None (computed here when the signs
        change anyway).
    method_a : str, default SOFT.name
        The method expected to win at small budgets ('bf-soft').
    method_b : str, default BASELINE.name
        The method compared against ('hard').
    crossing_epsilon : float or None, default None
        The crossing's epsilon as the caller computed it (sweeps.SweepResult.crossing_epsilon_exact,
        the number the chart marks); None: epsilon_exact(crossing, delta).

    Returns
    -------
    Verdict
        'good' when method_a wins at every budget, 'bad' when it never does, 'neutral' with a
        crossing ("BF-Soft wins below epsilon ≈ 0.07 on this table and policy") or a tie.

    Raises
    ------
    BlowfishError, BudgetError
        For bad input (rhos not increasing budgets, a missing method or error, a bad delta or
        crossing).
    """
    from ..algorithm.methods import get_method

    rhos = [check_rho(r) for r in rhos]
    if len(rhos) < 2 or any(b <= a for a, b in zip(rhos, rhos[1:])):
        raise BlowfishError("rhos must be at least 2 increasing budgets")
    delta = check_delta(delta)
    a = _means(errors_by_method, method_a, len(rhos))
    b = _means(errors_by_method, method_b, len(rhos))
    la, lb = get_method(method_a).label, get_method(method_b).label
    eps = [epsilon_exact(r, delta) for r in rhos]
    span = f"ε {fmt_sig(eps[0], 2)} to {fmt_sig(eps[-1], 2)} at δ = {fmt_sig(delta, 2)}"
    g = [x - y for x, y in zip(a, b)]
    if all(v < 0 for v in g):
        return Verdict("good", f"{la} wins at every budget of this sweep on this table and policy",
                       f"{la}'s mean error is below {lb}'s from ρ = {fmt_sig(rhos[0], 2)} to "
                       f"{fmt_sig(rhos[-1], 2)} ({span}). A crossing, if any, lies outside the grid.", None)
    if all(v > 0 for v in g):
        return Verdict("bad", f"{lb} wins at every budget of this sweep on this table and policy",
                       f"{la}'s mean error is above {lb}'s from ρ = {fmt_sig(rhos[0], 2)} to "
                       f"{fmt_sig(rhos[-1], 2)} ({span}): soft voting does not pay off here; try smaller "
                       "budgets or a policy with a smaller reach.", f"{lb} has the lower error everywhere")
    if crossing is None:
        crossing = crossing_budget(rhos, b, a)
    if crossing is None:  # every point ties (or ties and one side)
        return Verdict("neutral", f"{la} and {lb} tie on this sweep", f"Mean errors are equal or one side ties "
                       f"({span}).", None)
    crossing = check_rho(crossing, name="crossing")
    eps_c = float(epsilon_exact(crossing, delta) if crossing_epsilon is None else crossing_epsilon)
    low_wins = g[0] < 0 or (g[0] == 0 and any(v > 0 for v in g[1:]))
    side = "below" if low_wins else "above"
    other = "above" if low_wins else "below"
    changes = sum(1 for u, v in zip(g, g[1:]) if u * v < 0)
    extra = " The curves cross more than once on this grid; this is the first crossing." if changes > 1 else ""
    return Verdict(
        "neutral", f"{la} wins {side} epsilon ≈ {fmt_crossing(eps_c)} on this table and policy",
        f"The mean errors cross at ρ ≈ {fmt_sig(crossing, 2)} (ε ≈ {fmt_crossing(eps_c)} at δ = "
        f"{fmt_sig(delta, 2)}, exact Gaussian curve): {side} it {la}'s error is lower, {other} it {lb}'s. "
        f"The crossing is interpolated between grid points; more seeds make it firmer.{extra}",
        f"crossing at ρ ≈ {fmt_sig(crossing, 2)}")


# ============================================================ from engine results
def run_verdict_from_report(report: Mapping[str, Any]) -> Verdict | None:
    """run_verdict of a run_paired / CLI report (its summary's BF-Soft vs Hard R_s and seeds).

    Parameters
    ----------
    report : mapping
        The report (its 'summary' and 'seeds').

    Returns
    -------
    Verdict or None
        None when the report has no Hard/BF-Soft pair.

    Raises
    ------
    BlowfishError
        As :func:`run_verdict`.
    """
    rr = report.get("summary", {}).get("relative_reduction_bf_soft_vs_hard")
    if not rr:
        return None
    lo, hi = (rr.get("ci95") or [None, None])[:2]
    return run_verdict(rr["mean_percent"], lo, hi, len(rr.get("per_seed") or report.get("seeds") or [0]))


#: the headline of the exact-release verdict (issue 25).
EXACT_RELEASE_HEADLINE = "Released exactly: what the policy does not protect"
#: why a marginal may be published without noise (Blowfish's semantics; docs/PRIVACY.md §10).
EXACT_RELEASE_WHY = ("Blowfish protects only what the policy's edges change: a marginal that no policy edge changes "
                     "is the same on every pair of neighbouring tables, so it is published as it is.")


def exact_release_verdict(report: Mapping[str, Any]) -> Verdict | None:
    """Which marginals a run or release published exactly (no noise) and which with noise (issue 25).

    Parameters
    ----------
    report : mapping
        A public report (build_public: a release's ``public_report``) or a union report (build_report:
        a run's ``report``); its ledger entries' ``marginals`` are read (report_text.exact_release_lines).

    Returns
    -------
    Verdict or None
        Level 'neutral', headline :data:`EXACT_RELEASE_HEADLINE`, detail the lines of
        report_text.exact_release_lines then :data:`EXACT_RELEASE_WHY`; cause 'the policy protects only
        some attributes'.  None when no ledger entry has ``marginals`` (MST, AIM, Algorithm 1: no
        method that can release a marginal exactly).  Names cliques only (public), never a figure computed on the private table.
    """
    lines = exact_release_lines(dict(report))
    if not lines:
        return None
    return Verdict("neutral", EXACT_RELEASE_HEADLINE, " ".join(lines) + " " + EXACT_RELEASE_WHY,
                   "the policy protects only some attributes")


def sweep_verdict_from_result(result: Any) -> Verdict:
    """sweep_verdict of a sweeps.SweepResult (its points' mean errors, delta and crossing).

    Parameters
    ----------
    result : SweepResult
        The budget sweep.

    Returns
    -------
    Verdict
        As :func:`sweep_verdict`.

    Raises
    ------
    BlowfishError, BudgetError
        As :func:`sweep_verdict`.
    """
    rhos = [p.rho for p in result.points]
    errs = {SOFT.name: [p.soft["mean"] for p in result.points], BASELINE.name: [p.hard["mean"] for p in result.points]}
    return sweep_verdict(rhos, errs, result.delta, result.crossing_rho,
                         crossing_epsilon=getattr(result, "crossing_epsilon_exact", None))
