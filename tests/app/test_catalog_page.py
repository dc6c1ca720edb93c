"""The catalog page's progress over a fake grading backend (no sandbox): per-track solved
marks on each card and the solved counts of each section, for the calling learner only.
tests/browser/test_accessibility.py and test_learner_flow.py see the same in Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.app.conftest import client_for
from tests.catalog import (
    BASICS_SECTION_NAME,
    MEMORY_SECTION_NAME,
    shipped_catalog,
    shipped_exercises_dir,
)
from tests.fakes import ReferenceOnlyBackend

pytestmark = pytest.mark.catalog

GC = "gradient-checkpointing"
LAYER_STACK = "checkpointing-layer-stack"
SECTION = MEMORY_SECTION_NAME
SOLUTION = (shipped_exercises_dir() / GC / "numpy" / "solution.py").read_text()


@pytest.fixture
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A service of its own per test: each starts with nothing solved."""
    tmp = tmp_path_factory.mktemp("catalog")
    with client_for(tmp, backend=ReferenceOnlyBackend()) as test_client:
        yield test_client


def submit(client: TestClient, slug: str, track: str, code: str, mode: str = "submit") -> str:
    body = {"track": track, "code": code, "mode": mode}
    response = client.post(f"/api/exercises/{slug}/submissions", json=body)
    assert response.status_code == 200, response.text
    status: str = response.json()["status"]
    return status


def card(page: str, slug: str) -> str:
    found = re.search(rf'<li class="exercise-card[^"]*" data-slug="{slug}">.*?</li>', page, re.S)
    assert found, slug
    return found.group(0)


def chips(card_html: str) -> dict[str, str]:
    """Track -> the chip's words, as a screen reader gets them (tags dropped)."""
    chip = r'<span class="chip track-chip[^"]*" data-track="(\w+)">(.*?)</span>'
    found = re.findall(chip + r'\s*(?=<span class="chip|</p>)', card_html, re.S)
    return {track: " ".join(re.sub(r"<[^>]*>", "", words).split()) for track, words in found}


def section_progress(page: str, name: str = SECTION) -> str:
    found = re.search(
        rf"<h2[^>]*>{name}</h2>.*?<p class=\"section-progress\">(.*?)</p>", page, re.S
    )
    assert found, name
    return " ".join(re.sub(r"<[^>]*>", "", found.group(1)).split())


def expected_progress(solved: int, numpy: int) -> str:
    """The section's progress line, its totals counted in the catalog."""
    members = [e for e in shipped_catalog() if e.meta.section == SECTION]
    numpy_total = sum("numpy" in e.tracks for e in members)
    torch_total = sum("torch" in e.tracks for e in members)
    return (
        f"{solved} of {len(members)} solved · NumPy {numpy} of {numpy_total}"
        f" · PyTorch 0 of {torch_total}"
    )


def test_nothing_solved_shows_plain_tracks_and_zero_counts(client: TestClient) -> None:
    page = client.get("/").text
    assert section_progress(page) == expected_progress(0, 0)
    assert chips(card(page, GC)) == {"numpy": "NumPy", "torch": "PyTorch"}
    assert "is-solved" not in page


def test_a_solved_track_is_marked_and_counted(client: TestClient) -> None:
    assert submit(client, GC, "numpy", "def broken(:\n") == "error"  # tried, not solved
    page = client.get("/").text
    assert chips(card(page, GC)) == {
        "numpy": "NumPy not yet solved",
        "torch": "PyTorch not yet solved",
    }
    assert section_progress(page) == expected_progress(0, 0)

    assert submit(client, GC, "numpy", SOLUTION) == "pass"
    page = client.get("/").text
    gc = card(page, GC)
    assert 'class="exercise-card is-solved"' in gc
    assert chips(gc) == {"numpy": "NumPy ✓ solved", "torch": "PyTorch not yet solved"}
    assert '<span aria-hidden="true">✓</span>' in gc  # the mark is not read out as "check"
    assert section_progress(page) == expected_progress(1, 1)
    members = sum(e.meta.section == SECTION for e in shipped_catalog())
    assert f'class="section-meter-fill" x="0" y="0" width="{round(100 / members, 1)}"' in page
    # Exercises the learner never tried keep plain track names.
    assert chips(card(page, LAYER_STACK)) == {"torch": "PyTorch"}


def test_a_run_is_not_a_solve(client: TestClient) -> None:
    assert submit(client, GC, "numpy", SOLUTION, mode="run") == "pass"
    page = client.get("/").text
    assert chips(card(page, GC))["numpy"] == "NumPy not yet solved"
    assert section_progress(page) == expected_progress(0, 0)


def test_progress_is_the_calling_learners_own(client: TestClient) -> None:
    assert submit(client, GC, "numpy", SOLUTION) == "pass"
    stranger = TestClient(client.app)  # another browser: another learner cookie
    page = stranger.get("/").text
    assert chips(card(page, GC)) == {"numpy": "NumPy", "torch": "PyTorch"}
    assert section_progress(page) == expected_progress(0, 0)
    assert section_progress(client.get("/").text) == expected_progress(1, 1)


def words(html: str) -> str:
    return " ".join(re.sub(r"<[^>]*>", "", html).split())


def section_facts(page: str, name: str) -> tuple[str, str]:
    """A section's level and length line, and its own line ("" without one)."""
    found = re.search(
        rf'<h2[^>]*>{name}</h2>.*?<p class="section-facts">(.*?)</p>\s*'
        r'(?:<p class="section-summary">(.*?)</p>)?',
        page,
        re.S,
    )
    assert found, name
    return words(found.group(1)), words(found.group(2) or "")


def test_sections_come_in_order_each_with_its_level_length_and_line(client: TestClient) -> None:
    catalog = shipped_catalog()
    page = client.get("/").text
    shown = re.findall(r'<h2 id="section-\d+">(.*?)</h2>', page)
    assert shown == [s.name for s in catalog.sections]
    assert shown[0] == BASICS_SECTION_NAME  # issue 29: the beginners' section first
    assert shown.index(BASICS_SECTION_NAME) < shown.index(MEMORY_SECTION_NAME)
    ranks = ["easy", "medium", "hard"]
    for section in catalog.sections:
        members = [e for e in catalog if e.meta.section == section.name]
        levels = sorted({e.meta.difficulty for e in members}, key=ranks.index)
        level = levels[0].capitalize() + (f" to {levels[-1]}" if len(levels) > 1 else "")
        tracks = sum(len(e.tracks) for e in members)
        length = f"{len(members)} exercise{'s' * (len(members) != 1)}, {tracks} tracks"
        assert section_facts(page, section.name) == (f"Level: {level} · {length}", section.summary)
    # The cards follow the same order: every card of a section before the next section's.
    cards = re.findall(r'data-slug="([^"]+)"', page)
    assert cards == [e.slug for e in catalog]


def test_a_solve_counts_in_its_own_section_only(client: TestClient) -> None:
    assert submit(client, GC, "numpy", SOLUTION) == "pass"
    page = client.get("/").text
    assert section_progress(page) == expected_progress(1, 1)
    assert section_progress(page, BASICS_SECTION_NAME).startswith("0 of ")
