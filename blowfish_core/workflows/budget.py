"""Epsilon-first budgets: what a data owner types (epsilon, delta) and the ONE epsilon shown (issue 16).

A person thinks in one epsilon and a delta.  :func:`budget_from_epsilon` turns (epsilon, delta)
into the run's per-round budget and returns a :class:`BudgetView` whose ``epsilon`` is the
ledger's accountant's epsilon (the exact Gaussian mu-GDP curve for an all-Gaussian run, the
sum of epsilons for the pure-DP Laplace variant: totals.privacy_totals), with every other
figure (rho, rho_t, the paper's Eq. (1) epsilon) in a tooltip string.  :func:`budget_from_rho`
is the same view for the "advanced" rho entry.

The conversions are accounting.py's (Eq. (1): epsilon_eq1 / rho_from_epsilon_eq1; the exact
curve: epsilon_exact / rho_from_epsilon_exact; per-round split: split_budget) via
parsing.parse_budget; nothing is re-derived here.  Also: the "more privacy ↔ more accuracy"
scale of the budget control (:func:`privacy_scale`, :func:`epsilon_steps`,
:func:`describe_epsilon`), the warning above epsilon = 5 (:func:`epsilon_warning`) and the
delta-versus-1/n check (:func:`delta_note`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

from ..privacy.accounting import PrivacyLedger, check_delta, check_epsilon, check_rho
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError
from ..privacy.mechanisms import DEFAULT_MECHANISM, get_mechanism
from ..synthesis.parsing import parse_budget
from .formatting import fmt_delta, fmt_sig

#: above this epsilon the budget control shows a warning (issue 16).
EPSILON_WARN = 5.0
#: ends and default of the epsilon control (log scale).
EPSILON_MIN, EPSILON_MAX, EPSILON_DEFAULT = 0.01, 10.0, 1.0

#: words for ranges of epsilon (upper end inclusive), from strong to weak protection.
EPSILON_BANDS: tuple[tuple[float, str], ...] = (
    (0.1, "very strong privacy: the release says almost nothing about any protected difference"),
    (1.0, "strong privacy: a common choice for sensitive tables"),
    (EPSILON_WARN, "moderate privacy: more accuracy, weaker guarantee"),
    (math.inf, "weak privacy: the guarantee is loose"),
)


@dataclass(frozen=True)
class BudgetView:
    """A run's budget as shown to people.

    mechanism: 'gaussian' | 'laplace'.  epsilon: THE displayed epsilon, the ledger accountant's
    (accountant 'gdp-exact': exact Gaussian curve at ``delta``; 'pure-sum': pure DP).
    delta: the reporting delta (0 for pure DP).  rho / rho_per_round: zCDP total and split
    (Gaussian; None for Laplace); epsilon_per_round: Laplace split (None for Gaussian).
    epsilon_eq1: the paper's Eq. (1) epsilon of the same rho (Gaussian; tooltip only).
    requested: what was asked; label: 'ε = 1 at δ = 10⁻⁵'; tooltip: every other figure;
    warning: epsilon_warning(epsilon) or None; chosen_epsilon: the epsilon a person chose (None when
    the budget was given as rho), which a run converts with its methods' accountant (issue 24
    "One epsilon": parsing.run_conversion).
    """

    mechanism: str
    epsilon: float
    delta: float
    rho: float | None
    rounds: int
    rho_per_round: tuple[float, ...] | None
    epsilon_per_round: tuple[float, ...] | None
    accountant: str
    epsilon_eq1: float | None
    requested: str
    label: str
    tooltip: str
    warning: str | None
    chosen_epsilon: float | None = None

    def run_kwargs(self) -> dict[str, float]:
        """Keyword budget for Synthesizer / RunRequest: {'rho': ...} (Gaussian) or {'epsilon': ...} (Laplace)."""
        return {"rho": self.rho} if self.rho is not None else {"epsilon": self.epsilon}

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def _label(epsilon: float, delta: float) -> str:
    return f"ε = {fmt_sig(epsilon, 2)}" + (f" at δ = {fmt_delta(delta)}" if delta > 0 else " (pure DP)")


def _gaussian_view(rho: float, delta: float, rounds: int, requested: str, asked_eps: float | None,
                   conversion: str) -> BudgetView:
    led = PrivacyLedger.from_budget(rho=rho, delta=delta, rounds=rounds)
    eps = led.epsilon_exact
    per = led.rho_per_round
    tip = (f"Accountant: the exact Gaussian (μ-GDP) curve, the tightest statement for this all-Gaussian run. "
           f"The same budget is ρ = {fmt_sig(rho, 3)} zCDP, ρ_t = {fmt_sig(per[0], 3)} per round over {rounds} "
           f"rounds; the paper's Eq. (1) would state it as ε = {fmt_sig(led.epsilon_eq1, 2)} at the same δ "
           "(looser bound, same noise).")
    if asked_eps is not None and conversion == "eq1":
        tip += (f" You asked for ε ≤ {fmt_sig(asked_eps, 3)} by Eq. (1); the exact curve certifies "
                f"ε = {fmt_sig(eps, 2)} for that ρ.")
    tip += (f" δ = {fmt_delta(delta)} is the probability that the ε statement fails; keep it well below one "
            "over the number of records.")
    return BudgetView(DEFAULT_MECHANISM, float(eps), float(delta), float(rho), int(rounds), tuple(per), None,
                      "gdp-exact", float(led.epsilon_eq1), requested, _label(eps, delta), tip,
                      epsilon_warning(eps), asked_eps)


def budget_from_epsilon(epsilon: float, delta: float | None = DEFAULT_DELTA, rounds: int = 8,
                        mechanism: str = DEFAULT_MECHANISM, conversion: str = "exact") -> BudgetView:
    """The per-round budget of a run from a target (epsilon, delta).

    Gaussian (zCDP): rho = the largest total whose epsilon at ``delta`` is <= ``epsilon`` under
    ``conversion``, split equally over ``rounds`` (accounting.rho_from_budget, split_budget via
    parsing.parse_budget and PrivacyLedger).  Laplace (pure DP): epsilon_t = epsilon / rounds.

    Parameters
    ----------
    epsilon : float
        Target epsilon, > 0.
    delta : float or None, default DEFAULT_DELTA
        DP delta, in (0, 1); None for Laplace (None with Gaussian: DEFAULT_DELTA).
    rounds : int, default 8
        Rounds the budget is split over, >= 1.
    mechanism : {'gaussian', 'laplace'}, default 'gaussian'
        The additive mechanism.
    conversion : {'exact', 'eq1'}, default 'exact'
        Gaussian: the exact curve (default) or the paper's Eq. (1).

    Returns
    -------
    BudgetView
        The budget as shown to people.

    Raises
    ------
    BudgetError, BlowfishError
        Naming the field: epsilon <= 0, delta outside (0, 1), delta with Laplace, rounds < 1,
        unknown mechanism or conversion.
    """
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise BlowfishError(f"rounds must be a whole number >= 1 (got {rounds!r})")
    mech = get_mechanism(mechanism)
    if mech.budget_name == "epsilon":
        b = parse_budget(None, epsilon, delta, mech.name, None, flags=False)  # pure DP: nothing to convert
        eps = float(cast(float, b.epsilon))  # parse_budget sets epsilon for an epsilon budget
        per = tuple(float(x) for x in mech.split(eps, rounds))
        tip = (f"Pure ε-DP (Laplace mechanism): no δ. ε_t = {fmt_sig(per[0], 3)} per round over {rounds} rounds; "
               "the epsilons of the rounds add up to ε.")
        return BudgetView(mech.name, eps, 0.0, None, rounds, None, per, "pure-sum", None,
                          f"epsilon = {fmt_sig(eps, 3)} (pure DP)", _label(eps, 0.0), tip, epsilon_warning(eps),
                          eps)
    d = DEFAULT_DELTA if delta is None else delta
    b = parse_budget(None, epsilon, d, mech.name, conversion, flags=False)
    requested = f"epsilon = {fmt_sig(epsilon, 3)} at delta = {fmt_sig(b.delta, 2)} ({conversion} conversion)"
    rho = cast(float, b.rho)  # parse_budget converts a Gaussian epsilon to rho
    return _gaussian_view(float(rho), float(b.delta), rounds, requested, float(epsilon), conversion)


def budget_from_rho(rho: float, delta: float = DEFAULT_DELTA, rounds: int = 8) -> BudgetView:
    """The same view for a zCDP total rho (the 'advanced' entry).

    The displayed epsilon is the exact-curve epsilon at ``delta``.

    Parameters
    ----------
    rho : float
        Total zCDP budget, > 0.
    delta : float, default DEFAULT_DELTA
        DP delta of the displayed epsilon, in (0, 1).
    rounds : int, default 8
        Rounds the budget is split over, >= 1.

    Returns
    -------
    BudgetView
        The budget as shown to people.

    Raises
    ------
    BudgetError, BlowfishError
        Naming the field (bad rho or delta; rounds not a whole number >= 1).
    """
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise BlowfishError(f"rounds must be a whole number >= 1 (got {rounds!r})")
    rho = check_rho(rho)
    delta = check_delta(delta)
    return _gaussian_view(rho, delta, rounds, f"rho = {fmt_sig(rho, 3)} zCDP", None, "exact")


# ------------------------------------------------------------------ the scale
@dataclass(frozen=True)
class PrivacyScale:
    """The budget control: a log-scale epsilon slider from ``left`` to ``right``.

    lo, hi, default: epsilon range and start value; steps: the slider's values (1-2-5 per
    decade); warn_above: EPSILON_WARN; bands: (upper epsilon, words) from strong to weak.
    """

    left: str
    right: str
    lo: float
    hi: float
    default: float
    steps: tuple[float, ...]
    warn_above: float
    bands: tuple[tuple[float, str], ...]
    help: str


def epsilon_steps(lo: float = EPSILON_MIN, hi: float = EPSILON_MAX) -> tuple[float, ...]:
    """Log-scale values 1, 2, 5 per decade from lo to hi inclusive (0.01, 0.02, 0.05, 0.1, ..., 10).

    Parameters
    ----------
    lo : float, default EPSILON_MIN
        Lowest epsilon, > 0.
    hi : float, default EPSILON_MAX
        Highest epsilon, > lo.

    Returns
    -------
    tuple of float
        The slider's values, ascending.

    Raises
    ------
    BudgetError
        For a bad epsilon.
    BlowfishError
        When lo >= hi.
    """
    lo, hi = check_epsilon(lo, name="lowest epsilon"), check_epsilon(hi, name="highest epsilon")
    if lo >= hi:
        raise BlowfishError(f"the epsilon scale needs lowest < highest (got {lo:g} >= {hi:g})")
    out = []
    for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = float(f"{m}e{e}")
            if lo * (1 - 1e-12) <= v <= hi * (1 + 1e-12):
                out.append(v)
    return tuple(out)


def privacy_scale() -> PrivacyScale:
    """The "more privacy ↔ more accuracy" control of every budget input (epsilon, log scale).

    Returns
    -------
    PrivacyScale
        From EPSILON_MIN to EPSILON_MAX, default EPSILON_DEFAULT, warning above EPSILON_WARN.
    """
    return PrivacyScale(
        "more privacy", "more accuracy", EPSILON_MIN, EPSILON_MAX, EPSILON_DEFAULT, epsilon_steps(),
        EPSILON_WARN, EPSILON_BANDS,
        "Smaller ε: more noise, better privacy. Larger ε: less noise, more accurate synthetic data, weaker "
        "privacy. The scale is logarithmic: each step multiplies ε.")


def describe_epsilon(epsilon: float, delta: float | None = None) -> str:
    """The meaning of epsilon in words, with the risk bound.

    E.g. 'strong privacy ...: seeing the release changes the odds of any protected difference by
    at most a factor e^ε ≈ 2.7 (except with probability δ = 10⁻⁵)'.

    Parameters
    ----------
    epsilon : float
        The epsilon, > 0.
    delta : float, optional
        DP delta; named when given and > 0.

    Returns
    -------
    str
        One sentence.

    Raises
    ------
    BudgetError
        For epsilon <= 0 or a bad delta.
    """
    eps = check_epsilon(epsilon)
    words = next(w for top, w in EPSILON_BANDS if eps <= top)
    factor = math.exp(eps) if eps < 700 else math.inf
    text = (f"{words}. Seeing the release changes the odds of any protected difference by at most a factor "
            f"e^ε ≈ {fmt_sig(factor, 2)}")
    if delta is not None and delta > 0:
        text += f" (except with probability δ = {fmt_delta(check_delta(delta))})"
    return text[0].upper() + text[1:] + "."


def epsilon_warning(epsilon: float) -> str | None:
    """A warning above epsilon = 5 (EPSILON_WARN), else None.

    Relative rounding of 1e-9 is ignored: the exact conversion of epsilon = 5 certifies
    5.000000000000002.

    Parameters
    ----------
    epsilon : float
        The epsilon, > 0.

    Returns
    -------
    str or None
        The warning.

    Raises
    ------
    BudgetError
        For epsilon <= 0.
    """
    eps = check_epsilon(epsilon)
    if eps <= EPSILON_WARN * (1 + 1e-9):
        return None
    return (f"ε = {fmt_sig(eps, 2)} is a weak guarantee: the release may change the odds of a protected "
            f"difference by up to e^ε ≈ {fmt_sig(math.exp(min(eps, 700)), 2)}×. Values above "
            f"{EPSILON_WARN:g} are rarely defensible for a real release.")


def delta_note(delta: float, n_records: int) -> tuple[str, str]:
    """delta against the table size.

    Parameters
    ----------
    delta : float
        DP delta, in (0, 1).
    n_records : int
        Records of the table, >= 1.

    Returns
    -------
    level : {'bad', 'neutral'}
        'bad' when delta >= 1/n (the statement may fail for a whole record), 'neutral' otherwise.
    text : str
        The note.

    Raises
    ------
    BudgetError
        For a bad delta.
    BlowfishError
        For n_records not a whole number >= 1.
    """
    delta = check_delta(delta)
    if isinstance(n_records, bool) or not isinstance(n_records, int) or n_records < 1:
        raise BlowfishError(f"number of records must be a whole number >= 1 (got {n_records!r})")
    inv = 1.0 / n_records
    if delta >= inv:
        return "bad", (f"δ = {fmt_delta(delta)} is not below 1/n = {fmt_sig(inv, 2)} for {n_records:,} records: "
                       "the guarantee could fail for a whole record. Choose a smaller δ (e.g. "
                       f"{fmt_sig(10.0 ** math.floor(math.log10(inv) - 1), 1)}).")
    return "neutral", (f"δ = {fmt_delta(delta)} is below 1/n = {fmt_sig(inv, 2)} for {n_records:,} records: "
                       "the ε statement fails only with this small probability.")
