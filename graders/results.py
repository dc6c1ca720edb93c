"""Results as data: the verdict of a submission and of each of its tests.

Named after Exercism's ``results.json``: ``version`` is the version of this format.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field, field_validator

RESULTS_VERSION = 1
OUTPUT_LIMIT = 16 * 1024  # characters of learner output kept per test
TRUNCATION_MARKER = "\n… [output truncated]"
MESSAGE_LIMIT = 2000  # characters of a verdict message; a message never needs more
CLIPPED_MARKER = " … [message clipped]"

Mode = Literal["run", "submit"]


class Status(StrEnum):
    PASS = "pass"  # noqa: S105 - a test status, not a password
    FAIL = "fail"
    ERROR = "error"


def clip_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + CLIPPED_MARKER


def truncate_output(text: str, limit: int = OUTPUT_LIMIT, already_truncated: bool = False) -> str:
    if len(text) > limit:
        return text[:limit] + TRUNCATION_MARKER
    return text + TRUNCATION_MARKER if already_truncated else text


class TestResult(BaseModel):
    __test__ = False  # not a pytest class

    name: str
    status: Status
    message: str = ""
    output: str = ""
    duration_ms: float = 0.0
    hint: int | None = None

    @field_validator("output")
    @classmethod
    def _bounded(cls, value: str) -> str:
        return truncate_output(value) if len(value) > OUTPUT_LIMIT else value

    @field_validator("message")
    @classmethod
    def _clipped(cls, value: str) -> str:
        return clip_message(value)


class GradeResult(BaseModel):
    version: int = RESULTS_VERSION
    exercise: str
    track: str
    mode: Mode
    status: Status
    message: str
    passed: int = 0
    total: int = 0
    duration_ms: float = 0.0
    tests: list[TestResult] = Field(default_factory=list)

    @field_validator("message")
    @classmethod
    def _clipped(cls, value: str) -> str:
        return clip_message(value)
