"""``synth --preset adult|bank --data`` over --in-memory-mb (or with --chunk-rows) reads the file in
chunks (issue 23 "Presets at any size"): the same private/pilot rows, so the same seeded release
and the same summary as the whole-file read; bad cells listed with their rows."""

from __future__ import annotations

import pytest

from blowfish_core.io.presets import get_preset, shared_path
from tests.cli_helpers import run_cli as _run

TINY = ["--rounds", "2", "--population", "16x2", "--seeds", "0"]


@pytest.mark.parametrize("name", ["adult", "bank"])
def test_chunked_preset_run_releases_what_the_whole_file_run_releases(tmp_path, capsys, name):
    path = shared_path(get_preset(name))
    if path is None:
        pytest.skip("needs ../shared/data")
    base = ["synth", "--preset", name, "--data", path, "--method", "hard,bf-soft", "--tau", "0.03",
            "--rho", "3e-3", *TINY]
    rc, whole, err = _run(capsys, base + ["--out", str(tmp_path / "w.csv"), "--quiet"])
    assert rc == 0, err
    for extra in (["--chunk-rows", "9000"], ["--in-memory-mb", "1"]):
        rc, out, err = _run(capsys, base + ["--out", str(tmp_path / "c.csv"), *extra])
        assert rc == 0, err
        assert (tmp_path / "c.csv").read_bytes() == (tmp_path / "w.csv").read_bytes()
        # the same lines but the whole-file intake's summary line (a chunked read has none, as --schema's)
        assert [ln for ln in out.splitlines() if not ln.startswith("wrote ")] == \
            [ln for ln in whole.splitlines()[1:] if not ln.startswith("wrote ")]
        assert f"read {path} in " in err and "separator: ',' (detected; set --sep to override)" in err


def test_chunked_preset_run_lists_every_bad_cell(tmp_path, capsys):
    rows = ["age,workclass,hours.per.week,education.num,income"]
    rows += [f"{30 + i % 40},Private,40,9,<=50K" for i in range(40)]
    rows[1] = "31,Spaceman,40,9,<=50K"          # row 2
    rows[6] = "300,Private,40,9,<=50K"          # row 7
    rows[9] = "35,Astronaut,40,9,<=50K"         # row 10
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(rows) + "\n")
    rc, _, err = _run(capsys, ["synth", "--preset", "adult", "--data", str(path), "--method", "hard", "--rho", "1",
                               "--seeds", "0", "--out", str(tmp_path / "o.csv"), "--chunk-rows", "4", "--quiet"])
    assert rc == 2
    assert err == (f"error: {path}: 2 problem(s) found:\n"
                   "- column 'age': 1 cell(s) outside [17, 90] of the public domain (e.g. ['300']) in row 7. Fix: "
                   "widen the declared bounds or remove those rows; values are never clipped silently\n"
                   "- column 'workclass': 2 cell(s) outside the declared categories of the public domain (e.g. "
                   "['Spaceman', 'Astronaut']) in rows 2, 10. Fix: add them to the levels of 'workclass' or remove "
                   "those rows\n")
    assert not (tmp_path / "o.csv").exists()


def test_chunked_preset_run_applies_the_intake_flags(tmp_path, capsys):
    rows = [f"{30 + i % 40},{'Private' if i % 5 else ''},40,9,<=50K" for i in range(200)]
    path = tmp_path / "noheader.csv"
    path.write_text("\n".join(rows) + "\n")
    rc, out, err = _run(capsys, ["synth", "--preset", "adult", "--data", str(path), "--method", "hard", "--rho", "1",
                                 "--names", "age,workclass,hours.per.week,education.num,income",
                                 "--drop-missing", "workclass", "--chunk-rows", "32", "--release", "50",
                                 "--out", str(tmp_path / "o.csv"), *TINY, "--quiet"])
    assert rc == 0, err
    assert "note: dropped 40 row(s) with a missing value in 'workclass'" in out.splitlines()
    assert "data: noheader.csv split 128 private / 32 held-out pilot rows (seed 0)" in out.splitlines()


def test_chunk_rows_with_a_generated_table_is_refused(tmp_path, capsys):
    rc, _, err = _run(capsys, ["synth", "--preset", "xor3", "--method", "hard", "--rho", "1", "--chunk-rows", "10",
                               "--out", str(tmp_path / "o.csv")])
    assert rc == 2 and err == ("error: --chunk-rows reads --data in chunks, but this run generates its table (no "
                               "--data), so it would be ignored. Fix: drop it, or give --data CSV\n")


def test_in_memory_mb_without_schema_or_preset_is_refused(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n" + "\n".join(f"{i % 3},{i % 2}" for i in range(50)) + "\n")
    rc, _, err = _run(capsys, ["synth", "--data", str(path), "--method", "hard", "--rho", "1", "--protect", "a=complete",
                               "--in-memory-mb", "5", "--out", str(tmp_path / "o.csv")])
    assert rc == 2 and err == ("error: --in-memory-mb applies to --schema and --preset runs (they read --data whole "
                               "or in chunks; this run derives its schema from --data, so it reads it whole); it "
                               "would be ignored here. Fix: drop it, or pass --schema with the table's schema file\n")
