"""The ``drill`` command line: the registry of its commands, their parser and the dispatch."""

from __future__ import annotations

import argparse
import logging
import sys

from drill.commands import (
    Command,
    course,
    db,
    grade,
    learner,
    listing,
    lti,
    new,
    preview,
    regrade,
    serve,
    validate,
    worker,
)
from drill.commands.grade import format_result, format_size
from drill.commands.preview import _free_port, open_in_browser
from drill.commands.serve import serve_settings
from drill.commands.validate import format_mutants
from graders.errors import DrillError, UnknownExercise

# Tests import the helpers from here, where they lived before each command had a module.
__all__ = [
    "COMMANDS",
    "_free_port",
    "_parser",
    "format_mutants",
    "format_result",
    "format_size",
    "main",
    "open_in_browser",
    "serve_settings",
]

# In the order ``drill --help`` lists them.
COMMANDS: tuple[Command, ...] = (
    grade.COMMAND,
    validate.COMMAND,
    new.COMMAND,
    regrade.COMMAND,
    listing.COMMAND,
    preview.COMMAND,
    worker.COMMAND,
    serve.COMMAND,
    db.COMMAND,
    course.COMMAND,
    learner.COMMAND,
    lti.COMMAND,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drill", description="Drill: graded NumPy and PyTorch exercises"
    )
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="what to do (drill COMMAND -h)"
    )
    for command in COMMANDS:
        command.add_arguments(
            sub.add_parser(command.name, help=command.help, description=command.description)
        )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    run = {command.name: command.run for command in COMMANDS}[args.command]
    try:
        return run(args)
    except UnknownExercise as exc:
        print(f"drill: {exc}", file=sys.stderr)
        return 2
    except DrillError as exc:
        print(f"drill: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
