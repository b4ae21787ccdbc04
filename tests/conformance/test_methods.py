"""Conformance of every method of ``algorithm.methods.METHODS`` (issue 22).

Each method declares what the engine reads (label, notion, runner, releasable or a reason,
needs_tau consistent with its vote), runs once seeded on a tiny XOR-3 (one round) with every
mechanism it accepts, and meets the release gate; the CLI and the API refuse an unknown method
with the same message, which lists every method of the table.
"""

from __future__ import annotations

import contextlib
import inspect
import io

import numpy as np
import pytest

from blowfish_core import baselines
from blowfish_core.algorithm.evolution import SynthConfig, SynthResult
from blowfish_core.algorithm.methods import METHOD_LABELS, METHODS, NOTIONS, RUNNERS, get_method
from blowfish_core.base.errors import BlowfishError, BudgetError
from blowfish_core.model.votes import VOTES
from blowfish_core.privacy.ledger import LedgerRow
from blowfish_core.privacy.mechanisms import MECHANISMS, SELECTION_MECHANISMS
from blowfish_core.synthesis import gate
from blowfish_core.synthesis.experiment import run_method

from .conftest import ADDITIVE_NAMES, METHOD_NAMES, TAU, has_reference_stack

BUDGET = 0.5
TINY = SynthConfig(rounds=1, population=[32], release=16)


def _run_pairs():
    out = []
    for name, m in METHODS.items():
        for mech in ADDITIVE_NAMES:
            if m.mechanisms is None or mech in m.mechanisms:
                # reference methods compile jax models: the 'slow' marker of pytest.ini
                out.append(pytest.param(name, mech, id=f"{name}-{mech}",
                                        marks=[pytest.mark.slow] if m.is_reference else []))
    return out


RUN_PAIRS = _run_pairs()


@pytest.mark.parametrize("name", METHOD_NAMES)
def test_declares_what_the_engine_reads(name):
    m = METHODS[name]
    assert m.name == name and get_method(name) is m and METHOD_LABELS[name] == m.label
    assert isinstance(m.label, str) and m.label.strip()
    assert m.notion in NOTIONS and m.notion_text.startswith(NOTIONS[m.notion])
    assert m.runner in RUNNERS
    assert m.releasable == (not m.not_private_reason)
    assert m.policy_aware == (m.notion == "blowfish")
    for mech in (m.mechanisms or ()) + m.extra_mechanisms:
        assert mech in MECHANISMS or mech in SELECTION_MECHANISMS, mech
    if m.is_reference:
        assert m.vote is None and m.calibrator is None
        assert m.fit and callable(getattr(baselines, m.fit)), f"baselines.{m.fit}"
        # run_reference passes tau exactly to the fits that need it (bf-soft-mst), the policy to the
        # policy-aware ones
        params = inspect.signature(getattr(baselines, m.fit)).parameters
        assert ("tau" in params) == m.needs_tau and ("policy" in params) == m.policy_aware
    else:
        assert m.vote in VOTES.values() and hasattr(m.calibrator, "sensitivity")


@pytest.mark.parametrize("name", METHOD_NAMES)
def test_needs_tau_matches_its_vote(name):
    m = METHODS[name]
    if m.vote is None:
        with pytest.raises(BlowfishError, match="has no vote"):
            m.make_vote(None)
        return
    v = m.make_vote(TAU if m.needs_tau else None)
    assert isinstance(v, m.vote)
    if m.needs_tau:
        with pytest.raises(BudgetError):
            m.make_vote(None)
        with pytest.raises(BudgetError):
            m.make_vote(-1.0)
    else:
        assert isinstance(m.make_vote(None), m.vote)
    assert m.integer_votes == (m.vote.name == "hard")


@pytest.mark.parametrize("name,mech", RUN_PAIRS)
def test_tiny_seeded_run_spends_the_budget(name, mech, xor_setup):
    m = METHODS[name]
    if m.is_reference and not has_reference_stack():
        pytest.skip("reference methods need mbi and jax (pip install .[baseline])")
    schema, policy, X = xor_setup
    budget_name = MECHANISMS[mech].budget_name
    kw = {"epsilon": BUDGET, "rho": None} if budget_name == "epsilon" else {"rho": BUDGET}
    rho = kw.pop("rho")
    res = run_method(schema, X, policy, name, rho, TAU if m.needs_tau else None, config=TINY, seed=0,
                     mechanism=mech, **kw)
    assert isinstance(res, SynthResult) and res.method == name and res.seed == 0
    assert res.release.ndim == 2 and res.release.shape[1] == len(schema.attributes)
    assert np.isfinite(res.release).all()
    assert res.rounds and all(isinstance(r, LedgerRow) for r in res.rounds)
    spent = sum(getattr(r, f"{budget_name}_t") or 0.0 for r in res.rounds)
    assert spent == pytest.approx(BUDGET, rel=1e-9)
    assert res.noise_sampler == "numpy"  # seeded: the study sampler


@pytest.mark.parametrize("name", METHOD_NAMES)
def test_release_gate(name):
    m = METHODS[name]
    mechs = tuple(m.mechanisms or ADDITIVE_NAMES[:1]) + m.extra_mechanisms
    problems = gate.problems_of(gate.Claim("synthetic table", methods=(name,), mechanisms=mechs))
    if m.releasable:
        assert problems == []
    else:
        assert [p[0] for p in problems] == ["method"] and m.not_private_reason.split()[0] in problems[0][1]
        with pytest.raises(gate.GateError):
            gate.check(gate.Claim("synthetic table", methods=(name,), mechanisms=mechs))


def _cli_error(argv: list[str]) -> tuple[int, str]:
    from blowfish_core.interfaces.cli.main import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse refusals
            code = e.code
    return code, err.getvalue()


def _api_error(**kw) -> str:
    from blowfish_core.interfaces.synthesizer import Synthesizer
    from blowfish_core.io.presets import xor

    p = xor(3)
    with pytest.raises(BlowfishError) as e:
        Synthesizer(p.schema, p.default_policy(), seed=0, **kw).fit(p.generator(50, 0))
    return str(e.value)


@pytest.fixture(scope="module")
def unknown_method_messages():
    code, cli = _cli_error(["synth", "--preset", "xor3", "--n", "50", "--rho", "0.1", "--method", "magic",
                            "--out", "/nonexistent-never-written/x.csv"])
    return code, cli, _api_error(method="magic", rho=0.1)


@pytest.mark.parametrize("name", METHOD_NAMES)
def test_unknown_method_refusal_lists_it(name, unknown_method_messages):
    """The CLI and the API refuse an unknown method with one message that names every method."""
    code, cli, api = unknown_method_messages
    assert code == 2 and cli.count("\n") == 1
    core = "unknown method 'magic'; use "
    assert core in cli and core in api
    assert cli.split(core, 1)[1].strip() == api.split(core, 1)[1].strip()
    assert name in api.split(core, 1)[1].split(", ")
