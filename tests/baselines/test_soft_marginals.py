"""Soft marginals (baselines.soft_marginals, issue 25): r_S and the sensitivity bound, by enumeration.

On XOR-3 and the 3 x 4 x 2 mixed domain of test_blowfish_sensitivity (several binnings, several tau),
every record and every record-level policy edge is enumerated (edges and cells written from the
policy's and the binning's definitions, in that test file), and the kernel K_S[c, x] =
softmax_c(-d_S(x, c) / tau) is built here from its definition (cell centres: bin midpoints and level
codes; d_S: the Gower terms with the schema's weights over the smoothed attributes; the identity on
the kept ones), not read from the engine.  For every clique S:

* the engine's r_S equals the enumerated max over edges of max_c |d_S(x, c) - d_S(x', c)|;
* the engine's kernel equals the one built here (so the flattening order is the counts' C order);
* max over edges of ||K_S[:, x'] - K_S[:, x]||_2 stays within the claim sqrt 2 tanh(r_S / (2 tau));
* with participation edges, max_x ||K_S[:, x]||_2 equals the engine's column norm, and the
  sensitivity is the max of both.

Both kernel variants (smooth "protected", the fit's; "all", every attribute of S) are checked.
Hand-checkable values: a 2-cell attribute, whose column difference is sqrt 2 tanh(r / (2 tau)) exactly.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from blowfish_core.baselines.blowfish_sensitivity import HOW_NONE, HOW_SOFT, calibration_of
from blowfish_core.baselines.cells import PublicCells
from blowfish_core.baselines.soft_marginals import SoftPolicyMarginals, cell_edges, soft_bound
from blowfish_core.base.errors import BudgetError
from blowfish_core.io.presets import xor
from blowfish_core.model.domain.base import declared_bounds
from blowfish_core.model.policy import AttributePolicy, Policy
from blowfish_core.model.schema import Attribute, Schema
from tests.baselines.test_blowfish_sensitivity import (
    MIXED_AGE, MIXED_BOTH, MIXED_COLOR, XOR_ALL, XOR_DEFAULT, _linked, _mixed_schema, _values,
)
from tests.mbi_marks import needs_mbi

SQRT2 = math.sqrt(2.0)
TAUS = (0.01, 0.05, 0.3)


def _used_bins(a: Attribute, bins: int) -> list[int]:
    """The bins that hold a value of an integer attribute's domain (the others are dropped)."""
    return sorted({_bin(a, v, bins) for v in _values(a)})


def _bin(a: Attribute, v, bins: int) -> int:
    lo, hi = declared_bounds(a)
    return min(int((v - lo) / (hi - lo) * bins), bins - 1)


def _cell(a: Attribute, v, bins: int) -> int:
    """The public cell of v: its bin's rank among the used bins (numeric), else the level's index."""
    if a.kind == "numeric":
        return _used_bins(a, bins).index(_bin(a, v, bins))
    return list(a.levels).index(v)


def _centres(a: Attribute, bins: int) -> np.ndarray:
    """Cell centres, encoded: bin midpoints (b + 0.5) / bins; ordinal rank / (L - 1); else level index."""
    if a.kind == "numeric":
        return (np.array(_used_bins(a, bins)) + 0.5) / bins
    if a.kind == "ordinal":
        return np.arange(len(a.levels)) / (len(a.levels) - 1)
    return np.arange(len(a.levels), dtype=float)


def _term(a: Attribute, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The Gower term from its definition: |u - v| on a line, [u != v] on levels."""
    return np.abs(u - v) if a.kind in ("numeric", "ordinal") else (u != v).astype(float)


def _distances(schema: Schema, clique, bins: int, smoothed: set) -> tuple[np.ndarray, np.ndarray]:
    """d_S[x, c] over the smoothed attributes (schema weights 1/p) and the mask of c agreeing with x on
    the kept ones, (N, N) each, cells in C order of the clique."""
    attrs = [schema.attributes[i] for i in clique]
    w = 1.0 / schema.p
    grids = list(itertools.product(*[range(len(_centres(a, bins))) for a in attrs]))
    N = len(grids)
    D, same = np.zeros((N, N)), np.ones((N, N), dtype=bool)
    for k, (i, a) in enumerate(zip(clique, attrs)):
        z = _centres(a, bins)
        xs = np.array([g[k] for g in grids])
        if i in smoothed:
            D += w * _term(a, z[xs][:, None], z[xs][None, :])
        else:
            same &= xs[:, None] == xs[None, :]
    return D, same


def _kernel(D: np.ndarray, same: np.ndarray, tau: float) -> np.ndarray:
    """K_S[c, x] = softmax_c(-d_S(x, c) / tau) over the c agreeing with x on the kept attributes."""
    score = np.where(same, -D / tau, -np.inf)
    K = np.exp(score - score.max(axis=1, keepdims=True))
    return (K / K.sum(axis=1, keepdims=True)).T


def _enumerate(schema: Schema, policy: Policy, bins: int, smooth: str, tau: float, max_k: int):
    """Per clique: (enumerated r_S, max column-difference l2, max column l2, K built here, edges)."""
    attrs = schema.attributes
    doms = [_values(a) for a in attrs]
    moves = []  # (i, u, u') record-level edges on attribute i, by value (context does not matter)
    records = list(itertools.product(*doms))
    n_edges = 0
    for rec in records:
        for i, a in enumerate(attrs):
            ap = policy.policy_for(a.name)
            for v in doms[i]:
                if _linked(a, ap, rec[i], v):
                    n_edges += 1
                    moves.append((rec, rec[:i] + (v,) + rec[i + 1:]))
    moved = {i for i, a in enumerate(attrs)
             if any(_cell(a, r0[i], bins) != _cell(a, r1[i], bins) for r0, r1 in moves)}
    smoothed = set(range(len(attrs))) if smooth == "all" else moved
    out = {}
    for k in range(1, max_k + 1):
        for clique in itertools.combinations(range(len(attrs)), k):
            if not moved & set(clique):
                continue
            D, same = _distances(schema, clique, bins, smoothed)
            K = _kernel(D, same, tau)
            sizes = [len(_centres(attrs[i], bins)) for i in clique]
            pairs = set()
            for r0, r1 in moves:
                x = tuple(_cell(attrs[i], r0[i], bins) for i in clique)
                x2 = tuple(_cell(attrs[i], r1[i], bins) for i in clique)
                if x != x2:
                    pairs.add((x, x2))
            r, diff = 0.0, 0.0
            for x, x2 in pairs:
                fx, fx2 = np.ravel_multi_index(x, sizes), np.ravel_multi_index(x2, sizes)
                r = max(r, float(np.abs(D[fx] - D[fx2]).max()))  # max over every centre c of S
                diff = max(diff, float(np.linalg.norm(K[:, fx2] - K[:, fx])))
            out[clique] = (r, diff, float(np.linalg.norm(K, axis=0).max()), K, sizes)
    return out, len(records), n_edges


#: (name, schema, policy, bins, largest clique size enumerated)
CASES = [
    ("xor3 X_1 threshold 1", xor(3).schema, XOR_DEFAULT, 20, 2),
    ("xor3 all protected", xor(3).schema, XOR_ALL, 20, 2),
    ("mixed age+color, 2 bins", _mixed_schema(), MIXED_BOTH, 2, 3),
    ("mixed age+color, 4 bins", _mixed_schema(), MIXED_BOTH, 4, 3),
    ("mixed age only, 5 bins (one empty)", _mixed_schema(), MIXED_AGE, 5, 3),
    ("mixed age only, 1 bin", _mixed_schema(), MIXED_AGE, 1, 3),
    ("mixed color only, 2 bins", _mixed_schema(), MIXED_COLOR, 2, 3),
]


@pytest.mark.parametrize("smooth", ["protected", "all"])
@pytest.mark.parametrize("participation", [False, True], ids=["record-edges", "participation"])
@pytest.mark.parametrize("name,schema,per,bins,max_k", CASES, ids=[c[0] for c in CASES])
def test_enumerated_soft_marginals_within_the_claim(name, schema, per, bins, max_k, participation, smooth):
    policy = Policy(per, participation=participation)
    cells = PublicCells.from_schema(schema, bins)
    lines = []
    for tau in TAUS:
        got, n_rec, n_edges = _enumerate(schema, policy, bins, smooth, tau, max_k)
        plan = SoftPolicyMarginals.of(cells, policy, tau, smooth=smooth)
        lines.append(f"{name}{' + participation' if participation else ''} [{smooth}] tau {tau}: "
                     f"{n_rec} records, {n_edges} record-level edges, {len(got)} soft cliques")
        for clique, (r, diff, col, K, sizes) in got.items():
            m = plan.marginal(clique)
            assert m.how.startswith(HOW_SOFT) and calibration_of(m.how) == "bound", clique
            assert m.reach == pytest.approx(r, abs=1e-12), clique
            assert np.allclose(m.kernel.matrix(tuple(sizes)), K, atol=1e-12), clique
            assert diff <= m.bound + 1e-12, (clique, diff, m.bound)  # the enumerated change within the claim
            assert m.bound == pytest.approx(SQRT2 * math.tanh(r / (2 * tau)), rel=1e-12)
            assert f"r_S = {r:.4g}" in m.how and f"τ = {tau:g}" in m.how
            if participation:
                assert m.column_norm == pytest.approx(col, rel=1e-12)
                assert m.sensitivity == pytest.approx(max(m.bound, col), rel=1e-12)
            else:
                assert m.sensitivity == m.bound
            lines.append(f"  {'x'.join(m.clique):<16} r_S {r:.4f}  max ||dK|| {diff:.4f} / bound {m.bound:.4f}"
                         + (f"  max col {col:.4f} / sens {m.sensitivity:.4f}" if participation else ""))
        # cliques no edge moves keep bf-mst's hard claim
        for k in range(1, max_k + 1):
            for clique in itertools.combinations(range(schema.p), k):
                if clique not in got:
                    assert not plan.marginal(clique).how.startswith(HOW_SOFT)
    print("\n".join(lines))


def test_two_cells_exact_value():
    """A 2-cell attribute: K's columns are (s, 1 - s) and (1 - s, s), s = 1 / (1 + e^(-r / tau)); their
    difference has l2 norm sqrt 2 (2 s - 1) = sqrt 2 tanh(r / (2 tau)) exactly (the bound is tight)."""
    schema = Schema([Attribute("flag", "binary", levels=["no", "yes"]),
                     Attribute("color", "categorical", levels=["a", "b", "c"])])
    policy = Policy({"flag": AttributePolicy("complete")})
    plan = SoftPolicyMarginals.of(PublicCells.from_schema(schema), policy, 0.25)
    m = plan.marginal((0,))
    assert m.reach == 0.5  # w = 1/2, d = 1
    K = m.kernel.matrix((2,))
    assert K[0, 0] == pytest.approx(0.8807970779778823, abs=1e-15)  # 1 / (1 + e^-2), held constant
    assert K[1, 0] == pytest.approx(0.11920292202211755, abs=1e-15)
    assert np.linalg.norm(K[:, 1] - K[:, 0]) == pytest.approx(1.0770567843767342, abs=1e-14)  # sqrt 2 tanh(1)
    assert m.sensitivity == pytest.approx(1.0770567843767342, abs=1e-14)
    # the 2-way with the kept color: K_flag (x) I, the same bound; the color 1-way stays exact
    two = plan.marginal((0, 1))
    assert np.allclose(two.kernel.matrix((2, 3)), np.kron(K, np.eye(3)))
    assert two.sensitivity == m.sensitivity and plan.marginal((1,)).how == HOW_NONE


def test_binning_makes_r_larger_than_the_reach():
    """Integer 0..9, threshold 3, 4 bins of 2.25 ({0,1,2} {3,4} {5,6} {7,8,9}): the edge 2 -> 5 joins bins
    0 and 2, centres 4.5 apart (0.5 in encoded units), more than the reach 3 (1/3); weight 1/2."""
    schema = Schema([Attribute("n", "numeric", lo=0, hi=9, integer=True), Attribute("f", "binary", levels=["a", "b"])])
    plan = SoftPolicyMarginals.of(PublicCells.from_schema(schema, 4), Policy({"n": AttributePolicy("threshold", 3)}),
                                  0.1)
    assert plan.marginal((0,)).reach == pytest.approx(0.25, abs=1e-15)  # 1/2 * 2 bins / 4
    assert plan.marginal((0,)).reach > 0.5 * 3 / 9
    assert plan.marginal((0,)).witness == {"attribute": "n", "from": "bin [0, 2.25)", "to": "bin [4.5, 6.75)"}


@pytest.mark.parametrize("theta,jump", [(2.0, 1), (3.0, 2), (4.0, 2), (4.5, 3), (50.0, 4)])
def test_continuous_bin_jumps(theta, jump):
    """Continuous 0..10 in 5 bins of 2: values at most theta apart lie at most ceil(theta / 2) bins apart
    (checked on a fine grid here), capped at 4."""
    schema = Schema([Attribute("v", "numeric", lo=0.0, hi=10.0), Attribute("f", "binary", levels=["a", "b"])])
    cells = PublicCells.from_schema(schema, 5)
    e = cell_edges(cells, Policy({"v": AttributePolicy("threshold", theta)}), 0)
    assert int(np.abs(e[:, 1] - e[:, 0]).max()) == jump
    u = np.linspace(0, 10, 2001)
    b = np.minimum((u / 2).astype(int), 4)
    near = np.abs(u[:, None] - u[None, :]) <= theta + 1e-12
    assert int(np.abs(b[:, None] - b[None, :])[near].max()) == jump


def test_bad_tau_is_refused_like_every_tau_method():
    cells = PublicCells.from_schema(_mixed_schema(), 2)
    for bad in (None, 0.0, -1.0, float("nan"), "0.1", True):
        with pytest.raises(BudgetError, match="tau must be a finite number > 0"):
            SoftPolicyMarginals.of(cells, Policy(MIXED_AGE), bad)
    assert soft_bound(0.0, 0.1) == 0.0


@needs_mbi
def test_query_fits_h_not_its_smoothing():
    """Noise-free soft measurements y = K_S h_S: mbi's estimate through the kernel's query recovers h_S
    (de-biased by construction), and the 1-way solve of the selection step recovers the 1-way."""
    from blowfish_core.baselines._mbi import jax_scope, mbi_domain, require_mbi
    from blowfish_core.baselines.common import counts, estimate, independent_estimate, model_marginals

    schema = _mixed_schema()
    cells = PublicCells.from_schema(schema, 4)
    plan = SoftPolicyMarginals.of(cells, Policy(MIXED_BOTH), 0.05)
    rng = np.random.default_rng(3)
    codes = np.column_stack([rng.integers(0, s, 400) for s in cells.sizes])
    with jax_scope():
        mbi = require_mbi()
        domain = mbi_domain(mbi, cells.sizes)
        meas = []
        for cl in [(0,), (1,), (2,), (0, 1), (1, 2)]:
            h = counts(codes, cells.sizes, cl)
            m = plan.marginal(cl)
            kern = getattr(m, "kernel", None)
            if kern is None:
                meas.append(mbi.LinearMeasurement(h, cl, stddev=1.0))
            else:
                y = kern.apply(h, tuple(cells.sizes[c] for c in cl))
                assert not np.allclose(y, h)  # the smoothing is real
                meas.append(mbi.LinearMeasurement(y, cl, stddev=1.0, query=kern.query(cl)))
        est = estimate(mbi, domain, meas, 400.0, 3000, tol=None)
        got = model_marginals(est.model, [(0, 1), (1, 2)])
    for cl in [(0, 1), (1, 2)]:
        assert np.abs(got[cl] - counts(codes, cells.sizes, cl)).max() < 0.5, cl
    one = independent_estimate([meas[1]], 400.0)[1]
    assert np.abs(one - counts(codes, cells.sizes, (1,))).max() < 1e-3


def _mixed_data(n: int = 400, seed: int = 5):
    import pandas as pd

    rng = np.random.default_rng(seed)
    return pd.DataFrame({"color": rng.choice(["a", "b", "c"], n), "age": rng.integers(0, 4, n),
                         "flag": rng.choice(["no", "yes"], n)})


@needs_mbi
@pytest.mark.slow
def test_fit_ledger_names_each_marginal():
    """bf-soft-mst on the mixed domain (age threshold 1, 4 bins): soft rows name r_S and tau, the
    unprotected marginals are exact, the noise scale is sigma = sensitivity / sqrt(2 rho_i), rho sums."""
    from blowfish_core.baselines import fit_bf_soft_mst, ledger_total

    schema, rho, tau = _mixed_schema(), 0.5, 0.05
    res = fit_bf_soft_mst(schema, _mixed_data(), rho, Policy(MIXED_AGE), tau, seed=0, bins=4, iters=300)
    plan = SoftPolicyMarginals.of(PublicCells.from_schema(schema, 4), Policy(MIXED_AGE), tau)
    assert ledger_total(res.ledger) == pytest.approx(rho, rel=1e-12)
    assert res.info["tau"] == tau and res.info["protected"] == ["age"]
    one_ways = [r for r in res.ledger if r.step == "measure-1way"]
    assert [r.clique for r in one_ways] == [("color",), ("age",), ("flag",)]
    for r in res.ledger:
        if r.mechanism != "gaussian":
            assert r.sensitivity == 2.0  # bf-mst's hard-score selection
            continue
        if "age" in r.clique:
            assert r.how.startswith(HOW_SOFT) and "r_S = 0.08333" in r.how and "τ = 0.05 (fixed)" in r.how
            assert r.sensitivity == pytest.approx(plan.marginal((1,)).bound, rel=1e-12)
            assert r.scale == pytest.approx(r.sensitivity / math.sqrt(2 * r.rho), rel=1e-12)
        else:
            assert r.sensitivity == 0 and r.scale == 0 and r.rho == 0 and "released exactly" in r.how
    assert ["age"] in res.info["soft"] and ["color"] in res.info["exact"]
    assert res.info["compressed_cells"]["age"] == 4  # a soft 1-way is never compressed
    assert len(res.release) == 512


@needs_mbi
@pytest.mark.slow
def test_api_and_the_release_gate():
    """Synthesizer(method="bf-soft-mst", tau=...) runs, seeded and as a release (OpenDP samplers);
    without tau it is refused with the message every tau method gets."""
    import blowfish_core as bc
    from blowfish_core.algorithm.methods import BF_SOFT_MST, get_method
    from blowfish_core.base.errors import BlowfishError

    assert get_method("bf-soft-mst") is BF_SOFT_MST and BF_SOFT_MST.needs_tau and BF_SOFT_MST.policy_aware
    assert BF_SOFT_MST.is_reference and BF_SOFT_MST.releasable and BF_SOFT_MST.short_label == "bf-soft-MST"
    schema, data = _mixed_schema(), _mixed_data()
    with pytest.raises(BlowfishError, match="tau is required"):
        bc.Synthesizer(schema, Policy(MIXED_AGE), method="bf-soft-mst", rho=0.5, seed=0).fit(data)
    with pytest.raises(BudgetError, match="tau must be a finite number > 0"):
        bc.Synthesizer(schema, Policy(MIXED_AGE), method="bf-soft-mst", tau=-1.0, rho=0.5, seed=0).fit(data)
    seeded = bc.Synthesizer(schema, Policy(MIXED_AGE), method="bf-soft-mst", tau=0.05, rho=0.5, seed=0).fit(data)
    assert any(r.calibration == "bound" for r in seeded.ledger_)
    rel = bc.Synthesizer(schema, Policy(MIXED_AGE), method="bf-soft-mst", tau=0.05, rho=0.5, seed=None).fit(data)
    assert rel.result_.noise_sampler == "opendp" and rel.publication_ is not None


@needs_mbi
@pytest.mark.slow
def test_soft_pair_with_a_compressed_partner():
    """An exact attribute with an empty level is compressed (its exact 1-way says so); a soft 2-way with
    it applies K_age on the age axis and the identity on the compressed one, and the fit runs."""
    from blowfish_core.baselines import fit_bf_soft_mst

    data = _mixed_data()
    data["color"] = "a"  # levels b and c empty: merged into one cell
    res = fit_bf_soft_mst(_mixed_schema(), data, 0.5, Policy(MIXED_AGE), 0.05, seed=1, bins=4, iters=300)
    assert res.info["compressed_cells"] == {"color": 2, "age": 4, "flag": 2}
    assert any(len(c) == 2 for c in res.info["soft"])  # the tree reaches age: a soft pair was measured
    assert len(res.release) == 512
    # the (color, age) kernel over the compressed color cells: I_2 (x) K_age, applied axis by axis
    plan = SoftPolicyMarginals.of(PublicCells.from_schema(_mixed_schema(), 4), Policy(MIXED_AGE), 0.05)
    kern = plan.marginal((0, 1)).kernel
    h = np.arange(8.0)
    K_age = plan.marginal((1,)).kernel.matrix((4,))
    assert np.allclose(kern.apply(h, (2, 4)), np.kron(np.eye(2), K_age) @ h, atol=1e-12)
    with pytest.raises(ValueError, match="must keep its public cells"):
        kern.apply(np.ones(6), (2, 3))


@needs_mbi
def test_query_is_the_kernel_in_the_counts_order():
    """KernelQuery on an mbi Factor (either axis order) equals SoftKernel.apply on the C-order counts."""
    from blowfish_core.baselines._mbi import jax_scope, require_mbi

    plan = SoftPolicyMarginals.of(PublicCells.from_schema(_mixed_schema(), 4), Policy(MIXED_BOTH), 0.05)
    kern = plan.marginal((0, 1)).kernel
    h = np.arange(12.0) ** 1.5
    with jax_scope():
        mbi = require_mbi()
        f = mbi.Factor(mbi.Domain((0, 1), (3, 4)), h.reshape(3, 4))
        q = kern.query((0, 1))
        assert np.allclose(np.asarray(q(f)), kern.apply(h, (3, 4)), atol=1e-12)
        assert np.allclose(np.asarray(q(f.transpose((1, 0)))), kern.apply(h, (3, 4)), atol=1e-12)
    assert q == kern.query((0, 1)) and hash(q) == hash(kern.query((0, 1)))  # by value: jit cache reuse
    assert q.op_norm_sq() == pytest.approx(np.linalg.norm(kern.matrix((3, 4)), 2) ** 2, rel=1e-9)
