"""``drill course``: run courses from the command line (the pages do the same): create one,
assign exercises with deadlines, list the roster, print or export the gradebook."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from drill.commands import Command
from graders.errors import DrillError
from graders.settings import get_settings


class CourseCommandError(DrillError):
    pass


def add_arguments(course: argparse.ArgumentParser) -> None:
    actions = course.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="what to do (drill course ACTION -h)"
    )
    create = actions.add_parser("create", help="create a course; prints its id and join code")
    create.add_argument("title", help="the course's title, as learners see it")
    create.add_argument("--instructor", metavar="USERNAME", help="the account that teaches it")
    create.add_argument(
        "--late-counts", action="store_true", help="late solutions count toward the grade"
    )
    actions.add_parser("list", help="every course: id, join code, title")
    assign = actions.add_parser("assign", help="add an exercise's track (or change its deadline)")
    assign.add_argument("course", help="the course's id or join code")
    assign.add_argument("exercise", help="the exercise's slug (drill list)")
    assign.add_argument("track", help="numpy or torch")
    assign.add_argument("--deadline", help="ISO 8601, e.g. 2027-01-15T23:59+01:00 (no offset: UTC)")
    roster = actions.add_parser("roster", help="the course's members and roles")
    roster.add_argument("course", help="the course's id or join code")
    roster.add_argument(
        "--sync",
        action="store_true",
        help="first read the roster of the course's LMS (LTI NRPS) and add its members",
    )
    book = actions.add_parser("gradebook", help="the gradebook as CSV (default) or JSON")
    book.add_argument("course", help="the course's id or join code")
    book.add_argument("--json", action="store_true", help="JSON instead of CSV")


def run(args: argparse.Namespace) -> int:
    from app.courses import CourseError, Courses
    from app.gradebook_export import gradebook_csv, gradebook_json
    from app.routers.courses import parse_deadline
    from app.store import Store
    from graders.grading.catalog import load_catalog

    settings = get_settings()
    store = Store(settings.database_url)
    courses = Courses(store)
    try:
        if args.action == "create":
            from app.accounts import Accounts

            owner = None
            if args.instructor:
                owner = Accounts(store).by_username(args.instructor)
                if owner is None:
                    raise CourseCommandError(f"no account is named {args.instructor!r}")
            made = courses.create(owner, args.title, args.late_counts)
            print(f"{made.id}\t{made.join_code}\t{made.title}")
            return 0
        if args.action == "list":
            for found in courses.all():
                print(f"{found.id}\t{found.join_code}\t{found.title}")
            return 0
        course = courses.get(args.course) or courses.by_code(args.course)
        if course is None:
            raise CourseCommandError(f"no course has the id or join code {args.course!r}")
        if args.action == "assign":
            catalog = load_catalog(settings.exercises_dir)
            exercise = next((e for e in catalog if e.slug == args.exercise), None)
            if exercise is None or args.track not in exercise.tracks:
                raise CourseCommandError(
                    f"no exercise {args.exercise!r} with a track {args.track!r}"
                )
            deadline = parse_deadline(args.deadline or "")
            assigned = courses.assign(course.id, exercise.slug, args.track, deadline)
            due = assigned.deadline.isoformat() if assigned.deadline else "no deadline"
            print(f"{assigned.id}\t{assigned.exercise}\t{assigned.track}\t{due}")
        elif args.action == "roster":
            if args.sync:
                print(_sync_roster(store, courses, course.id), file=sys.stderr)
            for member in courses.members(course.id):
                name = member.username or "-"
                print(f"{member.role}\t{member.display_name}\t{name}\t{member.source}")
        elif args.action == "gradebook":
            book = courses.gradebook(course)
            sys.stdout.write(gradebook_json(book) + "\n" if args.json else gradebook_csv(book))
        return 0
    except CourseError as exc:
        raise CourseCommandError(str(exc)) from None
    finally:
        store.close()


def _sync_roster(store: Any, courses: Any, course_id: str) -> str:
    """Read the course's roster from its LMS (LTI NRPS) into it; what changed."""
    from app.accounts import Accounts
    from app.lti.errors import LtiError
    from app.lti.platform_keys import PlatformKeys
    from app.lti.services import PlatformServices
    from app.lti.store import load_tool_key
    from app.lti.tool import LtiTool

    services = PlatformServices(load_tool_key(store))
    platform_keys = PlatformKeys()
    tool = LtiTool(store, Accounts(store), courses, services.key, platform_keys, services, dict)
    try:
        synced = tool.sync_roster(course_id)
    except LtiError as exc:
        raise CourseCommandError(f"could not read the roster from the LMS: {exc.message}") from None
    finally:
        services.close()
        platform_keys.close()
    return (
        f"the LMS lists {synced.total} active members: {synced.added} new to the course, "
        f"{synced.updated} with a new role"
    )


COMMAND = Command(
    name="course",
    help="create courses, assign exercises, export gradebooks",
    add_arguments=add_arguments,
    run=run,
)
