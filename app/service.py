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

from app.admission import Admission, Ticket
from app.cluster_share import ClusterShare
from app.errors import Forbidden, Invalid, NotFound, TooLarge
from app.limits import RateLimiter, rate_limiter
from app.lti.outbox import note_standing
from app.rendering import render_markdown, render_statement
from app.schemas import (
    ExerciseDetail,
    ExerciseLink,
    ExerciseProgress,
    ExerciseSummary,
    Hint,
    Progress,
    Solution,
    SubmissionCode,
    TrackInfo,
    TrackProgress,
)
from app.settings import AppSettings
from app.store import Store, StoreUnavailable, new_id
from app.store import TrackProgress as Standing
from graders.grading.backend import BackendStatus
from graders.grading.catalog import Catalog, Exercise
from graders.grading.grader import Grader
from graders.grading.isolation import job_limits
from graders.grading.results import Mode

log = logging.getLogger("drill.app")
NO_PROGRESS = Standing(solved=False, attempts=0, last_submission=None)


class Service:
    def __init__(self, settings: AppSettings, grader: Grader, store: Store) -> None:
        self.settings = settings
        self.grader = grader
        self.store = store
        # Shared by every API node when the store is (PostgreSQL); in memory otherwise.
        self.limiter = rate_limiter(settings, store)
        self.draft_limiter = RateLimiter(
            settings.draft_rate_per_minute, settings.draft_burst, "draft saves"
        )
        self.admission = Admission(
            settings.max_pending,
            slots=settings.slots,
            client_share=settings.share,
            client_pending=settings.max_pending_per_client,
            learner_pending=settings.max_pending_per_learner,
            # Several API nodes share a PostgreSQL database: a client's share holds
            # across them. SQLite means one node, whose own count is the whole.
            cluster=(
                ClusterShare(store, settings.share, settings.slots)
                if store.dialect == "postgresql"
                else None
            ),
        )
        # Grading threads: one per admitted submission, so none waits for a thread.
        # asyncio's executor hop costs less than anyio's (profiled: 1.6 ms per Submit).
        self.grading_threads = ThreadPoolExecutor(settings.max_pending, "grading")

    def close(self) -> None:
        self.grading_threads.shutdown(wait=True)
        if self.admission.cluster is not None:
            self.admission.cluster.close()

    # --- exercises ---

    def exercises(self) -> list[Exercise]:
        return list(self.grader.catalog)

    def catalog(self) -> Catalog:
        """The catalog now served: read it once per request (a reload replaces it whole)."""
        return self.grader.catalog

    def exercise(self, slug: str) -> Exercise:
        return self.grader.catalog.get(slug)  # UnknownExercise -> 404

    @property
    def status(self) -> BackendStatus:
        """What grades the submissions now: the sandbox, its workers, the queue."""
        return self.grader.status

    def note_versions(self) -> None:
        """Record the catalog's versions as live (blocking). At start-up and when the
        dashboard is read, so a reload's new versions get their time too. A database
        that cannot take it now (read-only, busy) is no reason to stop: the next Submit
        or dashboard view records it."""
        try:
            for exercise in self.exercises():
                self.store.note_version(exercise.slug, exercise.version)
        except StoreUnavailable as exc:
            log.warning("could not record the exercise versions now: %s", exc)

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

    def detail(self, exercise: Exercise, learner: str | None = None) -> ExerciseDetail:
        """The exercise as the API shows it; ``learner``'s standing in each track (solved,
        newest submission) if given. Blocking: it may read the store."""
        standing = self.store.progress(learner, exercise.slug) if learner is not None else {}
        wall_seconds = job_limits(self.settings, exercise).wall_seconds
        tracks = {}
        for name, track in exercise.tracks.items():
            reference = self.grader.reference(exercise, name)
            mine = standing.get((exercise.slug, name), NO_PROGRESS)
            tracks[name] = TrackInfo(
                statement_html=render_statement(exercise.statement, name),
                starter_code=track.starter,
                entry_points=list(track.entry_points),
                example_count=len(reference.names(example=True)),
                test_count=len(reference.names(example=False)),
                wall_seconds=wall_seconds,
                solved=mine.solved,
                last_submission=mine.last_submission,
            )
        return ExerciseDetail(
            **self.summary(exercise).model_dump(exclude={"tracks"}),
            statement_html=render_statement(exercise.statement),
            hint_count=len(exercise.hints),
            tracks=tracks,
            reveal_solution=exercise.meta.reveal_solution,
            next_exercise=self.next_exercise(exercise),
        )

    def next_exercise(self, exercise: Exercise) -> ExerciseLink | None:
        """The exercise after ``exercise`` in catalog order, or None after the last."""
        slugs = [e.slug for e in self.exercises()]
        position = slugs.index(exercise.slug) if exercise.slug in slugs else len(slugs)
        if position + 1 >= len(slugs):
            return None
        following = self.exercise(slugs[position + 1])
        return ExerciseLink(
            slug=following.slug, title=following.meta.title, section=following.meta.section
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
        self._track_of(exercise, track)
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
        with self.admission.slot(client, learner) as ticket:
            # One trip to a grading thread: wait for a turn, grade, then commit before answering.
            return await asyncio.get_running_loop().run_in_executor(
                self.grading_threads,
                self._grade_and_store,
                ticket,
                learner,
                exercise,
                track,
                code,
                mode,
            )

    def _grade_and_store(
        self, ticket: Ticket, learner: str, exercise: Exercise, track: str, code: str, mode: Mode
    ) -> dict[str, Any]:
        self.admission.wait_turn(ticket, self.settings.queue_wait_seconds)
        try:
            return self._graded_and_stored(learner, exercise, track, code, mode)
        finally:
            self.admission.give_back(ticket)

    def _graded_and_stored(
        self, learner: str, exercise: Exercise, track: str, code: str, mode: Mode
    ) -> dict[str, Any]:
        # The exercise looked up when the request came: a reload meanwhile does not mix versions.
        # The id exists before grading: a queue drops a second publish of the same job, and
        # the store keeps one row per id (the first result stored wins).
        sub_id = new_id()
        result = self.grader.grade(exercise, track, code, mode, job_id=sub_id, learner=learner)
        stored = self.store.save_submission(learner, result, code, exercise.version, sub_id)
        if mode == "submit":  # for an LMS course's gradebook (one indexed query otherwise)
            note_standing(self.store, learner, exercise.slug, track)
        try:  # a version seen first by a Submit (a reload since the dashboard looked)
            self.store.note_version(exercise.slug, exercise.version)
        except StoreUnavailable as exc:
            log.warning(
                "could not record version %s of %s: %s", exercise.version, exercise.slug, exc
            )
        return stored

    async def submission(self, sub_id: str) -> dict[str, Any]:
        found = await run_in_threadpool(self.store.get_submission, sub_id)
        if found is None:
            raise NotFound(f"no submission {sub_id!r}")
        return found

    async def submission_code(self, learner: str, sub_id: str) -> SubmissionCode:
        """The code of one of the learner's own submissions; another learner's is
        answered as unknown, so that its id says nothing."""
        code = await run_in_threadpool(self.store.submission_code, sub_id, learner)
        if code is None:
            raise NotFound(f"no submission {sub_id!r} of yours")
        return SubmissionCode(id=sub_id, code=code)

    def _track_of(self, exercise: Exercise, track: str) -> str:
        if track not in exercise.tracks:
            raise Invalid(
                f"exercise {exercise.slug!r} has no track {track!r}; "
                f"choose one of {', '.join(exercise.tracks)}"
            )
        return track

    async def history(
        self, learner: str, slug: str, track: str | None, limit: int
    ) -> list[dict[str, Any]]:
        """The learner's own submissions of an exercise, newest first."""
        exercise = self.exercise(slug)
        if track is not None:
            self._track_of(exercise, track)
        return await run_in_threadpool(self.store.history, learner, slug, track, limit)

    async def standings(self, learner: str) -> dict[tuple[str, str], Standing]:
        """Per (exercise, track) the learner ran or submitted code to, their standing."""
        return await run_in_threadpool(self.store.progress, learner)

    async def progress(self, learner: str) -> Progress:
        """Every exercise and track of the catalog, with the learner's standing in each."""
        standing = await run_in_threadpool(self.store.progress, learner)
        return Progress(
            exercises={
                exercise.slug: ExerciseProgress(
                    tracks={
                        track: TrackProgress(
                            **standing.get((exercise.slug, track), NO_PROGRESS)._asdict()
                        )
                        for track in exercise.tracks
                    }
                )
                for exercise in self.exercises()
            }
        )

    async def solution(self, learner: str, slug: str, track: str) -> Solution:
        """A track's reference solution, as the catalog read it (in this process: it
        never goes near a sandbox), for a learner who passed that track's Submit."""
        exercise = self.exercise(slug)
        self._track_of(exercise, track)
        if not exercise.meta.reveal_solution:
            raise NotFound(f"the author of {slug!r} keeps its reference solutions hidden")
        standing = await run_in_threadpool(self.store.progress, learner, slug)
        if not standing.get((slug, track), NO_PROGRESS).solved:
            raise Forbidden("Solve this track first: pass its Submit to see the reference solution")
        return Solution(track=track, code=exercise.track(track).solution)

    # --- drafts ---

    async def save_draft(
        self, learner: str, client: str, slug: str, track: str, code: str
    ) -> dict[str, Any]:
        exercise = self.exercise(slug)
        self.check_code(exercise, track, code)
        self.draft_limiter.check(client)
        return await run_in_threadpool(self.store.save_draft, learner, slug, track, code)

    async def drafts(self, learner: str, exercise: Exercise) -> dict[str, dict[str, Any] | None]:
        """The learner's saved draft of each track of the exercise (None: no draft)."""
        return {
            track: await run_in_threadpool(self.store.get_draft, learner, exercise.slug, track)
            for track in exercise.tracks
        }

    async def draft(self, learner: str, slug: str, track: str) -> dict[str, Any]:
        exercise = self.exercise(slug)
        if track not in exercise.tracks:
            raise NotFound(f"exercise {slug!r} has no track {track!r}")
        found = await run_in_threadpool(self.store.get_draft, learner, slug, track)
        if found is None:
            raise NotFound(f"no saved draft for {slug}/{track}")
        return found
