"""Validate once (issue 22, must-show 5): every setting is checked once per run, where it enters.

Issue 22 counted, in one CLI run, ``check_tau`` 18 calls, ``check_rho`` 16, ``get_method`` 27,
``get_mechanism`` 17, ``record_reach`` 11 (on the commit before this test: 16 / 54 / 53 / 22 / 11 for
``synth --preset xor3 --method tab-pe,hard,bf-soft --tau 0.03 --rho 0.003 --seeds 0``).  The target:
each at most once per run, plus once per round where the round computes it anew.  The front end
parses and checks the choice once (``spec.Choice``), ``RunSpec.build`` resolves and checks the rest
once (``RunSpec.checked``: the Method and Mechanism objects, the per-round budgets, the reach, the
checked tau) and the layers below receive those objects.

The counts are taken as /tmp/s/callcount.py takes them: ``sys.setprofile`` counting calls by code
object.  They are constants (the targets), not recomputed; the public entry points still refuse bad
input (the last tests).
"""

from __future__ import annotations

import collections
import dataclasses
import sys

import pytest

import blowfish_core as bc
from blowfish_core.algorithm.evolution import run_synthesis
from blowfish_core.algorithm.methods import BF_SOFT, HARD, calibrate, get_method
from blowfish_core.base.constants import DEFAULT_DELTA
from blowfish_core.base.errors import BudgetError
from blowfish_core.interfaces.cli.main import main
from blowfish_core.model.policy import record_reach
from blowfish_core.model.votes import check_tau
from blowfish_core.privacy.accounting.checks import check_rho
from blowfish_core.privacy.mechanisms import MECHANISMS, get_mechanism
from blowfish_core.synthesis.experiment import run_paired
from blowfish_core.synthesis.spec import Choice, RunSpec

CHECKERS = (check_tau, check_rho, get_method, get_mechanism, record_reach)
XOR = bc.get_preset("xor3")

#: one run of three methods, one mechanism (Gaussian), the budget given as rho: each method looked up
#: once (by the CLI's parse), the mechanism once, rho and tau checked once (by the parse; the spec
#: takes its Choice), the reach computed once (RunSpec.build); no round re-checks anything.
CLI_THREE_METHODS = {"check_tau": 1, "check_rho": 1, "get_method": 3, "get_mechanism": 1, "record_reach": 1}
#: the same with two seeds: nothing grows with the seeds.
CLI_TWO_SEEDS = CLI_THREE_METHODS
#: BF-Soft with the Laplace mechanism and a pure-DP epsilon: no rho anywhere.
CLI_LAPLACE = {"check_tau": 1, "check_rho": 0, "get_method": 1, "get_mechanism": 1, "record_reach": 1}
#: the budget as (epsilon, delta), converted to rho by the exact curve: the converted rho is not
#: checked again (the allowance was one more check_rho).
CLI_CONVERTED = {"check_tau": 1, "check_rho": 0, "get_method": 3, "get_mechanism": 1, "record_reach": 1}
#: Synthesizer(...).fit(df), one method, seeded.
FIT_ONE_METHOD = {"check_tau": 1, "check_rho": 1, "get_method": 1, "get_mechanism": 1, "record_reach": 1}


def count_calls(fn, *args, **kw):
    """({checker name: calls}, fn's result) while ``fn(*args, **kw)`` runs (sys.setprofile, by code object)."""
    targets = {f.__code__: f.__name__ for f in CHECKERS}
    counts = collections.Counter({name: 0 for name in targets.values()})

    def prof(frame, event, arg):
        if event == "call" and frame.f_code in targets:
            counts[targets[frame.f_code]] += 1

    old = sys.getprofile()
    sys.setprofile(prof)
    try:
        out = fn(*args, **kw)
    finally:
        sys.setprofile(old)
    return dict(counts), out


def cli_counts(tmp_path, *flags: str) -> dict[str, int]:
    argv = ["synth", "--preset", "xor3", *flags, "--out", str(tmp_path / "s.csv"), "--report",
            str(tmp_path / "r.json"), "--quiet"]
    counts, code = count_calls(main, argv)
    assert code == 0
    return counts


def test_cli_run_checks_each_setting_once(tmp_path):
    assert cli_counts(tmp_path, "--method", "tab-pe,hard,bf-soft", "--tau", "0.03", "--rho", "0.003",
                      "--seeds", "0") == CLI_THREE_METHODS


def test_cli_counts_do_not_grow_with_seeds(tmp_path):
    assert cli_counts(tmp_path, "--method", "tab-pe,hard,bf-soft", "--tau", "0.03", "--rho", "0.003",
                      "--seeds", "0,1") == CLI_TWO_SEEDS


def test_cli_laplace_run_checks_each_setting_once(tmp_path):
    assert cli_counts(tmp_path, "--method", "bf-soft", "--tau", "0.03", "--mechanism", "laplace", "--epsilon", "1",
                      "--seeds", "0") == CLI_LAPLACE


def test_cli_converted_budget_is_not_rechecked(tmp_path):
    assert cli_counts(tmp_path, "--method", "tab-pe,hard,bf-soft", "--tau", "0.03", "--epsilon", "1",
                      "--seeds", "0") == CLI_CONVERTED


def test_fit_checks_each_setting_once():
    data = bc.load_preset_data(XOR, None, n=300).private
    cfg = bc.SynthConfig(rounds=2, population=[16, 16], release=8)
    syn = bc.Synthesizer(XOR.schema, XOR.default_policy(), method="bf-soft", tau=0.03, rho=1e-2, seed=0, config=cfg)
    counts, fitted = count_calls(syn.fit, data)
    assert counts == FIT_ONE_METHOD
    assert len(fitted.ledger_) == 2 and len(fitted.sample(8)) == 8


# ----------------------------------------------------------------- what the spec carries
DATA = None


def _spec(**kw):
    global DATA
    if DATA is None:
        DATA = bc.load_preset_data(XOR, None, n=300).private
    base = dict(methods=["hard", "bf-soft"], rho=1e-2, tau=0.03, seeds=[0],
                config=bc.SynthConfig(rounds=2, population=[16, 16], release=8))
    return RunSpec.build(XOR.schema, XOR.default_policy(), DATA, **{**base, **kw})


def test_built_spec_carries_the_resolved_objects():
    spec = _spec()
    c = spec.checked
    assert spec.validated and c.methods == (HARD, BF_SOFT) and c.methods[0] is HARD
    assert c.mechanism is MECHANISMS["gaussian"] and c.budget == spec.budget == 1e-2
    assert list(c.budgets) == [5e-3, 5e-3] and not c.budgets.flags.writeable
    assert c.reach == record_reach(XOR.schema, XOR.default_policy()) and c.tau == 0.03
    # a copy with other settings is not validated (dataclasses.replace drops what build checked) and is
    # checked again by run_paired
    other = dataclasses.replace(spec, rho=-1.0)
    assert not other.validated
    with pytest.raises(BudgetError, match="rho must be a finite number > 0"):
        run_paired(other)
    # other tables keep the checks (they read no private table)
    assert spec.with_tables(grouped=None).checked is c


def test_the_spec_takes_the_front_ends_choice_only_when_it_is_its_own():
    """RunSpec.build does not re-check a front end's Choice of its own settings; a choice of other
    settings is ignored and the spec's are checked."""
    choice = Choice((HARD, BF_SOFT), MECHANISMS["gaussian"], 1e-2, None, DEFAULT_DELTA, 0.03)
    _spec()  # the table, read once
    counts, spec = count_calls(_spec, choice=choice)
    assert counts == {"check_tau": 0, "check_rho": 0, "get_method": 0, "get_mechanism": 0, "record_reach": 1}
    assert spec.checked.methods == (HARD, BF_SOFT) and spec.checked.tau == 0.03
    counts, _ = count_calls(_spec)
    assert counts == {"check_tau": 1, "check_rho": 1, "get_method": 2, "get_mechanism": 1, "record_reach": 1}
    with pytest.raises(BudgetError, match="rho must be a finite number > 0"):
        _spec(rho=-1.0, choice=choice)
    with pytest.raises(BudgetError, match="tau must be a finite number > 0"):
        _spec(tau=-1.0, choice=dataclasses.replace(choice, tau=-1.0, methods=(BF_SOFT, HARD)))


# ----------------------------------------------------------------- the public entry points still refuse
def test_public_entry_points_still_refuse_bad_input():
    X = XOR.schema.encode(bc.load_preset_data(XOR, None, n=300).private)
    cfg = bc.SynthConfig(rounds=1, population=[8], release=4)
    pol = XOR.default_policy()
    with pytest.raises(BudgetError, match="rho must be a finite number > 0"):
        run_synthesis(XOR.schema, X, pol, "bf-soft", -1.0, tau=0.03, config=cfg, seed=0)
    with pytest.raises(BudgetError, match="tau must be a finite number > 0"):
        run_synthesis(XOR.schema, X, pol, "bf-soft", 1e-2, tau=0.0, config=cfg, seed=0)
    with pytest.raises(BudgetError, match="tau must be a finite number > 0"):
        calibrate("bf-soft", XOR.schema, pol, -1.0)
    with pytest.raises(BudgetError, match="rho_t must be a finite number > 0"):
        MECHANISMS["gaussian"].scale(1.0, -1.0)
    with pytest.raises(BudgetError, match="tau must be a finite number > 0"):
        bc.Synthesizer(XOR.schema, pol, method="bf-soft", tau=-1.0, rho=1e-2, seed=0, config=cfg).fit(
            bc.load_preset_data(XOR, None, n=300).private)
