"""The statements a chunk's thousand rows go through, built once per kind of database: building
one (a CTE, CASEs) and its cache key costs more CPU than running it. On PostgreSQL a list of ids
is one array parameter, sent as its text (``among``, ``ids_param``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple
from typing import cast as cast_type

from sqlalchemy import (
    ARRAY,
    BigInteger,
    BindParameter,
    Column,
    ColumnElement,
    Select,
    Table,
    Text,
    any_,
    bindparam,
    case,
    cast,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.orm import InstrumentedAttribute, Session
from sqlalchemy.sql.dml import ReturningUpdate, Update

from store import notices
from store.db import Dialect, dialect_of
from store.models import COMPLETED, RUNNING, UNFINISHED, Job, Puzzle, ResultBlock


def among(s: Session, col: InstrumentedAttribute[int] | Column[int], ids: Sequence[int],
          name: str = "ids", *, per_row: bool = False) -> ColumnElement[bool]:
    """``col IN ids``; on PostgreSQL as ``= ANY(array)``: one parameter instead of hundreds, and
    one SQL text whatever their number (an IN list is a new text per length, which psycopg
    converts anew). The array goes as its text (psycopg would build a list parameter element by
    element in Python), unless ``per_row``: a test evaluated row by row (inside an OR, say) would
    parse that text again for every row. ``name``: the parameter's, for a second list in one
    statement."""
    if not dialect_of(s).id_arrays:
        return col.in_(ids)
    if per_row:
        return col == any_(bindparam(name, list(map(int, ids)), type_=ARRAY(BigInteger)))
    return col == any_(cast(bindparam(name, ids_param(s, ids), type_=Text), ARRAY(BigInteger)))


# The puzzles table itself, for the statements a chunk's thousand rows go through: the ORM's paths
# for a mapped class cost more than such a statement does in SQL.
_PUZZLES = cast_type(Table, Puzzle.__table__)
# A puzzle already fanned out belongs to its subtasks, even if its chunk comes back.
CLAIMABLE = (_PUZZLES.c.status.in_(UNFINISHED), _PUZZLES.c.stop_requested.is_(False),
              _PUZZLES.c.parts_total == 0)
ASSIGNED = (Puzzle.id, Puzzle.job_id, Puzzle.kind, Puzzle.input, Puzzle.options, Puzzle.attempts,
            Puzzle.attempts_base, Puzzle.estimated_seconds)


def _param(column: Column[Any], name: str | None = None) -> BindParameter[Any]:
    """A parameter typed as the column it is compared with or stored in."""
    return bindparam(name or column.name, type_=column.type)


class _Built(NamedTuple):
    # One group of results written alike (store.results), rows still held by their task only.
    # PostgreSQL: the job locked, its block stored, the rows written, counted and the job moved, in
    # one statement: (job, kind, rows changed, notice sent or None, their predicted seconds). SQLite:
    # the rows alone, each coming back as (job, kind, 1, its predicted seconds).
    write: Select[Any] | ReturningUpdate[Any]
    # SQLite: a job's counters moved by the rows written (``job_values``)
    job_written: Update | None


@functools.cache
def _built_for(dialect: Dialect) -> _Built:
    p = _PUZZLES
    if dialect.id_arrays:  # one array parameter, sent as its text: psycopg builds a list element by element
        mine = p.c.id == any_(cast(bindparam("ids", type_=Text), ARRAY(BigInteger)))
    else:
        mine = p.c.id.in_(bindparam("ids", expanding=True))
    if dialect.writes_in_with:
        return _Built(_written_with_job(mine), None)
    # SQLite has no UPDATE inside WITH: the job's block and counter go apart
    j = _JOBS
    job_written = update(j).where(j.c.id == _param(j.c.id, "job_id")).values(
        job_values(_param(j.c.pending, "n"), _param(p.c.finished_at, "t"), _param(j.c.done_seconds, "cost")))
    write = _rows_written(mine, _param(p.c.block_id)).returning(p.c.job_id, p.c.kind, literal(1),
                                                                 _cost(p.c.estimated_seconds))
    return _Built(write, job_written)


def _rows_written(mine: ColumnElement[bool], block_id: ColumnElement[Any],
                  *also: ColumnElement[bool]) -> Update:
    """The UPDATE of a group's rows still held by their task (store.rows.still_mine: ``running``
    under the attempt number of its claim)."""
    p = _PUZZLES
    claimed = (p.c.status == RUNNING) & (p.c.attempts == _param(p.c.attempts, "attempt"))
    cpu = _param(p.c.cpu_seconds)  # this attempt's, added to the row's earlier ones (None: none measured)
    return (update(p).where(mine, claimed, *also)
            .values(status=_param(p.c.status), block_id=block_id, error=_param(p.c.error),
                    solve_ms=_param(p.c.solve_ms), finished_at=_param(p.c.finished_at, "t"),
                    cpu_seconds=func.coalesce(p.c.cpu_seconds + cpu, p.c.cpu_seconds, cpu),
                    deadline=None, split_head=None))


def _written_with_job(mine: ColumnElement[bool]) -> Select[Any]:
    """PostgreSQL's write of one job's group of results: the job's row locked first (the lock
    order: the puzzles' UPDATE waits for it), its block stored (none when ``outcomes`` is NULL),
    the rows written and counted (fetching a chunk's thousand rows costs more than the count), the
    job's counter moved by them and the notice of a job that completes sent, all in one round
    trip where they apart take four."""
    j, b = _JOBS, _BLOCKS
    locked = select(j.c.id).where(j.c.id == _param(j.c.id, "job")).with_for_update().cte("locked")
    outcomes = _param(b.c.outcomes)
    block = (insert(b).from_select(["job_id", "outcomes"],
                                   select(locked.c.id, outcomes).where(cast(outcomes, Text).is_not(None)))
             .returning(b.c.id).cte("block"))
    # The job's lock as a condition of the whole UPDATE, taken before its scan (a condition on
    # puzzles.job_id instead would lead the planner to the job's index, every puzzle of a big job)
    write = _rows_written(mine, select(block.c.id).scalar_subquery(), select(locked.c.id).exists())
    t = _param(_PUZZLES.c.finished_at, "t")
    changed = write.returning(_PUZZLES.c.job_id, _PUZZLES.c.kind,
                              _cost(_PUZZLES.c.estimated_seconds).label("cost")).cte("changed")
    counted = (select(changed.c.job_id, changed.c.kind, func.count().label("n"),
                      func.sum(changed.c.cost).label("cost"))
               .group_by(changed.c.job_id, changed.c.kind).cte("counted"))
    per_job = (select(counted.c.job_id, func.sum(counted.c.n).label("n"),
                      func.sum(counted.c.cost).label("cost"))
               .group_by(counted.c.job_id).cte("per_job"))
    job = (update(j).where(j.c.id == per_job.c.job_id).values(job_values(per_job.c.n, t, per_job.c.cost))
           .returning(j.c.id, j.c.status).cte("job"))
    return (select(counted.c.job_id, counted.c.kind, counted.c.n,
                   notices.sent_if(job.c.status == COMPLETED, job.c.id), counted.c.cost)
            .join_from(counted, job, job.c.id == counted.c.job_id))


def statements_for(s: Session) -> _Built:
    return _built_for(dialect_of(s))


def ids_param(s: Session, ids: Sequence[int]) -> str | list[int]:
    """The ``ids`` parameter of a built statement (see ``_built_for``)."""
    return "{" + ",".join(map(str, map(int, ids))) + "}" if dialect_of(s).id_arrays else list(ids)


_JOBS = cast_type(Table, Job.__table__)


def _cost(estimated: ColumnElement[Any]) -> ColumnElement[Any]:
    """A row's predicted seconds as the job's ``done_seconds`` counts them (none kept: nothing)."""
    return func.coalesce(estimated, 0.0)


def job_values(n: ColumnElement[Any], t: ColumnElement[Any],
               cost: ColumnElement[Any]) -> dict[str, ColumnElement[Any]]:
    """A job's counters moved by ``n`` puzzles written at ``t``, predicted at ``cost`` seconds in
    all; it completes when nothing is left (the claim of its rows or chunk started it)."""
    j = _JOBS
    finishing = (j.c.pending - n == 0) & j.c.status.in_(UNFINISHED)
    return {"pending": j.c.pending - n, "done_seconds": j.c.done_seconds + cost,
            "status": case((finishing, COMPLETED), else_=j.c.status),
            "finished_at": case((finishing, t), else_=j.c.finished_at)}


# PostgreSQL: a client's submits one at a time (store.submit): the advisory lock of the owner's
# name, held until the transaction ends. The first key keeps these apart from other advisory locks.
SUBMIT_LOCKS = 0x70717375  # "pqsu"
CLIENT_SUBMIT_LOCK = select(func.pg_advisory_xact_lock(literal(SUBMIT_LOCKS),
                                                       func.hashtext(bindparam("owner"))))

_BLOCKS = cast_type(Table, ResultBlock.__table__)
# The job's block, inserted only if the job is there, whose row it locks (``lock_job``'s lock).
LOCK_AND_BLOCK = insert(_BLOCKS).from_select(
    ["job_id", "outcomes"],
    select(Job.id, _param(_BLOCKS.c.outcomes)).where(Job.id == bindparam("job_id")).with_for_update(),
).returning(_BLOCKS.c.id)
