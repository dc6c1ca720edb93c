"""What the routes call: the grader, the store and the load limits behind one object.

Grading and database work are blocking; they run in the thread pool so the event loop
keeps answering while workers grade.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from starlette.concurrency import run_in_threadpool

from app.errors import Invalid, NotFound, TooLarge
from app.limits import Admission, rate_limiter
from app.rendering import render_markdown
from app.schemas import ExerciseDetail, ExerciseSummary, Hint, TrackInfo
from app.settings import AppSettings
from app.store import Store, new_id
from graders.catalog import Exercise
from graders.grading import Grader
from graders.results import Mode

log = logging.getLogger("drill.app")


class Service:
    def __init__(self, settings: AppSettings, grader: Grader, store: Store) -> None:
        self.settings = settings
        self.grader = grader
        self.store = store
        # Shared by every API node when the store is (PostgreSQL); in memory otherwise.
        self.limiter = rate_limiter(settings, store)
        self.admission = Admission(settings.max_pending)
        # Grading threads: one per admitted submission, so none waits for a thread.
        # asyncio's executor hop costs less than anyio's (profiled: 1.6 ms per Submit).
        self.grading_threads = ThreadPoolExecutor(settings.max_pending, "grading")

    def close(self) -> None:
        self.grading_threads.shutdown(wait=True)

    # --- exercises ---

    def exercises(self) -> list[Exercise]:
        return list(self.grader.catalog)

    def exercise(self, slug: str) -> Exercise:
        return self.grader.catalog.get(slug)  # UnknownExercise -> 404

    @staticmethod
    def summary(exercise: Exercise) -> ExerciseSummary:
        m = exercise.meta
        return ExerciseSummary(
            slug=exercise.slug,
            title=m.title,
            section=m.section,
            difficulty=m.difficulty,
            summary=m.summary,
            tracks=list(exercise.tracks),
        )

    def detail(self, exercise: Exercise) -> ExerciseDetail:
        tracks = {}
        for name, track in exercise.tracks.items():
            reference = self.grader.reference(exercise, name)
            tracks[name] = TrackInfo(
                starter_code=track.starter,
                entry_points=list(track.entry_points),
                example_count=len(reference.names(example=True)),
                test_count=len(reference.names(example=False)),
            )
        return ExerciseDetail(
            **self.summary(exercise).model_dump(exclude={"tracks"}),
            statement_html=render_markdown(exercise.statement),
            hint_count=len(exercise.hints),
            tracks=tracks,
        )

    def hint(self, slug: str, n: int) -> Hint:
        exercise = self.exercise(slug)
        total = len(exercise.hints)
        if not 1 <= n <= total:
            raise NotFound(f"exercise {slug!r} has {total} hints; there is no hint {n}")
        text = exercise.hints[n - 1]
        return Hint(n=n, total=total, markdown=text, html=render_markdown(text))

    def warm_references(self) -> None:
        """Compute (or load) every reference now, not on a learner's first request."""
        self.grader.warm_references()  # failures are logged and kept in catalog_problem

    # --- submissions ---

    def check_code(self, exercise: Exercise, track: str, code: str) -> None:
        if track not in exercise.tracks:
            raise Invalid(
                f"exercise {exercise.slug!r} has no track {track!r}; "
                f"choose one of {', '.join(exercise.tracks)}"
            )
        try:
            size = len(code.encode("utf-8"))
        except UnicodeEncodeError:
            raise Invalid("code is not valid UTF-8 text (it holds a lone surrogate)") from None
        if size > self.settings.max_code_bytes:
            raise TooLarge(
                f"code is {size // 1024} KiB; the limit is "
                f"{self.settings.max_code_bytes // 1024} KiB"
            )
        if "\x00" in code:
            raise Invalid("code contains a NUL character")

    async def submit(
        self, learner: str, client: str, slug: str, track: str, code: str, mode: Mode
    ) -> dict[str, Any]:
        exercise = self.exercise(slug)
        self.check_code(exercise, track, code)
        self.limiter.check(client)
        with self.admission.slot():
            # One trip to a grading thread: grade, then commit before answering.
            return await asyncio.get_running_loop().run_in_executor(
                self.grading_threads, self._grade_and_store, learner, exercise, track, code, mode
            )

    def _grade_and_store(
        self, learner: str, exercise: Exercise, track: str, code: str, mode: Mode
    ) -> dict[str, Any]:
        # The exercise looked up when the request came: a reload meanwhile does not mix versions.
        # The id exists before grading: a queue drops a second publish of the same job, and
        # the store keeps one row per id (the first result stored wins).
        sub_id = new_id()
        result = self.grader.grade(exercise.slug, track, code, mode, exercise, job_id=sub_id)
        return self.store.save_submission(learner, result, code, exercise.version, sub_id)

    async def submission(self, sub_id: str) -> dict[str, Any]:
        found = await run_in_threadpool(self.store.get_submission, sub_id)
        if found is None:
            raise NotFound(f"no submission {sub_id!r}")
        return found

    # --- drafts ---

    async def save_draft(self, learner: str, slug: str, track: str, code: str) -> dict[str, Any]:
        exercise = self.exercise(slug)
        self.check_code(exercise, track, code)
        return await run_in_threadpool(self.store.save_draft, learner, slug, track, code)

    async def draft(self, learner: str, slug: str, track: str) -> dict[str, Any]:
        exercise = self.exercise(slug)
        if track not in exercise.tracks:
            raise NotFound(f"exercise {slug!r} has no track {track!r}")
        found = await run_in_threadpool(self.store.get_draft, learner, slug, track)
        if found is None:
            raise NotFound(f"no saved draft for {slug}/{track}")
        return found
