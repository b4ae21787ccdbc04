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
    """The names of opendp.prelude this module uses, 'contrib' enabled (imported on first use).

    Built from opendp's core modules rather than ``opendp.prelude``: the prelude also imports
    ``opendp.extras.*``, which pulls in scipy (and scikit-learn's whole stack when it is installed)
    on the release path (tests/test_imports.py).
    """
    global _dp
    if _dp is None:
        try:
            import types

            import opendp.domains as dom
            import opendp.measurements as meas
            import opendp.measures as mes
            import opendp.metrics as met
            import opendp.mod as mod
        except ImportError:  # pragma: no cover - opendp is in requirements.txt
            raise BlowfishError("release mode needs the 'opendp' package. Fix: pip install opendp") from None
        mod.enable_features("contrib")
        _dp = types.SimpleNamespace(m=meas, atom_domain=dom.atom_domain, vector_domain=dom.vector_domain,
                                    l1_distance=met.l1_distance, l2_distance=met.l2_distance,
                                    linf_distance=met.linf_distance,
                                    zero_concentrated_divergence=mes.zero_concentrated_divergence,
                                    enable_features=mod.enable_features)
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
    """OpenDP's Gaussian ``scale`` for l2 sensitivity Delta at zCDP budget rho.

    sigma = Delta / sqrt(2 rho) (Thm 2.6).

    Parameters
    ----------
    sensitivity : float
        l2 sensitivity Delta, finite, ``>= 0`` (histogram count units).
    rho : float
        zCDP budget, finite, ``> 0``.

    Returns
    -------
    float
        sigma, in histogram count units.

    Raises
    ------
    BudgetError
        If ``sensitivity < 0``, ``rho <= 0`` or either is not a finite number.
    """
    return _check_sensitivity(sensitivity) / math.sqrt(2.0 * _check_positive(rho, "rho"))


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """OpenDP's Laplace ``scale`` for l1 sensitivity Delta_1 at pure epsilon: b = Delta_1 / epsilon.

    Parameters
    ----------
    sensitivity : float
        l1 sensitivity Delta_1, finite, ``>= 0`` (histogram count units).
    epsilon : float
        Pure-DP budget in nats, finite, ``> 0``.

    Returns
    -------
    float
        b, in histogram count units.

    Raises
    ------
    BudgetError
        If ``sensitivity < 0``, ``epsilon <= 0`` or either is not a finite number.
    """
    return _check_sensitivity(sensitivity) / _check_positive(epsilon, "epsilon")


def gaussian_measurement(scale: float, discrete: bool = False):
    """OpenDP vector Gaussian measurement (zCDP) at ``scale``.

    Input metric l2_distance(float).

    Parameters
    ----------
    scale : float
        OpenDP's Gaussian scale (the standard deviation sigma), count units.
    discrete : bool, default False
        The discrete Gaussian on int64 vectors when true, else the float Gaussian.

    Returns
    -------
    opendp Measurement
        ``dp.m.make_gaussian`` on ``vector_domain`` of int64 or non-NaN float atoms.

    Raises
    ------
    BlowfishError
        If the ``opendp`` package is not installed.
    """
    dp = _opendp()
    atom = dp.atom_domain(T="i64") if discrete else dp.atom_domain(T=float, nan=False)
    return dp.m.make_gaussian(dp.vector_domain(atom), dp.l2_distance(T=float), scale=float(scale))


def laplace_measurement(scale: float, discrete: bool = False):
    """OpenDP vector Laplace measurement (pure DP) at ``scale``.

    Input metric l1_distance(float).

    Parameters
    ----------
    scale : float
        OpenDP's Laplace scale b, count units.
    discrete : bool, default False
        The discrete Laplace on int64 vectors when true, else the float Laplace.

    Returns
    -------
    opendp Measurement
        ``dp.m.make_laplace`` on ``vector_domain`` of int64 or non-NaN float atoms.

    Raises
    ------
    BlowfishError
        If the ``opendp`` package is not installed.
    """
    dp = _opendp()
    atom = dp.atom_domain(T="i64") if discrete else dp.atom_domain(T=float, nan=False)
    return dp.m.make_laplace(dp.vector_domain(atom), dp.l1_distance(T=float), scale=float(scale))


def gaussian_rho(sensitivity: float, scale: float, discrete: bool = False) -> float:
    """rho that OpenDP's privacy map certifies for l2 sensitivity Delta at ``scale``.

    Parameters
    ----------
    sensitivity : float
        l2 sensitivity Delta, finite, ``>= 0``.
    scale : float
        OpenDP's Gaussian scale sigma.
    discrete : bool, default False
        Map of the discrete Gaussian (int64) instead of the float one.

    Returns
    -------
    float
        rho (zCDP) of the measurement at d_in = Delta.

    Raises
    ------
    BudgetError
        For a negative or non-finite sensitivity.
    """
    return float(gaussian_measurement(scale, discrete).map(_check_sensitivity(sensitivity)))


def laplace_epsilon(sensitivity: float, scale: float, discrete: bool = False) -> float:
    """epsilon that OpenDP's privacy map certifies for l1 sensitivity Delta_1 at ``scale``.

    Parameters
    ----------
    sensitivity : float
        l1 sensitivity Delta_1, finite, ``>= 0``.
    scale : float
        OpenDP's Laplace scale b.
    discrete : bool, default False
        Map of the discrete Laplace (int64) instead of the float one.

    Returns
    -------
    float
        epsilon (nats) of the measurement at d_in = Delta_1.

    Raises
    ------
    BudgetError
        For a negative or non-finite sensitivity.
    """
    return float(laplace_measurement(scale, discrete).map(_check_sensitivity(sensitivity)))


# ------------------------------------------------------------------ samplers
def opendp_gaussian(h: Any, sensitivity: float, rho: float, discrete: bool | None = None) -> np.ndarray:
    """Noisy histogram ``h + N(0, sigma^2 I)``, sigma = Delta / sqrt(2 rho), by OpenDP.

    Unseeded: OS entropy.

    Parameters
    ----------
    h : (m,) array_like
        Vote histogram (count units).
    sensitivity : float
        Its l2 sensitivity Delta_t ``>= 0``.
    rho : float
        The round's zCDP budget rho_t ``> 0``.
    discrete : bool, optional
        None -> discrete Gaussian when h has an integer dtype (hard votes), float
        Gaussian otherwise; True/False forces it.

    Returns
    -------
    (m,) int64 or float64 ndarray
        int64 (discrete) or float64; a copy of h when Delta = 0 (no noise needed).

    Raises
    ------
    BudgetError
        For a bad sensitivity or rho.
    BlowfishError
        For a bad histogram (not 1-D and non-empty, non-finite, not whole counts
        for discrete noise, too large for 64-bit discrete noise).
    """
    scale = gaussian_scale(sensitivity, rho)
    a, disc = _histogram(h, discrete)
    if scale == 0.0:
        return a.copy()
    return np.asarray(gaussian_measurement(scale, disc)(a.tolist()), dtype=np.int64 if disc else np.float64)


def opendp_laplace(h: Any, sensitivity: float, epsilon: float, discrete: bool | None = None) -> np.ndarray:
    """Noisy histogram ``h + Lap(b)^m``, b = Delta_1 / epsilon, by OpenDP (pure epsilon-DP).

    Otherwise as :func:`opendp_gaussian` (discrete Laplace for integer histograms).

    Parameters
    ----------
    h : (m,) array_like
        Vote histogram (count units).
    sensitivity : float
        l1 sensitivity Delta_1 (hard 2, soft 2 tanh(r / (2 tau)); DESIGN §3).
    epsilon : float
        The round's pure-DP budget epsilon_t ``> 0`` (nats).
    discrete : bool, optional
        None -> discrete Laplace when h has an integer dtype, float Laplace
        otherwise; True/False forces it.

    Returns
    -------
    (m,) int64 or float64 ndarray
        int64 (discrete) or float64; a copy of h when Delta_1 = 0.

    Raises
    ------
    BudgetError
        For a bad sensitivity or epsilon.
    BlowfishError
        For a bad histogram, as :func:`opendp_gaussian`.
    """
    scale = laplace_scale(sensitivity, epsilon)
    a, disc = _histogram(h, discrete)
    if scale == 0.0:
        return a.copy()
    return np.asarray(laplace_measurement(scale, disc)(a.tolist()), dtype=np.int64 if disc else np.float64)


#: the OpenDP measurement of each additive noise kind (the one place a kind name picks a measurement).
MEASUREMENTS = {"gaussian": gaussian_measurement, "laplace": laplace_measurement}


def opendp_noisy(h: Any, scale: float, kind: str = "gaussian", discrete: bool | None = None) -> np.ndarray:
    """Noisy histogram at a given noise ``scale`` (sigma_t or b_t).

    The release-mode draw of the loop (mechanisms.GaussianOpenDP / LaplaceOpenDP).

    Parameters
    ----------
    h : (m,) array_like
        Vote histogram.
    scale : float
        Noise scale sigma_t or b_t, finite, ``>= 0`` (count units); 0: a copy of h.
    kind : {"gaussian", "laplace"}, default "gaussian"
        'gaussian' (OpenDP make_gaussian) or 'laplace' (make_laplace).
    discrete : bool, optional
        True for whole counts (hard votes: the discrete Gaussian / Laplace; the
        values are rounded to the nearest whole number first, which for hard votes
        changes nothing), False for float noise, None: by the dtype of h.

    Returns
    -------
    (m,) int64 or float64 ndarray
        int64 (discrete) or float64.

    Raises
    ------
    BlowfishError
        For an unknown ``kind`` or a bad histogram.
    BudgetError
        For a negative or non-finite ``scale``.
    """
    if kind not in MEASUREMENTS:
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
    meas = MEASUREMENTS[kind]
    return np.asarray(meas(float(scale), disc)(a.tolist()), dtype=np.int64 if disc else np.float64)


def opendp_gaussian_draws(h: Any, scale: float, n_draws: int, discrete: bool | None = None) -> np.ndarray:
    """``n_draws`` independent noisy copies of h at a given Gaussian ``scale``.

    One OpenDP call on the tiled vector (every coordinate an independent draw of the same
    sampler); for audits and statistical tests, not for releases.

    Parameters
    ----------
    h : (m,) array_like
        Vote histogram (count units).
    scale : float
        OpenDP's Gaussian scale sigma; 0 returns copies.
    n_draws : int
        Number of copies, a whole number ``>= 1``.
    discrete : bool, optional
        Discrete Gaussian (True), float (False) or by the dtype of h (None).

    Returns
    -------
    (n_draws, m) int64 or float64 ndarray
        One noisy copy of h per row.

    Raises
    ------
    BlowfishError
        For a bad histogram or ``n_draws`` that is not a whole number >= 1.
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
    ``make_noisy_max`` privacy map at d_in = Delta gives epsilon back (tests/synthesis/test_release_gate.py).

    Parameters
    ----------
    sensitivity : float
        Delta of every score, ``> 0`` (score units).
    epsilon : float
        The selection's pure-DP budget, ``> 0`` (nats).

    Returns
    -------
    float
        The Gumbel scale 2 Delta / epsilon (score units).

    Raises
    ------
    BudgetError
        For a sensitivity <= 0 or a bad epsilon.
    """
    return 2.0 * _check_positive(sensitivity, "sensitivity") / _check_positive(epsilon, "epsilon")


def opendp_noisy_max(scores: Any, sensitivity: float, epsilon: float) -> int:
    """The index of the highest score plus Gumbel noise, drawn by OpenDP (release mode).

    OpenDP's ``make_noisy_max`` with ``zero_concentrated_divergence``: Gumbel noise (OS CSPRNG, no
    floating-point textbook sampler), i.e. exactly the exponential mechanism's distribution, at scale
    :func:`noisy_max_scale`; its privacy map (rho = epsilon^2 / 8, the bounded-range zCDP cost the
    ledger records) is checked.  (With ``max_divergence`` OpenDP draws exponential noise instead --
    permute-and-flip, MS20 -- which is epsilon-DP but not the distribution the ledger's epsilon^2/8
    assumes, so it is not used.)

    Parameters
    ----------
    scores : (K,) array_like of float
        Finite scores, score units (higher is better).
    sensitivity : float
        Delta of every score (l-infinity over neighbouring tables, score units).
    epsilon : float
        The selection's pure-DP budget (nats).

    Returns
    -------
    int
        The chosen index, in [0, K).

    Raises
    ------
    BudgetError
        For bad arguments or a map mismatch.
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
