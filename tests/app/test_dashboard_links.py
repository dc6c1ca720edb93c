"""From the instructor dashboard to the learner's page: a link per exercise on the
overview, one per track on the exercise's page, and the page opening on the track its
``?track=`` names. Over a fake grading backend (no sandbox)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from app import instructor_auth
from tests.app.conftest import client_for
from tests.app.test_instructor import cookie_for
from tests.conftest import TEST_EXERCISES
from tests.fakes import ReferenceOnlyBackend
from tests.graders.test_cli_details import two_track_exercises

TOKEN = "s3cret"


class Links(HTMLParser):
    """Every link of a page: (href, its text, hidden text included)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self._open: list[list[str]] = []  # the hrefs and texts of the links being read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._open.append([dict(attrs).get("href") or "", ""])

    def handle_data(self, data: str) -> None:
        for link in self._open:
            link[1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open:
            href, text = self._open.pop()
            self.links.append((href, " ".join(text.split())))


def links(page: str) -> list[tuple[str, str]]:
    parser = Links()
    parser.feed(page)
    return parser.links


def page_data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', page)
    assert found, "no page data"
    return dict(json.loads(found.group(1)))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("dashboard-links")
    exercises = two_track_exercises(tmp)
    shutil.copytree(TEST_EXERCISES / "double", exercises / "single")  # one track: numpy
    with client_for(
        tmp, exercises, backend=ReferenceOnlyBackend(), instructor_token=TOKEN
    ) as test_client:
        test_client.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))
        yield test_client


def test_the_overview_links_each_exercise_to_its_learner_page(client: TestClient) -> None:
    answer = client.get("/instructor")
    assert answer.status_code == 200
    learner_links = [(h, t) for h, t in links(answer.text) if h.startswith("/exercises/")]
    # One per exercise, whatever its number of tracks.
    assert learner_links == [
        ("/exercises/double", "Learner's page"),
        ("/exercises/single", "Learner's page"),
    ]


def test_the_exercise_dashboard_links_to_each_tracks_learner_page(client: TestClient) -> None:
    answer = client.get("/instructor/exercises/double")
    assert answer.status_code == 200
    found = links(answer.text)
    assert ("/exercises/double?track=numpy", "Open the NumPy learner's page") in found
    assert ("/exercises/double?track=torch", "Open the PyTorch learner's page") in found

    single = links(client.get("/instructor/exercises/single").text)
    assert [h for h, _ in single if "?track=" in h] == ["/exercises/single?track=numpy"]


def test_the_learner_page_opens_on_the_track_of_its_address(client: TestClient) -> None:
    plain = page_data(client.get("/exercises/double").text)
    assert plain["default_track"] == "numpy" and plain["requested_track"] is None

    answer = client.get("/exercises/double?track=torch")
    assert answer.status_code == 200
    data = page_data(answer.text)
    assert data["default_track"] == "torch" and data["requested_track"] == "torch"
    # Without script too: the torch button is the pressed one.
    assert re.search(r'data-track="torch" aria-pressed="true"', answer.text)
    assert re.search(r'data-track="numpy" aria-pressed="false"', answer.text)

    # A track the exercise lacks is ignored, not an error (an old link, a typo).
    other = client.get("/exercises/single?track=torch")
    assert other.status_code == 200
    assert page_data(other.text)["requested_track"] is None
