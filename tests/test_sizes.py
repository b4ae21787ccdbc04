"""Issue 22 "Small modules": no engine module over 600 lines, no engine function over 80 lines of code.

A function's size counts its code lines: its docstring, blank lines and comment-only lines are not
counted (numpydoc sections make a public function's docstring long on purpose).  EXCEPTIONS lists any
function allowed over the limit, with the reason; it is empty.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "blowfish_core"
MODULE_MAX, FUNCTION_MAX = 600, 80
#: "path:function" -> why it may be longer (none today).
EXCEPTIONS: dict[str, str] = {}


def code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> int:
    """Lines of ``node`` that are code: not its docstring, not blank, not a comment only."""
    doc: set[int] = set()
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        doc = set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    end = node.end_lineno or node.lineno
    return sum(1 for i in range(node.lineno, end + 1)
               if i not in doc and lines[i - 1].strip() and not lines[i - 1].lstrip().startswith("#"))


def long_functions(root: Path = ENGINE) -> dict[str, int]:
    out = {}
    for path in sorted(root.rglob("*.py")):
        src = path.read_text(encoding="utf-8")
        lines = src.splitlines()
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = code_lines(node, lines)
                if n > FUNCTION_MAX:
                    out[f"{path.relative_to(root.parent)}:{node.name}"] = n
    return out


def test_no_engine_module_over_600_lines():
    big = {str(p.relative_to(ENGINE.parent)): n for p in ENGINE.rglob("*.py")
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_MAX}
    assert not big, f"modules over {MODULE_MAX} lines (split them by idea): {big}"


def test_no_engine_function_over_80_code_lines():
    big = {k: n for k, n in long_functions().items() if k not in EXCEPTIONS}
    assert not big, f"functions over {FUNCTION_MAX} code lines (docstrings not counted): {big}"


def test_the_size_check_can_fail(tmp_path):
    pkg = tmp_path / "blowfish_core"
    pkg.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_MAX + 1))
    (pkg / "toy.py").write_text(f'def toy():\n    """Doc.\n\n    More doc.\n    """\n{body}\n', encoding="utf-8")
    assert long_functions(pkg) == {"blowfish_core/toy.py:toy": FUNCTION_MAX + 1 + 1}
