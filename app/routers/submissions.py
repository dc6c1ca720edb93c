from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path

from app.deps import ServiceDep
from app.schemas import SubmissionResult

router = APIRouter(prefix="/api/submissions", tags=["submissions"])


@router.get("/{submission_id}", response_model=SubmissionResult)
async def get_submission(
    service: ServiceDep, submission_id: str = Path(max_length=64, pattern=r"^[0-9a-f]+$")
) -> Any:
    """A stored result."""
    return await service.submission(submission_id)
