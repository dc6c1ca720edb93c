"""``drill validate``: prove every exercise's tests work, and list surviving mutants."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from drill.commands import Command
from drill.output import count
from graders.errors import UnknownExercise
from graders.settings import get_settings

if TYPE_CHECKING:
    from graders.authoring.mutants.report import MutantReport
    from graders.grading.grader import Grader


def add_arguments(validate: argparse.ArgumentParser) -> None:
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


def run(args: argparse.Namespace) -> int:
    from graders.authoring.validate import validate
    from graders.grading.grader import Grader

    grader = Grader(get_settings())
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
                f"{head} {r.exercise} [{r.track}]: {count(r.examples, 'example')}, "
                f"{count(r.hidden, 'hidden test')}, {r.test_ms:.1f} ms of tests in a warm worker"
            )
            for name, tests in r.caught.items():
                print(f"       wrong/{name} caught by: {', '.join(tests) or 'NOTHING'}")
                if name in r.first:
                    test, message = r.first[name]
                    print(f"         first: {test!r}: {message[:160]}")
            if r.alternatives:
                print(
                    f"       {count(len(r.alternatives), 'correct alternative')} pass every "
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
    from graders.authoring.mutants.explanations import load_explanations

    exercises = [grader.catalog.get(s) for s in slugs] if slugs else list(grader.catalog)
    for exercise in exercises:
        for name, track in exercise.tracks.items():
            if tracks is None or name in tracks:
                load_explanations(track.folder)


def _run_mutants(
    grader: Grader, tracks: list[tuple[str, str]]
) -> dict[tuple[str, str], MutantReport]:
    from graders.authoring.mutants.runner import analyse_track

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
    head = f"       mutants: {count(report.mutants, 'mutant')}"
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
        f"mutants: {sum(r.mutants for r in reports)} in {count(len(reports), 'track')}, "
        f"{sum(len(r.killed) for r in reports)} killed, {len(survivors)} survived, "
        f"{unexplained} unexplained"
    )


COMMAND = Command(
    name="validate",
    help="prove every exercise's tests work",
    add_arguments=add_arguments,
    run=run,
)
