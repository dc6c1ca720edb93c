"""The HTML pages: the catalog and the exercise page. Data for the page's script travels
as a JSON block, never as inline script."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from app.deps import LearnerDep, ServiceDep
from graders.errors import UnknownExercise

router = APIRouter(tags=["pages"], include_in_schema=False)


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    app = request.app
    grader = app.state.service.grader
    base = {
        "csp_nonce": request.scope["state"]["csp_nonce"],
        "sandbox_warning": grader.status.warning,
        "static_version": app.state.static_version,
    }
    return app.state.templates.TemplateResponse(
        request, name, {**base, **context}, status_code=status_code
    )


@router.get("/", response_class=HTMLResponse)
async def catalog(request: Request, service: ServiceDep, learner: LearnerDep) -> HTMLResponse:
    solved = await run_in_threadpool(service.store.solved, learner)
    sections: dict[str, list[dict[str, Any]]] = {}
    for exercise in service.exercises():
        entry = {**service.summary(exercise).model_dump(), "solved": exercise.slug in solved}
        sections.setdefault(exercise.meta.section, []).append(entry)
    return render(
        request,
        "catalog.html",
        sections=[{"name": name, "exercises": items} for name, items in sections.items()],
    )


@router.get("/exercises/{slug}", response_class=HTMLResponse)
async def exercise_page(
    request: Request, slug: str, service: ServiceDep, learner: LearnerDep
) -> HTMLResponse:
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
    detail = await run_in_threadpool(service.detail, exercise)
    drafts = {}
    for track in exercise.tracks:
        drafts[track] = await run_in_threadpool(service.store.get_draft, learner, slug, track)
    page_data = {
        "slug": slug,
        "hint_count": detail.hint_count,
        "default_track": next(iter(exercise.tracks)),
        "tracks": {
            name: {
                "starter_code": info.starter_code,
                "example_count": info.example_count,
                "test_count": info.test_count,
                "draft": drafts[name],
            }
            for name, info in detail.tracks.items()
        },
    }
    return render(request, "exercise.html", exercise=detail.model_dump(), page_data=page_data)
