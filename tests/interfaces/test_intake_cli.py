"""The CSV intake through the CLI (issue 11 Must-show 3): ``synth`` / ``schema`` / ``reach``
read ``--data`` with blowfish_core.io.intake.intake_csv and the flags --sep (default: detect),
--no-header, --names, --drop-missing, --missing-level, --columns.  Every message is exact."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd

import blowfish_core as bc
from blowfish_core.interfaces.cli.main import main
from blowfish_core.io.presets import ADULT_UCI_COLUMNS
from tests.cli_helpers import write_file as _write, run_cli as _run

ADULT_LINES = [
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K",
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K",
    "38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, 0, 40, United-States, <=50K",
    "53, Private, 234721, 11th, 7, Married-civ-spouse, Handlers-cleaners, Husband, Black, Male, 0, 0, 40, United-States, <=50K",
]
TINY = ["--rounds", "2", "--population", "16x2", "--quiet", "--seeds", "0"]


def test_headerless_adult_file_is_refused_with_the_names_offered(tmp_path, capsys):
    path = _write(tmp_path, "adult.data", "\n".join(ADULT_LINES * 3) + "\n")
    rc, out, err = _run(capsys, ["schema", "--data", path])
    assert rc == 2
    assert err == (f"error: {path}: the first row looks like data, not a header: the first row has numbers ('39', "
                   "'77516', '13') where the rest of the column(s) 1, 3, 5 are numbers. Nothing was loaded; to check "
                   "the rest, row 1 was taken as data under the Adult preset's names. Fix: confirm with --no-header "
                   "--names age,workclass,fnlwgt,education,education.num,marital.status,occupation,relationship,race,"
                   "sex,capital.gain,capital.loss,hours.per.week,native.country,income (offered), or add a header row "
                   "to the file\n")


def test_headerless_adult_file_with_no_header_uses_the_uci_names(tmp_path, capsys):
    path = _write(tmp_path, "adult.data", "\n".join(ADULT_LINES * 3) + "\n")
    out_json = os.path.join(tmp_path, "s.json")
    rc, out, err = _run(capsys, ["schema", "--data", path, "--no-header", "--columns", "age,workclass,sex",
                                 "--out", out_json])
    assert rc == 0, err
    assert err.splitlines()[0] == (f"data: {path}: separator comma followed by a space (detected); no header row "
                                   "(as given (--no-header)); 12 rows, 15 columns, 3 modelled")
    schema = json.load(open(out_json))
    assert [a["name"] for a in schema["attributes"]] == ["age", "workclass", "sex"]
    # --names renames; the count must match
    rc, _, err = _run(capsys, ["schema", "--data", path, "--names", "a,b"])
    assert rc == 2 and err == f"error: {path}: 2 names given but the rows have 15 fields. Fix: give 15 names\n"
    assert len(ADULT_UCI_COLUMNS) == 15


def test_headerless_adult_data_file_runs_with_the_preset(tmp_path, capsys):
    path = _write(tmp_path, "adult.data", "\n".join(ADULT_LINES * 100) + "\n")
    out = os.path.join(tmp_path, "a.csv")
    argv = ["synth", "--preset", "adult", "--data", path, "--method", "hard", "--rho", "1e-3", "--release", "50",
            "--out", out, *TINY]
    rc, so, err = _run(capsys, argv)
    assert rc == 2 and "Fix: confirm with --no-header --names age,workclass,fnlwgt,education,education.num," in err
    rc, so, err = _run(capsys, argv + ["--no-header"])
    assert rc == 0, err
    assert so.splitlines()[0] == (f"data: {path}: separator comma followed by a space (detected); no header row "
                                  "(as given (--no-header)); 400 rows, 15 columns, 5 modelled")
    rel = pd.read_csv(out)
    assert list(rel.columns) == bc.get_preset("adult").schema.names and len(rel) == 50


def test_semicolon_file_is_detected_and_shown(tmp_path, capsys):
    rows = ["age;job;y"] + [f"{20 + i % 30};{'ab'[i % 2]};{'no' if i % 3 else 'yes'}" for i in range(60)]
    path = _write(tmp_path, "bank.csv", "\n".join(rows) + "\n")
    rc, out, err = _run(capsys, ["schema", "--data", path])
    assert rc == 0
    assert err.splitlines()[0] == (f"data: {path}: separator semicolon (detected); header row (the first row is "
                                   "text over columns of data); 60 rows, 3 columns, 3 modelled")
    assert [a["name"] for a in json.loads(out)["attributes"]] == ["age", "job", "y"]
    rc, out, err = _run(capsys, ["schema", "--data", path, "--sep", ","])  # one column: the real cause (issue 27)
    assert rc == 2 and err == (f"error: {path}: the file looks ';'-separated: pass --sep ';' (read with the comma "
                               "separator, the header 'age;job;y' is one column holding 2 ';')\n")


def test_every_problem_in_one_pass_with_row_numbers(tmp_path, capsys):
    rows = ["age,income,city,score", "30,<=50K,Boston,1.5", "x,>50K,Boston,2", "31,>50K,,3",
            "thirty,<=50K,Paris,4", "32,<=50K,Paris,5", ",<=50K,Paris,6", "33,<=50K,Paris", "34,>50K,Rome,7",
            "?,>50K,Rome,8"]
    path = _write(tmp_path, "p.csv", "\n".join(rows) + "\n")
    rc, out, err = _run(capsys, ["synth", "--data", path, "--method", "hard", "--rho", "1",
                                 "--out", os.path.join(tmp_path, "o.csv"), *TINY])
    assert rc == 2
    assert err.splitlines() == [
        f"error: {path}: 4 problem(s) found:",
        "- 1 row(s) have 3 fields instead of 4 (row 8). Fix: check the quoting, the separator and the number of "
        "fields per row",
        "- column 'age': 2 cell(s) are not numbers (e.g. ['x', 'thirty']) in rows 3, 5. Fix: correct those cells, "
        "or declare the column categorical",
        "- column 'age': 2 cell(s) are missing (empty or a marker like '?') in rows 7, 10. Fix: drop those rows "
        "(--drop-missing 'age'): keeps 6 of 8 rows",
        "- column 'city': 1 cell(s) are missing (empty) in row 4. Fix: treat missing as its own level "
        "(--missing-level 'city=?'): keeps all 8 rows; or drop those rows (--drop-missing 'city'): keeps 7 of 8 rows",
    ]
    assert not os.path.exists(os.path.join(tmp_path, "o.csv"))


def test_nbsp_numbers_are_numbers_and_schema_message_is_fixed(tmp_path, capsys):
    rows = ["n,c"] + [f"\u00a0{10 + i % 9}\u00a0,{'ab'[i % 2]}" for i in range(30)]
    path = _write(tmp_path, "nb.csv", "\n".join(rows) + "\n")
    rc, out, err = _run(capsys, ["schema", "--data", path])
    assert rc == 0
    n = json.loads(out)["attributes"][0]
    assert (n["name"], n["type"], n["lo"], n["hi"], n["integer"]) == ("n", "numeric", 10, 18, True)
    assert "note: 30 cell(s) had non-breaking or other Unicode spaces around their value; they were trimmed like " \
           "ordinary spaces" in err
    # the engine's infer_schema on raw NBSP text: numbers, never "0 value(s) are not (e.g. [])"
    from blowfish_core.model.schema import infer_schema

    s = infer_schema(pd.DataFrame({"n": ["\u00a012\u00a0", "7\u202f", "3"], "c": ["a", "b", "a"]}))
    assert s["n"].kind == "numeric" and (s["n"].lo, s["n"].hi) == (3.0, 12.0)


def _typed(tmp_path) -> str:
    n = 24
    df = pd.DataFrame({
        "id": range(1, n + 1),
        "zip": ["02165", "02139", "10001"] * (n // 3),
        "day": [f"2021-03-{d:02d}" for d in range(1, n + 1)],
        "flag": ["TRUE", "FALSE"] * (n // 2),
        "age": [20 + (i % 7) for i in range(n)],
    })
    p = os.path.join(tmp_path, "typed.csv")
    df.to_csv(p, index=False)
    return p


def test_identifier_leading_zero_date_boolean_through_synth(tmp_path, capsys):
    path = _typed(tmp_path)
    out = os.path.join(tmp_path, "syn.csv")
    rc, so, err = _run(capsys, ["synth", "--data", path, "--method", "tab-pe", "--rho", "1", "--release", "20",
                                "--out", out, *TINY])
    assert rc == 0, err
    lines = so.splitlines()
    assert lines[0] == (f"data: {path}: separator comma (detected); header row (the first row is text over columns "
                        "of data); 24 rows, 5 columns, 3 modelled")
    assert "note: column 'id' is not modelled: whole numbers, all distinct and consecutive: an identifier, not " \
           "modelled" in lines
    assert "note: column 'day' is not modelled: dates (e.g. '2021-03-01'): not modelled; declare an ordinal or " \
           "numeric domain (e.g. the year) to model it" in lines
    rel = pd.read_csv(out, dtype=str)
    assert list(rel.columns) == ["zip", "flag", "age"]
    assert set(rel["zip"]) <= {"02165", "02139", "10001"} and set(rel["flag"]) <= {"TRUE", "FALSE"}
    # a picked date column needs a declared domain
    rc, _, err = _run(capsys, ["schema", "--data", path, "--columns", "day,age"])
    assert rc == 2 and "column 'day' is date" in err and "Fix: declare an ordinal" in err


def test_missing_values_dropped_or_declared_at_intake(tmp_path, capsys):
    path = _write(tmp_path, "miss.csv", "age,city\n30,Boston\n,Paris\n31,\n?,Rome\n32,Rome\n33,Paris\n")
    rc, out, err = _run(capsys, ["schema", "--data", path, "--drop-missing", "age", "--missing-level", "city=unknown"])
    assert rc == 0, err
    assert "note: dropped 2 row(s) with a missing value in 'age'" in err
    city = json.loads(out)["attributes"][1]
    assert city["levels"] == ["Boston", "Paris", "Rome", "unknown"]
    rc, out, err = _run(capsys, ["schema", "--data", path, "--drop-missing", "all"])
    assert rc == 0 and "note: dropped 3 row(s) with a missing value in 'age', 'city'" in err
    rc, _, err = _run(capsys, ["schema", "--data", path, "--missing-level", "city"])
    assert rc == 2 and "--missing-level expects COL=TEXT" in err


def test_wide_and_tiny_tables(tmp_path, capsys):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 5, size=(40, 35)), columns=[f"v{i}" for i in range(35)])
    p = os.path.join(tmp_path, "wide.csv")
    df.to_csv(p, index=False)
    rc, out, err = _run(capsys, ["synth", "--data", p, "--method", "tab-pe", "--rho", "1", "--release", "100",
                                 "--out", os.path.join(tmp_path, "w.csv"), *TINY])
    assert rc == 0, err
    assert ("note: the table has 35 columns; only the first 30 modellable ones are modelled by default (v0 .. v29); "
            "5 more are not. Fix: pick the columns to model (--columns a,b,...)") in out.splitlines()
    assert ("WARNING: the table has 40 rows, fewer than the release size (100): the synthetic table would hold more "
            "records than the original. Fix: release at most 40 records or use a larger table") in out.splitlines()
    assert ("WARNING: the table has only 40 rows (under 1,000): the noise will dominate the vote histogram and the "
            "synthetic data will be of little use") in out.splitlines()
    assert pd.read_csv(os.path.join(tmp_path, "w.csv")).shape == (100, 30)


def test_reach_and_empty_sep(tmp_path, capsys):
    path = _typed(tmp_path)
    rc, out, err = _run(capsys, ["reach", "--data", path, "--protect", "age=threshold:2", "--json"])
    assert rc == 0, err
    assert json.loads(out)["per_attribute"].keys() == {"zip", "flag", "age"}
    rc, _, err = _run(capsys, ["schema", "--data", path, "--sep", ""])
    assert rc == 2 and "the separator is empty ('')" in err


def test_preset_split_of_data_is_printed_by_synth_and_pilot(tmp_path, capsys):
    path = _write(tmp_path, "adult.csv", ",".join(ADULT_UCI_COLUMNS) + "\n"
                  + "\n".join(line.replace(", ", ",") for line in ADULT_LINES * 100) + "\n")
    out = os.path.join(tmp_path, "a.csv")
    rc, so, err = _run(capsys, ["synth", "--preset", "adult", "--data", path, "--method", "hard",
                                "--rho", "1e-3", "--release", "50", "--out", out, *TINY])
    assert rc == 0, err
    assert "data: adult.csv split 320 private / 80 held-out pilot rows (seed 0)" in so.splitlines()
    rc, so, err = _run(capsys, ["pilot", "--preset", "adult", "--data", path, "--rho", "1e-3",
                                "--split-seed", "4", "--dry-run"])
    assert rc == 0, err
    assert "data: adult.csv split 320 private / 80 held-out pilot rows (seed 4)" in so.splitlines()


def test_pilot_help_says_the_preset_splits_data(capsys):
    assert main(["pilot", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "only its row count n_t is used)" not in text
    assert ("--data CSV private table. With --preset adult|bank the preset splits it into a private part and "
            "held-out pilot rows, as in the paper (Adult 80/20, Bank 60/40; the public pilot runs on the held-out "
            "rows, n_t = the private part's size); to use a separate public file pass --public.") in text


def test_cells_outside_a_presets_domain_are_all_listed_before_the_split(tmp_path, capsys):
    """--preset with --data: cells outside the public domain are found on the whole table (a pilot-split row
    too), every column in one message, with spreadsheet row numbers."""
    from blowfish_core.interfaces.cli import main as _cli

    rows = ["age,workclass,hours.per.week,education.num,income"]
    rows += [f"{30 + i % 40},Private,40,9,<=50K" for i in range(40)]
    rows[1] = "31,Spaceman,40,9,<=50K"          # row 2
    rows[6] = "300,Private,40,9,<=50K"          # row 7
    rows[9] = '35,"=HYPERLINK(""x"")",40,9,<=50K'  # row 10
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(rows) + "\n")
    code = _cli.main(["synth", "--preset", "adult", "--data", str(path), "--method", "hard", "--rho", "1",
                      "--seeds", "0", "--out", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert "2 problem(s) found" in err
    assert ("column 'age': 1 cell(s) outside [17, 90] of the public domain (e.g. ['300']) in row 7. "
            "Fix: widen the declared bounds or remove those rows") in err
    assert ("column 'workclass': 2 cell(s) outside the declared categories of the public domain "
            "(e.g. ['Spaceman', '=HYPERLINK(\"x\")']) in rows 2, 10. Fix: add them to the levels of 'workclass'") in err
    assert not (tmp_path / "o.csv").exists()
