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

Every measurement runs in a fresh child process; times are wall seconds and CPU seconds
of the child (Dask workers' CPU is not in the child's CPU time), peak RSS is the child's
``ru_maxrss`` (the Dask workers' memory is separate and not included).  The machine is
shared: the load average is printed with each figure.  ``--fraction F`` scales both sizes
(e.g. 0.1 on a busy machine); the cost is linear in rows (a) and in distinct records (b),
so the script also prints the linear extrapolation to the full sizes, marked as such.

Usage::

    python benchmarks/bench_scale.py [--fraction 1] [--parts a,b] [--methods hard,bf-soft]
        [--engines local,dask1,dask2] [--json OUT]

Targets: (a) peak RSS < 1.5 GiB, time dominated by reading; (b) BF-Soft 8 rounds < 3 min
with the local engine; Dask with 2 workers >= 1.6x faster than with 1 worker.
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


def child_b(rows: int, method: str, engine: str) -> dict:
    from blowfish_core.model.distance import domain_index, group_records
    from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis

    schema, df, policy = _table_b(rows)
    t0 = time.perf_counter()
    U, counts = group_records(schema.encode(df))
    prep = time.perf_counter() - t0
    del df
    cfg = SynthConfig()
    eng, client, cluster = None, None, None
    if engine.startswith("dask"):
        from blowfish_core.algorithm.dask_engine import DaskEngine, connect

        # local cluster without dask's MALLOC_TRIM_THRESHOLD_ unless --keep-malloc-trim (dask_engine.connect)
        client = connect(workers=int(engine[4:]), keep_malloc_trim=bool(os.environ.get("BENCH_KEEP_MALLOC_TRIM")))
        cluster = client.cluster
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
           "worker_malloc_trim": trim}
    if client is not None:
        client.close()
        cluster.close()
    return out


# ----------------------------------------------------------------------------- parent
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
    ap.add_argument("--parts", default="a,b")
    ap.add_argument("--methods", default="hard,bf-soft")
    ap.add_argument("--engines", default="local,dask1,dask2")
    ap.add_argument("--chunk-rows", type=int, default=200_000)
    ap.add_argument("--keep-malloc-trim", action="store_true",
                    help="keep dask's MALLOC_TRIM_THRESHOLD_=65536 in the workers (default: removed, see child_b)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        kind, rest = args.child[0], args.child[1:]
        if kind == "gen-a":
            out = child_gen_a(int(rest[0]), rest[1])
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
    if "b" in parts:
        rows = int(args.rows_b * args.fraction)
        res["b"] = {}
        for m in methods:
            for e in args.engines.split(","):
                r = spawn("b", str(rows), m, e)
                res["b"][f"{m}/{e}"] = r
                if r:
                    print(f"(b) {rows:,} rows, {r['unique']:,} distinct, {m:<8} {e:<6}: {r['seconds']:.1f} s wall, "
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
                              f"MALLOC_TRIM_THRESHOLD_ {r['worker_malloc_trim']}",
                              flush=True)
        for m in methods:
            loc, d1, d2 = (res["b"].get(f"{m}/{e}") for e in ("local", "dask1", "dask2"))
            if m == "bf-soft" and loc:
                full = loc["seconds"] / args.fraction
                print(f"    BF-Soft local: {loc['seconds']:.1f} s" + (f"; extrapolated to {args.rows_b:,} rows "
                      f"(linear in distinct records): {full:.0f} s" if args.fraction != 1 else "")
                      + f" (target < 180 s: {'MET' if full < 180 else 'MISSED'})")
            if d1 and d2:
                sp = d1["seconds"] / d2["seconds"]
                verdict = "MET" if sp >= 1.6 else "MISSED"
                print(f"    {m} Dask speed-up 2 vs 1 worker: {sp:.2f}x wall (target >= 1.6x: {verdict})")
                wc = d2["worker_cpu"]
                if wc and max(wc) > 0:
                    print(f"    {m} Dask 2 workers: work split {'/'.join(f'{v:.1f}' for v in wc)} CPU s, so with two "
                          f"free cores the speed-up bound is {sum(wc) / max(wc):.2f}x (1 worker: "
                          f"{sum(d1['worker_cpu']):.1f} CPU s)")
    if args.json:
        from blowfish_core.io import atomic

        atomic.write_text(args.json, json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
