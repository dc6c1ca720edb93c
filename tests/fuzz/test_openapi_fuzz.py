"""Schemathesis against the running service's own OpenAPI document: whatever the input,
no answer is a 5xx, and every error is JSON that says what was wrong."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from graders.settings import ROOT
from tests.serving import running_server

pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    var: Path = tmp_path_factory.mktemp("fuzz")
    with running_server(
        var,
        DRILL_EXERCISES_DIR=str(ROOT / "tests" / "graders" / "exercises"),
        DRILL_RATE_BURST="1000",
        DRILL_RATE_PER_MINUTE="100000",
    ) as server:
        yield schemathesis.openapi.from_url(f"{server.base}/openapi.json")


def test_no_server_errors_and_clear_client_errors(api_schema: schemathesis.BaseSchema) -> None:
    # Driven through Hypothesis directly (schemathesis' pytest plugin trips on pytest 9).
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 6
    seen: dict[str, set[int]] = {}
    for operation in operations:
        statuses = seen.setdefault(operation.label, set())

        @given(
            case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE)
            | operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
            real=st.booleans(),
        )
        @settings(
            max_examples=60,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case: schemathesis.Case, real: bool) -> None:
            # Half the cases address the real exercise, so grading itself gets fuzzed.
            if real and case.path_parameters and "slug" in case.path_parameters:
                case.path_parameters["slug"] = "double"
                if "track" in case.path_parameters:
                    case.path_parameters["track"] = "numpy"
                if isinstance(case.body, dict) and "track" in case.body:
                    case.body["track"] = "numpy"
            response = case.call(timeout=60)
            statuses.add(response.status_code)
            assert response.status_code < 500, (case.path, response.status_code, response.text)
            if response.status_code >= 400:
                body = response.json()
                assert isinstance(body.get("error"), str) and body.get("message"), body

        check()
    # The fuzzing reached the grading path and the error paths, not only the 404s.
    assert {200, 422} <= seen["POST /api/exercises/{slug}/submissions"], seen
    assert 200 in seen["PUT /api/drafts/{slug}/{track}"], seen
