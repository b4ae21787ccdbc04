"""The estimator weight of an exact (noise-free) measurement (baselines.mst.exact_stddev, issue 25)."""

import pytest

from blowfish_core.baselines.mst import exact_stddev

# held constants: 0.1 * sqrt(2) / sqrt(2 rho / 3) by hand, and the 5-count floor.
CASES = [(1e-4, 17.320508075688775), (1e-3, 5.477225575051661), (1e-2, 5.0), (1.0, 5.0)]


@pytest.mark.parametrize("rho,expected", CASES)
def test_exact_stddev_ratio_and_floor(rho, expected):
    assert exact_stddev(rho) == pytest.approx(expected, rel=1e-12)
