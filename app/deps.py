"""Dependencies of the routes, as ``Annotated`` aliases in one place."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.service import Service


def get_service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


def get_learner(request: Request) -> str:
    """The anonymous learner id, from the cookie the middleware manages."""
    learner: str = request.scope["state"]["learner"]
    return learner


def get_client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


ServiceDep = Annotated[Service, Depends(get_service)]
LearnerDep = Annotated[str, Depends(get_learner)]
ClientDep = Annotated[str, Depends(get_client)]
