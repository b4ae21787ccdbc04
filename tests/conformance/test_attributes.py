"""Conformance of every attribute type of ``model.domain.KINDS`` (issue 22).

Each type's entries are its class's ``examples()``; the checks are the contract the engine
relies on (CONTRIBUTING.md "Attribute types and edges"): codes round-trip through values,
draws and mutations stay in the public domain, the JSON schema round-trips and the Gower
term lies in [0, 1].
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blowfish_core.model.domain import ATTRIBUTE_TYPES, Attribute
from blowfish_core.model.schema import Schema

from .conftest import ATTRIBUTE_KINDS, attribute_examples

pytestmark = pytest.mark.parametrize("kind", ATTRIBUTE_KINDS)

N = 64


def _in_domain(a, codes: np.ndarray) -> bool:
    codes = np.asarray(codes, float)
    if not np.isfinite(codes).all():
        return False
    if a.is_finite:
        return bool(np.isin(codes, a.domain_codes()).all())
    return bool(((codes >= 0.0) & (codes <= 1.0)).all())


def test_declares_examples_and_capabilities(kind):
    cls = ATTRIBUTE_TYPES[kind]
    assert cls.KIND == kind and issubclass(cls, Attribute)
    ex = attribute_examples(kind)
    assert ex, f"{cls.__name__}.examples() must give at least one declaration"
    for a in ex:
        assert type(a) is cls and a.kind == kind
        assert type(Attribute(a.name, kind, lo=a.lo, hi=a.hi, integer=a.integer, levels=a.levels,
                              tree=a.tree)) is cls  # Attribute(name, kind, ...) dispatches on the table
        for flag in ("ordered", "graded", "bounded", "has_tree"):
            assert isinstance(getattr(cls, flag), bool), flag
        assert isinstance(cls.diameter_reason, str) and cls.diameter_reason
        assert a.is_finite == (a.size is not None)
        assert a.width > 0


def test_encode_decode_round_trip(kind, rng):
    for a in attribute_examples(kind):
        codes = a.sample(rng, N)
        values = a.decode(codes)
        assert isinstance(values, pd.Series) and len(values) == N
        back = a.encode_series(values)
        np.testing.assert_allclose(back, codes, rtol=0, atol=1e-12)
        if a.is_finite:  # every value of the domain round-trips too
            dom = a.domain_codes()
            np.testing.assert_allclose(a.encode_series(a.decode(dom)), dom, rtol=0, atol=1e-12)


def test_sample_uniform_in_domain(kind, rng):
    for a in attribute_examples(kind):
        codes = a.sample(rng, N)
        assert codes.shape == (N,) and codes.dtype == np.float64
        assert _in_domain(a, codes)
        S = Schema([a]).sample_uniform(rng, N)
        assert S.shape == (N, 1) and _in_domain(a, S[:, 0])


def test_mutate_stays_in_domain(kind, rng):
    for a in attribute_examples(kind):
        col = a.sample(rng, N)
        for rate in (0.1, 1.0):
            steps = rng.uniform(-rate, rate, N)
            redraw = rng.random(N) < rate
            picks = rng.random(N)
            out = a.mutate(col.copy(), steps, redraw, picks)
            assert out.shape == (N,) and _in_domain(a, out)
        # no step, no redraw: nothing moves
        np.testing.assert_array_equal(a.mutate(col.copy(), np.zeros(N), np.zeros(N, bool), picks), col)


def test_json_round_trip(kind):
    for a in attribute_examples(kind):
        d = Schema([a]).to_dict()
        assert d["attributes"][0]["type"] == kind
        back = Schema.from_dict(d).attributes[0]
        assert type(back) is type(a) and back == a and hash(back) == hash(a)
        assert back.to_dict() == a.to_dict()


def test_distance_in_unit_interval(kind, rng):
    for a in attribute_examples(kind):
        x, y = a.sample(rng, N), a.sample(rng, N)
        d = a.term(x, y)
        assert d.shape == (N,) and ((d >= 0) & (d <= 1)).all()
        np.testing.assert_allclose(d, a.term(y, x), rtol=0, atol=1e-15)
        assert (a.term(x, x) == 0).all()
        out = np.empty(N)
        np.testing.assert_allclose(a.term_into(x, y, out), d, rtol=0, atol=1e-15)
        if a.is_finite:  # the diameter is reached: some pair of the domain is at term 1
            dom = a.domain_codes()
            A, B = np.meshgrid(dom, dom)
            assert a.term(A.ravel(), B.ravel()).max() == pytest.approx(1.0)


def test_cells_cover_the_samples(kind, rng):
    for a in attribute_examples(kind):
        col = a.sample(rng, N)
        cells, k = a.bin_codes(col, 4)
        assert k >= 1 and cells.shape == (N,) and ((cells >= 0) & (cells < k)).all()
        assert len(a.cell_labels(k)) == k
