"""The live API against its own OpenAPI document (issue 12, item 14): schemathesis with every
check, over real HTTP, with and without API_TOKENS, must find nothing.

Bounded so that it can never hold CI: a fixed seed and few examples per operation, ?wait= held
at most WAIT_CAP_SECONDS (generated waits of up to 60 s would keep server threads that long),
a timeout per request, and a hard limit on the whole run (the subprocess is killed past it).
The filesystem broker with no worker: jobs stay queued, which every answer allows. SQLite, and
PostgreSQL too, whose driver refuses what SQLite takes (a NUL in a string, an integer wider
than its column).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from service import create_app
from store.models import Base
from store.settings import Settings
from tests.liveserver import serving
from tests.services import fresh_postgres

CONFIG = Path(__file__).with_name("schemathesis.toml")
TOKEN = "schemathesis-token"
RUN_SECONDS = 240  # a bound far above a run's own time, so a slow machine does not cut a run short


@contextmanager
def sqlite(path: Path) -> Iterator[str]:
    yield f"sqlite:///{path / 'api.db'}"


@pytest.mark.slow
@pytest.mark.parametrize(("database", "tokens"), [
    ("sqlite", False), ("sqlite", True), pytest.param("postgresql", False, marks=pytest.mark.integration)])
def test_the_api_answers_as_its_openapi_document_says(tmp_path, database, tokens):
    with fresh_postgres() if database == "postgresql" else sqlite(tmp_path) as url:
        run_schemathesis(tmp_path, url, tokens)


def run_schemathesis(tmp_path: Path, database_url: str, tokens: bool) -> None:
    app = create_app(Settings.from_env(DATABASE_URL=database_url, REDIS_URL=None,
                      BROKER_DIR=str(tmp_path / "broker"), WAIT_CAP_SECONDS=0.1,
                      API_TOKENS=f"client:{TOKEN}" if tokens else "",
                      # schemathesis asks far faster than a client may; a 429 would cut its cases short
                      RATE_LIMIT="", READ_RATE_LIMIT=""))
    Base.metadata.create_all(app.extensions["engine"])
    auth = ["--header", f"Authorization: Bearer {TOKEN}"] if tokens else []
    with serving(app) as url:
        # --request-timeout: the first request of a kind's prediction loads its compiled kernels
        # from numba's cache in this process, seconds where the suite's parallel tests share the
        # cores; the answers' contract, not their latency, is what is checked here
        cmd = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run",
               f"{url}/api/v1/openapi.json", "--checks", "all", "--seed", "12", "--max-examples", "25",
               "--workers", "1", "--request-timeout", "60", "--suppress-health-check", "all", *auth]
        try:
            # cwd: its example database and reports stay out of the repository
            run = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=RUN_SECONDS)
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"schemathesis ran longer than {RUN_SECONDS} s:\n{str(exc.stdout)[-5000:]}")
    app.extensions["engine"].dispose()
    assert run.returncode == 0, run.stdout[-12000:] + run.stderr[-3000:]
    # every generated case ran and passed (a run that tested nothing would not say so)
    assert re.search(r"\b(\d+) generated, \1 passed\b", run.stdout), run.stdout[-3000:]
