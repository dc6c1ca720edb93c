"""A grading backend for tests of the web layer, honest about what it fakes.

:class:`ReferenceOnlyBackend` starts no sandbox and runs no code. It reads each track's
test names and options from ``tests.py`` by its syntax tree (as the server's Run filter
does), and it grades by comparison of text: the reference solution passes every test,
code that does not compile gets the real syntax-error verdict, and any other code fails
every test with a message that says it was not run. Routes, the store, the pages and the
limits in front of grading are real; whether a submission is *right* is not decided here.

Code that holds the line ``# fake: time out`` gets the verdict of a run the sandbox
stopped at its first test (built by graders.grading.verdicts from such a job's outcome): that
test times out and the others are ``not_run``.
"""

from __future__ import annotations

import ast
import contextlib
from typing import Any

from graders.grading import pyparse, verdicts
from graders.grading.backend import BackendStatus
from graders.grading.catalog import Exercise
from graders.grading.isolation import JobLimits
from graders.grading.jobs import JobOutcome
from graders.grading.references import Reference, TestOptions
from graders.grading.results import GradeResult, Mode, Status, TestResult
from graders.sandbox import wire
from graders.sandbox.wire import FrameType

NOT_RUN = "not run: the fake grading backend of the tests passes only the reference solution"
LIMITS = JobLimits(5, 10, 2**30, 65536, 64 * 2**20, 64)
TIME_OUT = "# fake: time out"


def declared_tests(tests_code: str) -> list[TestOptions]:
    """The ``@example(...)`` and ``@test(...)`` declarations of a tests module, read
    without running it."""
    found = []
    tree = pyparse.parse(tests_code)
    # Module-level constants an option may name (tolerances=TOLERANCES).
    constants: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                with contextlib.suppress(ValueError):  # not a literal: no option names it
                    constants[target.id] = ast.literal_eval(node.value)
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            kind = getattr(decorator.func, "id", "") if isinstance(decorator, ast.Call) else ""
            if isinstance(decorator, ast.Call) and kind in ("example", "test"):
                options: dict[str, Any] = {
                    k.arg: constants[k.value.id]
                    if isinstance(k.value, ast.Name)
                    else ast.literal_eval(k.value)
                    for k in decorator.keywords
                    if k.arg
                }
                found.append(
                    TestOptions(
                        id=options.get("id", node.name),
                        name=ast.literal_eval(decorator.args[0]),
                        example=kind == "example",
                        hint=options.get("hint"),
                        rtol=options.get("rtol", 1e-5),
                        atol=options.get("atol", 1e-8),
                        exact_dtype=options.get("exact_dtype", False),
                        reveal=options.get("reveal", "full"),
                        tolerances=options.get("tolerances") or {},
                    )
                )
    return found


class ReferenceOnlyBackend:
    """See the module docstring. ``graded`` lists every (slug, track, mode) it was asked."""

    def __init__(self) -> None:
        self.started = False
        self.graded: list[tuple[str, str, Mode]] = []

    def start(self) -> None:
        self.started = True

    def close(self) -> None:
        self.started = False

    @property
    def status(self) -> BackendStatus:
        return BackendStatus(None, None, None)  # no sandbox, no workers: nothing runs

    def reference(self, exercise: Exercise, track: str, variant: int | None = None) -> Reference:
        tests = declared_tests(exercise.track(track).tests)
        return Reference(f"fake:{exercise.version}:{track}", tests, {})

    def grade(
        self,
        exercise: Exercise,
        track: str,
        code: str,
        mode: Mode,
        job_id: str | None = None,
        variant: int | None = None,
    ) -> GradeResult:
        self.graded.append((exercise.slug, track, mode))
        reference = self.reference(exercise, track)
        ids = reference.ids(example=mode == "run")
        ctx = verdicts.Context(exercise.slug, track, mode, ids, reference, LIMITS)
        try:
            compile(code, "solution.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            error = exc if isinstance(exc, SyntaxError) else SyntaxError(str(exc))
            return verdicts.syntax_error(ctx, error)
        if TIME_OUT in code.splitlines():
            # The code loaded, then the first test ran past the time limit.
            loaded = wire.Frame({"type": FrameType.CODE_LOADED})
            return verdicts.build(ctx, JobOutcome(frames=[loaded], killed_for="wall", elapsed=10))
        right = code.strip() == exercise.track(track).solution.strip()
        tests = [
            TestResult(
                name=reference.options(test_id).name,
                id=test_id,
                status=Status.PASS if right else Status.FAIL,
                message="" if right else NOT_RUN,
                hint=reference.options(test_id).hint,
            )
            for test_id in ids
        ]
        passed = sum(t.status == Status.PASS for t in tests)
        return GradeResult(
            exercise=exercise.slug,
            track=track,
            mode=mode,
            status=Status.PASS if right else Status.FAIL,
            message=f"{passed}/{len(tests)} tests passed",
            passed=passed,
            total=len(tests),
            tests=tests,
        )
