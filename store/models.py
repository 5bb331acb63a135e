"""Storage: jobs, their puzzles (one row per batch item) and the subtasks a split puzzle fans out to.

Status lives in SQL, never only in the broker: every transition is a conditional
UPDATE on the current status, so a redelivered task cannot write twice.

Terms (pending, attempts, attempt cap, deadline, worker name, tallies, block): docs/glossary.md.
A row's ``deadline`` is what the reaper's partial index covers; a row queued at submit has none,
its ``created_at`` dates the publication. The tables about the service's own running (workers,
the reaper's turn, tallies, deliveries) are in store.bookkeeping.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    bindparam,
    select,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

# Puzzle and job states of API.md.
QUEUED, RUNNING = "queued", "running"
SOLVED, NO_SOLUTION, FAILED, CANCELLED = "solved", "no_solution", "failed", "cancelled"
COMPLETED = "completed"
UNFINISHED = (QUEUED, RUNNING)
# The rows queued or running in the dear lane, as the partial indexes and the ETA's sums (store.ahead)
# both spell it: literal values, so that PostgreSQL's plans for any parameters can use the indexes.
DEAR_LIVE = text("dear_at IS NOT NULL AND status IN ('queued', 'running')")
# The unfinished puzzles with CPU seconds measured (store.costs: what a client is charged).
MEASURED = text("cpu_seconds IS NOT NULL AND status IN ('queued', 'running')")
# The puzzles measured whose options their kind does not model (store.pricing): a signed row enters
# the index when first measured, so neither a submit's insert nor the queued rows touch it.
SIGNED = text("signature IS NOT NULL AND cpu_seconds IS NOT NULL")
FINAL = (SOLVED, NO_SOLUTION, FAILED, CANCELLED)
PUZZLE_STATUSES = UNFINISHED + FINAL
JOB_STATUSES = (QUEUED, RUNNING, COMPLETED, CANCELLED)

# BIGINT on PostgreSQL, but INTEGER on SQLite, where only INTEGER PRIMARY KEY autoincrements.
RowId = BigInteger().with_variant(Integer(), "sqlite")


def now() -> datetime:
    return datetime.now(UTC)


def aware(t: datetime) -> datetime:
    """A stored time with its zone: SQLite gives back naive datetimes (everything stored is UTC)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def iso_time(value: datetime | None) -> str | None:
    """A stored time as the API writes it: ISO 8601 in UTC, ``Z`` for the zone."""
    if value is None:
        return None
    return aware(value).astimezone(UTC).isoformat().replace("+00:00", "Z")


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: DateTime(timezone=True),
                                                      dict[str, Any]: JSON(), Any: JSON()}


class Job(Base):
    __tablename__ = "jobs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64), default="")
    label: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=QUEUED)
    total: Mapped[int] = mapped_column(Integer)
    pending: Mapped[int] = mapped_column(Integer)
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    request_hash: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=now)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    # Where the job's summary is POSTed when it ends (store.deliveries); None: nowhere.
    callback_url: Mapped[str | None] = mapped_column(Text)
    estimated_seconds: Mapped[float | None] = mapped_column(Float)  # predicted, of its puzzles (store.costs)
    estimated_high: Mapped[float | None] = mapped_column(Float)  # their predictions' high ends
    done_seconds: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")  # its finished ones'

    __table_args__ = (
        # Listing a client's jobs newest first, optionally by status.
        Index("ix_jobs_owner_created", "owner", "created_at"),
        Index("ix_jobs_owner_status_created", "owner", "status", "created_at"),
        Index("uq_jobs_owner_idempotency_key", "owner", "idempotency_key", unique=True),
        # The reaper starts from the unfinished jobs.
        Index("ix_jobs_status", "status"),
        # The retention purge takes the jobs finished longest ago (store.retention).
        Index("ix_jobs_finished_at", "finished_at"),
        # The callback sweep takes the jobs with a callback that ended lately (store.deliveries).
        Index("ix_jobs_callback_finished", "finished_at", postgresql_where=text("callback_url IS NOT NULL"),
              sqlite_where=text("callback_url IS NOT NULL")),
    )


class Claimed:
    """The columns of a row a task claims (puzzles, subtasks, chunks): its status, the claims so
    far, the worker holding it, its times, and its lease or publication deadline (the reaper's)."""

    status: Mapped[str] = mapped_column(String(16), default=QUEUED)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=now)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    deadline: Mapped[datetime | None]


class Puzzle(Claimed, Base):
    __tablename__ = "puzzles"

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    # No foreign key: a job's rows go in with the job, by one statement (store.submit), and out
    # with it (store.job_ends.delete_jobs); a key checks each row inserted, a large share of the
    # insert's time.
    job_id: Mapped[str] = mapped_column(String(32))
    index: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    input: Mapped[Any]
    options: Mapped[dict[str, Any]]
    # A finished puzzle's result and stats are in its block (store.blocks); rows of revision 0004 here.
    result: Mapped[dict[str, Any] | None]
    stats: Mapped[dict[str, Any] | None]
    block_id: Mapped[int | None] = mapped_column(RowId)
    error: Mapped[str | None] = mapped_column(Text)
    # The attempt number when the puzzle was last retried (store.retry): the cap counts
    # the claims past it.
    attempts_base: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    solve_ms: Mapped[float | None] = mapped_column(Float)  # the solve's wall time, for /metrics' histogram
    # Subtasks done out of total; a flag running subtasks poll (cancel, or enough solutions found).
    parts_total: Mapped[int] = mapped_column(Integer, default=0)
    parts_done: Mapped[int] = mapped_column(Integer, default=0)
    stop_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    # While a split puzzle runs: what cutting it up found (solutions above the cut, nodes), the
    # outcome its parts are merged with. Internal: the API never shows it.
    split_head: Mapped[dict[str, Any] | None]
    estimated_seconds: Mapped[float | None] = mapped_column(Float)  # predicted when accepted (store.costs)
    estimate_factor: Mapped[float | None] = mapped_column(Float)
    estimate_basis: Mapped[str | None] = mapped_column(String(32))
    progress: Mapped[float | None] = mapped_column(Float)  # share of its search done, while it runs (claim)
    # Its place in the dear lane (store.publish.place_in_dear_lane): the broker level and the time it
    # was last published there; None while it never was. The ETA counts the work ahead (store.ahead).
    dear_level: Mapped[int | None] = mapped_column(Integer)
    dear_at: Mapped[datetime | None]
    # The CPU seconds measured of its solves: every attempt and part, a retry's too (store.costs).
    cpu_seconds: Mapped[float | None] = mapped_column(Float)
    # Its kind and options' signature where its kind does not model them (store.pricing), else None.
    signature: Mapped[str | None] = mapped_column(String(64))

    # Every puzzle row a worker solves is updated at least twice, claimed and written; both change
    # ``deadline``, which the deadlines' partial index covers, so neither is a "HOT" update (made in
    # place without touching any index). An update that changes no indexed column (a solver's
    # ``progress``) is one when the row's page has room for its new copy: pages keep free room
    # (fillfactor 40). Pages and counts go through (job_id, index), the reaper through the deadlines.
    __table_args__ = (
        Index("uq_puzzles_job_index", "job_id", "index", unique=True),
        Index("ix_puzzles_deadline", "deadline", postgresql_where=text("deadline IS NOT NULL"),
              sqlite_where=text("deadline IS NOT NULL")),
        # The dear lane's live rows, which the ETA sums (store.ahead): few, whatever the history.
        Index("ix_puzzles_dear", "dear_level", "dear_at", postgresql_where=DEAR_LIVE, sqlite_where=DEAR_LIVE),
        # The unfinished rows measured, which a client's charge sums (store.costs): few, whatever the history.
        Index("ix_puzzles_measured", "job_id", postgresql_where=MEASURED, sqlite_where=MEASURED),
        # The measured rows of options their kind does not model, newest first, which pricing reads.
        Index("ix_puzzles_signature", "signature", "id", postgresql_where=SIGNED, sqlite_where=SIGNED),
        # SQLite would give a deleted job's last ids to the next job (a late task could find its rows).
        {"postgresql_with": {"fillfactor": 40}, "sqlite_autoincrement": True},
    )


class Chunk(Claimed, Base):
    """A run of a job's cheap puzzles stored, claimed and written as one row (store.chunks).

    Its puzzles (``entries``: indexes ``first`` to ``first + size - 1``) have no rows of their own
    while they are in it: their inputs are one JSON text, their predictions another, their options
    shared. The chunk is claimed as a puzzle is (status, attempts, worker, deadline) and written
    once: its block holds the entries' answers in order, ``outcome`` a letter per entry for its
    final status (``store.chunks.LETTERS``). An entry that cannot stay (dear after all, split,
    retried, or its chunk's worker lost) ``leaves``: it gets a puzzle row, which then stands for
    it, and the letter ``l``."""

    __tablename__ = "chunks"

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    first: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]]
    inputs: Mapped[str] = mapped_column(Text)  # JSON text: the entries' wire puzzles, in order
    estimates: Mapped[str] = mapped_column(Text)  # JSON text: each entry's [seconds, factor, basis]
    estimated_seconds: Mapped[float] = mapped_column(Float)  # their sum
    block_id: Mapped[int | None] = mapped_column(RowId)
    outcome: Mapped[str | None] = mapped_column(Text)  # a letter per entry once written (or cancelled)
    errors: Mapped[dict[str, str] | None] = mapped_column(JSON)  # failed entries' errors, by offset
    solve_ms: Mapped[float | None] = mapped_column(Float)  # each entry's share of the chunk's solve

    __table_args__ = (
        Index("uq_chunks_job_first", "job_id", "first", unique=True),
        Index("ix_chunks_deadline", "deadline", postgresql_where=text("deadline IS NOT NULL"),
              sqlite_where=text("deadline IS NOT NULL")),
        {"sqlite_autoincrement": True},
    )


class JobEvent(Base):
    """An event of a job its rows do not keep (store.events): of a puzzle or run of indexes
    (``first`` to ``last``; a subtask's ``part``), or of the job itself (``first`` None)."""

    __tablename__ = "job_events"

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    at: Mapped[datetime]
    type: Mapped[str] = mapped_column(String(16))
    first: Mapped[int | None] = mapped_column(Integer)
    last: Mapped[int | None] = mapped_column(Integer)
    part: Mapped[int | None] = mapped_column(Integer)
    worker: Mapped[str | None] = mapped_column(String(200))
    attempt: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[dict[str, Any] | None]

    __table_args__ = (Index("ix_job_events_job_id", "job_id", "id"),)


class ResultBlock(Base):
    """The results and stats of puzzles of one job written in one transaction (store.blocks).

    No foreign key leads here from ``puzzles.block_id``: a block and its puzzles only ever go
    together, with their job, and a key would make every deleted block look for its puzzles."""

    __tablename__ = "result_blocks"

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    # JSON text: {"<puzzle id>": [result, stats], ...}
    outcomes: Mapped[str] = mapped_column(Text)


class Subtask(Claimed, Base):
    __tablename__ = "subtasks"

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    puzzle_id: Mapped[int] = mapped_column(ForeignKey("puzzles.id", ondelete="CASCADE"))
    index: Mapped[int] = mapped_column(Integer)
    payload: Mapped[dict[str, Any]]
    result: Mapped[dict[str, Any] | None]
    stats: Mapped[dict[str, Any] | None]
    error: Mapped[str | None] = mapped_column(Text)
    dear_level: Mapped[int | None] = mapped_column(Integer)  # as a puzzle's: its place in the dear lane
    dear_at: Mapped[datetime | None]

    __table_args__ = (
        Index("uq_subtasks_puzzle_index", "puzzle_id", "index", unique=True),
        Index("ix_subtasks_dear", "dear_level", "dear_at", postgresql_where=DEAR_LIVE,
              sqlite_where=DEAR_LIVE),
        # As puzzles: a retried split puzzle's new subtasks must not take its old ones' ids.
        {"postgresql_with": {"fillfactor": 70}, "sqlite_autoincrement": True},
    )


# Built once: every write takes it first, and building the statement costs more than running it.
_LOCK_JOB = select(Job.status).where(Job.id == bindparam("job_id")).with_for_update()


def lock_job(s: Session, job_id: str) -> str | None:
    """Lock a job's row for this transaction; returns its status (None: no such job).

    Lock order everywhere (API and workers): the job row, then its puzzles, then their
    subtasks; taking the job row first keeps two writers of one job from deadlocking."""
    return s.scalar(_LOCK_JOB, {"job_id": job_id})
