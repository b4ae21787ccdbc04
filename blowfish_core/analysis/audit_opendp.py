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
the first half of the runs and the errors are counted on the second half.
"""

from __future__ import annotations

import numpy as np

from .audit import (
    AuditPair,
    AuditResult,
    build_pair,
    default_setting,
    pair_epsilon,
    pair_statistic,
    split_half_bound,
)
from ..base.errors import BlowfishError
from ..privacy.mechanisms import get_mechanism
from ..algorithm.methods import METHODS

#: hard-vote methods get integer histograms, hence the discrete Gaussian.
DISCRETE_METHODS = tuple(m.name for m in METHODS.values() if m.integer_votes)


def release_draws(H: np.ndarray, sigma: float, n_draws: int, integer: bool) -> np.ndarray:
    """n_draws noisy copies of H through the loop's OpenDP mechanism: (n_draws, m) float64."""
    mech = get_mechanism("gaussian", sampler="opendp")
    tiled = np.tile(np.asarray(H, dtype=np.float64), int(n_draws))
    return mech.release(tiled, float(sigma), None, integer=integer).reshape(int(n_draws), -1)





def audit_pair_opendp(pair: AuditPair, n_samples: int = 20_000, alpha: float = 0.05) -> AuditResult:
    """Threshold audit of ``pair`` with OpenDP noise; n_samples runs per dataset (>= 100).

    Returns an AuditResult (sampler 'opendp-discrete' or 'opendp-float'); passed means
    eps_lb <= the claimed epsilon.  Raises BlowfishError for bad n_samples / alpha.
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
    best, eps_lb, fpr, fnr, fpr_ub, fnr_ub = split_half_bound(t0, t1, pair.delta, alpha)
    return AuditResult(
        method=pair.method, claimed_eps=float(pair.claimed_eps), eps_lb=eps_lb, n_samples=int(n_samples),
        threshold=best, fpr=fpr, fnr=fnr,
        passed=bool(eps_lb <= pair.claimed_eps), calibration=pair.calibration, rho_t=pair.rho_t,
        delta=pair.delta, alpha=alpha, fpr_ub=fpr_ub, fnr_ub=fnr_ub,
        sensitivity=pair.sensitivity, sensitivity_prime=pair.sensitivity_prime, sigma=pair.sigma,
        sigma_prime=pair.sigma_prime, shift=pair.shift, eps_pair=pair_epsilon(pair),
        statistic="projection" if pair.sigma == pair.sigma_prime else "likelihood-ratio",
        sampler="opendp-discrete" if discrete else "opendp-float", how=pair.how, edge=pair.edge,
    )


def audit_opendp(method: str, calibration: str = "correct", rho_t: float = 0.25, delta: float = 1e-5,
                 n_samples: int = 20_000, alpha: float = 0.05) -> AuditResult:
    """Audit one round of ``method`` under ``calibration`` on audit.default_setting(), OpenDP noise."""
    pair = build_pair(method, default_setting(), rho_t=rho_t, delta=delta, calibration=calibration)
    return audit_pair_opendp(pair, n_samples=n_samples, alpha=alpha)
