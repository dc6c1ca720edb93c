"""The instructor's JSON API: an exercise's statistics and the submission exports.

Behind ``DRILL_INSTRUCTOR_TOKEN`` as a bearer token (see app/instructor_auth.py).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import Response, StreamingResponse

from app import exports
from app.deps import InstructorDep
from app.instructor_auth import require_instructor
from app.routers.instructor_login import NO_STORE
from app.schemas import ExerciseStats, LearnerCounts, TrackReport

SlugPath = Path(max_length=100, pattern=r"^[a-z0-9-]+$")
# The exports' optional filter: one exercise's submissions.
ExerciseFilter = Annotated[str | None, Query(max_length=100, pattern=r"^[a-z0-9-]+$")]
VersionQuery = Annotated[
    str | None,
    Query(
        max_length=64,
        pattern=r"^(current|all|[0-9a-f]{6,32})$",
        description="current (the default): the exercise as it is now; all: every version; "
        "or a version (its hash, or a prefix of at least 6 characters)",
    ),
]

router = APIRouter(
    prefix="/api/instructor",
    tags=["instructor"],
    dependencies=[Depends(require_instructor)],
    responses={
        401: {"description": "No instructor token, or a wrong one"},
        404: {"description": "Unknown exercise, or the dashboard is disabled"},
    },
)


@router.get("/exercises/{slug}/stats", response_model=ExerciseStats)
async def exercise_stats(
    instructor: InstructorDep, slug: str = SlugPath, version: VersionQuery = None
) -> ExerciseStats:
    """Submits only (a Run is not counted), each once, by its newest grading (a regrade
    replaces a grading, it adds no Submit), of one exercise version (the current one by
    default: the Submits whose newest grading is against it) or of every version: per
    track, submissions, passes, how many learners solved it of how many who tried
    (``solved`` of ``learners``, also for the whole exercise) and each hidden test's runs
    and failures (a failure is a test that ran and did not pass; one that never started,
    as an earlier test ended the run, is counted in ``not_run``). Tests are keyed by id, so
    a renamed test keeps its numbers; ``versions`` says when each version went live and
    how many Submits it counts. The dashboard's pages show the same numbers."""
    exercise = instructor.exercise(slug)  # UnknownExercise -> 404
    report, versions, learners = await instructor.report(exercise, version)
    return ExerciseStats(
        slug=report.stats.slug,
        version=report.stats.version,
        current_version=exercise.version,
        versions=versions,
        learners=learners.learners,
        solved=learners.solved,
        tracks={
            name: TrackReport(
                **numbers.model_dump(),
                **learners.tracks.get(name, LearnerCounts()).model_dump(),
            )
            for name, numbers in report.stats.tracks.items()
        },
    )


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


def _attachment(
    export: exports.SubmissionsCsv | exports.SubmissionsJson, extension: str, media_type: str
) -> Response:
    """Stream an export as an attachment named after the exercise filter."""
    suffix = f"-{export.exercise}" if export.exercise else ""
    name = f"drill-submissions{suffix}.{extension}"
    return StreamingResponse(
        iter(export),
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{name}"', **NO_STORE},
    )


@router.get(
    "/submissions.csv",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": "One row per submission (Run and Submit), oldest first",
        }
    },
)
async def submissions_csv(instructor: InstructorDep, exercise: ExerciseFilter = None) -> Response:
    """Every submission as CSV: all columns but the result JSON, the code included. A text
    cell starting with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading ``'`` so that
    spreadsheets do not run it (the JSON export has the exact code)."""
    export = await instructor.submissions_csv(exercise)
    return _attachment(export, "csv", "text/csv; charset=utf-8")


@router.get(
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
async def submissions_json(instructor: InstructorDep, exercise: ExerciseFilter = None) -> Response:
    """Every submission as one JSON array, streamed in pages: the CSV export's columns as
    keys, and the code exactly as submitted (no spreadsheet quote)."""
    export = await instructor.submissions_json(exercise)
    return _attachment(export, "json", "application/json")
