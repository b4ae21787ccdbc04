"""MIFR (papers/003 Def. 4.4) is the exact optimum of its 0/1 program for every d (issue 26).

Def. 4.4: L = {i : a_i <= t} is raised to t and the added mass M = sum_L (t - a_i) is taken from
a donor set U* of L^c with

    U* = argmin_{U subset of L^c} sum_{i in U} a_i   s.t.   sum_{i in U} (a_i - t) >= M.

The reference below solves that program from the definition, independently of the engine's
solver: every subset for at most BRUTE candidates, else ``scipy.optimize.milp`` on the plain 0/1
form (one binary per candidate; no merging or pruning, which is what the engine does).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp

from blowfish_core.base.errors import BudgetError
from blowfish_core.privacy import pubmix as pm

BRUTE = 17
CASES = 300
SEED = 2026


def _cases():
    """300 seeded (a, t): d in [2, 64], Dirichlet(alpha) with random zeros, t in [0.05, 1] / d."""
    rng = np.random.default_rng(SEED)
    out = []
    for _ in range(CASES):
        d = int(rng.integers(2, 65))
        a = rng.dirichlet(np.full(d, float(rng.choice([0.1, 0.3, 1.0, 3.0]))))
        a[rng.random(d) < rng.choice([0.0, 0.2, 0.5])] = 0.0
        if a.sum() == 0:
            a[0] = 1.0
        out.append((a / a.sum(), float(rng.uniform(0.05, 1.0)) / d))
    return out


def _reference_removed(a: np.ndarray, t: float) -> float:
    """min sum_U a_i over U subset of {a_i > t} with sum_U (a_i - t) >= M (0 when M = 0)."""
    low = a <= t
    need = float((t - a[low]).sum())
    c = np.flatnonzero(~low)
    if need <= 0 or c.size == 0:
        return 0.0
    exc, mass = a[c] - t, a[c]
    if exc.sum() <= need * (1 + 1e-12):  # only the full set covers (t = 1/d up to rounding)
        return float(mass.sum())
    if c.size <= BRUTE:
        masks = ((np.arange(1, 2 ** c.size)[:, None] >> np.arange(c.size)[None, :]) & 1).astype(float)
        ok = masks @ exc >= need - 1e-15
        return float((masks @ mass)[ok].min())
    res = milp(mass / mass.max() * 1e7, constraints=LinearConstraint((exc / need)[None, :], lb=1.0, ub=np.inf),
               integrality=np.ones(c.size), bounds=Bounds(0, 1), options={"mip_rel_gap": 0.0})
    assert res.success, res.message
    return float(mass[res.x > 0.5].sum())


def _removed(a: np.ndarray, b: np.ndarray, t: float) -> float:
    """Mass of the donors MIFR used: entries above t that it lowered."""
    return float(a[(a > t) & (b < a - 1e-15)].sum())


def test_mifr_equals_the_program_optimum_on_300_random_cases():
    cases = _cases()
    ds = [a.size for a, _ in cases]
    assert max(ds) == 64 and sum(int((a > t).sum() > 16) for a, t in cases) >= 50  # the old greedy range is hit
    for a, t in cases:
        b = pm.mifr(a, t)
        low = a <= t
        need = float((t - a[low]).sum())
        # feasibility (Def. 4.4): floor, mass, L raised to t, only donors change, donors cover M
        assert b.min() >= t - 1e-12 and b.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(b[low], t, atol=1e-12)
        donors = (a > t) & (b < a - 1e-15)
        np.testing.assert_allclose(b[(a > t) & ~donors], a[(a > t) & ~donors], rtol=1e-12)
        assert float((a[donors] - t).sum()) >= need * (1 - 1e-12)
        assert pm.tv(a, b) == pytest.approx(need, abs=1e-12)
        # optimality: the donors' mass is the program's minimum
        ref = _reference_removed(a, t)
        got = _removed(a, b, t)
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-15), (a.size, t)


def test_mifr_d40_case_where_the_old_greedy_missed_the_optimum():
    """d = 40, t = 0.02, built by hand (issue 26's numbers: 0.790 kept by the greedy, 0.820 optimal).

    a = (0.21, 0.09, 0.09, 20 x 0.0204, 6 x 0, 0.002, 10 x 0.02).  L = the 17 entries <= 0.02, so
    M = 6 x 0.02 + 0.018 = 0.138.  Donor candidates: 0.21 (excess 0.19), 0.09 twice (0.07 each),
    twenty 0.0204 (0.0004 each, 0.008 together).  Covering 0.138: {0.21} (mass 0.21) or
    {0.09, 0.09} (excess 0.14, mass 0.18); one 0.09 plus all the 0.0204 reaches only 0.078, so
    0.18 is the minimum and the kept mass 1 - sum_U a_i is 0.82.  The greedy (fewest donors,
    then the lightest single cover) took {0.21}: 0.79.  The LP relaxation (x in [0, 1]) gives
    0.21 x 0.138 / 0.19, kept 0.8475: not integral, which is why MIFR is a 0/1 program.
    """
    a = np.array([0.21, 0.09, 0.09] + [0.0204] * 20 + [0.0] * 6 + [0.002] + [0.02] * 10)
    t = 0.02
    assert a.size == 40 and int((a > t).sum()) == 23  # > 16 candidates: the old code's greedy branch
    kept = {}
    for search in ("auto", "greedy"):
        b = pm.mifr(a, t, search=search)
        kept[search] = float(a[a <= b + 1e-15].sum())
    assert kept["auto"] == pytest.approx(0.82, abs=1e-12)
    assert kept["greedy"] == pytest.approx(0.79, abs=1e-12)
    np.testing.assert_allclose(pm.mifr(a, t)[:3], [0.21, 0.021, 0.021], atol=1e-12)  # M split by water-filling
    assert 1.0 - _reference_removed(a, t) == pytest.approx(0.82, abs=1e-12)


def test_mifr_exact_enumeration_agrees_with_the_program_on_small_cases():
    rng = np.random.default_rng(7)
    for _ in range(40):
        d = int(rng.integers(3, 14))
        a = rng.dirichlet(np.full(d, 0.4))
        t = float(rng.uniform(0.2, 1.0)) / d
        e, p = pm.mifr(a, t, search="exact"), pm.mifr(a, t)
        assert _removed(a, p, t) == pytest.approx(_removed(a, e, t), rel=1e-12, abs=1e-15)


def test_mifr_bad_search_names_the_field():
    with pytest.raises(BudgetError, match="search must be"):
        pm.mifr([0.5, 0.5], 0.1, search="fast")


def test_mifr_program_prints_nothing(capfd):
    """HiGHS 1.12's stray stdout line (ERGO-Code/HiGHS#2783) is silenced."""
    for a, t in _cases()[:60]:
        pm.mifr(a, t)
    out, _ = capfd.readouterr()
    assert "transformNewIntegerFeasibleSolution" not in out
