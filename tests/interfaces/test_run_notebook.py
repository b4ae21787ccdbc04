"""run.ipynb of a run bundle (issue 24): built with nbformat from run.py's code blocks (the same API
calls), executed with nbclient in the bundle folder, it writes run.py's release byte for byte."""

from __future__ import annotations

import json
import sys

import pytest

import blowfish_core as bc
from blowfish_core.algorithm.evolution import SynthConfig
from blowfish_core.interfaces.run_bundle import RunSettings, bundle_files, bundle_zip, py_blocks, write_bundle
from blowfish_core.interfaces.run_scripts import HERE_IPYNB, HERE_PY
from tests.bundle_helpers import execute_notebook, run

pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

XOR = bc.get_preset("xor3")
TINY = SynthConfig(rounds=2, population=[16, 16], release=20)


def settings(**kw) -> RunSettings:
    base = dict(schema=XOR.schema, policy=XOR.default_policy(), methods=["bf-soft", "hard"], seeds=[3], tau=0.03,
                rho=1e-3, preset="xor3", config=TINY)
    base.update(kw)
    return RunSettings(**base)


def test_notebook_cells_are_run_py_blocks():
    s = settings()
    nb = json.loads(bundle_files(s)["run.ipynb"])
    assert nb["nbformat"] == 4 and nb["metadata"]["kernelspec"]["name"] == "python3"
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    want = [c.replace(HERE_PY, HERE_IPYNB) for _, c in py_blocks(s)]
    assert code == want  # the same API calls as run.py, only the bundle folder is found differently
    assert all(c["outputs"] == [] for c in nb["cells"] if c["cell_type"] == "code")
    assert "for study, not for publication" in "".join(nb["cells"][0]["source"])
    assert bundle_zip(s) == bundle_zip(s)  # fixed cell ids: a deterministic archive


def test_run_ipynb_writes_run_py_release(tmp_path):
    """nbclient runs run.ipynb in the bundle folder: the same release as run.py (and so the CLI's)."""
    s = settings()
    files = write_bundle(s, tmp_path / "b")
    run([sys.executable, str(files["run.py"])], tmp_path)
    py = (tmp_path / "b" / "release.csv").read_bytes()
    (tmp_path / "b" / "release.csv").unlink()
    execute_notebook(files["run.ipynb"])
    assert (tmp_path / "b" / "release.csv").read_bytes() == py
    assert py.count(b"\n") == 21
