"""Jobs: read a job's state and its puzzles (store.submit stores them, store.job_ends cancels and
deletes them, store.retry puts failed ones back).

Everything here takes a Session and plain values and returns rows or plain values (``JobState``);
the API turns them into its response models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Row, Table, bindparam, func, select
from sqlalchemy.orm import Session

from store import ahead, chunk_entries, costs
from store.ahead import Ahead, DearLane
from store.costs import Cost
from store.models import (
    CANCELLED,
    PUZZLE_STATUSES,
    RUNNING,
    UNFINISHED,
    Job,
    Puzzle,
    iso_time,
    now,
)

# What a row can hold: values outside these never reach SQL (PostgreSQL refuses a NUL or an
# integer wider than the column with an error, SQLite an integer over 64 bits), they match nothing.
INDEX_MAX = 2**31 - 1  # puzzles.index is a 32-bit INTEGER
JOB_ID_LENGTH = 32  # jobs.id: uuid4().hex


@dataclass(frozen=True)
class JobState:
    """A job as its readers see it: its row, its puzzles counted by status, and its progress."""

    id: str
    status: str
    label: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    total: int
    counts: Mapping[str, int] = field(default_factory=dict)
    progress: float = 0.0
    cost: Cost | None = None  # None: a job stored without predictions
    ahead: Ahead | None = None  # its dear work and the dear lane's ahead of it (store.ahead), if read
    # The worker processes that may share its cheap work before any is done, if read (_workers)
    workers: int | None = None

    def summary(self) -> dict[str, Any]:
        """The job as GET /api/v1/jobs/{id} shows it (service.schemas.JobOut), as plain JSON values."""
        return {"id": self.id, "status": self.status, "label": self.label,
                "created_at": iso_time(self.created_at), "started_at": iso_time(self.started_at),
                "finished_at": iso_time(self.finished_at), "total": self.total,
                "counts": {status: self.counts.get(status, 0) for status in PUZZLE_STATUSES},
                "progress": self.progress,
                **costs.summary(self.cost, self.status, self.started_at, now(), self.ahead, self.workers)}


def possible_job_id(job_id: str) -> bool:
    return len(job_id) <= JOB_ID_LENGTH and job_id.isprintable()


def possible_index(index: Any) -> bool:
    return type(index) is int and 0 <= index <= INDEX_MAX


_jobs, _puzzles = cast(Table, Job.__table__), cast(Table, Puzzle.__table__)


def find_by_key(s: Session, owner: str, key: str) -> Job | None:
    return s.scalar(select(Job).where(Job.owner == owner, Job.idempotency_key == key))


def get_job(s: Session, owner: str | None, job_id: str) -> Job | None:
    job = s.get(Job, job_id) if possible_job_id(job_id) else None
    if job is None or (owner is not None and job.owner != owner):
        return None  # another client's job is as invisible as a missing one
    return job


def job_status(s: Session, job_id: str) -> str | None:
    """The job's status alone (None: no such job), a primary-key read for the long poll's looks."""
    return s.scalar(select(Job.status).where(Job.id == job_id)) if possible_job_id(job_id) else None


def counts_for(s: Session, job_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {jid: {} for jid in job_ids}
    rows = s.execute(select(Puzzle.job_id, Puzzle.status, func.count())
                     .where(Puzzle.job_id.in_(job_ids)).group_by(Puzzle.job_id, Puzzle.status))
    for job_id, status, n in rows:
        out[job_id][status] = n
    for job_id, found in chunk_entries.counts(s, job_ids).items():
        for status, n in found.items():
            out[job_id][status] = out[job_id].get(status, 0) + n
    return out


def partial_for(s: Session, job_ids: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Per job, the done share of its running puzzles (costs.running_share: parts_done / parts_total
    of a split one, its solver's report of a whole one), summed, and the predicted seconds these
    shares stand for, so that progress moves while one huge puzzle is solved."""
    out = dict.fromkeys(job_ids, (0.0, 0.0))
    p = Puzzle
    rows = s.execute(select(p.job_id, func.sum(costs.running_share(p.parts_done, p.parts_total, p.progress)),
                            func.sum(costs.running_done_seconds(p.estimated_seconds, p.parts_done,
                                                                p.parts_total, p.progress)))
                     .where(p.job_id.in_(job_ids), p.status == RUNNING,
                            (p.parts_total > 0) | p.progress.is_not(None))
                     .group_by(p.job_id))
    for job_id, fraction, seconds in rows:
        out[job_id] = (float(fraction or 0.0), float(seconds or 0.0))
    return out


def job_state(job: Job | Row[*tuple[Any, ...]], counts: Mapping[str, int],
              partial: tuple[float, float] = (0.0, 0.0), waits: Ahead | None = None,
              workers: int | None = None) -> JobState:
    """``partial``: the done share of its running puzzles, as a number of puzzles and as predicted
    seconds (``partial_for``); ``waits``: its dear work and what is ahead of it (store.ahead);
    ``workers``: the cheap lane's worker processes (``_workers``). A cancelled job's progress is the
    share of its puzzles that ended before the cancel."""
    cost = costs.of_job(job.estimated_seconds, job.estimated_high, job.done_seconds + partial[1])
    if job.status == CANCELLED and job.total:  # a cancelled puzzle did none of its work
        progress = round((job.total - counts.get(CANCELLED, 0)) / job.total, 6)
    elif job.pending == 0:
        progress = 1.0
    elif cost is not None and cost.seconds > 0:
        progress = min(round(cost.done / cost.seconds, 6), 1.0)  # sums of floats
    else:
        progress = round((job.total - job.pending + partial[0]) / job.total, 6) if job.total else 1.0
    return JobState(id=job.id, status=job.status, label=job.label, created_at=job.created_at,
                    started_at=job.started_at, finished_at=job.finished_at, total=job.total,
                    counts=counts, progress=progress, cost=cost, ahead=waits,
                    workers=None if workers is None else max(min(workers, job.pending), 1))


# A job's row beside its puzzles counted by status, with each status's sum of the done shares of
# puzzles (the running ones' is partial_for's): one statement, so one snapshot and one round trip,
# built once (on the table's columns: no ORM entities to load) and compiled once.
_DESCRIBE = (select(_jobs.c.id, _jobs.c.owner, _jobs.c.label, _jobs.c.status, _jobs.c.total, _jobs.c.pending,
                    _jobs.c.created_at, _jobs.c.started_at, _jobs.c.finished_at, _jobs.c.estimated_seconds,
                    _jobs.c.estimated_high, _jobs.c.done_seconds,
                    _puzzles.c.status.label("puzzle_status"), func.count(_puzzles.c.id).label("n"),
                    func.sum(costs.running_share(_puzzles.c.parts_done, _puzzles.c.parts_total,
                                                 _puzzles.c.progress)).label("share"),
                    func.sum(costs.running_done_seconds(_puzzles.c.estimated_seconds, _puzzles.c.parts_done,
                                                        _puzzles.c.parts_total, _puzzles.c.progress))
                    .label("share_seconds"))
             .select_from(_jobs.outerjoin(_puzzles, _puzzles.c.job_id == _jobs.c.id))
             .where(_jobs.c.id == bindparam("job_id"))
             .group_by(_jobs.c.id, _puzzles.c.status))


def describe_job(s: Session, owner: str | None, job_id: str, lane: DearLane | None = None) -> JobState | None:
    """The job as the API shows it (its counts and progress too); None as for ``get_job``. With the
    ``lane``, its eta counts the dear lane's work ahead of it (store.ahead)."""
    rows = s.execute(_DESCRIBE, {"job_id": job_id}).all() if possible_job_id(job_id) else []
    if not rows or (owner is not None and rows[0].owner != owner):
        return None  # another client's job is as invisible as a missing one
    counts = chunk_entries.counts(s, [job_id])[job_id]
    partial = (0.0, 0.0)
    for row in rows:
        if row.puzzle_status is not None:  # None: a job without puzzle rows, its row alone
            counts[row.puzzle_status] = counts.get(row.puzzle_status, 0) + row.n
        # A final job has no running puzzles, whose shares alone move progress between whole puzzles.
        if row.puzzle_status == RUNNING and rows[0].status in UNFINISHED:
            partial = (float(row.share or 0.0), float(row.share_seconds or 0.0))
    waits = _waits(s, [rows[0]], lane)
    workers = _workers(s, [rows[0]], {job_id: partial}, lane)
    return job_state(rows[0], counts, partial, waits.get(job_id), workers)


def _waits(s: Session, found: Sequence[Job | Row[*tuple[Any, ...]]],
           lane: DearLane | None) -> dict[str, Ahead]:
    """The dear work of these jobs, the unfinished ones, and what waits ahead of it; nothing read
    without a ``lane``."""
    ids = [j.id for j in found if j.status in UNFINISHED]
    return ahead.of_jobs(s, ids, lane, now()) if lane is not None and ids else {}


def _workers(s: Session, found: Sequence[Job | Row[*tuple[Any, ...]]],
             partial: Mapping[str, tuple[float, float]], lane: DearLane | None) -> int | None:
    """The cheap lane's worker processes (store.ahead.cheap_workers), read only with a ``lane`` and
    for an unfinished job with none of its work done yet (its eta is then predicted: store.costs)."""
    if lane is None or not any(j.status in UNFINISHED and (j.started_at is None or
                                                           j.done_seconds + partial[j.id][1] <= 0)
                               for j in found):
        return None
    return ahead.cheap_workers(s, lane, now())


def get_puzzle(s: Session, job_id: str, index: int) -> Puzzle | None:
    """The puzzle at ``index``: its row, or its entry in a chunk (store.chunks)."""
    if not possible_index(index):
        return None
    row = s.scalar(select(Puzzle).where(Puzzle.job_id == job_id, Puzzle.index == index))
    if row is not None:
        return row
    found = chunk_entries.entries(s, job_id, index=index)
    return found[0] if found else None


def list_puzzles(s: Session, job_id: str, limit: int, start: int = 0,
                 statuses: Sequence[str] | None = None) -> tuple[list[Puzzle], int | None]:
    """A page of the job's puzzles from index ``start`` on, only those in ``statuses`` if given,
    and the next page's first index (a filtered page's next one starts at its next match)."""
    q = select(Puzzle).where(Puzzle.job_id == job_id, Puzzle.index >= start)
    if statuses:
        q = q.where(Puzzle.status.in_(statuses))
    rows = list(s.scalars(q.order_by(Puzzle.index).limit(limit + 1)))
    # the page's puzzle rows and chunk entries, merged by index
    rows = sorted(rows + chunk_entries.entries(s, job_id, start, statuses, limit + 1), key=lambda p: p.index)
    rows = rows[:limit + 1]
    return rows[:limit], (rows[limit].index if len(rows) > limit else None)


JobPosition = tuple[datetime, str]  # (created_at, id): a stable place in the newest-first order


def _matching(q: Any, owner: str | None, status: str | None, label: str | None) -> Any:
    """``q`` narrowed to the owner's jobs (None: every owner's) in ``status``, whose label holds
    ``label`` (any case; ``%`` and ``_`` are plain characters)."""
    if owner is not None:
        q = q.where(Job.owner == owner)
    if status is not None:
        q = q.where(Job.status == status)
    if label:
        escaped = label.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        q = q.where(Job.label.ilike(f"%{escaped}%", escape="\\"))
    return q


def list_jobs(s: Session, owner: str | None, status: str | None, limit: int,
              start: JobPosition | None = None, label: str | None = None, lane: DearLane | None = None,
              ) -> tuple[list[JobState], JobPosition | None]:
    """A page of jobs, newest first, from ``start`` on, and the next page's first position; with the
    ``lane``, their etas count the dear lane's work ahead of them (``describe_job``)."""
    q = _matching(select(Job), owner, status, label)
    if start is not None:
        created, job_id = start
        q = q.where((Job.created_at < created) | ((Job.created_at == created) & (Job.id <= job_id)))
    jobs = list(s.scalars(q.order_by(Job.created_at.desc(), Job.id.desc()).limit(limit + 1)))
    nxt = (jobs[limit].created_at, jobs[limit].id) if len(jobs) > limit else None
    jobs = jobs[:limit]
    ids = [j.id for j in jobs]
    counts, partial, waits = counts_for(s, ids), partial_for(s, ids), _waits(s, jobs, lane)
    workers = _workers(s, jobs, partial, lane)
    return [job_state(j, counts[j.id], partial[j.id], waits.get(j.id), workers) for j in jobs], nxt


def matching_jobs(s: Session, owner: str | None, statuses: Sequence[str], label: str | None,
                  limit: int) -> list[Job]:
    """At most ``limit`` of the owner's jobs in one of ``statuses`` whose label holds ``label``,
    oldest first."""
    q = _matching(select(Job), owner, None, label).where(Job.status.in_(statuses))
    return list(s.scalars(q.order_by(Job.created_at, Job.id).limit(limit)))


class Backlogged(Exception):
    """The owner's unfinished puzzles and the batch's together pass the limit (the job row stored
    meanwhile is rolled back with the transaction this escapes)."""

    def __init__(self, pending: int, limit: int):
        super().__init__(f"{pending} puzzles unfinished; the limit is {limit}")
        self.pending, self.limit = pending, limit
