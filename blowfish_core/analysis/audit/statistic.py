"""Sampling the audit's test statistic: the projection of one noisy round on D and on D' (in chunks).

The noise comes from the audited mechanism's table entry (``pair.law``, the study sampler): its
``noise(scale, (k, m), rng)`` for whole noisy histograms, and for the Gaussian scalar shortcut its
unit noise along one axis (``noise(1.0, n, rng)``) and ``residual_norm2`` (the rest).  The audit
draws nothing itself."""

from __future__ import annotations

import numpy as np

from ...base.errors import BlowfishError
from .cases import _CHUNK
from .pair import AuditPair


def _statistic_kind(pair: AuditPair) -> str:
    if pair.pure:
        return "laplace-likelihood-ratio"
    return "projection" if pair.sigma == pair.sigma_prime else "likelihood-ratio"


def sample_statistic(pair: AuditPair, n: int, rng: np.random.Generator, sampler: str = "scalar") -> tuple[np.ndarray, np.ndarray]:
    """Test statistic T of n mechanism runs on D and on D'.

    Larger T points to D'.  Equal sigmas: T = <y - H(D), u>, u the unit vector along
    H(D') - H(D) (any fixed axis when they coincide).  Unequal sigmas (both > 0):
    T = ||y - H||^2 / sigma^2 - ||y - H'||^2 / sigma'^2 (monotone in the likelihood
    ratio); sigma = 0 < sigma': T = ||y - H||^2; sigma' = 0 < sigma: T = -||y - H'||^2.
    Both samplers give the same distribution exactly.  The draws are the mechanism's
    (``pair.law``: ``noise`` and, for the scalar shortcut, ``residual_norm2``).

    Parameters
    ----------
    pair : AuditPair
        The audited pair.
    n : int
        Runs per side.
    rng : numpy.random.Generator
        The source of the noise.
    sampler : {'scalar', 'full'}, default 'scalar'
        'scalar' draws the projection (and the chi-square rest) directly; 'full'
        draws whole noisy histograms in chunks.

    Returns
    -------
    t0, t1 : (n,) float64 ndarray
        T on D and on D'.

    Raises
    ------
    BlowfishError
        If ``sampler`` is neither 'scalar' nor 'full'.
    """
    if sampler not in ("scalar", "full"):
        raise BlowfishError(f"audit: sampler must be 'scalar' or 'full' (got {sampler!r})")
    if pair.pure:
        return _laplace_statistic(pair, n, rng)
    H, Hp = pair.H, pair.H_prime
    m = H.size
    d = pair.shift
    s, sp = pair.sigma, pair.sigma_prime
    law = pair.law

    def stat(y: np.ndarray) -> np.ndarray:  # y: (k, m) noisy histograms
        return pair_statistic(pair, y)

    if sampler == "full":
        out = []
        for center, sd in ((H, s), (Hp, sp)):
            parts = []
            for start in range(0, n, _CHUNK):
                k = min(_CHUNK, n - start)
                parts.append(stat(center + law.noise(sd, (k, m), rng)))
            out.append(np.concatenate(parts) if parts else np.zeros(0))
        return out[0], out[1]

    # scalar shortcut: z1 = <z, u> ~ N(0, 1), Q = ||z - z1 u||^2 ~ chi2(m - 1) (the unit noise of the
    # mechanism: 1.0 * z is z exactly, so the draws are the stream's own values, in the same order)
    rest = getattr(law, "residual_norm2", None)  # rotation-invariant noise only (Gaussian)
    if rest is None:
        raise BlowfishError(f"audit: the scalar sampler needs Gaussian noise (the {law.label} mechanism has no "
                            "residual_norm2). Fix: use sampler='full'")
    z0, z1 = law.noise(1.0, n, rng), law.noise(1.0, n, rng)
    if s == sp:
        return s * z0, d + s * z1
    q0 = rest(m, n, rng)
    q1 = rest(m, n, rng)
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
    scales), y = H + b Lap(0, 1)^m on D and H' + b Lap(0, 1)^m on D', whole histograms drawn by the
    mechanism (``pair.law.noise``)."""
    H, Hp, b = pair.H, pair.H_prime, pair.sigma
    law = pair.law
    unit = b if b > 0 else 1.0
    out = []
    for center in (H, Hp):
        parts = []
        for start in range(0, n, _CHUNK):
            k = min(_CHUNK, n - start)
            y = center + law.noise(b, (k, H.size), rng)
            t = (np.abs(y - H).sum(axis=1) - np.abs(y - Hp).sum(axis=1)) / unit
            # in likelihood-ratio units, rounded to 1e-9: removes floating-point jitter of the
            # atom at ||H' - H||_1 / b (else the test finds rounding artefacts of y, the
            # floating-point leak of textbook samplers, not the mechanism's privacy loss)
            parts.append(np.round(t, 9))
        out.append(np.concatenate(parts) if parts else np.zeros(0))
    return out[0], out[1]


def pair_statistic(pair: AuditPair, y: np.ndarray) -> np.ndarray:
    """The audit's test statistic of noisy histograms y.

    Equal noise on both sides: the projection on the direction H -> H' (the likelihood ratio is
    monotone in it); else the Gaussian log-likelihood ratio up to constants (one side noise-free:
    its distance).

    Parameters
    ----------
    pair : AuditPair
        The audited pair.
    y : (k, m) float ndarray
        Noisy vote histograms.

    Returns
    -------
    (k,) float ndarray
        T of each histogram.
    """
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
