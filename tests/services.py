"""The development stack (tests/support/devstack.py) as the tests use it: an unreachable server skips a
test, unless REQUIRE_SERVICES=1 (CI), where it fails; and the database fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path

import pytest

from store.db import migrate
from tests.support import devstack
from tests.support.devstack import ROOT, Stack, app_for, free_port, process_tree, service_env

__all__ = ["ROOT", "Stack", "Workers", "app_for", "free_port", "fresh_postgres", "fresh_redis", "migrate",
           "process_tree", "service_env"]


@contextmanager
def _or_skip(server: AbstractContextManager[str]) -> Iterator[str]:
    """The server's URL; one that does not answer skips the test (fails it under REQUIRE_SERVICES=1)."""
    with ExitStack() as stack:
        try:
            url = stack.enter_context(server)
        except devstack.Unavailable as exc:
            if os.environ.get("REQUIRE_SERVICES") == "1":
                pytest.fail(f"{exc}; REQUIRE_SERVICES=1 says it must be there", pytrace=False)
            pytest.skip(str(exc))
        yield url


class Workers(devstack.Workers):
    """Real workers that also know the test-only toy kind (tests/integration/toyworker.py)."""

    def __init__(self, env: dict[str, str], logs: Path, app: str = "tests.integration.toyworker"):
        super().__init__(env, logs, app)


def fresh_postgres() -> AbstractContextManager[str]:
    return _or_skip(devstack.fresh_postgres())


def fresh_redis() -> AbstractContextManager[str]:
    return _or_skip(devstack.fresh_redis())


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    with fresh_postgres() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Both databases, for tests whose code has a statement per dialect (import it into the test
    module or conftest); the PostgreSQL half needs the real service."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'both.db'}"
    return str(request.getfixturevalue("postgres_url"))


