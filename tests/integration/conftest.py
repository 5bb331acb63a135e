"""Real services for integration tests: PostgreSQL, Redis and `celery worker` processes."""

from __future__ import annotations

import uuid

import pytest

import solvers
from tests.services import Stack, Workers, app_for, fresh_postgres, fresh_redis, migrate, service_env
from tests.toykind import TOY


@pytest.fixture(scope="session")
def real_stack(tmp_path_factory):
    """PostgreSQL + Redis + two prefork workers (one process each): the production shape."""
    with fresh_postgres() as db_url, fresh_redis() as redis_url:
        migrate(db_url)
        env = service_env(db_url, redis_url, f"puzzles-{uuid.uuid4().hex[:8]}", PUZZLE_TIME_LIMIT="6",
                          HARD_TIME_GRACE="2", MAX_ATTEMPTS="2",
                          # Split small work too, so that tests of distributed solving stay quick.
                          SPLIT_QUEENS_N="10", SPLIT_PARTS="16", SPLIT_PROBES="100000")
        workers = Workers(env, tmp_path_factory.mktemp("workers"))
        try:
            workers.start(wait=False)
            workers.start(wait=False)
            workers.ready()
            yield Stack(app_for(env), workers)
        finally:
            workers.stop()


@pytest.fixture
def toy_kind(monkeypatch):
    monkeypatch.setitem(solvers.KINDS, TOY.name, TOY)
    return TOY
