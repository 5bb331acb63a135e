"""The reaper's reads and writes (worker.reaper runs them, in one transaction a run): its turn
(the ``reaper_runs`` row), the survey of the workers' rows and the sweep's slice, the lost puzzle
rows and subtasks, and handing them on. The conditions of lost are store.lost's; lost chunks are
store.chunks'.

A run reads what the fleet holds, not the backlog: the rows with a deadline (claimed, published
again, marked due: a partial index) and a slice of SWEEP ids of the rest (queued at submit and
untouched since, dated by ``created_at``), from where the last run stopped
(``reaper_runs.swept_to``).

Terms (lost, orphaned, due, silent, reaper, take turns): docs/glossary.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, and_, select, true, update
from sqlalchemy.orm import Session

from store import workers
from store.bookkeeping import ReaperRun
from store.db import changed_rows
from store.lost import Lost, at_submit, with_deadline
from store.models import RUNNING, UNFINISHED, Job, Puzzle, Subtask, aware
from store.settings import Recovery
from store.statements import among

# Stale rows handled per run; the next run (REAP_INTERVAL later) takes the rest.
BATCH = 10_000
# Puzzle ids a run's sweep reads: a pass over a backlog of a million takes 100 runs (5 minutes at
# the default REAP_INTERVAL), well inside QUEUED_STALE_SECONDS, for a few milliseconds a run.
SWEEP = 10_000


def take_turn(s: Session, t: datetime, every: timedelta | None = None) -> bool:
    """Lock the reaper's row for this transaction, so that one reaper runs at a time; with
    ``every``, only if its last run is at least that old. False: another process's turn."""
    due = [] if every is None else [ReaperRun.ran_at < t - every]
    if changed_rows(s, update(ReaperRun).where(ReaperRun.id == 1, *due).values(ran_at=t)):
        return True
    if s.get(ReaperRun, 1) is not None:
        return False
    s.add(ReaperRun(id=1, ran_at=t))  # the very first run (two at once: one fails, and retries later)
    return True


def survey(s: Session, t: datetime, recovery: Recovery, trust_silence: bool, broker_empty: bool) -> Lost:
    """What this run knows of the workers and the broker (store.lost.Lost), with the sweep's slice."""
    quiet_since = t - timedelta(seconds=recovery.worker_silent_seconds)
    rows = workers.beats(s)
    quiet = {r.name for r in rows if trust_silence and aware(r.beat_at) < quiet_since}
    # A quiet pool process of a node that still beats: its main process redelivers its task.
    living_nodes = {workers.node_of(r.name) for r in rows if r.name not in quiet}
    silent = [r.name for r in rows if r.name in quiet and workers.node_of(r.name) not in living_nodes]
    forgotten = sorted(quiet - set(silent))
    published = t + timedelta(seconds=recovery.queued_stale_seconds - recovery.lost_task_seconds)
    stale = t - timedelta(seconds=recovery.queued_stale_seconds)
    return Lost(silent, forgotten, broker_empty, published, stale, _sweep(s))


def _sweep(s: Session) -> tuple[int, int | None]:
    """The slice of ids after the last run's: SWEEP of them, or up to the last id (and the next run
    starts over)."""
    after = s.scalar(select(ReaperRun.swept_to).where(ReaperRun.id == 1)) or 0
    upto = s.scalar(select(Puzzle.id).where(Puzzle.id > after).order_by(Puzzle.id).offset(SWEEP - 1).limit(1))
    return after, upto


def mark_swept(s: Session, lost: Lost) -> None:
    """Where the next run's sweep starts: after this one's slice, or over from the start."""
    s.execute(update(ReaperRun).where(ReaperRun.id == 1).values(swept_to=lost.sweep[1] or 0))


def lost_puzzles(s: Session, t: datetime, lost: Lost) -> list[Row[Any]]:
    """Two reads, each bounded by what the fleet holds or by SWEEP: the rows with a deadline
    (through its partial index) and the sweep's slice."""
    dated = with_deadline(Puzzle, t, lost, and_(Puzzle.status == RUNNING, Puzzle.parts_total == 0))
    after, upto = lost.sweep
    swept = and_(Puzzle.id > after, true() if upto is None else Puzzle.id <= upto, at_submit(Puzzle, t, lost))
    columns = (Puzzle.id, Puzzle.job_id, Puzzle.attempts, Puzzle.status, Puzzle.kind, Puzzle.input,
               Puzzle.options, (Puzzle.attempts - Puzzle.attempts_base).label("tries"), Job.owner,
               Puzzle.estimated_seconds, Puzzle.dear_level)
    found = {row.id: row for condition in (dated, swept)
             for row in s.execute(select(*columns).join(Job, Job.id == Puzzle.job_id)
                                  .where(Job.status.in_(UNFINISHED), Puzzle.status.in_(UNFINISHED), condition)
                                  .order_by(Puzzle.id).limit(BATCH))}
    return [found[i] for i in sorted(found)[:BATCH]]


def lost_subtasks(s: Session, t: datetime, lost: Lost) -> list[Row[Any]]:
    """The subtasks whose task was lost, of running puzzles of unfinished jobs, at most BATCH."""
    # "index" would name the row's tuple method
    columns = Subtask.id, Subtask.puzzle_id, Subtask.index.label("part"), Subtask.attempts, Subtask.status
    return list(s.execute(select(*columns)
                          .join(Puzzle, Puzzle.id == Subtask.puzzle_id).join(Job, Job.id == Puzzle.job_id)
                          .where(Job.status.in_(UNFINISHED), Puzzle.status == RUNNING,
                                 Subtask.status.in_(UNFINISHED),
                                 with_deadline(Subtask, t, lost, Subtask.status == RUNNING))
                          .order_by(Subtask.id).limit(BATCH)))


def hand_on(s: Session, puzzles: Sequence[int], parts: Sequence[int], deadline: datetime) -> None:
    """Lost puzzle rows and subtasks about to be published again: held by no worker now, until the
    new task claims them (so not orphaned again), with a new deadline. A row keeps its place in the
    dear lane until its publish renews it: a puzzle moved there past the cheap lane's cap goes back
    at its level (worker.reaper), the rest take theirs anew."""
    for model, ids in ((Puzzle, puzzles), (Subtask, parts)):
        if ids:
            s.execute(update(model)
                      .where(among(s, model.id, ids, per_row=True), model.status.in_(UNFINISHED))
                      .values(deadline=deadline, worker=None)
                      .execution_options(synchronize_session=False))
