"""A chunk's claim and write as SQL, built once per kind of database (store.statements says why):
one statement each on PostgreSQL, a step a statement on SQLite. Run by store.chunk_task.

Terms (chunk, claim, write): docs/glossary.md.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple
from typing import cast as cast_type

from sqlalchemy import Boolean, Table, Text, and_, bindparam, cast, insert, or_, select, update

from store import notices
from store.chunks import WRITTEN
from store.db import Dialect
from store.models import COMPLETED, QUEUED, RUNNING, Chunk, Job, ResultBlock
from store.statements import job_values


class Statements(NamedTuple):
    """A chunk's claim and write, built once per kind of database (store.statements says why)."""

    claim: Any  # the chunk marked running, returning what ``Held`` holds (PostgreSQL: and its
    # status before, its job locked first and started)
    status: Any  # SQLite: the chunk's status if claimable
    job_started: Any  # SQLite: the job of a claimed chunk running
    block: Any  # SQLite: the chunk's block (PostgreSQL: inside ``write``)
    write: Any  # the chunk written if still this task's (SQLite: its block id set by the caller)
    job_written: Any  # SQLite: the job moved, returning its status (PostgreSQL: inside ``write``)


@functools.cache
def for_dialect(dialect: Dialect) -> Statements:
    c, j = cast_type(Table, Chunk.__table__), cast_type(Table, Job.__table__)
    b = cast_type(Table, ResultBlock.__table__)
    t = bindparam("t", type_=c.c.started_at.type)
    redelivered = bindparam("redelivered", type_=Boolean)
    claimable = or_(c.c.status == QUEUED, and_(redelivered, c.c.status == RUNNING))
    taken = {"status": RUNNING, "attempts": c.c.attempts + 1, "started_at": t,
             "worker": bindparam("by", type_=c.c.worker.type),
             "deadline": bindparam("lease", type_=c.c.deadline.type)}
    held = (c.c.job_id, c.c.first, c.c.kind, c.c.options, c.c.inputs, c.c.estimates, c.c.attempts, c.c.size)
    job_started = (update(j).where(j.c.id == bindparam("job", type_=j.c.id.type), j.c.status == QUEUED)
                   .values(status=RUNNING, started_at=t))
    block = insert(b).values(job_id=bindparam("job"), outcomes=bindparam("outcomes"))
    mine = (c.c.id == bindparam("chunk", type_=c.c.id.type), c.c.status == RUNNING,
            c.c.attempts == bindparam("attempt", type_=c.c.attempts.type))
    written = {"status": WRITTEN, "outcome": bindparam("letters", type_=c.c.outcome.type),
               "errors": bindparam("failures", type_=c.c.errors.type), "finished_at": t, "deadline": None,
               "solve_ms": bindparam("share_ms", type_=c.c.solve_ms.type)}
    moved = job_values(bindparam("n", type_=j.c.pending.type), t,
                       bindparam("cost", type_=j.c.done_seconds.type))
    job = j.c.id == bindparam("job", type_=j.c.id.type)
    if not dialect.writes_in_with:
        this = (c.c.id == bindparam("chunk"), claimable)
        return Statements(
            claim=update(c).where(*this).values(taken).returning(*held),
            status=select(c.c.status).where(*this), job_started=job_started, block=block.returning(b.c.id),
            write=update(c).where(*mine).returning(c.c.id)
            .values({**written, "block_id": bindparam("block", type_=c.c.block_id.type)}),
            job_written=update(j).where(job).values(moved).returning(j.c.status))
    # PostgreSQL: the job's row locked first (the lock order), then the chunk's, in one statement each
    locked = (select(j.c.id).where(j.c.id == select(c.c.job_id).where(c.c.id == bindparam("chunk"))
                                   .scalar_subquery()).with_for_update().cte("locked"))
    was = (select(c.c.id, c.c.status).where(c.c.id == bindparam("chunk"), claimable,
                                            select(locked.c.id).exists()).with_for_update().cte("was"))
    claimed = (update(c).where(c.c.id == was.c.id).values(taken).returning(*held, was.c.status)
               .cte("claimed"))
    started = (update(j).where(j.c.id.in_(select(claimed.c.job_id)), j.c.status == QUEUED)
               .values(status=RUNNING, started_at=t).cte("started"))
    claim = select(*claimed.c).add_cte(started)
    job_locked = select(j.c.id).where(job).with_for_update().cte("job_locked")
    still_mine = select(c.c.id).where(*mine, select(job_locked.c.id).exists()).with_for_update().cte("mine")
    outcomes = cast(bindparam("outcomes", type_=Text), Text)
    stored = (insert(b).from_select(
        ["job_id", "outcomes"], select(bindparam("job", type_=j.c.id.type), outcomes)
        .where(select(still_mine.c.id).exists(), outcomes.is_not(None)))
        .returning(b.c.id).cte("block"))
    chunk = (update(c).where(c.c.id == still_mine.c.id)
             .values({**written, "block_id": select(stored.c.id).scalar_subquery()})
             .returning(c.c.id).cte("chunk"))
    job_moved_cte = (update(j).where(job, select(chunk.c.id).exists()).values(moved)
                     .returning(j.c.id, j.c.status).cte("job"))
    write = select(job_moved_cte.c.status, notices.sent_if(job_moved_cte.c.status == COMPLETED,
                                                           job_moved_cte.c.id))
    return Statements(claim=claim, status=None, job_started=None, block=None, write=write, job_written=None)
