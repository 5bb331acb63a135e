"""The workers' changes to puzzle rows: claim, renew, release and fan out into subtasks (the
results' write is store.results). Every puzzle row a task solves is claimed first: ``running``
under a new attempt number and a lease (its deadline), then written.

States (the API's, see docs/architecture.md for the diagrams)::

    puzzle   queued --claim--> running --write--> solved | no_solution | failed
             queued | running --cancel (API)--> cancelled
             running --fan_out--> running with parts_total > 0 --last part (store.parts)--> final
    subtask  queued --claim--> running --record--> solved | no_solution | failed
             queued | running --skip (enough solutions)--> cancelled

Every change is a conditional UPDATE on the state the task saw, so a late, redelivered or
duplicated task changes nothing: a result lands only while its puzzle is ``running`` under the
attempt number of this task's claim (``still_mine``). A job's ``pending`` counter moves in the
same transaction, by exactly the rows written, and so do the tallies of /metrics
(store.tallies). Lock order everywhere: the job row (``lock_job``), then its puzzles, then
subtasks.

Terms (claim, attempts, lease, fan out, lock order): docs/glossary.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, func, insert, select, update
from sqlalchemy.orm import Session

from solvers.base import Split
from store import event_records, tallies
from store.db import changed_rows, read_only
from store.models import QUEUED, RUNNING, Job, Puzzle, Subtask, lock_job, now
from store.statements import ASSIGNED, CLAIMABLE, among


@dataclass(slots=True)
class Assigned:
    """A puzzle this task claimed to solve: ``running`` under ``attempts``."""

    id: int
    job_id: str
    kind: str
    input: Any
    options: dict[str, Any]
    attempts: int
    base: int = 0  # the attempt number it was last retried at (``Puzzle.attempts_base``)
    estimated: float | None = None  # its predicted seconds as stored (None: stored without)

    @property
    def tries(self) -> int:
        """Attempts towards the cap: the claims since it was submitted or last retried."""
        return self.attempts - self.base


@dataclass(slots=True)
class Result:
    """One finished puzzle on its way to SQL."""

    id: int
    job_id: str
    attempts: int
    status: str
    answer: str | None = None  # ``[result, stats]`` as JSON text (``store.blocks.answer``), for its block
    error: str | None = None
    solve_ms: float | None = None
    cpu_seconds: float | None = None  # CPU seconds measured of this attempt, added to the row's (store.costs)


@dataclass
class SplitPuzzle:
    """A claimed puzzle cut into parts: stored as subtasks (``fan_out``) instead of written."""

    assigned: Assigned
    split: Split


def claim(s: Session, ids: Sequence[int], worker: str, deadline: datetime) -> list[Assigned]:
    """Mark these puzzles running for this task (attempts + 1); returns what was claimed.
    Final or cancelled puzzles are left alone, so a late or repeated task claims nothing."""
    t = now()
    mine = among(s, Puzzle.id, ids)
    jobs_of = select(Puzzle.job_id).where(mine).scalar_subquery()
    s.execute(update(Job).where(Job.id.in_(jobs_of), Job.status == QUEUED)
              .values(status=RUNNING, started_at=t).execution_options(synchronize_session=False))
    # Locked first, for the tallies: the UPDATE changes exactly these rows and returns only their
    # new status, while a claim takes running puzzles too (those a lost task held).
    was = s.execute(select(Puzzle.id, Puzzle.kind, Puzzle.status).where(mine, *CLAIMABLE)
                    .with_for_update()).all()
    if not was:
        return []
    rows = s.execute(
        update(Puzzle).where(among(s, Puzzle.id, [row.id for row in was]), *CLAIMABLE)
        .values(status=RUNNING, attempts=Puzzle.attempts + 1, started_at=t, worker=worker, deadline=deadline,
                progress=None)
        .returning(*ASSIGNED).execution_options(synchronize_session=False))
    for row in was:
        tallies.moved(s, row.kind, row.status, RUNNING)
    return sorted((Assigned(*row) for row in rows), key=lambda a: a.id)


def still_mine(a: Assigned) -> ColumnElement[bool]:
    """The row is as this task's claim left it: ``running`` under the claim's attempt number."""
    return (Puzzle.status == RUNNING) & (Puzzle.attempts == a.attempts)


def record_progress(s: Session, a: Assigned, share: float) -> None:
    """The share of its search the solver of a puzzle this task holds reports (solvers/progress.py),
    written only while the task still holds it whole (a split puzzle shows its parts instead)."""
    s.execute(update(Puzzle).where(Puzzle.id == a.id, still_mine(a), Puzzle.parts_total == 0)
              .values(progress=share).execution_options(synchronize_session=False))


def charge_running(s: Session, a: Assigned, seconds: float) -> bool:
    """Add CPU seconds measured of a whole puzzle's solve while it runs (worker.limits' watcher) to
    its row, only while this task still holds it whole; whether they were added."""
    mine = (Puzzle.id == a.id, still_mine(a), Puzzle.parts_total == 0)
    return bool(changed_rows(s, update(Puzzle).where(*mine)
                             .values(cpu_seconds=func.coalesce(Puzzle.cpu_seconds, 0.0) + seconds)))


def still_needed(s: Session, puzzle_id: int) -> bool:
    """Whether a watched solve of this puzzle (whole, or one of its parts) should go on: the puzzle
    is running and no stop is requested (worker.limits' watcher asks, read only)."""
    row = read_only(s).execute(select(Puzzle.status, Puzzle.stop_requested)
                               .where(Puzzle.id == puzzle_id)).one_or_none()
    return row is not None and row.status == RUNNING and not row.stop_requested


def kinds_of(s: Session, ids: Sequence[int]) -> list[str]:
    """The kinds of these puzzles, read only: what their task prepares before it claims anything
    (worker.warmup.prepare_first)."""
    return list(read_only(s).scalars(select(Puzzle.kind).where(among(s, Puzzle.id, ids)).distinct()))


def extend(s: Session, held: Sequence[Assigned], deadline: datetime) -> None:
    """Renew the lease of claimed puzzles still to do."""
    if held:
        s.execute(update(Puzzle).where(Puzzle.id.in_([a.id for a in held]), Puzzle.status == RUNNING)
                  .values(deadline=deadline).execution_options(synchronize_session=False))


def release(s: Session, held: Sequence[Assigned]) -> None:
    """Give back puzzles this task claimed but never started, as if it had not claimed them. They are
    published again by their prediction, which places them anew if that is the dear lane."""
    for a in held:
        if changed_rows(s, update(Puzzle).where(Puzzle.id == a.id, still_mine(a))
                        .values(status=QUEUED, attempts=Puzzle.attempts - 1, worker=None, dear_level=None,
                                dear_at=None)):
            tallies.moved(s, a.kind, RUNNING, QUEUED)


def requeue(s: Session, a: Assigned, deadline: datetime, cpu_seconds: float | None = None) -> bool:
    """Put a puzzle this task holds back in the queue as it was before (its attempt not counted),
    with a new deadline, for another task to take (worker.chunk: the cheap lane's cap), charged
    the ``cpu_seconds`` measured of this task's try (store.costs). False if it was no longer this
    task's."""
    cpu = func.coalesce(Puzzle.cpu_seconds + cpu_seconds, Puzzle.cpu_seconds, cpu_seconds)
    changed = changed_rows(s, update(Puzzle).where(Puzzle.id == a.id, still_mine(a))
                           .values(status=QUEUED, attempts=a.attempts - 1, worker=None, deadline=deadline,
                                   cpu_seconds=cpu))
    if changed:
        tallies.moved(s, a.kind, RUNNING, QUEUED)
    return bool(changed)


def fan_out(s: Session, split_up: Sequence[SplitPuzzle], queued_stale_seconds: float) -> list[int]:
    """Store each split puzzle's head and its parts as queued subtask rows, in batch order;
    returns the subtask ids to publish once this transaction commits. The puzzle keeps its
    claim (status, attempts) for the final write, but loses its deadline: from here on the
    reaper watches the subtasks, and re-publishing the puzzle would split it again."""
    t = now()
    ids: list[int] = []
    for a, split in ((sp.assigned, sp.split) for sp in split_up):
        lock_job(s, a.job_id)
        hit = changed_rows(s, update(Puzzle).where(Puzzle.id == a.id, still_mine(a), Puzzle.parts_total == 0)
                        .values(parts_total=len(split.parts), parts_done=0,
                                split_head=split.head.to_json(), deadline=None))
        if not hit:
            continue  # cancelled, or claimed again meanwhile: its parts would never be counted
        event_records.puzzles_event(s, t, "split", [a.id], {"parts": len(split.parts)})
        s.execute(insert(Subtask), [
            {"puzzle_id": a.id, "index": i, "payload": part, "status": QUEUED, "attempts": 0, "created_at": t,
             "deadline": t + timedelta(seconds=queued_stale_seconds)}
            for i, part in enumerate(split.parts)])
        ids += s.scalars(select(Subtask.id).where(Subtask.puzzle_id == a.id).order_by(Subtask.index))
    return ids
