"""The ``drill`` command: grade, validate, list (and serve, from the web app)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from graders.errors import DrillError, UnknownExercise
from graders.results import GradeResult, Status
from graders.settings import get_settings

if TYPE_CHECKING:
    from graders.grading import Grader

SYMBOLS = {Status.PASS: "PASS", Status.FAIL: "FAIL", Status.ERROR: "ERROR"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drill", description="Drill: graded NumPy and PyTorch exercises"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    grade = sub.add_parser("grade", help="grade a file the way the service does")
    grade.add_argument("slug")
    grade.add_argument("track")
    grade.add_argument("file", type=Path)
    grade.add_argument("--mode", choices=("run", "submit"), default="submit")
    grade.add_argument("--json", action="store_true", help="print the result as JSON")

    validate = sub.add_parser("validate", help="prove every exercise's tests work")
    validate.add_argument("slugs", nargs="*", metavar="SLUG")
    validate.add_argument("--json", action="store_true")

    listing = sub.add_parser("list", help="list the exercises")
    listing.add_argument("--json", action="store_true")

    serve = sub.add_parser("serve", help="run the web service")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        if args.command == "grade":
            return _grade(args)
        if args.command == "validate":
            return _validate(args)
        if args.command == "list":
            return _list(args)
        return _serve(args)
    except UnknownExercise as exc:
        print(f"drill: {exc}", file=sys.stderr)
        return 2
    except DrillError as exc:
        print(f"drill: {exc}", file=sys.stderr)
        return 1


def _grader() -> Grader:
    from graders.grading import Grader

    return Grader(get_settings())


def _grade(args: argparse.Namespace) -> int:
    grader = _grader()
    grader.catalog.get(args.slug).track(args.track)  # usage errors before starting workers
    try:
        code = args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"drill: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    with grader:
        result = grader.grade(args.slug, args.track, code, args.mode)
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print(format_result(result, grader.status.warning if grader.status else None))
    return 0 if result.status == Status.PASS else 1


def format_result(result: GradeResult, warning: str | None = None) -> str:
    lines = [f"{result.exercise} [{result.track}] {result.mode}"]
    if warning:
        lines.append(f"WARNING: {warning}")
    for test in result.tests:
        line = f"  {SYMBOLS[test.status]:5} {test.name} ({test.duration_ms:.1f} ms)"
        if test.message:
            line += f"\n        {test.message}"
        lines.append(line)
    if result.tests:
        lines.append(f"{result.passed}/{result.total} tests passed in {result.duration_ms:.0f} ms")
    else:
        lines.append(f"{SYMBOLS[result.status]}: {result.message}")
    return "\n".join(lines)


def _validate(args: argparse.Namespace) -> int:
    from graders.validate import validate

    grader = _grader()
    for slug in args.slugs:
        grader.catalog.get(slug)
    with grader:
        reports = validate(grader, args.slugs or None)
    if args.json:
        print(json.dumps([r.as_dict() for r in reports], indent=2))
    else:
        for r in reports:
            head = "ok  " if r.ok else "FAIL"
            print(
                f"{head} {r.exercise} [{r.track}]: {r.examples} examples, {r.hidden} hidden tests"
            )
            for name, tests in r.caught.items():
                print(f"       wrong/{name} caught by: {', '.join(tests) or 'NOTHING'}")
            for w in r.warnings:
                print(f"  warning: {w}")
            for p in r.problems:
                print(f"  problem: {p}")
        bad = sum(not r.ok for r in reports)
        print(f"{len(reports) - bad}/{len(reports)} tracks valid")
    return 0 if all(r.ok for r in reports) else 1


def _list(args: argparse.Namespace) -> int:
    from graders.catalog import load_catalog

    catalog = load_catalog(get_settings().exercises_dir)
    rows = [
        {
            "slug": e.slug,
            "title": e.meta.title,
            "section": e.meta.section,
            "difficulty": e.meta.difficulty,
            "tracks": list(e.tracks),
        }
        for e in catalog
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(
                f"{row['slug']:32} {row['difficulty']:7} "
                f"{','.join(row['tracks']):12} {row['title']}"
            )
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.main import create_app
    from graders.settings import Settings

    overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    settings = Settings(**overrides)
    logging.getLogger("drill").setLevel(logging.INFO)
    print(f"Drill: starting on http://{settings.host}:{settings.port} (Ctrl+C stops)", flush=True)
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info")
    return 0


if __name__ == "__main__":
    sys.exit(main())
