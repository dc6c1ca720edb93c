"""Accounts, courses, assignments with deadlines and the gradebook, through the real app
and store (the grading backend passes the reference solution only: tests/fakes.py)."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.privacy import learner_data
from tests.app.conftest import client_for
from tests.catalog import shipped_exercises_dir
from tests.fakes import ReferenceOnlyBackend

GC = "gradient-checkpointing"
SOLUTION = (shipped_exercises_dir() / GC / "numpy" / "solution.py").read_text()
TORCH_SOLUTION = (shipped_exercises_dir() / GC / "torch" / "solution.py").read_text()
PASSWORD = "correct horse battery"


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(tmp_path, backend=ReferenceOnlyBackend()) as client:
        yield client


def sign_up(client: TestClient, username: str, name: str = "", password: str = PASSWORD) -> None:
    form = {"username": username, "name": name, "password": password, "confirm": password}
    answer = client.post("/account/signup", data=form, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    assert "drill_session" in answer.headers["set-cookie"]


def submit(client: TestClient, code: str, track: str = "numpy", slug: str = GC) -> dict:
    body = {"track": track, "code": code, "mode": "submit"}
    answer = client.post(f"/api/exercises/{slug}/submissions", json=body)
    assert answer.status_code == 200, answer.text
    result: dict = answer.json()
    return result


def create_course(client: TestClient, title: str) -> str:
    answer = client.post("/courses", data={"title": title}, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return answer.headers["location"].rsplit("/", 1)[1]


def join_code(client: TestClient, course: str) -> str:
    page = client.get(f"/courses/{course}").text
    found = re.search(r'class="join-code">(\w+)<', page)
    assert found, page
    return found.group(1)


def test_an_anonymous_learners_work_comes_into_the_account_signed_up(
    app_client: TestClient,
) -> None:
    submit(app_client, SOLUTION)
    app_client.put(f"/api/drafts/{GC}/torch", json={"code": "x = 1"})
    assert app_client.get("/api/progress").json()["exercises"][GC]["tracks"]["numpy"]["solved"]
    sign_up(app_client, "ada", "Ada Lovelace")
    progress = app_client.get("/api/progress").json()
    assert progress["exercises"][GC]["tracks"]["numpy"]["solved"]
    assert app_client.get(f"/api/drafts/{GC}/torch").json()["code"] == "x = 1"
    assert "Ada Lovelace" in app_client.get("/").text
    # Another browser signing in to the account finds it there too.
    other = TestClient(app_client.app)
    answer = other.post(
        "/account/signin", data={"username": "ADA", "password": PASSWORD}, follow_redirects=False
    )
    assert answer.status_code == 303
    assert other.get("/api/progress").json()["exercises"][GC]["tracks"]["numpy"]["solved"]


def test_signing_in_never_merges_one_account_into_another(app_client: TestClient) -> None:
    sign_up(app_client, "first")
    submit(app_client, SOLUTION)
    # Signed in as "first", the browser signs in to "second": first's work stays first's.
    sign_up(TestClient(app_client.app), "second")
    answer = app_client.post(
        "/account/signin",
        data={"username": "second", "password": PASSWORD},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    track = app_client.get("/api/progress").json()["exercises"][GC]["tracks"]["numpy"]
    assert (track["solved"], track["attempts"]) == (False, 0)


def test_wrong_passwords_and_bad_sessions_sign_nobody_in(app_client: TestClient) -> None:
    sign_up(TestClient(app_client.app), "grace")
    answer = app_client.post(
        "/account/signin", data={"username": "grace", "password": "wrong one!"}
    )
    assert answer.status_code == 401
    assert "do not match an account" in answer.text
    answer = app_client.post("/account/signin", data={"username": "nobody", "password": PASSWORD})
    assert answer.status_code == 401
    assert "do not match an account" in answer.text  # the same words: names are not told
    app_client.cookies.set("drill_session", "A" * 43)
    assert app_client.get("/account").text.count("Your practice") == 1  # anonymous


def test_sign_up_refuses_a_taken_name_a_short_password_and_a_mismatch(
    app_client: TestClient,
) -> None:
    sign_up(TestClient(app_client.app), "taken")
    cases = [
        ({"username": "taken", "password": PASSWORD, "confirm": PASSWORD}, "is taken"),
        ({"username": "new1", "password": "short", "confirm": "short"}, "at least 10"),
        ({"username": "new2", "password": PASSWORD, "confirm": PASSWORD + "x"}, "not the same"),
        ({"username": "a", "password": PASSWORD, "confirm": PASSWORD}, "3 to 32 characters"),
    ]
    for form, words in cases:
        answer = app_client.post("/account/signup", data=form)
        assert answer.status_code == 422, form
        assert words in answer.text, form


def test_sign_out_ends_the_session_and_a_password_change_ends_the_others(
    app_client: TestClient,
) -> None:
    sign_up(app_client, "alan")
    other = TestClient(app_client.app)
    other.post("/account/signin", data={"username": "alan", "password": PASSWORD})
    assert "alan" in other.get("/account").text
    new = "a brand new password"
    answer = app_client.post(
        "/account/password",
        data={"current": PASSWORD, "new": new, "confirm": new},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    assert "alan" in app_client.get("/account").text
    other.app.state.accounts.forget_cached_sessions()  # this test's nodes share one cache
    assert "Your practice" in other.get("/account").text  # signed out by the change
    stolen = app_client.cookies.get("drill_session")
    app_client.post("/account/signout")
    thief = TestClient(app_client.app)
    thief.cookies.set("drill_session", stolen or "")
    assert "Your practice" in thief.get("/account").text


def test_a_course_with_a_deadline_marks_a_late_solve_and_the_gradebook_says_so(
    app_client: TestClient,
) -> None:
    sign_up(app_client, "prof", "Professor P")
    course = create_course(app_client, "Deep Learning 101")
    past = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    future = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
    for task, deadline in ((f"{GC}:numpy", future), (f"{GC}:torch", past)):
        answer = app_client.post(
            f"/courses/{course}/assignments",
            data={"task": task, "deadline": deadline},
            follow_redirects=False,
        )
        assert answer.status_code == 303, answer.text
    code = join_code(app_client, course)

    learner = TestClient(app_client.app)
    sign_up(learner, "lin", "Lin Learner")
    answer = learner.post("/courses/join", data={"code": code.lower()}, follow_redirects=False)
    assert answer.headers["location"] == f"/courses/{course}"
    submit(learner, "def wrong(): pass")
    submit(learner, SOLUTION)
    submit(learner, TORCH_SOLUTION, track="torch")
    mine = learner.get(f"/courses/{course}").text
    assert "solved late" in mine and "does not count toward the course grade" in mine
    assert learner.get(f"/courses/{course}/gradebook").status_code == 404  # staff only

    page = app_client.get(f"/courses/{course}/gradebook").text
    assert "Lin Learner" in page
    assert page.count("1 of 1 students") == 2
    assert "50%" in page  # one of two counts: the late one does not
    rows = list(
        csv.DictReader(io.StringIO(app_client.get(f"/courses/{course}/gradebook.csv").text))
    )
    assert len(rows) == 1
    row = rows[0]
    assert row["name"] == "Lin Learner" and row["grade"] == "0.5000"
    numpy_name, torch_name = f"{GC} [numpy]", f"{GC} [torch]"
    assert (row[f"{numpy_name} solved"], row[f"{numpy_name} attempts"]) == ("yes", "2")
    assert row[f"{numpy_name} late"] == "no" and row[f"{torch_name} late"] == "yes"
    book = json.loads(app_client.get(f"/courses/{course}/gradebook.json").text)
    cells = book["students"][0]["assignments"]
    assert sorted(c["status"] for c in cells.values()) == ["solved", "solved late"]

    # Late solutions count once the instructor allows it.
    app_client.post(f"/courses/{course}/settings", data={"late_counts": "on"})
    assert "100%" in app_client.get(f"/courses/{course}/gradebook").text
    # The drill-down shows the student's code.
    student = re.search(rf"/courses/{course}/students/(\w+)", page)
    assert student
    detail = app_client.get(student.group(0)).text
    assert "def wrong(): pass" in detail and "late" in detail


def test_an_instructor_sees_only_their_own_courses(app_client: TestClient) -> None:
    sign_up(app_client, "owner")
    course = create_course(app_client, "Mine")
    stranger = TestClient(app_client.app)
    sign_up(stranger, "stranger")
    for path in ("", "/gradebook", "/gradebook.csv", "/gradebook.json"):
        assert stranger.get(f"/courses/{course}{path}").status_code == 404, path
    anonymous = TestClient(app_client.app)
    answer = anonymous.get(f"/courses/{course}/gradebook", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"].startswith("/account/signin")


def test_gradebook_csv_cells_are_formula_safe(app_client: TestClient) -> None:
    sign_up(app_client, "teacher")
    course = create_course(app_client, "Course")
    code = join_code(app_client, course)
    learner = TestClient(app_client.app)
    sign_up(learner, "mallory", "=HYPERLINK(1)")
    learner.post("/courses/join", data={"code": code})
    text = app_client.get(f"/courses/{course}/gradebook.csv").text
    assert "'=HYPERLINK(1)" in text


def test_rate_limits_count_each_signed_in_account_apart(tmp_path: Path) -> None:
    with client_for(
        tmp_path, backend=ReferenceOnlyBackend(), rate_per_minute=1, rate_burst=2
    ) as first:
        sign_up(first, "one")
        second = TestClient(first.app)
        sign_up(second, "two")
        for _ in range(2):
            submit(first, SOLUTION)
        refused = first.post(
            f"/api/exercises/{GC}/submissions",
            json={"track": "numpy", "code": SOLUTION, "mode": "submit"},
        )
        assert refused.status_code == 429
        submit(second, SOLUTION)  # the same address, another account: its own bucket
        anonymous = TestClient(first.app)
        submit(anonymous, SOLUTION)  # the address's own bucket, untouched by the accounts


def test_deleting_an_account_deletes_what_it_holds(app_client: TestClient) -> None:
    sign_up(app_client, "leaving")
    submit(app_client, SOLUTION)
    store = app_client.app.state.service.store
    account = app_client.app.state.accounts.by_username("leaving")
    assert learner_data(store, account.learner)["submissions"] == 1
    answer = app_client.post("/account/delete", data={"confirm": "nope"})
    assert answer.status_code == 422 and "Type DELETE" in answer.text
    answer = app_client.post("/account/delete", data={"confirm": "DELETE"}, follow_redirects=False)
    assert answer.status_code == 303
    assert learner_data(store, account.learner)["submissions"] == 0
    assert app_client.app.state.accounts.by_username("leaving") is None


def test_a_sign_in_link_goes_back_to_this_site_only(app_client: TestClient) -> None:
    sign_up(TestClient(app_client.app), "nav")
    for target, expected in (
        ("/courses", "/courses"),
        ("//evil.example/x", "/"),
        ("https://evil.example", "/"),
    ):
        answer = TestClient(app_client.app).post(
            "/account/signin",
            data={"username": "nav", "password": PASSWORD, "next": target},
            follow_redirects=False,
        )
        assert answer.headers["location"] == expected, target


def test_an_instructor_makes_a_member_an_assistant_who_then_sees_the_gradebook(
    app_client: TestClient,
) -> None:
    sign_up(app_client, "lead")
    course = create_course(app_client, "Roles")
    code = join_code(app_client, course)
    helper = TestClient(app_client.app)
    sign_up(helper, "assist", "Teaching Assistant")
    helper.post("/courses/join", data={"code": code})
    assert helper.get(f"/courses/{course}/gradebook").status_code == 404
    ta = app_client.app.state.accounts.by_username("assist")
    answer = app_client.post(
        f"/courses/{course}/members/{ta.id}", data={"role": "assistant"}, follow_redirects=False
    )
    assert answer.status_code == 303
    assert helper.get(f"/courses/{course}/gradebook").status_code == 200
    # An assistant does not change roles.
    lead = app_client.app.state.accounts.by_username("lead")
    answer = helper.post(f"/courses/{course}/members/{lead.id}", data={"role": "learner"})
    assert answer.status_code == 403
    assert "Roles" in app_client.get(f"/courses/{course}").text


def test_the_exercise_page_tells_a_course_member_the_deadline_and_lateness(
    app_client: TestClient,
) -> None:
    sign_up(app_client, "teacher2")
    course = create_course(app_client, "Deadlines 101")
    past = (datetime.now(UTC) - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    future = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    app_client.post(
        f"/courses/{course}/assignments", data={"task": f"{GC}:numpy", "deadline": future}
    )
    app_client.post(
        f"/courses/{course}/assignments", data={"task": f"{GC}:torch", "deadline": past}
    )
    code = join_code(app_client, course)
    learner = TestClient(app_client.app)
    anonymous_page = learner.get(f"/exercises/{GC}").text
    assert "an assignment of" not in anonymous_page
    sign_up(learner, "member")
    learner.post("/courses/join", data={"code": code})
    page = learner.get(f"/exercises/{GC}").text
    assert f"NumPy: an assignment of Deadlines 101, due {future.replace('T', ' ')} UTC." in page
    assert "PyTorch: an assignment of Deadlines 101; its deadline passed on" in page
    assert "marked late, but does not count toward the course grade" in page


def test_join_codes_cannot_be_tried_by_the_hundred_nor_courses_made_by_the_thousand(
    app_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app import courses as course_module
    from app.routers import courses as course_routes

    sign_up(app_client, "guesser")
    for _ in range(int(course_routes.JOINS.burst)):
        assert app_client.post("/courses/join", data={"code": "WRONGCDE"}).status_code == 404
    answer = app_client.post("/courses/join", data={"code": "WRONGCDE"})
    assert answer.status_code == 429 and "Too many join attempts" in answer.text
    monkeypatch.setattr(course_module, "MAX_OWNED", 2)
    create_course(app_client, "One")
    create_course(app_client, "Two")
    answer = app_client.post("/courses", data={"title": "Three"})
    assert answer.status_code == 422 and "You created 2 courses already" in answer.text
