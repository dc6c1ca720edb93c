"""What the server sends a sandbox child: one frame holding the job.

The header (JSON) carries the code to run, which tests, the entry points and the limits;
the body carries the tests module already compiled (``marshal``), since compiling it in
every child would cost more than running most tests. Marshal data only ever flows from
the server into the sandbox, never back.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from graders.catalog import Exercise
from graders.sandbox import JobLimits

FILENAME = "solution.py"
TESTS_FILENAME = "<tests>"


@dataclass(frozen=True)
class Job:
    header: dict[str, Any]
    body: bytes = field(default=b"", repr=False)


@lru_cache(maxsize=256)
def compiled_tests(source: str) -> bytes:
    return marshal.dumps(compile(source, TESTS_FILENAME, "exec", dont_inherit=True))


def job_for(
    exercise: Exercise, track: str, code: str, tests: list[str] | None, limits: JobLimits
) -> Job:
    """A job running ``tests`` (None: all) of ``track`` against ``code``."""
    tr = exercise.track(track)
    header = {
        "type": "job",
        "code": code,
        "filename": FILENAME,
        "entry_points": list(tr.entry_points),
        "tests": tests,
        "limits": limits.for_child(),
    }
    return Job(header, compiled_tests(tr.tests))
