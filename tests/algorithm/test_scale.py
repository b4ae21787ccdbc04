"""Issue 15: tables of any size (chunked reading), bit-identical speed-ups."""

from __future__ import annotations

import json

import numpy as np
import pytest

import blowfish_core.io.chunked as chunked
import blowfish_core.interfaces.cli.main as cli
import blowfish_core.interfaces.cli.reading as cli_reading
from blowfish_core.io.chunked import read_grouped
from blowfish_core.io.data import read_table
from blowfish_core.model.distance import GowerKernel, domain_index, group_records
from blowfish_core.base.errors import DataError
from blowfish_core.model.metrics import pwerr
from blowfish_core.model.schema import Schema

SCHEMA = {"attributes": [
    {"name": "age", "type": "numeric", "lo": 17, "hi": 90, "integer": True},
    {"name": "hours", "type": "numeric", "lo": 1, "hi": 99, "integer": True},
    {"name": "edu", "type": "ordinal", "levels": list(range(1, 17))},
    {"name": "job", "type": "categorical", "levels": ["a", "b", "c", "d"]},
    {"name": "y", "type": "binary", "levels": ["no", "yes"]},
]}


def _table(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    age = rng.integers(17, 91, n)
    hours = rng.integers(1, 100, n)
    edu = rng.integers(1, 17, n)
    job = np.array(["a", "b", "c", "d"])[rng.integers(0, 4, n)]
    y = np.array(["no", "yes"])[rng.integers(0, 2, n)]
    return ["age,hours,edu,job,y"] + [f"{a},{h},{e},{j},{v}" for a, h, e, j, v in zip(age, hours, edu, job, y)]


@pytest.fixture()
def files(tmp_path):
    schema_path = tmp_path / "schema.json"
    schema_path.write_text(json.dumps(SCHEMA))
    data = tmp_path / "data.csv"
    data.write_text("\n".join(_table(20_000)) + "\n")
    return schema_path, data


def test_read_grouped_equals_in_memory_grouping(files):
    _, data = files
    schema = Schema.from_dict(SCHEMA)
    U, c = group_records(schema.encode(read_table(data)))
    for rows in (1, 999, 7_000, 10**6):
        g = read_grouped(data, schema, chunk_rows=rows) if rows != 1 else None
        if g is None:  # one row per chunk on a prefix (slow path of the grouper)
            small = data.parent / "small.csv"
            small.write_text("\n".join(_table(300)) + "\n")
            Us, cs = group_records(schema.encode(read_table(small)))
            g1 = read_grouped(small, schema, chunk_rows=1)
            assert g1.chunks == 300 and np.array_equal(g1.U, Us) and np.array_equal(g1.counts, cs)
            continue
        assert g.n_rows == 20_000 and g.chunks == -(-20_000 // rows)
        assert np.array_equal(g.U, U) and np.array_equal(g.counts, c)


def test_cli_reads_file_over_the_limit_in_chunks_same_release(files, tmp_path, monkeypatch, capsys):
    schema_path, data = files
    base = ["synth", "--schema", str(schema_path), "--data", str(data), "--protect", "age=threshold:7",
            "--method", "tab-pe,hard,bf-soft", "--tau", "0.03", "--rho", "1e-2", "--rounds", "2", "--seeds", "0",
            "--population", "128x2", "--release", "64", "--quiet"]
    assert cli.main(base + ["--out", str(tmp_path / "whole.csv"), "--out-dir", str(tmp_path / "w")]) == 0
    calls = []
    monkeypatch.setattr(chunked, "DEFAULT_CHUNK_ROWS", 1_500)
    monkeypatch.setattr(cli_reading, "read_data", lambda *a, **k: pytest.fail("the file was read whole"))
    real = chunked.read_grouped

    def spy(*a, **k):
        calls.append(k["chunk_rows"])
        return real(*a, on_chunk=lambda i, n: calls.append((i, n)), **{x: v for x, v in k.items() if x != "on_chunk"})

    monkeypatch.setattr(chunked, "read_grouped", spy)
    limit_mb = str(data.stat().st_size / 2**20 / 4)  # the file is 4x over the in-memory limit
    assert cli.main(base + ["--in-memory-mb", limit_mb, "--out", str(tmp_path / "chunked.csv"),
                            "--out-dir", str(tmp_path / "c")]) == 0
    assert calls[0] == 1_500
    chunk_marks = [c for c in calls[1:]]
    assert len(chunk_marks) == 14 and chunk_marks[-1] == (14, 20_000)  # ceil(20000 / 1500) chunks
    assert all(n2 - n1 <= 1_500 for (_, n1), (_, n2) in zip(chunk_marks, chunk_marks[1:]))
    assert (tmp_path / "whole.csv").read_bytes() == (tmp_path / "chunked.csv").read_bytes()
    for m in ("tab-pe", "hard", "bf-soft"):
        assert (tmp_path / "w" / f"{m}_seed0.csv").read_bytes() == (tmp_path / "c" / f"{m}_seed0.csv").read_bytes()


def _bad_file(tmp_path):
    lines = _table(5_000, seed=1)
    # spreadsheet rows: line k of the file (1-based) is row k; the header is row 1
    lines[1500] = "abc," + lines[1500].split(",", 1)[1]          # row 1501: age not a number
    lines[1599] = lines[1599].rsplit(",", 2)[0] + ",z,no"         # row 1600: job outside the levels
    lines[3000] = "999," + lines[3000].split(",", 1)[1]           # row 3001: age outside [17, 90]
    lines.insert(1000, "")                                         # blank line: row 1001 (counts)
    p = tmp_path / "bad.csv"
    p.write_text("\n".join(lines) + "\n")
    return p  # after the insert: bad rows 1502, 1601, 3002


@pytest.mark.parametrize("rows", [400, 1_000, 100_000, None])
def test_cli_refuses_bad_rows_with_chunk_independent_row_numbers(files, tmp_path, capsys, rows):
    """Every bad cell of the file in one error, whatever the chunk size, and the same text as the
    whole-file intake (rows=None: the file is read whole).  Issue 15g, finding 8."""
    schema_path, _ = files
    bad = _bad_file(tmp_path)
    rc = cli.main(["synth", "--schema", str(schema_path), "--data", str(bad), "--protect", "age=threshold:7",
                   "--method", "hard", "--rho", "1e-2", "--out", str(tmp_path / "o.csv"), "--quiet"]
                  + ([] if rows is None else ["--chunk-rows", str(rows)]))
    err = capsys.readouterr().err
    assert rc == 2
    assert err == (
        f"error: {bad}: 3 problem(s) found:\n"
        "- column 'age': 1 cell(s) are not numbers (e.g. ['abc']) in row 1502. Fix: correct those cells, or "
        "declare the column categorical\n"
        "- column 'age': 1 cell(s) outside [17, 90] of the public domain (e.g. ['999']) in row 3002. Fix: widen "
        "the declared bounds or remove those rows; values are never clipped silently\n"
        "- column 'job': 1 cell(s) outside the declared categories of the public domain (e.g. ['z']) in row 1601. "
        "Fix: add them to the levels of 'job' or remove those rows\n")
    assert not (tmp_path / "o.csv").exists()


def test_read_grouped_errors_name_the_problem(tmp_path):
    schema = Schema.from_dict(SCHEMA)
    p = tmp_path / "cols.csv"
    p.write_text("age,hours\n20,30\n")
    with pytest.raises(DataError, match=r"column\(s\) \['edu', 'job', 'y'\]"):
        read_grouped(p, schema)
    with pytest.raises(DataError, match="chunk rows"):
        read_grouped(p, schema, chunk_rows=0)
    with pytest.raises(DataError, match="not found"):
        read_grouped(tmp_path / "nope.csv", schema)


def test_pwerr_weights_equal_expanded_table():
    schema = Schema.from_dict(SCHEMA)
    rng = np.random.default_rng(3)
    X = schema.sample_uniform(rng, 50)[rng.integers(0, 50, 400)]
    syn = schema.sample_uniform(rng, 64)
    U, c = group_records(X)
    assert pwerr(schema, U, syn, weights=c) == pwerr(schema, X, syn)


def test_compact_joint_tables_equal_a_fully_fused_table():
    """The kernel's lazily filled joint rows are the same float sums as fusing whole tables."""
    schema = Schema.from_dict(SCHEMA)
    rng = np.random.default_rng(5)
    C = schema.sample_uniform(rng, 300)
    X = schema.sample_uniform(rng, 2_000)
    I = domain_index(schema, X)
    k = GowerKernel(schema, C)
    got = np.concatenate([D.copy() for _, D in k.iter_blocks(X, I, rows=97)])
    # reference: the pre-issue-15 build (every joint table fused in full, then gathered)
    ref = None
    for members, sizes, _ in k.groups:
        T = k._tables[members[0]]
        for j in members[1:]:
            T = (T[:, None, :] + k._tables[j][None, :, :]).reshape(-1, k.m)
        gi = k._group_index(I, members, sizes)
        ref = T[gi] if ref is None else ref + T[gi]
    assert any(len(g[0]) > 1 for g in k.groups)
    assert np.array_equal(got, ref)


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 120), chunk=st.integers(1, 50), blanks=st.sets(st.integers(1, 119), max_size=5),
       bad=st.sets(st.integers(0, 119), max_size=4), seed=st.integers(0, 2**16))
def test_property_chunking_never_changes_groups_or_row_numbers(tmp_path_factory, n, chunk, blanks, bad, seed):
    """Any chunk size gives the in-memory grouping, and every bad row's spreadsheet number."""
    schema = Schema.from_dict(SCHEMA)
    lines = _table(n, seed)
    bad = sorted(b for b in bad if b < n)
    for b in bad:
        lines[b + 1] = "abc," + lines[b + 1].split(",", 1)[1]
    rows = list(range(2, n + 2))  # spreadsheet row of each data line before blank lines are added
    for k in sorted((b for b in blanks if b < n), reverse=True):
        lines.insert(k + 1, "")
        rows = [r + 1 if r >= k + 2 else r for r in rows]
    p = tmp_path_factory.mktemp("prop") / "t.csv"
    p.write_text("\n".join(lines) + "\n")
    if not bad:
        U, c = group_records(schema.encode(read_table(p)))
        g = read_grouped(p, schema, chunk_rows=chunk)
        assert np.array_equal(g.U, U) and np.array_equal(g.counts, c) and g.n_rows == n
    else:
        with pytest.raises(DataError) as ei:
            read_grouped(p, schema, chunk_rows=chunk)
        shown = [str(rows[b]) for b in bad]  # every bad row (at most 4 < 5 listed), whatever the chunk size
        assert f"(e.g. ['abc']) in {'row' if len(bad) == 1 else 'rows'} {', '.join(shown)}. Fix:" in str(ei.value)


def test_help_imports_neither_pandas_nor_scipy():
    """Lazy imports (issue 15): the CLI's --help needs numpy only (no timing, the module list)."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ("import sys\nfrom blowfish_core.interfaces.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'scipy', 'dp_accounting', 'opendp', "
            "'networkx', 'dask', 'distributed'}))")
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_lazy_package_exports_every_public_name():
    import blowfish_core as bc

    assert len(bc.__all__) == len(set(bc.__all__)) > 30
    for name in bc.__all__:
        assert getattr(bc, name) is not None
    assert bc.Synthesizer.__module__ == "blowfish_core.interfaces.synthesizer"
    assert bc.Schema is bc.model.schema.Schema  # subpackages resolve too
    with pytest.raises(AttributeError):
        bc.no_such_name  # noqa: B018
