"""Issue 27 (a newcomer with messy files) through the CLI: ``--columns zip`` models an identifier-guessed
zip-code column as categorical text (leading zeros kept) without a schema file; one modelled column
releases with PWErr skipped; a tiny table with a domain inferred from it is refused by the release gate
(with a declared domain it releases with the tiny-table warning).  Files built in tmp_path; messages exact."""

from __future__ import annotations

import json
import os

import pandas as pd

from tests.cli_helpers import write_file as _write, run_cli as _run

#: 40 distinct zip codes, one per row, 34 with a leading zero: the intake guesses an identifier.
ZIPS = [f"0{i:04d}" for i in range(501, 535)] + ["10001", "60601", "94105", "19104", "30301", "73301"]
RUN = ["--method", "hard", "--rounds", "2", "--population", "16x2", "--rho", "0.01"]


def _zip_file(tmp_path) -> str:
    return _write(tmp_path, "people.csv", "zip,age\n" + "".join(f"{z},{20 + i % 30}\n" for i, z in enumerate(ZIPS)))


def test_zip_codes_are_an_identifier_with_a_reason_that_says_how_to_model_them(tmp_path, capsys):
    path = _zip_file(tmp_path)
    out_json = os.path.join(tmp_path, "s.json")
    rc, out, err = _run(capsys, ["schema", "--data", path, "--out", out_json])
    assert rc == 0, err
    assert ("note: column 'zip' is not modelled: codes with leading zeros (e.g. '00501'), all distinct: an "
            "identifier, not modelled. To model it as categorical text (its values as levels, leading zeros kept), "
            "name it in --columns (e.g. --columns zip,...)") in err.splitlines()
    assert [a["name"] for a in json.load(open(out_json))["attributes"]] == ["age"]


def test_columns_zip_models_it_as_categorical_text_without_a_schema_file(tmp_path, capsys):
    path = _zip_file(tmp_path)
    out_json = os.path.join(tmp_path, "s.json")
    rc, out, err = _run(capsys, ["schema", "--data", path, "--columns", "zip,age", "--out", out_json])
    assert rc == 0, err
    assert ("note: column 'zip' is modelled because it was picked: categorical text with its 40 distinct values "
            "as levels (as written, leading zeros kept); the intake guessed identifier") in err.splitlines()
    zip_attr = json.load(open(out_json))["attributes"][0]
    assert zip_attr["name"] == "zip" and zip_attr["type"] == "categorical" and zip_attr["levels"] == sorted(ZIPS)
    # and a release of it: the synthetic zip codes keep their leading zeros
    out_csv = os.path.join(tmp_path, "synth.csv")
    rc, out, err = _run(capsys, ["synth", "--data", path, "--columns", "zip,age", *RUN, "--release", "30",
                                 "--protect", "age=threshold:5", "--allow-data-domain", "--out", out_csv, "--quiet"])
    assert rc == 0, err
    synth = pd.read_csv(out_csv, dtype=str)
    assert len(synth) == 30 and set(synth["zip"]) <= set(ZIPS) and all(len(z) == 5 for z in synth["zip"])


def test_one_modelled_column_releases_with_pwerr_skipped(tmp_path, capsys):
    path = _write(tmp_path, "one.csv", "color\n" + "".join(f"{'rgb'[i % 3]}\n" for i in range(30)))
    out_csv, rep = os.path.join(tmp_path, "synth.csv"), os.path.join(tmp_path, "eval.json")
    rc, out, err = _run(capsys, ["synth", "--data", path, *RUN, "--release", "10", "--protect", "color=complete",
                                 "--allow-data-domain", "--out", out_csv, "--eval-report", rep, "--quiet"])
    assert rc == 0, err
    assert "evaluation: PWErr needs two modelled columns; skipped" in out.splitlines()
    internal = json.load(open(rep))
    assert internal["metric"]["skipped"] == "PWErr needs two modelled columns; skipped"
    assert internal["summary"] == {"per_method": {}, "note": "PWErr needs two modelled columns; skipped"}
    assert len(pd.read_csv(out_csv)) == 10


TINY_REFUSAL = (
    "error: the release gate refused this release: --schema: the private table has only 3 row(s) and its public "
    "domain was inferred from it: the inferred domain would be the records themselves (with at most 3 rows its "
    "bounds and levels are the rows' values), so --allow-data-domain cannot release it. Fix: pass --schema FILE "
    "with bounds and levels from public knowledge (python -m blowfish_core schema --data FILE --out FILE writes "
    "one to edit: replace a column's bounds, remove it from \"data_derived_columns\", and set \"data_derived\": "
    "false when none is left; docs/FORMATS.md)\n")


def test_tiny_table_with_an_inferred_domain_is_refused_and_with_a_declared_one_released(tmp_path, capsys):
    path = _write(tmp_path, "tiny.csv", "age,color\n30,r\n41,g\n52,b\n")
    out_csv = os.path.join(tmp_path, "synth.csv")
    base = ["synth", "--data", path, *RUN, "--release", "3", "--protect", "age=threshold:5", "--out", out_csv]
    for extra in (["--allow-data-domain"], []):  # inferred from the 3 rows: refused either way
        rc, out, err = _run(capsys, base + extra)
        assert (rc, err) == (2, TINY_REFUSAL)
        assert not os.path.exists(out_csv)
    schema = _write(tmp_path, "schema.json", json.dumps({"attributes": [
        {"name": "age", "type": "numeric", "lo": 0, "hi": 100, "integer": True},
        {"name": "color", "type": "categorical", "levels": ["r", "g", "b"]}]}))
    rc, out, err = _run(capsys, base + ["--schema", schema])
    assert rc == 0, err
    assert ("WARNING: the table has only 3 rows (under 1,000): the noise will dominate the vote histogram and the "
            "synthetic data will be of little use") in out.splitlines()
    assert len(pd.read_csv(out_csv)) == 3
