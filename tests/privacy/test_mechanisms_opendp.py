"""OpenDP release-mode samplers (blowfish_core.privacy.mechanisms.opendp_samplers) and the audit on them.

Statistical checks use tolerances of >= 5 standard errors, so a correct sampler fails
them with probability < 1e-6; OpenDP is unseeded (OS entropy), which is the point.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blowfish_core.privacy.accounting import epsilon_exact, gaussian_sigma
from blowfish_core.base.errors import BlowfishError, BudgetError
from blowfish_core.privacy.mechanisms.opendp_samplers import (
    RANDOMNESS,
    gaussian_rho,
    gaussian_scale,
    laplace_epsilon,
    laplace_scale,
    opendp_gaussian,
    opendp_gaussian_draws,
    opendp_laplace,
)


def test_scale_is_our_sigma_and_the_map_gives_rho():
    # Delta = sqrt(2) (hard / Tab-PE), rho_t = 1e-4 / 8: sigma = sqrt(2) / sqrt(2 * 1.25e-5) = 282.84...
    s = gaussian_scale(math.sqrt(2), 1.25e-5)
    assert s == pytest.approx(gaussian_sigma(math.sqrt(2), 1.25e-5), rel=1e-15)
    assert s == pytest.approx(282.842712474619, rel=1e-12)
    for discrete in (False, True):
        assert gaussian_rho(math.sqrt(2), s, discrete) == pytest.approx(1.25e-5, rel=1e-9)
    assert laplace_scale(2.0, 0.5) == 4.0
    for discrete in (False, True):
        assert laplace_epsilon(2.0, 4.0, discrete) == pytest.approx(0.5, rel=1e-9)


@settings(max_examples=30, deadline=None)
@given(sens=st.floats(1e-3, 10.0), rho=st.floats(1e-6, 10.0), discrete=st.booleans())
def test_opendp_map_matches_rho_for_every_scale(sens, rho, discrete):
    assert gaussian_rho(sens, gaussian_scale(sens, rho), discrete) == pytest.approx(rho, rel=1e-9)


@settings(max_examples=30, deadline=None)
@given(sens=st.floats(1e-3, 10.0), eps=st.floats(1e-4, 10.0), discrete=st.booleans())
def test_opendp_laplace_map_matches_epsilon(sens, eps, discrete):
    assert laplace_epsilon(sens, laplace_scale(sens, eps), discrete) == pytest.approx(eps, rel=1e-9)


def test_float_gaussian_has_the_requested_variance():
    n, sigma = 6000, 3.0
    # Delta = 1, rho = 1 / (2 sigma^2)
    y = opendp_gaussian(np.zeros(n), 1.0, 1.0 / (2 * sigma**2))
    assert y.dtype == np.float64
    se = sigma**2 * math.sqrt(2.0 / n)
    assert abs(y.var() - sigma**2) < 6 * se
    assert abs(y.mean()) < 6 * sigma / math.sqrt(n)
    assert len(np.unique(y)) > n - 5  # continuous-looking, not integers
    assert not np.all(np.mod(y, 1) == 0)


def test_integer_histogram_gets_the_discrete_gaussian():
    n, sigma = 30000, 4.0
    h = np.full(n, 7, dtype=np.int64)
    y = opendp_gaussian(h, 2.0, (2.0 / sigma) ** 2 / 2)
    assert y.dtype == np.int64
    z = y - 7
    se = sigma**2 * math.sqrt(2.0 / n)
    assert abs(z.var() - sigma**2) < 6 * se  # the discrete Gaussian's variance is sigma^2 to ~1e-30 here


def test_laplace_float_and_discrete_variance():
    n, b = 6000, 2.0
    y = opendp_laplace(np.zeros(n), 1.0, 1.0 / b)
    assert y.dtype == np.float64
    assert abs(y.var() - 2 * b**2) < 6 * math.sqrt(20 * b**4 / n)
    yi = opendp_laplace(np.zeros(30000, dtype=np.int64), 1.0, 1.0 / b)
    assert yi.dtype == np.int64
    # discrete Laplace with parameter b: variance 2 p / (1 - p)^2, p = exp(-1/b)
    p = math.exp(-1.0 / b)
    var = 2 * p / (1 - p) ** 2
    assert abs(yi.var() - var) < 6 * math.sqrt(20 * (var / 2) ** 2 / 30000)


def test_two_unseeded_calls_differ():
    h = np.arange(16, dtype=float)
    a = opendp_gaussian(h, math.sqrt(2), 0.01)
    b = opendp_gaussian(h, math.sqrt(2), 0.01)
    assert not np.array_equal(a, b)
    hi = np.arange(16, dtype=np.int64)
    assert not np.array_equal(opendp_gaussian(hi, 1.0, 0.01), opendp_gaussian(hi, 1.0, 0.01))
    assert RANDOMNESS == "unseeded, OS entropy, sampler opendp"


def test_zero_sensitivity_adds_no_noise_and_bad_inputs_raise():
    h = np.array([1.0, 2.0])
    out = opendp_gaussian(h, 0.0, 0.1)
    assert np.array_equal(out, h) and out is not h
    with pytest.raises(BudgetError, match=r"rho must be a finite number > 0"):
        opendp_gaussian(h, 1.0, 0.0)
    with pytest.raises(BudgetError, match=r"sensitivity must be a finite number >= 0"):
        opendp_gaussian(h, -1.0, 0.1)
    with pytest.raises(BlowfishError, match=r"NaN or infinite"):
        opendp_gaussian(np.array([1.0, np.nan]), 1.0, 0.1)
    with pytest.raises(BlowfishError, match=r"integer-valued"):
        opendp_gaussian(np.array([0.5, 1.0]), 1.0, 0.1, discrete=True)
    assert opendp_gaussian_draws(np.array([1, 2], dtype=np.int64), 2.0, 3).shape == (3, 2)


# ------------------------------------------------------------------ audit
@pytest.mark.parametrize("method,calibration,must_pass", [
    ("hard", "correct", True), ("bf-soft", "correct", True),
    ("hard", "hard-zero", False), ("bf-soft", "soft-small-reach", False), ("hard", "hard-local", False),
])
def test_audit_with_opendp_noise(method, calibration, must_pass):
    from blowfish_core.analysis.audit_opendp import audit_opendp

    r = audit_opendp(method, calibration, n_samples=2000)
    assert r.claimed_eps == pytest.approx(epsilon_exact(0.25, 1e-5))
    assert r.passed is must_pass, (r.eps_lb, r.claimed_eps)
    assert r.sampler == ("opendp-float" if method == "bf-soft" else "opendp-discrete")
