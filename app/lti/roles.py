"""LIS roles (the launch's roles claim, an NRPS member's roles) mapped to Drill's three
course roles. Only context (membership) roles count: an institution role says nothing about
this course. A teaching assistant is an assistant even when also called an instructor."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

CourseRole = Literal["instructor", "assistant", "learner"]

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
TEACHING_ASSISTANT = (
    "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
)
_INSTRUCTING = {"Instructor", "Administrator", "ContentDeveloper"}


def course_role(roles: Iterable[str]) -> CourseRole:
    """instructor, assistant or learner (the default: the least a launch can give)."""
    names = set()
    for role in roles:
        if role == TEACHING_ASSISTANT:
            return "assistant"
        # LTI 1.3 also allows the short names of context roles ("Instructor").
        names.add(role.removeprefix(MEMBERSHIP) if role.startswith(MEMBERSHIP) else role)
    if "TeachingAssistant" in names:
        return "assistant"
    return "instructor" if names & _INSTRUCTING else "learner"
