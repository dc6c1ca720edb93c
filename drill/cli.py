"""The ``drill`` command: grade, validate, list (and serve and db, from the web app)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graders.errors import DrillError, UnknownExercise
from graders.results import TRUNCATION_MARKER, GradeResult, Status, TestResult
from graders.settings import get_settings

if TYPE_CHECKING:
    from app.settings import AppSettings
    from graders.grading import Grader
    from graders.mutants import MutantReport

SYMBOLS = {
    Status.PASS: "PASS",
    Status.FAIL: "FAIL",
    Status.ERROR: "ERROR",
    Status.NOT_RUN: "SKIP",
}


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
    validate.add_argument(
        "--mutants",
        action="store_true",
        help="also grade single-point mutants of each reference on its hidden tests and "
        "list those that survive (takes minutes; does not change the exit code)",
    )

    new = sub.add_parser("new", help="scaffold a new exercise package")
    new.add_argument("slug", help="the folder name, like row-softmax")
    new.add_argument(
        "--tracks",
        default="numpy",
        help="comma-separated tracks: numpy, torch or numpy,torch (default: numpy)",
    )

    listing = sub.add_parser("list", help="list the exercises")
    listing.add_argument("--json", action="store_true")

    worker = sub.add_parser(
        "worker",
        help="grade jobs from the queue (DRILL_QUEUE) in this machine's sandbox",
        description="A grading machine for distributed mode: hosts DRILL_WORKERS warm "
        "sandbox workers and takes jobs from the NATS JetStream queue at DRILL_QUEUE. "
        "SIGTERM drains it: it finishes the jobs it holds and exits 0.",
    )
    worker.add_argument(
        "--role",
        choices=("learner", "reference"),
        default="learner",
        help="learner: learners' submissions (the default); reference: reference "
        "solutions only. The two never share a worker.",
    )

    serve = sub.add_parser("serve", help="run the web service")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument(
        "--reload",
        action="store_true",
        help="serve edits of the exercises folder without a restart (the workers keep running)",
    )

    db = sub.add_parser("db", help="manage the database (DRILL_DB)")
    db_actions = db.add_subparsers(dest="action", required=True)
    db_actions.add_parser(
        "upgrade",
        help="create the tables or migrate them to the newest schema (drill serve does this "
        "too, at start-up); a database made before migrations is adopted",
    )
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
        if args.command == "new":
            return _new(args)
        if args.command == "db":
            return _db(args)
        if args.command == "worker":
            return _worker(args)
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
        print(format_result(result, grader.status.warning))
    return 0 if result.status == Status.PASS else 1


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


def _validate(args: argparse.Namespace) -> int:
    from graders.validate import validate

    grader = _grader()
    for slug in args.slugs:
        grader.catalog.get(slug)
    if args.mutants:
        _check_explanations(grader, args.slugs)  # a broken mutants.toml stops us at once
    mutants: dict[tuple[str, str], MutantReport] = {}
    with grader:
        reports = validate(grader, args.slugs or None)
        if args.mutants:
            mutants = _run_mutants(grader, [(r.exercise, r.track) for r in reports])
    if args.json:
        rows = []
        for r in reports:
            row = r.as_dict()
            if (r.exercise, r.track) in mutants:
                row["mutants"] = mutants[r.exercise, r.track].as_dict()
            rows.append(row)
        print(json.dumps(rows, indent=2))
    else:
        for r in reports:
            head = "ok  " if r.ok else "FAIL"
            print(
                f"{head} {r.exercise} [{r.track}]: {_count(r.examples, 'example')}, "
                f"{_count(r.hidden, 'hidden test')}"
            )
            for name, tests in r.caught.items():
                print(f"       wrong/{name} caught by: {', '.join(tests) or 'NOTHING'}")
            if r.alternatives:
                print(
                    f"       {_count(len(r.alternatives), 'correct alternative')} pass every "
                    f"test: {', '.join(r.alternatives)}"
                )
            for test, wrongs in r.catches.items():
                print(f"       test {test!r} catches {len(wrongs)}: {', '.join(wrongs) or '-'}")
            for w in r.warnings:
                print(f"  warning: {w}")
            for p in r.problems:
                print(f"  problem: {p}")
            if (r.exercise, r.track) in mutants:
                print(format_mutants(mutants[r.exercise, r.track]))
        if mutants:
            print(_mutant_totals(list(mutants.values())))
        bad = sum(not r.ok for r in reports)
        print(f"{len(reports) - bad}/{len(reports)} tracks valid")
    # Survivors are reported, not failures: the exit code is validation's alone.
    return 0 if all(r.ok for r in reports) else 1


def _check_explanations(grader: Grader, slugs: list[str]) -> None:
    from graders.mutants import load_explanations

    exercises = [grader.catalog.get(s) for s in slugs] if slugs else list(grader.catalog)
    for exercise in exercises:
        for track in exercise.tracks.values():
            load_explanations(track.folder)


def _run_mutants(
    grader: Grader, tracks: list[tuple[str, str]]
) -> dict[tuple[str, str], MutantReport]:
    from graders.mutants import analyse_track

    interactive = sys.stderr.isatty()
    out = {}
    for number, (slug, track) in enumerate(tracks, start=1):
        label = f"mutants {number}/{len(tracks)}: {slug} [{track}]"
        print(f"{label}: grading the reference's mutants on the hidden tests", file=sys.stderr)
        last = [-1]

        def progress(done: int, total: int, label: str = label, last: list[int] = last) -> None:
            # A counter in place on a terminal; in a log, a line per tenth (and the end).
            step = max(1, total // 10)
            if interactive:
                end = "\n" if done == total else ""
                print(f"\r  {done}/{total}", end=end, file=sys.stderr, flush=True)
            elif done and (done == total or done // step != last[0] // step):
                print(f"  {label}: {done}/{total}", file=sys.stderr, flush=True)
            last[0] = done

        report = analyse_track(grader, grader.catalog.get(slug), track, progress)
        out[slug, track] = report
        print(
            f"  {label}: {report.mutants} mutants, {len(report.killed)} killed, "
            f"{len(report.survivors)} survived, in {report.seconds:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    return out


def format_mutants(report: MutantReport) -> str:
    """The mutant part of a track's validate report: counts, then each unexplained
    survivor with its diff, then each explained one with its reason."""
    head = f"       mutants: {_count(report.mutants, 'mutant')}"
    if report.not_analysed:
        return f"{head}, not run: {report.not_analysed}"
    lines = [
        f"{head}, {len(report.killed)} killed, {len(report.survivors)} survived "
        f"({len(report.explained)} explained, {len(report.unexplained)} unexplained)"
        + (f", {len(report.skipped)} skipped" if report.skipped else "")
    ]
    for survivor in report.unexplained:
        lines.append(f"       survivor {survivor.id}")
        lines += [f"           {line}" for line in survivor.diff.splitlines()]
    for survivor in report.explained:
        lines.append(f"       explained {survivor.id}: {survivor.reason}")
    lines += [f"  warning: {w}" for w in report.warnings]
    return "\n".join(lines)


def _mutant_totals(reports: list[MutantReport]) -> str:
    survivors = [s for r in reports for s in r.survivors]
    unexplained = sum(s.reason is None for s in survivors)
    return (
        f"mutants: {sum(r.mutants for r in reports)} in {_count(len(reports), 'track')}, "
        f"{sum(len(r.killed) for r in reports)} killed, {len(survivors)} survived, "
        f"{unexplained} unexplained"
    )


def _new(args: argparse.Namespace) -> int:
    from graders.scaffold import ScaffoldError, create

    exercises = get_settings().exercises_dir
    tracks = [t.strip() for t in args.tracks.split(",") if t.strip()]
    try:
        made = create(exercises, args.slug, tracks)
    except ScaffoldError as exc:
        print(f"drill new: {exc}", file=sys.stderr)
        return 2
    print(f"Created {made.folder} with tracks {', '.join(tracks)}:")
    for path in made.files:
        print(f"  {path.relative_to(made.folder)}")
    steps = [
        "statement.md: say what the learner writes; name every entry point "
        f"({made.entry_point}) and state each rule the hidden tests check.",
        "exercise.toml: the title, section, difficulty and one-line summary.",
        "hints/1.md, 2.md, ...: hints, from a nudge to nearly the answer.",
        "<track>/solution.py: the reference solution; <track>/starter.py: what learners "
        "start from.",
        "<track>/tests.py: one @test per rule (docs/authoring.md shows the helpers).",
        "<track>/wrong/*.py: mistakes learners make, each opening with a docstring naming "
        "its bug; validate proves your tests catch them.",
        f"drill validate {args.slug}: repeat until it says ok (no TODO(drill new) may remain).",
        f"drill serve --reload, then open /exercises/{args.slug}: edits show without a restart.",
    ]
    print("Next:")
    for number, step in enumerate(steps, start=1):
        print(f"  {number}. {step}")
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


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


def _db(args: argparse.Namespace) -> int:
    from app.store import Store

    store = Store(get_settings().database_url)  # opening it upgrades it
    store.close()
    if store.migration is not None:
        print(store.migration.describe())
    return 0


def serve_settings(args: argparse.Namespace) -> AppSettings:
    """The settings of ``drill serve``: the environment's, then the command line's."""
    overrides: dict[str, Any] = {
        k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None
    }
    if args.reload:  # our own reload of the catalog, not uvicorn's restart of the process
        overrides["reload"] = True
    from app.settings import AppSettings

    return AppSettings(**overrides)


def _worker(args: argparse.Namespace) -> int:
    from graders.queue_worker import serve_worker

    settings = get_settings()
    if not settings.queue:
        print("drill: drill worker needs DRILL_QUEUE=nats://HOST:PORT", file=sys.stderr)
        return 2
    logging.getLogger("drill").setLevel(logging.INFO)
    return serve_worker(settings, args.role)


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.main import create_app

    settings = serve_settings(args)
    logging.getLogger("drill").setLevel(logging.INFO)
    print(f"Drill: starting on http://{settings.host}:{settings.port} (Ctrl+C stops)", flush=True)
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level="info",
        # The client's address is app.deps.get_client's to find (DRILL_TRUSTED_PROXIES):
        # uvicorn's own X-Forwarded-For handling would trust 127.0.0.1 behind its back.
        proxy_headers=False,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
