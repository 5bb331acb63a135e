"""Real PostgreSQL and Redis for the tests that need them.

Unreachable services skip those tests, unless REQUIRE_SERVICES=1 (CI), where they fail.
Each user gets its own fresh database / Redis db number and everything is dropped after.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

PG_URL = os.environ.get("TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def process_tree(pid: int) -> list[int]:
    """The process and its descendants (a celery worker and its pool, gunicorn and its workers)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            todo += [int(c) for c in (task / "children").read_text().split()]
    return out


def unavailable(what: str, exc: BaseException) -> None:
    message = f"{what} is not reachable ({type(exc).__name__}: {exc})"
    if os.environ.get("REQUIRE_SERVICES") == "1":
        pytest.fail(f"{message}; REQUIRE_SERVICES=1 says it must be there", pytrace=False)
    pytest.skip(message)


@contextmanager
def fresh_postgres() -> Iterator[str]:
    """A new, empty, uniquely named database; its URL. Dropped afterwards."""
    admin_url = make_url(PG_URL)
    try:
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text("select 1"))
    except Exception as exc:  # any driver error means "not there"
        unavailable(f"PostgreSQL at {admin_url.render_as_string()}", exc)
    name = f"pq_test_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield admin_url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def fresh_redis() -> Iterator[str]:
    """A Redis URL on a database number nobody else uses now (flushed before and after)."""
    import redis

    try:
        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        client.ping()
    except Exception as exc:
        unavailable(f"Redis at {REDIS_URL}", exc)
    # Claim an empty db number among 1..15 with a marker key, so parallel sessions don't collide
    # and nobody else's data is flushed.
    root = REDIS_URL.rsplit("/", 1)[0]
    for number in range(15, 0, -1):
        candidate = redis.Redis.from_url(f"{root}/{number}")
        if candidate.dbsize() == 0 and candidate.set("puzzle-queue-test-claim", "1", nx=True, ex=3600):
            try:
                yield f"{root}/{number}"
            finally:
                candidate.flushdb()
                candidate.close()
            return
        candidate.close()
    pytest.fail("no empty Redis database number among 1..15")
