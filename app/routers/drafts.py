from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path

from app.deps import LearnerDep, MeterDep, ServiceDep
from app.schemas import Draft, DraftIn

router = APIRouter(prefix="/api/drafts", tags=["drafts"])
SlugPath = Path(max_length=100, pattern=r"^[a-z0-9-]+$")
TrackPath = Path(max_length=32)


@router.get("/{slug}/{track}", response_model=Draft)
async def get_draft(
    service: ServiceDep, learner: LearnerDep, slug: str = SlugPath, track: str = TrackPath
) -> Any:
    """The learner's saved code for a track (the learner is the cookie's)."""
    return await service.draft(learner, slug, track)


@router.put("/{slug}/{track}", response_model=Draft)
async def put_draft(
    body: DraftIn,
    service: ServiceDep,
    learner: LearnerDep,
    client: MeterDep,
    slug: str = SlugPath,
    track: str = TrackPath,
) -> Any:
    """Save the learner's code for a track (rate limited per client: 429 with Retry-After)."""
    return await service.save_draft(learner, client, slug, track, body.code)
