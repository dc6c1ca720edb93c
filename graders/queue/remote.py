"""Grading on other machines: jobs go to ``drill worker``s through NATS JetStream.

An API node publishes each job (its id as ``Nats-Msg-Id``) and waits for the outcome on
one subscription of its own; it builds the verdict itself, from the reference it holds,
exactly as the local backend does. Workers hold no database credentials and no
references: a learner worker gets the learner's code and the tests module, a reference
worker the reference solution, and nothing else crosses.

What each failure does (docs/deploy.md has the whole table):

- broker unreachable, stream full: ``QueueUnavailable`` at once (503, Retry-After);
- no worker starts the job within ``queue_wait_seconds``: ``QueueUnavailable`` (and a
  worker that finds it later drops it unstarted);
- the worker grading it is lost: JetStream delivers it again after ``queue_ack_wait``; a
  second loss ends in ``MachineLost``, an error verdict that says so, within
  ``queue_wait + 2 * (wall limit + ack wait)`` and a few seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import Error as NatsError
from nats.js import JetStreamContext
from nats.js.errors import APIError

from graders.errors import MachineLost, QueueUnavailable
from graders.grading.backend import BackendStatus, grade_with
from graders.grading.catalog import Exercise
from graders.grading.isolation import JobLimits, job_limits, reference_limits
from graders.grading.jobs import EnvelopeError, Job, JobOutcome
from graders.grading.references import Reference, ReferenceCache, ReferenceStore
from graders.grading.results import GradeResult, Mode
from graders.queue import stream as queue
from graders.settings import Settings

log = logging.getLogger("drill.remote")

STREAM_FULL = 10077  # JetStream's error code for "maximum messages exceeded"
CONNECT_WAIT = 5.0  # seconds start() waits for the broker before serving degraded
PREPARE_RETRY_SECONDS = 1.0
GRACE = 5.0  # seconds beyond a phase's own bound before the API gives up on it
PUBLISH_TIMEOUT = 2.0
HOPS_KEPT = 1000


@dataclass
class Hops:
    """Where one job's time went, in milliseconds (bench/service.py reads these)."""

    publish: float = 0.0  # publish until the broker's ack
    to_start: float = 0.0  # broker ack until the worker said it started
    worker: float = 0.0  # the worker's own time with the job (sandbox run included)
    back: float = 0.0  # the rest: outcome publish and the trip back


@dataclass
class _Waiter:
    """One job this node waits for; fed by the reply subscription, on the loop."""

    job: Job
    limits: JobLimits
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    delivery: int = 0  # the delivery the latest "started" named (0: not started yet)
    started_at: float = 0.0
    outcome: bytes | None = None
    worker_seconds: float = 0.0
    expired: bool = False


class RemoteBackend:
    """Grades through the queue; thread-safe ``grade()`` (it waits on its own loop)."""

    def __init__(self, settings: Settings, reference_cache: ReferenceCache) -> None:
        if not settings.queue:
            raise ValueError("RemoteBackend needs DRILL_QUEUE (nats://host:port)")
        self.settings = settings
        self.node = secrets.token_hex(8)
        self.reply = queue.reply_subject(self.node)
        self.references = ReferenceStore(
            reference_cache, _QueueRunner(self), reference_limits(settings)
        )
        self.hops: deque[Hops] = deque(maxlen=HOPS_KEPT)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="drill-queue")
        self._nc: Client | None = None
        self._js: JetStreamContext | None = None
        self._stream_ready = False
        self._problem: str | None = "not connected yet"
        self._waiting: dict[str, _Waiter] = {}
        self._closed = False
        self._connector: Future[None] | None = None
        self._preparing: asyncio.Future[None] | None = None

    # --- life cycle ---

    def start(self) -> None:
        self._thread.start()
        self._connector = asyncio.run_coroutine_threadsafe(self._connect(), self._loop)
        deadline = time.monotonic() + CONNECT_WAIT
        while self._problem is not None and time.monotonic() < deadline:
            time.sleep(0.02)
        if self._problem is not None:  # keep trying in the background; Submit says 503
            log.error("grading queue %s: %s", self.settings.queue, self._problem)

    def close(self) -> None:
        if self._closed or not self._thread.is_alive():
            self._closed = True
            return
        self._closed = True

        async def stop() -> None:
            for waiter in self._waiting.values():
                waiter.changed.set()  # each ends with "shut down" rather than hang
            if self._preparing is not None:
                self._preparing.cancel()
            if self._nc is not None and not self._nc.is_closed:
                await self._nc.close()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        if self._connector is not None:
            self._connector.cancel()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    @property
    def status(self) -> BackendStatus:
        return BackendStatus(
            sandbox=None,
            workers=None,
            warning=None if self._problem is None else f"grading queue: {self._problem}",
            queue="nats",
            healthy=self._problem is None,
        )

    async def _connect(self) -> None:
        """Connect (retrying until it works), then set up the stream and the reply
        subscription; after a broker restart, the client reconnects by itself and the
        stream is set up again (a broker with a fresh store would not have it)."""
        while not self._closed:
            try:
                self._nc = await queue.connect(
                    self.settings.queue, f"drill-api-{self.node}", self._connection_changed
                )
                break
            except (NatsError, OSError) as exc:
                self._problem = f"the broker at {self.settings.queue} is unreachable ({exc})"
                await asyncio.sleep(1.0)
        else:
            return
        self._js = self._nc.jetstream()
        await self._nc.subscribe(self.reply, cb=self._on_reply)
        await self._prepare()

    async def _prepare(self) -> None:
        """Set up the stream, trying again each second while connected: a broker that
        has just started listening may not answer for JetStream yet (under load, for
        seconds), and no later connection change would come to try again."""
        assert self._js is not None
        while not self._closed:
            try:
                await queue.ensure_stream(self._js, self.settings)
                break
            except (TimeoutError, NatsError, OSError) as exc:
                self._stream_ready = False
                self._problem = f"the job stream could not be set up ({exc})"
            nc = self._nc
            if nc is None or not nc.is_connected:
                return  # the reconnection calls this again
            await asyncio.sleep(PREPARE_RETRY_SECONDS)
        else:
            return
        self._stream_ready = True
        self._problem = None
        log.info("grading queue ready at %s (node %s)", self.settings.queue, self.node)

    async def _connection_changed(self) -> None:
        nc = self._nc
        if nc is None or self._closed:
            return
        if nc.is_connected:
            # In a task of its own: the client waits for this callback, and _prepare may
            # keep trying for a while.
            if self._preparing is None or self._preparing.done():
                self._preparing = asyncio.ensure_future(self._prepare())
        else:
            self._stream_ready = False
            self._problem = f"the broker at {self.settings.queue} is unreachable"

    # --- replies ---

    async def _on_reply(self, msg: Msg) -> None:
        headers = queue.headers_of(msg)
        waiter = self._waiting.get(headers.get(queue.H_JOB, ""))
        if waiter is None:
            return  # a late duplicate, or a job this node gave up on: the first one won
        event = headers.get(queue.H_EVENT)
        if event == queue.EVENT_STARTED:
            try:
                delivery = int(headers.get(queue.H_DELIVERY, "1"))
            except ValueError:
                delivery = 1
            waiter.delivery = max(waiter.delivery, delivery)
            waiter.started_at = time.perf_counter()
        elif event == queue.EVENT_OUTCOME and waiter.outcome is None:
            waiter.outcome = msg.data
            with contextlib.suppress(ValueError):
                waiter.worker_seconds = float(headers.get(queue.H_ELAPSED, "0"))
        elif event == queue.EVENT_EXPIRED:
            waiter.expired = True
        waiter.changed.set()

    # --- running a job ---

    def run(
        self, job: Job, limits: JobLimits, role: queue.Role, job_id: str | None = None
    ) -> JobOutcome:
        """Run ``job`` on a worker of ``role``; blocks the calling thread (not the loop)."""
        if self._closed:
            raise QueueUnavailable("the grading service is shutting down", retry_after=5)
        future = asyncio.run_coroutine_threadsafe(
            self._run(job, limits, role, job_id or secrets.token_hex(12)), self._loop
        )
        return future.result()

    def _connection(self) -> tuple[Client, JetStreamContext]:
        """The broker connection, if it is up and the stream set up; else 503 at once."""
        nc, js = self._nc, self._js
        if nc is None or js is None or not nc.is_connected or not self._stream_ready:
            raise queue.unavailable("the grading queue is unreachable")
        return nc, js

    async def _run(self, job: Job, limits: JobLimits, role: queue.Role, job_id: str) -> JobOutcome:
        nc, js = self._connection()
        limits = queue.result_limit(limits, nc.max_payload)
        headers = queue.JobHeaders(
            job_id, self.reply, role, time.time() + self.settings.queue_wait_seconds, limits
        )
        waiter = _Waiter(job, limits)
        self._waiting[job_id] = waiter
        try:
            began = time.perf_counter()
            seq = await self._publish(js, queue.subject(role), job.to_bytes(), headers)
            published = time.perf_counter()
            try:
                outcome = await self._wait(waiter, job_id)
            except (MachineLost, QueueUnavailable):
                # Given up on: take it out of the stream, so that no worker starts it later
                # and a job that ran out of deliveries does not stay there, counted as full.
                with contextlib.suppress(NatsError, OSError, asyncio.TimeoutError):
                    await js.delete_msg(queue.STREAM, seq)
                raise
            done = time.perf_counter()
            worker_ms = waiter.worker_seconds * 1000
            self.hops.append(
                Hops(
                    publish=(published - began) * 1000,
                    to_start=max(0.0, (waiter.started_at - published) * 1000),
                    worker=worker_ms,
                    back=max(0.0, (done - waiter.started_at) * 1000 - worker_ms),
                )
            )
            return outcome
        finally:
            del self._waiting[job_id]

    async def _publish(
        self, js: JetStreamContext, subject: str, data: bytes, headers: queue.JobHeaders
    ) -> int:
        """Publish the job; its sequence number in the stream."""
        try:
            ack = await js.publish(
                subject,
                data,
                timeout=PUBLISH_TIMEOUT,
                stream=queue.STREAM,
                headers=headers.to_dict(),
            )
        except APIError as exc:
            if exc.err_code == STREAM_FULL:
                raise QueueUnavailable(
                    f"the grading queue is full ({self.settings.queue_max_jobs} jobs waiting); "
                    "nothing was graded or saved, please try again in a little while",
                    retry_after=15,
                ) from None
            raise queue.unavailable("the grading queue refused the job", exc) from None
        except (TimeoutError, NatsError, OSError) as exc:
            raise queue.unavailable("the grading queue is unreachable", exc) from None
        if ack.duplicate:  # published before (a retry): wait for that job's outcome
            log.info("job %s was already queued; waiting for its outcome", headers.job_id)
        return int(ack.seq)

    async def _wait(self, waiter: _Waiter, job_id: str) -> JobOutcome:
        """The job's outcome; each phase is bounded: waiting for a worker to start it
        (queue_wait), a run (wall limit + ack wait, after which JetStream has handed it
        to another worker if the first was lost), and waiting for that redelivery."""
        s = self.settings
        deadline = time.monotonic() + s.queue_wait_seconds + GRACE
        bound_for = 0  # the delivery whose run the deadline bounds (0: none started)
        awaiting_redelivery = False
        while True:
            if self._closed:
                raise QueueUnavailable("the grading service is shutting down", retry_after=5)
            if waiter.outcome is not None:
                try:
                    return JobOutcome.from_bytes(waiter.outcome, waiter.job, waiter.limits)
                except EnvelopeError as exc:
                    log.error("job %s: unreadable outcome from a worker: %s", job_id, exc)
                    return JobOutcome(malformed=f"the grading machine's answer: {exc}"[:1000])
            if waiter.expired:
                raise QueueUnavailable(
                    f"no grading worker was free for {s.queue_wait_seconds:g} s, so your "
                    "code was not graded (nothing was saved); please try again shortly",
                    retry_after=10,
                )
            if waiter.delivery != bound_for:  # a worker started it (again): bound the run
                bound_for, awaiting_redelivery = waiter.delivery, False
                deadline = time.monotonic() + waiter.limits.wall_seconds + s.queue_ack_wait + GRACE
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if bound_for == 0:
                    raise QueueUnavailable(
                        f"no grading worker took your code within {s.queue_wait_seconds:g} s; "
                        "nothing was saved, please try again shortly",
                        retry_after=10,
                    )
                if bound_for >= queue.MAX_DELIVERIES or awaiting_redelivery:
                    raise MachineLost(
                        "the grading machine was lost while running your code "
                        f"({bound_for} of {queue.MAX_DELIVERIES} tries); this is not a "
                        "verdict on your code: please submit again"
                    )
                # The worker is presumed lost: JetStream hands the job to another one.
                awaiting_redelivery = True
                deadline = time.monotonic() + s.queue_wait_seconds + GRACE
                continue
            waiter.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter.changed.wait(), remaining)

    # --- the backend ---

    def reference(self, exercise: Exercise, track: str, variant: int | None = None) -> Reference:
        return self.references.get(exercise, track, variant)

    def grade(
        self,
        exercise: Exercise,
        track: str,
        code: str,
        mode: Mode,
        job_id: str | None = None,
        variant: int | None = None,
    ) -> GradeResult:
        # Before the reference: one being computed when the broker went away holds its
        # lock until its own run's bound (minutes for a reference job).
        self._connection()
        reference = self.reference(exercise, track, variant)
        limits = job_limits(self.settings, exercise)

        def run(job: Job, job_limits: JobLimits) -> JobOutcome:
            return self.run(job, job_limits, "learner", job_id)

        return grade_with(run, reference, exercise, track, code, mode, limits, variant)


class _QueueRunner:
    """Runs reference jobs on reference workers (for ReferenceStore)."""

    def __init__(self, backend: RemoteBackend) -> None:
        self.backend = backend

    def run(self, job: Job, limits: JobLimits) -> JobOutcome:
        return self.backend.run(job, limits, "reference")
