"""The database's tables, and how one graded submission is laid out in them.

A submission is a ``submissions`` row (its whole result as JSON, what the API shows) and
one narrow ``submission_tests`` row per test, so that the instructor statistics are
GROUP BY queries in the database instead of a Python loop over every stored result.
The schema is created and changed by the Alembic migrations in ``app/migrations``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    false,
    insert,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Connection
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from graders.grading.results import Blame, legacy_blame

# JSONB on PostgreSQL: stored parsed (smaller, no re-parse on read) and indexable; it does
# not keep key order, which JSON readers do not rely on.
JSONType = JSON().with_variant(JSONB(), "postgresql")

# What the pages show of a failure message a submission controls (a hostile submission
# can make it huge); submission_tests keeps messages already clipped to this.
MESSAGE_CHARS = 1_000
CLIPPED = "…"
# Test names are at most this long (graders.grading.references.TestOptions); a longer one, from
# a result written by other means, is clipped so that it still fits an index entry.
TEST_NAME_CHARS = 200
TEST_ID_CHARS = 64  # graders.grading.references.TEST_ID_PATTERN


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending with a visible marker if cut."""
    return text if len(text) <= limit else text[: limit - len(CLIPPED)] + CLIPPED


class Base(DeclarativeBase):
    pass


class SubmissionRow(Base):
    __tablename__ = "submissions"
    __table_args__ = (
        # Everything the statistics read of a submission (per exercise: Submits and passes
        # per track; per exercise and track: distinct learners): they read this index,
        # never the wide rows (code, result). ``superseded`` comes before the version:
        # an exercise's newest gradings are one range of it, and so are a version's, in
        # track order (the same place in the three indexes of submission_tests).
        Index(
            "ix_submissions_statistics",
            "mode",
            "exercise",
            "superseded",
            "exercise_version",
            "track",
            "status",
            "learner",
            "created_at",
        ),
        # A learner's own submissions (history, progress, solved marks): by exercise,
        # newest last, so a page of history is a short backward range scan.
        Index("ix_submissions_learner_history", "learner", "exercise", "created_at", "id"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    learner: Mapped[str] = mapped_column(String(64))
    exercise: Mapped[str] = mapped_column(String(100), index=True)
    track: Mapped[str] = mapped_column(String(16))
    mode: Mapped[str] = mapped_column(String(8))
    exercise_version: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(8), index=True)
    passed: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    duration_ms: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    code: Mapped[str] = mapped_column(Text)
    result: Mapped[dict[str, Any]] = mapped_column(JSONType)
    # A regrade (app.regrade) stores a new row for the same code graded against a newer
    # version; ``regrade_of`` is the row it supersedes (each row is superseded at most
    # once), ``regrade_run`` the run that made it. Both are None for what a learner sent.
    regrade_of: Mapped[str | None] = mapped_column(String(32), unique=True)
    regrade_run: Mapped[str | None] = mapped_column(String(32), index=True)
    # True once a regrade replaced this row (a row whose id is another's ``regrade_of``):
    # set in the transaction that stores the regrade (app.store.write_regrades), so that
    # the statistics keep each Submit's newest grading by a column of their indexes
    # instead of looking up every row's regrade (app.store.not_superseded). False by the
    # database's default: an insert leaves it out (a row is new, so not replaced).
    superseded: Mapped[bool] = mapped_column(Boolean, server_default=false())


class SubmissionTestRow(Base):
    """One test of a stored result; ``test`` is None for a failure of the whole run (a
    result without tests, e.g. a syntax error). ``id`` grows with every row written, so
    it tells which failure was seen first. The submission's exercise, mode, track and
    version are repeated here (they never change), and so is its ``superseded`` (set on
    both tables in one transaction), so that the statistics need no join with the wide
    submissions table."""

    __tablename__ = "submission_tests"
    # The per-test counts of an exercise's Submits read this index only. Its keys repeat
    # (one per version, track, test, status and position), which PostgreSQL's B-tree
    # stores once per run of rows: 3 MB for 370,000 rows, against 89 MB with ``id`` in it.
    __table_args__ = (
        Index(
            "ix_submission_tests_statistics",
            "exercise",
            "mode",
            "superseded",
            "exercise_version",
            "track",
            "test_id",
            "test",
            "status",
            "position",
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    submission_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    exercise: Mapped[str] = mapped_column(String(100))
    mode: Mapped[str] = mapped_column(String(8))
    track: Mapped[str] = mapped_column(String(16))
    test: Mapped[str | None] = mapped_column(String(TEST_NAME_CHARS))  # its name then
    # The test's stable id (graders.sandbox.testing); None in results stored before ids existed.
    test_id: Mapped[str | None] = mapped_column(String(TEST_ID_CHARS))
    exercise_version: Mapped[str | None] = mapped_column(String(32))  # the submission's
    position: Mapped[int | None] = mapped_column(Integer)  # in the result's list of tests
    status: Mapped[str] = mapped_column(String(8))
    # Only for a failure, clipped to MESSAGE_CHARS: passes need none, and the statistics
    # group failures by the text the pages show.
    message: Mapped[str | None] = mapped_column(Text)
    # Who a failure is due to (graders.grading.results.Blame: learner, test, grader,
    # infrastructure); None for a pass or a test that did not run.
    blame: Mapped[str | None] = mapped_column(String(16))
    # Its submission's ``superseded`` (set with it): the statistics read it here.
    superseded: Mapped[bool] = mapped_column(Boolean, server_default=false())


# The failures of an exercise's track (about one test row in eight), for the most common
# failure messages: the statistics read those rows only, not the passes around them.
_FAILED = SubmissionTestRow.status != "pass"
Index(
    "ix_submission_tests_failures",
    SubmissionTestRow.exercise,
    SubmissionTestRow.mode,
    SubmissionTestRow.superseded,
    SubmissionTestRow.exercise_version,
    SubmissionTestRow.track,
    postgresql_where=_FAILED,
    sqlite_where=_FAILED,
)


# The failures that are not the learner's (a broken test, the grader, a lost machine):
# rare, and counted apart by the statistics through this index alone.
NOT_LEARNERS = SubmissionTestRow.blame != "learner"
Index(
    "ix_submission_tests_not_learners",
    SubmissionTestRow.exercise,
    SubmissionTestRow.mode,
    SubmissionTestRow.superseded,
    SubmissionTestRow.exercise_version,
    SubmissionTestRow.track,
    postgresql_where=NOT_LEARNERS,
    sqlite_where=NOT_LEARNERS,
)


class ExerciseVersionRow(Base):
    """When a version of an exercise (its content hash) was first served: the dashboard
    filters statistics by version and says since when each one is live."""

    __tablename__ = "exercise_versions"

    exercise: Mapped[str] = mapped_column(String(100), primary_key=True)
    version: Mapped[str] = mapped_column(String(32), primary_key=True)
    went_live_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RegradeRunRow(Base):
    """One ``drill regrade``: what it regraded and, once finished, what changed."""

    __tablename__ = "regrade_runs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    exercise: Mapped[str] = mapped_column(String(100), index=True)
    track: Mapped[str | None] = mapped_column(String(16))  # None: every track
    since: Mapped[str | None] = mapped_column(String(64))  # as given on the command line
    version: Mapped[str] = mapped_column(String(32))  # the version regraded against
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # {"regraded", "changed", "to_pass", "to_fail", "tests": {id: {name, to_pass, to_fail}}}
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSONType)


class DraftRow(Base):
    __tablename__ = "drafts"

    learner: Mapped[str] = mapped_column(String(64), primary_key=True)
    exercise: Mapped[str] = mapped_column(String(100), primary_key=True)
    track: Mapped[str] = mapped_column(String(16), primary_key=True)
    code: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RateBucketRow(Base):
    """A client's token bucket, shared by every web node (see app.limits)."""

    __tablename__ = "rate_buckets"

    client: Mapped[str] = mapped_column(String(128), primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    stamp: Mapped[float] = mapped_column(Float)  # seconds since the epoch, the database's clock


class ReferenceCacheRow(Base):
    """A computed reference (graders.grading.references), shared by every web node."""

    __tablename__ = "reference_cache"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


def tests_of(submission: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``submission_tests`` rows of a ``submissions`` row (a dict of its columns)."""
    result = submission["result"]
    tests = result.get("tests") or []
    found: list[tuple[str | None, str | None, int | None, str, str | None, str | None]] = []
    for position, test in enumerate(tests):
        if not isinstance(test, dict) or not isinstance(test.get("name"), str):
            continue  # not a test the statistics could name
        status = str(test.get("status"))
        failed = status != "pass"
        message = clip(str(test.get("message") or ""), MESSAGE_CHARS) if failed else None
        test_id = test.get("id")
        test_id = test_id[:TEST_ID_CHARS] if isinstance(test_id, str) else None
        blame = _blame(test, status)
        found.append(
            (clip(test["name"], TEST_NAME_CHARS), test_id, position, status, message, blame)
        )
    if not tests and result.get("status") != "pass" and result.get("message"):
        status = str(result["status"])
        message = clip(str(result["message"]), MESSAGE_CHARS)
        found.append((None, None, None, status, message, _blame(result, status)))
    of = {k: submission[k] for k in ("exercise", "mode", "track", "exercise_version")}
    return [
        {
            "submission_id": submission["id"],
            **of,
            "test": test,
            "test_id": test_id,
            "position": position,
            "status": status[:8],
            "message": message,
            "blame": blame,
        }
        for test, test_id, position, status, message, blame in found
    ]


BLAMES = frozenset(b.value for b in Blame)


def _blame(verdict: Mapping[str, Any], status: str) -> str | None:
    """Who a stored test's (or whole run's) failure is due to: as the result says, or,
    for a result stored before it said so, as its message reads."""
    said = verdict.get("blame")
    if status in ("pass", "not_run"):
        return None
    if said in BLAMES:
        return str(said)
    blame = legacy_blame(status, str(verdict.get("message") or ""))
    return None if blame is None else blame.value


_INSERT_SUBMISSION = insert(SubmissionRow)
_INSERT_TESTS = insert(SubmissionTestRow)


def write_submissions(connection: Connection, rows: Sequence[dict[str, Any]]) -> None:
    """Insert submissions (dicts of ``submissions`` columns) and their test rows, in the
    caller's transaction. Core inserts: the ORM's unit of work cost 3 ms per Submit."""
    connection.execute(_INSERT_SUBMISSION, list(rows))
    tests = [t for row in rows for t in tests_of(row)]
    if tests:
        connection.execute(_INSERT_TESTS, tests)


# --- identity, courses and the LMS (app/accounts.py, app/courses.py, app/lti/) ---


class AccountRow(Base):
    """Someone who signs in: with a name and password, or through an LMS (LTI), or both.
    ``learner`` is the id their submissions and drafts are stored under, the same kind of
    id an anonymous learner's cookie holds: signing in merges that one into this one."""

    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    learner: Mapped[str] = mapped_column(String(64), unique=True)
    # Lowercased for lookups; None for an account that only ever came from an LMS.
    username: Mapped[str | None] = mapped_column(String(64), unique=True)
    display_name: Mapped[str] = mapped_column(String(100))
    email: Mapped[str | None] = mapped_column(String(254))
    password_hash: Mapped[str | None] = mapped_column(String(255))  # argon2id, or None
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SessionRow(Base):
    """A signed-in browser (the ``drill_session`` cookie) or an LMS launch (a token the
    launched page sends in a header: no cookie reaches an iframe whose third-party
    cookies are blocked). Only a hash of the token is kept."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(8))  # "cookie" or "launch"
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class CourseRow(Base):
    __tablename__ = "courses"
    __table_args__ = (Index("ix_courses_lti_context", "lti_issuer", "lti_context", unique=True),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    join_code: Mapped[str] = mapped_column(String(16), unique=True)
    # Whether a Submit that passes after its assignment's deadline counts toward the grade.
    late_counts: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # A course made by an LMS launch: the platform's issuer and its context (course) id.
    lti_issuer: Mapped[str | None] = mapped_column(String(255))
    lti_context: Mapped[str | None] = mapped_column(String(255))
    # The LMS's roster (NRPS) and line items (AGS), from the newest launch that named them.
    lti_registration: Mapped[str | None] = mapped_column(String(32))
    lti_memberships_url: Mapped[str | None] = mapped_column(Text)
    lti_lineitems_url: Mapped[str | None] = mapped_column(Text)


class MemberRow(Base):
    __tablename__ = "course_members"

    course_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    role: Mapped[str] = mapped_column(String(16))  # instructor, assistant or learner
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    source: Mapped[str] = mapped_column(String(8))  # "owner", "code", "lti" or "roster"


class AssignmentRow(Base):
    __tablename__ = "assignments"
    __table_args__ = (
        Index("ix_assignments_course_task", "course_id", "exercise", "track", unique=True),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    course_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("courses.id", ondelete="CASCADE"), index=True
    )
    exercise: Mapped[str] = mapped_column(String(100))
    track: Mapped[str] = mapped_column(String(16))
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    position: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The LMS's gradebook column for it (AGS line item URL), once known.
    lti_lineitem: Mapped[str | None] = mapped_column(Text)
    lti_resource_link: Mapped[str | None] = mapped_column(String(255))


class LtiRegistrationRow(Base):
    """A platform (an LMS) that may launch Drill: registered by hand or dynamically."""

    __tablename__ = "lti_registrations"
    __table_args__ = (Index("ix_lti_registrations_client", "issuer", "client_id", unique=True),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    deployment_ids: Mapped[list[str]] = mapped_column(JSONType)
    auth_login_url: Mapped[str] = mapped_column(Text)
    auth_token_url: Mapped[str] = mapped_column(Text)
    key_set_url: Mapped[str] = mapped_column(Text)
    auth_token_audience: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LtiKeyRow(Base):
    """The tool's own signing key (a private JWK), shared by every web node."""

    __tablename__ = "lti_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    private_jwk: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LtiStateRow(Base):
    """An OIDC login in progress: ``state`` and ``nonce`` the launch must bring back.
    Kept here, not in a cookie, since an iframe's cookies may be blocked."""

    __tablename__ = "lti_states"

    state: Mapped[str] = mapped_column(String(64), primary_key=True)
    nonce: Mapped[str] = mapped_column(String(64))
    registration_id: Mapped[str] = mapped_column(String(32))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class LtiNonceRow(Base):
    """Nonces of accepted launches, until they expire: a replayed launch is refused."""

    __tablename__ = "lti_nonces"

    nonce: Mapped[str] = mapped_column(String(128), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class LtiUserRow(Base):
    """An LMS user (issuer and ``sub``) and the Drill account they are."""

    __tablename__ = "lti_users"

    issuer: Mapped[str] = mapped_column(String(255), primary_key=True)
    subject: Mapped[str] = mapped_column(String(255), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )


class ScoreOutboxRow(Base):
    """A score to send to an LMS's gradebook (AGS), kept until the platform took it: a
    platform that is down is retried later, and a restart loses nothing. One row per
    (assignment, account): a newer score replaces one not yet sent."""

    __tablename__ = "score_outbox"
    __table_args__ = (
        Index("ix_score_outbox_task", "assignment_id", "account_id", unique=True),
        Index("ix_score_outbox_due", "sent_at", "next_attempt_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    assignment_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("assignments.id", ondelete="CASCADE")
    )
    account_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("accounts.id", ondelete="CASCADE")
    )
    score: Mapped[float] = mapped_column(Float)
    submission_id: Mapped[str | None] = mapped_column(String(32))
    scored_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_error: Mapped[str | None] = mapped_column(Text)
