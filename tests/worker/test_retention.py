"""Deleting jobs, by the API and by the retention purge, and the tasks still holding their ids
(SQLite, and PostgreSQL with -m integration)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from sqlalchemy import select, update

import solvers
from solvers import base
from solvers.base import stop_flag
from store.models import Chunk, Job, Puzzle, ResultBlock, Subtask, now
from tests.service.conftest import RecordingPublisher, claim_part, runtime_of, stored_tallies
from tests.store.test_retention import DAY, count, finished, job_ids, puzzle_ids, submit
from tests.store.test_retention import app as app  # the fixture
from tests.worker.test_chunk import claim_one, write
from worker import chunk, reaper, stored
from worker import parts as worker_parts
from worker.limits import Watch


@pytest.fixture
def tallies_agree():
    """Deleting finished puzzles leaves their tallies (counters never go down), so the rows no longer
    add up to them: the tests here check the tallies themselves."""


def test_jobs_finished_past_the_retention_are_purged_and_the_rest_kept(app):
    old = [finished(app, 2, ago=40 * DAY), finished(app, 1, ago=31 * DAY)]
    recent = finished(app, 1, ago=29 * DAY)
    unfinished = submit(app, 2)
    with app.extensions["sessions"]() as s, s.begin():  # old, but not finished: never purged
        s.execute(update(Job).where(Job.id == unfinished).values(created_at=now() - 90 * DAY))
    before = stored_tallies(app.extensions["sessions"])
    assert reaper.reap_if_due(runtime_of(app, RecordingPublisher()), True) is not None
    assert job_ids(app) == {recent, unfinished}
    # the recent job's puzzle is a row, the unfinished job's two are a chunk (store.chunks)
    assert count(app, Puzzle) == 1 and all(puzzle_ids(app, j) == [] for j in old)
    with app.extensions["sessions"]() as s:
        assert list(s.scalars(select(Chunk.job_id))) == [unfinished], "the old job's chunk went with it"
    assert stored_tallies(app.extensions["sessions"]) == before  # counters keep what they counted


@pytest.mark.parametrize("days", [30.0, 0.0])
def test_the_housekeeping_turn_empties_the_sqlite_log_with_retention_on_or_off(make_app, toy, days):
    app = make_app(JOB_RETENTION_DAYS=days, PURGE_INTERVAL=600.0)
    if app.extensions["engine"].dialect.name != "sqlite":
        pytest.skip("SQLite's write-ahead log")
    log = Path(app.extensions["engine"].url.database + "-wal")
    runtime = runtime_of(app, RecordingPublisher())
    kept = finished(app, 50)
    old = finished(app, 50, ago=40 * DAY)
    assert log.stat().st_size > 0
    assert reaper.reap_if_due(runtime, True) is not None
    assert log.stat().st_size == 0
    assert job_ids(app) == ({kept} if days else {kept, old})


def test_a_task_of_rows_whose_job_is_deleted_while_it_runs_writes_nothing_and_ends_cleanly(make_app, toy,
                                                                                          solving):
    app = make_app(CHUNK_MAX=1)  # one puzzle a task: rows, handed to one task here
    job_id = submit(app, 3)
    ids = puzzle_ids(app, job_id)
    client = app.test_client()
    solved = []

    def delete_midway(a):
        if not solved:
            assert client.post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
            assert client.delete(f"/api/v1/jobs/{job_id}").status_code == 204
        solved.append(a.id)

    solving.before_each(delete_midway)
    report = chunk.run_chunk(runtime_of(app, RecordingPublisher()), ids, "w1")
    assert report.written == 0 and solved
    assert count(app, Job) == 0 and count(app, Puzzle) == 0
    # The cancel counted the three; the chunk's late results counted nothing.
    assert stored_tallies(app.extensions["sessions"]) == {("", "jobs"): 1, ("toy", "cancelled"): 3}
    # Delivered again after the deletion: it finds nothing to do.
    again = chunk.run_chunk(runtime_of(app, RecordingPublisher()), ids, "w1")
    assert again.written == 0 and again.skipped == 3


def test_a_stored_chunk_whose_job_is_deleted_while_it_runs_writes_nothing_and_ends_cleanly(app, toy,
                                                                                           monkeypatch):
    job_id = submit(app, 3)
    with app.extensions["sessions"]() as s:
        (chunk_id,) = s.scalars(select(Chunk.id).where(Chunk.job_id == job_id))
    client = app.test_client()

    def delete_then_solve(prepared, options):
        assert client.post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
        assert client.delete(f"/api/v1/jobs/{job_id}").status_code == 204
        return base.solve_each(toy, prepared, options)

    monkeypatch.setitem(solvers.KINDS, "toy", dataclasses.replace(toy, solve_batch=delete_then_solve))
    report = stored.run_stored(runtime_of(app, RecordingPublisher()), chunk_id, "w1")
    assert (report.written, report.left) == (0, [])
    assert count(app, Job) == 0 and count(app, Chunk) == 0 and count(app, ResultBlock) == 0
    # The cancel counted the three; the chunk's late results counted nothing.
    assert stored_tallies(app.extensions["sessions"]) == {("", "jobs"): 1, ("toy", "cancelled"): 3}
    # Delivered again after the deletion: it finds nothing to do.
    again = stored.run_stored(runtime_of(app, RecordingPublisher()), chunk_id, "w1", redelivered=True)
    assert (again.written, again.left) == (0, [])


def test_the_write_to_a_deleted_job_stores_nothing(app):
    # Its block would name a job that is gone: the statement stores it only under the job's lock.
    job_id = submit(app, 1)
    _, result = claim_one(app, job_id)
    client = app.test_client()
    assert client.post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
    assert client.delete(f"/api/v1/jobs/{job_id}").status_code == 204
    assert write(app, [result]) == 0
    assert count(app, Job) == 0 and count(app, ResultBlock) == 0


def test_parts_of_a_deleted_job_do_nothing(app):
    job_id = submit(app, 1, digits="123456", split=3)
    (pid,) = puzzle_ids(app, job_id)
    publisher = RecordingPublisher()
    report = chunk.run_chunk(runtime_of(app, publisher), [pid], "w1")
    assert len(report.fanned) == 3
    client = app.test_client()
    # One part already claimed and solving when the job goes: it records nothing.
    with app.extensions["sessions"]() as s, s.begin():
        claimed = claim_part(s, app, report.fanned[0], "w1")
    assert claimed is not None
    client.post(f"/api/v1/jobs/{job_id}/cancel")
    assert client.delete(f"/api/v1/jobs/{job_id}").status_code == 204
    assert count(app, Subtask) == 0
    part, p = claimed
    outcome, error = worker_parts.solve(p, part, 5.0, Watch(stop_flag()))
    with app.extensions["sessions"]() as s, s.begin():
        assert worker_parts.record(s, part, outcome, error) is False
    assert worker_parts.run_parts(runtime_of(app), report.fanned, "w2") == 0
    assert count(app, Subtask) == 0 and count(app, Job) == 0
