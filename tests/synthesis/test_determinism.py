"""Determinism (issue 7): same inputs and seeds -> byte-identical releases and reports
across two separate processes.

The CLI runs twice in fresh Python processes (with different PYTHONHASHSEED values,
so nothing may depend on set/dict hash order).  Every CSV is compared byte for byte;
the JSON report is compared after removing the timing fields -- every key named
``seconds`` (per run) or ``seconds_total`` (whole comparison), listed in TIMING_KEYS --
which measure wall-clock time and legitimately differ.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMING_KEYS = {"seconds", "seconds_total", "round_seconds"}
ARGS = ["synth", "--preset", "xor3", "--n", "500", "--rounds", "2", "--population", "32x2",
        "--release", "50", "--seeds", "0,1", "--method", "tab-pe,hard,bf-soft", "--tau", "0.03",
        "--rho", "0.01", "--quiet"]


def strip_timing(obj):
    """Copy of a JSON value without the TIMING_KEYS (at any depth)."""
    if isinstance(obj, dict):
        return {k: strip_timing(v) for k, v in obj.items() if k not in TIMING_KEYS}
    if isinstance(obj, list):
        return [strip_timing(v) for v in obj]
    return obj


def run_cli(out: str, hashseed: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    cmd = [sys.executable, "-m", "blowfish_core", *ARGS, "--out", os.path.join(out, "synth.csv"),
           "--out-dir", os.path.join(out, "all"), "--report", os.path.join(out, "report.json")]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    dirs = [str(tmp_path_factory.mktemp(f"run{i}")) for i in (1, 2)]
    procs = [run_cli(d, seed) for d, seed in zip(dirs, ("1", "2"))]
    for p in procs:
        assert p.returncode == 0, p.stderr
    return dirs, procs


def _csvs(d: str) -> list[str]:
    return sorted(["synth.csv"] + [os.path.join("all", f) for f in os.listdir(os.path.join(d, "all"))])


def test_every_csv_is_byte_identical_across_processes(two_runs):
    (a, b), _ = two_runs
    files = _csvs(a)
    assert files == _csvs(b)
    assert len(files) == 1 + 3 * 2  # first release + 3 methods x 2 seeds
    for f in files:
        with open(os.path.join(a, f), "rb") as fa, open(os.path.join(b, f), "rb") as fb:
            ba, bb = fa.read(), fb.read()
        assert ba == bb, f"{f} differs between the two processes"
        assert ba.count(b"\n") == 51  # header + 50 released records


def test_report_identical_except_timing_fields(two_runs):
    (a, b), _ = two_runs
    with open(os.path.join(a, "report.json"), "rb") as fa, open(os.path.join(b, "report.json"), "rb") as fb:
        ra, rb = json.loads(fa.read()), json.loads(fb.read())
    assert "seconds_total" in ra and all("seconds" in r for r in ra["runs"])
    sa = json.dumps(strip_timing(ra), sort_keys=False)
    sb = json.dumps(strip_timing(rb), sort_keys=False)
    assert sa == sb
    assert not any(k in sa for k in ('"seconds"', '"seconds_total"'))


def test_printed_summary_identical(two_runs):
    _, (pa, pb) = two_runs
    keep = lambda s: [ln for ln in s.splitlines() if not ln.startswith("wrote ")]  # noqa: E731
    assert keep(pa.stdout) == keep(pb.stdout) and keep(pa.stdout)


def test_different_seeds_give_different_releases(two_runs):
    """Not vacuous: the seed actually drives the release."""
    (a, _), _ = two_runs
    with open(os.path.join(a, "all", "bf-soft_seed0.csv"), "rb") as f0, \
            open(os.path.join(a, "all", "bf-soft_seed1.csv"), "rb") as f1:
        assert f0.read() != f1.read()
