"""What the server sends a sandbox child: one frame holding the job.

The header (JSON) carries the code to run, which tests, the entry points and the limits;
the body carries the tests module already compiled (``marshal``), since compiling it in
every child would cost more than running most tests. Marshal data only ever flows from
the server into the sandbox, never back.
"""

from __future__ import annotations

import ast
import marshal
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from graders.catalog import Exercise
from graders.sandbox import JobLimits

FILENAME = "solution.py"
TESTS_FILENAME = "<tests>"


@dataclass(frozen=True)
class Job:
    header: dict[str, Any]
    body: bytes = field(default=b"", repr=False)


@lru_cache(maxsize=256)
def compiled_tests(source: str, examples_only: bool = False) -> bytes:
    """The tests module, compiled; with ``examples_only``, without the hidden tests."""
    tree = ast.parse(source, TESTS_FILENAME)
    if examples_only:
        tree.body = [node for node in tree.body if not _hidden_test(node)]
    return marshal.dumps(compile(tree, TESTS_FILENAME, "exec", dont_inherit=True))


def _hidden_test(node: ast.stmt) -> bool:
    """A function registered with ``@test(...)`` whose ``example=`` is not literally True.

    A Run job carries only the examples: the hidden tests' code, names and inputs never
    reach a process that runs learner code outside a Submit."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for decorator in node.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        func = call.func if call is not None else decorator
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name != "test":
            continue
        keywords = call.keywords if call is not None else []
        example = next((k.value for k in keywords if k.arg == "example"), None)
        return not (isinstance(example, ast.Constant) and example.value is True)
    return False


def job_for(
    exercise: Exercise,
    track: str,
    code: str,
    tests: list[str] | None,
    limits: JobLimits,
    examples_only: bool = False,
) -> Job:
    """A job running ``tests`` (None: all) of ``track`` against ``code``; with
    ``examples_only`` (Run), the job's tests module holds the examples alone."""
    tr = exercise.track(track)
    header = {
        "type": "job",
        "code": code,
        "filename": FILENAME,
        "entry_points": list(tr.entry_points),
        "tests": tests,
        "limits": limits.for_child(),
    }
    return Job(header, compiled_tests(tr.tests, examples_only))
