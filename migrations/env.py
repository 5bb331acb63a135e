"""Alembic environment: the URL comes from the service configuration (DATABASE_URL)."""

from alembic import context

from service.config import from_env
from service.db import make_engine
from service.models import Base

config = context.config
url = config.attributes.get("database_url") or from_env()["DATABASE_URL"]


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
