"""Engine side of the Public-aware sampler (blowfish_core.workflows.public_sampler, issue 13)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import blowfish_core as bc
from blowfish_core.base.errors import BudgetError, SchemaError
from blowfish_core.io.presets import load_preset_data
from blowfish_core.privacy.pubmix import beta_min
from blowfish_core.workflows.public_sampler import EVALUATION_LABEL, marginal_cells, public_aware_sample


@pytest.fixture(scope="module")
def xor():
    p = bc.get_preset("xor3")
    sp = load_preset_data(p)
    return p.schema, sp.private, sp.public


def test_release_is_decoded_in_domain_and_seeded(xor):
    schema, priv, pub = xor
    r = public_aware_sample(schema, ["X_1", "Y"], priv, pub, 1.0, 1e-5, 300, evaluate=False, seed=3)
    assert list(r.rows.columns) == ["X_1", "Y"] and len(r.rows) == 300
    assert set(r.rows["X_1"]) <= set(range(8)) and set(r.rows["Y"]) <= {0, 1}
    assert r.d == 16 and r.n == len(priv)
    assert r.beta == beta_min(1.0, 1e-5, len(priv), 300, r.floor)
    assert r.p_noise.min() == pytest.approx(r.floor) and r.p_noise.sum() == pytest.approx(1)
    r2 = public_aware_sample(schema, ["X_1", "Y"], priv, pub, 1.0, 1e-5, 300, evaluate=False, seed=3)
    pd.testing.assert_frame_equal(r.rows, r2.rows)
    assert r.curve["n_samples"][0] == 1 and 300 in r.curve["n_samples"]
    assert np.all(np.diff(r.curve["pubmix"]) >= -1e-12)  # beta_min non-decreasing in n_samples


def test_no_private_marginal_or_mixture_in_the_result(xor):
    schema, priv, pub = xor
    r = public_aware_sample(schema, ["X_1", "X_2"], priv, pub, 2.0, 1e-5, 256)
    sub = bc.Schema([schema["X_1"], schema["X_2"]])
    codes = np.rint(sub.encode(priv) * 7).astype(int)
    p_prv = np.bincount(codes[:, 0] * 8 + codes[:, 1], minlength=64) / len(priv)
    mix = (1 - r.beta) * p_prv + r.beta * r.p_noise
    for v in list(vars(r).values()) + list(r.evaluation.values()):
        if isinstance(v, (np.ndarray, list)) and np.size(v) == 64 and not isinstance(np.ravel(v)[0], str):
            arr = np.asarray(v, dtype=float)
            assert not np.allclose(arr, p_prv) and not np.allclose(arr, mix)
    assert r.evaluation["label"] == EVALUATION_LABEL
    assert set(r.evaluation) >= {"pubmix", "linmix", "gaussian", "n_samples"}
    assert all(0 <= x <= 1 for k in ("pubmix", "linmix", "gaussian") for x in r.evaluation[k])


def test_numeric_attributes_release_bins():
    schema = bc.Schema([bc.Attribute("age", "numeric", lo=0, hi=100, integer=True),
                        bc.Attribute("g", "categorical", levels=["a", "b"])])
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(0, 101, 500), "g": rng.choice(["a", "b"], 500)})
    r = public_aware_sample(schema, ["age", "g"], df.iloc[:400], df.iloc[400:], 1.0, 1e-4, 50, bins=4,
                            evaluate=False)
    assert set(r.rows["age"]) <= {"[0, 25)", "[25, 50)", "[50, 75)", "[75, 100]"}
    cells, sizes, labels = marginal_cells(schema, ["age"], bins=4)
    assert sizes == [4] and labels[0][-1] == "[75, 100]"


def test_bad_inputs(xor):
    schema, priv, pub = xor
    with pytest.raises(SchemaError, match="unknown attribute"):
        public_aware_sample(schema, ["nope"], priv, pub, 1.0, 1e-5, 10)
    with pytest.raises(SchemaError, match="at least one attribute"):
        public_aware_sample(schema, [], priv, pub, 1.0, 1e-5, 10)
    bad = pub.copy()
    bad.loc[0, "X_1"] = 99
    with pytest.raises(SchemaError, match="public table"):
        public_aware_sample(schema, ["X_1"], priv, bad, 1.0, 1e-5, 10)
    with pytest.raises(BudgetError, match="epsilon"):
        public_aware_sample(schema, ["X_1"], priv, pub, -1.0, 1e-5, 10)
    with pytest.raises(BudgetError, match="gamma"):
        public_aware_sample(schema, ["X_1"], priv, pub, 1.0, 1e-5, 10, gamma=0.0)
    with pytest.raises(bc.BlowfishError, match="method"):
        public_aware_sample(schema, ["X_1"], priv, pub, 1.0, 1e-5, 10, method="gaussian")


def test_release_goes_through_the_gate_with_the_exact_sampler(xor, monkeypatch):
    """release_marginal_samples (issue 21): the gate's label and PLD total, sampler 'exact', the
    unprotected-rows note, no numpy sampler; two releases differ; the seeded preview is study-only."""
    import blowfish_core.workflows.public_sampler as ps
    from blowfish_core.synthesis import gate
    from blowfish_core.algorithm.evolution import SEEDED_NOTE

    def no_numpy(*a, **k):
        raise AssertionError("numpy's pubmix_sample used by a release")

    schema, priv, pub = xor
    monkeypatch.setattr(ps, "pubmix_sample", no_numpy)
    a = ps.release_marginal_samples(schema, ["X_1", "Y"], priv, pub, 1.0, 1e-5, 300, unprotected_rows=len(pub),
                                    unprotected_source="the pilot rows")
    assert a.label == gate.RELEASE_LABEL and a.result.label == gate.RELEASE_LABEL and a.result.publishable
    assert [p.sampler for p in a.parts] == ["exact"] and a.total["accountant"] == "pld"
    assert a.total["epsilon"] == pytest.approx(1.0, abs=2e-3)
    assert any(gate.unprotected_text(len(pub)) in x for x in a.head_lines)
    assert a.result.evaluation == {} and len(a.result.rows) == 300
    b = ps.release_marginal_samples(schema, ["X_1", "Y"], priv, pub, 1.0, 1e-5, 300)
    assert not b.result.rows.equals(a.result.rows) and not b.notes
    monkeypatch.undo()
    s = public_aware_sample(schema, ["X_1", "Y"], priv, pub, 1.0, 1e-5, 300, evaluate=False)
    assert s.label == SEEDED_NOTE and not s.publishable and s.sampler == "numpy"


def test_release_refusals_and_the_exact_linmix_floor():
    """A data-derived schema is refused by the gate; LinMix over d = 5 cells (fl(1/5) * 5 > 1
    exactly) is accounted at the largest float f with 5 f <= 1."""
    from fractions import Fraction

    from blowfish_core.synthesis import gate
    from blowfish_core.workflows.public_sampler import release_marginal_samples

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"g": rng.choice(list("abcde"), 600)})
    schema = bc.Schema([bc.Attribute("g", "categorical", levels=list("abcde"))])
    r = release_marginal_samples(schema, ["g"], df.iloc[:500], df.iloc[500:], 1.0, 1e-5, 50, method="linmix")
    assert Fraction(r.result.floor) * 5 <= 1 and r.result.floor < 1 / 5
    assert r.result.beta == beta_min(1.0, 1e-5, 500, 50, r.result.floor)
    derived = bc.Schema(schema.attributes, data_derived=True, data_derived_columns=["g"])
    with pytest.raises(gate.GateError, match="read off the private table"):
        release_marginal_samples(derived, ["g"], df.iloc[:500], df.iloc[500:], 1.0, 1e-5, 50)
