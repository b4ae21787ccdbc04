"""Lean imports (issue 23): each front-end command, run in a fresh interpreter, loads only the heavy
packages it needs.  No timing: the module list after the command (figures: benchmarks/bench_process.py
--imports and docs/BENCHMARKS.md).

scipy is absent on every default path (seeded and release synth with Gaussian or Laplace noise, from
rho or from epsilon, the t-intervals of several seeds, the public pilot, the Synthesizer); networkx
only draws the app's policy graphs; the UI and reference-method stacks are never loaded by the engine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.abspath(__file__))
if os.path.basename(ROOT) == "tests":
    ROOT = os.path.dirname(ROOT)

#: never imported by any of these commands: the UI (streamlit, plotly), the reference methods' stack
#: (jax, mbi), the Dask engine and plotting.
NEVER = {"streamlit", "plotly", "jax", "mbi", "dask", "distributed", "matplotlib"}
HEAVY = NEVER | {"numpy", "pandas", "scipy", "networkx", "opendp", "dp_accounting", "pyarrow"}

#: run a command line of ``python -m blowfish_core`` (or a snippet) and print the heavy packages loaded
_PROBE = r"""
import json, runpy, sys
argv, watch = json.loads(sys.argv[1]), set(json.loads(sys.argv[2]))
if argv[0] == "-c":
    exec(argv[1], {"__name__": "__main__"})
else:
    sys.argv = ["blowfish_core", *argv]
    try:
        runpy.run_module("blowfish_core", run_name="__main__", alter_sys=True)
    except SystemExit as e:
        if e.code not in (0, None):
            raise
heavy = sorted({m.split(".")[0] for m in sys.modules} & watch)
print("LOADED " + json.dumps(heavy))
"""


def loaded(argv: list[str], tmp_path) -> set[str]:
    """The heavy packages in sys.modules after ``python -m blowfish_core argv`` (or ``-c code``)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(argv), json.dumps(sorted(HEAVY))], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("LOADED ")][-1]
    return set(json.loads(line[len("LOADED "):]))


_OPENDP_BRINGS: set[str] = set()


def _opendp_brings(tmp_path) -> set[str]:
    """The heavy packages ``import opendp.prelude`` loads by itself in a fresh interpreter (cached)."""
    if not _OPENDP_BRINGS:
        _OPENDP_BRINGS.update(loaded(["-c", "import opendp.prelude"], tmp_path) | {"opendp"})
    return _OPENDP_BRINGS


def _synth(tmp_path, *args: str) -> list[str]:
    return ["synth", "--preset", "xor3", "--n", "3000", "--rounds", "3", "--population", "64x3", "--release", "64",
            *args, "--out", str(tmp_path / "s.csv"), "--report", str(tmp_path / "r.json"), "--quiet"]


def test_help_imports_no_engine_module_and_no_numpy(tmp_path):
    assert loaded(["--help"], tmp_path) == set()
    assert loaded(["synth", "--help"], tmp_path) <= {"numpy"}  # the synth parser's tables, no data library


def test_synthesizer_import_is_numpy_only(tmp_path):
    assert loaded(["-c", "from blowfish_core import Synthesizer"], tmp_path) <= {"numpy"}
    assert loaded(["-c", "import blowfish_core"], tmp_path) == set()


@pytest.mark.parametrize("label, args, allowed", [
    ("seeded bf-soft", ["--method", "bf-soft", "--tau", "0.03", "--rho", "0.003", "--seeds", "0"], set()),
    ("seeded, three methods, two seeds (t-intervals)",
     ["--method", "tab-pe,hard,bf-soft", "--tau", "0.03", "--rho", "0.003", "--seeds", "0,1"], set()),
    ("seeded from epsilon", ["--method", "bf-soft", "--tau", "0.03", "--epsilon", "1", "--delta", "1e-5",
                             "--seeds", "0"], set()),
    ("release gaussian", ["--method", "bf-soft", "--tau", "0.03", "--rho", "0.003"], {"opendp"}),
    ("release gaussian from epsilon", ["--method", "bf-soft", "--tau", "0.03", "--epsilon", "1",
                                       "--delta", "1e-5"], {"opendp"}),
    ("release laplace", ["--method", "bf-soft", "--tau", "0.03", "--mechanism", "laplace", "--epsilon", "1"],
     {"opendp"}),
])
def test_synth_default_paths_load_no_scipy(tmp_path, label, args, allowed):
    got = loaded(_synth(tmp_path, *args), tmp_path)
    if "opendp" in allowed:  # what OpenDP's own import brings (opendp.prelude loads scikit-learn, hence scipy,
        allowed = allowed | _opendp_brings(tmp_path)  # whenever scikit-learn is installed): not ours to avoid
    assert got <= {"numpy", "pandas", "pyarrow"} | allowed, (label, got)  # no scipy, networkx, dp_accounting
    assert not got & NEVER


def test_pilot_loads_no_scipy(tmp_path):
    got = loaded(["pilot", "--preset", "xor3", "--n", "3000", "--rho", "0.003", "--rounds", "3", "--population", "64x3",
                  "--release", "64", "--seeds", "0,1", "--tau-grid", "0.03", "--quiet"], tmp_path)
    assert got <= {"numpy", "pandas", "pyarrow"}, got


def test_presets_with_a_taxonomy_tree_load_no_networkx(tmp_path):
    """Bank's job attribute is hierarchical: its tree metric is numpy (no networkx, no pandas)."""
    assert loaded(["presets"], tmp_path) <= {"numpy"}


def test_synthesizer_fit_sample_loads_no_scipy(tmp_path):
    code = ("import blowfish_core as bc\n"
            "from blowfish_core.io.presets import get_preset, load_preset_data\n"
            "from blowfish_core.algorithm.evolution import SynthConfig\n"
            "p = get_preset('xor3'); d = load_preset_data(p, n=2000)\n"
            "cfg = SynthConfig(rounds=2, population=[64, 64], release=64)\n"
            "s = bc.Synthesizer(schema=p.schema, policy=p.default_policy(), method='bf-soft', tau=0.03, rho=0.003,"
            " seed=0, config=cfg).fit(d.private)\n"
            "assert len(s.sample(50)) == 50\n")
    got = loaded(["-c", code], tmp_path)
    assert got <= {"numpy", "pandas", "pyarrow"}, got
