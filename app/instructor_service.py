"""What the instructor's routes call: statistics, versions, recent Submits, regrades and
exports of the catalog's exercises, beside the learner's ``Service``.

The routes never reach the grader or the store themselves. Database work is blocking, so
every method that reads the store runs it in the thread pool.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

from app import exports, regrade, stats
from app.errors import NotFound
from app.schemas import (
    ExerciseLearners,
    ExerciseOverview,
    ExerciseReport,
    RecentSubmission,
    VersionInfo,
)
from app.service import Service
from app.store import Store
from graders.errors import DrillError
from graders.grading.catalog import Exercise
from graders.grading.grader import Grader

log = logging.getLogger("drill.app")
Export = TypeVar("Export", exports.SubmissionsCsv, exports.SubmissionsJson)


class InstructorService:
    def __init__(self, service: Service) -> None:
        self.service = service

    @property
    def store(self) -> Store:
        return self.service.store

    @property
    def grader(self) -> Grader:
        return self.service.grader

    def exercises(self) -> list[Exercise]:
        return self.service.exercises()

    def exercise(self, slug: str) -> Exercise:
        return self.service.exercise(slug)  # UnknownExercise -> 404

    def catalog_problem(self) -> str | None:
        """Why the catalog could not be (re)loaded whole, or None."""
        problem = self.grader.catalog_problem
        return str(problem) if problem else None

    async def overview(self) -> dict[str, ExerciseOverview]:
        """Per exercise and per track: Submits (each once, by its newest grading, whichever
        version graded it), passes, N of M learners, and how many Submits are graded
        against another version than the current one only."""
        current = {exercise.slug: exercise.version for exercise in self.exercises()}
        return await run_in_threadpool(stats.overview_report, self.store, current)

    async def report(
        self, exercise: Exercise, chosen: str | None
    ) -> tuple[ExerciseReport, list[VersionInfo], ExerciseLearners]:
        """The report of the chosen version (``current``, ``all``, a hash or a prefix
        that names one version), the list of versions and N of M learners of the same
        Submits. NotFound: no such version."""
        return await run_in_threadpool(self._report_and_versions, exercise, chosen)

    async def recent(self, slug: str, learner: str | None) -> list[RecentSubmission]:
        """The newest Submits of an exercise (of one learner, by pseudonym)."""
        return await run_in_threadpool(
            lambda: stats.recent_submissions(self.store, slug, learner=learner)
        )

    async def regrades(self, exercise: Exercise) -> list[dict[str, Any]]:
        """The exercise's regrade runs, newest first."""
        return await run_in_threadpool(regrade.runs, self.store, exercise.slug)

    async def submissions_csv(self, exercise: str | None) -> exports.SubmissionsCsv:
        return await self._opened(exports.SubmissionsCsv(self.store, exercise))

    async def submissions_json(self, exercise: str | None) -> exports.SubmissionsJson:
        return await self._opened(exports.SubmissionsJson(self.store, exercise))

    # --- blocking parts ---

    async def _opened(self, export: Export) -> Export:
        """The export with its first page read, so that an unknown exercise (404) or a
        database error is still a JSON answer before the stream starts."""
        if export.exercise is not None:
            self.exercise(export.exercise)  # UnknownExercise -> 404
        await run_in_threadpool(export.first)
        return export

    def _test_names(self, exercise: Exercise) -> dict[str, list[tuple[str, str]]]:
        """The hidden tests of each track, (id, name), in the reference's order (it may
        have to compute the reference). A track whose reference is broken gets its tests
        from the stored results instead."""
        names: dict[str, list[tuple[str, str]]] = {}
        for track in exercise.tracks:
            try:
                reference = self.grader.reference(exercise, track)
            except DrillError as exc:
                log.warning(
                    "instructor stats of %s/%s: no reference (%s)", exercise.slug, track, exc
                )
                names[track] = []
                continue
            names[track] = [(t.id, t.name) for t in reference.tests if not t.example]
        return names

    def _report_and_versions(
        self, exercise: Exercise, chosen: str | None
    ) -> tuple[ExerciseReport, list[VersionInfo], ExerciseLearners]:
        version = _version(exercise, chosen)
        self.service.note_versions()  # a reload's new version gets its time when first seen
        versions = stats.exercise_versions(self.store, exercise.slug)
        if version is not None and version != exercise.version:
            matches = [v.version for v in versions if v.version.startswith(version)]
            if len(matches) != 1:
                known = ", ".join(f"v{v.number} {v.version[:8]}" for v in versions)
                raise NotFound(
                    f"{exercise.slug} has no single version {version!r} (known: {known})"
                )
            version = matches[0]
        report = stats.exercise_report(
            self.store, exercise.slug, self._test_names(exercise), version=version
        )
        learners = stats.learner_counts(self.store, exercise.slug, version)
        return report, versions, learners


def _version(exercise: Exercise, chosen: str | None) -> str | None:
    """The version the statistics are of: ``current`` (the default), ``all`` (None), or a
    version's hash."""
    if chosen in (None, "", "current"):
        return exercise.version
    return None if chosen == "all" else chosen
