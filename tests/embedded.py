"""`make run`'s embedded service (SQLite, the filesystem broker, gunicorn and a real celery worker)
in a temporary folder: for its own test, and for the tests of the client and of the web page."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.devstack import Local, run_local

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def embedded_service(folder: Path, **env_extra: str) -> Iterator[Local]:
    """`python -m deploy.run_local` with the toy kind added, in ``folder``."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "API_TOKENS")}
    env.update(DATABASE_URL=f"sqlite:///{folder / 'db.sqlite'}", BROKER_DIR=str(folder / "broker"),
               **env_extra)
    with run_local(folder, env, ("--api-workers", "1", "--api", "tests.integration.toyworker:create_api()",
                                 "--celery", "tests.integration.toyworker")) as service:
        yield service
