"""The vote step on a Dask cluster, for tables beyond one machine (issue 15).

Algorithm 1 touches the private records only in the vote histogram H_t (evolution.py,
step 1).  This engine keeps the grouped private records on the workers of a
``dask.distributed`` cluster and computes H_t there; calibration, noise, selection and
ResampleMutate stay on the client (they are O(m)).

* Reading, encoding and grouping (:meth:`DaskEngine.read_csv`) are Dask dataframe
  operations on the workers: ``dd.read_csv`` -> encode every partition against the public
  schema -> ``groupby(...).size()``.  The distinct records (not the rows) come back to the
  client once, are put in the local engine's order (``np.unique``) and are scattered
  back as partitions.
* Every round the candidates C_t are broadcast once; each partition computes its part of
  the vote histogram; the client sums the parts **in a fixed partition order**.
  Partitions are whole multiples of the vote block (``distance.chunk_rows(m)`` for every
  m of the schedule) and a soft-vote partition returns one vector per block, which the
  client adds in block order: exactly the local engine's float sums, so a seeded run
  releases byte-identical records (tests/algorithm/test_dask_engine.py).  Hard votes are sums of
  whole numbers (exact in any order).

Byte-identity needs the same numpy/BLAS build on the workers as on the client (a BLAS
that picks another kernel on another CPU may round a mat-vec differently; hard votes are
exact anyway).  ``dask[distributed]`` is an optional extra: ``pip install "dask[distributed]"``.

Pointing it at a cluster::

    python -m blowfish_core synth ... --engine dask --scheduler tcp://HOST:8786
    python -m blowfish_core synth ... --engine dask --workers 2        # a local cluster
    Synthesizer(..., engine="dask", client=Client("tcp://HOST:8786")).fit("big.csv")

The workers must be able to import ``blowfish_core`` (install the package on every
worker) and to read the CSV path (a shared file system or a URL fsspec understands).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..model.gower_kernel import GowerKernel
from ..model.rows import domain_index
from ..model.tiling import chunk_rows
from ..io.data import NO_DATA_ROWS
from ..base.errors import BlowfishError, DataError, SchemaError
from ..model.schema import Schema

INSTALL_HINT = ('the Dask engine needs the optional extra dask[distributed]. Fix: pip install "dask[distributed]" '
                '(or pip install -e ".[dask]"), or use the local engine (the default)')


def require_dask():
    """Import dask.distributed or raise BlowfishError with the install command.

    Returns
    -------
    module
        The ``distributed`` package.

    Raises
    ------
    BlowfishError
        If dask[distributed] is not installed (the message gives the install command).
    """
    try:
        import dask.dataframe  # noqa: F401
        import distributed
    except ImportError:
        raise BlowfishError(INSTALL_HINT) from None
    return distributed


#: the protocols of a dask.distributed scheduler address.
SCHEDULER_PROTOCOLS = ("tcp", "tls", "ucx", "ws", "wss")
SCHEDULER_FIX = "Fix: give PROTOCOL://HOST:PORT, e.g. tcp://host:8786 (or drop --scheduler for a local cluster)"
_ADDRESS = re.compile(r"^(?:(?P<proto>[A-Za-z][A-Za-z0-9+.-]*)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(?P<port>\d{1,5})/?$")


def check_scheduler(scheduler: str) -> str:
    """A scheduler address PROTOCOL://HOST:PORT (or HOST:PORT, tcp) as dask.distributed takes it.

    Parameters
    ----------
    scheduler : str
        The address, e.g. tcp://host:8786.

    Returns
    -------
    str
        The address, stripped of surrounding white space.

    Raises
    ------
    BlowfishError
        Naming --scheduler, with an example address, for an empty string (it would
        otherwise start a local cluster silently), a missing port or an unknown protocol.
    """
    text = scheduler.strip() if isinstance(scheduler, str) else scheduler
    if not isinstance(text, str) or not text:
        raise BlowfishError(f"--scheduler {scheduler!r}: empty address. {SCHEDULER_FIX}")
    m = _ADDRESS.match(text)
    if m is None or not 0 < int(m.group("port")) < 65536:
        raise BlowfishError(f"--scheduler {scheduler!r}: not a scheduler address (HOST:PORT is missing or malformed). "
                            f"{SCHEDULER_FIX}")
    if m.group("proto") is not None and m.group("proto").lower() not in SCHEDULER_PROTOCOLS:
        raise BlowfishError(f"--scheduler {scheduler!r}: unknown protocol '{m.group('proto')}' (dask uses "
                            f"{', '.join(SCHEDULER_PROTOCOLS)}). {SCHEDULER_FIX}")
    return text


_RUNNING_FIX = "Fix: check the address and that a dask scheduler is running there (dask scheduler)"


def _reachable(scheduler: str, timeout: float = 3.0) -> None:
    """Fail fast when nothing accepts TCP connections at the scheduler's HOST:PORT (dask itself
    waits its whole 20 s connect timeout).  Raises BlowfishError naming --scheduler."""
    import socket

    m = _ADDRESS.match(scheduler.strip())
    if m is None:  # connect checks the address first (check_scheduler)
        raise BlowfishError(f"--scheduler {scheduler!r}: not a scheduler address (HOST:PORT is missing or malformed). "
                            f"{SCHEDULER_FIX}")
    if (m.group("proto") or "tcp").lower() == "ucx":  # not necessarily TCP underneath
        return
    host = m.group("host").strip("[]")
    try:
        socket.create_connection((host, int(m.group("port"))), timeout=timeout).close()
    except OSError as e:
        raise BlowfishError(f"--scheduler {scheduler}: cannot connect ({e.strerror or e}). {_RUNNING_FIX}") from None


def connect(scheduler: str | None = None, workers: int | None = None, processes: bool = True,
            keep_malloc_trim: bool = False):
    """A dask.distributed Client: to ``scheduler`` or to a new local cluster.

    Local clusters start their workers without dask's MALLOC_TRIM_THRESHOLD_=65536 (unless
    keep_malloc_trim): any value turns off glibc's dynamic mmap threshold, so every vote
    temporary over 128 KiB became a fresh mmap with page faults and the hard vote ran 2.6x
    slower in a worker (docs/BENCHMARKS.md, issue 15).  Results are unchanged.

    Parameters
    ----------
    scheduler : str, optional
        An address such as tcp://host:8786; None starts a local cluster.
    workers : int, optional
        Number of single-threaded workers of the local cluster (default 2).
    processes : bool, default True
        Local workers as processes (else threads).
    keep_malloc_trim : bool, default False
        Keep dask's MALLOC_TRIM_THRESHOLD_ for the local workers.

    Returns
    -------
    distributed.Client
        The connected client.

    Raises
    ------
    BlowfishError
        For a bad address, both a scheduler and workers, a bad worker count,
        dask not installed, or no dask scheduler answering at the address.
    """
    if scheduler is not None:
        check_scheduler(scheduler)
    distributed = require_dask()
    if scheduler and workers:
        raise BlowfishError("give --scheduler ADDRESS or --workers N, not both")
    if scheduler:
        _reachable(scheduler)
        try:
            return distributed.Client(scheduler, timeout="20s")
        except ValueError as e:  # an address dask cannot parse after all
            raise BlowfishError(f"--scheduler {scheduler!r}: not a scheduler address ({e}). {SCHEDULER_FIX}") from None
        except (OSError, TimeoutError) as e:
            raise BlowfishError(f"--scheduler {scheduler}: cannot connect ({e}). {_RUNNING_FIX}") from None
        except Exception as e:  # something answered that is not a dask scheduler (e.g. an HTTP server)
            raise BlowfishError(f"--scheduler {scheduler}: no dask scheduler answered there ({type(e).__name__}). "
                                f"{_RUNNING_FIX}") from None
    n = 2 if workers is None else workers
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise BlowfishError(f"--workers must be a whole number >= 1 (got {workers!r})")
    import dask

    env = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
    if not keep_malloc_trim:
        env.pop("MALLOC_TRIM_THRESHOLD_", None)
    with dask.config.set({"distributed.nanny.pre-spawn-environ": env}):
        cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=processes,
                                           dashboard_address=None)
    return distributed.Client(cluster)


def quantum(sizes: list[int]) -> int:
    """Partition granularity over the schedule's population sizes.

    Parameters
    ----------
    sizes : list of int
        The population sizes m_t of the schedule.

    Returns
    -------
    int
        The least common multiple of the vote block heights ``chunk_rows(m)`` (rows).
    """
    q = 1
    for m in sorted(set(int(v) for v in sizes)):
        q = math.lcm(q, chunk_rows(m))
    return q


def balanced_bounds(n: int, q: int, k: int) -> list[int]:
    """Partition bounds over n distinct records.

    Every partition is a whole number of vote blocks of q rows (the last may end early at n),
    and the block counts of the min(k, ceil(n / q)) partitions differ by at most one, so two
    workers given alternate partitions hold the same work to within one block.

    Parameters
    ----------
    n : int
        Number of distinct records.
    q : int
        Block height (rows), :func:`quantum`.
    k : int
        Wanted number of partitions.

    Returns
    -------
    list of int
        (parts + 1) ints from 0 to n; [0] for n <= 0.
    """
    if n <= 0:
        return [0]
    blocks = -(-n // q)
    k = max(1, min(int(k), blocks))
    base, extra = divmod(blocks, k)
    bounds, b = [0], 0
    for i in range(k):
        b += base + (1 if i < extra else 0)
        bounds.append(min(b * q, n))
    return bounds


def _partition_votes(schema: Schema, C: np.ndarray, part: tuple, vote) -> np.ndarray:
    """On a worker: the partition's histogram parts, (blocks, m) float64 (hard: one row)."""
    U, counts, I = part
    kernel = GowerKernel(schema, C)
    if getattr(vote, "name", "") == "soft":
        return np.stack(list(vote.block_sums(U, counts, I, kernel)))
    return vote.histogram(schema, C, U, counts, I, kernel)[None, :]


def _encode_partition(df, schema: Schema):
    """On a worker: the partition's encoded records, or -- for a partition with a bad cell --
    one row of +inf (never an encoded value), so no worker raises (and logs a traceback) for
    a user's bad cell; :func:`_partition_problems` then says what is wrong."""
    import pandas as pd

    names = [a.name for a in schema.attributes]
    df = df.rename(columns=lambda c: str(c).strip())
    df = df[~df.isna().all(axis=1)]
    if len(df) == 0:
        return pd.DataFrame({n: np.zeros(0) for n in names})
    try:
        return pd.DataFrame(schema.encode(df[names]), columns=names)
    except SchemaError:
        return pd.DataFrame({n: [np.inf] for n in names})


def _partition_problems(df, schema: Schema):
    """On a worker: one row per column with bad cells, (column, message) of Attribute.encode_series."""
    import pandas as pd

    df = df.rename(columns=lambda c: str(c).strip())
    df = df[~df.isna().all(axis=1)]
    out = []
    for a in schema.attributes:
        try:
            a.encode_series(df[a.name])
        except SchemaError as e:
            out.append((a.name, str(e)))
    return pd.DataFrame(out, columns=["column", "message"]) if out else \
        pd.DataFrame({"column": pd.Series([], dtype=object), "message": pd.Series([], dtype=object)})


class DaskEngine:
    """Grouped private records on Dask workers; ``histogram(schema, C, vote)`` per round.

    client: a dask.distributed Client.  U: (u, p) distinct encoded records in np.unique
    order, counts: (u,).  sizes: the run's population schedule (partitions are multiples
    of every vote block height).  partitions: target number of partitions (default: 4 per
    worker; they are placed so the workers hold about the same number of records).
    """

    def __init__(self, client, schema: Schema, U: np.ndarray, counts: np.ndarray, sizes: list[int],
                 partitions: int | None = None):
        self.client = client
        self.schema = schema
        self.U, self.counts = U, counts  # the client keeps the distinct records (metric, report)
        self.n_unique = int(U.shape[0])
        self.n_rows = int(round(float(np.sum(counts))))
        self.sizes = [int(s) for s in sizes]
        q = quantum(self.sizes)
        nw = max(1, len(client.scheduler_info().get("workers", {})))
        k = partitions or 4 * nw
        self.bounds = bounds = balanced_bounds(self.n_unique, q, k)
        I = domain_index(schema, U)
        parts = [(np.ascontiguousarray(U[a:b]), np.ascontiguousarray(counts[a:b]), np.ascontiguousarray(I[a:b]))
                 for a, b in zip(bounds[:-1], bounds[1:])]
        self._schema_f = client.scatter(schema, broadcast=True, hash=False)  # fresh keys: see histogram
        # place partitions so every worker holds about the same number of records (largest first
        # to the least-loaded worker); tasks then run where their partition is
        addrs = sorted(client.scheduler_info().get("workers", {}))
        futs: list = [None] * len(parts)
        if addrs:
            load = {w: 0 for w in addrs}
            for i in sorted(range(len(parts)), key=lambda i: -parts[i][0].shape[0]):
                w = min(addrs, key=lambda a: (load[a], a))
                futs[i] = client.scatter([parts[i]], workers=[w], hash=False)[0]
                load[w] += parts[i][0].shape[0]
        else:
            futs = client.scatter(parts, hash=False)
        self._parts = futs  # list of futures, in partition order
        self.quantum = q

    @property
    def partitions(self) -> int:
        return len(self._parts)

    def histogram(self, schema: Schema, C: np.ndarray, vote) -> np.ndarray:
        """Vote histogram H(D; C): float64 (m,), the local engine's float sums (see module doc)."""
        m = int(np.asarray(C).shape[0])
        if self.quantum % chunk_rows(m):
            raise BlowfishError(f"the Dask engine was partitioned for populations {sorted(set(self.sizes))}; "
                                f"got m = {m}. Fix: build it with the run's schedule")
        # hash=False: a fresh key every round (re-scattering equal candidates under the same key
        # while the previous round's future is released loses the data on the workers)
        Cf = self.client.scatter(np.asarray(C, dtype=float), broadcast=True, hash=False)
        futs = [self.client.submit(_partition_votes, self._schema_f, Cf, p, vote, pure=False) for p in self._parts]
        H = np.zeros(m)
        for f in futs:  # fixed partition order, block order inside each partition
            for part in f.result():
                H += part
        return H

    @classmethod
    def from_grouped(cls, client, schema: Schema, U: np.ndarray, counts: np.ndarray, sizes: list[int],
                     partitions: int | None = None) -> "DaskEngine":
        return cls(client, schema, U, counts, sizes, partitions)

    @classmethod
    def read_csv(cls, client, path: str, schema: Schema, sizes: list[int], *, sep: str = ",",
                 blocksize: str | int = "64MB", partitions: int | None = None) -> "DaskEngine":
        """Read, encode and group a CSV with Dask dataframe operations on the workers.

        Cells are read as text (only empty cells are missing) and encoded per partition with
        ``Schema.encode``.  Raises DataError for a bad cell (the local reader,
        blowfish_core.io.chunked, gives its spreadsheet row numbers).
        """
        require_dask()
        import dask.dataframe as dd

        from ..io.chunked import _header

        label = str(path)
        names = [a.name for a in schema.attributes]
        cols = _header(label, sep, label)  # on the client: empty, non-UTF-8, duplicated, missing columns
        dups = sorted({c for c in cols if cols.count(c) > 1})
        if dups:
            raise DataError(f"{label}: column '{dups[0]}' appears more than once in the header (row 1). "
                            "Fix: give every column a unique name")
        missing = [n for n in names if n not in cols]
        if missing:
            from ..io.intake import separator_hint

            raise DataError(f"{label}: column(s) {missing} of the schema are not in the file (columns: {cols})"
                            + (separator_hint(cols) or ". Fix: rename the columns or edit the schema"))
        try:
            ddf = dd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, na_values=[""],
                              blocksize=blocksize, skip_blank_lines=False)
            meta = {n: "f8" for n in names}
            enc = ddf.map_partitions(_encode_partition, schema, meta=meta)
            sizes_s = enc.groupby(names).size().compute()
            bad = len(sizes_s) > 0 and bool(np.isinf(np.asarray(sizes_s.index.tolist(), dtype=float)).any())
            if bad:
                probs = ddf.map_partitions(_partition_problems, schema,
                                           meta={"column": object, "message": object}).compute()
        except (KeyError, ValueError) as e:
            raise DataError(f"{label}: cannot read it as CSV ({e}). Fix: check the separator and the quoting, "
                            "or drop --engine dask to read it with the local reader") from None
        except UnicodeDecodeError:
            from ..io.data import first_bad_utf8_line, not_utf8_message

            where = first_bad_utf8_line(label)
            raise DataError(not_utf8_message(label, *where) if where else f"{label}: not UTF-8 text") from None
        if bad:
            lines = []
            for a in names:  # one line per column: the first partition's message (counts are per partition)
                msgs = probs.loc[probs["column"] == a, "message"].tolist()
                if msgs:
                    lines.append(msgs[0].split(" Fix: ")[0])
            raise DataError(f"{label}: bad cells in column(s) {', '.join(repr(a) for a in names if any(a == c for c in probs['column']))} "
                            "(the Dask reader does not number rows; the first problem of each column, counted "
                            "in the first part of the file that has it):\n" + "\n".join(f"- {m}" for m in lines)
                            + "\nFix: read it with the local engine (drop --engine dask; engine='local' in the API), "
                            "which lists every bad cell with its row numbers, correct those cells, then run again")
        if len(sizes_s) == 0:
            raise DataError(f"{label}: {NO_DATA_ROWS}")
        U = np.array(sizes_s.index.tolist(), dtype=float).reshape(len(sizes_s), len(names))
        c = sizes_s.to_numpy().astype(float)
        Us, idx = np.unique(U, axis=0, return_index=True)  # the local engine's order
        return cls(client, schema, Us, c[idx], sizes, partitions)

    def warnings(self, release_size: int | None) -> list[str]:
        """The intake's size warnings for the records read (fewer than the release, under 1,000 rows)."""
        from ..io.intake import size_warnings

        return size_warnings(int(self.counts.sum()), release_size)

    def close(self) -> None:
        for f in self._parts:
            f.release()
