"""Subtasks: the parts of a split puzzle, solved by any worker, counted and merged exactly once.

A subtask task claims its part (attempts + 1, a lease; skipped once the puzzle has
``stop_requested``, nothing once it is final), solves it under the time limit with a watched stop
flag, and records it while its claim is current, moving ``parts_done`` in the same transaction;
the transaction that completes the count merges every part in index order with the head,
verifies, and writes the puzzle. The rows' changes are store.parts'; the solve and the merge are
here. A failing part fails the whole puzzle. docs/architecture.md tells early stops and merges.

Terms (part, subtask, head, merge, early stop, stop flag): docs/glossary.md.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row
from sqlalchemy.orm import Session, sessionmaker

import solvers
from solvers.base import Outcome, Parts
from store import blocks, logs
from store import parts as part_rows
from store.db import through_outages
from store.models import FAILED, now
from store.parts import PartClaim
from store.rows import Result
from store.settings import Recovery, Settings, TimeBudget
from worker import warmup
from worker.limits import Watch, alarms_raise_timeout, time_limit, watching
from worker.outcome import failure_reason, gave_up, measured
from worker.runtime import Runtime

log = logging.getLogger(__name__)


def run_parts(runtime: Runtime, ids: Sequence[int], worker: str) -> int:
    """Handle each subtask in turn; returns how many this task solved and recorded."""
    with alarms_raise_timeout():
        return sum(run_part(runtime, i, worker) for i in ids)


def run_part(runtime: Runtime, subtask_id: int, worker: str) -> bool:
    sessions, settings = runtime.sessions, runtime.settings
    warmup.prepare_first(sessions, lambda s: part_rows.kinds_of(s, [subtask_id]))
    with sessions() as s, s.begin():
        claimed = claim(s, subtask_id, worker, settings.time, settings.recovery)
        if claimed is None:
            return False
        part, p = claimed
    limit, predicted = part_limit(settings, p)
    with logs.context(job=p.job_id, puzzle=p.id, subtask=part.id):
        used = time.process_time()
        with watching(sessions, p.id, settings.time, limit, cpu=predicted is not None) as watch:
            outcome, error = solve(p, part, limit, watch, predicted)
        cpu = measured(used)
        if outcome is None and error is None:
            log.info("subtask %s stopped: its puzzle %s no longer needs it", part.id, p.id)
        # A long solve is not done again for a database restart at its end.
        return through_outages(lambda: _record(sessions, part, outcome, error, cpu),
                               settings.recovery.db_wait_seconds, f"subtask {part.id}")


def _record(sessions: sessionmaker[Session], part: PartClaim, outcome: Outcome | None,
            error: str | None, cpu_seconds: float | None = None) -> bool:
    with sessions() as s, s.begin():
        return record(s, part, outcome, error, cpu_seconds)


# -- claiming


def claim(s: Session, subtask_id: int, worker: str, budget: TimeBudget,
          recovery: Recovery) -> tuple[PartClaim, Row[Any]] | None:
    """Claim a subtask (store.parts.claim); returns it with its puzzle's row, or None when there is
    nothing to solve (puzzle final or stopping, subtask done, attempts used up: the last fails it)."""
    claimed = part_rows.claim(s, subtask_id, worker, now() + budget.lease(), merged)
    if claimed is None:
        return None
    part, p = claimed
    if part.attempts > recovery.max_attempts:
        part_rows.fail(s, p, part, gave_up(part.attempts - 1, budget.puzzle_time_limit, "part"))
        return None
    return part, p


# -- solving


def part_limit(settings: Settings, p: Row[Any]) -> tuple[float, float | None]:
    """A part's time limit and the seconds predicted of it: its puzzle's prediction shared equally
    over its parts gives the part a limit as a puzzle's own prediction does (PREDICTION_TIME_FACTOR x
    the high end, within PREDICTION_TIME_FLOOR) when below PUZZLE_TIME_LIMIT; else PUZZLE_TIME_LIMIT.
    Only a puzzle its kind cuts up at once (``Parts``) is held to that: one split after running past
    its node budget has already shown its prediction wrong. A priced puzzle (signed, store.pricing)
    is held to its kind's own prediction, as a whole one is (worker.chunk): its price may be far
    above it."""
    most = settings.time.puzzle_time_limit
    if p.estimated_seconds is None or p.parts_total <= 0:
        return most, None  # stored without a prediction
    cut = _cut_at_once(settings, p)
    if cut is None:
        return most, None
    kind, puzzle, options = cut
    own = kind.predict(puzzle, options) if p.signature is not None else None
    seconds, factor = (own.seconds, own.factor) if own else (p.estimated_seconds, p.estimate_factor or 1.0)
    return settings.costs.limit_of(seconds / p.parts_total, factor, most)


def _cut_at_once(settings: Settings, p: Row[Any]) -> tuple[solvers.Kind, Any, dict[str, Any]] | None:
    """The puzzle's kind, the puzzle and its options where its kind plans to cut it up before any
    search; else None (also for a puzzle that no longer prepares: it fails in ``solve``, which
    says why)."""
    try:
        kind = solvers.get(p.kind)
        puzzle, options = kind.prepare(p.input, p.options)
        plan = kind.plan(puzzle, options, settings.splitting.for_plans)
    except Exception:
        return None
    return (kind, puzzle, options) if isinstance(plan, Parts) else None


def solve(p: Row[Any], part: PartClaim, seconds: float, watch: Watch,
          predicted: float | None = None) -> tuple[Outcome | None, str | None]:
    """(outcome, None), or (None, error), or (None, None) when the puzzle no longer needs the part;
    ``predicted``: the part's predicted seconds, when they set ``seconds``."""
    try:
        kind = solvers.get(p.kind)
        puzzle, options = kind.prepare(p.input, p.options)
        with time_limit(seconds, cpu=predicted is not None):
            return kind.splitting().solve_part(puzzle, options, part.payload, watch.flag), None
    except Exception as exc:  # a solver bug ends this puzzle, never the worker
        if isinstance(exc, solvers.Stopped) and not watch.expired:
            return None, None
        return None, failure_reason(exc, f"subtask {part.id}", seconds, "part", expired=watch.expired,
                                    predicted=predicted)


# -- recording, merging


def record(s: Session, part: PartClaim, outcome: Outcome | None, error: str | None,
           cpu_seconds: float | None = None) -> bool:
    """Store a part's outcome (or failure) under its claim and count it (store.parts.record), the
    last one merged by ``merged``, and charge its puzzle the CPU seconds measured; True if recorded."""
    return part_rows.record(s, part, outcome, error, merged, cpu_seconds)



def merged(p: Row[Any], outcomes: Sequence[Outcome]) -> Result:
    """The puzzle's result from its finished parts' outcomes (in index order) and its head, merged
    by its kind and verified (store.parts.Merge); a merge that fails or does not verify fails it."""
    out = Result(p.id, p.job_id, p.attempts, FAILED)
    try:
        kind = solvers.get(p.kind)
        puzzle, options = kind.prepare(p.input, p.options)
        whole = kind.splitting().merge(puzzle, options, Outcome.from_json(p.split_head), list(outcomes))
        kind.verify(puzzle, options, whole)
    except Exception as exc:
        out.error = failure_reason(exc, f"puzzle {p.id}", error="merge error",
                                   answer=f"the merged answer of {len(outcomes)} parts")
    else:
        out.status, out.answer = whole.status, blocks.answer(whole.result, whole.stats)
        out.solve_ms = whole.stats.get("elapsed_ms")
    return out
