"""Jobs as the API sees them: submit a checked batch, read status and results, cancel, delete.

Everything here takes a Session and plain values, no request objects, so the worker
tests and the API share it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Row, Table, bindparam, case, delete, func, insert, select, text, update
from sqlalchemy.orm import Session

from service import blocks, notices, tallies
from service.batches import CheckedBatch, CheckedItem
from service.bodies import nesting_depth
from service.config import dumps
from service.db import changed_rows, is_postgresql
from service.models import CANCELLED, COMPLETED, QUEUED, RUNNING, UNFINISHED, Job, Puzzle, lock_job, now
from service.schemas import Counts, JobOut, PuzzleOut, iso_time

# What a row can hold: values outside these never reach SQL (PostgreSQL refuses a NUL or an
# integer wider than the column with an error, SQLite an integer over 64 bits), they match nothing.
INDEX_MAX = 2**31 - 1  # puzzles.index is a 32-bit INTEGER
JOB_ID_LENGTH = 32  # jobs.id: uuid4().hex


def possible_job_id(job_id: str) -> bool:
    return len(job_id) <= JOB_ID_LENGTH and job_id.isprintable()


def possible_index(index: Any) -> bool:
    return type(index) is int and 0 <= index <= INDEX_MAX


def request_hash(body: Any) -> str:
    return hashlib.sha256(dumps(body).encode()).hexdigest()


def chunk_sizes(costs: Sequence[float], spread: int, largest: int, seconds: float,
                most: float = float("inf")) -> list[int]:
    """Cut consecutive puzzles into tasks by their estimated cost (Kind.cost, seconds).

    A task holds about ``seconds`` of work or more: dispatching it and its SQL round trips cost
    a few milliseconds, so cheap puzzles travel by the hundred. A batch with more work than that
    is spread over at least ``spread`` tasks, so that many workers share it, but a task holds no
    more than ``most`` (so that a task of cheap puzzles stays cheap, see service.publish); a
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
               max_pending: int) -> tuple[JobOut, list[int], int]:
    """Store the job and one row per puzzle; returns the job as stored (all queued), the puzzle ids
    in batch order, and the owner's other unfinished jobs (the rank of its tasks, service.publish).
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
    return job_out(stored, Counts(queued=len(items))), ids, int(rank)


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
    order (none when refused). The session must be fresh: it runs outside a transaction (a
    one-puzzle POST: 1.0-1.5 ms, against 2.9-3.9 ms for the transaction of five round trips)."""
    s.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
    counts = tallies.take(s)
    pending, rank, ids = s.execute(_STORE_SMALL, {
        **job, "max_pending": max_pending, "deadline": deadline,
        "indexes": list(range(len(items))), "kinds": [item.kind for item in items],
        "inputs": [dumps(item.puzzle) for item in items], "options": [dumps(item.options) for item in items],
        "tally_kinds": [c["kind"] for c in counts], "tally_names": [c["name"] for c in counts],
        "tally_shards": [c["shard"] for c in counts], "tally_values": [c["value"] for c in counts]}).one()
    return int(pending), int(rank), list(ids or [])


def _insert_puzzles(s: Session, job_id: str, rows: list[dict[str, Any]]) -> list[int]:
    """Store the job's puzzle rows; returns their ids in batch order.

    Up to FEW_ROWS rows (on SQLite; PostgreSQL stores those with the job, see _store_small): one
    INSERT ... RETURNING, a single round trip. More, on PostgreSQL: COPY, with the
    JSON columns sent as text, then the ids read back, cheaper from about 10 rows on (measured
    here for 1000 puzzles, the ORM's bulk insert spent longer sorting out each row's columns than
    the database spent storing it, and even a pipelined Core executemany costs about five times
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
    """``dumps(value)``, reusing the text of the column's previous value when equal: a batch's
    puzzles mostly share their options, and comparing two small dicts costs a fraction of
    encoding one."""
    seen = last.get(column)
    if seen is not None and seen[0] == value:
        return seen[1]
    text = dumps(value)
    last[column] = (value, text)
    return text


def chunks_of(ids: Sequence[int], costs: Sequence[float],
              config: dict[str, Any]) -> list[tuple[list[int], float]]:
    """The batch's tasks: each one's puzzle ids and estimated seconds."""
    out, start = [], 0
    for size in chunk_sizes(costs, config["CHUNK_SPREAD"], config["CHUNK_MAX"], config["CHUNK_SECONDS"],
                            config["DEAR_SECONDS"]):
        out.append((list(ids[start:start + size]), sum(costs[start:start + size])))
        start += size
    return out


def find_by_key(s: Session, owner: str, key: str) -> Job | None:
    return s.scalar(select(Job).where(Job.owner == owner, Job.idempotency_key == key))


def get_job(s: Session, owner: str | None, job_id: str) -> Job | None:
    job = s.get(Job, job_id) if possible_job_id(job_id) else None
    if job is None or (owner is not None and job.owner != owner):
        return None  # another client's job is as invisible as a missing one
    return job


def job_status(s: Session, job_id: str) -> str | None:
    """The job's status alone (None: no such job), a primary-key read for the long poll's looks."""
    return s.scalar(select(Job.status).where(Job.id == job_id)) if possible_job_id(job_id) else None


def counts_for(s: Session, job_ids: Sequence[str]) -> dict[str, Counts]:
    out = {jid: Counts() for jid in job_ids}
    rows = s.execute(select(Puzzle.job_id, Puzzle.status, func.count())
                     .where(Puzzle.job_id.in_(job_ids)).group_by(Puzzle.job_id, Puzzle.status))
    for job_id, status, n in rows:
        setattr(out[job_id], status, n)
    return out


def partial_for(s: Session, job_ids: Sequence[str]) -> dict[str, float]:
    """Per job, the finished fraction of its running split puzzles (sum of parts_done / parts_total),
    so that progress moves while one huge puzzle is solved in parts."""
    out = dict.fromkeys(job_ids, 0.0)
    rows = s.execute(select(Puzzle.job_id, func.sum(Puzzle.parts_done * 1.0 / Puzzle.parts_total))
                     .where(Puzzle.job_id.in_(job_ids), Puzzle.status == RUNNING, Puzzle.parts_total > 0)
                     .group_by(Puzzle.job_id))
    for job_id, fraction in rows:
        out[job_id] = float(fraction or 0.0)
    return out


def job_out(job: Job | Row[*tuple[Any, ...]], counts: Counts, partial: float = 0.0) -> JobOut:
    done = job.total - job.pending + partial
    return JobOut(id=job.id, status=job.status, label=job.label, created_at=iso_time(job.created_at),
                  started_at=iso_time(job.started_at), finished_at=iso_time(job.finished_at), total=job.total,
                  counts=counts, progress=round(done / job.total, 6) if job.total else 1.0)


# A job's row beside its puzzles counted by status, with each status's sum of the finished fractions
# of split puzzles (the running ones' is partial_for's): one statement, so one snapshot and one round
# trip, built once (on the table's columns: no ORM entities to load) and compiled once.
_DESCRIBE = (select(_jobs.c.id, _jobs.c.owner, _jobs.c.label, _jobs.c.status, _jobs.c.total, _jobs.c.pending,
                    _jobs.c.created_at, _jobs.c.started_at, _jobs.c.finished_at,
                    _puzzles.c.status.label("puzzle_status"), func.count(_puzzles.c.id).label("n"),
                    func.sum(case((_puzzles.c.parts_total > 0,
                                   _puzzles.c.parts_done * 1.0 / _puzzles.c.parts_total))).label("parts"))
             .select_from(_jobs.outerjoin(_puzzles, _puzzles.c.job_id == _jobs.c.id))
             .where(_jobs.c.id == bindparam("job_id"))
             .group_by(_jobs.c.id, _puzzles.c.status))


def describe_job(s: Session, owner: str | None, job_id: str) -> JobOut | None:
    """The job as the API shows it (its counts and progress too); None as for ``get_job``."""
    rows = s.execute(_DESCRIBE, {"job_id": job_id}).all() if possible_job_id(job_id) else []
    if not rows or (owner is not None and rows[0].owner != owner):
        return None  # another client's job is as invisible as a missing one
    counts, partial = Counts(), 0.0
    for row in rows:
        if row.puzzle_status is not None:  # None: a job without puzzles, its row alone
            setattr(counts, row.puzzle_status, row.n)
        # A final job has no running puzzles, whose parts alone move progress between whole puzzles.
        if row.puzzle_status == RUNNING and rows[0].status in UNFINISHED:
            partial = float(row.parts or 0.0)
    return job_out(rows[0], counts, partial)


def puzzles_out(s: Session, rows: Sequence[Puzzle]) -> list[PuzzleOut]:
    """The puzzles as the API shows them, their results read from their blocks."""
    found = blocks.answers(s, rows)
    return [_puzzle_out(p, *found[p.id]) for p in rows]


def _puzzle_out(p: Puzzle, result: dict[str, Any] | None, stats: dict[str, Any] | None) -> PuzzleOut:
    parts = {"done": p.parts_done, "total": p.parts_total} if p.parts_total and p.status == RUNNING else None
    return PuzzleOut(index=p.index, kind=p.kind, status=p.status, result=result, stats=stats,
                     error=p.error, attempts=p.attempts, started_at=iso_time(p.started_at),
                     finished_at=iso_time(p.finished_at), subtasks=parts,
                     puzzle=p.input, options=p.options)


# -- cursors: opaque to clients, a position in a stable order to us


def encode_cursor(*values: Any) -> str:
    return base64.urlsafe_b64encode(dumps(list(values)).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> list[Any]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        # Ours are flat lists; a deeper nesting is refused before json.loads recurses into it.
        values = json.loads(text) if nesting_depth(text) == 1 else None
    except ValueError:
        values = None
    if not isinstance(values, list):
        raise ValueError("cursor is not one this API returned")
    return values


def get_puzzle(s: Session, job_id: str, index: int) -> Puzzle | None:
    if not possible_index(index):
        return None
    return s.scalar(select(Puzzle).where(Puzzle.job_id == job_id, Puzzle.index == index))


def list_puzzles(s: Session, job_id: str, limit: int, cursor: str | None) -> tuple[list[Puzzle], str | None]:
    start = 0
    if cursor is not None:
        values = decode_cursor(cursor)
        if len(values) != 1 or not possible_index(values[0]):
            raise ValueError("cursor is not one this API returned")
        start = values[0]
    rows = list(s.scalars(select(Puzzle).where(Puzzle.job_id == job_id, Puzzle.index >= start)
                          .order_by(Puzzle.index).limit(limit + 1)))
    nxt = encode_cursor(rows[limit].index) if len(rows) > limit else None
    return rows[:limit], nxt


def list_jobs(s: Session, owner: str | None, status: str | None, limit: int,
              cursor: str | None) -> tuple[list[JobOut], str | None]:
    """Newest first; the cursor is the (created_at, id) of the next job, a stable keyset position."""
    q = select(Job)
    if owner is not None:
        q = q.where(Job.owner == owner)
    if status is not None:
        q = q.where(Job.status == status)
    if cursor is not None:
        values = decode_cursor(cursor)
        if len(values) != 2 or not all(isinstance(v, str) for v in values) or not possible_job_id(values[1]):
            raise ValueError("cursor is not one this API returned")
        try:
            created, job_id = datetime.fromisoformat(values[0]), values[1]
        except ValueError:
            raise ValueError("cursor is not one this API returned") from None
        q = q.where((Job.created_at < created) | ((Job.created_at == created) & (Job.id <= job_id)))
    jobs = list(s.scalars(q.order_by(Job.created_at.desc(), Job.id.desc()).limit(limit + 1)))
    nxt = encode_cursor(jobs[limit].created_at.isoformat(), jobs[limit].id) if len(jobs) > limit else None
    jobs = jobs[:limit]
    ids = [j.id for j in jobs]
    counts, partial = counts_for(s, ids), partial_for(s, ids)
    return [job_out(j, counts[j.id], partial[j.id]) for j in jobs], nxt


def cancel_job(s: Session, job: Job) -> int:
    """Unfinished puzzles -> cancelled; running ones are flagged so their solvers stop and
    their results are never written. Returns how many puzzles were cancelled."""
    # The status is read under the lock, since a worker may have completed the job since it was loaded.
    status = lock_job(s, job.id)
    if status in (COMPLETED, CANCELLED):
        return 0
    t = now()
    unfinished = (Puzzle.job_id == job.id, Puzzle.status.in_(UNFINISHED))
    # Locked first, for the tallies: the UPDATE below changes exactly these rows, and says only
    # how many, not what each was.
    was = s.execute(select(Puzzle.kind, Puzzle.status).where(*unfinished).with_for_update()).all()
    moved = changed_rows(s, update(Puzzle).where(*unfinished)
                         .values(status=CANCELLED, finished_at=t, stop_requested=True))
    for kind, old in was:
        tallies.moved(s, kind, old, CANCELLED)
    s.execute(update(Job).where(Job.id == job.id)
              .values(status=CANCELLED, pending=Job.pending - moved, finished_at=t)
              .execution_options(synchronize_session=False))
    notices.notify(s, [job.id])  # its waiters, in every API process, answer at the commit
    s.refresh(job)
    return moved


def delete_job(s: Session, job: Job) -> str | None:
    """Delete a finished job with its puzzles and subtasks (a task still holding some of their ids
    then finds no rows and does nothing); None once deleted. An unfinished job is kept, and its
    status (read under the lock: a worker may have finished it meanwhile) returned."""
    status = lock_job(s, job.id)
    if status not in (COMPLETED, CANCELLED):
        return status
    delete_jobs(s, [job.id])
    return None


def delete_jobs(s: Session, job_ids: Sequence[str]) -> None:
    """Jobs, and by the foreign keys' cascades their puzzles and subtasks. The tallies keep their
    counts: a deleted job was still submitted, its puzzles still finished."""
    s.execute(delete(Job).where(Job.id.in_(job_ids)).execution_options(synchronize_session=False))
