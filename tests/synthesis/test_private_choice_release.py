"""Issue 21 "One release gate": the private tau choice as a release (release_tau_choice) and the
seeded study path (choose_tau_private), plus the exponential mechanism's factor 2.

Held reference values in this file are computed by hand (see the comments), never by the code
under test.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from blowfish_core.workflows import private_pilot
from blowfish_core.synthesis import gate as release_gate
from blowfish_core.interfaces.cli.main import main
from blowfish_core.algorithm.evolution import RANDOMNESS, SEEDED_NOTE, SynthConfig
from blowfish_core.privacy.mechanisms import SELECTION_MECHANISMS
from blowfish_core.privacy.mechanisms.opendp_samplers import noisy_max_scale
from blowfish_core.io.presets import get_preset, load_preset_data
from blowfish_core.workflows.private_pilot import choose_tau_private, release_tau_choice
from blowfish_core.synthesis.gate import RELEASE_LABEL, GateError, Publication
from blowfish_core.privacy.selection import em_probabilities, private_choice_plan

CFG = SynthConfig(rounds=2, population=[32, 32], release=60)
TINY = ["--rounds", "2", "--population", "32x2", "--release", "60", "--quiet"]
BASE = ["pilot", "--preset", "xor3", "--n", "3000", "--rho", "1e-3", "--tau-grid", "0.01,0.1", "--private",
        "--rho-sel", "1e-3"]
TAUS = [0.01, 0.1]
#: exp([0, 1, 2]) / (1 + e + e^2) by hand: e = 2.718281828, e^2 = 7.389056099, sum 11.107337927.
EM_012 = [0.0900306, 0.2447285, 0.6652410]


@pytest.fixture(scope="module")
def xor():
    p = get_preset("xor3")
    return p, load_preset_data(p, n=3000)


def _release(xor, **kw):
    preset, split = xor
    return release_tau_choice(preset.schema, preset.default_policy(), split.private, 1e-3, TAUS, rho_sel=1e-3,
                              config=CFG, metric=preset.metric_fn(), **kw)


@pytest.fixture(scope="module")
def two_releases(xor):
    return _release(xor), _release(xor)


# ------------------------------------------------------------------ the EM's factor 2 (papers/001 Eq. (1))
def test_em_factor_two_held_values():
    """P(r) ∝ exp(eps u_r / (2 Delta)): scores [0, 1, 2], Delta 1, eps 2 -> exp([0, 1, 2]) normalised.
    Without the 2 the law would be exp([0, 2, 4]) normalised = [0.0159, 0.1173, 0.8668]."""
    np.testing.assert_allclose(em_probabilities([0.0, 1.0, 2.0], 1.0, 2.0), EM_012, atol=5e-8)
    # Delta 0.4, eps 0.1: exponent 0.1 u / 0.8 = u / 8 -> scores [0, 8] give exp([0, 1]) = [0.2689414, 0.7310586]
    np.testing.assert_allclose(em_probabilities([0.0, 8.0], 0.4, 0.1), [0.2689414, 0.7310586], atol=5e-8)
    # the release sampler: Gumbel scale 2 Delta / eps (1 here; 8 for Delta 0.4, eps 0.1)
    assert noisy_max_scale(1.0, 2.0) == pytest.approx(1.0, rel=1e-15)
    assert noisy_max_scale(0.4, 0.1) == pytest.approx(8.0, rel=1e-15)
    # the plan's temperature T (P ∝ exp(u / T)) is the same 2 Delta / eps: Delta 1 (HOErr), eps 2 -> 1
    plan = private_choice_plan(100, 3, "dp", [1e-3, 1e-3], 0.5, metric="hoerr")  # eps_sel = sqrt(8 * 0.5) = 2
    assert plan.epsilon_sel == pytest.approx(2.0, rel=1e-15) and plan.temperature == pytest.approx(1.0, rel=1e-15)


def test_em_release_draw_follows_the_held_law():
    """OpenDP's Gumbel noisy max (the release draw) has the EM's law: 2,000 draws for scores [0, 1, 2],
    Delta 1, eps 2 land within 0.04 of EM_012 (3.8 standard errors; the law without the 2 puts 0.87
    on the last score)."""
    draw = SELECTION_MECHANISMS["exponential"].draw
    freq = np.bincount([draw([0.0, 1.0, 2.0], 1.0, 2.0) for _ in range(2000)], minlength=3) / 2000
    np.testing.assert_allclose(freq, EM_012, atol=0.04)


# ------------------------------------------------------------------ the release
def test_two_unseeded_releases_are_not_byte_identical(two_releases):
    a, b = two_releases
    assert isinstance(a, Publication) and a.label == RELEASE_LABEL
    # every setting's release differs between the two (they may still choose the same setting)
    for ra, rb in zip(a.result.runs, b.result.runs):
        (xa,), (xb,) = ra.runs, rb.runs
        assert xa.seed is None and xb.seed is None
        assert xa.release.to_csv(index=False).encode() != xb.release.to_csv(index=False).encode()
    ca, cb = a.parts[0].value, b.parts[0].value  # the chosen releases
    assert ca.to_csv(index=False).encode() != cb.to_csv(index=False).encode()


def test_release_total_is_K_runs_plus_selection(two_releases):
    """K = 3 settings at rho_run = 1e-3 each + rho_sel = 1e-3: total 0.004 zCDP; Eq. (1) at delta 1e-5:
    0.004 + 2 sqrt(0.004 ln 1e5) = 0.004 + 2 * 0.2145966 = 0.4331932 (by hand)."""
    pub = two_releases[0]
    assert pub.total["rho"] == pytest.approx(0.004, rel=1e-12)
    assert pub.total["epsilon"] == pytest.approx(0.4331932, abs=1e-7)
    assert pub.total["accountant"] == "zcdp-eq1" and pub.total["delta"] == 1e-5
    chosen, choice = pub.parts
    assert chosen.name == "chosen.csv" and chosen.sampler == "opendp" and chosen.randomness == RANDOMNESS
    assert len(chosen.rows) == 6 and sum(r.rho_t for r in chosen.rows) == pytest.approx(0.003, rel=1e-12)
    assert {r.mechanism for r in chosen.rows} == {"gaussian"}  # all K runs' rows, chosen or not
    assert choice.name == "choice" and choice.sampler == "opendp-gumbel" and choice.randomness == RANDOMNESS
    (row,) = choice.rows
    assert row.mechanism == "exponential" and row.candidates == 3 and row.rho_t == pytest.approx(1e-3, rel=1e-12)
    res = pub.result
    assert res.publication is pub and not res.seeded and res.seed is None
    assert [r.t for r in res.ledger] == list(range(1, 8))
    d = res.public_dict()
    json.dumps(d, allow_nan=False)
    assert "seed" not in d and d["randomness"] == RANDOMNESS and d["status"] == RELEASE_LABEL
    assert d["release"]["total"]["rho"] == pytest.approx(0.004, rel=1e-12)
    assert d["release"]["lines"][0].startswith("Total privacy budget")
    assert "errors" not in json.dumps(d) and "probabilities" not in json.dumps(d)
    assert d["choice"] == choice.value


def test_release_goes_through_the_gate(xor, monkeypatch):
    """A gate that refuses everything makes the release path fail: release_tau_choice calls publish."""
    def refuse(claim, produce, result_of=None):
        assert claim.what == "tau choice" and not claim.seeded
        assert claim.methods == ("hard", "bf-soft") and claim.mechanisms == ("gaussian", "exponential")
        raise GateError([("seeds", "refused by the test's gate", "none")])

    monkeypatch.setattr(release_gate, "publish", refuse)
    with pytest.raises(GateError, match="refused by the test's gate"):
        _release(xor)


def test_gate_refuses_a_data_derived_domain(xor):
    preset, split = xor
    schema = dataclasses.replace(preset.schema, data_derived=True, data_derived_columns=["x1"])
    with pytest.raises(GateError, match="read off the private table") as e:
        release_tau_choice(schema, preset.default_policy(), split.private, 1e-3, TAUS, rho_sel=1e-3, config=CFG,
                           metric=preset.metric_fn())
    assert "--allow-data-domain" in e.value.render("cli")


# ------------------------------------------------------------------ the seeded study path
def test_seeded_outputs_say_seeded_note_never_publishable(xor):
    preset, split = xor
    res = choose_tau_private(preset.schema, preset.default_policy(), split.private, 1e-3, TAUS, rho_sel=1e-3,
                             seed=3, config=CFG, metric=preset.metric_fn())
    assert res.seeded and res.publication is None and res.randomness == res.status == SEEDED_NOTE
    d = res.public_dict()
    assert d["seed"] == 3 and d["randomness"] == d["status"] == SEEDED_NOTE and "release" not in d
    for text in (json.dumps(d), json.dumps(res.to_dict()), choose_tau_private.__doc__,
                 type(res).public_dict.__doc__):
        assert "publishable" not in text.lower()
    assert "publishable" not in (private_pilot.__doc__ or "").lower()


def test_cli_seeded_is_a_study_run(capsys):
    rc = main(BASE + ["--seeds", "3"] + TINY)
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert f"randomness: {SEEDED_NOTE}\n" in out and "publishable" not in out.lower()
    assert "release:" not in out and "Total privacy budget" not in out


def test_cli_default_is_a_release(capsys, tmp_path):
    rep = tmp_path / "r.json"
    rc = main(BASE + ["--report", str(rep)] + TINY)
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert f"randomness: {RANDOMNESS}\n" in out and RANDOMNESS == "unseeded, OS entropy, sampler opendp"
    assert f"release: {RELEASE_LABEL}\n" in out
    assert "rho = 0.004 zCDP (epsilon = 0.4332 at delta = 1e-05; accountant zcdp-eq1)" in out
    d = json.loads(rep.read_text())
    assert "seed" not in d and d["release"]["total"]["rho"] == pytest.approx(0.004, rel=1e-12)


def test_cli_release_fails_when_the_gate_refuses(capsys, monkeypatch):
    monkeypatch.setattr(release_gate, "publish", lambda *a, **k: (_ for _ in ()).throw(
        GateError([("seeds", "refused by the test's gate", "none")])))
    rc = main(BASE + TINY)
    _, err = capsys.readouterr()
    assert rc == 2 and "refused by the test's gate" in err
    # the seeded study path does not go through the gate
    assert main(BASE + ["--seeds", "0"] + TINY) == 0


def test_cli_help_and_flags(capsys):
    assert main(["pilot", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "without --seeds (default) a RELEASE through the release gate" in text
    assert "seeded study run (for study, not for publication)" in text
    rc = main(BASE + ["--seeds", "0", "--allow-data-domain", "--dry-run"])
    assert rc == 2 and "--allow-data-domain applies to a release" in capsys.readouterr().err
    with pytest.raises(TypeError, match="seed"):  # the release path takes no seed
        release_tau_choice(None, None, None, 1e-3, TAUS, rho_sel=1e-3, seed=0)


#: four Adult-shaped records (UCI column order); 100 copies split 320 private / 80 held-out.
ADULT_ROWS = [
    "39,State-gov,77516,Bachelors,13,Never-married,Adm-clerical,Not-in-family,White,Male,2174,0,40,United-States,<=50K",
    "50,Self-emp-not-inc,83311,Bachelors,13,Married-civ-spouse,Exec-managerial,Husband,White,Male,0,0,13,"
    "United-States,<=50K",
    "38,Private,215646,HS-grad,9,Divorced,Handlers-cleaners,Not-in-family,White,Male,0,0,40,United-States,<=50K",
    "53,Private,234721,11th,7,Married-civ-spouse,Handlers-cleaners,Husband,Black,Female,0,0,40,United-States,>50K",
]


def test_cli_public_pilot_names_held_out_rows_unprotected(capsys, tmp_path):
    from blowfish_core.io.presets import ADULT_UCI_COLUMNS

    path, rep = tmp_path / "adult.csv", tmp_path / "p.json"
    path.write_text(",".join(ADULT_UCI_COLUMNS) + "\n" + "\n".join(ADULT_ROWS * 100) + "\n", encoding="utf-8")
    rc = main(["pilot", "--preset", "adult", "--data", str(path), "--rho", "1e-3", "--tau-grid", "0.03",
               "--n-pilot", "60", "--seeds", "0", "--report", str(rep)] + TINY)
    out, err = capsys.readouterr()
    assert rc == 0, err
    want = ("WARNING: these 60 rows (the preset's held-out pilot split) were held out of the private table and "
            "used as public data: they get no protection. Use data that is already public.")
    assert want in out.splitlines()
    d = json.loads(rep.read_text())
    assert d["unprotected_rows"] == 60 and d["unprotected"] == want
    # generated XOR pilot rows are not rows of the sensitive table: no warning
    rc = main(["pilot", "--preset", "xor3", "--n", "3000", "--rho", "1e-3", "--dry-run"])
    assert rc == 0 and "get no protection" not in capsys.readouterr().out
