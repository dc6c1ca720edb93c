from __future__ import annotations

from fastapi import APIRouter

from app.deps import ServiceDep
from app.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model_exclude_none=True)
@router.head("/healthz", include_in_schema=False)
def healthz(service: ServiceDep) -> Health:
    """Liveness, the sandbox in use and the number of live workers; in distributed mode
    the queue, and "degraded" while it is unreachable (the API still answers)."""
    status = service.status
    return Health(
        status="ok" if status.healthy else "degraded",
        sandbox=status.sandbox,
        workers=status.workers,
        queue=status.queue,
        cgroups=status.cgroups,
        problem=None if status.healthy else status.warning,
    )
