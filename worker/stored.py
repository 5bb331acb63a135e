"""The task of a stored chunk (store.chunks): claim it, solve its entries by one ``solve_batch``
call, write it as one row. An entry the call cannot take (dear after all, to be split, the
call failing as a whole or running past the cheap lane's cap) leaves for a puzzle row, published
one a task in its lane, where the one-puzzle path (worker.chunk) solves, watches, splits or moves
it to the dear lane.

Terms (chunk, entry, leaves, dear): docs/glossary.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import solvers
from solvers.base import Budgeted, Whole
from store import chunk_task, event_records
from store.chunk_task import Held, Written
from store.models import now
from store.publish import publish_in_lanes, publish_or_mark_due, puzzle_levels
from worker import warmup
from worker.limits import PuzzleTimeout, alarms_raise_timeout
from worker.outcome import BatchFailed, solve_batch
from worker.runtime import Runtime


@dataclass
class StoredReport:
    written: int = 0
    left: list[int] = field(default_factory=list)  # puzzle rows made for entries that left
    moved: list[int] = field(default_factory=list)  # of them, published to the dear lane (ran past the cap)


def run_stored(runtime: Runtime, chunk_id: int, worker: str, redelivered: bool = False) -> StoredReport:
    """Claim (its kind prepared first, worker.warmup.prepare_first), solve and write one stored
    chunk; a chunk claimed before (its worker was lost with it) dissolves into puzzle rows instead.
    ``redelivered``: the broker delivers the task again."""
    settings = runtime.settings
    report = StoredReport()
    warmup.prepare_first(runtime.sessions, lambda s: chunk_task.kind_of(s, chunk_id))
    with runtime.sessions() as s, s.begin():
        held = chunk_task.claim(s, chunk_id, worker, now() + settings.time.lease(), redelivered)
        dissolved = held is not None and held.attempts > 1
        if held is not None and dissolved:
            report.left = chunk_task.dissolve(s, held)
    if held is None:
        return report
    leaving: Sequence[int] = range(held.size)
    overran: list[int] = []
    if not dissolved:
        with alarms_raise_timeout():
            done, overran = _solve(runtime, held)
        leaving = [i for i, status in enumerate(done.statuses) if status is None]
        with runtime.sessions() as s, s.begin():
            report.written, report.left = chunk_task.write(s, held, done)
            if not report.left:  # written as no longer this task's (cancelled meanwhile): none left
                leaving = []
            event_records.moved(s, now(), [row for row, offset in zip(report.left, leaving, strict=True)
                                    if offset in overran], worker, held.attempts,
                         settings.lanes.cheap_cap(settings.time.puzzle_time_limit))
    _publish_left(runtime, held, report, leaving, overran)  # once committed: a task must find its row
    return report


def _publish_left(runtime: Runtime, held: Held, report: StoredReport, leaving: Sequence[int],
                  overran: Sequence[int]) -> None:
    """Publish the rows of the entries that left (``report.left``, in the order of their offsets,
    ``leaving``), one a task: in the lane of their prediction, but those that ran past the cheap
    lane's cap (``overran``) in the dear lane, where no cap holds (published by their prediction,
    they would run to the cap again); those go to ``report.moved``."""
    if not report.left:
        return
    offsets = dict(zip(report.left, leaving, strict=True))
    report.moved = [i for i, offset in offsets.items() if offset in overran]
    by_prediction = [([i], held.estimates[offset][0]) for i, offset in offsets.items()
                     if offset not in overran]
    publish_in_lanes(runtime.publisher, runtime.sessions, runtime.settings.lanes, by_prediction)
    if report.moved:  # at their owners' fair share of the dear lane, as any dear task
        with runtime.sessions() as s:
            ranks = puzzle_levels(s, report.moved, runtime.settings.costs.dear_share_seconds)
        publish_or_mark_due(runtime.publisher, runtime.sessions, [[i] for i in report.moved], dear=True,
                            ranks=ranks)


def _solve(runtime: Runtime, held: Held) -> tuple[Written, list[int]]:
    """Each entry's status and answer by one ``solve_batch`` call (None: it leaves), and the
    entries known to have run past the cheap lane's cap. A chunk runs only in the cheap lane
    (store.publish), so the call's time limit is at most CHEAP_LANE_SECONDS; a call past it leaves
    every entry (which of them ran long, the call does not tell), but for a call of one entry,
    that entry."""
    settings = runtime.settings
    size = held.size
    leave = Written([None] * size, [None] * size, {}, None)
    try:
        kind = solvers.kind_for(held.kind, held.options)
        options = kind.read_options(held.options)
        prepared = kind.prepare_batch(held.inputs, options)
    except Exception:
        return leave, []
    most = settings.lanes.optimistic_seconds
    failed = solvers.any_failed(prepared)
    cheap = [i for i, estimate in enumerate(held.estimates)
             if estimate[0] <= most and not (failed and isinstance(prepared[i], solvers.PuzzleError))]
    # all of them, as prepared (a kind's array-backed sequence, solvers.sudoku.Grids), or the cheap ones
    plans = kind.plans(prepared if len(cheap) == size else [prepared[i] for i in cheap], options,
                       settings.splitting.for_plans)
    stay: dict[int, Whole | Budgeted] = {i: plan for i, plan in zip(cheap, plans, strict=True)
                                         if isinstance(plan, (Whole, Budgeted))}
    if not stay:
        return leave, []
    work = sum(held.estimates[i][0] for i in stay)
    cap = settings.lanes.cheap_cap(settings.time.puzzle_time_limit)
    limit, predicted = settings.costs.limit_of(work, 1.0, cap or settings.time.puzzle_time_limit)
    run = prepared if len(stay) == size else [prepared[i] for i in stay]
    try:
        batch = solve_batch(kind, run, options, list(stay.values()), limit, predicted is not None)
    except BatchFailed as failed:
        capped = (isinstance(failed.cause, PuzzleTimeout) and cap is not None and predicted is None
                  and len(stay) == 1)
        return leave, list(stay) if capped else []
    statuses: list[str | None] = [None] * size
    answers: list[str | None] = [None] * size
    for i, outcome in zip(stay, batch.outcomes, strict=True):
        if outcome is not None:  # else past its budget: it leaves, to be split
            statuses[i], answers[i] = outcome
    return Written(statuses, answers, {}, batch.solve_ms), []
