"""The seam between what serves learners and what grades their code.

A :class:`GradingBackend` grades one submission against one version of an exercise and
knows each track's reference observations. The web app and the command line hold one and
never look behind it: :class:`graders.grading.local.LocalBackend` grades in this machine's warm
bubblewrap pools (the default, ``make run``); a remote backend sends the same jobs to
grading workers elsewhere. Tests of the web layer use a fake that says what it fakes.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from graders.errors import MachineLost
from graders.grading import verdicts
from graders.grading.catalog import Exercise
from graders.grading.isolation import JobLimits
from graders.grading.jobs import Job, JobOutcome, job_for
from graders.grading.references import Reference
from graders.grading.results import Blame, GradeResult, Mode


@dataclass(frozen=True)
class BackendStatus:
    """What ``/healthz`` and every page say about grading."""

    # The sandbox of this machine's workers: "bwrap", or "process" (the unsafe fallback);
    # None when grading happens elsewhere.
    sandbox: Literal["bwrap", "process"] | None
    workers: int | None  # warm workers able to take a job now, when this node knows
    warning: str | None = None  # why grading is less safe or slower than it should be
    queue: Literal["nats"] | None = None  # how jobs reach workers elsewhere, if they do
    healthy: bool = True  # False while grading cannot work (the queue is unreachable)
    # The kernel limits on this machine's workers (graders/grading/cgroups.py); None elsewhere.
    cgroups: Literal["v2", "v1", "none"] | None = None


class GradingBackend(Protocol):
    def start(self) -> None:
        """Start what grading needs (pools, connections); raise when it cannot."""

    def close(self) -> None:
        """Stop it; jobs in flight end with an error verdict rather than hang."""

    @property
    def status(self) -> BackendStatus: ...

    def reference(self, exercise: Exercise, track: str, variant: int | None = None) -> Reference:
        """The reference observations of this version of a track (computed once); with
        ``variant``, its per-learner tests on that variant's draws."""
        ...

    def grade(
        self,
        exercise: Exercise,
        track: str,
        code: str,
        mode: Mode,
        job_id: str | None = None,
        variant: int | None = None,
    ) -> GradeResult:
        """Grade ``code`` on the examples (``run``) or the hidden tests (``submit``).

        ``job_id``: the submission's id, when it has one already (a queue uses it to drop
        a second publish of the same job). ``variant``: the learner's draws for the
        tests that draw per learner (see :func:`learner_variant`)."""
        ...


def learner_variant(learner: str, exercise: Exercise) -> int:
    """The variant of a learner's per-learner tests: from the learner and the exercise
    version, so it is stable for a learner until the exercise changes."""
    digest = hashlib.sha256(f"drill-variant:{learner}|{exercise.version}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def grade_with(
    run: Callable[[Job, JobLimits], JobOutcome],
    reference: Reference,
    exercise: Exercise,
    track: str,
    code: str,
    mode: Mode,
    limits: JobLimits,
    variant: int | None = None,
) -> GradeResult:
    """Grade ``code`` by running its job with ``run`` (a pool here, a queue elsewhere);
    the verdict is built here, in the caller's process, from the reference it holds."""
    started = time.perf_counter()
    ids = reference.ids(example=mode == "run")
    ctx = verdicts.Context(
        exercise.slug, track, mode, ids, reference, limits, exercise.track(track).parameters
    )
    try:
        compile(code, "your_code.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return verdicts.syntax_error(ctx, exc)
    except ValueError as exc:  # e.g. null bytes
        return verdicts.syntax_error(ctx, SyntaxError(str(exc)))
    except (MemoryError, RecursionError) as exc:  # the parser's own limits, not the learner's run
        return verdicts.too_complex_to_compile(ctx, exc)
    job = job_for(exercise, track, code, ids, limits, examples_only=mode == "run", variant=variant)
    try:
        outcome = run(job, limits)
    except MachineLost as exc:  # a verdict of the infrastructure, stored like any other
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        return ctx.error(str(exc), elapsed, Blame.INFRASTRUCTURE)
    result = verdicts.build(ctx, outcome)
    result.duration_ms = round((time.perf_counter() - started) * 1000, 1)
    return result
