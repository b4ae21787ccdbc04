"""Seconds and peak memory at scale (issue 15).

(a) **rows**: Adult's schema columns resampled with replacement to ``--rows-a`` rows
    (default 10 million), written as a CSV into a temporary folder (never committed),
    then read in chunks (``chunked.read_grouped``: check, encode and group as it goes) and
    synthesized with Hard and BF-Soft (8 rounds, the paper's schedule).  Reports the read
    rate (rows/s), the run seconds and the child process's peak RSS.
(b) **distinct records**: ``--rows-b`` rows (default 1 million) of Adult with a continuous
    column (``fnlwgt``, jittered by a uniform +-0.5) added to the schema, so nearly every
    record is distinct; Hard and BF-Soft, 8 rounds, with the local engine and with the
    Dask engine on a local cluster of 1 and of 2 single-threaded worker processes.
    ``--pin`` (issue 23 "Dask, measured properly"): every worker and all its threads on a core of
    its own (``os.sched_setaffinity`` from a worker plugin), with 1 worker the client and the
    local scheduler on the other core; it first waits (``--wait-idle``, default 600 s) for a
    1-minute load average under 0.5 and prints whether it ever got there.  ``--pairs N``
    alternates the engines N times and reports the median runs and the speed-up of every pair.
(c) **a preset's file** (issue 23 "Presets at any size"): Adult, every column, resampled to
    ``--rows-c`` rows (default 1.3 million, ~134 MiB) in a temporary folder; the whole CLI
    process ``synth --preset adult --data BIG.csv --method hard --seeds 0`` is measured from
    outside (``os.wait4``: that child's peak RSS and CPU).  Target: peak RSS <= 1.5 GiB.

Every measurement runs in a fresh child process; times are wall seconds and CPU seconds
of the child (Dask workers' CPU is not in the child's CPU time), peak RSS is the child's
``ru_maxrss`` (the Dask workers' memory is separate and not included).  The machine is
shared: the load average is printed with each figure.  ``--fraction F`` scales both sizes
(e.g. 0.1 on a busy machine); the cost is linear in rows (a) and in distinct records (b),
so the script also prints the linear extrapolation to the full sizes, marked as such.

Usage::

    python benchmarks/bench_scale.py [--fraction 1] [--parts a,b,c] [--methods hard,bf-soft]
        [--engines local,dask1,dask2] [--pin [--wait-idle 600]] [--pairs 1] [--rows-c 1300000]
        [--runs-c 1] [--cli-c='--in-memory-mb 1000'] [--json OUT]
    python benchmarks/bench_scale.py --parts b --engines dask1,dask2 --pin --pairs 3   # issue 23

Targets: (a) peak RSS < 1.5 GiB, time dominated by reading; (b) BF-Soft 8 rounds < 3 min
with the local engine; Dask with 2 workers >= 1.6x faster than with 1 worker (issue 23: on
2 free cores, 1 million distinct records); (c) peak RSS <= 1.5 GiB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

GIB = 2**30


def _maxrss_bytes() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def _load() -> float:
    return round(os.getloadavg()[0], 2)


# ----------------------------------------------------------------------------- children
def child_gen_a(rows: int, path: str) -> dict:
    import numpy as np

    from blowfish_core.io.presets import get_preset, load_preset_data

    p = get_preset("adult")
    names = [a.name for a in p.schema.attributes]
    df = load_preset_data(p).private[names]
    rng = np.random.default_rng(15)
    t0 = time.perf_counter()
    step = 1_000_000
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(names) + "\n")
        for s in range(0, rows, step):
            k = min(step, rows - s)
            df.iloc[rng.integers(0, len(df), k)].to_csv(f, header=False, index=False)
    return {"rows": rows, "bytes": os.path.getsize(path), "seconds": time.perf_counter() - t0}


def child_gen_c(rows: int, path: str) -> dict:
    """Adult resampled with replacement to ``rows`` rows, every column (the 1.3M-row, ~134 MiB file)."""
    import numpy as np
    import pandas as pd

    from blowfish_core.io.presets import get_preset, shared_path

    src = shared_path(get_preset("adult"))
    if src is None:
        raise SystemExit("needs ../shared/data/adult.csv")
    df = pd.read_csv(src, dtype=str, keep_default_na=False)
    rng = np.random.default_rng(23)
    t0 = time.perf_counter()
    step = 500_000
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(df.columns) + "\n")
        for s in range(0, rows, step):
            k = min(step, rows - s)
            df.iloc[rng.integers(0, len(df), k)].to_csv(f, header=False, index=False)
    return {"rows": rows, "bytes": os.path.getsize(path), "seconds": time.perf_counter() - t0}


def run_measured(argv: list[str]) -> dict:
    """One child process running ``argv``: its wall and CPU seconds and peak RSS (os.wait4's rusage of
    that child alone), the load average before and after, its return code and last stderr lines."""
    load0 = _load()
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().strip().splitlines()[-3:]
    return {"seconds": time.perf_counter() - t0, "cpu": ru.ru_utime + ru.ru_stime, "peak_rss": ru.ru_maxrss * 1024,
            "load": [load0, _load()], "rc": p.returncode, "stderr": tail}


def part_c(rows: int, runs: int, extra: list[str]) -> dict:
    """(c) ``synth --preset adult --data BIG.csv``: peak RSS and CPU of the whole CLI process."""
    out: dict = {"rows": rows, "runs": []}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "adult_big.csv")
        gen = spawn("gen-c", str(rows), path)
        if gen is None:
            return out
        out["gen"] = gen
        print(f"(c) generated {rows:,} rows (Adult resampled, every column), {gen['bytes'] / 2**20:.0f} MiB CSV "
              f"in {gen['seconds']:.1f} s", flush=True)
        argv = [sys.executable, "-m", "blowfish_core", "synth", "--preset", "adult", "--data", path, "--method",
                "hard", "--rho", "3e-3", "--seeds", "0", "--out", os.path.join(tmp, "o.csv"), *extra]
        for _ in range(runs):
            r = run_measured(argv)
            out["runs"].append(r)
            print(f"(c) synth --preset adult --data ({rows:,} rows) --method hard --seeds 0 {' '.join(extra)}: "
                  f"rc {r['rc']}, peak RSS {r['peak_rss'] / 2**20:,.0f} MiB (target <= 1536 MiB: "
                  f"{'MET' if r['peak_rss'] <= 1.5 * GIB else 'MISSED'}), {r['cpu']:.1f} s CPU, "
                  f"{r['seconds']:.1f} s wall, load {r['load'][0]} -> {r['load'][1]}", flush=True)
            if r["rc"] != 0:
                print("    " + "\n    ".join(r["stderr"]))
    return out


def child_a(path: str, methods: list[str], chunk_rows: int) -> dict:
    from blowfish_core.io.chunked import read_grouped
    from blowfish_core.model.distance import domain_index
    from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis
    from blowfish_core.io.presets import get_preset

    p = get_preset("adult")
    t0, c0 = time.perf_counter(), time.process_time()
    g = read_grouped(path, p.schema, chunk_rows=chunk_rows)
    read_s, read_cpu = time.perf_counter() - t0, time.process_time() - c0
    out = {"rows": g.n_rows, "unique": g.n_unique, "chunks": g.chunks, "read_seconds": read_s,
           "read_cpu": read_cpu, "rss_after_read": _maxrss_bytes(), "load": _load(), "runs": {}}
    grouped = (g.U, g.counts, domain_index(p.schema, g.U))
    for m in methods:
        t0, c0 = time.perf_counter(), time.process_time()
        run_synthesis(p.schema, g.U, p.default_policy(), m, 1e-3, 0.03, SynthConfig(), 0, grouped=grouped)
        out["runs"][m] = {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "load": _load()}
    out["peak_rss"] = _maxrss_bytes()
    return out


def _table_b(rows: int):
    import numpy as np

    from blowfish_core.io.presets import get_preset, load_preset_data
    from blowfish_core.model.schema import Schema

    p = get_preset("adult")
    d = p.schema.to_dict()
    full = load_preset_data(p).private
    rng = np.random.default_rng(16)
    df = full.iloc[rng.integers(0, len(full), rows)].reset_index(drop=True)
    fn = df["fnlwgt"].to_numpy(dtype=float) + rng.uniform(-0.5, 0.5, rows)
    lo, hi = float(np.floor(fn.min())) - 1, float(np.ceil(fn.max())) + 1  # public bounds (benchmark only)
    df = df[[a["name"] for a in d["attributes"]]].assign(fnlwgt=fn)
    d["attributes"].append({"name": "fnlwgt", "type": "numeric", "lo": lo, "hi": hi, "integer": False})
    return Schema.from_dict(d), df, p.default_policy()


def pin_all_threads(cores: set[int]) -> list[int]:
    """Pin every thread of this process to ``cores`` (threads started later inherit it); returns the
    process's affinity after."""
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), cores)
        except (ProcessLookupError, PermissionError):  # a thread that just ended
            pass
    return sorted(os.sched_getaffinity(0))


def _thread_affinities() -> list[list[int]]:
    """The distinct CPU sets of this process's threads (a check that the pinning took)."""
    seen = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            seen.add(tuple(sorted(os.sched_getaffinity(int(tid)))))
        except ProcessLookupError:
            pass
    return [list(c) for c in sorted(seen)]


def pin_workers(client) -> dict:
    """Issue 23 "Dask, measured properly": worker k (in address order) and all its threads on core k,
    through a worker plugin (so a restarted worker is pinned again); with one worker the client
    process (and the local scheduler in it) goes to the other core, so it does not compete with the
    worker. Returns the affinities seen in every worker and in the client."""
    from distributed.diagnostics.plugin import WorkerPlugin

    ncpu = os.cpu_count() or 1
    addrs = sorted(client.scheduler_info()["workers"])
    if len(addrs) > ncpu:
        raise SystemExit(f"--pin: {len(addrs)} workers on {ncpu} cores")
    core_of = {a: k for k, a in enumerate(addrs)}

    class PinToCore(WorkerPlugin):
        name = "bench-pin-to-core"

        def setup(self, worker):
            pin_all_threads({core_of[worker.address]})

    client.register_plugin(PinToCore())
    if len(addrs) < ncpu:  # the client and scheduler on the cores no worker holds
        pin_all_threads(set(range(len(addrs), ncpu)))
    return {"workers": {str(core_of[a]): v for a, v in client.run(_thread_affinities).items()},
            "client": _thread_affinities()}


def child_b(rows: int, method: str, engine: str) -> dict:
    from blowfish_core.model.distance import domain_index, group_records
    from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis

    schema, df, policy = _table_b(rows)
    t0 = time.perf_counter()
    U, counts = group_records(schema.encode(df))
    prep = time.perf_counter() - t0
    del df
    cfg = SynthConfig()
    eng, client, cluster, affinity = None, None, None, None
    if engine.startswith("dask"):
        from blowfish_core.algorithm.dask_engine import DaskEngine, connect

        # local cluster without dask's MALLOC_TRIM_THRESHOLD_ unless --keep-malloc-trim (dask_engine.connect)
        client = connect(workers=int(engine[4:]), keep_malloc_trim=bool(os.environ.get("BENCH_KEEP_MALLOC_TRIM")))
        cluster = client.cluster
        if os.environ.get("BENCH_PIN"):
            affinity = pin_workers(client)
        eng = DaskEngine(client, schema, U, counts, cfg.sizes())
    load0 = _load()
    w0 = client.run(time.process_time) if client is not None else {}
    vote_wall = [0.0]
    if eng is not None:  # time the client's wait for each round's histogram (the workers' part)
        hist = eng.histogram

        def timed_histogram(*a, **k):
            t = time.perf_counter()
            try:
                return hist(*a, **k)
            finally:
                vote_wall[0] += time.perf_counter() - t

        eng.histogram = timed_histogram
    stream = None
    if client is not None:
        import distributed

        stream = distributed.get_task_stream(client)
        stream.__enter__()
    t0, c0 = time.perf_counter(), time.process_time()
    run_synthesis(schema, U, policy, method, 1e-3, 0.03, cfg, 0,
                  grouped=None if eng else (U, counts, domain_index(schema, U)), engine=eng)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    w1 = client.run(time.process_time) if client is not None else {}
    worker_cpu = sorted(w1[k] - w0[k] for k in w1)
    task_wall: dict = {}
    blas = trim = None
    if stream is not None:
        stream.__exit__(None, None, None)
        for t in stream.data:
            for ss in t.get("startstops", []):
                if ss.get("action") == "compute":
                    task_wall[t["worker"]] = task_wall.get(t["worker"], 0.0) + ss["stop"] - ss["start"]

        def _blas_threads():
            from threadpoolctl import threadpool_info

            return sorted({int(i.get("num_threads", 0)) for i in threadpool_info() if i.get("user_api") == "blas"})

        blas = sorted({n for v in client.run(_blas_threads).values() for n in v})
        trim = sorted({str(v) for v in client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).values()})
    out = {"worker_cpu": worker_cpu, "rows": rows, "unique": int(U.shape[0]), "prep_seconds": prep,
           "seconds": seconds, "cpu": cpu, "peak_rss": _maxrss_bytes(), "load": [load0, _load()],
           "partitions": eng.partitions if eng else None,
           "partition_rows": [b - a for a, b in zip(eng.bounds[:-1], eng.bounds[1:])] if eng else None,
           "vote_wall": vote_wall[0] if eng else None,
           "task_wall": sorted(task_wall.values()), "worker_blas_threads": blas,
           "worker_malloc_trim": trim, "affinity": affinity}
    if client is not None:
        client.close()
        cluster.close()
    return out


# ----------------------------------------------------------------------------- parent
def wait_idle(limit_s: float, threshold: float = 0.5, every_s: float = 15.0) -> dict:
    """Wait until the 1-minute load average is below ``threshold`` (polling), at most ``limit_s``
    seconds; prints and returns what it saw (the load never being that low is reported, not hidden)."""
    t0, seen = time.perf_counter(), [_load()]
    while seen[-1] >= threshold and time.perf_counter() - t0 < limit_s:
        time.sleep(every_s)
        seen.append(_load())
    idle = seen[-1] < threshold
    print(f"(b) load before the Dask runs: {seen[-1]} after {time.perf_counter() - t0:.0f} s of waiting "
          + (f"(below {threshold}: nothing else running)" if idle else
             f"(NEVER below {threshold} within {limit_s:.0f} s; min seen {min(seen)}: other processes were "
             "running, the figures below share the cores with them)"), flush=True)
    return {"idle": idle, "load": seen[-1], "min_load": min(seen), "waited_s": time.perf_counter() - t0}


def _median_run(rs: list[dict]) -> dict:
    """The run of median wall seconds (the others are kept in the JSON under KEY/all)."""
    return sorted(rs, key=lambda r: r["seconds"])[(len(rs) - 1) // 2]


def _print_b(rows: int, m: str, e: str, r: dict, pair: int | None) -> None:
    tag = f" pair {pair + 1}" if pair is not None else ""
    print(f"(b) {rows:,} rows, {r['unique']:,} distinct, {m:<8} {e:<6}{tag}: {r['seconds']:.1f} s wall, "
          f"{r['cpu']:.1f} s client CPU, peak RSS {r['peak_rss'] / 2**20:.0f} MiB, "
          f"load {r['load'][0]} -> {r['load'][1]}"
          + (f", {r['partitions']} partitions, worker CPU s "
             + "/".join(f"{v:.1f}" for v in r["worker_cpu"]) if r["partitions"] else ""), flush=True)
    if r.get("partitions"):
        tw = r["task_wall"]
        print(f"      {e}: waiting for the workers' histograms {r['vote_wall']:.1f} s of {r['seconds']:.1f} s "
              f"(client's own rounds: {r['seconds'] - r['vote_wall']:.1f} s); vote tasks ran "
              + "/".join(f"{v:.1f}" for v in tw) + " s wall per worker for "
              + "/".join(f"{v:.1f}" for v in r["worker_cpu"]) + " s CPU ("
              + ("wall >> CPU: the workers waited for a core" if sum(tw) > 1.25 * sum(r["worker_cpu"])
                 else "wall ~ CPU: the workers had their cores")
              + f"); partition rows {min(r['partition_rows']):,}-"
              f"{max(r['partition_rows']):,}; worker BLAS threads {r['worker_blas_threads']}, "
              f"MALLOC_TRIM_THRESHOLD_ {r['worker_malloc_trim']}"
              + (f"; pinned: workers {r['affinity']['workers']}, client {r['affinity']['client']}"
                 if r.get("affinity") else ""), flush=True)


def _print_speedup(m: str, d1: dict, d2: dict, args, runs: dict) -> None:
    sp = d1["seconds"] / d2["seconds"]
    verdict = "MET" if sp >= 1.6 else "MISSED"
    pairs = [a["seconds"] / b["seconds"] for a, b in zip(runs.get(f"{m}/dask1", []), runs.get(f"{m}/dask2", []))
             if a and b]
    print(f"    {m} Dask speed-up 2 vs 1 worker{' (pinned, one core each)' if args.pin else ''}: {sp:.2f}x wall "
          f"(median runs; per pair {'/'.join(f'{v:.2f}' for v in pairs)}; target >= 1.6x: {verdict}); "
          f"waiting for the votes {d1['vote_wall']:.1f} -> {d2['vote_wall']:.1f} s "
          f"({d1['vote_wall'] / max(d2['vote_wall'], 1e-9):.2f}x), the client's own rounds "
          f"{d1['seconds'] - d1['vote_wall']:.1f} -> {d2['seconds'] - d2['vote_wall']:.1f} s")
    if args.fraction != 1:
        print(f"    {m} extrapolated to {args.rows_b:,} distinct records (linear in distinct records, not measured): "
              f"1 worker {d1['seconds'] / args.fraction:.0f} s, 2 workers {d2['seconds'] / args.fraction:.0f} s")
    wc = d2["worker_cpu"]
    if wc and max(wc) > 0:
        print(f"    {m} Dask 2 workers: work split {'/'.join(f'{v:.1f}' for v in wc)} CPU s, so with two "
              f"free cores the speed-up bound is {sum(wc) / max(wc):.2f}x (1 worker: "
              f"{sum(d1['worker_cpu']):.1f} CPU s)")


def spawn(*args: str) -> dict | None:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", *args], capture_output=True,
                       text=True, env=env)
    if p.returncode != 0:
        print("  child failed:\n" + "\n".join(p.stderr.strip().splitlines()[-6:]), file=sys.stderr)
        return None
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fraction", type=float, default=1.0, help="scale both sizes (default 1)")
    ap.add_argument("--rows-a", type=int, default=10_000_000)
    ap.add_argument("--rows-b", type=int, default=1_000_000)
    ap.add_argument("--rows-c", type=int, default=1_300_000)
    ap.add_argument("--runs-c", type=int, default=1, help="(c): CLI runs (each a fresh process)")
    ap.add_argument("--cli-c", default="",
                    help="(c): further synth flags, e.g. --cli-c='--in-memory-mb 1000' (the whole-file read)")
    ap.add_argument("--parts", default="a,b", help="a, b and/or c (default a,b)")
    ap.add_argument("--methods", default="hard,bf-soft")
    ap.add_argument("--engines", default="local,dask1,dask2")
    ap.add_argument("--chunk-rows", type=int, default=200_000)
    ap.add_argument("--keep-malloc-trim", action="store_true",
                    help="keep dask's MALLOC_TRIM_THRESHOLD_=65536 in the workers (default: removed, see child_b)")
    ap.add_argument("--pin", action="store_true",
                    help="(b) one core per Dask worker (all its threads), the client on the free core with 1 worker; "
                         "waits for an idle machine first (--wait-idle)")
    ap.add_argument("--wait-idle", type=float, default=600.0,
                    help="(b) with --pin: wait at most this many seconds for a 1-minute load < 0.5 (default 600)")
    ap.add_argument("--pairs", type=int, default=1, help="(b) alternating runs of every engine; medians (default 1)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        kind, rest = args.child[0], args.child[1:]
        if kind == "gen-a":
            out = child_gen_a(int(rest[0]), rest[1])
        elif kind == "gen-c":
            out = child_gen_c(int(rest[0]), rest[1])
        elif kind == "a":
            out = child_a(rest[0], rest[1].split(","), int(rest[2]))
        else:
            out = child_b(int(rest[0]), rest[1], rest[2])
        print(json.dumps(out))
        return 0

    if args.keep_malloc_trim:
        os.environ["BENCH_KEEP_MALLOC_TRIM"] = "1"  # inherited by the children
    methods = [m for m in args.methods.split(",") if m]
    parts = args.parts.split(",")
    res: dict = {"fraction": args.fraction, "cores": os.cpu_count()}
    print(f"bench_scale: fraction {args.fraction:g}, {os.cpu_count()} cores (shared), load {_load()}")
    if "a" in parts:
        rows = int(args.rows_a * args.fraction)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "adult_resampled.csv")
            gen = spawn("gen-a", str(rows), path)
            print(f"(a) generated {rows:,} rows, {gen['bytes'] / 2**20:.0f} MiB CSV in {gen['seconds']:.1f} s")
            a = spawn("a", path, ",".join(methods), str(args.chunk_rows))
        res["a"] = {"gen": gen, **(a or {})}
        if a:
            rate = a["rows"] / a["read_seconds"]
            run_s = sum(r["seconds"] for r in a["runs"].values())
            print(f"(a) read+encode+group: {a['read_seconds']:.1f} s wall ({a['read_cpu']:.1f} s CPU), "
                  f"{rate:,.0f} rows/s, {a['chunks']} chunks, {a['unique']:,} distinct; load {a['load']}")
            for m, r in a["runs"].items():
                print(f"    {m:<8} 8 rounds: {r['seconds']:.2f} s wall, {r['cpu']:.2f} s CPU (load {r['load']})")
            print(f"    peak RSS {a['peak_rss'] / 2**20:.0f} MiB (target < 1536 MiB: "
                  f"{'MET' if a['peak_rss'] < 1.5 * GIB else 'MISSED'}); reading is "
                  f"{100 * a['read_seconds'] / (a['read_seconds'] + run_s):.0f}% of read + runs")
            if args.fraction != 1:
                print(f"    extrapolated to {args.rows_a:,} rows (linear in rows, not measured): read "
                      f"{a['read_seconds'] / args.fraction:.0f} s; runs unchanged (distinct records do not grow)")
    if "c" in parts:
        res["c"] = part_c(int(args.rows_c * args.fraction), args.runs_c, args.cli_c.split())
    if "b" in parts:
        rows = int(args.rows_b * args.fraction)
        res["b"] = {}
        if args.pin:
            os.environ["BENCH_PIN"] = "1"  # inherited by the children (child_b pins the workers)
            res["idle"] = wait_idle(args.wait_idle)
        runs: dict[str, list] = {}
        for k in range(args.pairs):  # alternating: every engine once per pair
            for m in methods:
                for e in args.engines.split(","):
                    r = spawn("b", str(rows), m, e)
                    runs.setdefault(f"{m}/{e}", []).append(r)
                    if r:
                        _print_b(rows, m, e, r, k if args.pairs > 1 else None)
        for key, rs in runs.items():
            ok = [r for r in rs if r]
            res["b"][key] = _median_run(ok) if ok else None
            res["b"][key + "/all"] = ok
        for m in methods:
            loc, d1, d2 = (res["b"].get(f"{m}/{e}") for e in ("local", "dask1", "dask2"))
            if m == "bf-soft" and loc:
                full = loc["seconds"] / args.fraction
                print(f"    BF-Soft local: {loc['seconds']:.1f} s" + (f"; extrapolated to {args.rows_b:,} rows "
                      f"(linear in distinct records): {full:.0f} s" if args.fraction != 1 else "")
                      + f" (target < 180 s: {'MET' if full < 180 else 'MISSED'})")
            if d1 and d2:
                _print_speedup(m, d1, d2, args, runs)
    if args.json:
        from blowfish_core.io import atomic

        atomic.write_text(args.json, json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
