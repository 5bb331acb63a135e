"""A chunk's task in the store: its claim, its write (entries that leave get puzzle rows), and its
dissolving when it comes back after its worker was lost.

Terms (chunk, entry, letter, leaves, claim, write, held): docs/glossary.md; what chunks are:
store.chunks. The statements run here are built once per kind of database in store.chunk_statements.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from store import event_records, fastjson, notices, tallies
from store.chunk_statements import for_dialect
from store.chunks import outcome_text
from store.db import dialect_of, read_only
from store.models import COMPLETED, QUEUED, RUNNING, Chunk, Puzzle, ResultBlock, lock_job, now


@dataclass(slots=True)
class Held:
    """A chunk this task claimed: its entries' inputs (decoded) and what its write checks."""

    id: int
    job_id: str
    first: int
    kind: str
    options: dict[str, Any]
    inputs: list[Any]
    estimates: list[list[Any]]
    attempts: int
    started_at: datetime

    @property
    def size(self) -> int:
        return len(self.inputs)



def kind_of(s: Session, chunk_id: int) -> list[str]:
    """The chunk's kind (none if it is gone), read only: what its task prepares before it claims it
    (worker.warmup.prepare_first)."""
    return list(read_only(s).scalars(select(Chunk.kind).where(Chunk.id == chunk_id)))


def claim(s: Session, chunk_id: int, worker: str, deadline: datetime,
          redelivered: bool = False) -> Held | None:
    """Mark the chunk running for this task (attempts + 1); None if it is not queued (a late or
    repeated task: running, written, cancelled or dissolved already), or, ``redelivered`` (its
    task's worker was lost, or its connection to the broker), not queued or running. The job
    starts with it. Its job's row is locked first (the lock order, ``lock_job``)."""
    t = now()
    params = {"chunk": chunk_id, "redelivered": redelivered, "by": worker, "lease": deadline, "t": t}
    row = _claim_postgresql(s, params) if dialect_of(s).writes_in_with else _claim_sqlite(s, params)
    if row is None:
        return None
    job_id, first, kind, options, inputs, estimates, attempts, size, was = row
    tallies.moved(s, kind, was, RUNNING, size)
    return Held(chunk_id, job_id, first, kind, options, fastjson.loads(inputs), fastjson.loads(estimates),
                attempts, t)


def _claim_postgresql(s: Session, params: dict[str, Any]) -> Sequence[Any] | None:
    """The job's row locked, then the chunk's, the chunk claimed and the job started, in one
    statement: (``Held``'s columns, the chunk's status before), or None."""
    return s.execute(for_dialect(dialect_of(s)).claim, params).one_or_none()


def _claim_sqlite(s: Session, params: dict[str, Any]) -> Sequence[Any] | None:
    """``_claim_postgresql``'s steps one statement each (SQLite locks the whole database)."""
    statements = for_dialect(dialect_of(s))
    was = s.scalar(statements.status, params)
    row = None if was is None else s.execute(statements.claim, params).one_or_none()
    if row is None:
        return None
    s.execute(statements.job_started, {**params, "job": row.job_id})
    return (*row, was)


@dataclass
class Written:
    """What a task makes of its chunk: each entry's status (None: it leaves) and answer text."""

    statuses: list[str | None]
    answers: list[str | None]
    errors: dict[int, str]
    solve_ms: float | None


def write(s: Session, held: Held, done: Written) -> tuple[int, list[int]]:
    """Write the chunk as this task holds it: its block, its letters, the job's counters and the
    tallies; each entry that leaves gets a queued puzzle row. Nothing if the chunk is no longer
    this task's (cancelled, or claimed again after its lease ran out). Returns the entries
    written and the ids of the puzzle rows made, to publish once committed."""
    t = now()
    final = Counter(status for status in done.statuses if status is not None)
    n = sum(final.values())
    written = any(answer is not None for answer in done.answers)
    params = {"job": held.job_id, "chunk": held.id, "attempt": held.attempts, "t": t,
              "outcomes": "[" + ",".join("null" if a is None else a for a in done.answers) + "]" if written
              else None,
              "letters": outcome_text(done.statuses), "share_ms": done.solve_ms,
              "failures": {str(k): v for k, v in done.errors.items()} or None, "n": n,
              "cost": sum(e[0] for e, status in zip(held.estimates, done.statuses, strict=True)
                          if status is not None)}
    if not (_write_postgresql(s, params) if dialect_of(s).writes_in_with else _write_sqlite(s, params)):
        return 0, []
    for final_status, count in final.items():
        tallies.moved(s, held.kind, RUNNING, final_status, count)
    tallies.solved_in(s, held.kind, done.solve_ms, n)
    leaving = [i for i, status in enumerate(done.statuses) if status is None]
    tallies.moved(s, held.kind, RUNNING, QUEUED, len(leaving))
    return n, _leave(s, held, leaving, t)


def _write_postgresql(s: Session, params: dict[str, Any]) -> bool:
    """The job locked, the block stored, the chunk written, the job moved and its notice sent if
    it completes, in one statement; False if the chunk is no longer this task's."""
    return s.execute(for_dialect(dialect_of(s)).write, params).one_or_none() is not None


def _write_sqlite(s: Session, params: dict[str, Any]) -> bool:
    """``_write_postgresql``'s steps one statement each (SQLite has no UPDATE inside WITH)."""
    if lock_job(s, params["job"]) is None:
        return False
    statements = for_dialect(dialect_of(s))
    block_id = None if params["outcomes"] is None else s.scalar(statements.block, params)
    if s.execute(statements.write, {**params, "block": block_id}).first() is None:
        if block_id is not None:  # inserted before the chunk could tell it is no longer this task's
            s.execute(delete(ResultBlock).where(ResultBlock.id == block_id))
        return False
    if s.scalar(statements.job_written, params) == COMPLETED:
        notices.notify(s, [params["job"]])  # its waiters answer at the commit
    return True


def dissolve(s: Session, held: Held) -> list[int]:
    """Every entry of a chunk that came back after its worker was lost leaves for a puzzle row, to
    be published one a task: one of them may be what killed the worker, and only that one should
    use up its attempts. Returns the rows' ids."""
    return write(s, held, Written([None] * held.size, [None] * held.size, {}, None))[1]


def _leave(s: Session, held: Held, offsets: Sequence[int], t: datetime) -> list[int]:
    if not offsets:
        return []
    s.execute(insert(Puzzle), [{**row_of(held, i, held.inputs[i], held.estimates[i]), "status": QUEUED,
                                "attempts": 0, "created_at": t} for i in offsets])
    event_records.left(s, t, held.job_id, held.first, offsets,
                       "lost" if held.attempts > 1 else "solved_alone")
    return list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == held.job_id,
                                                  Puzzle.index.in_([held.first + i for i in offsets]))
                          .order_by(Puzzle.index)))


def row_of(chunk: Held | Chunk, i: int, wire: Any, estimate: Sequence[Any]) -> dict[str, Any]:
    """The puzzle row of entry ``i`` as it leaves its chunk, but for its state (status, attempts,
    times): what the entry keeps of its chunk."""
    return {"job_id": chunk.job_id, "index": chunk.first + i, "kind": chunk.kind, "input": wire,
            "options": chunk.options, "parts_total": 0, "parts_done": 0, "stop_requested": False,
            "estimated_seconds": estimate[0], "estimate_factor": estimate[1], "estimate_basis": estimate[2]}

