"""Reference methods on mbi (blowfish_core.baselines): MST correctness, ledger, public domain.

Skips cleanly (with the reason) when the optional extra mbi/jax is not installed; the
missing-dependency message is tested without it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from blowfish_core.baselines import (
    MissingDependencyError,
    PublicCells,
    _mbi,
    ledger_total,
)
from blowfish_core.base.errors import BlowfishError, BudgetError, SchemaError
from blowfish_core.model.metrics import NUMERIC_BINS, bin_codes, pwerr
from blowfish_core.io.presets import get_preset, load_preset_data
from blowfish_core.model.schema import Attribute, Schema

from tests.mbi_marks import HAVE_MBI, WHY, needs_mbi  # noqa: F401


@pytest.fixture(scope="module")
def xor3():
    pre = get_preset("xor3")
    sp = load_preset_data(pre)
    return pre.schema, sp.private


def _small_schema() -> Schema:
    return Schema([
        Attribute("age", "numeric", lo=17, hi=90, integer=True),
        Attribute("h", "numeric", lo=0.0, hi=1.0),
        Attribute("k", "numeric", lo=0, hi=5, integer=True),
        Attribute("edu", "ordinal", levels=["lo", "mid", "hi"]),
        Attribute("c", "categorical", levels=["a", "b", "c", "d"]),
    ])


# ---------------------------------------------------------------- public cells (no mbi)
def test_cells_come_from_the_schema_only():
    cells = PublicCells.from_schema(_small_schema())
    # 20 bins for wide numerics; k = 0..5 has 6 whole numbers -> 6 non-empty bins; levels otherwise
    assert cells.sizes == (NUMERIC_BINS, NUMERIC_BINS, 6, 3, 4)


def test_cells_roundtrip_rebins_to_the_same_cell():
    s = _small_schema()
    cells = PublicCells.from_schema(s)
    rng = np.random.default_rng(3)
    grid = [np.arange(n) for n in cells.sizes]
    C = np.column_stack([rng.choice(g, 2000) for g in grid])
    X = cells.decode(C, rng)
    assert np.array_equal(cells.encode(X), C)
    df = s.decode(X)
    assert df["age"].between(17, 90).all() and df["k"].isin(range(6)).all()
    # integer bins decode to whole numbers spread over the bin, not one midpoint
    ages = df["age"][C[:, 0] == 0]
    assert set(ages) == {17, 18, 19, 20}
    # the same cells as PWErr's bins (up to the remap of empty integer bins)
    b, _ = bin_codes(s, X)
    assert np.array_equal(b[:, [0, 1, 3, 4]], C[:, [0, 1, 3, 4]])


def test_missing_mbi_gives_install_message(monkeypatch):
    import importlib

    real = importlib.import_module

    def fake(name, *a, **k):
        if name == "mbi" or name.startswith("mbi.") or name == "jax":
            raise ImportError(f"No module named '{name}'")
        return real(name, *a, **k)

    monkeypatch.setattr(_mbi.importlib, "import_module", fake)
    monkeypatch.setattr(_mbi, "_cache", {})
    from blowfish_core.baselines import fit_mst

    s, df = _small_schema(), pd.DataFrame({"age": [20], "h": [0.5], "k": [1], "edu": ["lo"], "c": ["a"]})
    with pytest.raises(MissingDependencyError) as ei:
        fit_mst(s, df, 1.0)
    msg = str(ei.value)
    assert "pip install .[baseline]" in msg and "pip install mbi jax" in msg and "MST" in msg
    assert isinstance(ei.value, BlowfishError)


# ---------------------------------------------------------------- MST (needs mbi)
@needs_mbi
def test_mst_large_budget_matches_a_real_sample_on_xor3(xor3):
    """rho = 100: PWErr of MST's 512-row release is within 0.05 of a 512-row real sample's
    (both against the same private table).  i.i.d. sampling from the model is compared
    two-sided; the default randomized rounding may only be better (it is lower-variance)."""
    from blowfish_core.baselines import fit_mst

    schema, df = xor3
    X = schema.encode(df)
    rng = np.random.default_rng(20261201)
    real = np.mean([pwerr(schema, X, X[rng.choice(len(X), 512, replace=False)]) for _ in range(4)])
    iid = np.mean([pwerr(schema, X, fit_mst(schema, df, 100.0, seed=s, sampling="sample").X) for s in range(4)])
    rounded = np.mean([pwerr(schema, X, fit_mst(schema, df, 100.0, seed=s).X) for s in range(4)])
    assert abs(iid - real) <= 0.05, (iid, real)
    assert rounded <= real + 0.05, (rounded, real)
    # and it is far from a uniform release (the test has teeth)
    uni = pwerr(schema, X, schema.sample_uniform(rng, 512))
    assert real < uni


@needs_mbi
@pytest.mark.parametrize("rho,neighbours", [(100.0, "replace-one"), (1e-3, "replace-one"), (0.37, "add-remove")])
def test_mst_ledger_sums_to_rho(xor3, rho, neighbours):
    from blowfish_core.baselines import fit_mst

    schema, df = xor3
    r = fit_mst(schema, df, rho, seed=5, neighbours=neighbours, iters=200)
    p = schema.p
    steps = [row.step for row in r.ledger]
    assert steps == ["measure-1way"] * p + ["select"] * (p - 1) + ["measure-2way"] * (p - 1)
    assert [row.round for row in r.ledger] == list(range(len(r.ledger)))
    assert math.isclose(ledger_total(r.ledger), rho, rel_tol=1e-12)
    # thirds, as in [MST]
    for step in ("measure-1way", "select", "measure-2way"):
        assert math.isclose(math.fsum(x.rho for x in r.ledger if x.step == step), rho / 3, rel_tol=1e-12)
    sens = math.sqrt(2) if neighbours == "replace-one" else 1.0
    for row in r.ledger:
        if row.mechanism == "gaussian":
            assert row.sensitivity == sens
            assert math.isclose(row.rho, sens ** 2 / (2 * row.scale ** 2), rel_tol=1e-12)
        else:
            assert row.mechanism == "exponential"
            assert math.isclose(row.rho, row.scale ** 2 / 8, rel_tol=1e-12)
    # the tree spans all attributes
    import networkx as nx

    g = nx.Graph([tuple(e) for e in r.info["tree"]])
    g.add_nodes_from(schema.names)
    assert nx.is_tree(g)


@needs_mbi
def test_mst_domain_is_not_read_from_the_data():
    """A table covering only part of the public domain gets the full public cell counts,
    and (without compression, at a small budget) the release uses cells the data never had."""
    from blowfish_core.baselines import fit_mst

    s = _small_schema()
    rng = np.random.default_rng(0)
    n = 3000
    narrow = pd.DataFrame({"age": rng.integers(30, 36, n), "h": rng.uniform(0.4, 0.45, n),
                           "k": rng.integers(0, 2, n), "edu": ["lo"] * n, "c": rng.choice(["a", "b"], n)})
    wide = s.decode(s.sample_uniform(rng, n))
    a = fit_mst(s, narrow, 1e-3, seed=1, compress=False, iters=200, rows=2000)
    b = fit_mst(s, wide, 1e-3, seed=1, compress=False, iters=200, rows=2000)
    public = dict(zip(s.names, PublicCells.from_schema(s).sizes))
    assert a.info["cells"] == b.info["cells"] == public == {"age": 20, "h": 20, "k": 6, "edu": 3, "c": 4}
    assert a.info["compressed_cells"] == public
    rel = a.release
    assert (~rel["age"].between(30, 35)).any() and set(rel["c"]) - {"a", "b"} and set(rel["edu"]) - {"lo"}


@needs_mbi
def test_mst_seeded_runs_are_reproducible(xor3):
    from blowfish_core.baselines import fit_mst

    schema, df = xor3
    a = fit_mst(schema, df, 0.05, seed=11, iters=200)
    b = fit_mst(schema, df, 0.05, seed=11, iters=200)
    c = fit_mst(schema, df, 0.05, seed=12, iters=200)
    pd.testing.assert_frame_equal(a.release, b.release)
    assert a.ledger == b.ledger
    assert not a.release.equals(c.release)
    # unpacks as (release, ledger, seconds); release in the original names and values
    release, _ledger, seconds = a
    assert list(release.columns) == schema.names and len(release) == 512 and seconds > 0
    assert release["Y"].isin([0, 1]).all() and release["X_1"].isin(range(8)).all()
    # numpy's global random state is left untouched
    np.random.seed(7)
    before = np.random.random()
    np.random.seed(7)
    fit_mst(schema, df, 0.05, seed=11, iters=50)
    assert np.random.random() == before


@needs_mbi
def test_mst_bad_inputs_are_clear_errors(xor3):
    from blowfish_core.baselines import fit_mst

    schema, df = xor3
    with pytest.raises(BudgetError, match="rho"):
        fit_mst(schema, df, 0.0)
    with pytest.raises(BudgetError, match="neighbours"):
        fit_mst(schema, df, 1.0, neighbours="bounded")
    with pytest.raises(SchemaError, match="outside the declared public domain"):
        fit_mst(schema, df.assign(X_1=df["X_1"] + 5), 1.0)
    with pytest.raises(SchemaError, match="two modeled attributes"):
        fit_mst(Schema([Attribute("a", "binary", levels=[0, 1])]), pd.DataFrame({"a": [0, 1]}), 1.0)
    with pytest.raises(SchemaError, match="rows"):
        fit_mst(schema, df, 1.0, rows=0)
    with pytest.raises(SchemaError, match="matrix"):
        fit_mst(schema, np.zeros((3, 2)), 1.0)
    X = schema.encode(df)
    X[0, -1] = 0.5  # Y is binary: codes 0/1 only
    with pytest.raises(SchemaError, match="whole numbers"):
        fit_mst(schema, X, 1.0)


# ---------------------------------------------------------------- AIM (needs mbi)
def test_aim_workload_weights_follow_the_paper():
    """[AIM] workload-aware candidates: W+ = downward closure; w_r = sum_s |r ∩ s| over the all-pairs workload."""
    from blowfish_core.baselines.aim import workload_candidates

    w = workload_candidates(["a", "b", "c", "d"], None)
    assert set(w) == {(0,), (1,), (2,), (3,), (0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}
    # a pair: itself (2) + the 2 (p-2) = 4 pairs sharing one attribute (1 each) = 6; a single: p-1 = 3
    assert w[(0, 1)] == 6 and w[(2,)] == 3
    w2 = workload_candidates(["a", "b", "c"], [("a", "b")], [2.0])
    assert w2 == {(0,): 2.0, (1,): 2.0, (0, 1): 4.0}
    with pytest.raises(SchemaError, match="unknown attribute"):
        workload_candidates(["a", "b"], [("a", "z")])


@needs_mbi
@pytest.mark.parametrize("rho", [100.0, 2e-3])
def test_aim_ledger_sums_to_rho(xor3, rho):
    from blowfish_core.baselines import fit_aim

    schema, df = xor3
    r = fit_aim(schema, df, rho, seed=3, rounds=8, round_iters=30, iters=200)
    assert math.isclose(ledger_total(r.ledger), rho, rel_tol=1e-12)
    steps = [x.step for x in r.ledger]
    p = schema.p
    assert steps[:p] == ["measure-1way"] * p
    assert steps[p:] == ["select", "measure"] * r.info["rounds"]
    assert 1 <= r.info["rounds"] <= 8
    for sel, meas in zip(r.ledger[p::2], r.ledger[p + 1::2]):
        assert sel.mechanism == "exponential" and meas.mechanism == "gaussian" and sel.clique == meas.clique
        # every round spends alpha = 0.9 of its budget on the measurement ([AIM] Alg. 1)
        assert math.isclose(meas.rho / (meas.rho + sel.rho), 0.9, rel_tol=1e-9)


@needs_mbi
def test_aim_large_budget_matches_a_real_sample_and_is_reproducible(xor3):
    from blowfish_core.baselines import fit_aim

    schema, df = xor3
    X = schema.encode(df)
    rng = np.random.default_rng(7)
    real = np.mean([pwerr(schema, X, X[rng.choice(len(X), 512, replace=False)]) for _ in range(4)])
    a = fit_aim(schema, df, 100.0, seed=2, rounds=16, round_iters=50, sampling="sample")
    assert abs(pwerr(schema, X, a.X) - real) <= 0.05
    b = fit_aim(schema, df, 100.0, seed=2, rounds=16, round_iters=50, sampling="sample")
    pd.testing.assert_frame_equal(a.release, b.release)
    assert a.ledger == b.ledger
    assert a.info["cells"] == dict(zip(schema.names, PublicCells.from_schema(schema).sizes))
