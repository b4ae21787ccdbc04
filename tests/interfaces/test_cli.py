"""CLI contract (issue 2): ``python -m blowfish_core reach|synth|schema|presets``.

In-process through ``blowfish_core.interfaces.cli.main.main`` (captured with capsys), plus one
subprocess test that no bad input ever prints a Python traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from blowfish_core.interfaces.cli.main import main
from blowfish_core.model.sensitivity import SOFT_BOUND_PAD

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TINY = ["--rounds", "2", "--population", "16x2", "--release", "20", "--quiet"]


def reach_json(capsys, *args: str) -> dict:
    rc = main(["reach", *args, "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


def expect_error(capsys, argv: list[str], *needles: str) -> str:
    """Exit code 2, exactly one stderr line starting 'error:' containing every needle."""
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert "Traceback" not in err + out
    return lines[0]


# ------------------------------------------------------------------ reach: DESIGN §5 via the CLI


def test_reach_adult_json_keys_and_values(capsys):
    d = reach_json(capsys, "--preset", "adult", "--tau", "0.03")
    assert {"per_attribute", "reach", "tau", "q", "sensitivity_bound"} <= set(d)
    assert round(d["reach"], 4) == 0.0192
    assert round(d["per_attribute"]["age"], 4) == 0.0192
    assert d["tau"] == 0.03
    assert round(d["q"], 2) == 0.31
    assert d["sensitivity_bound"] == pytest.approx(2**0.5 * d["q"] * (1 + SOFT_BOUND_PAD), rel=1e-12)
    assert d["domain_warning"] is None


def test_reach_without_tau_has_null_q(capsys):
    d = reach_json(capsys, "--preset", "adult")
    assert round(d["reach"], 4) == 0.0192
    assert d["tau"] is None and d["q"] is None and d["sensitivity_bound"] is None


@pytest.mark.parametrize("protect, expected", [
    (["hours.per.week"], 0.0192),
    (["age", "hours.per.week"], 0.0192),
    (["hours.per.week", "income"], 0.2),
    (["income"], 0.2),
    (["workclass=block"], 0.2),
    (["age=threshold:14"], 0.0384),
    (["age=none", "hours.per.week"], 0.0163),
])
def test_reach_adult_protect(capsys, protect, expected):
    args = ["--preset", "adult"]
    for p in protect:
        args += ["--protect", p]
    d = reach_json(capsys, *args)
    assert round(d["reach"], 4) == expected


def test_reach_bank_and_xor3(capsys):
    assert round(reach_json(capsys, "--preset", "bank")["reach"], 4) == 0.0171
    assert reach_json(capsys, "--preset", "bank", "--protect", "job")["per_attribute"]["job"] == pytest.approx(0.1)
    d = reach_json(capsys, "--preset", "xor3", "--tau", "0.015")
    assert d["reach"] == pytest.approx(1 / 28, rel=1e-12)
    assert round(d["q"], 2) == 0.83


def test_reach_text_output(capsys):
    assert main(["reach", "--preset", "adult", "--protect", "hours.per.week", "--tau", "0.03"]) == 0
    out = capsys.readouterr().out
    assert "record-level reach r = 0.0192" in out
    assert "q = 0.309" in out
    assert "age" in out and "hours.per.week" in out


def test_reach_with_schema_and_policy_files(tmp_path, capsys):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"attributes": [
        {"name": "a", "type": "numeric", "lo": 0, "hi": 50, "integer": True},
        {"name": "b", "type": "categorical", "levels": ["x", "y"]}]}))
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"attributes": {"a": {"type": "threshold", "theta": 5}}}))
    d = reach_json(capsys, "--schema", str(schema), "--policy", str(policy), "--tau", "0.05")
    assert d["reach"] == pytest.approx(0.5 * 5 / 50)


def test_reach_data_derived_schema_warns(tmp_path, capsys):
    csv = tmp_path / "t.csv"
    csv.write_text("a,b\n1,x\n5,y\n9,x\n")
    d = reach_json(capsys, "--data", str(csv), "--protect", "a=threshold:2")
    assert d["reach"] == pytest.approx(0.5 * 2 / 8)
    assert d["domain_warning"] and "DATA-DERIVED" in d["domain_warning"]


# ------------------------------------------------------------------ bad inputs: exit 2, one line naming the field


@pytest.fixture
def files(tmp_path):
    """A tiny table, its schema, and broken variants."""
    f = {}
    f["schema"] = tmp_path / "schema.json"
    f["schema"].write_text(json.dumps({"attributes": [
        {"name": "a", "type": "numeric", "lo": 0, "hi": 100, "integer": True},
        {"name": "b", "type": "categorical", "levels": ["x", "y", "w"]}]}))
    f["ok"] = tmp_path / "ok.csv"
    f["ok"].write_text("a,b\n1,x\n2,y\n3,x\n4,w\n")
    f["oob"] = tmp_path / "oob.csv"
    f["oob"].write_text("a,b\n1,x\n200,y\n300,x\n4,w\n")
    f["cat"] = tmp_path / "cat.csv"
    f["cat"].write_text("a,b\n1,x\n2,zebra\n")
    f["nocol"] = tmp_path / "nocol.csv"
    f["nocol"].write_text("a,c\n1,x\n")
    f["binary"] = tmp_path / "binary.csv"
    f["binary"].write_bytes(bytes(range(256)) * 8)
    f["nul"] = tmp_path / "nul.csv"
    f["nul"].write_bytes(b"PK\x03\x04\x00\x00\x00\x08\x00a,b\n\x00\x00\x01\n")
    f["ragged"] = tmp_path / "ragged.csv"
    f["ragged"].write_text("a,b\n1,x,extra,more\n2,y\n")
    for name, spec in {
        "pol_cover": {"b": {"type": "block", "blocks": [["x", "y"]]}},
        "pol_overlap": {"b": {"type": "block", "blocks": [["x", "y"], ["y", "w"]]}},
        "pol_neg": {"a": {"type": "threshold", "theta": -3}},
        "pol_ok": {"a": {"type": "threshold", "theta": 5}},
    }.items():
        f[name] = tmp_path / f"{name}.json"
        f[name].write_text(json.dumps({"attributes": spec}))
    f["bad_json"] = tmp_path / "bad.json"
    f["bad_json"].write_text("{not json")
    f["out"] = tmp_path / "out" / "synth.csv"
    return f


def synth(f, data: str = "ok", *extra: str, policy: str = "pol_ok") -> list[str]:
    return ["synth", "--data", str(f[data]), "--schema", str(f["schema"]), "--policy", str(f[policy]),
            "--out", str(f["out"]), *TINY, *extra]


def test_good_small_run_succeeds(files, capsys):
    assert main(synth(files, "ok", "--method", "hard", "--rho", "1")) == 0
    capsys.readouterr()
    df = pd.read_csv(files["out"])
    assert list(df.columns) == ["a", "b"] and len(df) == 20


def test_missing_file(files, capsys, tmp_path):
    expect_error(capsys, ["synth", "--data", str(tmp_path / "nope.csv"), "--schema", str(files["schema"]),
                          "--method", "hard", "--rho", "1", "--out", str(files["out"]), *TINY],
                 "not found", "nope.csv")
    expect_error(capsys, ["synth", "--data", str(files["ok"]), "--schema", str(tmp_path / "nope.json"),
                          "--method", "hard", "--rho", "1", "--out", str(files["out"]), *TINY],
                 "schema file not found", "nope.json")
    expect_error(capsys, ["synth", "--data", str(files["ok"]), "--schema", str(files["schema"]),
                          "--policy", str(tmp_path / "nope.json"),
                          "--method", "hard", "--rho", "1", "--out", str(files["out"]), *TINY],
                 "policy file not found")


@pytest.mark.parametrize("which, needle", [
    ("binary", "not UTF-8"),
    ("nul", "binary file"),
    ("ragged", "fields instead of 2 (row 2)"),
])
def test_unreadable_csv(files, capsys, which, needle):
    expect_error(capsys, synth(files, which, "--method", "hard", "--rho", "1"), which + ".csv", needle)


def test_column_absent_from_csv(files, capsys):
    expect_error(capsys, synth(files, "nocol", "--method", "hard", "--rho", "1"), "['b']", "absent")


def test_value_outside_public_domain(files, capsys):
    expect_error(capsys, synth(files, "oob", "--method", "hard", "--rho", "1"),
                 "column 'a': 2 cell(s) outside [0, 100] of the public domain (e.g. ['200', '300']) in rows 3, 4. "
                 "Fix: widen the declared bounds or remove those rows")


def test_bounds_wider_than_float_range(files, capsys, tmp_path):
    wide = tmp_path / "wide.json"
    wide.write_text(json.dumps({"attributes": [
        {"name": "a", "type": "numeric", "lo": -1e308, "hi": 1e308},
        {"name": "b", "type": "categorical", "levels": ["x", "y", "w"]}]}))
    argv = ["synth", "--data", str(files["ok"]), "--schema", str(wide), "--method", "hard", "--rho", "1",
            "--out", str(files["out"]), *TINY]
    expect_error(capsys, argv, "attribute 'a': the width hi - lo of the public bounds exceeds the float range",
                 "Fix:")


def test_unknown_category(files, capsys):
    expect_error(capsys, synth(files, "cat", "--method", "hard", "--rho", "1"), "column 'b'", "zebra")


@pytest.mark.parametrize("tau", ["0", "-0.5", "nan", "inf"])
def test_bad_tau(files, capsys, tau):
    expect_error(capsys, synth(files, "ok", "--method", "bf-soft", "--rho", "1", "--tau", tau), "tau")
    expect_error(capsys, ["reach", "--preset", "adult", "--tau", tau], "tau")


def test_tau_required_for_bf_soft(files, capsys):
    expect_error(capsys, synth(files, "ok", "--method", "bf-soft", "--rho", "1"), "--tau")


@pytest.mark.parametrize("rho", ["0", "-1", "nan"])
def test_bad_rho(files, capsys, rho):
    expect_error(capsys, synth(files, "ok", "--method", "hard", "--rho", rho), "rho")


@pytest.mark.parametrize("delta", ["0", "1", "2", "-1e-5"])
def test_bad_delta(files, capsys, delta):
    expect_error(capsys, synth(files, "ok", "--method", "hard", "--epsilon", "1", "--delta", delta), "delta")
    expect_error(capsys, synth(files, "ok", "--method", "hard", "--rho", "1", "--delta", delta), "delta")


def test_bad_epsilon_and_missing_budget(files, capsys):
    expect_error(capsys, synth(files, "ok", "--method", "hard", "--epsilon", "0", "--delta", "1e-5"), "epsilon")
    expect_error(capsys, synth(files, "ok", "--method", "hard"), "--rho")
    expect_error(capsys, synth(files, "ok", "--method", "hard", "--rho", "1", "--epsilon", "1"), "--rho", "--epsilon")


def test_negative_threshold(files, capsys):
    expect_error(capsys, ["reach", "--preset", "adult", "--protect", "age=threshold:-1"], "threshold", ">= 0")
    expect_error(capsys, synth(files, "ok", "--method", "hard", "--rho", "1", policy="pol_neg"),
                 "policy for 'a'", "threshold must be >= 0")


def test_block_partition_not_covering(files, capsys):
    expect_error(capsys, synth(files, "ok", "--method", "hard", "--rho", "1", policy="pol_cover"),
                 "policy for 'b'", "does not cover", "'w'")
    expect_error(capsys, ["reach", "--schema", str(files["schema"]), "--policy", str(files["pol_cover"])],
                 "does not cover")


def test_block_partition_overlapping(files, capsys):
    expect_error(capsys, synth(files, "ok", "--method", "hard", "--rho", "1", policy="pol_overlap"),
                 "policy for 'b'", "value 'y' is in blocks 1 and 2")


def test_unknown_preset_and_method(files, capsys):
    expect_error(capsys, ["reach", "--preset", "titanic"], "unknown preset 'titanic'")
    expect_error(capsys, ["synth", "--preset", "titanic", "--method", "hard", "--rho", "1",
                          "--out", str(files["out"])], "unknown preset 'titanic'")
    expect_error(capsys, ["synth", "--preset", "xor3", "--method", "hard,magic", "--rho", "1",
                          "--out", str(files["out"])], "--method", "'magic'")


def test_other_bad_settings(files, capsys):
    expect_error(capsys, synth(files, "ok", "--method", "hard", "--rho", "1", "--seeds", "0,a"), "--seeds")
    expect_error(capsys, synth(files, "ok", "--method", "hard", "--rho", "1", "--population", "16x3"), "--population")
    expect_error(capsys, ["reach", "--preset", "adult", "--protect", "salary"], "unknown attribute 'salary'")
    expect_error(capsys, ["reach", "--preset", "adult", "--protect", "age=wobbly"], "unknown policy 'wobbly'")
    expect_error(capsys, ["reach", "--schema", str(files["bad_json"])], "schema file is not valid JSON")
    expect_error(capsys, ["reach", "--preset", "adult", "--policy", str(files["bad_json"])],
                 "policy file is not valid JSON")


@pytest.mark.parametrize("argv, needles", [
    (["reach", "--preset", "adult", "--tau", "abc"], ["--tau", "not a number"]),
    (["synth", "--preset", "xor3", "--method", "hard", "--rho", "1"], ["--out", "required"]),
    (["synth", "--preset", "xor3", "--rounds", "two", "--out", "x.csv"], ["--rounds"]),
    (["reach", "--preset", "adult", "--bogus"], ["unrecognized arguments: --bogus"]),
    ([], ["command"]),
])
def test_usage_errors_are_one_line(capsys, argv, needles):
    expect_error(capsys, argv, *needles)


def test_help_exits_zero(capsys):
    assert main(["synth", "--help"]) == 0
    assert "--method" in capsys.readouterr().out


def test_failed_run_leaves_earlier_output_intact(files, capsys):
    files["out"].parent.mkdir(parents=True, exist_ok=True)
    files["out"].write_text("earlier,result\n1,2\n")
    expect_error(capsys, synth(files, "oob", "--method", "hard", "--rho", "1"), "column 'a'")
    assert files["out"].read_text() == "earlier,result\n1,2\n"


# ------------------------------------------------------------------ schema / presets commands


def test_schema_command_marks_data_derived(files, capsys, tmp_path):
    out = tmp_path / "inferred.json"
    assert main(["schema", "--data", str(files["ok"]), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "DATA-DERIVED" in err
    d = json.loads(out.read_text())
    assert d["data_derived"] is True and d["data_derived_columns"] == ["a", "b"]
    a = d["attributes"][0]
    assert (a["lo"], a["hi"], a["integer"]) == (1, 4, True)


def test_presets_command(capsys):
    assert main(["presets", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) == {"adult", "bank", "xor3"}
    assert d["adult"]["default_protected"] == ["age"]
    assert d["xor3"]["metric"] == "hoerr"


# ------------------------------------------------------------------ one real subprocess: no traceback


def test_subprocess_bad_input_never_prints_a_traceback(files):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "blowfish_core", *synth(files, "binary", "--method", "hard", "--rho", "1")],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr + p.stdout
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "binary.csv" in lines[0]


def test_missing_preset_table_names_data_first_and_no_absent_folder(capsys, monkeypatch, tmp_path):
    import blowfish_core.io.presets as presets

    # an installed package: ../shared/data next to site-packages does not exist
    monkeypatch.setattr(presets, "SHARED_DATA", str(tmp_path / "lib" / "python3.11" / "shared" / "data"))
    line = expect_error(capsys, ["synth", "--preset", "adult", "--method", "hard", "--rho", "1",
                                 "--out", str(tmp_path / "o.csv"), *TINY])
    assert line == "error: preset 'adult' needs its table: pass --data PATH/adult.csv (UCI; see README 'Data')"
    # a checkout with the folder (but without the file): the folder is offered after --data
    (tmp_path / "shared" / "data").mkdir(parents=True)
    monkeypatch.setattr(presets, "SHARED_DATA", str(tmp_path / "shared" / "data"))
    line = expect_error(capsys, ["pilot", "--preset", "bank", "--rho", "1e-3", "--dry-run"])
    assert line == ("error: preset 'bank' needs its table: pass --data PATH/bank-full.csv (UCI; see README 'Data'), "
                    f"or put it in {tmp_path / 'shared' / 'data'}")


def test_usage_names_the_command_as_typed(monkeypatch, capsys):
    """`blowfish --help` says `usage: blowfish ...`; `python -m blowfish_core --help` says that."""
    from blowfish_core.interfaces.cli import main as cli

    for argv0, want in (("/venv/bin/blowfish", "usage: blowfish synth "),
                        ("/repo/blowfish_core/__main__.py", "usage: python -m blowfish_core synth ")):
        monkeypatch.setattr(sys, "argv", [argv0])
        assert cli.main(["synth", "--help"]) == 0
        assert capsys.readouterr().out.startswith(want)


@pytest.mark.parametrize("extra, message", [
    (["--method", "mst", "--rank-by", "raw", "--rounds", "4"],
     "error: --rounds, --rank-by: Algorithm 1's schedule flags, but --method mst runs no Algorithm 1 loop, so they "
     "would be ignored. Fix: drop them, or add an Algorithm 1 method (e.g. --method hard,mst)"),
    (["--method", "hard", "--selection", "sample", "--children", "2"],
     "error: --children 2: children per kept parent are made in rank rounds only, and --selection sample has none; "
     "it would be ignored. Fix: drop --children or use --selection hybrid or rank"),
    (["--method", "hard", "--selection", "sample", "--release-mode", "sample", "--rank-by", "raw"],
     "error: --rank-by raw: nothing is ranked with --selection sample and --release-mode sample; it would be ignored. "
     "Fix: drop --rank-by, or use --selection hybrid or rank, or --release-mode top"),
])
def test_schedule_flags_a_run_would_ignore_are_refused(extra, message, tmp_path, capsys):
    out = tmp_path / "o.csv"
    rc = main(["synth", "--preset", "xor3", "--n", "2000", "--rho", "1", "--seeds", "0", "--out", str(out)] + extra)
    assert rc == 2 and capsys.readouterr().err.strip() == message
    assert not out.exists()


def test_bf_soft_bound_line_only_for_methods_with_bf_softs_noise(tmp_path, capsys):
    """soft-hard-noise has Hard's noise: no 'BF-Soft at tau' line for it alone (a fresh user's finding)."""
    base = ["synth", "--preset", "xor3", "--n", "2000", "--rho", "1", "--seeds", "0", "--tau", "0.03",
            "--rounds", "2", "--population", "64x2", "--release", "32", "--out", str(tmp_path / "o.csv")]
    assert main(base + ["--method", "soft-hard-noise"]) == 0
    assert "BF-Soft at tau" not in capsys.readouterr().out
    assert main(base + ["--method", "bf-soft"]) == 0
    assert "BF-Soft at tau = 0.03: noise ratio q = " in capsys.readouterr().out
