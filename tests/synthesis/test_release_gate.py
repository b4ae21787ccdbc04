"""The one release gate (issue 21): every publishable output passes release_gate.publish.

One test (at least) per hole the issue lists that this module covers; each failed on the main
before the gate (6fac60a) and passes after:

* data-derived domains released with only a warning -> refused, or labelled not DP;
* multi-method bundles whose ledger said "rho = 0.003" while publishing spent 0.006;
* soft-hard-noise (Hard's certified zero copied onto a soft vote) labelled "Blowfish DP";
* run_synthesis's silent default seed 0;
* integer bounds >= 2^63 crashing the API;
* n printed on stdout under participation edges;
* OsEntropyStreams with a fixed SeedSequence passing every test;
* seeded outputs labelled publishable; release paths that bypass the gate.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import blowfish_core as bc
from blowfish_core.synthesis import gate as release_gate
from blowfish_core.synthesis.release import release_synthesis
from blowfish_core.interfaces.cli.main import main
from blowfish_core.algorithm.evolution import RANDOMNESS, SEEDED_NOTE, OsEntropyStreams, SynthConfig, run_synthesis
from blowfish_core.algorithm.methods import get_method
from blowfish_core.synthesis.spec import RunSpec
from blowfish_core.synthesis.gate import NOT_DP_LABEL, GateError

XOR = bc.get_preset("xor3")
TINY = ["--rounds", "2", "--population", "32x2", "--release", "40", "--quiet"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _table(tmp_path, rows: int = 300):
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"age": rng.integers(18, 90, rows), "hours": rng.integers(1, 80, rows),
                       "job": rng.choice(["a", "b", "c"], rows)})
    path = tmp_path / "my.csv"
    df.to_csv(path, index=False)
    return str(path)


def _ledger(folder):
    with open(os.path.join(folder, "ledger.json"), encoding="utf-8") as f:
        return json.load(f)


# ------------------------------------------------------------- data-derived domains
def test_release_with_data_derived_domain_is_refused_naming_columns_and_fix(tmp_path, capsys):
    data = _table(tmp_path)
    out = tmp_path / "o.csv"
    rc = main(["synth", "--data", data, "--protect", "age=threshold:5", "--method", "bf-soft", "--tau", "0.05",
               "--rho", "0.01", "--out", str(out), *TINY])
    err = capsys.readouterr().err
    assert rc == 2
    assert "the public domain of age, hours, job was read off the private table" in err
    assert "--schema FILE" in err and "--allow-data-domain" in err
    assert not out.exists()  # refused before any work, nothing written


def test_allow_data_domain_releases_labelled_not_dp_in_the_first_ledger_line(tmp_path):
    data = _table(tmp_path)
    bundle = tmp_path / "B"
    rc = main(["synth", "--data", data, "--protect", "age=threshold:5", "--method", "bf-soft", "--tau", "0.05",
               "--rho", "0.01", "--out", str(tmp_path / "o.csv"), "--bundle", str(bundle), "--allow-data-domain",
               *TINY])
    assert rc == 0
    first = (bundle / "ledger.txt").read_text(encoding="utf-8").splitlines()[0]
    assert "not differentially private" in first and NOT_DP_LABEL in first
    assert _ledger(bundle)["label"] == NOT_DP_LABEL


def test_declared_schema_releases_as_publishable(tmp_path):
    data = _table(tmp_path)
    schema = bc.infer_schema(pd.read_csv(data))
    sp = tmp_path / "schema.json"
    sp.write_text(bc.Schema(schema.attributes).to_json(), encoding="utf-8")  # declared: not data-derived
    bundle = tmp_path / "B"
    rc = main(["synth", "--data", data, "--schema", str(sp), "--protect", "age=threshold:5", "--method", "hard",
               "--rho", "0.01", "--out", str(tmp_path / "o.csv"), "--bundle", str(bundle), *TINY])
    assert rc == 0
    assert _ledger(bundle)["label"] == release_gate.RELEASE_LABEL


def test_api_refuses_a_data_derived_domain_and_names_its_arguments(tmp_path):
    df = pd.read_csv(_table(tmp_path))
    schema = bc.infer_schema(df)
    syn = bc.Synthesizer(schema, bc.Policy(), method="tab-pe", rho=0.01, config=SynthConfig(rounds=2, release=40))
    with pytest.raises(GateError) as e:
        syn.fit(df)
    assert e.value.field == "schema" and "allow_data_domain=True" in str(e.value)
    syn = bc.Synthesizer(schema, bc.Policy(), method="tab-pe", rho=0.01, config=SynthConfig(rounds=2, release=40),
                         allow_data_domain=True).fit(df)
    assert syn.publication_.label == NOT_DP_LABEL


def test_gate_error_names_each_front_ends_controls():
    schema = bc.infer_schema(pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "x"]}))
    err = GateError(release_gate.problems_of(release_gate.Claim("synthetic table", schema)))
    assert "--schema FILE" in err.render("cli") and "--allow-data-domain" in err.render("cli")
    assert "allow_data_domain=True" in err.render("api")
    assert "tick" in err.render("app") and "schema table" in err.render("app") and "--" not in err.render("app")


# ------------------------------------------------------------- totals per bundle
def test_two_method_bundle_total_composes_both_releases(tmp_path):
    bundle = tmp_path / "B"
    rc = main(["synth", "--preset", "xor3", "--method", "bf-soft,hard", "--tau", "0.03", "--rho", "0.003",
               "--out", str(tmp_path / "o.csv"), "--bundle", str(bundle), *TINY])
    assert rc == 0
    total = _ledger(bundle)["privacy"]["total"]
    assert total["rho"] == pytest.approx(0.006, rel=1e-12)
    assert set(total) >= {"rho", "epsilon", "delta", "accountant"} and total["accountant"] == "gdp-exact"
    label, first = (bundle / "ledger.txt").read_text(encoding="utf-8").splitlines()[:2]
    assert label == f"{release_gate.RELEASE_LABEL}."  # a release says first that it may be published
    assert first.startswith("Total privacy budget of the 2 releases") and "rho = 0.006" in first


def test_one_release_total_is_its_budget():
    pub = release_synthesis(RunSpec.build(XOR.schema, XOR.default_policy(),
                                                       bc.load_preset_data(XOR, None).private, ["hard"], 0.004,
                                                       seeds=None, config=SynthConfig(rounds=2, population=[32, 32],
                                                                                      release=40)))
    assert pub.total["rho"] == pytest.approx(0.004, rel=1e-12)
    assert pub.result.public_report["privacy"]["total"]["rho"] == pytest.approx(0.004, rel=1e-12)


def test_total_of_mixed_mechanisms_is_pld():
    t = release_gate.compose_total([
        bc.LedgerRow(1, 4, "gaussian", 1.0, "l2", 10.0, "global", rho_t=0.005),
        bc.LedgerRow(1, 4, "laplace", 2.0, "l1", 4.0, "global", epsilon_t=0.5)], 1e-5)
    assert t["rho"] is None and t["accountant"] == "pld" and t["epsilon"] > 0.5


# ------------------------------------------------------------- analysis-only methods
def test_soft_hard_noise_is_refused_by_the_gate(tmp_path, capsys):
    rc = main(["synth", "--preset", "xor3", "--method", "soft-hard-noise", "--tau", "0.03", "--rho", "1",
               "--out", str(tmp_path / "o.csv"), *TINY])
    assert rc == 2
    assert "analysis-only" in capsys.readouterr().err
    with pytest.raises(GateError, match="analysis-only"):
        bc.Synthesizer(XOR.schema, XOR.default_policy(), method="soft-hard-noise", tau=0.03, rho=1.0,
                       config=SynthConfig(rounds=2, release=40)).fit(bc.load_preset_data(XOR, None).private)


def test_soft_hard_noise_study_ledger_says_not_private(tmp_path, capsys):
    rc = main(["synth", "--preset", "xor3", "--method", "hard,soft-hard-noise", "--tau", "0.03", "--rho", "1",
               "--seeds", "0", "--out", str(tmp_path / "o.csv"), *TINY])
    out = capsys.readouterr().out
    assert rc == 0
    line = next(x for x in out.splitlines() if "Soft vote with Hard's noise:" in x)
    assert "NOT PRIVATE" in line and "Blowfish DP" not in line


def test_release_controls_offer_only_private_methods():
    from studio import data_source as ds

    assert "soft-hard-noise" not in ds.RELEASE_METHODS
    assert all(get_method(m).releasable for m in ds.RELEASE_METHODS)
    assert not get_method("soft-hard-noise").releasable


# ------------------------------------------------------------- defaults and front ends
def test_run_synthesis_has_no_default_seed():
    X = XOR.schema.encode(bc.load_preset_data(XOR, None).private)
    with pytest.raises(bc.BlowfishError, match="needs seed= or streams="):
        run_synthesis(XOR.schema, X, XOR.default_policy(), "hard", 0.01, config=SynthConfig(rounds=1))
    res = run_synthesis(XOR.schema, X, XOR.default_policy(), "hard", 0.01, config=SynthConfig(rounds=1), seed=0)
    assert res.randomness == SEEDED_NOTE


@pytest.mark.parametrize("bound", [2**63, 2**64 + 5])
def test_integer_bounds_beyond_2_63_refused_by_the_api_like_the_cli(bound, tmp_path):
    schema = bc.Schema.from_dict({"attributes": [
        {"name": "a", "type": "numeric", "lo": 0, "hi": bound, "integer": True},
        {"name": "b", "type": "categorical", "levels": ["x", "y", "z"]}]})
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "x"]})
    with pytest.raises(bc.SchemaError) as api:
        bc.Synthesizer(schema, bc.Policy(), method="tab-pe", rho=0.01, seed=0).fit(df)
    with pytest.raises(bc.SchemaError) as spec:
        RunSpec.build(schema, bc.Policy(), df, ["tab-pe"], 0.01, seeds=[0])
    sp = tmp_path / "s.json"
    sp.write_text(schema.to_json(), encoding="utf-8")
    dp = tmp_path / "d.csv"
    df.to_csv(dp, index=False)
    r = subprocess.run([sys.executable, "-m", "blowfish_core", "synth", "--data", str(dp), "--schema", str(sp),
                        "--method", "tab-pe", "--rho", "0.01", "--seeds", "0", "--out", str(tmp_path / "o.csv")],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert str(api.value) == str(spec.value) and str(api.value) in r.stderr


def test_n_is_not_printed_before_the_internal_block_under_participation(tmp_path, capsys):
    data = _table(tmp_path, rows=321)
    schema = bc.Schema(bc.infer_schema(pd.read_csv(data)).attributes)
    sp = tmp_path / "s.json"
    sp.write_text(schema.to_json(), encoding="utf-8")
    base = ["synth", "--data", data, "--schema", str(sp), "--protect", "age=threshold:5", "--method", "hard",
            "--rho", "0.01", "--out", str(tmp_path / "o.csv"), *TINY]
    assert main(base + ["--participation"]) == 0
    out = capsys.readouterr().out
    public_part = out.split("INTERNAL")[0] + out.split("PUBLIC")[-1]
    assert "321" not in public_part  # n is private with participation edges
    assert main(base) == 0
    assert "321 rows" in capsys.readouterr().out.split("INTERNAL")[0]  # bounded adjacency: n is public


# ------------------------------------------------------------- randomness
def test_os_entropy_streams_are_fresh_every_time():
    """Catches OsEntropyStreams drawing from a fixed SeedSequence (issue 21 mutation)."""
    a, b = OsEntropyStreams(), OsEntropyStreams()
    assert a._ss.entropy != b._ss.entropy
    assert not np.array_equal(a(3, 1).random(8), b(3, 1).random(8))
    assert not np.array_equal(a(3, 1).random(8), np.random.default_rng(np.random.SeedSequence(0)).random(8))


def test_two_releases_differ_and_record_only_the_randomness_text(tmp_path):
    outs = []
    for k in range(2):
        o = tmp_path / f"o{k}.csv"
        assert main(["synth", "--preset", "xor3", "--method", "hard", "--rho", "0.01", "--out", str(o),
                     "--bundle", str(tmp_path / f"B{k}"), *TINY]) == 0
        outs.append(o.read_bytes())
        led = _ledger(tmp_path / f"B{k}")
        assert led["randomness"] == RANDOMNESS and "seeds" not in led
    assert outs[0] != outs[1]


def test_gate_refuses_a_producer_that_used_no_os_entropy():
    claim = release_gate.Claim("test", None, ("hard",), ("gaussian",))
    row = bc.LedgerRow(1, 4, "gaussian", 1.0, "l2", 10.0, "global", rho_t=0.005)
    with pytest.raises(GateError, match="not drawn from OS entropy"):
        release_gate.publish(claim, lambda entropy: [release_gate.Part("x", (row,), "opendp", SEEDED_NOTE)])
    with pytest.raises(GateError, match="not drawn from OS entropy"):
        release_gate.publish(claim, lambda entropy: [release_gate.Part("x", (row,), "numpy", RANDOMNESS)])
    pub = release_gate.publish(claim, lambda entropy: [release_gate.Part("x", (row,), "opendp",
                                                                          entropy().randomness)])
    assert pub.total["rho"] == pytest.approx(0.005)


def test_seeded_claim_is_refused():
    with pytest.raises(GateError, match="for study, not for publication"):
        release_gate.check(release_gate.Claim("synthetic table", seeded=True))


def test_seeded_bundle_is_never_labelled_publishable(tmp_path):
    bundle = tmp_path / "B"
    assert main(["synth", "--preset", "xor3", "--method", "hard", "--rho", "0.01", "--seeds", "0",
                 "--out", str(tmp_path / "o.csv"), "--bundle", str(bundle), *TINY]) == 0
    led = _ledger(bundle)
    assert led["label"] == SEEDED_NOTE
    assert "may be published" not in (bundle / "ledger.txt").read_text(encoding="utf-8")


def _refusing_gate(monkeypatch):
    calls = []

    def refuse(*a, **k):
        calls.append(1)
        raise GateError([("seeds", "the test gate refuses", "none")])
    monkeypatch.setattr(release_gate, "publish", refuse)
    return calls


def test_every_synthesis_release_path_goes_through_the_gate(monkeypatch, tmp_path, capsys):
    """CLI synth without seeds, Synthesizer(seed=None) and the app's release action all call publish."""
    calls = _refusing_gate(monkeypatch)
    assert main(["synth", "--preset", "xor3", "--method", "hard", "--rho", "0.01",
                 "--out", str(tmp_path / "o.csv"), *TINY]) == 2
    assert "the test gate refuses" in capsys.readouterr().err
    data = bc.load_preset_data(XOR, None).private
    with pytest.raises(GateError):
        bc.Synthesizer(XOR.schema, XOR.default_policy(), method="hard", rho=0.01,
                       config=SynthConfig(rounds=2, release=40)).fit(data)
    from studio import data_source as ds
    from studio.state import Studio

    studio = Studio("xor3", "xor3", data, None, XOR.schema, XOR.default_policy())
    with pytest.raises(GateError):
        ds.make_release(studio, "hard", 0.01, rounds=2, release=40)
    assert len(calls) == 3


def test_unprotected_held_out_rows_are_named_in_the_ledger_text():
    from blowfish_core.synthesis.report import ledger_text

    spec = RunSpec.build(XOR.schema, XOR.default_policy(), bc.load_preset_data(XOR, None).private, ["hard"], 0.01,
                         seeds=[0], config=SynthConfig(rounds=1, population=[16], release=8),
                         unprotected_rows=3000, public_source="adult pilot split")
    text = ledger_text(bc.run_paired(spec).public_report)
    assert "these 3,000 rows (adult pilot split) were held out of the private table" in text
    assert "get no protection" in text


def test_app_refuses_integer_bounds_beyond_2_63_with_the_engines_message():
    """The app used to crash with StreamlitJSNumberBoundsError; it now refuses like the CLI and the API."""
    from studio import data_source as ds

    df = pd.DataFrame({"a": [1, 2**63 + 10], "b": ["x", "y"]})
    with pytest.raises(bc.SchemaError, match=r"integer bound hi=\d+ is beyond \+-2\^53"):
        ds.csv_studio(df, "t")


@pytest.mark.parametrize("calibration", ["local", "smooth_fixed", "made-up"])
def test_demonstration_calibrations_are_refused(calibration):
    with pytest.raises(GateError, match="is not private"):
        release_gate.check(release_gate.Claim("tau choice", calibrations=(calibration,)))
    release_gate.check(release_gate.Claim("tau choice", calibrations=("global",)))


# ------------------------------------------------------------- fresh-user findings (symlinks, bundle contents)
def test_a_symlinked_output_never_overwrites_an_input(tmp_path, capsys):
    data = _table(tmp_path)
    schema = bc.Schema(bc.infer_schema(pd.read_csv(data)).attributes)
    sp = tmp_path / "s.json"
    sp.write_text(schema.to_json(), encoding="utf-8")
    before = open(data, "rb").read()
    for flag in ("--out", "--report"):
        link = tmp_path / f"link_{flag[2:]}"
        link.symlink_to(data)
        argv = ["synth", "--data", data, "--schema", str(sp), "--protect", "age=threshold:5", "--method", "hard",
                "--rho", "0.01", *TINY, "--out", str(tmp_path / "o.csv")]
        argv[argv.index("--out") + 1:argv.index("--out") + 2] = [str(link) if flag == "--out" else str(tmp_path / "o.csv")]
        if flag == "--report":
            argv += ["--report", str(link)]
        assert main(argv) == 2
        assert "would overwrite the input table" in capsys.readouterr().err
        assert open(data, "rb").read() == before


def test_internal_report_through_a_link_into_the_bundle_is_refused(tmp_path, capsys):
    bundle = tmp_path / "B"
    base = ["synth", "--preset", "xor3", "--method", "hard", "--rho", "0.01", "--out", str(tmp_path / "o.csv"),
            "--bundle", str(bundle), *TINY]
    assert main(base) == 0
    (tmp_path / "L").symlink_to(bundle)
    assert main(base + ["--eval-report", str(tmp_path / "L" / "internal.json")]) == 2
    assert "--eval-report is inside the --bundle folder" in capsys.readouterr().err
    assert not any(n.startswith(".") or n == "internal.json" for n in os.listdir(bundle))


def test_an_input_inside_the_bundle_folder_is_refused(tmp_path, capsys):
    bundle = tmp_path / "sb"
    bundle.mkdir()
    data = _table(bundle)
    schema = bc.Schema(bc.infer_schema(pd.read_csv(data)).attributes)
    sp = tmp_path / "s.json"
    sp.write_text(schema.to_json(), encoding="utf-8")
    assert main(["synth", "--data", data, "--schema", str(sp), "--protect", "age=threshold:5", "--method", "hard",
                 "--rho", "0.01", "--out", str(tmp_path / "o.csv"), "--bundle", str(bundle), *TINY]) == 2
    assert "the input --data" in (err := capsys.readouterr().err) and "inside the --bundle folder" in err


def test_a_schema_that_says_declared_but_lists_data_derived_columns_is_refused():
    d = {"attributes": [{"name": "a", "type": "numeric", "lo": 0, "hi": 9, "integer": True},
                        {"name": "b", "type": "categorical", "levels": ["x", "y", "z"]}],
         "data_derived": False, "data_derived_columns": ["a"]}
    with pytest.raises(bc.SchemaError, match="still lists a. Fix: remove each column"):
        bc.Schema.from_dict(d)
    partly = bc.Schema.from_dict({**d, "data_derived": True})  # one column still data-derived: named
    with pytest.raises(GateError, match="the public domain of a was read off"):
        release_gate.check(release_gate.Claim("synthetic table", partly))
    release_gate.check(release_gate.Claim("synthetic table",
                                          bc.Schema.from_dict({**d, "data_derived_columns": []})))


def test_allow_data_domain_with_a_declared_domain_is_refused_as_ignored(tmp_path, capsys):
    assert main(["synth", "--preset", "xor3", "--method", "hard", "--rho", "0.01", "--allow-data-domain",
                 "--out", str(tmp_path / "o.csv"), *TINY]) == 2
    assert "--allow-data-domain: the domain is declared public" in capsys.readouterr().err


def test_seeded_bundle_says_so_in_its_first_line(tmp_path):
    bundle = tmp_path / "B"
    assert main(["synth", "--preset", "xor3", "--method", "hard", "--rho", "0.01", "--seeds", "0,1",
                 "--out", str(tmp_path / "o.csv"), "--bundle", str(bundle), *TINY]) == 0
    first = (bundle / "ledger.txt").read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith(f"WARNING: {SEEDED_NOTE}")


def test_pilot_without_a_preset_reads_its_data(tmp_path, capsys):
    data = _table(tmp_path)
    rc = main(["pilot", "--private", "--data", data, "--protect", "age=threshold:5", "--rho", "1e-3",
               "--rho-sel", "1e-3", "--tau-grid", "0.03", "--dry-run"])
    assert rc == 2 and "the public domain of age, hours, job" in capsys.readouterr().err  # refused up front
    assert main(["pilot", "--private", "--preset", "xor3", "--rho", "1e-3", "--rho-sel", "1e-3", "--seeds", "-1",
                 "--dry-run"]) == 2
    assert "--seeds: seeds must be whole numbers >= 0 (got -1)" in capsys.readouterr().err


def test_tiny_table_rule_reads_the_declared_flag_and_the_row_count():
    """Issue 27: a domain inferred from <= 3 rows is refused even with allow_data_domain; 4 rows, or a
    declared domain, pass."""
    attrs = [bc.Attribute("age", "numeric", lo=0, hi=100)]
    derived = bc.Schema(attrs, data_derived=True, data_derived_columns=["age"])
    declared = bc.Schema(attrs)
    assert release_gate.TINY_TABLE_ROWS == 3

    def fields(schema, rows, allow):
        c = release_gate.Claim("synthetic table", schema, ("hard",), ("gaussian",), allow_data_domain=allow,
                               private_rows=rows)
        return [f for f, _, _ in release_gate.problems_of(c)]

    for n in (1, 3):
        assert fields(derived, n, True) == ["schema"] and fields(derived, n, False) == ["schema"]
    assert release_gate.tiny_table_problem(1)[1].startswith(
        "the private table has only 1 row(s) and its public domain was inferred from it: the inferred domain "
        "would be the records themselves")
    assert fields(derived, 4, True) == [] and fields(derived, None, True) == []
    assert fields(declared, 1, False) == []
