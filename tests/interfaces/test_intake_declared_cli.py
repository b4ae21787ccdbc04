"""Newcomer trial: ``synth --schema`` on a file whose declared-numeric column is mostly text stops
in the one pass with the file name and rows, before any warning, with no "picked" note."""

from __future__ import annotations

import json

from blowfish_core.interfaces.cli.main import main

SCHEMA = {"attributes": [{"name": "age", "type": "numeric", "lo": 0, "hi": 100, "integer": True},
                         {"name": "sex", "type": "categorical", "levels": ["F", "M"]}],
          "data_derived": False, "data_derived_columns": []}


def test_synth_declared_numeric_text_column_stops_in_one_pass(tmp_path, capsys):
    data, schema = tmp_path / "mostlytext.csv", tmp_path / "cat_schema.json"
    data.write_text("age,sex\n20,F\n21,\n" + "".join(f"{'young' if i % 2 == 0 else 'old'},{'FM'[i % 2]}\n"
                                                     for i in range(28)))
    schema.write_text(json.dumps(SCHEMA))
    rc = main(["synth", "--data", str(data), "--schema", str(schema), "--rho", "1", "--tau", "0.03",
               "--allow-empty-policy", "--out", str(tmp_path / "out.csv")])
    out, err = capsys.readouterr()
    assert rc != 0
    assert err == (
        f"error: {data}: 2 problem(s) found:\n"
        "- column 'age': 28 cell(s) are not numbers (e.g. ['young', 'old']) in rows 4, 5, 6, 7, 8 and 23 more. "
        "Fix: correct those cells, or declare the column categorical\n"
        "- column 'sex': 1 cell(s) are missing (empty) in row 3. Fix: treat missing as its own level "
        "(--missing-level 'sex=?') and add '?' to the declared levels of 'sex' in the schema (F, M), else it is "
        "outside the declared categories: keeps all 30 rows; or drop those rows (--drop-missing 'sex'): keeps 29 "
        "of 30 rows\n")
    assert "WARNING" not in out + err and "picked" not in out + err
