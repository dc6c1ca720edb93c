"""Requests built to hurt the web process itself: cookies that a quadratic parser chokes
on, oversized header sections, and learner code that CPython's own compiler gives up on.
Each gets a clear answer (a 431, or an ``error`` verdict that is stored), never a 500 and
never a parse that holds the event loop."""

from __future__ import annotations

import http.cookies
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.cookies import MAX_COOKIE_BYTES, MAX_HEADER_BYTES, cookie_values
from app.middleware import LEARNER_COOKIE
from tests.app.conftest import assert_error, client_for
from tests.conftest import TEST_EXERCISES

# 3 KB of backslash pairs in a quoted value: the shape of CVE-2024-7592, which made one
# such request hold the event loop for seconds (quadratic in http.cookies._unquote).
BACKSLASHES = '"' + "\\\\" * 1500 + '"'


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("hostile")
    with client_for(tmp, TEST_EXERCISES, instructor_token="t" * 32) as test_client:
        yield test_client


@pytest.fixture
def unquotes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What reaches the quadratic unquoting (FastAPI parses the cookies of every route)."""
    calls: list[str] = []
    original = http.cookies._unquote  # type: ignore[attr-defined]

    def counting(value: str) -> str:
        calls.append(value)
        return original(value)  # type: ignore[no-any-return]

    monkeypatch.setattr(http.cookies, "_unquote", counting)
    return calls


def test_only_drills_own_plain_cookies_reach_a_cookie_parser(
    client: TestClient, unquotes: list[str]
) -> None:
    learner = "a" * 32
    cookie = f"x={BACKSLASHES}; {LEARNER_COOKIE}={learner}; drill_instructor={BACKSLASHES}"
    assert len(cookie) < MAX_COOKIE_BYTES
    fresh = TestClient(client.app)
    answer = fresh.get("/healthz", headers={"cookie": cookie})
    assert answer.status_code == 200
    assert "set-cookie" not in answer.headers  # the learner was read, not minted anew
    login = fresh.get("/instructor", headers={"cookie": cookie}, follow_redirects=False)
    assert login.status_code == 303, login.status_code  # to the login form, not a 500
    assert unquotes and set(unquotes) == {learner}, "a foreign cookie reached the parser"


def test_the_learner_cookie_is_read_like_a_browser_sends_it() -> None:
    headers = [
        (b"cookie", b"theme=dark; drill_learner=first_token_0123456789; other=1"),
        (b"cookie", b'drill_learner="quoted"; drill_learner=second_token_0123456789'),
    ]
    got = cookie_values(headers, LEARNER_COOKIE)
    assert got == ["first_token_0123456789", '"quoted"', "second_token_0123456789"]
    assert cookie_values([(b"cookie", b"xdrill_learner=nope")], LEARNER_COOKIE) == []


def test_oversized_cookies_and_headers_get_431(client: TestClient) -> None:
    fresh = TestClient(client.app)
    big_cookie = "x=" + "a" * MAX_COOKIE_BYTES
    answer = fresh.get("/healthz", headers={"cookie": big_cookie})
    assert_error(answer, 431, "headers_too_large", "cookies", "larger than 8 KiB")
    many = {f"x-filler-{i}": "b" * 1000 for i in range(MAX_HEADER_BYTES // 1000 + 1)}
    answer = fresh.get("/healthz", headers=many)
    assert_error(answer, 431, "headers_too_large", "headers", "larger than 32 KiB")
    assert fresh.get("/healthz").status_code == 200


UNCOMPILABLE = {
    "unary minus signs": "x = " + "-" * 5000 + "1\n",
    "a long sum": "x = " + "+".join(["1"] * 30000) + "\n",
    "nested lambdas": "x = " + "lambda: " * 7000 + "1\n",
    "nested conditionals": "x = " + "1 if 1 else " * 3000 + "1\n",
}


@pytest.mark.parametrize("code", UNCOMPILABLE.values(), ids=list(UNCOMPILABLE))
def test_code_the_compiler_gives_up_on_is_an_error_verdict(client: TestClient, code: str) -> None:
    url = "/api/exercises/double/submissions"
    answer = client.post(url, json={"track": "numpy", "code": code, "mode": "submit"})
    assert answer.status_code == 200, answer.text[:500]
    result = answer.json()
    assert result["status"] == "error", result
    assert result["message"].startswith("Python could not compile your code: it is nested too")
    assert "split very long expressions" in result["message"]
    stored = client.get(f"/api/submissions/{result['id']}").json()
    assert stored["message"] == result["message"]
