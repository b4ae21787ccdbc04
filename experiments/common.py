"""Shared plumbing of the reproduction experiments (issue 6).

A *task* is one synthesis run: a plain dict naming the dataset, method, budget
rho (zCDP, total over the T rounds), temperature tau, seed, policy and data table.
Every task is independent and fully seeded, so the same task always gives the same
error (paired random streams: see blowfish_core.algorithm.evolution.rng_for).  Tasks run in a
``multiprocessing`` pool; each worker loads and groups each data table once
(``grouped`` records shared by all its runs).  Finished tasks are appended to a run
cache (``results/runs_cache.jsonl``) keyed by the task, so experiments that share
runs (e.g. Hard at rho = 1e-4 is used by the budget sweep, the temperature sweep,
the policy and the pilot experiments) compute them once, and an interrupted run
resumes.

Task fields (defaults in :data:`TASK_DEFAULTS`):
    dataset   'adult' | 'bank' | 'xor3'
    method    one of blowfish_core.algorithm.methods.METHODS
    rho       total zCDP budget (> 0)
    tau       temperature (soft methods) or None
    seed      algorithm seed (paired across methods)
    protect   list of ``ATTR[=SPEC]`` items applied on top of the preset's default
              policy (Preset.policy_with), e.g. ["age=threshold:3"]
    table     'private' (default) | 'pilot' (3,000 held-out rows, Adult/Bank)
    ref       metric reference: 'private' (default: the table the run learned from)
              | 'pilot_ref' (held-out rows disjoint from the pilot) | 'xor_test'
              (a common 10,000-row XOR test set, App. F.9)
    n         XOR-k private size (default 12,000)
    data_seed XOR-k data seed (default 0)
    threshold_h, selection, children   ResampleMutate settings (ablations only; children = mutated
              children per kept parent in the rank rounds, default 1 = DESIGN §3's reading)
    release_rule  'top' (default: the engine's release, SynthConfig.release_mode -- the
              ``release`` candidates of C_T with the largest noisy counts of round T (each once),
              DESIGN §3) | 'sample' (the previous reading: draws proportional to the clipped
              noisy counts).  Passed to the engine; nothing is recomputed outside it.
    rank_by   'clipped' (default) | 'raw': which noisy counts rank the candidates of a rank
              round (reference-library detail, issue 12; ablation only)
    mutation_index  't' (default) | 't-1': round t mutates at the rate of index t or t-1
              (reference-library detail, issue 12; ablation only)
    schedule  None (default: the fields above) | a named engine schedule such as
              'hybrid-256x3' (the previous reading: 3 children per kept parent, sampled
              release), applied through SynthConfig.from_schedule when the engine has it
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from blowfish_core.io import atomic  # noqa: E402
from blowfish_core.model.distance import domain_index, group_records  # noqa: E402
from blowfish_core.algorithm.evolution import SCHEDULES, SynthConfig  # noqa: E402
from blowfish_core.synthesis.experiment import run_method  # noqa: E402
from blowfish_core.algorithm.methods import METHODS  # noqa: E402
from blowfish_core.model.metrics import t_interval  # noqa: E402
from blowfish_core.io.presets import get_preset, shared_path, split_table, xor_generate  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS_DIR = os.path.join(HERE, "results")
FIGURES_DIR = os.path.join(HERE, "figures")
REPORT_PATH = os.path.join(HERE, "REPORT.md")

TASK_DEFAULTS: dict[str, Any] = {
    "dataset": "adult", "method": "hard", "rho": 1e-4, "tau": None, "seed": 0, "protect": [],
    "table": "private", "ref": "private", "n": None, "data_seed": 0,
    "threshold_h": 0.0, "selection": "hybrid", "children": 1, "release_rule": "top",
    "rank_by": "clipped", "mutation_index": "t", "schedule": None,
}
#: fields left out of the key when at their default (added after the first cached runs).
OPTIONAL_FIELDS = ("children", "release_rule", "rank_by", "mutation_index", "schedule")
SOFT_METHODS = tuple(m.name for m in METHODS.values() if m.needs_tau)  # from the method table
#: size of the common XOR-3 test reference (App. F.9).
XOR_TEST_N = 10_000
XOR_TEST_SEED = 999_983
#: Adult pilot: 3,000 held-out rows; the remaining held-out rows are the pilot's reference.
PILOT_N = 3000
PILOT_SEED = 4242


def task(**kw: Any) -> dict[str, Any]:
    """A normalized task dict (defaults filled, tau dropped for hard votes, floats rounded)."""
    t = dict(TASK_DEFAULTS)
    unknown = set(kw) - set(t)
    if unknown:
        raise ValueError(f"unknown task field(s) {sorted(unknown)}")
    t.update(kw)
    if t["method"] not in SOFT_METHODS:
        t["tau"] = None
    t["rho"] = float(f"{float(t['rho']):.6g}")
    if t["tau"] is not None:
        t["tau"] = float(f"{float(t['tau']):.6g}")
    t["protect"] = list(t["protect"])
    t["seed"] = int(t["seed"])
    return t


def task_key(t: dict[str, Any]) -> str:
    """Canonical string key of a task (JSON, sorted keys; optional fields only when not default)."""
    return json.dumps({k: t[k] for k in sorted(TASK_DEFAULTS)
                       if k not in OPTIONAL_FIELDS or t.get(k, TASK_DEFAULTS[k]) != TASK_DEFAULTS[k]},
                      sort_keys=True, separators=(",", ":"))


def dataset_available(name: str) -> bool:
    """True when the preset's data exists (XOR-k is generated; Adult/Bank need ../shared/data)."""
    p = get_preset(name)
    return p.generator is not None or shared_path(p) is not None


# ----------------------------------------------------------------------------- data
@dataclass
class Prepared:
    schema: Any
    preset: Any
    grouped: tuple[np.ndarray, np.ndarray, np.ndarray]
    X: np.ndarray
    n: int


_DATA: dict[tuple, Prepared] = {}
_REFS: dict[tuple, np.ndarray] = {}


def _frames(name: str, n: int | None, data_seed: int):
    """(private, pilot, pilot_ref) DataFrames of a preset (pilot/pilot_ref None for XOR)."""
    preset = get_preset(name)
    if preset.generator is not None:
        n = preset.default_n if n is None else int(n)
        return preset, xor_generate(3 if name == "xor3" else int(name[3:]), n, data_seed), None, None
    path = shared_path(preset)
    if path is None:
        raise FileNotFoundError(f"{preset.csv_name} not found under ../shared/data")
    from blowfish_core.io.data import read_table

    full = read_table(path)
    preset.schema.check_columns(full)
    private = split_table(full, preset.private_fraction, 0, PILOT_N).private  # = load_preset_data's rows
    held = split_table(full, preset.private_fraction, 0, None).public
    perm = np.random.default_rng(PILOT_SEED).permutation(len(held))
    pilot = held.iloc[np.sort(perm[:PILOT_N])].reset_index(drop=True)
    ref = held.iloc[np.sort(perm[PILOT_N:])].reset_index(drop=True)
    return preset, private, pilot, ref


def prepared(name: str, table: str = "private", n: int | None = None, data_seed: int = 0) -> Prepared:
    """Encoded, grouped records of one table (cached per process)."""
    key = (name, table, n, data_seed)
    if key not in _DATA:
        preset, priv, pilot, ref = _frames(name, n, data_seed)
        df = {"private": priv, "pilot": pilot}[table]
        if df is None:
            raise ValueError(f"dataset {name} has no '{table}' table")
        X = preset.schema.encode(df)
        U, c = group_records(X)
        _DATA[key] = Prepared(preset.schema, preset, (U, c, domain_index(preset.schema, U)), X, X.shape[0])
        if ref is not None:
            _REFS[(name, "pilot_ref")] = preset.schema.encode(ref)
    return _DATA[key]


def reference(t: dict[str, Any], d: Prepared) -> np.ndarray:
    """Encoded reference table the task's error is measured against."""
    if t["ref"] == "private":
        return d.X
    if t["ref"] == "pilot_ref":
        prepared(t["dataset"], "pilot")
        return _REFS[(t["dataset"], "pilot_ref")]
    if t["ref"] == "xor_test":
        key = (t["dataset"], "xor_test")
        if key not in _REFS:
            k = int(t["dataset"][3:])
            _REFS[key] = d.schema.encode(xor_generate(k, XOR_TEST_N, XOR_TEST_SEED))
        return _REFS[key]
    raise ValueError(f"unknown reference {t['ref']!r}")


def execute(t: dict[str, Any]) -> dict[str, Any]:
    """Run one task; return {'error', 'seconds', 'calibration': {how: rounds}, 'sensitivity_t', 'n'}."""
    d = prepared(t["dataset"], t["table"], t["n"], t["data_seed"])
    policy = d.preset.policy_with(t["protect"]) if t["protect"] else d.preset.default_policy()
    cfg = synth_config(t)
    t0 = time.perf_counter()
    c0 = time.process_time()
    # by the method table's runner (Algorithm 1 or a reference/marginal method): synthesis.experiment.run_method
    res = run_method(d.schema, d.X, policy, t["method"], t["rho"], t["tau"], cfg, t["seed"], grouped=d.grouped)
    release = res.release
    _, fn = d.preset.metric_fn()
    err = float(fn(d.schema, reference(t, d), release))
    cal: dict[str, int] = {}
    for r in res.rounds:
        cal[r.calibration] = cal.get(r.calibration, 0) + 1
    return {"error": err, "seconds": round(time.perf_counter() - t0, 4),
            "cpu_seconds": round(time.process_time() - c0, 4), "calibration": cal,
            "sensitivity_t": [round(r.sensitivity, 6) for r in res.rounds], "n": d.n}


def round_sensitivities(result: dict[str, Any]) -> list[float]:
    """The per-round sensitivities Delta_t of a run result (``sensitivity_t``; results stored or
    cached before the rename carry them as ``delta_t``)."""
    return result["sensitivity_t"] if "sensitivity_t" in result else result["delta_t"]


def synth_config(t: dict[str, Any]) -> SynthConfig:
    """The engine configuration of a task (the release is the engine's; nothing is recomputed here).

    A task's ``schedule`` names an entry of blowfish_core.algorithm.evolution.SCHEDULES (None = the
    default reading); its children and release rule come from the schedule, the task's other
    ResampleMutate fields are applied on top (SynthConfig.from_schedule).
    """
    kw: dict[str, Any] = {"threshold_h": float(t["threshold_h"]), "selection": t["selection"],
                          "rank_by": t["rank_by"], "mutation_index": t["mutation_index"]}
    if t["schedule"] is None:
        return SynthConfig.from_schedule("hybrid", children=int(t["children"]), release_mode=t["release_rule"], **kw)
    if t["schedule"] not in SCHEDULES:
        raise ValueError(f"unknown schedule {t['schedule']!r}; known: {', '.join(SCHEDULES)}")
    return SynthConfig.from_schedule(t["schedule"], **kw)


def _execute_keyed(item: tuple[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    key, t = item
    return key, execute(t)


def _worker_init() -> None:
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(v, "1")


# ------------------------------------------------------------------------ run cache
class RunCache:
    """Append-only JSONL cache of finished tasks (key -> result)."""

    def __init__(self, path: str | None):
        self.path = path
        self.data: dict[str, dict[str, Any]] = {}
        if path and os.path.exists(path):
            with open(path) as f:
                for line in f:
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        rec = json.loads(line)
                    except json.JSONDecodeError:
                        continue  # a partial last line after an interruption
                    self.data[rec["key"]] = rec["result"]

    def get(self, key: str) -> dict[str, Any] | None:
        return self.data.get(key)

    def put(self, key: str, result: dict[str, Any]) -> None:
        self.data[key] = result
        if self.path:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(self.path, "a") as f:
                f.write(json.dumps({"key": key, "result": result}) + "\n")


def estimated_cost(t: dict[str, Any]) -> float:
    """Rough seconds of one task on this machine (for load balancing only)."""
    base = {"adult": 0.9, "bank": 1.4}.get(t["dataset"], 0.1)
    if t["table"] == "pilot":
        base *= 0.25
    if t["method"] == "soft-hard-noise":
        base *= 2.5
    elif t["method"] in SOFT_METHODS:
        base *= 1.2
    return base


def run_tasks(tasks: Iterable[dict[str, Any]], pool=None, cache: RunCache | None = None,
              log: Callable[[str], None] | None = None, label: str = "") -> tuple[dict[str, dict], dict[str, Any]]:
    """Run every distinct task (cached ones are reused); returns ({key: result}, stats).

    pool: a multiprocessing pool (None -> run in this process).  stats: new/reused
    counts, wall seconds and the summed run seconds of the new runs.
    """
    uniq: dict[str, dict[str, Any]] = {}
    for t in tasks:
        uniq.setdefault(task_key(t), t)
    out: dict[str, dict] = {}
    todo = []
    for k, t in uniq.items():
        hit = cache.get(k) if cache is not None else None
        if hit is not None:
            out[k] = hit
        else:
            todo.append((k, t))
    todo.sort(key=lambda kt: -estimated_cost(kt[1]))
    t0 = time.perf_counter()
    run_secs = cpu_secs = 0.0
    total = len(todo)
    if log:
        log(f"[{label}] {len(uniq)} runs: {len(out)} reused from cache, {total} to compute")
    it = pool.imap_unordered(_execute_keyed, todo, chunksize=1) if pool is not None else map(_execute_keyed, todo)
    step = max(1, total // 20)
    for i, (k, res) in enumerate(it, 1):
        out[k] = res
        run_secs += res["seconds"]
        cpu_secs += res.get("cpu_seconds", res["seconds"])
        if cache is not None:
            cache.put(k, res)
        if log and (i % step == 0 or i == total):
            el = time.perf_counter() - t0
            eta = el / i * (total - i)
            log(f"[{label}] {i}/{total} runs done, {el:.0f} s elapsed, about {eta:.0f} s left")
    stats = {"runs": len(uniq), "new": total, "reused": len(uniq) - total,
             "wall_seconds": round(time.perf_counter() - t0, 2), "run_seconds_new": round(run_secs, 2),
             "cpu_seconds_new": round(cpu_secs, 2)}
    return out, stats


# ---------------------------------------------------------------------- summaries
def lookup(results: dict[str, dict], **kw: Any) -> dict[str, Any]:
    """The result of the task built from kw (KeyError if it was not run)."""
    return results[task_key(task(**kw))]


def ci(values) -> dict[str, float]:
    """Mean and 95% Student-t interval: {'mean', 'lo', 'hi', 'n'}."""
    m, lo, hi = t_interval(list(values))
    return {"mean": m, "lo": lo, "hi": hi, "n": len(list(values))}


def reduction(e_hard, e_soft) -> list[float]:
    """Per paired run R_s = 100 (E_H - E_S) / E_H (App. F.2)."""
    from blowfish_core.model.metrics import relative_reduction

    return [float(v) for v in relative_reduction(np.asarray(e_hard), np.asarray(e_soft))]


def geom_grid(lo: float, hi: float, k: int) -> list[float]:
    return [float(f"{v:.3g}") for v in np.geomspace(lo, hi, k)]


# --------------------------------------------------------------------- environment
def environment() -> dict[str, Any]:
    """Versions, machine and git commit, for the report."""
    import pandas
    import scipy

    try:
        import matplotlib

        mpl = matplotlib.__version__
    except ImportError:  # pragma: no cover
        mpl = None
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
    except Exception:  # pragma: no cover
        commit = None
    load = None
    if hasattr(os, "getloadavg"):
        load = [round(v, 2) for v in os.getloadavg()]
    return {
        "python": platform.python_version(), "numpy": np.__version__, "pandas": pandas.__version__,
        "scipy": scipy.__version__, "matplotlib": mpl, "platform": platform.platform(),
        "machine": platform.machine(), "processor": platform.processor() or None,
        "cpu_count": os.cpu_count(), "load_average_at_start": load, "git_commit": commit,
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def save_json(path: str, obj: Any) -> None:
    """Write JSON atomically (blowfish_core.io.atomic); a top-level "runs" list is written one run per line
    (compact, diff-friendly)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)

    def write(f):
        if isinstance(obj, dict) and isinstance(obj.get("runs"), list):
            head = {k: v for k, v in obj.items() if k != "runs"}
            f.write(json.dumps(head, default=_json_default)[:-1] + ', "runs": [\n')
            f.write(",\n".join(json.dumps(r, separators=(",", ":"), default=_json_default) for r in obj["runs"]))
            f.write("\n]}\n")
        else:
            json.dump(obj, f, indent=1, default=_json_default)
    atomic.write_with(path, write)


def _json_default(o: Any):
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(type(o))


def load_json(path: str) -> Any:
    with open(path) as f:
        return json.load(f)


def fmt_sci(x: float | None, digits: int = 2) -> str:
    """1.1e-03 -> '1.1×10⁻³'-free plain text '1.1e-3' (Markdown friendly)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if x == 0:
        return "0"
    e = int(math.floor(math.log10(abs(x))))
    if -2 <= e <= 1:
        return f"{x:.{digits + 1}g}"
    return f"{x / 10 ** e:.{digits - 1}f}e{e}"


def engine_supports(t: dict[str, Any]) -> bool:
    """True when this engine can build the task's configuration (see synth_config)."""
    try:
        synth_config(t)
    except ValueError:
        return False
    return True
