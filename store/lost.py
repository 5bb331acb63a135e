"""Which claimed rows (puzzles, subtasks, chunks: ``models.Claimed``) lost their task: the
conditions the reaper (store.reaping) reads them by, one set for every kind of row.

A row's task is lost when the row is past its deadline (a lease run out, or queued past its
publication's), claimed by a silent worker or by one that has since started afresh (orphaned:
claimed before the worker's oldest running task began, worker.heartbeat), queued long after its
publication while the broker's queues are empty (the message is gone), or queued at submit and
never started by ``stale_before`` (the backstop).

Terms (lost, orphaned, deadline, silent): docs/glossary.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, false, or_

from store.bookkeeping import WorkerBeat
from store.models import QUEUED


@dataclass
class Lost:
    """What the reaper knows about the workers and the broker at the start of a run."""

    silent: list[str]        # workers whose heartbeat stopped, and whose node's too
    forgotten: list[str]     # dead pool processes of a living node: only their rows go
    broker_empty: bool         # the broker's queue is empty: anything queued long ago was lost
    published_before: datetime  # queued rows whose deadline is before this were published long ago
    stale_before: datetime     # queued at submit before this: its task never started (the backstop)
    sweep: tuple[int, int | None]  # the puzzle ids this run's sweep reads: after the first, up to the second


def with_deadline(model: Any, t: datetime, lost: Lost, claimed: ColumnElement[bool]) -> ColumnElement[bool]:
    """A row with a deadline (claimed, published again or marked due) whose task was lost;
    ``claimed``: the row is held by a task (running, and for a puzzle not split)."""
    return and_(model.deadline.is_not(None),
                or_(model.deadline < t, and_(claimed, model.worker.in_(lost.silent)),
                    and_(claimed, orphaned(model.worker, model.started_at)),
                    gone_from_broker(model.status, model.deadline < lost.published_before, lost)))


def at_submit(model: Any, t: datetime, lost: Lost) -> ColumnElement[bool]:
    """A row queued at submit and untouched since (no deadline) whose task was lost. Its
    publication was its submit: ``created_at`` stands for a deadline set then."""
    submitted_long_ago = model.created_at < lost.published_before - (t - lost.stale_before)
    return and_(model.deadline.is_(None),
                or_(and_(model.status == QUEUED, model.created_at < lost.stale_before),
                    gone_from_broker(model.status, submitted_long_ago, lost)))


def orphaned(worker: Any, started_at: Any) -> ColumnElement[bool]:
    """Claimed before the oldest task its worker runs began (worker.heartbeat, "since")."""
    return exists().where(WorkerBeat.name == worker, WorkerBeat.since > started_at)


def gone_from_broker(status: Any, published_long_ago: ColumnElement[bool], lost: Lost) -> ColumnElement[bool]:
    """Queued, published long ago, and the broker's queue is empty."""
    if not lost.broker_empty:
        return false()
    return and_(status == QUEUED, published_long_ago)
