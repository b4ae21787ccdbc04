"""Whole-process CPU of the CLI against a bare pandas read, and the import-time table (issue 23).

Targets (issue 23 "Targets"; printed, never asserted):

* ``synth --preset adult --method M --rho 3e-3 --seeds 0`` (M = tab-pe, hard, bf-soft): whole
  process CPU (user + sys of the child, ``resource.getrusage(RUSAGE_CHILDREN)``) over the CPU of a
  bare ``python -c "import numpy, pandas; pandas.read_csv(adult)"``, run alternating with it:
  <= 2.0.
* ``--intake``: the whole-file intake of Adult (``io.intake.intake_csv``, every column)
  over ``pandas.read_csv`` of the same file in the same process: <= 5.
* ``--imports``: ``python -X importtime`` of ``import blowfish_core``, the ``Synthesizer`` import, CLI
  ``--help`` and ``presets``, seeded and release ``synth`` runs on XOR-3 (rho, epsilon, Laplace, three
  methods over two seeds), a public ``pilot`` and a Bank release: the seconds of all imports and of
  each heavy package (numpy, pandas, scipy, ...) the command loaded, and the whole process's CPU
  (median of ``--repeats`` alternating runs).

Bytecode (``--bytecode``): ``cached`` (default) runs the children as a user's Python does, writing
``__pycache__`` (``PYTHONDONTWRITEBYTECODE`` removed from their environment) after one warm-up run, so
the engine's modules load from bytecode as pandas' do in the bare read; ``none`` keeps the calling
environment (this workplace sets ``PYTHONDONTWRITEBYTECODE=1``: every run then compiles the engine's
~95 modules from source, about 0.1-0.2 s CPU that the bare read never pays).

The machine is shared: the load average is printed with every figure, and each figure is the
median of ``--pairs`` alternating runs.  Needs ../shared/data/adult.csv (skips with a message).

Usage (from the repository root)::

    python benchmarks/bench_process.py [--pairs 5] [--methods tab-pe,hard,bf-soft] [--intake] [--imports]
                                       [--repeats 5] [--cases "CLI --help,CLI pilot xor3"] [--against DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ADULT = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "adult.csv"))


#: the children's environment (--bytecode: 'cached' drops PYTHONDONTWRITEBYTECODE; main() sets it).
CHILD_ENV: dict[str, str] | None = None


def child_cpu(argv: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process running ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=CHILD_ENV)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def load() -> str:
    return "load %.2f %.2f %.2f" % os.getloadavg()


def bench_cli(methods: list[str], pairs: int) -> None:
    bare = [sys.executable, "-c", f"import numpy, pandas; pandas.read_csv({ADULT!r})"]
    print(f"# whole-process CPU, synth --preset adult --rho 3e-3 --seeds 0 vs bare pandas read ({load()})")
    with tempfile.TemporaryDirectory() as tmp:
        for m in methods:
            cli = [sys.executable, "-m", "blowfish_core", "synth", "--preset", "adult", "--method", m,
                   "--rho", "3e-3", *(["--tau", "0.03"] if m == "bf-soft" else []), "--seeds", "0", "--out", os.path.join(tmp, "s.csv"),
                   "--report", os.path.join(tmp, "r.json")]
            ratios, cpus, bares = [], [], []
            child_cpu(cli)  # warm-up: writes the bytecode with --bytecode cached (not counted)
            for _ in range(pairs):
                b, _w = child_cpu(bare)
                c, _w = child_cpu(cli)
                ratios.append(c / b), cpus.append(c), bares.append(b)
            print(f"{m:8s} CLI CPU {statistics.median(cpus):.2f} s, bare read {statistics.median(bares):.2f} s, "
                  f"ratio median {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f}; "
                  f"target <= 2.0) {load()}")


INTAKE_CHILD = r"""
import time, pandas, sys
from blowfish_core.io.intake import intake_csv
path = sys.argv[1]
t = []
for _ in range(3):
    t0 = time.process_time(); pandas.read_csv(path); t1 = time.process_time()
    intake_csv(path); t2 = time.process_time()
    t.append((t1 - t0, t2 - t1))
read = min(a for a, _ in t); intake = min(b for _, b in t)
print(f"pandas.read_csv {read:.3f} s CPU, intake_csv {intake:.3f} s CPU, ratio {intake / read:.1f} (target <= 5)")
"""


def bench_intake() -> None:
    print(f"# whole-file intake of Adult vs pandas.read_csv, same process, best of 3 ({load()})")
    subprocess.run([sys.executable, "-c", INTAKE_CHILD, ADULT], check=False, cwd=ROOT)


HEAVY = ("numpy", "pandas", "scipy", "networkx", "opendp", "dp_accounting", "jax", "mbi", "dask",
         "matplotlib", "plotly", "streamlit")


def importtime(argv: list[str], root: str = ROOT) -> tuple[float, dict[str, float], float]:
    """(seconds of all imports, {heavy package: seconds}, CPU seconds of the whole process) of
    ``python -X importtime argv``.

    A package's figure is the sum of the self times of its modules (its own import work, wherever
    and whenever in the run it happened); a package never imported is absent.  ``root`` is the
    checkout the command runs in (its ``blowfish_core`` is the one imported: ``-m``/``-c`` put the
    working directory first on sys.path).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-X", "importtime", *argv], cwd=root,
                         capture_output=True, text=True, check=False).stderr
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    heavy: dict[str, float] = {}
    total = 0
    for line in out.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self, cum, raw = line[len("import time:"):].split("|")
        root = raw.strip().split(".")[0]
        if len(raw) - len(raw.lstrip()) == 1:
            total += int(cum)
        if root in HEAVY:
            heavy[root] = heavy.get(root, 0.0) + int(_self) / 1e6
    return total / 1e6, heavy, cpu


def import_cases(tmp: str) -> list[tuple[str, list[str]]]:
    """The commands of the import-time table: (label, python argv)."""
    out = ["--out", os.path.join(tmp, "s.csv"), "--report", os.path.join(tmp, "r.json")]
    xor = ["-m", "blowfish_core", "synth", "--preset", "xor3", "--method", "bf-soft", "--tau", "0.03"]
    return [("import blowfish_core", ["-c", "import blowfish_core"]),
            ("Synthesizer import", ["-c", "from blowfish_core import Synthesizer"]),
            ("CLI --help", ["-m", "blowfish_core", "--help"]),
            ("CLI presets", ["-m", "blowfish_core", "presets"]),
            ("CLI synth xor3 seeded", [*xor, "--rho", "0.003", "--seeds", "0", *out]),
            ("CLI synth xor3 release", [*xor, "--rho", "0.003", *out]),
            ("synth release --epsilon", [*xor, "--epsilon", "1", "--delta", "1e-5", *out]),
            ("synth release laplace", [*xor, "--mechanism", "laplace", "--epsilon", "1", *out]),
            ("synth 3 methods 2 seeds", ["-m", "blowfish_core", "synth", "--preset", "xor3", "--method",
                                         "tab-pe,hard,bf-soft", "--tau", "0.03", "--rho", "0.003", "--seeds", "0,1",
                                         *out]),
            ("CLI pilot xor3", ["-m", "blowfish_core", "pilot", "--preset", "xor3", "--rho", "0.003"]),
            ("synth bank release", ["-m", "blowfish_core", "synth", "--preset", "bank", "--method", "bf-soft",
                                    "--tau", "0.03", "--rho", "0.003", *out])]


def bench_imports(repeats: int = 1, against: str | None = None) -> None:
    """The import-time table: the median over ``repeats`` runs of each command.

    With ``against`` (another checkout, e.g. ``git worktree add /tmp/before <commit>``) every command
    runs there and here in turn, and the table has a "before" (there) and an "after" (here) column.
    """
    trees = [("before", against), ("after", ROOT)] if against else [("", ROOT)]
    print(f"# python -X importtime: all imports (wall inside the importer), the heavy packages loaded and the "
          f"whole process's CPU, seconds, median of {repeats} ({load()})")
    with tempfile.TemporaryDirectory() as tmp:
        cases = [c for c in import_cases(tmp) if not ONLY or c[0] in ONLY]
        runs: dict[tuple[str, str], list[tuple[float, dict[str, float], float]]] = {
            (label, t): [] for label, _ in cases for t, _r in trees}
        for _ in range(repeats):
            for label, argv in cases:
                for t, root in trees:
                    runs[label, t].append(importtime(argv, root))
        for label, _argv in cases:
            cells = []
            for t, _root in trees:
                rs = runs[label, t]
                total = statistics.median(r[0] for r in rs)
                cpu = statistics.median(r[2] for r in rs)
                names = {k for r in rs for k in r[1]}
                heavy = {k: statistics.median(r[1].get(k, 0.0) for r in rs) for k in names}
                text = ", ".join(f"{k} {v:.2f}" for k, v in sorted(heavy.items(), key=lambda kv: -kv[1]))
                cells.append(f"{t + ' ' if t else ''}imports {total:5.2f} s, CPU {cpu:5.2f} s | {text or '-'}")
            print(f"{label:24s} " + "  ||  ".join(cells))
    print(f"# ({load()})")


#: labels of import_cases to run (--cases), all when empty
ONLY: set[str] = set()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--methods", default="tab-pe,hard,bf-soft")
    ap.add_argument("--intake", action="store_true", help="only the intake ratio")
    ap.add_argument("--bytecode", choices=["cached", "none"], default="cached",
                    help="cached: children write and read __pycache__ as a user's Python does (default); "
                         "none: keep this environment's PYTHONDONTWRITEBYTECODE")
    ap.add_argument("--imports", action="store_true", help="only the import-time table")
    ap.add_argument("--repeats", type=int, default=1, help="runs per command of the import-time table (median)")
    ap.add_argument("--cases", default="", help="comma list of import-table labels to run (default all)")
    ap.add_argument("--against", metavar="DIR", help="another checkout: the import table alternates it (before) "
                                                     "with this one (after)")
    args = ap.parse_args()
    global CHILD_ENV
    if args.bytecode == "cached":
        CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    print(f"# bytecode: {args.bytecode} (PYTHONDONTWRITEBYTECODE in this environment: "
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE', 'unset')})")
    ONLY.update(c.strip() for c in args.cases.split(",") if c.strip())
    if not os.path.exists(ADULT):
        print(f"skipped: {ADULT} not found")
        return
    only = args.intake or args.imports
    if args.imports or not only:
        bench_imports(args.repeats, args.against)
    if args.intake or not only:
        bench_intake()
    if not only:
        bench_cli(args.methods.split(","), args.pairs)


if __name__ == "__main__":
    main()
