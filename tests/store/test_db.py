"""The dialect switch (store.db.dialect_of): one record per database, picked by the engine's
dialect name and reached the same way from an engine, a connection or a session; and SQLite's
write-ahead log checkpoint (store.db.checkpoint_wal)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, text
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


def test_a_checkpoint_empties_the_log_and_keeps_every_row(tmp_path: Path) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    log = tmp_path / "db.sqlite-wal"
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE t (x TEXT)"))
        conn.execute(text("INSERT INTO t VALUES (:x)"), [{"x": "a" * 500}] * 2000)
    assert log.stat().st_size > 1_000_000
    assert db.checkpoint_wal(engine) is True
    assert log.stat().st_size == 0
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM t")).scalar() == 2000
    engine.dispose()


def test_a_checkpoint_that_meets_a_reader_of_an_older_snapshot_gives_up_for_its_next_turn(
        tmp_path: Path) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE t (x TEXT)"))
    reader = engine.raw_connection()
    try:
        reader.cursor().execute("BEGIN")
        reader.cursor().execute("SELECT count(*) FROM t").fetchone()  # holds this snapshot
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO t VALUES ('b')"))
        assert db.checkpoint_wal(engine) is False
        assert (tmp_path / "db.sqlite-wal").stat().st_size > 0
    finally:
        reader.cursor().execute("ROLLBACK")
        reader.close()
    assert db.checkpoint_wal(engine) is True
    engine.dispose()
