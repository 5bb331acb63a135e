"""The submit's SQL (store.submit runs it): a job, its puzzles and its chunks stored by one
statement on PostgreSQL, which also reads the owner's backlog and stores the tallies; on SQLite the
job's row (reading the backlog), then its puzzles and its chunks, one statement each. Built once.

Terms (backlog, chunk, tallies): docs/glossary.md.
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import Table, bindparam, func, insert, literal_column, select, text
from sqlalchemy.dialects import postgresql

from store.costs import SECONDS_LEFT, overrun
from store.models import UNFINISHED, Job, Puzzle

_jobs, _puzzles = cast(Table, Job.__table__), cast(Table, Puzzle.__table__)


_UNFINISHED = ", ".join(f"'{status}'" for status in UNFINISHED)
# The owner's measured seconds past their predictions: store.costs.overrun, rendered into the text
# with its constants inline (so the partial index's predicate, store.models.MEASURED, still matches).
_PAST_PREDICTION = str(overrun(literal_column(":owner")).compile(dialect=postgresql.dialect(),
                                                                  compile_kwargs={"literal_binds": True}))
# Each data-modifying part runs whether or not the result reads it; the puzzles and tallies are
# stored only with the job (``FROM job``), which is only when the backlog allows.
STORE_ON_POSTGRESQL = text(f"""
WITH backlog AS (
    SELECT coalesce(sum(pending), 0) AS pending, count(*) AS jobs,
           coalesce(sum(coalesce(estimated_seconds, 0) - done_seconds), 0) + {_PAST_PREDICTION} AS work
    FROM jobs
    WHERE owner = :owner AND status IN ({_UNFINISHED})),
job AS (
    INSERT INTO jobs (id, owner, label, callback_url, status, total, pending, idempotency_key, request_hash,
                      created_at, estimated_seconds, estimated_high, done_seconds)
    SELECT :id, :owner, :label, :callback_url, :status, :total, :pending, :idempotency_key, :request_hash,
           :created_at, :estimated_seconds, :estimated_high, 0
    FROM backlog WHERE backlog.pending + :total <= :max_pending
                       AND (:budget <= 0 OR backlog.work + :estimated_seconds <= :budget)
    RETURNING id),
stored AS (
    INSERT INTO puzzles (job_id, index, kind, input, options, status, attempts, created_at,
                         parts_total, parts_done, stop_requested, estimated_seconds, estimate_factor,
                         estimate_basis, signature)
    SELECT job.id, CAST(p.puzzle ->> 0 AS integer), p.puzzle ->> 1, p.puzzle -> 2, p.puzzle -> 3, :status, 0,
           :created_at, 0, 0, false, CAST(p.puzzle ->> 4 AS double precision),
           CAST(p.puzzle ->> 5 AS double precision), p.puzzle ->> 6, p.puzzle ->> 7
    FROM job, json_array_elements(CAST(:puzzles AS json)) AS p(puzzle)
    RETURNING id, index),
chunked AS (
    INSERT INTO chunks (job_id, first, size, kind, options, inputs, estimates, estimated_seconds, status,
                        attempts, created_at)
    SELECT job.id, CAST(c.chunk ->> 0 AS integer), CAST(c.chunk ->> 1 AS integer), c.chunk ->> 2,
           c.chunk -> 3, c.chunk ->> 4, c.chunk ->> 5, CAST(c.chunk ->> 6 AS double precision), :status, 0,
           :created_at
    FROM job, json_array_elements(CAST(:chunks AS json)) AS c(chunk)
    RETURNING id, first),
counted AS (
    INSERT INTO tallies (kind, name, shard, value)
    SELECT t.kind, t.name, t.shard, t.value
    FROM job, unnest(CAST(:tally_kinds AS text[]), CAST(:tally_names AS text[]),
                     CAST(:tally_shards AS integer[]), CAST(:tally_values AS double precision[]))
              AS t(kind, name, shard, value)
    ORDER BY t.kind, t.name
    ON CONFLICT (kind, name, shard) DO UPDATE SET value = tallies.value + excluded.value)
SELECT (SELECT pending FROM backlog), (SELECT jobs FROM backlog),
       (SELECT array_agg(id ORDER BY index) FROM stored), (SELECT work FROM backlog),
       (SELECT array_agg(id ORDER BY first) FROM chunked)
""")


def _insert_job():
    """SQLite: the job's row, returning the owner's other unfinished jobs (their pending puzzles,
    their number and what they are charged: predicted seconds left, measured past predictions), a
    round trip fewer than asking first. The new
    row is left out by id (SQLite's WITH sees it)."""
    theirs = (_jobs.c.owner == bindparam("backlog_owner"), _jobs.c.status.in_(UNFINISHED),
              _jobs.c.id != bindparam("new_job"))
    backlog = select(func.coalesce(func.sum(_jobs.c.pending), 0).label("pending"),
                     func.count().label("jobs"),
                     (func.coalesce(func.sum(SECONDS_LEFT), 0.0)
                      + overrun(bindparam("backlog_owner"))).label("work"),
                     ).where(*theirs).cte("backlog")
    return insert(_jobs).add_cte(backlog).returning(select(backlog.c.pending).scalar_subquery(),
                                                    select(backlog.c.jobs).scalar_subquery(),
                                                    select(backlog.c.work).scalar_subquery())


INSERT_JOB = _insert_job()
INSERT_PUZZLES_ON_SQLITE = text("""
INSERT INTO puzzles (job_id, "index", kind, input, options, status, attempts, created_at,
                     parts_total, parts_done, stop_requested, estimated_seconds, estimate_factor,
                     estimate_basis, signature)
SELECT :id, p.value ->> 0, p.value ->> 1, p.value -> 2, p.value -> 3, :status, 0, :created_at, 0, 0, 0,
       p.value ->> 4, p.value ->> 5, p.value ->> 6, p.value ->> 7
FROM json_each(:puzzles) AS p
""").bindparams(bindparam("created_at", type_=_puzzles.c.created_at.type))
INSERT_CHUNKS_ON_SQLITE = text("""
INSERT INTO chunks (job_id, first, size, kind, options, inputs, estimates, estimated_seconds, status,
                    attempts, created_at)
SELECT :id, c.value ->> 0, c.value ->> 1, c.value ->> 2, c.value -> 3, c.value ->> 4, c.value ->> 5,
       c.value ->> 6, :status, 0, :created_at
FROM json_each(:chunks) AS c
""").bindparams(bindparam("created_at", type_=_puzzles.c.created_at.type))
CHUNK_IDS = text("SELECT id FROM chunks WHERE job_id = :job_id ORDER BY first")
PUZZLE_IDS = select(_puzzles.c.id).where(_puzzles.c.job_id == bindparam("job_id")).order_by(_puzzles.c.index)
