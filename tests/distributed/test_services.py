"""The real servers the distributed tests start work as the tests will use them: a
JetStream work-queue stream with explicit acks and de-duplication, and PostgreSQL with
JSONB through SQLAlchemy and psycopg 3."""

from __future__ import annotations

import nats
import pytest
import sqlalchemy as sa
from nats.js.api import RetentionPolicy, StreamConfig

from tests.services import nats_server, postgres_server, run_async

pytestmark = pytest.mark.sandbox  # starts server processes: not part of make test-fast


def test_jetstream_work_queue_delivers_once_and_drops_a_duplicate() -> None:
    async def scenario(url: str) -> tuple[list[bytes], int]:
        connection = await nats.connect(url)
        js = connection.jetstream()
        await js.add_stream(
            StreamConfig(name="JOBS", subjects=["jobs.>"], retention=RetentionPolicy.WORK_QUEUE)
        )
        first = await js.publish("jobs.learner", b"job 1", headers={"Nats-Msg-Id": "s1"})
        again = await js.publish("jobs.learner", b"job 1", headers={"Nats-Msg-Id": "s1"})
        assert not first.duplicate and again.duplicate
        consumer = await js.pull_subscribe("jobs.learner", durable="workers")
        messages = await consumer.fetch(10, timeout=2)
        for message in messages:
            await message.ack_sync()  # the server confirms: the job leaves the queue
        info = await js.stream_info("JOBS")
        await connection.close()
        return [m.data for m in messages], info.state.messages

    with nats_server() as url:
        received, left = run_async(scenario(url))
    assert received == [b"job 1"]
    assert left == 0  # a work queue forgets an acknowledged job


def test_postgres_stores_and_queries_jsonb() -> None:
    with postgres_server() as url:
        engine = sa.create_engine(url)
        table = sa.Table(
            "results",
            sa.MetaData(),
            sa.Column("id", sa.String, primary_key=True),
            sa.Column("body", sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")),
        )
        table.metadata.create_all(engine)
        with engine.begin() as db:
            db.execute(table.insert(), [{"id": "a", "body": {"passed": 6, "total": 6}}])
            passed = db.execute(sa.select(table.c.body["passed"].as_integer())).scalar_one()
            kind = db.execute(sa.text("select pg_typeof(body)::text from results")).scalar_one()
        engine.dispose()
    assert passed == 6 and kind == "jsonb"
