"""What one ``drill`` subcommand gives the registry in ``drill.cli``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """A subcommand: ``drill NAME``, its line in ``drill --help``, its own ``--help``
    (``description``; argparse's default when None), its options and what it does (the exit
    code). Errors it raises as DrillError reach ``drill.cli.main``, which prints them."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str | None = None
