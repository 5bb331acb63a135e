"""The reaper's reads bounded by the fleet (worker.reaper, store.reaping): a puzzle queued at submit has no
deadline, so the partial index holds only claimed and republished rows, and the rest are read a
slice of SWEEP ids per run, from where the last run stopped."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update

from store import reaping
from store.bookkeeping import ReaperRun
from store.models import Puzzle, now
from tests.service.conftest import RecordingPublisher, runtime_of, settings_of
from tests.worker.test_chunk import ids_of, post, rows, toys
from tests.worker.test_heartbeat import Broker, claim
from tests.worker.test_heartbeat import app as app  # the fixture
from worker import chunk, reaper


def submitted_ago(app, ids, seconds):
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Puzzle).where(Puzzle.id.in_(ids))
                  .values(created_at=now() - timedelta(seconds=seconds)))


def swept_to(app):
    with app.extensions["sessions"]() as s:
        return s.scalar(select(ReaperRun.swept_to))


def test_a_submitted_puzzle_has_no_deadline_until_a_claim_and_none_after_its_write(app):
    job_id = post(app, toys("1", "2"))
    a, b = ids_of(app, job_id)
    assert [p.deadline for p in rows(app, job_id)] == [None, None]
    claim(app, [a], "w")
    assert rows(app, job_id)[0].deadline is not None, "a claim's lease is in the reaper's index"
    assert chunk.run_chunk(runtime_of(app, RecordingPublisher()), [b], "w").written == 1
    assert rows(app, job_id)[1].status == "solved" and rows(app, job_id)[1].deadline is None


def test_the_sweep_finds_stale_queued_rows_a_slice_per_run_and_starts_over(app, monkeypatch):
    monkeypatch.setattr(reaping, "SWEEP", 2)
    job_id = post(app, toys("1", "2", "3", "4", "5"))
    ids = ids_of(app, job_id)
    submitted_ago(app, ids[1:], settings_of(app).recovery.queued_stale_seconds + 1)  # ids[0] is young
    found = [reaper.reap(runtime_of(app, RecordingPublisher())).puzzles for _ in range(3)]
    assert found == [[ids[1]], ids[2:4], [ids[4]]]
    assert swept_to(app) == 0, "past the last id the next run starts over"
    # Published again, with a deadline ahead: not lost at the next pass.
    assert all(p.deadline is not None for p in rows(app, job_id)[1:])
    assert [reaper.reap(runtime_of(app, RecordingPublisher())).puzzles for _ in range(3)] == [[], [], []]


def test_with_an_empty_broker_the_sweep_finds_queued_rows_published_long_ago(app):
    job_id = post(app, toys("1", "2"))
    a, _b = ids_of(app, job_id)
    submitted_ago(app, [a], settings_of(app).recovery.lost_task_seconds + 1)
    assert reaper.reap(runtime_of(app, Broker(depth=1))).puzzles == []
    assert reaper.reap(runtime_of(app, Broker(depth=0))).puzzles == [a]
