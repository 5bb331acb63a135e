"""A job's history: every event of the job and of its puzzles, oldest first (docs/API.md, "Events").

What the rows date themselves is read from them: the job's submit, start and end; each puzzle's,
chunk's and subtask's last claim (when, by which worker, which attempt) and end (its status and
error, its predicted and actual seconds). What the rows forget goes into ``job_events``, one row
per change (a chunk's entries one row per run of indexes), written by store.event_records; this
module reads both and merges them in order.

Terms (event, handed on, leaves, lane): docs/glossary.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from store import chunks, fastjson
from store.models import (
    CANCELLED,
    COMPLETED,
    FINAL,
    Chunk,
    Job,
    JobEvent,
    Puzzle,
    Subtask,
    aware,
)

# Event types, in the order events at one instant are listed.
ORDER = ("submitted", "started", "handed_on", "left", "retried", "claimed", "split", "moved", "finished",
         "ended")
RANK = {name: i for i, name in enumerate(ORDER)}
# Where an event comes from: ties at one instant are broken by it, then by its row's id.
JOB, CHUNK, PUZZLE, PART, RECORDED = range(5)

Position = tuple[datetime, int, int, int, int, int]  # an event's place in the order (``Event.key``)


class Event(NamedTuple):
    """One event: of the job (``first`` None), of the puzzles ``first`` to ``last``, or of part
    ``part`` of puzzle ``first``. A tuple: a job's thousands are made in a few milliseconds.
    ``detail`` is never changed once made (the default is shared)."""

    at: datetime
    type: str
    first: int | None = None
    last: int | None = None
    part: int | None = None
    worker: str | None = None
    attempt: int | None = None
    detail: dict[str, Any] = {}  # noqa: RUF012  never changed
    source: int = JOB
    ref: int = 0

    def key(self) -> Position:
        """Its place in the order; ``at`` as stored (SQLite's times have no zone, all being UTC)."""
        return (self.at, RANK[self.type], -1 if self.first is None else self.first,
                -1 if self.part is None else self.part, self.source, self.ref)


def of_job(s: Session, job: Job, limit: int, after: Position | None = None,
           index: int | None = None) -> tuple[list[Event], Position | None]:
    """A page of the job's events (those of the puzzle at ``index`` and of the job only, if
    given), oldest first, from just after ``after``; and the position to read the next page after
    (None: this is the last)."""
    # The rows with nothing at or after the cursor's time are left in the database. A second
    # early: SQLite compares times as text, and one written without a fraction of a second
    # ("12:00:05") sorts before the same second with one ("12:00:05.000000"). (A cursor in the
    # calendar's first year narrows nothing: a second before it may not exist.)
    since = (None if after is None or after[0].year < 2
             else after[0].astimezone(UTC) - timedelta(seconds=1))
    found = sorted((e for source in (_of_job_row(job), _of_puzzles(s, job.id, index, since),
                                     _of_chunks(s, job.id, index, since), _of_parts(s, job.id, index, since),
                                     _recorded(s, job.id, index, since)) for e in source), key=Event.key)
    found = _end_last(found)
    if after is not None and found:
        after = (_as_stored(after[0], found[0].at), *after[1:])
        found = [e for e in found if e.key() > after]
    page = found[:limit]
    if len(found) <= limit:
        return page, None
    last = page[-1].key()
    return page, (aware(last[0]), *last[1:])


def _end_last(found: list[Event]) -> list[Event]:
    """``found`` (in order) with the job's end as its row has it after every other event: a
    puzzle's write stamps its time before it waits for the job's lock, so the write that ended the
    job may carry an earlier time than one it waited for. The end then takes the latest time."""
    end = next((e for e in found if e.source == JOB and e.type == "ended"), None)
    if end is None or found[-1] is end:
        return found
    return [e for e in found if e is not end] + [end._replace(at=max(end.at, found[-1].at))]


def _as_stored(t: datetime, like: datetime) -> datetime:
    """``t`` (with its zone) comparable with ``like``, a time as the database gives it back."""
    return t if like.tzinfo is not None else t.astimezone(UTC).replace(tzinfo=None)


def _of_job_row(job: Job) -> Iterator[Event]:
    yield Event(job.created_at, "submitted", detail={"total": job.total})
    if job.started_at is not None:
        yield Event(job.started_at, "started")
    if job.finished_at is not None and job.status in (COMPLETED, CANCELLED):
        yield Event(job.finished_at, "ended", detail={"status": job.status})


def _seconds(estimated: float | None, solve_ms: float | None, n: int = 1) -> dict[str, float]:
    """A finished event's predicted and actual seconds (each left out if unknown)."""
    out = {} if estimated is None else {"estimated_seconds": round(estimated, 6)}
    if solve_ms is not None:
        out["seconds"] = round(solve_ms * n / 1000.0, 6)
    return out


def _dated(q: Any, model: Any, since: datetime | None) -> Any:
    """``q`` narrowed to the rows claimed or ended at ``since`` or after (all of them if None)."""
    return q if since is None else q.where(or_(model.started_at >= since, model.finished_at >= since))


def _of_puzzles(s: Session, job_id: str, index: int | None, since: datetime | None) -> Iterator[Event]:
    q = select(Puzzle.id, Puzzle.index.label("at"), Puzzle.status, Puzzle.attempts, Puzzle.worker,
               Puzzle.started_at, Puzzle.finished_at, Puzzle.error, Puzzle.solve_ms,
               Puzzle.estimated_seconds).where(Puzzle.job_id == job_id)
    if index is not None:
        q = q.where(Puzzle.index == index)
    q = _dated(q, Puzzle, since)
    # positional, and the row's fields by position: a job's thousands of rows are read here
    for i, at, status, attempts, worker, started, finished, error, solve_ms, estimated in s.execute(q):
        if started is not None:
            yield Event(started, "claimed", at, at, None, worker, attempts, {}, PUZZLE, i)
        if finished is not None and status in FINAL:
            detail = {"status": status, **_seconds(estimated, solve_ms)}
            if error is not None:
                detail["error"] = error
            yield Event(finished, "finished", at, at, None, worker, attempts, detail, PUZZLE, i)


def _of_chunks(s: Session, job_id: str, index: int | None, since: datetime | None) -> Iterator[Event]:
    """A chunk's claim and end as events of its run of indexes (of its entry at ``index`` only,
    if given: its own status, error and prediction; nothing of its end if it left)."""
    columns = [Chunk.id, Chunk.first, Chunk.size, Chunk.status, Chunk.attempts, Chunk.worker,
               Chunk.started_at, Chunk.finished_at, Chunk.outcome, Chunk.errors, Chunk.solve_ms,
               Chunk.estimated_seconds]
    q = select(*columns).where(Chunk.job_id == job_id)
    if index is not None:
        q = select(*columns, Chunk.estimates).where(Chunk.job_id == job_id, Chunk.first <= index,
                                                    Chunk.first + Chunk.size > index)
    q = _dated(q, Chunk, since)
    for row in s.execute(q):
        first, last = (row.first, row.first + row.size - 1) if index is None else (index, index)
        said = {"worker": row.worker, "attempt": row.attempts, "source": CHUNK, "ref": row.id}
        if row.started_at is not None:
            yield Event(row.started_at, "claimed", first, last, **said)
        if row.finished_at is None:
            continue
        if index is None:
            detail = _chunk_end(row)
            if not detail["statuses"]:
                continue  # every entry left: their puzzle rows stand for them
        else:
            status = chunks.entry_status(row.status, row.outcome, index - row.first)
            if status is None:
                continue  # it left: its puzzle row, then, stands for it
            estimate = fastjson.loads(row.estimates)[index - row.first][0]
            detail = {"status": status, **_seconds(estimate, row.solve_ms)}
            if (error := (row.errors or {}).get(str(index - row.first))) is not None:
                detail["error"] = error
        yield Event(row.finished_at, "finished", first, last, detail=detail, **said)


def _chunk_end(row: Any) -> dict[str, Any]:
    """A written or cancelled chunk's end: its entries counted by status (those that left not
    counted), the failed ones' errors by index, the whole chunk's predicted seconds and its solve's."""
    statuses: dict[str, int] = {}
    for letter in row.outcome or "":
        if letter != chunks.LEFT:
            status = chunks.STATUS_OF[letter]
            statuses[status] = statuses.get(status, 0) + 1
    detail: dict[str, Any] = {"statuses": statuses,
                              **_seconds(row.estimated_seconds, row.solve_ms, sum(statuses.values()))}
    if row.errors:
        detail["errors"] = {str(row.first + int(i)): error for i, error in row.errors.items()}
    return detail


def _of_parts(s: Session, job_id: str, index: int | None, since: datetime | None) -> Iterator[Event]:
    q = (select(Subtask.id, Subtask.index.label("part"), Puzzle.index.label("at"), Subtask.status,
                Subtask.attempts, Subtask.worker, Subtask.started_at, Subtask.finished_at, Subtask.error)
         .join(Puzzle, Puzzle.id == Subtask.puzzle_id).where(Puzzle.job_id == job_id, Puzzle.parts_total > 0))
    if index is not None:
        q = q.where(Puzzle.index == index)
    for row in s.execute(_dated(q, Subtask, since)):
        said = {"part": row.part, "worker": row.worker, "attempt": row.attempts, "source": PART,
                "ref": row.id}
        if row.started_at is not None:
            yield Event(row.started_at, "claimed", row.at, row.at, **said)
        if row.status in FINAL and row.finished_at is not None:
            detail = {"status": row.status}
            if row.error is not None:
                detail["error"] = row.error
            yield Event(row.finished_at, "finished", row.at, row.at, detail=detail, **said)


def _recorded(s: Session, job_id: str, index: int | None, since: datetime | None) -> Iterator[Event]:
    q = select(JobEvent).where(JobEvent.job_id == job_id)
    if since is not None:
        q = q.where(JobEvent.at >= since)
    if index is not None:
        q = q.where(or_(JobEvent.first.is_(None), and_(JobEvent.first <= index, JobEvent.last >= index)))
    for e in s.scalars(q.order_by(JobEvent.id)):
        yield Event(e.at, e.type, e.first, e.last, e.part, e.worker, e.attempt, e.detail or {}, RECORDED,
                    e.id)
