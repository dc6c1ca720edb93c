from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path

from app.deps import LearnerDep, ServiceDep
from app.schemas import SubmissionCode, SubmissionResult

router = APIRouter(prefix="/api/submissions", tags=["submissions"])
SubmissionId = Path(max_length=64, pattern=r"^[0-9a-f]+$")


@router.get("/{submission_id}", response_model=SubmissionResult)
async def get_submission(service: ServiceDep, submission_id: str = SubmissionId) -> Any:
    """A stored result."""
    return await service.submission(submission_id)


@router.get(
    "/{submission_id}/code",
    responses={404: {"description": "Unknown submission, or another learner's"}},
)
async def get_submission_code(
    service: ServiceDep, learner: LearnerDep, submission_id: str = SubmissionId
) -> SubmissionCode:
    """The code of one of the calling learner's own submissions (to load it back into the
    editor); another learner's is never shown."""
    return await service.submission_code(learner, submission_id)
