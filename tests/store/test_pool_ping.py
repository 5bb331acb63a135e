"""The pool's ping (store.db): a connection idle past PING_IDLE_SECONDS, or one whose server has
ended it, is pinged before use and replaced if dropped; one just back from use goes out without the
round trip. On the real PostgreSQL."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import text

from store import db
from tests.services import postgres_url  # noqa: F401  the fixture

pytestmark = pytest.mark.integration


@pytest.fixture
def engine(postgres_url):  # noqa: F811  the fixture imported above
    engine = db.make_engine(postgres_url)
    yield engine
    engine.dispose()


def backend(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(text("SELECT pg_backend_pid()")).scalar_one()


def counting_pings(monkeypatch, engine) -> list[int]:
    pings: list[int] = []
    real = engine.dialect.do_ping

    def ping(dbapi_conn):
        pings.append(1)
        return real(dbapi_conn)

    monkeypatch.setattr(engine.dialect, "do_ping", ping)
    return pings


def test_a_connection_back_from_use_moments_ago_goes_out_without_a_ping(engine, monkeypatch):
    pings = counting_pings(monkeypatch, engine)
    first = backend(engine)
    assert backend(engine) == first  # the same pooled connection, twice
    assert pings == []


def test_an_idle_connection_is_pinged_first(engine, monkeypatch):
    monkeypatch.setattr(db, "PING_IDLE_SECONDS", 0.05)
    pings = counting_pings(monkeypatch, engine)
    first = backend(engine)
    time.sleep(0.1)
    assert backend(engine) == first
    assert pings == [1]


def test_an_idle_connection_the_server_dropped_is_replaced_before_use(engine, monkeypatch):
    monkeypatch.setattr(db, "PING_IDLE_SECONDS", 0.05)
    dropped = backend(engine)
    with db.make_engine(str(engine.url.render_as_string(hide_password=False))).connect() as other:
        assert other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": dropped}).scalar_one()
    time.sleep(0.1)
    assert backend(engine) != dropped  # no error: the ping found it gone and the pool connected anew


def test_a_connection_the_server_ended_moments_ago_is_replaced_before_use(engine):
    # As in a restart of PostgreSQL shorter than PING_IDLE_SECONDS: the server's last words wait on
    # the socket, so the pool pings it, finds it gone and connects anew; no request sees the error.
    dropped = backend(engine)
    with db.make_engine(str(engine.url.render_as_string(hide_password=False))).connect() as other:
        # PostgreSQL 14+: wait up to 5 s for the backend to be gone
        assert other.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": dropped}).scalar_one()
    assert backend(engine) != dropped
