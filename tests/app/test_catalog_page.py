"""The catalog page's progress over a fake grading backend (no sandbox): per-track solved
marks on each card and the solved counts of each section, for the calling learner only.
tests/browser/test_accessibility.py and test_learner_flow.py see the same in Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.app.conftest import client_for
from tests.catalog import MEMORY_SECTION_NAME, shipped_catalog, shipped_exercises_dir
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
