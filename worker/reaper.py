"""The reaper (run by beat): publishes again the puzzles and subtasks whose task was lost, and fails
those whose every attempt lost its worker."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, select, update
from sqlalchemy.orm import Session, sessionmaker

from service.models import FAILED, RUNNING, UNFINISHED, Job, Puzzle, Subtask, now
from service.publish import Publisher, publish_safely
from worker import parts
from worker.outcome import gave_up
from worker.rows import Result, write

log = logging.getLogger(__name__)

# Stale rows handled per run; the next run (REAP_INTERVAL later) takes the rest.
BATCH = 10_000


@dataclass
class Reaped:
    """The ids published again."""

    puzzles: list[int]
    parts: list[int]


def reap(sessions: sessionmaker[Session], config: dict[str, Any], publisher: Publisher) -> Reaped:
    """Past their deadline, queued or running: a puzzle (of an unfinished job) or a subtask (of a
    running puzzle) is published again with a new deadline, unless it is running at the attempt
    cap, which fails it (a subtask fails its puzzle)."""
    t = now()
    cap, limit = config["MAX_ATTEMPTS"], config["PUZZLE_TIME_LIMIT"]
    with sessions() as s, s.begin():
        puzzles, subtasks = _stale_puzzles(s, t), _stale_subtasks(s, t)
        lost = [row for row in puzzles if row.status == RUNNING and row.attempts >= cap]
        write(s, [Result(row.id, row.job_id, row.attempts, FAILED,
                         error=gave_up(row.attempts, limit, "puzzle")) for row in lost])
        lost_parts = [row for row in subtasks if row.status == RUNNING and row.attempts >= cap]
        for row in lost_parts:
            p = parts.lock_puzzle(s, row.puzzle_id)
            if p is not None and p.status == RUNNING:
                parts.fail(s, p, parts.PartClaim(row.id, row.puzzle_id, row.part, {}, row.attempts),
                           gave_up(row.attempts, limit, "part"))
        again = Reaped([row.id for row in puzzles if row not in lost],
                       [row.id for row in subtasks if row not in lost_parts])
        deadline = t + timedelta(seconds=config["QUEUED_STALE_SECONDS"])
        for model, ids in ((Puzzle, again.puzzles), (Subtask, again.parts)):
            if ids:
                s.execute(update(model).where(model.id.in_(ids), model.status.in_(UNFINISHED))
                          .values(deadline=deadline).execution_options(synchronize_session=False))
    if again.puzzles:
        log.warning("reaper: publishing %d stale puzzle(s) again", len(again.puzzles))
        publish_safely(publisher, [[i] for i in again.puzzles])
    if again.parts:
        log.warning("reaper: publishing %d stale subtask(s) again", len(again.parts))
        publish_safely(publisher, [[i] for i in again.parts], parts=True)
    return again


def _stale_puzzles(s: Session, t: datetime) -> list[Row[Any]]:
    return list(s.execute(select(Puzzle.id, Puzzle.job_id, Puzzle.attempts, Puzzle.status)
                          .join(Job, Job.id == Puzzle.job_id)
                          .where(Job.status.in_(UNFINISHED), Puzzle.status.in_(UNFINISHED),
                                 Puzzle.deadline < t)
                          .order_by(Puzzle.id).limit(BATCH)))


def _stale_subtasks(s: Session, t: datetime) -> list[Row[Any]]:
    # "index" would name the row's tuple method
    columns = Subtask.id, Subtask.puzzle_id, Subtask.index.label("part"), Subtask.attempts, Subtask.status
    return list(s.execute(select(*columns)
                          .join(Puzzle, Puzzle.id == Subtask.puzzle_id).join(Job, Job.id == Puzzle.job_id)
                          .where(Job.status.in_(UNFINISHED), Puzzle.status == RUNNING,
                                 Subtask.status.in_(UNFINISHED), Subtask.deadline < t)
                          .order_by(Subtask.id).limit(BATCH)))
