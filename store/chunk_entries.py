"""A job's chunks as readers see them: their entries as puzzle objects for the API, their entries
counted by status, and by worker for the fleet's view.

Terms (chunk, entry, letter, leaves): docs/glossary.md; what chunks are: store.chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session, defer

from store import fastjson
from store.chunks import LEFT, LETTERS, WRITTEN, entry_status
from store.lost import orphaned
from store.models import CANCELLED, FINAL, QUEUED, RUNNING, UNFINISHED, Chunk, Puzzle

# An entry's id as readers key it (store.blocks): negative, so that no puzzle row's id is one.
_ENTRY_IDS = 1 << 20


def entries(s: Session, job_id: str, start: int = 0, statuses: Sequence[str] | None = None,
            limit: int | None = None, index: int | None = None) -> list[Puzzle]:
    """The job's entries from index ``start`` on (or the one at ``index``), those in ``statuses``
    if given, at most ``limit``, in index order, as puzzle objects that are never stored: their
    ``offset`` in their chunk names their answer in its block (store.blocks)."""
    # The inputs and predictions (most of a chunk's row) are read only of the chunks that
    # give entries to the page, not of every chunk after ``start``.
    q = (select(Chunk).where(Chunk.job_id == job_id, Chunk.first + Chunk.size > start)
         .options(defer(Chunk.inputs), defer(Chunk.estimates)))
    if index is not None:
        q = q.where(Chunk.first <= index, Chunk.first + Chunk.size > index)
    out: list[Puzzle] = []
    for chunk in s.scalars(q.order_by(Chunk.first)):
        offsets = range(max(0, start - chunk.first), chunk.size) if index is None else [index - chunk.first]
        wanted = [(i, status) for i in offsets
                  if (status := entry_status(chunk.status, chunk.outcome, i)) is not None
                  and (not statuses or status in statuses)]
        if limit is not None:
            wanted = wanted[:limit - len(out)]
        if not wanted:
            continue
        inputs, estimates = fastjson.loads(chunk.inputs), fastjson.loads(chunk.estimates)
        out += [_entry(chunk, i, status, inputs[i], estimates[i]) for i, status in wanted]
        if limit is not None and len(out) >= limit:
            return out
    return out


def _entry(chunk: Chunk, i: int, status: str, wire: Any, estimate: list[Any]) -> Puzzle:
    entry = Puzzle(id=-(chunk.id * _ENTRY_IDS + i + 1), job_id=chunk.job_id, index=chunk.first + i,
                   kind=chunk.kind, input=wire, options=chunk.options, status=status,
                   error=(chunk.errors or {}).get(str(i)), attempts=chunk.attempts,
                   started_at=None if status == QUEUED else chunk.started_at,
                   finished_at=chunk.finished_at if status in FINAL else None,
                   block_id=chunk.block_id if status in FINAL else None, result=None, stats=None,
                   solve_ms=chunk.solve_ms, parts_total=0, parts_done=0, progress=None,
                   estimated_seconds=estimate[0], estimate_factor=estimate[1], estimate_basis=estimate[2])
    entry.offset = i  # type: ignore[attr-defined]  # read by store.blocks.answers
    return entry


def counts(s: Session, job_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    """The entries of these jobs' chunks counted by status (entries that left not counted)."""
    # an entry's letter counted as the text's length without it taken from its whole length
    letters = {status: func.sum(func.length(Chunk.outcome)
                                - func.length(func.replace(Chunk.outcome, letter, "")))
               for status, letter in LETTERS.items()}
    out: dict[str, dict[str, int]] = {job_id: {} for job_id in job_ids}
    unwritten = s.execute(select(Chunk.job_id, Chunk.status, func.sum(Chunk.size))
                          .where(Chunk.job_id.in_(job_ids), Chunk.status.in_(UNFINISHED))
                          .group_by(Chunk.job_id, Chunk.status))
    for job_id, status, n in unwritten:
        out[job_id][status] = int(n)
    written = s.execute(select(Chunk.job_id, *letters.values()).where(Chunk.job_id.in_(job_ids),
                                                                      Chunk.outcome.is_not(None))
                        .group_by(Chunk.job_id))
    for job_id, *ns in written:
        for status, n in zip(letters, ns, strict=True):
            if n:
                out[job_id][status] = out[job_id].get(status, 0) + int(n)
    return out


def by_worker(s: Session, jobs: Sequence[str], cutoff: datetime) -> list[tuple[str | None, str, int, int]]:
    """(worker, job, entries held, entries written since ``cutoff``) of these jobs' chunks; a running
    chunk claimed before its worker's oldest task began is held by no task (worker.heartbeat)."""
    rows = s.execute(select(Chunk.worker, Chunk.job_id, Chunk.status, Chunk.size, Chunk.outcome)
                     .where(Chunk.job_id.in_(jobs), Chunk.worker.is_not(None),
                            or_(and_(Chunk.status == RUNNING, ~orphaned(Chunk.worker, Chunk.started_at)),
                                and_(Chunk.status == WRITTEN, Chunk.finished_at >= cutoff))))
    return [(worker, job_id, size if status == RUNNING else 0, _written(outcome) if status == WRITTEN else 0)
            for worker, job_id, status, size, outcome in rows]


def finished_since(s: Session, jobs: Sequence[str], cutoff: datetime) -> int:
    """Entries of these jobs written or cancelled since ``cutoff``."""
    outcomes = s.scalars(select(Chunk.outcome).where(Chunk.job_id.in_(jobs), Chunk.outcome.is_not(None),
                                                     Chunk.finished_at >= cutoff))
    return sum(len(outcome) - outcome.count(LEFT) for outcome in outcomes if outcome)


def _written(outcome: str | None) -> int:
    """The entries a worker finished: written, neither left nor cancelled."""
    return 0 if outcome is None else len(outcome) - outcome.count(LEFT) - outcome.count(LETTERS[CANCELLED])
