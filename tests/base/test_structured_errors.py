"""Structured errors (issue 21): one error object, each front end's names.

For representative bad inputs the same error renders with the CLI's flag (``err.render('cli')``),
the API's argument (``str(err)``) and the app's control (``err.render('app')``), from the one
table of blowfish_core.base.fields; the CLI and the app no longer rewrite engine messages with regexes.
"""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

import blowfish_core as bc
from blowfish_core.base import fields
from blowfish_core.synthesis import gate as release_gate
from blowfish_core.interfaces.cli.main import main
from blowfish_core.io.data import read_table
from blowfish_core.base.errors import BlowfishError, DataError
from blowfish_core.synthesis.spec import RunSpec
from blowfish_core.base.input_checks import check_seeds
from blowfish_core.io.intake import intake_csv

ROOT = Path(__file__).resolve().parents[2]


def _raised(f, *a, **k) -> BlowfishError:
    with pytest.raises(BlowfishError) as e:
        f(*a, **k)
    return e.value


def test_bad_separator_names_the_sep_flag(tmp_path):
    p = tmp_path / "semi.csv"
    p.write_text("a;b;c\n1;2;3\n4;5;6\n")
    err = _raised(read_table, str(p))
    assert isinstance(err, DataError) and err.field == "sep"
    tail = " (read with the comma separator, the header 'a;b;c' is one column holding 2 ';')"  # issue 27
    assert err.render("cli") == f"{p}: the file looks ';'-separated: pass --sep ';'" + tail
    assert str(err) == f"{p}: the file looks ';'-separated: choose the semicolon separator" + tail
    assert err.render("api") == str(err)
    assert err.render("app") == str(err)  # the app's separator selector offers 'semicolon' by that name


def test_headerless_file_without_names(tmp_path):
    res = intake_csv(b"1,2,x\n3,4,y\n5,6,z\n", name="t.csv")
    (p,) = [p for p in res.problems if p.kind == "header"]
    msg = p.message
    assert "Fix: confirm with no_header=True and names=[column_1, column_2, column_3] (offered)" in msg
    assert "Fix: confirm with --no-header --names column_1,column_2,column_3 (offered)" in fields.render(msg, "cli")
    assert "Fix: press 'Use these column names' below (the offered names)" in fields.render(msg, "app")
    err = _raised(res.raise_for_problems)  # the CLI's path: one DataError, rendered by cli.main
    assert "--no-header --names column_1,column_2,column_3" in err.render("cli")
    assert "no_header=True and names=[" in str(err) and "--" not in str(err)


def test_missing_cell_fix_names_each_front_ends_control():
    res = intake_csv(b"a,b\n1,x\n2,\n3,y\n", name="m.csv")
    (p,) = res.problems
    # the fixes by rows kept (issue 27): the level keeps every row, so it comes first
    assert p.message.endswith("Fix: treat missing as its own level (missing_level={'b': '?'}): keeps all 3 rows; "
                              "or drop those rows (drop_missing=['b']): keeps 2 of 3 rows")
    assert fields.render(p.message, "cli").endswith("Fix: treat missing as its own level (--missing-level 'b=?'): "
                                                    "keeps all 3 rows; or drop those rows (--drop-missing 'b'): "
                                                    "keeps 2 of 3 rows")
    assert fields.render(p.message, "app").endswith("Fix: choose 'declared missing level' for 'b' under Missing "
                                                    "values below: keeps all 3 rows; or choose 'drop rows' there: "
                                                    "keeps 2 of 3 rows")


def test_bad_seed_one_check_three_names(tmp_path, capsys):
    err = _raised(check_seeds, [0, -1])
    assert err.field == "seeds"
    assert str(err) == "seeds must be whole numbers >= 0 (got -1)"
    assert err.render("cli") == "--seeds: seeds must be whole numbers >= 0 (got -1)"
    assert err.render("app") == "the Seeds box: seeds must be whole numbers >= 0 (got -1)"
    xor = bc.get_preset("xor3")
    with pytest.raises(BlowfishError) as e:  # the API (RunSpec) says the same
        RunSpec.build(xor.schema, xor.default_policy(), None, ["hard"], 1e-3, seeds=[True])
    assert str(e.value) == "seeds must be whole numbers >= 0 (got True)"
    code = main(["synth", "--preset", "xor3", "--method", "hard", "--rho", "1e-3", "--seeds", "0,-1",
                 "--out", str(tmp_path / "o.csv")])
    assert code == 2
    assert "error: --seeds: seeds must be whole numbers >= 0 (got -1)" in capsys.readouterr().err


def test_data_derived_release_refusal():
    schema = intake_csv(b"a,b\n1,x\n2,y\n3,x\n", name="d.csv").schema()
    assert schema.data_derived
    err = release_gate.GateError(release_gate.problems_of(release_gate.Claim("synthetic table", schema)))
    assert err.field == "schema" and isinstance(err, BlowfishError)
    assert "--schema FILE" in err.render("cli") and "--allow-data-domain" in err.render("cli")
    assert "schema=: " in str(err) and "allow_data_domain=True" in str(err)
    assert "the Data step's schema table" in err.render("app") and "tick 'Release with a domain" in err.render("app")
    assert "--" not in err.render("app") and "=True" not in err.render("app")


def test_one_table_every_placeholder_resolves_for_every_front_end():
    values = {"col": "c", "level": "?", "names": ("a", "b"), "sep_word": "tab", "sep_shown": "'\\t'", "got": 1,
              "where": "there", "count": 3, "first": "a", "last": "c",
              "rest": "a,b", "rest_list": ["a", "b"]}
    for key, row in fields.PHRASES.items():
        assert len(row) == len(fields.FRONTENDS), key
        for fe in fields.FRONTENDS:
            text = fields.Text("{" + key + "}", **values).render(fe)
            assert "{" not in text.replace("{'c'", ""), (key, fe, text)
    for key, row in fields.FIELDS.items():
        assert [fields.field_name(key, fe) for fe in fields.FRONTENDS] == list(row)
    assert release_gate.FIELDS is fields.FIELDS and release_gate.field_name is fields.field_name
    with pytest.raises(KeyError, match="unknown field"):
        fields.Text("{no_such_field}")
    # user data is a value, never a template: braces in a column name are kept as they are
    t = fields.Text("{drop_rows}", col="we{ird}")
    assert t == "drop_missing=['we{ird}']" and t.render("cli") == "--drop-missing 'we{ird}'"


def test_text_keeps_its_structure_through_joins_and_pickle():
    t = "x: " + fields.Text("{drop_rows}", col="a") + "."
    assert isinstance(t, fields.Text) and t.render("cli") == "x: --drop-missing 'a'."
    j = fields.join("\n", ["- " + t, "plain"])
    assert j.render("cli") == "- x: --drop-missing 'a'.\nplain" and str(j) == "- x: drop_missing=['a'].\nplain"
    back = pickle.loads(pickle.dumps(DataError(j)))  # Streamlit's cache pickles intake results
    assert back.render("cli") == j.render("cli") and str(back) == str(j)
    assert pickle.loads(pickle.dumps(t)).render("app") == t.render("app")
    assert BlowfishError("plain message").render("cli") == "plain message"  # unstructured: as it is


@pytest.mark.parametrize("path", sorted(str(p.relative_to(ROOT)) for p in (ROOT / "blowfish_core/interfaces/cli").glob("*.py"))
                         + ["studio/data_source.py"])
def test_front_ends_do_not_rewrite_engine_messages_with_regexes(path):
    src = (ROOT / path).read_text(encoding="utf-8")
    for name in ("_SEP_FIX", "_INTAKE_FIXES", "_APP_FIXES", "_cli_message"):
        assert name not in src, name
    compiled = re.findall(r"re\.compile\((r?[\"'][^\"']*[\"'])", src)
    # the only regex left in the CLI is argparse's negative-number matcher (it reads argv, no message)
    assert compiled in ([], ['r"^-(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?$"']), compiled
    assert ".sub(" not in src
