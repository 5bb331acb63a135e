"""Handing work to the workers, always after its rows are committed: chunks of puzzle ids and the
parts of split puzzles, each in its lane (cheap or dear, by ``Kind.predict``) and at its priority
(a job's tasks take the broker's levels FAIR_SHARE at a time from the job's rank, job_rank). A publish the
broker refuses marks its rows due, and the reaper publishes them again (docs/architecture.md).

Terms (lane, cheap, dear, level, rank, due): docs/glossary.md.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any, Protocol

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from store.costs import work_left
from store.lane_settings import Lanes
from store.models import UNFINISHED, Chunk, Job, Puzzle, Subtask, now
from store.settings import TimeBudget

log = logging.getLogger(__name__)

PRIORITIES = 10  # the broker's priority levels, 0 (served first) to 9
# The most a small job's tasks start from (job_rank): behind the first tasks of the clients with
# nothing else waiting (rank 0), ahead of the queued tasks of its own owner's older jobs.
SMALL_JOB_RANK = 1
SOLVE_CHUNK = "puzzle_queue.solve_chunk"
SOLVE_PARTS = "puzzle_queue.solve_parts"
REAP = "puzzle_queue.reap"
# Message headers: when the task was sent (Unix seconds; store.depth), and the job of a POST's or a
# retry's task (a worker drops it unclaimed once that job is cancelled, store.cancelled).
PUBLISHED_AT = "published_at"
JOB = "job_id"
DELIVER = "puzzle_queue.deliver_callback"


class Publisher(Protocol):
    # Chunks of puzzle ids, all of one lane, in order; their priorities start at ``rank``.
    def publish(self, chunks: Sequence[Sequence[int]], dear: bool = False, rank: int = 0) -> None: ...

    # Groups of subtask ids (the parts of split puzzles, always dear), see worker.parts; ``ranks``:
    # each group's (``part_levels``), else spread from the first level by count.
    def publish_parts(self, groups: Sequence[Sequence[int]], ranks: Sequence[int] | None = None) -> None: ...

    # Due callback deliveries as (id, attempts so far), one task each (worker.webhooks).
    def publish_deliveries(self, due: Sequence[tuple[int, int]]) -> None: ...

    # Stored chunks (store.chunks) by id, in the cheap lane, in order; priorities from ``rank``.
    def publish_chunks(self, chunk_ids: Sequence[int], rank: int = 0) -> None: ...


def priorities(n: int, rank: int, share: int) -> list[int]:
    """The priorities of n tasks published together: ``share`` at each level from ``rank`` on,
    the rest at the last level."""
    return [min(PRIORITIES - 1, rank + i // max(1, share)) for i in range(n)]


def job_rank(older_jobs: int, work: float, lanes: Lanes) -> int:
    """The rank a new job's tasks start from: the number of its owner's other unfinished jobs, so
    that each client's first job goes first; but at most SMALL_JOB_RANK for a job whose whole work
    is estimated within CHUNK_SECONDS (a single task), so that an owner's small job is not starved
    behind that owner's big ones (an estimate wrong by far is bounded by CHEAP_LANE_SECONDS)."""
    if work <= lanes.chunk_seconds:
        return min(older_jobs, SMALL_JOB_RANK)
    return older_jobs


class CeleryPublisher:
    """Sends tasks by name through a Celery app (any object with Celery's ``send_task``)."""

    def __init__(self, celery_app: Any, lanes: Lanes, time: TimeBudget, job: str | None = None):
        self.celery, self.lanes, self.time, self.job = celery_app, lanes, time, job

    def for_job(self, job_id: str) -> CeleryPublisher:
        """This publisher for the tasks of one job's puzzles: each names the job (JOB)."""
        return CeleryPublisher(self.celery, self.lanes, self.time, job_id)

    def _headers(self) -> dict[str, Any]:
        return {PUBLISHED_AT: time.time(), **({JOB: self.job} if self.job is not None else {})}

    def publish(self, chunks: Sequence[Sequence[int]], dear: bool = False, rank: int = 0) -> None:
        self._send(SOLVE_CHUNK, chunks, self.lanes.dear_queue if dear else self.lanes.task_queue, rank)

    def publish_parts(self, groups: Sequence[Sequence[int]], ranks: Sequence[int] | None = None) -> None:
        if ranks is None:
            self._send(SOLVE_PARTS, groups, self.lanes.dear_queue, 0)
            return
        for group, rank in zip(groups, ranks, strict=True):
            self._send(SOLVE_PARTS, [group], self.lanes.dear_queue, rank)

    def publish_deliveries(self, due: Sequence[tuple[int, int]]) -> None:
        """In their own queue (CALLBACK_QUEUE), which workers that solve nothing take: a slow
        receiver holds none of a solving lane's slots."""
        with self.celery.producer_or_acquire() as producer:
            for delivery_id, attempts in due:
                self.celery.send_task(DELIVER, args=[delivery_id, attempts], queue=self.lanes.callback_queue,
                                      priority=0, producer=producer)

    def publish_chunks(self, chunk_ids: Sequence[int], rank: int = 0) -> None:
        levels = priorities(len(chunk_ids), rank, self.lanes.fair_share)
        with self.celery.producer_or_acquire() as producer:
            for chunk_id, priority in zip(chunk_ids, levels, strict=True):
                soft, hard = self.time.task_limits(self.lanes.chunk_max)
                self.celery.send_task(SOLVE_CHUNK, args=[[]], kwargs={"chunk_id": chunk_id},
                                      queue=self.lanes.task_queue, priority=priority, soft_time_limit=soft,
                                      time_limit=hard, producer=producer, headers=self._headers())

    def queue_depth(self) -> int:
        """Messages waiting in both lanes of the broker (not those a worker has taken)."""
        with self.celery.connection_for_read() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            return sum(int(conn.default_channel.queue_declare(queue=queue, durable=True,
                                                              auto_delete=False).message_count)
                       for queue in self.lanes.queues)

    def _send(self, task: str, groups: Sequence[Sequence[int]], queue: str, rank: int) -> None:
        levels = priorities(len(groups), rank, self.lanes.fair_share)
        with self.celery.producer_or_acquire() as producer:
            for ids, priority in zip(groups, levels, strict=True):
                soft, hard = self.time.task_limits(len(ids))
                # argsrepr: what monitors show of the ids; Celery's own repr of a thousand costs
                # more than sending them
                self.celery.send_task(task, args=[list(ids)], queue=queue, priority=priority,
                                      soft_time_limit=soft, time_limit=hard, producer=producer,
                                      headers=self._headers(), argsrepr=ids_repr(ids),
                                      kwargsrepr="{}")


def ids_repr(ids: Sequence[int]) -> str:
    """A task's ids as monitors (Flower, events) show them: a few, and how many in all."""
    shown = ", ".join(map(str, ids[:3]))
    return f"[[{shown}]]" if len(ids) <= 3 else f"[[{shown}, ... ({len(ids)} ids)]]"


def for_job(publisher: Publisher, job_id: str) -> Publisher:
    """``publisher`` naming job ``job_id`` in its tasks where it can (a CeleryPublisher), else itself."""
    tagged = getattr(publisher, "for_job", None)
    return publisher if tagged is None else tagged(job_id)


def queue_depth(publisher: Publisher) -> int | None:
    """Messages waiting in the broker, if the publisher can tell (None: unknown, or unreachable)."""
    probe = getattr(publisher, "queue_depth", None)
    if probe is None:
        return None
    try:
        return int(probe())
    except Exception as exc:
        log.warning("could not read the broker's queue depth: %s", exc)
        return None


def publish_safely(publisher: Publisher, chunks: Sequence[Sequence[int]], parts: bool = False,
                   dear: bool = False, rank: int = 0, ranks: Sequence[int] | None = None) -> bool:
    """Publish puzzle chunks (or, with ``parts``, groups of subtask ids); on a broker failure the
    rows stay queued in SQL, and the reaper publishes them again later."""
    try:
        if parts:
            publisher.publish_parts(chunks, ranks)
        else:
            publisher.publish(chunks, dear=dear, rank=rank)
        return True
    except Exception:
        log.exception("publishing %d chunk(s) failed; the reaper will publish them again", len(chunks))
        return False


def publish_or_mark_due(publisher: Publisher, sessions: sessionmaker[Session],
                        groups: Sequence[Sequence[int]], parts: bool = False, dear: bool = False,
                        rank: int = 0, ranks: Sequence[int] | None = None, share: int = 1) -> bool:
    """Publish; if the broker refuses, mark the rows due (deadline now), so that the reaper's next
    run publishes them again instead of waiting for QUEUED_STALE_SECONDS. ``ranks``: each group's
    (one a task), else spread from ``rank`` by count, ``share`` (FAIR_SHARE) at a level. Rows for
    the dear lane (``dear``, or ``parts``) take their place there first (``place_in_dear_lane``)."""
    if dear or parts:
        levels = ([min(PRIORITIES - 1, r) for r in ranks] if ranks is not None
                  else priorities(len(groups), rank, share))
        place_in_dear_lane(sessions, Subtask if parts else Puzzle, groups, levels)
    if ranks is not None and not parts:  # a puzzle task takes one rank: one publish each
        published = [_publish_or_mark_due(publisher, sessions, [ids], False, dear, level, None)
                     for ids, level in zip(groups, ranks, strict=True)]  # each, whatever the others did
        return all(published)
    return _publish_or_mark_due(publisher, sessions, groups, parts, dear, rank, ranks)


def _publish_or_mark_due(publisher: Publisher, sessions: sessionmaker[Session],
                         groups: Sequence[Sequence[int]], parts: bool, dear: bool, rank: int,
                         ranks: Sequence[int] | None) -> bool:
    """One publish of ``groups``, their rows marked due if the broker refuses it."""
    if publish_safely(publisher, groups, parts=parts, dear=dear, rank=rank, ranks=ranks):
        return True
    mark_due(sessions, [i for ids in groups for i in ids], Subtask if parts else Puzzle)
    return False


def place_in_dear_lane(sessions: sessionmaker[Session], model: type[Puzzle] | type[Subtask],
                       groups: Sequence[Sequence[int]], levels: Sequence[int]) -> None:
    """Record where rows wait in the dear lane (``dear_level``, and now as ``dear_at``), before they
    are published: the ETA counts the dear work ahead of a job's (store.ahead). One UPDATE a level."""
    by_level: dict[int, list[int]] = {}
    for ids, level in zip(groups, levels, strict=True):
        by_level.setdefault(level, []).extend(ids)
    try:
        with sessions() as s, s.begin():
            t = now()
            for level, ids in by_level.items():
                s.execute(update(model).where(model.id.in_(ids)).values(dear_level=level, dear_at=t)
                          .execution_options(synchronize_session=False))
    except Exception:  # only the ETA reads it: the work goes on
        log.exception("could not record the dear lane's place of %d row(s)", sum(map(len, by_level.values())))


def dear_levels(costs: Sequence[float], rank: int, queued: float, quantum: float) -> list[int]:
    """The ranks of dear tasks published together, by predicted CPU seconds rather than by count:
    the job's ``rank``, one more per ``quantum`` seconds of its client's work ahead of the task
    (``queued``, the client's other unfinished work, then the tasks before it here). The broker's
    last level takes every rank past it (``priorities``)."""
    levels, ahead = [], queued
    for cost in costs:
        levels.append(rank + int(ahead // quantum))
        ahead += cost
    return levels


def part_levels(s: Session, subtask_ids: Sequence[int], quantum: float) -> list[int] | None:
    """The ranks of parts published together (one subtask a task, in order), by predicted seconds as
    a new job's dear tasks (``dear_levels``): a split puzzle's parts share its prediction equally and
    stand behind its owner's unfinished work other than themselves, then behind the parts before
    them. None (spread by count) without a ``quantum`` (DEAR_SHARE_SECONDS)."""
    if quantum <= 0 or not subtask_ids:
        return None
    rows = s.execute(select(Subtask.id, Puzzle.estimated_seconds, Puzzle.parts_total, Job.owner)
                     .join(Puzzle, Puzzle.id == Subtask.puzzle_id).join(Job, Job.id == Puzzle.job_id)
                     .where(Subtask.id.in_(list(subtask_ids)))).all()
    shares = {r.id: (r.owner, (r.estimated_seconds or 0.0) / max(r.parts_total, 1)) for r in rows}
    return _owner_levels(s, subtask_ids, shares, quantum)


def puzzle_levels(s: Session, puzzle_ids: Sequence[int], quantum: float) -> list[int] | None:
    """The ranks of puzzles published to the dear lane one a task (moved there past the cheap lane's
    cap, worker.chunk), as ``part_levels``: each behind its owner's unfinished work other than
    itself, then behind the puzzles before it. None (spread by count) without a ``quantum``."""
    if quantum <= 0 or not puzzle_ids:
        return None
    rows = s.execute(select(Puzzle.id, Puzzle.estimated_seconds, Job.owner).join(Job, Job.id == Puzzle.job_id)
                     .where(Puzzle.id.in_(list(puzzle_ids)))).all()
    return _owner_levels(s, puzzle_ids, {r.id: (r.owner, r.estimated_seconds or 0.0) for r in rows}, quantum)


def _owner_levels(s: Session, ids: Sequence[int], cost: dict[int, tuple[str, float]],
                  quantum: float) -> list[int]:
    """Each row's rank (``cost``: its owner and predicted seconds; a row not found takes 0): behind
    its owner's unfinished work, less the rows here, which count one by one in id order."""
    ahead = work_left(s, {owner for owner, _seconds in cost.values()})
    for owner, seconds in cost.values():
        ahead[owner] -= seconds
    level_of: dict[int, int] = {}
    for i in sorted(cost):
        owner, seconds = cost[i]
        level_of[i] = dear_levels([seconds], 0, max(ahead[owner], 0.0), quantum)[0]
        ahead[owner] += seconds
    return [level_of.get(i, 0) for i in ids]


def publish_in_lanes(publisher: Publisher, sessions: sessionmaker[Session], lanes: Lanes,
                     chunks: Sequence[tuple[Sequence[int], float]], rank: int = 0,
                     queued: float | None = None, quantum: float = 0.0, stored: Sequence[int] = ()) -> None:
    """Publish chunks of puzzle ids, each given with its estimated seconds, each lane's in order
    (see publish_or_mark_due), from the job's ``rank``. With ``queued`` (the client's predicted
    seconds of other unfinished work) and a ``quantum`` (DEAR_SHARE_SECONDS), the dear lane's tasks
    take their levels by predicted seconds (``dear_levels``), each published on its own; otherwise
    by count. ``stored``: chunks by id (store.chunks), in the cheap lane."""
    if stored:
        try:
            publisher.publish_chunks(stored, rank=rank)
        except Exception:
            log.exception("publishing %d chunk(s) failed; the reaper will publish them again", len(stored))
            mark_due(sessions, stored, Chunk)
    for dear in (False, True):
        lane = [(ids, cost) for ids, cost in chunks if lanes.is_dear(cost) == dear]
        if dear and lane and queued is not None and quantum > 0:
            levels = dear_levels([cost for _ids, cost in lane], rank, queued, quantum)
            publish_or_mark_due(publisher, sessions, [ids for ids, _cost in lane], dear=True, ranks=levels)
        elif lane:
            publish_or_mark_due(publisher, sessions, [ids for ids, _cost in lane], dear=dear, rank=rank,
                                share=lanes.fair_share)


def mark_due(sessions: sessionmaker[Session], ids: Sequence[int],
             model: type[Puzzle] | type[Subtask] | type[Chunk] = Puzzle) -> None:
    """Rows (puzzles, subtasks or chunks) whose publication failed, due for the reaper at once."""
    try:
        with sessions() as s, s.begin():
            s.execute(update(model).where(model.id.in_(ids), model.status.in_(UNFINISHED))
                      .values(deadline=now()).execution_options(synchronize_session=False))
    except Exception:  # the database too: their deadline (QUEUED_STALE_SECONDS) still holds
        log.exception("could not mark %d unpublished row(s) due", len(ids))
