"""The engine in layers (issue 22): no import circles in blowfish_core, never streamlit, and
the import-linter ``layers`` contract of pyproject.toml holds.

Every ``import`` / ``from ... import`` of every module counts: at module level, inside
functions and methods, and under ``if TYPE_CHECKING:`` -- a circle hidden in a function body
is still a circle.  Relative imports are resolved against the importing module; importing
``a.b.c`` also runs the packages ``a`` and ``a.b`` (their ``__init__``), so those count too.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = "blowfish_core"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (path, is_package) for every module of blowfish_core."""
    out = {}
    for path in sorted((ROOT / PKG).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_pkg)
    return out


def _resolve(module: str | None, level: int, importer: str, is_pkg: bool) -> str:
    if level == 0:
        return module or ""
    base = importer.split(".") if is_pkg else importer.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _imports(tree: ast.AST, importer: str, is_pkg: bool) -> list[tuple[str, int]]:
    """(imported dotted name, line) for every import statement anywhere in ``tree``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node.module, node.level, importer, is_pkg)
            out.append((base, node.lineno))
            out += [(f"{base}.{a.name}", node.lineno) for a in node.names if a.name != "*"]
    return out


def import_graph() -> tuple[nx.DiGraph, dict[str, list[tuple[str, int]]]]:
    """The module graph of blowfish_core (an edge per module that an import statement runs)."""
    mods = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    every: dict[str, list[tuple[str, int]]] = {}
    for name, (path, is_pkg) in mods.items():
        found = _imports(ast.parse(path.read_text(encoding="utf-8"), str(path)), name, is_pkg)
        every[name] = found
        ancestors = {".".join(name.split(".")[:k]) for k in range(1, len(name.split(".")) + 1)}
        for target, line in found:
            if target not in mods:
                continue  # a name imported from a module (the module itself is listed too)
            parts = target.split(".")
            # importing a.b.c runs a/__init__ and a/b/__init__ first (not the importer's own packages)
            for k in range(2, len(parts) + 1):
                t = ".".join(parts[:k])
                if t in mods and t != name and t not in ancestors:
                    g.add_edge(name, t, line=line)
    return g, every


def test_no_import_circles_function_level_imports_included():
    g, _ = import_graph()
    assert g.number_of_nodes() > 60 and g.number_of_edges() > 200  # the walk saw the package
    cycles = list(nx.simple_cycles(g))
    shown = [" -> ".join(c + [c[0]]) + "  (lines " + ", ".join(
        str(g.edges[c[i], c[(i + 1) % len(c)]]["line"]) for i in range(len(c))) + ")" for c in cycles[:10]]
    assert not cycles, f"{len(cycles)} import circle(s) in blowfish_core:\n" + "\n".join(shown)


def test_engine_never_imports_streamlit():
    _, every = import_graph()
    bad = [f"{m}:{line} imports {t}" for m, found in every.items() for t, line in found
           if t.split(".")[0] in ("streamlit", "plotly")]
    assert not bad, "\n".join(bad)


def test_the_layers_contract_is_written_once_in_pyproject():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert text.count("[[tool.importlinter.contracts]]") >= 1 and 'type = "layers"' in text
    assert "lint-imports" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_lint_imports_passes():
    exe = shutil.which("lint-imports") or (
        str(Path(sys.executable).with_name("lint-imports")) if Path(sys.executable).with_name("lint-imports").exists()
        else None)
    if exe is None:
        pytest.skip("lint-imports (package import-linter, in the test extra) is not installed: "
                    "pip install -r requirements.txt")
    run = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_shared_data_is_found_beside_the_checkout():
    """The presets' ../shared/data folder is the checkout's sibling, wherever the module sits in the layers
    (a layer move once pointed it one level too low and the Adult/Bank tests skipped silently)."""
    import os

    from blowfish_core.io.presets import SHARED_DATA

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    assert SHARED_DATA == os.path.normpath(os.path.join(root, "..", "shared", "data"))
