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


@pytest.mark.integration
def test_through_a_transaction_pooler_each_transaction_relaxes_only_itself(postgres_url):
    worker = make_engine(postgres_url, transaction_pooled=True)
    relax_commits(worker, transaction_pooled=True)
    try:
        with worker.begin() as conn:
            assert conn.scalar(text("SHOW synchronous_commit")) == "off"
        # The server connection goes back to the pooler as it came: the setting ended with the transaction.
        with worker.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            assert conn.scalar(text("SHOW synchronous_commit")) == "on"
        # No statement is ever prepared on the server: the next transaction may get another connection.
        with worker.connect() as conn:
            for _ in range(8):
                conn.execute(text("SELECT 1"))
            assert conn.scalar(text("SELECT count(*) FROM pg_prepared_statements")) == 0
    finally:
        worker.dispose()
