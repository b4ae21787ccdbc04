"""CSV intake (blowfish_core.io.intake): separator, header, problems in one pass, Unicode
spaces, type guessing, missing values, wide and tiny tables (issue 11).  Files are written
in tmp_path; row numbers are spreadsheet rows (row 1 = the first line of the file)."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blowfish_core.base.errors import DataError, SchemaError
from blowfish_core.io.intake import check_sep, intake_csv, sniff_separator
from blowfish_core.io.presets import ADULT_UCI_COLUMNS, BANK_UCI_COLUMNS
from tests.cli_helpers import write_file as _write

ADULT_LINES = [
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K",
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K",
    "38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, 0, 40, United-States, <=50K",
    "53, Private, 234721, 11th, 7, Married-civ-spouse, Handlers-cleaners, Husband, Black, Male, 0, 0, 40, United-States, <=50K",
    "28, Private, 338409, Bachelors, 13, Married-civ-spouse, Prof-specialty, Wife, Black, Female, 0, 0, 40, Cuba, <=50K",
    "37, Private, 284582, Masters, 14, Married-civ-spouse, Exec-managerial, Wife, White, Female, 0, 0, 40, United-States, <=50K",
    "52, Self-emp-not-inc, 209642, HS-grad, 9, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 45, United-States, >50K",
    "31, Private, 45781, Masters, 14, Never-married, Prof-specialty, Not-in-family, White, Female, 14084, 0, 50, United-States, >50K",
]


# ------------------------------------------------------------ separator / header
def test_headerless_adult_layout_with_comma_space_and_data_extension(tmp_path):
    path = _write(tmp_path, "adult.data", "\n".join(ADULT_LINES) + "\n\n")
    with open(path, "rb") as f:
        before = hashlib.sha256(f.read()).hexdigest()
    r = intake_csv(path, release_size=None)
    assert (r.sep, r.sep_name, r.sep_sniffed) == (", ", "comma followed by a space", True)
    assert r.header is False and r.preset_layout == "adult"
    assert r.offered_names == ADULT_UCI_COLUMNS
    assert list(r.frame.columns) == list(ADULT_UCI_COLUMNS)
    assert len(r.frame) == 8  # no record lost as a header
    assert r.row_numbers[0] == 1
    [p] = r.problems
    assert p.kind == "header" and p.rows == (1,)
    assert p.message == (
        "the first row looks like data, not a header: the first row has numbers ('39', '77516', '13') where the "
        "rest of the column(s) 1, 3, 5 are numbers. Nothing was loaded; to check the rest, row 1 was taken as data "
        "under the Adult preset's names. Fix: confirm with no_header=True and names=[age, workclass, fnlwgt, "
        "education, education.num, marital.status, occupation, relationship, race, sex, capital.gain, capital.loss, "
        "hours.per.week, native.country, income] (offered), or add a header row to the file")
    with pytest.raises(DataError, match="the first row looks like data"):
        r.raise_for_problems()
    ok = intake_csv(path, no_header=True, release_size=None)
    assert ok.ok and list(ok.frame.columns) == list(ADULT_UCI_COLUMNS)
    assert ok.frame["age"].tolist()[:2] == [39, 50] and ok.frame["workclass"].iloc[0] == "State-gov"
    assert ok.header_reason == "as given (no_header=True)"
    with open(path, "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == before  # never modified


def test_single_adult_row_is_recognised_by_the_preset_layout(tmp_path):
    path = _write(tmp_path, "one.data", ADULT_LINES[0] + "\n")
    r = intake_csv(path, release_size=None)
    assert r.header is False and r.preset_layout == "adult"
    assert r.header_reason == "the first row fits the Adult preset's 15-column UCI layout"


def test_headerless_generic_file_offers_column_names(tmp_path):
    path = _write(tmp_path, "g.txt", "1,a,2.5\n2,b,3.5\n3,a,4.5\n")
    r = intake_csv(path, release_size=None)
    assert r.header is False and r.preset_layout is None
    assert r.offered_names == ("column_1", "column_2", "column_3")
    named = intake_csv(path, no_header=True, names=["k", "cat", "x"], release_size=None)
    assert list(named.frame.columns) == ["k", "cat", "x"] and named.ok
    assert intake_csv(path, names=["k", "cat", "x"], release_size=None).ok  # names imply no header
    # an empty first cell does not hide a headerless file
    gap = intake_csv(_write(tmp_path, "gap.txt", "1,,2.5\n2,b,3.5\n3,a,4.5\n"), release_size=None)
    assert gap.header is False
    with pytest.raises(DataError, match=r"2 names given but the rows have 3 fields\. Fix: give 3 names"):
        intake_csv(path, no_header=True, names=["a", "b"])


def test_semicolon_bank_file_and_quoted_header(tmp_path):
    head = ";".join(f'"{c}"' for c in BANK_UCI_COLUMNS)
    row = "58;management;married;tertiary;no;2143;yes;no;unknown;5;may;261;1;-1;0;unknown;no"
    path = _write(tmp_path, "bank-full.csv", head + "\n" + "\n".join([row] * 5) + "\n")
    r = intake_csv(path, release_size=None)
    assert (r.sep, r.sep_name) == (";", "semicolon")
    assert r.header is True and r.preset_layout == "bank"
    assert list(r.frame.columns) == list(BANK_UCI_COLUMNS)
    assert r.frame["balance"].tolist() == [2143] * 5 and r.frame["pdays"].iloc[0] == -1


@pytest.mark.parametrize("sep,name", [(",", "comma"), (";", "semicolon"), ("\t", "tab"), ("|", "pipe")])
def test_sniffed_separators(sep, name, tmp_path):
    text = "\n".join(sep.join(r) for r in [["a", "b", "c"], ["1", "x", "2"], ["3", "y", "4"]]) + "\n"
    r = intake_csv(_write(tmp_path, "f.csv", text), release_size=None)
    assert (r.sep, r.sep_name) == (sep, name)
    assert list(r.frame.columns) == ["a", "b", "c"]


def test_separator_checks():
    assert check_sep(None) is None and check_sep("\\t") == "\t" and check_sep(", ") == ", "
    with pytest.raises(DataError) as e:
        check_sep("")
    assert str(e.value) == ("the separator is empty (''). Fix: give one character such as ',', ';', '\\t' or '|', "
                            "or leave it out to detect it")
    with pytest.raises(DataError, match="must be one character"):
        check_sep(";;")
    assert sniff_separator("a;b;c\n1;2;3\n") == ";"
    assert sniff_separator("only\none\ncolumn\n") == ","


def test_given_empty_separator_is_an_error(tmp_path):
    with pytest.raises(DataError, match=r"the separator is empty"):
        intake_csv(_write(tmp_path, "f.csv", "a,b\n1,2\n"), sep="")


# ------------------------------------------------------------ problems in one pass
def test_every_problem_in_one_pass_with_row_numbers(tmp_path):
    rows = ["age,income,city,score", "30,<=50K,Boston,1.5", "x,>50K,Boston,2", "31,>50K,,3",
            "thirty,<=50K,Paris,4", "32,<=50K,Paris,5", ",<=50K,Paris,6", "33,<=50K,Paris", "34,>50K,Rome,7",
            "?,>50K,Rome,8"]
    path = _write(tmp_path, "p.csv", "\n".join(rows) + "\n")
    r = intake_csv(path, release_size=None)
    assert [(p.column, p.kind, p.count, p.rows) for p in r.problems] == [
        ("", "fields", 1, (8,)), ("age", "not-numbers", 2, (3, 5)), ("age", "missing", 2, (7, 10)),
        ("city", "missing", 1, (4,))]
    msgs = [p.message for p in r.problems]
    assert msgs[0] == ("1 row(s) have 3 fields instead of 4 (row 8). Fix: check the quoting, the separator and "
                       "the number of fields per row")
    assert msgs[1] == ("column 'age': 2 cell(s) are not numbers (e.g. ['x', 'thirty']) in rows 3, 5. "
                       "Fix: correct those cells, or declare the column categorical")
    assert msgs[2] == ("column 'age': 2 cell(s) are missing (empty or a marker like '?') in rows 7, 10. "
                       "Fix: drop those rows (drop_missing=['age']): keeps 6 of 8 rows")
    assert msgs[3] == ("column 'city': 1 cell(s) are missing (empty) in row 4. Fix: treat missing as its own level "
                       "(missing_level={'city': '?'}): keeps all 8 rows; or drop those rows (drop_missing=['city']): "
                       "keeps 7 of 8 rows")
    with pytest.raises(DataError) as e:
        r.raise_for_problems()
    assert str(e.value).startswith(f"{path}: 4 problem(s) found:\n- 1 row(s) have 3 fields instead of 4 (row 8).")
    assert str(e.value).count("\n- ") == 4


def test_at_most_five_rows_listed(tmp_path):
    lines = ["a,b"] + [f"{i},x" for i in range(20)] + [f"bad{i},y" for i in range(8)]
    r = intake_csv(_write(tmp_path, "m.csv", "\n".join(lines) + "\n"), release_size=None)
    [p] = r.problems
    assert p.count == 8 and p.rows == (22, 23, 24, 25, 26)
    assert "in rows 22, 23, 24, 25, 26 and 3 more." in p.message


def test_nbsp_padded_numbers_are_numbers(tmp_path):
    text = "n,c\n\u00a012\u00a0,a\n 7\u202f,b\n\u20093,a\n\u200b4,b\n"
    r = intake_csv(_write(tmp_path, "nb.csv", text), release_size=None)
    assert r.ok
    assert r.frame["n"].dtype == np.int64 and r.frame["n"].tolist() == [12, 7, 3, 4]
    assert r.guess("n").kind == "numeric"
    assert "4 cell(s) had non-breaking or other Unicode spaces around their value; they were trimmed like " \
           "ordinary spaces" in r.notes


# ------------------------------------------------------------ type guessing
def _typed_table(tmp_path) -> str:
    n = 24
    df = pd.DataFrame({
        "id": range(1, n + 1),
        "user": [f"u{i:03d}" for i in range(n)],
        "zip": ["02165", "02139", "10001"] * (n // 3),
        "day": [f"2021-03-{d:02d}" for d in range(1, n + 1)],
        "flag": ["TRUE", "FALSE"] * (n // 2),
        "ok": ["yes", "no", "no"] * (n // 3),
        "age": [20 + (i % 7) for i in range(n)],
    })
    p = os.path.join(tmp_path, "typed.csv")
    df.to_csv(p, index=False)
    return p


def test_identifier_leading_zero_date_and_boolean_columns(tmp_path):
    r = intake_csv(_typed_table(tmp_path), release_size=None)
    kinds = {g.name: (g.kind, g.modelled) for g in r.columns}
    assert kinds == {"id": ("identifier", False), "user": ("identifier", False), "zip": ("code", True),
                     "day": ("date", False), "flag": ("boolean", True), "ok": ("boolean", True),
                     "age": ("numeric", True)}
    assert r.modelled == ("zip", "flag", "ok", "age")
    assert r.guess("id").reason == "whole numbers, all distinct and consecutive: an identifier, not modelled"
    assert r.guess("user").reason == "all 24 values distinct: an identifier, not modelled"
    assert r.guess("zip").reason == "codes with leading zeros (e.g. '02165') kept as text"
    assert r.guess("day").reason == ("dates (e.g. '2021-03-01'): not modelled; declare an ordinal or numeric "
                                     "domain (e.g. the year) to model it")
    assert r.guess("flag").levels == ("FALSE", "TRUE")
    assert r.frame["zip"].tolist()[:3] == ["02165", "02139", "10001"]
    assert r.frame["flag"].tolist()[:2] == ["TRUE", "FALSE"]  # original spelling, not bool
    schema = r.schema()
    assert schema.data_derived and schema.names == ["zip", "flag", "ok", "age"]
    assert schema["flag"].kind == "binary" and schema["flag"].levels == ["FALSE", "TRUE"]
    assert schema["zip"].levels == ["02139", "02165", "10001"]
    X = schema.encode(r.modelled_frame())
    back = schema.decode(X)
    assert back["flag"].tolist() == r.frame["flag"].tolist()  # round trip keeps TRUE/FALSE
    assert back["zip"].tolist() == r.frame["zip"].tolist()  # 02165 stays 02165
    assert "column 'day' is not modelled: dates (e.g. '2021-03-01'): not modelled; declare an ordinal or numeric " \
           "domain (e.g. the year) to model it" in r.notes


def test_picked_date_column_needs_a_declared_domain(tmp_path):
    r = intake_csv(_typed_table(tmp_path), columns=["day", "age"], release_size=None)
    assert r.modelled == ("day", "age")
    assert "column 'day' is modelled because it was picked, although it is date" in r.notes[0]
    with pytest.raises(SchemaError, match=r"column 'day' is date .*Fix: declare an ordinal"):
        r.schema()


# ------------------------------------------------------------ missing values
def _missing_table(tmp_path) -> str:
    return _write(tmp_path, "miss.csv", "age,city\n30,Boston\n,Paris\n31,\n?,Rome\n32,Rome\n")


def test_missing_values_default_is_a_problem_with_the_fix(tmp_path):
    r = intake_csv(_missing_table(tmp_path), release_size=None)
    assert [(p.column, p.count, p.rows) for p in r.problems] == [("age", 2, (3, 5)), ("city", 1, (4,))]


def test_missing_values_dropped_at_intake(tmp_path):
    r = intake_csv(_missing_table(tmp_path), drop_missing=["age", "city"], release_size=None)
    assert r.ok and r.dropped_rows == 3 and len(r.frame) == 2
    assert r.row_numbers == (2, 6)
    assert "dropped 3 row(s) with a missing value in 'age', 'city'" in r.notes
    assert r.frame["age"].dtype == np.int64 and r.frame["age"].tolist() == [30, 32]


def test_missing_level_declared_at_intake(tmp_path):
    r = intake_csv(_missing_table(tmp_path), drop_missing=["age"], missing_level={"city": "unknown"},
                   release_size=None)
    assert r.ok and r.dropped_rows == 2
    assert r.frame["city"].tolist() == ["Boston", "unknown", "Rome"]
    assert r.guess("city").levels == ("Boston", "Rome", "unknown")


def test_missing_level_on_a_numeric_column_is_a_problem(tmp_path):
    r = intake_csv(_missing_table(tmp_path), missing_level={"age": "?", "city": "unknown"}, release_size=None)
    [p] = [p for p in r.problems if p.kind == "missing-level"]
    assert p.message == ("column 'age' holds numbers; a missing level '?' would make it text. "
                         "Fix: drop the 2 row(s) with a missing value instead")


# ------------------------------------------------------------ wide / tiny
def test_wide_table_models_the_first_30_columns(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 5, size=(60, 215)), columns=[f"v{i}" for i in range(215)])
    p = os.path.join(tmp_path, "wide.csv")
    df.to_csv(p, index=False)
    r = intake_csv(p, release_size=None)
    assert r.modelled == tuple(f"v{i}" for i in range(30))
    assert ("the table has 215 columns; only the first 30 modellable ones are modelled by default (v0 .. v29); "
            "185 more are not. Fix: pick the columns to model (columns=[...])") in r.notes
    assert r.guess("v30").reason == "beyond the first 30 modelled columns (wide table); whole numbers"
    picked = intake_csv(p, columns=["v200", "v3"], release_size=None)
    assert picked.modelled == ("v3", "v200")


def test_tiny_table_warnings(tmp_path):
    lines = ["x,y"] + [f"{i % 5},{'ab'[i % 2]}" for i in range(40)]
    r = intake_csv(_write(tmp_path, "tiny.csv", "\n".join(lines) + "\n"), release_size=512)
    assert r.warnings == (
        ("the table has 40 rows, fewer than the release size (512): the synthetic table would hold more records "
         "than the original. Fix: release at most 40 records or use a larger table"),
        ("the table has only 40 rows (under 1,000): the noise will dominate the vote histogram and the synthetic "
         "data will be of little use"),
    )


def test_big_integers_are_a_problem(tmp_path):
    r = intake_csv(_write(tmp_path, "big.csv", "a,b\n1,x\n9223372036854775808,y\n"), release_size=None)
    [p] = r.problems
    assert p.kind == "too-large" and p.rows == (3,)


def test_duplicate_names_are_problems(tmp_path):
    r = intake_csv(_write(tmp_path, "dup.csv", "a,a,b\nx,y,z\n"), release_size=None)
    [p] = r.problems
    assert p.message == ("column 'a' appears twice (columns 1 and 2, row 1). Fix: give every column a "
                         "unique name")


# ------------------------------------------------------------ real tables and fuzz
def test_uci_originals_read_like_the_shared_csv(adult_path, bank_path, tmp_path):
    """adult.data (headerless, ', ') and bank-full (';', quoted header) give the same encoded
    preset tables as the shared comma-separated files."""
    from blowfish_core.io.data import read_table
    from blowfish_core.io.presets import get_preset

    adult = read_table(adult_path)
    data = os.path.join(tmp_path, "adult.data")
    with open(data, "w", encoding="utf-8") as f:
        f.writelines(", ".join(row) + "\n" for row in adult.astype(str).itertuples(index=False))
    r = intake_csv(data, no_header=True)
    assert r.ok and len(r.frame) == len(adult) == 32561
    s = get_preset("adult").schema
    assert np.array_equal(s.encode(r.frame), s.encode(adult))
    bank = read_table(bank_path)
    semi = os.path.join(tmp_path, "bank-full.csv")
    bank.to_csv(semi, sep=";", index=False, quoting=1)
    rb = intake_csv(semi)
    assert rb.ok and rb.sep == ";" and rb.preset_layout == "bank"
    sb = get_preset("bank").schema
    assert np.array_equal(sb.encode(rb.frame), sb.encode(bank))


_ALPHABET = st.sampled_from(list(",;\t|\n \"a1-?.0\u00a0\u200bTe"))


@settings(max_examples=150, deadline=None)
@given(text=st.text(_ALPHABET, max_size=120))
def test_intake_never_raises_anything_but_blowfish_errors(text):
    from blowfish_core.base.errors import BlowfishError

    try:
        r = intake_csv(text.encode("utf-8"), release_size=None)
    except BlowfishError:
        return
    assert len(r.columns) == r.frame.shape[1]
    assert len(r.row_numbers) == len(r.frame)
    for p in r.problems:
        assert p.message and len(p.rows) <= 5
