"""Start the real stack for a benchmark: a fresh PostgreSQL database, the API and workers.

Databases and Redis db numbers come from the integration tests' helpers (same
variables: TEST_DATABASE_URL, TEST_REDIS_URL), so a bench never touches anyone's data.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tests.services import fresh_postgres, fresh_redis

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def stack(workers: int, extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """Yield the API's base URL with `workers` single-process celery workers behind it."""
    with fresh_postgres() as db_url, fresh_redis() as redis_url:
        env = {**os.environ, "DATABASE_URL": db_url, "REDIS_URL": redis_url, **(extra_env or {})}
        subprocess.run([str(BIN / "alembic"), "upgrade", "head"], cwd=ROOT, env=env, check=True,
                       capture_output=True)
        port = free_port()
        procs = [subprocess.Popen(
            [str(BIN / "gunicorn"), "--bind", f"127.0.0.1:{port}", "--workers", "2",
             "service:create_app()"], cwd=ROOT, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
        for i in range(workers):
            procs.append(subprocess.Popen(
                [str(BIN / "celery"), "-A", "worker", "worker", "--concurrency", "1",
                 "--hostname", f"bench{i}@%h", "--loglevel", "WARNING", "--without-gossip",
                 "--without-mingle"], cwd=ROOT, env=env,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        try:
            wait_ready(f"http://127.0.0.1:{port}")
            yield f"http://127.0.0.1:{port}"
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()


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
