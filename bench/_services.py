"""The real stack for a benchmark: a fresh PostgreSQL database, gunicorn and real workers.

Built from the development stack the integration tests use, tests/support/devstack.py (same variables:
TEST_DATABASE_URL, TEST_REDIS_URL), so a bench never touches anyone's data; only the API differs: here
it is gunicorn over real HTTP, not Flask's test client.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url

import solvers
from store.db import migrate
from tests.support.devstack import (
    Workers,
    app_for,
    free_port,
    fresh_postgres,
    fresh_redis,
    process_tree,
    service_env,
)

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Running:
    base: str       # the API's URL
    queue: str      # the workers' task queue
    celery: Any     # a Celery app on the same broker, for remote control of the workers
    workers: list[subprocess.Popen]
    api: subprocess.Popen
    db_url: str     # the fresh database both use
    pool: Workers   # starts more workers on the same stack


@contextlib.contextmanager
def stack(workers: int, concurrency: int = 1, redis: str | None = None, pooler_port: int | None = None,
          **settings: str) -> Iterator[Running]:
    """The API with `workers` warmed-up celery workers behind it, each of ``concurrency`` pool
    processes; ``settings`` are environment variables of both (store/settings.py). ``redis``: a
    Redis URL of the caller's, else a free database of TEST_REDIS_URL's server. ``pooler_port``:
    a PgBouncer in transaction mode on this host in front of the database's server, which the
    API and the workers then go through (what needs a session of its own goes directly).
    What the kinds' fast paths read and this machine lacks is built first (``solvers.provision``):
    a worker that found it missing would build it in the background, on the cores being measured
    (on a fresh machine, the sliding puzzle's pattern database)."""
    solvers.provision()
    redis_db = contextlib.nullcontext(redis) if redis else fresh_redis()
    with fresh_postgres() as db_url, redis_db as redis_url, tempfile.TemporaryDirectory() as logs:
        migrate(db_url)
        queue = f"bench-{uuid.uuid4().hex[:8]}"
        if pooler_port is None:
            env = service_env(db_url, redis_url, queue, **settings)
        else:
            pooled = make_url(db_url).set(host="127.0.0.1", port=pooler_port)
            env = service_env(pooled.render_as_string(hide_password=False), redis_url, queue,
                              DIRECT_DATABASE_URL=db_url, DATABASE_POOLING="transaction", **settings)
        pool = Workers(env, Path(logs))
        port = free_port()
        api = subprocess.Popen([sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}",
                                "--workers", "2", "service:create_app()"], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(workers):
                pool.start(concurrency=concurrency)
            base = f"http://127.0.0.1:{port}"
            wait_ready(base)
            yield Running(base, env["TASK_QUEUE"], app_for(env).extensions["celery"], pool.procs, api, db_url,
                          pool)
        finally:
            api.terminate()
            api.wait(timeout=20)
            pool.stop()


def wait_ready(base: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/readyz", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{base} not ready after {timeout} s")


def server_pids() -> list[int]:
    """PostgreSQL's and Redis's processes on this machine (new backends inherit from the postmaster)."""
    found = subprocess.run(["pgrep", "-x", "postgres|redis-server"], capture_output=True, text=True).stdout
    return [int(p) for p in found.split()]


@contextlib.contextmanager
def pinned(running: Running) -> Iterator[None]:
    """Workers on cores 1.., everything else (API, databases, this process) on core 0: the shape
    of a deployment where the workers have machines of their own. Affinities are restored after."""
    cores = sorted(os.sched_getaffinity(0))
    others = [os.getpid(), *process_tree(running.api.pid), *server_pids()]
    workers = [process_tree(w.pid) for w in running.workers]  # a worker and its pool
    try:
        for pid in others:
            os.sched_setaffinity(pid, cores[:1])
        for i, tree in enumerate(workers):
            for pid in tree:
                os.sched_setaffinity(pid, [cores[1 + i % (len(cores) - 1)]])
        yield
    finally:
        for pid in others + [p for tree in workers for p in tree]:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(pid, cores)
        for pid in server_pids():  # backends started meanwhile inherited core 0
            with contextlib.suppress(OSError):
                os.sched_setaffinity(pid, cores)


def statement_times(engine: Any) -> dict[str, float]:
    """Milliseconds per statement (its first words), as the client waits on it, summed since
    the dict was last cleared."""
    times: dict[str, float] = defaultdict(float)

    @event.listens_for(engine, "before_cursor_execute")
    def _start(conn, cursor, statement, parameters, context, executemany):
        conn.info["bench_t0"] = time.perf_counter()

    @event.listens_for(engine, "after_cursor_execute")
    def _end(conn, cursor, statement, parameters, context, executemany):
        times[" ".join(statement.split())[:48]] += (time.perf_counter() - conn.info["bench_t0"]) * 1000

    return times
