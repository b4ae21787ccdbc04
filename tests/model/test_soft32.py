"""The float32 soft vote (issue 15d): its histogram against the float64 softmax histogram.

``SoftVote(tau, precision="float32")`` (seeded study runs; releases vote in float64) computes distances and the stable softmax in float32 tiles and sums the
histogram in float64 (``SoftVote.block_sums``).  The tolerance relied on is the derived bound
``|H32_j - H64_j| <= SoftVote.rel_error(kernel) * H64_j`` per bin (plus 1e-12 n for the float64
reference's own rounding and float32 underflow), and the measured one used by the
release-pinning checks: ``|H32_j - H64_j| <= 1e-5 n``; every record's weights sum to 1 within
float32 rounding and the histogram to n within 1e-6 n.  Small tau (bound over
``SOFT32_MAX_REL``) runs the float64 path, bit for bit the pre-15d engine.
"""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blowfish_core.model.distance import GowerKernel, chunk_rows, domain_index, group_records, tile_rows
from blowfish_core.model.schema import Attribute, Schema
from tests.strategies import schemas  # tests/strategies.py
from blowfish_core.model.votes import SOFT32_MAX_REL, SoftVote, soft_rows, vote_histogram, vote_vectors

HSET = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
U32 = 2.0 ** -24


def reference64(schema, C, U, counts, tau):
    """The float64 softmax histogram: counts @ float64 vote vectors."""
    return counts @ vote_vectors(schema, C, U, "soft", tau)


def data(schema, seed, m, n, big_counts):
    rng = np.random.default_rng(seed)
    C = schema.sample_uniform(rng, m)
    base = schema.sample_uniform(rng, max(1, n // 2))
    U, counts = group_records(base[rng.integers(0, base.shape[0], size=n)])
    if big_counts:
        counts = counts * rng.integers(1, 5000, size=counts.size)
    return C, U, counts


@HSET
@given(schema=schemas(max_p=6), seed=st.integers(0, 2**32 - 1), m=st.integers(1, 90), n=st.integers(1, 700),
       tau=st.floats(-2.0, 0.5).map(lambda e: 10.0**e), big_counts=st.booleans())
def test_soft32_histogram_within_derived_and_measured_tolerance(schema, seed, m, n, tau, big_counts):
    C, U, counts = data(schema, seed, m, n, big_counts)
    vote = SoftVote(tau, "float32")
    kernel = GowerKernel(schema, C)
    H = vote.histogram(schema, C, U, counts, domain_index(schema, U), kernel)
    H64 = reference64(schema, C, U, counts, tau)
    total = float(counts.sum())
    rel = vote.rel_error(kernel)
    assert vote.float32_ok(kernel) == (rel > 0)
    assert np.all(H >= 0)
    assert np.all(np.abs(H - H64) <= rel * H64 + 1e-12 * total)  # derived bound
    assert np.abs(H - H64).max() <= 1e-5 * total  # measured tolerance (release checks)
    assert abs(H.sum() - total) <= 1e-6 * total


@HSET
@given(schema=schemas(max_p=6), seed=st.integers(0, 2**32 - 1), m=st.integers(1, 90),
       tau=st.floats(-2.0, 0.5).map(lambda e: 10.0**e))
def test_soft32_each_record_weights_sum_to_one(schema, seed, m, tau):
    rng = np.random.default_rng(seed)
    C = schema.sample_uniform(rng, m)
    X = schema.sample_uniform(rng, 12)
    vote = SoftVote(tau, "float32")
    kernel = GowerKernel(schema, C)
    I = domain_index(schema, X)
    for x in range(X.shape[0]):  # one record, count 1: its float32 weights
        v = vote.histogram(schema, C, X[x:x + 1], np.ones(1), I[x:x + 1], kernel)
        assert np.all(v >= 0)
        assert abs(v.sum() - 1.0) <= 4 * U32  # weight 1/sum rounded once, m products rounded once


def test_rel_error_of_adult_scale_schema_is_small_and_small_tau_runs_float64():
    """15 attributes of weight 1/15 (S = 1): at tau = 0.015 the float32 path applies and its
    per-bin bound is under 1e-3 relative; at tau = 1e-5 the float64 path is taken."""
    schema = Schema([Attribute(f"a{i}", "ordinal", levels=list(range(6))) for i in range(15)])
    C = schema.sample_uniform(np.random.default_rng(0), 64)
    kernel = GowerKernel(schema, C)
    assert abs(kernel.distance_bound() - 1.0) < 1e-12
    assert SoftVote(0.015, "float32").float32_ok(kernel) and 0 < SoftVote(0.015, "float32").rel_error(kernel) < 1e-3
    assert not SoftVote(1e-5, "float32").float32_ok(kernel) and SoftVote(1e-5, "float32").rel_error(kernel) == 0.0
    assert SOFT32_MAX_REL == 1e-3


def test_small_tau_float64_path_is_the_pre15d_engine_bit_for_bit():
    schema = Schema([Attribute("a", "ordinal", levels=list(range(9))),
                     Attribute("b", "numeric", lo=0, hi=1),
                     Attribute("c", "categorical", levels=list("wxyz"))])
    rng = np.random.default_rng(5)
    C = schema.sample_uniform(rng, 40)
    X = schema.sample_uniform(rng, 5000)
    U, counts = group_records(X)
    tau = 1e-6
    kernel = GowerKernel(schema, C)
    assert not SoftVote(tau, "float32").float32_ok(kernel)
    H = vote_histogram(schema, C, U, counts, SoftVote(tau, "float32"))
    # the pre-15d computation: float64 rows by tile_rows(m), one float64 mat-vec per chunk_rows(m) block
    I = domain_index(schema, U)
    kernel.prepare(I)
    want = np.zeros(kernel.m)
    step, tile = chunk_rows(kernel.m), tile_rows(kernel.m)
    for s in range(0, U.shape[0], step):
        e = min(s + step, U.shape[0])
        P = np.empty((e - s, kernel.m))
        for a in range(s, e, tile):
            b = min(a + tile, e)
            P[a - s:b - s] = soft_rows(kernel.block(U[a:b], I[a:b]), tau)
        want += counts[s:e] @ P
    np.testing.assert_array_equal(H, want)


def test_soft32_block_sums_follow_the_chunk_layout():
    """One float64 part per chunk_rows(m) block (the Dask engine sums the same parts)."""
    schema = Schema([Attribute("a", "ordinal", levels=list(range(30))), Attribute("b", "binary", levels=["n", "y"])])
    rng = np.random.default_rng(1)
    C = schema.sample_uniform(rng, 1024)
    X = schema.sample_uniform(rng, 60)
    U, _ = group_records(X)
    U = np.repeat(U, 100, axis=0)[:5000]  # 5000 rows: 3 blocks of 2,048
    counts = np.ones(U.shape[0])
    kernel = GowerKernel(schema, C)
    vote = SoftVote(0.03, "float32")
    parts = list(vote.block_sums(U, counts, domain_index(schema, U), kernel))
    assert len(parts) == -(-U.shape[0] // chunk_rows(1024)) and all(p.dtype == np.float64 for p in parts)
    H = np.zeros(1024)
    for p in parts:
        H += p
    np.testing.assert_array_equal(vote.histogram(schema, C, U, counts, domain_index(schema, U), kernel), H)


def test_precision_default_is_float64_and_bad_precision_is_refused():
    schema = Schema([Attribute("a", "ordinal", levels=list(range(9)))])
    kernel = GowerKernel(schema, schema.sample_uniform(np.random.default_rng(0), 16))
    assert SoftVote(0.03).precision == "float64"
    assert not SoftVote(0.03).float32_ok(kernel) and SoftVote(0.03).rel_error(kernel) == 0.0
    assert SoftVote(0.03, "float32").float32_ok(kernel)
    with pytest.raises(ValueError, match=r"precision must be one of float64, float32 \(got 'half'\)"):
        SoftVote(0.03, "half")


def test_seeded_runs_vote_in_float32_and_releases_in_float64(monkeypatch):
    """The vote's arithmetic follows the randomness source, like the noise sampler: SeededStreams
    (study) -> float32, OsEntropyStreams (release) and unknown streams objects -> float64."""
    from blowfish_core.algorithm.evolution import OsEntropyStreams, SeededStreams, SynthConfig, run_synthesis
    from blowfish_core.io.presets import get_preset, load_preset_data

    seen = []
    orig = SoftVote.block_sums

    def spy(self, *a, **k):
        seen.append(self.precision)
        return orig(self, *a, **k)

    monkeypatch.setattr(SoftVote, "block_sums", spy)
    preset = get_preset("xor3")
    X = preset.schema.encode(load_preset_data(preset, n=300).private)
    cfg = SynthConfig(rounds=2, population=[16, 16], release=8)

    class Bare:  # a streams object that names no precision
        sampler, seeded = "numpy", True

        def __call__(self, purpose, t=0):
            return np.random.default_rng([purpose, t])

    for streams, want in ((SeededStreams(0), "float32"), (OsEntropyStreams(), "float64"), (Bare(), "float64")):
        seen.clear()
        run_synthesis(preset.schema, X, preset.default_policy(), "bf-soft", 1.0, 0.03, cfg, 0, streams=streams)
        assert seen and set(seen) == {want}
