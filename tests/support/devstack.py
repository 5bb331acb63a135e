"""A development stack: fresh PostgreSQL databases and Redis db numbers, migrated, and real
`celery worker` processes, for the integration tests and the benchmarks.

Each user gets its own fresh database / Redis db number and everything is dropped after. A server
that does not answer raises Unavailable (the tests skip or fail on it, tests/services.py).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from flask import Flask
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from service import create_app
from store.broker import CALLBACK_WORKER, WORKER_FLAGS
from store.settings import Settings

PG_URL = os.environ.get("TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
ROOT = Path(__file__).resolve().parents[2]


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


class Unavailable(Exception):
    """A server the stack needs does not answer."""


def interrupt(proc: subprocess.Popen, timeout: float = 60) -> None:
    """Stop a process as Ctrl-C does (SIGINT), killed if it has not ended within ``timeout``."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def unavailable(what: str, exc: BaseException) -> Unavailable:
    return Unavailable(f"{what} is not reachable ({type(exc).__name__}: {exc})")


@contextmanager
def fresh_postgres() -> Iterator[str]:
    """A new, empty, uniquely named database; its URL. Dropped afterwards."""
    admin_url = make_url(PG_URL)
    try:
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text("select 1"))
    except Exception as exc:  # any driver error means "not there"
        raise unavailable(f"PostgreSQL at {admin_url.render_as_string()}", exc) from exc
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
        raise unavailable(f"Redis at {REDIS_URL}", exc) from exc
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
    raise Unavailable("no empty Redis database number among 1..15")


class Workers:
    """`celery worker` subprocesses sharing one environment; stopped (and reaped) at the end."""

    def __init__(self, env: dict[str, str], logs: Path, app: str = "worker.app"):
        self.env, self.logs, self.app = env, logs, app
        self.procs: list[subprocess.Popen[bytes]] = []
        self._starting: dict[subprocess.Popen[bytes], str] = {}  # launched, not yet ready: what it will log

    def start(self, pool: str = "prefork", cheap_only: bool = False, concurrency: int = 1,
              wait: bool = True) -> subprocess.Popen[bytes]:
        """A worker of both lanes (as in production), or with ``cheap_only`` one kept for cheap work;
        ``concurrency``: its pool processes. With ``wait=False`` it is launched and left to warm up:
        ``ready()`` waits for it, so that several workers warm up side by side (worker.warmup shares
        the work between them) instead of one after another."""
        lanes = Settings.from_env(self.env).lanes
        queues = lanes.task_queue if cheap_only else ",".join(lanes.queues)
        # Ready, and the pool process has loaded the solvers: a worker still compiling kernels
        # would leave all the work to the other one.
        return self._launch(["--pool", pool, "--concurrency", str(concurrency), "-Q", queues],
                            "solvers warmed up", wait)

    def start_callbacks(self, wait: bool = True) -> subprocess.Popen[bytes]:
        """A worker of the callbacks' queue alone, as every deployment runs one."""
        queue = Settings.from_env(self.env).lanes.callback_queue
        return self._launch([*CALLBACK_WORKER, "-Q", queue], "solvers are not loaded", wait)

    def _launch(self, args: list[str], started: str, wait: bool) -> subprocess.Popen[bytes]:
        """A `celery worker` with ``args``; with ``wait``, once it is ready and has logged ``started``."""
        name = f"w{len(self.procs)}-{uuid.uuid4().hex[:6]}"
        log = self.logs / f"{name}.log"
        cmd = [sys.executable, "-m", "celery", "-A", self.app, "worker", *args, "-n", f"{name}@%h",
               *WORKER_FLAGS, "--loglevel", "INFO"]
        with open(log, "w") as out:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        proc.log = log  # type: ignore[attr-defined]
        self.procs.append(proc)
        self._starting[proc] = started
        if wait:
            self.ready()
        return proc

    def ready(self, timeout: float = 300) -> None:
        """Wait until every worker launched is ready and has logged what its start promised."""
        deadline = time.monotonic() + timeout
        while self._starting:
            for proc, started in list(self._starting.items()):
                log = proc.log  # type: ignore[attr-defined]
                if "ready." in (text := log.read_text()) and started in text:
                    del self._starting[proc]
                elif proc.poll() is not None or time.monotonic() > deadline:
                    self._starting.clear()
                    raise RuntimeError(f"worker did not start:\n{log.read_text()[-3000:]}")
            if self._starting:
                time.sleep(0.1)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs = []
        self._starting.clear()


class Stack:
    def __init__(self, app, workers: Workers):
        self.app, self.workers, self.client = app, workers, app.test_client()

    def submit(self, items: list[dict], **kw) -> str:
        r = self.client.post("/api/v1/jobs", json={"puzzles": items}, **kw)
        assert r.status_code == 202, r.json
        return r.json["id"]

    def wait(self, job_id: str, timeout: float = 120, until: Callable[[dict], bool] | None = None,
             **kw) -> dict:
        """Poll the job (``kw``: the client's request options, such as its token's header)."""
        until = until or (lambda job: job["status"] in ("completed", "cancelled"))
        deadline = time.monotonic() + timeout
        while True:
            job = self.client.get(f"/api/v1/jobs/{job_id}", **kw).json
            if until(job):
                return job
            if time.monotonic() > deadline:
                logs = "\n".join(p.log.read_text()[-2000:] for p in self.workers.procs)  # type: ignore[attr-defined]
                raise AssertionError(f"job {job_id} not done in {timeout} s: {job}\n{logs}")
            time.sleep(0.05)

    def puzzles(self, job_id: str) -> list[dict]:
        items, cursor = [], None
        while True:
            q = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
            page = self.client.get(f"/api/v1/jobs/{job_id}/puzzles", query_string=q).json
            items += page["items"]
            cursor = page["next_cursor"]
            if cursor is None:
                return items


def service_env(database_url: str, redis_url: str | None, queue: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    # No rate limit unless asked: the tests and benchmarks poll faster than a client may.
    env.update(DATABASE_URL=database_url, TASK_QUEUE=queue, PYTHONPATH=str(ROOT), RATE_LIMIT="",
               READ_RATE_LIMIT="", **extra)
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def app_for(env: dict[str, str]) -> Flask:
    """The API side, configured from the same environment as the workers."""
    return create_app(Settings.from_env(env))


@dataclass
class Local:
    """`make run` (deploy/run_local.py) running: its URL, its log and its process."""

    url: str
    log: Path
    proc: subprocess.Popen[bytes]


def _local_ready(base: str, log: Path) -> bool:
    """The API answers ready and every worker process has warmed up and beats (run_local says so)."""
    try:
        with urllib.request.urlopen(f"{base}/readyz", timeout=5) as resp:
            return resp.status == 200 and "workers ready" in log.read_text()
    except OSError:
        return False


@contextmanager
def run_local(folder: Path, env: dict[str, str], args: tuple[str, ...] = (),
              timeout: float = 300) -> Iterator[Local]:
    """Start `python -m deploy.run_local` (``args``) with ``env`` on a free port, its log in
    ``folder``; yield once its API answers and its workers have warmed up (failing after
    ``timeout`` seconds); stop it with SIGINT (what Ctrl-C does) at the end. Without DATABASE_URL /
    REDIS_URL in ``env`` it is the embedded default (make them point into ``folder``:
    DATABASE_URL=sqlite:///..., BROKER_DIR)."""
    port = free_port()
    log = folder / "service.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "deploy.run_local", *args],
                                cwd=ROOT, env={**env, "PORT": str(port), "PYTHONPATH": str(ROOT)},
                                stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while not _local_ready(base, log):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"make run did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield Local(base, log, proc)
    finally:
        interrupt(proc)
