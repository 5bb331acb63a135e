"""Engine and session factory for a database URL (PostgreSQL or SQLite), and the one place that
tells the two apart (``Dialect``, ``dialect_of``).

PostgreSQL serves deployments; SQLite serves ``make run`` without DATABASE_URL and the unit tests
(their PostgreSQL halves run with ``-m integration``).
"""

from __future__ import annotations

import logging
import select
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, CursorResult, Engine, Update, create_engine, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from store import fastjson
from store.settings import ROOT

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class Dialect:
    """What the store's statements differ by between its two databases: PostgreSQL gets its own
    faster statements, SQLite the plain ones. Picked once per engine by its dialect's name
    (``dialect_of``); every other module asks it, never the name."""

    name: str
    # Several writes in one statement (INSERT or UPDATE inside WITH): one round trip where the
    # writes apart take several.
    writes_in_with: bool
    # A list of ids is one array parameter (``= ANY(array)``, store.statements.among), planned for
    # its own length (plan_for_each_list); otherwise an IN list.
    id_arrays: bool
    # Notices by NOTIFY and LISTEN (store.notices).
    notices: bool
    # SELECT ... FOR UPDATE locks rows; SQLite locks the whole database instead.
    row_locks: bool
    # A read-only transaction reads one snapshot at this isolation level (see read_only); None:
    # SQLite's deferred BEGIN, which takes no lock.
    read_isolation: str | None
    # One statement can run outside a transaction (AUTOCOMMIT) and still read one snapshot.
    autocommit_reads: bool
    # Commits may return before their log reaches the disk (see relax_commits).
    relaxed_commits: bool
    # The dialect's INSERT construct, which knows ON CONFLICT DO UPDATE (store.tallies).
    insert: Callable[[Any], Any]


POSTGRESQL = Dialect("postgresql", writes_in_with=True, id_arrays=True, notices=True, row_locks=True,
                     read_isolation="REPEATABLE READ", autocommit_reads=True, relaxed_commits=True,
                     insert=postgresql.insert)
SQLITE = Dialect("sqlite", writes_in_with=False, id_arrays=False, notices=False, row_locks=False,
                 read_isolation=None, autocommit_reads=False, relaxed_commits=False, insert=sqlite.insert)


def dialect_of(bind: Session | Engine | Connection) -> Dialect:
    """The dialect of the engine behind a session, an engine or a connection."""
    engine = bind.get_bind() if isinstance(bind, Session) else bind
    return POSTGRESQL if engine.dialect.name == "postgresql" else SQLITE


def changed_rows(s: Session, statement: Update) -> int:
    """Run an UPDATE without synchronizing the session's objects (these sessions hold none for the
    rows they change); returns how many rows it changed."""
    result = s.execute(statement.execution_options(synchronize_session=False))
    return cast("CursorResult[Any]", result).rowcount


# How long a SQLite statement waits for another connection's lock before it fails, and how long a
# checkpoint waits for writers and readers before it gives up until its next turn.
SQLITE_WAIT_SECONDS = 30
CHECKPOINT_WAIT_SECONDS = 1


def make_engine(url: str, transaction_pooled: bool = False) -> Engine:
    """``transaction_pooled``: the URL reaches PostgreSQL through a pooler in transaction mode
    (PgBouncer, DATABASE_POOLING), which hands each transaction whichever server connection is
    free: psycopg then prepares no statements (a statement prepared on one server connection is
    unknown to the next), and nothing may be set for the session (see relax_commits)."""
    parsed = make_url(url)
    # JSON columns are encoded and decoded for every puzzle stored or read.
    json = {"json_serializer": fastjson.dumps, "json_deserializer": fastjson.loads}
    if parsed.get_backend_name() != "sqlite":
        connect_args = {"prepare_threshold": None} if transaction_pooled else {}
        engine = create_engine(url, connect_args=connect_args, **json)
        _ping_when_idle(engine)
        return engine
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": SQLITE_WAIT_SECONDS}, **json)
    _sqlite_write_locks(engine)
    return engine


# A pooled connection back from use this recently, with nothing waiting on its socket, is handed out
# without a ping. The ping is a round trip, and a one-puzzle job would make several on its way (the
# POST, its reads, two in the worker).
PING_IDLE_SECONDS = 1.0
_RETURNED = "puzzle_queue_returned"  # when the connection last came back to the pool (monotonic)


def _ping_when_idle(engine: Engine) -> None:
    """Ping a connection taken from the pool if it has been idle for PING_IDLE_SECONDS, or if its
    socket has something to read: an idle connection is sent nothing, but a server that shuts down
    or ends the session sends its last error and closes, which a look at the socket sees at no
    round trip (a restart of PostgreSQL within the second, as deploy/compose_test.py does).
    A dead connection is replaced at once (the pool retries on DisconnectionError); one that dies
    without a word within the second (a network cut) meets the first statement instead, answered
    as any lost database is (503 from the API, the task retried by the worker)."""

    @event.listens_for(engine, "connect")
    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_conn: Any, record: Any) -> None:
        record.info[_RETURNED] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        recent = time.monotonic() - record.info.get(_RETURNED, 0.0) < PING_IDLE_SECONDS
        if recent and not _has_news(dbapi_conn):
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except engine.dialect.loaded_dbapi.Error as exc:  # the pool drops it and connects anew
            raise DisconnectionError(f"a pooled connection was lost: {exc}") from exc


def _has_news(dbapi_conn: Any) -> bool:
    """Whether the connection's socket can be read without waiting (an error, the end, a closed
    socket): an idle session is sent nothing."""
    try:
        return bool(select.select([dbapi_conn.fileno()], [], [], 0)[0])
    except (OSError, ValueError):  # closed already
        return True


# The connection option that marks a read-only transaction (see read_only).
READ_ONLY = "puzzle_queue_read_only"


def read_only(s: Session) -> Session:
    """Mark a fresh session as only reading: on SQLite its transaction begins deferred, so under WAL
    it neither takes nor waits for the write lock (a worker thread can hold that lock for seconds
    while a compiled solver keeps the GIL, and status reads must not queue behind it); on
    PostgreSQL it reads one snapshot, so a job's row and its puzzle counts agree."""
    options: dict[str, Any] = {READ_ONLY: True}
    isolation = dialect_of(s).read_isolation
    if isolation is not None:
        options["isolation_level"] = isolation
    s.connection(execution_options=options)
    return s


def plan_for_each_list(s: Session) -> None:
    """Plan each of this transaction's statements for its own lists of ids (``= ANY(array)``,
    store.statements.among), not by a generic plan blind to their lengths; SQLite plans every
    statement anew anyway."""
    if dialect_of(s).id_arrays:
        s.execute(text("SET LOCAL plan_cache_mode = force_custom_plan"))


def one_statement(s: Session) -> Session:
    """Mark a fresh session as reading by one statement, which sees one snapshot by itself: on
    PostgreSQL it runs outside a transaction (AUTOCOMMIT), saving the round trips of BEGIN and
    ROLLBACK; on SQLite it is :func:`read_only`."""
    if not dialect_of(s).autocommit_reads:
        return read_only(s)
    s.connection(execution_options={READ_ONLY: True, "isolation_level": "AUTOCOMMIT"})
    return s


def _sqlite_write_locks(engine: Engine) -> None:
    """SQLite: WAL so readers never wait, and BEGIN IMMEDIATE so that the read-then-write
    transactions of the workers take the write lock up front instead of reading stale rows
    (SQLite has no SELECT ... FOR UPDATE); sessions marked :func:`read_only` begin deferred."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None  # let the "begin" hook below issue BEGIN
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(READ_ONLY) else "BEGIN IMMEDIATE")


def checkpoint_wal(engine: Engine) -> bool | None:
    """SQLite: copy the write-ahead log into the database file and truncate the log to nothing
    (``PRAGMA wal_checkpoint(TRUNCATE)``). SQLite's own checkpoints (every 1,000 pages) let the log
    be written over from its start but never shrink the file, which keeps the largest size it ever
    reached. Waits at most CHECKPOINT_WAIT_SECONDS for writers and readers (it runs again at its
    next turn); whether the log was emptied. None on PostgreSQL, which needs nothing of the kind."""
    if dialect_of(engine) is not SQLITE:
        return None
    raw = engine.raw_connection()  # in autocommit (see _sqlite_write_locks): outside any transaction
    try:
        cursor = raw.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_SECONDS * 1000}")
        try:
            busy, _log_pages, _copied = cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_WAIT_SECONDS * 1000}")
        return busy == 0
    finally:
        raw.close()


def relax_commits(engine: Engine, transaction_pooled: bool = False) -> None:
    """PostgreSQL: the workers' commits return before their WAL reaches the disk (each fsync costs
    more than a small transaction's statements, two per subtask). Safe for what workers write: a
    commit lost in a database crash leaves its rows as they were (queued, or running under a lease),
    and the reaper publishes them again; counters move in the same transactions as the rows they
    count, so they are lost together. The API's commits stay synchronous: an accepted job is
    durable.

    Set once per connection when it is the session's own; through a pooler in transaction mode
    (``transaction_pooled``) a session setting would stay on a server connection the API shares,
    so each transaction sets it for itself (SET LOCAL: a round trip more per transaction)."""
    if not dialect_of(engine).relaxed_commits:
        return
    if transaction_pooled:
        @event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            if not conn.connection.driver_connection.autocommit:  # type: ignore[union-attr]
                conn.exec_driver_sql("SET LOCAL synchronous_commit TO off")
        return

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):
        with dbapi_conn.cursor() as cur:
            cur.execute("SET synchronous_commit TO off")
        dbapi_conn.commit()


def make_sessionmaker(engine: Engine) -> sessionmaker:
    return sessionmaker(engine, expire_on_commit=False)


def through_outages(step: Callable[[], T], seconds: float, what: str) -> T:
    """``step()``, called again while the database is unreachable, for up to ``seconds`` after
    the first failure; then its error goes on. Each call is a whole transaction, so a restart of
    the database costs its own seconds and nothing is done twice."""
    deadline, pause = time.monotonic() + seconds, 0.25
    while True:
        try:
            return step()
        except OperationalError as exc:
            if time.monotonic() + pause > deadline:
                raise
            log.warning("%s: the database is not reachable (%s); trying again in %.2f s",
                        what, str(exc.orig).strip().splitlines()[0], pause)
        time.sleep(pause)
        pause = min(2 * pause, 4.0)


def migrate(url: str) -> None:
    """Bring the database at ``url`` to the newest revision (migrations/, alembic.ini)."""
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    command.upgrade(config, "head")
