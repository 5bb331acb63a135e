"""The reaper: publishes again the puzzles and subtasks whose task was lost, and fails those whose
every attempt lost its worker (the attempt cap).

Lost means: claimed by a silent worker (worker.heartbeat), orphaned (claimed before its living
worker's ``since``), queued while the broker's queues are empty (the messages are gone), marked
due by a refused publish, or past a deadline (the backstop). Worker processes take turns running
it from their heartbeat threads every REAP_INTERVAL; one run at a time holds the ``reaper_runs``
row. docs/operations.md tells each fault and how it is recovered.

A run reads what the fleet holds, not the backlog (store.reaping: its reads and writes).

Terms (lost, orphaned, due, silent, since, attempt cap, turn): docs/glossary.md.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import Row
from sqlalchemy.orm import Session

from store import chunk_control, event_records, parts, reaping, retention, workers
from store.costs import work_left
from store.db import checkpoint_wal, plan_for_each_list
from store.models import FAILED, RUNNING, now
from store.publish import part_levels, publish_in_lanes, publish_or_mark_due, queue_depth
from store.results import write
from store.rows import Assigned, Result
from worker import webhooks
from worker.outcome import estimated_cost, gave_up
from worker.runtime import Runtime

log = logging.getLogger(__name__)


@dataclass
class Reaped:
    """The ids published again."""

    puzzles: list[int]
    parts: list[int]
    chunks: list[int] = field(default_factory=list)


def reap_if_due(runtime: Runtime, trust_silence: bool) -> Reaped | None:
    """Run the reaper if no process has run it for REAP_INTERVAL (the heartbeat threads call this),
    then the housekeeping if that is due too (the retention purge, SQLite's log checkpoint), and the
    callbacks' sweep (worker.webhooks)."""
    t = now()
    with runtime.sessions() as s, s.begin():
        if not reaping.take_turn(s, t, timedelta(seconds=runtime.settings.recovery.reap_interval * 0.9)):
            return None
    reaped = reap(runtime, trust_silence=trust_silence)
    if retention.purge_if_due(runtime.sessions, runtime.settings.retention) is not None:
        checkpoint_wal(runtime.engine)  # on SQLite, the log the purge and everything since wrote
    webhooks.sweep(runtime)
    return reaped


def reap(runtime: Runtime, trust_silence: bool = True) -> Reaped:
    """Publish again, with a new deadline, what was lost (see the module's docstring), unless it is
    running at the attempt cap, which fails it (a subtask fails its puzzle). ``trust_silence``:
    the caller has itself reached the database steadily for WORKER_SILENT_SECONDS, so an old
    heartbeat means a dead worker, not a database outage that has just ended."""
    t = now()
    sessions, publisher, settings = runtime.sessions, runtime.publisher, runtime.settings
    recovery = settings.recovery
    cap, limit = recovery.max_attempts, settings.time.puzzle_time_limit
    depth = queue_depth(publisher)
    with sessions() as s, s.begin():
        reaping.take_turn(s, t)
        plan_for_each_list(s)  # see statements.among's per_row
        lost = reaping.survey(s, t, recovery, trust_silence, broker_empty=depth == 0)
        reaping.mark_swept(s, lost)
        puzzles, subtasks = reaping.lost_puzzles(s, t, lost), reaping.lost_subtasks(s, t, lost)
        dead = [row for row in puzzles if row.status == RUNNING and row.tries >= cap]
        write(s, [Result(row.id, row.job_id, row.attempts, FAILED,
                         error=gave_up(row.tries, limit, "puzzle")) for row in dead])
        dead_parts = [row for row in subtasks if row.status == RUNNING and row.attempts >= cap]
        for row in dead_parts:
            p = parts.lock_puzzle(s, row.puzzle_id)
            if p is not None and p.status == RUNNING:
                parts.fail(s, p, parts.PartClaim(row.id, row.puzzle_id, row.part, {}, row.attempts),
                           gave_up(row.attempts, limit, "part"))
        lost_puzzles = [row for row in puzzles if row not in dead]
        ahead = _owners_work_left(s, lost_puzzles)
        lost_parts = [row.id for row in subtasks if row not in dead_parts]
        part_ranks = part_levels(s, lost_parts, settings.costs.dear_share_seconds)
        again = Reaped([row.id for row in lost_puzzles], lost_parts)
        deadline = t + timedelta(seconds=recovery.queued_stale_seconds)
        again.chunks = chunk_control.lost(s, t, lost, reaping.BATCH)
        event_records.handed_on(s, t, again.puzzles, again.chunks, again.parts)
        chunk_control.requeue(s, again.chunks, deadline)
        reaping.hand_on(s, again.puzzles, again.parts, deadline)
        if lost.silent or lost.forgotten:
            workers.forget(s, lost.silent + lost.forgotten)
    if lost.silent:
        log.warning("reaper: worker(s) %s silent for %s s", ", ".join(lost.silent),
                    recovery.worker_silent_seconds)
    if again.puzzles:
        log.warning("reaper: publishing %d lost puzzle(s) again", len(again.puzzles))
        _publish_by_job(runtime, lost_puzzles, ahead)
    if again.chunks:
        log.warning("reaper: publishing %d lost chunk(s) again", len(again.chunks))
        publish_in_lanes(publisher, sessions, settings.lanes, [], stored=again.chunks)
    if again.parts:
        log.warning("reaper: publishing %d lost subtask(s) again", len(again.parts))
        publish_or_mark_due(publisher, sessions, [[i] for i in again.parts], parts=True, ranks=part_ranks)
    return again


def _publish_by_job(runtime: Runtime, rows: Sequence[Row[Any]], ahead: Mapping[str, float]) -> None:
    """One puzzle a task, in its lane; each job's ranked on its own, so that a job that lost many
    does not push another's behind them. In the dear lane by predicted seconds, as a new job's
    (store.publish.dear_levels): behind its owner's other work (``ahead``) and the job's tasks
    before it. A puzzle moved to the dear lane past the cheap lane's cap (a place there, a cheap
    prediction) goes back to the dear lane at its level: by its prediction it would run to the cap
    again."""
    settings = runtime.settings
    by_job: dict[str, list[tuple[Assigned, float]]] = {}
    owners: dict[str, str] = {}
    moved: list[tuple[int, int]] = []
    for row in rows:
        a = Assigned(row.id, row.job_id, row.kind, row.input, row.options, row.attempts,
                     base=row.attempts - row.tries)
        cost = estimated_cost(a)
        if row.dear_level is not None and not settings.lanes.is_dear(cost):
            moved.append((a.id, row.dear_level))
            continue
        by_job.setdefault(row.job_id, []).append((a, cost))
        owners[row.job_id] = row.owner
    for job_id, puzzles in by_job.items():
        publish_in_lanes(runtime.publisher, runtime.sessions, settings.lanes,
                         [([a.id], cost) for a, cost in puzzles], queued=ahead[owners[job_id]],
                         quantum=settings.costs.dear_share_seconds)
    if moved:
        publish_or_mark_due(runtime.publisher, runtime.sessions, [[i] for i, _level in moved], dear=True,
                            ranks=[level for _i, level in moved])


def _owners_work_left(s: Session, rows: Sequence[Row[Any]]) -> dict[str, float]:
    """Per owner of these lost puzzles, its unfinished jobs' predicted seconds not yet done, less
    those of the puzzles themselves (dear_levels counts each of them ahead of the ones after it)."""
    again: dict[str, float] = {}
    for row in rows:
        again[row.owner] = again.get(row.owner, 0.0) + (row.estimated_seconds or 0.0)
    if not again:
        return {}
    left = work_left(s, again)
    return {owner: max(left[owner] - seconds, 0.0) for owner, seconds in again.items()}
