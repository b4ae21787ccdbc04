"""A schema's declaration in the whole-file intake (newcomer trial): a declared-numeric column
read as text lists its cells that are not numbers in the one pass (as the chunked reader), no
"picked" note for a declared column, the missing-level fix names the declared levels, and the
leave-out fix names the remaining columns."""

from __future__ import annotations

import json

import pytest

from blowfish_core.base.errors import DataError
from blowfish_core.base.fields import render
from blowfish_core.io.chunked import read_grouped
from blowfish_core.io.intake import check_table, intake_csv, read_checked
from blowfish_core.model.schema import Schema

CAT_SCHEMA = {"attributes": [{"name": "age", "type": "numeric", "lo": 0, "hi": 100, "integer": True},
                             {"name": "sex", "type": "categorical", "levels": ["F", "M"]}],
              "data_derived": False, "data_derived_columns": []}

#: the not-numbers message of 'age' (28 of 30 cells are text), the same in both reads.
AGE_NOT_NUMBERS = ("column 'age': 28 cell(s) are not numbers (e.g. ['young', 'old']) in rows 4, 5, 6, 7, 8 "
                   "and 23 more. Fix: correct those cells, or declare the column categorical")
SEX_MISSING = ("column 'sex': 1 cell(s) are missing (empty) in row 3. Fix: treat missing as its own level "
               "(--missing-level 'sex=?') and add '?' to the declared levels of 'sex' in the schema (F, M), "
               "else it is outside the declared categories: keeps all 30 rows; or drop those rows "
               "(--drop-missing 'sex'): keeps 29 of 30 rows")


def _mostly_text(tmp_path, missing_sex: bool = False):
    rows = ["age,sex", "20,F", "21,M" if not missing_sex else "21,"]
    rows += [f"{'young' if i % 2 == 0 else 'old'},{'FM'[i % 2]}" for i in range(28)]
    path = tmp_path / "mostlytext.csv"
    path.write_text("\n".join(rows) + "\n")
    return path, Schema.from_dict(json.loads(json.dumps(CAT_SCHEMA)))


def test_declared_numeric_text_column_listed_in_one_pass(tmp_path):
    path, schema = _mostly_text(tmp_path)
    res = check_table(path, columns=schema.names, schema=schema)
    assert [(p.column, p.kind, p.count, p.rows) for p in res.problems] == [
        ("age", "not-numbers", 28, (4, 5, 6, 7, 8))]
    assert res.problems[0].message == AGE_NOT_NUMBERS
    assert not any("because it was picked" in n for n in res.notes)
    with pytest.raises(DataError) as e:
        read_checked(path, columns=schema.names, schema=schema)
    assert str(e.value) == f"{path}: {AGE_NOT_NUMBERS}"


def test_whole_file_and_chunked_agree(tmp_path):
    path, schema = _mostly_text(tmp_path, missing_sex=True)
    with pytest.raises(DataError) as whole:
        read_checked(path, columns=schema.names, schema=schema)
    with pytest.raises(DataError) as chunked:
        read_grouped(path, schema, chunk_rows=10)
    for err in (whole, chunked):
        text = render(err.value.args[0] if err.value.args else str(err.value), "cli")
        assert f"- {AGE_NOT_NUMBERS}\n- {SEX_MISSING}" in text, text


def test_decimal_comma_hint(tmp_path):
    path = tmp_path / "euro.csv"
    path.write_text("price;qty\n" + "".join(f"{i},5{i};{i % 10}\n" for i in range(1, 13)))
    schema = Schema.from_dict({"attributes": [{"name": "price", "type": "numeric", "lo": 0, "hi": 100},
                                              {"name": "qty", "type": "numeric", "lo": 0, "hi": 10}],
                               "data_derived": False, "data_derived_columns": []})
    res = check_table(path, columns=schema.names, schema=schema)
    assert [p.message for p in res.problems] == [
        "column 'price': 12 cell(s) are not numbers (e.g. ['1,51', '2,52', '3,53']) in rows 2, 3, 4, 5, 6 and "
        "7 more. Fix: they look like numbers with a decimal comma; write them with a point (e.g. 1.51), correct "
        "those cells, or declare the column categorical"]
    assert not any("because it was picked" in n for n in res.notes)


def test_leave_out_fix_names_remaining_columns(tmp_path):
    path = tmp_path / "le.csv"
    path.write_text("age,city,score,note\n"
                    + "".join(f"{30 + (i % 7)},{'AB'[i % 2]},{i % 5},{'x' if i % 4 == 0 else ''}\n" for i in range(12)))
    res = intake_csv(path, release_size=None)
    assert res.modelled == ("age", "city", "score", "note")
    (p,) = res.problems
    assert render(p.message, "cli") == (
        "column 'note': 9 cell(s) are missing (empty) in rows 3, 4, 5, 7, 8 and 4 more. Fix: treat missing as "
        "its own level (--missing-level 'note=?'): keeps all 12 rows; or leave the column out (--columns "
        "age,city,score, or remove it from the schema): keeps all 12 rows; or drop those rows (--drop-missing "
        "'note'): keeps 3 of 12 rows")
    assert "leave the column out (columns=['age', 'city', 'score'], or remove it from the schema)" in str(p.message)
    assert "a,b,..." not in render(p.message, "cli")


def test_numbers_in_a_declared_ordinal_get_no_missing_level_fix(tmp_path):
    """Newcomer trial (session 10): an ordinal declared with number levels (as Adult's education.num)
    holding numbers and one empty cell: the whole-file read must not offer --missing-level, which the
    same read then refuses ("holds numbers; a missing level would make it text"); drop the rows instead."""
    path = tmp_path / "ord.csv"
    path.write_text("edu,sex\n" + "".join(f"{1 + i % 3},{'FM'[i % 2]}\n" for i in range(11)) + ",F\n")
    schema = Schema.from_dict({"attributes": [{"name": "edu", "type": "ordinal", "levels": ["1", "2", "3"]},
                                              {"name": "sex", "type": "categorical", "levels": ["F", "M"]}],
                               "data_derived": False, "data_derived_columns": []})
    res = check_table(path, columns=schema.names, schema=schema)
    [p] = [p for p in res.problems if p.column == "edu"]
    text = render(p.message, "cli")
    assert "--missing-level" not in text and "--drop-missing 'edu'" in text, text
    with pytest.raises(DataError, match="holds numbers; a missing level"):  # the fix it no longer offers
        read_checked(path, columns=schema.names, schema=schema, missing_level={"edu": "?"})
