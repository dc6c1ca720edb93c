"""The grader the command line and the web app hold: the live catalog and a backend.

:class:`Grader` keeps the exercises (reloaded when instructors edit them) and hands every
grading to a :class:`graders.grading.backend.GradingBackend`, by default the warm pools of this
machine (:class:`graders.grading.local.LocalBackend`).
"""

from __future__ import annotations

import logging
import threading

from graders.errors import DrillError, QueueUnavailable
from graders.grading.backend import BackendStatus, GradingBackend, learner_variant
from graders.grading.catalog import Catalog, Exercise, load_catalog
from graders.grading.local import PROCESS_WARNING, LocalBackend
from graders.grading.references import Reference
from graders.grading.results import GradeResult, Mode
from graders.settings import Settings

__all__ = ["PROCESS_WARNING", "Grader"]

log = logging.getLogger("drill.grading")


class Grader:
    """The catalog and its reloads, and the backend that grades; thread-safe ``grade()``."""

    def __init__(
        self,
        settings: Settings,
        catalog: Catalog | None = None,
        backend: GradingBackend | None = None,
    ) -> None:
        self.settings = settings
        # Replaced whole by reload_catalog(): read it once per request and keep that object.
        self.catalog = catalog or load_catalog(settings.exercises_dir)
        # Why the exercises on disk are not (all) being served as they are; None when they are.
        self.catalog_problem: str | None = None
        self._reload_lock = threading.Lock()
        self._generation = 0  # bumped by every successful reload
        self._closed = False
        self._started = False
        self.backend: GradingBackend = backend or LocalBackend(settings)

    # --- life cycle ---

    def start(self) -> None:
        self.backend.start()
        self._started = True

    def close(self) -> None:
        self._closed = True
        self.backend.close()

    def __enter__(self) -> Grader:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def status(self) -> BackendStatus:
        return self.backend.status

    @property
    def local(self) -> LocalBackend:
        """The local backend, for what only it has (its pools, limits, self-check)."""
        assert isinstance(self.backend, LocalBackend), "not grading on this machine"
        return self.backend

    # --- live reload ---

    def reload_catalog(self) -> bool:
        """Load the exercises folder again and serve it; return False if it did not load.

        A folder that does not load leaves the last good catalog serving and says why in
        ``catalog_problem``. Workers keep running; a request already holding an exercise
        finishes on that version. References of new and changed exercises are computed in
        the background, so the first learner does not wait for them.
        """
        with self._reload_lock:
            old = self.catalog
            try:
                new = load_catalog(self.settings.exercises_dir)
            except (DrillError, OSError) as exc:  # OSError: a file vanished mid-read
                self.catalog_problem = (
                    f"the exercises were not reloaded ({exc}); still serving the last good version"
                )
                log.error("catalog reload failed: %s", self.catalog_problem)
                return False
            added = [s for s in new.exercises if s not in old.exercises]
            removed = [s for s in old.exercises if s not in new.exercises]
            changed = [
                s for s, e in new.exercises.items() if s in old.exercises and old.exercises[s] != e
            ]
            self.catalog = new  # one assignment: readers see the old catalog or the new one
            self.catalog_problem = None
            self._generation += 1
            generation = self._generation
        log.info(
            "catalog reloaded: %d exercises; added: %s; changed: %s; removed: %s",
            len(new.exercises),
            ", ".join(added) or "none",
            ", ".join(changed) or "none",
            ", ".join(removed) or "none",
        )
        threading.Thread(
            target=self.warm_references,
            args=([*added, *changed], new, generation),
            name="drill-reload-warm",
            daemon=True,
        ).start()
        return True

    def warm_references(
        self,
        first: list[str] | None = None,
        catalog: Catalog | None = None,
        generation: int | None = None,
    ) -> None:
        """Compute (or load) every reference now, not on a learner's first request: the
        exercises in ``first`` before the rest; any that fails goes to ``catalog_problem``."""
        if not self._started:
            return  # references are computed on first use
        if catalog is None or generation is None:
            with self._reload_lock:
                catalog, generation = self.catalog, self._generation
        first = first or []
        order = [*first, *(s for s in catalog.exercises if s not in first)]
        problems = []
        for slug in order:
            exercise = catalog.exercises[slug]
            for track in exercise.tracks:
                if self._closed or generation != self._generation:
                    return  # a newer reload (or shutdown) took over
                try:
                    self.reference(exercise, track)
                except Exception as exc:
                    if self._closed:
                        return  # shut down under it (its pools closed mid-run)
                    if not isinstance(exc, DrillError):
                        raise
                    if isinstance(exc, QueueUnavailable):  # no reference worker yet: not
                        log.warning("reference of %s [%s] not computed now: %s", slug, track, exc)
                        continue  # the exercise's fault; the first request tries again
                    problem = f"{slug} [{track}] cannot be graded: {exc}"
                    log.error("%s", problem)
                    problems.append(problem)
        with self._reload_lock:
            if problems and generation == self._generation:
                self.catalog_problem = "\n".join(problems)

    # --- grading ---

    def reference(self, exercise: Exercise, track: str, variant: int | None = None) -> Reference:
        return self.backend.reference(exercise, track, variant)

    def grade(
        self,
        exercise: Exercise,
        track: str,
        code: str,
        mode: Mode,
        job_id: str | None = None,
        learner: str | None = None,
    ) -> GradeResult:
        """Grade ``code`` on the examples (``run``) or the hidden tests (``submit``) of
        ``exercise``: the version the caller looked up (``catalog.get``), which a reload of
        the catalog in between does not change.
        ``learner``: whose code it is, for the tests that draw inputs per learner (none:
        everyone's draws).
        """
        exercise.track(track)  # UnknownExercise for a track it does not have
        variant = None if learner is None else learner_variant(learner, exercise)
        return self.backend.grade(exercise, track, code, mode, job_id, variant)
