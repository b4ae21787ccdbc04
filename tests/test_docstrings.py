"""Every public function of the engine has numpydoc ``Parameters`` / ``Returns`` / ``Raises``.

Issue 22 ("Public API"): numpydoc sections on every public function.  "Public" here is every
module-level function whose name and module path have no leading underscore, plus the public
methods of the classes ``blowfish_core.__all__`` exports (docs/DECISIONS.md, "numpydoc scope").
The checks are numpydoc's own validator (``numpydoc.validate``) restricted to the section codes
below, and one of ours, because numpydoc has no code for a missing ``Raises``: a function whose
body holds a ``raise`` statement names what it raises.
"""

from __future__ import annotations

import ast
import inspect
import pathlib
import re

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

import blowfish_core as bc  # noqa: E402

ROOT = pathlib.Path(bc.__file__).parent
# numpydoc codes checked: no docstring, parameter not documented / unknown / without a
# description, no Returns section although the function returns something.
CODES = {"GL08", "PR01", "PR02", "PR07", "RT01"}
LAYERS = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith("_"))


def _public_modules(layer: str) -> list[pathlib.Path]:
    return [f for f in sorted((ROOT / layer).rglob("*.py"))
            if not any(part.startswith("_") and part != "__init__.py" for part in f.relative_to(ROOT).parts)]


def _dotted(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _own_raise(fn: ast.FunctionDef) -> bool:
    """True if ``fn``'s own body (not a nested def or class) holds a ``raise``."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _problems(dotted: str, node: ast.FunctionDef) -> list[str]:
    result = numpydoc_validate.validate(dotted)
    out = [f"{dotted}: {code} {msg}" for code, msg in result["errors"] if code in CODES]
    doc = ast.get_docstring(node) or ""
    if _own_raise(node) and not re.search(r"^\s*Raises\n\s*-{3,}", doc, re.M):
        out.append(f"{dotted}: RS01 raises but has no Raises section")
    return out


def _functions(layer: str):
    for path in _public_modules(layer):
        module = _dotted(path)
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                yield f"{module}.{node.name}", node


@pytest.mark.parametrize("layer", LAYERS)
def test_public_functions_have_numpydoc_sections(layer):
    problems = [p for dotted, node in _functions(layer) for p in _problems(dotted, node)]
    assert not problems, f"{len(problems)} problems in blowfish_core/{layer}:\n" + "\n".join(problems)


def _exported_methods():
    for name in bc.__all__:
        obj = getattr(bc, name)
        if not inspect.isclass(obj) or not obj.__module__.startswith("blowfish_core"):
            continue
        source = inspect.getsource(obj)
        tree = ast.parse(source if not source[0].isspace() else "if 1:\n" + source)
        cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))
        for node in cls.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and not any(
                    isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
                yield f"{obj.__module__}.{obj.__qualname__}.{node.name}", node


def test_exported_class_methods_have_numpydoc_sections():
    problems = [p for dotted, node in _exported_methods() for p in _problems(dotted, node)]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


def test_the_checker_can_fail(tmp_path, monkeypatch):
    """A function with an undocumented parameter and an undocumented raise is caught."""
    src = 'def f(x):\n    """Do."""\n    raise ValueError(x)\n'
    (tmp_path / "toy_docprobe.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    node = ast.parse(src).body[0]
    codes = [p.split()[1] for p in _problems("toy_docprobe.f", node)]
    assert "PR01" in codes and "RS01" in codes
