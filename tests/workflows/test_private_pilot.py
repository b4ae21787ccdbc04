"""Private choice of tau or Hard (issue 14 phase 2): the exponential ledger row and its totals,
the API ``bc.choose_tau_private``, the CLI ``pilot`` / ``pilot --private``.

The score's sensitivity claim (1 under DP, 2/p under a substitution policy) is checked by the
exhaustive test in tests/privacy/test_selection.py.
"""

from __future__ import annotations

import dataclasses

import json
import math

import numpy as np
import pandas as pd
import pytest

import blowfish_core as bc
from blowfish_core.workflows import pilot
from blowfish_core.privacy.accounting import epsilon_eq1
from blowfish_core.interfaces.cli.main import main
from blowfish_core.base.errors import BlowfishError, BudgetError
from blowfish_core.algorithm.evolution import RANDOMNESS, SEEDED_NOTE, SynthConfig
from blowfish_core.privacy.ledger import LedgerRow
from blowfish_core.privacy.totals import privacy_totals
from blowfish_core.privacy.mechanisms import MECHANISMS, SELECTION_MECHANISMS, get_mechanism
from blowfish_core.synthesis.parsing import parse_mechanism, parse_selection_budget
from blowfish_core.io.presets import get_preset, load_preset_data
from blowfish_core.workflows.private_pilot import INTERNAL, settings_for
from blowfish_core.synthesis.gate import RELEASE_LABEL
from blowfish_core.synthesis.report import INTERNAL_LABEL

EXP = SELECTION_MECHANISMS["exponential"]
CFG = SynthConfig(rounds=2, population=[32, 32], release=60)
TINY = ["--rounds", "2", "--population", "32x2", "--release", "60", "--quiet"]


@pytest.fixture(scope="module")
def xor():
    p = get_preset("xor3")
    return p, load_preset_data(p, n=3000)


# ------------------------------------------------------------------ ledger row and totals
def test_exponential_row_exact_values():
    r = EXP.selection_row(9, 9, 0.4, 0.1)
    assert (r.t, r.candidates, r.mechanism, r.norm, r.calibration) == (9, 9, "exponential", "linf", "global")
    assert r.sensitivity == 0.4 and r.scale == 0.4
    assert r.epsilon_t == 0.1 and r.rho_t == pytest.approx(0.1 ** 2 / 8, rel=1e-15)  # 0.00125
    assert r.sigma_t is None  # not a Gaussian row
    d = r.to_dict()
    assert d["mechanism"] == "exponential" and d["epsilon_t"] == 0.1 and d["sigma_t"] is None
    assert get_mechanism("exponential") is EXP


def test_exponential_is_not_a_synth_mechanism():
    assert "exponential" not in MECHANISMS
    with pytest.raises(BlowfishError, match="unknown mechanism 'exponential'"):
        parse_mechanism("exponential")


def test_totals_all_zcdp_use_eq1_never_gdp():
    g = LedgerRow(1, 10, "gaussian", 1.0, "l2", 2.0, "global", rho_t=0.01)
    e = EXP.selection_row(2, 9, 0.4, 0.1)
    t = privacy_totals([g, e], 1e-5)
    assert t["accountant"] == "zcdp-eq1" and t["notion"] == "zcdp"
    assert t["rho"] == pytest.approx(0.01125, rel=1e-14)
    # Eq. (1) by hand: 0.01125 + 2 sqrt(0.01125 ln 1e5) = 0.731029
    assert t["epsilon"] == pytest.approx(0.01125 + 2 * math.sqrt(0.01125 * math.log(1e5)), rel=1e-14)
    assert t["epsilon"] == pytest.approx(0.7310289, abs=1e-7)
    assert "epsilon_exact" not in t and t["mechanisms"] == ["exponential", "gaussian"]
    only = privacy_totals([e], 1e-5)
    assert only["accountant"] == "zcdp-eq1" and only["epsilon"] == pytest.approx(0.2411763, abs=1e-7)
    # an all-Gaussian ledger is unchanged: exact mu-GDP curve
    assert privacy_totals([g], 1e-5)["accountant"] == "gdp-exact"


def test_totals_mixed_with_pure_rows_use_pld():
    lap = LedgerRow(1, 10, "laplace", 2.0, "l1", 2.0, "global", epsilon_t=1.0)
    e = EXP.selection_row(2, 9, 0.4, 0.1)
    t = privacy_totals([lap, e], 1e-5)
    assert t["accountant"] == "pld" and "epsilon_exact" not in t and "rho" not in t
    # two pure-DP rows: basic composition 1.1 is the worst case; the PLD is at most that
    assert 1.09 < t["epsilon"] <= 1.1 + 1e-6


def test_parse_selection_budget():
    s = parse_selection_budget(rho_sel=1e-4)
    assert s.rho == 1e-4 and s.epsilon == pytest.approx(math.sqrt(8e-4), rel=1e-15)  # 0.028284
    s = parse_selection_budget(epsilon_sel=0.1)
    assert s.rho == pytest.approx(0.00125, rel=1e-15)
    with pytest.raises(BlowfishError, match="either --rho-sel or --epsilon-sel"):
        parse_selection_budget(1e-4, 0.1)
    with pytest.raises(BlowfishError, match="give a selection budget"):
        parse_selection_budget()
    with pytest.raises(BudgetError, match="rho_sel must be a finite number > 0"):
        parse_selection_budget(rho_sel=-1.0, flags=False)
    with pytest.raises(BudgetError, match="--epsilon-sel"):
        parse_selection_budget(epsilon_sel=float("nan"))


# ------------------------------------------------------------------ plan
def test_plan_adult_numbers():
    """Adult's private split (n = 26,048, p = 5, age policy): K = 9, rho = rho_sel = 1e-4."""
    p = get_preset("adult")
    plan = bc.private_pilot_plan(p.schema, p.default_policy(), 26_048, pilot.PAPER_TAU_GRID, 1e-4, 1e-4)
    c = plan.choice
    assert plan.K == 9 and c.sensitivity == pytest.approx(0.4)
    assert c.rho_total == pytest.approx(1e-3, rel=1e-12) and c.rho_selection == pytest.approx(1e-4, rel=1e-12)
    assert plan.epsilon_total == pytest.approx(epsilon_eq1(1e-3, 1e-5), rel=1e-14)
    # regret: (2/n) (2 * 0.4 / 0.028284) log(9 / 0.05)
    assert c.regret_error == pytest.approx(2 / 26_048 * 2 * 0.4 / math.sqrt(8e-4) * math.log(9 / 0.05), rel=1e-12)
    assert c.regret_error == pytest.approx(0.011278, abs=1e-6)
    text = "\n".join(plan.lines())
    assert "K = 9" in text and "total: rho = 0.001 zCDP" in text and "regret bound" in text


def test_plan_refuses_participation_and_bad_grids():
    p = get_preset("xor3")
    pol = p.default_policy()
    pol = dataclasses.replace(pol, participation=True)
    with pytest.raises(BlowfishError, match="participation edges"):
        bc.private_pilot_plan(p.schema, pol, 100, [0.1], 1e-3, 1e-4)
    with pytest.raises(BlowfishError, match="tau grid is empty"):
        settings_for([])
    with pytest.raises(BudgetError):
        settings_for([0.0])


# ------------------------------------------------------------------ API
def test_choose_tau_private_api(xor):
    preset, split = xor
    kw = dict(rho_sel=1e-3, seed=3, config=CFG, metric=preset.metric_fn())
    res = bc.choose_tau_private(preset.schema, preset.default_policy(), split.private, 1e-3, [0.01, 0.1], **kw)
    assert res.plan.K == 3 and len(res.runs) == 3
    assert all(isinstance(pr, bc.PairedResult) for pr in res.runs)
    # errors are the typed runs' errors; the law is the EM on u = -(n/2) errors at sensitivity 1 (HOErr)
    for k, (m, _t) in enumerate(res.plan.settings):
        assert res.errors[k] == res.runs[k].errors(m)[0]
    n = len(split.private)
    eps = math.sqrt(8e-3)
    ref = np.exp(-(n / 2) * res.errors * eps / 2 - np.max(-(n / 2) * res.errors * eps / 2))
    np.testing.assert_allclose(res.probabilities, ref / ref.sum(), rtol=1e-12, atol=1e-300)
    # ledger: 3 runs x 2 rounds + the exponential row, renumbered
    assert [r.t for r in res.ledger] == list(range(1, 8))
    last = res.ledger[-1]
    assert last.mechanism == "exponential" and last.candidates == 3 and last.rho_t == pytest.approx(1e-3)
    assert res.privacy["accountant"] == "zcdp-eq1"
    assert res.privacy["rho"] == pytest.approx(3 * 1e-3 + 1e-3, rel=1e-12)
    assert res.privacy["epsilon"] == pytest.approx(epsilon_eq1(4e-3, 1e-5), rel=1e-12)
    pd.testing.assert_frame_equal(res.release, res.runs[res.chosen].run(res.method, 3).release)
    d = res.to_dict()
    assert INTERNAL in d["internal"]["label"] and d["choice"]["label"] == res.label
    assert set(d["internal"]["errors"]) == {"Hard", "BF-Soft tau=0.01", "BF-Soft tau=0.1"}
    json.dumps(d, allow_nan=False)
    # reproducible with a seed
    again = bc.choose_tau_private(preset.schema, preset.default_policy(), split.private, 1e-3, [0.01, 0.1], **kw)
    assert again.chosen == res.chosen
    np.testing.assert_array_equal(again.errors, res.errors)
    pd.testing.assert_frame_equal(again.release, res.release)


def test_choose_tau_private_bad_inputs(xor):
    preset, split = xor
    args = (preset.schema, preset.default_policy(), split.private, 1e-3, [0.01])
    with pytest.raises(BlowfishError, match="give a selection budget"):
        bc.choose_tau_private(*args, config=CFG)
    with pytest.raises(BudgetError, match="rho_sel"):
        bc.choose_tau_private(*args, rho_sel=0.0, config=CFG)
    with pytest.raises(BlowfishError, match="seed must be a whole number"):
        bc.choose_tau_private(*args, rho_sel=1e-4, seed=-1, config=CFG)
    with pytest.raises(BudgetError, match="rho must be"):
        bc.choose_tau_private(preset.schema, preset.default_policy(), split.private, -1.0, [0.01], rho_sel=1e-4)


# ------------------------------------------------------------------ CLI
def _err(capsys, argv, *needles):
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for n in needles:
        assert n in lines[0], (n, lines[0])


BASE = ["pilot", "--preset", "xor3", "--n", "3000", "--rho", "1e-3", "--tau-grid", "0.01,0.1"]


def test_cli_private_dry_run_prints_the_plan_only(capsys):
    rc = main(BASE + ["--private", "--rho-sel", "1e-4", "--dry-run"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "K = 3 settings: Hard, BF-Soft tau=0.01, BF-Soft tau=0.1" in out
    assert "3 runs x rho = 0.001 = 0.003" in out and "selection rho_sel = epsilon_sel^2/8 = 0.0001" in out
    assert "total: rho = 0.0031 zCDP" in out and "regret bound" in out
    assert "dry run: nothing was run and nothing was spent" in out and "chosen:" not in out


def test_cli_private_run_writes_choice_and_ledger(capsys, tmp_path, xor):
    out_csv, rep = tmp_path / "c.csv", tmp_path / "r.json"
    rc = main(BASE + ["--private", "--rho-sel", "1e-3", "--seeds", "3", "--out", str(out_csv),
                      "--report", str(rep)] + TINY)
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "chosen:" in out and f"({INTERNAL}; do not publish)" in out
    # a seeded run (every private pilot run is seeded) is for study: never called publishable
    assert "publishable" not in out and f"randomness: {SEEDED_NOTE}\n" in out
    d = json.loads(rep.read_text())
    assert "internal" not in d and "errors" not in json.dumps(d) and "probabilities" not in json.dumps(d)
    assert d["randomness"] == SEEDED_NOTE
    assert d["privacy"]["accountant"] == "zcdp-eq1" and len(d["ledger"]) == 7
    assert d["ledger"][-1]["mechanism"] == "exponential"
    # the CLI and the API agree (same seed, same settings)
    preset, split = xor
    res = bc.choose_tau_private(preset.schema, preset.default_policy(), split.private, 1e-3, [0.01, 0.1],
                                rho_sel=1e-3, seed=3, config=CFG, metric=preset.metric_fn())
    assert d["choice"]["label"] == res.label
    pd.testing.assert_frame_equal(pd.read_csv(out_csv), res.release.reset_index(drop=True), check_dtype=False)


def test_cli_private_eval_report_holds_the_internal_figures(capsys, tmp_path):
    rep, ev = tmp_path / "r.json", tmp_path / "internal.json"
    rc = main(BASE + ["--private", "--rho-sel", "1e-3", "--report", str(rep), "--eval-report", str(ev)] + TINY)
    out, err = capsys.readouterr()
    assert rc == 0, err
    d, e = json.loads(rep.read_text()), json.loads(ev.read_text())
    assert e["label"] == INTERNAL_LABEL == "internal: computed on private data \u2014 do not publish"
    assert set(e["errors"]) == set(e["probabilities"]) == {"Hard", "BF-Soft tau=0.01", "BF-Soft tau=0.1"}
    assert sum(e["probabilities"].values()) == pytest.approx(1.0, rel=1e-12)
    # no --seeds: a release through the gate (issue 21), nothing recorded about the randomness
    assert "internal" not in d and "seed" not in d and d["randomness"] == RANDOMNESS
    assert d["status"] == d["release"]["label"] == RELEASE_LABEL
    assert f"wrote {rep} and {ev}" in out
    _err(capsys, BASE + ["--eval-report", str(ev)] + TINY, "--eval-report applies to --private only")


def test_cli_public_pilot(capsys, tmp_path):
    rep = tmp_path / "p.json"
    rc = main(BASE + ["--seeds", "0,1", "--report", str(rep)] + TINY)
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "no private budget is spent" in out and "Eq. (4)" in out and "recommendation:" in out
    d = json.loads(rep.read_text())
    assert d["recommendation"]["label"] in ("Hard", "BF-Soft (tau = 0.01)", "BF-Soft (tau = 0.1)")
    assert [c["label"] for c in d["candidates"]] == ["Hard", "BF-Soft tau=0.01", "BF-Soft tau=0.1"]
    rc = main(BASE + ["--dry-run"])
    out, _ = capsys.readouterr()
    assert rc == 0 and "dry run: nothing was run" in out and "recommendation" not in out


@pytest.mark.parametrize("extra,needles", [
    (["--private"], ["give a selection budget", "--rho-sel"]),
    (["--rho-sel", "1e-4"], ["--rho-sel applies to --private only"]),
    (["--out", "x.csv"], ["--out applies to --private only"]),
    (["--private", "--rho-sel", "-1"], ["--rho-sel must be a finite number > 0"]),
    (["--private", "--epsilon-sel", "nan"], ["--epsilon-sel must be a finite number"]),
    (["--private", "--rho-sel", "1e-4", "--epsilon-sel", "0.1"], ["either --rho-sel or --epsilon-sel"]),
    (["--private", "--rho-sel", "1e-4", "--seeds", "0,1"], ["give one seed (got 2)"]),
    (["--private", "--rho-sel", "1e-4", "--tie-tol", "0.01"], ["--tie-tol applies to the public pilot only"]),
    (["--private", "--rho-sel", "1e-4", "--participation"], ["participation edges"]),
    (["--private", "--rho-sel", "1e-4", "--tau-grid", "0,1"], ["tau grid", "> 0"]),
    (["--rho-sel", "abc"], ["--rho-sel", "not a number"]),
])
def test_cli_pilot_bad_inputs(capsys, extra, needles):
    argv = BASE + extra + ["--dry-run"]
    if "--tau-grid" in extra:
        argv = [a for a in BASE if a not in ("--tau-grid", "0.01,0.1")] + extra + ["--dry-run"]
    _err(capsys, argv, *needles)


def test_cli_pilot_needs_a_budget(capsys):
    _err(capsys, ["pilot", "--preset", "xor3", "--private", "--rho-sel", "1e-4", "--dry-run"], "give a budget")
