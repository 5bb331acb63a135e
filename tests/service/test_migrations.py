"""`alembic upgrade head` on an empty database gives exactly the schema of the models."""

import json
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import inspect, select, text, update

from store import blocks
from store.db import make_engine, make_sessionmaker
from store.models import Base, Puzzle, ResultBlock
from tests.service.conftest import recount, stored_tallies
from tests.services import fresh_postgres

ROOT = Path(__file__).resolve().parents[2]


def upgraded(url: str) -> Config:
    """The database at ``url`` migrated to the newest revision; the configuration that did it."""
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    command.upgrade(config, "head")
    return config


def upgrade_and_compare(url: str) -> None:
    config = upgraded(url)
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


def test_the_split_head_moves_out_of_stats_and_back(tmp_path):
    """Revision 0002: a running split puzzle's head leaves the stats column for its own."""
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url = f"sqlite:///{tmp_path / 'm.db'}"
    command.upgrade(config, "0001")
    head = {"status": "solved", "result": None, "stats": {"nodes": 5}}
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO jobs (id, owner, status, total, pending, created_at) "
                          "VALUES ('j', '', 'running', 1, 1, '2026-01-01')"))
        conn.execute(text("INSERT INTO puzzles (job_id, \"index\", kind, input, options, status, attempts, "
                          "created_at, parts_total, parts_done, stop_requested, stats) VALUES "
                          "('j', 0, 'toy', '\"1\"', '{}', 'running', 1, '2026-01-01', 2, 0, 0, :stats)"),
                     {"stats": json.dumps({"split_head": head})})
    read = text("SELECT stats, split_head FROM puzzles")
    try:
        command.upgrade(config, "head")
        with engine.connect() as conn:
            stats, moved = conn.execute(read).one()
        assert stats is None and json.loads(moved) == head
        command.downgrade(config, "0001")
        with engine.connect() as conn:
            back = conn.execute(text("SELECT stats FROM puzzles")).scalar()
        assert json.loads(back) == {"split_head": head}
    finally:
        engine.dispose()


def backfill_counts_the_rows_already_there(url: str) -> None:
    """Revision tallies_and_retention: the tallies start from the rows a database already holds, as if
    they had always been kept."""
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    command.upgrade(config, "worker_heartbeats")
    engine = make_engine(url)
    rows = [("solved", 0.3), ("solved", 0.5), ("solved", 7.0), ("no_solution", 900_000.0), ("failed", None),
            ("cancelled", None), ("queued", None), ("running", None)]
    try:
        with engine.begin() as conn:
            for job in ("a", "b"):
                conn.execute(text("INSERT INTO jobs (id, owner, status, total, pending, created_at) "
                                  "VALUES (:id, '', 'running', 8, 2, '2026-01-01')"), {"id": job})
            for i, (status, ms) in enumerate(rows):
                conn.execute(text("INSERT INTO puzzles (job_id, \"index\", kind, input, options, status, "
                                  "attempts, created_at, parts_total, parts_done, stop_requested, solve_ms) "
                                  "VALUES ('a', :i, 'toy', '\"1\"', '{}', :status, 1, '2026-01-01', 0, 0, "
                                  "false, :ms)"),
                             {"i": i, "status": status, "ms": ms})
        command.upgrade(config, "head")
        sessions = make_sessionmaker(engine)
        stored = stored_tallies(sessions)
        assert stored == recount(sessions)
        assert stored[("", "jobs")] == 2 and stored[("toy", "solved")] == 3
        assert stored[("toy", "le_0.0005")] == 2 and stored[("toy", "le_0.01")] == 1
        assert stored[("toy", "le_+Inf")] == 1 and stored[("toy", "queued")] == 1
        assert stored[("toy", "seconds")] == pytest.approx(900.0078)
        command.downgrade(config, "worker_heartbeats")
    finally:
        engine.dispose()


def test_tallies_backfill_sqlite(tmp_path):
    backfill_counts_the_rows_already_there(f"sqlite:///{tmp_path / 'm.db'}")


@pytest.mark.integration
def test_tallies_backfill_postgres():
    with fresh_postgres() as url:
        backfill_counts_the_rows_already_there(url)


def results_stay_readable_across_result_blocks(url: str) -> None:
    """Revision result_blocks: a puzzle finished before it keeps its result in its own columns and
    reads the same; downgrading puts every block's results back into their puzzles' columns."""
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    command.upgrade(config, "tallies_and_retention")
    engine = make_engine(url)
    insert_puzzle = text("INSERT INTO puzzles (job_id, \"index\", kind, input, options, status, attempts, "
                         "created_at, parts_total, parts_done, stop_requested, result, stats) VALUES "
                         "('j', :i, 'toy', '\"1\"', '{}', 'solved', 1, '2026-01-01', 0, 0, false, "
                         ":result, :stats)")
    answers = [({"sum": 1}, {"nodes": 1}), ({"sum": 2}, {"nodes": 2})]
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO jobs (id, owner, status, total, pending, created_at) "
                              "VALUES ('j', '', 'running', 2, 0, '2026-01-01')"))
            conn.execute(insert_puzzle, {"i": 0, "result": '{"sum": 1}', "stats": '{"nodes": 1}'})
        command.upgrade(config, "head")
        sessions = make_sessionmaker(engine)
        with sessions() as s, s.begin():
            old = s.scalar(select(Puzzle).where(Puzzle.index == 0))
            answer = blocks.answer({"sum": 2}, {"nodes": 2})
            block = ResultBlock(job_id="j", outcomes=blocks.encode({old.id + 1: answer}))
            s.add(block)
            s.flush()
            s.execute(insert_puzzle, {"i": 1, "result": None, "stats": None})
            s.execute(update(Puzzle).where(Puzzle.index == 1).values(block_id=block.id))
        with sessions() as s:
            rows = list(s.scalars(select(Puzzle).order_by(Puzzle.index)))
            assert [rows[1].id, rows[1].result] == [rows[0].id + 1, None]
            assert list(blocks.answers(s, rows).values()) == answers
        assert fill_factor(engine) in ("40", None)  # None: SQLite, which has no such option
        assert compression(engine) in ("l", None)  # lz4 (this machine's server has it)
        command.downgrade(config, "tallies_and_retention")
        assert fill_factor(engine) in ("70", None)
        with engine.connect() as conn:
            back = conn.execute(text("SELECT result, stats FROM puzzles ORDER BY \"index\"")).all()
        as_json = [tuple(json.loads(v) if isinstance(v, str) else v for v in row) for row in back]
        assert as_json == answers  # SQLite returns JSON columns as text here, PostgreSQL decoded
    finally:
        engine.dispose()


def fill_factor(engine) -> str | None:
    """The puzzles table's fillfactor on PostgreSQL, None on SQLite."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        options = conn.execute(text("SELECT reloptions FROM pg_class WHERE relname = 'puzzles'")).scalar()
    return dict(o.split("=") for o in options)["fillfactor"]


def compression(engine) -> str | None:
    """The compression of result_blocks.outcomes on PostgreSQL ("l": lz4), None on SQLite."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        return conn.execute(text("SELECT attcompression FROM pg_attribute WHERE attname = 'outcomes' AND "
                                 "attrelid = 'result_blocks'::regclass")).scalar()


def test_result_blocks_sqlite(tmp_path):
    results_stay_readable_across_result_blocks(f"sqlite:///{tmp_path / 'm.db'}")


@pytest.mark.integration
def test_result_blocks_postgres():
    with fresh_postgres() as url:
        results_stay_readable_across_result_blocks(url)


def test_sqlite_never_gives_a_deleted_rows_id_again(tmp_path):
    # A late task holding a deleted job's puzzle ids must find no rows, not the next job's.
    url = f"sqlite:///{tmp_path / 'ids.db'}"
    upgraded(url)
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            made = {row.name: row.sql for row in conn.execute(text("SELECT name, sql FROM sqlite_master"))}
            conn.execute(text("INSERT INTO jobs (id, owner, status, total, pending, created_at) "
                              "VALUES ('j', 'o', 'queued', 1, 1, '2026-01-01')"))
            insert = text("INSERT INTO puzzles (job_id, \"index\", kind, input, options, status, attempts, "
                          "created_at, parts_total, parts_done, stop_requested) "
                          "VALUES ('j', :i, 'toy', '\"1\"', '{}', 'queued', 0, '2026-01-01', 0, 0, 0)")
            conn.execute(insert, {"i": 0})
            first = conn.scalar(text("SELECT max(id) FROM puzzles"))
            conn.execute(text("DELETE FROM puzzles"))
            conn.execute(insert, {"i": 0})
            assert conn.scalar(text("SELECT max(id) FROM puzzles")) == first + 1
    finally:
        engine.dispose()
    assert "AUTOINCREMENT" in made["puzzles"] and "AUTOINCREMENT" in made["subtasks"]


@pytest.mark.integration
def test_result_blocks_and_chunks_texts_are_compressed_by_lz4_on_postgres():
    columns = [("result_blocks", "outcomes"), ("chunks", "inputs"), ("chunks", "estimates")]
    with fresh_postgres() as url:
        upgraded(url)
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                methods = [conn.scalar(text("SELECT attcompression FROM pg_attribute WHERE attrelid = "
                                            "CAST(:table AS regclass) AND attname = :column"),
                                       {"table": table, "column": column}) for table, column in columns]
        finally:
            engine.dispose()
    assert methods == ["l", "l", "l"]


def a_new_puzzle_column_across(url: str, before: str, revision: str, column: str, value: object,
                               index: str) -> None:
    """Revision ``revision``: puzzles stored before it have ``column`` NULL, one stored after it keeps
    its ``value`` (in the partial index ``index``), and the revision goes back down to ``before``."""
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    command.upgrade(config, before)
    engine = make_engine(url)
    try:
        insert = text("INSERT INTO puzzles (job_id, \"index\", kind, input, options, status, attempts, "
                      "created_at, parts_total, parts_done, stop_requested) "
                      "VALUES ('j', :i, 'toy', '\"1\"', '{}', 'queued', 0, '2026-01-01', 0, 0, false)")
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO jobs (id, owner, status, total, pending, created_at) "
                              "VALUES ('j', 'o', 'queued', 2, 2, '2026-01-01')"))
            conn.execute(insert, {"i": 0})
        command.upgrade(config, revision)
        with engine.begin() as conn:
            conn.execute(insert, {"i": 1})
            conn.execute(text(f"UPDATE puzzles SET {column} = :value WHERE \"index\" = 1"), {"value": value})
            stored = text(f"SELECT \"index\", {column} FROM puzzles ORDER BY \"index\"")
            assert conn.execute(stored).all() == [(0, None), (1, value)]
            indexes = {ix["name"] for ix in inspect(conn).get_indexes("puzzles")}
        assert index in indexes
        command.downgrade(config, before)
        with engine.connect() as conn:
            assert column not in {c["name"] for c in inspect(conn).get_columns("puzzles")}
            assert conn.scalar(text("SELECT count(*) FROM puzzles")) == 2
    finally:
        engine.dispose()


NEW_PUZZLE_COLUMNS = [  # (revision before, revision, column, a value, its partial index)
    pytest.param("dear_lane_places", "measured_cpu", "cpu_seconds", 12.5, "ix_puzzles_measured", id="0020"),
    pytest.param("measured_cpu", "priced_signatures", "signature", "ab", "ix_puzzles_signature", id="0021"),
]


@pytest.mark.parametrize(("before", "revision", "column", "value", "index"), NEW_PUZZLE_COLUMNS)
def test_a_new_puzzle_column_sqlite(tmp_path, before, revision, column, value, index):
    a_new_puzzle_column_across(f"sqlite:///{tmp_path / 'm.db'}", before, revision, column, value, index)


@pytest.mark.integration
@pytest.mark.parametrize(("before", "revision", "column", "value", "index"), NEW_PUZZLE_COLUMNS)
def test_a_new_puzzle_column_postgres(before, revision, column, value, index):
    with fresh_postgres() as url:
        a_new_puzzle_column_across(url, before, revision, column, value, index)
