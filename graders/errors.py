"""The errors of the grading engine.

::

    DrillError
    ├── CatalogError          a malformed exercise package (names the file and field)
    ├── UnknownExercise       no such exercise slug, or no such track
    ├── ReferenceFailure      the reference solution raised, broke or is nondeterministic
    └── SandboxError
        ├── SandboxUnavailable  bubblewrap is missing or the start-up self-check failed
        ├── PoolBusy            no worker became free in time
        ├── QueueUnavailable    the grading queue is unreachable, full, or a job expired
        ├── MachineLost         the machines grading a job were lost (an error verdict)
        └── WorkerLost          a worker died or broke protocol outside a learner's job
"""

from __future__ import annotations


class DrillError(Exception):
    """Base of every error the engine raises on purpose."""


class CatalogError(DrillError):
    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class UnknownExercise(DrillError):
    """An exercise slug or a track that the catalog does not have."""


class ReferenceFailure(DrillError):
    """The reference solution of a track does not give usable, repeatable observations."""


class SandboxError(DrillError):
    """The sandbox could not run a job."""


class SandboxUnavailable(SandboxError):
    """Bubblewrap is missing, or the sandbox failed its start-up self-check."""


class PoolBusy(SandboxError):
    """Every worker stayed busy past the wait limit."""


class QueueUnavailable(SandboxError):
    """The job could not be graded now (broker down, stream full, waited too long); the
    learner may try again after ``retry_after`` seconds. Nothing was graded or stored."""

    def __init__(self, message: str, retry_after: int = 5) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class MachineLost(SandboxError):
    """Every delivery of a job went to a grading machine that was lost mid-job."""


class WorkerLost(SandboxError):
    """A worker died or broke the protocol."""
