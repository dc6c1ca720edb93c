"""``drill learner``: what Drill keeps of a learner, and deleting it (a privacy request)."""

from __future__ import annotations

import argparse

from drill.commands import Command
from graders.errors import DrillError
from graders.settings import get_settings


class LearnerCommandError(DrillError):
    pass


def add_arguments(learner: argparse.ArgumentParser) -> None:
    actions = learner.add_subparsers(
        dest="action", required=True, metavar="ACTION", help="what to do (drill learner ACTION -h)"
    )
    for name, text in (
        ("show", "what is stored of an account"),
        ("delete", "delete an account and everything it holds"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("username", help="the account's user name")
        if name == "delete":
            action.add_argument("--yes", action="store_true", help="do not ask to confirm")


def run(args: argparse.Namespace) -> int:
    from app.accounts import Accounts
    from app.privacy import delete_account, learner_data
    from app.store import Store

    store = Store(get_settings().database_url)
    try:
        account = Accounts(store).by_username(args.username)
        if account is None:
            raise LearnerCommandError(f"no account is named {args.username!r}")
        data = learner_data(store, account.learner)
        print(
            f"{account.username}: {account.display_name}, {data['submissions']} submissions, "
            f"{data['drafts']} drafts"
        )
        if args.action == "show":
            return 0
        if not args.yes and input("Delete all of it? Type DELETE: ").strip() != "DELETE":
            print("nothing deleted")
            return 1
        delete_account(store, account.id)
        print("deleted")
        return 0
    finally:
        store.close()


COMMAND = Command(
    name="learner",
    help="show or delete what Drill keeps of an account",
    add_arguments=add_arguments,
    run=run,
)
