"""Time and memory of one synthesis run per method (issue 2, "Must show" 3).

For each dataset and method, runs Algorithm 1 in the paper's setting (8 rounds,
512 candidates in rounds 1-3 and 1,024 in rounds 4-8, release 512, rho = 1e-3,
tau = 0.03) in a *fresh Python process* and prints:

* seconds of the run (``run_synthesis``; the data load, encoding and duplicate
  grouping are timed separately as "prep"), cold (first run in the process) and
  warm (a second run in the same process, as in a multi-seed CLI call or an app
  session);
* seconds per round (cold run);
* peak memory: the child process's peak resident set size,
  ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` read in the child at the end (the
  same figure the parent would read through RUSAGE_CHILDREN), which includes the
  interpreter, numpy/pandas and the loaded table; the RSS before the run and the
  high-water mark after every round are printed too.  With ``--tracemalloc`` an
  extra child per (dataset, method) reports the per-round peak of traced (numpy
  and Python) allocations;
* the number of private records and of unique encoded records (duplicates are
  grouped before voting and vote once with their count).

Datasets: ``adult`` (80% private split of ../shared/data/adult.csv, skipped with
a message when absent), ``xor3`` (generated, n = 12,000), ``adult10x`` (the Adult
private rows resampled with replacement to 10x, seeded by --seed) and, on request,
``adult10x-nogroup`` (the same rows voted one by one, without grouping, to show
that the chunked distance blocks bound memory for large n).

Usage (from the repository root)::

    python benchmarks/bench_synthesis.py [--datasets adult,xor3,adult10x]
        [--methods tab-pe,hard,bf-soft] [--seed 0] [--repeats 3] [--tracemalloc] [--json OUT]

Each (dataset, method) pair runs ``--repeats`` times (one fresh process each);
the tables give the best and the median.  The machine is shared: repeat and
report best and median rather than a single figure.  ``--blas-threads 1`` sets
OPENBLAS_NUM_THREADS (and OMP/MKL) in the children: BF-Soft's per-block
matrix-vector sum is a BLAS call, and on a busy 2-core machine a second BLAS
thread slows it down (see docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

DATASETS = ("adult", "xor3", "adult10x", "adult10x-nogroup")
DEFAULT_DATASETS = "adult,xor3,adult10x"
DEFAULT_METHODS = "tab-pe,hard,bf-soft"
#: issue 2 targets on this machine (8-round Adult setting).
REFERENCE_TAB_PE_SECONDS = 0.9
TARGET_HARD_SECONDS = 0.9
TARGET_BF_SOFT_SECONDS = 1.8
TARGET_PEAK_BYTES_10X = 2**30
#: issue 15 targets: Adult 8-round run_synthesis CPU seconds (cold run, median over repeats).
TARGET_CPU_15 = {"hard": 0.25, "bf-soft": 0.5}


# --------------------------------------------------------------------------- child
def _rss_now_kib() -> int:
    """Current resident set size of this process in KiB (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return 0


def _maxrss_kib() -> int:
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(r // 1024) if sys.platform == "darwin" else int(r)  # macOS reports bytes


def load_dataset(name: str, seed: int):
    """(schema, encoded private records X (n, p), grouped (U, counts, I), policy, note).

    Raises FileNotFoundError when the Adult table is absent (the parent skips).
    """
    import numpy as np

    from blowfish_core.model.distance import domain_index, group_records
    from blowfish_core.io.presets import get_preset, load_preset_data, shared_path

    if name.startswith("adult"):
        preset = get_preset("adult")
        if shared_path(preset) is None:
            raise FileNotFoundError("../shared/data/adult.csv not found")
        private = load_preset_data(preset).private
    elif name == "xor3":
        preset = get_preset("xor3")
        private = load_preset_data(preset).private
    else:
        raise ValueError(f"unknown dataset {name!r}; use one of {', '.join(DATASETS)}")
    schema = preset.schema
    X = schema.encode(private)
    if name.startswith("adult10x"):
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), 10]))
        X = X[rng.integers(0, X.shape[0], size=10 * X.shape[0])]
    if name == "adult10x-nogroup":
        U, counts = X, np.ones(X.shape[0])
    else:
        U, counts = group_records(X)
    grouped = (U, counts, domain_index(schema, U))
    return schema, X, grouped, preset.default_policy()


def child(dataset: str, method: str, seed: int, rho: float, tau: float, inner: int, trace: bool) -> dict:
    """One fresh-process measurement; returns a JSON-ready dict."""
    import numpy as np  # noqa: F401  (import cost outside the timed region)

    from blowfish_core.algorithm.evolution import SynthConfig, run_synthesis

    t0 = time.perf_counter()
    schema, X, grouped, policy = load_dataset(dataset, seed)
    prep = time.perf_counter() - t0
    rss_before = _rss_now_kib()
    maxrss_before = _maxrss_kib()
    round_maxrss: list[int] = []
    round_traced: list[int] = []
    if trace:
        import tracemalloc

        tracemalloc.start()

    def progress(ev: dict) -> None:
        round_maxrss.append(_maxrss_kib())
        if trace:
            import tracemalloc

            round_traced.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.reset_peak()

    runs = []
    for _ in range(max(1, inner)):
        round_maxrss.clear()
        round_traced.clear()
        c0 = time.process_time()
        res = run_synthesis(schema, X, policy, method, rho, tau, SynthConfig(), seed,
                            progress=progress, grouped=grouped)
        cpu = time.process_time() - c0
        runs.append({
            "seconds": res.seconds,
            "cpu_seconds": cpu,
            "round_seconds": list(res.round_seconds),
            "round_maxrss_kib": list(round_maxrss),
            "round_traced_peak_bytes": list(round_traced),
            "calibration": sorted({r.calibration for r in res.rounds}),
            "candidates": [r.candidates for r in res.rounds],
        })
    return {
        "dataset": dataset, "method": method, "seed": seed,
        "n": int(X.shape[0]), "n_unique": int(grouped[0].shape[0]),
        "prep_seconds": prep,
        "rss_before_run_kib": rss_before, "maxrss_before_run_kib": maxrss_before,
        "peak_rss_kib": _maxrss_kib(),
        "cold": runs[0], "warm": runs[1] if len(runs) > 1 else None,
        "tracemalloc": trace,
    }


# --------------------------------------------------------------------------- parent
def spawn(dataset: str, method: str, args, trace: bool = False) -> dict | None:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", dataset, method, "--seed", str(args.seed),
           "--rho", repr(args.rho), "--tau", repr(args.tau), "--inner", str(0 if trace else args.inner)]
    if trace:
        cmd.append("--tracemalloc")
    env = dict(os.environ)
    if args.blas_threads:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(args.blas_threads)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode == 3:
        return {"skipped": p.stderr.strip()}
    if p.returncode != 0:
        tail = "\n".join(p.stderr.strip().splitlines()[-5:])
        print(f"  [{dataset}/{method}] child failed (exit {p.returncode}):\n{tail}", file=sys.stderr)
        return None
    out = json.loads(p.stdout.strip().splitlines()[-1])
    # cross-check with the parent's view (max over all finished children so far)
    out["parent_rusage_children_maxrss_kib"] = int(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return out


def _mib(kib: float) -> float:
    return kib / 1024.0


def _best_med(values: list[float]) -> tuple[float, float]:
    return min(values), statistics.median(values)


def summarize(results: dict) -> dict:
    """Per (dataset, method): best/median cold and warm seconds, peak RSS, per-round medians."""
    out = {}
    for (ds, m), reps in results.items():
        if not reps:
            continue
        cold = [r["cold"]["seconds"] for r in reps]
        cold_cpu = [r["cold"]["cpu_seconds"] for r in reps]
        warm = [r["warm"]["seconds"] for r in reps if r.get("warm")]
        peak = [r["peak_rss_kib"] for r in reps]
        rounds = list(zip(*[r["cold"]["round_seconds"] for r in reps]))
        rss_rounds = list(zip(*[r["cold"]["round_maxrss_kib"] for r in reps]))
        out[(ds, m)] = {
            "n": reps[0]["n"], "n_unique": reps[0]["n_unique"],
            "cold_best": min(cold), "cold_median": statistics.median(cold),
            "cold_cpu_best": min(cold_cpu), "cold_cpu_median": statistics.median(cold_cpu),
            "warm_best": min(warm) if warm else None, "warm_median": statistics.median(warm) if warm else None,
            "prep_median": statistics.median(r["prep_seconds"] for r in reps),
            "peak_rss_mib_max": _mib(max(peak)), "peak_rss_mib_median": _mib(statistics.median(peak)),
            "rss_before_mib_median": _mib(statistics.median(r["rss_before_run_kib"] for r in reps)),
            "round_seconds_median": [statistics.median(v) for v in rounds],
            "round_maxrss_mib_median": [_mib(statistics.median(v)) for v in rss_rounds],
            "candidates": reps[0]["cold"]["candidates"],
            "calibration": reps[0]["cold"]["calibration"],
            "repeats": len(reps),
        }
    return out


def print_tables(summary: dict, traced: dict) -> None:
    print()
    hdr = (f"{'dataset':<17}{'n':>9}{'unique':>8}  {'method':<8}{'cold s best/med':>17}{'cpu s best/med':>16}"
           f"{'warm s best/med':>17}{'prep s':>8}{'RSS before':>11}{'peak RSS MiB max/med':>22}")
    print(hdr)
    print("-" * len(hdr))
    for (ds, m), s in summary.items():
        warm = f"{s['warm_best']:.3f}/{s['warm_median']:.3f}" if s["warm_best"] is not None else "-"
        print(f"{ds:<17}{s['n']:>9,}{s['n_unique']:>8,}  {m:<8}{s['cold_best']:>8.3f}/{s['cold_median']:<8.3f}"
              f"{s['cold_cpu_best']:>7.3f}/{s['cold_cpu_median']:<8.3f}{warm:>17}{s['prep_median']:>8.2f}{s['rss_before_mib_median']:>10.0f}M"
              f"{s['peak_rss_mib_max']:>13.0f}/{s['peak_rss_mib_median']:<8.0f}")
    print("\nPer round (cold run, median over repeats): seconds | process peak-RSS high-water after the round (MiB)")
    for (ds, m), s in summary.items():
        secs = " ".join(f"{v:.3f}" for v in s["round_seconds_median"])
        rss = " ".join(f"{v:.0f}" for v in s["round_maxrss_mib_median"])
        print(f"  {ds:<17}{m:<8} m_t={s['candidates'][0]}..{s['candidates'][-1]}  s: {secs}")
        print(f"  {'':<17}{'':<8} {'':<{len(str(s['candidates'][0])) + len(str(s['candidates'][-1])) + 6}} "
              f"MiB: {rss}   [{', '.join(s['calibration'])}]")
    if traced:
        print("\nPer round peak of traced allocations (tracemalloc, MiB; numpy buffers included):")
        for (ds, m), r in traced.items():
            vals = " ".join(f"{b / 2**20:.1f}" for b in r["cold"]["round_traced_peak_bytes"])
            print(f"  {ds:<17}{m:<8} {vals}")


def _verdict(s: dict, target: float) -> str:
    if s["cold_median"] <= target:
        return "MET (median)"
    if s["cold_best"] <= target:
        return "met at best only"
    return "MISSED"


def print_targets(summary: dict) -> list[str]:
    lines = []
    for method, label, target, why in (("hard", "Hard", TARGET_HARD_SECONDS, "the reference Tab-PE library"),
                                       ("bf-soft", "BF-Soft", TARGET_BF_SOFT_SECONDS, "2x the reference")):
        s = summary.get(("adult", method))
        if not s:
            continue
        warm = f"{s['warm_median']:.3f}" if s["warm_median"] is not None else "-"
        lines.append(f"Adult {label} 8 rounds: wall {s['cold_best']:.3f} s best / {s['cold_median']:.3f} s median "
                     f"(cpu {s['cold_cpu_median']:.3f} s, warm {warm} s) vs target <= {target} s ({why}): "
                     f"{_verdict(s, target)}")
    for ds in ("adult10x", "adult10x-nogroup"):
        peaks = [s["peak_rss_mib_max"] for (d, _), s in summary.items() if d == ds]
        if peaks:
            ok = "MET" if max(peaks) * 2**20 < TARGET_PEAK_BYTES_10X else "MISSED"
            lines.append(f"{ds}: largest process peak RSS over methods and repeats {max(peaks):.0f} MiB "
                         f"vs target < 1024 MiB: {ok}")
    for method, target in TARGET_CPU_15.items():
        s = summary.get(("adult", method))
        if s:
            lines.append(f"issue 15: Adult {method} 8 rounds CPU {s['cold_cpu_best']:.3f} s best / "
                         f"{s['cold_cpu_median']:.3f} s median vs target <= {target} s CPU: "
                         f"{'MET (median)' if s['cold_cpu_median'] <= target else 'MISSED'}")
    if lines:
        print(f"\nTargets (issues 2 and 15; load average now {os.getloadavg()[0]:.2f}):")
        for line in lines:
            print("  " + line)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=DEFAULT_DATASETS,
                    help=f"comma list from {', '.join(DATASETS)} (default {DEFAULT_DATASETS})")
    ap.add_argument("--methods", default=DEFAULT_METHODS, help=f"comma list (default {DEFAULT_METHODS})")
    ap.add_argument("--seed", type=int, default=0, help="algorithm seed and 10x resampling seed (default 0)")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per (dataset, method) (default 3)")
    ap.add_argument("--inner", type=int, default=2, help="runs inside each process: 1 cold + warm ones (default 2)")
    ap.add_argument("--rho", type=float, default=1e-3, help="total zCDP budget (default 1e-3)")
    ap.add_argument("--tau", type=float, default=0.03, help="BF-Soft temperature (default 0.03)")
    ap.add_argument("--blas-threads", type=int, default=0,
                    help="set OPENBLAS/OMP/MKL_NUM_THREADS in the children (default: inherit the environment)")
    ap.add_argument("--tracemalloc", action="store_true", help="extra run per pair with per-round traced peaks")
    ap.add_argument("--json", default=None, help="also write all measurements to this JSON file")
    ap.add_argument("--child", nargs=2, metavar=("DATASET", "METHOD"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        try:
            out = child(args.child[0], args.child[1], args.seed, args.rho, args.tau, max(args.inner, 1),
                        args.tracemalloc)
        except FileNotFoundError as exc:
            print(str(exc), file=sys.stderr)
            return 3
        print(json.dumps(out))
        return 0

    from blowfish_core.algorithm.methods import METHODS

    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for d in datasets:
        if d not in DATASETS:
            ap.error(f"--datasets: unknown dataset {d!r}; use {', '.join(DATASETS)}")
    for m in methods:
        if m not in METHODS:
            ap.error(f"--methods: unknown method {m!r}; use {', '.join(METHODS)}")
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")

    print(f"bench_synthesis: rho={args.rho:g}, tau={args.tau:g}, seed={args.seed}, 8 rounds, "
          f"512/1024 candidates, release 512; {args.repeats} fresh process(es) per pair; "
          f"{os.cpu_count()} cores (shared); python {platform.python_version()}; BLAS threads: "
          f"{args.blas_threads or os.environ.get('OPENBLAS_NUM_THREADS', 'library default')}")
    results: dict = {}
    traced: dict = {}
    skipped: set = set()
    for rep in range(args.repeats):  # interleave repeats so load changes hit every pair alike
        for ds in datasets:
            if ds in skipped:
                continue
            for m in methods:
                r = spawn(ds, m, args)
                if r is None:
                    continue
                if "skipped" in r:
                    print(f"  skipping {ds}: {r['skipped']}")
                    skipped.add(ds)
                    break
                results.setdefault((ds, m), []).append(r)
                print(f"  [{rep + 1}/{args.repeats}] {ds:<17}{m:<8} cold {r['cold']['seconds']:.3f} s"
                      f" (cpu {r['cold']['cpu_seconds']:.3f} s)"
                      + (f", warm {r['warm']['seconds']:.3f} s" if r.get("warm") else "")
                      + f", peak RSS {_mib(r['peak_rss_kib']):.0f} MiB", flush=True)
    if args.tracemalloc:
        for ds in datasets:
            if ds in skipped:
                continue
            for m in methods:
                r = spawn(ds, m, args, trace=True)
                if r and "skipped" not in r:
                    traced[(ds, m)] = r
    summary = summarize(results)
    print_tables(summary, traced)
    targets = print_targets(summary)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        from blowfish_core.io import atomic

        doc = {"args": vars(args), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
               "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                           "note": "shared with other engineers"},
               "summary": {f"{d}/{m}": s for (d, m), s in summary.items()},
               "runs": {f"{d}/{m}": r for (d, m), r in results.items()},
               "tracemalloc": {f"{d}/{m}": r for (d, m), r in traced.items()},
               "targets": targets}
        atomic.write_text(args.json, json.dumps(doc, indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
