from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from flask import Flask

import solvers
from client import cli, shell
from client.api import DEFAULT_URL, Client
from service import create_app
from store.models import Base
from store.settings import Settings
from tests.embedded import embedded_service
from tests.service.conftest import RecordingPublisher
from tests.support.devstack import Local
from tests.toykind import TOY


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Local]:
    with embedded_service(tmp_path_factory.mktemp("embedded")) as running:
        yield running


@pytest.fixture(scope="session")
def service_url(service: Local) -> str:
    return service.url


@pytest.fixture(scope="session")
def examples() -> Path:
    return Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def api(tmp_path, monkeypatch) -> Iterator[Flask]:
    """The API in this process: SQLite, the toy kind, a broker that only records, a cap of 5
    predicted CPU seconds on one puzzle (a toy puzzle is predicted at its ``sleep``) and batches
    of at most 4 puzzles."""
    monkeypatch.setitem(solvers.KINDS, "toy", TOY)
    app = create_app(Settings.from_env(DATABASE_URL=f"sqlite:///{tmp_path / 'api.db'}", REDIS_URL=None,
                                       BROKER_DIR=str(tmp_path / "broker"), RATE_LIMIT="",
                                       READ_RATE_LIMIT="", MAX_PUZZLE_CPU_SECONDS=5.0,
                                       MAX_BATCH=4))
    Base.metadata.create_all(app.extensions["engine"])
    app.extensions["publisher"] = RecordingPublisher()
    yield app
    app.extensions["engine"].dispose()


@pytest.fixture
def api_client(api: Flask) -> Iterator[Client]:
    """The Python client, speaking HTTP to ``api`` in this process."""
    with Client(DEFAULT_URL, transport=httpx.WSGITransport(app=api)) as c:
        yield c


@pytest.fixture
def run_command(api: Flask, monkeypatch, capsys) -> Callable[..., tuple[int, str, str]]:
    """``run_command(*args)`` runs the command against ``api``: (exit status, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(shell, "Client", lambda url, token: Client(
            url, token, transport=httpx.WSGITransport(app=api)))
        with pytest.raises(SystemExit) as ended:
            cli.run(list(args))
        out = capsys.readouterr()
        return int(ended.value.code or 0), out.out, out.err

    return run
