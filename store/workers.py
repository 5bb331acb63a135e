"""The worker processes' heartbeat rows (``workers``): a beat renews or makes one, a clean stop
removes it, the reaper reads them all and removes the rows of the silent and the forgotten
(store.reaping). worker.heartbeat beats from its thread.

Draining: an operator marks a `celery worker` (every row of its node, ``draining_at``) and each of
its processes reads the mark with its next beat (worker.heartbeat stops the consumer). The mark is
SQL, not a control message sent by the API: it outlasts a broker outage and a busy worker, and a
pool process started later (a replaced one) takes it from its siblings' rows with its first beat.
A restarted `celery worker` is a new node (worker.heartbeat.NODE), so it takes work again.

Terms (worker name, beat, since, silent): docs/glossary.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, Row, delete, func, or_, select, update
from sqlalchemy.orm import Session

import solvers
from store.bookkeeping import WorkerBeat
from store.models import now


def node_of(name: str) -> str:
    """The node (the `celery worker` a process belongs to) of a worker name ``host:pid:node``."""
    return name.rsplit(":", 1)[-1]


def beat(s: Session, name: str, since: datetime | None = None, queues: Sequence[str] = (),
         preparing: Sequence[str] = ()) -> bool:
    """Renew (or create) this worker's row, with what its tasks hold (``since``), its ``queues`` and
    the kinds still being prepared on its host (``preparing``); returns whether its `celery worker`
    is to drain (a new row takes that from its node's rows)."""
    t = now()
    values = {"beat_at": t, "since": since, "queues": ",".join(queues) or None,
              "preparing": ",".join(preparing) or None}
    renewed = s.execute(update(WorkerBeat).where(WorkerBeat.name == name).values(**values)
                        .returning(WorkerBeat.draining_at)).first()
    if renewed is not None:
        return renewed.draining_at is not None
    draining = s.scalar(select(func.min(WorkerBeat.draining_at)).where(_of_node(node_of(name))))
    s.add(WorkerBeat(name=name, started_at=t, draining_at=draining, **values))
    return draining is not None


def _of_node(node: str) -> ColumnElement[bool]:
    return WorkerBeat.name.endswith(f":{node}", autoescape=True)


def drain(s: Session, name: str, draining: bool) -> list[str] | None:
    """Mark (or unmark) for draining the `celery worker` named by ``name``: one of its processes'
    names, or its Celery node name (``worker-8000@host``); every row of its node is marked. Returns
    the rows' names, None when no row has that name (an unknown worker)."""
    rows = s.scalars(select(WorkerBeat.name).where(
        or_(WorkerBeat.name == name, WorkerBeat.name.startswith(f"{name}:", autoescape=True)))).all()
    nodes = {node_of(n) for n in rows if n == name or _is_process_of(n, name)}
    if not nodes:
        return None
    of_nodes = or_(*(_of_node(node) for node in sorted(nodes)))
    marked = s.scalars(select(WorkerBeat.name).where(of_nodes).order_by(WorkerBeat.name)).all()
    s.execute(update(WorkerBeat).where(of_nodes)
              .values(draining_at=now() if draining else None).execution_options(synchronize_session=False))
    return list(marked)


def _is_process_of(row_name: str, celery_node: str) -> bool:
    """Whether ``row_name`` is ``celery_node:pid:node`` (not a longer node name that begins alike)."""
    rest = row_name[len(celery_node) + 1:].split(":")
    return len(rest) == 2 and rest[0].isdigit()


def leave(s: Session, name: str) -> None:
    """A worker that stops cleanly removes its row: it holds nothing any more."""
    s.execute(delete(WorkerBeat).where(WorkerBeat.name == name))


def preparing(s: Session, silent_before: datetime) -> list[str]:
    """The kinds still being prepared on the hosts of the workers that have beaten since
    ``silent_before``, in the registry's order."""
    named = s.scalars(select(WorkerBeat.preparing).where(WorkerBeat.beat_at >= silent_before,
                                                                    WorkerBeat.preparing.is_not(None)))
    return by_registry({kind for text in named for kind in (text or "").split(",") if kind})


def by_registry(kinds: set[str]) -> list[str]:
    """``kinds`` in the registry's order (a kind it does not know, from another version, last)."""
    return [kind for kind in solvers.KINDS if kind in kinds] + sorted(kinds - set(solvers.KINDS))


def beats(s: Session) -> Sequence[Row[str, datetime]]:
    """Every worker row's name and last beat."""
    return s.execute(select(WorkerBeat.name, WorkerBeat.beat_at)).all()


def forget(s: Session, names: Sequence[str]) -> None:
    """Remove these workers' rows (the reaper, once it has handed on what they held)."""
    s.execute(delete(WorkerBeat).where(WorkerBeat.name.in_(names)))
