"""``drill new``: scaffold a new exercise package and say what to fill in next."""

from __future__ import annotations

import argparse
import sys

from drill.commands import Command
from graders.settings import get_settings


def add_arguments(new: argparse.ArgumentParser) -> None:
    new.add_argument("slug", help="the folder name, like row-softmax")
    new.add_argument(
        "--tracks",
        default="numpy",
        help="comma-separated tracks: numpy, torch or numpy,torch (default: numpy)",
    )


def run(args: argparse.Namespace) -> int:
    from graders.authoring.scaffold import ScaffoldError, create

    exercises = get_settings().exercises_dir
    tracks = [t.strip() for t in args.tracks.split(",") if t.strip()]
    try:
        made = create(exercises, args.slug, tracks)
    except ScaffoldError as exc:
        print(f"drill new: {exc}", file=sys.stderr)
        return 2
    print(f"Created {made.folder} with tracks {', '.join(tracks)}:")
    for path in made.files:
        print(f"  {path.relative_to(made.folder)}")
    steps = [
        "statement.md: say what the learner writes; name every entry point "
        f"({made.entry_point}) and state each rule the hidden tests check.",
        "exercise.toml: the title, section, difficulty and one-line summary.",
        "hints/1.md, 2.md, ...: hints, from a nudge to nearly the answer.",
        "<track>/solution.py: the reference solution; <track>/starter.py: what learners "
        "start from.",
        "<track>/tests.py: one @test per rule (docs/authoring.md shows the helpers).",
        "<track>/wrong/*.py: mistakes learners make, each opening with a docstring naming "
        "its bug; validate proves your tests catch them.",
        f"drill validate {args.slug}: repeat until it says ok (no TODO(drill new) may remain).",
        f"drill preview {args.slug}: its learner's page on a throwaway server; edits show "
        "without a restart.",
    ]
    print("Next:")
    for number, step in enumerate(steps, start=1):
        print(f"  {number}. {step}")
    return 0


COMMAND = Command(
    name="new",
    help="scaffold a new exercise package",
    add_arguments=add_arguments,
    run=run,
)
