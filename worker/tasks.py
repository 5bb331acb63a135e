"""Celery tasks: thin wrappers that hand ids to worker.chunk, worker.parts and worker.reaper inside the
Flask app context."""

from __future__ import annotations

from celery import Task, shared_task
from flask import current_app
from sqlalchemy.exc import OperationalError

from service.db import through_outages
from service.publish import REAP, SOLVE_CHUNK, SOLVE_PARTS
from worker import chunk, parts, reaper
from worker.heartbeat import steady_here, worker_name


# A database outage is waited out in the task's own process for DB_WAIT_SECONDS, then retried by
# Celery (claims are idempotent); anything else a task cannot handle leaves its puzzles to the
# reaper, which re-publishes or fails them.
@shared_task(name=SOLVE_CHUNK, bind=True, acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(OperationalError,), retry_backoff=2, retry_backoff_max=60, max_retries=10)
def solve_chunk(self: Task, ids: list[int]) -> dict[str, int]:
    # Redelivered: the worker that had it died (or lost its broker connection) mid-chunk.
    redelivered = bool((self.request.delivery_info or {}).get("redelivered"))
    config = current_app.config
    report = through_outages(
        lambda: chunk.run_chunk(current_app.extensions["sessions"], ids, config, worker_name(),
                                current_app.extensions["publisher"], redelivered=redelivered),
        config["DB_WAIT_SECONDS"], "chunk")
    return {"written": report.written, "skipped": report.skipped, "republished": len(report.republished)}


@shared_task(name=SOLVE_PARTS, acks_late=True, reject_on_worker_lost=True, autoretry_for=(OperationalError,),
             retry_backoff=2, retry_backoff_max=60, max_retries=10)
def solve_parts(ids: list[int]) -> dict[str, int]:
    config = current_app.config
    sessions = current_app.extensions["sessions"]
    solved = through_outages(lambda: parts.run_parts(sessions, ids, config, worker_name()),
                             config["DB_WAIT_SECONDS"], "parts")
    return {"solved": solved}


@shared_task(name=REAP)
def reap() -> int:
    args = current_app.extensions["sessions"], current_app.config, current_app.extensions["publisher"]
    reaped = reaper.reap_if_due(*args, trust_silence=steady_here())
    return 0 if reaped is None else len(reaped.puzzles) + len(reaped.parts)
