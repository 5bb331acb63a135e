"""store.handover: a POST or a retry waits for its publishing at most SUBMIT_PUBLISH_SECONDS; a broker
that hangs gets the request's answer no later, the job stays stored, and what was not published by
then is due for the reaper's next run, not QUEUED_STALE_SECONDS later."""

from __future__ import annotations

import threading

from sqlalchemy import select

from store.models import Chunk, Puzzle, now
from tests.service.conftest import RecordingPublisher, runtime_of
from worker import chunk, reaper

# Longest the hanging broker holds a call: long past any budget the tests set, yet a test of code
# that waits for the broker ends.
HELD_SECONDS = 20.0


class HangingBroker(RecordingPublisher):
    """A broker that takes the messages of a call only once ``released`` (Redis stopped with its
    socket open), but for its first ``answered`` calls; it records what it took."""

    def __init__(self, answered: int = 0):
        super().__init__()
        self.released = threading.Event()
        self.answered = answered
        self.calls = 0

    def _hold(self) -> None:
        self.calls += 1
        if self.calls > self.answered:
            self.released.wait(HELD_SECONDS)

    def publish(self, chunks, dear=False, rank=0):
        self._hold()
        super().publish(chunks, dear, rank)

    def publish_chunks(self, chunk_ids, rank=0):
        self._hold()
        super().publish_chunks(chunk_ids, rank)


def items():
    """Two alike cheap toys (a stored chunk) and a dear one (a row of the dear lane)."""
    cheap = [{"kind": "toy", "puzzle": p} for p in ("1", "2")]
    return [*cheap, {"kind": "toy", "puzzle": "3", "options": {"sleep": 2.0}}]


def stored_rows(app, job_id):
    """The job's chunk ids and puzzle rows."""
    with app.extensions["sessions"]() as s:
        chunks = list(s.scalars(select(Chunk.id).where(Chunk.job_id == job_id)))
        rows = list(s.scalars(select(Puzzle).where(Puzzle.job_id == job_id).order_by(Puzzle.index)))
    return chunks, rows


def due(row) -> bool:
    return row.deadline is not None and row.deadline.replace(tzinfo=None) <= now().replace(tzinfo=None)


def finish_publishing() -> None:
    """Wait for the publishing threads requests left behind."""
    for thread in threading.enumerate():
        if thread.name == "publish":
            thread.join(HELD_SECONDS * 2)


def test_a_post_whose_publishing_hangs_answers_with_the_job_stored_and_the_reaper_publishes_it(make_app, toy):
    app = make_app(SUBMIT_PUBLISH_SECONDS=0.05)
    broker = HangingBroker()
    app.extensions["publisher"] = broker
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": items()})
    assert r.status_code == 202 and r.json["status"] == "queued"
    assert (broker.stored, broker.chunks) == ([], []), "answered before the broker took anything"
    (chunk_id,), (dear,) = stored_rows(app, r.json["id"])
    assert app.test_client().get(f"/api/v1/jobs/{r.json['id']}").json["counts"]["queued"] == 3
    assert due(dear), "due at once: the reaper's next run publishes it"
    with app.extensions["sessions"]() as s:
        assert not due(s.get(Chunk, chunk_id)), "the call the broker holds may still send it"
    publisher = RecordingPublisher()
    reaped = reaper.reap(runtime_of(app, publisher))
    assert (reaped.chunks, reaped.puzzles) == ([], [dear.id])
    assert (publisher.stored, publisher.dear) == ([], [[dear.id]])
    # The broker answers again: the call it held goes through, and the thread sends nothing after
    # it. Each row went out once in all: a second task would claim it again, an attempt lost.
    broker.released.set()
    finish_publishing()
    assert (broker.stored, broker.chunks) == ([chunk_id], [])


def test_a_held_call_that_fails_leaves_its_rows_due_for_the_reaper(make_app, toy):
    app = make_app(SUBMIT_PUBLISH_SECONDS=0.05)
    broker = HangingBroker()
    app.extensions["publisher"] = broker

    def refuse(chunk_ids, rank=0):  # the socket's timeout ends the held call with an error
        broker.released.wait(HELD_SECONDS)
        raise ConnectionError("Redis did not answer")

    broker.publish_chunks = refuse
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": items()})
    (chunk_id,), _ = stored_rows(app, r.json["id"])
    broker.released.set()
    finish_publishing()
    with app.extensions["sessions"]() as s:
        assert due(s.get(Chunk, chunk_id))
    publisher = RecordingPublisher()
    assert reaper.reap(runtime_of(app, publisher)).chunks == [chunk_id] and publisher.stored == [chunk_id]


def test_a_post_published_within_the_budget_leaves_nothing_to_the_reaper(make_app, toy):
    app = make_app(SUBMIT_PUBLISH_SECONDS=HELD_SECONDS)
    broker = HangingBroker(answered=2)
    app.extensions["publisher"] = broker
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": items()})
    assert r.status_code == 202
    (chunk_id,), (dear,) = stored_rows(app, r.json["id"])
    assert (broker.stored, broker.dear) == ([chunk_id], [[dear.id]])
    assert dear.deadline is None, "published at submit: not due"
    reaped = reaper.reap(runtime_of(app, RecordingPublisher()))
    assert (reaped.chunks, reaped.puzzles) == ([], [])


def test_a_retry_whose_publishing_hangs_answers_and_the_reaper_publishes_it(make_app, toy):
    app = make_app(SUBMIT_PUBLISH_SECONDS=0.05)
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "1",
                                                                   "options": {"crash": True}}]})
    (_, (row,)) = stored_rows(app, r.json["id"])
    chunk.run_chunk(runtime_of(app), [row.id], "w1")
    broker = HangingBroker()
    app.extensions["publisher"] = broker
    retried = app.test_client().post(f"/api/v1/jobs/{r.json['id']}/retry",
                                     json={"options": {"crash": False}})
    assert retried.status_code == 202 and broker.chunks == []
    (_, (row,)) = stored_rows(app, r.json["id"])
    assert row.status == "queued" and not due(row), "the call the broker holds may still send it"
    assert reaper.reap(runtime_of(app, RecordingPublisher())).puzzles == []
    broker.released.set()
    finish_publishing()
    assert broker.chunks == [[row.id]]
