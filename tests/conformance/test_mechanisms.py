"""Conformance of every registered mechanism (issue 22).

Entries: ``MECHANISMS`` (additive ones: split / scale / noise / release / row / totals / pld;
sampling release steps: split / plan / row / totals), ``SELECTION_MECHANISMS`` (a ledger row and
its zCDP cost) and the release variants ``SAMPLED`` (floating-point-safe samplers).  Every check
reads what the mechanism declares (``name``, ``norm``, ``budget_name``, ``sampler``, ``samples``),
never its name.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from blowfish_core.base.errors import BlowfishError
from blowfish_core.model.sensitivity import Calibration
from blowfish_core.privacy.ledger import LedgerRow
from blowfish_core.privacy.mechanisms import (
    MECHANISMS, SAMPLED, SAMPLERS, SELECTION_MECHANISMS, get_mechanism,
)
from blowfish_core.privacy.totals import privacy_totals
from blowfish_core.synthesis import gate

from .conftest import ADDITIVE_NAMES, ALL_MECHANISM_NAMES, SAMPLED_KEYS, SAMPLING_NAMES, SELECTION_NAMES

BUDGET, ROUNDS, DELTA = 0.8, 3, 1e-5
NORMS = ("l1", "l2", "linf")
CAL = Calibration(1.0, "global")


def _rows(m, budget=BUDGET, rounds=ROUNDS):
    """The ledger rows of a ``rounds``-round run of mechanism ``m`` at sensitivity 1."""
    if getattr(m, "samples", False):
        plan = m.plan(budget, DELTA, 150, [16] * rounds, 8)
        return [m.row(t, 16, CAL, plan) for t in range(1, rounds + 1)]
    return [m.row(t, 16, CAL, m.scale(1.0, b), b) for t, b in enumerate(m.split(budget, rounds), 1)]


def _row_budget(m, r: LedgerRow) -> float:
    return getattr(r, f"{m.budget_name}_t")


# ----------------------------------------------------------------- every mechanism
@pytest.mark.parametrize("name", ALL_MECHANISM_NAMES)
def test_declares_what_the_engine_reads(name):
    m = MECHANISMS.get(name) or SELECTION_MECHANISMS[name]
    assert m.name == name
    assert m.norm in NORMS and m.budget_name in ("rho", "epsilon")
    assert callable(m.totals) and callable(m.pld)
    assert get_mechanism(name) is m
    if name in MECHANISMS:
        assert getattr(m, "sampler", "numpy") == "numpy"  # the registry entry is the study sampler
    hash(m)  # frozen, hashable: cached plans and sets of mechanisms rely on it


@pytest.mark.parametrize("name", ALL_MECHANISM_NAMES)
def test_release_sampler_or_refusal(name):
    """A mechanism either declares a floating-point-safe release sampler (the gate admits it and
    get_mechanism(sampler='opendp') returns that variant) or is refused for releases, never a
    silent numpy fallback."""
    safe = gate.release_sampler(name)
    problems = [p for p in gate.problems_of(gate.Claim("synthetic table", mechanisms=(name,))) if p[0] == "mechanism"]
    if safe is None:
        assert problems
        if name in MECHANISMS:
            with pytest.raises(BlowfishError, match="no opendp sampler"):
                get_mechanism(name, sampler="opendp")
    else:
        assert safe in gate.SAFE_SAMPLERS and not problems
        if name in MECHANISMS:
            v = get_mechanism(name, sampler="opendp")
            assert v.name == name and v.sampler in gate.SAFE_SAMPLERS


# ----------------------------------------------------------------- histogram mechanisms
@pytest.mark.parametrize("name", list(MECHANISMS))
def test_split_sums_to_the_budget(name):
    m = MECHANISMS[name]
    for w in (None, [1.0, 2.0, 5.0]):
        s = np.asarray(m.split(BUDGET, ROUNDS, w))
        assert s.shape == (ROUNDS,) and (s > 0).all()
        assert s.sum() == pytest.approx(BUDGET, rel=1e-12)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(BlowfishError):
            m.split(bad, ROUNDS)


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_ledger_row_round_trips_to_dict(name):
    m = MECHANISMS[name]
    for r in _rows(m):
        assert isinstance(r, LedgerRow) and r.mechanism == name and r.norm == m.norm
        d = r.to_dict()
        assert d["mechanism"] == name and d["sensitivity_norm"] == m.norm
        assert d["sensitivity_t"] == r.sensitivity == d["delta_t"] and d["scale_t"] == r.scale
        assert d[f"{m.budget_name}_t"] == _row_budget(m, r)
        back = LedgerRow(**{f.name: getattr(r, f.name) for f in dataclasses.fields(LedgerRow)})
        assert back == r and back.to_dict() == d


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_totals_match_the_declared_budget(name):
    m = MECHANISMS[name]
    rows = _rows(m)
    if not getattr(m, "samples", False):  # additive rows add up (zCDP rho or pure epsilon)
        assert sum(_row_budget(m, r) for r in rows) == pytest.approx(BUDGET, rel=1e-9)
    tot = m.totals(rows, DELTA, BUDGET)
    assert tot["rounds"] == ROUNDS
    if getattr(m, "samples", False):  # (epsilon, delta) by PLD: at most the target
        assert 0 < tot["epsilon"] <= BUDGET * (1 + 1e-9)
    else:
        assert tot[m.budget_name] == pytest.approx(BUDGET, rel=1e-9)
    # the registry's composition of a ledger of only this mechanism agrees
    agg = privacy_totals(rows, DELTA)
    assert agg[m.budget_name] == pytest.approx(tot[m.budget_name], rel=1e-6)


@pytest.mark.parametrize("name", ADDITIVE_NAMES)
def test_scale_is_monotone(name):
    m = MECHANISMS[name]
    assert m.scale(0.0, 0.1) == 0.0
    sens = [0.25, 0.5, 1.0, 2.0, 8.0]
    s = [m.scale(x, 0.1) for x in sens]
    assert all(a < b for a, b in zip(s, s[1:])), "scale must grow with the sensitivity"
    b = [m.scale(1.0, e) for e in (0.01, 0.1, 1.0, 10.0)]
    assert all(x > y for x, y in zip(b, b[1:])), "scale must shrink as the per-round budget grows"


@pytest.mark.parametrize("name", ADDITIVE_NAMES)
def test_noise_and_release_of_the_study_sampler(name):
    m = MECHANISMS[name]
    noise = m.noise(2.0, 500, np.random.default_rng(1))
    assert noise.shape == (500,) and np.isfinite(noise).all() and noise.std() > 0
    np.testing.assert_array_equal(noise, m.noise(2.0, 500, np.random.default_rng(1)))  # seeded: paired
    block = m.noise(2.0, (50, 10), np.random.default_rng(1))  # vectorised, as the audit draws k x m at once
    assert block.shape == (50, 10)
    np.testing.assert_array_equal(block.ravel(), noise)  # the same stream values in C order
    hist = np.arange(10, dtype=float)
    out = m.release(hist, 1.0, np.random.default_rng(2), integer=True)
    assert out.shape == hist.shape and np.isfinite(out).all()
    np.testing.assert_array_equal(m.release(hist, 0.0, np.random.default_rng(2)), hist)  # no scale, no noise


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_pld_of_a_row(name):
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    m = MECHANISMS[name]
    r = _rows(m, rounds=1)[0]
    p = m.pld(r, pld_mod, 1e-3)
    assert 0 < p.get_epsilon_for_delta(DELTA) < np.inf


@pytest.mark.parametrize("name", SAMPLING_NAMES)
def test_sampling_plan_is_public_and_complete(name):
    m = MECHANISMS[name]
    plan = m.plan(BUDGET, DELTA, 150, [16] * ROUNDS, 8)
    for f in ("epsilon_t", "delta_t", "beta_t", "floor", "n_samples"):
        assert len(getattr(plan, f)) == ROUNDS, f
    assert all(0 < b <= 1 for b in plan.beta_t)
    p = m.noise_distribution(np.full(16, 1 / 16), plan.floor[0], 16)
    assert p.shape == (16,) and p.sum() == pytest.approx(1.0) and (p >= plan.floor[0] * (1 - 1e-12)).all()


# ----------------------------------------------------------------- selection mechanisms
@pytest.mark.parametrize("name", SELECTION_NAMES)
def test_selection_row_and_totals(name):
    m = SELECTION_MECHANISMS[name]
    rows = [m.selection_row(t, 4, 1.0, e) for t, e in enumerate((0.5, 1.0), 1)]
    for r in rows:
        assert r.mechanism == name and r.to_dict()["mechanism"] == name and r.rho_t > 0
    tot = m.totals(rows, DELTA)
    assert tot["rho"] == pytest.approx(sum(r.rho_t for r in rows), rel=1e-12)
    assert privacy_totals(rows, DELTA)["rho"] == pytest.approx(tot["rho"], rel=1e-12)


# ----------------------------------------------------------------- release variants
@pytest.mark.parametrize("key", SAMPLED_KEYS, ids=[f"{n}-{s}" for n, s in SAMPLED_KEYS])
def test_release_variant_is_the_same_mechanism(key):
    name, sampler = key
    v, base = SAMPLED[key], MECHANISMS[name]
    assert sampler in SAMPLERS and sampler != "numpy"
    assert v.name == name and v.sampler in gate.SAFE_SAMPLERS  # floating-point-safe
    assert (v.norm, v.budget_name, getattr(v, "samples", False)) == (base.norm, base.budget_name,
                                                                      getattr(base, "samples", False))
    assert get_mechanism(name, sampler=sampler) is v and get_mechanism(base, sampler=sampler) is v
    # same ledger rows and accounting as the study entry
    assert _rows(v) == _rows(base)
    if not getattr(v, "samples", False):
        out = v.release(np.arange(6, dtype=float), 1.0, np.random.default_rng(0), integer=True)
        assert out.shape == (6,) and np.isfinite(out).all() and np.array_equal(out, np.round(out))


# ----------------------------------------------------------------- CLI / API refusal of a bad budget
def _flags(name: str) -> tuple[list[str], dict]:
    """How a front end selects mechanism ``name``: --noise for a sampling step, else --mechanism."""
    m = MECHANISMS[name]
    if getattr(m, "samples", False):
        return ["--noise", name, "--method", "hard"], {"noise": name, "method": "hard"}
    return ["--mechanism", name, "--method", "hard"], {"mechanism": name, "method": "hard"}


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_bad_budget_refused_alike_by_cli_and_api(name):
    import contextlib
    import io

    from blowfish_core.interfaces.cli.main import main
    from blowfish_core.interfaces.synthesizer import Synthesizer
    from blowfish_core.io.presets import xor

    b = MECHANISMS[name].budget_name
    cli_flags, api_kw = _flags(name)
    p = xor(3)
    for bad in ("0", "-1"):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["synth", "--preset", "xor3", "--n", "50", f"--{b}", bad, *cli_flags,
                         "--out", "/nonexistent-never-written/x.csv"])
        cli = err.getvalue()
        with pytest.raises(BlowfishError) as e:
            Synthesizer(p.schema, p.default_policy(), seed=0, **{b: float(bad)}, **api_kw).fit(p.generator(50, 0))
        api = str(e.value)
        assert code == 2 and cli.count("\n") == 1, cli
        assert f"{b} must be a finite number > 0" in api, api
        assert cli.strip() == f"error: {api}", (cli, api)
