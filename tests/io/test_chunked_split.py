"""A preset's split read in chunks (issue 23 "Presets at any size"): chunked_split.read_split takes
the rows presets.split_table takes of the whole table -- for the shipped Adult and Bank files the
same private and pilot rows as every pinned release -- whatever the chunk size."""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest

from blowfish_core.base.errors import BlowfishError, DataError
from blowfish_core.io import chunked_split
from blowfish_core.io.chunked import read_grouped
from blowfish_core.io.chunked_split import read_split
from blowfish_core.io.data import read_table
from blowfish_core.io.intake import intake_csv
from blowfish_core.io.presets import get_preset, load_preset_data, shared_path, split_labels, split_table
from blowfish_core.model.schema import Schema

SCHEMA = Schema.from_dict({"attributes": [
    {"name": "age", "type": "numeric", "lo": 17, "hi": 90, "integer": True},
    {"name": "job", "type": "categorical", "levels": ["admin", "blue", "?"]},
    {"name": "y", "type": "binary", "levels": ["no", "yes"]},
]})


def _old_split(n: int, private_fraction: float, seed: int, pilot_size: int | None):
    """split_table's rows before split_labels (issue 23): the permutation's head and the rest."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 1013]))
    perm = rng.permutation(n)
    n_priv = max(1, int(math.floor(private_fraction * n + 1e-9)))
    rest = perm[n_priv:]
    return np.sort(perm[:n_priv]), np.sort(rest if pilot_size is None else rest[:pilot_size])


@pytest.mark.parametrize("n,fraction,seed,pilot", [(32561, 0.8, 0, 3000), (45211, 0.6, 0, 3000), (45211, 0.6, 7, None),
                                                   (1, 0.8, 0, 3000), (10, 1.0, 2, 3000), (1000, 0.5, 3, 0)])
def test_split_labels_are_the_permutation_split(n, fraction, seed, pilot):
    labels = split_labels(n, fraction, seed, pilot)
    priv, pub = _old_split(n, fraction, seed, pilot)
    assert labels.dtype == np.int8 and labels.shape == (n,)
    assert np.array_equal(np.flatnonzero(labels == 1), priv) and np.array_equal(np.flatnonzero(labels == 2), pub)


def test_split_labels_refuse_a_bad_fraction():
    for f in (0, 1.5, -0.1):
        with pytest.raises(BlowfishError, match="private fraction must be in"):
            split_labels(10, f)


@functools.cache
def _whole(name: str):
    """The shipped table as the CLI's whole-file intake and as load_preset_data's read_table read it."""
    p = get_preset(name)
    path = shared_path(p)
    if path is None:
        pytest.skip("needs ../shared/data")
    return p, path, intake_csv(path, columns=p.schema.names, max_bytes=2**31).frame, read_table(path)


@pytest.mark.parametrize("name", ["adult", "bank"])
@pytest.mark.parametrize("chunk", [4999, 200_000])
def test_shipped_files_split_in_chunks_as_today(name, chunk):
    """The pinned releases' rows: the CLI's whole-file intake, load_preset_data's read_table and the
    chunked reader give the same private and pilot rows (seed 0 and another seed)."""
    p, path, intake, whole = _whole(name)
    for seed in (0, 5):
        got = read_split(path, p.schema, p.private_fraction, seed, p.pilot_size, chunk_rows=chunk)
        assert got.n_rows == len(whole) and list(got.split.private.columns) == list(p.schema.names)
        for table in (intake, whole):
            want = split_table(table, p.private_fraction, seed, p.pilot_size)
            for a, b in ((want.private, got.split.private), (want.public, got.split.public)):
                assert len(a) == len(b)
                assert np.array_equal(p.schema.encode(a), p.schema.encode(b))
                assert (a[list(p.schema.names)].astype(str).to_numpy() == b.astype(str).to_numpy()).all()
                assert list(b.index) == list(range(len(b)))


def _file(tmp_path, text: str) -> str:
    path = tmp_path / "t.csv"
    path.write_text(text)
    return str(path)


def _rows(k: int) -> list[str]:
    jobs, ys = ["admin", "blue", ""], ["no", "yes"]
    return [f"{17 + (i * 7) % 70},{jobs[i % 3]},{ys[(i // 3) % 2]},{i}" for i in range(k)]


@pytest.mark.parametrize("chunk", [2, 7, 10_000])
def test_blank_records_dropped_rows_and_missing_levels_as_the_intake(tmp_path, chunk):
    """Rows are counted as the intake counts them (blank lines and dropped rows are not rows), so the
    split is the one split_table makes of the intake's table."""
    lines = ["age,job,y,note"] + _rows(120)
    lines[40] = ""
    lines[41] = ",,,"
    path = _file(tmp_path, "\n".join(lines) + "\n")
    for opts in ({"drop_missing": ["job"]}, {"missing_level": {"job": "?"}}, {"drop_missing": True}):
        frame = intake_csv(path, columns=SCHEMA.names, **opts).frame
        want = split_table(frame, 0.6, 3, 50)
        got = read_split(path, SCHEMA, 0.6, 3, 50, chunk_rows=chunk, **opts)
        assert got.n_rows == len(frame)
        assert np.array_equal(SCHEMA.encode(want.private), SCHEMA.encode(got.split.private))
        assert np.array_equal(SCHEMA.encode(want.public), SCHEMA.encode(got.split.public))
    assert got.notes and "dropped" in got.notes[0]


def test_headerless_file_with_names(tmp_path):
    path = _file(tmp_path, "\n".join(r for r in _rows(200) if ",," not in r) + "\n")
    names = ["age", "job", "y", "note"]
    frame = intake_csv(path, names=names, columns=SCHEMA.names).frame
    got = read_split(path, SCHEMA, 0.8, 0, 10, chunk_rows=33, names=names)
    want = split_table(frame, 0.8, 0, 10)
    assert np.array_equal(SCHEMA.encode(want.private), SCHEMA.encode(got.split.private))
    assert np.array_equal(SCHEMA.encode(want.public), SCHEMA.encode(got.split.public))


def test_no_pilot_rows_keeps_the_columns(tmp_path):
    path = _file(tmp_path, "\n".join(["age,job,y,note"] + [r for r in _rows(20) if ",," not in r]) + "\n")
    got = read_split(path, SCHEMA, 1.0, 0, 3000, chunk_rows=4)
    assert len(got.split.public) == 0 and list(got.split.public.columns) == list(SCHEMA.names)
    assert len(got.split.private) == got.n_rows


@pytest.mark.parametrize("chunk", [3, 1000])
def test_bad_cells_are_the_chunked_readers_error(tmp_path, chunk):
    lines = ["age,job,y,note"] + [r for r in _rows(60) if ",," not in r]
    lines[5] = "200,admin,no,x"
    lines[9] = "30,pilot,no,x"
    path = _file(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(DataError) as want:
        read_grouped(path, SCHEMA, chunk_rows=chunk)
    with pytest.raises(DataError) as got:
        read_split(path, SCHEMA, 0.8, 0, 3000, chunk_rows=chunk)
    assert str(got.value) == str(want.value) and "2 problem(s) found" in str(got.value)


def test_nul_bytes_get_the_intakes_message(tmp_path):
    path = tmp_path / "bin.csv"
    path.write_bytes(b"age,job,y\n" + b"\x00" * 100)
    with pytest.raises(DataError) as ei:
        read_split(path, SCHEMA, 0.8)
    assert str(ei.value) == (f"{path}: contains NUL bytes; this looks like a binary file, not a CSV. "
                             "Fix: export the table as a UTF-8 CSV")


def test_a_file_that_changes_between_the_passes_is_refused(tmp_path, monkeypatch):
    path = _file(tmp_path, "\n".join(["age,job,y,note"] + [r for r in _rows(30) if ",," not in r]) + "\n")

    def checked_then_appended(*a, **k):
        g = read_grouped(*a, **k)
        with open(path, "a") as f:
            f.write("40,admin,no,late\n")
        return g

    monkeypatch.setattr(chunked_split, "read_grouped", checked_then_appended)
    with pytest.raises(DataError, match=r"the file changed while it was read \(20 rows when it was checked, 21 when"):
        read_split(path, SCHEMA, 0.8, chunk_rows=7)


def test_load_preset_data_reads_a_file_over_the_limit_in_chunks(tmp_path, monkeypatch):
    """A path over data.DEFAULT_MAX_BYTES was refused by read_table; it is now read in chunks (the
    schema's columns, the rows split_table takes)."""
    p = get_preset("adult")
    path = shared_path(p)
    if path is None:
        pytest.skip("needs ../shared/data")
    want = load_preset_data(p, path)
    monkeypatch.setattr("blowfish_core.io.data.DEFAULT_MAX_BYTES", 2**20)
    got = load_preset_data(p, path)
    assert list(got.private.columns) == list(p.schema.names) and got.source == want.source
    assert np.array_equal(p.schema.encode(want.private), p.schema.encode(got.private))
    assert np.array_equal(p.schema.encode(want.public), p.schema.encode(got.public))
    forced = load_preset_data(p, path, chunk_rows=5000)
    assert np.array_equal(p.schema.encode(forced.private), p.schema.encode(got.private))
    assert isinstance(load_preset_data(p, pd.read_csv(path)).private, pd.DataFrame)  # a frame: split in memory
