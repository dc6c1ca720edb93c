"""``drill regrade``: grade stored Submits again against an exercise's current version."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from drill.commands import Command
from drill.output import count


def add_arguments(regrade: argparse.ArgumentParser) -> None:
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


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from app.main import default_backend
    from app.regrade import RegradeError, Run
    from app.settings import AppSettings
    from app.store import Store
    from graders.grading.grader import Grader

    settings = AppSettings()
    store = Store(settings.database_url)
    try:
        grader = Grader(settings, backend=default_backend(settings, store))
        try:
            regrade = Run.plan(store, grader, args.slug, args.track, args.since, args.dry_run)
        except RegradeError as exc:
            print(f"drill regrade: {exc}", file=sys.stderr)
            return 2
        exercise = regrade.exercise
        print(
            f"{'Dry run: ' if args.dry_run else ''}regrading {exercise.slug} "
            f"against its current version {exercise.version[:8]}: "
            f"{count(len(regrade.submissions), 'Submit')} graded against an older version"
            + (f" ({args.track} only)" if args.track else "")
            + (f", made since {args.since}" if args.since else ""),
            file=sys.stderr,
            flush=True,
        )
        if regrade.submissions:
            with grader:
                bar = tqdm(total=len(regrade.submissions), unit="submission", file=sys.stderr)
                with bar:
                    regrade.execute(settings.workers, lambda _item: bar.update(1))
    finally:
        store.close()
    if args.json:
        print(
            json.dumps({"run": None if args.dry_run else regrade.id, **regrade.summary.as_dict()})
        )
    else:
        print(format_regrade(regrade))
    return 0


def format_regrade(run: Any) -> str:
    """What a regrade changed: the verdicts, which way, and the tests behind them."""
    summary = run.summary
    if not run.submissions:
        return "Nothing to regrade: every Submit was graded against the current version."
    lines = [
        f"Regraded {count(summary.regraded, 'Submit')} in {run.seconds:.1f} s: "
        f"{count(summary.changed, 'verdict')} changed ({summary.to_pass} to pass, "
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
        lines.append(
            "Tests whose verdict changed, in how many Submits (now pass: passes now and did "
            "not before; now fail: fails now and did not before):"
        )
        for track, test_id, tally in changed_tests:
            lines.append(f"  [{track}] {tally.name} (id {test_id}): {describe_change(tally)}")
    if any(tally.new for _, _, tally in changed_tests):
        lines.append(
            "A new test is one a Submit's old result did not have: the Submits it fails "
            "count as now fail; those it passes are neither now pass nor now fail."
        )
    if run.dry_run:
        lines.append("Dry run: nothing was stored.")
    else:
        lines.append(
            f"Stored as regrade run {run.id}: the old results are kept; learners see the new "
            "verdict on the exercise's page, and the dashboard lists the run."
        )
    return "\n".join(lines)


def describe_change(tally: Any) -> str:
    """One test's line of the report: now pass, now fail, and where it is new."""
    text = f"{tally.to_pass} now pass, {tally.to_fail} now fail"
    if tally.stopped:
        text += (
            f", {tally.stopped} passed before and did not run now (an earlier test ended the run)"
        )
    if tally.new:
        text += (
            f"; new test in {count(tally.new, 'Submit')}: passes in {tally.new_pass}, "
            f"fails in {tally.new_fail}"
        )
        not_run = tally.new - tally.new_pass - tally.new_fail
        if not_run:
            text += f", did not run in {not_run}"
    return text


COMMAND = Command(
    name="regrade",
    help="grade stored Submits again against an exercise's current tests",
    description="Re-run the code of stored Submits of SLUG against the exercise as it "
    "is now (each submission's newest grading, when it was graded against another "
    "version) and store the new verdicts as new results linked to the old ones (the "
    "old ones are kept). Uses the worker pools, or the queue with DRILL_QUEUE, and the "
    "database of DRILL_DB. Prints which verdicts changed, which way and in which tests.",
    add_arguments=add_arguments,
    run=run,
)
