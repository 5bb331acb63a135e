"""The task of a stored chunk (store.chunks): claim it, solve its entries by one ``solve_batch``
call, write it as one row. An entry the call cannot take (dear after all, to be split, the
call failing as a whole) leaves for a puzzle row, published one a task, where the one-puzzle
path (worker.chunk) solves, watches and splits it.

Terms (chunk, entry, leaves, dear): docs/glossary.md.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import solvers
from solvers.base import Budgeted, Whole
from store import chunks, fastjson
from store.chunks import Held, Written
from store.models import now
from store.publish import publish_in_lanes
from worker.limits import alarms_raise_timeout, time_limit
from worker.outcome import within_plan
from worker.runtime import Runtime


@dataclass
class StoredReport:
    written: int = 0
    left: list[int] = field(default_factory=list)  # puzzle rows made for entries that left


def run_stored(runtime: Runtime, chunk_id: int, worker: str, redelivered: bool = False) -> StoredReport:
    """Claim, solve and write one stored chunk; a chunk claimed before (its worker was lost with
    it) dissolves into puzzle rows instead. ``redelivered``: the broker delivers the task again."""
    settings = runtime.settings
    report = StoredReport()
    with runtime.sessions() as s, s.begin():
        held = chunks.claim(s, chunk_id, worker, now() + settings.time.lease(), redelivered)
        if held is not None and held.attempts > 1:
            report.left = chunks.dissolve(s, held)
            held = None
    if held is not None:
        with alarms_raise_timeout():
            done = _solve(runtime, held)
        with runtime.sessions() as s, s.begin():
            report.written, report.left = chunks.write(s, held, done)
    if report.left:
        publish_in_lanes(runtime.publisher, runtime.sessions, settings.lanes,
                         [([i], 0.0) for i in report.left])
    return report


def _solve(runtime: Runtime, held: Held) -> Written:
    """Each entry's status and answer by one ``solve_batch`` call (None: it leaves)."""
    settings = runtime.settings
    size = held.size
    leave = Written([None] * size, [None] * size, {}, None)
    try:
        kind = solvers.kind_for(held.kind, held.options)
        options = kind.read_options(held.options)
        prepared = kind.prepare_batch(held.inputs, options)
    except Exception:
        return leave
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
        return leave
    work = sum(held.estimates[i][0] for i in stay)
    limit, predicted = settings.costs.limit_of(work, 1.0, settings.time.puzzle_time_limit)
    start = time.perf_counter()
    run = prepared if len(stay) == size else [prepared[i] for i in stay]
    try:
        with time_limit(limit, cpu=predicted is not None):
            outcomes = kind.solve_batch(run, options)
    except Exception:
        return leave
    share = round((time.perf_counter() - start) * 1000.0 / len(stay), 3)
    statuses: list[str | None] = [None] * size
    answers: list[str | None] = [None] * size
    for i, status, nodes, answer in zip(stay, outcomes.statuses(), outcomes.nodes(),
                                        outcomes.encoded(fastjson.dumps), strict=True):
        if not within_plan(stay[i], nodes):
            continue  # past its budget: it leaves, to be split
        statuses[i], answers[i] = status, answer
    return Written(statuses, answers, {}, share)
