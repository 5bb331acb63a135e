"""What a task does, as plain functions over a session factory (so tests run it on SQLite).

A chunk task: claim its puzzles (status -> running, attempts + 1), solve each one
through the registry, verify every answer, and write results in bulk. A write
only lands for puzzles that are still ``running`` with the attempt number this task
claimed, so a redelivered or duplicated task never writes a second result, and
the job's ``pending`` counter moves by exactly the rows written.

Cheap chunks skip the claim (optimistic): a first delivery whose puzzles are all
queued and never tried reads them, solves them, and writes each result only if the
row is still ``queued`` with the attempt number it read, counting this run as the
attempt. Claiming would double what SQL does per puzzle for puzzles solved in
microseconds. The claim comes back wherever it matters: for a redelivered task (its
worker died: attempts must count, so a puzzle that kills workers hits the cap), for
puzzles already tried, and for the rest of a chunk once it meets a puzzle whose
estimated cost (``Kind.cost``) passes ``OPTIMISTIC_SECONDS`` or runs past
``FLUSH_SECONDS`` (so anything slow shows ``running`` and holds a lease). Such a dear
puzzle is also watched (``watching``): its solver's stop flag is raised at the time limit
or on a cancel, which reaches a compiled kernel where the limit's signal cannot.

A puzzle worth splitting (``parts_wanted``) is not written here: its head and one
subtask row per part are stored in one transaction, committed, and only then are the
parts published (``fan_out``); ``worker.splitting`` solves, counts and merges them.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy import (ARRAY, JSON, BigInteger, Boolean, DateTime, Float, Integer, String, Text, any_, bindparam,
                        case, column, func, insert, select, update)
from sqlalchemy.orm import Session, sessionmaker

import solvers
from service.models import COMPLETED, FAILED, QUEUED, RUNNING, UNFINISHED, Job, Puzzle, Subtask, now
from service.publish import Publisher, publish_safely
from solvers.base import Outcome, Split, StopFlag, stop_flag

# While a split puzzle runs, its stats column holds the head outcome under this key (the API
# shows stats only once a puzzle is final); the merge replaces it with the merged stats.
HEAD = "split_head"

log = logging.getLogger(__name__)

# Results are written at least this often, so progress shows and a killed worker loses little.
FLUSH_SECONDS = 0.5


class PuzzleTimeout(Exception):
    pass


@dataclass
class Claimed:
    id: int
    job_id: str
    kind: str
    input: Any
    options: dict[str, Any]
    attempts: int
    # Not claimed in SQL: the row is still queued under attempts - 1 (see the module doc).
    optimistic: bool = False


@dataclass
class Written:
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
class Fanned:
    """A claimed puzzle cut into parts: stored and published as subtasks instead of written."""

    claim: Claimed
    split: Split


@dataclass
class ChunkReport:
    written: int = 0
    skipped: int = 0
    republished: list[int] = field(default_factory=list)
    fanned: list[int] = field(default_factory=list)  # subtask ids published


def _expired(signum, frame):
    raise PuzzleTimeout


@contextmanager
def alarms_raise_timeout() -> Iterator[None]:
    """While a chunk runs, SIGALRM raises PuzzleTimeout: installed once per chunk, since
    installing a handler costs several times what arming the timer does."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _expired)
    try:
        yield
    finally:
        signal.signal(signal.SIGALRM, previous)


class time_limit:
    """``with time_limit(seconds):`` raises PuzzleTimeout in this thread after ``seconds``, when
    the interpreter next runs Python code (a compiled kernel is stopped only by the task's hard
    limit). Inside alarms_raise_timeout() it only arms the timer: about 1 µs a puzzle."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.active = threading.current_thread() is threading.main_thread()
        self.previous: Any = None

    def __enter__(self) -> None:
        if not self.active:
            return
        if signal.getsignal(signal.SIGALRM) is not _expired:
            self.previous = signal.signal(signal.SIGALRM, _expired)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc_info: object) -> None:
        if not self.active:
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        if self.previous is not None:
            signal.signal(signal.SIGALRM, self.previous)


# -- watching a long solve


@dataclass
class Watch:
    flag: StopFlag
    expired: bool = False  # raised because the solve ran past its time limit


@contextmanager
def watching(sessions: sessionmaker, puzzle_id: int, poll: float, limit: float) -> Iterator[Watch]:
    """A stop flag for one solve (a part, or a puzzle estimated dear), raised by a thread that
    looks every ``poll`` seconds whether the puzzle is still running and not stopped, and raises
    it anyway at the time limit: the limit's signal reaches Python only once a compiled kernel
    returns, the flag reaches the kernel itself, so the solve ends cleanly instead of the hard
    limit killing the process. The thread is stopped and joined on the way out."""
    watch = Watch(stop_flag())
    done = threading.Event()
    deadline = time.monotonic() + limit

    def run() -> None:
        while not done.wait(max(0.0, min(poll, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                watch.expired = True
                watch.flag[0] = 1
                return
            try:
                if not _still_needed(sessions, puzzle_id):
                    watch.flag[0] = 1
                    return
            except Exception:  # a failed poll only delays the stop: the next one may get through
                log.warning("could not poll puzzle %s for a stop", puzzle_id, exc_info=True)

    watcher = threading.Thread(target=run, name=f"stop-watch-{puzzle_id}", daemon=True)
    watcher.start()
    try:
        yield watch
    finally:
        done.set()
        watcher.join()


def _still_needed(sessions: sessionmaker, puzzle_id: int) -> bool:
    with sessions() as s:
        row = s.execute(select(Puzzle.status, Puzzle.stop_requested)
                        .where(Puzzle.id == puzzle_id)).one_or_none()
    return row is not None and row.status == RUNNING and not row.stop_requested


# -- claiming


def claim(s: Session, ids: Sequence[int], worker: str, deadline: datetime) -> list[Claimed]:
    """Mark these puzzles running for this task (attempts + 1); returns what was claimed.
    Final or cancelled puzzles are left alone, so a late or repeated task claims nothing."""
    t = now()
    mine = _among(s, Puzzle.id, ids)
    # Lock order everywhere: the job row, then its puzzles.
    jobs_of = select(Puzzle.job_id).where(mine).scalar_subquery()
    s.execute(update(Job).where(Job.id.in_(jobs_of), Job.status == QUEUED)
              .values(status=RUNNING, started_at=t).execution_options(synchronize_session=False))
    rows = s.execute(
        update(Puzzle)
        # A puzzle already fanned out belongs to its subtasks, even if its chunk comes back.
        .where(mine, Puzzle.status.in_(UNFINISHED), Puzzle.stop_requested.is_(False), Puzzle.parts_total == 0)
        .values(status=RUNNING, attempts=Puzzle.attempts + 1, started_at=t, worker=worker, deadline=deadline)
        .returning(Puzzle.id, Puzzle.job_id, Puzzle.kind, Puzzle.input, Puzzle.options, Puzzle.attempts)
        .execution_options(synchronize_session=False))
    return sorted((Claimed(*row) for row in rows), key=lambda c: c.id)


def load(s: Session, ids: Sequence[int]) -> list[Claimed]:
    """Read the unfinished puzzles of a chunk without claiming them (the optimistic path)."""
    rows = s.execute(select(Puzzle.id, Puzzle.job_id, Puzzle.kind, Puzzle.input, Puzzle.options, Puzzle.attempts,
                            Puzzle.status)
                     .where(_among(s, Puzzle.id, ids), Puzzle.status.in_(UNFINISHED),
                            Puzzle.stop_requested.is_(False), Puzzle.parts_total == 0)
                     .order_by(Puzzle.id))
    return [Claimed(*row[:6]) if row.status == QUEUED else None for row in rows]


def may_skip_claim(loaded: Sequence[Claimed | None], redelivered: bool) -> bool:
    """A first delivery of puzzles all queued and never tried; anything else is claimed."""
    return not redelivered and all(c is not None and c.attempts == 0 for c in loaded)


def still_mine(c: Claimed | Written):
    """The row is as this task left it: claimed under its attempt number, or (optimistic)
    still queued under the attempt before it."""
    if c.optimistic:
        return (Puzzle.status == QUEUED) & (Puzzle.attempts == c.attempts - 1)
    return (Puzzle.status == RUNNING) & (Puzzle.attempts == c.attempts)


def _among(s: Session, col, ids: Sequence[int]):
    """``col IN ids``; on PostgreSQL as ``= ANY(array)``, one parameter instead of hundreds."""
    if s.get_bind().dialect.name == "postgresql":
        return col == any_(bindparam("ids", list(ids), type_=ARRAY(BigInteger)))
    return col.in_(ids)


# -- solving

# parts_wanted answers
WHOLE = 0          # solve in one go
BUDGETED = None    # try whole within SPLIT_NODE_BUDGET nodes, split past it


def parts_wanted(kind: str, puzzle: Any, options: dict[str, Any], config: dict[str, Any]) -> int | None:
    """How a puzzle is solved: WHOLE, BUDGETED, or cut into that many parts right away.

    An explicit ``split`` option (Sudoku's) wins: 0 never splits. n-Queens work is known in
    advance (the board size, the probes), so it is split by size; Sudoku and spokes trees are
    not, so most puzzles finish inside the budget and only the hard ones are split.
    """
    asked = options.get("split")
    if asked is not None:
        return asked
    if kind == "nqueens":
        big = (options["mode"] == "count" and puzzle >= config["SPLIT_QUEENS_N"]
               or options["mode"] == "estimate" and options["probes"] >= config["SPLIT_PROBES"])
        return config["SPLIT_PARTS"] if big else WHOLE
    return BUDGETED if kind in ("sudoku", "spokes") else WHOLE


def solve_or_split(kind: solvers.Kind, puzzle: Any, options: dict[str, Any],
                   config: dict[str, Any] | None, stop: StopFlag | None = None) -> Outcome | Split:
    """The whole outcome, or a Split with parts to fan out. Without config nothing is split.
    The nodes of an abandoned budgeted try are not in the split's stats: they were thrown away."""
    wanted = WHOLE if config is None else parts_wanted(kind.name, puzzle, options, config)
    if wanted is BUDGETED:
        try:
            return kind.solve(puzzle, options, node_limit=config["SPLIT_NODE_BUDGET"], stop=stop)
        except solvers.BudgetExceeded:
            wanted = config["SPLIT_PARTS"]
    if wanted == WHOLE:
        return kind.solve(puzzle, options, stop=stop)
    split = kind.split(puzzle, options, wanted)
    return split if split.parts else split.head


Ready = tuple[solvers.Kind, Any, dict[str, Any]]


def prepare(c: Claimed) -> Ready:
    kind = solvers.get(c.kind)
    return kind, *kind.prepare(c.input, c.options)


def solve_one(c: Claimed, seconds: float, config: dict[str, Any] | None = None,
              ready: Ready | None = None, watch: Watch | None = None) -> Written | Fanned:
    """Solve and verify one claimed puzzle (or cut it into parts, see solve_or_split); every
    failure becomes a ``failed`` row with a reason. ``ready``: the puzzle already prepared;
    ``watch``: a stop flag raised at the time limit or when the puzzle is cancelled."""
    out = Written(c.id, c.job_id, c.attempts, FAILED, optimistic=c.optimistic)
    too_long = f"exceeded the time limit of {seconds:g} s per puzzle"
    start = time.perf_counter()
    try:
        kind, puzzle, options = ready or prepare(c)
        with time_limit(seconds):
            outcome = solve_or_split(kind, puzzle, options, config, watch and watch.flag)
        if isinstance(outcome, Split):
            return Fanned(c, outcome)
        kind.verify(puzzle, options, outcome)
    except (PuzzleTimeout, SoftTimeLimitExceeded):
        out.error = too_long
    except solvers.Stopped:  # the write will not land on a cancelled puzzle
        out.error = too_long if watch.expired else "stopped: the puzzle was cancelled while it ran"
    except solvers.WrongAnswer as exc:
        out.error = f"internal error: the solver's answer failed verification ({exc})"
    except solvers.PuzzleError as exc:
        out.error = f"invalid puzzle: {exc}"
    except Exception as exc:  # a solver bug must end this puzzle, not the whole chunk
        log.exception("solver error on puzzle %s", c.id)
        out.error = f"solver error: {type(exc).__name__}: {exc}"
    else:
        out.status, out.result, out.stats = outcome.status, outcome.result, outcome.stats
    out.solve_ms = round((time.perf_counter() - start) * 1000.0, 3)
    return out


# -- writing


def write(s: Session, results: Sequence[Written]) -> int:
    """Store results whose claim is still current; move each job's counter by what was written,
    and complete the job in the same statement when nothing is left."""
    if not results:
        return 0
    t = now()
    for job_id in sorted({w.job_id for w in results}):
        s.execute(select(Job.id).where(Job.id == job_id).with_for_update())
    per_job: dict[str, int] = {}
    for job_id in _store(s, results, t):
        per_job[job_id] = per_job.get(job_id, 0) + 1
    for job_id, n in per_job.items():
        finishing = (Job.pending - n == 0) & Job.status.in_(UNFINISHED)
        # Optimistic results reach a job nobody has claimed a puzzle of: it starts here.
        s.execute(update(Job).where(Job.id == job_id).values(
            pending=Job.pending - n,
            status=case((finishing, COMPLETED), (Job.status == QUEUED, RUNNING), else_=Job.status),
            started_at=func.coalesce(Job.started_at, t),
            finished_at=case((finishing, t), else_=Job.finished_at),
        ).execution_options(synchronize_session=False))
    return sum(per_job.values())


def _store(s: Session, results: Sequence[Written], t: datetime) -> list[str]:
    """Write the rows still running under the same claim; returns the job id of each row written.
    PostgreSQL: one UPDATE for the whole batch, the rows travelling as one JSON parameter
    (the statement text never changes, so it is compiled and planned once). SQLite is
    in-process: one UPDATE per row costs no round trip."""
    table = Puzzle.__table__
    if s.get_bind().dialect.name == "postgresql":
        rows = [{"pid": w.id, "att": w.attempts, "st": w.status, "res": w.result, "sts": w.stats,
                 "err": w.error, "ms": w.solve_ms, "opt": w.optimistic, "wk": w.worker,
                 "t0": w.started_at and w.started_at.isoformat()} for w in results]
        v = func.json_to_recordset(bindparam("rows", rows, type_=JSON)).table_valued(
            column("pid", BigInteger), column("att", Integer), column("st", String), column("res", JSON),
            column("sts", JSON), column("err", Text), column("ms", Float), column("opt", Boolean),
            column("wk", String), column("t0", DateTime(timezone=True)),
        ).render_derived("v", with_types=True)
        claimed = (table.c.status == RUNNING) & (table.c.attempts == v.c.att)
        unclaimed = (table.c.status == QUEUED) & (table.c.attempts == v.c.att - 1)
        return list(s.scalars(
            update(table).where(table.c.id == v.c.pid, case((v.c.opt, unclaimed), else_=claimed))
            .values(status=v.c.st, result=v.c.res, stats=v.c.sts, error=v.c.err, solve_ms=v.c.ms,
                    attempts=v.c.att, worker=func.coalesce(v.c.wk, table.c.worker),
                    started_at=func.coalesce(v.c.t0, table.c.started_at), finished_at=t, deadline=None)
            .returning(table.c.job_id)))
    written = []
    for w in results:
        hit = s.execute(update(Puzzle).where(Puzzle.id == w.id, still_mine(w))
                        .values(status=w.status, result=w.result, stats=w.stats, error=w.error,
                                solve_ms=w.solve_ms, attempts=w.attempts,
                                worker=func.coalesce(w.worker, Puzzle.worker),
                                started_at=func.coalesce(w.started_at, Puzzle.started_at),
                                finished_at=t, deadline=None)
                        .execution_options(synchronize_session=False)).rowcount
        if hit:
            written.append(w.job_id)
    return written


def fan_out(s: Session, fanned: Sequence[Fanned], config: dict[str, Any], worker: str) -> list[int]:
    """Store each split puzzle's head and its parts as queued subtask rows, in batch order;
    returns the subtask ids to publish once this transaction commits. The puzzle keeps its
    claim (status, attempts) for the final write, but loses its deadline: from here on the
    reaper watches the subtasks, and re-publishing the puzzle would split it again."""
    t = now()
    ids: list[int] = []
    for f in fanned:
        c = f.claim
        s.execute(select(Job.id).where(Job.id == c.job_id).with_for_update())
        hit = s.execute(update(Puzzle).where(Puzzle.id == c.id, still_mine(c), Puzzle.parts_total == 0)
                        .values(status=RUNNING, attempts=c.attempts, parts_total=len(f.split.parts), parts_done=0,
                                stats={HEAD: f.split.head.to_json()}, deadline=None,
                                worker=func.coalesce(Puzzle.worker, worker),
                                started_at=func.coalesce(Puzzle.started_at, t))
                        .execution_options(synchronize_session=False)).rowcount
        if not hit:
            continue  # cancelled, or claimed again meanwhile: its parts would never be counted
        s.execute(insert(Subtask), [
            {"puzzle_id": c.id, "index": i, "payload": part, "status": QUEUED, "attempts": 0, "created_at": t,
             "deadline": t + timedelta(seconds=config["QUEUED_STALE_SECONDS"])}
            for i, part in enumerate(f.split.parts)])
        ids += s.scalars(select(Subtask.id).where(Subtask.puzzle_id == c.id).order_by(Subtask.index))
    return ids


def lease(config: dict[str, Any]) -> timedelta:
    """How long a claim holds without news: each flush renews it for the puzzles still to do,
    so the reaper takes over only from a worker that has gone silent (dead, or stuck in a
    kernel past the per-puzzle limit), however long its chunk."""
    return timedelta(seconds=config["PUZZLE_TIME_LIMIT"] + 2 * config["HARD_TIME_GRACE"])


def extend(s: Session, claims: Sequence[Claimed], deadline: datetime) -> None:
    if claims:
        s.execute(update(Puzzle).where(Puzzle.id.in_([c.id for c in claims]), Puzzle.status == RUNNING)
                  .values(deadline=deadline).execution_options(synchronize_session=False))


def release(s: Session, claims: Sequence[Claimed]) -> None:
    """Give back puzzles this task claimed but never started, as if it had not claimed them."""
    for c in claims:
        s.execute(update(Puzzle).where(Puzzle.id == c.id, Puzzle.status == RUNNING,
                                       Puzzle.attempts == c.attempts)
                  .values(status=QUEUED, attempts=Puzzle.attempts - 1, worker=None)
                  .execution_options(synchronize_session=False))


# -- the chunk task


def run_chunk(sessions: sessionmaker, ids: Sequence[int], config: dict[str, Any], worker: str,
              publisher: Publisher, clock: Callable[[], float] = time.monotonic,
              redelivered: bool = False) -> ChunkReport:
    report = ChunkReport()
    with sessions() as s:
        loaded = load(s, ids)
    if may_skip_claim(loaded, redelivered):
        report.skipped = len(ids) - len(loaded)
        for c in loaded:
            c.attempts, c.optimistic = 1, True
        with alarms_raise_timeout():
            return _solve_claims(sessions, loaded, config, worker, publisher, report, clock)

    with sessions() as s, s.begin():
        claims = claim(s, ids, worker, now() + lease(config))
        if len(claims) > 1 and any(c.attempts > 1 for c in claims):
            # A chunk that comes back after its worker died with it claimed: one of its puzzles
            # may be what killed it, so each goes on alone and only the culprit uses up its
            # attempts. (A redelivered optimistic run left no attempt behind: this claim is the
            # first, and the chunk runs whole once more, now counted. The broker also redelivers
            # without a death, on a lost connection, so that case does not scatter the chunk.)
            release(s, claims)
            report.republished = [c.id for c in claims]
        else:
            over = [c for c in claims if c.attempts > config["MAX_ATTEMPTS"]]
            # This claim is one past the cap: the earlier ones all lost their worker.
            report.written += write(s, [_gave_up(c.id, c.job_id, c.attempts, c.attempts - 1, config)
                                        for c in over])
            claims = [c for c in claims if c.attempts <= config["MAX_ATTEMPTS"]]
    if report.republished:
        publish_safely(publisher, [[i] for i in report.republished])
        return report
    report.skipped = len(ids) - len(claims)

    with alarms_raise_timeout():
        return _solve_claims(sessions, claims, config, worker, publisher, report, clock)


def _solve_claims(sessions: sessionmaker, claims: list[Claimed], config: dict[str, Any], worker: str,
                  publisher: Publisher, report: ChunkReport, clock: Callable[[], float]) -> ChunkReport:
    seconds = config["PUZZLE_TIME_LIMIT"]
    started = now()
    done: list[Written] = []
    fanned: list[Fanned] = []

    def flush(rest: list[Claimed], give_back: bool = False) -> list[Claimed]:
        """Write what is done; returns the rest, from now on all claimed (or all given back)."""
        with sessions() as s, s.begin():
            report.written += write(s, done)
            parts = fan_out(s, fanned, config, worker)
            held = [c for c in rest if not c.optimistic]
            if give_back:
                release(s, held)
            else:
                extend(s, held, now() + lease(config))
                rest = _claim_optimistic(s, rest, worker, now() + lease(config))
        # Published only after the commit: a subtask task must find its row.
        if parts:
            publish_safely(publisher, [[i] for i in parts], parts=True)
        report.fanned += parts
        done.clear()
        fanned.clear()
        return rest

    last_flush = clock()
    position = 0
    while position < len(claims):
        c = claims[position]
        try:
            ready = _ready_or_none(c)
            dear = _dear(ready, config)
            if c.optimistic and (dear or clock() - last_flush >= FLUSH_SECONDS):
                claims[position:] = flush(claims[position:])  # anything slow shows running, with a lease
                last_flush = clock()
                continue
            # A puzzle estimated dear is watched: it stops at its time limit or on a cancel, even
            # inside a compiled kernel.
            with watching(sessions, c.id, config["STOP_POLL_SECONDS"], seconds) if dear else nullcontext() as watch:
                answer = solve_one(c, seconds, config, ready, watch)
        except SoftTimeLimitExceeded:  # arrived between solves: stop here and hand the rest on
            rest = claims[position:]
            flush(rest, give_back=True)
            report.republished = [c.id for c in rest]
            publish_safely(publisher, [[i] for i in report.republished])
            return report
        if c.optimistic and isinstance(answer, Written):
            answer.worker, answer.started_at = worker, started
        (fanned if isinstance(answer, Fanned) else done).append(answer)
        position += 1
        # Parts go out at once, so other workers start on them while this chunk goes on.
        if fanned or clock() - last_flush >= FLUSH_SECONDS:
            claims[position:] = flush(claims[position:])
            last_flush = clock()
    flush([])
    return report


def _ready_or_none(c: Claimed) -> Ready | None:
    """The prepared puzzle, or None when preparing fails (solve_one then reports why)."""
    try:
        return prepare(c)
    except Exception:
        return None


def _dear(ready: Ready | None, config: dict[str, Any]) -> bool:
    return ready is not None and ready[0].cost(ready[1], ready[2]) > config["OPTIMISTIC_SECONDS"]


def _claim_optimistic(s: Session, rest: list[Claimed], worker: str, deadline: datetime) -> list[Claimed]:
    """Claim the optimistic puzzles among ``rest`` (those still queued); claimed ones stay."""
    wanted = [c.id for c in rest if c.optimistic]
    if not wanted:
        return rest
    taken = {c.id: c for c in claim(s, wanted, worker, deadline)}
    return [taken[c.id] if c.optimistic else c for c in rest if not c.optimistic or c.id in taken]


def _gave_up(puzzle_id: int, job_id: str, attempts: int, tries: int, config: dict[str, Any]) -> Written:
    limit = config["PUZZLE_TIME_LIMIT"]
    return Written(puzzle_id, job_id, attempts, FAILED, error=(
        f"gave up after {tries} attempts: the worker was lost each time (it crashed or "
        f"ran past the hard time limit; the limit per puzzle is {limit:g} s)"))


# -- the reaper


def reap(sessions: sessionmaker, config: dict[str, Any], publisher: Publisher) -> list[int]:
    """Publish again the puzzles whose task was lost: past their deadline while queued or running.
    Running ones past the attempt cap fail instead. Returns the ids published."""
    t = now()
    with sessions() as s, s.begin():
        stale = s.execute(select(Puzzle.id, Puzzle.job_id, Puzzle.attempts, Puzzle.status)
                          .join(Job, Job.id == Puzzle.job_id)
                          .where(Job.status.in_(UNFINISHED), Puzzle.status.in_(UNFINISHED), Puzzle.deadline < t)
                          .order_by(Puzzle.id).limit(10_000)).all()
        cap = config["MAX_ATTEMPTS"]
        capped = {pid for pid, _, attempts, status in stale if status == RUNNING and attempts >= cap}
        write(s, [_gave_up(pid, job_id, attempts, attempts, config)
                  for pid, job_id, attempts, _ in stale if pid in capped])
        again = [pid for pid, *_ in stale if pid not in capped]
        deadline = t + timedelta(seconds=config["QUEUED_STALE_SECONDS"])
        if again:
            s.execute(update(Puzzle).where(Puzzle.id.in_(again), Puzzle.status.in_(UNFINISHED))
                      .values(deadline=deadline).execution_options(synchronize_session=False))
    if again:
        log.warning("reaper: publishing %d stale puzzle(s) again", len(again))
        publish_safely(publisher, [[i] for i in again])
    return again
