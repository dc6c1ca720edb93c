"""Results as data: the verdict of a submission and of each of its tests.

Named after Exercism's ``results.json``: ``version`` is the version of this format.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

RESULTS_VERSION = 1
OUTPUT_LIMIT = 16 * 1024  # characters of learner output kept per test
# Bytes of learner output, as stored (JSON, escapes included: a control character is six),
# kept per submission over all its tests: the later tests' outputs are cut to what is
# left. Without it one Submit of maximal output stored about 0.8 MB.
SUBMISSION_OUTPUT_BYTES = 64 * 1024
# Kept at the cut of a truncated output (``output_truncated`` says so too, with
# ``output_bytes`` telling how much there was): readers of ``output`` alone, the CLI's
# --json and results stored before those fields, still see where the output was cut.
TRUNCATION_MARKER = "\n… [output truncated]"
# What replaces a test's output once the retention period is over (app.store.expire_outputs).
OUTPUT_EXPIRED = "[output removed: outputs are kept for a limited time]"
# The largest output size a result reports: JavaScript's largest exact integer (2**53 - 1),
# far above what a test can write within its time limit.
MAX_OUTPUT_BYTES = 2**53 - 1
MESSAGE_LIMIT = 2000  # characters of a verdict message; a message never needs more
CLIPPED_MARKER = " … [message clipped]"

Mode = Literal["run", "submit"]


class Status(StrEnum):
    """A test's status; a whole result is never ``not_run`` (it is pass, fail or error)."""

    PASS = "pass"  # noqa: S105 - a test status, not a password
    FAIL = "fail"
    ERROR = "error"
    # A test that never started: an earlier one ended the job (a timeout, a crash, a
    # limit). It is no failure of its own; the test that was running carries the error.
    NOT_RUN = "not_run"


class Blame(StrEnum):
    """Who a test's failure (or a whole run's error) is due to. Only ``learner`` is a
    verdict on the learner's code; the others are counted apart on the dashboard, and
    the learner is told that their code was not judged."""

    LEARNER = "learner"  # a wrong value, an exception in their code, a limit they hit
    TEST = "test"  # the exercise's own test failed before or around the learner's code
    GRADER = "grader"  # an internal grading error: the harness failed
    INFRASTRUCTURE = "infrastructure"  # a grading machine or sandbox lost mid-job


# How the grader's own messages began, before ``blame`` existed, where the blame was not
# the learner's (a learner's exception text comes after "your code raised", never first).
# The migration that added the column reads stored rows the same way.
LEGACY_BLAME_STARTS = (
    ("the test failed before calling your code", Blame.TEST),
    ("internal grading error", Blame.GRADER),
    ("the grading machine was lost", Blame.INFRASTRUCTURE),
    ("the sandbox stopped unexpectedly", Blame.INFRASTRUCTURE),
)


def legacy_blame(status: str, message: str) -> Blame | None:
    """The blame of a result stored before results said it, read off its message."""
    if status not in (Status.FAIL, Status.ERROR):
        return None
    for start, blame in LEGACY_BLAME_STARTS:
        if message.startswith(start):
            return blame
    return Blame.LEARNER


# What results stored before ``not_run`` existed said of such a test, as an error.
LEGACY_NOT_RUN = "not run: an earlier test stopped the run"
NOT_RUN_MESSAGE = "an earlier test ended the run before this test started"


def not_run_message(stopped_at: str) -> str:
    """The message of a test that did not run, naming the test that ended the run (whose
    own message says why)."""
    return f"the run ended during test {stopped_at!r}, before this test started"


def clip_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + CLIPPED_MARKER


def truncate_output(text: str, limit: int = OUTPUT_LIMIT, already_truncated: bool = False) -> str:
    if len(text) > limit:
        return text[:limit] + TRUNCATION_MARKER
    return text + TRUNCATION_MARKER if already_truncated else text


def stored_size(text: str) -> int:
    """Bytes ``text`` takes in a stored result (JSON-encoded, ASCII escapes; the quotes
    around it not counted)."""
    return len(json.dumps(text)) - 2


def fit_output(text: str, budget: int) -> str:
    """The longest start of ``text`` that, with the truncation marker, stores in
    ``budget`` bytes (an empty string when even the marker does not fit)."""
    if stored_size(TRUNCATION_MARKER) > budget:
        return ""
    low, high = 0, len(text)  # binary search on the prefix length: size grows with it
    while low < high:
        middle = (low + high + 1) // 2
        if stored_size(text[:middle] + TRUNCATION_MARKER) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low] + TRUNCATION_MARKER


class TestResult(BaseModel):
    __test__ = False  # not a pytest class

    name: str
    id: str | None = Field(
        None,
        description="The test's stable identity (graders.sandbox.testing: ``@test(id=...)``, by "
        "default the scenario function's name); null in results stored before ids existed",
    )
    status: Status
    message: str = ""
    output: str = Field(
        "",
        description="The learner's stdout and stderr during this test (then a traceback, "
        f"if it raised); at most {OUTPUT_LIMIT} characters of it are kept, and a cut one "
        f"ends with {TRUNCATION_MARKER.strip()!r}",
    )
    output_truncated: bool = Field(
        False, description="Whether the test wrote more than ``output`` keeps"
    )
    output_bytes: int | None = Field(
        None,
        ge=0,
        le=MAX_OUTPUT_BYTES,
        description="How many bytes the test wrote to stdout and stderr in all (UTF-8), "
        "when the grader counted them; null when it could not",
    )
    output_bytes_at_least: bool = Field(
        False,
        description="True when counting stopped at the sandbox's cap on raw writes: the "
        "test wrote at least ``output_bytes`` bytes (its further writes failed)",
    )
    duration_ms: float = 0.0
    hint: int | None = None
    blame: Blame | None = Field(
        None,
        description="Who the failure is due to: learner (a verdict on their code), test "
        "(the exercise's test failed), grader (an internal grading error) or "
        "infrastructure (a grading machine lost); null for a passed or not-run test",
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        """Results stored before ``not_run``, ``output_truncated`` and ``blame`` read as
        new ones."""
        if not isinstance(data, dict):
            return data
        if data.get("status") == Status.ERROR and data.get("message") == LEGACY_NOT_RUN:
            data = {**data, "status": Status.NOT_RUN, "message": NOT_RUN_MESSAGE}
        output = data.get("output")
        if "output_truncated" not in data and isinstance(output, str):
            data = {**data, "output_truncated": TRUNCATION_MARKER in output}
        if "blame" not in data and isinstance(data.get("message", ""), str):
            data = {**data, "blame": legacy_blame(data.get("status", ""), data.get("message", ""))}
        return data

    @model_validator(mode="after")
    def _blamed(self) -> TestResult:
        """A failure always says who it is due to; a pass or a test not run never does."""
        if self.status in (Status.PASS, Status.NOT_RUN):
            self.blame = None
        elif self.blame is None:
            self.blame = Blame.LEARNER
        return self

    @model_validator(mode="after")
    def _bounded(self) -> TestResult:
        if len(self.output) > OUTPUT_LIMIT:
            self.output = truncate_output(self.output)
            self.output_truncated = True
        if self.output_bytes is None:
            self.output_bytes_at_least = False
        return self

    @field_validator("message")
    @classmethod
    def _clipped(cls, value: str) -> str:
        return clip_message(value)


class GradeResult(BaseModel):
    version: int = RESULTS_VERSION
    exercise: str  # its slug: the key the stored results and the API have always had
    track: str
    mode: Mode
    status: Status
    message: str
    passed: int = 0
    total: int = 0
    duration_ms: float = 0.0
    # What the learner's module printed while it loaded (its top-level code), apart from
    # the tests' output; the same bounds and marker as a test's ``output``. Results stored
    # before these fields read with none.
    load_output: str = Field(
        "",
        description="The learner's stdout and stderr while their module loaded (its "
        f"top-level code), before any test ran; at most {OUTPUT_LIMIT} characters of it are "
        f"kept, and a cut one ends with {TRUNCATION_MARKER.strip()!r}",
    )
    load_output_truncated: bool = Field(
        False, description="Whether the module wrote more while loading than ``load_output`` keeps"
    )
    load_output_bytes: int | None = Field(
        None,
        ge=0,
        le=MAX_OUTPUT_BYTES,
        description="How many bytes the module wrote to stdout and stderr while loading "
        "(UTF-8), when the grader counted them; null when it could not",
    )
    load_output_bytes_at_least: bool = Field(
        False,
        description="True when counting stopped at the sandbox's cap on raw writes: the "
        "module wrote at least ``load_output_bytes`` bytes while loading",
    )
    tests: list[TestResult] = Field(default_factory=list)
    blame: Blame | None = Field(
        None,
        description="When the whole run failed with no test verdicts (an error with "
        "``tests`` empty): who that is due to, as a test's ``blame``; null otherwise (each "
        "test says its own)",
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy_blame(cls, data: Any) -> Any:
        """A whole-run error stored before ``blame`` existed: read off its message."""
        if isinstance(data, dict) and "blame" not in data and not data.get("tests"):
            message = data.get("message", "")
            if isinstance(message, str) and data.get("status") == Status.ERROR:
                data = {**data, "blame": legacy_blame(Status.ERROR, message)}
        return data

    @model_validator(mode="after")
    def _run_blamed(self) -> GradeResult:
        if self.tests or self.status != Status.ERROR:
            self.blame = None
        elif self.blame is None:
            self.blame = Blame.LEARNER
        return self

    @field_validator("message")
    @classmethod
    def _clipped(cls, value: str) -> str:
        return clip_message(value)

    @model_validator(mode="after")
    def _load_output_bounded(self) -> GradeResult:
        if len(self.load_output) > OUTPUT_LIMIT:
            self.load_output = truncate_output(self.load_output)
            self.load_output_truncated = True
        if self.load_output_bytes is None:
            self.load_output_bytes_at_least = False
        return self

    @model_validator(mode="after")
    def _output_budget(self) -> GradeResult:
        """The load's output and then each test's share one submission's budget."""
        left = SUBMISSION_OUTPUT_BYTES
        size = stored_size(self.load_output)
        if size > left:
            self.load_output = fit_output(self.load_output, left)
            self.load_output_truncated = True
        left = max(0, left - stored_size(self.load_output))
        for test in self.tests:
            size = stored_size(test.output)
            if size > left:
                test.output = fit_output(test.output, left)
                test.output_truncated = True
            left = max(0, left - stored_size(test.output))
        return self

    @field_validator("status")
    @classmethod
    def _whole(cls, value: Status) -> Status:
        if value == Status.NOT_RUN:
            raise ValueError("a whole result is pass, fail or error; only a test is not_run")
        return value
