"""The dear lane's work ahead of a job, which its ETA counts (store.costs.summary): a puzzle that
waits in the dear lane ends no sooner than the work queued before it there is done.

Each row published to the dear lane keeps its place: the broker level and the time it was published
(``dear_level``, ``dear_at``; store.publish.place_in_dear_lane). The broker serves a lower level
first and, within a level, the older message first, so the work ahead of a job's first queued dear
row is the other jobs' dear rows running now or queued at a lower level, or at its level before it.
The seconds of a row: a whole puzzle's prediction (the share its solver has not reported done, if
it runs), but at least the cheap lane's cap for one moved there past that cap (it ran that long
and did not finish); a part's share of its puzzle's prediction; the range from the predictions'
factors. The lane's worker processes share it: the wait is the work ahead and the job's own dear
work over their number (the living workers of the dear queue, at least 1).

Before any of a job's work is done its eta is predicted from this wait and from its cheap work over
the cheap lane's living workers (``cheap_workers``; store.costs.summary).

Two aggregate statements, both over the partial indexes of the live dear rows (store.models
DEAR_LIVE), which hold only what is queued or running there, whatever the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, case, func, literal, literal_column, or_, select, union_all
from sqlalchemy.orm import Session

from store.bookkeeping import WorkerBeat
from store.models import QUEUED, RUNNING, Puzzle, Subtask
from store.settings import Settings


@dataclass(frozen=True)
class Span:
    """Predicted seconds with their range."""

    seconds: float = 0.0
    low: float = 0.0
    high: float = 0.0

    def __add__(self, other: Span) -> Span:
        return Span(self.seconds + other.seconds, self.low + other.low, self.high + other.high)

    def over(self, n: int) -> Span:
        return Span(self.seconds / n, self.low / n, self.high / n)


@dataclass(frozen=True)
class Ahead:
    """A job's unfinished dear work (``own``), the other jobs' dear work ahead of it, and the number of
    worker processes of the dear lane (``capacity``)."""

    own: Span
    ahead: Span
    capacity: int

    def wait(self) -> Span:
        """The least wall seconds until the job's dear work is done: all of this over the workers."""
        return (self.ahead + self.own).over(max(self.capacity, 1))


@dataclass(frozen=True)
class DearLane:
    """What reading the dear lane takes of the settings: its queue, the prediction above which a
    puzzle goes there, the cheap lane's cap, and how long a worker may be silent and count."""

    queue: str
    dear_seconds: float
    cap: float
    silent_seconds: float
    cheap_queue: str = "puzzles"  # the cheap lane's (TASK_QUEUE): its workers share a job's cheap work

    @classmethod
    def of(cls, settings: Settings) -> DearLane:
        lanes = settings.lanes
        cap = lanes.cheap_cap(settings.time.puzzle_time_limit) or 0.0
        return cls(lanes.dear_queue, lanes.dear_seconds, cap, settings.recovery.worker_silent_seconds,
                   lanes.task_queue)


def _live(model: type[Puzzle] | type[Subtask]) -> ColumnElement[bool]:
    # Spelled as the partial indexes' predicate (literal values), so that any plan can use them.
    return and_(model.dear_at.is_not(None),
                model.status.in_([literal_column(f"'{QUEUED}'"), literal_column(f"'{RUNNING}'")]))


def _rows(lane: DearLane) -> Any:
    """The live dear rows, puzzles and parts, each with its job, status, place and seconds."""
    p, est = Puzzle, func.coalesce(Puzzle.estimated_seconds, 0.0)
    factor = func.coalesce(Puzzle.estimate_factor, 1.0)
    moved_floor = case((est < lane.cap, literal(lane.cap)), else_=est)
    whole = case((est > lane.dear_seconds, est), else_=moved_floor)
    whole_left = case((p.status == RUNNING, whole * (1.0 - func.coalesce(p.progress, 0.0))), else_=whole)
    puzzles = select(p.job_id.label("job_id"), p.status.label("status"), p.dear_level.label("level"),
                     p.dear_at.label("at"), whole_left.label("seconds"), (whole_left / factor).label("low"),
                     (whole_left * factor).label("high")).where(_live(p), p.parts_total == 0)
    share = est / case((p.parts_total > 0, p.parts_total), else_=1)
    parts = (select(p.job_id, Subtask.status, Subtask.dear_level, Subtask.dear_at, share, share / factor,
                    share * factor)
             .join(p, p.id == Subtask.puzzle_id).where(_live(Subtask)))
    return puzzles, parts


def of_jobs(s: Session, job_ids: Sequence[str], lane: DearLane, at: datetime) -> dict[str, Ahead]:
    """Each of these jobs' dear work and the work ahead of it; only jobs with dear work queued or
    running are keys."""
    puzzles, parts = _rows(lane)
    ids = list(job_ids)
    own = union_all(puzzles.where(Puzzle.job_id.in_(ids)), parts.where(Puzzle.job_id.in_(ids))).subquery()
    found = s.execute(select(own.c.job_id, own.c.status, own.c.level, func.min(own.c.at),
                             func.sum(own.c.seconds), func.sum(own.c.low), func.sum(own.c.high))
                      .group_by(own.c.job_id, own.c.status, own.c.level)).all()
    mine: dict[str, Span] = {}
    first: dict[str, tuple[int, datetime]] = {}
    for job_id, status, level, since, seconds, low, high in found:
        mine[job_id] = mine.get(job_id, Span()) + Span(float(seconds or 0), float(low or 0), float(high or 0))
        if status == QUEUED and level is not None and since is not None:
            first[job_id] = min(first.get(job_id, (level, since)), (level, since))
    out = {}
    for job_id, span in mine.items():
        ahead, capacity = _ahead(s, job_id, first.get(job_id), lane, at)
        out[job_id] = Ahead(span, ahead, capacity)
    return out


def _ahead(s: Session, job_id: str, place: tuple[int, datetime] | None, lane: DearLane,
           at: datetime) -> tuple[Span, int]:
    """The other jobs' dear work ahead of ``place`` (none if the job has nothing queued there: what
    runs of it already has a worker) and the dear lane's living worker processes."""
    capacity = _processes(lane.queue, lane, at)
    if place is None:
        return Span(), int(s.scalar(select(capacity)) or 0)
    level, since = place
    puzzles, parts = _rows(lane)
    rows = union_all(puzzles.where(Puzzle.job_id != job_id), parts.where(Puzzle.job_id != job_id)).subquery()
    before = or_(rows.c.status == RUNNING, rows.c.level < level,
                 and_(rows.c.level == level, rows.c.at < since))
    seconds, low, high, workers = s.execute(
        select(func.sum(rows.c.seconds), func.sum(rows.c.low), func.sum(rows.c.high), capacity)
        .where(before)).one()
    return Span(float(seconds or 0), float(low or 0), float(high or 0)), int(workers or 0)


def _processes(queue: str, lane: DearLane, at: datetime) -> Any:
    """SQL: the living worker processes (their heartbeat within WORKER_SILENT_SECONDS) whose queues
    include ``queue``."""
    pattern = "%," + queue.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ",%"
    return (select(func.count()).select_from(WorkerBeat)
            .where(WorkerBeat.beat_at >= at - timedelta(seconds=lane.silent_seconds),
                   (literal(",") + func.coalesce(WorkerBeat.queues, "") + ",").like(pattern, escape="\\"))
            .scalar_subquery())


def cheap_workers(s: Session, lane: DearLane, at: datetime) -> int:
    """The cheap lane's living worker processes (those whose queues include TASK_QUEUE), at least 1:
    a job's cheap work shares them before any of it is done (store.costs.summary)."""
    return max(int(s.scalar(select(_processes(lane.cheap_queue, lane, at))) or 0), 1)
