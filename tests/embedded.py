"""`make run`'s embedded service (SQLite, the filesystem broker, gunicorn and a real celery worker)
in a temporary folder: for its own test, and for the tests of the client and of the web page."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from deploy.devstack import interrupt
from tests.services import free_port

ROOT = Path(__file__).resolve().parents[1]


def _ready(base: str, log: Path) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/readyz", timeout=5) as resp:
            text = log.read_text()
            return resp.status == 200 and "ready." in text and "solvers warmed up" in text
    except OSError:
        return False


@dataclass
class Embedded:
    url: str
    log: Path
    proc: subprocess.Popen[bytes]


@contextmanager
def embedded_service(folder: Path, **env_extra: str) -> Iterator[Embedded]:
    """Start `python -m deploy.run_local` with the toy kind added, in ``folder``; stop it with
    SIGINT (what Ctrl-C does) at the end."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "API_TOKENS")}
    env.update(PORT=str(port), DATABASE_URL=f"sqlite:///{folder / 'db.sqlite'}",
               BROKER_DIR=str(folder / "broker"), PYTHONPATH=str(ROOT), **env_extra)
    log = folder / "service.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "deploy.run_local", "--api-workers", "1",
                                 "--api", "tests.integration.toyworker:create_api()",
                                 "--celery", "tests.integration.toyworker"],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while not _ready(base, log):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the embedded service did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield Embedded(base, log, proc)
    finally:
        interrupt(proc)
