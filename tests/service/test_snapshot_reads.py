"""The API's snapshot reads (service.api.snapshot) end with COMMIT, not a closed session's ROLLBACK:
psycopg forgets its prepared statements at every ROLLBACK and deallocates them on the server, so a
read that the API repeats (a job's pages, its listing) would be parsed and planned anew after each
request. On the real PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from tests.services import postgres_url  # noqa: F401  the fixture

pytestmark = pytest.mark.integration

READS = 8  # psycopg prepares a statement at its fifth execution on a connection


def test_repeated_snapshot_reads_keep_their_prepared_statements(make_app, toy, postgres_url):  # noqa: F811
    app = make_app(DATABASE_URL=postgres_url)
    client = app.test_client()
    job = client.post("/api/v1/jobs", json={"puzzles": [{"kind": "toy", "puzzle": "123"}]}).get_json()
    for _ in range(READS):
        assert client.get(f"/api/v1/jobs/{job['id']}/puzzles").status_code == 200
    engine = app.extensions["engine"]
    # One request at a time: every read went through the one pooled connection asked here.
    assert engine.pool.checkedin() == 1
    with engine.connect() as conn:
        prepared = conn.execute(text("SELECT statement FROM pg_prepared_statements")).scalars().all()
    assert any("puzzles" in statement for statement in prepared), prepared
