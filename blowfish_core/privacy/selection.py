"""Exponential selection and its calibrations (papers/001; working notes design/selection.md).

One idea: choose one of m public candidates with the exponential mechanism (EM) and say
exactly how private that choice is, for each way of setting the EM's scale b.

* :func:`em_probabilities` -- the Gibbs law ``Q_x^b(r) ∝ exp(epsilon q(x,r) / (2 b))``
  (papers/001 Eq. (1), [R] in the notes), log-sum-exp stable.
* :func:`hockey_stick`, :func:`selection_delta` -- the exact delta(epsilon) between two
  finite selection laws (max over both orders).
* :func:`regret_bound` -- Eq. (2) [R]: ``Pr[gap > (2b/epsilon) log(m/rho)] <= rho``.
* :func:`selection_rho` / :func:`selection_epsilon` -- a pure epsilon-DP EM is
  epsilon-bounded-range, hence (epsilon^2/8)-zCDP (Cesar & Rogers 2021).
* The private choice of tau (pure pieces): :func:`score_sensitivity`,
  :func:`error_scores`, :func:`select_private` (seeded study draw, numpy) and
  :func:`blowfish_core.privacy.mechanisms.select_release` (release draw, OpenDP's Gumbel noisy max;
  in the mechanism registry, which it reads).
* :class:`SelectionGraph` -- a finite dataset graph with a score vector per dataset
  (oscillation, local/global sensitivity, smooth sensitivity, distances to unsafe sets).
* Calibrations (:data:`CALIBRATIONS`, one entry each, all following :class:`Calibration`):
  ``global`` (any public scale, pure epsilon_s-DP), ``shifted_laplace`` (Cor. 5.3,
  (epsilon_t + epsilon_s, eta)), ``ptr`` (§6 certificate-search binary search,
  (epsilon_t + epsilon_s, eta)), and the broken ``local`` (b = LS(x), Prop. 4.1) and
  ``smooth_fixed`` (b = S*_beta(x) with fixed beta and lambda, Thm 4.3).  The broken ones
  exist only for the selection audit and the Selection Lab; their ``private`` flag is
  False and every label says :data:`NOT_PRIVATE`.  Each calibration returns, for a dataset
  of the graph, the law of what it releases: (scale, index) when the scale is part of the
  release, the index alone otherwise (:class:`SelectionLaw`).

Units: scores and scales in score units (votes, or (n/2)·error); epsilon in nats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
from scipy import sparse, stats
from scipy.sparse.csgraph import shortest_path
from scipy.special import logsumexp

from ..base.errors import BudgetError, PolicyError

#: label carried by every broken calibration, on every screen and table row.
NOT_PRIVATE = "demonstration: not private"
#: the privacy notions of the tau-choice score (standard bounded DP, Blowfish substitution policy).
SCORE_NOTIONS = ("dp", "blowfish")
#: error metrics the tau-choice score supports.
SCORE_METRICS = ("pwerr", "hoerr")


# ------------------------------------------------------------------ validation
def _real(x: Any, name: str, *, positive: bool = True, allow_zero: bool = False, fix: str = "") -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not math.isfinite(float(x)):
        raise BudgetError(f"{name} must be a finite number (got {x!r}). Fix: {fix or 'give a finite number'}")
    v = float(x)
    if positive and (v < 0 or (v == 0 and not allow_zero)):
        rule = ">= 0" if allow_zero else "> 0"
        raise BudgetError(f"{name} must be {rule} (got {x!r}). Fix: {fix or 'give a positive number'}")
    return v


def _prob(x: Any, name: str, fix: str) -> float:
    v = _real(x, name, fix=fix)
    if not v < 1.0:
        raise BudgetError(f"{name} must be in (0, 1) (got {x!r}). Fix: {fix}")
    return v


def _scores(scores: Any, name: str = "scores") -> np.ndarray:
    try:
        s = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise BudgetError(f"{name} must be a 1-d array of numbers (got {type(scores).__name__}). "
                          "Fix: pass one float score per candidate") from None
    if s.ndim != 1 or s.size == 0:
        raise BudgetError(f"{name} must be a non-empty 1-d array (got shape {s.shape}). "
                          "Fix: pass one float score per candidate")
    if not np.all(np.isfinite(s)):
        raise BudgetError(f"{name} must be finite (got {int((~np.isfinite(s)).sum())} NaN/inf). "
                          "Fix: replace missing scores")
    return s


def _counts(counts: Any, m: int) -> np.ndarray:
    c = np.asarray(counts, dtype=float)
    if c.shape != (m,) or not np.all(np.isfinite(c)) or np.any(c < 1) or np.any(c != np.floor(c)):
        raise BudgetError(f"counts must be {m} whole numbers >= 1, one per score (got {counts!r}). "
                          "Fix: give the multiplicity of each distinct score")
    return c


# ------------------------------------------------------------------ Gibbs law
def em_probabilities(scores: Any, scale: float, epsilon: float, *, counts: Any = None) -> np.ndarray:
    """The exponential mechanism's law: ``P(r) ∝ exp(epsilon · score_r / (2 · scale))``.

    papers/001 Eq. (1) [R] (the factor 2 is kept: scores need not be monotone).
    scores: (m,) float, score units; scale: > 0, score units (the sensitivity b);
    epsilon: > 0, nats.  counts (optional): (m,) whole numbers >= 1 -- score r stands for
    ``counts[r]`` candidates with that score, and the result is the total mass of each
    group (so 10^12 identical candidates cost one entry).
    Returns (m,) float summing to 1, computed by log-sum-exp (stable for scores of 1e6
    and more; invariant to adding a constant to every score).
    Raises BudgetError for a non-positive scale or epsilon, or bad scores/counts.
    """
    s = _scores(scores)
    b = _real(scale, "scale", fix="use a positive sensitivity, e.g. the policy's global sensitivity 1")
    eps = _real(epsilon, "epsilon", fix="use a positive selection budget such as epsilon = 1")
    logits = eps * s / (2.0 * b)
    if counts is not None:
        logits = logits + np.log(_counts(counts, s.size))
    out = np.exp(logits - logsumexp(logits))
    return out / out.sum()


def _gibbs_rows(scores: np.ndarray, counts: np.ndarray, scales: np.ndarray, epsilon: float) -> np.ndarray:
    """Vectorized Gibbs laws for many scales: (len(scales), m) grouped probabilities."""
    logits = epsilon * scores[None, :] / (2.0 * scales[:, None]) + np.log(counts)[None, :]
    w = np.exp(logits - logits.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def _law(p: Any, name: str) -> np.ndarray:
    a = np.asarray(p, dtype=float).ravel()
    if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a < 0):
        raise BudgetError(f"{name} must be a non-empty array of probabilities >= 0. Fix: pass a finite law")
    return a


def hockey_stick(p: Any, q: Any, epsilon: float) -> float:
    """``sum_r max(0, p_r − e^epsilon q_r)``: the smallest delta with P(S) <= e^eps Q(S) + delta.

    p, q: (m,) probabilities on the same finite outcomes (any shape, flattened alike);
    epsilon: >= 0, nats.  Returns a float in [0, 1].  Raises BudgetError for shapes that
    differ, negative or non-finite entries, or a negative epsilon.
    """
    a, b = _law(p, "p"), _law(q, "q")
    if a.shape != b.shape:
        raise BudgetError(f"p and q must have the same number of outcomes (got {a.size} and {b.size}). "
                          "Fix: compute both laws on the same candidate range")
    eps = _real(epsilon, "epsilon", allow_zero=True, fix="use epsilon >= 0")
    return float(np.maximum(0.0, a - math.exp(eps) * b).sum())


def selection_delta(p: Any, q: Any, epsilon: float) -> float:
    """Exact delta(epsilon) between two selection laws: max of the hockey stick both ways.

    0 for identical laws, 1 for disjoint ones.  Same inputs and errors as :func:`hockey_stick`.
    """
    return max(hockey_stick(p, q, epsilon), hockey_stick(q, p, epsilon))


def regret_bound(scale: float, epsilon: float, m: float, rho: float) -> float:
    """Eq. (2) [R] of papers/001: ``Pr[gap > (2 scale / epsilon) log(m / rho)] <= rho``.

    The gap is ``max_r' q(x,r') − q(x,R)`` in score units.  scale: > 0 score units;
    epsilon: > 0 nats; m: number of candidates >= 1; rho: failure probability in (0, 1).
    Returns the gap bound (score units).  Proof: each candidate with gap > g has
    probability <= exp(−epsilon g / (2 scale)) (the maximizer's weight is >= its own).
    """
    b = _real(scale, "scale")
    eps = _real(epsilon, "epsilon")
    mm = _real(m, "m", fix="give the number of candidates (>= 1)")
    if mm < 1:
        raise BudgetError(f"m must be >= 1 (got {m!r}). Fix: give the number of candidates")
    r = _prob(rho, "rho", "use a failure probability such as 0.05")
    return 2.0 * b / eps * math.log(mm / r)


def selection_rho(epsilon_sel: float) -> float:
    """zCDP cost of one pure epsilon_sel-DP EM draw: ``epsilon_sel**2 / 8`` (bounded range;
    Cesar & Rogers 2021, Durfee & Rogers 2019).  A generic epsilon-DP mechanism would cost
    epsilon^2/2.  Per-pair argument, so it holds for Blowfish neighbours too."""
    return _real(epsilon_sel, "epsilon_sel", fix="use a positive selection budget") ** 2 / 8.0


def selection_epsilon(rho_sel: float) -> float:
    """Inverse of :func:`selection_rho`: the EM epsilon that costs rho_sel zCDP, ``sqrt(8 rho_sel)``
    (rho_sel = 1e-4 gives 0.0283)."""
    return math.sqrt(8.0 * _real(rho_sel, "rho_sel", fix="use a positive zCDP budget such as 1e-4"))


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
    substitution policy.  Returns the sensitivity in score units.
    Raises BudgetError for an unknown notion/metric or p < 2 (PWErr needs two attributes).
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
    """Scores of the tau choice: ``u_c = −(n/2) · errors_c`` ((K,) float, score units).

    errors: (K,) nonnegative errors (PWErr/HOErr of each released table against D);
    n: records in D (>= 1).  Raises BudgetError for bad input.
    """
    e = _scores(errors, "errors")
    if np.any(e < 0):
        raise BudgetError("errors must be >= 0 (PWErr and HOErr are distances). Fix: pass the metric values")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise BudgetError(f"n must be a whole number >= 1 (got {n!r}). Fix: pass the private table's row count")
    return -0.5 * int(n) * e


def error_regret_bound(n: int, sensitivity: float, epsilon_sel: float, K: int, rho: float) -> float:
    """The tau choice's regret in error units: with probability >= 1 − rho the chosen release's
    error exceeds the best one's by at most ``(2/n) · regret_bound(sensitivity, epsilon_sel, K, rho)``
    (Eq. (2) on u = −(n/2)·error).  Example (design/selection.md B5): Adult's private split,
    n = 26,048, K = 9, rho_sel = 1e-4 (epsilon_sel = 0.0283), rho = 0.05: 0.0282 PWErr under DP,
    0.0113 under the age policy (p = 5, sensitivity 0.4)."""
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

    n: private rows; p: modeled attributes; notion: "dp" or "blowfish" (:func:`score_sensitivity`);
    rho_runs: (K,) zCDP budgets of the K runs (each spends its own); rho_sel: the selection's zCDP
    budget (epsilon_sel = sqrt(8 rho_sel)); rho: regret failure probability.  zCDP budgets add;
    turn rho_total into (epsilon, delta) with Eq. (1) or a PLD, never with the mu-GDP curve (the EM
    row is not Gaussian).  Raises BudgetError for bad input.
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

    index: int
    probabilities: np.ndarray


def select_private(errors: Any, n: int, sensitivity: float, epsilon_sel: float,
                   rng: np.random.Generator) -> Selection:
    """Choose one of K released settings privately: EM on ``u = −(n/2)·errors``.

    errors: (K,) errors of the K releases against the private table; n: its row count;
    sensitivity: the score's global sensitivity (:func:`score_sensitivity`);
    epsilon_sel: selection budget in nats (costs :func:`selection_rho` zCDP);
    rng: numpy Generator.  Returns Selection(index, probabilities (K,)).
    Pure epsilon_sel-DP on top of the K runs (adaptive composition).
    """
    if not isinstance(rng, np.random.Generator):
        raise BudgetError("rng must be a numpy.random.Generator. Fix: pass np.random.default_rng(seed)")
    P = em_probabilities(error_scores(errors, n), sensitivity, epsilon_sel)
    return Selection(int(rng.choice(P.size, p=P)), P)


# ------------------------------------------------------------- dataset graph
@dataclass
class SelectionGraph:
    """A finite dataset graph (X, ∼) with the score vector of every dataset (papers/001 §2).

    names: (V,) labels of the datasets; scores: (V, k) float, score units -- distinct score
    groups; counts: (k,) multiplicities (group g stands for counts[g] candidates with the
    same score on every dataset, so m = counts.sum()); edges: (E, 2) int pairs of neighbours.
    group_labels: (k,) names of the groups.  Raises PolicyError for malformed input.
    """

    names: list[str]
    scores: np.ndarray
    edges: np.ndarray
    counts: np.ndarray | None = None
    group_labels: list[str] | None = None
    _cache: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.scores = np.asarray(self.scores, dtype=float)
        if self.scores.ndim != 2 or self.scores.shape[0] != len(self.names) or self.scores.shape[1] < 1:
            raise PolicyError(f"scores must be (V, k) with V = {len(self.names)} datasets "
                              f"(got shape {self.scores.shape}). Fix: one score row per dataset")
        if not np.all(np.isfinite(self.scores)):
            raise PolicyError("scores must be finite. Fix: replace NaN/inf scores")
        k = self.scores.shape[1]
        self.counts = np.ones(k) if self.counts is None else _counts(self.counts, k)
        e = np.asarray(self.edges, dtype=np.intp).reshape(-1, 2)
        if e.size and (e.min() < 0 or e.max() >= len(self.names) or np.any(e[:, 0] == e[:, 1])):
            raise PolicyError("edges must join two different datasets by index in [0, V). Fix: check the edge list")
        self.edges = e
        if self.group_labels is None:
            self.group_labels = [f"#{g}" for g in range(k)]

    @property
    def m(self) -> float:
        """Number of candidates (sum of the group multiplicities)."""
        return float(self.counts.sum())

    def oscillation(self) -> np.ndarray:
        """ω_q(x, x') = max_r |q(x,r) − q(x',r)| of every edge: (E,) score units."""
        if not self.edges.size:
            return np.zeros(0)
        return np.abs(self.scores[self.edges[:, 0]] - self.scores[self.edges[:, 1]]).max(axis=1)

    def local_sensitivity(self) -> np.ndarray:
        """LS_q(x) = max over neighbours of ω: (V,) (0 for an isolated dataset)."""
        ls = np.zeros(len(self.names))
        w = self.oscillation()
        np.maximum.at(ls, self.edges[:, 0], w)
        np.maximum.at(ls, self.edges[:, 1], w)
        return ls

    def global_sensitivity(self) -> float:
        """GS_q = max over edges of ω (score units)."""
        w = self.oscillation()
        return float(w.max()) if w.size else 0.0

    def ls_sensitivity(self) -> float:
        """GS of LS_q itself, max over edges |LS(x) − LS(x')| (the C of Cor. 5.3)."""
        if not self.edges.size:
            return 0.0
        ls = self.local_sensitivity()
        return float(np.abs(ls[self.edges[:, 0]] - ls[self.edges[:, 1]]).max())

    def distances(self) -> np.ndarray:
        """Shortest-path distances (V, V) (inf between components), scipy csgraph."""
        if "d" not in self._cache:
            V = len(self.names)
            A = sparse.coo_matrix((np.ones(len(self.edges)), (self.edges[:, 0], self.edges[:, 1])), shape=(V, V))
            self._cache["d"] = shortest_path(A.tocsr(), directed=False, unweighted=True)
        return self._cache["d"]

    def smooth_sensitivity(self, beta: float) -> np.ndarray:
        """The minimal beta-smooth upper bound S*(x) = max_z LS(z) e^{−beta d(x,z)}: (V,)."""
        b = _real(beta, "beta", fix="use a positive smoothness such as beta = 0.5")
        with np.errstate(over="ignore"):
            return (self.local_sensitivity()[None, :] * np.exp(-b * self.distances())).max(axis=1)

    def distance_to(self, mask: np.ndarray) -> np.ndarray:
        """d(x, H) for H = {z : mask[z]}: (V,), +inf for an empty or unreachable H (papers/001 §2)."""
        mask = np.asarray(mask, dtype=bool)
        if not mask.any():
            return np.full(len(self.names), np.inf)
        return self.distances()[:, mask].min(axis=1)


# ---------------------------------------------------------------------- laws
@dataclass
class SelectionLaw:
    """The law of one calibration's release on one dataset.

    releases_scale: True when the scale B is part of the release (then the law is over
    (B, index)), False when only the index is released.
    scales: (a,) atoms of B; joint: (a, k) Pr[B = scales[i], group g].
    continuous: None, or (mu, a, floor): B also has the density of Laplace(mu, a) on
    (floor, inf) (the atom at floor carries its lower tail); with it, R given B = b
    follows the Gibbs law of ``scores`` at scale b and ``epsilon_s``.
    scores, counts: (k,) the dataset's score groups (for the continuous part).
    """

    releases_scale: bool
    scales: np.ndarray
    joint: np.ndarray
    scores: np.ndarray
    counts: np.ndarray
    epsilon_s: float
    continuous: tuple[float, float, float] | None = None

    def density(self, b: np.ndarray) -> np.ndarray:
        """Joint density of (B, group) on the continuous part: (len(b), k)."""
        mu, a, _ = self.continuous
        k = stats.laplace.pdf(b, loc=mu, scale=a)
        return k[:, None] * _gibbs_rows(self.scores, self.counts, b, self.epsilon_s)

    def marginal(self) -> np.ndarray:
        """Law of the index alone (k,) (groups' total mass); the continuous part by quadrature."""
        out = self.joint.sum(axis=0)
        if self.continuous is not None:
            b, w = _quadrature_nodes([self.continuous])
            out = out + (w[:, None] * self.density(b)).sum(axis=0)
        return out / out.sum()

    def expected_scale(self) -> float:
        """E[B] (score units)."""
        e = float((self.scales * self.joint.sum(axis=1)).sum())
        if self.continuous is not None:
            b, w = _quadrature_nodes([self.continuous])
            e += float((w * b * stats.laplace.pdf(b, loc=self.continuous[0], scale=self.continuous[1])).sum())
        return e


#: composite Gauss-Legendre for the continuous scale: pieces and points per piece, and the
#: Laplace tail cut (density below e^-TAIL_CUT of its peak is dropped: mass < e^-60).
QUAD_PIECES = 512
QUAD_POINTS = 16
TAIL_CUT = 60.0


def _piece_edges(parts: list[tuple[float, float, float]]) -> np.ndarray:
    """Piece boundaries over [max(floor, min mu − 60a), max mu + 60a], with every mu (the
    Laplace kink) as a boundary."""
    floor = parts[0][2]
    lo = max(floor, min(mu - TAIL_CUT * a for mu, a, _ in parts))
    hi = max(mu + TAIL_CUT * a for mu, a, _ in parts)
    if hi <= lo:
        return np.zeros(0)
    mus = [mu for mu, _, _ in parts if lo < mu < hi]
    return np.unique(np.concatenate([np.linspace(lo, hi, QUAD_PIECES + 1), mus]))


def _gauss(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss-Legendre nodes and weights on the pieces between ``edges``."""
    if edges.size < 2:
        return np.zeros(0), np.zeros(0)
    x, w = np.polynomial.legendre.leggauss(QUAD_POINTS)
    half = np.diff(edges) / 2.0
    mid = (edges[:-1] + edges[1:]) / 2.0
    return (mid[:, None] + half[:, None] * x[None, :]).ravel(), (half[:, None] * w[None, :]).ravel()


def _quadrature_nodes(parts: list[tuple[float, float, float]]) -> tuple[np.ndarray, np.ndarray]:
    return _gauss(_piece_edges(parts))


def _hockey_integral(P: SelectionLaw, Q: SelectionLaw, e: float) -> float:
    """∫ Σ_g max(0, p(b,g) − e q(b,g)) db over the continuous part.  The kinks of max(0, ·)
    (sign changes of each group's difference, located by vectorized bisection between piece
    boundaries to 2^-60 of a piece) become piece boundaries too, so each piece's integrand
    is smooth and 16-point Gauss-Legendre is accurate to rounding."""
    edges = _piece_edges([P.continuous, Q.continuous])
    if edges.size < 2:
        return 0.0

    def diff(b: np.ndarray) -> np.ndarray:
        return P.density(b) - e * Q.density(b)

    H = diff(edges)
    iv, gv = np.nonzero(H[:-1] * H[1:] < 0)
    roots = np.zeros(0)
    if iv.size:
        a, c = edges[iv].copy(), edges[iv + 1].copy()
        sa = np.sign(H[iv, gv])
        rows = np.arange(iv.size)
        for _ in range(60):
            mid = 0.5 * (a + c)
            same = np.sign(diff(mid)[rows, gv]) == sa
            a = np.where(same, mid, a)
            c = np.where(same, c, mid)
        roots = 0.5 * (a + c)
    b, w = _gauss(np.unique(np.concatenate([edges, roots])))
    return float((w[:, None] * np.maximum(0.0, diff(b))).sum())


def _one_way(P: SelectionLaw, Q: SelectionLaw, epsilon: float) -> float:
    e = math.exp(epsilon)
    if not P.releases_scale:
        return float(np.maximum(0.0, P.marginal() - e * Q.marginal()).sum())
    atoms = np.union1d(P.scales, Q.scales)

    def on(law: SelectionLaw) -> np.ndarray:
        J = np.zeros((atoms.size, law.joint.shape[1]))
        J[np.searchsorted(atoms, law.scales)] += law.joint
        return J

    total = float(np.maximum(0.0, on(P) - e * on(Q)).sum())
    if P.continuous is not None or Q.continuous is not None:
        if P.continuous is None or Q.continuous is None or P.continuous[2] != Q.continuous[2]:
            raise PolicyError("both laws need the same continuous scale part (same floor). Fix: same calibration")
        total += _hockey_integral(P, Q, e)
    return total


def law_delta(P: SelectionLaw, Q: SelectionLaw, epsilon: float) -> float:
    """Exact delta(epsilon) between two releases (max over both orders).

    Discrete parts: the hockey stick over (scale atom, group).  A continuous scale
    (shifted Laplace): ``∫ Σ_g max(0, p(b,g) − e^eps q(b,g)) db`` by composite 16-point
    Gauss-Legendre on 512 pieces over the Laplace bulk ±60 scales (the dropped tails
    carry < e^-60 mass, and the integrand is below the density), with the Laplace kinks
    and every sign change of the integrand as piece boundaries (so each piece is smooth);
    checked against scipy.integrate.quad in tests/test_selection.py.
    """
    eps = _real(epsilon, "epsilon", allow_zero=True, fix="use epsilon >= 0")
    if P.releases_scale != Q.releases_scale:
        raise PolicyError("the two laws must come from the same calibration. Fix: compare like with like")
    return max(_one_way(P, Q, eps), _one_way(Q, P, eps))


def _discrete(scales, joint, scores, counts, eps, releases) -> SelectionLaw:
    return SelectionLaw(releases, np.asarray(scales, dtype=float), np.asarray(joint, dtype=float),
                        scores, counts, eps)


def _fixed_scale_law(g: SelectionGraph, v: int, b: float, eps: float, releases: bool) -> SelectionLaw:
    P = em_probabilities(g.scores[v], b, eps, counts=g.counts)
    return _discrete([b], P[None, :], g.scores[v], g.counts, eps, releases)


# ------------------------------------------------------------- calibrations
@runtime_checkable
class Calibration(Protocol):
    """A way of setting the EM's scale.  name: key in :data:`CALIBRATIONS`; private: False
    for the demonstrations (their label contains :data:`NOT_PRIVATE`); releases_scale: the
    scale is part of the release."""

    name: str
    private: bool
    releases_scale: bool

    @property
    def label(self) -> str: ...

    def claim(self) -> tuple[float, float]:
        """The (epsilon, delta) the calibration claims."""

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        """The law of the release on dataset v of the graph."""

    def scale(self, graph: SelectionGraph, v: int) -> float:
        """The scale used on dataset v (its expectation when random)."""

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        """(gap bound in score units, failure probability) on dataset v."""


def _broken_label(text: str) -> str:
    return f"{text} — {NOT_PRIVATE}"


@dataclass
class GlobalScale:
    """``global``: a public scale (e.g. the policy's global sensitivity).  Pure epsilon_s-DP.

    scale: > 0 score units; None = the graph's global sensitivity GS_q (computed from
    the public dataset graph, never from the dataset at hand).
    """

    epsilon_s: float = 1.0
    scale_value: float | None = None
    name: str = "global"
    private: bool = True
    releases_scale: bool = False

    def __post_init__(self) -> None:
        self.epsilon_s = _real(self.epsilon_s, "epsilon_s")
        if self.scale_value is not None:
            self.scale_value = _real(self.scale_value, "scale", fix="use the policy's global sensitivity")

    @property
    def label(self) -> str:
        return "global scale (public sensitivity): pure ε_s-DP"

    def claim(self) -> tuple[float, float]:
        return self.epsilon_s, 0.0

    def scale(self, graph: SelectionGraph, v: int) -> float:
        if self.scale_value is not None:
            return self.scale_value
        gs = graph.global_sensitivity()
        if gs <= 0:
            raise PolicyError("global scale: the graph's GS is 0 (no edge moves a score). Fix: give scale_value > 0")
        return gs

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        return _fixed_scale_law(graph, v, self.scale(graph, v), self.epsilon_s, False)

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        return regret_bound(self.scale(graph, v), self.epsilon_s, graph.m, rho), rho


@dataclass
class LocalScale:
    """``local``: b = max(b0, LS_q(x)) -- Prop. 4.1: NOT private even with identical scores.
    Claims (epsilon_s, 0) by misapplying Lemma 2.3.  For the audit and the Lab only."""

    epsilon_s: float = 1.0
    b0: float = 0.01
    name: str = "local"
    private: bool = False
    releases_scale: bool = False

    def __post_init__(self) -> None:
        self.epsilon_s = _real(self.epsilon_s, "epsilon_s")
        self.b0 = _real(self.b0, "b0", fix="use a small positive floor such as 0.01")

    @property
    def label(self) -> str:
        return _broken_label("local sensitivity b = max(b0, LS(x))")

    def claim(self) -> tuple[float, float]:
        return self.epsilon_s, 0.0

    def scale(self, graph: SelectionGraph, v: int) -> float:
        return max(self.b0, float(graph.local_sensitivity()[v]))

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        return _fixed_scale_law(graph, v, self.scale(graph, v), self.epsilon_s, False)

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        return regret_bound(self.scale(graph, v), self.epsilon_s, graph.m, rho), rho


@dataclass
class SmoothFixed:
    """``smooth_fixed``: Q_x(r) ∝ exp(lam q / S*_beta(x)) with beta, lam fixed independently of
    m -- Thm 4.3: no (epsilon, delta < 1) guarantee over all m.  NOT private.  Equals the EM
    at epsilon = 2 lam and scale S*_beta(x) (floored at b0).  epsilon_claimed: the claim
    shown (default 1, the notes' evaluation point).  For the audit and the Lab only."""

    lam: float = 0.25
    beta: float = 0.5
    epsilon_claimed: float = 1.0
    b0: float = 1e-6
    name: str = "smooth_fixed"
    private: bool = False
    releases_scale: bool = False

    def __post_init__(self) -> None:
        self.lam = _real(self.lam, "lam", fix="use a positive temperature coefficient such as 0.25")
        self.beta = _real(self.beta, "beta", fix="use a positive smoothness such as 0.5")
        self.epsilon_claimed = _real(self.epsilon_claimed, "epsilon_claimed")
        self.b0 = _real(self.b0, "b0")

    @property
    def epsilon_s(self) -> float:
        return 2.0 * self.lam

    @property
    def label(self) -> str:
        return _broken_label(f"smooth sensitivity with fixed β = {self.beta:g}, λ = {self.lam:g}")

    def claim(self) -> tuple[float, float]:
        return self.epsilon_claimed, 0.0

    def scale(self, graph: SelectionGraph, v: int) -> float:
        return max(self.b0, float(graph.smooth_sensitivity(self.beta)[v]))

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        return _fixed_scale_law(graph, v, self.scale(graph, v), self.epsilon_s, False)

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        return regret_bound(self.scale(graph, v), self.epsilon_s, graph.m, rho), rho


@dataclass
class ShiftedLaplace:
    """``shifted_laplace`` (Cor. 5.3): release ``B = max(b0, LS_q(x) + Lap(C/epsilon_t) +
    (C/epsilon_t) log(1/(2 eta)))``, then R ~ Q_x^B; (B, R) is (epsilon_t + epsilon_s, eta)-DP.

    C: >= GS of LS_q (None = the graph's, :meth:`SelectionGraph.ls_sensitivity`, floored at
    1e-12); b0: public floor > 0; eta: the underestimation probability (in delta).
    """

    epsilon_s: float = 1.0
    epsilon_t: float = 1.0
    eta: float = 1e-6
    b0: float = 0.01
    C: float | None = None
    name: str = "shifted_laplace"
    private: bool = True
    releases_scale: bool = True

    def __post_init__(self) -> None:
        self.epsilon_s = _real(self.epsilon_s, "epsilon_s")
        self.epsilon_t = _real(self.epsilon_t, "epsilon_t", fix="use a positive budget for the scale, e.g. 1")
        self.eta = _prob(self.eta, "eta", "use a small probability such as 1e-6")
        self.b0 = _real(self.b0, "b0", fix="use a small positive floor such as 0.01")
        if self.C is not None:
            self.C = _real(self.C, "C", fix="use an upper bound on the global sensitivity of LS")

    @property
    def label(self) -> str:
        return "shifted Laplace upper scale (Cor. 5.3): (ε_t + ε_s, η)"

    def claim(self) -> tuple[float, float]:
        return self.epsilon_t + self.epsilon_s, self.eta

    def c_value(self, graph: SelectionGraph) -> float:
        return self.C if self.C is not None else max(graph.ls_sensitivity(), 1e-12)

    def shift(self, graph: SelectionGraph) -> float:
        """The upward shift (C/epsilon_t) log(1/(2 eta)) (score units)."""
        return self.c_value(graph) / self.epsilon_t * math.log(1.0 / (2.0 * self.eta))

    def sample_scale(self, ls: float, C: float, rng: np.random.Generator) -> float:
        """One draw of B for local sensitivity ls (the mechanism itself)."""
        a = C / self.epsilon_t
        return max(self.b0, ls + rng.laplace(0.0, a) + a * math.log(1.0 / (2.0 * self.eta)))

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        a = self.c_value(graph) / self.epsilon_t
        mu = float(graph.local_sensitivity()[v]) + self.shift(graph)
        atom = float(stats.laplace.cdf(self.b0, loc=mu, scale=a))
        P = em_probabilities(graph.scores[v], self.b0, self.epsilon_s, counts=graph.counts)
        law = _discrete([self.b0], atom * P[None, :], graph.scores[v], graph.counts, self.epsilon_s, True)
        law.continuous = (mu, a, self.b0)
        return law

    def scale(self, graph: SelectionGraph, v: int) -> float:
        return self.law(graph, v).expected_scale()

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        """(7) with xi = rho: B <= max(b0, LS + (C/eps_t)(log(1/(2 eta)) + log(1/(2 rho)))) except
        with probability rho (upper Laplace tail), then Eq. (2): failure <= 2 rho."""
        r = _prob(rho, "rho", "use a failure probability such as 0.05")
        bbar = max(self.b0, float(graph.local_sensitivity()[v]) + self.shift(graph)
                   + self.c_value(graph) / self.epsilon_t * math.log(1.0 / (2.0 * r)))
        return regret_bound(bbar, self.epsilon_s, graph.m, r), 2.0 * r


def ptr_tests(J: int) -> int:
    """Largest number of tests the §6 binary search makes on a grid of J scales (ceil(log2 J))."""
    def depth(lo: int, hi: int) -> int:
        if lo >= hi:
            return 0
        i = (lo + hi) // 2
        return 1 + max(depth(lo, i), depth(i + 1, hi))
    return depth(0, J - 1)


@dataclass
class PTR:
    """``ptr`` (§6): binary search over a public grid b_1 < ... < b_J (b_J >= GS_q, used
    untested) with noisy tests ``phi_i(x) + Lap(s) > tau``; phi_i(x) = min(d(x, H_i), cap),
    H_i = {z : LS_q(z) > b_i} (a 1-Lipschitz lower certificate).  L = :func:`ptr_tests`
    (J) tests of epsilon_t/L each: s = L/epsilon_t [R], tau = s log(L/(2 eta)) [R]; the
    released (B, R) is (epsilon_t + epsilon_s, eta)-DP (Thm 5.2).  grid None = powers of 2
    from the graph's smallest positive LS up to the first >= GS_q.
    """

    epsilon_s: float = 1.0
    epsilon_t: float = 1.0
    eta: float = 1e-6
    grid: tuple[float, ...] | None = None
    cap: float = 64.0
    name: str = "ptr"
    private: bool = True
    releases_scale: bool = True

    def __post_init__(self) -> None:
        self.epsilon_s = _real(self.epsilon_s, "epsilon_s")
        self.epsilon_t = _real(self.epsilon_t, "epsilon_t", fix="use a positive budget for the search, e.g. 1")
        self.eta = _prob(self.eta, "eta", "use a small probability such as 1e-6")
        self.cap = _real(self.cap, "cap", fix="use a public distance cap such as 64")
        if self.grid is not None:
            g = np.asarray(self.grid, dtype=float)
            if g.ndim != 1 or g.size == 0 or not np.all(np.isfinite(g)) or np.any(g <= 0) or np.any(np.diff(g) <= 0):
                raise BudgetError(f"grid must be increasing positive scales (got {self.grid!r}). "
                                  "Fix: e.g. (0.25, 0.5, 1.0) with the last >= the global sensitivity")
            self.grid = tuple(float(x) for x in g)

    @property
    def label(self) -> str:
        return "PTR certificate search (§6): (ε_t + ε_s, η)"

    def claim(self) -> tuple[float, float]:
        return self.epsilon_t + self.epsilon_s, self.eta

    def grid_for(self, graph: SelectionGraph) -> np.ndarray:
        gs = graph.global_sensitivity()
        if self.grid is not None:
            g = np.asarray(self.grid)
            if g[-1] < gs - 1e-12:
                raise PolicyError(f"ptr: the grid's last scale {g[-1]:g} is below the global sensitivity {gs:g}; "
                                  "the untested fallback would not be safe. Fix: end the grid at >= GS")
            return g
        ls = graph.local_sensitivity()
        lo = float(ls[ls > 0].min()) if np.any(ls > 0) else max(gs, 1.0)
        top = max(gs, lo)
        k = max(0, math.ceil(math.log2(top / lo) - 1e-12))
        return lo * 2.0 ** np.arange(k + 1)

    def parameters(self, J: int) -> tuple[int, float, float]:
        """(L, s, tau) for a grid of J scales."""
        L = ptr_tests(J)
        if L == 0:
            return 0, math.inf, math.inf
        s = L / self.epsilon_t
        return L, s, s * math.log(L / (2.0 * self.eta))

    def certificates(self, graph: SelectionGraph, grid: np.ndarray) -> np.ndarray:
        """phi_i(x) = min(d(x, H_i), cap) for every dataset: (V, J)."""
        ls = graph.local_sensitivity()
        return np.column_stack([np.minimum(graph.distance_to(ls > b + 1e-12), self.cap) for b in grid])

    def scale_law(self, phi: np.ndarray, J: int) -> np.ndarray:
        """Exact law of the searched index (J,) from one dataset's certificates phi (J,):
        every path of the binary search tree, test i passing w.p. Pr[Lap(s) > tau − phi_i]."""
        L, s, tau = self.parameters(J)
        out = np.zeros(J)
        if L == 0:
            out[-1] = 1.0
            return out
        pas = stats.laplace.sf(tau - np.asarray(phi, dtype=float), scale=s)

        def walk(lo: int, hi: int, w: float) -> None:
            if lo >= hi:
                out[hi] += w
                return
            i = (lo + hi) // 2
            walk(lo, i, w * pas[i])
            walk(i + 1, hi, w * (1.0 - pas[i]))

        walk(0, J - 1, 1.0)
        return out

    def sample_index(self, phi: np.ndarray, J: int, rng: np.random.Generator) -> int:
        """One run of the search (the mechanism itself): the chosen grid index."""
        _, s, tau = self.parameters(J)
        lo, hi = 0, J - 1
        while lo < hi:
            i = (lo + hi) // 2
            if phi[i] + rng.laplace(0.0, s) > tau:
                hi = i
            else:
                lo = i + 1
        return hi

    def law(self, graph: SelectionGraph, v: int) -> SelectionLaw:
        grid = self.grid_for(graph)
        w = self.scale_law(self.certificates(graph, grid)[v], grid.size)
        rows = _gibbs_rows(graph.scores[v], graph.counts, grid, self.epsilon_s)
        return _discrete(grid, w[:, None] * rows, graph.scores[v], graph.counts, self.epsilon_s, True)

    def scale(self, graph: SelectionGraph, v: int) -> float:
        return self.law(graph, v).expected_scale()

    def regret(self, graph: SelectionGraph, v: int, rho: float) -> tuple[float, float]:
        """(21) with zeta = rho: B <= b_{i+}, i+ the first index with phi_i >= tau + s log(L/(2 rho)),
        except w.p. rho; then Eq. (2): failure <= 2 rho."""
        r = _prob(rho, "rho", "use a failure probability such as 0.05")
        grid = self.grid_for(graph)
        L, s, tau = self.parameters(grid.size)
        i_plus = grid.size - 1
        if L:
            phi = self.certificates(graph, grid)[v]
            ok = np.nonzero(phi >= tau + s * math.log(L / (2.0 * r)))[0]
            if ok.size:
                i_plus = int(ok[0])
        return regret_bound(float(grid[i_plus]), self.epsilon_s, graph.m, r), 2.0 * r


#: the calibrations, one entry each (name -> class).  Broken ones: private = False.
CALIBRATIONS: dict[str, type] = {
    "global": GlobalScale,
    "shifted_laplace": ShiftedLaplace,
    "ptr": PTR,
    "local": LocalScale,
    "smooth_fixed": SmoothFixed,
}
VALID_CALIBRATIONS = ("global", "shifted_laplace", "ptr")
#: broken calibrations -> what is wrong (never use; audit and Lab only).
BROKEN_SELECTION_CALIBRATIONS = {
    "local": "scale = local sensitivity of the dataset at hand (Prop. 4.1)",
    "smooth_fixed": "scale = smooth sensitivity with beta, lambda fixed independently of m (Thm 4.3)",
}


def make_calibration(name: str, **params: Any) -> Calibration:
    """A calibration from :data:`CALIBRATIONS` by name.  Raises BudgetError for an unknown
    name or parameter."""
    if name not in CALIBRATIONS:
        raise BudgetError(f"calibration must be one of {tuple(CALIBRATIONS)} (got {name!r}). "
                          "Fix: use 'global', 'shifted_laplace' or 'ptr'")
    cls = CALIBRATIONS[name]
    fields = {f for f in cls.__dataclass_fields__ if f not in ("name", "private", "releases_scale")}
    bad = sorted(set(params) - fields)
    if bad:
        raise BudgetError(f"calibration '{name}' has no parameter {bad[0]!r}. Fix: use one of {sorted(fields)}")
    return cls(**params)
