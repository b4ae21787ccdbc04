"""Helpers of the run-bundle tests: run a bundle's scripts in fresh processes, execute its run.ipynb
(nbclient on an ipykernel, in the bundle folder), and write the UCI semicolon layout of bank-full."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def env() -> dict[str, str]:
    """The environment of a fresh process: this checkout's blowfish_core first, PYTHON for run.sh."""
    e = dict(os.environ)
    e["PYTHONPATH"] = str(REPO) + os.pathsep + e.get("PYTHONPATH", "")
    e["PYTHON"] = sys.executable
    return e


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run ``cmd`` in ``cwd`` (fresh process); fails the test with its output when it fails."""
    p = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr + p.stdout
    return p


def execute_notebook(path: Path, timeout: int = 600) -> None:
    """Execute the notebook at ``path`` in its own folder (as Jupyter does) with nbclient, in a
    kernel of this interpreter that imports this checkout's blowfish_core."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = env()["PYTHONPATH"]  # the kernel inherits the environment
    try:
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        client.execute()
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def write_uci_semicolon(src: str | os.PathLike, dst: Path) -> bytes:
    """Write ``src`` (a comma-separated CSV) in UCI bank-full's original layout: ';' separated, the
    header and every text cell in double quotes, numbers bare.  Returns the bytes written."""
    def cell(v: str) -> str:
        try:
            float(v)
            return v
        except ValueError:
            return '"' + v + '"'

    with open(src, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    lines = [";".join(f'"{h}"' for h in rows[0])] + [";".join(cell(v) for v in r) for r in rows[1:]]
    raw = ("\n".join(lines) + "\n").encode("utf-8")
    dst.write_bytes(raw)
    return raw
