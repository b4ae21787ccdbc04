"""Run the reproduction experiments and regenerate the report (issue 6).

Usage (from the repository root)::

    python -m experiments.run --all                 # every experiment, full scale (see each SCALES)
    python -m experiments.run --quick               # every experiment, reduced scale (< 10 min)
    python -m experiments.run --quick --only fig2,fig7
    python -m experiments.report                    # rebuild REPORT.md + figures from cached JSON

Options: --workers N (default 2), --no-cache (recompute every run), --no-report.
Experiment ids: fig2 (budget sweeps, Table 4), fig3 (temperature sweeps), fig4
(decomposition), fig6a (policies), pilot (public pilot sign accuracy), trainsize
(XOR-3 training size), fig7 (bound and calibration cost), fig6b (Bank policies with a
pilot-selected method), ablate (investigation: old vs new schedule reading, reference-library
details, threshold H), fig8 (matched noise ratios, App. F.4), fig10 (XOR-3 temperature-reach
grid, App. F.6).

Raw results go to experiments/results/<id>.<mode>.json; finished runs are also
appended to experiments/results/runs_cache.<engine-hash>.jsonl so shared runs are
computed once and an interrupted run resumes (the hash covers the engine sources,
so a changed engine never reuses stale runs).  Progress is printed and appended to
experiments/results/progress.<mode>.log.  Every run is seeded: rerunning gives the
same numbers.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import hashlib  # noqa: E402
import multiprocessing as mp  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from . import (exp_ablate, exp_bound, exp_budget, exp_decomposition, exp_fig6b, exp_pilot,  # noqa: E402
               exp_marginals, exp_matched, exp_policies, exp_temperature, exp_tempreach, exp_trainsize,
               exp_level)
from .common import (RESULTS_DIR, ROOT, TASK_DEFAULTS, RunCache, _worker_init, environment,  # noqa: E402
                     load_json, round_sensitivities, run_tasks, save_json, task_key)

EXPERIMENTS = {m.ID: m for m in (exp_budget, exp_temperature, exp_decomposition, exp_policies, exp_fig6b,
                                 exp_pilot, exp_trainsize, exp_bound, exp_ablate, exp_marginals, exp_level,
                                 exp_matched, exp_tempreach)}
#: the blowfish_core layers whose sources determine a run's result (every .py below them, recursively;
#: the front ends in interfaces/ and the teaching/checking tools in analysis/ are left out).  The layout
#: of issue 22 moved the engine into these folders: the old flat file list hashed nothing.
ENGINE_DIRS = ("base", "model", "privacy", "io", "algorithm", "synthesis", "baselines", "workflows")


def engine_hash() -> str:
    """Short hash of the engine sources that determine a run's result."""
    h = hashlib.sha256()
    core = os.path.join(ROOT, "blowfish_core")
    files = [os.path.join(core, "__init__.py")]
    for d in ENGINE_DIRS:
        for dirpath, dirnames, names in os.walk(os.path.join(core, d)):
            dirnames.sort()
            files += [os.path.join(dirpath, f) for f in sorted(names) if f.endswith(".py")]
    if len(files) < 10:
        raise RuntimeError(f"engine_hash found only {len(files)} engine files under {core}: the layout changed")
    for p in files:
        with open(p, "rb") as fh:
            h.update(os.path.relpath(p, core).encode() + fh.read())
    return h.hexdigest()[:12]


def compact_task(t: dict) -> dict:
    """A task without its default fields (common.task(**compact) restores it)."""
    keep = ("dataset", "method", "rho", "seed")
    return {k: v for k, v in t.items() if k in keep or v != TASK_DEFAULTS[k]}


def compact_run(t: dict, r: dict) -> dict:
    """One stored run: the task and its result (sensitivity_t kept only for the decomposition's E_M)."""
    res = {"error": r["error"], "seconds": r["seconds"], "cpu_seconds": r.get("cpu_seconds"),
           "calibration": r["calibration"], "n": r["n"]}
    if t["method"] == "soft-hard-noise":
        res["sensitivity_t"] = round_sensitivities(r)
    return {"task": compact_task(t), "result": res}


def run_experiment(mod, mode: str, pool, cache, log) -> dict:
    """Run one experiment at ``mode`` scale; write and return its result JSON."""
    scale = mod.SCALES[mode]
    t0 = time.perf_counter()
    if getattr(mod, "KIND", "synth") == "compute":
        raw = mod.compute(scale, log=log)
        out = {"id": mod.ID, "mode": mode, "scale": scale, "raw": raw, "stats": {}}
    else:
        tasks = mod.plan(scale)
        results, stats = run_tasks(tasks, pool=pool, cache=cache, log=log, label=mod.ID)
        if hasattr(mod, "plan_targets"):  # two-stage experiment: stage 2 is planned from stage 1's results only
            more = mod.plan_targets(scale, results)
            res2, st2 = run_tasks(more, pool=pool, cache=cache, log=log, label=f"{mod.ID} targets")
            results.update(res2)
            tasks = list(tasks) + list(more)
            stats = {k: (stats[k] + st2[k] if k != "runs" else len({task_key(t) for t in tasks})) for k in stats}
        runs = [compact_run(t, results[task_key(t)]) for t in {task_key(t): t for t in tasks}.values()]
        out = {"id": mod.ID, "mode": mode, "scale": scale, "runs": runs, "stats": stats}
    out["wall_seconds"] = round(time.perf_counter() - t0, 2)
    out["environment"] = environment()
    save_json(os.path.join(RESULTS_DIR, f"{mod.ID}.{mode}.json"), out)
    log(f"[{mod.ID}] finished in {out['wall_seconds']:.1f} s")
    return out


def verify(mode: str, k: int, seed: int = 0) -> int:
    """Re-execute k stored runs (seeded random choice over every experiment of ``mode``); 0 if all match exactly."""
    import random

    from .common import execute, task

    pool = []
    for i in EXPERIMENTS:
        p = os.path.join(RESULTS_DIR, f"{i}.{mode}.json")
        if os.path.exists(p):
            pool += [(i, r) for r in load_json(p).get("runs", [])]
    picks = random.Random(seed).sample(pool, min(k, len(pool)))
    rows = []
    for i, r in picks:
        e = execute(task(**r["task"]))["error"]
        rows.append({"experiment": i, "task": r["task"], "stored": r["result"]["error"], "rerun": e,
                     "identical": e == r["result"]["error"]})
        print(f"{i}: {r['task']} stored {r['result']['error']!r} rerun {e!r} {'OK' if e == r['result']['error'] else 'DIFFERENT'}")
    out = {"mode": mode, "checked": len(rows), "identical": sum(x["identical"] for x in rows), "runs": rows,
           "engine_hash": engine_hash(), "environment": environment()}
    save_json(os.path.join(RESULTS_DIR, f"verify.{mode}.json"), out)
    print(f"{out['identical']}/{out['checked']} reruns identical")
    return 0 if out["identical"] == out["checked"] else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.run", description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--all", action="store_true", help="full scale (default)")
    g.add_argument("--quick", action="store_true", help="reduced scale, under 10 minutes")
    ap.add_argument("--only", default="", help="comma-separated experiment ids: " + ",".join(EXPERIMENTS))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-cache", action="store_true", help="recompute every run")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--verify", type=int, default=0, metavar="K",
                    help="re-execute K randomly chosen stored runs of the chosen mode and check the errors are identical")
    args = ap.parse_args(argv)
    mode = "quick" if args.quick else "full"
    ids = [s.strip() for s in args.only.split(",") if s.strip()] or list(EXPERIMENTS)
    bad = [i for i in ids if i not in EXPERIMENTS]
    if bad:
        ap.error(f"unknown experiment id(s) {bad}; use {', '.join(EXPERIMENTS)}")
    os.makedirs(RESULTS_DIR, exist_ok=True)
    if args.verify:
        return verify(mode, args.verify)
    logpath = os.path.join(RESULTS_DIR, f"progress.{mode}.log")

    def log(msg: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        print(line, flush=True)
        with open(logpath, "a") as f:
            f.write(line + "\n")

    cache = None if args.no_cache else RunCache(os.path.join(RESULTS_DIR, f"runs_cache.{engine_hash()}.jsonl"))
    env = environment()
    log(f"start: mode={mode}, experiments={','.join(ids)}, workers={args.workers}, cpu_count={env['cpu_count']}, "
        f"load={env['load_average_at_start']}, engine={engine_hash()}")
    t0 = time.perf_counter()
    walls = {}
    ctx = mp.get_context("fork") if sys.platform != "win32" else mp.get_context("spawn")
    pool = ctx.Pool(args.workers, initializer=_worker_init) if args.workers > 1 else None
    try:
        for i in ids:
            walls[i] = run_experiment(EXPERIMENTS[i], mode, pool, cache, log)["wall_seconds"]
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    total = round(time.perf_counter() - t0, 2)
    inv = {"experiments": ids, "wall_seconds": walls, "total_wall_seconds": total, "workers": args.workers,
           "command": "python -m experiments.run " + " ".join(sys.argv[1:] if argv is None else argv),
           "engine_hash": engine_hash(), "environment": env}
    path = os.path.join(RESULTS_DIR, f"run.{mode}.json")
    summary = load_json(path) if os.path.exists(path) else {"mode": mode, "invocations": []}
    summary["invocations"].append(inv)
    save_json(path, summary)
    log(f"all done in {total:.1f} s")
    if not args.no_report:
        from . import report

        path = report.generate()
        log(f"report written: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
