"""Submitting: a checked batch stored as a job and one row per puzzle, and cut into tasks.

A job and its puzzles go in with as few round trips as the database allows: one statement outside
a transaction for a small job on PostgreSQL, COPY for a large one, and the owner's backlog read by
the job's own INSERT.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, insert, select, text
from sqlalchemy.orm import Session

from store import tallies
from store.db import is_postgresql
from store.fastjson import canonical
from store.jobs import JobState, job_state
from store.models import QUEUED, UNFINISHED, Job, Puzzle, now
from store.settings import Lanes


@dataclass(frozen=True)
class CheckedItem:
    """One puzzle of a batch, checked (service.batches), as it is stored."""

    kind: str
    puzzle: Any
    options: dict[str, Any]  # every default filled in, as the worker will use them
    cost: float  # the kind's estimate in seconds (Kind.cost), for cutting the batch into tasks


@dataclass(frozen=True)
class CheckedBatch:
    label: str | None
    items: list[CheckedItem]


def request_hash(body: Any) -> str:
    return hashlib.sha256(canonical(body).encode()).hexdigest()


def chunk_sizes(costs: Sequence[float], spread: int, largest: int, seconds: float,
                most: float = float("inf")) -> list[int]:
    """Cut consecutive puzzles into tasks by their estimated cost (Kind.cost, seconds).

    A task holds about ``seconds`` of work or more: dispatching it and its SQL round trips cost
    a few milliseconds, so cheap puzzles travel by the hundred. A batch with more work than that
    is spread over at least ``spread`` tasks, so that many workers share it, but a task holds no
    more than ``most`` (so that a task of cheap puzzles stays cheap, see store.publish); a
    puzzle dearer than a task's share goes alone. No task holds more than ``largest`` puzzles."""
    target = min(max(seconds, sum(costs) / spread), most)
    sizes: list[int] = []
    size, work = 0, 0.0
    for cost in costs:
        if size and (size == largest or work + cost > target * (1 + 1e-9)):  # sums of floats
            sizes.append(size)
            size, work = 0, 0.0
        size, work = size + 1, work + cost
    if size:
        sizes.append(size)
    return sizes


_jobs, _puzzles = cast(Table, Job.__table__), cast(Table, Puzzle.__table__)


class Backlogged(Exception):
    """The owner's unfinished puzzles and the batch's together pass the limit (the job row stored
    meanwhile is rolled back with the transaction this escapes)."""

    def __init__(self, pending: int, limit: int):
        super().__init__(f"{pending} puzzles unfinished; the limit is {limit}")
        self.pending, self.limit = pending, limit


def _insert_job():
    """The job's row, returning the owner's other unfinished jobs (their pending puzzles and their
    number): the backlog comes with the insert, a round trip fewer than asking first. The new row
    is left out by id (SQLite's WITH sees it, PostgreSQL's does not)."""
    theirs = (_jobs.c.owner == bindparam("backlog_owner"), _jobs.c.status.in_(UNFINISHED),
              _jobs.c.id != bindparam("new_job"))
    backlog = select(func.coalesce(func.sum(_jobs.c.pending), 0).label("pending"),
                     func.count().label("jobs")).where(*theirs).cte("backlog")
    return insert(_jobs).add_cte(backlog).returning(select(backlog.c.pending).scalar_subquery(),
                                                    select(backlog.c.jobs).scalar_subquery())


_INSERT_JOB = _insert_job()
_PUZZLE_IDS = select(_puzzles.c.id).where(_puzzles.c.job_id == bindparam("job_id")).order_by(_puzzles.c.index)
_INSERT_RETURNING_IDS = insert(_puzzles).returning(_puzzles.c.id, sort_by_parameter_order=True)
FEW_ROWS = 8  # see _insert_puzzles


def create_job(s: Session, owner: str, submit: CheckedBatch, *, label: str | None, key: str | None,
               body_hash: str | None, queued_stale_seconds: float,
               max_pending: int) -> tuple[JobState, list[int], int]:
    """Store the job and one row per puzzle; returns the job as stored (all queued), the puzzle ids
    in batch order, and the owner's other unfinished jobs (the rank of its tasks, store.publish).
    Raises Backlogged, before storing any puzzle, if the owner would have more than ``max_pending``
    puzzles unfinished. The session must be fresh: on PostgreSQL a job of up to FEW_ROWS puzzles
    is stored by one statement outside a transaction (_store_small)."""
    created = now()
    items = submit.items
    job_id = uuid.uuid4().hex
    deadline = created + timedelta(seconds=queued_stale_seconds)
    job = {"id": job_id, "owner": owner, "label": label, "status": QUEUED, "total": len(items),
           "pending": len(items), "idempotency_key": key, "request_hash": body_hash, "created_at": created}
    tallies.submitted(s)
    for item in items:
        tallies.moved(s, item.kind, None, QUEUED)
    if len(items) <= FEW_ROWS and is_postgresql(s):
        pending, rank, ids = _store_small(s, job, items, deadline, max_pending)
        if pending + len(items) > max_pending:
            raise Backlogged(int(pending), max_pending)
    else:
        # Core statements built once: the ORM's unit of work and building each statement cost more
        # than storing a small job.
        pending, rank = s.execute(_INSERT_JOB, {**job, "backlog_owner": owner, "new_job": job_id}).one()
        if pending + len(items) > max_pending:
            raise Backlogged(int(pending), max_pending)
        rows = [{"job_id": job_id, "index": i, "kind": item.kind, "input": item.puzzle,
                 "options": item.options, "status": QUEUED, "attempts": 0, "created_at": created,
                 "deadline": deadline, "parts_total": 0, "parts_done": 0, "stop_requested": False}
                for i, item in enumerate(items)]
        ids = _insert_puzzles(s, job_id, rows)
    stored = Job(id=job_id, label=label, status=QUEUED, total=len(items), pending=len(items),
                 created_at=created)
    return job_state(stored, {QUEUED: len(items)}), ids, int(rank)


# A small job on PostgreSQL, in one statement outside a transaction (no BEGIN, no COMMIT of its
# own): the owner's backlog, the job's row, its puzzles and the tallies' rows, or, when the backlog
# refuses the job, none of them. Each data-modifying part runs whether or not the result reads it.
_STORE_SMALL = text(f"""
WITH backlog AS (
    SELECT coalesce(sum(pending), 0) AS pending, count(*) AS jobs FROM jobs
    WHERE owner = :owner AND status IN ({", ".join(f"'{status}'" for status in UNFINISHED)})),
job AS (
    INSERT INTO jobs (id, owner, label, status, total, pending, idempotency_key, request_hash, created_at)
    SELECT :id, :owner, :label, :status, :total, :pending, :idempotency_key, :request_hash, :created_at
    FROM backlog WHERE backlog.pending + :total <= :max_pending
    RETURNING id),
stored AS (
    INSERT INTO puzzles (job_id, index, kind, input, options, status, attempts, created_at, deadline,
                         parts_total, parts_done, stop_requested)
    SELECT job.id, p.index, p.kind, CAST(p.input AS json), CAST(p.options AS json), :status, 0,
           :created_at, :deadline, 0, 0, false
    FROM job, unnest(CAST(:indexes AS integer[]), CAST(:kinds AS text[]), CAST(:inputs AS text[]),
                     CAST(:options AS text[])) AS p(index, kind, input, options)
    RETURNING id, index),
counted AS (
    INSERT INTO tallies (kind, name, shard, value)
    SELECT t.kind, t.name, t.shard, t.value
    FROM job, unnest(CAST(:tally_kinds AS text[]), CAST(:tally_names AS text[]),
                     CAST(:tally_shards AS integer[]), CAST(:tally_values AS double precision[]))
              AS t(kind, name, shard, value)
    ORDER BY t.kind, t.name
    ON CONFLICT (kind, name, shard) DO UPDATE SET value = tallies.value + excluded.value)
SELECT (SELECT pending FROM backlog), (SELECT jobs FROM backlog),
       (SELECT array_agg(id ORDER BY index) FROM stored)
""")


def _store_small(s: Session, job: dict[str, Any], items: Sequence[CheckedItem], deadline: datetime,
                 max_pending: int) -> tuple[int, int, list[int]]:
    """Store a job of up to FEW_ROWS puzzles on PostgreSQL by _STORE_SMALL, with the tallies the
    session gathered: the owner's backlog (unfinished puzzles, jobs) and the puzzle ids in batch
    order (none when refused). The session must be fresh: it runs outside a transaction, one round
    trip where a transaction takes five."""
    s.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
    counts = tallies.take(s)
    pending, rank, ids = s.execute(_STORE_SMALL, {
        **job, "max_pending": max_pending, "deadline": deadline,
        "indexes": list(range(len(items))), "kinds": [item.kind for item in items],
        "inputs": [canonical(item.puzzle) for item in items],
        "options": [canonical(item.options) for item in items],
        "tally_kinds": [c["kind"] for c in counts], "tally_names": [c["name"] for c in counts],
        "tally_shards": [c["shard"] for c in counts], "tally_values": [c["value"] for c in counts]}).one()
    return int(pending), int(rank), list(ids or [])


def _insert_puzzles(s: Session, job_id: str, rows: list[dict[str, Any]]) -> list[int]:
    """Store the job's puzzle rows; returns their ids in batch order.

    Up to FEW_ROWS rows (on SQLite; PostgreSQL stores those with the job, see _store_small): one
    INSERT ... RETURNING, a single round trip. More, on PostgreSQL: COPY, with the JSON columns
    sent as text, then the ids read back (the ORM's bulk insert spends longer sorting out each
    row's columns than the database spends storing it, and a Core executemany costs several times
    a COPY); on SQLite an executemany."""
    if len(rows) <= FEW_ROWS:
        return list(s.scalars(_INSERT_RETURNING_IDS, rows))
    if is_postgresql(s):
        _copy_puzzles(s, rows)
    else:
        s.execute(insert(_puzzles), rows)
    return list(s.scalars(_PUZZLE_IDS, {"job_id": job_id}))


def _copy_puzzles(s: Session, rows: list[dict[str, Any]]) -> None:
    columns = list(rows[0])
    as_json = {"input", "options"}
    quote = s.get_bind().dialect.identifier_preparer.quote
    statement = f"COPY {Puzzle.__tablename__} ({', '.join(map(quote, columns))}) FROM STDIN"
    driver: Any = s.connection().connection.driver_connection  # psycopg's own connection
    last: dict[str, tuple[Any, str]] = {}  # per JSON column, the last value and its text
    with driver.cursor() as cursor, cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row([_as_text(last, c, row[c]) if c in as_json else row[c] for c in columns])


def _as_text(last: dict[str, tuple[Any, str]], column: str, value: Any) -> str:
    """``canonical(value)``, reusing the text of the column's previous value when equal: a batch's
    puzzles mostly share their options, and comparing two small dicts costs a fraction of
    encoding one."""
    seen = last.get(column)
    if seen is not None and seen[0] == value:
        return seen[1]
    text = canonical(value)
    last[column] = (value, text)
    return text


def chunks_of(ids: Sequence[int], costs: Sequence[float], lanes: Lanes) -> list[tuple[list[int], float]]:
    """The batch's tasks: each one's puzzle ids and estimated seconds."""
    out, start = [], 0
    sizes = chunk_sizes(costs, lanes.chunk_spread, lanes.chunk_max, lanes.chunk_seconds, lanes.dear_seconds)
    for size in sizes:
        out.append((list(ids[start:start + size]), sum(costs[start:start + size])))
        start += size
    return out
