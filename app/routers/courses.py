"""Course pages: my courses, create and join, a course's assignments, its gradebook and
exports, and one student's submissions. Staff (instructor, assistant) see their own
courses' learners only; learners see the assignments and their own standing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from app.accounts import Account
from app.courses import STAFF, Course, CourseError, Courses
from app.deps import AccountDep, CoursesDep, ServiceDep
from app.errors import RateLimited
from app.forms import form_fields
from app.gradebook_export import gradebook_csv, gradebook_json
from app.limits import RateLimiter
from app.lti.errors import LtiError, PlatformError
from app.lti.outbox import outbox_status
from app.lti.tool import LtiTool
from app.routers.pages import TRACK_LABELS, render
from app.store import aware, not_superseded
from app.tables import SubmissionRow

router = APIRouter(prefix="/courses", tags=["courses"], include_in_schema=False)
NO_STORE = {"Cache-Control": "no-store"}
# Per account: join codes cannot be guessed by trying many, nor courses made by the
# thousand (what one account can store is bounded, with MAX_OWNED in app/courses.py).
JOINS = RateLimiter(per_minute=10, burst=10, what="join attempts")
CREATES = RateLimiter(per_minute=2, burst=10, what="new courses")


def _metered(limiter: RateLimiter, request: Request, account: Account) -> str | None:
    try:
        limiter.check(f"{id(request.app)}:{account.id}")
    except RateLimited as refused:
        return refused.message[:1].upper() + refused.message[1:] + "."
    return None


def _page(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    response = render(request, name, status_code=status_code, **context)
    response.headers.update(NO_STORE)
    return response


def _sign_in(request: Request) -> Response:
    target = quote(request.url.path + (f"?{request.url.query}" if request.url.query else ""))
    return RedirectResponse(f"/account/signin?next={target}", status_code=303)


def _not_found(request: Request) -> HTMLResponse:
    return _page(
        request,
        "error.html",
        404,
        title="Course not found",
        message="There is no such course, or you are not in it.",
    )


async def _member(
    request: Request, courses: Courses, account: Account | None, course_id: str, staff: bool
) -> tuple[Course, str] | Response:
    """The course and the caller's role in it, or the answer to give instead."""
    if account is None:
        return _sign_in(request)
    course = await run_in_threadpool(courses.get, course_id)
    role = await run_in_threadpool(courses.role, course_id, account) if course else None
    if course is None or role is None or (staff and role not in STAFF):
        return _not_found(request)
    return course, role


def parse_deadline(raw: str) -> datetime | None:
    """A deadline from the form (``YYYY-MM-DDTHH:MM``, UTC) or ISO 8601 with an offset."""
    raw = raw.strip()
    if not raw:
        return None
    try:
        when = datetime.fromisoformat(raw)
    except ValueError:
        raise CourseError(f"“{raw[:40]}” is not a date and time (YYYY-MM-DD HH:MM).") from None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


@router.get("", response_class=HTMLResponse)
async def my_courses(
    request: Request, account: AccountDep, courses: CoursesDep, error: str | None = None
) -> Response:
    if account is None:
        return _sign_in(request)
    mine = await run_in_threadpool(courses.of_account, account)
    return _page(request, "courses.html", courses=mine)


@router.post("", response_class=HTMLResponse)
async def create_course(request: Request, account: AccountDep, courses: CoursesDep) -> Response:
    if account is None:
        return _sign_in(request)
    fields = await form_fields(request)
    try:
        if (refusal := _metered(CREATES, request, account)) is not None:
            raise CourseError(refusal)
        course = await run_in_threadpool(
            courses.create, account, fields.get("title", ""), fields.get("late_counts") == "on"
        )
    except CourseError as exc:
        mine = await run_in_threadpool(courses.of_account, account)
        return _page(request, "courses.html", 422, courses=mine, create_error=str(exc))
    return RedirectResponse(f"/courses/{course.id}", status_code=303)


@router.get("/join/{code}", response_class=HTMLResponse)
async def join_link(
    request: Request, code: str, account: AccountDep, courses: CoursesDep
) -> Response:
    """A join link: who follows it sees the course and a button (a GET changes nothing)."""
    if account is None:
        return _sign_in(request)
    course = await run_in_threadpool(courses.by_code, code)
    if course is None:
        return _page(
            request,
            "error.html",
            404,
            title="No such course",
            message="No course has that join code. Check the link with your instructor.",
        )
    return _page(request, "course_join.html", course=course)


@router.post("/join", response_class=HTMLResponse)
async def join(request: Request, account: AccountDep, courses: CoursesDep) -> Response:
    if account is None:
        return _sign_in(request)
    fields = await form_fields(request)
    if (refusal := _metered(JOINS, request, account)) is not None:
        mine = await run_in_threadpool(courses.of_account, account)
        return _page(request, "courses.html", 429, courses=mine, join_error=refusal)
    try:
        course = await run_in_threadpool(courses.join, account, fields.get("code", ""))
    except CourseError as exc:
        mine = await run_in_threadpool(courses.of_account, account)
        return _page(request, "courses.html", 404, courses=mine, join_error=str(exc))
    return RedirectResponse(f"/courses/{course.id}", status_code=303)


@router.get("/{course_id}", response_class=HTMLResponse)
async def course_page(
    request: Request,
    course_id: str,
    account: AccountDep,
    courses: CoursesDep,
    service: ServiceDep,
) -> Response:
    found = await _member(request, courses, account, course_id, staff=False)
    if isinstance(found, Response):
        return found
    return await _course_view(request, courses, service, account, *found)


async def _course_view(
    request: Request,
    courses: Courses,
    service: Any,
    account: Account | None,
    course: Course,
    role: str,
    status_code: int = 200,
    **extra: Any,
) -> HTMLResponse:
    book = await run_in_threadpool(courses.gradebook, course)
    titles = {e.slug: e.meta.title for e in service.exercises()}
    mine = None
    if account is not None and role == "learner":
        mine = {a.id: book.cell(account.id, a.id) for a in book.assignments}
    choices = [
        (e.slug, e.meta.title, [(t, TRACK_LABELS.get(t, t)) for t in e.tracks])
        for e in service.exercises()
    ]
    roster = await run_in_threadpool(courses.members, course.id) if role in STAFF else []
    # An LMS's course: the scores on their way to its gradebook, for its staff.
    scores = None
    if role in STAFF and course.lti_issuer:
        scores = await run_in_threadpool(outbox_status, courses.store, course.id)
    return _page(
        request,
        "course.html",
        status_code,
        roster=roster,
        lms_scores=scores,
        course=course,
        role=role,
        staff=role in STAFF,
        book=book,
        titles=titles,
        mine=mine,
        choices=choices,
        labels=TRACK_LABELS,
        join_url=str(request.base_url).rstrip("/") + f"/courses/join/{course.join_code}",
        now=datetime.now(UTC),
        **extra,
    )


@router.post("/{course_id}/assignments", response_class=HTMLResponse)
async def add_assignment(
    request: Request, course_id: str, account: AccountDep, courses: CoursesDep, service: ServiceDep
) -> Response:
    found = await _member(request, courses, account, course_id, staff=True)
    if isinstance(found, Response):
        return found
    fields = await form_fields(request)
    exercise, _, track = fields.get("task", "").partition(":")
    try:
        known = {e.slug: e for e in service.exercises()}
        if exercise not in known or track not in known[exercise].tracks:
            raise CourseError("Choose an exercise and a track from the list.")
        deadline = parse_deadline(fields.get("deadline", ""))
        await run_in_threadpool(courses.assign, course_id, exercise, track, deadline)
    except CourseError as exc:
        return await _course_view(
            request, courses, service, account, *found, status_code=422, assign_error=str(exc)
        )
    return RedirectResponse(f"/courses/{course_id}", status_code=303)


@router.post("/{course_id}/assignments/{assignment_id}/delete")
async def remove_assignment(
    request: Request, course_id: str, assignment_id: str, account: AccountDep, courses: CoursesDep
) -> Response:
    found = await _member(request, courses, account, course_id, staff=True)
    if isinstance(found, Response):
        return found
    await run_in_threadpool(courses.unassign, course_id, assignment_id)
    return RedirectResponse(f"/courses/{course_id}", status_code=303)


@router.post("/{course_id}/settings")
async def course_settings(
    request: Request, course_id: str, account: AccountDep, courses: CoursesDep
) -> Response:
    found = await _member(request, courses, account, course_id, staff=True)
    if isinstance(found, Response):
        return found
    fields = await form_fields(request)
    await run_in_threadpool(courses.set_late_counts, course_id, fields.get("late_counts") == "on")
    return RedirectResponse(f"/courses/{course_id}", status_code=303)


@router.post("/{course_id}/members/{account_id}")
async def member_role(
    request: Request, course_id: str, account_id: str, account: AccountDep, courses: CoursesDep
) -> Response:
    """An instructor changes a member's role, or removes them (role "remove")."""
    found = await _member(request, courses, account, course_id, staff=True)
    if isinstance(found, Response):
        return found
    if found[1] != "instructor" or account is None or account_id == account.id:
        return _page(
            request,
            "error.html",
            403,
            title="Not allowed",
            message="Only an instructor changes roles, and not their own.",
        )
    role = (await form_fields(request)).get("role", "")
    if role == "remove":
        await run_in_threadpool(courses.remove_member, course_id, account_id)
    else:
        try:
            await run_in_threadpool(courses.set_role, course_id, account_id, role)
        except CourseError as exc:
            return _page(request, "error.html", 422, title="Not changed", message=str(exc))
    return RedirectResponse(f"/courses/{course_id}#roster-heading", status_code=303)


@router.post("/{course_id}/roster/sync", response_class=HTMLResponse)
async def sync_roster(
    request: Request, course_id: str, account: AccountDep, courses: CoursesDep, service: ServiceDep
) -> Response:
    """Staff of an LMS's course read its roster from the LMS (LTI Names and Role
    Provisioning): the members it lists join the course, with their LMS role."""
    found = await _member(request, courses, account, course_id, staff=True)
    if isinstance(found, Response):
        return found
    tool: LtiTool = request.app.state.lti
    try:
        synced = await run_in_threadpool(tool.sync_roster, course_id)
    except LtiError as exc:
        return await _course_view(
            request,
            courses,
            service,
            account,
            *found,
            status_code=502 if isinstance(exc, PlatformError) else 422,
            roster_error=exc.message,
        )
    message = (
        f"The LMS lists {synced.total} active members: {synced.added} new to the course, "
        f"{synced.updated} with a new role."
    )
    return await _course_view(request, courses, service, account, *found, roster_message=message)


@router.get("/{course_id}/gradebook", response_class=HTMLResponse)
async def gradebook(
    request: Request, course_id: str, account: AccountDep, courses: CoursesDep, service: ServiceDep
) -> Response:
    found = await _member(request, courses, account, course_id, staff=True)
    if isinstance(found, Response):
        return found
    course, _ = found
    book = await run_in_threadpool(courses.gradebook, course)
    titles = {e.slug: e.meta.title for e in service.exercises()}
    return _page(
        request, "gradebook.html", course=course, book=book, titles=titles, labels=TRACK_LABELS
    )


def _download(text: str, kind: str, course: Course, suffix: str) -> Response:
    name = "".join(c if c.isalnum() else "-" for c in course.title.lower()).strip("-")[:60]
    return Response(
        text,
        media_type=kind,
        headers={
            **NO_STORE,
            "Content-Disposition": f'attachment; filename="gradebook-{name or course.id}.{suffix}"',
        },
    )


@router.get("/{course_id}/gradebook.csv")
async def gradebook_as_csv(
    request: Request, course_id: str, account: AccountDep, courses: CoursesDep
) -> Response:
    found = await _member(request, courses, account, course_id, staff=True)
    if isinstance(found, Response):
        return found
    book = await run_in_threadpool(courses.gradebook, found[0])
    return _download(gradebook_csv(book), "text/csv; charset=utf-8", found[0], "csv")


@router.get("/{course_id}/gradebook.json")
async def gradebook_as_json(
    request: Request, course_id: str, account: AccountDep, courses: CoursesDep
) -> Response:
    found = await _member(request, courses, account, course_id, staff=True)
    if isinstance(found, Response):
        return found
    book = await run_in_threadpool(courses.gradebook, found[0])
    return _download(gradebook_json(book), "application/json", found[0], "json")


@router.get("/{course_id}/students/{account_id}", response_class=HTMLResponse)
async def student(
    request: Request,
    course_id: str,
    account_id: str,
    account: AccountDep,
    courses: CoursesDep,
    service: ServiceDep,
) -> Response:
    """One student's submissions of each assignment, with their code."""
    found = await _member(request, courses, account, course_id, staff=True)
    if isinstance(found, Response):
        return found
    course, _ = found
    members = {m.account_id: m for m in await run_in_threadpool(courses.members, course_id)}
    member = members.get(account_id)
    if member is None:
        return _not_found(request)
    book = await run_in_threadpool(courses.gradebook, course)
    rows = await run_in_threadpool(_submissions_of, courses, member.learner, book.assignments)
    titles = {e.slug: e.meta.title for e in service.exercises()}
    return _page(
        request,
        "course_student.html",
        course=course,
        member=member,
        book=book,
        rows=rows,
        titles=titles,
        labels=TRACK_LABELS,
    )


def _submissions_of(courses: Courses, learner: str, assignments: list[Any]) -> dict[str, list[Any]]:
    """Per assignment id, the learner's Submits of it (newest grading each), newest first."""
    s = SubmissionRow
    found: dict[str, list[Any]] = {a.id: [] for a in assignments}
    by_task = {(a.exercise, a.track): a for a in assignments}
    query = (
        select(
            s.id, s.exercise, s.track, s.status, s.passed, s.total, s.created_at, s.code, s.result
        )
        .where(s.learner == learner, s.mode == "submit", not_superseded())
        .order_by(s.created_at.desc())
    )
    with courses.store.engine.connect() as connection:
        for row in connection.execute(query):
            task = by_task.get((row.exercise, row.track))
            if task is None:
                continue
            regrade = (row.result or {}).get("regrade") or {}
            sent = regrade.get("submitted_at")
            when = datetime.fromisoformat(sent) if isinstance(sent, str) else aware(row.created_at)
            found[task.id].append(
                {
                    "id": row.id,
                    "status": row.status,
                    "passed": row.passed,
                    "total": row.total,
                    "sent": when,
                    "late": bool(task.deadline and when > task.deadline),
                    "regraded": bool(regrade),
                    "code": row.code,
                }
            )
    for rows in found.values():
        rows.sort(key=lambda r: r["sent"], reverse=True)
    return found
