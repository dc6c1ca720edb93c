"""What only PostgreSQL can show: nodes that share one database (the reference cache's
claim, the rate limiter's buckets) and the whole service storing in it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.errors import RateLimited
from app.limits import DatabaseRateLimiter
from app.store import Store
from tests.app.conftest import client_for
from tests.catalog import shipped_exercises_dir

pytestmark = pytest.mark.sandbox

GC = "gradient-checkpointing"
NUMPY = shipped_exercises_dir() / GC / "numpy"
TOKEN = "s3cret"


@pytest.fixture(scope="module")
def nodes(pg_url: str) -> Iterator[tuple[Store, Store]]:
    """Two stores on one database: two web nodes."""
    first, second = Store(pg_url), Store(pg_url)
    yield first, second
    first.close()
    second.close()


def test_a_second_node_waits_for_the_reference_the_first_computes(
    nodes: tuple[Store, Store],
) -> None:
    computed: list[str] = []
    spans: dict[str, tuple[float, float]] = {}
    ready = threading.Barrier(2)

    def node(name: str, store: Store) -> None:
        cache = store.reference_cache
        ready.wait()
        with cache.claim("ref-1"):
            entered = time.monotonic()
            if cache.load("ref-1") is None:
                time.sleep(0.3)  # computing
                computed.append(name)
                cache.save("ref-1", {"key": "ref-1", "by": name})
            spans[name] = (entered, time.monotonic())

    threads = [threading.Thread(target=node, args=(n, s)) for n, s in zip("ab", nodes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(computed) == 1  # the other found it stored
    (a_in, a_out), (b_in, b_out) = spans["a"], spans["b"]
    assert a_out <= b_in or b_out <= a_in  # one after the other
    assert nodes[1].reference_cache.load("ref-1") == {"key": "ref-1", "by": computed[0]}
    # Released: a later claim does not wait.
    with nodes[0].reference_cache.claim("ref-1"):
        pass


def test_two_nodes_admit_one_burst_between_them(nodes: tuple[Store, Store]) -> None:
    burst = 5
    limiters = [DatabaseRateLimiter(store, per_minute=0.01, burst=burst) for store in nodes]
    admitted, refused = [], []
    ready = threading.Barrier(8)

    def client(limiter: DatabaseRateLimiter) -> None:
        ready.wait()
        for _ in range(5):
            try:
                limiter.check("203.0.113.7")
                admitted.append(1)
            except RateLimited:
                refused.append(1)

    threads = [threading.Thread(target=client, args=(limiters[i % 2],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert (len(admitted), len(refused)) == (burst, 40 - burst)


# --- the whole service on PostgreSQL ---


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, pg_url: str) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("api-postgres")
    with client_for(tmp, db=pg_url, instructor_token=TOKEN) as test_client:
        yield test_client


def submit(client: TestClient, code: str, mode: str = "submit") -> dict:
    response = client.post(
        f"/api/exercises/{GC}/submissions", json={"track": "numpy", "code": code, "mode": mode}
    )
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.catalog
def test_the_service_stores_in_postgresql(client: TestClient, pg_url: str) -> None:
    store = client.app.state.service.store  # type: ignore[attr-defined]
    assert store.dialect == "postgresql"
    solution = submit(client, (NUMPY / "solution.py").read_text())
    wrong = submit(client, (NUMPY / "wrong" / "saves_references.py").read_text())
    broken = submit(client, "def checkpoint_forward(:\n")
    # Output with a NUL character: text and jsonb refuse it, so it is stored replaced.
    noisy = (NUMPY / "solution.py").read_text() + "\nprint('a\\x00b')\n"
    run = submit(client, noisy, mode="run")
    assert (solution["status"], wrong["status"], broken["status"]) == ("pass", "fail", "error")
    assert run["load_output"] == "a\ufffdb\n"  # printed while the module loaded
    for shown in (solution, wrong, broken, run):
        stored = client.get(f"/api/submissions/{shown['id']}")
        assert stored.status_code == 200 and stored.json() == shown

    stats = client.get(
        f"/api/instructor/exercises/{GC}/stats", headers={"Authorization": f"Bearer {TOKEN}"}
    ).json()
    numpy = stats["tracks"]["numpy"]
    assert (numpy["submissions"], numpy["passed"]) == (3, 1)
    failed = {t["name"] for t in wrong["tests"] if t["status"] != "pass"}
    assert {t["name"] for t in numpy["tests"] if t["failures"]} == failed
    assert all(t["runs"] == 2 for t in numpy["tests"])  # the syntax error ran no test

    put = client.put(f"/api/drafts/{GC}/numpy", json={"code": "x = 1"})
    assert put.status_code == 200
    assert client.get(f"/api/drafts/{GC}/numpy").json() == put.json()
    with store.engine.connect() as connection:
        kind = connection.execute(text("SELECT pg_typeof(result)::text FROM submissions LIMIT 1"))
        assert kind.scalar_one() == "jsonb"


COURSE_TESTS = [
    "test_an_anonymous_learners_work_comes_into_the_account_signed_up",
    "test_a_course_with_a_deadline_marks_a_late_solve_and_the_gradebook_says_so",
    "test_rate_limits_count_each_signed_in_account_apart",
    "test_deleting_an_account_deletes_what_it_holds",
]


@pytest.mark.parametrize("name", COURSE_TESTS)
def test_accounts_and_courses_on_postgresql(
    name: str, pg_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The accounts and courses tests of SQLite, run again on a PostgreSQL database."""
    from tests.app import test_courses
    from tests.fakes import ReferenceOnlyBackend

    tmp = tmp_path_factory.mktemp("pg-courses")
    test = getattr(test_courses, name)
    if name == "test_rate_limits_count_each_signed_in_account_apart":
        real = client_for

        def on_postgres(*args: object, **kwargs: object) -> TestClient:
            return real(*args, **{**kwargs, "db": pg_url})  # type: ignore[arg-type]

        original, test_courses.client_for = test_courses.client_for, on_postgres
        try:
            test(tmp)  # its client_for is this one: the database buckets count per account
        finally:
            test_courses.client_for = original
        return
    with client_for(tmp, backend=ReferenceOnlyBackend(), db=pg_url) as client:
        test(client)
