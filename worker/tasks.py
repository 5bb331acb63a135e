"""Celery tasks: thin wrappers that hand ids to worker.chunk, worker.parts, worker.reaper and
worker.webhooks.

A database outage is waited out in the task's own process for DB_WAIT_SECONDS, then retried by
Celery (claims are idempotent); anything else a task cannot handle leaves its puzzles to the
reaper, which publishes them again or fails them.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from celery import Task
from celery.exceptions import Reject
from celery.worker.request import Request
from celery.worker.state import task_ready
from sqlalchemy.exc import OperationalError

from store.cancelled import CancelledJobs
from store.db import through_outages
from store.publish import DELIVER, JOB, PUBLISHED_AT, REAP, SOLVE_CHUNK, SOLVE_PARTS
from worker import chunk, parts, reaper, warmup, webhooks
from worker.app import app, runtime
from worker.heartbeat import steady_here, worker_name
from worker.stored import run_stored

RETRIED = {"acks_late": True, "reject_on_worker_lost": True, "autoretry_for": (OperationalError,),
           "retry_backoff": 2, "retry_backoff_max": 60, "max_retries": 10}

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")

# This process's view of the jobs cancelled lately: their tasks published before the cancel are
# dropped unclaimed (store.cancelled).
cancelled = CancelledJobs(runtime.sessions)


class DropsCancelled(Request):
    """A task of puzzle rows as the worker's main process receives it: one of a cancelled job
    (store.cancelled) is acknowledged there and never handed to a pool process, as Celery treats
    a revoked task, so a cancelled job's messages cost the fleet a look-up each. Should the look-up
    fail (the database away), the task goes to the pool, which looks again (``solve_chunk``)."""

    def revoked(self) -> bool:
        if super().revoked():
            return True
        headers = self.request_dict
        try:
            dropped = cancelled.dropped(headers.get(JOB), headers.get(PUBLISHED_AT))
        except Exception as exc:
            log.warning("could not read the jobs cancelled lately: %s", exc)
            return False
        if dropped:
            task_ready(self, successful=True)
            self.acknowledge()
            self._already_revoked = True
        return dropped


def requeued_unprepared(task: Callable[P, R]) -> Callable[P, R]:
    """A task whose soft time limit came while its kinds were prepared, before it claimed anything
    (worker.warmup.NotPrepared): its message goes back to the broker as it came, to be taken
    again (its kinds nearer ready), with no attempt counted and no row touched."""

    @functools.wraps(task)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return task(*args, **kwargs)
        except warmup.NotPrepared as exc:
            log.info("%s: %s; its message goes back to the broker", task.__name__, exc)
            raise Reject(str(exc), requeue=True) from exc

    return run


@app.task(name=SOLVE_CHUNK, bind=True, Request=DropsCancelled, **RETRIED)
@requeued_unprepared
def solve_chunk(self: Task, ids: list[int], chunk_id: int | None = None) -> dict[str, int]:
    delivery = self.request.delivery_info or {}
    wait = runtime.settings.recovery.db_wait_seconds
    # A cancelled job's task: its puzzles (or stored chunk) were cancelled with the job after it was
    # published, and its claim would take nothing. Acknowledged as done, at no claim's cost (the
    # main process drops most before they come here, DropsCancelled; a solo pool's come here).
    job, published_at = _header(self, JOB), _header(self, PUBLISHED_AT)
    if through_outages(lambda: cancelled.dropped(job, published_at), wait, "chunk"):
        return {"dropped": len(ids) if chunk_id is None else 1}
    if chunk_id is not None:  # a stored chunk (store.chunks)
        # Redelivered: the worker that had it died (or lost its broker connection) mid-chunk.
        redelivered = bool(delivery.get("redelivered"))
        stored = through_outages(lambda: run_stored(runtime, chunk_id, worker_name(), redelivered), wait,
                                 "chunk")
        return {"written": stored.written, "left": len(stored.left)}
    cheap_lane = delivery.get("routing_key") == runtime.settings.lanes.task_queue
    report = through_outages(lambda: chunk.run_chunk(runtime, ids, worker_name(), cheap_lane=cheap_lane),
                             wait, "chunk")
    return {"written": report.written, "skipped": report.skipped, "republished": len(report.republished),
            "moved": len(report.moved)}


def _header(task: Task, name: str) -> object:
    """A header of the task's message: a worker sees a message's own headers as the request's
    attributes, ``apply`` (eager) gives them as its ``headers``."""
    found = getattr(task.request, name, None)
    return found if found is not None else (task.request.headers or {}).get(name)


@app.task(name=SOLVE_PARTS, **RETRIED)
@requeued_unprepared
def solve_parts(ids: list[int]) -> dict[str, int]:
    solved = through_outages(lambda: parts.run_parts(runtime, ids, worker_name()),
                             runtime.settings.recovery.db_wait_seconds, "parts")
    return {"solved": solved}


@app.task(name=REAP)
def reap() -> int:
    reaped = reaper.reap_if_due(runtime, trust_silence=steady_here())
    return 0 if reaped is None else len(reaped.puzzles) + len(reaped.parts)


# Killed past its lease (a name lookup hanging longer than WEBHOOK_TIMEOUT, say): the delivery stays
# due, and the sweep publishes it again.
@app.task(name=DELIVER, time_limit=webhooks.lease(runtime.settings.webhooks), **RETRIED)
def deliver_callback(delivery_id: int, attempts: int) -> int | None:
    """One attempt of a callback delivery; the HTTP status that came back (None: none, or the attempt
    was another copy's)."""
    outcome = through_outages(lambda: webhooks.deliver(runtime, delivery_id, attempts),
                              runtime.settings.recovery.db_wait_seconds, "callback")
    return None if outcome is None else outcome.status
