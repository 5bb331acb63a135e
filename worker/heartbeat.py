"""Heartbeats: each worker process keeps one ``workers`` row fresh (store.workers), so a lost worker
is known in seconds, and takes its turn at running the reaper.

Terms (worker name, beat, since, silent, steady, reaper's turn): docs/glossary.md. The beating
thread runs whatever the task in the main thread does (the kernels release the GIL), so a slow
but living worker keeps beating and keeps its claims up to the time limit. A silent row's process
is dead; if another process of its node still beats, the main process lives and Celery itself
redelivers the task (``reject_on_worker_lost``), otherwise worker.reaper hands its work on. The
queues written with each beat are known once the worker is set up (worker.app), before its pool
forks. A process must be steady before it judges others silent: after a database outage every
row is old, and the first process back must not take the living workers' work.

Draining (docs/operations.md): each beat reads whether an operator asked this `celery worker` to
drain (store.workers.drain), and the reaper's thread (which may wait on the broker, where the beats
must not) tells its consumer to stop taking, or take again, from its queues (worker.app, through
Celery's control API: in a prefork pool the consumer is the main process, which beats nowhere).
Tasks already taken run to their end. A control message is fanned out and lost on a worker that
missed it, so while draining it is sent again every ``DRAIN_AGAIN_SECONDS`` (stopping a stopped
consumer changes nothing); a failed send is tried again at the next turn.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.orm import Session, sessionmaker

from store import workers
from store.models import now
from store.settings import Recovery
from worker import warmstatus

log = logging.getLogger(__name__)


# Made once in the `celery worker` main process, at import, so its pool processes (forked later)
# share it; a restarted worker gets a new one.
NODE = secrets.token_hex(4)


# The `celery worker`'s node name (its -n, e.g. worker-8000@host) once worker.app knows it.
celery_node = ""


def worker_name() -> str:
    """This process's name: its Celery node name (the host where it has none yet), pid, and the
    node token (the `celery worker` incarnation it belongs to)."""
    return f"{celery_node or socket.gethostname()}:{os.getpid()}:{NODE}"


# This worker's queues, once worker.app knows them (see ``queues`` above).
consuming: list[str] = []


class Tasks:
    """The tasks this process runs (several at once in the thread pool), for ``since``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started: dict[str, datetime] = {}
        self._ended: datetime | None = None

    def started(self, task_id: str) -> None:
        with self._lock:
            self._started[task_id] = now()

    def ended(self, task_id: str) -> None:
        with self._lock:
            self._started.pop(task_id, None)
            self._ended = now()

    def since(self) -> datetime | None:
        """None until the first task: a process that has run none holds no claim."""
        with self._lock:
            return min(self._started.values()) if self._started else self._ended


# How often a draining worker's processes tell its consumer again to take nothing (see above).
DRAIN_AGAIN_SECONDS = 30.0


# This process's tasks, told by the task signals (worker.app).
tasks = Tasks()


@dataclass
class Heartbeat:
    """The heartbeat of one worker process, and its turns at the reaper."""

    sessions: sessionmaker[Session]
    recovery: Recovery
    reap: Callable[[bool], None]  # given whether this process is steady
    clock: Callable[[], float] = time.monotonic
    connected_since: float | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    # Given True: stop the consumer of this `celery worker` taking from its queues; False: take again.
    consume: Callable[[bool], None] | None = None
    draining: bool = False  # as the last beat read it
    told: bool = False  # what ``consume`` was last told (a consumer takes work when it starts)
    told_at: float | None = None

    def steady(self) -> bool:
        since = self.connected_since
        return since is not None and self.clock() - since >= self.recovery.worker_silent_seconds

    def tick(self) -> None:
        """One beat, with the kinds the warm-up processes of this host have still to prepare
        (worker.warmstatus, for /readyz and the fleet view); the first after a gap starts the quiet
        stretch again."""
        preparing = warmstatus.preparing()
        try:
            with self.sessions() as s, s.begin():
                self.draining = workers.beat(s, worker_name(), tasks.since(), consuming, preparing)
        except Exception:
            self.connected_since = None
            log.warning("heartbeat: the database is not reachable", exc_info=True)
            return
        if self.connected_since is None:
            self.connected_since = self.clock()

    def drain_turn(self) -> None:
        """Tell the consumer what the last beat read, when it changed (or again while draining)."""
        draining = self.draining
        again = (draining and self.told_at is not None
                 and self.clock() - self.told_at >= DRAIN_AGAIN_SECONDS)
        if self.consume is None or (draining == self.told and not again):
            return
        try:
            self.consume(draining)
        except Exception:
            log.warning("heartbeat: could not tell the consumer to %s; the next turn tries again",
                        "drain" if draining else "take work again", exc_info=True)
            return
        if draining != self.told:
            log.info("an operator asked this worker to %s", "drain" if draining else "take work again")
        self.told, self.told_at = draining, self.clock()

    def reap_turn(self) -> None:
        if self.connected_since is None:
            return
        self.drain_turn()
        try:
            self.reap(self.steady())
        except Exception:
            log.warning("heartbeat: the reaper failed; the next turn tries again", exc_info=True)

    def start(self) -> None:
        """Two daemon threads: the beats, and the reaper's turns (which may wait on a broker that is
        down, and must never delay a beat)."""
        _running.append(self)
        for name, step, every in (("heartbeat", self.tick, self.recovery.heartbeat_seconds),
                                  ("reaper", self.reap_turn, self.recovery.reap_interval)):
            threading.Thread(target=self._loop, args=(step, every), name=name, daemon=True).start()

    def _loop(self, step: Callable[[], None], every: float) -> None:
        while True:
            step()
            if self.stop.wait(every):
                return

    def end(self) -> None:
        """Stop beating and remove this worker's row (a clean shutdown holds nothing)."""
        self.stop.set()
        with self.sessions() as s, s.begin():
            workers.leave(s, worker_name())


# The heartbeat of this process, once started (prefork: in each pool process).
_running: list[Heartbeat] = []


def steady_here() -> bool:
    """Whether this process may judge other workers silent (see ``steady``); a process without a
    heartbeat (eager tests, a one-off call) has no outage to recover from."""
    return all(h.steady() for h in _running if h.stop.is_set() is False)


def stop_here() -> None:
    while _running:
        try:
            _running.pop().end()
        except Exception:
            log.warning("heartbeat: could not remove this worker's row", exc_info=True)
