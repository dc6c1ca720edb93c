from __future__ import annotations

from fastapi import APIRouter

from app.deps import ServiceDep
from app.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz")
@router.head("/healthz", include_in_schema=False)
def healthz(service: ServiceDep) -> Health:
    """Liveness, the sandbox in use and the number of live workers."""
    grader = service.grader
    assert grader.status is not None and grader.pool is not None
    return Health(status="ok", sandbox=grader.status.backend, workers=grader.pool.live_workers)
