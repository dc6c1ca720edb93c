from __future__ import annotations

from fastapi import APIRouter

from app.deps import LearnerDep, ServiceDep
from app.schemas import Progress

router = APIRouter(prefix="/api/progress", tags=["progress"])


@router.get("")
async def get_progress(service: ServiceDep, learner: LearnerDep) -> Progress:
    """The calling learner's standing in every track of every exercise: solved (a Submit
    passed), attempts (Submits; a Run is not an attempt) and the newest submission's id."""
    return await service.progress(learner)
