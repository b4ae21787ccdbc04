"""Issue 15g: the chunked / large-file intake path applies the intake's flags, checks and
messages (a new user's findings 1, 2, 5-9, 13, 14).  Every message is checked exactly."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import blowfish_core.interfaces.cli.main as cli
from blowfish_core.io.chunked import read_grouped
from blowfish_core.model.distance import group_records
from blowfish_core.base.errors import DataError
from blowfish_core.io.intake import intake_csv
from blowfish_core.model.policy import Policy
from blowfish_core.model.schema import Schema
from blowfish_core.interfaces.synthesizer import Synthesizer

SCHEMA = {"attributes": [
    {"name": "age", "type": "numeric", "lo": 17, "hi": 90, "integer": True},
    {"name": "hours", "type": "numeric", "lo": 1, "hi": 99, "integer": True},
    {"name": "edu", "type": "numeric", "lo": 1, "hi": 16, "integer": True},
    {"name": "job", "type": "categorical", "levels": ["admin", "blue", "tech", "unknown"]},
    {"name": "y", "type": "binary", "levels": ["no", "yes"]},
]}
REPRO = "age;hours;edu;job;y\n30;40;10;admin;yes\n31;;10;admin;no\n"
RUN = ["--protect", "age=threshold:5", "--method", "hard", "--rho", "0.01", "--seeds", "0", "--quiet"]


def _files(tmp_path, text: str, name: str = "d.csv"):
    s = tmp_path / "s.json"
    s.write_text(json.dumps(SCHEMA))
    d = tmp_path / name
    d.write_text(text)
    return str(s), str(d)


def _synth(capsys, tmp_path, schema, data, *extra):
    rc = cli.main(["synth", "--schema", schema, "--data", data, "--out", str(tmp_path / "o.csv"), *RUN, *extra])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _table(n: int, seed: int = 0, sep: str = ";") -> list[str]:
    rng = np.random.default_rng(seed)
    rows = zip(rng.integers(17, 91, n), rng.integers(1, 100, n), rng.integers(1, 17, n),
               np.array(["admin", "blue", "tech"])[rng.integers(0, 3, n)], np.array(["no", "yes"])[rng.integers(0, 2, n)])
    return [sep.join(["age", "hours", "edu", "job", "y"])] + [sep.join(map(str, r)) for r in rows]


# ---------------------------------------------------------------- finding 1: no crash, one line
@pytest.mark.parametrize("flags", [["--chunk-rows", "10"], ["--in-memory-mb", "0"]])
def test_missing_cell_in_the_chunked_path_is_one_line_with_column_row_and_fix(tmp_path, capsys, flags):
    """Was: ValueError: output array is read-only (pandas 3's read-only isna().to_numpy())."""
    schema, data = _files(tmp_path, REPRO)
    rc, out, err = _synth(capsys, tmp_path, schema, data, *flags)
    assert rc == 2 and out == ""
    assert err == (f"error: {data}: column 'hours': 1 cell(s) are missing (empty) in row 3. "
                   "Fix: drop those rows (--drop-missing 'hours'): keeps 1 of 2 rows\n")


def test_missing_cell_through_the_api_path_read(tmp_path):
    _, data = _files(tmp_path, REPRO)
    syn = Synthesizer(Schema.from_dict(SCHEMA), Policy.from_dict({"attributes": {"age": {"type": "threshold",
                                                                                         "theta": 5}}}),
                      method="hard", rho=0.01, seed=0, chunk_rows=1)
    with pytest.raises(DataError) as ei:
        syn.fit(data)  # the separator ';' is detected, as on the command line
    assert str(ei.value) == (f"{data}: column 'hours': 1 cell(s) are missing (empty) in row 3. "
                             "Fix: drop those rows (drop_missing=['hours']): keeps 1 of 2 rows")


# ---------------------------------------------------------------- finding 2: the intake flags
@pytest.mark.parametrize("chunk", [1, 2, 7, 1000])
def test_drop_missing_and_missing_level_give_the_whole_file_grouping(tmp_path, chunk):
    lines = _table(60)
    lines[5] = "20;;3;tech;no"          # row 6: hours missing -> dropped
    lines[9] = "21;30;4;;yes"           # row 10: job missing -> the level 'unknown'
    lines[33] = "22;31;5;admin;"        # row 34: y missing -> dropped
    schema = Schema.from_dict(SCHEMA)
    _, data = _files(tmp_path, "\n".join(lines) + "\n")
    kw = dict(drop_missing=["hours", "y"], missing_level={"job": "unknown"})
    whole = intake_csv(data, sep=";", columns=schema.names, **kw)
    U, c = group_records(schema.encode(whole.frame))
    g = read_grouped(data, schema, sep=";", chunk_rows=chunk, **kw)
    assert np.array_equal(g.U, U) and np.array_equal(g.counts, c)
    assert g.n_rows == 58 and g.dropped_rows == 2
    assert g.notes == ("dropped 2 row(s) with a missing value in 'hours', 'y'",)
    assert float(schema.encode(pd.DataFrame([{"age": 21, "hours": 30, "edu": 4, "job": "unknown", "y": "yes"}]))[0, 3]) \
        in set(g.U[:, 3].tolist())


def test_cli_chunked_applies_drop_missing_and_prints_the_note_and_size_warnings(tmp_path, capsys):
    schema, data = _files(tmp_path, REPRO)
    rc, out, err = _synth(capsys, tmp_path, schema, data, "--chunk-rows", "1", "--drop-missing", "hours")
    assert rc == 0 and err == ""
    assert out.splitlines()[:3] == [
        "note: dropped 1 row(s) with a missing value in 'hours'",
        "WARNING: the table has 1 rows, fewer than the release size (512): the synthetic table would hold more "
        "records than the original. Fix: release at most 1 records or use a larger table",
        "WARNING: the table has only 1 rows (under 1,000): the noise will dominate the vote histogram and the "
        "synthetic data will be of little use"]


def test_names_on_a_headerless_file_chunked_equals_whole(tmp_path):
    lines = _table(40)
    schema = Schema.from_dict(SCHEMA)
    _, data = _files(tmp_path, "\n".join(lines[1:]) + "\n")
    names = ["age", "hours", "edu", "job", "y"]
    U, c = group_records(schema.encode(intake_csv(data, sep=";", names=names, columns=names).frame))
    for chunk in (1, 3, 100):
        g = read_grouped(data, schema, sep=";", chunk_rows=chunk, names=names)
        assert np.array_equal(g.U, U) and np.array_equal(g.counts, c) and g.n_rows == 40
    lines[7] = "x;1;1;admin;no"  # line 7 of the header-less file: row 7
    (tmp_path / "d.csv").write_text("\n".join(lines[1:]) + "\n")
    with pytest.raises(DataError) as ei:
        read_grouped(data, schema, sep=";", chunk_rows=4, names=names)
    assert str(ei.value) == (f"{data}: column 'age': 1 cell(s) are not numbers (e.g. ['x']) in row 7. "
                             "Fix: correct those cells, or declare the column categorical")


def test_cli_names_flag_reads_a_headerless_file_in_chunks(tmp_path, capsys):
    schema, data = _files(tmp_path, "\n".join(_table(1200)[1:]) + "\n")
    rc, out, err = _synth(capsys, tmp_path, schema, data, "--chunk-rows", "500", "--names", "age,hours,edu,job,y")
    assert rc == 0 and "WARNING" not in out
    rc, out, err = _synth(capsys, tmp_path, schema, data, "--chunk-rows", "500")
    assert rc == 2 and err.startswith(f"error: {data}: column(s) ['age', 'hours', 'edu', 'job', 'y'] of the schema "
                                      "are not in the file (columns: ['")


def test_duplicate_header_is_refused_chunked(tmp_path, capsys):
    text = "age;age;hours;edu;job;y\n30;31;40;10;admin;yes\n"
    schema, data = _files(tmp_path, text)
    rc, out, err = _synth(capsys, tmp_path, schema, data, "--chunk-rows", "10")
    assert rc == 2
    assert err == (f"error: {data}: column 'age' appears twice (columns 1 and 2, row 1). "
                   "Fix: give every column a unique name\n")



def test_duplicate_header_is_listed_with_the_bad_cells_chunked_as_whole_file(tmp_path, capsys):
    """Newcomer trial: the chunked read stopped at the repeated name; now one pass lists every
    problem, the same list as the whole-file read (the first of a repeated name is the column)."""
    text = ("age;hours;edu;job;y;job\n30;40;10;admin;yes;x\nold;40;10;admin;no;x\n"
            "31;200;10;admin;no;x\n32;40;10;Alien;no;x\n")
    schema, data = _files(tmp_path, text)
    rc, out, err = _synth(capsys, tmp_path, schema, data, "--chunk-rows", "2")
    assert rc == 2
    assert err == (f"error: {data}: 4 problem(s) found:\n"
                   "- column 'job' appears twice (columns 4 and 6, row 1). Fix: give every column a unique name\n"
                   "- column 'age': 1 cell(s) are not numbers (e.g. ['old']) in row 3. Fix: correct those cells, "
                   "or declare the column categorical\n"
                   "- column 'hours': 1 cell(s) outside [1, 99] of the public domain (e.g. ['200']) in row 4. Fix: "
                   "widen the declared bounds or remove those rows; values are never clipped silently\n"
                   "- column 'job': 1 cell(s) outside the declared categories of the public domain (e.g. ['Alien']) "
                   "in row 5. Fix: add them to the levels of 'job' or remove those rows\n")
    rc, out, whole = _synth(capsys, tmp_path, schema, data)  # the same problems (the order may differ)
    assert rc == 2 and sorted(whole.splitlines()) == sorted(err.splitlines())

# ---------------------------------------------------------------- finding 13: the missing level
def test_missing_level_on_a_numeric_column_is_refused_before_anything_runs(tmp_path, capsys):
    schema, data = _files(tmp_path, REPRO)
    for extra in ([], ["--chunk-rows", "1"]):
        rc, out, err = _synth(capsys, tmp_path, schema, data, "--missing-level", "hours=NA", *extra)
        assert rc == 2 and out == ""
        assert err == ("error: column 'hours' is numeric in the schema; a missing level ('NA') is for text columns "
                       "and would make it text. Fix: drop the rows with a missing value instead "
                       "(--drop-missing 'hours')\n")


def test_missing_level_outside_the_levels_is_refused(tmp_path):
    _, data = _files(tmp_path, REPRO.replace("31;;10;admin", "31;4;10;"))
    with pytest.raises(DataError) as ei:
        read_grouped(data, Schema.from_dict(SCHEMA), sep=";", missing_level={"job": "?"})
    assert str(ei.value) == (f"{data}: the missing level '?' of column 'job' is not one of its declared levels. "
                             "Fix: add '?' to the levels of 'job' in the schema")


ALLMISS = {"attributes": SCHEMA["attributes"] + [{"name": "notes", "type": "numeric", "lo": 0, "hi": 9}]}


@pytest.mark.parametrize("chunked", [False, True])
def test_an_all_empty_modelled_column_says_remove_it_from_the_schema(tmp_path, capsys, chunked):
    lines = [ln + ";" for ln in _table(30)]
    lines[0] += "notes"
    _, data = _files(tmp_path, "\n".join(lines) + "\n")
    s = tmp_path / "s6.json"
    s.write_text(json.dumps(ALLMISS))
    extra = ["--chunk-rows", "7"] if chunked else []
    rc, out, err = _synth(capsys, tmp_path, str(s), data, "--drop-missing", "all", *extra)
    assert rc == 2 and out == ""
    assert err == (f"error: {data}: no rows are left after dropping 30 row(s) with missing values: column 'notes' "
                   "is empty in every row. Fix: remove it from the schema, or leave it out of the modelled columns "
                   "(--columns a,b,...), and drop rows only for the other columns\n")
    rc, out, err = _synth(capsys, tmp_path, str(s), data, *extra)
    assert rc == 2 and out == ""  # refused before the run prints anything
    assert err == (f"error: {data}: column 'notes' is empty in every row (30 rows). Fix: remove it from the schema, "
                   "or leave it out of the modelled columns (--columns a,b,...)\n")


# ---------------------------------------------------------------- finding 8: one pass
def test_every_bad_cell_whole_file_and_chunked_in_one_message(tmp_path, capsys):
    lines = _table(1500)
    lines[99] = "200;1;1;admin;no"     # row 100: age outside [17, 90]
    lines[199] = "30;1;1;astronaut;no"  # row 200: job outside the levels
    lines[499] = "30;;1;admin;no"      # row 500: hours missing
    lines[599] = "x1;y2;1;admin;no"    # row 600: two cells not numbers
    for k in (700, 701, 702, 703, 704, 705):
        lines[k - 1] = "30;1;1;admin;maybe"  # rows 700-705: y outside the levels (6 cells, 5 listed)
    schema, data = _files(tmp_path, "\n".join(lines) + "\n")
    errs = set()
    for extra in ([], ["--chunk-rows", "7"], ["--chunk-rows", "250"], ["--in-memory-mb", "0"]):
        rc, out, err = _synth(capsys, tmp_path, schema, data, *extra)
        assert rc == 2 and out == ""
        errs.add(err.replace("(empty or a marker like '?')", "(empty)"))  # the whole-file wording of a numbers column
    assert errs == {
        f"error: {data}: 6 problem(s) found:\n"
        "- column 'age': 1 cell(s) are not numbers (e.g. ['x1']) in row 600. Fix: correct those cells, or declare "
        "the column categorical\n"
        "- column 'age': 1 cell(s) outside [17, 90] of the public domain (e.g. ['200']) in row 100. Fix: widen the "
        "declared bounds or remove those rows; values are never clipped silently\n"
        "- column 'hours': 1 cell(s) are not numbers (e.g. ['y2']) in row 600. Fix: correct those cells, or declare "
        "the column categorical\n"
        "- column 'hours': 1 cell(s) are missing (empty) in row 500. Fix: drop those rows (--drop-missing 'hours'): "
        "keeps 1499 of 1500 rows\n"
        "- column 'job': 1 cell(s) outside the declared categories of the public domain (e.g. ['astronaut']) in "
        "row 200. Fix: add them to the levels of 'job' or remove those rows\n"
        "- column 'y': 6 cell(s) outside the declared categories of the public domain (e.g. ['maybe']) in rows 700, "
        "701, 702, 703, 704 and 1 more. Fix: add them to the levels of 'y' or remove those rows\n"}


# ---------------------------------------------------------------- finding 14: reading messages
def test_reading_messages_have_rows_and_fixes(tmp_path, capsys):
    schema, _ = _files(tmp_path, REPRO)
    latin = tmp_path / "latin1.csv"
    latin.write_bytes(("age;hours;edu;job;y\n30;40;10;admin;yes\n31;40;10;caf\u00e9;no\n").encode("latin-1"))
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    head = tmp_path / "head.csv"
    head.write_text("age;hours;edu;job;y\n\n")
    want = {
        latin: f"error: {latin}: not UTF-8 text (byte 0xe9 on line 3). Fix: save the file as UTF-8 CSV (in a "
               "spreadsheet: Save as > CSV UTF-8; on the command line: iconv -f latin1 -t utf-8 old.csv > new.csv)\n",
        empty: f"error: {empty}: the file is empty. Fix: give a CSV file with a header row and data rows\n",
        head: f"error: {head}: the file has a header but no data rows. Fix: add the data rows under the header "
              "(or check that this is the right file)\n",
    }
    for path, msg in want.items():
        for extra in ([], ["--chunk-rows", "5"]):
            rc, out, err = _synth(capsys, tmp_path, schema, str(path), *extra)
            assert rc == 2 and err == msg, (path, extra)


def test_no_pandas_dtype_warning_on_a_chunked_read_with_a_bad_cell(tmp_path):
    """pandas' DtypeWarning (with an internal path) leaked from a large chunk with one bad age."""
    lines = _table(150_000, sep=",")
    lines[140_000] = "abc" + lines[140_000][2:]
    p = tmp_path / "big.csv"
    p.write_text("\n".join(lines) + "\n")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        with pytest.raises(DataError) as ei:
            read_grouped(p, Schema.from_dict(SCHEMA))
    assert [str(w.message) for w in got] == []
    assert str(ei.value) == (f"{p}: column 'age': 1 cell(s) are not numbers (e.g. ['abc']) in row 140001. "
                             "Fix: correct those cells, or declare the column categorical")


# ---------------------------------------------------------------- finding 7: presets, no size cap
def test_cli_preset_path_has_no_app_size_cap(tmp_path, capsys):
    """The 100 MB cap is the app's upload limit; the command line reads a preset's --data whole."""
    from blowfish_core.io.data import DEFAULT_MAX_BYTES

    p = tmp_path / "big.csv"
    with open(p, "wb") as f:
        f.truncate(DEFAULT_MAX_BYTES + 2**20)  # sparse: NUL bytes, refused for what they are
    rc = cli.main(["synth", "--preset", "adult", "--data", str(p), "--method", "hard", "--rho", "0.01",
                   "--out", str(tmp_path / "o.csv"), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and err == (f"error: {p}: contains NUL bytes; this looks like a binary file, not a CSV. "
                               "Fix: export the table as a UTF-8 CSV\n")


@pytest.mark.parametrize("chunk", [1, 2, 3, 1000])
def test_rows_with_more_fields_are_listed_with_the_cell_problems(tmp_path, chunk):
    """pandas skips rows with too many fields (reported with their rows); the rows after them keep
    their spreadsheet numbers.  (A row with too few fields reads as empty cells.)"""
    text = ("age;hours;edu;job;y\n30;40;10;admin;yes\n31;40;10;admin;no;extra\n\n200;40;10;admin;no\n"
            "32;40;10;admin;no;1;2\n33;40;10;zz;no\n33;40;10;blue;no;x\n")
    _, data = _files(tmp_path, text)
    with pytest.raises(DataError) as ei:
        read_grouped(data, Schema.from_dict(SCHEMA), sep=";", chunk_rows=chunk)
    assert str(ei.value) == (
        f"{data}: 4 problem(s) found:\n"
        "- 2 row(s) have 6 fields instead of 5 (rows 3, 8). Fix: check the quoting, the separator and the number "
        "of fields per row\n"
        "- 1 row(s) have 7 fields instead of 5 (row 6). Fix: check the quoting, the separator and the number of "
        "fields per row\n"
        "- column 'age': 1 cell(s) outside [17, 90] of the public domain (e.g. ['200']) in row 5. Fix: widen the "
        "declared bounds or remove those rows; values are never clipped silently\n"
        "- column 'job': 1 cell(s) outside the declared categories of the public domain (e.g. ['zz']) in row 7. "
        "Fix: add them to the levels of 'job' or remove those rows")


def test_a_fraction_in_an_integer_column_is_named_as_such_in_both_paths(tmp_path, capsys):
    """Was: the chunked path called 30.5 'outside [17, 90]'; the whole-file path failed only in the run."""
    lines = _table(1200)
    lines[9] = "30.5;40;10;admin;yes"   # row 10
    lines[19] = "95.5;40;10;admin;yes"  # row 20: outside the bounds (one problem per cell)
    schema, data = _files(tmp_path, "\n".join(lines) + "\n")
    for extra in ([], ["--chunk-rows", "4"]):
        rc, out, err = _synth(capsys, tmp_path, schema, data, *extra)
        assert rc == 2 and out == ""
        assert err == (
            f"error: {data}: 2 problem(s) found:\n"
            "- column 'age': 1 cell(s) outside [17, 90] of the public domain (e.g. ['95.5']) in row 20. Fix: widen "
            "the declared bounds or remove those rows; values are never clipped silently\n"
            "- column 'age': 1 cell(s) are not whole numbers (e.g. ['30.5']) in row 10, but the schema declares the "
            "column integer. Fix: correct those cells, or set integer to false in the schema\n")


@pytest.mark.parametrize("flags", [[], ["--chunk-rows", "7"]])
def test_undetected_separator_says_so_with_the_fix(tmp_path, capsys, flags):
    """A ';' file whose 6th row has 7 fields: the separator is not detected and the header reads as one
    column; the message says so and gives --sep (a fresh user's finding), whole-file and chunked."""
    lines = _table(60)
    lines[5] = lines[5] + ";1;2"
    schema, data = _files(tmp_path, "\n".join(lines) + "\n")
    rc, out, err = _synth(capsys, tmp_path, schema, data, *flags)
    # issue 27: the intake's and the chunked reader's one message (io.data.other_separator)
    assert err == (f"error: {data}: the file looks ';'-separated: pass --sep ';' (read with the comma separator, "
                   "the header 'age;hours;edu;job;y' is one column holding 4 ';')\n")
    assert rc == 2
    rc, out, err = _synth(capsys, tmp_path, schema, data, "--sep", ";", *flags)
    assert rc == 2 and "row 6" in err


def test_headerless_file_without_names_says_how_to_name_the_columns(tmp_path, capsys):
    """A file without a header row and no --names: both readers give the CLI flags that fix it."""
    lines = _table(40, sep=",")[1:]
    schema, data = _files(tmp_path, "\n".join(lines) + "\n")
    rc, out, err = _synth(capsys, tmp_path, schema, data)
    assert rc == 2 and err.strip().endswith("Fix: name its columns (--no-header --names age,hours,edu,job,y) "
                                            "or add a header row")
    rc, out, err = _synth(capsys, tmp_path, schema, data, "--chunk-rows", "7")
    assert rc == 2 and err.strip().endswith("if the first row is data, not a header, name the columns "
                                            "(--no-header --names age,hours,edu,job,y)")
    rc, out, err = _synth(capsys, tmp_path, schema, data, "--no-header", "--names", "age,hours,edu,job,y")
    assert rc == 0
