"""GET /api/submissions/{id}/code: a learner's own submitted code, which the exercise page
loads back into the editor from the submission history. Nobody else's, ever."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.app.conftest import assert_error, client_for
from tests.fakes import ReferenceOnlyBackend

pytestmark = pytest.mark.catalog

GC = "gradient-checkpointing"
CODE = "def checkpoint_forward(layers, x, checkpoint_indices):\n    return None  # é ✓\n"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("submission-code")
    with client_for(tmp, backend=ReferenceOnlyBackend(), rate_burst=1000) as web:
        yield web


def submitted(who: TestClient, code: str = CODE, mode: str = "submit") -> str:
    body = {"track": "numpy", "code": code, "mode": mode}
    response = who.post(f"/api/exercises/{GC}/submissions", json=body)
    assert response.status_code == 200, response.text
    sub_id: str = response.json()["id"]
    return sub_id


def test_the_author_gets_the_exact_code_of_each_submission(client: TestClient) -> None:
    first = submitted(client)
    second = submitted(client, CODE + "# again\n", mode="run")
    answer = client.get(f"/api/submissions/{first}/code")
    assert answer.status_code == 200
    assert answer.json() == {"id": first, "code": CODE}
    assert client.get(f"/api/submissions/{second}/code").json()["code"] == CODE + "# again\n"


def test_another_learner_never_gets_it(client: TestClient) -> None:
    mine = submitted(client)
    stranger = TestClient(client.app)  # an empty cookie jar: another learner
    answer = stranger.get(f"/api/submissions/{mine}/code")
    # The same answer as for an id that does not exist: it says nothing of the id.
    assert_error(answer, 404, "not_found", "of yours")
    unknown = stranger.get("/api/submissions/0123456789abcdef0123456789abcdef/code")
    assert (
        unknown.json()["message"].replace("0123456789abcdef0123456789abcdef", mine)
        == (answer.json()["message"])
    )
    # The result itself stays readable by id, as before; only the code is private.
    assert stranger.get(f"/api/submissions/{mine}").status_code == 200


@pytest.mark.parametrize("bad", ["NOT-HEX", "a" * 65], ids=["not-hex", "too-long"])
def test_a_malformed_id_is_refused(client: TestClient, bad: str) -> None:
    assert client.get(f"/api/submissions/{bad}/code").status_code == 422
