"""Release-mode noise: OpenDP's floating-point-safe and discrete samplers (issue 11).

Phase 1 (functions); a later phase turns them into Mechanism plug-ins of
``blowfish_core/privacy/mechanisms/``.  DESIGN §7: noise for a release is drawn by a
floating-point-safe sampler from the operating system's randomness; numpy's normal
stays for seeded study runs.

Samplers (the ``opendp`` package, ``import opendp.prelude as dp``; features "contrib"):

* float histogram (soft votes), Gaussian: ``dp.m.make_gaussian`` on
  ``vector_domain(atom_domain(T=float, nan=False))`` with ``l2_distance(T=float)``;
  OpenDP samples the exact Gaussian on a fine grid of 2^k and rounds -- no textbook
  floating-point sampler (Mironov 2012; Jin et al. 2022);
* integer histogram (hard votes: integer counts), Gaussian: the same constructor on
  ``atom_domain(T="i64")`` is the **discrete Gaussian** (Canonne, Kamath & Steinke 2020);
* Laplace (pure epsilon, the l1 variant of DESIGN §3): ``dp.m.make_laplace`` with
  ``l1_distance(T=float)``; on integers it is the discrete Laplace (geometric) mechanism.

Scale mapping (checked by tests against OpenDP's own privacy map):

* Gaussian: OpenDP's ``scale`` is the standard deviation parameter, and its zCDP map is
  ``rho = (Delta / scale)^2 / 2``.  So ``scale = sigma = Delta / sqrt(2 rho)`` -- our
  sigma_t of Thm 2.6 (``accounting.gaussian_sigma``), for the continuous and the discrete
  Gaussian alike (the discrete Gaussian with parameter sigma is Delta^2/(2 sigma^2)-zCDP).
* Laplace: ``scale = b = Delta_1 / epsilon``, OpenDP's pure-DP map ``epsilon = Delta_1 / b``.

Randomness: OpenDP draws from the operating system's CSPRNG; there is no seed and
nothing about it is recorded except :data:`RANDOMNESS` ("unseeded, OS entropy, sampler
opendp").  Routing to the discrete sampler follows the **dtype** of the histogram (an
integer array; or ``discrete=True``), never its values: choosing the mechanism from the
private counts would itself depend on the data.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base.errors import BlowfishError, BudgetError

#: what a release's ledger may say about its randomness (nothing else is recorded).
RANDOMNESS = "unseeded, OS entropy, sampler opendp"
SAMPLER = "opendp"

_dp = None


def _opendp():
    """opendp.prelude with the 'contrib' features enabled (imported on first use)."""
    global _dp
    if _dp is None:
        try:
            import opendp.prelude as dp
        except ImportError:  # pragma: no cover - opendp is in requirements.txt
            raise BlowfishError("release mode needs the 'opendp' package. Fix: pip install opendp") from None
        dp.enable_features("contrib")
        _dp = dp
    return _dp


# ------------------------------------------------------------------ checks
def _check_sensitivity(sensitivity: Any) -> float:
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(sensitivity)) or sensitivity < 0:
        raise BudgetError(f"sensitivity must be a finite number >= 0 (got {sensitivity!r})")
    return float(sensitivity)


def _check_positive(v: Any, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(float(v)) \
            or v <= 0:
        raise BudgetError(f"{name} must be a finite number > 0 (got {v!r})")
    return float(v)


def _histogram(h: Any, discrete: bool | None) -> tuple[np.ndarray, bool]:
    a = np.asarray(h)
    if a.ndim != 1 or a.size == 0:
        raise BlowfishError(f"histogram must be a non-empty 1-D array (got shape {a.shape})")
    if discrete is None:
        discrete = bool(np.issubdtype(a.dtype, np.integer))
    if discrete:
        if not (np.issubdtype(a.dtype, np.integer) or (np.isfinite(a).all() and np.all(np.mod(a, 1) == 0))):
            raise BlowfishError("discrete noise needs an integer-valued histogram (whole counts)")
        if np.abs(a).max() >= 2**62:
            raise BlowfishError("histogram counts are too large for 64-bit discrete noise")
        return a.astype(np.int64), True
    a = a.astype(np.float64)
    if not np.isfinite(a).all():
        raise BlowfishError("histogram holds NaN or infinite counts; noise cannot be added")
    return a, False


# ------------------------------------------------------------------ scales and maps
def gaussian_scale(sensitivity: float, rho: float) -> float:
    """OpenDP's Gaussian ``scale`` for l2 sensitivity Delta at zCDP budget rho:
    sigma = Delta / sqrt(2 rho) (Thm 2.6), in histogram count units."""
    return _check_sensitivity(sensitivity) / math.sqrt(2.0 * _check_positive(rho, "rho"))


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """OpenDP's Laplace ``scale`` for l1 sensitivity Delta_1 at pure epsilon: b = Delta_1 / epsilon."""
    return _check_sensitivity(sensitivity) / _check_positive(epsilon, "epsilon")


def gaussian_measurement(scale: float, discrete: bool = False):
    """OpenDP vector Gaussian measurement (zCDP) at ``scale``: discrete Gaussian on int64
    vectors when ``discrete``, else the float Gaussian; input metric l2_distance(float)."""
    dp = _opendp()
    atom = dp.atom_domain(T="i64") if discrete else dp.atom_domain(T=float, nan=False)
    return dp.m.make_gaussian(dp.vector_domain(atom), dp.l2_distance(T=float), scale=float(scale))


def laplace_measurement(scale: float, discrete: bool = False):
    """OpenDP vector Laplace measurement (pure DP) at ``scale``: discrete Laplace on int64
    vectors when ``discrete``, else float Laplace; input metric l1_distance(float)."""
    dp = _opendp()
    atom = dp.atom_domain(T="i64") if discrete else dp.atom_domain(T=float, nan=False)
    return dp.m.make_laplace(dp.vector_domain(atom), dp.l1_distance(T=float), scale=float(scale))


def gaussian_rho(sensitivity: float, scale: float, discrete: bool = False) -> float:
    """rho that OpenDP's privacy map certifies for l2 sensitivity Delta at ``scale``."""
    return float(gaussian_measurement(scale, discrete).map(_check_sensitivity(sensitivity)))


def laplace_epsilon(sensitivity: float, scale: float, discrete: bool = False) -> float:
    """epsilon that OpenDP's privacy map certifies for l1 sensitivity Delta_1 at ``scale``."""
    return float(laplace_measurement(scale, discrete).map(_check_sensitivity(sensitivity)))


# ------------------------------------------------------------------ samplers
def opendp_gaussian(h: Any, sensitivity: float, rho: float, discrete: bool | None = None) -> np.ndarray:
    """Noisy histogram ``h + N(0, sigma^2 I)``, sigma = Delta / sqrt(2 rho), by OpenDP.

    h: (m,) vote histogram (count units).  sensitivity: its l2 sensitivity Delta_t >= 0.
    rho: the round's zCDP budget rho_t > 0.  discrete: None -> discrete Gaussian when h has
    an integer dtype (hard votes), float Gaussian otherwise; True/False forces it.
    Returns (m,) int64 (discrete) or float64; a copy of h when Delta = 0 (no noise needed).
    Unseeded: OS entropy.  Raises BudgetError / BlowfishError for bad inputs.
    """
    scale = gaussian_scale(sensitivity, rho)
    a, disc = _histogram(h, discrete)
    if scale == 0.0:
        return a.copy()
    return np.asarray(gaussian_measurement(scale, disc)(a.tolist()), dtype=np.int64 if disc else np.float64)


def opendp_laplace(h: Any, sensitivity: float, epsilon: float, discrete: bool | None = None) -> np.ndarray:
    """Noisy histogram ``h + Lap(b)^m``, b = Delta_1 / epsilon, by OpenDP (pure epsilon-DP).

    sensitivity: l1 sensitivity Delta_1 (hard 2, soft 2 tanh(r / (2 tau)); DESIGN §3).
    Otherwise as :func:`opendp_gaussian` (discrete Laplace for integer histograms).
    """
    scale = laplace_scale(sensitivity, epsilon)
    a, disc = _histogram(h, discrete)
    if scale == 0.0:
        return a.copy()
    return np.asarray(laplace_measurement(scale, disc)(a.tolist()), dtype=np.int64 if disc else np.float64)


def opendp_noisy(h: Any, scale: float, kind: str = "gaussian", discrete: bool | None = None) -> np.ndarray:
    """Noisy histogram at a given noise ``scale`` (sigma_t or b_t): the release-mode draw of
    the loop (mechanisms.GaussianOpenDP / LaplaceOpenDP).

    h: (m,) vote histogram.  kind: 'gaussian' (OpenDP make_gaussian) or 'laplace'
    (make_laplace).  discrete: True for whole counts (hard votes: the discrete Gaussian /
    Laplace; the values are rounded to the nearest whole number first, which for hard votes
    changes nothing), False for float noise, None: by the dtype of h.  scale 0: a copy of h.
    Returns (m,) int64 (discrete) or float64.  Raises BlowfishError / BudgetError.
    """
    if kind not in ("gaussian", "laplace"):
        raise BlowfishError(f"opendp_noisy: kind must be 'gaussian' or 'laplace' (got {kind!r})")
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(scale)) or scale < 0:
        raise BudgetError(f"noise scale must be a finite number >= 0 (got {scale!r})")
    a = np.asarray(h)
    if discrete and not np.issubdtype(a.dtype, np.integer):
        a = np.rint(np.asarray(a, dtype=np.float64))
    a, disc = _histogram(a, discrete)
    if float(scale) == 0.0:
        return a.copy()
    meas = gaussian_measurement if kind == "gaussian" else laplace_measurement
    return np.asarray(meas(float(scale), disc)(a.tolist()), dtype=np.int64 if disc else np.float64)


def opendp_gaussian_draws(h: Any, scale: float, n_draws: int, discrete: bool | None = None) -> np.ndarray:
    """``n_draws`` independent noisy copies of h at a given Gaussian ``scale``: (n_draws, m).

    One OpenDP call on the tiled vector (every coordinate an independent draw of the same
    sampler); for audits and statistical tests, not for releases.  scale 0 returns copies.
    """
    a, disc = _histogram(h, discrete)
    if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
        raise BlowfishError(f"n_draws must be a whole number >= 1 (got {n_draws!r})")
    tiled = np.tile(a, int(n_draws))
    if float(scale) == 0.0:
        return tiled.reshape(int(n_draws), a.size)
    out = np.asarray(gaussian_measurement(scale, disc)(tiled.tolist()), dtype=np.int64 if disc else np.float64)
    return out.reshape(int(n_draws), a.size)


# ------------------------------------------------------------------ selection (issue 21)
def noisy_max_scale(sensitivity: float, epsilon: float) -> float:
    """Gumbel scale of the exponential mechanism as report-noisy-max: 2 Delta / epsilon (score units).

    The exponential mechanism with probabilities proportional to exp(epsilon u / (2 Delta)) (McSherry &
    Talwar 2007; papers/001 Def. 2.4) is report-noisy-max with Gumbel noise of this scale; OpenDP's
    ``make_noisy_max`` privacy map at d_in = Delta gives epsilon back (tests/test_release_gate.py).
    Raises BudgetError for a sensitivity <= 0 or a bad epsilon."""
    return 2.0 * _check_positive(sensitivity, "sensitivity") / _check_positive(epsilon, "epsilon")


def opendp_noisy_max(scores: Any, sensitivity: float, epsilon: float) -> int:
    """The index of the highest score plus Gumbel noise, drawn by OpenDP (release mode).

    scores: (K,) finite float, score units (higher is better); sensitivity: Delta of every score
    (l-infinity over neighbouring tables, score units); epsilon: the selection's pure-DP budget.
    OpenDP's ``make_noisy_max`` with ``zero_concentrated_divergence``: Gumbel noise (OS CSPRNG, no
    floating-point textbook sampler), i.e. exactly the exponential mechanism's distribution, at scale
    :func:`noisy_max_scale`; its privacy map (rho = epsilon^2 / 8, the bounded-range zCDP cost the
    ledger records) is checked.  (With ``max_divergence`` OpenDP draws exponential noise instead --
    permute-and-flip, MS20 -- which is epsilon-DP but not the distribution the ledger's epsilon^2/8
    assumes, so it is not used.)
    Returns an int in [0, K).  Raises BudgetError for bad arguments or a map mismatch.
    """
    dp = _opendp()
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1 or s.size == 0 or not np.isfinite(s).all():
        raise BudgetError("scores must be a non-empty 1-D array of finite numbers")
    scale = noisy_max_scale(sensitivity, epsilon)
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    meas = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=scale)
    rho_map, rho_claim = float(meas.map(float(sensitivity))), float(epsilon) ** 2 / 8.0
    if rho_map > rho_claim * (1 + 1e-9):
        raise BudgetError(f"OpenDP's noisy-max map gives rho {rho_map:g} > epsilon^2/8 = {rho_claim:g}")
    return int(meas([float(x) for x in s]))
