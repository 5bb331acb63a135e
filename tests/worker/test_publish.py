"""What the API hands to the broker: JSON messages of ids, on the configured queue, with time limits."""

import json
from datetime import timedelta

from sqlalchemy import select, update

from service.models import Puzzle, now
from service.publish import SOLVE_CHUNK, CeleryPublisher
from tests.service.conftest import RecordingPublisher
from worker import reaper


def test_celery_publisher_sends_ids_with_time_limits(make_app):
    app = make_app(PUZZLE_TIME_LIMIT=10.0, HARD_TIME_GRACE=5.0, TASK_QUEUE="q-test")
    celery = app.extensions["celery"]
    celery.conf.broker_url = "memory://"
    CeleryPublisher(celery, app.config).publish([[1, 2, 3], [4]])
    with celery.connection_for_read() as conn:
        queue = conn.SimpleQueue("q-test")
        messages = [queue.get(timeout=2) for _ in range(2)]
        queue.close()
    for message, ids in zip(messages, [[1, 2, 3], [4]], strict=True):
        assert message.content_type == "application/json"
        assert message.headers["task"] == SOLVE_CHUNK
        args, _, _ = json.loads(message.body)
        assert args == [ids]
        hard, soft = message.headers["timelimit"]
        assert soft == 10.0 * len(ids) + 1 and hard == soft + 5.0


def test_a_broker_failure_does_not_lose_the_job(make_app, toy):
    class Down:
        def publish(self, chunks, dear=False, rank=0):
            raise ConnectionError("broker down")

    app = make_app()
    app.extensions["publisher"] = Down()
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "12"}] * 3})
    assert r.status_code == 202  # stored, so accepted: the reaper publishes it once the broker is back
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).values(deadline=now() - timedelta(seconds=1)))
    again = RecordingPublisher()
    assert len(reaper.reap(app.extensions["sessions"], app.config, again).puzzles) == 3
    assert sorted(i for chunk in again.chunks for i in chunk) == sorted(puzzle_ids(app))


def puzzle_ids(app):
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(Puzzle.id)))
