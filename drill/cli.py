"""The ``drill`` command: grade, validate, list (and serve and db, from the web app)."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drill.malloc import pin_mmap_threshold
from graders.errors import DrillError, UnknownExercise
from graders.results import TRUNCATION_MARKER, GradeResult, Status, TestResult
from graders.settings import get_settings

if TYPE_CHECKING:
    from app.settings import AppSettings
    from graders.catalog import Exercise
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
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="what to do (drill COMMAND -h)"
    )

    grade = sub.add_parser("grade", help="grade a file the way the service does")
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

    validate = sub.add_parser("validate", help="prove every exercise's tests work")
    validate.add_argument(
        "slugs", nargs="*", metavar="SLUG", help="the exercises to validate (default: all)"
    )
    validate.add_argument(
        "--track",
        action="append",
        dest="tracks",
        metavar="TRACK",
        help="validate only this track of each exercise (repeat it, or numpy,torch); "
        "exercises without it are skipped",
    )
    validate.add_argument("--json", action="store_true", help="print the reports as JSON")
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

    regrade = sub.add_parser(
        "regrade",
        help="grade stored Submits again against an exercise's current tests",
        description="Re-run the code of stored Submits of SLUG against the exercise as it "
        "is now (each submission's newest grading, when it was graded against another "
        "version) and store the new verdicts as new results linked to the old ones (the "
        "old ones are kept). Uses the worker pools, or the queue with DRILL_QUEUE, and the "
        "database of DRILL_DB. Prints which verdicts changed, which way and in which tests.",
    )
    regrade.add_argument("slug", metavar="SLUG", help="the exercise to regrade")
    regrade.add_argument("--track", help="only this track's Submits (default: every track)")
    regrade.add_argument(
        "--since",
        metavar="VERSION|DATE",
        help="only Submits made since this version went live (vN as the dashboard numbers "
        "them, or a hash prefix of at least 6 characters) or since this date or time (ISO "
        "8601, UTC unless it says otherwise, e.g. 2026-12-01 or 2026-12-01T14:00)",
    )
    regrade.add_argument(
        "--dry-run",
        action="store_true",
        help="grade and report what would change, but store nothing",
    )
    regrade.add_argument(
        "--json", action="store_true", help="print the summary as JSON (after the progress bar)"
    )

    listing = sub.add_parser(
        "list",
        help="list the exercises of the exercises folder, with their versions and tracks",
    )
    listing.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list (one object per exercise); the folder goes to stderr",
    )

    preview = sub.add_parser(
        "preview",
        help="open an exercise's learner page on a local server with a throwaway database",
        description="Serve the exercises folder on 127.0.0.1 with a database in a temporary "
        "folder (removed when the preview stops: Ctrl+C or SIGTERM), reload edits of the "
        "exercises as drill serve --reload does, print the exercise page's URL and open it.",
    )
    preview.add_argument("slug", help="the exercise to preview (its folder name)")
    preview.add_argument(
        "--track", help="the track to open the page on (default: the page's own choice)"
    )
    preview.add_argument("--port", type=int, help="the port to listen on (default: a free one)")
    preview.add_argument(
        "--no-open", action="store_true", help="print the URL but do not open a browser"
    )

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
    serve.add_argument("--host", help="the address to listen on (default: DRILL_HOST, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="the port to listen on (default: DRILL_PORT, 8000)")
    serve.add_argument(
        "--reload",
        action="store_true",
        help="serve edits of the exercises folder without a restart (the workers keep running)",
    )

    db = sub.add_parser("db", help="manage the database (DRILL_DB)")
    db_actions = db.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="what to do to the database"
    )
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
        if args.command == "regrade":
            return _regrade(args)
        if args.command == "worker":
            return _worker(args)
        if args.command == "preview":
            return _preview(args)
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
    exercise = grader.catalog.get(args.slug)
    exercise.track(args.track)  # usage errors before starting workers
    try:
        code = args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"drill: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    with grader:
        _reference_notice(grader, exercise, args.track)
        result = grader.grade(args.slug, args.track, code, args.mode, exercise=exercise)
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print(format_result(result, grader.status.warning))
    return 0 if result.status == Status.PASS else 1


def _reference_notice(grader: Grader, exercise: Exercise, track: str) -> None:
    """Say why the first grade of a new exercise version is slow: the reference solution
    runs twice in the sandbox before anything is compared (cached afterwards)."""
    from graders.references import ReferenceStore

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


def _validate(args: argparse.Namespace) -> int:
    from graders.validate import validate

    grader = _grader()
    for slug in args.slugs:
        grader.catalog.get(slug)
    tracks = _chosen_tracks(grader, args.slugs, args.tracks)
    if args.mutants:
        _check_explanations(grader, args.slugs, tracks)  # a broken mutants.toml stops us at once
    mutants: dict[tuple[str, str], MutantReport] = {}
    with grader:
        reports = validate(grader, args.slugs or None, tracks)
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


def _chosen_tracks(grader: Grader, slugs: list[str], given: list[str] | None) -> list[str] | None:
    """The tracks of ``validate --track`` (None: every track). Each must belong to one of
    the chosen exercises, and each exercise named must have one of them: UnknownExercise
    (exit 2) otherwise, before any sandbox starts."""
    if not given:
        return None
    tracks = list(dict.fromkeys(t.strip() for value in given for t in value.split(",")))
    if "" in tracks:
        raise UnknownExercise("--track needs a track name, such as numpy or torch")
    exercises = [grader.catalog.get(s) for s in slugs] if slugs else list(grader.catalog)
    offered = {t for e in exercises for t in e.tracks}
    for track in tracks:
        if track not in offered:
            where = ", ".join(slugs) if slugs else "any exercise"
            raise UnknownExercise(
                f"no track {track!r} in {where} (tracks: {', '.join(sorted(offered))})"
            )
    for exercise in exercises if slugs else []:  # every exercise named has work to do
        if not set(tracks) & set(exercise.tracks):
            raise UnknownExercise(
                f"exercise {exercise.slug!r} has no track {' or '.join(map(repr, tracks))} "
                f"(tracks: {', '.join(exercise.tracks)})"
            )
    return tracks


def _check_explanations(grader: Grader, slugs: list[str], tracks: list[str] | None) -> None:
    from graders.mutants import load_explanations

    exercises = [grader.catalog.get(s) for s in slugs] if slugs else list(grader.catalog)
    for exercise in exercises:
        for name, track in exercise.tracks.items():
            if tracks is None or name in tracks:
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
        f"drill preview {args.slug}: its learner's page on a throwaway server; edits show "
        "without a restart.",
    ]
    print("Next:")
    for number, step in enumerate(steps, start=1):
        print(f"  {number}. {step}")
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _list(args: argparse.Namespace) -> int:
    from graders.catalog import load_catalog

    folder = get_settings().exercises_dir
    catalog = load_catalog(folder)
    rows = [
        {
            "slug": e.slug,
            "title": e.meta.title,
            "section": e.meta.section,
            "difficulty": e.meta.difficulty,
            "tracks": list(e.tracks),
            "version": e.version,  # the content hash submissions and references record
            "folder": str(e.folder),
        }
        for e in catalog
    ]
    # Which folder: DRILL_EXERCISES_DIR makes it easy to read another one than meant. The
    # JSON stays a list (scripts index it), so there the folder line goes to stderr.
    heading = f"{_count(len(rows), 'exercise')} in {folder}"
    if args.json:
        print(heading, file=sys.stderr)
        print(json.dumps(rows, indent=2))
    else:
        print(heading + ":")
        for row in rows:
            print(
                f"  {row['slug']:32} {row['difficulty']:7} {','.join(row['tracks']):12} "
                f"{row['version']}  {row['title']}"
            )
    return 0


def _db(args: argparse.Namespace) -> int:
    from app.store import Store

    store = Store(get_settings().database_url)  # opening it upgrades it
    store.close()
    if store.migration is not None:
        print(store.migration.describe())
    return 0


def serve_settings(args: argparse.Namespace, **fixed: Any) -> AppSettings:
    """The settings of ``drill serve``: the environment's, then the command line's, then
    ``fixed`` (what ``drill preview`` imposes)."""
    overrides: dict[str, Any] = {
        k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None
    }
    if args.reload:  # our own reload of the catalog, not uvicorn's restart of the process
        overrides["reload"] = True
    overrides.update(fixed)
    from app.settings import AppSettings

    return AppSettings(**overrides)


def _regrade(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from app.main import default_backend
    from app.regrade import RegradeError, Run
    from app.settings import AppSettings
    from app.store import Store
    from graders.grading import Grader

    settings = AppSettings()
    store = Store(settings.database_url)
    try:
        grader = Grader(settings, backend=default_backend(settings, store))
        try:
            run = Run.plan(store, grader, args.slug, args.track, args.since, args.dry_run)
        except RegradeError as exc:
            print(f"drill regrade: {exc}", file=sys.stderr)
            return 2
        exercise = run.exercise
        print(
            f"{'Dry run: ' if args.dry_run else ''}regrading {exercise.slug} "
            f"against its current version {exercise.version[:8]}: "
            f"{_count(len(run.submissions), 'Submit')} graded against an older version"
            + (f" ({args.track} only)" if args.track else "")
            + (f", made since {args.since}" if args.since else ""),
            file=sys.stderr,
            flush=True,
        )
        if run.submissions:
            with grader:
                bar = tqdm(total=len(run.submissions), unit="submission", file=sys.stderr)
                with bar:
                    run.execute(settings.workers, lambda _item: bar.update(1))
    finally:
        store.close()
    if args.json:
        print(json.dumps({"run": None if args.dry_run else run.id, **run.summary.as_dict()}))
    else:
        print(format_regrade(run))
    return 0


def format_regrade(run: Any) -> str:
    """What a regrade changed: the verdicts, which way, and the tests behind them."""
    summary = run.summary
    if not run.submissions:
        return "Nothing to regrade: every Submit was graded against the current version."
    lines = [
        f"Regraded {_count(summary.regraded, 'Submit')} in {run.seconds:.1f} s: "
        f"{_count(summary.changed, 'verdict')} changed ({summary.to_pass} to pass, "
        f"{summary.to_fail} from pass to fail"
        + (f", {summary.other} between fail and error" if summary.other else "")
        + f"), {summary.regraded - summary.changed} unchanged."
    ]
    changed_tests = [
        (track, test_id, tally)
        for track, tests in summary.tests.items()
        for test_id, tally in tests.items()
    ]
    if changed_tests:
        lines.append("Tests whose verdict changed (in how many Submits):")
        for track, test_id, tally in changed_tests:
            lines.append(
                f"  [{track}] {tally.name} (id {test_id}): {tally.to_pass} now pass, "
                f"{tally.to_fail} now fail"
            )
    if run.dry_run:
        lines.append("Dry run: nothing was stored.")
    else:
        lines.append(
            f"Stored as regrade run {run.id}: the old results are kept; learners see the new "
            "verdict on the exercise's page, and the dashboard lists the run."
        )
    return "\n".join(lines)


def _worker(args: argparse.Namespace) -> int:
    from graders.queue_worker import serve_worker

    settings = get_settings()
    if not settings.queue:
        print("drill: drill worker needs DRILL_QUEUE=nats://HOST:PORT", file=sys.stderr)
        return 2
    pin_mmap_threshold()  # it reads every job's result, for hours
    logging.getLogger("drill").setLevel(logging.INFO)
    return serve_worker(settings, args.role)


def _serve(args: argparse.Namespace, settings: AppSettings | None = None) -> int:
    import uvicorn

    from app.main import create_app
    from app.slow_clients import uvicorn_options

    settings = settings or serve_settings(args)
    pin_mmap_threshold()  # it reads every job's result, for hours
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
        # Deadlines for a request's head and body, the idle keep-alive timeout, and the
        # caps on open connections (DRILL_HEADER_TIMEOUT, ...; app/slow_clients.py).
        **uvicorn_options(settings),
    )
    return 0


class _Stopped(Exception):
    """SIGTERM reached ``drill preview``: unwind, so that its temporary folder goes."""


def _stop(signum: int, frame: object) -> None:
    raise _Stopped


def _preview(args: argparse.Namespace) -> int:
    import shutil
    import signal
    import tempfile

    from graders.catalog import load_catalog

    folder = get_settings().exercises_dir
    try:  # usage errors before anything starts
        exercise = load_catalog(folder).get(args.slug)
        if args.track is not None:
            exercise.track(args.track)
    except UnknownExercise as exc:
        raise UnknownExercise(f"{exc} in {folder} (drill list shows them)") from None
    port = args.port or _free_port()
    base = f"http://127.0.0.1:{port}"
    url = f"{base}/exercises/{exercise.slug}" + (f"?track={args.track}" if args.track else "")
    stopping = threading.Event()
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGTERM, _stop)
    tmp = tempfile.mkdtemp(prefix="drill-preview-")
    try:
        settings = serve_settings(
            argparse.Namespace(host="127.0.0.1", port=port, reload=True),
            db=str(Path(tmp) / "preview.db"),  # never DRILL_DB: learners' data stays apart
            queue="",  # grade on this machine: a preview needs no grading workers
        )
        print(
            f"Drill preview of {exercise.slug} from {folder} (Ctrl+C stops)\n"
            f"  a throwaway database in {tmp}, removed when the preview stops",
            flush=True,
        )
        threading.Thread(
            target=_announce,
            args=(base, url, not args.no_open, stopping),
            name="drill-preview-announce",
            daemon=True,
        ).start()
        # uvicorn shuts down on SIGINT or SIGTERM, then raises the signal again: here.
        with contextlib.suppress(KeyboardInterrupt, _Stopped):
            _serve(args, settings)
    finally:
        stopping.set()
        # A second Ctrl+C must not leave the folder half removed.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        shutil.rmtree(tmp, ignore_errors=True)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    print("Drill preview stopped; its database is gone.", flush=True)
    return 0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _announce(base: str, url: str, open_browser: bool, stopping: threading.Event) -> None:
    """Print the page's URL once the server answers (it starts its workers first), then
    open it in a browser."""
    import urllib.request

    # No proxy: HTTP_PROXY must not route a request for 127.0.0.1 elsewhere.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while not stopping.is_set():
        try:
            with opener.open(f"{base}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    break
        except OSError:  # not listening yet (URLError and HTTPError are OSErrors)
            pass
        stopping.wait(0.2)
    else:
        return
    print(f"Preview ready: {url}", flush=True)
    if open_browser:
        open_in_browser(url)


def open_in_browser(url: str) -> bool:
    """Open ``url`` in the user's browser if there is one; never raise. On Linux without a
    display, webbrowser would start a text browser inside this terminal, over the server's
    log: there, and when no browser is found, say so instead."""
    import webbrowser

    graphical = sys.platform in ("darwin", "win32") or any(
        os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")
    )
    opened = False
    if graphical:
        try:
            opened = webbrowser.open(url)
        except Exception:  # any browser trouble: the URL is printed, that is enough
            opened = False
    if not opened:
        print(f"drill preview: no browser opened; open {url} yourself", file=sys.stderr)
    return opened


if __name__ == "__main__":
    sys.exit(main())
