"""The audit of bf-mst's and bf-soft-mst's marginal measurements (issue 25, must-show 1).

Fast: the numpy scalar sampler (seeded), 200,000 runs per side; one OpenDP case through bf-mst's
release draw (FitRandomness.gaussian, release mode) at 2,000 runs, and the benchmark script.
benchmarks/audit_marginals.py runs the full audit (55,000 OpenDP runs per side).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from blowfish_core.analysis.audit.marginals import (
    MARGINAL_CASES,
    audit_marginal_pair,
    build_marginal_pair,
    marginal_audit_table,
    marginal_setting,
    measurement_changes,
    marginal_claim,
    release_measurements,
    run_marginal_audit_suite,
)
from blowfish_core.base.errors import BlowfishError

RHO_I, DELTA = 0.25, 1e-5
#: epsilon_exact(0.25, 1e-5): the claim of a noisy measurement at rho_i = 0.25 (the round audit's 2.94).
CLAIM = 2.94323
#: sqrt 2 / sqrt(2 rho_i) at rho_i = 0.25: bf-mst's sigma for a crossing marginal.
SIGMA_SQRT2 = 2.0
#: bf-soft-mst's bound for age x flag, by hand: age's 2 bin centres 0.25 and 0.75 (encoded), Gower
#: weight 1/3, so r_S = 1/6 and sqrt 2 tanh(r_S / (2 tau)) = sqrt 2 tanh(5/6) at tau = 0.1.
SOFT_AGE_BOUND = 0.964864
#: the record-level policy edges of the mixed domain (age threshold 1: 3 x 3 x 2 = 18; color {a, b}: 4 x 2 = 8).
EDGES = 26


@pytest.fixture(scope="module")
def suite():
    return run_marginal_audit_suite(n_samples=200_000, sampler="scalar", seed=0)


@pytest.mark.parametrize("i", range(len(MARGINAL_CASES)),
                         ids=[f"{m}-{'x'.join(s)}-{c}" for m, s, c, _ in MARGINAL_CASES])
def test_plan_passes_and_the_controls_fail(suite, i):
    r, expected = suite[i]
    assert r.passed is expected, marginal_audit_table([(r, expected)])
    assert r.edge["edges_checked"] == EDGES
    if expected:
        assert r.eps_pair <= r.claimed_eps * (1 + 1e-9) and r.eps_lb <= r.claimed_eps
    else:  # both rules catch every control, even x 0.5 at these run counts
        assert r.failed_rules == ("exact", "empirical")


def test_pinned_claims_sigmas_and_worst_edges(suite):
    by = {(r.method, tuple(r.edge["marginal"]), r.calibration): r for r, _ in suite}
    hard = by[("bf-mst", ("age", "flag"), "correct")]
    assert hard.sensitivity == pytest.approx(math.sqrt(2)) and hard.sigma == pytest.approx(SIGMA_SQRT2)
    assert hard.claimed_eps == pytest.approx(CLAIM, abs=1e-4) and hard.eps_pair == pytest.approx(CLAIM, abs=1e-4)
    assert (hard.edge["x"]["age"], hard.edge["x_prime"]["age"]) == (1, 2)  # the bin boundary {0, 1} | {2, 3}
    assert hard.edge["witness"] == {"attribute": "age", "from": 1, "to": 2}
    soft = by[("bf-soft-mst", ("age", "flag"), "correct")]
    assert soft.sensitivity == pytest.approx(SOFT_AGE_BOUND, abs=1e-6)
    assert soft.shift == pytest.approx(SOFT_AGE_BOUND, abs=1e-6)  # 2 cells: the bound is attained
    half = by[("bf-soft-mst", ("age", "flag"), "half-sensitivity")]
    assert half.sensitivity == pytest.approx(SOFT_AGE_BOUND / 2, abs=1e-6)
    assert half.eps_pair == pytest.approx(6.573, abs=1e-3)  # mu = 2 sqrt(2 rho_i) = sqrt 2
    # color x age soft: bound sqrt 2 tanh(5/3) (r_S = 1/3, color); the worst edge, color a -> b, moves
    # sqrt 2 (1 - e)/(1 + 2e) ||(s, 1 - s)||_2 with e = exp(-10/3), s = 1/(1 + exp(-5/3)) (K_color x K_age)
    ca = by[("bf-soft-mst", ("color", "age"), "correct")]
    assert ca.sensitivity == pytest.approx(1.316788, abs=1e-6) and ca.shift == pytest.approx(1.089641, abs=1e-6)
    wrong = by[("bf-mst", ("age", "flag"), "wrongly-exact")]
    assert wrong.claimed_eps == 0.0 and math.isinf(wrong.eps_pair)
    for r, _ in suite:  # the enumeration's worst edge changes the attribute the plan names as its witness
        if r.edge["witness"] is not None:
            moved = [k for k in r.edge["x"] if r.edge["x"][k] != r.edge["x_prime"][k]]
            assert moved == [r.edge["witness"]["attribute"]], (r.method, r.edge)


def test_exact_marginal_is_identical_on_every_policy_edge():
    s = marginal_setting()
    claim = marginal_claim("bf-mst", s, (2,))
    assert claim.exact and claim.sensitivity == 0.0
    _, e0, _, norms = measurement_changes(s, claim, (2,))
    assert e0.size == EDGES and np.all(norms == 0.0)  # no policy edge changes the flag marginal at all
    pair = build_marginal_pair("bf-mst", ("flag",))
    assert np.array_equal(pair.H, pair.H_prime) and pair.sigma == 0.0 and pair.claimed_eps == 0.0
    y = release_measurements(pair.H, 0.0, 5)  # the release path draws nothing for an exact marginal
    assert np.array_equal(y, np.tile(pair.H, (5, 1)))
    r = audit_marginal_pair(pair, 1000, sampler="release")
    assert r.passed and r.eps_pair == 0.0 and r.eps_lb == 0.0
    with pytest.raises(BlowfishError, match="exact under the policy"):
        build_marginal_pair("bf-mst", ("flag",), calibration="wrongly-exact")


@pytest.mark.parametrize("method", ["bf-mst", "bf-soft-mst"])
def test_sensitivity_scale_half_fails(method):
    r = audit_marginal_pair(build_marginal_pair(method, ("age", "flag"), sensitivity_scale=0.5), 200_000,
                            sampler="scalar")
    assert not r.passed and r.failed_rules == ("exact", "empirical")
    assert r.eps_pair == pytest.approx(6.573, abs=1e-3)


def test_the_audit_calibrates_as_the_measurer():
    """The pair's measurement and sigma are what bf-mst's measurer releases (its noise call intercepted)."""
    from blowfish_core.baselines.measure import Measurer as _Measurer
    from blowfish_core.baselines.common import counts

    class Draws:
        calls: list = []

        def gaussian(self, x, sigma):
            self.calls.append((np.asarray(x, dtype=float), sigma))
            return x

    class FakeMbi:
        @staticmethod
        def LinearMeasurement(*a, **k):
            return None

    s = marginal_setting()
    from blowfish_core.baselines.cells import PublicCells

    cells = PublicCells.from_schema(s.schema, s.bins)
    for method in ("bf-mst", "bf-soft-mst"):
        pair = build_marginal_pair(method, ("age", "flag"))
        d = Draws()
        d.calls.clear()
        meas = _Measurer(FakeMbi, list(cells.names), d, [])
        meas.measure(cells.encode(pair.D), cells.sizes, (1, 2), RHO_I, "measure", marginal_claim(method, s, (1, 2)))
        (x, sigma), = d.calls
        assert sigma == pytest.approx(pair.sigma, rel=1e-12) and np.allclose(x, pair.H)
        assert counts(cells.encode(pair.D), cells.sizes, (1, 2)).sum() == 5


def test_bad_input_is_refused():
    with pytest.raises(BlowfishError, match="unknown marginal method"):
        build_marginal_pair("mst", ("age",))
    with pytest.raises(BlowfishError, match="marginal must name"):
        build_marginal_pair("bf-mst", ("height",))
    with pytest.raises(BlowfishError, match="unknown calibration"):
        build_marginal_pair("bf-mst", ("age",), calibration="hard-zero")
    with pytest.raises(BlowfishError, match="sampler"):
        audit_marginal_pair(build_marginal_pair("bf-mst", ("age",)), 1000, sampler="full")


# ------------------------------------------------------------- OpenDP: bf-mst's release draw
@pytest.mark.slow
@pytest.mark.parametrize("method", ["bf-mst", "bf-soft-mst"])
def test_release_path_opendp_claim_passes_half_fails(method):
    ok = audit_marginal_pair(build_marginal_pair(method, ("age", "flag")), 2000, sampler="release")
    assert ok.sampler == "release-opendp" and ok.passed, (ok.eps_lb, ok.claimed_eps)
    half = audit_marginal_pair(build_marginal_pair(method, ("age", "flag"), calibration="half-sensitivity"), 2000,
                               sampler="release")
    assert not half.passed and "exact" in half.failed_rules
    wrong = audit_marginal_pair(build_marginal_pair(method, ("age", "flag"), calibration="wrongly-exact"), 1000,
                                sampler="release")
    assert wrong.failed_rules == ("exact", "empirical")


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.parametrize("scale,code", [("0.5", 1), ("1", 0)])
def test_audit_marginals_script_exit_code_follows_the_sensitivity_scale(scale, code, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "audit_marginals.py"), "--method", "bf-soft-mst",
                          "--sensitivity-scale", scale, "--n", "2000", "--control-n", "1000"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == code, out.stdout + out.stderr
    assert out.stdout.splitlines()[-1].startswith(f"verdict: {'FAIL' if code else 'PASS'}")
    assert "bf-soft-mst  agexflag" in out.stdout
