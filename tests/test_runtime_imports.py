"""The runtime (codegen/runtime/) stands alone (issue 22 item 5): generated wrappers import it, so it
imports neither the compiler (codegen.<anything but runtime>: jinja2, the spec loader) nor generated
code (`generated`, a user's package). Scanned in the source, imports inside functions and
importlib.import_module("...") included, so a lazy import cannot slip past."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RUNTIME = Path(__file__).resolve().parent.parent / "codegen" / "runtime"
#: codegen/__init__.py loads it whenever anything under codegen is imported: a constant, no compiler.
ALLOWED_OUTSIDE = {"codegen._version"}


def imported_modules(tree: ast.AST, package: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in `tree` (a module of `package`)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolved against the module's package
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names if module == "codegen"]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("import_module", "__import__") and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.append((node.lineno, node.args[0].value))
    return found


def forbidden(module: str) -> bool:
    top = module.split(".")
    if top[0] == "generated":
        return True
    if top[0] != "codegen" or module in ALLOWED_OUTSIDE:
        return False
    return len(top) == 1 or top[1] != "runtime"


def runtime_violations() -> list[str]:
    bad = []
    for path in sorted(RUNTIME.rglob("*.py")):
        rel = path.relative_to(RUNTIME.parent.parent)
        package = ".".join(rel.with_suffix("").parts[:-1])
        for line, module in imported_modules(ast.parse(path.read_text(), str(path)), package):
            if forbidden(module):
                bad.append(f"{rel}:{line} imports {module}")
    return bad


def test_runtime_imports_neither_the_compiler_nor_generated_code() -> None:
    assert runtime_violations() == []


@pytest.mark.parametrize(("source", "package", "expected"), [
    ("from codegen.dtypes import X", "codegen.runtime", ["codegen.dtypes"]),
    ("def f():\n    from codegen.linemarks import LineMap", "codegen.runtime", ["codegen.linemarks"]),
    ("from .. import render", "codegen.runtime", ["codegen", "codegen.render"]),
    ("from ..model import Loc", "codegen.runtime", ["codegen.model"]),
    ("import generated.torch", "codegen.runtime", ["generated.torch"]),
    ("import importlib\nimportlib.import_module('generated.torch')", "codegen.runtime", ["generated.torch"]),
    ("from codegen import render", "codegen.runtime", ["codegen", "codegen.render"]),
    ("from codegen.runtime import host\nfrom . import checks\nfrom codegen._version import v", "codegen.runtime", []),
])
def test_the_scan_catches_each_way_of_importing(source: str, package: str, expected: list[str]) -> None:
    found = [m for _, m in imported_modules(ast.parse(source), package) if forbidden(m)]
    assert found == expected
