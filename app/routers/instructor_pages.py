"""The instructor dashboard's pages: the overview of every exercise, and one exercise's
pass rates, per-test failures (an SVG bar chart), common messages, regrades and recent
Submits. Each page passes ``instructor_login.guard`` first; its numbers come from the
``InstructorService``, and this module only shapes them for the templates.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.deps import InstructorDep
from app.errors import NotFound
from app.rendering import highlight_python
from app.routers.instructor_api import VersionQuery
from app.routers.instructor_login import guard, page
from app.routers.pages import TRACK_LABELS
from app.schemas import (
    ExerciseOverview,
    LearnerCounts,
    RecentSubmission,
    TestStats,
    TrackOverview,
    VersionInfo,
)
from graders.errors import UnknownExercise
from graders.grading.catalog import Exercise

# The recent submissions' filter: a learner's pseudonym, as the pages show it.
PSEUDONYM = re.compile(r"[0-9a-f]{10}")
PSEUDONYM_EXAMPLE = "3fa2c81b0d"
# The bar chart's geometry (SVG user units; the stylesheet scales the whole chart).
CHART_WIDTH, CHART_ROW, CHART_BAR, CHART_LABEL_CHARS = 640, 46, 14, 80

router = APIRouter(prefix="/instructor", tags=["instructor pages"], include_in_schema=False)


def _rate(passed: int, submissions: int) -> dict[str, Any]:
    if not submissions:
        return {"percent": None, "label": "—"}
    percent = round(100 * passed / submissions)
    return {"percent": percent, "label": f"{percent}%"}


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


class _LearnerNumbers(Protocol):
    learners: int
    solved: int


def _solved(counts: _LearnerNumbers) -> dict[str, Any]:
    """How many learners solved it of how many tried ("N of M"), as the pages show it."""
    learners, solved = counts.learners, counts.solved
    label = f"{solved} of {_plural(learners, 'learner')}" if learners else "no learner yet"
    return {"learners": learners, "solved": solved, "label": label}


@router.get("", response_class=HTMLResponse)
async def dashboard(request: Request, instructor: InstructorDep) -> Response:
    if (refused := guard(request)) is not None:
        return refused
    counts = await instructor.overview()
    rows = []
    totals = {"submissions": 0, "passed": 0, "elsewhere": 0}
    for exercise in instructor.exercises():
        numbers = counts.get(exercise.slug, ExerciseOverview())
        tracks = []
        for track in exercise.tracks:
            row = numbers.tracks.get(track, TrackOverview())
            totals["submissions"] += row.submissions
            totals["passed"] += row.passed
            totals["elsewhere"] += row.elsewhere
            tracks.append(
                {
                    "name": track,
                    "label": TRACK_LABELS.get(track, track),
                    **row.model_dump(),
                    "solved_by": _solved(row),
                    "rate": _rate(row.passed, row.submissions),
                }
            )
        elsewhere = sum(t["elsewhere"] for t in tracks)
        rows.append(
            {
                "slug": exercise.slug,
                "title": exercise.meta.title,
                "section": exercise.meta.section,
                "tracks": tracks,
                "solved_by": _solved(numbers),
                "elsewhere": elsewhere,
                "elsewhere_label": f"{_plural(elsewhere, 'Submit')} graded only against "
                "another version than the current one (not regraded)"
                if elsewhere
                else None,
            }
        )
    return page(
        request,
        "instructor.html",
        exercises=rows,
        totals={**totals, "rate": _rate(totals["passed"], totals["submissions"])},
        catalog_problem=instructor.catalog_problem(),
    )


def _chart(tests: list[TestStats]) -> dict[str, Any]:
    bars = []
    for i, test in enumerate(tests):
        runs, failures = test.runs, test.failures
        name = test.name
        short = name if len(name) <= CHART_LABEL_CHARS else name[: CHART_LABEL_CHARS - 1] + "…"
        top = i * CHART_ROW
        bars.append(
            {
                "name": name,
                "id": test.id,
                "label": short,
                "value": f"{failures}/{runs}",
                "runs": runs,
                "failures": failures,
                "elsewhere": _blamed_elsewhere(test.blamed_elsewhere),
                "text_y": top + 16,
                "bar_y": top + 24,
                "fail_width": round(CHART_WIDTH * failures / runs, 1) if runs else 0,
            }
        )
    return {
        "width": CHART_WIDTH,
        "height": max(len(tests), 1) * CHART_ROW,
        "bar_height": CHART_BAR,
        "bars": bars,
    }


# How the page names the failures that are not the learners' doing, by blame.
BLAMED_ELSEWHERE = {
    "test": ("{n} failed in the exercise's own test", "{n} failed in the exercise's own tests"),
    "grader": ("{n} was an internal grading error", "{n} were internal grading errors"),
    "infrastructure": (
        "{n} ran on a grading machine that was lost",
        "{n} ran on grading machines that were lost",
    ),
}


def _blamed_elsewhere(counts: dict[str, int]) -> str | None:
    """The failures not due to the learners' code, in words (None: there are none)."""
    parts = []
    for blame, (one, many) in BLAMED_ELSEWHERE.items():
        n = counts.get(blame, 0)
        if n:
            parts.append((one if n == 1 else many).format(n=n))
    return "; ".join(parts) if parts else None


def _learner_filter(value: str | None) -> dict[str, Any]:
    """The recent submissions' filter from the ``learner`` query parameter: ``learner``
    (the pseudonym, or None for everyone), ``value`` (what to show in the field) and
    ``error`` (a message, or None)."""
    text = (value or "").strip()
    if not text:
        return {"learner": None, "value": "", "error": None}
    pseudonym = text.lower()
    if PSEUDONYM.fullmatch(pseudonym):
        return {"learner": pseudonym, "value": pseudonym, "error": None}
    shown = text if len(text) <= 40 else text[:39] + "…"
    return {
        "learner": None,
        "value": text[:100],
        "error": f"“{shown}” is not a learner pseudonym: that is the 10 characters (digits "
        f"and a–f) shown beside a submission, such as {PSEUDONYM_EXAMPLE}.",
    }


def _recent(recent: list[RecentSubmission]) -> list[dict[str, Any]]:
    """The recent Submits for the page, their code highlighted."""
    return [
        {
            **row.model_dump(),
            "track_label": TRACK_LABELS.get(row.track, row.track),
            "when": row.created_at[:19].replace("T", " ") + " UTC",
            "code_html": highlight_python(row.code),
        }
        for row in recent
    ]


def _regrade_notes(tally: dict[str, Any]) -> str | None:
    """What a regrade's row of a test says besides now pass and now fail (None: nothing):
    where the test was new, and where it passed before and did not run now. A run stored
    before these were counted has neither."""
    notes = []
    new = int(tally.get("new") or 0)
    if new:
        new_pass, new_fail = int(tally.get("new_pass") or 0), int(tally.get("new_fail") or 0)
        note = f"new test in {_plural(new, 'Submit')}: passes in {new_pass}, fails in {new_fail}"
        if new - new_pass - new_fail:
            note += f", did not run in {new - new_pass - new_fail}"
        notes.append(note + " (its failures are counted in now fail)")
    stopped = int(tally.get("stopped") or 0)
    if stopped:
        notes.append(
            f"passed in {stopped} before and did not run now (an earlier test ended the run)"
        )
    return "; ".join(notes) if notes else None


def _regrades(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The exercise's regrade runs for the page, newest first."""
    shown = []
    for run in runs:
        summary = run["summary"] or {}
        tests = []
        for track, by_id in (summary.get("tests") or {}).items():
            for test_id, tally in by_id.items():
                tests.append(
                    {
                        "track_label": TRACK_LABELS.get(track, track),
                        "id": test_id,
                        **tally,
                        "notes": _regrade_notes(tally),
                    }
                )
        shown.append(
            {
                **run,
                "summary": summary,
                "tests": tests,
                "when": run["started_at"][:16].replace("T", " ") + " UTC",
                "track_label": TRACK_LABELS.get(run["track"], run["track"])
                if run["track"]
                else "every track",
            }
        )
    return shown


def _version_choice(
    versions: list[VersionInfo], exercise: Exercise, chosen: str | None
) -> dict[str, Any]:
    """The version selector: each version with its number, live time, and which is
    shown (``all``, or a hash)."""
    labelled = [
        {
            **v.model_dump(),
            "label": f"v{v.number} ({v.version[:8]}), live since "
            f"{v.went_live_at[:16].replace('T', ' ')} UTC"
            + (" (current)" if v.version == exercise.version else ""),
            "counted": _plural(v.submissions, "Submit")
            + (f" ({v.regraded} regraded since)" if v.regraded else ""),
        }
        for v in versions
    ]
    selected = "all" if chosen == "all" else (chosen or exercise.version)
    return {
        "versions": labelled,
        "selected": selected,
        "current": exercise.version,
        "counting": _counting(versions, exercise, None if selected == "all" else selected),
    }


def _counting(versions: list[VersionInfo], exercise: Exercise, shown: str | None) -> str:
    """What the page's numbers count, in words: which Submits, by which grading, of which
    version(s), and the Submits of the exercise the chosen version leaves out."""
    total = sum(v.submissions for v in versions)
    if shown is None:
        span = f"v1 to v{len(versions)}" if len(versions) > 1 else "v1"
        return (
            "Counting each Submit once, by its newest grading, whichever version graded it "
            f"({span}): {_plural(total, 'Submit')}."
        )
    version = next((v for v in versions if v.version == shown), None)
    if version is None:  # not known to the store yet: nothing graded against it
        return f"Counting each Submit once, by its newest grading: none against {shown[:8]} yet."
    current = version.version == exercise.version
    name = f"v{version.number} ({version.version[:8]})" + (
        ", the current version" if current else ""
    )
    text = (
        f"Counting each Submit once, by its newest grading, against {name}: "
        f"{_plural(version.submissions, 'Submit')}."
    )
    others = total - version.submissions
    if others:
        one = others == 1
        them = "it" if one else "them"
        if current:
            text += (
                f" {others} more {'Submit is' if one else 'Submits are'} graded only against "
                f"another version, not regraded against this one (drill regrade "
                f"{exercise.slug} would regrade {them})"
            )
        else:
            text += (
                f" {others} more {'Submit has its' if one else 'Submits have their'} newest "
                "grading against another version"
            )
        text += f": “every version” counts {them}."
    if version.regraded:
        one = version.regraded == 1
        text += (
            f" v{version.number} also graded {_plural(version.regraded, 'Submit')} that "
            f"{'was' if one else 'were'} regraded since, against another version: "
            f"{'it counts' if one else 'they count'} there."
        )
    return text


@router.get("/exercises/{slug}", response_class=HTMLResponse)
async def exercise_dashboard(
    request: Request,
    slug: str,
    instructor: InstructorDep,
    learner: str | None = None,
    version: VersionQuery = None,
) -> Response:
    if (refused := guard(request)) is not None:
        return refused
    try:
        exercise = instructor.exercise(slug)
    except UnknownExercise:
        return page(
            request,
            "error.html",
            status_code=404,
            title="Exercise not found",
            message=f"There is no exercise named “{slug}”.",
        )
    try:
        report, versions, learners = await instructor.report(exercise, version)
    except NotFound as exc:
        return page(
            request, "error.html", status_code=404, title="Version not found", message=str(exc)
        )
    regrades = _regrades(await instructor.regrades(exercise))
    learner_filter = _learner_filter(learner)
    recent = _recent(await instructor.recent(slug, learner_filter["learner"]))
    tracks = []
    for name, numbers in report.stats.tracks.items():
        tracks.append(
            {
                "name": name,
                "label": TRACK_LABELS.get(name, name),
                "submissions": numbers.submissions,
                "passed": numbers.passed,
                "solved_by": _solved(learners.tracks.get(name, LearnerCounts())),
                "rate": _rate(numbers.passed, numbers.submissions),
                "tests": numbers.tests,
                "chart": _chart(numbers.tests),
                "failures": report.failures.get(name, []),
                "blamed_elsewhere": _blamed_elsewhere(numbers.blamed_elsewhere),
                "retired": name not in exercise.tracks,
            }
        )
    return page(
        request,
        "instructor_exercise.html",
        status_code=400 if learner_filter["error"] else 200,
        exercise={"slug": slug, "title": exercise.meta.title, "section": exercise.meta.section},
        solved_by=_solved(learners),
        tracks=tracks,
        recent=recent,
        learner_filter=learner_filter,
        version_choice=_version_choice(versions, exercise, report.stats.version or "all"),
        regrades=regrades,
        catalog_problem=instructor.catalog_problem(),
    )
