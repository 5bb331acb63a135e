"""A task (worker.tasks, with worker.chunk, worker.stored and worker.parts) prepares its puzzles' kinds
(worker.warmup.prepare_first) before it claims anything; its soft time limit during that wait sends
its message back to the broker, nothing claimed."""

from __future__ import annotations

import contextlib

import pytest
from celery.exceptions import Reject, SoftTimeLimitExceeded
from sqlalchemy import select

from store.cancelled import CancelledJobs
from store.models import Chunk, Puzzle, Subtask
from tests.service.conftest import RecordingPublisher, runtime_of
from worker import chunk, parts, stored, tasks, warmup


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


@pytest.fixture
def prepared_when(monkeypatch):
    """``prepare`` recorded with the statuses the rows (``statuses()``) had then; ``expire``: the
    task's soft time limit comes during the first."""

    class Calls(list):
        statuses, expire = staticmethod(lambda: set()), False

    calls = Calls()
    monkeypatch.setattr(warmup, "_prepared", set())  # a process that has prepared no kind yet

    def record(kind, where=None):
        calls.append((kind, calls.statuses()))
        if calls.expire:
            raise SoftTimeLimitExceeded()

    monkeypatch.setattr(warmup, "prepare", record)
    return calls


def statuses_of(app, *columns):
    def read():
        with app.extensions["sessions"]() as s:
            return {status for column in columns for status in s.scalars(select(column))}
    return read


def post(app, items):
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": items})
    assert r.status_code == 202, r.json
    return r.json["id"]


@pytest.mark.parametrize("expire", [False, True], ids=["ready", "limit-while-waiting"])
def test_a_task_of_puzzle_rows_prepares_its_kind_before_it_claims_any(make_app, toy, prepared_when, expire):
    app = make_app(CHUNK_MAX=1)
    job_id = post(app, [{"kind": "toy", "puzzle": p} for p in ("1", "2")])
    prepared_when.statuses, prepared_when.expire = statuses_of(app, Puzzle.status), expire
    with app.extensions["sessions"]() as s:
        ids = list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == job_id)))
    publisher = RecordingPublisher()
    with pytest.raises(warmup.NotPrepared) if expire else contextlib.nullcontext():
        chunk.run_chunk(runtime_of(app, publisher), ids, "w1")
    assert prepared_when == [("toy", {"queued"})]  # no row running while it waits
    rows = statuses_of(app, Puzzle.status, Puzzle.attempts)()
    assert rows == ({"queued", 0} if expire else {"solved", 1}) and publisher.chunks == []


@pytest.mark.parametrize("expire", [False, True], ids=["ready", "limit-while-waiting"])
def test_a_stored_chunk_and_a_part_are_claimed_only_once_their_kind_is_prepared(make_app, toy, prepared_when,
                                                                                 expire):
    app = make_app(SPLIT_PARTS=4)
    post(app, [{"kind": "toy", "puzzle": p} for p in ("1", "2")])
    (chunk_id,) = app.extensions["publisher"].stored
    prepared_when.statuses, prepared_when.expire = statuses_of(app, Chunk.status), expire
    with pytest.raises(warmup.NotPrepared) if expire else contextlib.nullcontext():
        stored.run_stored(runtime_of(app, RecordingPublisher()), chunk_id, "w1")
    assert prepared_when == [("toy", {"queued"})]
    assert statuses_of(app, Chunk.status, Chunk.attempts)() == ({"queued", 0} if expire else {"written", 1})

    post(app, [{"kind": "toy", "puzzle": "1234567", "options": {"split": 4}}])
    publisher = RecordingPublisher()
    with app.extensions["sessions"]() as s:
        (head,) = s.scalars(select(Puzzle.id))
    prepared_when.expire = False
    chunk.run_chunk(runtime_of(app, publisher), [head], "coordinator")
    prepared_when.clear()
    prepared_when.statuses, prepared_when.expire = statuses_of(app, Subtask.status), expire
    part = publisher.parts[0][0]
    with pytest.raises(warmup.NotPrepared) if expire else contextlib.nullcontext():
        parts.run_part(runtime_of(app), part, "w1")
    assert prepared_when == [("toy", {"queued"})]
    with app.extensions["sessions"]() as s:
        sub = s.get(Subtask, part)
        assert (sub.status, sub.attempts) == (("queued", 0) if expire else ("solved", 1))
