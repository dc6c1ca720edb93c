"""``drill db``: manage the database of DRILL_DB (create or migrate its tables)."""

from __future__ import annotations

import argparse

from drill.commands import Command
from graders.settings import get_settings


def add_arguments(db: argparse.ArgumentParser) -> None:
    db_actions = db.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="what to do to the database"
    )
    db_actions.add_parser(
        "upgrade",
        help="create the tables or migrate them to the newest schema (drill serve does this "
        "too, at start-up); a database made before migrations is adopted",
    )


def run(args: argparse.Namespace) -> int:
    from app.store import Store

    store = Store(get_settings().database_url)  # opening it upgrades it
    store.close()
    if store.migration is not None:
        print(store.migration.describe())
    return 0


COMMAND = Command(
    name="db",
    help="manage the database (DRILL_DB)",
    add_arguments=add_arguments,
    run=run,
)
