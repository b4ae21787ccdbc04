"""bf-mst's fit (issue 25): exact marginals free, the budget only on the protected ones, the free exact
2-way marginals, the selection picks, the ledger, PolicyError when nothing is protected."""

from __future__ import annotations

import json
import math
import os

import pytest

from blowfish_core.base.errors import PolicyError
from blowfish_core.baselines.blowfish_sensitivity import RELEASED_EXACTLY
from blowfish_core.io.presets import get_preset, xor_generate
from tests.cli_helpers import run_cli
from tests.mbi_marks import needs_mbi

pytestmark = needs_mbi
PRE = get_preset("xor3")
DF = xor_generate(3, 2000, 0)
RHO = 1e-2


def _fit(policy=None, rho=RHO, seed=0):
    from blowfish_core.baselines import fit_bf_mst

    return fit_bf_mst(PRE.schema, DF, rho, policy or PRE.default_policy(), seed=seed, rows=200)


def test_exact_marginals_are_free_and_the_budget_goes_to_the_protected_attribute():
    res = _fit()
    # X_1 is the only protected attribute (default policy: threshold 1 on X_1)
    assert res.info["protected"] == ["X_1"]
    exact = {tuple(c) for c in res.info["exact"]}
    # every 1-way and every 2-way marginal not touching X_1 is released exactly (hand count: 3 + 3)
    assert exact == {("X_2",), ("X_3",), ("Y",), ("X_2", "X_3"), ("X_2", "Y"), ("X_3", "Y")}
    for r in res.ledger:
        if r.clique and tuple(r.clique) in exact and r.mechanism == "gaussian":
            assert (r.sensitivity, r.scale, r.rho) == (0.0, 0.0, 0.0) and RELEASED_EXACTLY in r.how
    noisy = [r for r in res.ledger if r.rho > 0]
    # one noisy 1-way (X_1), MST's three selection picks (p-1; the exact pairs go on top afterwards), and
    # one noisy 2-way per tree pair touching X_1
    tree = {tuple(e) for e in res.info["tree"]}
    crossing = [e for e in tree if "X_1" in e]
    assert len(tree) == 3 and crossing
    assert [(r.step, r.mechanism) for r in noisy] == ([("measure-1way", "gaussian")] + [("select", "exponential")] * 3
                                                      + [("measure-2way", "gaussian")] * len(crossing))
    assert [r.rho for r in noisy] == pytest.approx([RHO / 3] + [RHO / 9] * 3 + [RHO / 3 / len(crossing)] * len(crossing),
                                                   rel=1e-12)
    assert math.fsum(r.rho for r in res.ledger) == pytest.approx(RHO, rel=1e-12)
    # each pick's sensitivity is the maximum over its candidates: 2, as X_1 is joined by some candidate
    sels = [r for r in noisy if r.step == "select"]
    assert [r.sensitivity for r in sels] == [2.0] * 3
    # the exact pairs the tree left are measured on top, for free (the three among X_2, X_3, Y, deduped)
    free = {tuple(e) for e in res.info["free_pairs"]}
    assert not free & tree and free | {e for e in tree if "X_1" not in e} == {("X_2", "X_3"), ("X_2", "Y"), ("X_3", "Y")}


def test_free_first_keeps_issue_25s_order():
    from blowfish_core.baselines import mst
    from blowfish_core.baselines._mbi import in_jax_scope
    from blowfish_core.baselines.policy_fit import PolicyPlans

    plans = PolicyPlans(PRE.default_policy(), "bf-mst")
    fit = mst.TreeFit("bf-mst", "bf-mst", 0x42464D, 0, 200, 20, True, mst.DEFAULT_ITERS, "round", None, free_first=True)
    res = plans.finish(in_jax_scope(mst.fit_tree)(PRE.schema, DF, RHO, plans, fit, plans.extra_info()))
    noisy = [r for r in res.ledger if r.rho > 0]
    # one noisy 1-way (X_1), one selection pick (the free pairs join X_2, X_3, Y), one noisy 2-way
    assert [(r.step, r.mechanism) for r in noisy] == [("measure-1way", "gaussian"), ("select", "exponential"),
                                                      ("measure-2way", "gaussian")]
    assert [r.rho for r in noisy] == pytest.approx([RHO / 3] * 3, rel=1e-12)
    assert math.fsum(r.rho for r in res.ledger) == pytest.approx(RHO, rel=1e-12)
    assert noisy[1].sensitivity == 2.0 and "X_1" in noisy[1].clique
    assert len(res.info["tree"]) == 1 and len(res.info["free_pairs"]) == 3


def test_same_seed_same_release_and_a_policy_protecting_nothing_is_refused():
    a, b = _fit(seed=3), _fit(seed=3)
    assert (a.X == b.X).all()
    nothing = PRE.policy_with(["X_1=none"])
    with pytest.raises(PolicyError, match="nothing is protected"):
        _fit(policy=nothing)


def test_participation_makes_nothing_exact():
    from blowfish_core.model.policy import Policy

    pol = Policy.from_dict({**PRE.default_policy().to_dict(), "participation": True})
    res = _fit(policy=pol)
    assert res.info["exact"] == [] and res.info["free_pairs"] == []
    assert len(res.info["tree"]) == 3  # a whole spanning tree is selected, as MST
    assert math.fsum(r.rho for r in res.ledger) == pytest.approx(RHO, rel=1e-12)


def test_cli_report_names_the_exactly_released_marginals(tmp_path, capsys):
    out = os.path.join(tmp_path, "synth.csv")
    rep = os.path.join(tmp_path, "report.json")
    rc, so, se = run_cli(capsys, ["synth", "--preset", "xor3", "--n", "2000", "--method", "bf-mst", "--rho", "0.01",
                                  "--seeds", "0", "--release", "200", "--out", out, "--report", rep, "--quiet"])
    assert rc == 0, se
    with open(rep) as f:
        ledger = json.load(f)["public"]["ledger"][0]["rounds"]
    exact = [r["notes"][0] for r in ledger if any(RELEASED_EXACTLY in n for n in r["notes"])]
    assert len(exact) == 6
    assert any("(X_2, Y)" in n for n in exact)
