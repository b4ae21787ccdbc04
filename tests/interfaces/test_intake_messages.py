"""Issue 27 through the CLI: the fixes of missing cells by rows kept, and messages naming the real
cause (the separator, the header row, a --protect column absent from the table).  Every phrase is exact;
the files are written in tmp_path."""

from __future__ import annotations

import os

from blowfish_core.interfaces.cli.main import main


def _write(tmp_path, name: str, text: str) -> str:
    p = os.path.join(tmp_path, name)
    with open(p, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return p


def _run(capsys, argv):
    rc = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def test_missing_fixes_by_rows_kept(tmp_path, capsys):
    """40 rows, 'notes' empty in 32: a missing level and leaving the column out keep all 40, dropping keeps 8."""
    lines = ["age,city,notes"] + [f"{30 + i % 9},{('Boston', 'Paris')[i % 2]},{'late' if i % 5 == 0 else ''}"
                                  for i in range(40)]
    path = _write(tmp_path, "notes.csv", "\n".join(lines) + "\n")
    rc, out, err = _run(capsys, ["schema", "--data", path])
    assert rc == 2 and out == ""
    assert err == (f"error: {path}: column 'notes': 32 cell(s) are missing (empty) in rows 3, 4, 5, 6, 8 and 27 "
                   "more. Fix: treat missing as its own level (--missing-level 'notes=?'): keeps all 40 rows; or leave "
                   "the column out (--columns a,b,..., or remove it from the schema): keeps all 40 rows; or drop "
                   "those rows (--drop-missing 'notes'): keeps 8 of 40 rows\n")
