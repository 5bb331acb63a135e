"""Notices that a job may have become final, so that a long poll answers at once.

Terms (notice, listener, live): docs/glossary.md. A notice is sent by the worker's write of a
job's last results (store.results.write, whether a chunk, the merge of a split puzzle or the
reaper wrote them; ``sent_if``, in the statement that moves the job's counter), or by its cancel
(``notify``, from store.job_ends.cancel_job). A waiter it wakes sees the job final at no round trip
of its own, and reads the job's status from SQL. The listener's connection is taken out of the
engine's pool; a waiter still looks on its own (service.waiting.NOTIFIED_SECONDS), for a
connection lost meanwhile (the listener then wakes every waiter, and listens again once it can).

SQLite sends no notices: a waiter there looks on service.waiting's schedule, as it did before.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import ColumnElement, Engine, case, func, text
from sqlalchemy.orm import Session

from store.db import dialect_of

log = logging.getLogger(__name__)

CHANNEL = "puzzle_queue_job"
RECONNECT_SECONDS = 1.0

Wake = Callable[[float], bool]  # sleep until woken (True) or the seconds pass (False)


def notify(s: Session, job_ids: Sequence[str]) -> None:
    """Send a notice for each of these jobs when this session's transaction commits (see
    docs/glossary.md); nothing on a database that sends no notices."""
    if job_ids and dialect_of(s).notices:
        s.execute(_NOTIFY, {"channel": CHANNEL, "jobs": sorted(set(job_ids))})


_NOTIFY = text("SELECT pg_notify(:channel, job) FROM unnest(CAST(:jobs AS text[])) AS job")


def sent_if(condition: ColumnElement[bool], job_id: ColumnElement[str]) -> ColumnElement[Any]:
    """A column that sends the job's notice where ``condition`` holds, for a PostgreSQL statement
    that makes a job final and can tell so itself (store.rows, the write of results): a round
    trip fewer than ``notify`` after it. Delivered at the commit, as ``notify``'s."""
    return case((condition, func.pg_notify(CHANNEL, job_id)))


def listener(engine: Engine) -> Listener | None:
    """A listener on this database, which starts at its first ``watch``; None on a database that
    sends no notices (a waiting request then looks on its own schedule)."""
    return Listener(engine) if dialect_of(engine).notices else None


class Listener:
    """The process's listener (docs/glossary.md); ``watch`` is what a waiting request uses."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.live = threading.Event()
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._waiting: dict[str, set[threading.Event]] = {}
        self._pid: int | None = None  # the process whose thread runs (none is inherited by a fork)
        self._warned = False  # the connection's failure was logged, and it has not listened since

    @contextmanager
    def watch(self, job_id: str) -> Iterator[Wake | None]:
        """While inside, the job's notices wake the returned ``Wake``; None when notices are not
        live (the caller looks on its own schedule). Enter before reading the job's status, so
        that no notice falls between the read and the wait."""
        self._start()
        if not self.live.is_set():
            yield None
            return
        woken = threading.Event()
        with self._lock:
            self._waiting.setdefault(job_id, set()).add(woken)
        try:
            def wake(seconds: float) -> bool:
                noticed = woken.wait(seconds)
                woken.clear()
                return noticed
            yield wake
        finally:
            with self._lock:
                events = self._waiting.get(job_id, set())
                events.discard(woken)
                if not events:
                    self._waiting.pop(job_id, None)

    def close(self) -> None:
        """Stop listening (within RECONNECT_SECONDS); waiters go back to their own looks."""
        self.stop.set()

    def _start(self) -> None:
        """The thread, once per process; the waiter that starts it looks on its own schedule."""
        with self._lock:
            if self._pid == os.getpid() or self.stop.is_set():
                return
            self._pid = os.getpid()
            self.live.clear()
        threading.Thread(target=self._run, name="job-notices", daemon=True).start()

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                self._listen()
            except Exception:
                if not self._warned:  # once an outage, not each RECONNECT_SECONDS
                    log.warning("job notices: the listening connection failed; waiters look on their own "
                                "until it is back", exc_info=True)
                self._warned = True
            self._wake(None)  # whatever was missed meanwhile: every waiter looks once
            self.stop.wait(RECONNECT_SECONDS)

    def _listen(self) -> None:
        pooled = self.engine.raw_connection()
        conn: Any = pooled.driver_connection
        pooled.detach()  # its own for good: never handed to a request, closed here
        try:
            conn.autocommit = True
            conn.execute(f"LISTEN {CHANNEL}")
            self.live.set()
            self._warned = False
            while not self.stop.is_set():
                for notice in conn.notifies(timeout=RECONNECT_SECONDS):
                    self._wake(notice.payload)
        finally:
            self.live.clear()
            pooled.close()

    def _wake(self, job_id: str | None) -> None:
        """Wake the waiters of this job (None: every waiter)."""
        with self._lock:
            if job_id is None:
                events = [e for waiting in self._waiting.values() for e in waiting]
            else:
                events = list(self._waiting.get(job_id, ()))
        for event in events:
            event.set()
