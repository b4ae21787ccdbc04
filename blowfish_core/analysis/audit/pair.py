"""The audited neighbouring pair: datasets D, D', their vote histograms and the calibrated noise on
each side (Gaussian :func:`build_pair`, Laplace :func:`build_laplace_pair`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ...algorithm.methods import calibrate, get_method
from ...base.constants import DEFAULT_DELTA
from ...base.errors import BlowfishError, PolicyError
from ...model.policy import Policy, record_reach
from ...model.schema import Schema
from ...model.sensitivity import soft_bound
from ...model.votes import check_tau, vote_histogram
from ...privacy.accounting import check_delta, check_rho, epsilon_exact, gaussian_sigma
from ...privacy.mechanisms import Mechanism, get_mechanism
from .cases import (
    AUDITED_METHODS,
    BROKEN_CALIBRATIONS,
    CALIBRATIONS,
    LAPLACE_BROKEN,
    LAPLACE_EPSILON_T,
    AuditSetting,
    default_setting,
)
from .edges import _edge_norms, _point_index, worst_case_edge


# ---------------------------------------------------------------- the pair
@dataclass(frozen=True)
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
    def law(self) -> Mechanism:
        """The audited mechanism's table entry (its declared norm and accountant)."""
        return get_mechanism(self.mechanism)

    @property
    def pure(self) -> bool:
        """The mechanism is pure epsilon-DP (declared accountant 'pure-sum': Laplace)."""
        return self.law.accountant == "pure-sum"

    @property
    def shift(self) -> float:
        """||H(D') - H(D)|| in the mechanism's norm (l2 Gaussian, l1 Laplace), histogram units."""
        return float(np.linalg.norm(self.H_prime - self.H, ord=1 if self.law.norm == "l1" else 2))


def check_sensitivity_scale(sensitivity_scale: float) -> float:
    """A sensitivity scale S: finite float > 0.

    Parameters
    ----------
    sensitivity_scale : float
        The factor applied to the engine's calibration.

    Returns
    -------
    float
        S as a float.

    Raises
    ------
    BlowfishError
        If S is a bool, not a number, not finite or not > 0.
    """
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
        sens, how = _scaled(float(cal.sensitivity), cal.how, S)
    elif calibration == "soft-small-reach":
        # _check_case: this calibration applies to BF-Soft only, whose tau build_pair checked
        sens = soft_bound(record_reach(schema, policy) / 10.0, cast(float, tau))
        how = BROKEN_CALIBRATIONS[calibration][1]
    else:  # hard-zero
        sens, how = 0.0, BROKEN_CALIBRATIONS[calibration][1]
    sens_p = sens
    return x, xp, sens, sens_p, how, n_edges


def build_pair(
    method: str, setting: AuditSetting | None = None, rho_t: float = 0.25, delta: float = DEFAULT_DELTA,
    calibration: str = "correct", sensitivity_scale: float = 1.0,
) -> AuditPair:
    """Construct the worst-case neighbouring pair and calibrate one round of ``method``.

    For data-independent calibrations the pair is the edge attaining the exact
    sensitivity (:func:`worst_case_edge`; all record pairs for Tab-PE).  For the
    '*-local' calibrations (noise from max ||v(x) - v(x')|| over the dataset's own
    records and their policy neighbours) it is the policy edge (x, x') that
    has the largest sigma(D') (x' next to a crossing) and, among those, the largest
    sigma(D') / sigma(D) (x as far from a boundary as a policy edge allows).

    Parameters
    ----------
    method : {'tab-pe', 'hard', 'bf-soft'}
        The audited method.
    setting : AuditSetting, optional
        The public setting (default :func:`default_setting`).
    rho_t : float, default 0.25
        zCDP budget of the round.
    delta : float, default DEFAULT_DELTA
        DP delta of the claimed epsilon_exact(rho_t, delta).
    calibration : str, default 'correct'
        'correct' (the engine's :func:`calibrate`) or a broken one from BROKEN_CALIBRATIONS that
        matches the method.
    sensitivity_scale : float, default 1.0
        S (> 0): the 'correct' calibration's Delta_t is multiplied by S (a deliberate mutation:
        S < 1 under-noises; the broken calibrations ignore S).

    Returns
    -------
    AuditPair
        D, D', their histograms and the Gaussian noise sd on each side.

    Raises
    ------
    BlowfishError
        For an unknown method/calibration pair or a bad S.
    BudgetError
        For a bad rho_t, delta or tau.
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


def build_laplace_pair(method: str, setting: AuditSetting | None = None, epsilon_t: float = LAPLACE_EPSILON_T,
                       calibration: str = "correct", sensitivity_scale: float = 1.0) -> AuditPair:
    """One Laplace round of ``method`` on the l1-worst neighbouring pair (pure epsilon_t-DP claimed).

    Parameters
    ----------
    method : {'tab-pe', 'hard', 'bf-soft'}
        The audited method.
    setting : AuditSetting, optional
        The public setting (default :func:`default_setting`).
    epsilon_t : float, default LAPLACE_EPSILON_T
        Pure-DP epsilon claimed for the round.
    calibration : {'correct', 'quarter-scale'}, default 'correct'
        'correct' (the engine's l1 calibration, b = Delta1 / epsilon_t, mechanisms.laplace;
        Delta1 times ``sensitivity_scale``) or 'quarter-scale' (broken: b / 4).
    sensitivity_scale : float, default 1.0
        S > 0, applied to the 'correct' calibration only.

    Returns
    -------
    AuditPair
        The pair with Laplace scales b in ``sigma`` / ``sigma_prime``; its delta is 0.

    Raises
    ------
    BlowfishError
        For an unknown method/calibration or a bad S.
    BudgetError
        For a bad epsilon_t.
    """
    from ...privacy.accounting import check_epsilon
    from ...privacy.mechanisms import get_mechanism

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
    sens, how = float(cal.sensitivity), cal.how
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
