"""``drill worker``: a grading machine taking jobs from the queue of DRILL_QUEUE."""

from __future__ import annotations

import argparse
import logging
import sys

from drill.commands import Command
from drill.malloc import pin_mmap_threshold
from graders.settings import get_settings


def add_arguments(worker: argparse.ArgumentParser) -> None:
    worker.add_argument(
        "--role",
        choices=("learner", "reference"),
        default="learner",
        help="learner: learners' submissions (the default); reference: reference "
        "solutions only. The two never share a worker.",
    )


def run(args: argparse.Namespace) -> int:
    from graders.queue.worker import serve_worker

    settings = get_settings()
    if not settings.queue:
        print("drill: drill worker needs DRILL_QUEUE=nats://HOST:PORT", file=sys.stderr)
        return 2
    pin_mmap_threshold()  # it reads every job's result, for hours
    logging.getLogger("drill").setLevel(logging.INFO)
    return serve_worker(settings, args.role)


COMMAND = Command(
    name="worker",
    help="grade jobs from the queue (DRILL_QUEUE) in this machine's sandbox",
    description="A grading machine for distributed mode: hosts DRILL_WORKERS warm "
    "sandbox workers and takes jobs from the NATS JetStream queue at DRILL_QUEUE. "
    "SIGTERM drains it: it finishes the jobs it holds and exits 0.",
    add_arguments=add_arguments,
    run=run,
)
