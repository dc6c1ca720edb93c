"""The seam between what serves learners and what grades their code.

A :class:`GradingBackend` grades one submission against one version of an exercise and
knows each track's reference observations. The web app and the command line hold one and
never look behind it: :class:`graders.local.LocalBackend` grades in this machine's warm
bubblewrap pools (the default, ``make run``); a remote backend sends the same jobs to
grading workers elsewhere. Tests of the web layer use a fake that says what it fakes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from graders.catalog import Exercise
from graders.references import Reference
from graders.results import GradeResult, Mode


@dataclass(frozen=True)
class BackendStatus:
    """What ``/healthz`` and every page say about grading."""

    # The sandbox of this machine's workers: "bwrap", or "process" (the unsafe fallback);
    # None when grading happens elsewhere.
    sandbox: Literal["bwrap", "process"] | None
    workers: int | None  # warm workers able to take a job now, when this node knows
    warning: str | None = None  # why grading is less safe or slower than it should be


class GradingBackend(Protocol):
    def start(self) -> None:
        """Start what grading needs (pools, connections); raise when it cannot."""

    def close(self) -> None:
        """Stop it; jobs in flight end with an error verdict rather than hang."""

    @property
    def status(self) -> BackendStatus: ...

    def reference(self, exercise: Exercise, track: str) -> Reference:
        """The reference observations of this version of a track (computed once)."""
        ...

    def grade(self, exercise: Exercise, track: str, code: str, mode: Mode) -> GradeResult:
        """Grade ``code`` on the examples (``run``) or the hidden tests (``submit``)."""
        ...
