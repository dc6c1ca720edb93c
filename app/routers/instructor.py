"""The instructor dashboard: submissions, pass rates, per-test failures, CSV and JSON exports.

Behind ``DRILL_INSTRUCTOR_TOKEN`` (see app/instructor_auth.py). The JSON API takes the
token as a bearer token; the pages take the cookie the login form sets.
"""

from __future__ import annotations

import logging
import re
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from app import exports, regrade, stats
from app.deps import ServiceDep, get_client
from app.errors import NotFound
from app.instructor_auth import (
    COOKIE,
    DISABLED,
    configured_token,
    failed_attempts,
    has_valid_cookie,
    require_instructor,
    same_secret,
    set_login_cookie,
    throttled,
)
from app.rendering import highlight_python
from app.routers.pages import TRACK_LABELS, render
from app.service import Service
from graders.errors import DrillError, UnknownExercise
from graders.grading.catalog import Exercise

log = logging.getLogger("drill.app")

SlugPath = Path(max_length=100, pattern=r"^[a-z0-9-]+$")
# The exports' optional filter: one exercise's submissions.
ExerciseFilter = Annotated[str | None, Query(max_length=100, pattern=r"^[a-z0-9-]+$")]
# The recent submissions' filter: a learner's pseudonym, as the pages show it.
PSEUDONYM = re.compile(r"[0-9a-f]{10}")
PSEUDONYM_EXAMPLE = "3fa2c81b0d"
NO_STORE = {"Cache-Control": "no-store"}  # learners' code: never in a shared cache


class TestStats(BaseModel):
    __test__ = False  # not a pytest class

    id: str | None = Field(
        description="The test's stable id (null: known only by its name in results stored "
        "before ids existed)"
    )
    name: str = Field(description="Its name today (a retired test: the name it last had)")
    runs: int  # Submits that ran this test
    failures: int
    not_run: int = 0  # Submits that ended (a timeout, a crash) before this test started


class TrackStats(BaseModel):
    submissions: int
    passed: int
    tests: list[TestStats]


class VersionInfo(BaseModel):
    version: str
    number: int = Field(description="v1, v2, ...: the versions in the order they went live")
    went_live_at: str
    submissions: int = Field(description="Its Submits, regrades included")


class ExerciseStats(BaseModel):
    slug: str
    version: str | None = Field(description="The version counted; null: every version")
    current_version: str
    versions: list[VersionInfo]
    tracks: dict[str, TrackStats]


api = APIRouter(
    prefix="/api/instructor",
    tags=["instructor"],
    dependencies=[Depends(require_instructor)],
    responses={
        401: {"description": "No instructor token, or a wrong one"},
        404: {"description": "Unknown exercise, or the dashboard is disabled"},
    },
)
pages = APIRouter(prefix="/instructor", tags=["instructor pages"], include_in_schema=False)


# --- shared ---


def _test_names(service: Service, exercise: Exercise) -> dict[str, list[tuple[str, str]]]:
    """The hidden tests of each track, (id, name), in the reference's order (blocking: it
    may have to compute the reference). A track whose reference is broken gets its tests
    from the stored results instead."""
    names: dict[str, list[tuple[str, str]]] = {}
    for track in exercise.tracks:
        try:
            reference = service.grader.reference(exercise, track)
        except DrillError as exc:
            log.warning("instructor stats of %s/%s: no reference (%s)", exercise.slug, track, exc)
            names[track] = []
            continue
        names[track] = [(t.id, t.name) for t in reference.tests if not t.example]
    return names


def _report(service: Service, exercise: Exercise, version: str | None) -> dict[str, Any]:
    service.note_versions()  # a reload's new version gets its time when first seen
    return stats.exercise_report(
        service.store, exercise.slug, _test_names(service, exercise), version=version
    )


def _version(exercise: Exercise, chosen: str | None) -> str | None:
    """The version the statistics are of: ``current`` (the default), ``all`` (None), or a
    version's hash."""
    if chosen in (None, "", "current"):
        return exercise.version
    return None if chosen == "all" else chosen


def _catalog_problem(service: Service) -> str | None:
    problem = getattr(service.grader, "catalog_problem", None)
    return str(problem) if problem else None


# --- the JSON API ---


VersionQuery = Annotated[
    str | None,
    Query(
        max_length=64,
        pattern=r"^(current|all|[0-9a-f]{6,32})$",
        description="current (the default): the exercise as it is now; all: every version; "
        "or a version (its hash, or a prefix of at least 6 characters)",
    ),
]


@api.get("/exercises/{slug}/stats", response_model=ExerciseStats)
async def exercise_stats(
    service: ServiceDep, slug: str = SlugPath, version: VersionQuery = None
) -> Any:
    """Submit rows only, of one exercise version (the current one by default): per track,
    submissions, passes and each hidden test's runs and failures (a failure is a test
    that ran and did not pass; one that never started, as an earlier test ended the run,
    is counted in ``not_run``). Tests are keyed by id, so a renamed test keeps its
    numbers; ``versions`` says when each version went live."""
    exercise = service.exercise(slug)  # UnknownExercise -> 404
    report, versions = await run_in_threadpool(_report_and_versions, service, exercise, version)
    return {
        **report["stats"],
        "current_version": exercise.version,
        "versions": versions,
    }


def _report_and_versions(
    service: Service, exercise: Exercise, chosen: str | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The report of the chosen version (a prefix names the one version it starts) and
    the list of versions (blocking)."""
    report_version = _version(exercise, chosen)
    service.note_versions()
    versions = stats.exercise_versions(service.store, exercise.slug)
    if report_version is not None and report_version != exercise.version:
        matches = [v["version"] for v in versions if v["version"].startswith(report_version)]
        if len(matches) != 1:
            known = ", ".join(f"v{v['number']} {v['version'][:8]}" for v in versions)
            raise NotFound(
                f"{exercise.slug} has no single version {report_version!r} (known: {known})"
            )
        report_version = matches[0]
    return _report(service, exercise, report_version), versions


# The JSON export's keys for the OpenAPI schema: text but for three numbers.
_NUMBERS = {"passed": "integer", "total": "integer", "duration_ms": "number"}
_EXPORT_PROPERTIES: dict[str, Any] = {
    c: {"type": _NUMBERS.get(c, "string")} for c in exports.CSV_COLUMNS
}
_EXPORT_PROPERTIES["regrade_of"] = {"type": ["string", "null"]}
_EXPORT_PROPERTIES["tests"] = {
    "type": "object",
    "additionalProperties": {"type": "string"},
    "description": "Each test's status by test id (by name for a test stored before ids)",
}


async def _export(
    service: Service,
    export: exports.SubmissionsCsv | exports.SubmissionsJson,
    extension: str,
    media_type: str,
) -> Response:
    """Stream an export as an attachment named after the exercise filter."""
    if export.exercise is not None:
        service.exercise(export.exercise)  # UnknownExercise -> 404
    await run_in_threadpool(export.first)  # a database error is still a JSON answer
    suffix = f"-{export.exercise}" if export.exercise else ""
    name = f"drill-submissions{suffix}.{extension}"
    return StreamingResponse(
        iter(export),
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{name}"', **NO_STORE},
    )


@api.get(
    "/submissions.csv",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": "One row per submission (Run and Submit), oldest first",
        }
    },
)
async def submissions_csv(service: ServiceDep, exercise: ExerciseFilter = None) -> Response:
    """Every submission as CSV: all columns but the result JSON, the code included. A text
    cell starting with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading ``'`` so that
    spreadsheets do not run it (the JSON export has the exact code)."""
    export = exports.SubmissionsCsv(service.store, exercise)
    return await _export(service, export, "csv", "text/csv; charset=utf-8")


@api.get(
    "/submissions.json",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {
                "application/json": {
                    "schema": {
                        "type": "array",
                        "items": {"type": "object", "properties": _EXPORT_PROPERTIES},
                    }
                }
            },
            "description": "One object per submission (Run and Submit), oldest first",
        }
    },
)
async def submissions_json(service: ServiceDep, exercise: ExerciseFilter = None) -> Response:
    """Every submission as one JSON array, streamed in pages: the CSV export's columns as
    keys, and the code exactly as submitted (no spreadsheet quote)."""
    export = exports.SubmissionsJson(service.store, exercise)
    return await _export(service, export, "json", "application/json")


# --- pages ---


def _disabled(request: Request) -> HTMLResponse:
    return render(
        request,
        "error.html",
        status_code=404,
        title="Instructor dashboard disabled",
        message=DISABLED[:1].upper() + DISABLED[1:] + " to enable it.",
    )


def _guard(request: Request) -> Response | None:
    """The answer to give instead of the page, or None when the instructor is logged in."""
    token = configured_token(request)
    if token is None:
        return _disabled(request)
    if not has_valid_cookie(request, token):
        return RedirectResponse("/instructor/login", status_code=303)
    return None


def _page(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    response = render(request, name, status_code=status_code, **context)
    response.headers.update(NO_STORE)
    return response


def _login_form(request: Request, error: str | None = None, status_code: int = 200) -> Response:
    return _page(request, "instructor_login.html", status_code=status_code, error=error)


@pages.get("/login", response_class=HTMLResponse)
async def login_form(request: Request) -> Response:
    token = configured_token(request)
    if token is None:
        return _disabled(request)
    if has_valid_cookie(request, token):
        return RedirectResponse("/instructor", status_code=303)
    return _login_form(request)


@pages.post("/login", response_class=HTMLResponse)
async def login(request: Request) -> Response:
    token = configured_token(request)
    if token is None:
        return _disabled(request)
    if (refusal := throttled(request)) is not None:
        refused = _login_form(
            request,
            f"Too many wrong tokens; try again in {refusal.retry_after} s.",
            status_code=429,
        )
        refused.headers["Retry-After"] = str(refusal.retry_after)
        return refused
    # A urlencoded form, parsed here: python-multipart is not a dependency.
    body = (await request.body()).decode("utf-8", "replace")
    try:
        fields = parse_qs(body, keep_blank_values=True, max_num_fields=20)
    except ValueError:
        fields = {}
    given = (fields.get("token") or [""])[0]
    if not given:
        return _login_form(request, "Enter the instructor token.", status_code=401)
    if not same_secret(given, token):
        failed_attempts(request).failed(get_client(request))
        return _login_form(
            request,
            "That token is not the instructor token (DRILL_INSTRUCTOR_TOKEN). Try again.",
            status_code=401,
        )
    response = RedirectResponse("/instructor", status_code=303)
    set_login_cookie(response, request, token)
    return response


@pages.post("/logout")
async def logout(request: Request) -> Response:
    token = configured_token(request)
    if token is None:
        return _disabled(request)
    response = RedirectResponse("/instructor/login", status_code=303)
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="strict", secure=request.url.scheme == "https"
    )
    return response


def _rate(passed: int, submissions: int) -> dict[str, Any]:
    if not submissions:
        return {"percent": None, "label": "—"}
    percent = round(100 * passed / submissions)
    return {"percent": percent, "label": f"{percent}%"}


@pages.get("", response_class=HTMLResponse)
async def dashboard(request: Request, service: ServiceDep) -> Response:
    if (refused := _guard(request)) is not None:
        return refused
    counts = await run_in_threadpool(stats.overview, service.store)
    rows = []
    totals = {"submissions": 0, "passed": 0}
    for exercise in service.exercises():
        tracks = []
        for track in exercise.tracks:
            numbers = counts.get(
                (exercise.slug, track), {"submissions": 0, "passed": 0, "learners": 0}
            )
            totals["submissions"] += numbers["submissions"]
            totals["passed"] += numbers["passed"]
            tracks.append(
                {
                    "name": track,
                    "label": TRACK_LABELS.get(track, track),
                    **numbers,
                    "rate": _rate(numbers["passed"], numbers["submissions"]),
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
    return _page(
        request,
        "instructor.html",
        exercises=rows,
        totals={**totals, "rate": _rate(totals["passed"], totals["submissions"])},
        catalog_problem=_catalog_problem(service),
    )


# The bar chart's geometry (SVG user units; the stylesheet scales the whole chart).
CHART_WIDTH, CHART_ROW, CHART_BAR, CHART_LABEL_CHARS = 640, 46, 14, 80


def _chart(tests: list[dict[str, Any]]) -> dict[str, Any]:
    bars = []
    for i, test in enumerate(tests):
        runs, failures = test["runs"], test["failures"]
        name = test["name"]
        short = name if len(name) <= CHART_LABEL_CHARS else name[: CHART_LABEL_CHARS - 1] + "…"
        top = i * CHART_ROW
        bars.append(
            {
                "name": name,
                "id": test.get("id"),
                "label": short,
                "value": f"{failures}/{runs}",
                "runs": runs,
                "failures": failures,
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


def _recent(service: Service, slug: str, learner: str | None) -> list[dict[str, Any]]:
    """The recent Submits (blocking), their code highlighted."""
    recent = stats.recent_submissions(service.store, slug, learner=learner)
    for row in recent:
        row["track_label"] = TRACK_LABELS.get(row["track"], row["track"])
        row["when"] = row["created_at"][:19].replace("T", " ") + " UTC"
        row["code_html"] = highlight_python(row["code"])
    return recent


def _regrades(service: Service, exercise: Exercise) -> list[dict[str, Any]]:
    """The exercise's regrade runs for the page (blocking), newest first."""
    shown = []
    for run in regrade.runs(service.store, exercise.slug):
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
    versions: list[dict[str, Any]], exercise: Exercise, chosen: str | None
) -> dict[str, Any]:
    """The version selector: each version with its number, live time, and which is
    shown (``all``, or a hash)."""
    for v in versions:
        v["label"] = (
            f"v{v['number']} ({v['version'][:8]}), live since "
            f"{v['went_live_at'][:16].replace('T', ' ')} UTC"
            + (" (current)" if v["version"] == exercise.version else "")
        )
    selected = "all" if chosen == "all" else (chosen or exercise.version)
    return {"versions": versions, "selected": selected, "current": exercise.version}


@pages.get("/exercises/{slug}", response_class=HTMLResponse)
async def exercise_dashboard(
    request: Request,
    slug: str,
    service: ServiceDep,
    learner: str | None = None,
    version: VersionQuery = None,
) -> Response:
    if (refused := _guard(request)) is not None:
        return refused
    try:
        exercise = service.exercise(slug)
    except UnknownExercise:
        return _page(
            request,
            "error.html",
            status_code=404,
            title="Exercise not found",
            message=f"There is no exercise named “{slug}”.",
        )
    try:
        report, versions = await run_in_threadpool(_report_and_versions, service, exercise, version)
    except NotFound as exc:
        return _page(
            request, "error.html", status_code=404, title="Version not found", message=str(exc)
        )
    shown_version = report["stats"]["version"]
    regrades = await run_in_threadpool(_regrades, service, exercise)
    learner_filter = _learner_filter(learner)
    recent = await run_in_threadpool(_recent, service, slug, learner_filter["learner"])
    tracks = []
    for name, numbers in report["stats"]["tracks"].items():
        tracks.append(
            {
                "name": name,
                "label": TRACK_LABELS.get(name, name),
                "submissions": numbers["submissions"],
                "passed": numbers["passed"],
                "rate": _rate(numbers["passed"], numbers["submissions"]),
                "tests": numbers["tests"],
                "chart": _chart(numbers["tests"]),
                "failures": report["failures"].get(name, []),
                "retired": name not in exercise.tracks,
            }
        )
    return _page(
        request,
        "instructor_exercise.html",
        status_code=400 if learner_filter["error"] else 200,
        exercise={"slug": slug, "title": exercise.meta.title, "section": exercise.meta.section},
        tracks=tracks,
        recent=recent,
        learner_filter=learner_filter,
        version_choice=_version_choice(versions, exercise, shown_version or "all"),
        regrades=regrades,
        catalog_problem=_catalog_problem(service),
    )


router = APIRouter()  # what app/main.py includes: the API and the pages
router.include_router(api)
router.include_router(pages)
