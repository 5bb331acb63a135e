"""Running totals for /metrics, kept in the ``tallies`` table (store.bookkeeping.Tally).

A scrape reads these few rows instead of counting every puzzle. Each total moves in the
transaction that changes what it counts, by exactly the rows that transaction changed (the
status changes are conditional UPDATEs that report what they hit), so a redelivered task,
a rollback or a crash moves nothing twice.

The changes of a transaction are gathered in its session (``moved``, ``solved_in``,
``submitted``) and written just before it commits (a job's, on PostgreSQL, in the one
statement that stores it: store.submit), in one statement, the keys sorted, to the
rows of one of SHARDS shards picked at random (a total is the sum over its shards). So the hot
rows (every POST and every worker's write moves the same few totals) are the last locks any
transaction takes, held only for its commit; two transactions lock them in the same order (no
deadlock with the job and puzzle rows, nor among the tallies); and concurrent transactions
mostly take different shards, so they seldom wait for each other's commit (an API commit waits
for its WAL to reach the disk).
"""

from __future__ import annotations

import functools
import random
from typing import Any, cast

from sqlalchemy import Insert, Table, event
from sqlalchemy.orm import Session

from store.bookkeeping import Tally
from store.db import Dialect, dialect_of

# Seconds; from trivial Sudokus (well under a millisecond) to the time limit.
SOLVE_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0, 120.0, 600.0)
JOBS, SECONDS = "jobs", "seconds"
SHARDS = 16

_PENDING = "tallies"  # the key of a session's gathered changes in Session.info


def bucket(seconds: float) -> str:
    """The name of the one bucket a solve of ``seconds`` counts in."""
    return "le_" + next((str(b) for b in SOLVE_BUCKETS if seconds <= b), "+Inf")


def _add(s: Session, kind: str, deltas: dict[str, float]) -> None:
    pending: dict[tuple[str, str], float] = s.info.setdefault(_PENDING, {})
    for name, delta in deltas.items():
        pending[kind, name] = pending.get((kind, name), 0.0) + delta


def _moves(old: str | None, new: str, n: int) -> dict[str, float]:
    if old == new or not n:
        return {}
    return ({} if old is None else {old: -float(n)}) | {new: float(n)}


def _solve_times(solve_ms: float | None, n: int) -> dict[str, float]:
    if solve_ms is None:
        return {}
    return {bucket(solve_ms / 1000.0): float(n), SECONDS: n * solve_ms / 1000.0}


def moved(s: Session, kind: str, old: str | None, new: str, n: int = 1) -> None:
    """``n`` puzzles of ``kind`` went from status ``old`` (None: just stored) to ``new``."""
    _add(s, kind, _moves(old, new, n))


def solved_in(s: Session, kind: str, solve_ms: float | None, n: int = 1) -> None:
    """``n`` finished puzzles' solve time each, for the histogram."""
    _add(s, kind, _solve_times(solve_ms, n))


def submitted(s: Session) -> None:
    _add(s, "", {JOBS: 1})


_TABLE = cast(Table, Tally.__table__)


def _adding(statement: Any) -> Insert:
    """``statement`` (an INSERT of rows of the totals) adding to the rows already there."""
    added = {"value": _TABLE.c.value + statement.excluded.value}
    return cast(Insert, statement.on_conflict_do_update(index_elements=["kind", "name", "shard"], set_=added))


@functools.cache
def _upsert(dialect: Dialect) -> Insert:
    """The statement adding rows to the totals, built once per dialect, on the table (not the ORM
    entity, whose bulk insert sorts out each row in Python first): building it, and the ORM's path,
    cost more than running it."""
    return _adding(dialect.insert(_TABLE))


def shard() -> int:
    """The shard a transaction's changes go to."""
    return random.randrange(SHARDS)


def take(s: Session) -> list[dict[str, Any]]:
    """The session's gathered changes as the rows to add (one shard, the keys sorted), taken out
    of the session: for a statement that adds them itself (store.submit stores a job so)."""
    pending = {key: delta for key, delta in s.info.pop(_PENDING, {}).items() if delta}
    at = shard()
    return [{"kind": kind, "name": name, "shard": at, "value": delta}
            for (kind, name), delta in sorted(pending.items())]


@event.listens_for(Session, "before_commit")
def _write(s: Session) -> None:
    rows = take(s)
    if rows:
        # The rows travel as parameters of one statement shape, compiled once and cached (rows in
        # VALUES made a new statement each time: compiling it cost more than running it).
        s.execute(_upsert(dialect_of(s)), rows)


@event.listens_for(Session, "after_rollback")
def _forget(s: Session) -> None:
    s.info.pop(_PENDING, None)
