"""MST/AIM speed machinery (issue 23): float64 in a scope, the compilation cache directory, the
convergence test of the estimates, numpy marginals and by-value queries.  No timings here
(benchmarks/bench_mbi.py prints them)."""

from __future__ import annotations

import numpy as np
import pytest

from blowfish_core.baselines import _mbi
from blowfish_core.io.presets import get_preset, load_preset_data

from tests.mbi_marks import HAVE_MBI, WHY, needs_mbi  # noqa: F401


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(_mbi.CACHE_ENV, str(tmp_path / "c"))
    assert _mbi.cache_dir() == str(tmp_path / "c")
    for off in ("off", "0", "", "None"):
        monkeypatch.setenv(_mbi.CACHE_ENV, off)
        assert _mbi.cache_dir() is None
    monkeypatch.delenv(_mbi.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _mbi.cache_dir() == str(tmp_path / "blowfish-studio" / "jax")


def _problem(mbi):
    rng = np.random.default_rng(0)
    dom = mbi.Domain(["a", "b", "c", "d"], (3, 4, 2, 5))
    ms = [mbi.LinearMeasurement(rng.random(12) * 100, ("a", "b"), stddev=1.0),
          mbi.LinearMeasurement(rng.random(40) * 100, ("b", "c", "d"), stddev=2.0),
          mbi.LinearMeasurement(rng.random(15) * 100, ("d", "a"), stddev=2.0)]
    return dom, ms


@needs_mbi
def test_jax_scope_is_float64_inside_and_leaves_the_process_setting_alone():
    import jax

    outside = bool(jax.config.jax_enable_x64)
    with _mbi.jax_scope():
        assert jax.config.jax_enable_x64
        assert jax.numpy.zeros(2).dtype == np.float64
    assert bool(jax.config.jax_enable_x64) == outside


@needs_mbi
@pytest.mark.parametrize("max_cells", [None, 1])  # the numpy joint, and the fallback to mbi's project
def test_model_marginals_equal_mbis_projections(monkeypatch, max_cells):
    from blowfish_core.baselines import common

    if max_cells is not None:
        monkeypatch.setattr(common, "JOINT_MAX_CELLS", max_cells)
    mbi = _mbi.require_mbi()
    with _mbi.jax_scope():
        dom, ms = _problem(mbi)
        model = common.estimate(mbi, dom, ms, 500.0, 200).model
        cliques = [("c", "a"), ("d",), ("a", "b", "c"), ("d", "b"), ("b", "c", "d")]
        got = common.model_marginals(model, cliques)
        for cl in cliques:
            ref = np.asarray(model.project(cl).datavector(), dtype=float)
            assert got[cl].shape == ref.shape
            np.testing.assert_allclose(got[cl], ref, rtol=1e-9, atol=1e-9)
            assert got[cl].sum() == pytest.approx(500.0, rel=1e-9)
        # the fitted model's own marginals (numpy joint in _finalize, or mbi's message passing) are mbi's
        from mbi import marginal_oracles

        ref = marginal_oracles.message_passing_stable(model.potentials, 500.0)
        for cl in model.potentials.cliques:
            np.testing.assert_allclose(np.asarray(model.marginals[cl].values), np.asarray(ref[cl].values),
                                       rtol=1e-9, atol=1e-9)


@needs_mbi
def test_estimate_stops_by_the_convergence_test_and_respects_the_cap():
    from mbi import estimation

    from blowfish_core.baselines import common

    mbi = _mbi.require_mbi()
    with _mbi.jax_scope():
        dom, ms = _problem(mbi)
        full = common.estimate(mbi, dom, ms, 500.0, 1000, tol=None)
        assert full.iters_run == 1000
        loose = common.estimate(mbi, dom, ms, 500.0, 1000, tol=1e-2)
        assert loose.iters_run % estimation.CALLBACK_EVERY == 0
        assert common.PATIENCE * estimation.CALLBACK_EVERY <= loose.iters_run < 1000
        assert common.estimate(mbi, dom, ms, 500.0, 100).iters_run <= 100
        # a warm start from the converged model stops at once (the first block has no previous loss)
        warm = common.estimate(mbi, dom, ms, 500.0, 1000, warm_start=full.model)
        assert warm.iters_run == (common.PATIENCE + 1) * estimation.CALLBACK_EVERY


@needs_mbi
def test_by_value_query_gives_the_same_loss_and_compares_equal():
    from mbi import marginal_loss

    from blowfish_core.baselines import common

    mbi = _mbi.require_mbi()
    with _mbi.jax_scope():
        full = mbi.Domain(["a", "b"], (4, 3))
        y = np.array([50.0, 1.0, 2.0, 30.0])
        m = mbi.LinearMeasurement(y, ("a",), stddev=2.0).compress({"a": np.array([0, 2, 2, 1])}, full)
        v1, v2 = common.by_value(m), common.by_value(m)
        assert isinstance(v1.query, common.CellWeights) and v1.query == v2.query and hash(v1.query) == hash(v2.query)
        assert common.by_value(v1) is v1
        plain = mbi.LinearMeasurement(y, ("a",), stddev=2.0)
        assert common.by_value(plain) is plain
        dom = mbi.Domain(["a", "b"], (3, 3))
        mu = mbi.CliqueVector.random(dom, [("a",)])
        a = marginal_loss.from_linear_measurements([m], dom)
        b = marginal_loss.from_linear_measurements([v1], dom)
        assert float(a(mu)) == pytest.approx(float(b(mu)), rel=1e-12)
        assert a.lipschitz == pytest.approx(b.lipschitz, rel=1e-12)


@needs_mbi
def test_fits_report_the_iterations_they_ran():
    from blowfish_core.baselines import fit_aim, fit_mst

    pre = get_preset("xor3")
    df = load_preset_data(pre).private
    r = fit_mst(pre.schema, df, 0.05, seed=3, iters=300)
    assert 0 < r.info["iters_run"] <= 300
    a = fit_aim(pre.schema, df, 0.05, seed=3, rounds=4, round_iters=100, iters=300)
    runs = a.info["iters_run"]
    assert len(runs) == a.info["rounds"] + 2  # the 1-way estimate, one per round, the final one
    assert all(0 < v <= 100 for v in runs[:-1]) and 0 < runs[-1] <= 300


@needs_mbi
def test_the_exact_1way_estimate_is_where_mirror_descent_converges():
    from blowfish_core.baselines import common

    mbi = _mbi.require_mbi()
    with _mbi.jax_scope():
        full = mbi.Domain(["a", "b"], (6, 4))
        dom = mbi.Domain(["a", "b"], (4, 4))
        # a compressed attribute (cells 3-5 merged, weighted query) with a negative noisy count, and a plain one
        ma = common.by_value(mbi.LinearMeasurement(np.array([300.0, 5.0, 120.0, -20.0, 3.0, 1.0]), ("a",),
                                                   stddev=10.0).compress({"a": np.array([0, 1, 2, 3, 3, 3])}, full))
        mb = mbi.LinearMeasurement(np.array([200.0, -15.0, 180.0, 60.0]), ("b",), stddev=10.0)
        exact = common.independent_estimate([ma, mb], 400.0)
        md = common.estimate(mbi, dom, [ma, mb], 400.0, 20000, tol=None).model
        for a in ("a", "b"):
            assert exact[a].sum() == pytest.approx(400.0, rel=1e-12) and (exact[a] >= 0).all()
            np.testing.assert_allclose(exact[a], np.asarray(md.project((a,)).datavector()), atol=0.05)
        assert exact["b"][1] == 0.0  # the projection onto the simplex clips the negative count
