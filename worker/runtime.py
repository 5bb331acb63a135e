"""What a worker process holds: its settings, its database sessions and the publisher its tasks use."""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from store.db import make_engine, make_sessionmaker, relax_commits
from store.publish import CeleryPublisher, Publisher
from store.settings import Settings

# Allocations between two collections of the youngest generation (Python's default: 700). A chunk
# keeps its puzzles' objects alive until its write; with the default, each young collection walks
# them again and moves them on.
YOUNG_COLLECTION_AFTER = 50_000


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    publisher: Publisher

    @classmethod
    def connect(cls, settings: Settings, celery_app: Any) -> Runtime:
        """The runtime of a worker process of ``celery_app`` (no connection is made until used)."""
        pooled = settings.connections.transaction_pooled
        engine = make_engine(settings.connections.database_url, pooled)
        relax_commits(engine, pooled)
        return cls(settings, engine, make_sessionmaker(engine),
                   CeleryPublisher(celery_app, settings.lanes, settings.time))


def collect_for_chunks() -> None:
    """Set this process's garbage collector for chunk work, once what it runs with is loaded (in a
    worker's main process before its pool forks, so every pool process inherits it). What start-up
    and warm-up loaded (modules, compiled kernels: millions of objects) leaves the collector's sight,
    which a full collection would otherwise walk, and young collections wait for
    YOUNG_COLLECTION_AFTER allocations."""
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_AFTER, *gc.get_threshold()[1:])
