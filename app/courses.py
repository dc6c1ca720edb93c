"""Courses: members with a role, assignments with an optional deadline, and the gradebook.

A course is joined with its code (or made and filled by an LMS, app/lti_service.py). An
assignment is an exercise's track. The gradebook reads the members' Submits of each
assignment, each Submit once by its newest grading (a regrade replaces the verdict, not
the time it was sent): solved, attempts, first solved and whether that was late. A late
solve counts toward the course grade only where the course says so (``late_counts``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import NoReturn

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from app.accounts import Account
from app.store import Store, aware, database_errors, new_id, now
from app.tables import AccountRow, AssignmentRow, CourseRow, MemberRow, SubmissionRow

ROLES = ("instructor", "assistant", "learner")
STAFF = frozenset({"instructor", "assistant"})
# Join codes: no 0/O, 1/I/L, so a code read aloud or from a projector is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
MAX_TITLE = 200
MAX_ASSIGNMENTS = 200
MAX_OWNED = 50  # courses one account may have created: what one account stores is bounded


class CourseError(Exception):
    """A course action that cannot be done, with the message to show."""


@dataclass(frozen=True)
class Course:
    id: str
    title: str
    join_code: str
    late_counts: bool
    created_at: datetime
    lti_issuer: str | None = None
    lti_context: str | None = None


@dataclass(frozen=True)
class Assignment:
    id: str
    course_id: str
    exercise: str
    track: str
    deadline: datetime | None
    position: int
    lti_lineitem: str | None = None


@dataclass(frozen=True)
class Member:
    account_id: str
    learner: str
    display_name: str
    username: str | None
    email: str | None
    role: str
    joined_at: datetime
    source: str


@dataclass
class Cell:
    """One student's standing in one assignment."""

    attempts: int = 0
    solved: bool = False
    first_solved: datetime | None = None  # when the first Submit that passes was sent
    late: bool = False  # solved, but only after the deadline
    counts: bool = False  # toward the course grade (on time, or late where allowed)
    last_submission: str | None = None

    @property
    def label(self) -> str:
        if self.solved and self.late:
            return "solved late"
        if self.solved:
            return "solved"
        return "attempted" if self.attempts else "not started"


@dataclass
class Gradebook:
    course: Course
    assignments: list[Assignment]
    students: list[Member]
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)  # (account, assignment)

    def cell(self, account_id: str, assignment_id: str) -> Cell:
        return self.cells.get((account_id, assignment_id)) or Cell()

    def solved_by(self, assignment: Assignment) -> int:
        """How many students solved it (late or not)."""
        return sum(self.cell(s.account_id, assignment.id).solved for s in self.students)

    def grade(self, student: Member) -> float:
        """The share of the assignments that count for ``student`` (0 with none)."""
        if not self.assignments:
            return 0.0
        counted = sum(self.cell(student.account_id, a.id).counts for a in self.assignments)
        return counted / len(self.assignments)


def _course(row: CourseRow) -> Course:
    return Course(
        row.id,
        row.title,
        row.join_code,
        row.late_counts,
        aware(row.created_at),
        row.lti_issuer,
        row.lti_context,
    )


def _assignment(row: AssignmentRow) -> Assignment:
    deadline = aware(row.deadline) if row.deadline is not None else None
    return Assignment(
        row.id, row.course_id, row.exercise, row.track, deadline, row.position, row.lti_lineitem
    )


def new_join_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def clean_code(raw: str) -> str:
    return "".join(c for c in raw.upper() if c.isalnum())


class Courses:
    def __init__(self, store: Store) -> None:
        self.store = store

    # --- courses and members ---

    def create(
        self,
        owner: Account | None,
        title: str,
        late_counts: bool = False,
        lti: tuple[str, str] | None = None,
    ) -> Course:
        """A new course; ``owner`` becomes its instructor. ``lti``: (issuer, context id)."""
        title = " ".join(title.split())[:MAX_TITLE]
        if not title:
            raise CourseError("A course needs a title.")
        if owner is not None and self.owned(owner) >= MAX_OWNED:
            raise CourseError(
                f"You created {MAX_OWNED} courses already, the most one account may: "
                "delete one, or ask the operator."
            )
        stamp = now()
        for _ in range(5):  # a code already taken is drawn again
            course_id = new_id()
            row = {
                "id": course_id,
                "title": title,
                "join_code": new_join_code(),
                "late_counts": late_counts,
                "created_at": stamp,
                "lti_issuer": lti[0] if lti else None,
                "lti_context": lti[1] if lti else None,
            }
            try:
                with database_errors(), self.store.engine.begin() as connection:
                    connection.execute(insert(CourseRow), row)
                    if owner is not None:
                        connection.execute(
                            insert(MemberRow),
                            {
                                "course_id": course_id,
                                "account_id": owner.id,
                                "role": "instructor",
                                "joined_at": stamp,
                                "source": "owner",
                            },
                        )
            except IntegrityError:
                if lti is not None:
                    found = self.by_lti_context(*lti)
                    if found is not None:
                        return found  # made by a launch at the same moment
                continue
            return self.get(course_id) or _missing(course_id)
        raise CourseError("Could not draw a free join code; try again.")

    def owned(self, account: Account) -> int:
        """How many courses ``account`` created (and is still in)."""
        query = select(func.count()).where(
            MemberRow.account_id == account.id, MemberRow.source == "owner"
        )
        with database_errors(), self.store.engine.connect() as connection:
            return int(connection.execute(query).scalar_one())

    def get(self, course_id: str) -> Course | None:
        with database_errors(), self.store._session() as session:
            row = session.get(CourseRow, course_id)
        return None if row is None else _course(row)

    def by_code(self, code: str) -> Course | None:
        with database_errors(), self.store._session() as session:
            row = session.scalars(
                select(CourseRow).where(CourseRow.join_code == clean_code(code))
            ).first()
        return None if row is None else _course(row)

    def by_lti_context(self, issuer: str, context: str) -> Course | None:
        query = select(CourseRow).where(
            CourseRow.lti_issuer == issuer, CourseRow.lti_context == context
        )
        with database_errors(), self.store._session() as session:
            row = session.scalars(query).first()
        return None if row is None else _course(row)

    def set_late_counts(self, course_id: str, late_counts: bool) -> None:
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(
                update(CourseRow).where(CourseRow.id == course_id).values(late_counts=late_counts)
            )

    def add_member(self, course: Course, account: Account, role: str, source: str) -> str:
        """Put ``account`` in ``course`` (a member already in keeps their role, unless an LMS
        says otherwise); the role they have now."""
        if role not in ROLES:
            raise CourseError(f"Unknown role “{role}”: one of {', '.join(ROLES)}.")
        with database_errors(), self.store.engine.begin() as connection:
            current = connection.execute(
                select(MemberRow.role).where(
                    MemberRow.course_id == course.id, MemberRow.account_id == account.id
                )
            ).scalar_one_or_none()
            if current is None:
                connection.execute(
                    insert(MemberRow),
                    {
                        "course_id": course.id,
                        "account_id": account.id,
                        "role": role,
                        "joined_at": now(),
                        "source": source,
                    },
                )
                return role
            if source in ("lti", "roster") and current != role:
                connection.execute(
                    update(MemberRow)
                    .where(MemberRow.course_id == course.id, MemberRow.account_id == account.id)
                    .values(role=role)
                )
                return role
            return str(current)

    def join(self, account: Account, code: str) -> Course:
        course = self.by_code(code)
        if course is None:
            raise CourseError("No course has that join code. Check it with your instructor.")
        self.add_member(course, account, "learner", "code")
        return course

    def role(self, course_id: str, account: Account | None) -> str | None:
        if account is None:
            return None
        query = select(MemberRow.role).where(
            MemberRow.course_id == course_id, MemberRow.account_id == account.id
        )
        with database_errors(), self.store.engine.connect() as connection:
            found = connection.execute(query).scalar_one_or_none()
        return None if found is None else str(found)

    def of_account(self, account: Account) -> list[tuple[Course, str]]:
        query = (
            select(CourseRow, MemberRow.role)
            .join(MemberRow, MemberRow.course_id == CourseRow.id)
            .where(MemberRow.account_id == account.id)
            .order_by(CourseRow.created_at.desc())
        )
        with database_errors(), self.store._session() as session:
            return [(_course(row), str(role)) for row, role in session.execute(query)]

    def all(self) -> list[Course]:
        with database_errors(), self.store._session() as session:
            return [
                _course(r)
                for r in session.scalars(select(CourseRow).order_by(CourseRow.created_at))
            ]

    def members(self, course_id: str, role: str | None = None) -> list[Member]:
        query = (
            select(AccountRow, MemberRow)
            .join(MemberRow, MemberRow.account_id == AccountRow.id)
            .where(MemberRow.course_id == course_id)
            .order_by(AccountRow.display_name, AccountRow.id)
        )
        if role is not None:
            query = query.where(MemberRow.role == role)
        with database_errors(), self.store._session() as session:
            return [
                Member(
                    a.id,
                    a.learner,
                    a.display_name,
                    a.username,
                    a.email,
                    m.role,
                    aware(m.joined_at),
                    m.source,
                )
                for a, m in session.execute(query)
            ]

    def set_role(self, course_id: str, account_id: str, role: str) -> None:
        if role not in ROLES:
            raise CourseError(f"Unknown role “{role}”: one of {', '.join(ROLES)}.")
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(
                update(MemberRow)
                .where(MemberRow.course_id == course_id, MemberRow.account_id == account_id)
                .values(role=role)
            )

    def remove_member(self, course_id: str, account_id: str) -> None:
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(
                delete(MemberRow).where(
                    MemberRow.course_id == course_id, MemberRow.account_id == account_id
                )
            )

    # --- assignments ---

    def assignments(self, course_id: str) -> list[Assignment]:
        query = (
            select(AssignmentRow)
            .where(AssignmentRow.course_id == course_id)
            .order_by(AssignmentRow.position, AssignmentRow.created_at)
        )
        with database_errors(), self.store._session() as session:
            return [_assignment(r) for r in session.scalars(query)]

    def assignment(self, assignment_id: str) -> Assignment | None:
        with database_errors(), self.store._session() as session:
            row = session.get(AssignmentRow, assignment_id)
        return None if row is None else _assignment(row)

    def assign(
        self,
        course_id: str,
        exercise: str,
        track: str,
        deadline: datetime | None = None,
        resource_link: str | None = None,
    ) -> Assignment:
        """Add an exercise's track to the course (the same one again: its deadline changes)."""
        if deadline is not None and deadline.tzinfo is None:
            raise CourseError("A deadline needs a time zone.")
        if deadline is not None:
            deadline = deadline.astimezone(UTC)  # SQLite keeps the clock time, not the offset
        with database_errors(), self.store.engine.begin() as connection:
            existing = connection.execute(
                select(AssignmentRow.id).where(
                    AssignmentRow.course_id == course_id,
                    AssignmentRow.exercise == exercise,
                    AssignmentRow.track == track,
                )
            ).scalar_one_or_none()
            if existing is not None:
                values: dict[str, object] = {"deadline": deadline}
                if resource_link:
                    values["lti_resource_link"] = resource_link
                connection.execute(
                    update(AssignmentRow).where(AssignmentRow.id == existing).values(**values)
                )
                assignment_id = str(existing)
            else:
                count = connection.execute(
                    select(func.count()).where(AssignmentRow.course_id == course_id)
                ).scalar_one()
                if count >= MAX_ASSIGNMENTS:
                    raise CourseError(f"A course has at most {MAX_ASSIGNMENTS} assignments.")
                assignment_id = new_id()
                connection.execute(
                    insert(AssignmentRow),
                    {
                        "id": assignment_id,
                        "course_id": course_id,
                        "exercise": exercise,
                        "track": track,
                        "deadline": deadline,
                        "position": int(count),
                        "created_at": now(),
                        "lti_resource_link": resource_link,
                    },
                )
        return self.assignment(assignment_id) or _missing(assignment_id)

    def unassign(self, course_id: str, assignment_id: str) -> None:
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(
                delete(AssignmentRow).where(
                    AssignmentRow.course_id == course_id, AssignmentRow.id == assignment_id
                )
            )

    def set_lineitem(self, assignment_id: str, url: str) -> None:
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(
                update(AssignmentRow)
                .where(AssignmentRow.id == assignment_id)
                .values(lti_lineitem=url)
            )

    def assignments_for(
        self, learner: str, exercise: str, track: str
    ) -> list[tuple[Assignment, str]]:
        """The assignments of this exercise's track in the courses of the account whose
        learner id this is: (assignment, account id) each."""
        query = (
            select(AssignmentRow, AccountRow.id)
            .join(MemberRow, MemberRow.course_id == AssignmentRow.course_id)
            .join(AccountRow, AccountRow.id == MemberRow.account_id)
            .where(
                AccountRow.learner == learner,
                AssignmentRow.exercise == exercise,
                AssignmentRow.track == track,
            )
        )
        with database_errors(), self.store._session() as session:
            return [(_assignment(row), str(account)) for row, account in session.execute(query)]

    # --- the gradebook ---

    def gradebook(self, course: Course) -> Gradebook:
        assignments = self.assignments(course.id)
        students = self.members(course.id, role="learner")
        book = Gradebook(course, assignments, students)
        if not assignments or not students:
            return book
        by_learner = {s.learner: s for s in students}
        tasks = {(a.exercise, a.track): a for a in assignments}
        s = SubmissionRow
        query = (
            select(s.id, s.learner, s.exercise, s.track, s.status, s.created_at, s.regrade_of)
            .where(
                s.mode == "submit",
                s.learner.in_(list(by_learner)),
                s.exercise.in_({a.exercise for a in assignments}),
            )
            .order_by(s.created_at, s.id)
        )
        with database_errors(), self.store.engine.connect() as connection:
            rows = connection.execute(query).all()
        sent: dict[str, datetime] = {}  # a row's first grading's time: when it was sent
        newest: dict[str, str] = {}  # first grading's id -> status of its newest grading
        origin: dict[str, str] = {}
        for row in rows:  # regrades come after what they regrade
            first = origin.get(row.regrade_of, row.regrade_of) if row.regrade_of else row.id
            origin[row.id] = first
            if row.regrade_of is None:
                sent[row.id] = aware(row.created_at)
            newest[first] = row.status
        for row in rows:
            if row.regrade_of is not None or (row.exercise, row.track) not in tasks:
                continue
            assignment = tasks[row.exercise, row.track]
            student = by_learner[row.learner]
            cell = book.cells.setdefault((student.account_id, assignment.id), Cell())
            cell.attempts += 1
            cell.last_submission = row.id
            if newest.get(row.id) != "pass":
                continue
            when = sent[row.id]
            on_time = assignment.deadline is None or when <= assignment.deadline
            if cell.first_solved is None:
                cell.first_solved = when
            cell.solved = True
            cell.counts = cell.counts or on_time or course.late_counts
            # The first solve is the earliest (rows come in the order they were sent).
            cell.late = bool(assignment.deadline and cell.first_solved > assignment.deadline)
        return book

    def delete_course(self, course_id: str) -> None:
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(delete(CourseRow).where(CourseRow.id == course_id))


def _missing(what: str) -> NoReturn:
    raise RuntimeError(f"{what} was just written and cannot be read back")
