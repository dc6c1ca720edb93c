from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path
from fastapi.responses import JSONResponse

from app.deps import ClientDep, LearnerDep, ServiceDep
from app.schemas import ExerciseDetail, ExerciseSummary, Hint, SubmissionIn, SubmissionResult

router = APIRouter(prefix="/api/exercises", tags=["exercises"])
SlugPath = Path(max_length=100, pattern=r"^[a-z0-9-]+$")


@router.get("")
def list_exercises(service: ServiceDep) -> list[ExerciseSummary]:
    """Every exercise, with its section, difficulty and tracks."""
    return [service.summary(e) for e in service.exercises()]


@router.get("/{slug}")
def get_exercise(service: ServiceDep, slug: str = SlugPath) -> ExerciseDetail:
    """An exercise: its statement as HTML, its hint count and its tracks' starter code."""
    return service.detail(service.exercise(slug))


@router.get("/{slug}/hints/{n}")
def get_hint(service: ServiceDep, slug: str = SlugPath, n: int = Path(ge=1, le=100)) -> Hint:
    """Hint ``n`` (1-based); 404 past the last."""
    return service.hint(slug, n)


@router.post(
    "/{slug}/submissions",
    response_model=SubmissionResult,
    responses={
        404: {"description": "Unknown exercise"},
        413: {"description": "Code over the size limit"},
        422: {"description": "Invalid body, unknown track or mode"},
        429: {"description": "Rate limited (Retry-After)"},
        503: {"description": "Queue full or database unavailable (Retry-After)"},
    },
)
async def submit(
    body: SubmissionIn,
    service: ServiceDep,
    learner: LearnerDep,
    client: ClientDep,
    slug: str = SlugPath,
) -> Any:
    """Grade code on the examples (``run``) or the hidden tests (``submit``) and store it."""
    stored = await service.submit(learner, client, slug, body.track, body.code, body.mode)
    # Already in the result's shape (store.save_submission built it from the model).
    return JSONResponse(stored)
