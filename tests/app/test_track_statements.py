"""A statement's track-only parts on the web: rendered per track, in the API
(``statement_html`` with every part labelled, ``tracks[T].statement_html`` per track), in
the OpenAPI document and on the exercise page. Over the fake grading backend: no sandbox."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.rendering import render_statement
from tests.app.conftest import client_for
from tests.fakes import ReferenceOnlyBackend
from tests.graders.test_track_sections import STATEMENT, two_tracks

GC = "gradient-checkpointing"


def test_one_tracks_view_lacks_the_other_tracks_part() -> None:
    numpy, torch = render_statement(STATEMENT, "numpy"), render_statement(STATEMENT, "torch")
    assert '<div class="track-only" data-track="numpy">\n<h2>NumPy track</h2>' in numpy
    assert "PyTorch" not in numpy and "requires_grad" not in numpy
    assert '<div class="track-only" data-track="torch">\n<h2>PyTorch track</h2>' in torch
    assert "NumPy" not in torch and "makes a new one" not in torch
    for view in (numpy, torch):
        assert "<code>double(x)</code>" in view  # the shared text
        assert '<h2 id="going-further">Going further</h2>' in view
        assert "track-only-label" not in view and ":::" not in view


def test_the_whole_statement_labels_each_part_with_its_track() -> None:
    html = render_statement(STATEMENT)
    assert (
        '<div class="track-only" data-track="numpy">\n'
        '<p class="track-only-label">NumPy track only</p>\n<h2>NumPy track</h2>'
    ) in html
    assert (
        '<div class="track-only" data-track="torch">\n'
        '<p class="track-only-label">PyTorch track only</p>\n<h2>PyTorch track</h2>'
    ) in html
    assert html.count("</div>") == 2 and html.count('id="going-further"') == 1


def test_going_further_inside_a_block_is_marked_in_that_tracks_view() -> None:
    statement = "# T\n\n::: track torch\n## Going further\nTensors.\n:::\n"
    assert 'id="going-further"' in render_statement(statement, "torch")
    assert "Going further" not in render_statement(statement, "numpy")


def test_a_part_renders_no_raw_html() -> None:
    statement = '::: track numpy\n<script>alert("x")</script>\n:::\n'
    for track in (None, "numpy"):
        html = render_statement(statement, track)
        assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("track-statements")
    exercises = two_tracks(tmp / "exercises")
    with client_for(tmp, exercises, backend=ReferenceOnlyBackend()) as web:
        yield web


def test_the_api_gives_every_part_and_each_tracks_view(client: TestClient) -> None:
    body = client.get("/api/exercises/double").json()
    assert body["statement_html"] == render_statement(STATEMENT)
    assert set(body["tracks"]) == {"numpy", "torch"}
    for track, info in body["tracks"].items():
        assert info["statement_html"] == render_statement(STATEMENT, track)
    assert "requires_grad" not in body["tracks"]["numpy"]["statement_html"]
    assert "makes a new one" not in body["tracks"]["torch"]["statement_html"]


def test_the_openapi_document_says_what_each_statement_holds(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    whole = schemas["ExerciseDetail"]["properties"]["statement_html"]["description"]
    per_track = schemas["TrackInfo"]["properties"]["statement_html"]["description"]
    assert "every track's parts" in whole and "track-only-label" in whole
    assert "this track's learners" in per_track and "not the other tracks' parts" in per_track
    assert "statement_html" in schemas["TrackInfo"]["required"]


def test_the_page_holds_every_part_marked_with_its_track(client: TestClient) -> None:
    page = client.get("/exercises/double").text
    # The page script shows the selected track's parts (frontend/src/statement.js).
    assert re.findall(r'class="track-only" data-track="(\w+)"', page) == ["numpy", "torch"]
    assert page.count('class="track-only-label"') == 2


@pytest.mark.catalog
def test_gradient_checkpointing_tells_each_track_only_its_part(tmp_path: Path) -> None:
    with client_for(tmp_path, backend=ReferenceOnlyBackend()) as web:
        body = web.get(f"/api/exercises/{GC}").json()
    numpy = body["tracks"]["numpy"]["statement_html"]
    torch = body["tracks"]["torch"]["statement_html"]
    assert "<h2>NumPy track</h2>" in numpy and "<h2>PyTorch track</h2>" not in numpy
    assert "<h2>PyTorch track</h2>" in torch and "<h2>NumPy track</h2>" not in torch
    assert "inference_mode" in torch and "inference_mode" not in numpy
    for html in (numpy, torch, body["statement_html"]):
        assert html.count('<h2 id="going-further">Going further</h2>') == 1
