"""A cancelled job's tasks, still in the broker, are dropped by the workers without a claim
(store.cancelled, worker.tasks): its messages drain at no claim's or solve's cost."""

from __future__ import annotations

import contextlib
import itertools

import pytest
from celery.contrib.testing.mocks import TaskMessage
from sqlalchemy import select

from store.cancelled import CancelledJobs
from store.models import Puzzle
from store.publish import JOB, PUBLISHED_AT, CeleryPublisher
from tests.service.conftest import runtime_of, settings_of
from tests.service.test_api import submit
from worker import chunk, stored, tasks


class SentTasks:
    """Celery's ``send_task`` as the publisher calls it, each message recorded, none sent."""

    def __init__(self):
        self.sent: list[dict] = []

    @contextlib.contextmanager
    def producer_or_acquire(self):
        yield None

    def send_task(self, name, args=(), kwargs=None, headers=None, **_options):
        self.sent.append({"name": name, "args": args, "kwargs": kwargs or {}, "headers": dict(headers or {})})


@pytest.fixture
def broker(app):
    sent = SentTasks()
    settings = settings_of(app)
    app.extensions["publisher"] = CeleryPublisher(sent, settings.lanes, settings.time)
    return sent


@pytest.fixture
def worker_process(app, monkeypatch):
    """worker.tasks as a pool process runs it, on the app's database; every claim (a chunk of rows'
    or a stored chunk's) is recorded."""
    monkeypatch.setattr(tasks, "runtime", runtime_of(app))
    monkeypatch.setattr(tasks, "cancelled", CancelledJobs(app.extensions["sessions"]))
    claimed: list[object] = []
    run_chunk, run_stored = chunk.run_chunk, stored.run_stored

    def claim_rows(runtime, ids, *args, **kw):
        claimed.append(list(ids))
        return run_chunk(runtime, ids, *args, **kw)

    def claim_stored(runtime, chunk_id, *args, **kw):
        claimed.append(chunk_id)
        return run_stored(runtime, chunk_id, *args, **kw)

    monkeypatch.setattr(tasks.chunk, "run_chunk", claim_rows)
    monkeypatch.setattr(tasks, "run_stored", claim_stored)
    return claimed


def deliver(messages):
    """Each message's task run as a worker would, with the message's headers."""
    return [tasks.solve_chunk.apply(args=m["args"], kwargs=m["kwargs"], headers=m["headers"]).get()
            for m in messages]


def test_a_cancelled_jobs_tasks_are_dropped_without_a_claim(client, broker, worker_process):
    job = submit(client, 3, dear=4).json
    sent = list(broker.sent)
    assert len(sent) == 5 and {m["headers"][JOB] for m in sent} == {job["id"]}  # a stored chunk, 4 dear
    assert client.post(f"/api/v1/jobs/{job['id']}/cancel").status_code == 202

    answers = deliver(sent)

    assert worker_process == []  # no claim, so no solve
    assert sorted(a["dropped"] for a in answers) == [1, 1, 1, 1, 1]
    final = client.get(f"/api/v1/jobs/{job['id']}").json
    assert final["status"] == "cancelled" and final["counts"]["cancelled"] == 7


def received(message, acked):
    """The request the worker's main process makes of a message, before any pool process sees it."""
    raw = TaskMessage(message["name"], args=message["args"], kwargs=message["kwargs"], **message["headers"])
    return tasks.DropsCancelled(raw, on_ack=lambda *_args: acked.append(raw), app=tasks.app,
                                task=tasks.solve_chunk)


def test_the_main_process_acknowledges_a_cancelled_jobs_tasks_without_the_pool(client, broker,
                                                                                worker_process):
    cancelled = submit(client, 3, dear=2).json
    going_on = submit(client, 0, dear=1).json
    assert client.post(f"/api/v1/jobs/{cancelled['id']}/cancel").status_code == 202
    acked: list[object] = []
    dropped = [m for m in broker.sent if m["headers"][JOB] == cancelled["id"]]
    kept = [m for m in broker.sent if m["headers"][JOB] == going_on["id"]]
    untagged = [{**m, "headers": {PUBLISHED_AT: m["headers"][PUBLISHED_AT]}} for m in dropped]

    assert [received(m, acked).revoked() for m in dropped] == [True] * 3  # a stored chunk, 2 dear
    assert len(acked) == 3
    assert [received(m, acked).revoked() for m in kept + untagged] == [False] * 4  # to the pool
    assert len(acked) == 3 and worker_process == []


def test_a_retried_jobs_new_tasks_are_claimed_and_solved(client, app, broker, worker_process):
    job = submit(client, 0, dear=2).json
    assert client.post(f"/api/v1/jobs/{job['id']}/cancel").status_code == 202
    before = list(broker.sent)
    deliver(before[:1])  # dropped: the worker has seen the cancel
    assert client.post(f"/api/v1/jobs/{job['id']}/retry", json={"options": {"sleep": 0}}).status_code == 202
    retried = broker.sent[len(before):]

    deliver(before[1:])  # published before the cancel: dropped still
    assert worker_process == []
    answers = deliver(retried)

    assert len(worker_process) == len(retried) and all("written" in a for a in answers)
    with app.extensions["sessions"]() as s:
        assert set(s.scalars(select(Puzzle.status).where(Puzzle.job_id == job["id"]))) == {"solved"}


def test_tasks_naming_no_job_or_running_jobs_are_claimed(client, broker, worker_process):
    job = submit(client, 2).json
    untagged = [{**m, "headers": {PUBLISHED_AT: m["headers"][PUBLISHED_AT]}} for m in broker.sent]

    deliver(untagged)

    assert len(worker_process) == 1
    assert client.get(f"/api/v1/jobs/{job['id']}").json["status"] == "completed"


def test_the_cancelled_set_is_read_at_most_once_a_refresh(app, client, broker):
    clock = itertools.count(0.0, 0.25)
    seen = CancelledJobs(app.extensions["sessions"], clock=lambda: next(clock), refresh=1.0)
    job = submit(client, 0, dear=1).json
    published = broker.sent[0]["headers"][PUBLISHED_AT]
    assert not seen.dropped(job["id"], published)  # read at 0: not cancelled yet
    assert client.post(f"/api/v1/jobs/{job['id']}/cancel").status_code == 202
    assert not seen.dropped(job["id"], published)  # 0.25 s later: the last read still holds
    assert not seen.dropped(job["id"], published)
    assert not seen.dropped(job["id"], published)
    assert seen.dropped(job["id"], published)  # 1 s: read again
    assert not seen.dropped(job["id"], published + 3600)  # published after the cancel (a retry's)
    assert not seen.dropped(None, published) and not seen.dropped(job["id"], None)


def test_a_failed_read_is_heard_once_a_refresh_and_the_last_set_holds(app, client, broker):
    clock = iter([0.0, 1.0, 1.5, 2.0])
    made = app.extensions["sessions"]
    seen = CancelledJobs(made, clock=lambda: next(clock), refresh=1.0)
    job = submit(client, 0, dear=1).json
    published = broker.sent[0]["headers"][PUBLISHED_AT]
    assert client.post(f"/api/v1/jobs/{job['id']}/cancel").status_code == 202
    assert seen.dropped(job["id"], published)  # read at 0

    def away():
        raise OSError("the database is away")

    seen.sessions = away
    with pytest.raises(OSError, match="away"):
        seen.dropped(job["id"], published)  # 1 s: the read fails
    assert seen.dropped(job["id"], published)  # 1.5 s: no read, the last set holds
    seen.sessions = made
    assert seen.dropped(job["id"], published)  # 2 s: read again
