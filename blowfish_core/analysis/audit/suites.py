"""Running audits: one pair, one method and calibration, and the Gaussian and Laplace suites."""

from __future__ import annotations

import zlib

import numpy as np

from ...base.constants import DEFAULT_DELTA
from ...base.errors import BlowfishError
from .bounds import split_half_bound
from .cases import AUDIT_CASES, AUDITED_METHODS, LAPLACE_AUDIT_CASES, LAPLACE_EPSILON_T, AuditSetting, default_setting
from .pair import AuditPair, build_laplace_pair, build_pair
from .statistic import sample_statistic
from .verdicts import AuditResult, audit_result


def audit_pair(pair: AuditPair, n_samples: int = 200_000, seed: int = 0, alpha: float = 0.05,
               sampler: str = "scalar") -> AuditResult:
    """Run the threshold audit on one pair (see module docstring).

    The first half of the runs chooses the threshold (largest Clopper-Pearson eps bound on that
    half), the second half is counted.  The verdict applies the exact and the empirical rule
    (:func:`audit_result`).

    Parameters
    ----------
    pair : AuditPair
        The audited pair.
    n_samples : int, default 200_000
        Mechanism runs per dataset (>= 100).
    seed : int, default 0
        Seed of the runs (combined with the pair's method and calibration).
    alpha : float, default 0.05
        Error probability of the bound, in (0, 1).
    sampler : {'scalar', 'full'}, default 'scalar'
        How the statistic is drawn (:func:`sample_statistic`).

    Returns
    -------
    AuditResult
        The bound, error rates and both rules' verdicts.

    Raises
    ------
    BlowfishError
        For bad n_samples, alpha or sampler.
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
          rho_t: float = 0.25, delta: float = DEFAULT_DELTA, n_samples: int = 200_000, seed: int = 0,
          alpha: float = 0.05, sampler: str = "scalar", sensitivity_scale: float = 1.0) -> AuditResult:
    """Audit one round of ``method`` under ``calibration`` (see :func:`build_pair`, :func:`audit_pair`).

    Default budget rho_t = 0.25 at delta = 1e-5 claims epsilon = 2.94.

    Parameters
    ----------
    method : {'tab-pe', 'hard', 'bf-soft'}
        The audited method.
    calibration : str, default 'correct'
        'correct' or a broken calibration of BROKEN_CALIBRATIONS.
    setting : AuditSetting, optional
        The public setting (default :func:`default_setting`).
    rho_t : float, default 0.25
        zCDP budget of the round.
    delta : float, default DEFAULT_DELTA
        DP delta of the claim.
    n_samples : int, default 200_000
        Mechanism runs per dataset (>= 100).
    seed : int, default 0
        Seed of the runs.
    alpha : float, default 0.05
        Error probability of the bound.
    sampler : {'scalar', 'full'}, default 'scalar'
        How the statistic is drawn.
    sensitivity_scale : float, default 1.0
        Multiplies the engine's calibration (the 'correct' case).

    Returns
    -------
    AuditResult
        The audit of the pair.

    Raises
    ------
    BlowfishError, BudgetError
        As :func:`build_pair` and :func:`audit_pair`.
    """
    pair = build_pair(method, setting, rho_t=rho_t, delta=delta, calibration=calibration,
                      sensitivity_scale=sensitivity_scale)
    return audit_pair(pair, n_samples=n_samples, seed=seed, alpha=alpha, sampler=sampler)


def select_cases(cases: tuple, methods: str | tuple[str, ...] | None = None) -> list[tuple[str, str, bool]]:
    """The (method, calibration, expected) cases of ``cases`` whose method is in ``methods``.

    Parameters
    ----------
    cases : tuple of (str, str, bool)
        A suite's cases, e.g. AUDIT_CASES.
    methods : str or tuple of str, optional
        A name, a tuple of names, or None / 'all' for every case.

    Returns
    -------
    list of (str, str, bool)
        The selected cases, in suite order.

    Raises
    ------
    BlowfishError
        For an unknown method name.
    """
    if methods is None or methods == "all":
        return list(cases)
    names = (methods,) if isinstance(methods, str) else tuple(methods)
    bad = [m for m in names if m not in AUDITED_METHODS]
    if bad:
        raise BlowfishError(f"audit: unknown method {bad[0]!r}; use {', '.join(AUDITED_METHODS)} or all")
    return [c for c in cases if c[0] in names]


def run_audit_suite(n_samples: int = 200_000, seed: int = 0, rho_t: float = 0.25, delta: float = DEFAULT_DELTA,
                    alpha: float = 0.05, sampler: str = "scalar", setting: AuditSetting | None = None,
                    sensitivity_scale: float = 1.0, methods: str | tuple[str, ...] | None = None,
                    ) -> list[tuple[AuditResult, bool]]:
    """The cases of AUDIT_CASES for ``methods`` (:func:`select_cases`).

    Parameters
    ----------
    n_samples : int, default 200_000
        Mechanism runs per dataset and case.
    seed : int, default 0
        Seed of the runs.
    rho_t : float, default 0.25
        zCDP budget of the round.
    delta : float, default DEFAULT_DELTA
        DP delta of the claim.
    alpha : float, default 0.05
        Error probability of each bound.
    sampler : {'scalar', 'full'}, default 'scalar'
        How the statistic is drawn.
    setting : AuditSetting, optional
        The public setting (default :func:`default_setting`).
    sensitivity_scale : float, default 1.0
        Multiplies the engine's calibration; its cases still expect PASS (the engine must pass),
        so a scale that breaks privacy shows as an unexpected FAIL.
    methods : str or tuple of str, optional
        The methods whose cases run (None / 'all': every case).

    Returns
    -------
    list of (AuditResult, bool)
        (result, expected_pass) per case.

    Raises
    ------
    BlowfishError, BudgetError
        As :func:`select_cases` and :func:`audit`.
    """
    s = setting or default_setting()
    return [(audit(m, c, s, rho_t, delta, n_samples, seed, alpha, sampler, sensitivity_scale), exp)
            for m, c, exp in select_cases(AUDIT_CASES, methods)]


def run_laplace_audit_suite(n_samples: int = 200_000, seed: int = 0, epsilon_t: float = LAPLACE_EPSILON_T,
                            alpha: float = 0.05, setting: AuditSetting | None = None,
                            sensitivity_scale: float = 1.0, methods: str | tuple[str, ...] | None = None,
                            ) -> list[tuple[AuditResult, bool]]:
    """The cases of LAPLACE_AUDIT_CASES for ``methods`` (pure epsilon_t claimed, delta 0).

    Parameters
    ----------
    n_samples : int, default 200_000
        Mechanism runs per dataset and case (whole histograms drawn).
    seed : int, default 0
        Seed of the runs.
    epsilon_t : float, default LAPLACE_EPSILON_T
        Pure-DP epsilon claimed per round.
    alpha : float, default 0.05
        Error probability of each bound.
    setting : AuditSetting, optional
        The public setting (default :func:`default_setting`).
    sensitivity_scale : float, default 1.0
        As in :func:`run_audit_suite`.
    methods : str or tuple of str, optional
        The methods whose cases run (None / 'all': every case).

    Returns
    -------
    list of (AuditResult, bool)
        (result, expected_pass) per case.

    Raises
    ------
    BlowfishError, BudgetError
        As :func:`select_cases` and :func:`build_laplace_pair`.
    """
    s = setting or default_setting()
    return [(audit_pair(build_laplace_pair(m, s, epsilon_t, c, sensitivity_scale), n_samples=n_samples,
                        seed=seed, alpha=alpha, sampler="full"), exp)
            for m, c, exp in select_cases(LAPLACE_AUDIT_CASES, methods)]
