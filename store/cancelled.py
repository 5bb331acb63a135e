"""The jobs cancelled lately, as a worker process sees them: a task of puzzle rows published for a
job before that job was cancelled is dropped without its claim (worker.tasks), so the broker's
messages of a cancelled job of many thousand puzzles drain at the cost of a dictionary look-up each,
not of a claim and a transaction each.

A task's message names its job and its publishing time (the JOB and PUBLISHED_AT headers,
store.publish). It is dropped only when its job was cancelled after it was published: the
puzzles it names were then cancelled with the job (store.job_ends), and its claim would take
none. A retry of the cancelled job publishes after the cancel, so its tasks are claimed as any;
should a clock between the API and the database be behind and a retry's task be dropped all the
same, its puzzles stay queued and the reaper publishes them again (QUEUED_STALE_SECONDS). A
message that names no job (the reaper's, a worker's) is claimed as before.

The set is read from SQL at most every REFRESH_SECONDS per process, each time only the cancels
since the last read (with OVERLAP_SECONDS for transactions that committed late), and kept for
KEEP_SECONDS: messages older than that are claimed as before.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from store.models import CANCELLED, Job, now

REFRESH_SECONDS = 1.0
OVERLAP_SECONDS = 60.0
KEEP_SECONDS = 86_400.0


class CancelledJobs:
    """Per process: job id -> when it was cancelled (Unix seconds), read from SQL now and then."""

    def __init__(self, sessions: sessionmaker[Session], clock: Callable[[], float] = time.monotonic,
                 refresh: float = REFRESH_SECONDS):
        self.sessions, self.clock, self.refresh = sessions, clock, refresh
        self.cancelled: dict[str, float] = {}
        self.read_at: float | None = None  # self.clock() at the last read
        self.since: datetime | None = None  # the cancels read so far end about here
        self.lock = threading.Lock()

    def dropped(self, job_id: object, published_at: object) -> bool:
        """Whether a task of ``job_id`` published at ``published_at`` (Unix seconds, a message's
        headers: None or anything else when missing) was published before its job was cancelled."""
        if not isinstance(job_id, str) or not isinstance(published_at, int | float):
            return False
        self._read_if_due()
        cancelled_at = self.cancelled.get(job_id)
        return cancelled_at is not None and published_at < cancelled_at

    def _read_if_due(self) -> None:
        with self.lock:
            t = self.clock()
            if self.read_at is not None and t - self.read_at < self.refresh:
                return
            # A read that fails (the database away) is tried again only after another refresh: the
            # set read last holds meanwhile, and the caller hears of the failure once.
            self.read_at = t
            start = now()
            since = (self.since - timedelta(seconds=OVERLAP_SECONDS) if self.since is not None
                     else start - timedelta(seconds=KEEP_SECONDS))
            with self.sessions() as s:
                rows = s.execute(select(Job.id, Job.finished_at)
                                 .where(Job.status == CANCELLED, Job.finished_at >= since)).all()
            for job_id, finished_at in rows:
                if finished_at is not None:  # set by every cancel
                    self.cancelled[job_id] = _unix(finished_at)
            # A job retried since its cancel is no longer CANCELLED: its entry stays, and only its
            # messages published before that cancel are dropped.
            oldest = start.timestamp() - KEEP_SECONDS
            if len(self.cancelled) > len(rows):
                self.cancelled = {j: at for j, at in self.cancelled.items() if at >= oldest}
            self.since = start


def _unix(t: datetime) -> float:
    """A stored time as Unix seconds (SQLite gives naive times, in UTC)."""
    return (t if t.tzinfo is not None else t.replace(tzinfo=now().tzinfo)).timestamp()
