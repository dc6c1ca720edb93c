"""The remote backend while its broker is away: no broker runs in these tests (the
cluster tests in tests/distributed play the rest against a real one)."""

from __future__ import annotations

import threading
from pathlib import Path

from graders.errors import QueueUnavailable
from graders.grading.catalog import load_catalog
from graders.grading.references import DiskCache
from graders.queue.remote import RemoteBackend
from tests.conftest import TEST_EXERCISES, make_settings
from tests.services import free_port

PASSING = (Path(__file__).parent / "cases" / "passing" / "submission.py").read_text()


def test_a_submit_while_the_broker_is_away_does_not_wait_for_a_reference_in_progress(
    tmp_path: Path,
) -> None:
    """A reference computed when the broker went away holds the reference lock until its
    run's bound (minutes); a Submit meanwhile is answered 503 at once, not after it."""
    settings = make_settings(tmp_path, TEST_EXERCISES, queue=f"nats://127.0.0.1:{free_port()}")
    exercise = load_catalog(TEST_EXERCISES).get("double")
    backend = RemoteBackend(settings, DiskCache(tmp_path / "references"))
    backend.start()  # nothing listens there: it serves degraded, retrying in the background
    answers: list[BaseException | object] = []

    def submit() -> None:
        try:
            answers.append(backend.grade(exercise, "numpy", PASSING, "submit"))
        except BaseException as exc:  # what it raised is the answer
            answers.append(exc)

    try:
        assert not backend.status.healthy
        computing = threading.Lock()  # the track's reference being computed, as at start-up
        backend.references._computing[backend.references.key(exercise, "numpy")] = computing
        with computing:
            learner = threading.Thread(target=submit, daemon=True)
            learner.start()
            learner.join(10)
            waited = learner.is_alive()
        learner.join(10)
    finally:
        backend.close()
    assert not waited, "the Submit waited for the reference lock"
    (answer,) = answers
    assert isinstance(answer, QueueUnavailable), answer
    assert "grading queue is unreachable" in str(answer) and answer.retry_after > 0
    assert "nats://" not in str(answer)  # the broker's address is not the learner's business
