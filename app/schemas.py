"""The JSON shapes of the API (see ../shared/DESIGN.md, "HTTP API")."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graders.results import GradeResult


class Health(BaseModel):
    # "degraded": the service answers, but cannot grade now (its queue is unreachable).
    status: Literal["ok", "degraded"]
    # Absent when grading happens elsewhere (a remote backend, the tests' fake).
    sandbox: Literal["bwrap", "process"] | None = None
    workers: int | None = None
    queue: Literal["nats"] | None = None  # present in distributed mode
    problem: str | None = None  # what is degraded, when something is


class ExerciseSummary(BaseModel):
    slug: str
    title: str
    section: str
    difficulty: str
    summary: str
    tracks: list[str]


class TrackInfo(BaseModel):
    starter_code: str
    entry_points: list[str]
    example_count: int
    test_count: int


class ExerciseDetail(ExerciseSummary):
    statement_html: str
    hint_count: int
    tracks: dict[str, TrackInfo]  # type: ignore[assignment]


class Hint(BaseModel):
    n: int
    total: int
    markdown: str
    html: str


class SubmissionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    track: str = Field(min_length=1, max_length=32, examples=["numpy"])
    code: str = Field(examples=["def checkpoint_forward(layers, x, checkpoint_indices): ..."])
    mode: Literal["run", "submit"] = Field(examples=["submit"])


class SubmissionResult(GradeResult):
    id: str
    created_at: str


class DraftIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str


class Draft(BaseModel):
    code: str
    updated_at: str
