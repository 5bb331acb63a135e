import pytest

from tests.service.conftest import assert_tallies_match_rows, made_apps, make_app, toy  # noqa: F401  shared fixtures
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


@pytest.fixture(autouse=True)
def tallies_agree(made_apps):  # noqa: F811  the fixture imported above
    """After every worker test, whatever it did to the puzzles: the /metrics tallies moved by exactly
    the rows that changed (each status change counted once, none missed)."""
    yield
    for app in made_apps:
        assert_tallies_match_rows(app.extensions["sessions"])
