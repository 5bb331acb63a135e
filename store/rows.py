"""The workers' changes to puzzle rows: claim, read unclaimed, renew, release and fan out into
subtasks (the results' write is store.results).

States (the API's, see docs/architecture.md for the diagrams)::

    puzzle   queued --claim--> running --write--> solved | no_solution | failed
             queued | running --cancel (API)--> cancelled
             running --fan_out--> running with parts_total > 0 --last part (worker.parts)--> final
    subtask  queued --claim--> running --record--> solved | no_solution | failed
             queued | running --skip (enough solutions)--> cancelled

Every change is a conditional UPDATE on the state the task saw, so a late, redelivered or
duplicated task changes nothing: a result lands only while its puzzle is ``running`` under the
attempt number of this task's claim, or (optimistic, see worker.chunk) still ``queued`` under
the attempt before it. A job's ``pending`` counter moves in the same transaction, by exactly the
rows written, and so do the tallies of /metrics (store.tallies). Lock order everywhere: the job
row (``lock_job``), then its puzzles, then subtasks.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Row, func, insert, select, update
from sqlalchemy.orm import Session

from solvers.base import Split
from store import fastjson, tallies
from store.db import changed_rows
from store.models import QUEUED, RUNNING, Job, Puzzle, Subtask, lock_job, now
from store.statements import ASSIGNED, CLAIMABLE, among, ids_param, statements_for


@dataclass(slots=True)
class Assigned:
    """A puzzle this task is to solve: claimed (``running`` under ``attempts``), or on the
    optimistic path only read (``optimistic``: still ``queued`` under ``attempts - 1``)."""

    id: int
    job_id: str
    kind: str
    input: Any
    options: dict[str, Any]
    attempts: int
    base: int = 0  # the attempt number it was last retried at (``Puzzle.attempts_base``)
    estimated: float | None = None  # its predicted seconds as stored (None: stored without)
    optimistic: bool = False

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
    # An optimistic result also records what a claim would have: who, and since when.
    optimistic: bool = False
    worker: str | None = None
    started_at: datetime | None = None


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


def read_unclaimed(s: Session, ids: Sequence[int]) -> list[Assigned] | None:
    """The optimistic path: the chunk's unfinished puzzles, each counted as its first attempt
    without a claim, if all of them are queued and never tried; None otherwise (claim them)."""
    return _unclaimed(s.execute(statements_for(s).read, {"ids": ids_param(s, ids)}).all())


def read_and_hold(s: Session, ids: Sequence[int], worker: str,
                  holding: Sequence[int]) -> list[Assigned] | None:
    """``read_unclaimed``, with the worker's record of what it holds (``holding``: the chunks its
    tasks run, this one's among them; no puzzle row names the worker of an unclaimed chunk)
    committed with the read: one statement outside a transaction on PostgreSQL (the session must
    be fresh), one transaction on SQLite. The record of a chunk that turns out to need a claim
    is harmless: the claim makes its rows running, under a lease."""
    statements = statements_for(s)
    held = {"worker": worker, "holding": list(holding), "t": now()}
    if statements.read_held is not None:
        s.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        return _unclaimed(s.execute(statements.read_held, {"ids": ids_param(s, ids), **held}).all())
    with s.begin():
        rows = s.execute(statements.read, {"ids": ids_param(s, ids)}).all()
        s.execute(statements.hold, held)
    return _unclaimed(rows)


def hold(s: Session, worker: str, holding: Sequence[int]) -> None:
    """Record what the worker holds now (see ``read_and_hold``), its heartbeat row made if missing."""
    s.execute(statements_for(s).hold, {"worker": worker, "holding": list(holding), "t": now()})


def _unclaimed(rows: Sequence[Row[Any]]) -> list[Assigned] | None:
    if not rows:
        return []
    # By column: a chunk's thousand rows cost less to check and decode that way than row by row.
    puzzle_ids, job_ids, kinds, wires, texts, attempts, estimates, statuses = zip(*rows, strict=True)
    if any(attempts) or set(statuses) != {QUEUED}:
        return None
    inputs = fastjson.loads("[" + ",".join(wires) + "]")  # one decoder call for the whole chunk
    options = functools.cache(fastjson.loads)  # by text: a batch's puzzles mostly share theirs
    return [Assigned(i, job_id, kind, wire, options(text), 1, estimated=estimate, optimistic=True)
            for i, job_id, kind, wire, text, estimate
            in zip(puzzle_ids, job_ids, kinds, inputs, texts, estimates, strict=True)]


def held_as(a: Assigned | Result) -> tuple[str, int]:
    """The status and attempt number a row has while this task holds it: claimed under its attempt
    number, or (optimistic) still queued under the attempt before it."""
    return (QUEUED, a.attempts - 1) if a.optimistic else (RUNNING, a.attempts)


def held_status(a: Assigned | Result) -> str:
    """The status a row has while this task holds it."""
    return held_as(a)[0]


def still_mine(a: Assigned | Result) -> ColumnElement[bool]:
    """The row is as this task left it (``_held_as``)."""
    status, attempts = held_as(a)
    return (Puzzle.status == status) & (Puzzle.attempts == attempts)


def record_progress(s: Session, a: Assigned, share: float) -> None:
    """The share of its search the solver of a puzzle this task holds reports (solvers/progress.py),
    written only while the task still holds it whole (a split puzzle shows its parts instead)."""
    s.execute(update(Puzzle).where(Puzzle.id == a.id, still_mine(a), Puzzle.parts_total == 0)
              .values(progress=share).execution_options(synchronize_session=False))


def extend(s: Session, held: Sequence[Assigned], deadline: datetime) -> None:
    """Renew the lease of claimed puzzles still to do."""
    if held:
        s.execute(update(Puzzle).where(Puzzle.id.in_([a.id for a in held]), Puzzle.status == RUNNING)
                  .values(deadline=deadline).execution_options(synchronize_session=False))


def release(s: Session, held: Sequence[Assigned]) -> None:
    """Give back puzzles this task claimed but never started, as if it had not claimed them."""
    for a in held:
        if changed_rows(s, update(Puzzle).where(Puzzle.id == a.id, still_mine(a))
                        .values(status=QUEUED, attempts=Puzzle.attempts - 1, worker=None)):
            tallies.moved(s, a.kind, held_status(a), QUEUED)


def requeue(s: Session, a: Assigned, deadline: datetime) -> bool:
    """Put a puzzle this task holds back in the queue as it was before (its attempt not counted),
    with a new deadline, for another task to take (worker.chunk: the cheap lane's cap). False if
    it was no longer this task's."""
    changed = changed_rows(s, update(Puzzle).where(Puzzle.id == a.id, still_mine(a))
                           .values(status=QUEUED, attempts=a.attempts - 1, worker=None, deadline=deadline))
    if changed:
        tallies.moved(s, a.kind, held_status(a), QUEUED)
    return bool(changed)


def fan_out(s: Session, split_up: Sequence[SplitPuzzle], queued_stale_seconds: float,
            worker: str) -> list[int]:
    """Store each split puzzle's head and its parts as queued subtask rows, in batch order;
    returns the subtask ids to publish once this transaction commits. The puzzle keeps its
    claim (status, attempts) for the final write, but loses its deadline: from here on the
    reaper watches the subtasks, and re-publishing the puzzle would split it again."""
    t = now()
    ids: list[int] = []
    for a, split in ((sp.assigned, sp.split) for sp in split_up):
        lock_job(s, a.job_id)
        hit = changed_rows(s, update(Puzzle).where(Puzzle.id == a.id, still_mine(a), Puzzle.parts_total == 0)
                        .values(status=RUNNING, attempts=a.attempts, parts_total=len(split.parts),
                                parts_done=0, split_head=split.head.to_json(), deadline=None,
                                worker=func.coalesce(Puzzle.worker, worker),
                                started_at=func.coalesce(Puzzle.started_at, t)))
        if not hit:
            continue  # cancelled, or claimed again meanwhile: its parts would never be counted
        tallies.moved(s, a.kind, held_status(a), RUNNING)
        s.execute(insert(Subtask), [
            {"puzzle_id": a.id, "index": i, "payload": part, "status": QUEUED, "attempts": 0, "created_at": t,
             "deadline": t + timedelta(seconds=queued_stale_seconds)}
            for i, part in enumerate(split.parts)])
        ids += s.scalars(select(Subtask.id).where(Subtask.puzzle_id == a.id).order_by(Subtask.index))
    return ids
