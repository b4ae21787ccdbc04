"""blowfish_core.base.numerics (issue 23 "Lean imports"): the math-only brentq, log_ndtr and the
Student-t quantile that keep scipy off the release path, checked against scipy itself."""

import math

import numpy as np
import pytest
from scipy import optimize, special, stats

from blowfish_core.base.numerics import RTOL_MIN, brentq, log_ndtr, student_t_ppf


def _functions():
    """(f, a, b) brackets of several shapes: smooth, flat near the root, steep, log-space."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        c = float(rng.uniform(-3, 3))
        yield (lambda x, c=c: math.tanh(x - c) + 0.1 * (x - c) ** 3), -5.0, 5.0
        k = float(rng.uniform(1, 9))
        yield (lambda x, c=c, k=k: (x - c) ** 3 * k - 1e-3), c - 4.0, c + 5.0
        yield (lambda x, k=k: math.exp(x) - k), 0.0, 3.0
    for mu in (1e-4, 0.05, 0.3, 2.0, 30.0):  # the accounting's own curve (log delta(eps) - log 1e-5)
        def g(eps, mu=mu):
            a, b = -eps / mu + mu / 2, -eps / mu - mu / 2
            la, lb = float(special.log_ndtr(a)), eps + float(special.log_ndtr(b))
            frac = -math.expm1(min(lb - la, 0.0))
            v = -math.inf if frac <= 0.0 else la + math.log(frac)
            return max(v, -1e6) - math.log(1e-5)
        hi = mu * mu / 2 + 2 * mu * math.sqrt(-math.log(1e-5) / 2)
        while g(hi) > 0:
            hi *= 2
        if g(0.0) > 0:
            yield g, 0.0, hi


@pytest.mark.parametrize("tol", [(2e-12, RTOL_MIN), (1e-300, 4e-15), (1e-3, 1e-6)])
def test_brentq_takes_scipys_steps_bit_for_bit(tol):
    xtol, rtol = tol
    n = 0
    for f, a, b in _functions():
        ours = brentq(f, a, b, xtol=xtol, rtol=rtol, maxiter=500)
        theirs = optimize.brentq(f, a, b, xtol=xtol, rtol=rtol, maxiter=500)
        assert ours == theirs, (a, b, ours, theirs)
        n += 1
    assert n > 600


def test_brentq_ends_and_refusals():
    assert brentq(lambda x: x, 0.0, 1.0) == 0.0  # a root at an end is returned as is
    assert brentq(lambda x: x - 1.0, 0.0, 1.0) == 1.0
    with pytest.raises(ValueError, match="opposite signs"):
        brentq(lambda x: x * x + 1.0, -1.0, 1.0)
    with pytest.raises(ValueError, match="rtol"):
        brentq(lambda x: x, -1.0, 1.0, rtol=1e-17)
    with pytest.raises(ValueError, match="xtol"):
        brentq(lambda x: x, -1.0, 1.0, xtol=0.0)
    with pytest.raises(RuntimeError, match="did not converge"):
        brentq(lambda x: math.exp(x) - 1.3, 0.0, 1.0, xtol=1e-300, maxiter=2)


def test_log_ndtr_within_a_few_ulp_of_scipy():
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.uniform(-40, 10, 20000), rng.uniform(-1, 1, 5000), -np.exp(rng.uniform(-30, 9, 5000)),
                         np.linspace(-1e4, -40, 200), [-20.0, -1.0, 0.0, 1.0, 6.0, 38.0]])
    ours = np.array([log_ndtr(float(x)) for x in xs])
    theirs = special.log_ndtr(xs)
    assert np.all(np.isfinite(ours)) and np.all(ours <= 0.0)
    ulp = np.abs(ours - theirs) / np.spacing(np.abs(theirs))
    far = xs < 1.0  # log Phi is not tiny: both are accurate to a few ulp
    assert ulp[far].max() <= 8
    # right tail, log Phi ~ -Phi(-x): relative agreement (scipy's erfc is the less accurate one there),
    # down to where scipy's value underflows to -0.0 (x > 37.5; ours is then a subnormal or -0.0)
    tail = ~far & (np.abs(theirs) > 1e-300)
    assert np.max(np.abs(ours[tail] - theirs[tail]) / np.abs(theirs[tail])) < 1e-13
    assert np.all(np.abs(ours[~far & ~tail]) < 1e-300)
    assert log_ndtr(-math.inf) == -math.inf and log_ndtr(math.inf) == 0.0 and math.isnan(log_ndtr(math.nan))


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 7, 10, 29, 100, 999])
def test_student_t_ppf_matches_scipy(df):
    for p in (0.6, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995):
        assert student_t_ppf(p, df) == pytest.approx(float(stats.t.ppf(p, df)), rel=1e-13, abs=0)
        assert student_t_ppf(1 - p, df) == -student_t_ppf(p, df)
    assert student_t_ppf(0.9995, df) == pytest.approx(float(stats.t.ppf(0.9995, df)), rel=1e-12)
    assert student_t_ppf(0.5, df) == 0.0


def test_student_t_ppf_refuses_bad_input():
    for df in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="df"):
            student_t_ppf(0.975, df)
    for p in (0.0, 1.0, -0.1, math.nan):
        with pytest.raises(ValueError, match="p must be"):
            student_t_ppf(p, 3)
