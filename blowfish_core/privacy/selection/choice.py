"""The private choice of tau (pure pieces): the score's sensitivity, the error scores, the plan of
the choice and the seeded study draw (:func:`select_private`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ...base.errors import BudgetError
from .em import _scores, em_probabilities, regret_bound
from .hockey import selection_epsilon, selection_rho

#: the privacy notions of the tau-choice score (standard bounded DP, Blowfish substitution policy).
SCORE_NOTIONS = ("dp", "blowfish")
#: error metrics the tau-choice score supports.
SCORE_METRICS = ("pwerr", "hoerr")


# -------------------------------------------------------- private choice of tau
def score_sensitivity(notion: str, p: int, *, metric: str = "pwerr") -> float:
    """Global sensitivity of the tau-choice score ``u(D, c) = −(n/2) · Err(S_c, D)``.

    S_c is the already released synthetic table of setting c (fixed), n = |D| (public under
    replace-one / substitution neighbours).  Derivation (docs/DECISIONS.md "Private choice
    of tau"):

    * PWErr (blowfish_core.model.metrics.pwerr) is ``(1/P) Σ_{pairs} ||m_D^{ab} − m_S^{ab}||_1``
      over the ``P = p(p−1)/2`` attribute pairs, with m_D the normalized 2-way marginal.
      Replacing one record moves 1/n of mass from one cell to another in each pair, so
      ``||m_D − m_D'||_1 <= 2/n`` and, by the triangle inequality, each pair's error moves
      by at most 2/n.
    * ``notion="dp"`` (bounded DP, any record may change every attribute): all P pairs may
      move, ``|ΔPWErr| <= 2/n``, so ``|Δu| <= (n/2)(2/n) = 1``.
    * ``notion="blowfish"`` (substitution policy: a record-level edge changes exactly one
      attribute, DESIGN "Policy graph"): only the p−1 pairs containing that attribute move,
      ``|ΔPWErr| <= (p−1)(2/n)/P = 4/(n p)``, so ``|Δu| <= 2/p`` (Adult, p = 5: 0.4).  This
      holds for one protected attribute and, since each edge changes one attribute, for
      several.  Both bounds are attained (S = D and a change that moves every affected cell).
    * ``metric="hoerr"``: one l1 distance over a joint histogram, ``|Δu| <= 1`` under both.

    Participation edges (adding/removing a record changes n) are not covered: use the
    substitution policy.

    Parameters
    ----------
    notion : {"dp", "blowfish"}
        Standard bounded DP or a Blowfish substitution policy.
    p : int
        Modeled attributes, a whole number ``>= 2``.
    metric : {"pwerr", "hoerr"}, default "pwerr"
        The error metric of the score.

    Returns
    -------
    float
        The sensitivity, in score units.

    Raises
    ------
    BudgetError
        For an unknown notion/metric or p < 2 (PWErr needs two attributes).
    """
    if notion not in SCORE_NOTIONS:
        raise BudgetError(f"notion must be one of {SCORE_NOTIONS} (got {notion!r}). "
                          "Fix: 'dp' for standard bounded DP, 'blowfish' for a substitution policy")
    if metric not in SCORE_METRICS:
        raise BudgetError(f"metric must be one of {SCORE_METRICS} (got {metric!r}). Fix: use 'pwerr' or 'hoerr'")
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 2:
        raise BudgetError(f"p (modeled attributes) must be a whole number >= 2 (got {p!r}). "
                          "Fix: PWErr needs at least two attributes")
    if metric == "hoerr" or notion == "dp":
        return 1.0
    return 2.0 / int(p)


def error_scores(errors: Any, n: int) -> np.ndarray:
    """Scores of the tau choice: ``u_c = −(n/2) · errors_c``.

    Parameters
    ----------
    errors : (K,) array_like of float
        Nonnegative errors (PWErr/HOErr of each released table against D).
    n : int
        Records in D (>= 1).

    Returns
    -------
    (K,) float ndarray
        The scores, in score units.

    Raises
    ------
    BudgetError
        For bad input (errors not finite and >= 0, n not a whole number >= 1).
    """
    e = _scores(errors, "errors")
    if np.any(e < 0):
        raise BudgetError("errors must be >= 0 (PWErr and HOErr are distances). Fix: pass the metric values")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise BudgetError(f"n must be a whole number >= 1 (got {n!r}). Fix: pass the private table's row count")
    return -0.5 * int(n) * e


def error_regret_bound(n: int, sensitivity: float, epsilon_sel: float, K: int, rho: float) -> float:
    """The tau choice's regret in error units.

    With probability >= 1 − rho the chosen release's error exceeds the best one's by at most
    ``(2/n) · regret_bound(sensitivity, epsilon_sel, K, rho)`` (Eq. (2) on u = −(n/2)·error).
    Example (design/selection.md B5): Adult's private split, n = 26,048, K = 9, rho_sel = 1e-4
    (epsilon_sel = 0.0283), rho = 0.05: 0.0282 PWErr under DP, 0.0113 under the age policy
    (p = 5, sensitivity 0.4).

    Parameters
    ----------
    n : int
        Private rows, a whole number ``>= 1``.
    sensitivity : float
        The score's global sensitivity (score units).
    epsilon_sel : float
        The EM's epsilon (nats).
    K : int
        Number of candidates (settings).
    rho : float
        Regret failure probability, in (0, 1).

    Returns
    -------
    float
        The regret bound, in error units.

    Raises
    ------
    BudgetError
        For a bad n, or as :func:`regret_bound`.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise BudgetError(f"n must be a whole number >= 1 (got {n!r}). Fix: pass the private table's row count")
    return 2.0 / int(n) * regret_bound(sensitivity, epsilon_sel, K, rho)


@dataclass(frozen=True)
class PrivateChoicePlan:
    """What a private choice of tau costs and promises, before it runs (issue 14).

    sensitivity: of u (score units); epsilon_sel: the EM's epsilon (nats); rho_selection:
    epsilon_sel^2/8 (zCDP, bounded range); rho_runs: the K runs' total; rho_total: their sum
    (zCDP adds); temperature: T in P ∝ exp(u/T), score units (= 2·sensitivity/epsilon_sel);
    temperature_error: T in error units (2T/n); regret_error: with probability >= 1 − rho the
    chosen release's error is within this of the best one's (:func:`error_regret_bound`).
    """

    K: int
    sensitivity: float
    epsilon_sel: float
    rho_selection: float
    rho_runs: float
    rho_total: float
    temperature: float
    temperature_error: float
    regret_error: float
    rho: float


def private_choice_plan(n: int, p: int, notion: str, rho_runs: Any, rho_sel: float, *, metric: str = "pwerr",
                        rho: float = 0.05) -> PrivateChoicePlan:
    """The cost and regret of choosing among K released settings privately.

    zCDP budgets add; turn rho_total into (epsilon, delta) with Eq. (1) or a PLD, never with the
    mu-GDP curve (the EM row is not Gaussian).

    Parameters
    ----------
    n : int
        Private rows.
    p : int
        Modeled attributes.
    notion : {"dp", "blowfish"}
        As :func:`score_sensitivity`.
    rho_runs : (K,) array_like of float
        zCDP budgets of the K runs (each spends its own), K >= 2.
    rho_sel : float
        The selection's zCDP budget (epsilon_sel = sqrt(8 rho_sel)).
    metric : {"pwerr", "hoerr"}, default "pwerr"
        As :func:`score_sensitivity`.
    rho : float, default 0.05
        Regret failure probability.

    Returns
    -------
    PrivateChoicePlan
        Sensitivity, epsilon_sel, the zCDP costs and the regret bound.

    Raises
    ------
    BudgetError
        For bad input.
    """
    r = np.asarray(rho_runs, dtype=float).ravel()
    if r.size < 2 or not np.all(np.isfinite(r)) or np.any(r <= 0):
        raise BudgetError(f"rho_runs must list K >= 2 positive budgets, one per setting (got {rho_runs!r}). "
                          "Fix: e.g. nine runs at rho = 1e-3 each")
    sens = score_sensitivity(notion, p, metric=metric)
    eps = selection_epsilon(rho_sel)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise BudgetError(f"n must be a whole number >= 1 (got {n!r}). Fix: pass the private table's row count")
    T = 2.0 * sens / eps
    runs = float(r.sum())
    return PrivateChoicePlan(int(r.size), sens, eps, selection_rho(eps), runs, runs + selection_rho(eps), T,
                             2.0 * T / int(n), error_regret_bound(int(n), sens, eps, int(r.size), rho), float(rho))


class Selection(NamedTuple):
    """Result of :func:`select_private`: the chosen index and the (K,) law it was drawn from."""

    index: int  # type: ignore[assignment]  # the public field name shadows tuple.index (a method)
    probabilities: np.ndarray


def select_private(errors: Any, n: int, sensitivity: float, epsilon_sel: float,
                   rng: np.random.Generator) -> Selection:
    """Choose one of K released settings privately: EM on ``u = −(n/2)·errors``.

    Pure epsilon_sel-DP on top of the K runs (adaptive composition).

    Parameters
    ----------
    errors : (K,) array_like of float
        Errors of the K releases against the private table.
    n : int
        Its row count.
    sensitivity : float
        The score's global sensitivity (:func:`score_sensitivity`).
    epsilon_sel : float
        Selection budget in nats (costs :func:`selection_rho` zCDP).
    rng : numpy.random.Generator
        The seeded stream of the draw.

    Returns
    -------
    Selection
        Selection(index, probabilities (K,)).

    Raises
    ------
    BudgetError
        For an ``rng`` that is not a numpy Generator, or bad input.
    """
    if not isinstance(rng, np.random.Generator):
        raise BudgetError("rng must be a numpy.random.Generator. Fix: pass np.random.default_rng(seed)")
    P = em_probabilities(error_scores(errors, n), sensitivity, epsilon_sel)
    return Selection(int(rng.choice(P.size, p=P)), P)
