"""Helpers of the CLI tests: write a text file into tmp_path, and run the CLI in-process with its
output captured (the run must never print a traceback)."""

from __future__ import annotations

import os

from blowfish_core.interfaces.cli.main import main


def write_file(tmp_path, name: str, text: str) -> str:
    """Write ``text`` (UTF-8, newlines as given) to ``tmp_path/name``; return the path."""
    p = os.path.join(tmp_path, name)
    with open(p, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return p


def run_cli(capsys, argv: list[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``python -m blowfish_core ARGV``, run in-process."""
    rc = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err
