"""Cross-site requests change nothing: a page on another site cannot submit, save a draft,
replace a learner's cookie or log an instructor out (the browser's side of this is in
tests/browser/test_cross_site.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app import instructor_auth
from tests.app.conftest import assert_error, client_for
from tests.conftest import TEST_EXERCISES

TOKEN = "instructor-token-" + "x" * 24
SUBMIT = "/api/exercises/double/submissions"
CODE = "def double(x):\n    return x * 2\n"
BODY = {"track": "numpy", "code": CODE, "mode": "run"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("cross-site")
    with client_for(tmp, TEST_EXERCISES, instructor_token=TOKEN) as test_client:
        yield test_client


def history(who: TestClient) -> list[object]:
    answer = who.get(f"{SUBMIT}?track=numpy")
    assert answer.status_code == 200
    return answer.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "headers",
    [
        {"sec-fetch-site": "cross-site"},
        {"sec-fetch-site": "same-site"},  # another host of the same site is another app
        {"origin": "http://evil.example"},  # a browser too old to send Sec-Fetch-Site
        {"origin": "null"},  # a sandboxed frame or a data: page
    ],
    ids=["cross-site", "same-site", "foreign origin", "null origin"],
)
def test_a_cross_site_submit_is_refused_and_mints_no_learner(
    client: TestClient, headers: dict[str, str]
) -> None:
    learner = TestClient(client.app)
    assert learner.post(SUBMIT, json=BODY).status_code == 200
    before = history(learner)
    # The attack: the browser does not send the Lax cookie along a cross-site POST.
    stranger = TestClient(client.app)
    answer = stranger.post(SUBMIT, json=BODY, headers=headers)
    assert_error(answer, 403, "cross_site", "another site", "its own pages")
    assert "set-cookie" not in answer.headers  # nothing that could replace a cookie
    draft = stranger.put("/api/drafts/double/numpy", json={"code": "x = 1\n"}, headers=headers)
    assert_error(draft, 403, "cross_site")
    assert history(learner) == before


@pytest.mark.parametrize(
    "headers",
    [{"sec-fetch-site": "same-origin"}, {"origin": "http://testserver"}, {}],
    ids=["same-origin", "own origin", "not a browser"],
)
def test_requests_from_drills_own_pages_and_other_clients_still_work(
    client: TestClient, headers: dict[str, str]
) -> None:
    learner = TestClient(client.app)
    answer = learner.post(SUBMIT, json=BODY, headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "pass"


def test_json_bodies_only_as_application_json(client: TestClient) -> None:
    # An HTML form can send text/plain whose body reads as JSON: not accepted.
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        answer = client.post(SUBMIT, content=json.dumps(BODY), headers={"content-type": kind})
        assert_error(answer, 415, "unsupported_media_type", "application/json")
    with_charset = {"content-type": "application/json; charset=utf-8"}
    assert client.post(SUBMIT, content=json.dumps(BODY), headers=with_charset).status_code == 200


def test_a_cross_site_page_cannot_log_an_instructor_out(client: TestClient) -> None:
    instructor = TestClient(client.app)
    instructor.cookies.set(instructor_auth.COOKIE, instructor_auth.cookie_value(TOKEN))
    assert instructor.get("/instructor", follow_redirects=False).status_code == 200
    logout = instructor.post(
        "/instructor/logout", headers={"sec-fetch-site": "cross-site"}, follow_redirects=False
    )
    assert_error(logout, 403, "cross_site")
    assert "set-cookie" not in logout.headers
    assert instructor.get("/instructor", follow_redirects=False).status_code == 200
    login = instructor.post(
        "/instructor/login", data={"token": TOKEN}, headers={"origin": "http://evil.example"}
    )
    assert_error(login, 403, "cross_site")
    # From its own page, the same request logs out.
    own = instructor.post(
        "/instructor/logout", headers={"sec-fetch-site": "same-origin"}, follow_redirects=False
    )
    assert own.status_code in (303, 302), own.status_code
