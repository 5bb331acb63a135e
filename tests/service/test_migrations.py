"""`alembic upgrade head` on an empty database gives exactly the schema of the models."""

from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from service.db import make_engine
from service.models import Base
from tests.services import fresh_postgres

ROOT = Path(__file__).resolve().parents[2]


def upgrade_and_compare(url: str) -> None:
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    command.upgrade(config, "head")
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
            tables = set(inspect(conn).get_table_names())
    finally:
        engine.dispose()
    assert {"jobs", "puzzles", "subtasks", "alembic_version"} <= tables
    assert diff == [], f"migrations and models differ: {diff}"
    command.downgrade(config, "base")


def test_sqlite_migrations_match_models(tmp_path):
    upgrade_and_compare(f"sqlite:///{tmp_path / 'm.db'}")


@pytest.mark.integration
def test_postgres_migrations_match_models():
    with fresh_postgres() as url:
        upgrade_and_compare(url)
