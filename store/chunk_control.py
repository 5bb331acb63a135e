"""A chunk's changes made outside its task: a job's cancel, a retry's entries leaving for puzzle
rows, and the reaper's taking and requeueing of chunks whose task was lost.

Terms (chunk, entry, letter, leaves): docs/glossary.md; what chunks are: store.chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import and_, false, insert, or_, select, update
from sqlalchemy.orm import Session

from store import fastjson, tallies
from store.chunk_task import row_of
from store.chunks import LEFT, LETTERS, STATUS_OF
from store.lost import Lost, at_submit, with_deadline
from store.models import CANCELLED, QUEUED, RUNNING, UNFINISHED, Chunk, Puzzle


def cancel(s: Session, job_id: str, t: datetime) -> tuple[int, float]:
    """The job's queued and running chunks cancelled, every entry (a running chunk's task then
    writes nothing); returns the entries cancelled and their predicted seconds."""
    was = s.execute(select(Chunk.id, Chunk.kind, Chunk.status, Chunk.size, Chunk.estimated_seconds)
                    .where(Chunk.job_id == job_id, Chunk.status.in_(UNFINISHED)).with_for_update()).all()
    for chunk_id, kind, status, size, _cost in was:
        s.execute(update(Chunk).where(Chunk.id == chunk_id)
                  .values(status=CANCELLED, outcome=LETTERS[CANCELLED] * size, finished_at=t, deadline=None)
                  .execution_options(synchronize_session=False))
        tallies.moved(s, kind, status, CANCELLED, size)
    return sum(row.size for row in was), sum(row.estimated_seconds for row in was)


def lost(s: Session, t: datetime, lost: Lost, most: int) -> list[int]:
    """Chunks whose task was lost (store.lost: the conditions of every claimed row), locked, at most
    ``most``, oldest first."""
    unfinished = or_(with_deadline(Chunk, t, lost, Chunk.status == RUNNING), at_submit(Chunk, t, lost))
    return list(s.scalars(select(Chunk.id).where(Chunk.status.in_(UNFINISHED), unfinished).order_by(Chunk.id)
                          .limit(most).with_for_update(skip_locked=True)))


def requeue(s: Session, chunk_ids: Sequence[int], deadline: datetime) -> None:
    """Lost chunks queued again for a new task, with a new deadline; a running one keeps its attempt,
    so that its next claim dissolves it (``dissolve``)."""
    was = s.execute(select(Chunk.kind, Chunk.status, Chunk.size).where(Chunk.id.in_(chunk_ids))).all()
    for kind, status, size in was:
        tallies.moved(s, kind, status, QUEUED, size)
    s.execute(update(Chunk).where(Chunk.id.in_(chunk_ids))
              .values(status=QUEUED, deadline=deadline, worker=None)
              .execution_options(synchronize_session=False))


def leave_final(s: Session, job_id: str, letters: str, indexes: Sequence[int] | None) -> dict[int, str]:
    """The job's final entries whose letter is in ``letters`` (those at ``indexes`` only, if given)
    leave their chunks for puzzle rows in the same final state, for a retry to put back (store.retry).
    Returns the status of each entry at ``indexes`` that stays (its letter not among ``letters``)."""
    q = select(Chunk).where(Chunk.job_id == job_id)
    if indexes is not None:
        q = q.where(or_(*[and_(Chunk.first <= i, Chunk.first + Chunk.size > i) for i in indexes]) if indexes
                    else false())
    stays: dict[int, str] = {}
    wanted = None if indexes is None else set(indexes)
    for chunk in s.scalars(q.with_for_update()):
        offsets = range(chunk.size) if wanted is None else [i - chunk.first for i in wanted
                                                             if chunk.first <= i < chunk.first + chunk.size]
        if chunk.outcome is None:  # queued or running
            stays.update({chunk.first + i: chunk.status for i in offsets})
            continue
        outcome = list(chunk.outcome)
        leaving = [i for i in offsets if outcome[i] in letters]
        stays.update({chunk.first + i: STATUS_OF[outcome[i]] for i in offsets
                      if outcome[i] not in letters and outcome[i] != LEFT})
        if not leaving:
            continue
        inputs, estimates = fastjson.loads(chunk.inputs), fastjson.loads(chunk.estimates)
        s.execute(insert(Puzzle), [
            {**row_of(chunk, i, inputs[i], estimates[i]), "status": STATUS_OF[outcome[i]],
             "attempts": chunk.attempts, "error": (chunk.errors or {}).get(str(i)),
             "created_at": chunk.created_at, "started_at": chunk.started_at, "finished_at": chunk.finished_at}
            for i in leaving])
        for i in leaving:
            outcome[i] = LEFT
        s.execute(update(Chunk).where(Chunk.id == chunk.id).values(outcome="".join(outcome))
                  .execution_options(synchronize_session=False))
    return stays
