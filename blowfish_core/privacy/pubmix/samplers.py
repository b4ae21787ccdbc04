"""Drawing the release: :func:`pubmix_sample` (numpy, a seeded stream: studies only) and the exact
sampler of releases (issue 21: exact integers, uniform integers from the OS CSPRNG)."""

from __future__ import annotations

import bisect
import itertools
import sys
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ...base.errors import BudgetError, DataError
from .checks import _check_unit, check_beta, check_distribution, check_n, check_n_samples


# ------------------------------------------------------------------ sampling
def pubmix_sample(p_private: Any, p_noise: Any, beta: float, n_samples: int,
                  rng: np.random.Generator) -> np.ndarray:
    """Draw n_samples i.i.d. bin indices from (1 - beta) p_private + beta p_noise (Alg. 1, step 3).

    The mixture is formed inside this call and never returned or stored.

    Parameters
    ----------
    p_private : (d,) array_like of float
        The private distribution.
    p_noise : (d,) array_like of float
        The noise distribution (must come from public data only).
    beta : float
        Mixing weight in [0, 1].
    n_samples : int
        Number of draws.
    rng : numpy.random.Generator
        The seeded stream (study runs).

    Returns
    -------
    (n_samples,) int64 ndarray
        Bin indices in [0, d).

    Raises
    ------
    DataError
        For a bad distribution, lengths that differ, or an ``rng`` that is not a
        numpy Generator.
    BudgetError
        For a bad beta or n_samples.
    """
    pp = check_distribution(p_private, "p_private")
    pn = check_distribution(p_noise, "p_noise")
    if pp.size != pn.size:
        raise DataError(f"p_private and p_noise must have the same length (got {pp.size} and {pn.size})")
    b = check_beta(beta)
    m = check_n_samples(n_samples)
    if not isinstance(rng, np.random.Generator):
        raise DataError(f"rng must be a numpy.random.Generator (got {type(rng).__name__})")
    w = (1.0 - b) * pp + b * pn
    w = w / w.sum()
    out = rng.choice(w.size, size=m, p=w).astype(np.int64)
    del w
    return out


# ------------------------------------------------------------------ exact sampling (releases)
def _entropy():
    """The package :mod:`blowfish_core.privacy.pubmix`, whose ``_os_bytes`` / ``_randbelow`` are
    the OS CSPRNG this sampler reads, looked up at each call (package attributes, so a test
    can check they are called by replacing them there)."""
    return sys.modules[__package__]


#: largest bound drawn with vectorised 64-bit words (larger bounds use Python integers).
_WORD_BOUND = 2**63


def _uniform_below(bound: int, size: int) -> np.ndarray:
    """``size`` i.i.d. integers uniform on {0, ..., bound - 1}, exactly, from the OS CSPRNG.

    bound <= 2^63: vectorised rejection sampling on 64-bit words from ``os.urandom`` (each
    word masked to bit_length(bound - 1) bits, kept iff < bound; every kept value is
    equally likely), int64 (size,).  Larger bounds: ``secrets.randbelow`` per draw, an
    object array of Python ints.  Raises ValueError for bound < 1.
    """
    if bound < 1:
        raise ValueError(f"bound must be >= 1 (got {bound})")
    if bound > _WORD_BOUND:
        randbelow = _entropy()._randbelow
        return np.array([randbelow(bound) for _ in range(size)], dtype=object)
    if bound == 1 or size == 0:
        return np.zeros(size, dtype=np.int64)
    mask = np.uint64((1 << (bound - 1).bit_length()) - 1)
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        need = size - filled
        k = need + need // 2 + 8  # acceptance >= 1/2 per word
        words = np.frombuffer(_entropy()._os_bytes(8 * k), dtype=np.uint64) & mask
        ok = words[words < np.uint64(bound)][:need]
        out[filled:filled + ok.size] = ok.astype(np.int64)
        filled += ok.size
    return out


def _draw_by_weights(weights: Sequence[int], size: int) -> np.ndarray:
    """``size`` i.i.d. indices i with probability weights[i] / sum(weights), exactly.

    weights: non-negative Python ints with a positive sum.  One uniform integer r below the
    sum per draw (:func:`_uniform_below`), then the index of the cumulative interval holding r
    (bisect on the exact cumulative integers).  Returns int64 (size,).
    """
    cum = list(itertools.accumulate(int(w) for w in weights))
    total = cum[-1]
    if size == 0:
        return np.zeros(0, dtype=np.int64)
    r = _uniform_below(total, size)
    if total <= _WORD_BOUND:
        return np.searchsorted(np.asarray(cum, dtype=np.int64), r, side="right").astype(np.int64)
    return np.fromiter((bisect.bisect_right(cum, int(x)) for x in r), dtype=np.int64, count=size)


def exact_noise_weights(p_noise: Any, floor: float | None = None) -> tuple[Fraction, list[int]]:
    """The noise law of :func:`exact_mixture_sample` as exact integers.

    With probability u the noise draw is uniform on the m bins, else it is index i with
    probability w[i] / sum(w).  floor=None: u = 0, w = the floats' exact rationals over
    their common power-of-two denominator, so the law is exactly p_noise / sum(p_noise).
    floor = f: u = m f and w proportional to (p_i - f)_+ (exact), so every mass is
    f + (1 - m f) w_i / sum(w) >= f exactly -- equal to p_noise whenever p_noise is
    (rationally) a distribution with min >= f, and the smallest correction otherwise (w all
    zero: uniform).

    Parameters
    ----------
    p_noise : (m,) array_like of float
        Finite floats >= 0 with a positive sum (public).
    floor : float, optional
        The floor f (min noise mass the accounting assumed), or None.

    Returns
    -------
    tuple of (Fraction, list of int)
        (u, w): u a Fraction in [0, 1]; w Python ints.

    Raises
    ------
    DataError
        For a bad ``p_noise``.
    BudgetError
        For a floor with m f > 1 exactly.
    """
    try:
        x = np.asarray(p_noise, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"p_noise must be a 1-d array of probabilities (got {type(p_noise).__name__})") from None
    if x.ndim != 1 or x.size < 1 or not np.isfinite(x).all() or (x < 0).any() or not x.sum() > 0:
        raise DataError("p_noise must be a non-empty 1-d array of finite numbers >= 0 with a positive sum")
    m = x.size
    # every float is num / 2^k exactly (float.as_integer_ratio); over the common denominator 2^K
    # (K the largest k) entry i is the integer num_i * 2^(K - k_i)
    ratios = [float(v).as_integer_ratio() for v in x.tolist()]
    if floor is None:
        u = Fraction(0)
    else:
        f = Fraction(_check_unit(floor, "floor"))
        u = m * f
        if u > 1:
            raise BudgetError(f"floor {float(floor)!r} is above 1/m for m = {m} bins in exact arithmetic "
                              "(m * floor > 1). Fix: round the floor down (PubMix.plan does for releases)")
        ratios.append((f.numerator, f.denominator))
    K = max(q for _, q in ratios).bit_length() - 1
    ints = [a << (K - (q.bit_length() - 1)) for a, q in ratios]
    if floor is None:
        return u, ints
    fi = ints.pop()
    exc = [v - fi if v > fi else 0 for v in ints]
    return u, exc if any(exc) else [1] * m


def exact_mixture_sample(counts: Any, p_noise: Any, beta: float, n_samples: int,
                         floor: float | None = None) -> np.ndarray:
    """Draw n_samples i.i.d. bin indices from (1 - beta) H/n + beta P_nse EXACTLY, from the OS CSPRNG.

    The release sampler of PubMix / LinMix (papers/003 Alg. 1 step 3; Thm 4.1).

    Why it is exact.  Every float is a dyadic rational, so beta = a / 2^k exactly
    (``Fraction(beta)``).  Each draw: (1) a uniform integer below 2^k is < a with probability
    exactly beta (noise component); (2) private component: a uniform record index r below n,
    bin i iff cum(H)_{i-1} <= r < cum(H)_i: probability H_i / n exactly; (3) noise component:
    with probability u = m f uniform on the bins, else index i with probability w_i / sum(w),
    w the exact integers of :func:`exact_noise_weights`, so every noise mass is >= f exactly.
    Uniform integers come from ``os.urandom`` (rejection sampling, vectorised) or
    ``secrets.randbelow``; no floating-point number is involved in any draw.  So the
    released law is exactly the (beta, H/n, P_nse) mixture of Thm 4.1 (papers/003 Thm 4.1,
    Eqs. (6)-(7)) with min P_nse >= f, and the theorem's (epsilon, delta) holds with no
    floating-point gap in the sampling (the numpy sampler :func:`pubmix_sample`, for seeded
    study runs, forms float weights and inverts a float CDF instead).

    Parameters
    ----------
    counts : (m,) array_like of int
        Whole numbers >= 0, H, the private hard-vote histogram (n = sum >= 1 records).
    p_noise : (m,) array_like of float
        Public noise distribution (floats >= 0, normalised exactly here).
    beta : float
        The mixing weight in [0, 1] (a float, used as its exact rational value).
    n_samples : int
        Draws.
    floor : float, optional
        The floor f the accounting assumed (min P_nse >= f), or None (see
        :func:`exact_noise_weights`).

    Returns
    -------
    (n_samples,) int64 ndarray
        Bin indices in [0, m).

    Raises
    ------
    DataError
        For bad counts or p_noise, or lengths that differ.
    BudgetError
        For a bad beta, n_samples or floor.
    """
    try:
        c = np.asarray(counts)
    except (TypeError, ValueError):
        raise DataError("counts must be a 1-d array of whole numbers") from None
    if c.ndim != 1 or c.size < 1:
        raise DataError(f"counts must be a non-empty 1-d array (got shape {c.shape})")
    if c.dtype.kind == "f":
        if not np.isfinite(c).all() or (c != np.rint(c)).any():
            raise DataError("counts must be whole numbers (the hard vote's integer histogram)")
    elif c.dtype.kind not in "iu":
        raise DataError(f"counts must be whole numbers (got dtype {c.dtype})")
    H = [int(v) for v in c.tolist()]
    if any(v < 0 for v in H) or sum(H) < 1:
        raise DataError("counts must be >= 0 with a positive sum n")
    check_n(sum(H))
    m = check_n_samples(n_samples)
    b = Fraction(check_beta(beta))
    u, w = exact_noise_weights(p_noise, floor)
    if len(w) != len(H):
        raise DataError(f"counts and p_noise must have the same length (got {len(H)} and {len(w)})")
    d = len(H)
    out = np.empty(m, dtype=np.int64)
    noise = _uniform_below(b.denominator, m) < b.numerator if b.numerator else np.zeros(m, dtype=bool)
    if not isinstance(noise, np.ndarray) or noise.dtype != bool:
        noise = np.asarray(noise, dtype=bool)
    k = int(noise.sum())
    out[~noise] = _draw_by_weights(H, m - k)
    if k:
        uni = (_uniform_below(u.denominator, k) < u.numerator) if u.numerator else np.zeros(k, dtype=bool)
        uni = np.asarray(uni, dtype=bool)
        nz = np.empty(k, dtype=np.int64)
        ku = int(uni.sum())
        nz[uni] = _uniform_below(d, ku)
        nz[~uni] = _draw_by_weights(w, k - ku)
        out[noise] = nz
    return out
