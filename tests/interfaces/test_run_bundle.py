"""Runnable export (blowfish_core.interfaces.run_bundle): run.sh and run.py, each in a fresh process, write
the CLI's seeded release byte for byte; schema/policy JSON round trip; the CLI command string."""

from __future__ import annotations

import dataclasses

import io
import shlex
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import blowfish_core as bc
from blowfish_core.base.errors import BlowfishError
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.io.presets import shared_path
from tests.bundle_helpers import env, run  # noqa: F401 (env: used by the tests below)
from blowfish_core.interfaces.run_bundle import (
    RunSettings,
    bundle_files,
    bundle_zip,
    cli_args,
    cli_command,
    settings_from_files,
    write_bundle,
)

REPO = Path(__file__).resolve().parents[2]
XOR = bc.get_preset("xor3")
TINY = SynthConfig(rounds=2, population=[16, 16], release=20)
TINY_ARGS = ["--rounds", "2", "--population", "16x2", "--release", "20", "--quiet"]


def direct_cli(tmp_path: Path, *args: str) -> bytes:
    """`python -m blowfish_core synth` with the same settings, written by hand (fresh process)."""
    d = tmp_path / "direct"
    d.mkdir(exist_ok=True)
    run([sys.executable, "-m", "blowfish_core", "synth", *args, "--out", "cli.csv", *TINY_ARGS], d)
    return (d / "cli.csv").read_bytes()


def xor_settings(**kw) -> RunSettings:
    base = dict(schema=XOR.schema, policy=XOR.default_policy(), methods=["bf-soft", "hard"], seeds=[3, 4],
                tau=0.03, rho=1e-3, preset="xor3", config=TINY)
    base.update(kw)
    return RunSettings(**base)


def test_run_sh_and_run_py_equal_the_cli_byte_for_byte(tmp_path):
    files = write_bundle(xor_settings(), tmp_path / "bundle")
    assert sorted(files) == ["README.md", "policy.json", "run.ipynb", "run.py", "run.sh", "schema.json"]
    run(["sh", str(files["run.sh"])], tmp_path)  # from another folder: run.sh changes into its own
    sh_bytes = (tmp_path / "bundle" / "release.csv").read_bytes()
    # nothing computed on the private table lands in the bundle folder (issue 24): no report by default
    assert sorted(p.name for p in (tmp_path / "bundle").iterdir()) == sorted([*files, "release.csv"])
    (tmp_path / "bundle" / "release.csv").unlink()
    run([sys.executable, str(files["run.py"])], tmp_path)
    py_bytes = (tmp_path / "bundle" / "release.csv").read_bytes()
    cli_bytes = direct_cli(tmp_path, "--preset", "xor3", "--method", "bf-soft,hard", "--tau", "0.03",
                           "--rho", "1e-3", "--seeds", "3,4")
    assert sh_bytes == cli_bytes and py_bytes == cli_bytes
    assert cli_bytes.count(b"\n") == 21  # header + 20 released records


def test_epsilon_budget_generated_size_and_out_dir(tmp_path):
    s = xor_settings(methods=["hard"], tau=None, rho=None, epsilon=0.7, delta=1e-6, conversion="eq1", n=3000,
                     data_seed=5, seeds=[0, 1], out="out/rel.csv", out_dir="all", report=None)
    files = write_bundle(s, tmp_path / "b")
    run(["sh", str(files["run.sh"])], tmp_path)
    sh = {p.name: p.read_bytes() for p in (tmp_path / "b" / "all").iterdir()}
    first = (tmp_path / "b" / "out" / "rel.csv").read_bytes()
    for p in (tmp_path / "b" / "all").iterdir():
        p.unlink()
    run([sys.executable, str(files["run.py"])], tmp_path)
    py = {p.name: p.read_bytes() for p in (tmp_path / "b" / "all").iterdir()}
    assert sorted(sh) == ["hard_seed0.csv", "hard_seed1.csv"] and sh == py
    cli = direct_cli(tmp_path, "--preset", "xor3", "--method", "hard", "--epsilon", "0.7", "--delta", "1e-6",
                     "--conversion", "eq1", "--n", "3000", "--data-seed", "5", "--seeds", "0,1")
    assert first == cli == sh["hard_seed0.csv"]


def test_csv_source_with_custom_schema(tmp_path):
    data = bc.load_preset_data(XOR).private.head(2000)
    csv = tmp_path / "private.csv"
    data.to_csv(csv, index=False)
    schema = bc.Schema.from_json(XOR.schema.to_json())
    s = RunSettings(schema, XOR.default_policy(), ["bf-soft"], [2], tau=0.05, rho=0.01, data_path=str(csv),
                    config=TINY)
    args = cli_args(s)
    assert "--schema" in args and "--preset" not in args
    files = write_bundle(s, tmp_path / "b")
    run(["sh", str(files["run.sh"])], tmp_path)
    sh = (tmp_path / "b" / "release.csv").read_bytes()
    (tmp_path / "b" / "release.csv").unlink()
    run([sys.executable, str(files["run.py"])], tmp_path)
    (tmp_path / "direct").mkdir()
    (tmp_path / "direct" / "s.json").write_text(schema.to_json())
    (tmp_path / "direct" / "p.json").write_text(XOR.default_policy().to_json())
    cli = direct_cli(tmp_path, "--data", str(csv), "--schema", "s.json", "--policy", "p.json", "--method",
                     "bf-soft", "--tau", "0.05", "--rho", "0.01", "--seeds", "2")
    assert sh == cli == (tmp_path / "b" / "release.csv").read_bytes()


@pytest.mark.parametrize("name", ["adult", "bank", "xor3"])
def test_schema_and_policy_json_round_trip(name):
    p = bc.get_preset(name)
    pol = p.policy_with(list(p.table3))  # every Table 3 graph: threshold, block, hierarchy, complete
    pol = dataclasses.replace(pol, participation=True)
    s = RunSettings(p.schema, pol, ["hard"], [0], rho=1e-3, preset=name,
                    data_path=None if p.generator else f"/nowhere/{p.csv_name}")
    files = bundle_files(s)
    back = settings_from_files(files["schema.json"], files["policy.json"], methods=["hard"], seeds=[0], rho=1e-3)
    assert back.schema.to_dict() == p.schema.to_dict() and back.policy.to_dict() == pol.to_dict()
    assert bundle_files(RunSettings(back.schema, back.policy, ["hard"], [0], rho=1e-3, preset=name,
                                    data_path=s.data_path))["schema.json"] == files["schema.json"]
    # the encoding is identical, so the releases are too
    df = p.schema.decode(np.zeros((3, p.schema.p)))
    assert (back.schema.encode(df) == p.schema.encode(df)).all()


def test_cli_command_string_and_zip():
    s = xor_settings()
    cmd = cli_command(s)
    assert cmd.startswith("python -m blowfish_core synth --preset xor3 --policy policy.json ")
    assert shlex.split(cmd)[3:] == cli_args(s)
    for flag in ("--method", "--tau", "--mechanism", "--rho", "--rounds", "--population=16x2", "--release",
                 "--threshold-h", "--selection", "--children", "--release-mode", "--seeds", "--out"):
        assert flag in cmd
    assert "--report" not in cmd  # no private-data figures by default (issue 24)
    z = zipfile.ZipFile(io.BytesIO(bundle_zip(s)))
    assert sorted(z.namelist()) == sorted(f"blowfish_run/{n}" for n in bundle_files(s))
    assert bundle_zip(s) == bundle_zip(s)  # deterministic archive
    readme = z.read("blowfish_run/README.md").decode()
    assert "Privacy ledger in words" in readme and "rho = 0.001 zCDP over 2 rounds" in readme
    assert "fresh randomness" in readme and cmd in readme
    assert "In one number: ε = 0.14 at δ = 10⁻⁵" in readme


def test_readme_uses_a_run_report_when_given(tmp_path):
    from blowfish_core.synthesis.spec import RunRequest
    from blowfish_core.synthesis.experiment import run_paired

    data = bc.load_preset_data(XOR).private
    res = run_paired(RunRequest(XOR.schema, XOR.default_policy(), data, ["bf-soft"], 1e-3, 1e-5, 0.03, [0], TINY))
    text = bundle_files(xor_settings(methods=["bf-soft"], seeds=[0]), res.report)["README.md"]
    assert "- round 1: 16 candidates, sensitivity" in text and "(bound)" in text


def test_settings_refused_before_export():
    with pytest.raises(BlowfishError, match="switch_round"):
        bundle_files(xor_settings(config=SynthConfig(rounds=2, population=[16, 16], release=20, switch_round=1)))
    with pytest.raises(BlowfishError, match="protects nothing"):
        bundle_files(xor_settings(policy=bc.Policy()))
    with pytest.raises(BlowfishError, match="data_path"):
        bundle_files(RunSettings(bc.get_preset("adult").schema, bc.get_preset("adult").default_policy(), ["hard"],
                                 [0], rho=1e-3, preset="adult"))
    with pytest.raises(BlowfishError, match="tau"):
        bundle_files(xor_settings(tau=None))
    with pytest.raises(BlowfishError):
        bundle_files(xor_settings(rho=1e-3, epsilon=1.0))


@pytest.mark.skipif(shared_path(bc.get_preset("adult")) is None, reason="needs ../shared/data/adult.csv")
def test_adult_preset_split_bundle(tmp_path):
    a = bc.get_preset("adult")
    path = shared_path(a)
    s = RunSettings(a.schema, a.policy_with(["hours.per.week"]), ["bf-soft"], [0], tau=0.03, rho=1e-3,
                    preset="adult", data_path=path, split_seed=2, config=TINY)
    files = write_bundle(s, tmp_path / "b")
    run(["sh", str(files["run.sh"])], tmp_path)
    sh = (tmp_path / "b" / "release.csv").read_bytes()
    (tmp_path / "b" / "release.csv").unlink()
    run([sys.executable, str(files["run.py"])], tmp_path)
    cli = direct_cli(tmp_path, "--preset", "adult", "--data", path, "--split-seed", "2", "--protect",
                     "hours.per.week", "--method", "bf-soft", "--tau", "0.03", "--rho", "1e-3", "--seeds", "0")
    assert sh == cli == (tmp_path / "b" / "release.csv").read_bytes()


def test_settings_from_request_round_trip(tmp_path):
    from blowfish_core.synthesis.spec import RunRequest
    from blowfish_core.synthesis.experiment import run_paired
    from blowfish_core.interfaces.run_bundle import settings_from_request

    data = bc.load_preset_data(XOR).private
    req = RunRequest(XOR.schema, XOR.default_policy(), data, ["bf-soft", "hard"], 2.5e-3, 1e-5, 0.04, [5], TINY)
    s = settings_from_request(req, preset="xor3")
    files = write_bundle(s, tmp_path / "b")
    run(["sh", str(files["run.sh"])], tmp_path)
    app_release = run_paired(req).run("bf-soft", 5).release  # what the app holds after its run
    app_release.to_csv(tmp_path / "app.csv", index=False)
    assert (tmp_path / "b" / "release.csv").read_bytes() == (tmp_path / "app.csv").read_bytes()


# ------------------------------------------------------------------ issue 24: reading options, no report
def _semicolon_table(tmp_path: Path) -> tuple[Path, list[str]]:
    """A generated XOR-3 table as a headerless ';' file with an extra text column 'note' and missing cells:
    two in the modelled X_1 (their rows are dropped), some in 'note' (a declared missing level)."""
    data = bc.load_preset_data(XOR).private.head(1500).astype(object)
    data["note"] = ["a", "b", ""] * 500
    data.loc[[7, 300], "X_1"] = ""
    path = tmp_path / "private_semicolon.csv"
    data.to_csv(path, index=False, header=False, sep=";")
    return path, list(data.columns)


def test_semicolon_csv_with_every_reading_option(tmp_path):
    """run.sh and run.py read a headerless semicolon file with names, columns, dropped rows and a missing
    level exactly as the CLI does (the same release, byte for byte, as the command typed by hand)."""
    csv, names = _semicolon_table(tmp_path)
    schema = bc.Schema.from_json(XOR.schema.to_json())
    s = RunSettings(schema, XOR.default_policy(), ["bf-soft"], [1], tau=0.05, rho=0.01, data_path=str(csv), sep=";",
                    names=names, columns=list(schema.names), drop_missing=["X_1"], missing_level={"note": "none"},
                    config=TINY)
    args = cli_args(s)
    for flag in ("--sep", "--names", "--columns", "--drop-missing", "--missing-level"):
        assert flag in args, flag
    assert args[args.index("--sep") + 1] == ";" and args[args.index("--missing-level") + 1] == "note=none"
    files = write_bundle(s, tmp_path / "b")
    assert "READING = {'sep': ';', 'no_header': False, 'names': ['X_1'," in files["run.py"].read_text()
    run(["sh", str(files["run.sh"])], tmp_path)
    sh = (tmp_path / "b" / "release.csv").read_bytes()
    (tmp_path / "b" / "release.csv").unlink()
    run([sys.executable, str(files["run.py"])], tmp_path)
    (tmp_path / "direct").mkdir()
    (tmp_path / "direct" / "s.json").write_text(schema.to_json())
    (tmp_path / "direct" / "p.json").write_text(XOR.default_policy().to_json())
    cli = direct_cli(tmp_path, "--data", str(csv), "--sep", ";", "--names", ",".join(names), "--drop-missing", "X_1",
                     "--missing-level", "note=none", "--schema", "s.json", "--policy", "p.json", "--method",
                     "bf-soft", "--tau", "0.05", "--rho", "0.01", "--seeds", "1")
    assert sh == cli == (tmp_path / "b" / "release.csv").read_bytes()
    readme = files["README.md"].read_text()
    assert "separator ';'" in readme and "rows with a missing X_1 dropped" in readme and "missing note read as" in readme


def test_semicolon_file_with_the_separator_detected(tmp_path):
    """Issue 24's failure: a semicolon file with no separator given. run.py detected nothing and read it with
    ',' (one column); it now reads as the CLI does (detected)."""
    data = bc.load_preset_data(XOR).private.head(1500)
    csv = tmp_path / "semi.csv"
    data.to_csv(csv, index=False, sep=";")
    s = RunSettings(bc.Schema.from_json(XOR.schema.to_json()), XOR.default_policy(), ["hard"], [0], rho=0.01,
                    data_path="semi.csv", config=TINY)
    assert "--sep" not in cli_args(s)
    files = write_bundle(s, tmp_path)  # the data next to the scripts (a relative data_path)
    run(["sh", str(files["run.sh"])], tmp_path)
    sh = (tmp_path / "release.csv").read_bytes()
    (tmp_path / "release.csv").unlink()
    run([sys.executable, str(files["run.py"])], tmp_path)
    assert (tmp_path / "release.csv").read_bytes() == sh and sh.count(b"\n") == 21


def test_report_is_written_outside_the_bundle_folder_or_not_at_all(tmp_path):
    for inside in ("report.json", "sub/report.json", "sub/../report.json", "./r.json"):
        with pytest.raises(BlowfishError, match="outside"):
            bundle_files(xor_settings(report=inside))
    files = write_bundle(xor_settings(report="../internal/report.json"), tmp_path / "b")
    run(["sh", str(files["run.sh"])], tmp_path)
    assert (tmp_path / "internal" / "report.json").exists()
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == sorted([*files, "release.csv"])
    assert "outside this folder" in files["README.md"].read_text()


def test_reading_options_refused_where_they_cannot_apply():
    with pytest.raises(BlowfishError, match="generated table"):
        bundle_files(xor_settings(sep=";"))
    with pytest.raises(BlowfishError, match="drop_missing"):
        bundle_files(xor_settings(drop_missing=["X_1"]))
    csv = dict(preset=None, data_path="x.csv", schema=bc.Schema.from_json(XOR.schema.to_json()))
    with pytest.raises(BlowfishError, match="columns"):
        bundle_files(xor_settings(columns=["X_1"], **csv))
    with pytest.raises(BlowfishError, match="comma"):
        bundle_files(xor_settings(names=["a,b", "c"], **csv))
    with pytest.raises(BlowfishError, match="COL=TEXT"):
        bundle_files(xor_settings(missing_level={"a=b": "x"}, **csv))
    assert "--drop-missing" in cli_args(xor_settings(drop_missing=True, **csv))
    assert cli_args(xor_settings(drop_missing=True, **csv))[cli_args(xor_settings(drop_missing=True, **csv))
                                                             .index("--drop-missing") + 1] == "all"
