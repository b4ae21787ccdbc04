"""Scalar numerics the default paths need, in ``math`` only (issue 23 "Lean imports").

The release path's accounting (epsilon of a rho-zCDP run, rho of an epsilon target) and the
t-intervals of a multi-seed run or a pilot need three small pieces of scipy: a bracketing root
finder, ``log Phi`` and a Student-t quantile.  Importing scipy for them costs 0.3-1.2 s of a CLI
run that spends about 0.5 ms in the arithmetic, so they are written here once:

* :func:`brentq` -- scipy.optimize.brentq's algorithm (Brent 1973 as in scipy's ``brentq.c``,
  by Charles Harris), step for step: for the same function, bracket and tolerances it evaluates
  the same points and returns the same float (tests/base/test_numerics.py checks this against
  scipy bit for bit).
* :func:`log_ndtr` -- ``log Phi(x)`` from ``math.erfc`` and, in the far left tail, the
  asymptotic series of Mills' ratio.  Within a few ulp of ``scipy.special.log_ndtr`` (which
  evaluates erfc differently), not bit-identical to it.
* :func:`student_t_ppf` -- the Student-t quantile for a whole number of degrees of freedom, from
  the closed-form CDF (Abramowitz & Stegun 26.7.3-26.7.4) and :func:`brentq`; within 4e-15
  relative of the exact quantile at p = 0.975 for df <= 100 (as ``scipy.stats.t.ppf`` is), 3e-13 at
  p = 0.9995 and df = 1000.
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: ``0.5 * log(2 pi)``.
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
#: The smallest relative tolerance scipy's brentq accepts (``4 * machine epsilon``).
RTOL_MIN = 4.0 * 2.220446049250313e-16


def brentq(f: Callable[[float], float], a: float, b: float, xtol: float = 2e-12, rtol: float = RTOL_MIN,
           maxiter: int = 100) -> float:
    """A root of ``f`` in the bracket ``[a, b]`` by Brent's method (scipy.optimize.brentq's steps).

    Inverse quadratic extrapolation or secant steps where they shrink the bracket fast enough,
    bisection otherwise; stops when the bracket's half-width is below ``(xtol + rtol |x|) / 2``.
    The iteration is scipy's ``brentq.c`` line for line, so a function that returns the same
    floats gives the same root.

    Parameters
    ----------
    f : callable
        ``f(x) -> float``, continuous on the bracket, with ``f(a)`` and ``f(b)`` of opposite signs.
    a, b : float
        The bracket's ends (either order).
    xtol : float
        Absolute tolerance, ``> 0``.
    rtol : float
        Relative tolerance, ``>= 4 * machine epsilon`` (:data:`RTOL_MIN`).
    maxiter : int
        Most iterations, ``>= 0``.

    Returns
    -------
    float
        ``x`` with ``f(x) == 0`` or within the tolerance of a sign change of ``f``.

    Raises
    ------
    ValueError
        If ``f(a)`` and ``f(b)`` have the same sign, or a tolerance or ``maxiter`` is out of range.
    RuntimeError
        If the bracket did not shrink to the tolerance in ``maxiter`` iterations.
    """
    if not xtol > 0.0:
        raise ValueError(f"xtol must be > 0 (got {xtol!r}). Fix: pass a positive absolute tolerance")
    if not rtol >= RTOL_MIN:
        raise ValueError(f"rtol must be >= {RTOL_MIN!r} (got {rtol!r}). Fix: pass rtol >= 4 machine epsilons")
    if maxiter < 0:
        raise ValueError(f"maxiter must be >= 0 (got {maxiter!r})")
    xpre, xcur = float(a), float(b)
    xblk = fblk = spre = scur = 0.0
    fpre, fcur = float(f(xpre)), float(f(xcur))
    if fpre == 0.0:
        return xpre
    if fcur == 0.0:
        return xcur
    if math.copysign(1.0, fpre) == math.copysign(1.0, fcur):
        raise ValueError(f"f(a) and f(b) must have opposite signs (f({xpre!r}) = {fpre!r}, f({xcur!r}) = {fcur!r}). "
                         "Fix: widen the bracket until it contains a sign change")
    for _ in range(maxiter):
        if fpre != 0.0 and fcur != 0.0 and math.copysign(1.0, fpre) != math.copysign(1.0, fcur):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):  # keep xcur the best estimate
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2.0
        sbis = (xblk - xcur) / 2.0
        if fcur == 0.0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:  # interpolate (secant)
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:  # extrapolate (inverse quadratic)
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2.0 * abs(stry) < min(abs(spre), 3.0 * abs(sbis) - delta):  # good short step
                spre, scur = scur, stry
            else:
                spre = scur = sbis
        else:
            spre = scur = sbis
        xpre, fpre = xcur, fcur
        xcur += scur if abs(scur) > delta else (delta if sbis > 0 else -delta)
        fcur = float(f(xcur))
    raise RuntimeError(f"brentq did not converge in {maxiter} iterations (last x = {xcur!r})")


def log_ndtr(x: float) -> float:
    """``log Phi(x)``, the log of the standard normal CDF, without overflow or underflow.

    ``log1p(-erfc(x / sqrt 2) / 2)`` for ``x >= -1`` (the same form as scipy's), ``log(erfc(-x /
    sqrt 2) / 2)`` for ``-20 < x < -1``, and below ``-20``, where erfc underflows from about
    ``-37`` on, ``log phi(x) - log|x| + log(sum_k (-1)^k (2k-1)!! / x^(2k))`` (the asymptotic
    series of Mills' ratio, summed until a term no longer changes the sum; its terms shrink
    up to k ~ x^2 / 2 >= 200).

    Parameters
    ----------
    x : float
        Any float; ``-inf`` gives ``-inf``, ``inf`` gives ``0.0``, NaN gives NaN.

    Returns
    -------
    float
        ``log Phi(x)`` in ``[-inf, 0]``, within a few ulp of ``scipy.special.log_ndtr``.
    """
    x = float(x)
    if x >= -1.0:
        return math.log1p(-0.5 * math.erfc(x * math.sqrt(0.5)))
    if x > -20.0:
        return math.log(0.5 * math.erfc(-x * math.sqrt(0.5)))
    if x == -math.inf:
        return -math.inf
    if x != x:  # NaN
        return x
    inv_x2 = 1.0 / (x * x)
    total, term, k = 1.0, 1.0, 0
    while True:
        k += 1
        term *= -(2 * k - 1) * inv_x2
        nxt = total + term
        if nxt == total:
            break
        total = nxt
    return -0.5 * x * x - math.log(-x) - _HALF_LOG_2PI + math.log(total)


def _t_two_sided(theta: float, df: int) -> float:
    """``P(|T| <= sqrt(df) tan theta)`` for ``T ~ t(df)``, ``theta`` in [0, pi/2] (A&S 26.7.3-4)."""
    s, c = math.sin(theta), math.cos(theta)
    c2 = c * c
    if df % 2 == 0:  # sin(theta) (1 + 1/2 c^2 + 1*3/(2*4) c^4 + ... + c^(df-2) term)
        term = total = 1.0
        for j in range(1, df // 2):
            term *= (2 * j - 1) / (2 * j) * c2
            total += term
        return s * total
    if df == 1:
        return 2.0 * theta / math.pi
    # (2/pi) (theta + sin(theta) (c + 2/3 c^3 + 2*4/(3*5) c^5 + ... + c^(df-2) term))
    term = total = c
    for j in range(1, (df - 1) // 2):
        term *= (2 * j) / (2 * j + 1) * c2
        total += term
    return 2.0 / math.pi * (theta + s * total)


def student_t_ppf(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (a whole number).

    Closed forms for ``df`` = 1 (Cauchy) and 2; otherwise the two-sided CDF written with
    ``theta = atan(t / sqrt(df))`` as a finite sum (Abramowitz & Stegun 26.7.3 for odd, 26.7.4
    for even ``df``) is solved for ``theta`` in ``[0, pi/2]`` by :func:`brentq`.

    Parameters
    ----------
    p : float
        Probability in (0, 1).
    df : int
        Degrees of freedom, a whole number ``>= 1``.

    Returns
    -------
    float
        ``t`` with ``P(T <= t) = p``; negative for ``p < 0.5``, 0.0 at 0.5.

    Raises
    ------
    ValueError
        If ``p`` is not in (0, 1) or ``df`` is not a whole number >= 1.
    """
    if isinstance(df, bool) or int(df) != df or df < 1:
        raise ValueError(f"df must be a whole number >= 1 (got {df!r}). Fix: pass the number of values minus one")
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1) (got {p!r})")
    df = int(df)
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -student_t_ppf(1.0 - p, df)
    level = 2.0 * p - 1.0  # P(|T| <= t)
    if df == 1:
        return math.tan(0.5 * math.pi * level)
    if df == 2:
        return level * math.sqrt(2.0 / ((1.0 - level) * (1.0 + level)))
    theta = brentq(lambda th: _t_two_sided(th, df) - level, 0.0, 0.5 * math.pi, xtol=1e-300, rtol=RTOL_MIN,
                   maxiter=500)
    return math.sqrt(df) * math.tan(theta)
