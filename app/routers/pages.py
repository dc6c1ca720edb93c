"""The HTML pages: the catalog and the exercise page. Data for the page's script travels
as a JSON block, never as inline script."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from app.accounts import Account
from app.courses import Courses
from app.deps import LearnerDep, ServiceDep
from app.service import Service
from graders.errors import UnknownExercise
from graders.grading.catalog import Exercise

router = APIRouter(tags=["pages"], include_in_schema=False)
TRACK_LABELS = {"numpy": "NumPy", "torch": "PyTorch"}


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    app = request.app
    base = {
        "csp_nonce": request.scope["state"]["csp_nonce"],
        "sandbox_warning": app.state.service.status.warning,
        "static_version": app.state.static_version,
        "account": request.scope["state"].get("account"),
    }
    response: HTMLResponse = app.state.templates.TemplateResponse(
        request, name, {**base, **context}, status_code=status_code
    )
    return response


@router.get("/", response_class=HTMLResponse)
async def catalog(request: Request, service: ServiceDep, learner: LearnerDep) -> HTMLResponse:
    progress = await service.standings(learner)
    tried = {slug for slug, _ in progress}
    catalog = service.catalog()  # once: a reload replaces it whole
    by_section: dict[str, list[dict[str, Any]]] = {s.name: [] for s in catalog.sections}
    for exercise in catalog:
        tracks = [
            {
                "name": track,
                "label": TRACK_LABELS.get(track, track),
                "solved": (exercise.slug, track) in progress
                and progress[exercise.slug, track].solved,
            }
            for track in exercise.tracks
        ]
        entry = {
            **service.summary(exercise).model_dump(),
            "track_marks": tracks,
            "solved": any(t["solved"] for t in tracks),  # in any track, as on LeetCode
            "tried": exercise.slug in tried,  # a Run or a Submit, in any track
        }
        by_section.setdefault(exercise.meta.section, []).append(entry)
    return render(
        request,
        "catalog.html",
        sections=[
            _section(section.name, section.summary, by_section[section.name])
            for section in catalog.sections
            if by_section.get(section.name)
        ],
    )


DIFFICULTIES = ("easy", "medium", "hard")


def _level(exercises: list[dict[str, Any]]) -> str:
    """A section's level from its exercises' difficulties: "Easy", "Easy to medium"..."""
    present: list[str] = sorted({e["difficulty"] for e in exercises}, key=DIFFICULTIES.index)
    if len(present) == 1:
        return present[0].capitalize()
    return f"{present[0].capitalize()} to {present[-1]}"


def _section(name: str, summary: str, exercises: list[dict[str, Any]]) -> dict[str, Any]:
    """A catalog section: its line, level and length, its exercises, how many are solved,
    and the same per track (of the exercises that offer it)."""
    tracks: dict[str, dict[str, Any]] = {}
    for exercise in exercises:
        for track in exercise["track_marks"]:
            count = tracks.setdefault(
                track["name"], {"label": track["label"], "solved": 0, "total": 0}
            )
            count["total"] += 1
            count["solved"] += track["solved"]
    order = list(TRACK_LABELS)  # NumPy, then PyTorch, then any other track
    return {
        "name": name,
        "summary": summary,
        "level": _level(exercises),
        "exercises": exercises,
        "solved": sum(e["solved"] for e in exercises),
        "tracks": [
            tracks[t]
            for t in sorted(tracks, key=lambda t: order.index(t) if t in order else len(order))
        ],
    }


@router.get("/exercises/{slug}", response_class=HTMLResponse)
async def exercise_page(
    request: Request,
    slug: str,
    service: ServiceDep,
    learner: LearnerDep,
    requested: Annotated[str | None, Query(alias="track")] = None,
) -> HTMLResponse:
    """The learner's page; ``?track=T`` opens it on track T (a link from the dashboard or
    ``drill preview``), over the track the browser remembers. An unknown T is ignored."""
    try:
        exercise = service.exercise(slug)
    except UnknownExercise:
        return render(
            request,
            "error.html",
            status_code=404,
            title="Exercise not found",
            message=f"There is no exercise named “{slug}”.",
        )
    chosen = requested if requested in exercise.tracks else None
    return await _exercise_view(request, service, exercise, learner, chosen)


async def _exercise_view(
    request: Request,
    service: Service,
    exercise: Exercise,
    learner: str,
    chosen: str | None,
    session: str | None = None,
    **context: Any,
) -> HTMLResponse:
    detail = await run_in_threadpool(service.detail, exercise, learner)
    drafts = await service.drafts(learner, exercise)
    page_data = {
        "slug": exercise.slug,
        "hint_count": detail.hint_count,
        "default_track": chosen or next(iter(exercise.tracks)),
        # The page prefers it to the track it remembers (see frontend/src/page.js).
        "requested_track": chosen,
        "reveal_solution": detail.reveal_solution,
        "section": exercise.meta.section,
        "next_exercise": detail.next_exercise.model_dump() if detail.next_exercise else None,
        "tracks": {
            name: {
                "starter_code": info.starter_code,
                "example_count": info.example_count,
                "test_count": info.test_count,
                "wall_seconds": info.wall_seconds,
                "solved": info.solved,
                "last_submission": info.last_submission,
                "draft": drafts[name],
            }
            for name, info in detail.tracks.items()
        },
    }
    if session is not None:
        # A page launched from an LMS sends it in a header (frontend/src/api.js): inside
        # the LMS's iframe, third-party cookies may be blocked.
        page_data["session"] = session
    assignments: list[str] = []
    if request.scope["state"].get("account") is not None:
        assignments = await run_in_threadpool(_assignment_notes, request, exercise, learner)
    return render(
        request,
        "exercise.html",
        exercise=detail.model_dump(),
        page_data=page_data,
        assignment_notes=assignments,
        **context,
    )


def _assignment_notes(request: Request, exercise: Exercise, learner: str) -> list[str]:
    """What the signed-in learner's courses ask of this exercise: each assignment's
    course and deadline, and whether a Submit now would be late."""
    courses: Courses = request.app.state.courses
    notes = []
    now = datetime.now(UTC)
    for track in exercise.tracks:
        for assignment, _ in courses.assignments_for(learner, exercise.slug, track):
            course = courses.get(assignment.course_id)
            if course is None:
                continue
            what = f"{TRACK_LABELS.get(track, track)}: an assignment of {course.title}"
            due = assignment.deadline
            if due is None:
                notes.append(f"{what}, with no deadline.")
            elif due > now:
                notes.append(f"{what}, due {due:%Y-%m-%d %H:%M} UTC.")
            else:
                counts = "and counts" if course.late_counts else "but does not count"
                notes.append(
                    f"{what}; its deadline passed on {due:%Y-%m-%d %H:%M} UTC: a Submit now "
                    f"is graded and marked late, {counts} toward the course grade."
                )
    return notes


async def launched_exercise_page(
    request: Request, slug: str, track: str, account: Account, session: str, banner: str
) -> HTMLResponse:
    """The exercise page of an LTI launch (app/routers/lti.py): ``account``'s, whatever
    the request's cookies say, with the launch's ``session`` in its page data and a
    banner saying who is signed in, from where."""
    service: Service = request.app.state.service
    exercise = service.exercise(slug)
    state = request.scope["state"]
    state["account"], state["learner"] = account, account.learner
    chosen = track if track in exercise.tracks else None
    return await _exercise_view(
        request, service, exercise, account.learner, chosen, session, lti_banner=banner
    )
