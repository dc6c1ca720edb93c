"""Dependencies of the routes, as ``Annotated`` aliases in one place."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.accounts import Account, Accounts
from app.courses import Courses
from app.instructor_service import InstructorService
from app.proxies import _address, _networks, _trusted
from app.service import Service


def get_service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


def get_instructor(request: Request) -> InstructorService:
    instructor: InstructorService = request.app.state.instructor
    return instructor


def get_learner(request: Request) -> str:
    """The anonymous learner id, from the cookie the middleware manages."""
    learner: str = request.scope["state"]["learner"]
    return learner


def get_account(request: Request) -> Account | None:
    """The signed-in account (app/middleware.py resolved the session), or None."""
    account: Account | None = request.scope["state"].get("account")
    return account


def get_accounts(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


def get_courses(request: Request) -> Courses:
    courses: Courses = request.app.state.courses
    return courses


def get_client(request: Request) -> str:
    """The client's address, which the rate limits count by.

    The peer's address, unless the peer is a trusted proxy (``DRILL_TRUSTED_PROXIES``):
    then X-Forwarded-For is read from the right, each proxy having appended the address
    it got the request from, and the first address that is not a trusted proxy is the
    client. The entries left of it are whatever the client sent, so they are not read.
    A header that does not parse is ignored whole: the peer is the client.
    """
    peer = request.client.host if request.client else "unknown"
    networks = _networks(tuple(request.app.state.settings.trusted_proxies))
    if not networks or not _trusted(_address(peer), networks):
        return peer
    # Several X-Forwarded-For headers are one list, in order (RFC 9110, 5.3).
    entries = ",".join(request.headers.getlist("x-forwarded-for")).split(",")
    chain = [_address(entry.strip()) for entry in entries]
    if None in chain:  # no header, an empty entry, a port, a name: not what a proxy writes
        return peer
    for address in reversed(chain):
        if not _trusted(address, networks):
            return str(address)
    return str(chain[0])  # every hop is ours: the first one is where it started


def get_meter(request: Request) -> str:
    """Who the rate limits and fair-share caps count: a signed-in account (so a classroom
    behind one address gets the configured rate per student), else the client's address."""
    account = get_account(request)
    return f"account:{account.id}" if account is not None else get_client(request)


ServiceDep = Annotated[Service, Depends(get_service)]
InstructorDep = Annotated[InstructorService, Depends(get_instructor)]
LearnerDep = Annotated[str, Depends(get_learner)]
ClientDep = Annotated[str, Depends(get_client)]
MeterDep = Annotated[str, Depends(get_meter)]
AccountDep = Annotated[Account | None, Depends(get_account)]
AccountsDep = Annotated[Accounts, Depends(get_accounts)]
CoursesDep = Annotated[Courses, Depends(get_courses)]
