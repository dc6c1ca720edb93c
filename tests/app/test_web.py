"""The web layer over a fake grading backend: the catalog, hints, drafts, headers, every
error answer and the rate limit, with no sandbox (``make test-fast`` runs these).

Grading itself is faked (tests/fakes.py says how); tests/app/test_api.py covers the
submission endpoints with the real sandbox.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.app.conftest import assert_error, client_for
from tests.catalog import SEED_CONTRACT, declared_counts
from tests.conftest import TEST_EXERCISES
from tests.fakes import NOT_RUN, ReferenceOnlyBackend

GC = "gradient-checkpointing"
# The tests on ``client`` (the shipped exercises over a fake backend) are marked catalog.


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client_for(tmp_path_factory.mktemp("web"), backend=ReferenceOnlyBackend()) as web:
        yield web


@pytest.mark.catalog
def test_healthz_omits_the_sandbox_of_a_backend_without_one(client: TestClient) -> None:
    # No sandbox and no workers of its own: the fields are absent, as for a remote backend.
    assert client.get("/healthz").json() == {"status": "ok"}


@pytest.mark.catalog
def test_a_submission_goes_through_the_backend_and_is_stored(client: TestClient) -> None:
    body = {"track": "numpy", "code": "def checkpoint_forward(): pass\n", "mode": "submit"}
    result = client.post(f"/api/exercises/{GC}/submissions", json=body).json()
    assert result["passed"] == 0 and result["total"] == declared_counts(GC, "numpy")[1]
    assert {t["message"] for t in result["tests"]} == {NOT_RUN}
    assert client.get(f"/api/submissions/{result['id']}").json() == result


@pytest.mark.catalog
def test_list_exercises(client: TestClient) -> None:
    rows = client.get("/api/exercises").json()
    assert set(SEED_CONTRACT) <= {r["slug"] for r in rows}
    for row in rows:
        assert set(row) == {"slug", "title", "section", "difficulty", "summary", "tracks"}
    gc = next(r for r in rows if r["slug"] == GC)
    assert gc["tracks"] == ["numpy", "torch"] and gc["difficulty"] == "hard"


@pytest.mark.catalog
def test_get_exercise(client: TestClient) -> None:
    body = client.get(f"/api/exercises/{GC}").json()
    assert set(body) == {
        "slug",
        "title",
        "section",
        "difficulty",
        "summary",
        "statement_html",
        "hint_count",
        "tracks",
        "reveal_solution",
        "next_exercise",
    }
    assert body["hint_count"] >= 3
    assert "<h1>" in body["statement_html"] and 'class="highlight"' in body["statement_html"]
    assert set(body["tracks"]) == {"numpy", "torch"}
    for track, info in body["tracks"].items():
        assert set(info) == {
            "starter_code",
            "entry_points",
            "example_count",
            "test_count",
            "wall_seconds",
            "solved",
            "last_submission",
            "statement_html",
        }
        assert info["entry_points"] == list(SEED_CONTRACT[GC][track])
        assert (info["example_count"], info["test_count"]) == declared_counts(GC, track)


@pytest.mark.catalog
def test_hints(client: TestClient) -> None:
    total = client.get(f"/api/exercises/{GC}").json()["hint_count"]
    for n in range(1, total + 1):
        hint = client.get(f"/api/exercises/{GC}/hints/{n}").json()
        assert set(hint) == {"n", "total", "markdown", "html"}
        assert hint["n"] == n and hint["total"] == total and hint["html"].strip()
    assert_error(
        client.get(f"/api/exercises/{GC}/hints/{total + 1}"),
        404,
        "not_found",
        f"no hint {total + 1}",
    )
    assert_error(client.get(f"/api/exercises/{GC}/hints/0"), 422, "invalid_request")
    assert_error(client.get(f"/api/exercises/{GC}/hints/one"), 422, "invalid_request")
    assert_error(client.get("/api/exercises/nope/hints/1"), 404, "not_found", "nope")


@pytest.mark.catalog
@pytest.mark.parametrize(
    ("method", "path", "body", "status", "error", "words"),
    [
        (
            "post",
            "/api/exercises/nope/submissions",
            {"track": "numpy", "code": "", "mode": "run"},
            404,
            "not_found",
            ["nope"],
        ),
        (
            "post",
            f"/api/exercises/{GC}/submissions",
            {"track": "jax", "code": "", "mode": "run"},
            422,
            "invalid_request",
            ["no track 'jax'"],
        ),
        (
            "post",
            f"/api/exercises/{GC}/submissions",
            {"track": "numpy", "code": "", "mode": "go"},
            422,
            "invalid_request",
            ["mode"],
        ),
        (
            "post",
            f"/api/exercises/{GC}/submissions",
            {"track": "numpy", "mode": "run"},
            422,
            "invalid_request",
            ["code"],
        ),
        (
            "post",
            f"/api/exercises/{GC}/submissions",
            {"track": "numpy", "code": "", "mode": "run", "extra": 1},
            422,
            "invalid_request",
            ["extra"],
        ),
        (
            "post",
            f"/api/exercises/{GC}/submissions",
            {"track": "numpy", "code": 5, "mode": "run"},
            422,
            "invalid_request",
            ["code"],
        ),
        (
            "post",
            f"/api/exercises/{GC}/submissions",
            {"track": "numpy", "code": "x = 1\x00", "mode": "run"},
            422,
            "invalid_request",
            ["NUL"],
        ),
        (
            "post",
            f"/api/exercises/{GC}/submissions",
            {"track": "numpy", "code": "#" * (64 * 1024 + 1), "mode": "run"},
            413,
            "too_large",
            ["limit is 64 KiB"],
        ),
        ("get", "/api/submissions/0123abcd", None, 404, "not_found", ["0123abcd"]),
        ("get", "/api/submissions/not-hex", None, 422, "invalid_request", []),
        ("get", "/api/exercises/nope", None, 404, "not_found", ["nope"]),
        ("get", "/api/no/such/path", None, 404, "not_found", ["/api/no/such/path"]),
        ("delete", f"/api/exercises/{GC}", None, 405, "method_not_allowed", []),
    ],
    ids=[
        "unknown-exercise",
        "unknown-track",
        "unknown-mode",
        "missing-code",
        "extra-field",
        "code-not-string",
        "nul",
        "code-too-large",
        "unknown-submission",
        "bad-submission-id",
        "unknown-exercise-get",
        "unknown-path",
        "wrong-method",
    ],
)
def test_error_answers(
    client: TestClient,
    method: str,
    path: str,
    body: dict | None,
    status: int,
    error: str,
    words: list[str],
) -> None:
    response = client.request(method.upper(), path, json=body)
    assert_error(response, status, error, *words)


@pytest.mark.catalog
def test_malformed_json_and_huge_body(client: TestClient) -> None:
    url = f"/api/exercises/{GC}/submissions"
    headers = {"content-type": "application/json"}
    assert_error(client.post(url, content=b"{not json", headers=headers), 422, "invalid_request")
    assert_error(client.post(url, content=b"\xff\xfe", headers=headers), 422, "invalid_request")
    assert_error(
        client.post(
            url, content=b'{"track":"numpy","code":"\\ud800","mode":"run"}', headers=headers
        ),
        422,
        "invalid_request",
        "surrogate",
    )
    nested = b'{"track": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert_error(client.post(url, content=nested, headers=headers), 422, "invalid_request")
    huge = b'{"code": "' + b"x" * (1 << 20) + b'"}'
    assert_error(client.post(url, content=huge, headers=headers), 413, "too_large")


@pytest.mark.catalog
def test_security_headers_and_learner_cookie(tmp_path: Path, client: TestClient) -> None:
    response = client.get("/api/exercises")
    csp = response.headers["content-security-policy"]
    assert "script-src 'self';" in csp and "unsafe-inline" not in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    fresh = TestClient(client.app)
    first = fresh.get("/healthz")
    assert "drill_learner=" in first.headers["set-cookie"]
    assert "HttpOnly" in first.headers["set-cookie"]
    assert "set-cookie" not in fresh.get("/healthz").headers  # kept, not renewed


@pytest.mark.catalog
def test_drafts_belong_to_the_learner(client: TestClient) -> None:
    alice, bob = TestClient(client.app), TestClient(client.app)
    url = f"/api/drafts/{GC}/torch"
    saved = alice.put(url, json={"code": "# mine\n"})
    assert saved.status_code == 200 and saved.json()["code"] == "# mine\n"
    assert alice.get(url).json() == saved.json()
    assert_error(bob.get(url), 404, "not_found")
    assert_error(alice.get(f"/api/drafts/{GC}/jax"), 404, "not_found")
    assert_error(alice.put(f"/api/drafts/{GC}/jax", json={"code": ""}), 422, "invalid_request")
    assert_error(alice.put(url, json={"code": "#" * (70 * 1024)}), 413, "too_large")


@pytest.mark.catalog
def test_openapi_and_docs(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert "/api/exercises/{slug}/submissions" in spec["paths"]
    assert client.get("/docs").status_code == 200


def test_rate_limit_answers_429_with_retry_after(tmp_path: Path) -> None:
    code = (
        Path(__file__).parents[1] / "graders" / "cases" / "passing" / "submission.py"
    ).read_text()
    # No worker pool: the limiter answers before any grading, and the two graded Runs
    # need only a verdict.
    with client_for(
        tmp_path, TEST_EXERCISES, ReferenceOnlyBackend(), rate_burst=2, rate_per_minute=0.01
    ) as limited:
        body = {"track": "numpy", "code": code, "mode": "run"}
        url = "/api/exercises/double/submissions"
        assert limited.post(url, json=body).status_code == 200
        assert limited.post(url, json=body).status_code == 200
        response = limited.post(url, json=body)
        error = assert_error(response, 429, "rate_limited", "submit again in")
        assert int(response.headers["retry-after"]) == error["retry_after"] >= 1
