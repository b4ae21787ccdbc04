"""Issue 27 through the CLI: the fixes of missing cells by rows kept, and messages naming the real
cause (the separator, the header row, a --protect column absent from the table).  Every phrase is exact;
the files are written in tmp_path."""

from __future__ import annotations


from tests.cli_helpers import write_file as _write, run_cli as _run


def test_missing_fixes_by_rows_kept(tmp_path, capsys):
    """40 rows, 'notes' empty in 32: a missing level and leaving the column out keep all 40, dropping keeps 8."""
    lines = ["age,city,notes"] + [f"{30 + i % 9},{('Boston', 'Paris')[i % 2]},{'late' if i % 5 == 0 else ''}"
                                  for i in range(40)]
    path = _write(tmp_path, "notes.csv", "\n".join(lines) + "\n")
    rc, out, err = _run(capsys, ["schema", "--data", path])
    assert rc == 2 and out == ""
    assert err == (f"error: {path}: column 'notes': 32 cell(s) are missing (empty) in rows 3, 4, 5, 6, 8 and 27 "
                   "more. Fix: treat missing as its own level (--missing-level 'notes=?'): keeps all 40 rows; or leave "
                   "the column out (--columns age,city, or remove it from the schema): keeps all 40 rows; or drop "
                   "those rows (--drop-missing 'notes'): keeps 8 of 40 rows\n")


def test_one_column_read_of_a_semicolon_file_names_the_separator(tmp_path, capsys):
    """Was: "the schema has no modeled attributes" (the one column 'age;job;salary' is an identifier)."""
    lines = ["age;job;salary"] + [f"{20 + i % 30};{'ab'[i % 2]};{1000 + 7 * i}" for i in range(40)]
    path = _write(tmp_path, "semicolon.csv", "\n".join(lines) + "\n")
    rc, out, err = _run(capsys, ["schema", "--data", path, "--sep", ","])
    assert rc == 2 and out == ""
    assert err == (f"error: {path}: the file looks ';'-separated: pass --sep ';' (read with the comma separator, "
                   "the header 'age;job;salary' is one column holding 2 ';')\n")
    rc, out, err = _run(capsys, ["schema", "--data", path])  # detected: it reads
    assert rc == 0 and "separator semicolon (detected)" in err


def test_headerless_file_message_gives_every_offered_name_and_true_wording(tmp_path, capsys):
    lines = [",".join([str(20 + i), "ab"[i % 2], str(1000 + 7 * i), "xyz"[i % 3], str(i % 4), "uv"[i % 2]])
             for i in range(40)]
    path = _write(tmp_path, "noheader.csv", "\n".join(lines) + "\n")
    rc, out, err = _run(capsys, ["schema", "--data", path])
    assert rc == 2 and out == ""
    assert err == (f"error: {path}: the first row looks like data, not a header: the first row has numbers ('20', "
                   "'1000', '0') where the rest of the column(s) 1, 3, 5 are numbers. Nothing was loaded; to check "
                   "the rest, row 1 was taken as data under the names column_1 .. column_6. Fix: confirm with "
                   "--no-header --names column_1,column_2,column_3,column_4,column_5,column_6 (offered), or add a "
                   "header row to the file\n")
    assert "It was read as data" not in err and "..." not in err
    rc, out, err = _run(capsys, ["schema", "--data", path, "--no-header"])
    assert rc == 0, err


def test_wide_headerless_file_gives_the_count_and_no_header_alone(tmp_path, capsys):
    lines = [",".join(str(i * j + 1) for j in range(25)) for i in range(1, 30)]
    path = _write(tmp_path, "wide.csv", "\n".join(lines) + "\n")
    rc, out, err = _run(capsys, ["schema", "--data", path])
    assert rc == 2
    assert err.endswith("Nothing was loaded; to check the rest, row 1 was taken as data under the names column_1 .. "
                        "column_25. Fix: confirm with --no-header (it takes the 25 offered names, column_1 .. "
                        "column_25), or add a header row to the file\n"), err


def test_bare_protect_of_a_column_not_in_the_table_lists_the_columns(tmp_path, capsys):
    lines = ["age,job,city"] + [f"{20 + i % 30},{'ab'[i % 2]},{'xyz'[i % 3]}" for i in range(40)]
    path = _write(tmp_path, "nosalary.csv", "\n".join(lines) + "\n")
    for spec in ("salary", "salary=threshold:5"):  # was: "without a preset, give an explicit SPEC ..."
        rc, out, err = _run(capsys, ["reach", "--data", path, "--protect", spec, "--tau", "0.03"])
        assert rc == 2 and out == ""
        assert err == (f"error: --protect {spec}: the table has no column 'salary'. Its columns: age, job, city. "
                       "Fix: protect one of them\n")
    # a modelled column with a bare ATTR still asks for its SPEC
    rc, out, err = _run(capsys, ["reach", "--data", path, "--protect", "age", "--tau", "0.03"])
    assert rc == 2 and "without a preset, give an explicit SPEC" in err


def test_protect_of_a_column_the_table_does_not_model_says_so(tmp_path, capsys):
    lines = ["id,age,job"] + [f"{i + 1},{20 + i % 30},{'ab'[i % 2]}" for i in range(40)]
    path = _write(tmp_path, "ids.csv", "\n".join(lines) + "\n")
    rc, out, err = _run(capsys, ["reach", "--data", path, "--protect", "id=complete", "--tau", "0.03"])
    assert rc == 2 and out == ""
    assert err == ("error: --protect id=complete: column 'id' is in the table but not modelled (whole numbers, all "
                   "distinct and consecutive: an identifier, not modelled). Modelled: age, job. Fix: protect a "
                   "modelled column, or model it (--columns)\n")
