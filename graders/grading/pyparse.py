"""``ast.parse`` behind one lock.

CPython 3.11's conversion of its C syntax tree into ``ast`` objects keeps its recursion
depth in shared state, so two threads parsing at once can fail with "AST constructor
recursion depth mismatch" (CPython gh-106905). The server parses in more than one thread:
a catalog reload beside a request that compiles a tests module.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    with _LOCK:
        return ast.parse(source, filename)
