"""What is mounted into the sandbox imports only the standard library, numpy, torch and itself.

import-linter (``make lint``) checks the layers and forbids server packages by name; this is
the allowlist beside it: a new third-party import in ``graders/sandbox/`` fails here even
when no contract names it, since the sandbox sees the Python installation but must not come
to depend on anything in it beyond numpy and torch.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SANDBOX = Path(__file__).resolve().parents[1] / "graders" / "sandbox"
ALLOWED_PACKAGES = {"numpy", "torch"}
OWN = "graders.sandbox"


def imported_modules(source: str) -> list[tuple[int, str]]:
    """Every absolute module a source imports, at any depth (a function's lazy import too)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: inside the package by construction
                continue
            module = node.module or ""
            if module == "graders":  # ``from graders import x`` names the module graders.x
                found += [(node.lineno, f"graders.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, module))
    return found


def disallowed(source: str) -> list[str]:
    bad = []
    for line, module in imported_modules(source):
        top = module.partition(".")[0]
        if top in sys.stdlib_module_names or top in ALLOWED_PACKAGES or top == "__future__":
            continue
        if module == OWN or module.startswith(OWN + "."):
            continue
        bad.append(f"line {line}: {module}")
    return bad


def test_the_sandbox_package_imports_only_the_standard_library_numpy_torch_and_itself() -> None:
    files = sorted(SANDBOX.glob("*.py"))
    assert len(files) > 5, f"no sandbox package at {SANDBOX}"
    problems = {f.name: disallowed(f.read_text()) for f in files}
    assert not {name: bad for name, bad in problems.items() if bad}


def test_the_check_sees_each_kind_of_import_that_would_break_the_boundary() -> None:
    source = """
import json, numpy as np
from torch import nn
from graders.sandbox import wire
from . import records
import fastapi
from graders.grading import compare
from graders import settings


def later():
    import sqlalchemy.orm
"""
    assert disallowed(source) == [
        "line 6: fastapi",
        "line 7: graders.grading",
        "line 8: graders.settings",
        "line 12: sqlalchemy.orm",
    ]
