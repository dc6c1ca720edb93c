"""Drill in distributed mode, on one machine, with nothing mocked: a nats-server, a
PostgreSQL cluster, two API nodes, two learner workers of one slot each and one reference
worker, each its own process group. Each failure scenario of docs/deploy.md is played
against them and must end with the right verdict, one stored row, nothing left pending.
"""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import nats
import pytest
import sqlalchemy as sa

from graders.grading.catalog import Catalog, load_catalog
from graders.queue.stream import CONSUMER_NAMES, STREAM
from tests.catalog import shipped_exercises_dir
from tests.cluster import ROOT, Cluster, Node
from tests.services import NatsServer, postgres_server, run_async, running_nats

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]  # real processes and servers

ACK_WAIT = 5  # seconds: a lost worker's job moves on quickly, yet in-progress acks (every
# third of it) keep a job through a 3 s stall of its worker on a loaded machine
WALL = 6  # the API bounds a run by it (plus the ack wait and a grace)
QUEUE_WAIT = 8
BROKER_DOWN_SECONDS = 6
SETTINGS = {
    "DRILL_QUEUE_ACK_WAIT": str(ACK_WAIT),
    "DRILL_QUEUE_WAIT_SECONDS": str(QUEUE_WAIT),
    "DRILL_WALL_SECONDS": str(WALL),
    "DRILL_EXERCISES_DIR": str(shipped_exercises_dir()),
}
SLOW = "import time\ntime.sleep(3)  # a job a worker holds for three seconds\n"
STARTED = re.compile(r"job (\w+) started \(delivery (\d)\)")


def solution(slug: str, track: str) -> str:
    return catalog().get(slug).track(track).solution


@functools.cache
def catalog() -> Catalog:
    """The shipped catalog, loaded when a test needs it (a broken one fails that test)."""
    return load_catalog(shipped_exercises_dir())


def tracks() -> list[tuple[str, str]]:
    return [(e.slug, t) for e in catalog() for t in e.tracks]


class Scene:
    """The running cluster, and what the tests do to it."""

    def __init__(self, nats_server: NatsServer, db: str) -> None:
        self.nats = nats_server
        self.db = db
        self.cluster = Cluster(nats_server.url, db, dict(SETTINGS))
        self.workers: dict[str, Node] = {}
        self.apis: dict[str, Node] = {}
        self.engine = sa.create_engine(db)

    def start(self) -> None:
        threads = [
            threading.Thread(target=self.worker, args=(name,)) for name in ("w1", "w2", "ref")
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Both nodes at once: they warm the same references at the same moment.
        self.apis.update(self.cluster.start_apis(["api1", "api2"]))

    def worker(self, name: str) -> Node:
        """The worker ``name``, started again if it is not running."""
        node = self.workers.get(name)
        if node is None or not node.alive():
            role = "reference" if name == "ref" else "learner"
            node = self.cluster.start_worker(f"{name}-{len(self.cluster.nodes)}", role)
            self.workers[name] = node
        return node

    def submit(
        self, api: str, slug: str, track: str, code: str, mode: str = "submit"
    ) -> httpx.Response:
        return httpx.post(
            f"{self.apis[api].base}/api/exercises/{slug}/submissions",
            json={"track": track, "code": code, "mode": mode},
            timeout=120,
        )

    def started_jobs(self) -> list[tuple[str, str, int]]:
        """(worker, job id, delivery) of every job start the learner workers logged."""
        found = []
        for name in ("w1", "w2"):
            node = self.workers[name]
            found += [(name, j, int(d)) for j, d in STARTED.findall(node.text())]
        return found

    def wait_for_start(
        self, seen: set[tuple[str, str, int]], deliveries: int = 1
    ) -> tuple[str, str, int]:
        """The first job start logged that is not in ``seen``, of that delivery or later."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            new = [j for j in self.started_jobs() if j not in seen and j[2] >= deliveries]
            if new:
                return new[0]
            time.sleep(0.05)
        raise AssertionError(f"no worker started the job:\n{self.cluster.logs()}")

    def rows(self, sub_id: str) -> int:
        with self.engine.connect() as c:
            query = sa.text("select count(*) from submissions where id = :id")
            return int(c.execute(query, {"id": sub_id}).scalar_one())

    def row_count(self) -> int:
        with self.engine.connect() as c:
            return int(c.execute(sa.text("select count(*) from submissions")).scalar_one())

    def queue_state(self) -> dict[str, Any]:
        async def read() -> dict[str, Any]:
            nc = await nats.connect(self.nats.url)
            js = nc.jetstream()
            stream = await js.stream_info(STREAM)
            state: dict[str, Any] = {"messages": stream.state.messages}
            for name in CONSUMER_NAMES:
                info = await js.consumer_info(STREAM, name)
                state[name] = (info.num_pending, info.num_ack_pending, info.num_redelivered)
            await nc.close()
            return state

        return run_async(read())

    def wait_idle(self) -> dict[str, Any]:
        """The queue once nothing waits and nothing is held (or what it is after 30 s)."""
        deadline = time.monotonic() + 30
        while True:
            state = self.queue_state()
            held = [v for k, v in state.items() if k != "messages" and (v[0] or v[1])]
            if (state["messages"] == 0 and not held) or time.monotonic() > deadline:
                return state
            time.sleep(0.2)


@pytest.fixture(scope="module")
def scene() -> Iterator[Scene]:
    with running_nats() as nats_server, postgres_server() as db:
        scene = Scene(nats_server, db)
        try:
            scene.start()
            yield scene
        finally:
            scene.cluster.close()
            scene.engine.dispose()


@pytest.fixture
def healthy(scene: Scene) -> Scene:
    """Every worker running again before the test (an earlier one may have killed some),
    and every API node connected to the broker again (an earlier one may have stopped it)."""
    for name in ("w1", "w2", "ref"):
        scene.worker(name)
    deadline = time.monotonic() + 60
    for name, api in scene.apis.items():
        while (health := httpx.get(f"{api.base}/healthz", timeout=5).json())["status"] != "ok":
            assert time.monotonic() < deadline, f"{name}: {health}\n{scene.cluster.logs()}"
            time.sleep(0.1)
    return scene


def _cases() -> list[tuple[str, str, Path | None]]:
    """40 submissions: references, alternatives and known-wrong solutions of each track."""
    cases: list[tuple[str, str, Path | None]] = []
    for slug, track in tracks():
        folder = shipped_exercises_dir() / slug / track
        cases.append((slug, track, None))
        cases += [(slug, track, p) for p in sorted((folder / "alternatives").glob("*.py"))[:4]]
        cases += [(slug, track, p) for p in sorted((folder / "wrong").glob("*.py"))[:9]]
    return cases[:40]


def test_forty_submissions_over_two_api_nodes_each_get_the_right_verdict(healthy: Scene) -> None:
    cases = _cases()
    assert len(cases) == 40
    answers: dict[int, httpx.Response] = {}

    def send(i: int) -> None:
        slug, track, path = cases[i]
        code = solution(slug, track) if path is None else path.read_text()
        answers[i] = healthy.submit("api1" if i % 2 else "api2", slug, track, code)

    def client(first: int) -> None:
        for i in range(first, 40, 4):
            send(i)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wrongly = []
    for i, (slug, track, path) in enumerate(cases):
        body = answers[i].json()
        right = path is None or path.parent.name == "alternatives"
        ok = answers[i].status_code == 200 and (body["status"] == "pass") == right
        if not ok or (right and body["passed"] != body["total"]):
            wrongly.append((slug, track, path and path.name, answers[i].status_code, body))
        else:
            assert healthy.rows(body["id"]) == 1
    assert not wrongly, f"{wrongly}\n{healthy.cluster.logs()}"
    # A result stored by one node is served by the other (one shared store).
    first = answers[0].json()["id"]
    other = httpx.get(f"{healthy.apis['api1'].base}/api/submissions/{first}", timeout=10)
    assert other.status_code == 200 and other.json()["id"] == first


def test_a_worker_killed_mid_job_has_its_job_redelivered_and_graded_once(healthy: Scene) -> None:
    seen = set(healthy.started_jobs())
    answer: list[httpx.Response] = []
    code = SLOW + solution("gradient-checkpointing", "numpy")
    sender = threading.Thread(
        target=lambda: answer.append(
            healthy.submit("api1", "gradient-checkpointing", "numpy", code)
        )
    )
    sender.start()
    holder, job, _ = healthy.wait_for_start(seen)
    healthy.workers[holder].kill_group(signal.SIGKILL)  # the machine, sandbox and all
    sender.join(60)
    (response,) = answer
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "pass" and body["passed"] == body["total"], body
    assert body["id"] == job
    redelivered = [j for j in healthy.started_jobs() if j[1] == job]
    assert sorted(d for _, _, d in redelivered) == [1, 2], redelivered
    assert healthy.rows(job) == 1
    assert healthy.wait_idle()["messages"] == 0


def test_a_job_whose_two_deliveries_are_both_lost_ends_in_an_error_verdict(
    healthy: Scene,
) -> None:
    seen = set(healthy.started_jobs())
    answer: list[httpx.Response] = []
    code = SLOW + solution("gradient-checkpointing", "torch")
    began = time.monotonic()
    sender = threading.Thread(
        target=lambda: answer.append(
            healthy.submit("api2", "gradient-checkpointing", "torch", code)
        )
    )
    sender.start()
    first, job, _ = healthy.wait_for_start(seen)
    healthy.workers[first].kill_group(signal.SIGKILL)
    second, again, delivery = healthy.wait_for_start(seen, deliveries=2)
    assert (again, delivery) == (job, 2) and second != first
    healthy.workers[second].kill_group(signal.SIGKILL)
    sender.join(90)
    took = time.monotonic() - began
    (response,) = answer
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "error"
    assert "grading machine was lost" in body["message"]
    assert "not a verdict on your code" in body["message"]
    assert body["id"] == job and healthy.rows(job) == 1
    # The bound docs/deploy.md states: queue wait + 2 x (wall + ack wait) + grace.
    assert took < QUEUE_WAIT + 2 * (WALL + ACK_WAIT) + 15, took
    # The job that ran out of deliveries is not left in the stream, counted against its size.
    assert healthy.wait_idle()["messages"] == 0


def test_the_broker_down_answers_503_at_once_and_back_up_needs_no_restart(
    healthy: Scene,
) -> None:
    healthy.nats.stop()
    stopped = time.monotonic()
    try:
        deadline = time.monotonic() + 30
        while True:  # the client notices the closed connection
            health = httpx.get(f"{healthy.apis['api1'].base}/healthz", timeout=5).json()
            if health["status"] == "degraded" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert health["status"] == "degraded" and health["queue"] == "nats", health
        took = []
        for _ in range(3):  # the fastest of three: one sample may meet a loaded machine
            began = time.monotonic()
            response = healthy.submit("api1", "gradient-checkpointing", "numpy", "x = 1\n")
            took.append(time.monotonic() - began)
            assert response.status_code == 503, response.text
            assert response.headers["Retry-After"]
            assert "grading queue is unreachable" in response.json()["message"]
        assert min(took) < 1.5, took  # answered from what the node knows, not after a timeout
        # Down for a while, as an outage is: a client that gives up reconnecting after a
        # few tries (0.5 s apart) would stay away once the broker is back.
        time.sleep(max(0.0, BROKER_DOWN_SECONDS - (time.monotonic() - stopped)))
    finally:
        healthy.nats.start()
    deadline = time.monotonic() + 30
    while httpx.get(f"{healthy.apis['api1'].base}/healthz", timeout=5).json()["status"] != "ok":
        assert time.monotonic() < deadline, healthy.cluster.logs()
        time.sleep(0.1)
    code = solution("gradient-checkpointing", "numpy")
    response = healthy.submit("api1", "gradient-checkpointing", "numpy", code)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "pass", response.json()
    # Every process reconnected by itself: none was restarted.
    assert all(node.alive() for node in healthy.workers.values())
    assert all(node.alive() for node in healthy.apis.values())


def test_an_api_node_killed_while_it_waits_leaves_nothing_pending(healthy: Scene) -> None:
    seen, rows = set(healthy.started_jobs()), healthy.row_count()
    code = SLOW + solution("gradient-checkpointing", "numpy")
    failures: list[BaseException] = []

    def send() -> None:
        try:
            healthy.submit("api2", "gradient-checkpointing", "numpy", code)
        except httpx.HTTPError as exc:  # the node died under the request
            failures.append(exc)

    sender = threading.Thread(target=send)
    sender.start()
    _, job, _ = healthy.wait_for_start(seen)
    healthy.apis["api2"].kill_group(signal.SIGKILL)
    sender.join(60)
    assert len(failures) == 1
    # The other node keeps serving.
    response = healthy.submit(
        "api1", "gradient-checkpointing", "numpy", solution("gradient-checkpointing", "numpy")
    )
    assert response.status_code == 200 and response.json()["status"] == "pass", response.text
    # The orphaned job was graded and acked: nothing waits or is held in the queue.
    state = healthy.wait_idle()
    assert state["messages"] == 0, state
    assert all(v[:2] == (0, 0) for k, v in state.items() if k != "messages"), state
    # Only the other node's submission was stored; no half-written row exists.
    assert healthy.row_count() == rows + 1 and healthy.rows(job) == 0
    healthy.apis["api2"] = healthy.cluster.start_api("api2-again")


def test_the_rate_limit_holds_across_api_nodes_for_a_client_behind_the_proxy(
    healthy: Scene,
) -> None:
    """Two nodes behind a load balancer (trusted, on loopback) with a burst of 3: one
    client alternating between them gets 3 Submits in all, not 3 on each; another client
    behind the same proxy has a budget of its own."""
    strict = {
        "DRILL_RATE_PER_MINUTE": "1",
        "DRILL_RATE_BURST": "3",
        "DRILL_TRUSTED_PROXIES": "127.0.0.1",
    }
    nodes = healthy.cluster.start_apis(["strict-1", "strict-2"], **strict)
    try:
        code = solution("gradient-checkpointing", "numpy")

        def send(node: Node, client: str) -> httpx.Response:
            return httpx.post(
                f"{node.base}/api/exercises/gradient-checkpointing/submissions",
                json={"track": "numpy", "code": code, "mode": "run"},
                headers={"X-Forwarded-For": client},
                timeout=60,
            )

        first, second = nodes.values()
        one = [send(node, "203.0.113.41").status_code for node in [first, second] * 4]
        assert one.count(200) == 3 and one.count(429) == 5, one
        other = send(second, "203.0.113.42")
        assert other.status_code == 200, other.text
        refused = send(first, "203.0.113.41")
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    finally:
        for node in nodes.values():
            node.stop()


def test_a_full_stream_answers_503_with_retry_after(scene: Scene) -> None:
    # A broker of its own with room for two jobs and no learner worker: the third waits
    # for nothing and is refused at once. References come from the shared database.
    with running_nats() as small:
        cluster = Cluster(small.url, scene.db, {**SETTINGS, "DRILL_QUEUE_MAX_JOBS": "2"})
        try:
            # Three clients behind the test as their proxy, and a slot for each: one
            # client's second job, or a job beyond the node's slots, would wait in the API
            # node (app/admission.py), never reaching the stream.
            api = cluster.start_api(
                "api-small", DRILL_TRUSTED_PROXIES="127.0.0.1", DRILL_GRADING_SLOTS="3"
            )
            code = solution("gradient-checkpointing", "numpy")
            url = f"{api.base}/api/exercises/gradient-checkpointing/submissions"
            held: list[httpx.Response] = []

            def send(client: str) -> httpx.Response:
                return httpx.post(
                    url,
                    json={"track": "numpy", "code": code, "mode": "submit"},
                    headers={"X-Forwarded-For": client},
                    timeout=60,
                )

            waiting = [
                threading.Thread(target=lambda c=client: held.append(send(c)))
                for client in ("203.0.113.71", "203.0.113.72")
            ]
            for t in waiting:
                t.start()
            deadline = time.monotonic() + 10
            while run_async(_messages(small.url)) < 2:
                assert time.monotonic() < deadline, cluster.logs()
                time.sleep(0.05)
            refused = send("203.0.113.73")
            for t in waiting:
                t.join()
        finally:
            cluster.close()
    assert refused.status_code == 503, refused.text
    assert int(refused.headers["Retry-After"]) > 0
    assert "grading queue is full" in refused.json()["message"]
    # The two that waited found no worker: 503 too, after the queue wait, nothing saved.
    assert [r.status_code for r in held] == [503, 503]
    assert all("no grading worker" in r.json()["message"] for r in held)


async def _messages(url: str) -> int:
    nc = await nats.connect(url)
    try:
        return int((await nc.jetstream().stream_info(STREAM)).state.messages)
    finally:
        await nc.close()


def test_a_worker_refuses_a_job_of_the_other_role(healthy: Scene) -> None:
    """A reference job put on the learner subject (by a bug or an intruder) is refused:
    terminated unrun, never started, never answered."""

    async def publish() -> list[Any]:
        nc = await nats.connect(healthy.nats.url)
        replies: list[Any] = []

        async def received(msg: Any) -> None:
            replies.append(msg)

        sub = await nc.subscribe("drill.outcomes.intruder", cb=received)
        headers = {
            "Nats-Msg-Id": "role-mixup",
            "Drill-Reply": "drill.outcomes.intruder",
            "Drill-Role": "reference",
            "Drill-Deadline": repr(time.time() + 30),
            "Drill-Limits": json.dumps(
                {
                    "cpu_seconds": 5,
                    "wall_seconds": 5,
                    "memory_bytes": 2**30,
                    "output_bytes": 65536,
                    "result_bytes": 2**20,
                    "processes": 64,
                }
            ),
        }
        await nc.jetstream().publish("drill.jobs.learner", b"DRJB", headers=headers)
        await _sleep(2)
        await sub.unsubscribe()
        await nc.close()
        return replies

    replies = run_async(publish())
    assert replies == []
    deadline = time.monotonic() + 30  # the refusal is logged when a worker pulls the job
    while True:
        logs = healthy.workers["w1"].text() + healthy.workers["w2"].text()
        if "refusing a reference job on drill.jobs.learner" in logs:
            break
        assert time.monotonic() < deadline, logs[-3000:]
        time.sleep(0.1)
    assert "role-mixup" not in "".join(j for _, j, _ in healthy.started_jobs())
    assert healthy.wait_idle()["messages"] == 0


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


def test_a_learner_job_cannot_reach_the_broker(healthy: Scene) -> None:
    port = healthy.nats.port
    probe = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=1).close()\n"
        "    raise SystemExit('reached the broker')\n"
        "except OSError:\n"
        "    pass\n"
    )
    code = probe + solution("gradient-checkpointing", "numpy")
    body = healthy.submit("api1", "gradient-checkpointing", "numpy", code).json()
    assert body["status"] == "pass", body


def test_sigterm_drains_a_worker_it_finishes_its_job_and_exits_0(healthy: Scene) -> None:
    seen = set(healthy.started_jobs())
    answer: list[httpx.Response] = []
    code = SLOW + solution("gradient-checkpointing", "numpy")
    sender = threading.Thread(
        target=lambda: answer.append(
            healthy.submit("api1", "gradient-checkpointing", "numpy", code)
        )
    )
    sender.start()
    holder, job, _ = healthy.wait_for_start(seen)
    node = healthy.workers[holder]
    node.proc.send_signal(signal.SIGTERM)
    assert node.proc.wait(60) == 0, node.text()
    sender.join(60)
    body = answer[0].json()
    assert body["status"] == "pass" and body["id"] == job, body
    # Graded where it started: no redelivery.
    assert [d for _, j, d in healthy.started_jobs() if j == job] == [1]
    assert "draining" in node.text()


def test_two_api_nodes_compute_each_reference_once(healthy: Scene) -> None:
    """Both nodes warm every reference at start; the shared database (and its lock per
    reference) lets one compute it, on the reference worker, and the other read it."""
    for api in ("api1", "api2"):  # both nodes have every reference by now
        for slug, track in tracks():
            code = solution(slug, track)
            assert healthy.submit(api, slug, track, code, "run").json()["status"] == "pass"
    runs = STARTED.findall(healthy.workers["ref"].text())
    assert len(runs) == 2 * len(tracks()), runs  # two runs each (the determinism check)
    with healthy.engine.connect() as c:
        stored = c.execute(sa.text("select count(*) from reference_cache")).scalar_one()
    assert stored == len(tracks())


def test_drill_regrade_grades_through_the_queue(healthy: Scene) -> None:
    """``drill regrade`` in distributed mode: no sandbox of its own, the jobs go to the
    workers through the queue, the new results go to the shared database."""
    slug, track = "gradient-checkpointing", "numpy"
    wrong = sorted((shipped_exercises_dir() / slug / track / "wrong").glob("*.py"))[0]
    right = healthy.submit("api1", slug, track, solution(slug, track)).json()
    failing = healthy.submit("api2", slug, track, wrong.read_text()).json()
    assert (right["status"], failing["status"]) == ("pass", "fail")
    ids = (right["id"], failing["id"])
    # As if both were graded against an earlier version of the exercise.
    with healthy.engine.begin() as c:
        c.execute(
            sa.text("update submissions set exercise_version = 'earlier' where id in (:a, :b)"),
            {"a": ids[0], "b": ids[1]},
        )
    seen = set(healthy.started_jobs())
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRILL_")}
    env.update(healthy.cluster.api_env("regrade"), DRILL_SANDBOX="bwrap", DRILL_BWRAP="/nowhere")
    done = subprocess.run(
        [sys.executable, "-m", "drill", "regrade", slug, "--track", track, "--json"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr + healthy.cluster.logs()
    summary = json.loads(done.stdout)
    assert (summary["regraded"], summary["changed"]) == (2, 0), summary
    assert len(set(healthy.started_jobs()) - seen) >= 2  # graded by the workers
    with healthy.engine.connect() as c:
        query = sa.text("select regrade_of, status from submissions where regrade_of in (:a, :b)")
        found = dict(c.execute(query, {"a": ids[0], "b": ids[1]}).all())
    assert found == {ids[0]: "pass", ids[1]: "fail"}


def test_a_client_holding_its_allowance_leaves_a_learner_worker_free(healthy: Scene) -> None:
    """Fair share in distributed mode: a client holds at most its share of the workers
    (here one of two) over all API nodes, each node's queue and a lease in PostgreSQL
    counting it, so one client's slow Submits, queued up to its allowance and spread over
    two nodes, leave a learner worker for everyone else. Judged by order: the others are
    graded while the hog's first job still runs to its wall limit; without the share both
    workers hold the hog's jobs and the others wait for one to end (the hog's answer
    comes first)."""
    allowance = 3
    nodes = healthy.cluster.start_apis(
        ["fair-1", "fair-2"],
        DRILL_TRUSTED_PROXIES="127.0.0.1",
        DRILL_GRADING_SLOTS="2",
        DRILL_MAX_PENDING_PER_CLIENT=str(allowance),
    )
    hog_code = "import time\ntime.sleep(60)  # held until the wall limit\n"
    slug, track = "gradient-checkpointing", "numpy"
    finished: list[tuple[str, int]] = []
    lock = threading.Lock()

    def send(node: Node, client: str, code: str) -> httpx.Response:
        return httpx.post(
            f"{node.base}/api/exercises/{slug}/submissions",
            json={"track": track, "code": code, "mode": "submit"},
            headers={"X-Forwarded-For": client},
            timeout=120,
        )

    def hog(node: str) -> None:
        answer = send(nodes[node], "203.0.113.61", hog_code)
        with lock:
            finished.append(("hog", answer.status_code))

    try:
        seen = set(healthy.started_jobs())
        # Over both nodes, as a load balancer may spread them: one through fair-2, and
        # through fair-1 one more than its allowance (counted per node), so that a 429
        # says the allowance is all admitted.
        spread = ["fair-2"] + ["fair-1"] * (allowance + 1)
        hogs = [threading.Thread(target=hog, args=(name,)) for name in spread]
        for thread in hogs:
            thread.start()
        healthy.wait_for_start(seen)
        deadline = time.monotonic() + 30
        while ("hog", 429) not in list(finished):  # the allowance is all admitted
            assert time.monotonic() < deadline, finished
            time.sleep(0.05)
        for name in ("fair-1", "fair-2"):
            answer = send(nodes[name], "203.0.113.62", solution(slug, track))
            assert answer.status_code == 200 and answer.json()["status"] == "pass", answer.text
            with lock:
                ahead = [status for _, status in finished if status == 200]
            assert not ahead, f"graded through {name} after {len(ahead)} of the hog's jobs"
        for thread in hogs:
            thread.join(timeout=120)
        # Each hog job is graded (a time-out) or, queued longer than the queue wait
        # (8 s here) behind the hog's own, refused with 503.
        statuses = sorted(status for _, status in finished)
        assert statuses[0] == 200 and set(statuses) <= {200, 429, 503}, statuses
    finally:
        for node in nodes.values():
            node.stop()
