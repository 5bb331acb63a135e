"""The task of puzzle rows (``solve_chunk`` with a list of ids; a stored chunk's task is
worker.stored): claim its puzzles (running, under a lease), solve each one, verify it, write the
results, each only while its row is still this task's claim (store.rows).

Runs of alike cheap puzzles go to the kind's ``solve_batch`` in one call; a puzzle estimated above
OPTIMISTIC_SECONDS is solved alone and watched for its time limit and for a cancel
(worker.limits). A puzzle worth splitting is stored as subtasks and published once committed
(worker.parts). docs/architecture.md tells why.

Terms (task of puzzle rows, claim, lease, watched, cheap): docs/glossary.md.
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import takewhile

from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy.orm import Session, sessionmaker

from solvers.base import Estimate
from store import event_records, logs, results, rows
from store.models import FAILED, now
from store.publish import part_levels, publish_in_lanes, publish_or_mark_due, puzzle_levels
from store.rows import Assigned, Result, SplitPuzzle
from store.settings import Recovery, Settings, TimeBudget
from worker import warmup
from worker.limits import Watch, alarms_raise_timeout, watching
from worker.outcome import (
    Cheap,
    batchable,
    estimated_cost,
    gave_up,
    prepared_alike,
    prepared_or_none,
    solve_one,
    solve_run,
    too_long,
)
from worker.runtime import Runtime

# Results are written at least this often, so progress shows and a killed worker loses little.
FLUSH_SECONDS = 0.5


@dataclass
class ChunkReport:
    written: int = 0
    skipped: int = 0
    republished: list[int] = field(default_factory=list)
    fanned: list[int] = field(default_factory=list)  # subtask ids published
    moved: list[int] = field(default_factory=list)  # past the cheap lane's cap, to the dear lane


@dataclass
class Batch:
    """A chunk's puzzles still to solve (``todo``, in order) and its results not yet in SQL."""

    runtime: Runtime
    worker: str
    report: ChunkReport
    todo: deque[Assigned]
    clock: Callable[[], float]
    results: list[Result] = field(default_factory=list)
    split_up: list[SplitPuzzle] = field(default_factory=list)
    last_flush: float = 0.0
    cap: float | None = None  # seconds a puzzle may run here: a task of the cheap lane (CHEAP_LANE_SECONDS)

    def __post_init__(self) -> None:
        self.last_flush = self.clock()

    def due(self) -> bool:
        return self.clock() - self.last_flush >= FLUSH_SECONDS

    def add(self, answer: Result | SplitPuzzle) -> None:
        if isinstance(answer, SplitPuzzle):
            self.split_up.append(answer)
        else:
            self.results.append(answer)

    def flush(self) -> None:
        """Write what is done and fan out what was split; renew the leases of the puzzles still to
        do."""
        lease = self.runtime.settings.time.lease()
        with self.runtime.sessions() as s, s.begin():
            parts = self._write(s)
            rows.extend(s, self.todo, now() + lease)
        self._publish_parts(parts)

    def give_back(self) -> None:
        """Write what is done, release the puzzles still to do and publish them again, one a task."""
        with self.runtime.sessions() as s, s.begin():
            parts = self._write(s)
            rows.release(s, self.todo)
        self._publish_parts(parts)
        self.report.republished = publish_one_per_task(self.runtime, self.todo)

    def to_dear_lane(self, a: Assigned, cpu_seconds: float | None = None) -> None:
        """A puzzle that ran past the cheap lane's cap: queued again as it was before this task (its
        attempt not counted), charged the ``cpu_seconds`` its try took (store.costs), and published
        to the dear lane, where no cap holds, at its owner's fair share there (``puzzle_levels``,
        which counts them) as any dear task."""
        settings = self.runtime.settings
        with self.runtime.sessions() as s, s.begin():
            moved = rows.requeue(s, a, now() + timedelta(seconds=settings.recovery.queued_stale_seconds),
                                 cpu_seconds)
            event_records.moved(s, now(), [a.id] if moved else [], self.worker, a.attempts, self.cap)
            ranks = puzzle_levels(s, [a.id], settings.costs.dear_share_seconds) if moved else None
        if moved:
            runtime = self.runtime
            publish_or_mark_due(runtime.publisher, runtime.sessions, [[a.id]], dear=True, ranks=ranks)
            self.report.moved.append(a.id)

    def _write(self, s: Session) -> tuple[list[int], list[int] | None]:
        """Write the results and fan out the split puzzles; returns the subtask ids to publish and
        their ranks (``part_levels``)."""
        self.report.written += results.write(s, self.results)
        settings = self.runtime.settings
        parts = rows.fan_out(s, self.split_up, settings.recovery.queued_stale_seconds)
        self.results, self.split_up = [], []
        return parts, part_levels(s, parts, settings.costs.dear_share_seconds)

    def _publish_parts(self, fanned: tuple[list[int], list[int] | None]) -> None:
        # Published only after the commit: a subtask task must find its row.
        parts, ranks = fanned
        if parts:
            runtime = self.runtime
            publish_or_mark_due(runtime.publisher, runtime.sessions, [[i] for i in parts], parts=True,
                                ranks=ranks)
        self.report.fanned += parts
        self.last_flush = self.clock()


def run_chunk(runtime: Runtime, ids: Sequence[int], worker: str, clock: Callable[[], float] = time.monotonic,
              cheap_lane: bool = False) -> ChunkReport:
    """Claim and solve a chunk, its kinds prepared before the claim (worker.warmup.prepare_first);
    ``cheap_lane``: it came from the cheap lane, whose cap (CHEAP_LANE_SECONDS) moves a puzzle that
    runs longer to the dear lane."""
    report = ChunkReport()
    settings = runtime.settings
    warmup.prepare_first(runtime.sessions, lambda s: rows.kinds_of(s, ids))
    held, scattered = _claim_for_chunk(runtime.sessions, ids, settings.recovery, settings.time, worker,
                                       report)
    if scattered:
        report.republished = publish_one_per_task(runtime, scattered)
        return report
    report.skipped = len(ids) - len(held)
    cap = settings.lanes.cheap_cap(settings.time.puzzle_time_limit) if cheap_lane else None
    batch = Batch(runtime, worker, report, deque(held), clock, cap=cap)
    with alarms_raise_timeout():
        _solve(batch)
    return report


def publish_one_per_task(runtime: Runtime, puzzles: Sequence[Assigned]) -> list[int]:
    """Publish these puzzles again, one a task, each in its lane; returns their ids."""
    publish_in_lanes(runtime.publisher, runtime.sessions, runtime.settings.lanes,
                     [([a.id], estimated_cost(a)) for a in puzzles])
    return [a.id for a in puzzles]


def _claim_for_chunk(sessions: sessionmaker[Session], ids: Sequence[int], recovery: Recovery,
                     budget: TimeBudget, worker: str,
                     report: ChunkReport) -> tuple[list[Assigned], list[Assigned]]:
    """Claim the chunk's puzzles and fail those past the attempt cap; returns those to solve here
    and those to scatter. A chunk that comes back after its worker died with it claimed is given
    back instead, scattered one puzzle a task: one of its puzzles may be what killed it, and only
    that culprit should use up its attempts. (The broker also redelivers without a death, on a
    lost connection: the claim, not the redelivery, tells a chunk tried before.)"""
    cap, limit = recovery.max_attempts, budget.puzzle_time_limit
    with sessions() as s, s.begin():
        claimed = rows.claim(s, ids, worker, now() + budget.lease())
        if len(claimed) > 1 and any(a.tries > 1 for a in claimed):
            rows.release(s, claimed)
            return [], claimed
        # A claim one past the cap: the earlier ones all lost their worker.
        report.written += results.write(s, [
            Result(a.id, a.job_id, a.attempts, FAILED, error=gave_up(a.tries - 1, limit, "puzzle"))
            for a in claimed if a.tries > cap])
    return [a for a in claimed if a.tries <= cap], []


def _solve(batch: Batch) -> None:
    settings = batch.runtime.settings
    seconds, plans = batch.cap or settings.time.puzzle_time_limit, settings.splitting.for_plans
    one_by_one = 0  # puzzles to solve one by one: a run whose solve_batch failed as a whole
    while batch.todo:
        a = batch.todo[0]
        ready = None
        try:
            if not one_by_one:
                run = _cheap_run(batch)
                with logs.context(job=a.job_id):
                    limit, predicted = _run_limit(settings, seconds, run)
                    answers = solve_run(run, limit, plans, predicted is not None) if len(run) > 1 else None
                if answers is not None:
                    _done(batch, answers)
                    continue
                one_by_one = len(run)
                ready = run[0].ready if run else None  # prepared already: a run of one goes on below
            if ready is None:
                ready = prepared_or_none(a)
            estimate = ready.estimate() if ready is not None else None
            # its stored figure counts too: a price (store.pricing) may be far above its kind's prediction
            expensive = estimate is not None and max(estimate.seconds, a.estimated or 0.0) > \
                settings.lanes.optimistic_seconds
            limit, predicted = _limit(settings, seconds, estimate)
            with logs.context(job=a.job_id, puzzle=a.id), _watched(batch, a, expensive, limit,
                                                                         predicted is not None) as watch:
                answer = solve_one(a, limit, plans, ready, watch, predicted)
            if watch is not None and isinstance(answer, Result):  # the watcher charged some already
                answer.cpu_seconds = watch.unrecorded(answer.cpu_seconds)
        except SoftTimeLimitExceeded:  # arrived between solves: stop here and hand the rest on
            batch.give_back()
            return
        one_by_one = max(one_by_one - 1, 0)
        if batch.cap is not None and _overran(answer, batch.cap):
            batch.todo.popleft()
            batch.to_dear_lane(a, answer.cpu_seconds if isinstance(answer, Result) else None)
            continue
        _done(batch, [answer])
    batch.flush()


def _done(batch: Batch, answers: Sequence[Result | SplitPuzzle]) -> None:
    """The answers of the puzzles at the head of ``todo``, in order: out of ``todo``, into the batch."""
    for answer in answers:
        batch.todo.popleft()
        batch.add(answer)
    # Parts go out at once, so other workers start on them while this chunk goes on.
    if batch.split_up or batch.due():
        batch.flush()


def _cheap_run(batch: Batch) -> list[Cheap]:
    """The puzzles at the head of ``todo`` that one ``solve_batch`` call can take: of the
    first one's kind and options (prepared by one ``prepare_batch`` call), each ``batchable``,
    together estimated within FLUSH_SECONDS (so progress still shows that often). Stops at the
    first that is not."""
    settings = batch.runtime.settings
    most, work = settings.lanes.optimistic_seconds, 0.0
    run: list[Cheap] = []
    first = batch.todo[0]
    # Up to the first puzzle stored as dear: the run stops there, so none after it is prepared for it.
    alike = list(takewhile(lambda a: a.kind == first.kind and a.options == first.options
                           and (a.estimated is None or a.estimated <= most), batch.todo))
    if not alike:
        return run
    for a, ready in zip(alike, prepared_alike(alike), strict=True):
        cheap = None if ready is None else batchable(a, ready, settings.splitting.for_plans, most)
        if cheap is None:
            break
        work += cheap.cost
        if run and work > FLUSH_SECONDS:
            break
        run.append(cheap)
    return run


def _overran(answer: Result | SplitPuzzle, cap: float) -> bool:
    """Whether the solve stopped at the cheap lane's cap (worded as solve_one words a time limit, a
    kind's hint after it)."""
    return (isinstance(answer, Result) and answer.status == FAILED and answer.error is not None
            and answer.error.startswith(too_long(cap, "puzzle")))


def _limit(settings: Settings, most: float, estimate: Estimate | None) -> tuple[float, float | None]:
    """A puzzle's time limit: the one its prediction gives it (PREDICTION_TIME_FACTOR) when less than
    ``most`` (PUZZLE_TIME_LIMIT, or the cheap lane's cap), with the seconds predicted; else ``most``."""
    if estimate is None:
        return most, None
    return settings.costs.limit_of(estimate.seconds, estimate.factor, most)


def _run_limit(settings: Settings, most: float, run: Sequence[Cheap]) -> tuple[float, float | None]:
    """A run's time limit: what its predicted seconds give (PREDICTION_TIME_FACTOR, within
    PREDICTION_TIME_FLOOR and ``most``), with those seconds; else ``most``. A run past it is solved
    again one by one, where each puzzle has its own predicted limit, so that the puzzles predicted
    wrong fail saying so."""
    return settings.costs.limit_of(sum(c.cost for c in run), 1.0, most)


def _watched(batch: Batch, a: Assigned, expensive: bool, limit: float,
             cpu: bool) -> AbstractContextManager[Watch | None]:
    """A puzzle estimated expensive is watched: it stops at its time limit (``limit``, of CPU time
    with ``cpu``) or on a cancel, even inside a compiled kernel, and its row shows the share of its
    search done."""
    if not expensive:
        return nullcontext()
    budget = dataclasses.replace(batch.runtime.settings.time, puzzle_time_limit=limit)
    return watching(batch.runtime.sessions, a.id, budget, held=a, cpu=cpu)
