"""The JSON shapes of the API (the README's "The JSON API" lists every route)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graders.grading.results import GradeResult


class Health(BaseModel):
    # "degraded": the service answers, but cannot grade now (its queue is unreachable).
    status: Literal["ok", "degraded"]
    # Absent when grading happens elsewhere (a remote backend, the tests' fake).
    sandbox: Literal["bwrap", "process"] | None = None
    workers: int | None = None
    queue: Literal["nats"] | None = None  # present in distributed mode
    # A cgroup per worker and job: "v2" or "v1", or "none" (resource limits alone).
    cgroups: Literal["v2", "v1", "none"] | None = None
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
    wall_seconds: float = Field(
        description="The wall-clock time limit of one Run or Submit of this track, in "
        "seconds (the exercise's own limit, or the service's default)"
    )
    solved: bool = Field(description="Whether the calling learner passed this track's Submit")
    last_submission: str | None = Field(
        description="The id of the calling learner's newest submission (Run or Submit) of "
        "this track; null before the first"
    )
    statement_html: str = Field(
        description="The statement as this track's learners read it: the shared text and "
        'this track\'s own parts (each a <div class="track-only" data-track="TRACK">, '
        "without a label), not the other tracks' parts"
    )


class ExerciseLink(BaseModel):
    slug: str
    title: str
    section: str


class ExerciseDetail(ExerciseSummary):
    statement_html: str = Field(
        description="The statement as HTML, with every track's parts: a part that only "
        'one track\'s learners read is a <div class="track-only" data-track="TRACK"> '
        'that opens with <p class="track-only-label"> naming the track ("NumPy track '
        'only"); tracks.TRACK.statement_html is one track\'s view. Its "Going further" '
        'heading, if it has one, has id="going-further"'
    )
    hint_count: int
    tracks: dict[str, TrackInfo]  # type: ignore[assignment]
    reveal_solution: bool = Field(
        description="Whether a learner who solved a track may see its reference solution "
        "(GET /api/exercises/{slug}/solution); the author can turn it off"
    )
    next_exercise: ExerciseLink | None = Field(
        description="The exercise after this one in catalog order; null for the last"
    )


class SubmissionSummary(BaseModel):
    """One of a learner's submissions, without its tests (GET /api/submissions/{id})."""

    id: str
    track: str
    mode: Literal["run", "submit"]
    status: Literal["pass", "fail", "error"]
    passed: int
    total: int
    duration_ms: float
    created_at: str
    regrade_of: str | None = Field(
        None,
        description="Set when this is a regrade: the same code graded again after the "
        "exercise changed; the id of the grading it replaces (GET /api/submissions/{id} "
        "has what changed under ``regrade``)",
    )


class TrackProgress(BaseModel):
    solved: bool = Field(description="A Submit of this track passed")
    attempts: int = Field(description="How many Submits of this track (a Run is no attempt)")
    last_submission: str | None = Field(
        description="The id of the newest submission of this track, a Run or a Submit; "
        "null before the first"
    )


class ExerciseProgress(BaseModel):
    tracks: dict[str, TrackProgress]


class Progress(BaseModel):
    exercises: dict[str, ExerciseProgress] = Field(
        description="Every exercise of the catalog, with every one of its tracks"
    )


class Solution(BaseModel):
    track: str
    code: str


class SubmissionCode(BaseModel):
    """The code a learner submitted (GET /api/submissions/{id}/code), for that learner."""

    id: str
    code: str


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


class TestChange(BaseModel):
    """A test whose status a regrade changed."""

    id: str | None
    name: str
    was: str  # its status in the grading replaced (absent: the test did not exist)
    now: str


class RegradeInfo(BaseModel):
    """What a regrade changed, against the grading it replaces."""

    of: str = Field(description="The id of the grading this one replaces")
    run: str = Field(description="The regrade run (drill regrade) that made it")
    submitted_at: str = Field(description="When the learner sent the code")
    previous_status: Literal["pass", "fail", "error"]
    previous_passed: int
    previous_total: int
    previous_version: str
    changed: list[TestChange] = Field(description="The tests whose status changed")


class SubmissionResult(GradeResult):
    id: str
    created_at: str
    regrade: RegradeInfo | None = Field(
        None,
        description="Set when the code was graded again after the exercise changed "
        "(drill regrade): the earlier verdict and what changed",
    )


class DraftIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str


class Draft(BaseModel):
    code: str
    updated_at: str


# --- the instructor's statistics (app/stats.py returns these; the dashboard shows them) ---


class TestStats(BaseModel):
    __test__ = False  # not a pytest class

    id: str | None = Field(
        description="The test's stable id (null: known only by its name in results stored "
        "before ids existed)"
    )
    name: str = Field(description="Its name today (a retired test: the name it last had)")
    runs: int  # Submits that ran this test
    failures: int
    not_run: int = 0  # Submits that ended (a timeout, a crash) before this test started
    blamed_elsewhere: dict[str, int] = Field(
        default_factory=dict,
        description="Of the failures, those not due to the learner's code, by who they are "
        "due to: test (the exercise's test failed), grader (an internal grading error), "
        "infrastructure (a grading machine lost); counted in the failures too",
    )


# What the dashboard and the API count: each Submit a learner sent once, by its newest
# grading (a regrade, app.regrade, stores a new grading that replaces the old one: it adds
# no Submit). A Run, which only tries the examples, is never counted.
SUBMITS_COUNTED = (
    "Submits, each counted once by its newest grading (a regrade replaces a grading, it "
    "adds no Submit); Runs are not counted"
)
PASSED_COUNTED = "Of those Submits, how many passed (by their newest grading)"
LEARNERS_COUNTED = "Distinct learners who made at least one of the Submits counted"
SOLVED_COUNTED = (
    "Of those learners, how many solved it: the newest grading of at least one of their "
    "Submits passes (as the learner's own solved mark says)"
)


class TrackStats(BaseModel):
    submissions: int = Field(description=SUBMITS_COUNTED)
    passed: int = Field(description=PASSED_COUNTED)
    tests: list[TestStats]
    blamed_elsewhere: dict[str, int] = Field(
        default_factory=dict,
        description="Of the failures of its tests and of whole runs, those not due to the "
        "learner's code, by who they are due to: test, grader, infrastructure",
    )


class ExerciseNumbers(BaseModel):
    """An exercise's Submits per track, of one version (``version``) or of all (None)."""

    slug: str
    version: str | None
    tracks: dict[str, TrackStats]


class CommonFailure(BaseModel):
    """One of a track's most frequent failure messages (``test`` None: the whole run
    failed, e.g. a syntax error)."""

    message: str
    count: int
    test: str | None
    test_id: str | None


class ExerciseReport(BaseModel):
    """What an exercise's dashboard page shows: its numbers and each track's most
    frequent failures."""

    stats: ExerciseNumbers
    failures: dict[str, list[CommonFailure]]


class VersionInfo(BaseModel):
    version: str
    number: int = Field(description="v1, v2, ...: the versions in the order they went live")
    went_live_at: str
    submissions: int = Field(
        description="The Submits whose newest grading is against this version (each Submit "
        "counts in one version only: the versions' numbers add up to every version's)"
    )
    regraded: int = Field(
        0,
        description="Gradings against this version that a regrade has since replaced (their "
        "Submits count in the version they were regraded against)",
    )


class LearnerCounts(BaseModel):
    """How many learners solved it ("N of M"): ``solved`` (N) of ``learners`` (M)."""

    learners: int = Field(0, description=LEARNERS_COUNTED)
    solved: int = Field(0, description=SOLVED_COUNTED)


class ExerciseLearners(LearnerCounts):
    """N of M learners for a whole exercise (a learner of both tracks counts once), and for
    each track."""

    tracks: dict[str, LearnerCounts] = Field(default_factory=dict)


class TrackReport(TrackStats):
    """A track's numbers in the API: its Submits and tests, and how many learners solved it."""

    learners: int = Field(0, description=LEARNERS_COUNTED)
    solved: int = Field(0, description=SOLVED_COUNTED)


class ExerciseStats(BaseModel):
    slug: str
    version: str | None = Field(
        description="The version counted (the Submits whose newest grading is against it); "
        "null: every version"
    )
    current_version: str
    versions: list[VersionInfo]
    learners: int = Field(0, description=f"{LEARNERS_COUNTED}, in any track")
    solved: int = Field(0, description=f"{SOLVED_COUNTED}, in any track")
    tracks: dict[str, TrackReport]


class RecentSubmission(BaseModel):
    """A Submit as the dashboard lists it: the learner by pseudonym, the code clipped."""

    id: str
    learner: str
    track: str
    status: str
    passed: int
    total: int
    created_at: str
    code: str
    code_clipped: bool
    regrade_of: str | None


class TrackCounts(BaseModel):
    """One exercise track's Submits on the overview: how many, passed, learners (each
    Submit once, by its newest grading, whichever version graded it)."""

    submissions: int = Field(0, description=SUBMITS_COUNTED)
    passed: int = Field(0, description=PASSED_COUNTED)
    learners: int = Field(0, description=LEARNERS_COUNTED)


class TrackOverview(TrackCounts):
    """A track's row of the overview: its counts, how many learners solved it, and how many
    of its Submits are graded against another version than the current one only."""

    solved: int = Field(0, description=SOLVED_COUNTED)
    elsewhere: int = Field(
        0,
        description="Of the Submits counted, those whose newest grading is against another "
        "version than the current one (not regraded against it)",
    )


class ExerciseOverview(BaseModel):
    """An exercise on the overview: N of M learners in any track, and each track's row."""

    learners: int = Field(0, description=f"{LEARNERS_COUNTED}, in any track")
    solved: int = Field(0, description=f"{SOLVED_COUNTED}, in any track")
    tracks: dict[str, TrackOverview] = Field(default_factory=dict)
