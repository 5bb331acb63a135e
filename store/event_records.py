"""What a job's rows forget, recorded into ``job_events`` (models.JobEvent), one row per change (a
chunk's entries one row per run of indexes), each in the transaction of the change it records:
work handed on by the reaper, a puzzle moved to the dear lane, split into parts, entries leaving
their chunk, puzzles retried (with what they were) and the end of a job a retry reopens. The
cheap path (a claim, a write) records nothing here: its rows say it all. store.events reads
these with what the rows date themselves, as a job's history.

Terms (event, handed on, leaves, lane): docs/glossary.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, bindparam, insert, literal, null, select
from sqlalchemy.orm import Session

from store.models import CANCELLED, COMPLETED, Chunk, Job, JobEvent, Puzzle, Subtask, iso_time
from store.statements import among


def _at(t: datetime) -> Any:
    return bindparam("t", t, type_=DateTime(timezone=True))


def _detail(detail: Mapping[str, Any] | None) -> Any:
    return null() if detail is None else bindparam("detail", dict(detail), type_=JSON)


_COLUMNS = ["job_id", "at", "type", "first", "last", "part", "worker", "attempt", "detail"]


def puzzles_event(s: Session, t: datetime, kind: str, puzzle_ids: Sequence[int],
                  detail: Mapping[str, Any] | None = None, claim: tuple[str, int] | None = None) -> None:
    """One event of ``kind`` for each of these puzzle rows, naming the worker and attempt of its
    last claim as the row has them now (or as ``claim`` says: a claim given back)."""
    if puzzle_ids:
        worker, attempt = (Puzzle.worker, Puzzle.attempts) if claim is None else map(literal, claim)
        s.execute(insert(JobEvent).from_select(_COLUMNS, select(
            Puzzle.job_id, _at(t), literal(kind), Puzzle.index, Puzzle.index, null(), worker, attempt,
            _detail(detail)).where(among(s, Puzzle.id, puzzle_ids))))


def moved(s: Session, t: datetime, puzzle_ids: Sequence[int], worker: str, attempt: int,
          cap: float | None) -> None:
    """These puzzles, claimed by ``worker`` under ``attempt``, ran past the cheap lane's cap
    (``cap`` seconds) and go to the dear lane."""
    puzzles_event(s, t, "moved", puzzle_ids, {"lane": "dear", "cap_seconds": cap}, (worker, attempt))


def handed_on(s: Session, t: datetime, puzzle_ids: Sequence[int], chunk_ids: Sequence[int],
              subtask_ids: Sequence[int]) -> None:
    """The reaper publishes these rows again: each one's event names the worker it was lost with
    (None: its message was lost while it was queued) and its attempt. Called before their worker
    is cleared."""
    puzzles_event(s, t, "handed_on", puzzle_ids)
    if chunk_ids:
        s.execute(insert(JobEvent).from_select(_COLUMNS, select(
            Chunk.job_id, _at(t), literal("handed_on"), Chunk.first, Chunk.first + Chunk.size - 1, null(),
            Chunk.worker, Chunk.attempts, null()).where(among(s, Chunk.id, chunk_ids))))
    if subtask_ids:
        s.execute(insert(JobEvent).from_select(_COLUMNS, select(
            Puzzle.job_id, _at(t), literal("handed_on"), Puzzle.index, Puzzle.index, Subtask.index,
            Subtask.worker, Subtask.attempts, null()).join(Puzzle, Puzzle.id == Subtask.puzzle_id)
            .where(among(s, Subtask.id, subtask_ids))))


def left(s: Session, t: datetime, job_id: str, first: int, offsets: Sequence[int], reason: str) -> None:
    """Entries at these offsets of the chunk starting at ``first`` leave it for puzzle rows: one
    event per run of consecutive offsets."""
    runs: list[list[int]] = []
    for i in sorted(offsets):
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    s.execute(insert(JobEvent), [{"job_id": job_id, "at": t, "type": "left", "first": first + a,
                                  "last": first + b, "detail": {"reason": reason}} for a, b in runs])


def reopened(s: Session, job: Job) -> None:
    """A retry puts the ended ``job`` back to work: its end, which the job's row then forgets, is
    kept as an event. Called before the job's row changes."""
    if job.status in (COMPLETED, CANCELLED) and job.finished_at is not None:
        s.add(JobEvent(job_id=job.id, at=job.finished_at, type="ended", detail={"status": job.status}))


def retried(s: Session, t: datetime, options: Mapping[int, dict[str, Any]]) -> None:
    """These puzzle rows (id: the options they run with now) are retried: each one's event keeps
    what the retry clears, its status, error, worker, attempt and end. Called before the reset."""
    rows = s.execute(select(Puzzle.id, Puzzle.job_id, Puzzle.index.label("at"), Puzzle.status, Puzzle.error,
                            Puzzle.worker, Puzzle.attempts, Puzzle.finished_at)
                     .where(among(s, Puzzle.id, list(options)))).all()
    if rows:
        s.execute(insert(JobEvent), [
            {"job_id": row.job_id, "at": t, "type": "retried", "first": row.at, "last": row.at,
             "worker": row.worker, "attempt": row.attempts,
             "detail": {"was": row.status, "error": row.error, "options": options[row.id],
                        "finished_at": iso_time(row.finished_at)}}
            for row in rows])

