"""Alembic environment: the URL comes from the settings (DIRECT_DATABASE_URL, by default DATABASE_URL)."""

from logging.config import fileConfig

from alembic import context

import store.bookkeeping  # noqa: F401  its tables join Base.metadata
from store.db import make_engine
from store.models import Base
from store.settings import Settings

config = context.config
# Migrations take locks and may SET for their session: the direct URL, never a transaction pooler.
url = config.attributes.get("database_url") or Settings.from_env().connections.direct_url
if config.config_file_name and "database_url" not in config.attributes:
    # The `alembic` command: say what it does (alembic.ini's loggers). Programs that migrate
    # (make run, the tests) pass the URL and keep their own logging.
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def run_offline() -> None:
    context.configure(url=url, target_metadata=Base.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    engine = make_engine(url)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata,
                          render_as_batch=connection.dialect.name == "sqlite")
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
