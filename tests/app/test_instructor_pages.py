"""The instructor's exercise page over a fake grading backend (no sandbox: ``make
test-fast`` runs these): the submitted code highlighted and escaped, the filter of recent
submissions by learner pseudonym, and the tables that scroll inside themselves."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from app import instructor_auth, rendering, stats
from app.store import new_id
from app.tables import write_submissions
from tests.app.conftest import client_for
from tests.app.test_instructor import cookie_for
from tests.fakes import ReferenceOnlyBackend
from tests.shapes import plain

pytestmark = pytest.mark.catalog

TOKEN = "s3cret"
GC = "gradient-checkpointing"
PAGE = f"/instructor/exercises/{GC}"
ADA, BOB = "learner-ada-0123456789", "learner-bob-9876543210"
# Would end the <pre>, open a script and run an image's onerror if it were not escaped.
HOSTILE = (
    "def checkpoint_forward(x):\n"
    '    """</code></pre></script><img src=x onerror=alert(1)>"""\n'
    "    return x  # <script>alert('owned')</script> & more\n"
)
EPOCH = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def store_submit(store: Any, learner: str, code: str, minute: int) -> str:
    """A failed Submit of ``learner`` written straight to the store (``minute`` orders them)."""
    sub_id, created = new_id(), EPOCH + timedelta(minutes=minute)
    result = {
        "id": sub_id,
        "version": 1,
        "exercise": GC,
        "track": "numpy",
        "mode": "submit",
        "status": "fail",
        "message": "0/1 tests passed",
        "passed": 0,
        "total": 1,
        "duration_ms": 1.0,
        "tests": [{"name": "t", "status": "fail", "message": "no", "output": ""}],
        "created_at": created.isoformat(),
    }
    row = {
        "id": sub_id,
        "learner": learner,
        "exercise": GC,
        "track": "numpy",
        "mode": "submit",
        "exercise_version": "v",
        "status": "fail",
        "passed": 0,
        "total": 1,
        "duration_ms": 1.0,
        "created_at": created,
        "code": code,
        "result": result,
    }
    with store.engine.begin() as connection:
        write_submissions(connection, [row])
    return sub_id


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("instructor-pages")
    with client_for(tmp, backend=ReferenceOnlyBackend(), instructor_token=TOKEN) as test_client:
        test_client.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))
        yield test_client


@pytest.fixture(scope="module")
def made(client: TestClient) -> dict[str, list[str]]:
    """Ids of each learner's Submits, oldest first: Ada twice, Bob once."""
    store = client.app.state.service.store  # type: ignore[attr-defined]
    return {
        ADA: [store_submit(store, ADA, HOSTILE, 1), store_submit(store, ADA, "x = 1\n", 3)],
        BOB: [store_submit(store, BOB, "y = 2\n", 2)],
    }


def shown_ids(page: str) -> list[str]:
    return re.findall(r'href="/api/submissions/([0-9a-f]+)"', page)


def code_blocks(page: str) -> list[str]:
    """The inside of each submission's <pre><code>, as the page sends it."""
    return re.findall(
        r'<pre class="recent-code highlight"[^>]*><code>(.*?)</code></pre>', page, re.S
    )


def as_text(block: str) -> str:
    """What a browser shows of a code block: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "", block))


# --- highlighting ---


def test_the_code_is_highlighted_and_every_character_escaped(
    client: TestClient, made: dict[str, list[str]]
) -> None:
    page = client.get(PAGE).text
    hostile = code_blocks(page)[shown_ids(page).index(made[ADA][0])]
    assert '<span class="k">def</span>' in hostile  # Pygments' classes: app.css colours them
    assert '<span class="c1">' in hostile  # the comment
    assert as_text(hostile) == HOSTILE  # the code exactly, not a character more or less
    for raw in ("<img", "<script", "</pre></script>", "onerror=alert(1)>"):
        assert raw not in hostile
    assert "&lt;img src=x onerror=alert(1)&gt;" in hostile
    assert "# &lt;script&gt;alert('owned')&lt;/script&gt; &amp; more" in hostile
    assert "<script" not in page.split("</head>")[1]  # nothing on the page runs


def test_code_too_long_to_highlight_is_shown_plain(client: TestClient) -> None:
    long = "x = '<b>'  # " + "a" * rendering.HIGHLIGHT_CHARS + "\n"
    assert rendering.highlight_python(long) == escape(long)
    # Short code whose spans would be too many: also plain (a page stays small).
    dense = "a.b" * (rendering.HIGHLIGHT_CHARS // 3)
    assert "<span" not in rendering.highlight_python(dense)
    assert "<span" in rendering.highlight_python("a.b\n")


# --- the learner filter ---


def test_the_filter_shows_one_learners_submits(
    client: TestClient, made: dict[str, list[str]]
) -> None:
    everyone = client.get(PAGE).text
    assert shown_ids(everyone) == [made[ADA][1], made[BOB][0], made[ADA][0]]  # newest first
    ada = stats.short_learner(ADA)
    assert ADA not in everyone  # only pseudonyms are shown
    # Each submission offers its learner's filter.
    assert f'href="{PAGE}?learner={ada}#recent-heading"' in everyone
    assert "Clear filter" not in everyone

    for asked in (ada, ada.upper(), f"  {ada} "):
        response = client.get(PAGE, params={"learner": asked})
        assert response.status_code == 200
        page = response.text
        assert shown_ids(page) == [made[ADA][1], made[ADA][0]]
        assert f'name="learner" type="search" value="{ada}"' in page
        assert "Filtered: learner <code" in page and f">{ada}</code> only" in page
        assert f'<a class="button button-quiet" href="{PAGE}#recent-heading">Clear filter</a>' in (
            page
        )
        assert "The newest 2 Submits of this learner" in page
    bob = client.get(PAGE, params={"learner": stats.short_learner(BOB)}).text
    assert shown_ids(bob) == [made[BOB][0]] and "The only Submit of this learner" in bob


def test_a_pseudonym_without_submits_says_so(
    client: TestClient, made: dict[str, list[str]]
) -> None:
    page = client.get(PAGE, params={"learner": "0" * 10}).text
    assert shown_ids(page) == []
    assert "No Submits of learner <code>0000000000</code> on this exercise." in page


@pytest.mark.parametrize(
    "value",
    [
        "xyz",
        "3fa2c81b0",
        "3fa2c81b0d1",
        "learner 3fa2c81b0d",
        "<script>alert(1)</script>",
        "z" * 500,
    ],
    ids=["short", "nine", "eleven", "with-word", "markup", "huge"],
)
def test_a_malformed_pseudonym_is_a_clear_400(
    client: TestClient, made: dict[str, list[str]], value: str
) -> None:
    response = client.get(PAGE, params={"learner": value})
    assert response.status_code == 400
    page = response.text
    assert 'role="alert"' in page and "is not a learner pseudonym" in page
    assert "10 characters (digits and a–f)" in page
    assert 'aria-invalid="true"' in page and "learner-filter-error" in page
    assert "<script>alert" not in page  # echoed, escaped
    assert len(page) < 60_000 and "z" * 101 not in page  # echoed, clipped
    assert shown_ids(page) == [made[ADA][1], made[BOB][0], made[ADA][0]]  # not filtered
    assert "Clear filter" in page


def test_an_empty_filter_is_no_filter(client: TestClient, made: dict[str, list[str]]) -> None:
    response = client.get(PAGE, params={"learner": "  "})
    assert response.status_code == 200 and len(shown_ids(response.text)) == 3
    assert "Clear filter" not in response.text


def test_recent_submissions_of_one_learner(client: TestClient, made: dict[str, list[str]]) -> None:
    store = client.app.state.service.store  # type: ignore[attr-defined]
    ada = stats.short_learner(ADA)
    assert stats.learners_named(store, GC, ada) == [ADA]
    assert stats.learners_named(store, "checkpointing-layer-stack", ada) == []
    rows = plain(stats.recent_submissions(store, GC, learner=ada))
    assert [r["id"] for r in rows] == made[ADA][::-1]
    assert {r["learner"] for r in rows} == {ada}
    assert plain(stats.recent_submissions(store, GC, learner="0" * 10)) == []
    assert len(plain(stats.recent_submissions(store, GC))) == 3


# --- small screens ---


def test_wide_boxes_scroll_by_keyboard_and_say_so(
    client: TestClient, made: dict[str, list[str]]
) -> None:
    for url in ("/instructor", PAGE):
        page = client.get(url).text
        boxes = re.findall(r'<div class="[^"]*instructor-scroll"[^>]*>', page)
        assert boxes, url
        for box in boxes:  # a focus stop with a name: keyboard users can scroll it
            assert 'tabindex="0"' in box and 'role="region"' in box, box
            assert "aria-label=" in box or "aria-labelledby=" in box, box
        assert page.count('class="scroll-cue"') == len(boxes)


def test_failures_not_the_learners_doing_are_said_apart(tmp_path: Any) -> None:
    """The exercise page says, per track and in each test's bar, which failures were not
    due to the learners' code; a track without any says nothing of it."""
    from graders.grading.results import Blame, GradeResult, Status, TestResult

    def failing(blame: Blame) -> GradeResult:
        test = TestResult(
            name="saves_inputs", id="saves_inputs", status=Status.ERROR, message="m", blame=blame
        )
        return GradeResult(
            exercise=GC, track="numpy", mode="submit", status=Status.FAIL, message="", tests=[test]
        )

    with client_for(tmp_path, backend=ReferenceOnlyBackend(), instructor_token=TOKEN) as client:
        client.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))
        store = client.app.state.service.store  # type: ignore[attr-defined]
        version = client.app.state.service.exercise(GC).version  # type: ignore[attr-defined]
        store.save_submission(ADA, failing(Blame.LEARNER), "x = 1", version)
        page = html.unescape(client.get(PAGE).text)
        assert "blamed-elsewhere" not in page and "not the learners' doing" not in page.lower()
        for blame in (Blame.TEST, Blame.TEST, Blame.INFRASTRUCTURE):
            store.save_submission(BOB, failing(blame), "x = 1", version)
        page = html.unescape(client.get(PAGE).text)
        said = "2 failed in the exercise's own tests; 1 ran on a grading machine that was lost"
        assert f"Not the learners' doing, and counted in the failures below: {said}." in page
        assert f"4 failures in 4 runs (not the learners' doing: {said})" in page
