"""A job ended by its owner: cancelled (its unfinished puzzles and entries with it) or deleted
with its puzzles once finished. store.jobs reads jobs, store.retention deletes old ones through
``delete_jobs``.

Terms (entry, tallies, notice): docs/glossary.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from store import chunk_control, notices, tallies
from store.db import changed_rows
from store.models import CANCELLED, COMPLETED, UNFINISHED, Job, Puzzle, lock_job, now


def cancel_job(s: Session, job: Job) -> int:
    """Unfinished puzzles -> cancelled; running ones are flagged so their solvers stop and
    their results are never written. Returns how many puzzles were cancelled."""
    # The status is read under the lock, since a worker may have completed the job since it was loaded.
    status = lock_job(s, job.id)
    if status in (COMPLETED, CANCELLED):
        return 0
    t = now()
    unfinished = (Puzzle.job_id == job.id, Puzzle.status.in_(UNFINISHED))
    # Locked first, for the tallies: the UPDATE below changes exactly these rows, and says only
    # how many, not what each was.
    was = s.execute(select(Puzzle.kind, Puzzle.status, Puzzle.estimated_seconds)
                    .where(*unfinished).with_for_update()).all()
    moved = changed_rows(s, update(Puzzle).where(*unfinished)
                         .values(status=CANCELLED, finished_at=t, stop_requested=True))
    for kind, old, _cost in was:
        tallies.moved(s, kind, old, CANCELLED)
    cost = sum(row.estimated_seconds or 0.0 for row in was)
    entries, entries_cost = chunk_control.cancel(s, job.id, t)
    moved, cost = moved + entries, cost + entries_cost
    s.execute(update(Job).where(Job.id == job.id)
              .values(status=CANCELLED, pending=Job.pending - moved, done_seconds=Job.done_seconds + cost,
                      finished_at=t)
              .execution_options(synchronize_session=False))
    notices.notify(s, [job.id])  # its waiters, in every API process, answer at the commit
    s.refresh(job)
    return moved


def delete_job(s: Session, job: Job) -> str | None:
    """Delete a finished job with its puzzles and subtasks (a task still holding some of their ids
    then finds no rows and does nothing); None once deleted. An unfinished job is kept, and its
    status (read under the lock: a worker may have finished it meanwhile) returned."""
    status = lock_job(s, job.id)
    if status not in (COMPLETED, CANCELLED):
        return status
    delete_jobs(s, [job.id])
    return None


def delete_jobs(s: Session, job_ids: Sequence[str]) -> None:
    """Jobs with their puzzles (which name their job without a foreign key, store.models) and, by
    the keys' cascades, their subtasks, blocks and deliveries. The tallies keep their counts: a
    deleted job was still submitted, its puzzles still finished."""
    s.execute(delete(Puzzle).where(Puzzle.job_id.in_(job_ids)).execution_options(synchronize_session=False))
    s.execute(delete(Job).where(Job.id.in_(job_ids)).execution_options(synchronize_session=False))
