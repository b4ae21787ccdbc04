"""bf-soft-aim (issue 25): bf-aim's rounds with soft marginals K_S h_S at sqrt 2 tanh(r_S / (2 tau))."""

from __future__ import annotations

import math

import pytest

from blowfish_core.base.errors import BudgetError, PolicyError
from blowfish_core.baselines.blowfish_sensitivity import HOW_SOFT, RELEASED_EXACTLY
from blowfish_core.io.presets import get_preset, load_preset_data, xor_generate
from tests.mbi_marks import needs_mbi

pytestmark = [needs_mbi, pytest.mark.slow]
PRE = get_preset("xor3")
DF = xor_generate(3, 2000, 0)
RHO, TAU = 1e-2, 0.1
#: by hand: X_1's threshold-1 edge moves one of 28 Gower steps (r_S = 1/28); sqrt(2) tanh(r_S / (2 tau)).
SOFT_SENSITIVITY = 0.2498876468599722
#: bf-aim's XOR-3 round maximum (w_r = 6 for a pair with X_1 ... 12; tests/baselines/test_bf_aim.py).
SELECTION_SENSITIVITY = 12.0


def _fit(policy=None, tau=TAU):
    from blowfish_core.baselines import fit_bf_soft_aim

    return fit_bf_soft_aim(PRE.schema, DF, RHO, policy or PRE.default_policy(), tau, seed=0, rows=200)


def test_soft_rows_exact_rows_selection_and_the_total():
    res = _fit()
    assert math.fsum(r.rho for r in res.ledger) == pytest.approx(RHO, rel=1e-12)
    soft = [r for r in res.ledger if r.how.startswith(HOW_SOFT)]
    assert soft and all("X_1" in r.clique for r in soft)
    assert all(r.sensitivity == pytest.approx(SOFT_SENSITIVITY, rel=1e-12) for r in soft)
    exact = [r for r in res.ledger if r.mechanism == "gaussian" and r.sensitivity == 0]
    assert {tuple(r.clique) for r in exact} == {("X_2",), ("X_3",), ("Y",), ("X_2", "X_3"), ("X_2", "Y"),
                                                 ("X_3", "Y")}
    assert all(r.rho == 0 and r.scale == 0 and RELEASED_EXACTLY in r.how for r in exact)
    sel = [r for r in res.ledger if r.mechanism == "exponential"]
    assert sel and all(r.sensitivity == SELECTION_SENSITIVITY for r in sel)
    assert res.info["tau"] == TAU and res.info["soft"]


def test_bad_tau_and_a_policy_protecting_nothing_are_refused():
    with pytest.raises(BudgetError):
        _fit(tau=0.0)
    with pytest.raises(PolicyError, match="nothing is protected"):
        _fit(policy=PRE.policy_with(["X_1=none"]))


def test_api_runs_bf_soft_aim_through_the_method_table():
    from blowfish_core.interfaces.synthesizer import Synthesizer

    df = load_preset_data(PRE, n=1500).private
    s = Synthesizer(PRE.schema, PRE.default_policy(), method="bf-soft-aim", tau=TAU, rho=0.01, seed=0).fit(df)
    assert s.privacy_["total"]["rho"] == pytest.approx(0.01, rel=1e-12)
    assert len(s.sample(5)) == 5
