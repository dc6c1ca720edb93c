"""Drill as an LTI 1.3 tool, end to end: the real app (its routes, store, lifespan and
score sender) against the test LMS, each a real HTTP server on loopback. Registration (by
command, by form, dynamically), launches that make an account, a course, a membership, an
assignment and a session; the launched page working through its header with no cookie;
scores reaching the LMS's gradebook through the outbox (after a 503, after a restart,
once with two senders); refused launches; deep linking; the roster.

A test whose docstring says "Guard:" fails without the guard it names (each was seen
failing with the guard taken out)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event, select, text, update

from app.lti.login import PendingLogin
from app.lti.outbox import GAVE_UP, ScoreSender, note_standing
from app.lti.registration import ToolSite
from app.lti.store import DbLoginStates, DbRegistrations, tool_keys
from app.settings import get_app_settings
from app.tables import (
    AccountRow,
    AssignmentRow,
    CourseRow,
    LtiUserRow,
    MemberRow,
    ScoreOutboxRow,
    SessionRow,
)
from drill.cli import main
from graders.settings import get_settings
from tests.lti.conftest import Keys
from tests.lti.drill import (
    CROSS_SITE,
    GC,
    OPERATOR_TOKEN,
    SOLUTION,
    Browser,
    Drill,
    drill_settings,
    page_data,
    running_drill,
    wait_for,
)
from tests.lti.platform import DL, LTI, FormReader, Platform

WRONG = "def checkpoint_forward(*args):\n    return None\n"


# --- fixtures and helpers ---


@pytest.fixture
def drill(tmp_path: Path, platform: Platform) -> Iterator[Drill]:
    """Drill, running, known to the platform (its URLs), not yet knowing the platform."""
    with running_drill(drill_settings(tmp_path)) as running:
        platform.know_tool(ToolSite(running.base))
        yield running


@pytest.fixture
def registered(drill: Drill, platform: Platform) -> Drill:
    """Drill with the platform registered."""
    DbRegistrations(drill.store).add(platform.registration())
    return drill


@pytest.fixture
def browser(drill: Drill) -> Iterator[Browser]:
    tab = Browser(drill.base)
    yield tab
    tab.close()


def rows(drill: Drill, query: Any) -> list[Any]:
    with drill.store.engine.connect() as connection:
        return list(connection.execute(query).all())


def submit(drill: Drill, session: str, code: str = SOLUTION, track: str = "numpy") -> Any:
    """A Submit from a launched page: its session in the header, no cookie at all."""
    answer = httpx.post(
        f"{drill.base}/api/exercises/{GC}/submissions",
        json={"track": track, "code": code, "mode": "submit"},
        headers={"X-Drill-Session": session},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def launched(browser: Browser, platform: Platform, user: str = "learner1") -> str:
    """Launch ``user``'s resource link; the session token of the launched page."""
    answer = browser.launch(platform, user)
    assert answer.status_code == 200, answer.text
    session: str = page_data(answer.text)["session"]
    return session


def course_id(drill: Drill) -> str:
    (found,) = rows(drill, select(CourseRow.id))
    return str(found[0])


def outbox(drill: Drill) -> list[Any]:
    return rows(drill, select(ScoreOutboxRow).order_by(ScoreOutboxRow.id))


def settle(drill: Drill, seconds: float = 1.5) -> None:
    """Give the sender time to send anything more (it is woken by every new score)."""
    drill.app.state.score_sender.wake()
    time.sleep(seconds)


def refusal(answer: httpx.Response, status: int, *words: str) -> str:
    """A refusal page: its status, HTML, the words of its message, no stack trace."""
    assert answer.status_code == status, answer.text[:500]
    assert answer.headers["content-type"].startswith("text/html")
    page = answer.text
    for word in words:  # the page starts its message with a capital
        assert word.lower() in page.lower(), (word, re.sub(r"\s+", " ", page)[-1500:])
    assert "Traceback" not in page and 'File "' not in page
    return page


@pytest.fixture
def cli_db(drill: Drill, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The command line on Drill's database."""
    monkeypatch.setenv("DRILL_DB", drill.settings.database_url)
    get_settings.cache_clear()
    get_app_settings.cache_clear()
    yield
    get_settings.cache_clear()
    get_app_settings.cache_clear()


# --- registration ---


def test_a_platform_registered_by_the_command_line_launches_drill(
    drill: Drill,
    platform: Platform,
    browser: Browser,
    cli_db: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    registration = platform.registration()
    assert (
        browser.client.get(
            f"{drill.base}/lti/login", params=platform.login_initiation()
        ).status_code
        == 400
    )  # not registered yet
    argv = [
        "lti",
        "register",
        f"--issuer={registration.issuer}",
        f"--client-id={registration.client_id}",
        f"--deployment-id={platform.deployment_id}",
        f"--auth-login-url={registration.auth_login_url}",
        f"--auth-token-url={registration.auth_token_url}",
        f"--key-set-url={registration.key_set_url}",
    ]
    assert main(argv) == 0
    registration_id = capsys.readouterr().out.split("\t")[0]
    assert main(["lti", "list"]) == 0
    listed = capsys.readouterr().out
    assert f"{registration_id}\t{platform.base}\t{platform.client_id}\tdeployment-1" in listed
    assert main(["lti", "jwks"]) == 0
    printed = capsys.readouterr().out
    served = httpx.get(f"{drill.base}/lti/jwks").json()
    assert [k["kid"] for k in served["keys"]] == [tool_keys(drill.store)[0].kid]
    assert served["keys"][0]["kid"] in printed and '"d"' not in printed  # public only
    assert "d" not in served["keys"][0]
    # A bad URL is refused with a message, and nothing is stored.
    assert main([*argv[:-1], "--key-set-url=ftp://elsewhere"]) == 1
    assert "key set url must be an http(s) URL" in capsys.readouterr().err
    assert launched(browser, platform)


def test_the_operator_registers_a_platform_on_the_registrations_page(
    drill: Drill, platform: Platform
) -> None:
    """Guard: only the operator (the instructor token's cookie) sees or adds platforms."""
    registration = platform.registration()
    form = {
        "issuer": registration.issuer,
        "client_id": registration.client_id,
        "deployment_ids": "deployment-1, deployment-2",
        "auth_login_url": registration.auth_login_url,
        "auth_token_url": registration.auth_token_url,
        "key_set_url": registration.key_set_url,
    }
    with httpx.Client(base_url=drill.base) as stranger:
        assert stranger.get("/lti/registrations").status_code == 303
        assert stranger.post("/lti/registrations", data=form).status_code == 303
    assert DbRegistrations(drill.store).all() == []
    with httpx.Client(base_url=drill.base) as operator:
        login = operator.post("/instructor/login", data={"token": OPERATOR_TOKEN})
        assert login.status_code == 303, login.text
        page = operator.get("/lti/registrations").text
        assert f"{drill.base}/lti/launch" in page and f"{drill.base}/lti/jwks" in page
        bad = operator.post("/lti/registrations", data={**form, "key_set_url": "nowhere"})
        assert bad.status_code == 422 and "must be an http(s) URL" in bad.text
        added = operator.post("/lti/registrations", data=form)
        assert added.status_code == 200 and "is registered" in added.text
    (stored,) = DbRegistrations(drill.store).all()
    assert stored.registration.deployment_ids == ("deployment-1", "deployment-2")
    with Browser(drill.base) as tab:
        assert launched(tab, platform)


def test_dynamic_registration_round_trip(drill: Drill, platform: Platform) -> None:
    """The LMS opens /lti/register in its frame; the operator (no cookie reaches the
    frame: the token typed in) confirms; Drill reads the platform's configuration, posts
    its own, stores the answer, and tells the LMS to close the frame. Guard: a wrong
    token makes Drill fetch nothing."""
    configuration = f"{platform.base}/.well-known/openid-configuration"
    query = {
        "openid_configuration": configuration,
        "registration_token": platform.registration_token,
    }
    with httpx.Client(base_url=drill.base) as frame:
        page = frame.get("/lti/register", params=query)
        assert page.status_code == 200
        assert f"frame-ancestors {platform.base}" in page.headers["content-security-policy"]
        assert "x-frame-options" not in page.headers
        form = FormReader(page.text)
        assert form.action == "/lti/register"
        assert form.fields["openid_configuration"] == configuration
        wrong = frame.post("/lti/register", data={**form.fields, "operator_token": "guess"})
        assert wrong.status_code == 401 and "not the instructor token" in wrong.text
        assert platform.registrations == []  # nothing was fetched or posted
        done = frame.post("/lti/register", data={**form.fields, "operator_token": OPERATOR_TOKEN})
    assert done.status_code == 200, done.text
    assert "Drill is registered" in done.text and "/static/lti-close.js" in done.text
    assert f'data-platform-origin="{platform.base}"' in done.text
    (sent,) = platform.registrations
    assert sent["initiate_login_uri"] == f"{drill.base}/lti/login"
    assert sent["jwks_uri"] == f"{drill.base}/lti/jwks"
    stored = DbRegistrations(drill.store).find(platform.base, platform.client_id)
    assert stored == platform.registration()
    with Browser(drill.base) as tab:
        assert launched(tab, platform)
    # With the operator's cookie (a registration opened in a new tab), no token to type.
    with httpx.Client(base_url=drill.base) as operator:
        operator.post("/instructor/login", data={"token": OPERATOR_TOKEN})
        assert 'name="operator_token"' not in operator.get("/lti/register", params=query).text


# --- the resource link launch ---


def test_a_launch_makes_the_account_course_membership_assignment_and_session(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    drill = registered
    answer = browser.launch(platform, "learner1")
    assert answer.status_code == 200, answer.text
    headers = answer.headers
    # The LMS may frame it (and only the LMS); no X-Frame-Options then.
    assert f"frame-ancestors {platform.base};" in headers["content-security-policy"]
    assert "x-frame-options" not in headers
    # The session also in a cookie (a launch in a new tab), never the anonymous cookie.
    cookies = headers.get_list("set-cookie")
    assert any(c.startswith("drill_session=") and "SameSite=lax" in c for c in cookies)
    assert not any(c.startswith("drill_learner=") for c in cookies)
    data = page_data(answer.text)
    assert data["slug"] == GC and data["requested_track"] == "numpy"
    banner = re.search(r'id="lti-banner"[^>]*>([^<]*)<', answer.text)
    assert banner, answer.text[:3000]
    host = platform.base.removeprefix("http://")
    assert banner.group(1) == f"Signed in from {host}, Deep Learning as Learner 1 (learner)."

    (account,) = rows(drill, select(AccountRow))
    assert (account.display_name, account.email, account.username) == (
        "Learner 1",
        "l1@lms.test",
        None,
    )
    assert rows(drill, select(LtiUserRow.issuer, LtiUserRow.subject, LtiUserRow.account_id)) == [
        (platform.base, "sub-learner1", account.id)
    ]
    (course,) = rows(drill, select(CourseRow))
    assert (course.title, course.lti_issuer, course.lti_context) == (
        "Deep Learning",
        platform.base,
        "course-101",
    )
    stored = DbRegistrations(drill.store).find_stored(platform.base, platform.client_id)
    assert stored is not None and course.lti_registration == stored.id
    assert course.lti_memberships_url == f"{platform.base}/nrps/memberships"
    assert course.lti_lineitems_url == f"{platform.base}/ags/lineitems"
    member = rows(drill, select(MemberRow.account_id, MemberRow.role, MemberRow.source))
    assert member == [(account.id, "learner", "lti")]
    (assignment,) = rows(drill, select(AssignmentRow))
    assert (assignment.exercise, assignment.track) == (GC, "numpy")
    assert assignment.lti_resource_link == "link-1"
    assert assignment.lti_lineitem == f"{platform.base}/ags/lineitems/1"
    (session,) = rows(drill, select(SessionRow.account_id, SessionRow.kind))
    assert session == (account.id, "launch")

    # The next launch finds them all again; a teacher's launch is an instructor's.
    launched(browser, platform, "learner1")
    launched(browser, platform, "teacher")
    assert len(rows(drill, select(AccountRow))) == 2
    assert len(rows(drill, select(CourseRow))) == len(rows(drill, select(AssignmentRow))) == 1
    roles = dict(rows(drill, select(MemberRow.account_id, MemberRow.role)))
    assert sorted(roles.values()) == ["instructor", "learner"]


def test_the_lms_renames_its_user_and_the_account_follows(
    registered: Drill, platform: Platform, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    launched(browser, platform, "learner2")
    from tests.lti import platform as lms

    monkeypatch.setitem(lms.USERS, "learner2", {**lms.USERS["learner2"], "name": "Lee Renamed"})
    answer = browser.launch(platform, "learner2")
    assert "as Lee Renamed (learner)" in answer.text
    assert [r.display_name for r in rows(registered, select(AccountRow))] == ["Lee Renamed"]


def test_a_launch_says_whose_session_it_replaced(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """Principle 10: a launch never replaces another identity's session unseen. (This
    client sends its cookies with the launch, as a browser does from a same-site LMS.)"""
    launched(browser, platform, "teacher")
    assert "drill_session" in browser.client.cookies
    answer = browser.launch(platform, "learner1")
    assert (
        "This browser was signed in to Drill as Ada Teacher: this launch replaced that session."
        in answer.text
    )
    again = browser.launch(platform, "learner1")  # the same account: nothing to say
    assert "replaced" not in again.text


def test_the_launched_page_works_through_its_header_without_cookies(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """An iframe whose third-party cookies are blocked: the page's requests carry the
    session in X-Drill-Session only (httpx.post: no cookie jar at all)."""
    session = launched(browser, platform)
    result = submit(registered, session)
    assert result["status"] == "pass"
    progress = httpx.get(
        f"{registered.base}/api/progress", headers={"X-Drill-Session": session}
    ).json()
    assert progress["exercises"][GC]["tracks"]["numpy"]["solved"]
    anonymous = httpx.get(f"{registered.base}/api/progress").json()
    assert not anonymous["exercises"][GC]["tracks"]["numpy"]["solved"]
    (account,) = rows(registered, select(AccountRow.learner))
    learners = rows(registered, text("select learner from submissions"))
    assert learners == [(account.learner,)]


# --- scores to the LMS's gradebook ---


def test_submits_reach_the_platforms_gradebook(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """A failing Submit sends 0, a passing one 1 (the score changed), another passing
    one nothing (the LMS has it)."""
    session = launched(browser, platform)
    assert submit(registered, session, WRONG)["status"] != "pass"
    wait_for(lambda: len(platform.scores) == 1, what="the first score")
    assert submit(registered, session)["status"] == "pass"
    wait_for(lambda: len(platform.scores) == 2, what="the second score")
    submit(registered, session)
    settle(registered)
    first, second = platform.scores
    assert first["lineitem"] == second["lineitem"] == "1"  # the launch's own line item
    assert first["userId"] == second["userId"] == "sub-learner1"
    assert (first["scoreGiven"], first["activityProgress"]) == (0.0, "Submitted")
    assert (second["scoreGiven"], second["activityProgress"]) == (1.0, "Completed")
    assert second["scoreMaximum"] == 1.0 and second["gradingProgress"] == "FullyGraded"
    (row,) = outbox(registered)
    assert row.sent_at is not None and row.score == 1.0 and row.last_error is None
    sent_at = datetime.fromisoformat(second["timestamp"])
    assert sent_at == row.scored_at.replace(tzinfo=UTC)  # the score's own time


def test_a_platform_answering_503_gets_the_score_later_and_the_submit_does_not_wait(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    teacher = launched(browser, platform, "teacher")
    session = launched(browser, platform, "learner1")
    platform.delay = 2.0  # each AGS call; the first one then answers 503
    platform.fail_next = [503]
    assert submit(registered, session)["status"] == "pass"
    # The Submit was answered while the LMS still held its first call: the injected 503
    # (given only after the delay) is not spent yet. A Submit that waited for the LMS
    # would have come back after it.
    assert platform.fail_next == [503]
    failed = wait_for(lambda: [r for r in outbox(registered) if r.last_error], what="the 503")
    assert failed[0].sent_at is None and failed[0].attempts == 1
    assert "answered 503" in failed[0].last_error
    page = httpx.get(
        f"{registered.base}/courses/{course_id(registered)}",
        headers={"X-Drill-Session": teacher},
    ).text
    assert "1 score waiting to reach the LMS; last error: the platform answered 503" in page
    wait_for(lambda: platform.scores, within=30, what="the retried score")
    (score,) = platform.scores
    assert (score["userId"], score["scoreGiven"]) == ("sub-learner1", 1.0)
    # The LMS holds the score once it answered; Drill marks it sent just after.
    (row,) = wait_for(lambda: [r for r in outbox(registered) if r.sent_at], what="sent_at")
    assert row.attempts == 2 and row.last_error is None
    page = httpx.get(
        f"{registered.base}/courses/{course_id(registered)}",
        headers={"X-Drill-Session": teacher},
    ).text
    assert "Every score has reached the LMS." in page


def test_a_refusal_of_the_lms_is_shown_and_not_retried(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    session = launched(browser, platform)
    platform.fail_next = [400]
    submit(registered, session)
    row = wait_for(lambda: [r for r in outbox(registered) if r.last_error], what="the 400")[0]
    assert row.next_attempt_at.replace(tzinfo=UTC) == GAVE_UP
    settle(registered)
    assert platform.scores == []
    # A new score is worth one more try.
    submit(registered, session, WRONG)
    wait_for(lambda: platform.scores, what="the new score")
    assert platform.scores[0]["scoreGiven"] == 1.0  # still solved: the standing, not the Submit


def test_a_restart_sends_an_unsent_score_exactly_once(tmp_path: Path, platform: Platform) -> None:
    settings = drill_settings(tmp_path)
    platform.fail_next = [503] * 1000  # down for as long as the first node runs
    with running_drill(settings) as first:
        platform.know_tool(ToolSite(first.base))
        DbRegistrations(first.store).add(platform.registration())
        with Browser(first.base) as tab:
            submit(first, launched(tab, platform))
        wait_for(lambda: [r for r in outbox(first) if r.attempts], what="a failed attempt")
    platform.fail_next = []
    with running_drill(settings) as second:  # the same database, a new process's state
        platform.know_tool(ToolSite(second.base))  # its keys are the same; its URL is not
        wait_for(lambda: platform.scores, within=30, what="the score after the restart")
        settle(second, 3.0)
        (row,) = outbox(second)
    assert len(platform.scores) == 1
    assert row.sent_at is not None


def test_two_senders_on_one_database_send_each_score_once(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """Guard: the claim (a compare-and-set of next_attempt_at). Two nodes' senders look
    at the same due rows at the same moment; each row goes to the LMS once."""
    registered.app.state.score_sender.stop()  # this node's own sender: out of the way
    for user in ("learner1", "learner2", "learner3"):
        submit(registered, launched(browser, platform, user))
    assert len(outbox(registered)) == 3
    platform.delay = 0.3
    services = registered.app.state.lti.services
    senders = [ScoreSender(registered.store, services) for _ in range(2)]
    start = threading.Barrier(2)
    sent: list[int] = []

    def run(sender: ScoreSender) -> None:
        start.wait()
        sent.append(sender.run_once())

    threads = [threading.Thread(target=run, args=(s,)) for s in senders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(s["userId"] for s in platform.scores) == [
        "sub-learner1",
        "sub-learner2",
        "sub-learner3",
    ]
    assert sum(sent) == 3
    assert all(r.sent_at is not None for r in outbox(registered))


def test_a_newer_score_noted_while_the_older_is_sent_is_sent_too(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """Guard: a row is marked sent only if its score is still the one posted."""
    session = launched(browser, platform)
    platform.delay = 2.0
    submit(registered, session, WRONG)  # 0, on its way (slowly)
    wait_for(lambda: platform.assertions, what="the sender's token")  # now posting the 0
    submit(registered, session)  # 1, noted while the 0 is being posted
    wait_for(lambda: len(platform.scores) == 2, within=30, what="the newer score")
    assert [s["scoreGiven"] for s in platform.scores] == [0.0, 1.0]
    (row,) = wait_for(lambda: [r for r in outbox(registered) if r.sent_at], what="sent_at")
    assert row.score == 1.0


def test_a_late_solution_scores_what_the_gradebook_says(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """The score is the gradebook's "counts": a solve after the deadline is 0, unless the
    course lets late work count."""
    session = launched(browser, platform)
    courses = registered.app.state.courses
    course = courses.get(course_id(registered))
    past = datetime.now(UTC) - timedelta(days=1)
    courses.assign(course.id, GC, "numpy", deadline=past)
    submit(registered, session)
    wait_for(lambda: platform.scores, what="the late score")
    assert platform.scores[0]["scoreGiven"] == 0.0
    book = courses.gradebook(course)
    (assignment,) = book.assignments
    (student,) = book.students
    cell = book.cell(student.account_id, assignment.id)
    assert cell.solved and cell.late and not cell.counts
    courses.set_late_counts(course.id, True)
    submit(registered, session)
    wait_for(lambda: len(platform.scores) == 2, what="the score that now counts")
    assert platform.scores[1]["scoreGiven"] == 1.0


def test_a_line_item_is_found_or_made_by_the_assignments_id(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """A link without its own line item (the launch names none): the score goes to the
    column whose resourceId is the assignment's id, made in the course's container."""
    platform_claims = platform.launch_claims

    def without_lineitem(*args: Any, **kwargs: Any) -> dict[str, Any]:
        claims = platform_claims(*args, **kwargs)
        del claims["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"]["lineitem"]
        return claims

    platform.launch_claims = without_lineitem  # type: ignore[method-assign]
    submit(registered, launched(browser, platform, "learner1"))
    wait_for(lambda: platform.scores, what="the score")
    (assignment,) = rows(registered, select(AssignmentRow))
    made = [i for i in platform.line_items.values() if i["resourceId"] == assignment.id]
    assert len(made) == 1 and made[0]["scoreMaximum"] == 1.0
    assert made[0]["label"] == "Gradient checkpointing (NumPy)" or made[0]["label"]
    assert assignment.lti_lineitem == made[0]["id"]
    assert platform.scores[0]["lineitem"] == made[0]["id"].rsplit("/", 1)[1]
    submit(registered, launched(browser, platform, "learner2"))
    wait_for(lambda: len(platform.scores) == 2, what="the second learner's score")
    assert len([i for i in platform.line_items.values() if i["resourceId"] == assignment.id]) == 1


def test_an_anonymous_submit_costs_one_query_and_queues_nothing(registered: Drill) -> None:
    statements: list[str] = []

    def count(*args: Any) -> None:
        statements.append(str(args[2]))

    engine = registered.store.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        assert note_standing(registered.store, "an-anonymous-learner-id", GC, "numpy") == 0
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(statements) == 1, statements
    assert outbox(registered) == []


def test_a_broken_outbox_never_fails_the_submit(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    session = launched(browser, platform)
    with registered.store.engine.begin() as connection:
        connection.execute(text("drop table score_outbox"))
    assert submit(registered, session)["status"] == "pass"


# --- refused launches ---


REFUSED = [
    ("forged", {"signing": "other"}, "signature does not match the platform"),
    ("expired", {"expired": True}, "the launch expired at"),
    ("wrong audience", {"audience": "another-client"}, "client_id &#39;another-client&#39;"),
    ("alg none", {"signing": "none"}, "only RS256 is accepted"),
]


@pytest.mark.parametrize(("what", "token", "says"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_bad_launch_gets_a_page_saying_what_was_wrong(
    registered: Drill,
    platform: Platform,
    browser: Browser,
    what: str,
    token: dict[str, Any],
    says: str,
) -> None:
    state, nonce = browser.pending(platform)
    id_token = platform.id_token(nonce=nonce, **token)
    answer = browser.post_launch({"state": state, "id_token": id_token})
    page = refusal(answer, 401, "The launch was refused", says)
    assert "Go back to your course in the LMS" in page
    # Shown inside the LMS's frame (the issuer is registered), and nothing was made.
    assert f"frame-ancestors {platform.base}" in answer.headers["content-security-policy"]
    assert rows(registered, select(AccountRow)) == rows(registered, select(SessionRow)) == []
    assert "drill_session" not in answer.headers.get("set-cookie", "")


def test_a_replayed_launch_is_refused(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """Guard: the state is used up by the launch (DbLoginStates.take deletes it)."""
    form = browser.platform_form(platform)
    assert browser.post_launch(form.fields).status_code == 200
    again = browser.post_launch(form.fields)
    refusal(again, 401, "state is unknown, expired or already used")
    # The same id_token with another login's state: not that login's nonce.
    state, _ = browser.pending(platform)
    other = browser.post_launch({**form.fields, "state": state})
    refusal(other, 401, "nonce is not the one this browser")
    assert len(rows(registered, select(SessionRow))) == 1


def test_a_nonce_is_used_once_even_under_another_state(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """Guard: the nonce store (DbNonces.use_once). A second pending login carrying an
    already used nonce (a platform that repeats one, a copied state) is refused."""
    form = browser.platform_form(platform)
    assert browser.post_launch(form.fields).status_code == 200
    (used,) = rows(registered, text("select nonce from lti_nonces"))
    registrations = DbRegistrations(registered.store)
    states = DbLoginStates(registered.store, registrations)
    soon = time.time() + 60
    copied = PendingLogin("copied", used[0], platform.base, platform.client_id, "", soon)
    states.put(copied)
    replay = browser.post_launch({**form.fields, "state": "copied"})
    refusal(replay, 401, "this launch was already used (nonce seen before)")


def test_a_launch_without_its_state_or_token_is_refused(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    refusal(browser.post_launch({"id_token": platform.id_token()}), 400, "no state")
    refusal(browser.post_launch({}), 400, "no id_token and state")
    refusal(
        browser.post_launch({"state": "made-up", "id_token": platform.id_token()}),
        401,
        "state is unknown",
    )


def test_a_link_that_names_no_exercise_says_so(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    state, nonce = browser.pending(platform)
    token = platform.id_token(nonce=nonce, changes={LTI + "custom": {"exercise": "no-such"}})
    answer = browser.post_launch({"state": state, "id_token": token})
    refusal(answer, 400, "Drill cannot open this link", "“no-such”, which Drill does not have")


def test_only_the_lti_login_and_launch_may_come_from_another_site(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """Guard: the exemption is exactly /lti/login and /lti/launch. Without it the LMS's
    form post is refused (403); with a wider one, the deep link and the registration
    forms could be posted from anywhere."""
    answer = browser.launch(platform)  # posted with Sec-Fetch-Site: cross-site
    assert answer.status_code == 200
    login = browser.client.post(
        f"{registered.base}/lti/login", data=platform.login_initiation(), headers=CROSS_SITE
    )
    assert login.status_code == 302
    for path in ("/lti/deep-link", "/lti/register", "/lti/registrations", "/lti/launch/"):
        refused = httpx.post(f"{registered.base}{path}", data={"a": "b"}, headers=CROSS_SITE)
        assert refused.status_code == 403, path
        assert refused.json()["error"] == "cross_site"


def test_a_cross_site_launch_sets_no_learner_cookie(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """Guard: a launch comes without the SameSite=Lax learner cookie; a new one in its
    answer would replace the learner's anonymous work in that browser."""
    form = browser.platform_form(platform)
    answer = httpx.post(f"{registered.base}/lti/launch", data=form.fields, headers=CROSS_SITE)
    assert answer.status_code == 200
    assert not [c for c in answer.headers.get_list("set-cookie") if "drill_learner" in c]
    login = httpx.get(f"{registered.base}/lti/login", params=platform.login_initiation())
    assert not [c for c in login.headers.get_list("set-cookie") if "drill_learner" in c]
    # Any other page still gives a first visitor their learner cookie.
    assert "drill_learner=" in httpx.get(f"{registered.base}/").headers["set-cookie"]


# --- deep linking ---


def test_an_instructor_adds_an_exercise_by_deep_linking(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    picker = browser.launch(platform, "teacher", "deep")
    assert picker.status_code == 200, picker.text
    assert f"frame-ancestors {platform.base};" in picker.headers["content-security-policy"]
    form = FormReader(picker.text)
    assert form.action == "/lti/deep-link" and form.fields["token"]
    assert 'value="gradient-checkpointing:torch"' in picker.text
    answer = browser.client.post(
        f"{registered.base}/lti/deep-link",
        data={"token": form.fields["token"], "task": f"{GC}:torch"},
        headers={"Sec-Fetch-Site": "same-origin"},
    )
    assert answer.status_code == 200, answer.text
    csp = answer.headers["content-security-policy"]
    assert f"form-action 'self' {platform.base}" in csp
    assert "/static/lti-autosubmit.js" in answer.text
    back = FormReader(answer.text)
    assert back.action == f"{platform.base}/deep-link-return" and set(back.fields) == {"JWT"}
    # The browser's auto-submitted form: the platform checks the JWT with Drill's keys.
    taken = httpx.post(back.action, data=back.fields)
    assert taken.status_code == 200, taken.text
    (claims,) = platform.deep_links
    assert claims[DL + "data"] == "opaque-platform-data"
    (item,) = claims[DL + "content_items"]
    (assignment,) = rows(registered, select(AssignmentRow))
    assert (assignment.exercise, assignment.track) == (GC, "torch")
    assert item["type"] == "ltiResourceLink"
    assert item["url"] == f"{registered.base}/lti/launch"
    assert item["custom"] == {"exercise": GC, "track": "torch"}
    assert item["lineItem"]["resourceId"] == assignment.id
    assert item["lineItem"]["scoreMaximum"] == 1.0
    assert item["title"] == item["lineItem"]["label"] == "Gradient checkpointing (PyTorch)"
    member = rows(registered, select(MemberRow.role, MemberRow.source))
    assert member == [("instructor", "lti")]


def test_deep_linking_is_for_instructors_and_its_token_is_checked(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """Guard: the picker's token is signed by the tool and checked (no cookie is)."""
    learner = browser.launch(platform, "learner1", "deep")
    refusal(learner, 403, "only the course&#39;s instructors add Drill exercises")
    picker = FormReader(browser.launch(platform, "teacher", "deep").text)
    token = picker.fields["token"]
    head, body, signature = token.split(".")
    forged = f"{head}.{body}.{signature[:-4]}AAAA"
    answer = browser.client.post(
        f"{registered.base}/lti/deep-link", data={"token": forged, "task": f"{GC}:numpy"}
    )
    refusal(answer, 401, "the exercise picker&#39;s token is not one this tool made")
    unknown = browser.client.post(
        f"{registered.base}/lti/deep-link", data={"token": token, "task": "nope:numpy"}
    )
    refusal(unknown, 400, "choose an exercise and a track from the list")
    assert platform.deep_links == []


# --- the roster ---


def test_the_roster_is_read_from_the_lms(
    registered: Drill,
    platform: Platform,
    browser: Browser,
    cli_db: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    teacher = launched(browser, platform, "teacher")
    learner = launched(browser, platform, "learner1")
    course = course_id(registered)
    refused = httpx.post(
        f"{registered.base}/courses/{course}/roster/sync", headers={"X-Drill-Session": learner}
    )
    assert refused.status_code == 404  # a learner sees no such thing
    answer = httpx.post(
        f"{registered.base}/courses/{course}/roster/sync",
        headers={"X-Drill-Session": teacher},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    assert "The LMS lists 7 active members: 5 new to the course, 0 with a new role." in answer.text
    members = rows(
        registered,
        select(AccountRow.display_name, MemberRow.role, MemberRow.source).join(
            MemberRow, MemberRow.account_id == AccountRow.id
        ),
    )
    assert sorted(members) == sorted(
        [
            ("Ada Teacher", "instructor", "lti"),
            ("Learner 1", "learner", "lti"),
            ("Tom Assistant", "assistant", "roster"),
            *((f"Learner {n}", "learner", "roster") for n in range(2, 6)),
        ]
    )
    # A member's later launch finds the account the roster made.
    launched(browser, platform, "learner4")
    assert len(rows(registered, select(AccountRow))) == 7
    # The command line does the same (nothing new now).
    assert main(["course", "roster", course, "--sync"]) == 0
    out = capsys.readouterr()
    assert "7 active members: 0 new to the course" in out.err
    assert "assistant	Tom Assistant	-	roster" in out.out
    # A course Drill made itself has no LMS roster to read.
    accounts = registered.app.state.accounts
    owner = accounts.sign_up("owner", "a long password", "Owner")
    own = registered.app.state.courses.create(owner, "Local")
    assert main(["course", "roster", own.id, "--sync"]) == 1
    assert "this course was not made by an LMS" in capsys.readouterr().err


def test_a_failing_roster_read_is_said_on_the_course_page(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    teacher = launched(browser, platform, "teacher")
    platform.fail_next = [500]
    answer = httpx.post(
        f"{registered.base}/courses/{course_id(registered)}/roster/sync",
        headers={"X-Drill-Session": teacher},
        timeout=30,
    )
    page = refusal(answer, 502, "Could not read the roster: the platform answered 500")
    assert "Read the roster from the LMS" in page


def test_outbox_rows_left_by_a_node_that_died_mid_send_go_after_the_lease(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """A row claimed by a node that died (its claim stays) is sent by another node once
    the lease is over, and only then."""
    sender = registered.app.state.score_sender
    sender.stop()
    submit(registered, launched(browser, platform))
    (row,) = outbox(registered)
    claimed_until = datetime.now(UTC) + timedelta(seconds=0.8)
    with registered.store.engine.begin() as connection:
        connection.execute(
            update(ScoreOutboxRow)
            .where(ScoreOutboxRow.id == row.id)
            .values(next_attempt_at=claimed_until)
        )
    other = ScoreSender(registered.store, registered.app.state.lti.services)
    assert other.run_once() == 0 and platform.scores == []
    time.sleep(1.0)
    assert other.run_once() == 1 and len(platform.scores) == 1


def test_a_launch_must_come_from_the_platform_its_login_went_to(
    registered: Drill, platform: Platform, browser: Browser, keys: Keys
) -> None:
    """Guard: the launch's issuer and client id are the pending login's. Another
    registered platform that learned a login's nonce cannot end that login."""
    other = Platform(keys.rotated, keys.forger)
    with other.running():
        DbRegistrations(registered.store).add(other.registration())
        other.know_tool(ToolSite(registered.base))
        state, nonce = browser.pending(platform)
        answer = browser.post_launch({"state": state, "id_token": other.id_token(nonce=nonce)})
        refusal(answer, 401, "comes from another platform than the login it ends")
        assert launched(browser, other)  # its own launches work


def test_a_launch_without_a_course_opens_the_exercise_with_no_grade(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    state, nonce = browser.pending(platform)
    token = platform.id_token(nonce=nonce, drop=[LTI + "context"])
    answer = browser.post_launch({"state": state, "id_token": token})
    assert answer.status_code == 200, answer.text
    assert "Signed in from" in answer.text and "Deep Learning" not in answer.text
    submit(registered, page_data(answer.text)["session"])
    assert rows(registered, select(CourseRow)) == [] and outbox(registered) == []


def test_a_score_of_a_removed_assignment_is_dropped(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    registered.app.state.score_sender.stop()
    submit(registered, launched(browser, platform))
    (assignment,) = rows(registered, select(AssignmentRow))
    registered.app.state.courses.unassign(assignment.course_id, assignment.id)
    sender = ScoreSender(registered.store, registered.app.state.lti.services)
    assert sender.run_once() == 0
    assert outbox(registered) == [] and platform.scores == []


def test_the_public_url_is_what_drill_tells_the_lms(tmp_path: Path) -> None:
    """DRILL_PUBLIC_URL (behind a proxy, the address the LMS reaches) over the request's."""
    with pytest.raises(ValueError, match="DRILL_PUBLIC_URL"):
        drill_settings(tmp_path, public_url="drill.example.org")
    settings = drill_settings(tmp_path, public_url="https://drill.example.org/")
    with running_drill(settings) as running, httpx.Client(base_url=running.base) as operator:
        operator.post("/instructor/login", data={"token": OPERATOR_TOKEN})
        page = operator.get("/lti/registrations").text
    assert "https://drill.example.org/lti/launch" in page and running.base not in page


def test_a_regrade_that_changes_the_verdict_sends_the_new_score(
    registered: Drill, platform: Platform, browser: Browser
) -> None:
    """A Submit fails (0 goes to the LMS); the instructor fixes the tests and regrades it
    (here: a grader that passes it, against a new version); the LMS gets 1."""
    from dataclasses import replace

    from app.regrade import Run, to_regrade

    session = launched(browser, platform)
    assert submit(registered, session, WRONG)["status"] != "pass"
    wait_for(lambda: len(platform.scores) == 1, what="the first score")
    service = registered.app.state.service
    grader = service.grader
    fixed = replace(grader.catalog.get(GC), version="fixed-tests")

    class FixedTests:
        catalog = grader.catalog

        def grade(self, exercise: Any, track: str, code: str, mode: str, **kw: Any) -> Any:
            return grader.grade(exercise, track, SOLUTION, mode, **kw)  # now it passes

    chosen = to_regrade(registered.store, fixed, "numpy", None)
    assert len(chosen) == 1
    run = Run(registered.store, FixedTests(), fixed, "numpy", None, False, chosen)  # type: ignore[arg-type]
    assert run.execute(1).to_pass == 1
    wait_for(lambda: len(platform.scores) == 2, what="the regraded score")
    assert [s["scoreGiven"] for s in platform.scores] == [0.0, 1.0]
