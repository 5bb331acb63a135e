import pytest

from tests.service.conftest import assert_tallies_match_rows, made_apps, make_app, toy  # noqa: F401  shared fixtures
from tests.services import database_url, postgres_url  # noqa: F401  the task logic runs on both databases


@pytest.fixture(autouse=True)
def tallies_agree(made_apps):  # noqa: F811  the fixture imported above
    """After every worker test, whatever it did to the puzzles: the /metrics tallies moved by exactly
    the rows that changed (each status change counted once, none missed)."""
    yield
    for app in made_apps:
        assert_tallies_match_rows(app.extensions["sessions"])
