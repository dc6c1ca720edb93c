"""A learner's own history, progress and reference solutions, the data the exercise page
needs, and tests that never ran: the web layer over the fake grading backend (no sandbox;
tests/fakes.py says what it fakes). Each ``TestClient`` keeps its own cookie: a learner.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from app import stats
from app.middleware import LEARNER_COOKIE
from app.service import Service
from app.tables import SubmissionRow
from tests.app.conftest import assert_error, client_for
from tests.catalog import shipped_catalog, shipped_exercises_dir
from tests.conftest import TEST_EXERCISES
from tests.fakes import TIME_OUT, ReferenceOnlyBackend
from tests.shapes import plain

pytestmark = pytest.mark.catalog  # the shipped exercises, served over a fake backend

GC = "gradient-checkpointing"
SOLUTION = {
    t: (shipped_exercises_dir() / GC / t / "solution.py").read_text() for t in ("numpy", "torch")
}
WRONG = "def checkpoint_forward(layers, x, checkpoint_indices):\n    return None\n"
SUMMARY_KEYS = {
    "id",
    "track",
    "mode",
    "status",
    "passed",
    "total",
    "duration_ms",
    "created_at",
    "regrade_of",
}
NOT_SOLVED = "Solve this track first: pass its Submit to see the reference solution"


@pytest.fixture(scope="module")
def backend() -> ReferenceOnlyBackend:
    return ReferenceOnlyBackend()


@pytest.fixture(scope="module")
def client(
    tmp_path_factory: pytest.TempPathFactory, backend: ReferenceOnlyBackend
) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("learner")
    with client_for(tmp, backend=backend, rate_burst=1000) as web:
        yield web


def learner(client: TestClient) -> TestClient:
    """A new learner of the same app (a client with an empty cookie jar)."""
    return TestClient(client.app)


def service(client: TestClient) -> Service:
    found: Service = client.app.state.service  # type: ignore[attr-defined]
    return found


def submit(
    who: TestClient, code: str, track: str = "numpy", mode: str = "submit", slug: str = GC
) -> dict[str, Any]:
    body = {"track": track, "code": code, "mode": mode}
    response = who.post(f"/api/exercises/{slug}/submissions", json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def page_data(who: TestClient, slug: str) -> dict[str, Any]:
    html = who.get(f"/exercises/{slug}").text
    found = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html)
    assert found, html[:500]
    data: dict[str, Any] = json.loads(found.group(1))
    return data


# --- GET /api/exercises/{slug}/submissions ---


def test_history_lists_only_the_callers_submissions_newest_first(client: TestClient) -> None:
    alice, bob = learner(client), learner(client)
    first = submit(alice, WRONG)
    run = submit(alice, WRONG, mode="run")
    torch = submit(alice, SOLUTION["torch"], track="torch")
    theirs = submit(bob, WRONG)
    url = f"/api/exercises/{GC}/submissions"
    rows = alice.get(url).json()
    assert [r["id"] for r in rows] == [torch["id"], run["id"], first["id"]]
    assert all(set(r) == SUMMARY_KEYS for r in rows)
    assert rows[0] == {**{k: torch[k] for k in SUMMARY_KEYS - {"regrade_of"}}, "regrade_of": None}
    assert rows[0]["status"] == "pass" and rows[1]["mode"] == "run"
    assert [r["id"] for r in alice.get(url, params={"track": "numpy"}).json()] == [
        run["id"],
        first["id"],
    ]
    assert [r["id"] for r in alice.get(url, params={"limit": 2}).json()] == [
        torch["id"],
        run["id"],
    ]
    # Bob sees his own only, and a learner of another exercise's page sees none of them.
    assert [r["id"] for r in bob.get(url).json()] == [theirs["id"]]
    assert alice.get("/api/exercises/checkpointing-layer-stack/submissions").json() == []


def test_history_of_a_learner_without_a_cookie_is_empty(client: TestClient) -> None:
    submit(learner(client), WRONG)
    fresh = learner(client)
    response = fresh.get(f"/api/exercises/{GC}/submissions")
    assert response.status_code == 200 and response.json() == []
    assert LEARNER_COOKIE in response.cookies  # and it now has one, as on any first visit


@pytest.mark.parametrize(
    ("query", "status", "error", "words"),
    [
        ("track=jax", 422, "invalid_request", ["no track 'jax'", "numpy, torch"]),
        ("track=", 422, "invalid_request", ["track"]),
        ("limit=0", 422, "invalid_request", ["limit"]),
        ("limit=101", 422, "invalid_request", ["limit"]),
        ("limit=ten", 422, "invalid_request", ["limit"]),
    ],
    ids=["unknown-track", "empty-track", "limit-0", "limit-101", "limit-not-a-number"],
)
def test_history_refuses_bad_queries(
    client: TestClient, query: str, status: int, error: str, words: list[str]
) -> None:
    response = client.get(f"/api/exercises/{GC}/submissions?{query}")
    assert_error(response, status, error, *words)


def test_history_limits_are_inclusive_and_unknown_exercises_404(client: TestClient) -> None:
    who = learner(client)
    ids = [submit(who, WRONG, mode="run")["id"] for _ in range(3)]
    url = f"/api/exercises/{GC}/submissions"
    assert [r["id"] for r in who.get(url, params={"limit": 1}).json()] == ids[-1:]
    assert [r["id"] for r in who.get(url, params={"limit": 100}).json()] == ids[::-1]
    assert [r["id"] for r in who.get(url).json()] == ids[::-1]  # the default is 20
    assert_error(client.get("/api/exercises/nope/submissions"), 404, "not_found", "nope")


# --- GET /api/progress ---


def test_progress_lists_every_track_of_the_catalog(client: TestClient) -> None:
    catalog = client.get("/api/exercises").json()
    body = learner(client).get("/api/progress").json()
    assert list(body) == ["exercises"]
    assert list(body["exercises"]) == [e["slug"] for e in catalog]  # in catalog order
    for exercise in catalog:
        tracks = body["exercises"][exercise["slug"]]["tracks"]
        assert list(tracks) == exercise["tracks"]
        for standing in tracks.values():
            assert standing == {"solved": False, "attempts": 0, "last_submission": None}


def test_progress_counts_submits_and_a_passing_submit_solves(client: TestClient) -> None:
    who = learner(client)
    submit(who, WRONG)
    submit(who, SOLUTION["numpy"], mode="run")  # a passing Run: no attempt, not solved
    after_run = who.get("/api/progress").json()["exercises"][GC]["tracks"]
    assert after_run["numpy"]["solved"] is False and after_run["numpy"]["attempts"] == 1
    passed = submit(who, SOLUTION["numpy"])
    last = submit(who, WRONG, mode="run")
    submit(learner(client), SOLUTION["torch"], track="torch")  # someone else's
    tracks = who.get("/api/progress").json()["exercises"][GC]["tracks"]
    assert tracks == {
        "numpy": {"solved": True, "attempts": 2, "last_submission": last["id"]},
        "torch": {"solved": False, "attempts": 0, "last_submission": None},
    }
    assert passed["status"] == "pass"


# --- GET /api/exercises/{slug}/solution ---


def test_the_solution_is_shown_only_after_that_tracks_submit_passes(
    client: TestClient, backend: ReferenceOnlyBackend
) -> None:
    who = learner(client)
    url = f"/api/exercises/{GC}/solution"
    assert_error(who.get(url, params={"track": "numpy"}), 403, "forbidden", NOT_SOLVED)
    submit(who, SOLUTION["numpy"], mode="run")  # passing the examples is not solving
    assert_error(who.get(url, params={"track": "numpy"}), 403, "forbidden", NOT_SOLVED)
    submit(who, SOLUTION["numpy"])
    graded = len(backend.graded)
    response = who.get(url, params={"track": "numpy"})
    assert response.status_code == 200
    assert response.json() == {"track": "numpy", "code": SOLUTION["numpy"]}
    assert len(backend.graded) == graded  # read from the catalog: no job was sent
    # Not the other track, and not another learner.
    assert_error(who.get(url, params={"track": "torch"}), 403, "forbidden", NOT_SOLVED)
    assert_error(learner(client).get(url, params={"track": "numpy"}), 403, "forbidden")


@pytest.mark.parametrize(
    ("path", "status", "error", "words"),
    [
        (f"/api/exercises/{GC}/solution?track=jax", 422, "invalid_request", ["no track 'jax'"]),
        (f"/api/exercises/{GC}/solution", 422, "invalid_request", ["track"]),
        ("/api/exercises/nope/solution?track=numpy", 404, "not_found", ["nope"]),
    ],
    ids=["unknown-track", "no-track", "unknown-exercise"],
)
def test_solution_errors(
    client: TestClient, path: str, status: int, error: str, words: list[str]
) -> None:
    assert_error(client.get(path), status, error, *words)


@pytest.fixture(scope="module")
def hidden(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The test exercise ``double``, whose author turned reveal off."""
    tmp = tmp_path_factory.mktemp("hidden")
    exercises = tmp / "exercises"
    shutil.copytree(TEST_EXERCISES / "double", exercises / "double")
    toml = exercises / "double" / "exercise.toml"
    toml.write_text("reveal_solution = false\n" + toml.read_text())
    with client_for(tmp, exercises, backend=ReferenceOnlyBackend()) as web:
        yield web


def test_an_author_can_keep_the_solution_hidden(hidden: TestClient) -> None:
    solution = (TEST_EXERCISES / "double" / "numpy" / "solution.py").read_text()
    assert submit(hidden, solution, slug="double")["status"] == "pass"
    response = hidden.get("/api/exercises/double/solution", params={"track": "numpy"})
    assert_error(response, 404, "not_found", "keeps its reference solutions hidden")
    assert hidden.get("/api/exercises/double").json()["reveal_solution"] is False
    assert page_data(hidden, "double")["reveal_solution"] is False


# --- what the exercise page needs ---


def test_exercise_detail_has_limits_next_exercise_and_the_callers_standing(
    client: TestClient,
) -> None:
    catalog = [e["slug"] for e in client.get("/api/exercises").json()]
    reveal = {e.slug: e.meta.reveal_solution for e in shipped_catalog()}
    who = learner(client)
    for slug, following in zip(catalog, [*catalog[1:], None], strict=True):
        body = who.get(f"/api/exercises/{slug}").json()
        assert body["reveal_solution"] is reveal[slug]
        if following is None:
            assert body["next_exercise"] is None
        else:
            shown = who.get(f"/api/exercises/{following}").json()
            assert body["next_exercise"] == {
                "slug": following,
                "title": shown["title"],
                "section": shown["section"],
            }
    wall = client.app.state.settings.wall_seconds  # type: ignore[attr-defined]
    tracks = who.get(f"/api/exercises/{GC}").json()["tracks"]
    for info in tracks.values():  # GC sets no limits of its own: the service's
        assert info["wall_seconds"] == wall
        assert (info["solved"], info["last_submission"]) == (False, None)
    passed = submit(who, SOLUTION["torch"], track="torch")
    failed = submit(who, WRONG)
    tracks = who.get(f"/api/exercises/{GC}").json()["tracks"]
    assert (tracks["torch"]["solved"], tracks["torch"]["last_submission"]) == (True, passed["id"])
    assert (tracks["numpy"]["solved"], tracks["numpy"]["last_submission"]) == (False, failed["id"])
    # Another learner's standing is their own.
    other = learner(client).get(f"/api/exercises/{GC}").json()["tracks"]["torch"]
    assert (other["solved"], other["last_submission"]) == (False, None)


def test_an_exercises_own_time_limit_is_shown(hidden: TestClient) -> None:
    (info,) = hidden.get("/api/exercises/double").json()["tracks"].values()
    assert info["wall_seconds"] == 6  # double's [limits]
    assert page_data(hidden, "double")["tracks"]["numpy"]["wall_seconds"] == 6
    assert hidden.get("/api/exercises/double").json()["next_exercise"] is None  # the only one


def test_page_data_carries_the_same_fields(client: TestClient) -> None:
    who = learner(client)
    passed = submit(who, SOLUTION["numpy"])
    data = page_data(who, GC)
    detail = who.get(f"/api/exercises/{GC}").json()
    assert data["reveal_solution"] is True
    assert data["next_exercise"] == detail["next_exercise"] is not None
    for name, track in data["tracks"].items():
        shown = detail["tracks"][name]
        for key in ("wall_seconds", "solved", "last_submission"):
            assert track[key] == shown[key], key
    assert data["tracks"]["numpy"]["solved"] is True
    assert data["tracks"]["numpy"]["last_submission"] == passed["id"]
    assert data["tracks"]["torch"]["solved"] is False


def test_the_going_further_heading_has_an_id(client: TestClient) -> None:
    html = client.get(f"/api/exercises/{GC}").json()["statement_html"]
    assert html.count('id="going-further"') == 1
    assert '<h2 id="going-further">Going further</h2>' in html
    assert '<h2 id="going-further">Going further</h2>' in client.get(f"/exercises/{GC}").text


# --- tests that never ran ---


def test_tests_after_a_timeout_are_not_run_and_not_failures(client: TestClient) -> None:
    who = learner(client)
    result = submit(who, f"{WRONG}{TIME_OUT}\n")
    first, *rest = result["tests"]
    assert (first["status"], first["message"]) == (
        "error",
        f"wall-clock time limit of 10 s exceeded in test {first['name']!r}",
    )
    assert rest and {t["status"] for t in rest} == {"not_run"}
    assert rest[0]["message"] == (
        f"the run ended during test {first['name']!r}, before this test started"
    )
    assert (result["status"], result["passed"]) == ("fail", 0)
    assert who.get(f"/api/submissions/{result['id']}").json() == result
    store = service(client).store
    names = [(t["id"], t["name"]) for t in result["tests"]]
    numbers = plain(stats.exercise_stats(store, GC, {"numpy": names}))["tracks"]["numpy"]["tests"]
    counted = {t["name"]: t for t in numbers}
    assert counted[first["name"]]["not_run"] == 0 and counted[first["name"]]["failures"] >= 1
    for test in rest:
        assert counted[test["name"]]["not_run"] >= 1
    failures = plain(stats.common_failures(store, GC, {"numpy": names}))["numpy"]
    assert all("the run ended" not in f["message"] for f in failures)


def test_a_result_stored_before_not_run_reads_as_not_run(client: TestClient) -> None:
    who = learner(client)
    result = submit(who, f"{WRONG}{TIME_OUT}\n")
    legacy = json.loads(json.dumps(result))
    for test in legacy["tests"][1:]:
        test.update(status="error", message="not run: an earlier test stopped the run")
        del test["output_truncated"], test["output_bytes"], test["output_bytes_at_least"]
    store = service(client).store
    change = update(SubmissionRow).where(SubmissionRow.id == result["id"]).values(result=legacy)
    with store.engine.begin() as connection:
        connection.execute(change)
    shown = who.get(f"/api/submissions/{result['id']}").json()
    assert [t["status"] for t in shown["tests"][1:]] == ["not_run"] * (len(shown["tests"]) - 1)
    assert shown["tests"][1]["message"] == "an earlier test ended the run before this test started"
    assert shown["tests"][1]["output_truncated"] is False


def test_exercise_detail_openapi_describes_the_new_endpoints(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    history = paths["/api/exercises/{slug}/submissions"]["get"]
    assert {p["name"] for p in history["parameters"]} == {"slug", "track", "limit"}
    progress = paths["/api/progress"]["get"]
    assert "a Run is not an attempt" in progress["description"]
    assert "403" in paths["/api/exercises/{slug}/solution"]["get"]["responses"]


def test_the_results_contract_fields(client: TestClient) -> None:
    result = submit(learner(client), WRONG)
    for test in result["tests"]:
        assert {"output_truncated", "output_bytes", "output_bytes_at_least"} <= set(test)
