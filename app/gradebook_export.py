"""A course's gradebook as CSV (one row per student, formula-safe cells) and as JSON."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from app.courses import Assignment, Gradebook
from app.exports import spreadsheet_safe


def _name(assignment: Assignment) -> str:
    return f"{assignment.exercise} [{assignment.track}]"


def gradebook_dict(book: Gradebook) -> dict[str, Any]:
    return {
        "course": {"id": book.course.id, "title": book.course.title},
        "late_counts": book.course.late_counts,
        "assignments": [
            {
                "id": a.id,
                "exercise": a.exercise,
                "track": a.track,
                "deadline": a.deadline.isoformat() if a.deadline else None,
                "solved_by": book.solved_by(a),
                "students": len(book.students),
            }
            for a in book.assignments
        ],
        "students": [
            {
                "account": s.account_id,
                "name": s.display_name,
                "username": s.username,
                "email": s.email,
                "grade": round(book.grade(s), 4),
                "assignments": {
                    a.id: {
                        "status": (cell := book.cell(s.account_id, a.id)).label,
                        "solved": cell.solved,
                        "attempts": cell.attempts,
                        "first_solved": cell.first_solved.isoformat()
                        if cell.first_solved
                        else None,
                        "late": cell.late,
                        "counts": cell.counts,
                    }
                    for a in book.assignments
                },
            }
            for s in book.students
        ],
    }


def gradebook_json(book: Gradebook) -> str:
    return json.dumps(gradebook_dict(book), indent=2)


def gradebook_csv(book: Gradebook) -> str:
    """Name, user name, email, the grade, then per assignment: solved, attempts, first
    solved (UTC, ISO 8601) and late."""
    out = io.StringIO()
    writer = csv.writer(out)
    header = ["name", "username", "email", "grade"]
    for a in book.assignments:
        name = _name(a)
        header += [f"{name} solved", f"{name} attempts", f"{name} first solved", f"{name} late"]
    writer.writerow([spreadsheet_safe(h) for h in header])
    for s in book.students:
        row: list[Any] = [s.display_name, s.username or "", s.email or "", f"{book.grade(s):.4f}"]
        for a in book.assignments:
            cell = book.cell(s.account_id, a.id)
            first = cell.first_solved.isoformat() if cell.first_solved else ""
            row += [
                "yes" if cell.solved else "no",
                cell.attempts,
                first,
                "yes" if cell.late else "no",
            ]
        writer.writerow([spreadsheet_safe(v) for v in row])
    return out.getvalue()
