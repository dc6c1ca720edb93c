"""Reading the JSON a program printed, with an error that says what went wrong.

A test that parses another program's output (a probe in the sandbox, a script in a fresh
interpreter) fails with a message naming the program and, when the line was cut by an
output cap, saying so, instead of a bare ``JSONDecodeError`` at some column.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any


def json_line(line: str, what: str, cut: bool = False) -> Any:
    """``line`` as JSON; ``cut`` says the output it came from was truncated by a cap."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        if cut:
            reason = (
                f"{what} was cut by the output cap after {len(line)} characters: a report "
                "must be bounded by construction (tests/security/bounded_report.py)"
            )
        else:
            reason = f"{what} is not whole JSON ({error}; {len(line)} characters)"
        raise AssertionError(f"{reason}; it ends {line[-300:]!r}") from None


def last_json_line(completed: subprocess.CompletedProcess[str], what: str) -> Any:
    """The last line ``completed`` printed, as JSON."""
    lines = completed.stdout.splitlines()
    assert lines, (
        f"{what} printed nothing (exit {completed.returncode}); stderr: {completed.stderr[-3000:]}"
    )
    return json_line(lines[-1], what)
