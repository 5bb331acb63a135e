"""Subtasks: the parts of a split puzzle, solved by any worker, counted and merged exactly once.

A subtask task claims its part (attempts + 1, a lease; skipped once the puzzle has
``stop_requested``, nothing once it is final), solves it under the time limit with a watched stop
flag, and records it while its claim is current, moving ``parts_done`` in the same transaction;
the transaction that completes the count merges every part in index order with the head,
verifies, and writes the puzzle (store.results). A failing part fails the whole puzzle. Lock
order: the job row, the puzzle, its subtask. docs/architecture.md tells early stops and merges.

Terms (part, subtask, head, merge, early stop, stop flag): docs/glossary.md.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Row, select, update
from sqlalchemy.orm import Session, sessionmaker

import solvers
from solvers.base import Outcome, Parts
from store import blocks, logs
from store.db import changed_rows, through_outages
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
from store.settings import Recovery, Settings, TimeBudget
from worker.limits import Watch, alarms_raise_timeout, time_limit, watching
from worker.outcome import failure_reason, gave_up
from worker.runtime import Runtime

log = logging.getLogger(__name__)

PART_DONE = (SOLVED, NO_SOLUTION)


@dataclass
class PartClaim:
    """A subtask this task has claimed (running under ``attempts``)."""

    id: int
    puzzle_id: int
    index: int
    payload: dict[str, Any]
    attempts: int


def run_parts(runtime: Runtime, ids: Sequence[int], worker: str) -> int:
    """Handle each subtask in turn; returns how many this task solved and recorded."""
    with alarms_raise_timeout():
        return sum(run_part(runtime, i, worker) for i in ids)


def run_part(runtime: Runtime, subtask_id: int, worker: str) -> bool:
    sessions, settings = runtime.sessions, runtime.settings
    with sessions() as s, s.begin():
        claimed = claim(s, subtask_id, worker, settings.time, settings.recovery)
        if claimed is None:
            return False
        part, p = claimed
    limit, predicted = part_limit(settings, p)
    with logs.context(job=p.job_id, puzzle=p.id, subtask=part.id):
        with watching(sessions, p.id, settings.time, limit, cpu=predicted is not None) as watch:
            outcome, error = solve(p, part, limit, watch, predicted)
        if outcome is None and error is None:
            log.info("subtask %s stopped: its puzzle %s no longer needs it", part.id, p.id)
        # A long solve is not done again for a database restart at its end.
        return through_outages(lambda: _record(sessions, part, outcome, error),
                               settings.recovery.db_wait_seconds, f"subtask {part.id}")


def _record(sessions: sessionmaker[Session], part: PartClaim, outcome: Outcome | None,
            error: str | None) -> bool:
    with sessions() as s, s.begin():
        return record(s, part, outcome, error)


# -- claiming


def lock_puzzle(s: Session, puzzle_id: int) -> Row[Any] | None:
    """Lock the job row, then the puzzle row; returns the puzzle's columns a subtask needs."""
    job_id = s.scalar(select(Puzzle.job_id).where(Puzzle.id == puzzle_id))
    if job_id is None:
        return None
    lock_job(s, job_id)
    return s.execute(select(Puzzle.id, Puzzle.job_id, Puzzle.kind, Puzzle.input, Puzzle.options,
                            Puzzle.status, Puzzle.attempts, Puzzle.stop_requested, Puzzle.parts_total,
                            Puzzle.split_head, Puzzle.estimated_seconds, Puzzle.estimate_factor)
                     .where(Puzzle.id == puzzle_id).with_for_update()).one()


def claim(s: Session, subtask_id: int, worker: str, budget: TimeBudget,
          recovery: Recovery) -> tuple[PartClaim, Row[Any]] | None:
    """Claim a subtask (attempts + 1, a lease); returns it with its puzzle's row, or None when
    there is nothing to solve (puzzle final or stopping, subtask done, attempts used up)."""
    puzzle_id = s.scalar(select(Subtask.puzzle_id).where(Subtask.id == subtask_id))
    p = None if puzzle_id is None else lock_puzzle(s, puzzle_id)
    if p is None or p.status != RUNNING:
        return None  # cancelled or already final: nothing is written
    mine = (Subtask.id == subtask_id) & Subtask.status.in_(UNFINISHED)
    if p.stop_requested:
        _skip(s, p, mine)
        return None
    row = s.execute(update(Subtask).where(mine)
                    .values(status=RUNNING, attempts=Subtask.attempts + 1, started_at=now(), worker=worker,
                            deadline=now() + budget.lease())
                    .returning(Subtask.id, Subtask.puzzle_id, Subtask.index, Subtask.payload,
                               Subtask.attempts)
                    .execution_options(synchronize_session=False)).one_or_none()
    if row is None:
        return None  # already recorded by an earlier delivery
    part = PartClaim(*row)
    if part.attempts > recovery.max_attempts:
        fail(s, p, part, gave_up(part.attempts - 1, budget.puzzle_time_limit, "part"))
        return None
    return part, p


def _skip(s: Session, p: Row[Any], mine: ColumnElement[bool]) -> None:
    """The puzzle has enough solutions without this part: cancelled, and counted as done once."""
    skipped = changed_rows(s, update(Subtask).where(mine)
                        .values(status=CANCELLED, finished_at=now(), deadline=None))
    if skipped:
        _count_done(s, p)


# -- solving


def part_limit(settings: Settings, p: Row[Any]) -> tuple[float, float | None]:
    """A part's time limit and the seconds predicted of it: its puzzle's prediction shared equally
    over its parts gives the part a limit as a puzzle's own prediction does (PREDICTION_TIME_FACTOR x
    the high end, within PREDICTION_TIME_FLOOR) when below PUZZLE_TIME_LIMIT; else PUZZLE_TIME_LIMIT.
    Only a puzzle its kind cuts up at once (``Parts``) is held to that: one split after running past
    its node budget has already shown its prediction wrong."""
    most = settings.time.puzzle_time_limit
    if p.estimated_seconds is None or p.parts_total <= 0:
        return most, None  # stored without a prediction
    if not _cut_at_once(settings, p):
        return most, None
    return settings.costs.limit_of(p.estimated_seconds / p.parts_total, p.estimate_factor or 1.0, most)


def _cut_at_once(settings: Settings, p: Row[Any]) -> bool:
    """Whether the puzzle's kind plans to cut it up before any search (a puzzle that no longer
    prepares fails in ``solve``, which says why)."""
    try:
        kind = solvers.get(p.kind)
        puzzle, options = kind.prepare(p.input, p.options)
        return isinstance(kind.plan(puzzle, options, settings.splitting.for_plans), Parts)
    except Exception:
        return False


def solve(p: Row[Any], part: PartClaim, seconds: float, watch: Watch,
          predicted: float | None = None) -> tuple[Outcome | None, str | None]:
    """(outcome, None), or (None, error), or (None, None) when the puzzle no longer needs the part;
    ``predicted``: the part's predicted seconds, when they set ``seconds``."""
    try:
        kind = solvers.get(p.kind)
        puzzle, options = kind.prepare(p.input, p.options)
        with time_limit(seconds, cpu=predicted is not None):
            return kind.splitting().solve_part(puzzle, options, part.payload, watch.flag), None
    except Exception as exc:  # a solver bug ends this puzzle, never the worker
        if isinstance(exc, solvers.Stopped) and not watch.expired:
            return None, None
        return None, failure_reason(exc, f"subtask {part.id}", seconds, "part", expired=watch.expired,
                                    predicted=predicted)


# -- recording, counting, merging


def record(s: Session, part: PartClaim, outcome: Outcome | None, error: str | None) -> bool:
    """Store a part's outcome (or failure) under its claim and count it; True if recorded."""
    p = lock_puzzle(s, part.puzzle_id)
    if p is None or p.status != RUNNING:
        return False  # cancelled (or failed by another part) meanwhile: write nothing
    if error is not None:
        return fail(s, p, part, error)
    mine = (Subtask.id == part.id) & (Subtask.status == RUNNING) & (Subtask.attempts == part.attempts)
    if outcome is None:
        # Stopped while the puzzle is running: only stop_requested does that.
        _skip(s, p, mine)
        return False
    hit = changed_rows(s, update(Subtask).where(mine)
                    .values(status=outcome.status, result=outcome.result, stats=outcome.stats,
                            finished_at=now(), deadline=None))
    if not hit:
        return False  # a later claim of this part owns it now
    if _enough_solutions(s, p, outcome):
        s.execute(update(Puzzle).where(Puzzle.id == p.id).values(stop_requested=True)
                  .execution_options(synchronize_session=False))
    _count_done(s, p)
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


def _count_done(s: Session, p: Row[Any]) -> None:
    """One more part finished (or skipped); the one that completes the count merges."""
    done, total = s.execute(update(Puzzle).where(Puzzle.id == p.id, Puzzle.status == RUNNING)
                            .values(parts_done=Puzzle.parts_done + 1)
                            .returning(Puzzle.parts_done, Puzzle.parts_total)
                            .execution_options(synchronize_session=False)).one()
    if done == total:
        write(s, [_merged(s, p)])


def _merged(s: Session, p: Row[Any]) -> Result:
    rows = s.execute(select(Subtask.status, Subtask.result, Subtask.stats)
                     .where(Subtask.puzzle_id == p.id).order_by(Subtask.index)).all()
    outcomes = [Outcome(status, result, stats) for status, result, stats in rows if status in PART_DONE]
    out = Result(p.id, p.job_id, p.attempts, FAILED)
    try:
        kind = solvers.get(p.kind)
        puzzle, options = kind.prepare(p.input, p.options)
        merged = kind.splitting().merge(puzzle, options, Outcome.from_json(p.split_head), outcomes)
        kind.verify(puzzle, options, merged)
    except Exception as exc:
        out.error = failure_reason(exc, f"puzzle {p.id}", error="merge error",
                                   answer=f"the merged answer of {len(outcomes)} parts")
    else:
        out.status, out.answer = merged.status, blocks.answer(merged.result, merged.stats)
        out.solve_ms = merged.stats.get("elapsed_ms")
    return out


def fail(s: Session, p: Row[Any], part: PartClaim, error: str) -> bool:
    """The part failed, so the puzzle does: its other parts find it final and do nothing."""
    hit = changed_rows(s, update(Subtask).where(Subtask.id == part.id, Subtask.status == RUNNING,
                                          Subtask.attempts == part.attempts)
                    .values(status=FAILED, error=error, finished_at=now(), deadline=None))
    if hit:
        message = f"part {part.index + 1} of {p.parts_total}: {error}"
        write(s, [Result(p.id, p.job_id, p.attempts, FAILED, error=message)])
    return False
