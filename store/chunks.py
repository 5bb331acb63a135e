"""Chunks: runs of a job's cheap puzzles stored, claimed and written as one row each (models.Chunk).

Terms (chunk, entry, letter, leaves): docs/glossary.md. An entry's result and stats are element
``offset`` of its chunk's block; an entry that leaves gets a puzzle row with its index.

A store of 1,000 puzzles as one row instead of 1,000 rows is what makes a cheap chunk cheap: one
row inserted at submit, one claimed and one written by the worker (docs/architecture.md).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple
from typing import cast as cast_type

from sqlalchemy import (
    Boolean,
    Table,
    Text,
    and_,
    bindparam,
    cast,
    delete,
    false,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session, defer

from store import events, fastjson, notices, tallies
from store.db import Dialect, dialect_of
from store.fastjson import canonical
from store.lost import Lost, at_submit, orphaned, with_deadline
from store.models import (
    CANCELLED,
    COMPLETED,
    FAILED,
    FINAL,
    NO_SOLUTION,
    QUEUED,
    RUNNING,
    SOLVED,
    UNFINISHED,
    Chunk,
    Job,
    Puzzle,
    ResultBlock,
    lock_job,
    now,
)
from store.statements import job_values

WRITTEN = "written"  # a chunk's status once its task wrote it: each entry's is its letter
LEFT = "l"
LETTERS = {SOLVED: "s", NO_SOLUTION: "n", FAILED: "f", CANCELLED: "c"}
STATUS_OF = {letter: status for status, letter in LETTERS.items()}


@dataclass(frozen=True)
class Run:
    """Consecutive puzzles of a batch stored as one chunk: its first index and size."""

    first: int
    size: int


def runs_of(tasks: Sequence[tuple[int, int, bool]], kinds: Sequence[str],
            options: Sequence[Any]) -> list[Run]:
    """The chunks a batch's tasks make: each task of the cheap lane (``(first, size, dear)``)
    cut where the kind or the options change; a run of one stays a puzzle row."""
    runs: list[Run] = []
    for first, size, dear in tasks:
        if dear:
            continue
        start = first
        for i in range(first + 1, first + size + 1):
            if i == first + size or kinds[i] != kinds[start] or not _same(options[i], options[start]):
                if i - start > 1:
                    runs.append(Run(start, i - start))
                start = i
    return runs


def _same(a: Any, b: Any) -> bool:
    """Options equal as JSON text (so 2 and 2.0 stay apart); a bulk-checked batch shares one object."""
    return a is b or canonical(a) == canonical(b)


@dataclass(slots=True)
class Held:
    """A chunk this task claimed: its entries' inputs (decoded) and what its write checks."""

    id: int
    job_id: str
    first: int
    kind: str
    options: dict[str, Any]
    inputs: list[Any]
    estimates: list[list[Any]]
    attempts: int
    started_at: datetime

    @property
    def size(self) -> int:
        return len(self.inputs)


def outcome_text(statuses: Sequence[str | None]) -> str:
    """The letters of a written chunk's entries (None: it left)."""
    return "".join(LEFT if status is None else LETTERS[status] for status in statuses)


def entry_status(chunk_status: str, outcome: str | None, offset: int) -> str | None:
    """An entry's status (None: it left, its puzzle row stands for it)."""
    if outcome is None:
        return chunk_status
    letter = outcome[offset]
    return None if letter == LEFT else STATUS_OF[letter]


def claim(s: Session, chunk_id: int, worker: str, deadline: datetime,
          redelivered: bool = False) -> Held | None:
    """Mark the chunk running for this task (attempts + 1); None if it is not queued (a late or
    repeated task: running, written, cancelled or dissolved already), or, ``redelivered`` (its
    task's worker was lost, or its connection to the broker), not queued or running. The job
    starts with it. Its job's row is locked first (the lock order, ``lock_job``)."""
    t = now()
    params = {"chunk": chunk_id, "redelivered": redelivered, "by": worker, "lease": deadline, "t": t}
    row = _claim_postgresql(s, params) if dialect_of(s).writes_in_with else _claim_sqlite(s, params)
    if row is None:
        return None
    job_id, first, kind, options, inputs, estimates, attempts, size, was = row
    tallies.moved(s, kind, was, RUNNING, size)
    return Held(chunk_id, job_id, first, kind, options, fastjson.loads(inputs), fastjson.loads(estimates),
                attempts, t)


def _claim_postgresql(s: Session, params: dict[str, Any]) -> Sequence[Any] | None:
    """The job's row locked, then the chunk's, the chunk claimed and the job started, in one
    statement: (``Held``'s columns, the chunk's status before), or None."""
    return s.execute(_statements(dialect_of(s)).claim, params).one_or_none()


def _claim_sqlite(s: Session, params: dict[str, Any]) -> Sequence[Any] | None:
    """``_claim_postgresql``'s steps one statement each (SQLite locks the whole database)."""
    statements = _statements(dialect_of(s))
    was = s.scalar(statements.status, params)
    row = None if was is None else s.execute(statements.claim, params).one_or_none()
    if row is None:
        return None
    s.execute(statements.job_started, {**params, "job": row.job_id})
    return (*row, was)


@dataclass
class Written:
    """What a task makes of its chunk: each entry's status (None: it leaves) and answer text."""

    statuses: list[str | None]
    answers: list[str | None]
    errors: dict[int, str]
    solve_ms: float | None


def write(s: Session, held: Held, done: Written) -> tuple[int, list[int]]:
    """Write the chunk as this task holds it: its block, its letters, the job's counters and the
    tallies; each entry that leaves gets a queued puzzle row. Nothing if the chunk is no longer
    this task's (cancelled, or claimed again after its lease ran out). Returns the entries
    written and the ids of the puzzle rows made, to publish once committed."""
    t = now()
    final = Counter(status for status in done.statuses if status is not None)
    n = sum(final.values())
    written = any(answer is not None for answer in done.answers)
    params = {"job": held.job_id, "chunk": held.id, "attempt": held.attempts, "t": t,
              "outcomes": "[" + ",".join("null" if a is None else a for a in done.answers) + "]" if written
              else None,
              "letters": outcome_text(done.statuses), "share_ms": done.solve_ms,
              "failures": {str(k): v for k, v in done.errors.items()} or None, "n": n,
              "cost": sum(e[0] for e, status in zip(held.estimates, done.statuses, strict=True)
                          if status is not None)}
    if not (_write_postgresql(s, params) if dialect_of(s).writes_in_with else _write_sqlite(s, params)):
        return 0, []
    for final_status, count in final.items():
        tallies.moved(s, held.kind, RUNNING, final_status, count)
    tallies.solved_in(s, held.kind, done.solve_ms, n)
    leaving = [i for i, status in enumerate(done.statuses) if status is None]
    tallies.moved(s, held.kind, RUNNING, QUEUED, len(leaving))
    return n, _leave(s, held, leaving, t)


def _write_postgresql(s: Session, params: dict[str, Any]) -> bool:
    """The job locked, the block stored, the chunk written, the job moved and its notice sent if
    it completes, in one statement; False if the chunk is no longer this task's."""
    return s.execute(_statements(dialect_of(s)).write, params).one_or_none() is not None


def _write_sqlite(s: Session, params: dict[str, Any]) -> bool:
    """``_write_postgresql``'s steps one statement each (SQLite has no UPDATE inside WITH)."""
    if lock_job(s, params["job"]) is None:
        return False
    statements = _statements(dialect_of(s))
    block_id = None if params["outcomes"] is None else s.scalar(statements.block, params)
    if s.execute(statements.write, {**params, "block": block_id}).first() is None:
        if block_id is not None:  # inserted before the chunk could tell it is no longer this task's
            s.execute(delete(ResultBlock).where(ResultBlock.id == block_id))
        return False
    if s.scalar(statements.job_written, params) == COMPLETED:
        notices.notify(s, [params["job"]])  # its waiters answer at the commit
    return True


def dissolve(s: Session, held: Held) -> list[int]:
    """Every entry of a chunk that came back after its worker was lost leaves for a puzzle row, to
    be published one a task: one of them may be what killed the worker, and only that one should
    use up its attempts. Returns the rows' ids."""
    return write(s, held, Written([None] * held.size, [None] * held.size, {}, None))[1]


def _leave(s: Session, held: Held, offsets: Sequence[int], t: datetime) -> list[int]:
    if not offsets:
        return []
    s.execute(insert(Puzzle), [{**_row_of(held, i, held.inputs[i], held.estimates[i]), "status": QUEUED,
                                "attempts": 0, "created_at": t} for i in offsets])
    events.left(s, t, held.job_id, held.first, offsets, "lost" if held.attempts > 1 else "solved_alone")
    return list(s.scalars(select(Puzzle.id).where(Puzzle.job_id == held.job_id,
                                                  Puzzle.index.in_([held.first + i for i in offsets]))
                          .order_by(Puzzle.index)))


def _row_of(chunk: Held | Chunk, i: int, wire: Any, estimate: Sequence[Any]) -> dict[str, Any]:
    """The puzzle row of entry ``i`` as it leaves its chunk, but for its state (status, attempts,
    times): what the entry keeps of its chunk."""
    return {"job_id": chunk.job_id, "index": chunk.first + i, "kind": chunk.kind, "input": wire,
            "options": chunk.options, "parts_total": 0, "parts_done": 0, "stop_requested": False,
            "estimated_seconds": estimate[0], "estimate_factor": estimate[1], "estimate_basis": estimate[2]}


class _Statements(NamedTuple):
    """A chunk's claim and write, built once per kind of database (store.statements says why)."""

    claim: Any  # the chunk marked running, returning what ``Held`` holds (PostgreSQL: and its
    # status before, its job locked first and started)
    status: Any  # SQLite: the chunk's status if claimable
    job_started: Any  # SQLite: the job of a claimed chunk running
    block: Any  # SQLite: the chunk's block (PostgreSQL: inside ``write``)
    write: Any  # the chunk written if still this task's (SQLite: its block id set by the caller)
    job_written: Any  # SQLite: the job moved, returning its status (PostgreSQL: inside ``write``)


@functools.cache
def _statements(dialect: Dialect) -> _Statements:
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
        return _Statements(
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
    return _Statements(claim=claim, status=None, job_started=None, block=None, write=write, job_written=None)


# An entry's id as readers key it (store.blocks): negative, so that no puzzle row's id is one.
_ENTRY_IDS = 1 << 20


def entries(s: Session, job_id: str, start: int = 0, statuses: Sequence[str] | None = None,
            limit: int | None = None, index: int | None = None) -> list[Puzzle]:
    """The job's entries from index ``start`` on (or the one at ``index``), those in ``statuses``
    if given, at most ``limit``, in index order, as puzzle objects that are never stored: their
    ``offset`` in their chunk names their answer in its block (store.blocks)."""
    # The inputs and predictions (most of a chunk's row) are read only of the chunks that
    # give entries to the page, not of every chunk after ``start``.
    q = (select(Chunk).where(Chunk.job_id == job_id, Chunk.first + Chunk.size > start)
         .options(defer(Chunk.inputs), defer(Chunk.estimates)))
    if index is not None:
        q = q.where(Chunk.first <= index, Chunk.first + Chunk.size > index)
    out: list[Puzzle] = []
    for chunk in s.scalars(q.order_by(Chunk.first)):
        offsets = range(max(0, start - chunk.first), chunk.size) if index is None else [index - chunk.first]
        wanted = [(i, status) for i in offsets
                  if (status := entry_status(chunk.status, chunk.outcome, i)) is not None
                  and (not statuses or status in statuses)]
        if limit is not None:
            wanted = wanted[:limit - len(out)]
        if not wanted:
            continue
        inputs, estimates = fastjson.loads(chunk.inputs), fastjson.loads(chunk.estimates)
        out += [_entry(chunk, i, status, inputs[i], estimates[i]) for i, status in wanted]
        if limit is not None and len(out) >= limit:
            return out
    return out


def _entry(chunk: Chunk, i: int, status: str, wire: Any, estimate: list[Any]) -> Puzzle:
    entry = Puzzle(id=-(chunk.id * _ENTRY_IDS + i + 1), job_id=chunk.job_id, index=chunk.first + i,
                   kind=chunk.kind, input=wire, options=chunk.options, status=status,
                   error=(chunk.errors or {}).get(str(i)), attempts=chunk.attempts,
                   started_at=None if status == QUEUED else chunk.started_at,
                   finished_at=chunk.finished_at if status in FINAL else None,
                   block_id=chunk.block_id if status in FINAL else None, result=None, stats=None,
                   solve_ms=chunk.solve_ms, parts_total=0, parts_done=0, progress=None,
                   estimated_seconds=estimate[0], estimate_factor=estimate[1], estimate_basis=estimate[2])
    entry.offset = i  # type: ignore[attr-defined]  # read by store.blocks.answers
    return entry


def counts(s: Session, job_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    """The entries of these jobs' chunks counted by status (entries that left not counted)."""
    # an entry's letter counted as the text's length without it taken from its whole length
    letters = {status: func.sum(func.length(Chunk.outcome)
                                - func.length(func.replace(Chunk.outcome, letter, "")))
               for status, letter in LETTERS.items()}
    out: dict[str, dict[str, int]] = {job_id: {} for job_id in job_ids}
    unwritten = s.execute(select(Chunk.job_id, Chunk.status, func.sum(Chunk.size))
                          .where(Chunk.job_id.in_(job_ids), Chunk.status.in_(UNFINISHED))
                          .group_by(Chunk.job_id, Chunk.status))
    for job_id, status, n in unwritten:
        out[job_id][status] = int(n)
    written = s.execute(select(Chunk.job_id, *letters.values()).where(Chunk.job_id.in_(job_ids),
                                                                      Chunk.outcome.is_not(None))
                        .group_by(Chunk.job_id))
    for job_id, *ns in written:
        for status, n in zip(letters, ns, strict=True):
            if n:
                out[job_id][status] = out[job_id].get(status, 0) + int(n)
    return out


def cancel(s: Session, job_id: str, t: datetime) -> tuple[int, float]:
    """The job's queued and running chunks cancelled, every entry (a running chunk's task then
    writes nothing); returns the entries cancelled and their predicted seconds."""
    was = s.execute(select(Chunk.id, Chunk.kind, Chunk.status, Chunk.size, Chunk.estimated_seconds)
                    .where(Chunk.job_id == job_id, Chunk.status.in_(UNFINISHED)).with_for_update()).all()
    for chunk_id, kind, status, size, _cost in was:
        s.execute(update(Chunk).where(Chunk.id == chunk_id)
                  .values(status=CANCELLED, outcome=LETTERS[CANCELLED] * size, finished_at=t, deadline=None)
                  .execution_options(synchronize_session=False))
        tallies.moved(s, kind, status, CANCELLED, size)
    return sum(row.size for row in was), sum(row.estimated_seconds for row in was)


def lost(s: Session, t: datetime, lost: Lost, most: int) -> list[int]:
    """Chunks whose task was lost (store.lost: the conditions of every claimed row), locked, at most
    ``most``, oldest first."""
    unfinished = or_(with_deadline(Chunk, t, lost, Chunk.status == RUNNING), at_submit(Chunk, t, lost))
    return list(s.scalars(select(Chunk.id).where(Chunk.status.in_(UNFINISHED), unfinished).order_by(Chunk.id)
                          .limit(most).with_for_update(skip_locked=True)))


def requeue(s: Session, chunk_ids: Sequence[int], deadline: datetime) -> None:
    """Lost chunks queued again for a new task, with a new deadline; a running one keeps its attempt,
    so that its next claim dissolves it (``dissolve``)."""
    was = s.execute(select(Chunk.kind, Chunk.status, Chunk.size).where(Chunk.id.in_(chunk_ids))).all()
    for kind, status, size in was:
        tallies.moved(s, kind, status, QUEUED, size)
    s.execute(update(Chunk).where(Chunk.id.in_(chunk_ids))
              .values(status=QUEUED, deadline=deadline, worker=None)
              .execution_options(synchronize_session=False))


def leave_final(s: Session, job_id: str, letters: str, indexes: Sequence[int] | None) -> dict[int, str]:
    """The job's final entries whose letter is in ``letters`` (those at ``indexes`` only, if given)
    leave their chunks for puzzle rows in the same final state, for a retry to put back (store.retry).
    Returns the status of each entry at ``indexes`` that stays (its letter not among ``letters``)."""
    q = select(Chunk).where(Chunk.job_id == job_id)
    if indexes is not None:
        q = q.where(or_(*[and_(Chunk.first <= i, Chunk.first + Chunk.size > i) for i in indexes]) if indexes
                    else false())
    stays: dict[int, str] = {}
    wanted = None if indexes is None else set(indexes)
    for chunk in s.scalars(q.with_for_update()):
        offsets = range(chunk.size) if wanted is None else [i - chunk.first for i in wanted
                                                             if chunk.first <= i < chunk.first + chunk.size]
        if chunk.outcome is None:  # queued or running
            stays.update({chunk.first + i: chunk.status for i in offsets})
            continue
        outcome = list(chunk.outcome)
        leaving = [i for i in offsets if outcome[i] in letters]
        stays.update({chunk.first + i: STATUS_OF[outcome[i]] for i in offsets
                      if outcome[i] not in letters and outcome[i] != LEFT})
        if not leaving:
            continue
        inputs, estimates = fastjson.loads(chunk.inputs), fastjson.loads(chunk.estimates)
        s.execute(insert(Puzzle), [
            {**_row_of(chunk, i, inputs[i], estimates[i]), "status": STATUS_OF[outcome[i]],
             "attempts": chunk.attempts, "error": (chunk.errors or {}).get(str(i)),
             "created_at": chunk.created_at, "started_at": chunk.started_at, "finished_at": chunk.finished_at}
            for i in leaving])
        for i in leaving:
            outcome[i] = LEFT
        s.execute(update(Chunk).where(Chunk.id == chunk.id).values(outcome="".join(outcome))
                  .execution_options(synchronize_session=False))
    return stays


def by_worker(s: Session, jobs: Sequence[str], cutoff: datetime) -> list[tuple[str | None, str, int, int]]:
    """(worker, job, entries held, entries written since ``cutoff``) of these jobs' chunks; a running
    chunk claimed before its worker's oldest task began is held by no task (worker.heartbeat)."""
    rows = s.execute(select(Chunk.worker, Chunk.job_id, Chunk.status, Chunk.size, Chunk.outcome)
                     .where(Chunk.job_id.in_(jobs), Chunk.worker.is_not(None),
                            or_(and_(Chunk.status == RUNNING, ~orphaned(Chunk.worker, Chunk.started_at)),
                                and_(Chunk.status == WRITTEN, Chunk.finished_at >= cutoff))))
    return [(worker, job_id, size if status == RUNNING else 0, _written(outcome) if status == WRITTEN else 0)
            for worker, job_id, status, size, outcome in rows]


def finished_since(s: Session, jobs: Sequence[str], cutoff: datetime) -> int:
    """Entries of these jobs written or cancelled since ``cutoff``."""
    outcomes = s.scalars(select(Chunk.outcome).where(Chunk.job_id.in_(jobs), Chunk.outcome.is_not(None),
                                                     Chunk.finished_at >= cutoff))
    return sum(len(outcome) - outcome.count(LEFT) for outcome in outcomes if outcome)


def _written(outcome: str | None) -> int:
    """The entries a worker finished: written, neither left nor cancelled."""
    return 0 if outcome is None else len(outcome) - outcome.count(LEFT) - outcome.count(LETTERS[CANCELLED])
