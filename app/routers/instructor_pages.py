"""The instructor dashboard's pages: the overview of every exercise, and one exercise's
pass rates, per-test failures (an SVG bar chart), common messages, regrades and recent
Submits. Each page passes ``instructor_login.guard`` first; its numbers come from the
``InstructorService``, and this module only shapes them for the templates.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.deps import InstructorDep
from app.errors import NotFound
from app.rendering import highlight_python
from app.routers.instructor_api import VersionQuery
from app.routers.instructor_login import guard, page
from app.routers.pages import TRACK_LABELS
from app.schemas import RecentSubmission, TestStats, TrackCounts, VersionInfo
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


@router.get("", response_class=HTMLResponse)
async def dashboard(request: Request, instructor: InstructorDep) -> Response:
    if (refused := guard(request)) is not None:
        return refused
    counts = await instructor.overview()
    rows = []
    totals = {"submissions": 0, "passed": 0}
    for exercise in instructor.exercises():
        tracks = []
        for track in exercise.tracks:
            numbers = counts.get((exercise.slug, track), TrackCounts())
            totals["submissions"] += numbers.submissions
            totals["passed"] += numbers.passed
            tracks.append(
                {
                    "name": track,
                    "label": TRACK_LABELS.get(track, track),
                    **numbers.model_dump(),
                    "rate": _rate(numbers.passed, numbers.submissions),
                }
            )
        rows.append(
            {
                "slug": exercise.slug,
                "title": exercise.meta.title,
                "section": exercise.meta.section,
                "tracks": tracks,
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
        }
        for v in versions
    ]
    selected = "all" if chosen == "all" else (chosen or exercise.version)
    return {"versions": labelled, "selected": selected, "current": exercise.version}


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
        report, versions = await instructor.report(exercise, version)
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
        tracks=tracks,
        recent=recent,
        learner_filter=learner_filter,
        version_choice=_version_choice(versions, exercise, report.stats.version or "all"),
        regrades=regrades,
        catalog_problem=instructor.catalog_problem(),
    )
