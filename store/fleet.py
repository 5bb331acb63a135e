"""The fleet as SQL sees it, for the operators' view (service.fleet): each worker process by its
heartbeat row, what it holds and what it finished in the last minute; and the puzzles that
came in and went out in the last minute.

Terms (held, recent, window, fleet view): docs/glossary.md. The queries read the recent jobs'
ids first (jobs.status and jobs.finished_at are indexed), then only their puzzles (by the
(job_id, index) index), never every puzzle: no index covers puzzles.worker or finished_at
(store.models). A puzzle's lane is chosen at each publish and not stored, so ``came_in`` and
``went_out`` are not split by lane.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, case, func, or_, select
from sqlalchemy.orm import Session

from store import chunk_entries
from store.bookkeeping import WorkerBeat
from store.models import (
    FAILED,
    FINAL,
    NO_SOLUTION,
    RUNNING,
    SOLVED,
    UNFINISHED,
    Job,
    Puzzle,
    Subtask,
    aware,
)

WINDOW = timedelta(seconds=60)
SOLVED_BY_WORKER = (SOLVED, NO_SOLUTION, FAILED)  # a cancelled puzzle is finished by the API


@dataclass
class Held:
    """What one worker process holds of one job: puzzles (claimed, or entries of a chunk it claimed)
    and parts."""

    job_id: str
    puzzles: int = 0
    parts: int = 0


@dataclass
class Worker:
    """One worker process: its heartbeat row, what it holds, what it finished within the window."""

    name: str
    host: str
    pid: int | None
    node: str
    queues: list[str]
    started_at: datetime
    beat_at: datetime
    held: list[Held] = field(default_factory=list)
    done: int = 0
    celery_node: str | None = None  # its `celery worker`'s node name, where it has one
    draining_since: datetime | None = None  # when an operator asked it to drain (store.workers.drain)
    preparing: list[str] = field(default_factory=list)  # kinds still being prepared on its host


@dataclass(frozen=True)
class Flow:
    """Puzzles submitted (``came_in``) and finished, in any final status (``went_out``), within the
    window, over the whole service."""

    came_in: int
    went_out: int


def split_name(name: str) -> tuple[str, int | None, str]:
    """``head:pid:node`` (worker.heartbeat.worker_name) as its parts, the head a Celery node name
    (``worker-8000@host``) or a host; a name of another form is all head."""
    parts = name.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit():
        return parts[0], int(parts[1]), parts[2]
    return name, None, ""


def celery_node_of(head: str) -> tuple[str, str | None]:
    """(host, Celery node name) of a name's head: ``worker-8000@host`` is both, a bare host no node."""
    return (head.rsplit("@", 1)[1], head) if "@" in head else (head, None)


def _recent(cutoff: datetime) -> ColumnElement[bool]:
    return or_(Job.status.in_(UNFINISHED), Job.finished_at >= cutoff)


def recent_jobs(s: Session, cutoff: datetime) -> list[str]:
    """The recent jobs' ids, read first: given as a list, PostgreSQL reads their puzzles through
    the (job_id, index) index, where a subquery lets it scan the whole table."""
    return list(s.scalars(select(Job.id).where(_recent(cutoff))))


def workers(s: Session, at: datetime) -> list[Worker]:
    """Every heartbeat row, living or silent, by name; what each holds and has done (see above)."""
    beats = s.scalars(select(WorkerBeat).order_by(WorkerBeat.name)).all()
    found = {}
    for row in beats:
        head, pid, node = split_name(row.name)
        host, celery = celery_node_of(head)
        found[row.name] = Worker(row.name, host, pid, node, _queues(row.queues), aware(row.started_at),
                                 aware(row.beat_at), celery_node=celery,
                                 draining_since=None if row.draining_at is None else aware(row.draining_at),
                                 preparing=_queues(row.preparing))
    if not found:
        return []
    jobs = recent_jobs(s, at - WINDOW)
    if not jobs:
        return list(found.values())
    held: dict[str | None, dict[str, Held]] = defaultdict(dict)
    for name, job_id, claimed, done in _claimed_and_done(s, jobs, at - WINDOW):
        if claimed:
            held[name].setdefault(job_id, Held(job_id)).puzzles += claimed
        if name in found:
            found[name].done += done
    for name, job_id, n in _parts(s, jobs):
        held[name].setdefault(job_id, Held(job_id)).parts += n
    for name, job_id, running, done in chunk_entries.by_worker(s, jobs, at - WINDOW):
        if running:
            held[name].setdefault(job_id, Held(job_id)).puzzles += running
        if name in found:
            found[name].done += done
    for name, by_job in held.items():
        if name in found:
            found[name].held = sorted(by_job.values(), key=lambda h: h.job_id)
    return list(found.values())


def _queues(text: str | None) -> list[str]:
    return [q for q in (text or "").split(",") if q]


def living_queues(s: Session, silent_before: datetime) -> list[list[str]]:
    """The queues of each worker process that has beaten since ``silent_before`` and is not draining
    (it takes nothing new from them)."""
    living = select(WorkerBeat.queues).where(WorkerBeat.beat_at >= silent_before,
                                             WorkerBeat.draining_at.is_(None))
    return [_queues(q) for q in s.scalars(living)]


def _claimed_and_done(s: Session, jobs: Sequence[str],
                      cutoff: datetime) -> Sequence[tuple[str | None, str, int, int]]:
    """(worker, job, puzzles claimed and not fanned out, puzzles finished since ``cutoff``) in one
    pass over the recent jobs' puzzles (a split puzzle's parts are the work, not the puzzle)."""
    claimed = (Puzzle.status == RUNNING) & (Puzzle.parts_total == 0)
    done = Puzzle.status.in_(SOLVED_BY_WORKER) & (Puzzle.finished_at >= cutoff)
    return s.execute(
        select(Puzzle.worker, Puzzle.job_id, func.sum(case((claimed, 1), else_=0)),
               func.sum(case((done, 1), else_=0)))
        .where(Puzzle.job_id.in_(jobs), Puzzle.worker.is_not(None), or_(claimed, done))
        .group_by(Puzzle.worker, Puzzle.job_id)).all()


def _parts(s: Session, jobs: Sequence[str]) -> Sequence[tuple[str | None, str, int]]:
    """(worker, job, parts) of split puzzles claimed; a cancelled puzzle's are held by nobody (their
    workers stop at the flag, and what they return is written nowhere)."""
    return s.execute(
        select(Subtask.worker, Puzzle.job_id, func.count())
        .join(Puzzle, Puzzle.id == Subtask.puzzle_id)
        .where(Puzzle.job_id.in_(jobs), Puzzle.status == RUNNING, Puzzle.parts_total > 0,
               Subtask.status == RUNNING,
               Subtask.worker.is_not(None))
        .group_by(Subtask.worker, Puzzle.job_id)).all()


def flow(s: Session, at: datetime) -> Flow:
    """Puzzles in and out within the window before ``at`` (a job's puzzles are made with it)."""
    cutoff = at - WINDOW
    came_in = s.scalar(select(func.coalesce(func.sum(Job.total), 0))
                       .where(_recent(cutoff), Job.created_at >= cutoff))
    jobs = recent_jobs(s, cutoff)
    went_out = s.scalar(select(func.count()).select_from(Puzzle)
                        .where(Puzzle.job_id.in_(jobs), Puzzle.status.in_(FINAL),
                               Puzzle.finished_at >= cutoff)) if jobs else 0
    entries = chunk_entries.finished_since(s, jobs, cutoff) if jobs else 0
    return Flow(int(came_in or 0), int(went_out or 0) + entries)
