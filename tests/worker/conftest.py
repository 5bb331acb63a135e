import pytest

from tests.service.conftest import make_app, toy  # noqa: F401  shared fixtures
from tests.services import fresh_postgres


@pytest.fixture(scope="session")
def postgres_url():
    with fresh_postgres() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def database_url(request, tmp_path):
    """The task logic runs on both databases (PostgreSQL writes in one statement, SQLite per row)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'worker.db'}"
    return request.getfixturevalue("postgres_url")
