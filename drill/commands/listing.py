"""``drill list``: list the exercises folder's exercises with their versions and tracks."""

from __future__ import annotations

import argparse
import json
import sys

from drill.commands import Command
from drill.output import count
from graders.settings import get_settings


def add_arguments(listing: argparse.ArgumentParser) -> None:
    listing.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list (one object per exercise); the folder goes to stderr",
    )


def run(args: argparse.Namespace) -> int:
    from graders.grading.catalog import load_catalog

    folder = get_settings().exercises_dir
    catalog = load_catalog(folder)
    rows = [
        {
            "slug": e.slug,
            "title": e.meta.title,
            "section": e.meta.section,
            "difficulty": e.meta.difficulty,
            "tracks": list(e.tracks),
            "version": e.version,  # the content hash submissions and references record
            "folder": str(e.folder),
        }
        for e in catalog
    ]
    # Which folder: DRILL_EXERCISES_DIR makes it easy to read another one than meant. The
    # JSON stays a list (scripts index it), so there the folder line goes to stderr.
    heading = f"{count(len(rows), 'exercise')} in {folder}"
    if args.json:
        print(heading, file=sys.stderr)
        print(json.dumps(rows, indent=2))
    else:
        print(heading + ":")
        for row in rows:
            print(
                f"  {row['slug']:32} {row['difficulty']:7} {','.join(row['tracks']):12} "
                f"{row['version']}  {row['title']}"
            )
    return 0


COMMAND = Command(
    name="list",
    help="list the exercises of the exercises folder, with their versions and tracks",
    add_arguments=add_arguments,
    run=run,
)
