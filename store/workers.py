"""The worker processes' heartbeat rows (``workers``): a beat renews or makes one, a clean stop
removes it, the reaper reads them all and removes the rows of the silent and the forgotten
(store.reaping). worker.heartbeat beats from its thread.

Terms (worker name, beat, since, silent): docs/glossary.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Row, delete, select, update
from sqlalchemy.orm import Session

from store.db import changed_rows
from store.models import WorkerBeat, now


def node_of(name: str) -> str:
    """The node (the `celery worker` a process belongs to) of a worker name ``host:pid:node``."""
    return name.rsplit(":", 1)[-1]


def beat(s: Session, name: str, since: datetime | None = None, queues: Sequence[str] = ()) -> None:
    """Renew (or create) this worker's row, with what its tasks hold (``since``) and its ``queues``."""
    t = now()
    values = {"beat_at": t, "since": since, "queues": ",".join(queues) or None}
    if not changed_rows(s, update(WorkerBeat).where(WorkerBeat.name == name).values(**values)):
        s.add(WorkerBeat(name=name, started_at=t, **values))


def leave(s: Session, name: str) -> None:
    """A worker that stops cleanly removes its row: it holds nothing any more."""
    s.execute(delete(WorkerBeat).where(WorkerBeat.name == name))


def beats(s: Session) -> Sequence[Row[str, datetime]]:
    """Every worker row's name and last beat."""
    return s.execute(select(WorkerBeat.name, WorkerBeat.beat_at)).all()


def forget(s: Session, names: Sequence[str]) -> None:
    """Remove these workers' rows (the reaper, once it has handed on what they held)."""
    s.execute(delete(WorkerBeat).where(WorkerBeat.name.in_(names)))
