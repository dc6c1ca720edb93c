"""Scores on their way to the LMS's gradebook (LTI Assignment and Grade Services), through
a table: retried, never lost, never sent twice.

Noting (``note_standing``, after every stored Submit and after a regrade): for each
assignment of that exercise and track in an LMS course the learner is a student of, the
learner's standing by the gradebook's rules (app.courses.Gradebook) becomes the row of
(assignment, account) in ``score_outbox``:

- score 1.0 when the assignment counts toward the grade (a Submit that passes, by its
  newest grading, sent before the deadline, or after it where the course lets late work
  count), else 0.0. The LMS gets ``scoreGiven`` of ``scoreMaximum`` 1, ``gradingProgress``
  FullyGraded (Drill's verdict is final when it is given) and ``activityProgress``
  Completed for 1.0, Submitted for 0.0 (tried, not solved, or solved too late to count);
- a new row is due at once; a row not sent yet takes the newer score (and a row that had
  given up is tried again); a row already sent is sent again only if the score changed.
  ``scored_at`` is the score's time and the ``timestamp`` the LMS gets, the same on every
  try: an LMS keeps the newest timestamp it got, so a late retry never overwrites a
  newer score.

Sending (``ScoreSender``, one thread per web node): a due row is claimed by a compare-and-
set of its ``next_attempt_at`` (moved a lease ahead: of two nodes, one update matches),
posted, and marked sent only if its score is still the one posted (else it is due again
at once, with the newer score). A failure the platform may get over (5xx, 429, timeout,
no connection, a refused token) is tried again after 2 s, 4 s, 8 s ... up to an hour,
``last_error`` saying why; one it will not (another 4xx, an answer that makes no sense,
no line item to post to) gives up on that row until a new score comes, and the course
page tells the instructor. The line item is the assignment's (from its launches or deep
link), else found or made by ``resourceId`` (the assignment's id) in the course's line
items container.
"""

from __future__ import annotations

import logging
import random
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from app.lti.errors import PlatformError
from app.lti.services import LineItem, PlatformServices, Score
from app.lti.store import DbRegistrations, lti_subject
from app.store import Store, aware, database_errors, now
from app.tables import (
    AccountRow,
    AssignmentRow,
    CourseRow,
    MemberRow,
    ScoreOutboxRow,
    SubmissionRow,
)

log = logging.getLogger("drill.lti.outbox")
SCORE_MAXIMUM = 1.0
# next_attempt_at of a row that gave up (a non-retryable error): it waits for a new score.
GAVE_UP = datetime(9999, 12, 31, tzinfo=UTC)
FIRST_RETRY = 2.0  # seconds after the first failure; doubled after each one
MAX_RETRY = 3600.0
LEASE = 120.0  # seconds a claimed row is left to the node sending it
POLL = 5.0  # seconds between looks at the table (rows due from other nodes, retries)
BATCH = 50
MAX_ERROR = 1000  # characters of last_error kept

_wake_events: weakref.WeakKeyDictionary[Store, threading.Event] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Standing:
    """A learner's standing in one assignment, by the gradebook's rules."""

    attempts: int
    solved: bool
    counts: bool
    last_submission: str | None

    @property
    def score(self) -> float:
        return SCORE_MAXIMUM if self.counts else 0.0


def standing(
    connection: Connection,
    learner: str,
    exercise: str,
    track: str,
    deadline: datetime | None,
    late_counts: bool,
) -> Standing:
    """``learner``'s Submits of the track, each once by its newest grading (a regrade
    replaces the verdict, not the time it was sent), as app.courses.Gradebook reads them."""
    s = SubmissionRow
    rows = connection.execute(
        select(s.id, s.status, s.created_at, s.regrade_of)
        .where(s.learner == learner, s.exercise == exercise, s.track == track, s.mode == "submit")
        .order_by(s.created_at, s.id)
    ).all()
    origin: dict[str, str] = {}
    newest: dict[str, str] = {}
    sent: dict[str, datetime] = {}
    for row in rows:  # regrades come after what they regrade
        first = origin.get(row.regrade_of, row.regrade_of) if row.regrade_of else row.id
        origin[row.id] = first
        if row.regrade_of is None:
            sent[row.id] = aware(row.created_at)
        newest[first] = row.status
    deadline = aware(deadline) if deadline is not None else None
    attempts, solved, counts, last = 0, False, False, None
    for submission, when in sent.items():
        attempts += 1
        last = submission
        if newest.get(submission) == "pass":
            solved = True
            counts = counts or deadline is None or when <= deadline or late_counts
    return Standing(attempts, solved, counts, last)


def note_standing(store: Store, learner: str, exercise: str, track: str) -> int:
    """Queue the learner's standing in ``exercise``'s ``track`` for every LMS course that
    grades it; how many rows changed. One indexed query when the learner has no such
    assignment (an anonymous learner, a course without an LMS). Never raises: a Submit's
    answer does not depend on the LMS's gradebook (a failure is logged)."""
    try:
        changed = _note(store, learner, exercise, track)
    except Exception:
        log.exception("could not queue the LMS score of %s %s [%s]", learner, exercise, track)
        return 0
    if changed:
        event = _wake_events.get(store)
        if event is not None:
            event.set()
    return changed


def _note(store: Store, learner: str, exercise: str, track: str) -> int:
    query = (
        select(AssignmentRow.id, AssignmentRow.deadline, CourseRow.late_counts, AccountRow.id)
        .join(MemberRow, MemberRow.course_id == AssignmentRow.course_id)
        .join(AccountRow, AccountRow.id == MemberRow.account_id)
        .join(CourseRow, CourseRow.id == AssignmentRow.course_id)
        .where(
            AccountRow.learner == learner,
            AssignmentRow.exercise == exercise,
            AssignmentRow.track == track,
            MemberRow.role == "learner",
            CourseRow.lti_issuer.is_not(None),
            or_(AssignmentRow.lti_lineitem.is_not(None), CourseRow.lti_lineitems_url.is_not(None)),
        )
    )
    with database_errors(), store.engine.connect() as connection:
        tasks = connection.execute(query).all()
        if not tasks:
            return 0
        found = [
            (assignment, account, standing(connection, learner, exercise, track, due, late))
            for assignment, due, late, account in tasks
        ]
    return sum(_upsert(store, a, account, s) for a, account, s in found)


def _upsert(store: Store, assignment_id: str, account_id: str, found: Standing) -> bool:
    """Put the score in the row of (assignment, account); whether it changed anything."""
    for _ in range(3):  # another node noting the same row at once: look again
        try:
            with database_errors(), store.engine.begin() as connection:
                changed = _upsert_once(connection, assignment_id, account_id, found)
        except IntegrityError:  # the row was inserted meanwhile
            continue
        if changed is not None:
            return changed
    log.warning("the LMS score of %s in %s changed too often to note", account_id, assignment_id)
    return False


def _upsert_once(
    connection: Connection, assignment_id: str, account_id: str, found: Standing
) -> bool | None:
    """One try of ``_upsert``: None when the row changed under it."""
    o = ScoreOutboxRow
    stamp = now()
    row = connection.execute(
        select(o.id, o.score, o.sent_at, o.next_attempt_at).where(
            o.assignment_id == assignment_id, o.account_id == account_id
        )
    ).first()
    fresh = {"score": found.score, "submission_id": found.last_submission, "scored_at": stamp}
    if row is None:
        connection.execute(
            insert(o),
            {
                "assignment_id": assignment_id,
                "account_id": account_id,
                "attempts": 0,
                "next_attempt_at": stamp,
                "sent_at": None,
                "last_error": None,
                **fresh,
            },
        )
        return True
    if row.sent_at is None:
        gave_up = aware(row.next_attempt_at) >= GAVE_UP
        if row.score == found.score and not gave_up:
            return False  # the same score is on its way
        values: dict[str, object] = dict(fresh)
        if gave_up:  # something new: one more try
            values.update(attempts=0, next_attempt_at=stamp)
        query = update(o).where(o.id == row.id, o.sent_at.is_(None)).values(**values)
    else:
        if row.score == found.score:
            return False  # the LMS has it
        query = (
            update(o)
            .where(o.id == row.id, o.sent_at.is_not(None))
            .values(**fresh, sent_at=None, attempts=0, next_attempt_at=stamp, last_error=None)
        )
    return True if connection.execute(query).rowcount == 1 else None


# --- what the course page shows ---


@dataclass(frozen=True)
class OutboxStatus:
    waiting: int  # scores not yet taken by the LMS (being retried, or given up)
    given_up: int  # of them, those that stopped on an error a retry cannot fix
    last_error: str | None


def outbox_status(store: Store, course_id: str) -> OutboxStatus:
    o = ScoreOutboxRow
    unsent = (
        select(o)
        .join(AssignmentRow, AssignmentRow.id == o.assignment_id)
        .where(AssignmentRow.course_id == course_id, o.sent_at.is_(None))
    )
    with database_errors(), store.engine.connect() as connection:
        rows = connection.execute(unsent.with_only_columns(o.next_attempt_at)).scalars().all()
        error = connection.execute(
            unsent.with_only_columns(o.last_error)
            .where(o.last_error.is_not(None))
            .order_by(o.id.desc())
            .limit(1)
        ).scalar()
    given_up = sum(aware(when) >= GAVE_UP for when in rows)
    return OutboxStatus(len(rows), given_up, error)


# --- sending ---


class ScoreSender:
    """Sends due rows of the outbox to the LMS, in a thread of its own (``start``,
    ``stop``); ``run_once`` sends what is due now and is what the thread repeats."""

    def __init__(
        self,
        store: Store,
        services: PlatformServices,
        *,
        labels: Callable[[str, str], str] | None = None,
        poll: float = POLL,
        first_retry: float = FIRST_RETRY,
        max_retry: float = MAX_RETRY,
        lease: float = LEASE,
    ) -> None:
        self.store = store
        self.services = services
        self.registrations = DbRegistrations(store)
        self.labels = labels or (lambda exercise, track: f"{exercise} ({track})")
        self.poll = poll
        self.first_retry = first_retry
        self.max_retry = max_retry
        self.lease = lease
        self._stop = threading.Event()
        self._wake = _wake_events.setdefault(store, threading.Event())
        self._thread = threading.Thread(target=self._loop, name="lti-scores", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def wake(self) -> None:
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                self.run_once()
                wait = self._until_next_due()
            except Exception:  # a database that is down, or a bug: never a dead sender
                log.exception("the LMS score sender failed; it tries again")
                wait = self.poll
            self._wake.wait(wait)

    def _until_next_due(self) -> float:
        o = ScoreOutboxRow
        with database_errors(), self.store.engine.connect() as connection:
            soonest = connection.execute(
                select(func.min(o.next_attempt_at)).where(o.sent_at.is_(None))
            ).scalar()
        if soonest is None:
            return self.poll
        return min(self.poll, max(0.05, (aware(soonest) - now()).total_seconds()))

    def run_once(self) -> int:
        """Claim and send each row due now; how many the LMS took."""
        o = ScoreOutboxRow
        with database_errors(), self.store.engine.connect() as connection:
            due = connection.execute(
                select(o.id, o.next_attempt_at)
                .where(o.sent_at.is_(None), o.next_attempt_at <= now())
                .order_by(o.next_attempt_at)
                .limit(BATCH)
            ).all()
        sent = 0
        for row_id, was in due:
            if self._stop.is_set():
                break
            claim = self._claim(row_id, was)
            if claim is not None:
                sent += self._send(row_id, claim)
        return sent

    def _claim(self, row_id: int, was: datetime) -> datetime | None:
        """Move the row's next attempt a lease ahead, if no other node did first."""
        o = ScoreOutboxRow
        until = now() + timedelta(seconds=self.lease)
        with database_errors(), self.store.engine.begin() as connection:
            claimed = connection.execute(
                update(o)
                .where(o.id == row_id, o.next_attempt_at == was, o.sent_at.is_(None))
                .values(next_attempt_at=until)
            ).rowcount
        return until if claimed == 1 else None

    def _send(self, row_id: int, claim: datetime) -> int:
        o = ScoreOutboxRow
        with database_errors(), self.store._session() as session:
            found = session.execute(
                select(o, AssignmentRow, CourseRow)
                .join(AssignmentRow, AssignmentRow.id == o.assignment_id)
                .join(CourseRow, CourseRow.id == AssignmentRow.course_id)
                .where(o.id == row_id)
            ).first()
            if found is None:  # its assignment is gone (SQLite keeps no cascade)
                session.execute(delete(o).where(o.id == row_id))
                session.commit()
                return 0
            row, assignment, course = found
            subject = (
                lti_subject(session.connection(), course.lti_issuer, row.account_id)
                if course.lti_issuer
                else None
            )
        try:
            registration = (
                self.registrations.get(course.lti_registration) if course.lti_registration else None
            )
            if registration is None:
                raise PlatformError(
                    "the course's LMS is not registered with Drill any more", retryable=False
                )
            if subject is None:
                raise PlatformError("the LMS does not know this learner", retryable=False)
            lineitem = assignment.lti_lineitem or self._line_item(registration, assignment, course)
            solved = row.score >= SCORE_MAXIMUM
            self.services.post_score(
                registration,
                lineitem,
                Score(
                    user_id=subject,
                    score_given=row.score,
                    score_maximum=SCORE_MAXIMUM,
                    timestamp=aware(row.scored_at),
                    activity_progress="Completed" if solved else "Submitted",
                    grading_progress="FullyGraded",
                    comment="Solved in Drill."
                    if solved
                    else "Not solved in Drill yet, or solved after the deadline.",
                ),
            )
        except PlatformError as error:
            self._failed(row, claim, error.message, error.retryable)
            return 0
        except Exception as error:  # not the platform's: log it, and try again later
            log.exception("could not send the LMS score of outbox row %s", row_id)
            self._failed(row, claim, f"Drill could not send it: {error}", True)
            return 0
        return self._sent(row, claim)

    def _line_item(self, registration: object, assignment: AssignmentRow, course: CourseRow) -> str:
        if not course.lti_lineitems_url:
            raise PlatformError(
                "the LMS gave no gradebook column (line item) for this assignment",
                retryable=False,
            )
        url = self.services.line_item(
            registration,  # type: ignore[arg-type]
            course.lti_lineitems_url,
            LineItem(
                label=self.labels(assignment.exercise, assignment.track),
                score_maximum=SCORE_MAXIMUM,
                resource_id=assignment.id,
                tag="drill",
            ),
        )
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(
                update(AssignmentRow)
                .where(AssignmentRow.id == assignment.id, AssignmentRow.lti_lineitem.is_(None))
                .values(lti_lineitem=url)
            )
        return url

    def _sent(self, row: ScoreOutboxRow, claim: datetime) -> int:
        o = ScoreOutboxRow
        with database_errors(), self.store.engine.begin() as connection:
            marked = connection.execute(
                update(o)
                .where(o.id == row.id, o.next_attempt_at == claim, o.scored_at == row.scored_at)
                .values(sent_at=now(), attempts=o.attempts + 1, last_error=None)
            ).rowcount
            if marked != 1:  # a newer score came meanwhile: it is due at once
                connection.execute(
                    update(o)
                    .where(o.id == row.id, o.next_attempt_at == claim, o.sent_at.is_(None))
                    .values(next_attempt_at=now())
                )
                self._wake.set()
        return 1

    def _failed(self, row: ScoreOutboxRow, claim: datetime, message: str, retryable: bool) -> None:
        attempts = row.attempts + 1
        if retryable:
            delay = min(self.max_retry, self.first_retry * 2 ** min(attempts - 1, 30))
            later = now() + timedelta(seconds=delay * random.uniform(0.9, 1.1))  # noqa: S311
        else:
            later = GAVE_UP
        log.warning(
            "the LMS did not take a score (outbox row %s, attempt %d%s): %s",
            row.id,
            attempts,
            "" if retryable else ", giving up until a new score",
            message,
        )
        o = ScoreOutboxRow
        mine = (o.id == row.id, o.next_attempt_at == claim, o.sent_at.is_(None))
        values = {"attempts": attempts, "last_error": message[:MAX_ERROR]}
        with database_errors(), self.store.engine.begin() as connection:
            done = connection.execute(
                update(o)
                .where(*mine, o.scored_at == row.scored_at)
                .values(next_attempt_at=later, **values)
            ).rowcount
            if done != 1:  # a newer score came meanwhile: it is worth a try soon
                retry = now() + timedelta(seconds=self.first_retry)
                connection.execute(update(o).where(*mine).values(next_attempt_at=retry, **values))
