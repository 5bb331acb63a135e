"""A split puzzle's subtasks in SQL: claimed, skipped, recorded, failed, and counted exactly once;
the transaction that completes the count merges every part in index order with the head (the
merge itself, a solve and a check, is the caller's: ``Merge``) and writes the puzzle
(store.results). A failing part fails the whole puzzle. worker.parts runs the subtask tasks.

States::

    subtask  queued --claim--> running --record--> solved | no_solution | failed
             queued | running --skip (the puzzle's stop requested)--> cancelled

Every change is a conditional UPDATE on the state the task saw, so a late, redelivered or
duplicated task changes nothing. Lock order: the job row, the puzzle, its subtask.

Terms (part, subtask, head, merge, early stop, stop flag, lock order): docs/glossary.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, func, select, update
from sqlalchemy.orm import Session

from solvers.base import Outcome
from store.db import changed_rows, read_only
from store.models import (
    CANCELLED,
    FAILED,
    NO_SOLUTION,
    RUNNING,
    SOLVED,
    UNFINISHED,
    Puzzle,
    Subtask,
    lock_job,
    now,
)
from store.results import write
from store.rows import Result

PART_DONE = (SOLVED, NO_SOLUTION)

# The merge of a puzzle's finished parts (its row as ``lock_puzzle`` reads it, their outcomes in
# index order): the puzzle's result, written in the transaction that completes the count.
Merge = Callable[[Row[Any], Sequence[Outcome]], Result]


@dataclass
class PartClaim:
    """A subtask this task has claimed (running under ``attempts``)."""

    id: int
    puzzle_id: int
    index: int
    payload: dict[str, Any]
    attempts: int


def lock_puzzle(s: Session, puzzle_id: int) -> Row[Any] | None:
    """Lock the job row, then the puzzle row; returns the puzzle's columns a subtask needs."""
    job_id = s.scalar(select(Puzzle.job_id).where(Puzzle.id == puzzle_id))
    if job_id is None:
        return None
    lock_job(s, job_id)
    return s.execute(select(Puzzle.id, Puzzle.job_id, Puzzle.kind, Puzzle.input, Puzzle.options,
                            Puzzle.status, Puzzle.attempts, Puzzle.stop_requested, Puzzle.parts_total,
                            Puzzle.split_head, Puzzle.estimated_seconds, Puzzle.estimate_factor,
                            Puzzle.signature)
                     .where(Puzzle.id == puzzle_id).with_for_update()).one()


def kinds_of(s: Session, ids: Sequence[int]) -> list[str]:
    """The kinds of the puzzles these subtasks are parts of, read only: what their task prepares
    before it claims anything (worker.warmup.prepare_first)."""
    puzzles = select(Subtask.puzzle_id).where(Subtask.id.in_(ids)).scalar_subquery()
    return list(read_only(s).scalars(select(Puzzle.kind).where(Puzzle.id.in_(puzzles)).distinct()))


def claim(s: Session, subtask_id: int, worker: str, deadline: datetime,
          merge: Merge) -> tuple[PartClaim, Row[Any]] | None:
    """Claim a subtask (attempts + 1, a lease to ``deadline``); returns it with its puzzle's row, or
    None when there is nothing to solve (puzzle final or stopping, subtask done). A part skipped
    here may complete the count (``merge``)."""
    puzzle_id = s.scalar(select(Subtask.puzzle_id).where(Subtask.id == subtask_id))
    p = None if puzzle_id is None else lock_puzzle(s, puzzle_id)
    if p is None or p.status != RUNNING:
        return None  # cancelled or already final: nothing is written
    mine = (Subtask.id == subtask_id) & Subtask.status.in_(UNFINISHED)
    if p.stop_requested:
        _skip(s, p, mine, merge)
        return None
    row = s.execute(update(Subtask).where(mine)
                    .values(status=RUNNING, attempts=Subtask.attempts + 1, started_at=now(), worker=worker,
                            deadline=deadline)
                    .returning(Subtask.id, Subtask.puzzle_id, Subtask.index, Subtask.payload,
                               Subtask.attempts)
                    .execution_options(synchronize_session=False)).one_or_none()
    if row is None:
        return None  # already recorded by an earlier delivery
    return PartClaim(*row), p


def _skip(s: Session, p: Row[Any], mine: ColumnElement[bool], merge: Merge) -> None:
    """The puzzle has enough solutions without this part: cancelled, and counted as done once."""
    skipped = changed_rows(s, update(Subtask).where(mine)
                        .values(status=CANCELLED, finished_at=now(), deadline=None))
    if skipped:
        _count_done(s, p, merge)


def record(s: Session, part: PartClaim, outcome: Outcome | None, error: str | None, merge: Merge,
           cpu_seconds: float | None = None) -> bool:
    """Store a part's outcome (or failure) under its claim and count it; True if recorded. The part
    that completes the count merges (``merge``). ``cpu_seconds``: measured of the part's solve,
    added to its puzzle's while the puzzle runs (store.costs), whatever became of the part."""
    p = lock_puzzle(s, part.puzzle_id)
    if p is None or p.status != RUNNING:
        return False  # cancelled (or failed by another part) meanwhile: write nothing
    if cpu_seconds is not None:
        s.execute(update(Puzzle).where(Puzzle.id == p.id)
                  .values(cpu_seconds=func.coalesce(Puzzle.cpu_seconds, 0.0) + cpu_seconds)
                  .execution_options(synchronize_session=False))
    if error is not None:
        return fail(s, p, part, error)
    mine = (Subtask.id == part.id) & (Subtask.status == RUNNING) & (Subtask.attempts == part.attempts)
    if outcome is None:
        # Stopped while the puzzle is running: only stop_requested does that.
        _skip(s, p, mine, merge)
        return False
    hit = changed_rows(s, update(Subtask).where(mine)
                    .values(status=outcome.status, result=outcome.result, stats=outcome.stats,
                            finished_at=now(), deadline=None))
    if not hit:
        return False  # a later claim of this part owns it now
    if _enough_solutions(s, p, outcome):
        s.execute(update(Puzzle).where(Puzzle.id == p.id).values(stop_requested=True)
                  .execution_options(synchronize_session=False))
    _count_done(s, p, merge)
    return True


def _enough_solutions(s: Session, p: Row[Any], outcome: Outcome) -> bool:
    wanted = p.options.get("max_solutions")
    if not wanted or not (outcome.result or {}).get("solutions_found"):
        return False
    head = Outcome.from_json(p.split_head)
    found = (head.result or {}).get("solutions_found", 0)
    found += sum(r["solutions_found"] for r in s.scalars(
        select(Subtask.result).where(Subtask.puzzle_id == p.id, Subtask.status == SOLVED)))
    return found >= wanted


def _count_done(s: Session, p: Row[Any], merge: Merge) -> None:
    """One more part finished (or skipped); the one that completes the count merges."""
    done, total = s.execute(update(Puzzle).where(Puzzle.id == p.id, Puzzle.status == RUNNING)
                            .values(parts_done=Puzzle.parts_done + 1)
                            .returning(Puzzle.parts_done, Puzzle.parts_total)
                            .execution_options(synchronize_session=False)).one()
    if done == total:
        write(s, [merge(p, _outcomes(s, p))])


def _outcomes(s: Session, p: Row[Any]) -> list[Outcome]:
    """The outcomes of the puzzle's finished parts (not failed, not skipped), in index order."""
    rows = s.execute(select(Subtask.status, Subtask.result, Subtask.stats)
                     .where(Subtask.puzzle_id == p.id).order_by(Subtask.index)).all()
    return [Outcome(status, result, stats) for status, result, stats in rows if status in PART_DONE]


def fail(s: Session, p: Row[Any], part: PartClaim, error: str) -> bool:
    """The part failed, so the puzzle does: its other parts find it final and do nothing."""
    hit = changed_rows(s, update(Subtask).where(Subtask.id == part.id, Subtask.status == RUNNING,
                                          Subtask.attempts == part.attempts)
                    .values(status=FAILED, error=error, finished_at=now(), deadline=None))
    if hit:
        message = f"part {part.index + 1} of {p.parts_total}: {error}"
        write(s, [Result(p.id, p.job_id, p.attempts, FAILED, error=message)])
    return False
