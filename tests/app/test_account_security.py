"""Accounts as a hostile visitor tries them: sessions that cannot be forged, fixed, read
from the database or used from another site; sign-ins that cannot be guessed fast or made
to hash forever; one account's data out of another's reach."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.accounts import token_hash
from app.routers import account as account_routes
from app.tables import AccountRow, SessionRow
from tests.app.conftest import client_for
from tests.app.test_courses import GC, PASSWORD, SOLUTION, create_course, sign_up, submit
from tests.fakes import ReferenceOnlyBackend

CROSS_SITE = {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(tmp_path, backend=ReferenceOnlyBackend()) as client:
        yield client


def test_account_forms_posted_from_another_site_change_nothing(app_client: TestClient) -> None:
    sign_up(app_client, "victim")
    forms = {
        "/account/signin": {"username": "victim", "password": PASSWORD},
        "/account/signup": {"username": "other", "password": PASSWORD, "confirm": PASSWORD},
        "/account/signout": {},
        "/account/delete": {"confirm": "DELETE"},
        "/account/password": {"current": PASSWORD, "new": "x" * 12, "confirm": "x" * 12},
        "/courses": {"title": "Planted"},
    }
    for path, form in forms.items():
        answer = app_client.post(path, data=form, headers=CROSS_SITE, follow_redirects=False)
        assert answer.status_code == 403, path
        assert "set-cookie" not in answer.headers, path
    assert "victim" in app_client.get("/account").text  # still signed in, nothing deleted
    assert app_client.app.state.accounts.by_username("other") is None  # type: ignore[attr-defined]


def test_the_session_cookie_is_http_only_lax_and_the_database_keeps_only_its_hash(
    app_client: TestClient,
) -> None:
    form = {"username": "cookie", "password": PASSWORD, "confirm": PASSWORD}
    answer = app_client.post("/account/signup", data=form, follow_redirects=False)
    cookie = answer.headers["set-cookie"]
    assert "drill_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    token = app_client.cookies["drill_session"]
    store = app_client.app.state.service.store  # type: ignore[attr-defined]
    with store.engine.connect() as connection:
        stored = connection.execute(select(SessionRow.token_hash)).scalars().all()
        hashes = connection.execute(select(AccountRow.password_hash)).scalars().all()
    assert stored == [token_hash(token)] and token not in stored
    assert all(h and h.startswith("$argon2id$") and PASSWORD not in h for h in hashes)


def test_each_sign_in_gets_a_new_session_a_planted_one_is_not_kept(app_client: TestClient) -> None:
    sign_up(TestClient(app_client.app), "fixed")
    planted = "P" * 43  # what an attacker would have set in the victim's browser
    app_client.cookies.set("drill_session", planted)
    answer = app_client.post(
        "/account/signin",
        data={"username": "fixed", "password": PASSWORD},
        follow_redirects=False,
    )
    given = answer.headers["set-cookie"].split("drill_session=", 1)[1].split(";", 1)[0]
    assert given and given != planted
    attacker = TestClient(app_client.app)
    attacker.cookies.set("drill_session", planted)
    assert "Your practice" in attacker.get("/account").text


def test_an_expired_session_signs_nobody_in(app_client: TestClient) -> None:
    sign_up(app_client, "expiring")
    store = app_client.app.state.service.store  # type: ignore[attr-defined]
    with store.engine.begin() as connection:
        connection.execute(
            update(SessionRow).values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
    app_client.app.state.accounts.forget_cached_sessions()  # type: ignore[attr-defined]
    assert "Your practice" in app_client.get("/account").text


def test_a_session_header_is_a_session_and_a_bad_one_is_nobody(app_client: TestClient) -> None:
    sign_up(app_client, "header")
    submit(app_client, SOLUTION)
    token = app_client.cookies["drill_session"]
    bare = TestClient(app_client.app)  # no cookies at all: an iframe's blocked ones
    progress = bare.get("/api/progress", headers={"X-Drill-Session": token}).json()
    assert progress["exercises"][GC]["tracks"]["numpy"]["solved"]
    for bad in ("", "x", token + "!", "A" * 43, token[:-1]):
        answer = bare.get("/api/progress", headers={"X-Drill-Session": bad})
        assert answer.status_code == 200
        assert not answer.json()["exercises"][GC]["tracks"]["numpy"]["solved"], bad


def test_sign_in_guesses_are_throttled_per_address(
    app_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        account_routes,
        "SIGN_INS",
        account_routes.RateLimiter(
            per_minute=1, burst=3, what="sign-in attempts from your address"
        ),
    )
    sign_up(TestClient(app_client.app), "guessed")
    for _ in range(3):
        wrong = {"username": "guessed", "password": "not the password"}
        assert app_client.post("/account/signin", data=wrong).status_code == 401
    right = {"username": "guessed", "password": PASSWORD}
    answer = app_client.post("/account/signin", data=right)
    assert answer.status_code == 429 and "Too many sign-in attempts" in answer.text


def test_a_huge_password_is_refused_before_it_is_hashed(app_client: TestClient) -> None:
    form = {"username": "huge", "password": "p" * 100_000, "confirm": "p" * 100_000}
    answer = app_client.post("/account/signup", data=form)
    assert answer.status_code == 422 and "at most 256 characters" in answer.text


def test_a_learner_cannot_read_another_learners_code_or_course(app_client: TestClient) -> None:
    sign_up(app_client, "alice")
    mine = submit(app_client, SOLUTION)["id"]
    course = create_course(app_client, "Alice's")
    bob = TestClient(app_client.app)
    sign_up(bob, "bobby")
    assert bob.get(f"/api/submissions/{mine}/code").status_code == 404
    assert bob.get(f"/courses/{course}").status_code == 404
    student = app_client.app.state.accounts.by_username("alice")  # type: ignore[attr-defined]
    assert bob.get(f"/courses/{course}/students/{student.id}").status_code == 404
