"""``drill grade``: grade one file the way the service does, and print the result."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from drill.commands import Command
from graders.grading.results import TRUNCATION_MARKER, GradeResult, Status, TestResult
from graders.settings import get_settings

if TYPE_CHECKING:
    from graders.grading.catalog import Exercise
    from graders.grading.grader import Grader

SYMBOLS = {
    Status.PASS: "PASS",
    Status.FAIL: "FAIL",
    Status.ERROR: "ERROR",
    Status.NOT_RUN: "SKIP",
}


def add_arguments(grade: argparse.ArgumentParser) -> None:
    grade.add_argument("slug", help="the exercise (its folder name; drill list shows them)")
    grade.add_argument("track", help="the track to grade against: numpy or torch")
    grade.add_argument("file", type=Path, help="the Python file to grade")
    grade.add_argument(
        "--mode",
        choices=("run", "submit"),
        default="submit",
        help="run: the visible examples; submit: the hidden tests (the default)",
    )
    grade.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    from graders.grading.grader import Grader

    grader = Grader(get_settings())
    exercise = grader.catalog.get(args.slug)
    exercise.track(args.track)  # usage errors before starting workers
    try:
        code = args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"drill: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    with grader:
        _reference_notice(grader, exercise, args.track)
        result = grader.grade(exercise, args.track, code, args.mode)
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print(format_result(result, grader.status.warning))
    return 0 if result.status == Status.PASS else 1


def _reference_notice(grader: Grader, exercise: Exercise, track: str) -> None:
    """Say why the first grade of a new exercise version is slow: the reference solution
    runs twice in the sandbox before anything is compared (cached afterwards)."""
    from graders.grading.references import ReferenceStore

    store = getattr(grader.backend, "references", None)
    if isinstance(store, ReferenceStore) and not store.is_ready(exercise, track):
        print(
            f"computing the reference for {exercise.slug} [{track}] "
            "(first grade of this version, a few seconds)...",
            file=sys.stderr,
            flush=True,
        )


def format_size(size: int) -> str:
    """Bytes as the pages say them: 512 B, 16 KiB, 12.3 MB (kibibytes for what was kept,
    decimal units past a mebibyte, as file managers show big sizes)."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}".removesuffix(".0") + " KiB"
    value = size / 10**6
    for unit in ("MB", "GB", "TB", "PB"):
        if value < 999.95 or unit == "PB":
            return f"{value:.1f}".removesuffix(".0") + f" {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def _output_note(test: TestResult) -> str | None:
    """One line on a test's output when it was cut (--json shows what was kept)."""
    if not test.output_truncated:
        return None
    # What the test printed ends at the marker (a traceback may follow it).
    printed = test.output.split(TRUNCATION_MARKER, 1)[0]
    kept = len(printed.encode("utf-8", "surrogatepass"))
    if test.output_bytes is None:
        return f"output truncated: the first {format_size(kept)} kept"
    total = format_size(test.output_bytes)
    of = f"at least {total}" if test.output_bytes_at_least else total
    return f"output truncated: the first {format_size(kept)} of {of} kept"


def format_result(result: GradeResult, warning: str | None = None) -> str:
    lines = [f"{result.exercise} [{result.track}] {result.mode}"]
    if warning:
        lines.append(f"WARNING: {warning}")
    for test in result.tests:
        if test.status == Status.NOT_RUN:
            line = f"  {SYMBOLS[test.status]:5} {test.name} (not run)"
        else:
            line = f"  {SYMBOLS[test.status]:5} {test.name} ({test.duration_ms:.1f} ms)"
        note = _output_note(test)
        for text in [*test.message.splitlines(), *([note] if note else [])]:
            line += f"\n        {text}"
        lines.append(line)
    if result.tests:
        not_run = sum(t.status == Status.NOT_RUN for t in result.tests)
        lines.append(
            f"{result.passed}/{result.total} tests passed"
            + (f" ({not_run} not run)" if not_run else "")
            + f" in {result.duration_ms:.0f} ms"
        )
    else:
        lines.append(f"{SYMBOLS[result.status]}: {result.message}")
    return "\n".join(lines)


COMMAND = Command(
    name="grade",
    help="grade a file the way the service does",
    add_arguments=add_arguments,
    run=run,
)
