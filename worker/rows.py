"""The workers' changes to puzzle rows: claim, read, write results, fan out into subtasks, leases.

States (the API's, see docs/service.md for the diagrams)::

    puzzle   queued --claim--> running --write--> solved | no_solution | failed
             queued | running --cancel (API)--> cancelled
             running --fan_out--> running with parts_total > 0 --last part (worker.parts)--> final
    subtask  queued --claim--> running --record--> solved | no_solution | failed
             queued | running --skip (enough solutions)--> cancelled

Every change is a conditional UPDATE on the state the task saw, so a late, redelivered or
duplicated task changes nothing: a result lands only while its puzzle is ``running`` under the
attempt number of this task's claim, or (optimistic, see worker.chunk) still ``queued`` under
the attempt before it. A job's ``pending`` counter moves in the same transaction, by exactly the
rows written, and so do the tallies of /metrics (service.tallies). Lock order everywhere: the job
row (``lock_job``), then its puzzles, then subtasks.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Any, NamedTuple
from typing import cast as cast_type

from sqlalchemy import (
    ARRAY,
    BigInteger,
    BindParameter,
    Column,
    ColumnElement,
    Float,
    Integer,
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
    true,
    update,
)
from sqlalchemy.orm import InstrumentedAttribute, Session
from sqlalchemy.sql.dml import ReturningUpdate, Update
from sqlalchemy.sql.selectable import CTE

from service import blocks, fastjson, notices, tallies
from service.db import changed_rows, is_postgresql
from service.models import (
    COMPLETED,
    QUEUED,
    RUNNING,
    UNFINISHED,
    Job,
    Puzzle,
    ResultBlock,
    Subtask,
    lock_job,
    now,
)
from solvers.base import Split


@dataclass(slots=True)
class Assigned:
    """A puzzle this task is to solve: claimed (``running`` under ``attempts``), or on the
    optimistic path only read (``optimistic``: still ``queued`` under ``attempts - 1``)."""

    id: int
    job_id: str
    kind: str
    input: Any
    options: dict[str, Any]
    attempts: int
    optimistic: bool = False


@dataclass(slots=True)
class Result:
    """One finished puzzle on its way to SQL."""

    id: int
    job_id: str
    attempts: int
    status: str
    result: dict[str, Any] | None = None
    stats: dict[str, Any] | None = None
    error: str | None = None
    solve_ms: float | None = None
    # An optimistic result also records what a claim would have: who, and since when.
    optimistic: bool = False
    worker: str | None = None
    started_at: datetime | None = None


@dataclass
class SplitPuzzle:
    """A claimed puzzle cut into parts: stored as subtasks (``fan_out``) instead of written."""

    assigned: Assigned
    split: Split


def lease(config: dict[str, Any]) -> timedelta:
    """How long a claim holds without news: each flush renews it for the puzzles still to do,
    so the reaper takes over only from a worker that has gone silent (dead, or stuck in a
    kernel past the per-puzzle limit), however long its chunk."""
    return timedelta(seconds=config["PUZZLE_TIME_LIMIT"] + 2 * config["HARD_TIME_GRACE"])


def among(s: Session, col: InstrumentedAttribute[int] | Column[int], ids: Sequence[int],
          name: str = "ids", *, per_row: bool = False) -> ColumnElement[bool]:
    """``col IN ids``; on PostgreSQL as ``= ANY(array)``: one parameter instead of hundreds, and
    one SQL text whatever their number (an IN list is a new text per length, which psycopg
    converts anew: about 20 ms for a thousand ids). The array goes as its text (psycopg would
    build a list parameter element by element in Python: a millisecond per thousand ids, a
    chunk's read or write costs a few), unless ``per_row``: a test evaluated row by row (inside
    an OR, say) would parse that text again for every row. ``name``: the parameter's, for a
    second list in one statement."""
    if not is_postgresql(s):
        return col.in_(ids)
    if per_row:
        return col == any_(bindparam(name, list(map(int, ids)), type_=ARRAY(BigInteger)))
    return col == any_(cast(bindparam(name, _ids(s, ids), type_=Text), ARRAY(BigInteger)))


# The puzzles table itself, for the statements a chunk's thousand rows go through: the ORM's paths
# for a mapped class cost more than such a statement does in SQL.
_PUZZLES = cast_type(Table, Puzzle.__table__)
# A puzzle already fanned out belongs to its subtasks, even if its chunk comes back.
_CLAIMABLE = (_PUZZLES.c.status.in_(UNFINISHED), _PUZZLES.c.stop_requested.is_(False),
              _PUZZLES.c.parts_total == 0)
_ASSIGNED = (Puzzle.id, Puzzle.job_id, Puzzle.kind, Puzzle.input, Puzzle.options, Puzzle.attempts)
# The same, input and options as JSON text: decoded here, a batch's shared options once.
_AS_TEXT = (_PUZZLES.c.id, _PUZZLES.c.job_id, _PUZZLES.c.kind, cast(_PUZZLES.c.input, Text),
            cast(_PUZZLES.c.options, Text), _PUZZLES.c.attempts)


def claim(s: Session, ids: Sequence[int], worker: str, deadline: datetime) -> list[Assigned]:
    """Mark these puzzles running for this task (attempts + 1); returns what was claimed.
    Final or cancelled puzzles are left alone, so a late or repeated task claims nothing."""
    t = now()
    mine = among(s, Puzzle.id, ids)
    jobs_of = select(Puzzle.job_id).where(mine).scalar_subquery()
    s.execute(update(Job).where(Job.id.in_(jobs_of), Job.status == QUEUED)
              .values(status=RUNNING, started_at=t).execution_options(synchronize_session=False))
    # Locked first, for the tallies: the UPDATE changes exactly these rows and returns only their
    # new status, while a claim takes running puzzles too (those a lost task held).
    was = s.execute(select(Puzzle.id, Puzzle.kind, Puzzle.status).where(mine, *_CLAIMABLE)
                    .with_for_update()).all()
    if not was:
        return []
    rows = s.execute(
        update(Puzzle).where(among(s, Puzzle.id, [row.id for row in was]), *_CLAIMABLE)
        .values(status=RUNNING, attempts=Puzzle.attempts + 1, started_at=t, worker=worker, deadline=deadline)
        .returning(*_ASSIGNED).execution_options(synchronize_session=False))
    for row in was:
        tallies.moved(s, row.kind, row.status, RUNNING)
    return sorted((Assigned(*row) for row in rows), key=lambda a: a.id)


def read_unclaimed(s: Session, ids: Sequence[int]) -> list[Assigned] | None:
    """The optimistic path: the chunk's unfinished puzzles, each counted as its first attempt
    without a claim, if all of them are queued and never tried; None otherwise (claim them)."""
    rows = s.execute(_built(s).read, {"ids": _ids(s, ids)}).all()
    if not rows:
        return []
    # By column: a chunk's thousand rows cost less to check and decode that way than row by row.
    puzzle_ids, job_ids, kinds, wires, texts, attempts, statuses = zip(*rows, strict=True)
    if any(attempts) or set(statuses) != {QUEUED}:
        return None
    inputs = fastjson.loads("[" + ",".join(wires) + "]")  # one decoder call for the whole chunk
    options = functools.cache(fastjson.loads)  # by text: a batch's puzzles mostly share theirs
    return [Assigned(i, job_id, kind, wire, options(text), 1, True)
            for i, job_id, kind, wire, text in zip(puzzle_ids, job_ids, kinds, inputs, texts, strict=True)]


def _held_as(a: Assigned | Result) -> tuple[str, int]:
    """The status and attempt number a row has while this task holds it: claimed under its attempt
    number, or (optimistic) still queued under the attempt before it."""
    return (QUEUED, a.attempts - 1) if a.optimistic else (RUNNING, a.attempts)


def _was(a: Assigned | Result) -> str:
    """The status a row has while this task holds it."""
    return _held_as(a)[0]


def still_mine(a: Assigned | Result) -> ColumnElement[bool]:
    """The row is as this task left it (``_held_as``)."""
    status, attempts = _held_as(a)
    return (Puzzle.status == status) & (Puzzle.attempts == attempts)


def extend(s: Session, held: Sequence[Assigned], deadline: datetime) -> None:
    """Renew the lease of claimed puzzles still to do."""
    if held:
        s.execute(update(Puzzle).where(Puzzle.id.in_([a.id for a in held]), Puzzle.status == RUNNING)
                  .values(deadline=deadline).execution_options(synchronize_session=False))


def release(s: Session, held: Sequence[Assigned]) -> None:
    """Give back puzzles this task claimed but never started, as if it had not claimed them."""
    for a in held:
        if changed_rows(s, update(Puzzle).where(Puzzle.id == a.id, still_mine(a))
                        .values(status=QUEUED, attempts=Puzzle.attempts - 1, worker=None)):
            tallies.moved(s, a.kind, _was(a), QUEUED)


def write(s: Session, results: Sequence[Result]) -> int:
    """Store results whose claim is still current; move each job's counter by what was written,
    and complete the job in the same statement when nothing is left."""
    if not results:
        return 0
    t = now()
    block_of, alive = _lock_and_store_answers(s, results)
    results = [r for r in results if r.job_id in alive]
    if not results:
        return 0
    per_job: Counter[str] = Counter()
    for r, landed in _store(s, results, block_of, t):
        for (job_id, kind), n in landed.items():  # a run's puzzles share one solve time
            per_job[job_id] += n
            tallies.moved(s, kind, _was(r), r.status, n)
            tallies.solved_in(s, kind, r.solve_ms, n)
    job_written = _built(s).job_written
    if job_written is not None:  # SQLite: the counters apart (on PostgreSQL, with the rows' UPDATE)
        for job_id, n in per_job.items():
            s.execute(job_written, {"job_id": job_id, "n": n, "t": t})
    return sum(per_job.values())


def _lock_and_store_answers(s: Session, results: Sequence[Result]) -> tuple[dict[int, int], set[str]]:
    """Lock the results' jobs, in order, and store the answers of the results that have one, a block
    per job (service.blocks); returns each such puzzle's block id, and the jobs still there (one
    deleted meanwhile, by DELETE or retention, has no rows left to write, nor room for a block).
    A job with answers is locked by the statement that stores them: a round trip fewer. A result
    whose row turns out not to be this task's any more leaves an entry no row points at, which
    no reader sees."""
    by_job: dict[str, list[Result]] = {}
    for r in results:
        by_job.setdefault(r.job_id, []).append(r)
    block_of: dict[int, int] = {}
    alive: set[str] = set()
    for job_id in sorted(by_job):
        answers = _answers(by_job[job_id])
        if not answers:
            if lock_job(s, job_id) is not None:
                alive.add(job_id)
            continue
        block_id = s.execute(_LOCK_AND_BLOCK, {"job_id": job_id, "outcomes": blocks.encode(answers)}).scalar()
        if block_id is not None:
            alive.add(job_id)
            block_of.update(dict.fromkeys(answers, block_id))
    return block_of, alive


# The shape of a result's write: results alike in these are written by one UPDATE.
_SHAPE = attrgetter("status", "attempts", "optimistic", "error", "solve_ms", "worker", "started_at")


def _store(s: Session, results: Sequence[Result], block_of: dict[int, int],
           t: datetime) -> list[tuple[Result, Counter[tuple[str, str]]]]:
    """Write the rows still held by their task; returns, for each group of results written alike,
    one of them and how many rows of each (job, kind) it wrote.

    One UPDATE per group of results written alike (the same status, attempt, times, worker, block
    and error: a run of cheap puzzles is one or two groups), each naming its rows by id only.
    Values per row would cost more to send than the whole write (psycopg builds each array
    element in Python)."""
    groups: dict[tuple[Any, ...], list[Result]] = {}
    for r in results:
        groups.setdefault((_SHAPE(r), block_of.get(r.id)), []).append(r)
    built = _built(s)
    written: list[tuple[Result, Counter[tuple[str, str]]]] = []
    for (_, block_id), group in groups.items():
        landed = s.execute(built.store, {**_group(s, group), "block_id": block_id, "t": t})
        counts: Counter[tuple[str, str]] = Counter()
        for job_id, kind, n, *_notice in landed:
            counts[job_id, kind] += n
        written.append((group[0], counts))
    return written


def _group(s: Session, group: Sequence[Result]) -> dict[str, Any]:
    """The parameters of a group's UPDATE (``_rows_written``) but its block and time."""
    r = group[0]
    was, was_attempts = _held_as(r)  # the rows still this task's (``still_mine``)
    return {"ids": _ids(s, [g.id for g in group]), "was": was, "was_attempts": was_attempts,
            "status": r.status, "error": r.error, "solve_ms": r.solve_ms, "attempts": r.attempts,
            "worker": r.worker, "started_at": r.started_at}


def _answers(results: Sequence[Result]) -> dict[int, blocks.Answer]:
    """The answers of the results that have one, by puzzle id: a block's content."""
    return {r.id: (r.result, r.stats) for r in results if r.result is not None or r.stats is not None}


def write_at_once(s: Session, results: Sequence[Result]) -> int | None:
    """``write`` in one statement outside a transaction (``_at_once``), on PostgreSQL, for a chunk's
    last results: the job's lock, its block, the rows, the job's counter, its notice and the
    tallies in one round trip instead of five (BEGIN, lock and block, rows, tallies, COMMIT). None
    where one statement does not do: on SQLite, or for results of more than one job or written
    unalike (``_SHAPE``); ``write`` takes those. The session must be fresh: it commits as it goes."""
    at_once = _built(s).at_once
    if at_once is None or len({(r.job_id, _SHAPE(r)) for r in results}) != 1:
        return None
    r, answers = results[0], _answers(results)
    adds = tallies.per_result(_was(r), r.status, r.solve_ms)
    s.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
    landed = s.execute(at_once, {
        **_group(s, results), "job": r.job_id, "outcomes": blocks.encode(answers) if answers else None,
        "t": now(), "tally_names": list(adds), "tally_values": list(adds.values()), "shard": tallies.shard()})
    return sum(n for _job, _kind, n, _notice in landed)


# -- the statements of a chunk's read and write, built once: building one (a CTE, CASEs) and its
# cache key cost more CPU than running it (0.8 against 0.15 ms for the rows' UPDATE)


def _param(column: Column[Any], name: str | None = None) -> BindParameter[Any]:
    """A parameter typed as the column it is compared with or stored in."""
    return bindparam(name or column.name, type_=column.type)


class _Built(NamedTuple):
    read: Select[Any]  # the chunk's claimable rows, input and options as text (read_unclaimed)
    # one group's UPDATE (_store): (job, kind, rows changed), on SQLite row by row; on PostgreSQL
    # a fourth column, the notice it sent or None
    store: Select[Any] | ReturningUpdate[Any]
    # a job's counter moved by the rows written (``_job_values``), where ``store`` does not move it
    job_written: Update | None
    # PostgreSQL: ``store`` that also locks the job, stores its block and moves the tallies
    # (write_at_once)
    at_once: Select[Any] | None


@functools.cache
def _built_for(postgresql: bool) -> _Built:
    p = _PUZZLES
    if postgresql:  # one array parameter, sent as its text: psycopg builds a list element by element
        mine = p.c.id == any_(cast(bindparam("ids", type_=Text), ARRAY(BigInteger)))
    else:
        mine = p.c.id.in_(bindparam("ids", expanding=True))
    read = select(*_AS_TEXT, p.c.status).where(mine, *_CLAIMABLE).order_by(p.c.id)
    if not postgresql:  # SQLite has no UPDATE inside WITH: each row comes back, counted as 1
        j = _JOBS
        job_written = update(j).where(j.c.id == _param(j.c.id, "job_id")).values(
            _job_values(_param(j.c.pending, "n"), _param(p.c.finished_at, "t")))
        write = _rows_written(mine, _param(p.c.block_id))
        return _Built(read, write.returning(p.c.job_id, p.c.kind, literal(1)), job_written, None)
    store, _ = _counted_and_moved(_rows_written(mine, _param(p.c.block_id)))
    return _Built(read, store, None, _at_once(mine))


def _rows_written(mine: ColumnElement[bool], block_id: ColumnElement[Any],
                  *also: ColumnElement[bool]) -> Update:
    """The UPDATE of a group's rows still held by their task (``still_mine``, by parameters)."""
    p = _PUZZLES
    return (update(p).where(mine, p.c.status == _param(p.c.status, "was"),
                            p.c.attempts == _param(p.c.attempts, "was_attempts"), *also)
            .values(status=_param(p.c.status), block_id=block_id, error=_param(p.c.error),
                    solve_ms=_param(p.c.solve_ms), attempts=_param(p.c.attempts),
                    worker=func.coalesce(_param(p.c.worker), p.c.worker),
                    started_at=func.coalesce(_param(p.c.started_at), p.c.started_at),
                    finished_at=_param(p.c.finished_at, "t"), deadline=None, split_head=None))


def _counted_and_moved(write: Update) -> tuple[Select[Any], CTE]:
    """PostgreSQL counts the rows ``write`` changes itself (fetching a chunk's thousand rows costs
    more than the count), moves each job's counter by them, and sends the notice of a job that
    completes, all in the one statement: two round trips fewer than the counters and the notices
    apart. Returns the statement, (job, kind, rows, notice), and its count by (job, kind) (the CTE
    ``counted``)."""
    j, t = _JOBS, _param(_PUZZLES.c.finished_at, "t")
    changed = write.returning(_PUZZLES.c.job_id, _PUZZLES.c.kind).cte("changed")
    counted = (select(changed.c.job_id, changed.c.kind, func.count().label("n"))
               .group_by(changed.c.job_id, changed.c.kind).cte("counted"))
    per_job = (select(counted.c.job_id, func.sum(counted.c.n).label("n"))
               .group_by(counted.c.job_id).cte("per_job"))
    job = (update(j).where(j.c.id == per_job.c.job_id).values(_job_values(per_job.c.n, t))
           .returning(j.c.id, j.c.status).cte("job"))
    return (select(counted.c.job_id, counted.c.kind, counted.c.n,
                   notices.sent_if(job.c.status == COMPLETED, job.c.id))
            .join_from(counted, job, job.c.id == counted.c.job_id), counted)


def _at_once(mine: ColumnElement[bool]) -> Select[Any]:
    """One job's group of results in one statement (write_at_once): the job's row locked first
    (the lock order: the puzzles' UPDATE waits for it), its block stored (none when ``outcomes``
    is NULL), the rows written, counted and the job moved as in ``store``, and last, as the
    session's tallies at a commit, the totals: each kind's rows written times what one adds
    (``tally_names``, ``tally_values``: tallies.per_result)."""
    j, b = _JOBS, _BLOCKS
    locked = select(j.c.id).where(j.c.id == _param(j.c.id, "job")).with_for_update().cte("locked")
    outcomes = _param(b.c.outcomes)
    block = (insert(b).from_select(["job_id", "outcomes"],
                                   select(locked.c.id, outcomes).where(cast(outcomes, Text).is_not(None)))
             .returning(b.c.id).cte("block"))
    # The job's lock as a condition of the whole UPDATE, taken before its scan (a condition on
    # puzzles.job_id instead would lead the planner to the job's index, every puzzle of a big job)
    write = _rows_written(mine, select(block.c.id).scalar_subquery(), select(locked.c.id).exists())
    statement, counted = _counted_and_moved(write)
    names, values = bindparam("tally_names", type_=ARRAY(Text)), bindparam("tally_values", type_=ARRAY(Float))
    each = func.unnest(names, values).table_valued("name", "value").render_derived()
    shard = bindparam("shard", type_=Integer)
    added = (select(counted.c.kind, each.c.name, shard, each.c.value * counted.c.n)
             .select_from(counted.join(each, true())).order_by(counted.c.kind, each.c.name))
    return statement.add_cte(tallies.added_from(added).cte("tallied"))


def _built(s: Session) -> _Built:
    return _built_for(is_postgresql(s))


def _ids(s: Session, ids: Sequence[int]) -> str | list[int]:
    """The ``ids`` parameter of a built statement (see ``_built_for``)."""
    return "{" + ",".join(map(str, map(int, ids))) + "}" if is_postgresql(s) else list(ids)


_JOBS = cast_type(Table, Job.__table__)


def _job_values(n: ColumnElement[Any], t: ColumnElement[Any]) -> dict[str, ColumnElement[Any]]:
    """A job's counter moved by ``n`` rows written at ``t``; it completes when nothing is left, and
    optimistic results reach a job nobody has claimed a puzzle of: it starts here."""
    j = _JOBS
    finishing = (j.c.pending - n == 0) & j.c.status.in_(UNFINISHED)
    return {"pending": j.c.pending - n,
            "status": case((finishing, COMPLETED), (j.c.status == QUEUED, RUNNING), else_=j.c.status),
            "started_at": func.coalesce(j.c.started_at, t),
            "finished_at": case((finishing, t), else_=j.c.finished_at)}


_BLOCKS = cast_type(Table, ResultBlock.__table__)
# The job's block, inserted only if the job is there, whose row it locks (``lock_job``'s lock).
_LOCK_AND_BLOCK = insert(_BLOCKS).from_select(
    ["job_id", "outcomes"],
    select(Job.id, _param(_BLOCKS.c.outcomes)).where(Job.id == bindparam("job_id")).with_for_update(),
).returning(_BLOCKS.c.id)


def fan_out(s: Session, split_up: Sequence[SplitPuzzle], config: dict[str, Any], worker: str) -> list[int]:
    """Store each split puzzle's head and its parts as queued subtask rows, in batch order;
    returns the subtask ids to publish once this transaction commits. The puzzle keeps its
    claim (status, attempts) for the final write, but loses its deadline: from here on the
    reaper watches the subtasks, and re-publishing the puzzle would split it again."""
    t = now()
    ids: list[int] = []
    for a, split in ((sp.assigned, sp.split) for sp in split_up):
        lock_job(s, a.job_id)
        hit = changed_rows(s, update(Puzzle).where(Puzzle.id == a.id, still_mine(a), Puzzle.parts_total == 0)
                        .values(status=RUNNING, attempts=a.attempts, parts_total=len(split.parts),
                                parts_done=0, split_head=split.head.to_json(), deadline=None,
                                worker=func.coalesce(Puzzle.worker, worker),
                                started_at=func.coalesce(Puzzle.started_at, t)))
        if not hit:
            continue  # cancelled, or claimed again meanwhile: its parts would never be counted
        tallies.moved(s, a.kind, _was(a), RUNNING)
        s.execute(insert(Subtask), [
            {"puzzle_id": a.id, "index": i, "payload": part, "status": QUEUED, "attempts": 0, "created_at": t,
             "deadline": t + timedelta(seconds=config["QUEUED_STALE_SECONDS"])}
            for i, part in enumerate(split.parts)])
        ids += s.scalars(select(Subtask.id).where(Subtask.puzzle_id == a.id).order_by(Subtask.index))
    return ids
