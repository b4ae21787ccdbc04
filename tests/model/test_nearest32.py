"""GowerKernel.nearest: float32 distances with an exact float64 fallback for near ties gives the
same argmin (lowest index on exact ties) as np.argmin over the float64 distances (issue 15).

The float32 error bound (GowerKernel.nearest docstring): |D32 - D64| <= E = 2 p (2^-24 + 2^-53) S,
S the largest possible distance; rows whose float32 best/second-best gap is <= 2E are recomputed
exactly.  Discrete domains with candidates drawn from a small pool make exact ties the common case.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blowfish_core.model.distance import GowerKernel, distinct_rows, domain_index, tile_rows, used_codes
from blowfish_core.model.schema import Attribute, Schema
from blowfish_core.model.votes import HardVote, nearest, vote_histogram, whole_counts

SET = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _nearest_with_pairs_max(k, X, limit: int):
    """k.nearest(X) in 7-row tiles with gower_kernel.PAIRS_MAX set to limit (near-tie batch size)."""
    import blowfish_core.model.gower_kernel as dist  # where nearest reads its limits

    old = dist.PAIRS_MAX
    dist.PAIRS_MAX = limit
    try:
        return k.nearest(X, rows=7)
    finally:
        dist.PAIRS_MAX = old


@st.composite
def tie_schemas(draw) -> Schema:
    p = draw(st.integers(1, 6))
    attrs = []
    for i in range(p):
        kind = draw(st.sampled_from(["binary", "cat", "ord", "int", "hier", "cont", "bigint"]))
        n = f"a{i}"
        if kind == "binary":
            a = Attribute(n, "binary", levels=["no", "yes"])
        elif kind == "cat":
            a = Attribute(n, "categorical", levels=[f"v{j}" for j in range(draw(st.integers(2, 5)))])
        elif kind == "ord":
            a = Attribute(n, "ordinal", levels=list(range(draw(st.integers(2, 7)))))
        elif kind == "int":
            a = Attribute(n, "numeric", lo=0, hi=draw(st.integers(1, 40)), integer=True)
        elif kind == "hier":
            a = Attribute(n, "hierarchical", tree={"A": {"A1": ["a", "b"], "A2": ["c"]}, "B": ["d", "e"]})
        elif kind == "cont":
            a = Attribute(n, "numeric", lo=0.0, hi=draw(st.floats(0.5, 100.0)))
        else:  # > LOOKUP_MAX values: the direct path
            a = Attribute(n, "numeric", lo=0, hi=100000, integer=True)
        attrs.append(a)
    if draw(st.booleans()):
        attrs = [dataclasses.replace(a, weight=draw(st.sampled_from([0.1, 0.25, 1 / 3, 0.7, 1.0])))
                 for a in attrs]
    return Schema(attrs)


def reference(kernel: GowerKernel, X: np.ndarray) -> np.ndarray:
    """The float64 engine's argmin: np.argmin over GowerKernel.block distances."""
    return np.argmin(kernel.block(X, domain_index(kernel.schema, X)), axis=1)


@SET
@given(schema=tie_schemas(), seed=st.integers(0, 2**31 - 1), m=st.integers(1, 70), n=st.integers(1, 120),
       pool=st.integers(1, 12), rows=st.sampled_from([None, 1, 7, 64]), small_joint=st.booleans())
def test_nearest32_equals_float64_argmin_with_many_ties(schema, seed, m, n, pool, rows, small_joint):
    rng = np.random.default_rng(seed)
    P = schema.sample_uniform(rng, pool)  # a small pool: duplicate candidates and exact ties
    C = P[rng.integers(pool, size=m)]
    X = np.vstack([P[rng.integers(pool, size=n // 2)], schema.sample_uniform(rng, n - n // 2)])
    k = GowerKernel(schema, C, joint_bytes=8 * m if small_joint else 64 * 2**20)
    got = k.nearest(X, rows=rows)
    np.testing.assert_array_equal(got, reference(k, X))


@SET
@given(seed=st.integers(0, 2**31 - 1), m=st.integers(2, 40), scale=st.sampled_from([1e-12, 1e-9, 1e-7, 1e-6]))
def test_nearest32_resolves_gaps_below_float32_resolution(seed, m, scale):
    """Candidates closer than float32 can tell apart (continuous attribute): the fallback decides."""
    rng = np.random.default_rng(seed)
    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=1.0), Attribute("b", "binary", levels=["n", "y"]),
                     Attribute("y", "numeric", lo=0.0, hi=1.0)])
    X = schema.sample_uniform(rng, 30)
    C = np.repeat(X[:1], m, axis=0)
    C[:, 0] = np.clip(X[0, 0] + rng.normal(0, scale, m), 0, 1)
    C[:, 2] = np.clip(X[0, 2] + rng.normal(0, scale, m), 0, 1)
    X[:10] = C[rng.integers(m, size=10)]  # records on (or next to) candidates
    X[10:20, 0] = np.clip(X[0, 0] + rng.normal(0, scale, 10), 0, 1)
    k = GowerKernel(schema, C)
    np.testing.assert_array_equal(k.nearest(X), reference(k, X))


def test_nearest_exact_ties_take_the_lowest_index():
    schema = Schema([Attribute("a", "binary", levels=["n", "y"]), Attribute("b", "categorical", levels=["u", "v", "w"])])
    C = np.array([[1.0, 2.0], [0.0, 1.0], [0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    X = np.array([[0.0, 1.0], [0.0, 2.0], [1.0, 1.0], [1.0, 2.0]])
    # distances (weights 1/2): x0 -> [1, 0, .5, 0, 1]; x1 -> [.5, .5, .5, .5, 1]; x2 -> [.5, .5, 1, .5, .5]
    np.testing.assert_array_equal(nearest(schema, C, X), [1, 0, 0, 0])


def test_nearest_default_tile_is_cache_sized():
    assert tile_rows(1024, 2 * 2**20) == 256


@settings(max_examples=30, deadline=None)
@given(schema=tie_schemas(), seed=st.integers(0, 2**31 - 1), m=st.integers(1, 40), limit=st.sampled_from([0, 5, 50]))
def test_nearest32_decides_near_ties_in_bounded_batches(schema, seed, m, limit):
    """All candidates equal: one distinct candidate, so every record's nearest is index 0."""
    rng = np.random.default_rng(seed)
    C = np.repeat(schema.sample_uniform(rng, 1), m, axis=0)
    X = schema.sample_uniform(rng, 60)
    k = GowerKernel(schema, C)
    got = _nearest_with_pairs_max(k, X, limit)
    np.testing.assert_array_equal(got, reference(k, X))
    assert not got.any()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), m=st.integers(2, 40), limit=st.sampled_from([0, 5, 50]))
def test_nearest32_decides_near_ties_in_bounded_batches_distinct_candidates(seed, m, limit):
    """Distinct candidates 1e-12 apart in a continuous attribute (every record near-ties with all of
    them): decided in batches of at most PAIRS_MAX pairs, still the float64 argmin."""
    rng = np.random.default_rng(seed)
    schema = Schema([Attribute("x", "numeric", lo=0.0, hi=1.0), Attribute("b", "binary", levels=["n", "y"])])
    C = np.repeat(schema.sample_uniform(rng, 1), m, axis=0)
    C[:, 0] = np.clip(C[0, 0] + 1e-12 * rng.permutation(m), 0, 1)
    X = schema.sample_uniform(rng, 60)
    k = GowerKernel(schema, C)
    assert k.distinct() is None or k.distinct().size > 1
    got = _nearest_with_pairs_max(k, X, limit)
    np.testing.assert_array_equal(got, reference(k, X))


# ---------------------------------------------------------------- duplicate candidates (issue 15e)
def test_distinct_rows_first_occurrences_in_index_order():
    C = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [0.0, 1.0], [0.0, 2.0]])
    np.testing.assert_array_equal(distinct_rows(C), [0, 1, 3])
    np.testing.assert_array_equal(distinct_rows(C[[3, 2, 0, 3, 1]]), [0, 1, 4])  # E, A, A, E, B
    np.testing.assert_array_equal(distinct_rows(np.array([[0.0], [-0.0], [0.0]])), [0, 1])  # bit patterns
    assert distinct_rows(np.zeros((0, 3))).size == 0 and distinct_rows(np.ones((1, 3))).tolist() == [0]


def test_nearest_duplicate_candidates_hand_checked():
    """C = [A, B, A, B, E] with A = (y, u), B = (n, v), E = (n, w); weights 1/2.
    x0 = (y, u): A at 0 (indices 0, 2) -> 0.  x1 = (n, v): B at 0 (indices 1, 3) -> 1.
    x2 = (y, v): A and B both at .5, E at 1 -> 0 (lowest index over all five).
    x3 = (n, u): A .5, B .5, E .5 -> 0.  x4 = (n, w): E at 0 -> 4."""
    schema = Schema([Attribute("a", "binary", levels=["n", "y"]), Attribute("b", "categorical", levels=["u", "v", "w"])])
    A, B, E = [1.0, 0.0], [0.0, 1.0], [0.0, 2.0]
    C = np.array([A, B, A, B, E])
    X = np.array([A, B, [1.0, 1.0], [0.0, 0.0], E])
    k = GowerKernel(schema, C)
    np.testing.assert_array_equal(k.distinct(), [0, 1, 4])
    np.testing.assert_array_equal(k.nearest(X), [0, 1, 0, 0, 4])
    np.testing.assert_array_equal(k.nearest(X), reference(k, X))
    # B's first copy before A's: the tie x2 now goes to B (index 0), x0 to A's first copy (index 1)
    C2 = np.array([B, A, B, A, E])
    np.testing.assert_array_equal(nearest(schema, C2, X), [1, 0, 0, 0, 4])
    H = vote_histogram(schema, C, X, np.array([3.0, 1.0, 2.0, 5.0, 1.0]), HardVote())
    np.testing.assert_array_equal(H, [10.0, 1.0, 0.0, 0.0, 1.0])  # copies never get a vote


def test_distinct_none_when_all_candidates_differ():
    schema = Schema([Attribute("a", "ordinal", levels=list(range(5)))])
    C = np.arange(5.0)[:, None]
    assert GowerKernel(schema, C).distinct() is None


@settings(max_examples=60, deadline=None)
@given(codes=st.lists(st.integers(0, 300), min_size=0, max_size=200), big=st.booleans())
def test_used_codes_equals_np_unique(codes, big):
    gi = np.array(codes, dtype=np.intp)
    bound = 10**7 if big else 301  # big: the np.unique fallback
    got_codes, got_inv = used_codes(gi, bound)
    want_codes, want_inv = np.unique(gi, return_inverse=True)
    np.testing.assert_array_equal(got_codes, want_codes)
    np.testing.assert_array_equal(got_inv, want_inv.reshape(-1))


def test_whole_counts():
    assert whole_counts(np.array([1.0, 2.0, 7.0])) and whole_counts(np.zeros(0))
    assert not whole_counts(np.array([1.0, 0.5]))
    assert not whole_counts(np.array([1.0, np.nan])) and not whole_counts(np.array([np.inf]))
    assert not whole_counts(np.array([2.0**52, 1.0])) and whole_counts(np.array([2.0**51, 1.0]))


@settings(max_examples=40, deadline=None)
@given(schema=tie_schemas(), seed=st.integers(0, 2**31 - 1), m=st.integers(1, 50), n=st.integers(1, 300),
       whole=st.booleans())
def test_hard_histogram_equals_the_tile_by_tile_sums(schema, seed, m, n, whole):
    """One bincount for whole counts, the per-tile float sums otherwise: bit for bit the float64
    per-tile reference (fractional counts keep their summation order)."""
    rng = np.random.default_rng(seed)
    P = schema.sample_uniform(rng, 8)
    C = P[rng.integers(8, size=m)]
    X = schema.sample_uniform(rng, n)
    counts = rng.integers(1, 10**6, size=n).astype(float) if whole else rng.random(n) * 7.3
    k = GowerKernel(schema, C)
    nn = reference(k, X)
    want = np.zeros(m)
    step = tile_rows(m)
    for s in range(0, n, step):
        want += np.bincount(nn[s:s + step], weights=counts[s:s + step], minlength=m)
    got = vote_histogram(schema, C, X, counts, HardVote())
    assert got.tobytes() == want.tobytes()


def _lines_reference(k: GowerKernel, Z: np.ndarray, attr: int, codes: np.ndarray) -> np.ndarray:
    R = np.repeat(Z, codes.size, axis=0)
    R[:, attr] = np.tile(codes, Z.shape[0])
    return reference(k, R).reshape(Z.shape[0], codes.size)


@SET
@given(schema=tie_schemas(), seed=st.integers(0, 2**31 - 1), m=st.integers(1, 70), b=st.integers(1, 20),
       pool=st.integers(1, 12), tiny=st.sampled_from([None, 64, 4096]), pairs=st.sampled_from([None, 3]))
def test_nearest_lines_equals_float64_argmin(schema, seed, m, b, pool, tiny, pairs):
    """Hard's certification (issue 23): the lines' argmin is the float64 engine's, ties and pruned
    candidates included, whatever the tile size (tiny: TILE32_BYTES in bytes) and near-tie batch."""
    import blowfish_core.model.gower_kernel as dist  # where nearest reads its limits

    rng = np.random.default_rng(seed)
    P = schema.sample_uniform(rng, pool)
    C = P[rng.integers(pool, size=m)]
    Z = np.vstack([C[rng.integers(m, size=b - b // 2)], schema.sample_uniform(rng, b // 2)])
    attr = int(rng.integers(schema.p))
    a = schema.attributes[attr]
    codes = a.domain_codes() if a.size is not None and a.size <= 300 else np.linspace(0.0, 1.0, 37)
    if a.kind == "numeric" and a.integer and a.size is not None and a.size > 300:  # big integer domain
        codes = np.unique(np.rint(np.linspace(0.0, 1.0, 37) * (a.size - 1))) / (a.size - 1)
    k = GowerKernel(schema, C)
    k.nearest(P)  # the vote first, as in a round: the float32 tables are shared
    old = dist.TILE32_BYTES, dist.PAIRS_MAX
    dist.TILE32_BYTES = tiny or old[0]
    dist.PAIRS_MAX = pairs or old[1]
    try:
        got = k.nearest_lines(Z, attr, codes)
    finally:
        dist.TILE32_BYTES, dist.PAIRS_MAX = old
    np.testing.assert_array_equal(got, _lines_reference(k, Z, attr, codes))


def test_nearest_lines_exact_ties_and_empty():
    schema = Schema([Attribute("x", "ordinal", levels=list(range(5))), Attribute("y", "binary", levels=[0, 1])])
    C = np.array([[0.5, 0.0], [0.5, 0.0], [0.5, 1.0], [0.0, 0.0]])  # a duplicate, y-ties along x
    k = GowerKernel(schema, C)
    Z = np.array([[0.0, 0.0], [0.0, 1.0]])
    got = k.nearest_lines(Z, 0, schema.attributes[0].domain_codes())
    np.testing.assert_array_equal(got, _lines_reference(k, Z, 0, schema.attributes[0].domain_codes()))
    assert got.tolist() == [[3, 0, 0, 0, 0], [2, 2, 2, 2, 2]]  # x = 1 ties c_0 and c_3: the lowest index
    assert k.nearest_lines(Z[:0], 0, np.zeros(3)).shape == (0, 3)


def test_nearest_lines_on_tie_heavy_schemas():
    """Equal-weight binary / categorical / ordinal attributes: exact float64 ties on many records."""
    ties = 0
    for seed in range(150):
        rng = np.random.default_rng([15, seed])
        kinds = rng.choice(["binary", "categorical", "ordinal"], size=int(rng.integers(1, 5)))
        attrs = [Attribute(f"a{i}", str(kind), levels=list(range(2 if kind == "binary" else int(rng.integers(2, 5)))))
                 for i, kind in enumerate(kinds)]
        schema = Schema(attrs)
        C = schema.sample_uniform(rng, int(rng.integers(2, 30)))
        Z = schema.sample_uniform(rng, int(rng.integers(1, 17)))
        attr = int(rng.integers(schema.p))
        codes = schema.attributes[attr].domain_codes()
        k = GowerKernel(schema, C)
        R = np.repeat(Z, codes.size, axis=0)
        R[:, attr] = np.tile(codes, Z.shape[0])
        D = np.sort(k.block(R, domain_index(schema, R)), axis=1)
        ties += int((D[:, 0] == D[:, min(1, D.shape[1] - 1)]).sum()) if D.shape[1] > 1 else 0
        np.testing.assert_array_equal(k.nearest_lines(Z, attr, codes), _lines_reference(k, Z, attr, codes))
    assert ties > 500  # the exact-tie path is exercised
