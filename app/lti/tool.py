"""Drill as an LTI tool: what a login, a launch, a deep link and a roster sync do to
Drill's own records (accounts, courses, members, assignments). The routes
(app/routers/lti.py) call it in a thread: every method blocks on the database, and the
ones that talk to the platform (``launch`` for its keys, ``sync_roster``) on HTTP too.

A resource link launch becomes:

- an account: the LMS user (issuer and ``sub``) in ``lti_users``, made on their first
  launch and renamed when the LMS says another name or email;
- a course: the launch's context (issuer and context id), made on the first launch from
  it, remembering the registration, the roster URL (NRPS) and line items URL (AGS);
- a membership with the launch's role (source "lti": a later launch's role wins);
- an assignment: the exercise and track the link's custom parameters name (set by deep
  linking), with the link's own line item (AGS ``lineitem``) when the launch gives one.

A deep linking launch (an instructor adding Drill to the course) gets a short-lived token
signed with the tool's key, which the picker page posts back: the choice is tied to that
launch without any cookie (an iframe may have none).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from joserfc import jwt
from joserfc.errors import JoseError
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from app.accounts import MAX_NAME, Account, Accounts, clean_display_name
from app.courses import STAFF, Assignment, Course, CourseError, Courses
from app.lti.deep_linking import DeepLinkingResponse, ResourceLink, deep_linking_response
from app.lti.errors import LtiError
from app.lti.http import origin
from app.lti.keys import ToolKey
from app.lti.launch import (
    DEEP_LINKING_REQUEST,
    Context,
    DeepLinkingSettings,
    Launch,
    validate_launch,
)
from app.lti.login import begin_login, take_pending
from app.lti.platform_keys import PlatformKeys
from app.lti.registration import Registration, ToolSite
from app.lti.roles import CourseRole
from app.lti.services import LineItem, PlatformServices
from app.lti.store import DbLoginStates, DbNonces, DbRegistrations, lti_account_id
from app.store import Store, database_errors
from app.tables import AccountRow, AssignmentRow, CourseRow, LtiUserRow

DEEP_LINK_LIFETIME = 1800  # seconds an instructor has to pick an exercise
DEEP_LINK_AUDIENCE = "drill:deep-link"
SCORE_MAXIMUM = 1.0

# slug -> (title, tracks) of every exercise of the catalog
Tasks = Callable[[], Mapping[str, tuple[str, tuple[str, ...]]]]


class LinkError(LtiError):
    """A launch that is genuine but cannot be served (its link names no exercise Drill
    has, or a learner asked for what only staff may do)."""


@dataclass(frozen=True)
class Entry:
    """What a resource link launch made or found."""

    account: Account
    role: CourseRole
    exercise: str
    track: str
    course: Course | None  # None for a launch without a context (no course, no grade)
    assignment: Assignment | None


@dataclass(frozen=True)
class RosterSync:
    added: int  # members new to the course
    updated: int  # members whose role the LMS changed
    total: int  # active members the LMS listed


def platform_name(issuer: str) -> str:
    """How the pages call a platform: its host."""
    return urlsplit(issuer).netloc or issuer


def frame_origins(registration: Registration) -> str:
    """The origins that may frame a page launched by this platform (CSP frame-ancestors):
    its issuer's and its login endpoint's, as plain ``scheme://host:port`` (nothing else
    can reach the header)."""
    found: list[str] = []
    for url in (registration.issuer, registration.auth_login_url):
        candidate = origin(url)
        parts = urlsplit(candidate)
        host = parts.hostname or ""
        plain = parts.scheme in ("http", "https") and host and _plain_host(host)
        if plain and candidate not in found:
            found.append(candidate)
    return " ".join(found)


def _plain_host(host: str) -> bool:
    return all(c.isalnum() or c in ".-:[]" for c in host) and host.isascii()


class LtiTool:
    def __init__(
        self,
        store: Store,
        accounts: Accounts,
        courses: Courses,
        key: ToolKey,
        platform_keys: PlatformKeys,
        services: PlatformServices,
        tasks: Tasks,
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.courses = courses
        self.key = key
        self.platform_keys = platform_keys
        self.services = services
        self.tasks = tasks
        self.registrations = DbRegistrations(store)
        self.nonces = DbNonces(store)
        self.states = DbLoginStates(store, self.registrations)

    # --- login and launch ---

    def login(self, params: Mapping[str, str], site: ToolSite) -> str:
        """The URL of the platform's authorization endpoint to send the browser to, once
        the pending login is stored."""
        redirect = begin_login(params, self.registrations, site)
        self.states.put(redirect.pending)
        return redirect.url

    def launch(self, id_token: str | None, state: str | None) -> tuple[Launch, Registration]:
        """The launch, believed: its state was this tool's and is now used up, and its
        id_token passed every check of ``validate_launch`` with that login's nonce."""
        pending = take_pending(self.states, state)
        if not id_token:
            raise LtiError("the launch carries no id_token")
        launch = validate_launch(
            id_token,
            registrations=self.registrations,
            platform_keys=self.platform_keys,
            nonces=self.nonces,
            expected_nonce=pending.nonce,
        )
        if (launch.issuer, launch.client_id) != (pending.issuer, pending.client_id):
            raise LtiError("the launch comes from another platform than the login it ends")
        registration = self.registrations.find(launch.issuer, launch.client_id)
        if registration is None:  # removed between the two checks
            raise LtiError(f"platform {launch.issuer} is not registered with this tool")
        return launch, registration

    # --- what a launch makes ---

    def account_for(
        self, issuer: str, subject: str, name: str | None, email: str | None
    ) -> Account:
        """The account of the LMS user ``subject`` of ``issuer`` (made on first sight);
        their name and email follow what the LMS says."""
        with database_errors(), self.store.engine.connect() as connection:
            account_id = lti_account_id(connection, issuer, subject)
        if account_id is None:
            made = self.accounts.create_external(name or "LMS user", email)
            try:
                with database_errors(), self.store.engine.begin() as connection:
                    connection.execute(
                        insert(LtiUserRow),
                        {"issuer": issuer, "subject": subject, "account_id": made.id},
                    )
                return made
            except IntegrityError:  # the same user's other launch, at the same moment
                with database_errors(), self.store.engine.begin() as connection:
                    connection.execute(delete(AccountRow).where(AccountRow.id == made.id))
                    account_id = lti_account_id(connection, issuer, subject)
                if account_id is None:
                    raise LtiError("this LMS user's account could not be made; try again") from None
        account = self.accounts.get(account_id)
        if account is None:
            raise LtiError("this LMS user's account is gone; launch again")
        values: dict[str, Any] = {}
        if name:
            display = clean_display_name(name[:MAX_NAME], account.display_name)
            if display != account.display_name:
                values["display_name"] = display
        if email and email[:254] != account.email:
            values["email"] = email[:254]
        if values:
            with database_errors(), self.store.engine.begin() as connection:
                connection.execute(
                    update(AccountRow).where(AccountRow.id == account.id).values(**values)
                )
            account = self.accounts.get(account.id) or account
        return account

    def course_for(self, launch: Launch) -> Course | None:
        """The course of the launch's context (made on its first launch), with the
        registration, roster and line items URLs the launch names."""
        context = launch.context
        if context is None:
            return None
        course = self.courses.by_lti_context(launch.issuer, context.id)
        if course is None:
            title = context.title or context.label or f"Course {context.id}"
            try:
                course = self.courses.create(None, title, lti=(launch.issuer, context.id))
            except CourseError as error:
                raise LinkError(str(error)) from None
        stored = self.registrations.find_stored(launch.issuer, launch.client_id)
        values: dict[str, Any] = {}
        if stored is not None:
            values["lti_registration"] = stored.id
        if launch.memberships_url:
            values["lti_memberships_url"] = launch.memberships_url
        if launch.ags is not None and launch.ags.lineitems:
            values["lti_lineitems_url"] = launch.ags.lineitems
        with database_errors(), self.store.engine.begin() as connection:
            connection.execute(update(CourseRow).where(CourseRow.id == course.id).values(**values))
        return course

    def enter(self, launch: Launch) -> Entry:
        """Account, course, membership and assignment of a resource link launch."""
        account = self.account_for(launch.issuer, launch.subject, launch.name, launch.email)
        course = self.course_for(launch)
        if course is not None:
            self.courses.add_member(course, account, launch.role, "lti")
        exercise, track = self._task(launch, course)
        assignment = None
        if course is not None:
            assignment = self._assignment(course, exercise, track, launch)
        return Entry(account, launch.role, exercise, track, course, assignment)

    def _task(self, launch: Launch, course: Course | None) -> tuple[str, str]:
        """The exercise and track the link is for: its custom parameters (deep linking
        sets them), or else the assignment this link was made for."""
        exercise, track = launch.custom.get("exercise"), launch.custom.get("track")
        if not exercise and course is not None and launch.resource_link_id:
            query = select(AssignmentRow.exercise, AssignmentRow.track).where(
                AssignmentRow.course_id == course.id,
                AssignmentRow.lti_resource_link == launch.resource_link_id,
            )
            with database_errors(), self.store.engine.connect() as connection:
                found = connection.execute(query).first()
            if found is not None:
                exercise, track = str(found[0]), str(found[1])
        if not exercise:
            raise LinkError(
                "this link does not say which exercise to open: an instructor adds Drill "
                "exercises to the course with the LMS's “add external tool content” "
                "(deep linking), which names one"
            )
        known = self.tasks()
        if exercise not in known:
            raise LinkError(f"this link names the exercise “{exercise}”, which Drill does not have")
        tracks = known[exercise][1]
        if not track:
            track = tracks[0]
        if track not in tracks:
            raise LinkError(
                f"this link names the track “{track}” of “{exercise}”, which has only "
                + ", ".join(tracks)
            )
        return exercise, track

    def _assignment(self, course: Course, exercise: str, track: str, launch: Launch) -> Assignment:
        def existing() -> Assignment | None:
            return self._find_assignment(course.id, exercise, track)

        assignment = existing()
        if assignment is None:
            try:
                assignment = self.courses.assign(
                    course.id, exercise, track, resource_link=launch.resource_link_id
                )
            except IntegrityError:  # made by another launch at the same moment
                assignment = existing()
            except CourseError as error:
                raise LinkError(str(error)) from None
            if assignment is None:
                raise LinkError("the assignment could not be made; launch again")
        elif launch.resource_link_id:
            with database_errors(), self.store.engine.begin() as connection:
                connection.execute(
                    update(AssignmentRow)
                    .where(
                        AssignmentRow.id == assignment.id,
                        AssignmentRow.lti_resource_link.is_(None),
                    )
                    .values(lti_resource_link=launch.resource_link_id)
                )
        lineitem = launch.ags.lineitem if launch.ags is not None else None
        if assignment.lti_lineitem is None and lineitem:
            self.courses.set_lineitem(assignment.id, lineitem)
            assignment = self.courses.assignment(assignment.id) or assignment
        return assignment

    def _find_assignment(self, course_id: str, exercise: str, track: str) -> Assignment | None:
        found = self.courses.assignments(course_id)
        return next((a for a in found if (a.exercise, a.track) == (exercise, track)), None)

    # --- deep linking ---

    def deep_link_token(self, launch: Launch) -> str:
        """A token naming this deep linking launch, for the picker page to post back."""
        if launch.message_type != DEEP_LINKING_REQUEST or launch.deep_linking is None:
            raise LtiError("this launch is not a deep linking request")
        if launch.role not in STAFF:
            raise LinkError(
                "only the course's instructors add Drill exercises to it; "
                f"the LMS says you are a {launch.role}"
            )
        settings = launch.deep_linking
        issued = int(time.time())
        return self.key.sign(
            {
                "aud": DEEP_LINK_AUDIENCE,
                "iat": issued,
                "exp": issued + DEEP_LINK_LIFETIME,
                "jti": secrets.token_urlsafe(12),
                "launch": {
                    "issuer": launch.issuer,
                    "client_id": launch.client_id,
                    "deployment_id": launch.deployment_id,
                    "subject": launch.subject,
                    "role": launch.role,
                    "name": launch.name,
                    "context": [launch.context.id, launch.context.title, launch.context.label]
                    if launch.context
                    else None,
                    "lineitems": launch.ags.lineitems if launch.ags else None,
                    "return_url": settings.deep_link_return_url,
                    "accept_types": list(settings.accept_types),
                    "accept_multiple": settings.accept_multiple,
                    "data": settings.data,
                },
            }
        )

    def deep_link_launch(self, token: str) -> Launch:
        """The deep linking launch a picker's token names; ``LtiError`` when the token is
        not this tool's, is for something else, or is too old."""
        try:
            claims = jwt.decode(token, self.key.key, algorithms=["RS256"]).claims
        except (JoseError, ValueError):
            raise LtiError("the exercise picker's token is not one this tool made") from None
        if claims.get("aud") != DEEP_LINK_AUDIENCE or not isinstance(claims.get("launch"), dict):
            raise LtiError("the exercise picker's token is not one this tool made")
        exp = claims.get("exp")
        if not isinstance(exp, int) or exp < time.time():
            raise LtiError("the exercise picker was open too long: start again from the LMS")
        saved: dict[str, Any] = claims["launch"]
        context = saved.get("context")
        return Launch(
            message_type="LtiDeepLinkingRequest",
            issuer=str(saved["issuer"]),
            client_id=str(saved["client_id"]),
            deployment_id=str(saved["deployment_id"]),
            subject=str(saved["subject"]),
            role=saved["role"],
            roles=(),
            target_link_uri="",
            name=saved.get("name"),
            context=Context(*context) if isinstance(context, list) else None,
            deep_linking=DeepLinkingSettings(
                deep_link_return_url=str(saved["return_url"]),
                accept_types=tuple(saved.get("accept_types") or ()),
                accept_multiple=bool(saved.get("accept_multiple")),
                data=saved.get("data"),
            ),
        )

    def deep_link(
        self, token: str, exercise: str, track: str, site: ToolSite
    ) -> tuple[DeepLinkingResponse, Launch]:
        """The signed answer that adds ``exercise``'s ``track`` to the LMS course, as a
        resource link with a gradebook column (its resourceId is the Drill assignment)."""
        launch = self.deep_link_launch(token)
        known = self.tasks()
        if exercise not in known or track not in known[exercise][1]:
            raise LinkError("choose an exercise and a track from the list")
        title = known[exercise][0]
        label = {"numpy": "NumPy", "torch": "PyTorch"}.get(track, track)
        resource_id = f"{exercise}:{track}"
        context = launch.context
        course = self.courses.by_lti_context(launch.issuer, context.id) if context else None
        if course is not None:
            found = self._find_assignment(course.id, exercise, track)
            try:
                assignment = found or self.courses.assign(course.id, exercise, track)
            except (CourseError, IntegrityError):
                assignment = None
            if assignment is not None:
                resource_id = assignment.id
        item = ResourceLink(
            title=f"{title} ({label})",
            url=site.launch_url,
            custom={"exercise": exercise, "track": track},
            line_item=LineItem(
                label=f"{title} ({label})",
                score_maximum=SCORE_MAXIMUM,
                resource_id=resource_id,
                tag="drill",
            ),
            text=f"A Drill exercise, graded as you go: {title}, {label} track.",
        )
        response = deep_linking_response(
            launch, [item], self.key, message=f"Added {title} ({label}) from Drill."
        )
        return response, launch

    # --- the roster (NRPS) ---

    def sync_roster(self, course_id: str) -> RosterSync:
        """Read the course's members from the LMS and add those Drill does not have yet
        (source "roster"; a role the LMS changed is changed here too)."""
        with database_errors(), self.store._session() as session:
            row = session.get(CourseRow, course_id)
        if row is None or row.lti_issuer is None:
            raise LinkError("this course was not made by an LMS")
        if not row.lti_memberships_url or not row.lti_registration:
            raise LinkError(
                "the LMS has not told Drill where this course's roster is yet: it does with "
                "the next launch from the course (if the tool may read rosters there)"
            )
        registration = self.registrations.get(row.lti_registration)
        if registration is None:
            raise LinkError(f"platform {row.lti_issuer} is no longer registered with this tool")
        course = self.courses.get(course_id)
        assert course is not None
        members = self.services.members(registration, row.lti_memberships_url)
        before = {m.account_id: m.role for m in self.courses.members(course_id)}
        added = updated = total = 0
        for member in members:
            if member.status.lower() != "active":
                continue
            total += 1
            account = self.account_for(row.lti_issuer, member.user_id, member.name, member.email)
            role = self.courses.add_member(course, account, member.role, "roster")
            if account.id not in before:
                added += 1
            elif before[account.id] != role:
                updated += 1
        return RosterSync(added, updated, total)
