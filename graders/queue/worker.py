"""``drill worker``: a grading machine's warm sandbox pool, fed by the JetStream queue.

It pulls one job per free slot and no more (a busy worker hoards nothing another could
run), tells the API it started, keeps JetStream's ack timer from expiring while the job
runs (in-progress acks), publishes the outcome and only then acks: a worker that dies at
any point before the ack gets its job handed to another worker. A sandbox child that
crashes is an ordinary outcome, acked like any other.

It holds no database credentials and no reference solutions, and needs neither: a job
carries the code and the compiled tests module, the verdict is made by the API. A learner
worker pulls only learner jobs (its consumer's subject) and refuses anything else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import Error as NatsError
from nats.errors import TimeoutError as NatsTimeout

from graders.errors import SandboxError
from graders.grading import cgroups
from graders.grading.jobs import EnvelopeError, Job, JobOutcome
from graders.grading.local import SandboxStatus, start_checked_pool
from graders.grading.pool import WorkerPool
from graders.queue import stream as queue
from graders.settings import Settings

log = logging.getLogger("drill.worker")

FETCH_WAIT = 1.0  # seconds a pull waits for a job; a drain is noticed within it
PULL_INBOX = 256  # messages the pull subscription's inbox holds before it drops


class QueueWorker:
    def __init__(self, settings: Settings, role: queue.Role) -> None:
        if not settings.queue:
            raise SandboxError("drill worker needs DRILL_QUEUE (nats://host:port)")
        self.settings = settings
        self.role = role
        self.name = f"{socket.gethostname()}-{role}-{id(self):x}"[-60:]
        self.slots = settings.workers if role == "learner" else 1
        self.pool: WorkerPool | None = None
        self.sandbox: SandboxStatus | None = None
        self._draining = asyncio.Event()
        self._jobs: set[asyncio.Task[None]] = set()
        self._threads = ThreadPoolExecutor(self.slots, thread_name_prefix="job")
        self.graded = 0

    def stop(self) -> None:
        """Drain: pull nothing more, finish and ack the jobs held, then return."""
        if not self._draining.is_set():
            log.info("draining: finishing %d job(s), pulling no more", len(self._jobs))
        self._draining.set()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop)
        pool, sandbox = await loop.run_in_executor(None, self._start_pool)
        self.pool, self.sandbox = pool, sandbox
        try:
            nc = await queue.connect(self.settings.queue, f"drill-worker-{self.name}")
            try:
                js = nc.jetstream()
                await queue.ensure_stream(js, self.settings)
                # fetch(1) when a slot is free is what keeps a worker from hoarding jobs. The
                # inbox also gets the broker's status replies to earlier pulls (408s): with
                # room for one message only, a job arriving behind a stale status after a
                # reconnect was dropped ("slow consumer") and sat out its ack wait.
                sub = await js.pull_subscribe_bind(
                    queue.consumer(self.role), queue.STREAM, pending_msgs_limit=PULL_INBOX
                )
                log.warning(
                    "drill worker ready: role %s, %d slot(s), sandbox %s, %s, queue %s",
                    self.role,
                    self.slots,
                    sandbox.kind,
                    sandbox.cgroups.describe(),
                    self.settings.queue,
                )
                await self._pull(nc, sub)
                if self._jobs:
                    await asyncio.wait(self._jobs)
                await nc.flush(timeout=5)
            finally:
                with contextlib.suppress(NatsError, OSError, asyncio.TimeoutError):
                    await nc.close()
        finally:
            pool.close()
            cgroups.close_shared()
            self._threads.shutdown(wait=False)
        log.warning("drill worker stopped after %d job(s)", self.graded)

    def _start_pool(self) -> tuple[WorkerPool, SandboxStatus]:
        # The canary must not reach the broker either, when it listens on this machine.
        broker = urlsplit(self.settings.queue)
        local = broker.hostname in ("127.0.0.1", "localhost", "::1")
        probe = broker.port if local and broker.port else None
        return start_checked_pool(self.settings, self.role, self.slots, probe)

    async def _pull(self, nc: Client, sub: object) -> None:
        free = asyncio.Semaphore(self.slots)
        while not self._draining.is_set():
            await free.acquire()  # pull only when a slot is free: no prefetch hoarding
            if self._draining.is_set():
                break
            try:
                msgs = await sub.fetch(1, timeout=FETCH_WAIT)  # type: ignore[attr-defined]
            except NatsTimeout:
                free.release()
                continue
            except (NatsError, OSError) as exc:  # the broker is away: the client reconnects
                free.release()
                log.warning("pull failed (%s); retrying", exc)
                await asyncio.sleep(0.5)
                continue
            for msg in msgs:
                task = asyncio.create_task(self._handle(nc, msg))
                self._jobs.add(task)
                task.add_done_callback(self._jobs.discard)
                task.add_done_callback(lambda _t: free.release())

    async def _reply(self, nc: Client, reply: str, job_id: str, event: str, **extra: str) -> None:
        headers = {queue.H_JOB: job_id, queue.H_EVENT: event, queue.H_WORKER: self.name, **extra}
        await nc.publish(reply, b"", headers=headers)

    async def _handle(self, nc: Client, msg: Msg) -> None:
        try:
            headers = queue.JobHeaders.parse(queue.headers_of(msg))
        except queue.BadMessage as exc:
            log.error("refusing a message on %s: %s", msg.subject, exc)
            await msg.term()
            return
        if headers.role != self.role or msg.subject != queue.subject(self.role):
            # Roles never mix: a learner worker must not even hold a reference job.
            log.error(
                "refusing a %s job on %s: this is a %s worker",
                headers.role,
                msg.subject,
                self.role,
            )
            await msg.term()
            return
        delivery = str(msg.metadata.num_delivered or 1)
        # A first delivery that waited too long is dropped (the API has answered 503). A
        # redelivery had started in time on a machine since lost: the API still waits.
        if delivery == "1" and time.time() > headers.deadline:
            await self._reply(nc, headers.reply, headers.job_id, queue.EVENT_EXPIRED)
            await msg.ack()
            log.info("dropped job %s: past its queue deadline", headers.job_id)
            return
        log.info("job %s started (delivery %s)", headers.job_id, delivery)
        await self._reply(
            nc, headers.reply, headers.job_id, queue.EVENT_STARTED, **{queue.H_DELIVERY: delivery}
        )
        began = time.perf_counter()
        try:
            job = Job.from_bytes(msg.data)
        except EnvelopeError as exc:
            log.error("job %s is not a job: %s", headers.job_id, exc)
            outcome = JobOutcome(malformed=f"the job could not be read: {exc}"[:1000])
        else:
            ran = await self._run(msg, job, headers)
            if ran is None:
                return  # not run here (the pool is broken): another worker takes it
            outcome = ran
        elapsed = time.perf_counter() - began
        try:
            data = outcome.to_bytes()
        except EnvelopeError as exc:
            data = JobOutcome(malformed=f"the outcome could not be sent: {exc}"[:1000]).to_bytes()
        await nc.publish(
            headers.reply,
            data,
            headers={
                queue.H_JOB: headers.job_id,
                queue.H_EVENT: queue.EVENT_OUTCOME,
                queue.H_WORKER: self.name,
                queue.H_ELAPSED: f"{elapsed:.6f}",
            },
        )
        await nc.flush(timeout=5)  # the outcome is out before the job leaves the stream
        await msg.ack()
        self.graded += 1

    async def _run(self, msg: Msg, job: Job, headers: queue.JobHeaders) -> JobOutcome | None:
        assert self.pool is not None
        pool = self.pool
        loop = asyncio.get_running_loop()
        keepalive = asyncio.create_task(self._in_progress(msg))
        try:
            return await loop.run_in_executor(self._threads, pool.run, job, headers.limits)
        except SandboxError as exc:
            log.error("job %s could not run here (%s); handing it back", headers.job_id, exc)
            await msg.nak()
            return None
        finally:
            keepalive.cancel()

    async def _in_progress(self, msg: Msg) -> None:
        """Tell JetStream the job is alive, well within its ack wait."""
        every = self.settings.queue_ack_wait / 3
        while True:
            await asyncio.sleep(every)
            with contextlib.suppress(NatsError, OSError):
                await msg.in_progress()


def serve_worker(settings: Settings, role: queue.Role) -> int:
    """Run a worker until SIGTERM or SIGINT; 0 after a clean drain."""
    asyncio.run(QueueWorker(settings, role).run())
    return 0
