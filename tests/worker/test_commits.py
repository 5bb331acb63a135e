"""Workers commit without waiting for the disk on PostgreSQL; the API keeps durable commits."""

import pytest
from sqlalchemy import text

from store.db import make_engine, relax_commits


@pytest.mark.integration
def test_worker_connections_commit_asynchronously_on_postgresql(postgres_url):
    api, worker = make_engine(postgres_url), make_engine(postgres_url)
    relax_commits(worker)
    try:
        with api.connect() as conn:
            assert conn.scalar(text("SHOW synchronous_commit")) == "on"
        with worker.connect() as conn:
            assert conn.scalar(text("SHOW synchronous_commit")) == "off"
    finally:
        api.dispose()
        worker.dispose()


def test_sqlite_is_left_alone(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    relax_commits(engine)
    with engine.connect() as conn:
        assert conn.scalar(text("select 1")) == 1
