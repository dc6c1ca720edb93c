from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from app.deps import LearnerDep, ServiceDep, get_learner, get_meter
from app.schemas import (
    ExerciseDetail,
    ExerciseSummary,
    Hint,
    Solution,
    SubmissionIn,
    SubmissionResult,
    SubmissionSummary,
)
from app.service import Service

router = APIRouter(prefix="/api/exercises", tags=["exercises"])
SlugPath = Path(max_length=100, pattern=r"^[a-z0-9-]+$")


@router.get("")
def list_exercises(service: ServiceDep) -> list[ExerciseSummary]:
    """Every exercise, with its section, difficulty and tracks."""
    return [service.summary(e) for e in service.exercises()]


@router.get("/{slug}")
def get_exercise(service: ServiceDep, learner: LearnerDep, slug: str = SlugPath) -> ExerciseDetail:
    """An exercise: its statement as HTML (every track's parts, each labelled, and per
    track the view its learners read), its hints, its tracks (starter code, time limit,
    the calling learner's standing) and the next exercise."""
    return service.detail(service.exercise(slug), learner)


@router.get("/{slug}/hints/{n}")
def get_hint(service: ServiceDep, slug: str = SlugPath, n: int = Path(ge=1, le=100)) -> Hint:
    """Hint ``n`` (1-based); 404 past the last."""
    return service.hint(slug, n)


@router.post(
    "/{slug}/submissions",
    response_model=SubmissionResult,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": SubmissionIn.model_json_schema()}},
        }
    },
    responses={
        404: {"description": "Unknown exercise"},
        413: {"description": "Code over the size limit"},
        422: {"description": "Invalid body, unknown track or mode"},
        429: {"description": "Rate limited (Retry-After)"},
        503: {"description": "Queue full or database unavailable (Retry-After)"},
    },
)
async def submit(request: Request, slug: str = SlugPath) -> Any:
    """Grade code on the examples (``run``) or the hidden tests (``submit``) and store it."""
    # The body is parsed here rather than by a ``SubmissionIn`` parameter: FastAPI's
    # dependency solving cost 2 ms of the event loop's time per Submit (profiled).
    try:
        data = json.loads(await request.body())
    # A ValueError of its own: a number over Python's 4300 digits (int_max_str_digits).
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError) as exc:
        reason = (
            exc.msg
            if isinstance(exc, json.JSONDecodeError)
            else "it is nested too deeply"
            if isinstance(exc, RecursionError)
            else "it is not UTF-8"
            if isinstance(exc, UnicodeDecodeError)
            else "it holds a number with too many digits"
        )
        raise RequestValidationError(
            [{"type": "json_invalid", "loc": ("body",), "msg": reason, "ctx": {"error": reason}}]
        ) from None
    try:
        body = SubmissionIn.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in errors]) from None
    service: Service = request.app.state.service
    stored = await service.submit(
        get_learner(request), get_meter(request), slug, body.track, body.code, body.mode
    )
    # Already in the result's shape (store.save_submission built it from the model).
    return JSONResponse(stored)


TrackQuery = Query(
    None, min_length=1, max_length=32, description="Only this track's", examples=["numpy"]
)


@router.get(
    "/{slug}/submissions",
    responses={
        404: {"description": "Unknown exercise"},
        422: {"description": "A track the exercise does not have, or a limit outside 1..100"},
    },
)
async def list_submissions(
    service: ServiceDep,
    learner: LearnerDep,
    slug: str = SlugPath,
    track: str | None = TrackQuery,
    limit: int = Query(20, ge=1, le=100, description="At most this many, the newest"),
) -> list[SubmissionSummary]:
    """The calling learner's own submissions of an exercise (Runs and Submits), newest
    first; another learner's are never listed, and a new learner has none."""
    rows = await service.history(learner, slug, track, limit)
    return [SubmissionSummary.model_validate(row) for row in rows]


@router.get(
    "/{slug}/solution",
    responses={
        403: {"description": "The calling learner has not passed this track's Submit yet"},
        404: {"description": "Unknown exercise, or its author keeps the solutions hidden"},
        422: {"description": "A track the exercise does not have"},
    },
)
async def get_solution(
    service: ServiceDep,
    learner: LearnerDep,
    slug: str = SlugPath,
    track: str = Query(min_length=1, max_length=32, examples=["numpy"]),
) -> Solution:
    """A track's reference solution, for a learner who passed that track's Submit."""
    return await service.solution(learner, slug, track)
