"""The dialect switch (store.db.dialect_of): one record per database, picked by the engine's
dialect name and reached the same way from an engine, a connection or a session."""

from __future__ import annotations

from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from store import db


def test_an_sqlite_engine_its_connections_and_sessions_get_the_plain_statements(tmp_path):
    engine = db.make_engine(f"sqlite:///{tmp_path / 'd.db'}")
    try:
        with engine.connect() as conn, Session(engine) as s:
            assert db.dialect_of(engine) is db.dialect_of(conn) is db.dialect_of(s) is db.SQLITE
    finally:
        engine.dispose()
    assert not (db.SQLITE.writes_in_with or db.SQLITE.id_arrays or db.SQLITE.notices)


def test_a_postgresql_engine_gets_its_own_statements():
    engine = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")  # never connects
    with Session(engine) as s:
        assert db.dialect_of(engine) is db.dialect_of(s) is db.POSTGRESQL
    assert db.POSTGRESQL.writes_in_with and db.POSTGRESQL.id_arrays and db.POSTGRESQL.notices
    assert db.POSTGRESQL.read_isolation == "REPEATABLE READ"
