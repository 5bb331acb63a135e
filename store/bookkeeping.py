"""The tables the service keeps about its own running, beside the jobs and their puzzles
(store.models): the live workers, the reaper's turn, the metrics' tallies, and callback deliveries
with their attempts.

Terms (worker name, heartbeat, silent, draining, reaper, tallies, delivery): docs/glossary.md.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from store.models import Base, RowId, now


class WorkerBeat(Base):
    """One row per live worker process, renewed by its heartbeat thread (worker.heartbeat). A row
    silent for WORKER_SILENT_SECONDS marks a lost worker: the reaper hands on its work at once."""

    __tablename__ = "workers"

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(default=now)
    beat_at: Mapped[datetime] = mapped_column(default=now)
    # The start of the oldest task the process runs, or the end of its last one, as of beat_at:
    # its claims made before this are held by no task (worker.heartbeat, "since").
    since: Mapped[datetime | None]
    # The broker queues (lanes) it takes tasks from, comma-separated; None until its first beat.
    queues: Mapped[str | None] = mapped_column(String(200))
    # When an operator asked its `celery worker` to drain (store.workers.drain); None: it takes work.
    draining_at: Mapped[datetime | None]
    # The kinds the warm-up processes on its host have still to prepare (worker.warmstatus), comma-
    # separated, as of beat_at; None: none.
    preparing: Mapped[str | None] = mapped_column(String(200))


class ReaperRun(Base):
    """One row: the reaper's last run and purge of old jobs, and the last puzzle id its sweep read (0:
    from the start). Worker processes take turns through it (worker.reaper, store.retention)."""

    __tablename__ = "reaper_runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ran_at: Mapped[datetime]
    purged_at: Mapped[datetime | None]
    swept_to: Mapped[int | None] = mapped_column(RowId)


class Tally(Base):
    """A running total for /metrics (store.tallies): ``name`` is a puzzle status (puzzles in it
    now; the final ones count every puzzle that ever reached them, deleted or not), a solve-time
    bucket (``le_0.005``, ``le_+Inf``: solves at most that many seconds, not cumulative),
    ``seconds`` (their sum), or ``jobs`` (jobs ever submitted, ``kind`` empty). Each total is the
    sum over its ``shard`` rows: a transaction moves the rows of one shard, picked at random, so
    concurrent writers seldom wait for each other's commit."""

    __tablename__ = "tallies"

    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    shard: Mapped[int] = mapped_column(Integer, primary_key=True)
    value: Mapped[float] = mapped_column(Float)


class Delivery(Base):
    """One ending of a job with a callback: its summary, frozen when the sweep found the job ended
    (``body``, the exact bytes signed), sent until accepted or given up (store.deliveries).
    ``state``: due (an attempt is owed at ``next_attempt_at``), delivered, or failed (given up)."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    # The job's finished_at: a retried job that ends again owes another delivery.
    ended_at: Mapped[datetime]
    url: Mapped[str] = mapped_column(Text)
    body: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None]
    last_status: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=now)
    delivered_at: Mapped[datetime | None]

    __table_args__ = (
        Index("uq_webhook_deliveries_job_end", "job_id", "ended_at", unique=True),
        Index("ix_webhook_deliveries_due", "state", "next_attempt_at"),
    )


class DeliveryAttempt(Base):
    """One attempt at a delivery: when, the HTTP status that came back or the error, how long."""

    __tablename__ = "webhook_attempts"

    id: Mapped[int] = mapped_column(RowId, primary_key=True, autoincrement=True)
    delivery_id: Mapped[int] = mapped_column(ForeignKey("webhook_deliveries.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime]
    status: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    ms: Mapped[float] = mapped_column(Float)

    __table_args__ = (Index("uq_webhook_attempts_delivery_number", "delivery_id", "number", unique=True),)
