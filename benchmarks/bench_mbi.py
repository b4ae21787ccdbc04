"""MST / AIM (the mbi reference methods): CPU per seed, whole-process CPU and PWErr (issue 23).

Targets (issue 23 "MST/AIM in seconds"; printed, never asserted):

* ``--process``: whole-process CPU (user + sys of the child, ``resource.getrusage(RUSAGE_CHILDREN)``)
  of ``synth --preset adult --method M --rho 1e-2 --seeds 0``: MST <= 4 x Hard, AIM <= 3 x MST.
  Printed with a cold jax compilation cache (a fresh empty directory per run) and a warm one (a
  directory the first run filled), median of ``--pairs`` runs each.
* ``--quality``: PWErr (metrics.pwerr against the preset's private split, 20 numeric bins) and CPU of
  MST and AIM on Adult and Bank (``--rho``, default 1e-2 for both), ``--seeds`` seeds in ONE process
  per (dataset, method), the way a sweep runs them: per-seed figures, mean with a 95% Student-t
  interval (metrics.t_interval) and min-max.
* ``--bank10``: MST on Bank with 10 modelled columns (the app's case, through the CLI, ``--data
  bank-full.csv --columns ...``): seconds per seed from the report and whole-process CPU.

``--against DIR`` runs the same figures with another checkout's ``blowfish_core`` (e.g. ``/work/main``,
the code before) in the same way, one after the other (never in parallel).  The machine is shared: the
load average is printed with every figure.  Needs ../shared/data (skips with a message).

Usage (from the repository root)::

    python benchmarks/bench_mbi.py [--process] [--quality] [--bank10] [--pairs 3] [--seeds 0,1,2]
                                   [--rho 1e-2] [--methods mst,aim] [--datasets adult,bank] [--against DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "data"))
BANK10 = "age,job,marital,education,default,balance,housing,loan,contact,y"


def load() -> str:
    return "load %.2f %.2f %.2f" % os.getloadavg()


def _env(root: str, cache: str | None) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=root, PYTHONWARNINGS="ignore")
    if cache is not None:
        env["BLOWFISH_JAX_CACHE"] = cache
    return env


def child(argv: list[str], root: str, cache: str | None = None, capture: bool = False) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, stdout) of one child process running ``argv`` in ``root``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(argv, check=True, cwd=root, env=_env(root, cache), text=True,
                         stdout=subprocess.PIPE if capture else subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, out.stdout or ""


def synth_argv(method: str, tmp: str, rho: str = "1e-2", extra: tuple[str, ...] = ("--preset", "adult"),
               seeds: str = "0") -> list[str]:
    return [sys.executable, "-m", "blowfish_core", "synth", *extra, "--method", method, "--rho", rho,
            "--seeds", seeds, "--out", os.path.join(tmp, "s.csv"), "--report", os.path.join(tmp, "r.json"), "--quiet"]


def bench_process(trees: list[tuple[str, str]], pairs: int) -> None:
    print(f"# whole-process CPU, synth --preset adult --rho 1e-2 --seeds 0, median of {pairs} ({load()})")
    with tempfile.TemporaryDirectory() as tmp:
        for label, root in trees:
            warm = os.path.join(tmp, f"warm-{label}")
            child(synth_argv("mst", tmp), root, warm)  # fill the warm cache once (not counted)
            child(synth_argv("aim", tmp), root, warm)
            cpu: dict[str, list[float]] = {}
            for i in range(pairs):
                cpu.setdefault("hard", []).append(child(synth_argv("hard", tmp), root)[0])
                for m in ("mst", "aim"):
                    cold = os.path.join(tmp, f"cold-{label}-{m}-{i}")
                    cpu.setdefault(f"{m} cold", []).append(child(synth_argv(m, tmp), root, cold)[0])
                    cpu.setdefault(f"{m} warm", []).append(child(synth_argv(m, tmp), root, warm)[0])
            med = {k: statistics.median(v) for k, v in cpu.items()}
            for k, v in cpu.items():
                print(f"{label:6s} {k:9s} CPU median {med[k]:6.2f} s (min {min(v):.2f}, max {max(v):.2f})")
            for c in ("cold", "warm"):
                print(f"{label:6s} {c}: MST / Hard = {med[f'mst {c}'] / med['hard']:.2f} (target <= 4), "
                      f"AIM / MST = {med[f'aim {c}'] / med[f'mst {c}']:.2f} (target <= 3)  {load()}")


QUALITY_CHILD = r"""
import json, sys, time
from blowfish_core.io.presets import get_preset, load_preset_data
from blowfish_core.model.metrics import pwerr
from blowfish_core.baselines import fit_mst, fit_aim
ds, method, rho, seeds = sys.argv[1], sys.argv[2], float(sys.argv[3]), [int(s) for s in sys.argv[4].split(",")]
pre = get_preset(ds)
df = load_preset_data(pre).private
X = pre.schema.encode(df)
fit = {"mst": fit_mst, "aim": fit_aim}[method]
for s in seeds:
    c, w = time.process_time(), time.perf_counter()
    r = fit(pre.schema, df, rho, seed=s)
    cpu, wall = time.process_time() - c, time.perf_counter() - w
    info = {k: r.info.get(k) for k in ("iters", "iters_run", "rounds", "round_iters")}
    print(json.dumps({"seed": s, "pwerr": float(pwerr(pre.schema, X, r.X)), "cpu": cpu, "wall": wall, "info": info}),
          flush=True)
"""


def _interval(v: list[float]) -> str:
    sys.path.insert(0, ROOT)
    from blowfish_core.model.metrics import t_interval

    m, lo, hi = t_interval(v)
    return f"{m:.4f} ± {hi - m:.4f} (t95) [min {min(v):.4f}, max {max(v):.4f}]"


def bench_quality(trees, datasets, methods, seeds: str, rho: str) -> dict:
    print(f"# PWErr and CPU per seed, rho = {rho}, seeds {seeds}, one process per (dataset, method) ({load()})")
    out: dict = {}
    for label, root in trees:
        for d in datasets:
            for m in methods:
                with tempfile.TemporaryDirectory() as cache:
                    cpu, wall, text = child([sys.executable, "-c", QUALITY_CHILD, d, m, rho, seeds], root, cache,
                                            capture=True)
                rows = [json.loads(x) for x in text.splitlines() if x.startswith("{")]
                out[label, d, m] = rows
                errs = [r["pwerr"] for r in rows]
                per = ", ".join(f"s{r['seed']} {r['pwerr']:.4f} / {r['cpu']:.1f} s" for r in rows)
                print(f"{label:6s} {d:5s} {m}: PWErr {_interval(errs)}; per seed (PWErr / CPU) {per}; "
                      f"process CPU {cpu:.1f} s wall {wall:.1f} s; {rows[-1]['info'] if rows else ''}  {load()}",
                      flush=True)
    return out


def bench_bank10(trees, seeds: str, rho: str) -> None:
    path = os.path.join(DATA, "bank-full.csv")
    print(f"# MST on Bank, 10 modelled columns ({BANK10}), rho = {rho}, seeds {seeds} ({load()})")
    with tempfile.TemporaryDirectory() as tmp:
        for label, root in trees:
            argv = synth_argv("mst", tmp, rho, ("--data", path, "--columns", BANK10), seeds)
            cpu, wall, _ = child(argv, root, os.path.join(tmp, f"cache-{label}"))
            with open(os.path.join(tmp, "r.json")) as f:
                rep = json.load(f)
            secs = [round(float(r.get("seconds", float("nan"))), 1) for r in rep.get("runs", [])]
            print(f"{label:6s} bank10 MST: seconds per seed {secs}; whole process CPU {cpu:.1f} s, wall {wall:.1f} s "
                  f" {load()}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--process", action="store_true", help="whole-process CPU ratios")
    ap.add_argument("--quality", action="store_true", help="PWErr and CPU per seed")
    ap.add_argument("--bank10", action="store_true", help="MST on Bank with 10 modelled columns")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--rho", default="1e-2")
    ap.add_argument("--methods", default="mst,aim")
    ap.add_argument("--datasets", default="adult,bank")
    ap.add_argument("--against", metavar="DIR", help="another checkout (before), run first")
    ap.add_argument("--before-only", action="store_true", help="with --against: only that checkout")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(DATA, "adult.csv")):
        print(f"skipped: {DATA}/adult.csv not found")
        return
    trees = ([("before", args.against)] if args.against else []) + ([] if args.before_only else [("after", ROOT)])
    everything = not (args.process or args.quality or args.bank10)
    if args.process or everything:
        bench_process(trees, args.pairs)
    if args.quality or everything:
        bench_quality(trees, args.datasets.split(","), args.methods.split(","), args.seeds, args.rho)
    if args.bank10 or everything:
        bench_bank10(trees, args.seeds, args.rho)
    print(f"# done ({load()})")


if __name__ == "__main__":
    main()
