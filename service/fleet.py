"""The fleet view for operators: GET /api/v1/workers, /api/v1/queues, /api/v1/failures and
/api/v1/activity (the page /ops shows them), and POST /api/v1/workers/{name}/drain and /undrain.

Workers come from their heartbeat rows in SQL (store.fleet), never from Celery's control API: a
request asks no worker anything, so a busy or dead worker cannot slow it down. Queue depths come
from the broker (store.depth), the puzzles in and out from SQL. Only operators may look: see
service.auth (ADMIN_TOKENS).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Literal

from flask import Blueprint, current_app, request
from pydantic import BaseModel, ConfigDict, Field
from spectree import Response

from service import auth, settings
from service.api import sessions, snapshot, spec
from service.problems import Problem
from service.schemas import ProblemOut
from store import activity, depth, failures, fleet, workers
from store.lane_settings import Lanes
from store.models import now

log = logging.getLogger(__name__)

bp = Blueprint("fleet", __name__, url_prefix="/api/v1")

Lane = Literal["cheap", "dear", "both"]
ERRORS = {f"HTTP_{code}": ProblemOut for code in (401, 403, 429, 503)}


class HeldOut(BaseModel):
    job_id: str
    puzzles: int = Field(description="puzzles of the job the worker claimed or runs in its chunk")
    parts: int = Field(description="parts of the job's split puzzles the worker claimed")


class WorkerOut(BaseModel):
    name: str = Field(description="celery_node:pid:node (host:pid:node before its node name is known), "
                                  "as claims name it")
    celery_node: str | None = Field(None, description="the Celery node name of its `celery worker` (its -n, "
                                                      "e.g. worker-8000@host), as `celery inspect` and "
                                                      "`celery control` name it; null: not known")
    host: str
    pid: int | None
    node: str = Field(description="the `celery worker` the process belongs to (its pool shares it)")
    queues: list[str] = Field(description="the broker queues it takes tasks from (empty until known)")
    lane: Lane | None = Field(description="cheap, dear or both, by its queues; null: not known yet")
    started_at: datetime
    heartbeat_age_seconds: float = Field(description="seconds since its last heartbeat")
    alive: bool = Field(description="its heartbeat is younger than WORKER_SILENT_SECONDS")
    holding: list[HeldOut] = Field(description="what it works on at the moment, by job")
    done_last_minute: int = Field(description="puzzles it finished (solved, no_solution, failed) "
                                              "in the last 60 seconds")
    draining: bool = Field(False, description="an operator asked its `celery worker` to drain: it finishes "
                                              "what it holds and takes nothing new")
    draining_since: datetime | None = Field(None, description="when the drain was asked; null: not draining")
    preparing: list[str] = Field(default_factory=list, description="the kinds the warm-up processes on its "
                                 "host have still to prepare (compile their kernels), as of its last beat")


class DrainOut(BaseModel):
    name: str = Field(description="the worker as asked: a process's name or a Celery node name")
    draining: bool
    workers: list[str] = Field(description="the processes of its `celery worker` (every row of its node)")


class WorkerList(BaseModel):
    items: list[WorkerOut]
    heartbeat_seconds: float = Field(description="HEARTBEAT_SECONDS: how often a worker beats")
    silent_seconds: float = Field(description="WORKER_SILENT_SECONDS: a worker silent this long is dead")
    preparing: list[str] = Field(default_factory=list, description=(
        "the kinds still being prepared on the living workers' hosts (each item's `preparing`), in the "
        "registry's order: their puzzles wait queued until a worker has them ready"))


class QueueOut(BaseModel):
    name: str
    lane: Literal["cheap", "dear"]
    depth: int = Field(description="messages (tasks) waiting in the broker, none taken by a worker")
    oldest_age_seconds: float | None = Field(description="age of the oldest waiting message; null: none "
                                                         "waits, or its age is not known")
    workers: int = Field(description="living worker processes that take tasks from this queue")


class QueueList(BaseModel):
    items: list[QueueOut]
    window_seconds: float = Field(description="the window of the two rates")
    puzzles_in: int = Field(description="puzzles submitted in the window, over every lane")
    puzzles_out: int = Field(description="puzzles that reached a final status in the window, over "
                                         "every lane")


class FailureQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    minutes: float = Field(60, gt=0, le=7 * 24 * 60, description="how far back, in minutes")
    kind: str | None = Field(None, min_length=1, max_length=32, description="only puzzles of this kind")
    error: str | None = Field(None, min_length=1, max_length=200,
                              description="only failures whose error holds this text (any case)")
    limit: int = Field(100, ge=1, le=1000)


class FailureOut(BaseModel):
    job_id: str
    owner: str = Field(description="the client whose job it is (empty: an anonymous address's)")
    index: int = Field(description="the puzzle's index in its job")
    kind: str
    error: str
    finished_at: datetime


class FailureList(BaseModel):
    items: list[FailureOut] = Field(description="newest first")
    minutes: float = Field(description="the window asked for")


class ActivityQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    minutes: int = Field(60, ge=1, le=24 * 60, description="how many whole minutes, up to now")


class MinuteOut(BaseModel):
    start: datetime
    finished: int = Field(description="puzzles a worker ended in the minute (solved, no_solution, failed)")
    failed: int
    latency_p50: float | None = Field(description="seconds from submission to the end, median; null: none")
    latency_p95: float | None


class ActivityList(BaseModel):
    items: list[MinuteOut] = Field(description="oldest first, one per minute")


@bp.before_request
def operators_only() -> None:
    auth.require_operator()


def lane_of(queues: list[str], lanes: Lanes) -> Lane | None:
    cheap, dear = lanes.task_queue in queues, lanes.dear_queue in queues
    return "both" if cheap and dear else "cheap" if cheap else "dear" if dear else None


def _workers(at: datetime) -> list[WorkerOut]:
    config = settings()
    with snapshot() as s:
        found = fleet.workers(s, at)
    out = []
    for w in found:
        age = max(0.0, (at - w.beat_at).total_seconds())
        out.append(WorkerOut(
            name=w.name, celery_node=w.celery_node, host=w.host, pid=w.pid, node=w.node, queues=w.queues,
            lane=lane_of(w.queues, config.lanes), started_at=w.started_at,
            heartbeat_age_seconds=round(age, 3),
            alive=age < config.recovery.worker_silent_seconds,
            holding=[HeldOut(job_id=h.job_id, puzzles=h.puzzles, parts=h.parts) for h in w.held],
            done_last_minute=w.done, draining=w.draining_since is not None,
            draining_since=w.draining_since, preparing=w.preparing))
    return out


@bp.get("/workers")
@spec.validate(resp=Response(HTTP_200=WorkerList, **ERRORS), tags=["operations"])
def list_workers():
    """Each worker process by its heartbeat row (silent ones too, until the reaper removes them):
    its lane, heartbeat age, what it holds and what it finished in the last minute. Operators
    only (ADMIN_TOKENS)."""
    recovery = settings().recovery
    items = _workers(now())
    left = {kind for w in items if w.alive for kind in w.preparing}
    return WorkerList(items=items, heartbeat_seconds=recovery.heartbeat_seconds,
                      silent_seconds=recovery.worker_silent_seconds, preparing=workers.by_registry(left))


# A name no row can have (the column's length, control characters) is not looked up: 404 as unknown.
NAME_MAX = 200


def _drain(name: str, draining: bool) -> DrainOut:
    marked = None
    if len(name) <= NAME_MAX and name.isprintable():
        with sessions() as s, s.begin():
            marked = workers.drain(s, name, draining)
    if marked is None:
        raise Problem(404, "Not Found", f"no worker is named {name[:NAME_MAX]!r}: give a name or a "
                                        "celery_node that GET /api/v1/workers lists")
    log.info("an operator asked worker %s to %s (%d process(es))", name,
             "drain" if draining else "take work again", len(marked))
    return DrainOut(name=name, draining=draining, workers=marked)


@bp.post("/workers/<name>/drain")
@spec.validate(resp=Response(HTTP_200=DrainOut, HTTP_404=ProblemOut, **ERRORS), tags=["operations"])
def drain_worker(name: str):
    """Drain the `celery worker` of ``name`` (a process's name or its Celery node name): every
    process of it, within a heartbeat or two, stops taking tasks from its queues and finishes what
    it holds; it stays listed, ``draining``, and takes work again on a restart or an undrain. 404
    for a name no worker has. Operators only (ADMIN_TOKENS)."""
    return _drain(name, True)


@bp.post("/workers/<name>/undrain")
@spec.validate(resp=Response(HTTP_200=DrainOut, HTTP_404=ProblemOut, **ERRORS), tags=["operations"])
def undrain_worker(name: str):
    """Let a drained `celery worker` take tasks from its queues again. 404 for a name no worker
    has. Operators only (ADMIN_TOKENS)."""
    return _drain(name, False)


@bp.get("/queues")
@spec.validate(resp=Response(HTTP_200=QueueList, **ERRORS), tags=["operations"])
def list_queues():
    """Each lane's broker queue: its depth, the age of its oldest message and the living workers
    that take from it; and the puzzles in and out over the last minute. Operators only
    (ADMIN_TOKENS); 503 when the broker cannot be reached."""
    config = settings()
    try:
        backlogs = depth.backlogs(current_app.extensions["celery"], config)
    except Exception as exc:  # whatever the broker's client raises: the answer is "not reachable"
        log.warning("queues: the broker is not reachable: %s: %s", type(exc).__name__, exc)
        raise Problem(503, "Service Unavailable", "the broker is not reachable",
                      headers={"Retry-After": "5"}) from None
    at = now()
    with snapshot() as s:
        living = fleet.living_queues(s, at - timedelta(seconds=config.recovery.worker_silent_seconds))
        flow = fleet.flow(s, at)
    lanes = config.lanes
    items = [QueueOut(name=name, lane=lane, depth=backlogs[name].depth,
                      oldest_age_seconds=_rounded(backlogs[name].oldest_seconds),
                      workers=sum(name in queues for queues in living))
             for name, lane in ((lanes.task_queue, "cheap"), (lanes.dear_queue, "dear"))]
    return QueueList(items=items, window_seconds=fleet.WINDOW.total_seconds(),
                     puzzles_in=flow.came_in, puzzles_out=flow.went_out)


@bp.get("/failures")
@spec.validate(query=FailureQuery, resp=Response(HTTP_200=FailureList, HTTP_422=ProblemOut, **ERRORS),
               tags=["operations"])
def list_failures():
    """Failed puzzles across every job and client within the last ``minutes``, newest first, by
    kind and by a text of their error when asked. Operators only (ADMIN_TOKENS)."""
    q: FailureQuery = request.context.query  # type: ignore[attr-defined]  # set by spectree
    with snapshot() as s:
        found = failures.recent(s, now() - timedelta(minutes=q.minutes), q.kind, q.error, q.limit)
    return FailureList(items=[FailureOut(job_id=f.job_id, owner=f.owner, index=f.index, kind=f.kind,
                                         error=f.error, finished_at=f.finished_at) for f in found],
                       minutes=q.minutes)


@bp.get("/activity")
@spec.validate(query=ActivityQuery, resp=Response(HTTP_200=ActivityList, HTTP_422=ProblemOut, **ERRORS),
               tags=["operations"])
def list_activity():
    """The last ``minutes`` by the minute, from SQL: puzzles finished, failed, and their latency from
    submission to the end (median and 95th percentile). Operators only (ADMIN_TOKENS)."""
    q: ActivityQuery = request.context.query  # type: ignore[attr-defined]  # set by spectree
    with snapshot() as s:
        minutes = activity.by_minute(s, now(), q.minutes)
    return ActivityList(items=[MinuteOut(start=m.start, finished=m.finished, failed=m.failed,
                                         latency_p50=m.latency_p50, latency_p95=m.latency_p95)
                               for m in minutes])


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)
