"""Retention: jobs finished more than JOB_RETENTION_DAYS ago are deleted with their puzzles and
subtasks (0 keeps them forever).

The reaper's turn-taker (worker.reaper.reap_if_due) calls ``purge_if_due``, which takes the
housekeeping turn at most every PURGE_INTERVAL across all worker processes
(``reaper_runs.purged_at``): the purge, then (the reaper) the SQLite log's checkpoint. A purge deletes the
oldest finished jobs in batches of about PURGE_BATCH puzzles, one transaction each, so no
transaction holds its locks long; it stops after RUN_SECONDS and the next purge goes on, so the
reaper's own work in this process waits at most that long. The tallies of /metrics keep their
counts (store.job_ends.delete_jobs).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from store import job_ends
from store.bookkeeping import ReaperRun
from store.db import changed_rows
from store.models import CANCELLED, COMPLETED, Job, now
from store.settings import Retention

log = logging.getLogger(__name__)

RUN_SECONDS = 5.0


def purge_if_due(sessions: sessionmaker[Session], retention: Retention) -> int | None:
    """Take the housekeeping turn if no process has taken it for PURGE_INTERVAL, and purge if
    retention is on; the jobs deleted (0 with retention off; None: not this process's turn)."""
    days = retention.job_retention_days
    t = now()
    every = timedelta(seconds=retention.purge_interval)
    with sessions() as s, s.begin():
        due = or_(ReaperRun.purged_at.is_(None), ReaperRun.purged_at < t - every)
        if not changed_rows(s, update(ReaperRun).where(ReaperRun.id == 1, due).values(purged_at=t)):
            return None
    if days <= 0:
        return 0
    deleted = purge(sessions, t - timedelta(days=days), retention.purge_batch)
    if deleted:
        log.info("retention: deleted %d job(s) finished before %s", deleted, t - timedelta(days=days))
    return deleted


def purge(sessions: sessionmaker[Session], before: datetime, batch: int,
          clock: Callable[[], float] = time.monotonic) -> int:
    """Delete the jobs finished before ``before``, oldest first, a batch a transaction, for at most
    RUN_SECONDS; returns how many."""
    deleted, stop = 0, clock() + RUN_SECONDS
    while clock() < stop:
        with sessions() as s, s.begin():
            ids = oldest_finished(s, before, batch)
            if not ids:
                break
            job_ends.delete_jobs(s, ids)
        deleted += len(ids)
    return deleted


def oldest_finished(s: Session, before: datetime, batch: int) -> list[str]:
    """The jobs finished longest ago (before ``before``) holding together at most ``batch``
    puzzles, or the single oldest one if it alone holds more."""
    rows = s.execute(select(Job.id, Job.total)
                     .where(Job.finished_at < before, Job.status.in_((COMPLETED, CANCELLED)))
                     .order_by(Job.finished_at).limit(batch)).all()
    ids: list[str] = []
    puzzles = 0
    for job_id, total in rows:
        if ids and puzzles + total > batch:
            break
        ids.append(job_id)
        puzzles += total
    return ids
