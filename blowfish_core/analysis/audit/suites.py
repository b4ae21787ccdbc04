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
          rho_t: float = 0.25, delta: float = DEFAULT_DELTA, n_samples: int = 200_000, seed: int = 0,
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


def run_audit_suite(n_samples: int = 200_000, seed: int = 0, rho_t: float = 0.25, delta: float = DEFAULT_DELTA,
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
