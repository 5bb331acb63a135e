"""worker.tasks: what a task does with what worker.chunk, worker.stored and worker.parts raise."""

from __future__ import annotations

import pytest
from celery.exceptions import Reject, SoftTimeLimitExceeded
from sqlalchemy import select

from store.cancelled import CancelledJobs
from store.models import Puzzle
from tests.service.conftest import runtime_of
from worker import tasks, warmup


@pytest.fixture
def app(make_app, toy):
    return make_app(CHUNK_MAX=1)


def test_a_task_whose_limit_comes_while_its_kind_is_prepared_goes_back_to_the_broker_untouched(
        app, monkeypatch):
    monkeypatch.setattr(tasks, "runtime", runtime_of(app))
    monkeypatch.setattr(tasks, "cancelled", CancelledJobs(app.extensions["sessions"]))
    monkeypatch.setattr(warmup, "_prepared", set())

    def limit_comes(kind, where=None):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(warmup, "prepare", limit_comes)
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "12"}]})
    assert r.status_code == 202, r.json
    with app.extensions["sessions"]() as s:
        ids = list(s.scalars(select(Puzzle.id)))
    result = tasks.solve_chunk.apply(args=[ids])
    assert isinstance(result.result, Reject) and result.result.requeue  # the message goes back as it came
    with app.extensions["sessions"]() as s:
        assert [(p.status, p.attempts) for p in s.scalars(select(Puzzle))] == [("queued", 0)]
