"""Handing chunks of puzzle ids to the workers; always called after the rows are committed.

While the broker is down, a POST is still accepted (202: its rows are committed, so the job is
safe): the publish fails within about a second, its rows are marked due (deadline = now), and the
reaper publishes them again at its first run once the broker answers (every REAP_INTERVAL)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from service.models import UNFINISHED, Puzzle, Subtask, now

log = logging.getLogger(__name__)

SOLVE_CHUNK = "puzzle_queue.solve_chunk"
SOLVE_PARTS = "puzzle_queue.solve_parts"
REAP = "puzzle_queue.reap"


class Publisher(Protocol):
    def publish(self, chunks: Sequence[Sequence[int]]) -> None: ...

    # Groups of subtask ids (the parts of split puzzles), see worker.parts.
    def publish_parts(self, groups: Sequence[Sequence[int]]) -> None: ...


def task_limits(config: dict[str, Any], n_puzzles: int) -> tuple[float, float]:
    """(soft, hard) seconds for a task of n puzzles. The soft limit is a backstop; the worker
    also times each puzzle on its own (worker.limits)."""
    soft = config["PUZZLE_TIME_LIMIT"] * n_puzzles + 1.0
    return soft, soft + config["HARD_TIME_GRACE"]


class CeleryPublisher:
    def __init__(self, celery_app: Any, config: dict[str, Any]):
        self.celery, self.config = celery_app, config

    def publish(self, chunks: Sequence[Sequence[int]]) -> None:
        self._send(SOLVE_CHUNK, chunks)

    def publish_parts(self, groups: Sequence[Sequence[int]]) -> None:
        self._send(SOLVE_PARTS, groups)

    def queue_depth(self) -> int:
        """Messages waiting in the broker's queue (not those a worker has taken)."""
        with self.celery.connection_for_read() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            declared = conn.default_channel.queue_declare(queue=self.config["TASK_QUEUE"], durable=True,
                                                          auto_delete=False)
            return int(declared.message_count)

    def _send(self, task: str, groups: Sequence[Sequence[int]]) -> None:
        with self.celery.producer_or_acquire() as producer:
            for ids in groups:
                soft, hard = task_limits(self.config, len(ids))
                self.celery.send_task(task, args=[list(ids)], queue=self.config["TASK_QUEUE"],
                                      soft_time_limit=soft, time_limit=hard, producer=producer)


def queue_depth(publisher: Publisher) -> int | None:
    """How many messages wait in the broker, if the publisher can tell (None: unknown, or the
    broker is unreachable)."""
    probe = getattr(publisher, "queue_depth", None)
    if probe is None:
        return None
    try:
        return int(probe())
    except Exception as exc:
        log.warning("could not read the broker's queue depth: %s", exc)
        return None


def publish_safely(publisher: Publisher, chunks: Sequence[Sequence[int]], parts: bool = False) -> bool:
    """Publish puzzle chunks (or, with ``parts``, groups of subtask ids); on a broker failure the
    rows stay queued in SQL and the reaper publishes them again later, so nothing is lost."""
    try:
        (publisher.publish_parts if parts else publisher.publish)(chunks)
        return True
    except Exception:
        log.exception("publishing %d chunk(s) failed; the reaper will publish them again", len(chunks))
        return False


def publish_or_mark_due(publisher: Publisher, sessions: sessionmaker[Session],
                        groups: Sequence[Sequence[int]], parts: bool = False) -> bool:
    """Publish; if the broker refuses, mark the rows due (deadline now), so that the reaper's next
    run publishes them again instead of waiting for QUEUED_STALE_SECONDS."""
    if publish_safely(publisher, groups, parts=parts):
        return True
    mark_due(sessions, [i for ids in groups for i in ids], parts=parts)
    return False


def mark_due(sessions: sessionmaker[Session], ids: Sequence[int], parts: bool = False) -> None:
    model: type[Puzzle] | type[Subtask] = Subtask if parts else Puzzle
    try:
        with sessions() as s, s.begin():
            s.execute(update(model).where(model.id.in_(ids), model.status.in_(UNFINISHED))
                      .values(deadline=now()).execution_options(synchronize_session=False))
    except Exception:  # the database too: their deadline (QUEUED_STALE_SECONDS) still holds
        log.exception("could not mark %d unpublished row(s) due", len(ids))
