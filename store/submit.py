"""Submitting: a checked batch stored as a job and one row per puzzle, and cut into tasks.

A job and its puzzles go in by one statement on PostgreSQL (two on SQLite), whatever the batch's
size: the rows travel as one JSON text, and the owner's backlog is read by the same statement
(the statements: store.submit_statements).
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from solvers.base import Estimate
from store import chunks, fastjson, tallies
from store.costs import readable
from store.db import dialect_of
from store.fastjson import canonical
from store.jobs import Backlogged, JobState, job_state
from store.lane_settings import Lanes
from store.models import QUEUED, Job, now
from store.statements import CLIENT_SUBMIT_LOCK
from store.submit_statements import (
    CHUNK_IDS,
    INSERT_CHUNKS_ON_SQLITE,
    INSERT_JOB,
    INSERT_PUZZLES_ON_SQLITE,
    PUZZLE_IDS,
    STORE_ON_POSTGRESQL,
)


@dataclass(frozen=True)
class CheckedItem:
    """One puzzle of a batch, checked (service.batches), as it is stored."""

    kind: str
    puzzle: Any
    options: dict[str, Any]  # every default filled in, as the worker will use them
    estimate: Estimate  # its prediction (Kind.predict) or its price (store.pricing), stored with it
    signature: str | None = None  # of kind and options its kind does not model (store.pricing)
    item: int = 0  # its item's index in the request's body (a generate item's puzzles share it)

    @property
    def cost(self) -> float:
        """Its predicted seconds, for cutting the batch into tasks."""
        return self.estimate.seconds


@dataclass(frozen=True)
class CheckedBatch:
    label: str | None
    items: list[CheckedItem]
    callback_url: str | None = None
    accept_cost: bool = False  # the job lifts MAX_PUZZLE_CPU_SECONDS (service.api)


def request_hash(body: Any) -> str:
    return hashlib.sha256(canonical(body).encode()).hexdigest()


def chunk_sizes(costs: Sequence[float], spread: int, largest: int, seconds: float,
                most: float = float("inf")) -> list[int]:
    """Cut consecutive puzzles into tasks by their predicted seconds (Kind.predict).

    A task holds about ``seconds`` of work or more: dispatching it and its SQL round trips cost
    a few milliseconds, so cheap puzzles travel by the hundred. A batch with more work than that
    is spread over at least ``spread`` tasks, so that many workers share it, but a task holds no
    more than ``most`` (so that a task of cheap puzzles stays cheap, see store.publish); a
    puzzle dearer than a task's share goes alone. No task holds more than ``largest`` puzzles."""
    target = min(max(seconds, sum(costs) / spread), most)
    sizes: list[int] = []
    size, work = 0, 0.0
    for cost in costs:
        if size and (size == largest or work + cost > target * (1 + 1e-9)):  # sums of floats
            sizes.append(size)
            size, work = 0, 0.0
        size, work = size + 1, work + cost
    if size:
        sizes.append(size)
    return sizes


@dataclass(frozen=True)
class Task:
    """One task of a stored batch: a chunk (``chunk``, its id) or puzzle rows (``ids``), and its
    predicted seconds."""

    ids: list[int]
    chunk: int | None
    cost: float


def create_job(s: Session, owner: str, submit: CheckedBatch, lanes: Lanes, *, label: str | None,
               key: str | None, body_hash: str | None, max_pending: int,
               budget: float = 0.0) -> tuple[JobState, list[Task], int, float]:
    """Store the job, its cheap runs as chunks (store.chunks) and its other puzzles as a row each;
    returns the job as stored (all queued), its tasks in batch order, the owner's other unfinished
    jobs (the rank of its tasks, store.publish) and their predicted seconds not yet done (the
    levels of its dear tasks, store.publish).
    The rows have no deadline: their ``created_at`` dates the publication (store.models).
    Raises Backlogged, storing nothing, if the owner would have more than ``max_pending`` puzzles
    unfinished, and OverBudget if more than ``budget`` predicted seconds of unfinished work (0: no
    budget). The session must be fresh: on PostgreSQL the job is stored by one statement outside
    a transaction."""
    created = now()
    items = submit.items
    job_id = uuid.uuid4().hex
    costs = [item.estimate.seconds for item in items]
    work = sum(costs)
    tasks = _tasks(costs, lanes)
    runs = chunks.runs_of(tasks, [item.kind for item in items], [item.options for item in items])
    in_runs = {i for run in runs for i in range(run.first, run.first + run.size)}
    tallies.submitted(s)
    for kind, n in Counter(item.kind for item in items).items():
        tallies.moved(s, kind, None, QUEUED, n)
    params = {"id": job_id, "owner": owner, "label": label, "callback_url": submit.callback_url,
              "status": QUEUED, "total": len(items), "pending": len(items), "idempotency_key": key,
              "request_hash": body_hash, "created_at": created,
              "max_pending": max_pending,
              "budget": budget,
              "estimated_seconds": work,
              "estimated_high": sum(item.estimate.high for item in items),
              # One JSON text for every row and one for every chunk: one encoder call each, one
              # parameter, one SQL text whatever the batch's size.
              "puzzles": fastjson.dumps([[i, item.kind, item.puzzle, item.options, *item.estimate,
                                          item.signature]
                                         for i, item in enumerate(items) if i not in in_runs]),
              "chunks": fastjson.dumps([_chunk(run, items[run.first:run.first + run.size]) for run in runs])}
    pending, rank, ids, chunk_ids, unfinished = _store(s, params)
    if pending + len(items) > max_pending:
        raise Backlogged(pending, max_pending)
    if not within_budget(unfinished, work, budget):
        raise OverBudget(work, budget, max(budget - unfinished, 0.0))
    stored = Job(id=job_id, label=label, status=QUEUED, total=len(items), pending=len(items),
                 created_at=created, estimated_seconds=work,
                 estimated_high=params["estimated_high"], done_seconds=0.0)
    stored_tasks = _stored_tasks(tasks, runs, ids, chunk_ids, costs)
    return job_state(stored, {QUEUED: len(items)}), stored_tasks, rank, unfinished


def _tasks(costs: Sequence[float], lanes: Lanes) -> list[tuple[int, int, bool]]:
    """The batch cut into tasks (``chunk_sizes``): each one's first index, size and lane (dear)."""
    out, first = [], 0
    sizes = chunk_sizes(costs, lanes.chunk_spread, lanes.chunk_max, lanes.chunk_seconds, lanes.dear_seconds)
    for size in sizes:
        out.append((first, size, lanes.is_dear(sum(costs[first:first + size]))))
        first += size
    return out


def _chunk(run: chunks.Run, items: Sequence[CheckedItem]) -> list[Any]:
    """A chunk's row as the submit's statement reads it."""
    estimates = [list(item.estimate) for item in items]
    return [run.first, run.size, items[0].kind, items[0].options,
            fastjson.dumps([item.puzzle for item in items]), fastjson.dumps(estimates),
            sum(item.estimate.seconds for item in items)]


def _stored_tasks(tasks: Sequence[tuple[int, int, bool]], runs: Sequence[chunks.Run], ids: Sequence[int],
                  chunk_ids: Sequence[int], costs: Sequence[float]) -> list[Task]:
    """The batch's tasks as stored: each chunk a task, the puzzle rows of each cut task another."""
    chunk_at = {run.first: (run, chunk_id) for run, chunk_id in zip(runs, chunk_ids, strict=True)}
    rows = iter(ids)
    out: list[Task] = []
    for first, size, _dear in tasks:
        i, rowed = first, []
        while i < first + size:
            if i in chunk_at:
                run, chunk_id = chunk_at[i]
                out.append(Task([], chunk_id, sum(costs[i:i + run.size])))
                i += run.size
            else:
                rowed.append(i)
                i += 1
        if rowed:
            out.append(Task([next(rows) for _ in rowed], None, sum(costs[j] for j in rowed)))
    return out


class OverBudget(Exception):
    """The owner's unfinished work and the batch's (or a retry's puzzles') together pass the client's
    budget of CPU seconds (CLIENT_CPU_BUDGET; what it is charged, store.costs.work_left); nothing is
    stored. ``measured``: the work is priced by what it already took, not its prediction alone."""

    def __init__(self, batch: float, budget: float, left: float, what: str = "the batch is", *,
                 measured: bool = False):
        priced = ("priced at {} CPU seconds (what they already took, where more than predicted)"
                  if measured else "predicted at {} CPU seconds")
        super().__init__(f"{what} {priced.format(readable(batch))}; {readable(left)} of your "
                         f"budget of {readable(budget)} are left")
        self.batch, self.budget, self.left, self.measured = batch, budget, left, measured


def within_budget(work: float, batch: float, budget: float) -> bool:
    """Whether ``batch`` predicted seconds fit in ``budget`` (0: none) beside ``work`` unfinished."""
    return budget <= 0 or work + batch <= budget


def _store(s: Session, params: dict[str, Any]) -> tuple[int, int, list[int], list[int], float]:
    """The owner's backlog (unfinished puzzles, jobs, predicted seconds left), the job's puzzle ids
    in batch order and its chunk ids in batch order; the job, its puzzles, its chunks and the
    session's tallies stored unless the backlog or the budget refuses the job (then nothing is,
    and no id comes back). PostgreSQL does it all in one statement outside a transaction: one
    round trip where a transaction takes five; but under a budget, in a transaction that first
    takes the owner's lock (statements.CLIENT_SUBMIT_LOCK), so that concurrent submits of one
    client read the backlog one after the other and cannot pass the budget together. SQLite has
    no INSERT inside WITH: the job's row first (its INSERT reads the backlog), then the puzzles'
    and the chunks', in the session's transaction (BEGIN IMMEDIATE: the write lock serialises
    every submit; the caller rolls back when the backlog refuses the job)."""
    if dialect_of(s).writes_in_with:
        if params["budget"] > 0:  # READ COMMITTED: the store's statement sees the last holder's job
            s.connection(execution_options={"isolation_level": "READ COMMITTED"})
            s.execute(CLIENT_SUBMIT_LOCK, {"owner": params["owner"]})
        else:
            s.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        counts = tallies.take(s)
        pending, rank, ids, work, chunk_ids = s.execute(STORE_ON_POSTGRESQL, {
            **params, "tally_kinds": [c["kind"] for c in counts], "tally_names": [c["name"] for c in counts],
            "tally_shards": [c["shard"] for c in counts], "tally_values": [c["value"] for c in counts]}).one()
        return int(pending), int(rank), list(ids or []), list(chunk_ids or []), float(work)
    pending, rank, work = s.execute(INSERT_JOB, {**params, "backlog_owner": params["owner"],
                                                 "new_job": params["id"]}).one()
    if (pending + params["total"] > params["max_pending"]
            or not within_budget(work, params["estimated_seconds"], params["budget"])):
        return int(pending), int(rank), [], [], float(work)
    s.execute(INSERT_PUZZLES_ON_SQLITE, params)
    s.execute(INSERT_CHUNKS_ON_SQLITE, params)
    return (int(pending), int(rank), list(s.scalars(PUZZLE_IDS, {"job_id": params["id"]})),
            list(s.scalars(CHUNK_IDS, {"job_id": params["id"]})), float(work))


def chunks_of(ids: Sequence[int], costs: Sequence[float], lanes: Lanes) -> list[tuple[list[int], float]]:
    """Puzzle rows cut into tasks (a retry's): each one's puzzle ids and estimated seconds."""
    return [(list(ids[first:first + size]), sum(costs[first:first + size]))
            for first, size, _dear in _tasks(costs, lanes)]
