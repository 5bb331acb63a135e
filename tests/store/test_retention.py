"""The retention purge (store.retention): at most every PURGE_INTERVAL across processes, jobs
finished past JOB_RETENTION_DAYS deleted oldest first, about PURGE_BATCH puzzles a transaction
(SQLite, and PostgreSQL with -m integration)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from store import job_ends, reaping, retention
from store.bookkeeping import ReaperRun
from store.models import Job, Puzzle, now
from tests.service.conftest import settings_of
from tests.services import database_url, postgres_url  # noqa: F401  both databases

DAY = timedelta(days=1)


@pytest.fixture
def app(make_app, toy):
    return make_app(JOB_RETENTION_DAYS=30.0, PURGE_INTERVAL=600.0, PURGE_BATCH=5)


def submit(app, n=1, digits="", **options):
    items = [{"kind": "toy", "puzzle": digits or str(i + 1), "options": options} for i in range(n)]
    r = app.test_client().post("/api/v1/jobs", json={"puzzles": items})
    assert r.status_code == 202, r.json
    return r.json["id"]


def finished(app, n=1, ago=timedelta(0)):
    """A cancelled job of n puzzles, finished ``ago``."""
    job_id = submit(app, n)
    assert app.test_client().post(f"/api/v1/jobs/{job_id}/cancel").status_code == 202
    with app.extensions["sessions"]() as s, s.begin():
        s.execute(update(Job).where(Job.id == job_id).values(finished_at=now() - ago))
    return job_id


def job_ids(app):
    with app.extensions["sessions"]() as s:
        return set(s.scalars(select(Job.id)))


def puzzle_ids(app, job_id):
    with app.extensions["sessions"]() as s:
        return list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == job_id).order_by(Puzzle.index)))


def count(app, model):
    with app.extensions["sessions"]() as s:
        return s.scalar(select(func.count()).select_from(model))


def test_a_purge_runs_at_most_every_purge_interval_and_never_with_retention_off(app):
    sessions = app.extensions["sessions"]
    with sessions() as s, s.begin():
        assert reaping.take_turn(s, now())  # the turns' row

    def turn_over():
        with sessions() as s, s.begin():
            s.execute(update(ReaperRun).values(purged_at=now() - timedelta(seconds=601)))

    finished(app, ago=40 * DAY)
    assert retention.purge_if_due(sessions, settings_of(app).retention) == 1
    finished(app, ago=40 * DAY)
    assert retention.purge_if_due(sessions, settings_of(app).retention) is None  # PURGE_INTERVAL not over
    turn_over()
    # Retention off: the housekeeping turn is taken (the reaper checkpoints SQLite's log), nothing deleted.
    assert retention.purge_if_due(sessions, settings_of(app).replace(JOB_RETENTION_DAYS=0).retention) == 0
    assert len(job_ids(app)) == 1
    turn_over()
    assert retention.purge_if_due(sessions, settings_of(app).retention) == 1
    assert job_ids(app) == set()


def test_each_transaction_deletes_about_a_batch_of_puzzles_oldest_first(app, monkeypatch):
    small = [finished(app, 2, ago=(50 - i) * DAY) for i in range(4)]
    big = finished(app, 7, ago=60 * DAY)  # alone more than a batch: it goes alone
    batches = []
    real = job_ends.delete_jobs

    def spy(s, ids):
        batches.append(list(ids))
        real(s, ids)

    monkeypatch.setattr(job_ends, "delete_jobs", spy)
    assert retention.purge(app.extensions["sessions"], now() - 30 * DAY, batch=5) == 5
    assert batches == [[big], small[:2], small[2:]]
    assert count(app, Job) == 0 and count(app, Puzzle) == 0
