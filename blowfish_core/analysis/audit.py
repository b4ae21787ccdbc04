"""Empirical privacy audit of one round of Tab-PE, Hard and BF-Soft.

A release round is the Gaussian mechanism ``M(D) = H(D; C) + N(0, sigma^2 I_m)``
on the vote histogram of a fixed public candidate population C (Algorithm 1,
lines 5-20), with ``sigma = Delta_t / sqrt(2 rho_t)`` (Thm 2.6) and Delta_t from
:func:`blowfish_core.algorithm.methods.calibrate`.  The round claims
``epsilon = epsilon_exact(rho_t, delta)`` (mu-GDP curve, per round).

The audit (Jagielski et al. 2020; Nasr et al. 2021 style):

1. enumerate every record-level edge of a small finite domain (policy edges for
   Hard and BF-Soft; every pair of records, i.e. bounded DP, for Tab-PE) and take
   the edge (x, x') that attains the exact l2 sensitivity ``max ||v(x') - v(x)||_2``
   of the vote for C (:func:`worst_case_edge`);
2. form D = B + {x}, D' = B + {x'} for a fixed background B of records;
3. sample the mechanism many times on both, apply a test statistic (the
   projection onto H(D') - H(D) when both sides have the same sigma -- the
   Neyman-Pearson test for a Gaussian shift; the exact log-likelihood ratio when
   a data-dependent calibration gives the two sides different sigmas);
4. choose the threshold on the first half of the samples, count false
   positives/negatives on the second half (so the threshold is independent of
   the counts), bound the rates with one-sided Clopper-Pearson intervals at level
   1 - alpha/2 each (union bound: the result holds with probability >= 1 - alpha)
   and report ``eps_lb = max(log((1 - delta - FNR_ub) / FPR_ub),
   log((1 - delta - FPR_ub) / FNR_ub))``, clamped at 0.

Sampling: the statistic of a Gaussian mechanism depends on the noise only through
its component along H(D') - H(D) (a scalar normal) and, for unequal sigmas, the
squared norm of the orthogonal rest (a chi-square with m - 1 degrees of freedom).
The ``"scalar"`` sampler draws exactly these, which makes 10^6 samples instant;
the ``"full"`` sampler draws whole noisy histograms (m normals each) and is kept
to validate the shortcut.

Verdict (issue 21).  Two rules; the audit PASSES only when both hold:

* exact: where the pair's exact epsilon is computable -- two Gaussians with one shared
  sigma, whose (epsilon, delta) curve is the Gaussian mechanism's with mu = ||H(D') - H(D)||_2 /
  sigma (Dong, Roth & Su 2019; :func:`pair_epsilon`), or two Laplace products with one scale
  b (pure epsilon ||H(D') - H(D)||_1 / b) -- it must not exceed the claim by more than the
  relative :data:`EXACT_TOLERANCE`.  This needs no sampling, so a calibration that is off by
  any factor on the audited pair fails at any run count;
* empirical: eps_lb <= claimed epsilon (the only rule when the two sides' sigmas differ).

A pass is evidence, not proof: eps_lb is a statistical lower bound for one pair of datasets
and one test, the exact rule covers the audited pair only.  Deliberately broken calibrations
(:data:`BROKEN_CALIBRATIONS`) must FAIL; they are defined here only to show that the audit
has power -- never use them.  ``sensitivity_scale`` S multiplies the engine's own
calibration ('correct') by S, a mutation the audit must catch for S < 1 (S = 0.5: the pair's
exact epsilon is 6.56 against the claim 2.94 at rho_t = 0.25, delta = 1e-5).

Power (of the empirical rule; :func:`detection_power`, :func:`runs_for_power`).  A calibration
off by the factor S = :data:`POWER_SCALE` = 0.5 on a pair that attains its sensitivity has
mu = sqrt(2 rho_t) / S.  At a fixed threshold t of the projection (in sigma units) the
held-out half of n runs per side (N = n - n // 2) counts FP ~ Bin(N, 1 - Phi(t)) and
FN ~ Bin(N, Phi(t - mu)); the audit detects when eps_lb(FP, FN) > claim, and since eps_lb
falls as FN grows, P(detect) = sum_k P(FP = k) P(FN <= f*(k)) exactly, f*(k) the largest FN
that still detects.  At rho_t = 0.25, delta = 1e-5, alpha = 0.05 and BF-Soft's pair
(mu = 1.4124; Tab-PE's and Hard's 1.4142 need fewer) the best threshold needs
n = :data:`POWER_RUNS_95` = 27,425 runs per side for P >= 0.95 (0.84 at 20,000, the old OpenDP
default).  The audit learns its threshold on the first half, which costs power: simulated over
400 seeds, BF-Soft x 0.5 is detected by the empirical rule alone in 86.5% of audits at 27,500
runs, 94% at 41,000 (1.5 times), 98-99% at 50,000-60,000.  So every default run count is at
least :data:`POWER_MARGIN` = 2 times POWER_RUNS_95: 55,000 for the OpenDP audit (the slowest:
its float sampler takes ~0.05 ms per value; its broken controls, off by far more than x 0.5 and
each caught by the empirical rule in 200/200 audits at 2,000 runs, run 10,000), 200,000 for the
whole-histogram and Laplace suites, 2,000,000 for the scalar sampler (2 s).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from ..privacy.accounting import check_delta, check_rho, epsilon_exact, gaussian_sigma
from ..base.errors import BlowfishError, PolicyError, SchemaError
from ..model.edges import iter_edge_blocks, product_contexts
from ..model.policy import AttributePolicy, Policy, ValueEdges, record_reach, value_edges
from ..model.schema import Attribute, Schema
from ..algorithm.methods import calibrate
from ..model.sensitivity import soft_bound
from ..model.votes import check_tau, vote_histogram, vote_vectors
from ..algorithm.methods import BF_SOFT, HARD, TAB_PE, get_method

#: calibrations the audit knows: the engine's own ("correct") and deliberately broken ones.
CALIBRATIONS = ("correct", "soft-small-reach", "hard-zero", "soft-local", "hard-local")
#: broken calibration -> (method it applies to, description)
BROKEN_CALIBRATIONS = {
    "soft-small-reach": (BF_SOFT.name, "BF-Soft bound computed with reach r/10 instead of r"),
    "hard-zero": (HARD.name, "Hard calibrated to 0 although a crossing edge exists"),
    "soft-local": (BF_SOFT.name, "BF-Soft noise from the local sensitivity of the records at hand"),
    "hard-local": (HARD.name, "Hard noise from the local sensitivity of the records at hand"),
}
#: the audit suite: (method, calibration, expected verdict: True = must pass).
AUDIT_CASES = (
    (TAB_PE.name, "correct", True),
    (HARD.name, "correct", True),
    (BF_SOFT.name, "correct", True),
    (BF_SOFT.name, "soft-small-reach", False),
    (HARD.name, "hard-zero", False),
    (BF_SOFT.name, "soft-local", False),
    (HARD.name, "hard-local", False),
)
#: methods the audit covers (its setting has one hard and one soft vote).
AUDITED_METHODS = (TAB_PE.name, HARD.name, BF_SOFT.name)
#: broken Laplace calibration (any method): the scale divided by 4, so the round spends 4 epsilon_t.
LAPLACE_BROKEN = {"quarter-scale": "Laplace scale b_t / 4 (claims epsilon_t, spends 4 epsilon_t)"}
#: the Laplace (pure epsilon) audit suite: (method, calibration, expected verdict).
LAPLACE_AUDIT_CASES = (
    (TAB_PE.name, "correct", True),
    (HARD.name, "correct", True),
    (BF_SOFT.name, "correct", True),
    (HARD.name, "quarter-scale", False),
    (BF_SOFT.name, "quarter-scale", False),
)
#: per-round epsilon of the Laplace audit (claims pure epsilon_t = 1).
LAPLACE_EPSILON_T = 1.0
#: relative slack of the exact rule: the pair's exact epsilon may exceed the claim by this much
#: (root-finding of epsilon_exact and float rounding of sigma; Tab-PE's and Hard's pairs attain
#: their sensitivity, so their exact epsilon equals the claim to about 1e-12).
EXACT_TOLERANCE = 1e-9
#: the mis-calibration the run counts are chosen to detect: the sensitivity times 0.5 ...
POWER_SCALE = 0.5
#: ... with this probability (empirical rule alone), see the module docstring.
POWER_TARGET = 0.95
#: runs per side the empirical rule needs for POWER_TARGET at POWER_SCALE on the default
#: setting (rho_t = 0.25, delta = 1e-5, alpha = 0.05, BF-Soft's pair), best fixed threshold:
#: runs_for_power(scaled_mu(build_pair("bf-soft")), 2.943) (tests/test_audit.py recomputes it).
POWER_RUNS_95 = 27_425
#: default run counts are at least this multiple of POWER_RUNS_95 (the audit learns its threshold
#: on half the runs; simulated power of the learned threshold at 2 x: 0.99).
POWER_MARGIN = 2.0
#: largest enumerated domain (points) for the edge search.
MAX_AUDIT_POINTS = 20_000
_CHUNK = 1 << 16


# --------------------------------------------------------------------- setting
@dataclass
class AuditSetting:
    """A small public setting for the audit.

    schema: finite schema (every attribute enumerable, at most MAX_AUDIT_POINTS records).
    policy: substitution edges only (no participation edges).
    C: (m, p) float64 encoded public candidate population.
    tau: temperature of BF-Soft (> 0).
    background: (n0, p) float64 encoded records shared by D and D'.
    """

    schema: Schema
    policy: Policy
    C: np.ndarray
    tau: float
    background: np.ndarray


def default_setting() -> AuditSetting:
    """The audit's small domain.

    X1 ordinal 0..15, X2 ordinal 0..3 (Gower weights 1/2); policy: X1 one level
    (record-level reach r = 1/30 Gower units); tau = 0.025 (q = tanh(2/3) = 0.583);
    candidates at X1 in {0, 15} x X2 in {0..3} (m = 8), so the protected pair
    (7, 8) sits symmetrically between two candidates -- the configuration in which
    the BF-Soft bound is nearly tight (Prop. 5.6) -- and Hard has a crossing.
    Background: one record on each candidate (far from every decision boundary).
    """
    schema = Schema([
        Attribute("X1", "ordinal", levels=list(range(16))),
        Attribute("X2", "ordinal", levels=list(range(4))),
    ])
    policy = Policy({"X1": AttributePolicy("threshold", theta=1)}).validate(schema)
    C = np.array([[x1 / 15.0, x2 / 3.0] for x1 in (0, 15) for x2 in range(4)], dtype=float)
    return AuditSetting(schema, policy, C, 0.025, C.copy())


# ------------------------------------------------------------------- edges
def domain_points(schema: Schema, max_points: int = MAX_AUDIT_POINTS) -> np.ndarray:
    """Every record of a finite public domain, encoded: float64 (N, p), N = prod |T_i|.

    Row order is mixed radix with the last attribute fastest.  Raises SchemaError
    when an attribute is continuous or N exceeds ``max_points``.
    """
    sizes = []
    for a in schema.attributes:
        if not a.is_finite:
            raise SchemaError(f"audit: attribute '{a.name}' is continuous; the audit needs a finite domain")
        sizes.append(a.size)
    total = math.prod(sizes)
    if total > max_points:
        raise SchemaError(
            f"audit: the domain has {total} records (> {max_points}). Fix: audit a smaller schema"
        )
    lats = [ValueEdges(a.domain_codes(), _NONE, _NONE) for a in schema.attributes]
    return product_contexts(lats, -1, 0, total)[0]


_NONE = np.zeros(0, dtype=np.intp)


def record_level_edges(
    schema: Schema, policy: Policy, complete: bool = False, max_points: int = MAX_AUDIT_POINTS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Record-level neighbour pairs on a finite domain (Def. 2.3; §2.2 "Specifying policies").

    Returns (P (N, p) from :func:`domain_points`, e0 (E,), e1 (E,)) with int indices
    into P.  ``complete=False``: records that agree on all attributes but one and
    differ there by a protected value pair (the policy's substitution edges).
    ``complete=True``: every pair of distinct records (bounded DP, Tab-PE's notion).
    Raises SchemaError for a continuous or too large domain and PolicyError for
    participation edges (the audit covers substitutions only).
    """
    P = domain_points(schema, max_points)
    N = P.shape[0]
    if complete:
        i0, i1 = np.triu_indices(N, 1)
        return P, i0.astype(np.intp), i1.astype(np.intp)
    if policy.participation:
        raise PolicyError("audit: participation edges (u, bottom) are not audited; set participation to false")
    policy.validate(schema)
    lats = [value_edges(a, policy.policy_for(a.name)) for a in schema.attributes]
    sizes = [ve.size for ve in lats]
    strides = np.array([math.prod(sizes[i + 1:]) for i in range(schema.p)], dtype=np.intp)
    e0s, e1s = [], []
    # row of a record in P = its value indices . strides (mixed radix, last attribute fastest)
    for blk in iter_edge_blocks(lats, _CHUNK):
        base = blk.index @ strides
        ve, st = blk.edges, strides[blk.attr]
        e0s.append((base[:, None] + ve.e0[None, :] * st).ravel())
        e1s.append((base[:, None] + ve.e1[None, :] * st).ravel())
    if not e0s:
        z = np.zeros(0, dtype=np.intp)
        return P, z, z.copy()
    return P, np.concatenate(e0s).astype(np.intp), np.concatenate(e1s).astype(np.intp)


@dataclass
class WorstEdge:
    """The neighbour pair attaining the exact l2 sensitivity of the vote for C.

    x, x_prime: (p,) encoded records; shift: ||v(x') - v(x)||_2 (histogram units);
    n_edges: how many record-level edges were checked.
    """

    x: np.ndarray
    x_prime: np.ndarray
    shift: float
    n_edges: int


def _edge_norms(schema, policy, C, vote, tau, complete, ord=2):
    P, e0, e1 = record_level_edges(schema, policy, complete=complete)
    V = vote_vectors(schema, C, P, vote=vote, tau=tau)
    norms = np.linalg.norm(V[e1] - V[e0], ord=ord, axis=1) if e0.size else np.zeros(0)
    return P, e0, e1, norms


def worst_case_edge(
    schema: Schema, policy: Policy, C: np.ndarray, vote: str = "hard", tau: float | None = None,
    complete: bool = False, norm: str = "l2",
) -> WorstEdge:
    """Exact sensitivity of the vote histogram for population C by enumeration.

    C: (m, p) encoded candidates; vote 'hard' or 'soft' (then tau > 0).  Returns the
    first edge (in enumeration order) with the largest ``||v(x') - v(x)||_2``; shift 0
    and x = x' when the edge set is empty.  Raises as :func:`record_level_edges`.
    """
    P, e0, e1, norms = _edge_norms(schema, policy, C, vote, tau, complete, ord=1 if norm == "l1" else 2)
    if norms.size == 0:
        return WorstEdge(P[0].copy(), P[0].copy(), 0.0, 0)
    k = int(np.argmax(norms))
    return WorstEdge(P[e0[k]].copy(), P[e1[k]].copy(), float(norms[k]), int(norms.size))


def _point_index(P: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Row index in P of each row of X (exact match of encoded coordinates)."""
    lookup = {row.tobytes(): i for i, row in enumerate(np.ascontiguousarray(P))}
    try:
        return np.array([lookup[np.ascontiguousarray(r).tobytes()] for r in np.asarray(X, dtype=float)], dtype=np.intp)
    except KeyError:
        raise SchemaError("audit: a background record is not a point of the public domain") from None


# ---------------------------------------------------------------- the pair
@dataclass
class AuditPair:
    """One neighbouring pair and the mechanism run on each side.

    D, D_prime: (n, p) encoded datasets differing in one record.  H, H_prime: (m,)
    vote histograms.  sigma, sigma_prime: noise sd used on D and D' (equal unless the
    calibration depends on the data, which is exactly the bug of the '*-local' cases).
    sensitivity: Delta_t the calibration used on D.  claimed_eps: epsilon_exact(rho_t, delta).
    sensitivity_scale: the factor applied to the engine's calibration (1 unless mutated).
    """

    method: str
    calibration: str
    rho_t: float
    delta: float
    claimed_eps: float
    D: np.ndarray
    D_prime: np.ndarray
    H: np.ndarray
    H_prime: np.ndarray
    sigma: float
    sigma_prime: float
    sensitivity: float
    sensitivity_prime: float
    how: str
    edge: dict[str, Any] = field(default_factory=dict)
    mechanism: str = "gaussian"
    sensitivity_scale: float = 1.0

    @property
    def shift(self) -> float:
        """||H(D') - H(D)|| in the mechanism's norm (l2 Gaussian, l1 Laplace), histogram units."""
        return float(np.linalg.norm(self.H_prime - self.H, ord=1 if self.mechanism == "laplace" else 2))


def check_sensitivity_scale(sensitivity_scale: float) -> float:
    """A sensitivity scale S: finite float > 0 (BlowfishError otherwise)."""
    S = sensitivity_scale
    if isinstance(S, bool) or not isinstance(S, (int, float, np.floating)) or not math.isfinite(float(S)) or S <= 0:
        raise BlowfishError(f"audit: sensitivity_scale must be a finite number > 0 (got {S!r})")
    return float(S)


def _scaled(sens: float, how: str, S: float) -> tuple[float, str]:
    """The engine's sensitivity times S, and its description (unchanged when S = 1)."""
    return (sens, how) if S == 1.0 else (sens * S, f"{how} x {S:g} (sensitivity scale)")


def _check_case(method: str, calibration: str) -> None:
    """BlowfishError unless ``method`` is audited and ``calibration`` is known and applies to it."""
    if method not in AUDITED_METHODS:
        raise BlowfishError(f"audit: unknown method {method!r}; use {', '.join(AUDITED_METHODS[:-1])} or "
                            f"{AUDITED_METHODS[-1]}")
    if calibration not in CALIBRATIONS:
        raise BlowfishError(f"audit: unknown calibration {calibration!r}; use one of {', '.join(CALIBRATIONS)}")
    if calibration != "correct" and BROKEN_CALIBRATIONS[calibration][0] != method:
        raise BlowfishError(
            f"audit: calibration '{calibration}' applies to {BROKEN_CALIBRATIONS[calibration][0]}, not {method}"
        )


def _local_pair(schema: Schema, policy: Policy, C: np.ndarray, B: np.ndarray, vote: str, tau: float | None,
                calibration: str) -> tuple[np.ndarray, np.ndarray, float, float, str, int]:
    """The pair of a '*-local' calibration: the policy edge (x, x') with the largest sigma(D') and,
    among those, the largest sigma(D') / sigma(D).  Returns (x, x', Delta, Delta', how, edges)."""
    P, e0, e1, norms = _edge_norms(schema, policy, C, vote, tau, False)
    if norms.size == 0:
        raise PolicyError("audit: the policy has no record-level edge; nothing to audit")
    ls_point = np.zeros(P.shape[0])
    np.maximum.at(ls_point, e0, norms)
    np.maximum.at(ls_point, e1, norms)
    ls_b = float(ls_point[_point_index(P, B)].max()) if B.shape[0] else 0.0
    # both orientations of every edge: x -> x'
    xs = np.concatenate([e0, e1])
    xps = np.concatenate([e1, e0])
    ls_d = np.maximum(ls_b, ls_point[xs])
    ls_dp = np.maximum(ls_b, ls_point[xps])
    ratio = np.where(ls_d > 0, ls_dp / np.where(ls_d > 0, ls_d, 1.0), np.where(ls_dp > 0, np.inf, 0.0))
    # D' holds a record on a crossing (largest local sensitivity); among those, the
    # D side with the smallest noise (largest ratio).  lexsort: last key is primary.
    k = int(np.lexsort((-ratio, -ls_dp))[0])
    x, xp = P[xs[k]], P[xps[k]]
    sens, sens_p = float(ls_d[k]), float(ls_dp[k])
    how = BROKEN_CALIBRATIONS[calibration][1]
    n_edges = int(norms.size)
    return x, xp, sens, sens_p, how, n_edges


def _engine_pair(schema: Schema, policy: Policy, C: np.ndarray, vote: str, tau: float | None, method: str,
                 calibration: str, S: float, complete: bool) -> tuple[np.ndarray, np.ndarray, float, float, str, int]:
    """The pair of a data-independent calibration: the edge attaining the exact sensitivity
    (:func:`worst_case_edge`; complete: all record pairs, bounded DP), with the engine's Delta_t times S ('correct') or a broken one.
    Returns (x, x', Delta, Delta', how, edges)."""
    we = worst_case_edge(schema, policy, C, vote, tau, complete=complete)
    x, xp, n_edges = we.x, we.x_prime, we.n_edges
    if calibration == "correct":
        cal = calibrate(method, schema, policy, tau, C=C)
        sens, how = _scaled(float(cal.delta), cal.how, S)
    elif calibration == "soft-small-reach":
        sens = soft_bound(record_reach(schema, policy) / 10.0, tau)
        how = BROKEN_CALIBRATIONS[calibration][1]
    else:  # hard-zero
        sens, how = 0.0, BROKEN_CALIBRATIONS[calibration][1]
    sens_p = sens
    return x, xp, sens, sens_p, how, n_edges


def build_pair(
    method: str, setting: AuditSetting | None = None, rho_t: float = 0.25, delta: float = 1e-5,
    calibration: str = "correct", sensitivity_scale: float = 1.0,
) -> AuditPair:
    """Construct the worst-case neighbouring pair and calibrate one round of ``method``.

    method: 'tab-pe', 'hard' or 'bf-soft'.  calibration: 'correct' (the engine's
    :func:`calibrate`) or a broken one from BROKEN_CALIBRATIONS that matches the method.
    For data-independent calibrations the pair is the edge attaining the exact
    sensitivity (:func:`worst_case_edge`; all record pairs for Tab-PE).  For the
    '*-local' calibrations (noise from max ||v(x) - v(x')|| over the dataset's own
    records and their policy neighbours) it is the policy edge (x, x') that
    has the largest sigma(D') (x' next to a crossing) and, among those, the largest
    sigma(D') / sigma(D) (x as far from a boundary as a policy edge allows).
    sensitivity_scale S (> 0): the 'correct' calibration's Delta_t is multiplied by S (a
    deliberate mutation: S < 1 under-noises; the broken calibrations ignore S).
    Raises BlowfishError for an unknown method/calibration pair or a bad S, BudgetError for
    bad rho_t/delta/tau.
    """
    S = check_sensitivity_scale(sensitivity_scale)
    s = setting or default_setting()
    rho_t = check_rho(rho_t, name="rho_t")
    delta = check_delta(delta)
    _check_case(method, calibration)
    schema, policy, C = s.schema, s.policy, np.asarray(s.C, dtype=float)
    meth = get_method(method)
    vote = meth.make_vote(s.tau if meth.needs_tau else None).name
    tau = check_tau(s.tau) if meth.needs_tau else None
    claimed = epsilon_exact(rho_t, delta)
    B = np.asarray(s.background, dtype=float).reshape(-1, schema.p)

    if calibration in ("soft-local", "hard-local"):
        x, xp, sens, sens_p, how, n_edges = _local_pair(schema, policy, C, B, vote, tau, calibration)
    else:
        x, xp, sens, sens_p, how, n_edges = _engine_pair(schema, policy, C, vote, tau, method, calibration, S,
                                                         complete=(meth.notion == "standard"))
    D = np.vstack([B, x[None, :]])
    Dp = np.vstack([B, xp[None, :]])
    H = vote_histogram(schema, C, D, vote=vote, tau=tau)
    Hp = vote_histogram(schema, C, Dp, vote=vote, tau=tau)
    sig, sig_p = gaussian_sigma(sens, rho_t), gaussian_sigma(sens_p, rho_t)
    dec = schema.decode(np.vstack([x, xp]))
    plain = [{k: (v.item() if isinstance(v, np.generic) else v) for k, v in dec.iloc[i].items()} for i in (0, 1)]
    edge = {"x": plain[0], "x_prime": plain[1], "edges_checked": n_edges,
            "neighbours": "all record pairs (bounded DP)" if meth.notion == "standard" else "policy edges"}
    return AuditPair(method, calibration, rho_t, delta, claimed, D, Dp, H, Hp, sig, sig_p, sens, sens_p, how, edge,
                     sensitivity_scale=S if calibration == "correct" else 1.0)


# ------------------------------------------------------------- statistics
def clopper_pearson_upper(k: np.ndarray | int, n: int, confidence: float) -> np.ndarray:
    """One-sided Clopper-Pearson upper bound on a binomial rate: k successes of n trials.

    Returns float64 (same shape as k): beta.ppf(confidence, k + 1, n - k), and 1 when k = n.
    """
    k = np.asarray(k, dtype=float)
    out = np.ones_like(k)
    m = k < n
    out[m] = stats.beta.ppf(confidence, k[m] + 1.0, n - k[m])
    return out


def epsilon_lower_bound(fp: np.ndarray | int, n0: int, fn: np.ndarray | int, n1: int,
                        delta: float, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Statistical lower bound on epsilon from a test's error counts (Jagielski et al. 2020).

    fp: false positives among n0 runs on D; fn: false negatives among n1 runs on D'.
    Each rate is bounded by a one-sided Clopper-Pearson bound at level 1 - alpha/2
    (together: probability >= 1 - alpha).  Returns (eps_lb, fpr_ub, fnr_ub), eps_lb
    = max(log((1 - delta - FNR_ub) / FPR_ub), log((1 - delta - FPR_ub) / FNR_ub), 0).
    """
    fpr_ub = clopper_pearson_upper(fp, n0, 1.0 - alpha / 2.0)
    fnr_ub = clopper_pearson_upper(fn, n1, 1.0 - alpha / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = 1.0 - delta - fnr_ub
        b = 1.0 - delta - fpr_ub
        e1 = np.where(a > 0, np.log(np.where(a > 0, a, 1.0) / fpr_ub), -np.inf)
        e2 = np.where(b > 0, np.log(np.where(b > 0, b, 1.0) / fnr_ub), -np.inf)
    return np.maximum(np.maximum(e1, e2), 0.0), fpr_ub, fnr_ub


# ---------------------------------------------------------------- power
def _power_at(mu: float, claimed_eps: float, N: int, delta: float, alpha: float, t: float) -> float:
    """P(log((1 - delta - FNR_ub) / FPR_ub) > claimed_eps) at threshold t, N held-out runs per side."""
    c = 1.0 - alpha / 2.0
    p0, p1 = float(stats.norm.sf(t)), float(stats.norm.cdf(t - mu))
    lo, hi = (int(v) for v in stats.binom.ppf([1e-12, 1.0 - 1e-12], N, p0))
    ks = np.arange(max(lo - 1, 0), min(hi + 1, N) + 1)
    x = 1.0 - delta - math.exp(claimed_eps) * clopper_pearson_upper(ks, N, c)
    # FNR_ub(f) < x  <=>  P(Bin(N, x) <= f) < 1 - c: the largest such f is ppf(1 - c) - 1
    f_star = np.full(ks.shape, -1.0)
    ok = x > 0
    f_star[ok] = stats.binom.ppf(1.0 - c, N, x[ok]) - 1.0
    return float(np.sum(stats.binom.pmf(ks, N, p0) * stats.binom.cdf(f_star, N, p1)))


def detection_power(mu: float, claimed_eps: float, n_samples: int, delta: float = 1e-5, alpha: float = 0.05,
                    threshold: float | None = None) -> tuple[float, float]:
    """Power of the empirical rule against a Gaussian pair whose true shift is mu sigma.

    The projection statistic is N(0, 1) on D and N(mu, 1) on D' (sigma units); the held-out
    half has N = n_samples - n_samples // 2 runs per side; at threshold t the false positives are
    Bin(N, 1 - Phi(t)) and the false negatives Bin(N, Phi(t - mu)).  Returns (power, t): the
    exact probability that eps_lb's first form log((1 - delta - FNR_ub) / FPR_ub) (Clopper-Pearson
    at 1 - alpha / 2 each) exceeds claimed_eps -- a lower bound on the power at t, since eps_lb
    takes the larger of two forms -- at ``threshold``, or at the best t of a grid when None.
    The audit learns its t on the other half, so its power is a little lower (module docstring).
    Raises BlowfishError for mu <= 0 or n_samples < 100.
    """
    if not (math.isfinite(mu) and mu > 0):
        raise BlowfishError(f"audit: mu must be a finite number > 0 (got {mu!r})")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 100:
        raise BlowfishError(f"audit: n_samples must be a whole number >= 100 (got {n_samples!r})")
    N = int(n_samples) - int(n_samples) // 2
    if threshold is not None:
        return _power_at(mu, claimed_eps, N, delta, alpha, float(threshold)), float(threshold)
    coarse = np.linspace(0.0, mu + 8.0, 65)
    pw = [_power_at(mu, claimed_eps, N, delta, alpha, t) for t in coarse]
    i = int(np.argmax(pw))
    step = coarse[1] - coarse[0]
    fine = np.linspace(coarse[i] - step, coarse[i] + step, 21)
    pf = [_power_at(mu, claimed_eps, N, delta, alpha, t) for t in fine]
    j = int(np.argmax(pf))
    return (pf[j], float(fine[j])) if pf[j] >= pw[i] else (pw[i], float(coarse[i]))


def runs_for_power(mu: float, claimed_eps: float, delta: float = 1e-5, alpha: float = 0.05,
                   power: float = POWER_TARGET, max_runs: int = 10**9) -> int:
    """Smallest run count per side (to 0.1%) at which :func:`detection_power` reaches ``power``.

    Doubling from 200, then bisection.  Raises BlowfishError when even ``max_runs`` falls short
    (mu too small for the claim: the pair is not distinguishable enough at any budget near it).
    """
    if not 0 < power < 1:
        raise BlowfishError(f"audit: power must be in (0, 1) (got {power!r})")
    lo, hi = 100, 200
    while detection_power(mu, claimed_eps, hi, delta, alpha)[0] < power:
        lo, hi = hi, 2 * hi
        if hi > max_runs:
            raise BlowfishError(f"audit: power {power:g} needs more than {max_runs:,} runs per side (mu = {mu:g})")
    while hi - lo > max(2, lo // 1000):
        mid = (lo + hi) // 2
        if detection_power(mu, claimed_eps, mid, delta, alpha)[0] >= power:
            hi = mid
        else:
            lo = mid
    return int(hi)


def scaled_mu(pair: AuditPair, sensitivity_scale: float = POWER_SCALE) -> float:
    """mu = shift / sigma of ``pair`` had its calibration been scaled by S (sigma times S): the
    alternative :func:`detection_power` is evaluated at.  Requires equal sigmas > 0."""
    if pair.sigma != pair.sigma_prime or pair.sigma <= 0:
        raise BlowfishError("audit: scaled_mu needs a pair with one shared sigma > 0")
    return pair.shift / (pair.sigma * check_sensitivity_scale(sensitivity_scale))


def _statistic_kind(pair: AuditPair) -> str:
    if pair.mechanism == "laplace":
        return "laplace-likelihood-ratio"
    return "projection" if pair.sigma == pair.sigma_prime else "likelihood-ratio"


def sample_statistic(pair: AuditPair, n: int, rng: np.random.Generator, sampler: str = "scalar") -> tuple[np.ndarray, np.ndarray]:
    """Test statistic T of n mechanism runs on D and on D': two float64 (n,) arrays.

    Larger T points to D'.  Equal sigmas: T = <y - H(D), u>, u the unit vector along
    H(D') - H(D) (any fixed axis when they coincide).  Unequal sigmas (both > 0):
    T = ||y - H||^2 / sigma^2 - ||y - H'||^2 / sigma'^2 (monotone in the likelihood
    ratio); sigma = 0 < sigma': T = ||y - H||^2; sigma' = 0 < sigma: T = -||y - H'||^2.
    sampler 'scalar' draws the projection (and the chi-square rest) directly; 'full'
    draws whole noisy histograms in chunks.  Both give the same distribution exactly.
    """
    if sampler not in ("scalar", "full"):
        raise BlowfishError(f"audit: sampler must be 'scalar' or 'full' (got {sampler!r})")
    if pair.mechanism == "laplace":
        return _laplace_statistic(pair, n, rng)
    H, Hp = pair.H, pair.H_prime
    m = H.size
    d = pair.shift
    s, sp = pair.sigma, pair.sigma_prime

    def stat(y: np.ndarray) -> np.ndarray:  # y: (k, m) noisy histograms
        return pair_statistic(pair, y)

    if sampler == "full":
        out = []
        for center, sd in ((H, s), (Hp, sp)):
            parts = []
            for start in range(0, n, _CHUNK):
                k = min(_CHUNK, n - start)
                parts.append(stat(center + sd * rng.standard_normal((k, m))))
            out.append(np.concatenate(parts) if parts else np.zeros(0))
        return out[0], out[1]

    # scalar shortcut: z1 = <z, u> ~ N(0, 1), Q = ||z - z1 u||^2 ~ chi2(m - 1)
    z0, z1 = rng.standard_normal(n), rng.standard_normal(n)
    if s == sp:
        return s * z0, d + s * z1
    q0 = rng.chisquare(m - 1, n) if m > 1 else np.zeros(n)
    q1 = rng.chisquare(m - 1, n) if m > 1 else np.zeros(n)
    a2_0 = s**2 * (z0**2 + q0)                  # ||y - H||^2 on D
    b2_0 = (s * z0 - d) ** 2 + s**2 * q0        # ||y - H'||^2 on D
    b2_1 = sp**2 * (z1**2 + q1)                 # ||y - H'||^2 on D'
    a2_1 = (sp * z1 + d) ** 2 + sp**2 * q1      # ||y - H||^2 on D'
    if s == 0:
        return a2_0, a2_1
    if sp == 0:
        return -b2_0, -b2_1
    return a2_0 / s**2 - b2_0 / sp**2, a2_1 / s**2 - b2_1 / sp**2


def _laplace_statistic(pair: AuditPair, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Laplace rounds: T = (||y - H||_1 - ||y - H'||_1) / b (the log-likelihood ratio, equal
    scales), y = H + b Lap(0, 1)^m on D and H' + b Lap(0, 1)^m on D', whole histograms drawn."""
    H, Hp, b = pair.H, pair.H_prime, pair.sigma
    unit = b if b > 0 else 1.0
    out = []
    for center in (H, Hp):
        parts = []
        for start in range(0, n, _CHUNK):
            k = min(_CHUNK, n - start)
            y = center + b * rng.laplace(0.0, 1.0, (k, H.size))
            t = (np.abs(y - H).sum(axis=1) - np.abs(y - Hp).sum(axis=1)) / unit
            # in likelihood-ratio units, rounded to 1e-9: removes floating-point jitter of the
            # atom at ||H' - H||_1 / b (else the test finds rounding artefacts of y, the
            # floating-point leak of textbook samplers, not the mechanism's privacy loss)
            parts.append(np.round(t, 9))
        out.append(np.concatenate(parts) if parts else np.zeros(0))
    return out[0], out[1]


def build_laplace_pair(method: str, setting: AuditSetting | None = None, epsilon_t: float = LAPLACE_EPSILON_T,
                       calibration: str = "correct", sensitivity_scale: float = 1.0) -> AuditPair:
    """One Laplace round of ``method`` on the l1-worst neighbouring pair (pure epsilon_t-DP claimed).

    calibration: 'correct' (the engine's l1 calibration, b = Delta1 / epsilon_t,
    mechanisms.laplace; Delta1 times ``sensitivity_scale`` S > 0) or 'quarter-scale'
    (broken: b / 4).  delta of the pair is 0.  Raises BlowfishError for an unknown
    method/calibration or a bad S, BudgetError for a bad epsilon_t.
    """
    from ..privacy.accounting import check_epsilon
    from ..privacy.mechanisms import get_mechanism

    S = check_sensitivity_scale(sensitivity_scale)
    s = setting or default_setting()
    eps = check_epsilon(epsilon_t, name="epsilon_t")
    if method not in AUDITED_METHODS:
        raise BlowfishError(f"audit: unknown method {method!r}; use {', '.join(AUDITED_METHODS)}")
    if calibration != "correct" and calibration not in LAPLACE_BROKEN:
        raise BlowfishError(f"audit: unknown Laplace calibration {calibration!r}; use correct or "
                            f"{', '.join(LAPLACE_BROKEN)}")
    meth = get_method(method)
    vote = meth.make_vote(s.tau if meth.needs_tau else None)
    tau = vote.tau
    schema, policy, C = s.schema, s.policy, np.asarray(s.C, dtype=float)
    we = worst_case_edge(schema, policy, C, vote.name, tau, complete=(meth.notion == "standard"), norm="l1")
    cal = calibrate(method, schema, policy, tau, C=C, norm="l1")
    lap = get_mechanism("laplace")
    sens, how = float(cal.delta), cal.how
    if calibration == "correct":
        sens, how = _scaled(sens, how, S)
    b = lap.scale(sens, eps)
    if calibration != "correct":
        b, how = b / 4.0, LAPLACE_BROKEN[calibration]
    B = np.asarray(s.background, dtype=float).reshape(-1, schema.p)
    D, Dp = np.vstack([B, we.x[None, :]]), np.vstack([B, we.x_prime[None, :]])
    H = vote_histogram(schema, C, D, vote=vote)
    Hp = vote_histogram(schema, C, Dp, vote=vote)
    edge = {"edges_checked": we.n_edges,
            "neighbours": "all record pairs (bounded DP)" if meth.notion == "standard" else "policy edges"}
    return AuditPair(method, calibration, 0.0, 0.0, eps, D, Dp, H, Hp, b, b, sens, sens, how, edge,
                     mechanism="laplace", sensitivity_scale=S if calibration == "correct" else 1.0)



def pair_statistic(pair: AuditPair, y: np.ndarray) -> np.ndarray:
    """The audit's test statistic of noisy histograms y: (k, m) -> (k,).  Equal noise on both
    sides: the projection on the direction H -> H' (the likelihood ratio is monotone in it);
    else the Gaussian log-likelihood ratio up to constants (one side noise-free: its distance)."""
    H, Hp, s, sp = pair.H, pair.H_prime, pair.sigma, pair.sigma_prime
    if s == sp:
        d = pair.shift
        u = (Hp - H) / d if d > 0 else np.eye(H.size)[0]
        return (y - H) @ u
    a2 = ((y - H) ** 2).sum(axis=1)
    b2 = ((y - Hp) ** 2).sum(axis=1)
    if s == 0:
        return a2
    if sp == 0:
        return -b2
    return a2 / s**2 - b2 / sp**2

def _candidate_thresholds(t0: np.ndarray, t1: np.ndarray, grid: int = 200) -> np.ndarray:
    """Thresholds at the tails of both samples (geometric quantile levels) and their extremes."""
    n = max(t0.size, t1.size, 2)
    g = np.geomspace(1.0 / n, 0.5, grid)
    qs = np.concatenate([np.quantile(t0, 1.0 - g), np.quantile(t1, g),
                         [t0.min(), t0.max(), t1.min(), t1.max()]])
    return np.unique(qs)


def _counts(t0_sorted: np.ndarray, t1_sorted: np.ndarray, thr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Test 'guess D' iff T > thr': false positives on D, false negatives on D'."""
    fp = t0_sorted.size - np.searchsorted(t0_sorted, thr, side="right")
    fn = np.searchsorted(t1_sorted, thr, side="right")
    return fp, fn


def split_half_bound(t0: np.ndarray, t1: np.ndarray, delta: float, alpha: float,
                     thresholds=None) -> tuple[float, float, float, float, float, float]:
    """The threshold test of one audit: choose the threshold on the first halves of the
    statistics, bound epsilon on the held-out second halves (Clopper-Pearson at ``alpha``).

    t0, t1: (runs,) float statistics on D and D'.  thresholds: ``f(s0, s1) -> (k,)`` candidate
    thresholds from the sorted first halves (default :func:`_candidate_thresholds`).  Returns (threshold, eps_lb, fpr, fnr,
    fpr_ub, fnr_ub) of the held-out halves.  Used by every audit (Gaussian/Laplace, OpenDP, PubMix).
    """
    h = t0.size // 2
    s0, s1 = np.sort(t0[:h]), np.sort(t1[:h])
    e0, e1 = np.sort(t0[h:]), np.sort(t1[h:])
    thr = _candidate_thresholds(s0, s1) if thresholds is None else thresholds(s0, s1)
    fp, fn = _counts(s0, s1, thr)
    sel, _, _ = epsilon_lower_bound(fp, s0.size, fn, s1.size, delta, alpha)
    best = float(thr[int(np.argmax(sel))])
    fp_e, fn_e = _counts(e0, e1, np.array([best]))
    eps, fpr_ub, fnr_ub = epsilon_lower_bound(fp_e, e0.size, fn_e, e1.size, delta, alpha)
    return (best, float(eps[0]), float(fp_e[0] / e0.size), float(fn_e[0] / e1.size),
            float(fpr_ub[0]), float(fnr_ub[0]))


@dataclass
class AuditResult:
    """Outcome of one audit.

    eps_lb: lower bound on epsilon at ``delta`` holding with probability >= 1 - alpha.
    fpr, fnr: empirical error rates on the evaluation half (n_samples - n_samples // 2 runs
    per side) at ``threshold``; fpr_ub, fnr_ub their Clopper-Pearson upper bounds.
    eps_pair: the exact epsilon at delta of this pair's two Gaussians when their sigmas are
    equal (mu = shift / sigma; pure epsilon shift / b for Laplace), else None.
    passed_empirical: eps_lb <= claimed_eps.  passed_exact: eps_pair <= claimed_eps (1 +
    EXACT_TOLERANCE), None when eps_pair is None.  passed: both (passed_exact None counts as
    held).  sensitivity_scale: the factor on the engine's calibration (1 unless mutated).
    """

    method: str
    claimed_eps: float
    eps_lb: float
    n_samples: int
    threshold: float
    fpr: float
    fnr: float
    passed: bool
    calibration: str = "correct"
    rho_t: float = 0.0
    delta: float = 0.0
    alpha: float = 0.05
    fpr_ub: float = 1.0
    fnr_ub: float = 1.0
    sensitivity: float = 0.0
    sensitivity_prime: float = 0.0
    sigma: float = 0.0
    sigma_prime: float = 0.0
    shift: float = 0.0
    eps_pair: float | None = None
    statistic: str = "projection"
    sampler: str = "scalar"
    how: str = ""
    edge: dict[str, Any] = field(default_factory=dict)
    passed_empirical: bool = True
    passed_exact: bool | None = None
    sensitivity_scale: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @property
    def failed_rules(self) -> tuple[str, ...]:
        """The rules this result fails: a subset of ('exact', 'empirical'), empty when it passes."""
        return tuple(name for name, ok in (("exact", self.passed_exact), ("empirical", self.passed_empirical))
                     if ok is False)


def exact_verdict(eps_pair: float | None, claimed_eps: float) -> bool | None:
    """The exact rule: eps_pair <= claimed_eps (1 + EXACT_TOLERANCE); None when eps_pair is None
    (no closed form: the two sides' sigmas differ).  inf (sigma 0 < shift) fails."""
    if eps_pair is None:
        return None
    return bool(eps_pair <= claimed_eps * (1.0 + EXACT_TOLERANCE))


def audit_result(pair: AuditPair, n_samples: int, alpha: float, sampler: str,
                 split: tuple[float, float, float, float, float, float]) -> AuditResult:
    """The AuditResult of ``pair`` from :func:`split_half_bound`'s output (threshold, eps_lb,
    fpr, fnr, fpr_ub, fnr_ub): both rules applied (see the module docstring)."""
    best, eps_lb, fpr, fnr, fpr_ub, fnr_ub = split
    eps_pair = pair_epsilon(pair)
    empirical = bool(eps_lb <= pair.claimed_eps)
    exact = exact_verdict(eps_pair, pair.claimed_eps)
    return AuditResult(
        method=pair.method, claimed_eps=float(pair.claimed_eps), eps_lb=eps_lb, n_samples=int(n_samples),
        threshold=best, fpr=fpr, fnr=fnr, passed=empirical and exact is not False,
        calibration=pair.calibration, rho_t=pair.rho_t, delta=pair.delta, alpha=alpha, fpr_ub=fpr_ub,
        fnr_ub=fnr_ub, sensitivity=pair.sensitivity, sensitivity_prime=pair.sensitivity_prime, sigma=pair.sigma,
        sigma_prime=pair.sigma_prime, shift=pair.shift, eps_pair=eps_pair, statistic=_statistic_kind(pair),
        sampler=sampler, how=pair.how, edge=pair.edge, passed_empirical=empirical, passed_exact=exact,
        sensitivity_scale=pair.sensitivity_scale,
    )


def pair_epsilon(pair: AuditPair) -> float | None:
    """Exact epsilon at pair.delta of N(H, s^2 I) vs N(H', s^2 I): mu-GDP with mu = shift / s.

    None when the two sigmas differ; inf when s = 0 < shift; 0 when shift = 0.
    """
    if pair.sigma != pair.sigma_prime:
        return None
    if pair.mechanism == "laplace":  # pure epsilon of Lap(b) with l1 shift d: d / b
        d = pair.shift
        return 0.0 if d == 0 else (math.inf if pair.sigma == 0 else d / pair.sigma)
    d = pair.shift
    if d == 0:
        return 0.0
    if pair.sigma == 0:
        return math.inf
    mu = d / pair.sigma
    return epsilon_exact(mu * mu / 2.0, pair.delta)


def audit_pair(pair: AuditPair, n_samples: int = 200_000, seed: int = 0, alpha: float = 0.05,
               sampler: str = "scalar") -> AuditResult:
    """Run the threshold audit on one pair (see module docstring).

    n_samples: mechanism runs per dataset (>= 100); the first half chooses the
    threshold (largest Clopper-Pearson eps bound on that half), the second half is
    counted.  The verdict applies the exact and the empirical rule (:func:`audit_result`).
    Raises BlowfishError for bad n_samples/alpha/sampler.
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 100:
        raise BlowfishError(f"audit: n_samples must be a whole number >= 100 (got {n_samples!r})")
    if not 0 < alpha < 1:
        raise BlowfishError(f"audit: alpha must be in (0, 1) (got {alpha!r})")
    rng = np.random.default_rng(np.random.SeedSequence(
        [int(seed), zlib.crc32(f"{pair.method}/{pair.calibration}".encode())]))
    t0, t1 = sample_statistic(pair, int(n_samples), rng, sampler)
    return audit_result(pair, n_samples, alpha, sampler, split_half_bound(t0, t1, pair.delta, alpha))


def audit(method: str, calibration: str = "correct", setting: AuditSetting | None = None,
          rho_t: float = 0.25, delta: float = 1e-5, n_samples: int = 200_000, seed: int = 0,
          alpha: float = 0.05, sampler: str = "scalar", sensitivity_scale: float = 1.0) -> AuditResult:
    """Audit one round of ``method`` under ``calibration`` (see :func:`build_pair`, :func:`audit_pair`).

    Default budget rho_t = 0.25 at delta = 1e-5 claims epsilon = 2.94.  sensitivity_scale
    multiplies the engine's calibration (the 'correct' case).
    """
    pair = build_pair(method, setting, rho_t=rho_t, delta=delta, calibration=calibration,
                      sensitivity_scale=sensitivity_scale)
    return audit_pair(pair, n_samples=n_samples, seed=seed, alpha=alpha, sampler=sampler)


def select_cases(cases: tuple, methods: str | tuple[str, ...] | None = None) -> list[tuple[str, str, bool]]:
    """The (method, calibration, expected) cases of ``cases`` whose method is in ``methods``
    (a name, a tuple of names, or None / 'all' for every case).  BlowfishError for an unknown name."""
    if methods is None or methods == "all":
        return list(cases)
    names = (methods,) if isinstance(methods, str) else tuple(methods)
    bad = [m for m in names if m not in AUDITED_METHODS]
    if bad:
        raise BlowfishError(f"audit: unknown method {bad[0]!r}; use {', '.join(AUDITED_METHODS)} or all")
    return [c for c in cases if c[0] in names]


def run_audit_suite(n_samples: int = 200_000, seed: int = 0, rho_t: float = 0.25, delta: float = 1e-5,
                    alpha: float = 0.05, sampler: str = "scalar", setting: AuditSetting | None = None,
                    sensitivity_scale: float = 1.0, methods: str | tuple[str, ...] | None = None,
                    ) -> list[tuple[AuditResult, bool]]:
    """The cases of AUDIT_CASES for ``methods`` (:func:`select_cases`): list of (result, expected_pass).

    sensitivity_scale multiplies the engine's calibration; its cases still expect PASS (the
    engine must pass), so a scale that breaks privacy shows as an unexpected FAIL.
    """
    s = setting or default_setting()
    return [(audit(m, c, s, rho_t, delta, n_samples, seed, alpha, sampler, sensitivity_scale), exp)
            for m, c, exp in select_cases(AUDIT_CASES, methods)]


def run_laplace_audit_suite(n_samples: int = 200_000, seed: int = 0, epsilon_t: float = LAPLACE_EPSILON_T,
                            alpha: float = 0.05, setting: AuditSetting | None = None,
                            sensitivity_scale: float = 1.0, methods: str | tuple[str, ...] | None = None,
                            ) -> list[tuple[AuditResult, bool]]:
    """The cases of LAPLACE_AUDIT_CASES for ``methods`` (pure epsilon_t claimed, delta 0): list of
    (result, expected_pass); sensitivity_scale as in :func:`run_audit_suite`."""
    s = setting or default_setting()
    return [(audit_pair(build_laplace_pair(m, s, epsilon_t, c, sensitivity_scale), n_samples=n_samples,
                        seed=seed, alpha=alpha, sampler="full"), exp)
            for m, c, exp in select_cases(LAPLACE_AUDIT_CASES, methods)]


def suite_verdict(results: list[tuple[AuditResult, bool]]) -> tuple[bool, list[str]]:
    """(all as expected, problems): a problem line for every engine case ('correct') that fails
    (the engine's calibration does not hold its claim) and every broken case that passes (the
    audit lacks power)."""
    problems = []
    for r, expected in results:
        if r.passed is expected:
            continue
        suite = "laplace" if r.statistic.startswith("laplace") else r.sampler
        label = f"{r.method} {r.calibration} [{suite}]" + (f" (sensitivity x {r.sensitivity_scale:g})"
                                                           if r.sensitivity_scale != 1.0 else "")
        if expected:
            problems.append(f"FAIL {label}: " + " and ".join(
                {"exact": f"exact pair epsilon {r.eps_pair:.3f} > claimed {r.claimed_eps:.3f}",
                 "empirical": f"eps_lb {r.eps_lb:.3f} > claimed {r.claimed_eps:.3f}"}[k] for k in r.failed_rules))
        else:
            problems.append(f"UNEXPECTED PASS {label}: a broken calibration was not detected (audit power)")
    return not problems, problems


def audit_table(results: list[tuple[AuditResult, bool]]) -> str:
    """Plain-text table: method, calibration, claimed eps, eps lower bound, pair eps, verdict
    (with the failed rules: exact, empirical)."""
    head = "Delta_t (D/D')"
    lines = [f"{'method':<8} {'calibration':<17} {head:>15} {'claimed eps':>11} {'eps_lb':>8} "
             f"{'pair eps':>9} {'FPR':>9} {'FNR':>9}  verdict (expected)"]
    for r, exp in results:
        pe = "-" if r.eps_pair is None else ("inf" if math.isinf(r.eps_pair) else f"{r.eps_pair:.3f}")
        verdict = "PASS" if r.passed else f"FAIL [{'+'.join(r.failed_rules)}]"
        sens = (f"{r.sensitivity:.4f}" if r.sensitivity == r.sensitivity_prime
                else f"{r.sensitivity:.4f}/{r.sensitivity_prime:.4f}")
        ok = "ok" if r.passed == exp else "UNEXPECTED"
        lines.append(
            f"{r.method:<8} {r.calibration:<17} {sens:>15} {r.claimed_eps:>11.3f} {r.eps_lb:>8.3f} "
            f"{pe:>9} {r.fpr:>9.2e} {r.fnr:>9.2e}  {verdict} ({'pass' if exp else 'fail'}; {ok})"
        )
    return "\n".join(lines)
