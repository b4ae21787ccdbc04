"""The privacy audit of the policy-aware marginal measurements: bf-mst and bf-soft-mst (issue 25).

One measurement of those methods is the Gaussian mechanism on a marginal over public cells
(:mod:`blowfish_core.baselines.measure`, ``Measurer.measure``; PRIVACY §10):

* bf-mst: ``y_S = h_S + N(0, sigma^2 I)`` with ``sigma = Delta_S / sqrt(2 rho_i)`` and Delta_S the exact
  per-marginal sensitivity of :class:`~blowfish_core.baselines.blowfish_sensitivity.PolicyMarginals`
  (sqrt 2 when a policy edge moves a record to another cell of S; 0: released exactly, no noise, no
  budget);
* bf-soft-mst: ``y_S = K_S h_S + N(0, sigma^2 I)`` at the soft bound sqrt 2 tanh(r_S / (2 tau)) of
  :class:`~blowfish_core.baselines.soft_marginals.SoftPolicyMarginals` (the kernel K_S is the plan's).

The audit takes the method's own plan for a marginal S (its claimed sensitivity, its ``how`` and, for a
soft marginal, its kernel: nothing else is method-specific), enumerates **every record-level policy
edge** of a small public domain (:func:`.edges.record_level_edges`) and takes the one that changes
the measurement most, ``max ||K_S (e_c(x') - e_c(x))||_2`` (K_S = I for a hard marginal).  D and D' are
a tiny fixed background table plus x and plus x'.  The statistic and the verdict are the round
audit's (:mod:`.statistic`, :mod:`.verdicts`): the exact rule (the pair's own epsilon from
shift / sigma against the claim epsilon_exact(rho_i, delta)) and the empirical rule (split-half
Clopper-Pearson eps_lb).  An exact marginal claims epsilon 0: its pair must not move at all (every
edge's change is 0), and both rules then give 0.

Noise: ``sampler='scalar'`` (the round audit's exact shortcut, numpy: tests) or ``'release'``: every
run drawn by the function bf-mst's release calls, :meth:`blowfish_core.baselines.common.FitRandomness.gaussian`
with ``release=True`` (OpenDP's float Gaussian, OS entropy); an exact marginal draws nothing (the
measurer returns h_S itself), and neither does the audit.

Controls that must FAIL (never use them): ``'wrongly-exact'`` (a crossing marginal released without
noise, claiming epsilon 0; the pair's epsilon is infinite) and ``'half-sensitivity'`` (the plan's
sensitivity x 0.5: "soft bound x 0.5" for bf-soft-mst).  ``sensitivity_scale`` S multiplies the plan's
sensitivity of the 'correct' case (as :func:`.pair.build_pair`'s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...algorithm.methods import BF_MST, BF_SOFT_MST, get_method
from ...base.constants import DEFAULT_DELTA
from ...base.errors import BlowfishError
from ...model.policy import AttributePolicy, Policy
from ...model.schema import Attribute, Schema
from ...privacy.accounting import check_delta, check_rho, epsilon_exact, gaussian_sigma
from .edges import record_level_edges
from .pair import AuditPair, _scaled, check_sensitivity_scale
from .verdicts import AuditResult

#: the audited marginal methods (their plans declare every marginal's sensitivity).
MARGINAL_METHODS = (BF_MST.name, BF_SOFT_MST.name)
#: the deliberately broken controls: calibration -> description (they must FAIL).
MARGINAL_BROKEN = {
    "wrongly-exact": "a crossing marginal released exactly (no noise, no budget: claims epsilon 0)",
    "half-sensitivity": "the plan's sensitivity x 0.5",
}
MARGINAL_CALIBRATIONS = ("correct", *MARGINAL_BROKEN)
#: the marginal suite: (method, marginal, calibration, expected verdict: True = must pass).
MARGINAL_CASES: tuple[tuple[str, tuple[str, ...], str, bool], ...] = (
    (BF_MST.name, ("color", "age"), "correct", True),
    (BF_MST.name, ("age", "flag"), "correct", True),
    (BF_MST.name, ("flag",), "correct", True),               # exact: released without noise
    (BF_MST.name, ("age", "flag"), "half-sensitivity", False),
    (BF_MST.name, ("age", "flag"), "wrongly-exact", False),
    (BF_SOFT_MST.name, ("color", "age"), "correct", True),
    (BF_SOFT_MST.name, ("age", "flag"), "correct", True),
    (BF_SOFT_MST.name, ("age", "flag"), "half-sensitivity", False),  # "soft bound x 0.5"
    (BF_SOFT_MST.name, ("color", "age"), "half-sensitivity", False),
)


@dataclass(frozen=True)
class MarginalSetting:
    """A small public setting for the marginal audit.

    schema: finite schema; policy: substitution edges only; bins: numeric bins of the public cells
    (:class:`~blowfish_core.baselines.cells.PublicCells`); tau: bf-soft-mst's temperature (Gower
    units); background: (n0, p) float64 encoded records shared by D and D'.
    """

    schema: Schema
    policy: Policy
    bins: int
    tau: float
    background: np.ndarray


def marginal_setting() -> MarginalSetting:
    """The 3 x 4 x 2 mixed domain of the enumeration test (tests/baselines/test_blowfish_sensitivity.py).

    color categorical {a, b, c}, age integer 0..3 (2 public bins: {0, 1}, {2, 3}), flag binary;
    policy: age threshold 1 and color blocks {a, b}, {c} (so every marginal holding color or age is
    noisy and (flag) is exact); tau = 0.1; background: 4 records (a, 0, no), (b, 1, yes),
    (c, 2, no), (a, 3, yes).

    Returns
    -------
    MarginalSetting
        The setting above (background (4, 3) float64).
    """
    schema = Schema([
        Attribute("color", "categorical", levels=["a", "b", "c"]),
        Attribute("age", "numeric", lo=0, hi=3, integer=True, unit="years"),
        Attribute("flag", "binary", levels=["no", "yes"]),
    ])
    policy = Policy({"age": AttributePolicy("threshold", 1),
                     "color": AttributePolicy("block", blocks=[["a", "b"], ["c"]])}).validate(schema)
    import pandas as pd

    rows = pd.DataFrame({"color": ["a", "b", "c", "a"], "age": [0, 1, 2, 3], "flag": ["no", "yes", "no", "yes"]})
    return MarginalSetting(schema, policy, 2, 0.1, np.asarray(schema.encode(rows), dtype=float))


def _cells(setting: MarginalSetting):
    from ...baselines.cells import PublicCells

    return PublicCells.from_schema(setting.schema, setting.bins)


def marginal_claim(method: str, setting: MarginalSetting, cols: tuple[int, ...]) -> Any:
    """The method's own claim for the marginal over columns ``cols``: its plan's entry.

    Parameters
    ----------
    method : {'bf-mst', 'bf-soft-mst'}
        The audited method (a method that ``needs_tau`` gets the soft plan at ``setting.tau``).
    setting : MarginalSetting
        The public setting.
    cols : tuple of int
        The marginal's column indices.

    Returns
    -------
    MarginalSensitivity
        ``sensitivity`` (count units), ``how``, ``exact``; a soft one also ``kernel`` (K_S).
    """
    from ...baselines.blowfish_sensitivity import PolicyMarginals
    from ...baselines.soft_marginals import SoftPolicyMarginals

    cells = _cells(setting)
    if get_method(method).needs_tau:
        return SoftPolicyMarginals.of(cells, setting.policy, setting.tau).marginal(cols)
    return PolicyMarginals.of(cells, setting.policy).marginal(cols)


def _measure(claim: Any, cells: Any, D: np.ndarray, cols: tuple[int, ...]) -> np.ndarray:
    """The measured vector of table D (encoded) without noise: h_S, or K_S h_S for a soft claim
    (the measurer's ``kernel.apply``)."""
    from ...baselines.common import counts

    h = counts(cells.encode(D), cells.sizes, cols)
    kernel = getattr(claim, "kernel", None)
    return h if kernel is None else kernel.apply(h, tuple(cells.sizes[c] for c in cols))


def measurement_changes(setting: MarginalSetting, claim: Any, cols: tuple[int, ...]
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The change of the marginal's measurement along every record-level policy edge.

    Parameters
    ----------
    setting : MarginalSetting
        The public setting (finite domain, substitution edges).
    claim : MarginalSensitivity
        The plan's entry (its ``kernel``, if any, is applied).
    cols : tuple of int
        The marginal's column indices.

    Returns
    -------
    P : (N, p) float64 ndarray
        The domain's records, encoded.
    e0, e1 : (E,) int ndarray
        The two ends of each edge (rows of P).
    norms : (E,) float64 ndarray
        ``||m(e_c(x')) - m(e_c(x))||_2`` per edge, count units (m: the measurement of one record).
    """
    cells = _cells(setting)
    P, e0, e1 = record_level_edges(setting.schema, setting.policy)
    sizes = tuple(cells.sizes[c] for c in cols)
    flat = np.ravel_multi_index(tuple(cells.encode(P)[:, c] for c in cols), sizes)
    kernel = getattr(claim, "kernel", None)
    M = np.eye(int(np.prod(sizes))) if kernel is None else kernel.matrix(sizes)  # columns: one record's measurement
    norms = np.linalg.norm(M[:, flat[e1]] - M[:, flat[e0]], axis=0) if e0.size else np.zeros(0)
    return P, e0, e1, norms


def _columns(setting: MarginalSetting, marginal: tuple[str, ...]) -> tuple[int, ...]:
    names = [a.name for a in setting.schema.attributes]
    bad = [m for m in marginal if m not in names]
    if bad or not marginal or len(set(marginal)) != len(marginal):
        raise BlowfishError(f"audit: marginal must name distinct attributes of {', '.join(names)} (got {marginal!r})")
    return tuple(names.index(m) for m in marginal)


def build_marginal_pair(method: str, marginal: tuple[str, ...], setting: MarginalSetting | None = None,
                        rho_i: float = 0.25, delta: float = DEFAULT_DELTA, calibration: str = "correct",
                        sensitivity_scale: float = 1.0) -> AuditPair:
    """The worst-case neighbouring pair of one marginal measurement and its calibrated noise.

    Parameters
    ----------
    method : {'bf-mst', 'bf-soft-mst'}
        The audited method.
    marginal : tuple of str
        The measured marginal S (attribute names).
    setting : MarginalSetting, optional
        The public setting (default :func:`marginal_setting`).
    rho_i : float, default 0.25
        zCDP budget of the measurement (a noisy one claims epsilon_exact(rho_i, delta) = 2.94 at
        the defaults; an exact one claims 0).
    delta : float, default DEFAULT_DELTA
        DP delta of the claim.
    calibration : {'correct', 'wrongly-exact', 'half-sensitivity'}, default 'correct'
        The method's plan, or a broken control (:data:`MARGINAL_BROKEN`).
    sensitivity_scale : float, default 1.0
        S > 0 multiplies the plan's sensitivity ('correct' only).

    Returns
    -------
    AuditPair
        H, H': the measurements (h_S or K_S h_S) of D, D'; sigma = Delta / sqrt(2 rho_i) on both
        sides (0 for an exact marginal); ``edge``: the edge, the plan's witness, the edges checked
        and the largest change over all of them.

    Raises
    ------
    BlowfishError
        For an unknown method, calibration or marginal, a 'wrongly-exact' control on an exact
        marginal, or a bad S.
    BudgetError
        For a bad rho_i or delta.
    """
    S = check_sensitivity_scale(sensitivity_scale)
    s = setting or marginal_setting()
    rho_i, delta = check_rho(rho_i, name="rho_i"), check_delta(delta)
    if method not in MARGINAL_METHODS:
        raise BlowfishError(f"audit: unknown marginal method {method!r}; use {' or '.join(MARGINAL_METHODS)}")
    if calibration not in MARGINAL_CALIBRATIONS:
        raise BlowfishError(f"audit: unknown calibration {calibration!r}; use {', '.join(MARGINAL_CALIBRATIONS)}")
    cols = _columns(s, tuple(marginal))
    claim = marginal_claim(method, s, cols)
    if calibration == "correct":
        sens, how = _scaled(float(claim.sensitivity), claim.how, S)
    elif claim.exact:
        raise BlowfishError(f"audit: {'x'.join(claim.clique)} is exact under the policy; the control "
                            f"'{calibration}' needs a marginal some policy edge changes")
    else:
        sens = 0.0 if calibration == "wrongly-exact" else 0.5 * float(claim.sensitivity)
        how = MARGINAL_BROKEN[calibration]
    P, e0, e1, norms = measurement_changes(s, claim, cols)
    k = int(np.argmax(norms)) if norms.size else 0
    x, xp = (P[e0[k]], P[e1[k]]) if norms.size else (P[0], P[0])
    cells = _cells(s)
    D, Dp = np.vstack([s.background, x[None, :]]), np.vstack([s.background, xp[None, :]])
    H, Hp = _measure(claim, cells, D, cols), _measure(claim, cells, Dp, cols)
    sigma = gaussian_sigma(sens, rho_i) if sens > 0 else 0.0
    claimed = epsilon_exact(rho_i, delta) if sens > 0 else 0.0
    dec = s.schema.decode(np.vstack([x, xp]))
    plain = [{c: (v.item() if isinstance(v, np.generic) else v) for c, v in dec.iloc[i].items()} for i in (0, 1)]
    edge = {"x": plain[0], "x_prime": plain[1], "edges_checked": int(norms.size),
            "max_change": float(norms.max()) if norms.size else 0.0, "neighbours": "policy edges",
            "marginal": list(claim.clique), "claimed_sensitivity": float(claim.sensitivity),
            "witness": getattr(claim, "witness", None), "plan_how": claim.how}
    return AuditPair(method, calibration, rho_i if sens > 0 else 0.0, delta, claimed, D, Dp, H, Hp, sigma, sigma,
                     sens, sens, how, edge, sensitivity_scale=S if calibration == "correct" else 1.0)


def release_measurements(H: np.ndarray, sigma: float, n_draws: int) -> np.ndarray:
    """n_draws releases of one measurement, drawn as bf-mst's release draws them.

    ``FitRandomness(rng, release=True).gaussian`` (OpenDP's float Gaussian, OS entropy) on H tiled
    n_draws times (every coordinate an independent draw); sigma 0 (an exact marginal): H itself, as
    the measurer returns it (nothing is drawn).

    Parameters
    ----------
    H : (m,) float64 ndarray
        The measurement without noise (count units).
    sigma : float
        Noise sd (count units, >= 0).
    n_draws : int
        Releases drawn.

    Returns
    -------
    (n_draws, m) float64 ndarray
        The released measurements.
    """
    from ...baselines.common import FitRandomness

    tiled = np.tile(np.asarray(H, dtype=np.float64), int(n_draws))
    if sigma == 0:
        return tiled.reshape(int(n_draws), -1)
    draws = FitRandomness(np.random.default_rng(), release=True)  # OpenDP ignores the stream (OS entropy)
    return np.asarray(draws.gaussian(tiled, float(sigma)), dtype=np.float64).reshape(int(n_draws), -1)


def audit_marginal_pair(pair: AuditPair, n_samples: int, seed: int = 0, alpha: float = 0.05,
                        sampler: str = "release") -> AuditResult:
    """The threshold audit of a marginal pair (:func:`build_marginal_pair`).

    Parameters
    ----------
    pair : AuditPair
        The audited pair.
    n_samples : int
        Runs per dataset (>= 100).
    seed : int, default 0
        Seed of the 'scalar' sampler (the release sampler is unseeded: OS entropy).
    alpha : float, default 0.05
        Error probability of the bound, in (0, 1).
    sampler : {'release', 'scalar'}, default 'release'
        'release': :func:`release_measurements` (OpenDP, bf-mst's release path); 'scalar': the round
        audit's numpy shortcut (:func:`.suites.audit_pair`).

    Returns
    -------
    AuditResult
        Both rules' verdicts (sampler 'release-opendp' or 'scalar').

    Raises
    ------
    BlowfishError
        For bad n_samples, alpha or sampler.
    """
    from .bounds import split_half_bound
    from .statistic import pair_statistic
    from .suites import audit_pair
    from .verdicts import audit_result

    if sampler == "scalar":
        return audit_pair(pair, n_samples=n_samples, seed=seed, alpha=alpha, sampler="scalar")
    if sampler != "release":
        raise BlowfishError(f"audit: sampler must be 'release' or 'scalar' (got {sampler!r})")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 100:
        raise BlowfishError(f"audit: n_samples must be a whole number >= 100 (got {n_samples!r})")
    if not 0 < alpha < 1:
        raise BlowfishError(f"audit: alpha must be in (0, 1) (got {alpha!r})")
    t0 = pair_statistic(pair, release_measurements(pair.H, pair.sigma, int(n_samples)))
    t1 = pair_statistic(pair, release_measurements(pair.H_prime, pair.sigma_prime, int(n_samples)))
    return audit_result(pair, n_samples, alpha, "release-opendp", split_half_bound(t0, t1, pair.delta, alpha))


def run_marginal_audit_suite(n_samples: int = 55_000, control_n: int | None = None, rho_i: float = 0.25,
                             delta: float = DEFAULT_DELTA, alpha: float = 0.05, sampler: str = "release",
                             sensitivity_scale: float = 1.0, methods: str | tuple[str, ...] | None = None,
                             setting: MarginalSetting | None = None, seed: int = 0,
                             ) -> list[tuple[AuditResult, bool]]:
    """The cases of :data:`MARGINAL_CASES` for ``methods``.

    Parameters
    ----------
    n_samples : int, default 55_000
        Runs per side of the plan's cases and of the 'half-sensitivity' controls (the round audit's
        OpenDP count: power >= 0.95 against x 0.5 from the empirical rule alone).
    control_n : int, optional
        Runs per side of the 'wrongly-exact' control (noise-free: any count catches it; default
        ``n_samples``).
    rho_i, delta, alpha, sampler, seed
        As :func:`build_marginal_pair` and :func:`audit_marginal_pair`.
    sensitivity_scale : float, default 1.0
        Multiplies the plan's sensitivity of the 'correct' cases, which still expect PASS.
    methods : str or tuple of str, optional
        'bf-mst', 'bf-soft-mst', a tuple of them, or None / 'all'.
    setting : MarginalSetting, optional
        The public setting (default :func:`marginal_setting`).

    Returns
    -------
    list of (AuditResult, bool)
        (result, expected_pass) per case; ``result.edge["marginal"]`` names the marginal.

    Raises
    ------
    BlowfishError, BudgetError
        As :func:`build_marginal_pair` and :func:`audit_marginal_pair`.
    """
    names = MARGINAL_METHODS if methods in (None, "all") else ((methods,) if isinstance(methods, str) else methods)
    bad = [m for m in names if m not in MARGINAL_METHODS]
    if bad:
        raise BlowfishError(f"audit: unknown marginal method {bad[0]!r}; use {', '.join(MARGINAL_METHODS)} or all")
    s = setting or marginal_setting()
    out = []
    for method, marginal, calibration, expected in MARGINAL_CASES:
        if method not in names:
            continue
        pair = build_marginal_pair(method, marginal, s, rho_i, delta, calibration, sensitivity_scale)
        n = n_samples if calibration != "wrongly-exact" or control_n is None else control_n
        out.append((audit_marginal_pair(pair, n, seed, alpha, sampler), expected))
    return out


def marginal_audit_table(results: list[tuple[AuditResult, bool]]) -> str:
    """Plain-text table of a marginal suite's results.

    Parameters
    ----------
    results : list of (AuditResult, bool)
        (result, expected_pass) per case.

    Returns
    -------
    str
        One line per case: method, marginal, calibration, claimed sensitivity (the plan's), the
        sensitivity used, sigma, runs, claimed eps, the pair's exact eps, eps lower bound, verdict.
    """
    lines = [f"{'method':<12} {'marginal':<10} {'calibration':<17} {'claim Δ':>8} {'used Δ':>7} {'sigma':>7} "
             f"{'runs':>7} {'claim eps':>9} {'exact eps':>9} {'eps_lb':>7}  verdict (expected)"]
    for r, exp in results:
        pe = "-" if r.eps_pair is None else ("inf" if math.isinf(r.eps_pair) else f"{r.eps_pair:.3f}")
        verdict = "PASS" if r.passed else f"FAIL [{'+'.join(r.failed_rules)}]"
        label = r.calibration + (f" x{r.sensitivity_scale:g}" if r.sensitivity_scale != 1.0 else "")
        lines.append(
            f"{r.method:<12} {'x'.join(r.edge['marginal']):<10} {label:<17} {r.edge['claimed_sensitivity']:>8.4f} "
            f"{r.sensitivity:>7.4f} {r.sigma:>7.4f} {r.n_samples:>7,} {r.claimed_eps:>9.3f} {pe:>9} "
            f"{r.eps_lb:>7.3f}  {verdict} ({'pass' if exp else 'fail'}; {'ok' if r.passed == exp else 'UNEXPECTED'})")
    return "\n".join(lines)
