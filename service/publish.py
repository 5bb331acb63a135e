"""Handing chunks of puzzle ids to the workers; always called after the rows are committed."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

log = logging.getLogger(__name__)

SOLVE_CHUNK = "puzzle_queue.solve_chunk"
REAP = "puzzle_queue.reap"


class Publisher(Protocol):
    def publish(self, chunks: Sequence[Sequence[int]]) -> None: ...


def task_limits(config: dict[str, Any], n_puzzles: int) -> tuple[float, float]:
    """(soft, hard) seconds for a task of n puzzles. The soft limit is a backstop; the worker
    also times each puzzle on its own (worker.tasks)."""
    soft = config["PUZZLE_TIME_LIMIT"] * n_puzzles + 1.0
    return soft, soft + config["HARD_TIME_GRACE"]


class CeleryPublisher:
    def __init__(self, celery_app: Any, config: dict[str, Any]):
        self.celery, self.config = celery_app, config

    def publish(self, chunks: Sequence[Sequence[int]]) -> None:
        with self.celery.producer_or_acquire() as producer:
            for ids in chunks:
                soft, hard = task_limits(self.config, len(ids))
                self.celery.send_task(SOLVE_CHUNK, args=[list(ids)], queue=self.config["TASK_QUEUE"],
                                      soft_time_limit=soft, time_limit=hard, producer=producer)


def publish_safely(publisher: Publisher, chunks: Sequence[Sequence[int]]) -> bool:
    """Publish; on a broker failure the puzzles stay queued in SQL and the reaper publishes
    them again later, so the job is accepted either way."""
    try:
        publisher.publish(chunks)
        return True
    except Exception:
        log.exception("publishing %d chunk(s) failed; the reaper will publish them again", len(chunks))
        return False
