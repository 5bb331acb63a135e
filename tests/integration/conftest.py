"""Real services for integration tests: PostgreSQL, Redis and `celery worker` processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config

import solvers
from service import create_app
from service.config import from_env
from tests.services import fresh_postgres, fresh_redis
from tests.toykind import TOY

ROOT = Path(__file__).resolve().parents[2]


def migrate(url: str) -> None:
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    command.upgrade(config, "head")


class Workers:
    """`celery worker` subprocesses sharing one environment; stopped (and reaped) at the end."""

    def __init__(self, env: dict[str, str], logs: Path, app: str = "tests.integration.toyworker"):
        # The toy worker adds the test-only kind; benchmarks run the real `worker` app.
        self.env, self.logs, self.app, self.procs = env, logs, app, []

    def start(self, pool: str = "prefork") -> subprocess.Popen:
        name = f"w{len(self.procs)}-{uuid.uuid4().hex[:6]}"
        log = self.logs / f"{name}.log"
        cmd = [sys.executable, "-m", "celery", "-A", self.app, "worker",
               "--pool", pool, "--concurrency", "1", "-Q", self.env["TASK_QUEUE"], "-n", f"{name}@%h",
               "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel", "INFO"]
        with open(log, "w") as out:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        proc.log = log  # type: ignore[attr-defined]
        self.procs.append(proc)
        # Ready, and the pool process has loaded the solvers: a worker still compiling kernels
        # would leave all the work to the other one.
        deadline = time.monotonic() + 300
        while not ("ready." in (text := log.read_text()) and "solvers warmed up" in text):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"worker did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        return proc

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


class Stack:
    def __init__(self, app, workers: Workers):
        self.app, self.workers, self.client = app, workers, app.test_client()

    def submit(self, items: list[dict], **kw) -> str:
        r = self.client.post("/api/v1/jobs", json={"puzzles": items}, **kw)
        assert r.status_code == 202, r.json
        return r.json["id"]

    def wait(self, job_id: str, timeout: float = 120, until: Callable[[dict], bool] | None = None) -> dict:
        until = until or (lambda job: job["status"] in ("completed", "cancelled"))
        deadline = time.monotonic() + timeout
        while True:
            job = self.client.get(f"/api/v1/jobs/{job_id}").json
            if until(job):
                return job
            if time.monotonic() > deadline:
                logs = "\n".join(p.log.read_text()[-2000:] for p in self.workers.procs)
                pytest.fail(f"job {job_id} not done in {timeout} s: {job}\n{logs}")
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
    env.update(DATABASE_URL=database_url, TASK_QUEUE=queue, PYTHONPATH=str(ROOT), **extra)
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def app_for(env: dict[str, str]):
    """The API side, configured from the same environment as the workers."""
    return create_app(from_env(env))


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
            workers.start()
            workers.start()
            yield Stack(app_for(env), workers)
        finally:
            workers.stop()


@pytest.fixture
def toy_kind(monkeypatch):
    monkeypatch.setitem(solvers.KINDS, TOY.name, TOY)
    return TOY
