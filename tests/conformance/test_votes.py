"""Conformance of every vote class the method table uses (plus ``model.votes.VOTES``; issue 22).

A vote maps each record to a point of the simplex over the candidates, so the histogram of n
records sums to n and one substituted record moves it by at most 2 in l1 and sqrt(2) in l2 (the
sensitivity bound every calibration starts from).  Checked on a hand-checkable pair of XOR-3
tables that differ in one record.
"""

from __future__ import annotations

import numpy as np
import pytest

from blowfish_core.model.distance import GowerKernel
from blowfish_core.model.votes import VOTES, vote_histogram, vote_vectors

from .conftest import VOTE_CLASSES, make_vote

pytestmark = pytest.mark.parametrize("cls", VOTE_CLASSES, ids=[c.name for c in VOTE_CLASSES])


def test_registered_by_name(cls):
    assert VOTES.get(cls.name) is cls
    v = make_vote(cls)
    assert isinstance(v, cls) and hash(v) is not None


def test_histogram_sums_to_n(cls, xor_setup, rng):
    schema, _, X = xor_setup
    v = make_vote(cls)
    C = schema.sample_uniform(rng, 24)
    H = vote_histogram(schema, C, X, vote=v)
    assert H.shape == (24,) and (H >= 0).all()
    assert H.sum() == pytest.approx(X.shape[0], rel=1e-12)
    # grouped records with counts give the same histogram
    U, inv, counts = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    np.testing.assert_allclose(vote_histogram(schema, C, U, counts.astype(float), vote=v), H, rtol=1e-12, atol=1e-9)


def test_rows_on_the_simplex(cls, xor_setup, rng):
    schema, _, X = xor_setup
    v = make_vote(cls)
    C = schema.sample_uniform(rng, 16)
    V = vote_vectors(schema, C, X[:20], vote=v)
    assert V.shape == (20, 16) and (V >= 0).all()
    np.testing.assert_allclose(V.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    D = GowerKernel(schema, C).block(X[:20])
    np.testing.assert_allclose(v.rows(D), V, atol=1e-12)


def test_sensitivity_bound_on_a_neighbouring_pair(cls, xor_setup, rng):
    """D and D' differ in record 0 (X_1 moved by one ordinal step, a policy edge): the histograms
    differ by at most 2 in l1 and sqrt(2) in l2; the hard vote moves exactly one count or none."""
    schema, _, X = xor_setup
    v = make_vote(cls)
    C = schema.sample_uniform(rng, 24)
    X2 = X.copy()
    lv = schema.attributes[0].domain_codes()
    i = int(np.searchsorted(lv, X2[0, 0]))
    X2[0, 0] = lv[i + 1] if i + 1 < lv.size else lv[i - 1]
    d = vote_histogram(schema, C, X, vote=v) - vote_histogram(schema, C, X2, vote=v)
    assert np.abs(d).sum() <= 2 + 1e-12
    assert np.sqrt((d ** 2).sum()) <= np.sqrt(2) + 1e-12
    assert abs(d.sum()) <= 1e-9  # a substitution keeps n
