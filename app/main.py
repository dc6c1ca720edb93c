"""Assembles the app: settings, the grader (catalog and backend), the store, routers, pages."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from app import errors
from app.accounts import Accounts
from app.courses import Courses
from app.instructor_service import InstructorService
from app.lti.outbox import ScoreSender
from app.lti.platform_keys import PlatformKeys
from app.lti.services import PlatformServices
from app.lti.store import load_tool_key
from app.lti.tool import LtiTool
from app.middleware import SecurityMiddleware
from app.retention import OutputRetention
from app.routers import (
    account,
    courses,
    drafts,
    exercises,
    health,
    instructor_api,
    instructor_login,
    instructor_pages,
    lti,
    pages,
    progress,
    submissions,
)
from app.service import Service
from app.settings import AppSettings, get_app_settings
from app.store import Store
from graders.grading.backend import GradingBackend
from graders.grading.grader import Grader
from graders.grading.local import LocalBackend
from graders.grading.reload import watch_catalog
from graders.settings import ROOT

log = logging.getLogger("drill.app")
STATIC = ROOT / "static"
# The front end's ES modules, served as they are for pages whose bundle was never built
# (no npm): templates/base.html loads them through frontend/src/loader.js.
FRONTEND_SRC = ROOT / "frontend" / "src"
TEMPLATES = ROOT / "templates"


def _static_version() -> str:
    digest = hashlib.sha256()
    for folder in (STATIC, FRONTEND_SRC):
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                digest.update(f"{path.relative_to(ROOT)}:{path.stat().st_mtime_ns}".encode())
    return digest.hexdigest()[:10]


def default_backend(settings: AppSettings, store: Store) -> GradingBackend:
    """The local pools, or with DRILL_QUEUE the workers behind the queue (this node then
    starts no sandbox at all; references are kept in the shared database)."""
    if settings.queue:
        from graders.queue.remote import RemoteBackend

        return RemoteBackend(settings, store.reference_cache)
    return LocalBackend(settings)


def create_app(
    settings: AppSettings | None = None, backend: GradingBackend | None = None
) -> FastAPI:
    """The app; ``backend`` grades (by default the warm pools of this machine)."""
    settings = settings or get_app_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await run_in_threadpool(Store, settings.database_url)
        grader = Grader(settings, backend=backend or default_backend(settings, store))
        await run_in_threadpool(grader.start)
        service = Service(settings, grader, store)
        app.state.service = service
        app.state.instructor = InstructorService(service)
        app.state.accounts = Accounts(store)
        app.state.courses = Courses(store)
        # LTI: the tool's key (made once, in the database, for every node), one cache of
        # the platforms' keys and one client of their services per process, and the
        # thread that sends scores to their gradebooks.
        key = await run_in_threadpool(load_tool_key, store)
        platform_keys, platform_services = PlatformKeys(), PlatformServices(key)

        def tasks() -> dict[str, tuple[str, tuple[str, ...]]]:
            return {e.slug: (e.meta.title, tuple(e.tracks)) for e in service.exercises()}

        def label(slug: str, track: str) -> str:
            title = tasks().get(slug, (slug, ()))[0]
            return f"{title} ({pages.TRACK_LABELS.get(track, track)})"

        app.state.lti = LtiTool(
            store,
            app.state.accounts,
            app.state.courses,
            key,
            platform_keys,
            platform_services,
            tasks,
        )
        score_sender = app.state.score_sender = ScoreSender(store, platform_services, labels=label)
        score_sender.start()
        await run_in_threadpool(service.note_versions)  # when each version went live
        threading.Thread(target=service.warm_references, daemon=True).start()
        watcher = watch_catalog(grader) if settings.reload else None  # instructors' edits
        retention = OutputRetention(store, settings.output_retention_days)
        retention.start()
        status = grader.status
        log.info(
            "Drill ready: %s, %d exercises",
            f"jobs to workers through {settings.queue}"
            if status.queue
            else f"sandbox={status.sandbox}, {settings.workers} workers",
            len(service.exercises()),
        )
        try:
            yield
        finally:
            score_sender.stop()
            platform_services.close()
            platform_keys.close()
            retention.stop()
            if watcher is not None:
                watcher.stop()
            service.close()
            grader.close()
            store.close()

    app = FastAPI(
        title="Drill",
        summary="NumPy and PyTorch exercises, graded in a sandbox",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.templates = Jinja2Templates(directory=TEMPLATES)
    app.state.static_version = _static_version()
    errors.install(app)
    for router in (
        health.router,
        exercises.router,
        submissions.router,
        drafts.router,
        progress.router,
    ):
        app.include_router(router)
    app.include_router(pages.router)
    app.include_router(account.router)
    app.include_router(courses.router)
    app.include_router(lti.router)
    for router in (instructor_api.router, instructor_login.router, instructor_pages.router):
        app.include_router(router)
    STATIC.mkdir(exist_ok=True)
    # Before /static, which would otherwise answer for /static/src/ too.
    app.mount("/static/src", StaticFiles(directory=FRONTEND_SRC), name="frontend")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    # JSON escapes code up to six times (\\uXXXX); the code's own limit is checked later.
    app.add_middleware(
        SecurityMiddleware,
        max_body=settings.max_code_bytes * 6 + 4096,
        trusted_proxies=settings.trusted_proxies,
    )
    return app
