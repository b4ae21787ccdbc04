"""Issue 15: the Dask vote engine releases byte-identical records to the local engine."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from blowfish_core.model.distance import chunk_rows, group_records
from blowfish_core.base.errors import DataError
from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis
from blowfish_core.model.policy import Policy
from blowfish_core.model.schema import Schema
from blowfish_core.interfaces.synthesizer import Synthesizer

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed")
from blowfish_core.algorithm.dask_engine import DaskEngine, balanced_bounds, quantum  # noqa: E402

SCHEMA = {"attributes": [
    {"name": "a", "type": "numeric", "lo": 0, "hi": 999, "integer": True},
    {"name": "b", "type": "numeric", "lo": 0, "hi": 1, "integer": False},
    {"name": "c", "type": "ordinal", "levels": list(range(1, 9))},
    {"name": "d", "type": "categorical", "levels": ["p", "q", "r"]},
]}
METHODS = ("tab-pe", "hard", "bf-soft")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    n = 6_000
    df = pd.DataFrame({"a": rng.integers(0, 1000, n), "b": np.round(rng.random(n), 3),
                       "c": rng.integers(1, 9, n), "d": np.array(["p", "q", "r"])[rng.integers(0, 3, n)]})
    return pd.concat([df, df.iloc[:1500]], ignore_index=True)  # some repeated records


def _policy():
    return Policy.from_dict({"attributes": {"a": {"type": "threshold", "theta": 20}}})


def test_quantum_is_the_block_lcm():
    assert quantum([512, 1024]) == chunk_rows(512) == 2 * chunk_rows(1024)
    assert quantum([1024, 1024]) == chunk_rows(1024)


def test_balanced_bounds_whole_blocks_within_one_block():
    """Hand-checked: 300,000 records in blocks of 4,096 = 73 whole blocks + 992 rows (74 blocks);
    8 partitions get 10, 10, 9, ..., 9 blocks, the last ending at n."""
    b = balanced_bounds(300_000, 4096, 8)
    assert np.diff(b).tolist() == [40960, 40960] + [36864] * 5 + [300_000 - 40960 * 2 - 36864 * 5]
    assert balanced_bounds(0, 4096, 8) == [0]
    assert balanced_bounds(4097, 4096, 8) == [0, 4096, 4097]  # never more partitions than blocks
    for n, k in ((1_000_000, 8), (12_345, 3), (8192, 2)):
        d = np.diff(balanced_bounds(n, 4096, k))
        assert all(x % 4096 == 0 for x in d[:-1]) and sum(d) == n
        blocks = -(-d // 4096)
        assert blocks.max() - blocks.min() <= 1


@pytest.mark.parametrize("partitions", [2, 3])
def test_dask_release_byte_identical_to_local(client, table, partitions):
    schema = Schema.from_dict(SCHEMA)
    X = schema.encode(table)
    U, counts = group_records(X)
    cfg = SynthConfig(rounds=3, population=[512, 1024, 1024], release=256)
    eng = DaskEngine(client, schema, U, counts, cfg.sizes(), partitions=partitions)
    assert eng.partitions >= 2 and U.shape[0] > chunk_rows(1024)  # several partitions, several blocks
    try:
        for m in METHODS:
            for seed in (0, 1):
                a = run_synthesis(schema, X, _policy(), m, 1e-2, 0.03, cfg, seed)
                b = run_synthesis(schema, None, _policy(), m, 1e-2, 0.03, cfg, seed, engine=eng)
                assert a.release.tobytes() == b.release.tobytes(), (m, seed)
                assert a.final_weights.tobytes() == b.final_weights.tobytes(), (m, seed)
    finally:
        eng.close()


def test_synthesizer_dask_engine_and_csv_path(client, table, tmp_path):
    schema = Schema.from_dict(SCHEMA)
    cfg = SynthConfig(rounds=2, population=[512, 512], release=128)
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    for m in METHODS:
        kw = dict(method=m, tau=0.03 if m == "bf-soft" else None, rho=1e-2, seed=3, config=cfg)
        local = Synthesizer(schema, _policy(), **kw).fit(table).sample()
        dask_df = Synthesizer(schema, _policy(), engine="dask", client=client, **kw).fit(table).sample()
        dask_csv = Synthesizer(schema, _policy(), engine="dask", client=client, **kw).fit(str(path)).sample()
        chunked = Synthesizer(schema, _policy(), chunk_rows=1000, **kw).fit(str(path)).sample()
        for other in (dask_df, dask_csv, chunked):
            assert other.to_csv(index=False) == local.to_csv(index=False), m


def test_dask_read_csv_groups_like_local(client, table, tmp_path):
    schema = Schema.from_dict(SCHEMA)
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    U, counts = group_records(schema.encode(table))
    eng = DaskEngine.read_csv(client, str(path), schema, [512], blocksize=40_000)
    try:
        assert np.array_equal(eng.U, U) and np.array_equal(eng.counts, counts)
    finally:
        eng.close()


def test_without_dask_the_cli_says_how_to_install(monkeypatch, tmp_path, capsys):
    import builtins

    import blowfish_core.interfaces.cli.main as cli

    real = builtins.__import__

    def no_dask(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == "distributed" or name == "dask" or name.startswith("dask.")):
            raise ImportError(name)
        return real(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    sp = tmp_path / "s.json"
    sp.write_text(json.dumps(SCHEMA))
    dp = tmp_path / "d.csv"
    pd.DataFrame({"a": [1, 2], "b": [0.5, 0.25], "c": [1, 2], "d": ["p", "q"]}).to_csv(dp, index=False)
    rc = cli.main(["synth", "--schema", str(sp), "--data", str(dp), "--protect", "a=threshold:20", "--method", "hard",
                   "--rho", "1e-2", "--out", str(tmp_path / "o.csv"), "--engine", "dask", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and 'pip install "dask[distributed]"' in err


@pytest.mark.parametrize("vote", ["hard", "soft"])
def test_same_candidates_twice_in_a_row(client, table, vote):
    """Equal candidates in consecutive rounds (same scatter content): the second round must not
    lose the first round's released data (candidates scattered under fresh keys) and gives the
    local engine's histogram both times."""
    from blowfish_core.model.votes import as_vote, vote_histogram

    schema = Schema.from_dict(SCHEMA)
    U, counts = group_records(schema.encode(table))
    eng = DaskEngine(client, schema, U, counts, [64], partitions=2)
    C = schema.sample_uniform(np.random.default_rng(3), 64)
    want = vote_histogram(schema, C, U, counts, vote, tau=0.05)
    for _ in range(3):
        np.testing.assert_array_equal(eng.histogram(schema, C.copy(), as_vote(vote, 0.05)), want)
    eng.close()


def test_two_engines_in_a_row_on_one_client(client, table):
    """A second engine on the same data after the first is closed and dropped (same scatter content):
    its partitions and schema are its own keys, so it still votes like the local engine."""
    import gc

    from blowfish_core.model.votes import vote_histogram

    schema = Schema.from_dict(SCHEMA)
    U, counts = group_records(schema.encode(table))
    C = schema.sample_uniform(np.random.default_rng(4), 64)
    want = vote_histogram(schema, C, U, counts, "hard")
    for _ in range(3):
        eng = DaskEngine(client, schema, U, counts, [64], partitions=2)
        np.testing.assert_array_equal(eng.histogram(schema, C, as_hard()), want)
        eng.close()
        del eng
        gc.collect()


def as_hard():
    from blowfish_core.model.votes import HardVote

    return HardVote()


def test_local_cluster_workers_run_without_dask_malloc_trim():
    """connect(workers=N) starts worker processes without dask's MALLOC_TRIM_THRESHOLD_=65536 (it made the
    hard vote 2.6x slower in a worker); keep_malloc_trim=True keeps dask's default."""
    import os

    from blowfish_core.algorithm.dask_engine import connect

    for keep, expected in ((False, {None}), (True, {"65536"})):
        c = connect(workers=1, keep_malloc_trim=keep)
        try:
            assert set(c.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).values()) == expected
        finally:
            cluster = c.cluster
            c.close()
            cluster.close()


def test_dask_read_csv_bad_cells_one_message_one_fix_and_no_worker_traceback(client, tmp_path, capfd):
    """Issue 15g (finding 9): a user's bad cell is not a worker failure (no ERROR / Traceback log
    lines), the message names each column once and has one fix, and says rows are not numbered."""
    import logging

    schema = Schema.from_dict(SCHEMA)
    p = tmp_path / "bad.csv"
    p.write_text("a,b,c,d\n1,0.5,3,p\nx,0.5,3,p\n2,0.5,3,zz\n")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    h = Keep(level=logging.WARNING)
    loggers = [logging.getLogger(n) for n in ("distributed", "distributed.worker", "distributed.core")]
    for lg in loggers:
        lg.addHandler(h)
    try:
        with pytest.raises(DataError) as ei:
            DaskEngine.read_csv(client, str(p), schema, [512])
    finally:
        for lg in loggers:
            lg.removeHandler(h)
    assert str(ei.value) == (
        f"{p}: bad cells in column(s) 'a', 'd' (the Dask reader does not number rows; the first problem of each "
        "column, counted in the first part of the file that has it):\n"
        "- column 'a': 1 row(s) are not numbers (e.g. 'x').\n"
        "- column 'd': 1 row(s) have categories outside the declared public domain (e.g. ['zz']).\n"
        "Fix: read it with the local engine (drop --engine dask; engine='local' in the API), which lists every bad "
        "cell with its row numbers, correct those cells, then run again")
    assert str(ei.value).count("Fix:") == 1
    assert [r.getMessage() for r in records] == []
    assert "Traceback" not in capfd.readouterr().err


def test_scheduler_that_refuses_or_is_not_dask_fails_fast_with_one_line():
    """Nothing listening: refused at once (not after dask's 20 s); an HTTP-like server that answers
    garbage: a BlowfishError, not dask's traceback (a fresh user's findings)."""
    import socket
    import threading
    import time

    from blowfish_core.algorithm.dask_engine import connect
    from blowfish_core.base.errors import BlowfishError

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nobody listens on it now
    t0 = time.perf_counter()
    with pytest.raises(BlowfishError, match=rf"^--scheduler tcp://127.0.0.1:{port}: cannot connect \(.*\)\. "
                                            r"Fix: check the address and that a dask scheduler is running there"):
        connect(f"tcp://127.0.0.1:{port}")
    assert time.perf_counter() - t0 < 5

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)

    def answer():
        for _ in range(8):
            try:
                c, _ = srv.accept()
            except OSError:
                return
            c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" * 64)
            c.close()

    threading.Thread(target=answer, daemon=True).start()
    try:
        with pytest.raises(BlowfishError, match=r"^--scheduler tcp://127.0.0.1:\d+: (no dask scheduler answered there|"
                                                r"cannot connect)"):
            connect(f"tcp://127.0.0.1:{srv.getsockname()[1]}")
    finally:
        srv.close()
