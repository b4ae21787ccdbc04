"""The one-round privacy audit of blowfish_core.audit, with OpenDP's samplers (issue 11).

Same pairs (:func:`blowfish_core.audit.build_pair`: the worst-case neighbouring datasets
and the calibration under test) and the same Clopper-Pearson bound
(:func:`blowfish_core.audit.epsilon_lower_bound`); only the noise differs: every run is a
whole noisy histogram drawn by **the loop's release-mode path**, the mechanism plug-in
``get_mechanism("gaussian", sampler="opendp").release(H, sigma, rng, integer=...)``
(:class:`blowfish_core.privacy.mechanisms.GaussianOpenDP`, what run_synthesis calls with
OsEntropyStreams) -- the discrete Gaussian for the hard votes (Tab-PE, Hard:
``Method.integer_votes``), OpenDP's float Gaussian for BF-Soft.  The n runs are one call
on the histogram tiled n times (every coordinate an independent draw of the sampler).  OpenDP's noise is unseeded (OS entropy), so the bound varies a
little from run to run; the verdicts must not.

Test statistic (as in audit.sample_statistic): the projection on H(D') - H(D) when both
sides use the same sigma, else the log-likelihood-ratio form.  The threshold is chosen on
the first half of the runs and the errors are counted on the second half.  The verdict is
audit.audit_result's: the exact rule (the pair's exact epsilon from shift / sigma, which
checks the calibration whatever the sampler) and the empirical one (eps_lb, which checks
OpenDP's noise).  Default run counts from audit's power calculation: :data:`OPENDP_RUNS` for
the engine's calibrations, :data:`OPENDP_CONTROL_RUNS` for the broken controls.
"""

from __future__ import annotations

import numpy as np

from .audit import (
    POWER_MARGIN,
    POWER_RUNS_95,
    AuditPair,
    AuditResult,
    audit_result,
    build_pair,
    default_setting,
    pair_statistic,
    split_half_bound,
)
from ..base.constants import DEFAULT_DELTA
from ..base.errors import BlowfishError
from ..privacy.mechanisms import get_mechanism
from ..algorithm.methods import METHODS

#: hard-vote methods get integer histograms, hence the discrete Gaussian.
DISCRETE_METHODS = tuple(m.name for m in METHODS.values() if m.integer_votes)
#: default runs per side: POWER_MARGIN x POWER_RUNS_95 = 54,850 rounded up to 5,000 (power >= 0.95
#: against a calibration x 0.5 from the empirical rule alone; audit module docstring).  About 40 s
#: per float-sampler case and 12 s per discrete one on the 2-core machine (docs/BENCHMARKS.md).
OPENDP_RUNS = -(-int(POWER_MARGIN * POWER_RUNS_95) // 5000) * 5000
#: default runs per side of the broken controls (audit.BROKEN_CALIBRATIONS), 5 x the smallest count
#: tried at which the empirical rule alone caught every one of them in 200 of 200 seeded audits
#: (2,000; reach / 10 has mu = 6.18, runs_for_power 148; the others have a noise-free or a 3x
#: noisier side): they are off by far more than x 0.5, and the float sampler is the audit's cost.
OPENDP_CONTROL_RUNS = 10_000


def release_draws(H: np.ndarray, sigma: float, n_draws: int, integer: bool) -> np.ndarray:
    """n_draws noisy copies of H through the loop's OpenDP mechanism.

    Parameters
    ----------
    H : (m,) ndarray
        Vote histogram (int64 for the discrete Gaussian).
    sigma : float
        Noise sd, histogram units.
    n_draws : int
        Copies drawn.
    integer : bool
        Discrete Gaussian (whole numbers) instead of OpenDP's float Gaussian.

    Returns
    -------
    (n_draws, m) float64 ndarray
        The noisy histograms.
    """
    mech = get_mechanism("gaussian", sampler="opendp")
    tiled = np.tile(np.asarray(H, dtype=np.float64), int(n_draws))
    # OpenDP draws from OS entropy and ignores the stream; an unseeded Generator fills the slot
    rng = np.random.default_rng()
    return mech.release(tiled, float(sigma), rng, integer=integer).reshape(int(n_draws), -1)



def audit_pair_opendp(pair: AuditPair, n_samples: int = OPENDP_RUNS, alpha: float = 0.05) -> AuditResult:
    """Threshold audit of ``pair`` with OpenDP noise.

    Parameters
    ----------
    pair : AuditPair
        The audited pair.
    n_samples : int, default OPENDP_RUNS
        Runs per dataset (>= 100).
    alpha : float, default 0.05
        Error probability of the bound, in (0, 1).

    Returns
    -------
    AuditResult
        Sampler 'opendp-discrete' or 'opendp-float'; passed means both rules hold
        (audit.audit_result).

    Raises
    ------
    BlowfishError
        For bad n_samples / alpha.
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 100:
        raise BlowfishError(f"audit: n_samples must be a whole number >= 100 (got {n_samples!r})")
    if not 0 < alpha < 1:
        raise BlowfishError(f"audit: alpha must be in (0, 1) (got {alpha!r})")
    discrete = pair.method in DISCRETE_METHODS
    H = np.rint(pair.H).astype(np.int64) if discrete else pair.H
    Hp = np.rint(pair.H_prime).astype(np.int64) if discrete else pair.H_prime
    y0 = release_draws(H, pair.sigma, int(n_samples), discrete)
    y1 = release_draws(Hp, pair.sigma_prime, int(n_samples), discrete)
    t0, t1 = pair_statistic(pair, y0), pair_statistic(pair, y1)
    return audit_result(pair, n_samples, alpha, "opendp-discrete" if discrete else "opendp-float",
                        split_half_bound(t0, t1, pair.delta, alpha))


def audit_opendp(method: str, calibration: str = "correct", rho_t: float = 0.25, delta: float = DEFAULT_DELTA,
                 n_samples: int = OPENDP_RUNS, alpha: float = 0.05, sensitivity_scale: float = 1.0) -> AuditResult:
    """Audit one round of ``method`` under ``calibration`` on audit.default_setting(), OpenDP noise.

    Parameters
    ----------
    method : {'tab-pe', 'hard', 'bf-soft'}
        The audited method.
    calibration : str, default 'correct'
        'correct' or a broken calibration of audit.BROKEN_CALIBRATIONS.
    rho_t : float, default 0.25
        zCDP budget of the round.
    delta : float, default DEFAULT_DELTA
        DP delta of the claim.
    n_samples : int, default OPENDP_RUNS
        Runs per dataset (>= 100).
    alpha : float, default 0.05
        Error probability of the bound.
    sensitivity_scale : float, default 1.0
        Multiplies the engine's calibration (audit.build_pair).

    Returns
    -------
    AuditResult
        The audit with OpenDP's samplers.

    Raises
    ------
    BlowfishError, BudgetError
        As audit.build_pair and :func:`audit_pair_opendp`.
    """
    pair = build_pair(method, default_setting(), rho_t=rho_t, delta=delta, calibration=calibration,
                      sensitivity_scale=sensitivity_scale)
    return audit_pair_opendp(pair, n_samples=n_samples, alpha=alpha)
