"""The grading queue's contract, shared by the API nodes and ``drill worker``.

One JetStream work-queue stream carries every job; learner and reference jobs travel on
subjects of their own, each read by its own durable pull consumer, so a learner worker is
never handed a reference job (and refuses one that reaches it anyway). A job message is
the job's envelope (``Job.to_bytes``) with these headers:

- ``Nats-Msg-Id``: the job id (a learner job's is its submission id): JetStream drops a
  second publish of the same id, so a retried publish never grades twice;
- ``Drill-Reply``: the subject of the API process that waits for it;
- ``Drill-Role``, ``Drill-Deadline`` (Unix time after which it is not started),
  ``Drill-Limits`` (the job's limits, as the API computed them for this exercise).

The worker answers on ``Drill-Reply`` with plain NATS messages: ``started`` (once per
delivery), then ``outcome`` (the ``JobOutcome`` envelope) or ``expired``. The API reads an
outcome strictly, under the budget of the job it sent (``JobOutcome.from_bytes``): nothing
a worker sends is trusted further than a local pool's result stream.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import nats
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DiscardPolicy,
    RetentionPolicy,
    StorageType,
    StreamConfig,
)
from nats.js.errors import BadRequestError, NotFoundError

from graders.errors import QueueUnavailable
from graders.grading.isolation import JobLimits
from graders.settings import Settings

log = logging.getLogger("drill.queue")

Role = Literal["learner", "reference"]
ROLES: tuple[Role, ...] = ("learner", "reference")
STREAM = "DRILL_JOBS"
MAX_DELIVERIES = 2  # a job survives one lost worker; a second loss is an error verdict
# Jobs older than this are removed by the broker whatever happens (a bound on what an
# unconsumed stream can hold; workers drop expired jobs long before).
MAX_AGE_SECONDS = 600.0
DUPLICATE_WINDOW_SECONDS = 120.0
# The broker's largest message must hold an outcome; an API node caps a job's result
# size below it (see result_limit).
ENVELOPE_ALLOWANCE = 64 * 1024

EVENT_STARTED = "started"
EVENT_OUTCOME = "outcome"
EVENT_EXPIRED = "expired"
EVENTS = (EVENT_STARTED, EVENT_OUTCOME, EVENT_EXPIRED)

H_MSG_ID = "Nats-Msg-Id"
H_REPLY = "Drill-Reply"
H_ROLE = "Drill-Role"
H_DEADLINE = "Drill-Deadline"
H_LIMITS = "Drill-Limits"
H_JOB = "Drill-Job"
H_EVENT = "Drill-Event"
H_DELIVERY = "Drill-Delivery"
H_WORKER = "Drill-Worker"
H_ELAPSED = "Drill-Elapsed"  # seconds the worker spent on the job (for the hop timings)


def subject(role: Role) -> str:
    return f"drill.jobs.{role}"


def consumer(role: Role) -> str:
    return f"drill-{role}"


CONSUMER_NAMES = tuple(consumer(r) for r in ROLES)


def reply_subject(node: str) -> str:
    return f"drill.outcomes.{node}"


def limits_header(limits: JobLimits) -> str:
    return json.dumps(
        {
            "cpu_seconds": limits.cpu_seconds,
            "wall_seconds": limits.wall_seconds,
            "memory_bytes": limits.memory_bytes,
            "output_bytes": limits.output_bytes,
            "result_bytes": limits.result_bytes,
            "processes": limits.processes,
        }
    )


class BadMessage(ValueError):
    """A queue message that does not follow the contract above."""


def parse_limits(text: str) -> JobLimits:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadMessage(f"limits are not JSON: {exc}") from None
    fields = ("cpu_seconds", "wall_seconds", "memory_bytes", "output_bytes", "result_bytes")
    if not isinstance(data, dict) or set(data) != {*fields, "processes"}:
        raise BadMessage("limits do not hold exactly the six limits")
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadMessage(f"limit {key} is not a number")
        if not (math.isfinite(value) and 0 < value < 2**63):
            raise BadMessage(f"limit {key} = {value} is out of range")
    return JobLimits(
        cpu_seconds=float(data["cpu_seconds"]),
        wall_seconds=float(data["wall_seconds"]),
        memory_bytes=int(data["memory_bytes"]),
        output_bytes=int(data["output_bytes"]),
        result_bytes=int(data["result_bytes"]),
        processes=int(data["processes"]),
    )


@dataclass(frozen=True)
class JobHeaders:
    """A job message's headers, checked."""

    job_id: str
    reply: str
    role: Role
    deadline: float
    limits: JobLimits

    @classmethod
    def parse(cls, headers: dict[str, str] | None) -> JobHeaders:
        h = headers or {}
        missing = [k for k in (H_MSG_ID, H_REPLY, H_ROLE, H_DEADLINE, H_LIMITS) if k not in h]
        if missing:
            raise BadMessage(f"missing header {missing[0]}")
        role: Role
        if h[H_ROLE] == "learner":
            role = "learner"
        elif h[H_ROLE] == "reference":
            role = "reference"
        else:
            raise BadMessage(f"unknown role {h[H_ROLE][:40]!r}")
        try:
            deadline = float(h[H_DEADLINE])
        except ValueError:
            raise BadMessage("the deadline is not a number") from None
        if not h[H_REPLY].startswith("drill.outcomes."):
            raise BadMessage("the reply subject is not an outcome subject")
        return cls(h[H_MSG_ID], h[H_REPLY], role, deadline, parse_limits(h[H_LIMITS]))

    def to_dict(self) -> dict[str, str]:
        return {
            H_MSG_ID: self.job_id,
            H_REPLY: self.reply,
            H_ROLE: self.role,
            H_DEADLINE: repr(self.deadline),
            H_LIMITS: limits_header(self.limits),
        }


def result_limit(limits: JobLimits, max_payload: int) -> JobLimits:
    """``limits`` with a result size that fits one broker message (an outcome must)."""
    cap = max(max_payload - ENVELOPE_ALLOWANCE, 64 * 1024)
    if limits.result_bytes <= cap:
        return limits
    return JobLimits(
        limits.cpu_seconds,
        limits.wall_seconds,
        limits.memory_bytes,
        limits.output_bytes,
        cap,
        limits.processes,
    )


# --- the broker ---------------------------------------------------------------------


async def connect(
    url: str,
    name: str,
    on_change: Callable[[], Awaitable[None]] | None = None,
) -> Client:
    """A connection that reconnects forever (a broker restart needs no restart of ours)."""

    async def changed() -> None:
        if on_change is not None:
            await on_change()

    async def error(exc: Exception) -> None:
        log.warning("queue connection: %s", exc)

    return await nats.connect(
        url,
        name=name,
        connect_timeout=2,
        reconnect_time_wait=0.5,
        max_reconnect_attempts=-1,
        ping_interval=5,  # a broker that vanished without closing is noticed in ~10 s
        max_outstanding_pings=2,
        error_cb=error,
        disconnected_cb=changed,
        reconnected_cb=changed,
    )


def stream_config(settings: Settings) -> StreamConfig:
    return StreamConfig(
        name=STREAM,
        subjects=[subject(r) for r in ROLES],
        retention=RetentionPolicy.WORK_QUEUE,
        storage=StorageType.FILE,  # a broker restart keeps the jobs waiting in it
        max_msgs=settings.queue_max_jobs,
        discard=DiscardPolicy.NEW,  # full: refuse the new job (the API answers 503)
        max_age=MAX_AGE_SECONDS,
        duplicate_window=DUPLICATE_WINDOW_SECONDS,
    )


def consumer_config(role: Role, settings: Settings) -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=consumer(role),
        filter_subject=subject(role),
        ack_policy=AckPolicy.EXPLICIT,
        ack_wait=settings.queue_ack_wait,
        max_deliver=MAX_DELIVERIES,
        max_ack_pending=-1,
        max_waiting=512,  # pull requests: one per free worker slot
    )


async def ensure_stream(js: JetStreamContext, settings: Settings) -> None:
    """Create (or bring to this configuration) the stream and both consumers."""
    config = stream_config(settings)
    try:
        await js.stream_info(STREAM)
    except NotFoundError:
        try:
            await js.add_stream(config)
        except BadRequestError:  # another node created it meanwhile
            await js.update_stream(config)
    else:
        await js.update_stream(config)
    for role in ROLES:
        try:
            await js.add_consumer(STREAM, consumer_config(role, settings))
        except BadRequestError as exc:  # it exists with another ack wait: keep it, say so
            log.warning("consumer %s kept as it is: %s", consumer(role), exc)


def unavailable(what: str, exc: BaseException | None = None) -> QueueUnavailable:
    detail = f" ({type(exc).__name__}: {exc})" if exc is not None and str(exc) else ""
    log.warning("%s%s", what, detail)
    return QueueUnavailable(
        f"{what}; nothing was graded or saved, please try again in a few seconds",
        retry_after=5,
    )


def headers_of(msg: Any) -> dict[str, str]:
    return dict(msg.headers or {})
