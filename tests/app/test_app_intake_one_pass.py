"""Issue 27 through the Data step (AppTest): every problem of an upload in one pass, with its rows,
and the missing-value fixes ordered by the rows they keep.

The page calls the command line's intake step (io.intake.check_table; read_checked raises the same
problems): a preset upload lists its not-numbers, missing and outside-domain cells at once.
"""

from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "pages", "data.py")
HEADER = "age,workclass,education.num,hours.per.week,income"
WORKCLASS = ("Private", "State-gov", "Self-emp-not-inc")


def _page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.run()
    assert not at.exception
    return at


def _upload(at: AppTest, path, target: str) -> AppTest:
    at.radio(key="designer:source").set_value(target).run()
    if target != "csv":
        at.radio(key=f"designer:table:{target}").set_value("upload").run()
    at.file_uploader(key=f"designer:upload:{target}").set_value((path.name, path.read_bytes(), "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _bad_numeric(tmp_path):
    """60 Adult-like rows; age: 'abc' in spreadsheet row 5, empty in row 9, 200 (outside [17, 90]) in row 14."""
    rows = [[str(20 + i % 40), WORKCLASS[i % 3], str(1 + i % 16), str(10 + i % 50), "<=50K" if i % 3 else ">50K"]
            for i in range(60)]
    for data_row, value in ((3, "abc"), (7, ""), (12, "200")):  # data row i is spreadsheet row i + 2
        rows[data_row][0] = value
    path = tmp_path / "bad_numeric.csv"
    path.write_text("\n".join([HEADER] + [",".join(r) for r in rows]) + "\n")
    return path


def test_every_problem_of_a_preset_upload_in_one_pass_with_rows(tmp_path):
    at = _upload(_page(), _bad_numeric(tmp_path), "adult")
    errs = [e.value for e in at.error]
    expected = [
        "column 'age': 1 cell(s) are not numbers (e.g. ['abc']) in row 5. Fix: correct those cells, or declare the "
        "column categorical",
        "column 'age': 1 cell(s) are missing (empty or a marker like '?') in row 9. Fix: choose 'drop rows' for "
        "'age' under Missing values below: keeps 59 of 60 rows",
        "column 'age': 1 cell(s) outside [17, 90] of the public domain (e.g. ['200']) in row 14. Fix: widen the "
        "declared bounds or remove those rows; values are never clipped silently",
    ]
    for msg in expected:  # one run: all three, each with its column, row and fix
        assert msg in errs, errs
    assert len(errs) == len(set(errs)) == 3, errs  # each problem said once, and only the problems
    warns = [w.value for w in at.warning]
    assert any(w.startswith("bad_numeric.csv") and "3 problem" in w for w in warns), warns  # the one summary
    assert at.session_state["studio"].table_source != "upload"  # nothing loaded


def test_missing_fixes_ordered_by_rows_kept(tmp_path):
    """40 rows, 'notes' empty in 32 of them: the first fix keeps all 40 rows; dropping rows comes last."""
    lines = ["age,city,notes"] + [f"{30 + i % 9},{('Boston', 'Paris')[i % 2]},{'late' if i % 5 == 0 else ''}"
                                  for i in range(40)]
    path = tmp_path / "notes.csv"
    path.write_text("\n".join(lines) + "\n")
    at = _upload(_page(), path, "csv")
    errs = [e.value for e in at.error]
    msg = ("column 'notes': 32 cell(s) are missing (empty) in rows 3, 4, 5, 6, 8 and 27 more. Fix: choose "
           "'declared missing level' for 'notes' under Missing values below: keeps all 40 rows; or choose 'leave "
           "the column out' there: keeps all 40 rows; or choose 'drop rows' there: keeps 8 of 40 rows")
    assert msg in errs, errs
    # the Missing values choice offers them in the same order, the one keeping every row first
    box = at.selectbox(key="designer:intake:missing:notes")
    assert box.options == ["(choose)", "declared missing level", "leave the column out", "drop rows"]
    box.set_value("leave the column out").run()
    at.button(key="designer:intake:missing_apply").click().run()
    assert not at.exception and not [e.value for e in at.error], [e.value for e in at.error]
    s = at.session_state["studio"]
    assert len(s.private) == 40 and s.schema.names == ["age", "city"]
