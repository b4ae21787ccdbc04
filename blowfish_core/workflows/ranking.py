"""Rank every method of a paired run by mean error, and say in words who won (issue 24, "Verdicts that rank").

* :func:`rank_methods` -- the methods of a paired run ordered by mean error, each with its 95%
  t-interval (the numbers of the run's summary: :func:`blowfish_core.synthesis.report_summary.summarize`).
* :meth:`Ranking.compare` -- one method against another on the seeds they share: the paired
  difference E_worse - E_better per seed with its 95% t-interval (a paired t-test: the difference
  is *clear* when the interval excludes 0, *inconclusive* when it contains 0).
* :func:`ranking_verdict` -- the verdict in words: which private method has the lowest error, by
  how much, and whether that is clear.  When a reference method (``Method.is_reference``: MST, AIM)
  beats the policy-aware methods it says so ("MST has 55% lower error than BF-Soft at ε = 0.71 on
  this table; BF-Soft's policy advantage is not enough here").
* :func:`ranking_from_report` / :func:`ranking_verdict_from_report` -- the same from a run_paired /
  CLI report (its ``runs``, ``metric`` and ``privacy``).

Only private methods (``Method.releasable``) are compared; analysis-only methods are listed in the
ranking with a note.  Everything is read from the method table (labels, ``is_reference``,
``policy_aware``, ``releasable``); no method name is compared.  Pure functions; no streamlit.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..algorithm.methods import METHODS, get_method
from ..base.errors import BlowfishError
from ..model.metrics import t_interval
from ..synthesis.gate import stated_epsilon
from ..synthesis.report_summary import summarize
from .formatting import fmt_interval, fmt_percent, fmt_sig
from .verdicts import Verdict

#: the test the verdict uses, in words (the detail sentence names it).
TEST_WORDS = ("paired t-test: the 95% t-interval of the per-seed differences on the same seeds and budget; "
              "a difference is clear when that interval excludes 0")


@dataclass(frozen=True)
class MethodRank:
    """One method of a ranking: name, mean error, its 95% t-interval (None ends with one seed),
    the per-seed errors and what the method table says of it."""

    method: str
    mean: float
    ci95: tuple[float | None, float | None]
    per_seed: Mapping[int, float]

    @property
    def n(self) -> int:
        """Seeds with an error."""
        return len(self.per_seed)

    @property
    def label(self) -> str:
        """The method's short label (Method.short_label)."""
        return get_method(self.method).short_label

    @property
    def is_reference(self) -> bool:
        """A reference method (MST, AIM: standard DP, not policy-aware)."""
        return get_method(self.method).is_reference

    @property
    def policy_aware(self) -> bool:
        """A Blowfish method (its noise follows the policy)."""
        return get_method(self.method).policy_aware

    @property
    def releasable(self) -> bool:
        """A private method (the release gate admits it)."""
        return get_method(self.method).releasable


@dataclass(frozen=True)
class Comparison:
    """``better`` against ``worse`` (``better`` has the lower or equal mean error) on their common seeds.

    percent: 100 (mean_worse - mean_better) / mean_worse (0 when both are 0); diff: the mean of the
    per-seed differences E_worse - E_better; diff_ci: its 95% t-interval ((None, None) with fewer
    than 2 common seeds); n: common seeds.
    """

    better: MethodRank
    worse: MethodRank
    percent: float
    diff: float
    diff_ci: tuple[float | None, float | None]
    n: int

    @property
    def has_interval(self) -> bool:
        """True with 2 or more common seeds."""
        return self.diff_ci[0] is not None and self.diff_ci[1] is not None

    @property
    def clear(self) -> bool:
        """True when the interval of the paired differences lies above 0 (``better`` wins clearly)."""
        lo = self.diff_ci[0]
        return self.has_interval and lo is not None and lo > 0

    @property
    def tie(self) -> bool:
        """True when the two mean errors are equal."""
        return self.better.mean == self.worse.mean


@dataclass(frozen=True)
class Ranking:
    """The methods of a paired run, lowest mean error first (ties in method-table order), with the
    metric's name and the run's reported epsilon and delta (None when unknown)."""

    rows: tuple[MethodRank, ...]
    metric: str = "error"
    epsilon: float | None = None
    delta: float | None = None

    @property
    def private(self) -> tuple[MethodRank, ...]:
        """The private (releasable) methods, lowest mean error first."""
        return tuple(r for r in self.rows if r.releasable)

    @property
    def best_private(self) -> MethodRank | None:
        """The private method with the lowest mean error (None without one)."""
        return self.private[0] if self.private else None

    def row(self, method: str) -> MethodRank:
        """The row of ``method``.

        Parameters
        ----------
        method : str
            A method of the ranking.

        Returns
        -------
        MethodRank
            Its row.

        Raises
        ------
        BlowfishError
            For a method not in the ranking.
        """
        for r in self.rows:
            if r.method == method:
                return r
        raise BlowfishError(f"method {method!r} is not in this run (got {', '.join(r.method for r in self.rows)})")

    def compare(self, a: str, b: str) -> Comparison:
        """``a`` against ``b`` on their common seeds (the lower mean error is ``better``).

        Parameters
        ----------
        a, b : str
            Two different methods of the ranking.

        Returns
        -------
        Comparison
            The percent gap of the means and the paired differences' 95% t-interval.

        Raises
        ------
        BlowfishError
            For a method not in the ranking, the same method twice, or no common seed.
        """
        ra, rb = self.row(a), self.row(b)
        if a == b:
            raise BlowfishError(f"compare needs two different methods (got {a!r} twice)")
        better, worse = (ra, rb) if ra.mean <= rb.mean else (rb, ra)
        seeds = sorted(set(better.per_seed) & set(worse.per_seed))
        if not seeds:
            raise BlowfishError(f"{better.label} and {worse.label} share no seed: a paired comparison needs the same "
                                "seeds")
        d = [float(worse.per_seed[s]) - float(better.per_seed[s]) for s in seeds]
        mean, lo, hi = t_interval(d)
        ci: tuple[float | None, float | None] = (lo, hi) if len(d) >= 2 else (None, None)
        pct = 100.0 * (worse.mean - better.mean) / worse.mean if worse.mean > 0 else 0.0
        return Comparison(better, worse, pct, mean, ci, len(d))


def _error(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(float(v)) or float(v) < 0:
        raise BlowfishError(f"{what} must be a finite error >= 0 (got {v!r})")
    return float(v)


def rank_methods(errors: Mapping[str, Mapping[int, float]], metric: str = "error", epsilon: float | None = None,
                 delta: float | None = None) -> Ranking:
    """The methods of a paired run ordered by mean error, each with its 95% t-interval.

    Means and intervals are those of the run's summary (report_summary.summarize: the low end
    clipped at 0).

    Parameters
    ----------
    errors : mapping of str to mapping of int to float
        Method name -> {seed: error} (errors >= 0; the same seeds make the comparison paired).
    metric : str, default 'error'
        The error metric's name (for the words).
    epsilon, delta : float or None
        The run's reported budget (for the words: "at ε = 0.71").

    Returns
    -------
    Ranking
        Lowest mean error first; ties in method-table order.

    Raises
    ------
    BlowfishError
        For no method, an unknown method, a method without errors or a bad error value.
    """
    if not errors:
        raise BlowfishError("a ranking needs at least one method with errors")
    runs = []
    for m, by_seed in errors.items():
        get_method(m)
        if not by_seed:
            raise BlowfishError(f"method {m!r} has no errors to rank")
        runs += [{"method": m, "seed": int(s), "e": _error(v, f"{m} error (seed {s})")} for s, v in by_seed.items()]
    methods = list(errors)
    per = summarize(runs, "e", methods)["per_method"]
    order = list(METHODS)
    rows = [MethodRank(m, float(per[m]["mean"]), (per[m]["ci95"][0], per[m]["ci95"][1]),
                       {int(s): float(v) for s, v in errors[m].items()}) for m in methods]
    rows.sort(key=lambda r: (r.mean, order.index(r.method)))
    return Ranking(tuple(rows), str(metric), None if epsilon is None else float(epsilon),
                   None if delta is None else float(delta))


def ranking_from_report(report: Mapping[str, Any]) -> Ranking | None:
    """The ranking of a run_paired / CLI report (its ``runs``, ``metric`` and ``privacy``).

    Parameters
    ----------
    report : mapping
        The report.

    Returns
    -------
    Ranking or None
        None when the report has no runs or no metric.

    Raises
    ------
    BlowfishError
        As :func:`rank_methods`.
    """
    runs = report.get("runs") or []
    metric = (report.get("metric") or {}).get("name") if isinstance(report.get("metric"), Mapping) else None
    if not runs or not metric:
        return None
    errors: dict[str, dict[int, float]] = {}
    for r in runs:
        if r.get("seed") is not None and r.get(metric) is not None:
            errors.setdefault(r["method"], {})[int(r["seed"])] = r[metric]
    if not errors:
        return None
    p = report.get("privacy") or {}
    try:
        eps: float | None = stated_epsilon(p)
    except KeyError:  # a report without a budget (a hand-made one)
        eps = None
    return rank_methods(errors, metric, eps, p.get("delta"))


def _pct(p: float) -> str:
    return fmt_percent(p, 0 if abs(p) >= 10 else 1)


def _seeds(n: int) -> str:
    return f"{n} seed{'s' if n != 1 else ''}"


def _ranking_words(ranking: Ranking) -> str:
    items = []
    for i, r in enumerate(ranking.rows, start=1):
        lo, hi = r.ci95
        ivl = f" {fmt_interval(lo, hi)}" if lo is not None and hi is not None else ""
        note = " (analysis only, not private)" if not r.releasable else ""
        items.append(f"{i}. {r.label} {fmt_sig(r.mean, 3)}{ivl}{note}")
    return (f"Ranking by mean {ranking.metric.upper()} (lower is better; 95% t-intervals): " + ", ".join(items)
            + ".")


def _test_words(c: Comparison) -> str:
    if not c.has_interval:
        return (f"With {_seeds(c.n)} in common there is no interval, so the difference may be chance; run two or "
                "more paired seeds.")
    lo, hi = c.diff_ci
    assert lo is not None and hi is not None
    where = "above 0: clear" if c.clear else ("below 0" if hi < 0 else "it includes 0: inconclusive")
    return (f"Paired differences E({c.worse.label}) − E({c.better.label}) over {_seeds(c.n)}: mean "
            f"{fmt_sig(c.diff, 3)}, 95% interval {fmt_interval(lo, hi)}, {where} ({TEST_WORDS}).")


def ranking_verdict(ranking: Ranking) -> Verdict | None:
    """Which private method of the run has the lowest error, by how much, and is it clear?

    The winner is the private method with the lowest mean error.  It is compared with the
    runner-up; when the winner is a reference method (MST, AIM) it is compared with the best
    policy-aware method instead ("MST has 55% lower error than BF-Soft at ε = 0.71 on this table;
    BF-Soft's policy advantage is not enough here").  The test: the paired differences' 95%
    t-interval (clear when it excludes 0).

    Parameters
    ----------
    ranking : Ranking
        The run's ranking (:func:`rank_methods`).

    Returns
    -------
    Verdict or None
        None with fewer than 2 private methods.  'bad' (red) when a reference method wins clearly
        over the policy-aware methods; 'good' (green) when a policy-aware method wins clearly;
        'neutral' (blue) for an inconclusive comparison ("inconclusive with 3 seeds — the interval
        includes 0"), a tie, one seed, or a clear win of a method that is neither.
    """
    private = ranking.private
    if len(private) < 2:
        return None
    best = private[0]
    aware = [r for r in private[1:] if r.policy_aware]
    against_policy = best.is_reference and bool(aware)
    rival = aware[0] if against_policy else private[1]
    c = ranking.compare(best.method, rival.method)
    at = f" at ε = {fmt_sig(ranking.epsilon, 2)}" if ranking.epsilon else ""
    detail = _test_words(c) + " " + _ranking_words(ranking)
    if c.tie:
        return Verdict("neutral", f"{best.label} and {rival.label} have the same mean error{at} on this table",
                       detail, "the mean errors are equal")
    gap = f"{best.label} has {_pct(c.percent)} lower error than {rival.label}{at} on this table"
    if not c.has_interval:
        return Verdict("neutral", f"{gap}; needs ≥ 2 seeds for an interval", detail, "one seed")
    if not c.clear:
        return Verdict("neutral", f"{gap}, but the comparison is inconclusive with {_seeds(c.n)} — the interval "
                       "includes 0", detail + " More paired seeds narrow the interval.", "the interval includes 0")
    if against_policy:
        return Verdict("bad", f"{gap}; {rival.label}'s policy advantage is not enough here",
                       detail + f" {best.label} is a reference method (standard DP, it ignores the policy); release it "
                       "from the Release step, or try a policy with a smaller reach or a larger budget.",
                       f"{best.label} (a reference method) has the lower error")
    others = [r for r in private[1:] if r.is_reference and r is not rival]
    beats = "".join(f" {best.label} also has {_pct(ranking.compare(best.method, r.method).percent)} lower error than "
                    f"{r.label}." for r in others)
    level = "good" if best.policy_aware else "neutral"
    return Verdict(level, f"{gap}; clear with {_seeds(c.n)} — the interval excludes 0", detail + beats, None)


def ranking_verdict_from_report(report: Mapping[str, Any]) -> Verdict | None:
    """:func:`ranking_verdict` of a run_paired / CLI report.

    Parameters
    ----------
    report : mapping
        The report (its 'runs', 'metric' and 'privacy').

    Returns
    -------
    Verdict or None
        None when the report has no runs or fewer than 2 private methods.

    Raises
    ------
    BlowfishError
        As :func:`rank_methods`.
    """
    ranking = ranking_from_report(report)
    return None if ranking is None else ranking_verdict(ranking)
