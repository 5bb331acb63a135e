"""Retry: a job's failed and cancelled puzzles put back in the queue with a new attempt budget."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import case, delete, func, select, update
from sqlalchemy.orm import Session

from solvers.base import Estimate
from store import chunk_control, chunks, event_records, tallies
from store.costs import SECONDS_LEFT, overrun
from store.db import dialect_of
from store.fastjson import canonical
from store.jobs import Backlogged, possible_index
from store.models import CANCELLED, FAILED, QUEUED, RUNNING, UNFINISHED, Job, Puzzle, Subtask, lock_job, now
from store.statements import CLIENT_SUBMIT_LOCK
from store.submit import OverBudget, within_budget

RETRYABLE = (FAILED, CANCELLED)


@dataclass(frozen=True)
class Retried:
    """Puzzles put back in the queue: their ids in batch order, each with its estimated seconds,
    the owner's other unfinished jobs (the rank of their tasks, store.publish) and the owner's
    predicted seconds not yet done before the retry (the levels of its dear tasks, store.publish)."""

    puzzles: list[tuple[int, float]]
    rank: int
    queued: float


class NoSuchPuzzle(Exception):
    def __init__(self, index: int):
        super().__init__(f"the job has no puzzle {index}")
        self.index = index


class NotRetryable(Exception):
    def __init__(self, index: int, status: str):
        super().__init__(f"puzzle {index} is {status}; only failed and cancelled puzzles are retried")
        self.index, self.status = index, status


# What a retried puzzle is given by ``recheck``: from its index, kind, input and options (the stored
# ones merged with the new), the options checked with every default filled in, its prediction (or
# price) and its signature (store.pricing; None: its kind models its options).
Recheck = Callable[[int, str, Any, dict[str, Any]], tuple[dict[str, Any], Estimate, str | None]]


def retry_puzzles(s: Session, job: Job, indexes: Sequence[int] | None, options: Mapping[str, Any],
                  recheck: Recheck, queued_stale_seconds: float, max_pending: int,
                  budget: float = 0.0) -> Retried:
    """Put failed and cancelled puzzles back in the queue: all of the job's, or those at
    ``indexes``, each of which must be one (NoSuchPuzzle, NotRetryable otherwise). Each keeps its
    input, takes its options merged with ``options`` and checked again by ``recheck`` (whose
    exception propagates: the caller's rollback leaves everything as it was), and starts a new
    attempt budget: ``attempts_base`` moves to its attempt number plus one, and so does the number,
    which only grows, so a late task of an earlier attempt finds the row changed and writes
    nothing. Its result, error, parts and stop flag are cleared; the job's ``pending`` counter
    grows by the puzzles put back and the job is unfinished again (``running``, or ``queued`` if no
    puzzle of it ever started), a cancelled job included. Returns the puzzles' ids in batch order,
    each with its estimated seconds, to publish once this transaction commits. The tallies count
    each puzzle put back as newly queued; the final statuses keep counting every time a puzzle
    reached them. Raises Backlogged if the owner would have more than ``max_pending`` puzzles
    unfinished, and OverBudget if it would be charged more than ``budget`` seconds of unfinished
    work (store.costs.work_left; each retried puzzle at the larger of its new prediction and the
    CPU seconds it already took, which it keeps; 0: no budget). Under a budget on PostgreSQL it first
    takes the owner's submit lock (store.submit), so that a client's retries and submits read its
    backlog one after the other and cannot pass the budget together (SQLite's BEGIN IMMEDIATE
    serialises them already)."""
    if budget > 0 and dialect_of(s).writes_in_with:  # READ COMMITTED: later reads see the last holder's
        s.execute(CLIENT_SUBMIT_LOCK, {"owner": job.owner})
    lock_job(s, job.id)
    s.refresh(job)  # its counter as of the lock
    # Entries of chunks are put back as puzzle rows (store.chunks)
    letters = "".join(chunks.LETTERS[status] for status in RETRYABLE)
    stays = chunk_control.leave_final(s, job.id, letters, None if indexes is None else
                               [i for i in indexes if possible_index(i)])
    # "at": "index" would name the row's tuple method
    q = select(Puzzle.id, Puzzle.index.label("at"), Puzzle.kind, Puzzle.input, Puzzle.options,
               Puzzle.status, Puzzle.estimated_seconds, Puzzle.estimate_factor,
               Puzzle.cpu_seconds).where(Puzzle.job_id == job.id)
    wanted: list[int] = []
    if indexes is None:
        q = q.where(Puzzle.status.in_(RETRYABLE))
    else:
        wanted = sorted(set(indexes))
        bad = next((i for i in wanted if not possible_index(i)), None)
        if bad is not None:
            raise NoSuchPuzzle(bad)
        q = q.where(Puzzle.index.in_(wanted))
    rows = s.execute(q.order_by(Puzzle.index).with_for_update()).all()
    found = {row.at: row for row in rows}
    for i in wanted:
        if i in stays:
            raise NotRetryable(i, stays[i])
        if i not in found:
            raise NoSuchPuzzle(i)
        if found[i].status not in RETRYABLE:
            raise NotRetryable(i, found[i].status)
    rechecked = [recheck(row.at, row.kind, row.input, merged(row.options, options)) for row in rows]
    checked = [(row, new_options, estimate) for row, (new_options, estimate, _sig) in zip(rows, rechecked,
                                                                                         strict=True)]
    signatures = {row.id: sig for row, (_options, _estimate, sig) in zip(rows, rechecked, strict=True)}
    others = (Job.owner == job.owner, Job.status.in_(UNFINISHED), Job.id != job.id)
    pending, rank, left = s.execute(select(func.coalesce(func.sum(Job.pending), 0), func.count(),
                                           func.coalesce(func.sum(SECONDS_LEFT), 0.0)).where(*others)).one()
    if job.status in UNFINISHED:  # the rest of this job is the owner's unfinished work too
        left += (job.estimated_seconds or 0.0) - job.done_seconds
    left += s.scalar(select(overrun(job.owner))) or 0.0  # this job's running puzzles' too, if it runs
    if not checked:
        return Retried([], int(rank), float(left))
    if pending + job.pending + len(checked) > max_pending:
        raise Backlogged(int(pending + job.pending), max_pending)
    # Each is priced at what it already cost where that passes its new prediction: an unfinished
    # puzzle counts the larger of the two (store.costs), so the retry passes the budget as it will hold it.
    work = sum(max(estimate.seconds, row.cpu_seconds or 0.0) for row, _options, estimate in checked)
    if not within_budget(left, work, budget):
        measured = any((row.cpu_seconds or 0.0) > estimate.seconds for row, _options, estimate in checked)
        raise OverBudget(work, budget, max(budget - left, 0.0), "the retried puzzles are",
                         measured=measured)
    t = now()
    ids = [row.id for row in rows]
    s.execute(delete(Subtask).where(Subtask.puzzle_id.in_(ids)).execution_options(synchronize_session=False))
    # One UPDATE per set of options (a batch's puzzles mostly share theirs).
    by_options: dict[str, tuple[dict[str, Any], list[int]]] = {}
    for row, new_options, _cost in checked:
        by_options.setdefault(canonical(new_options), (new_options, []))[1].append(row.id)
        tallies.moved(s, row.kind, None, QUEUED)
    event_records.retried(s, t, {row.id: new_options for row, new_options, _cost in checked})
    event_records.reopened(s, job)
    _predicted_again(s, job, checked, signatures)
    for new_options, group in by_options.values():
        s.execute(update(Puzzle).where(Puzzle.id.in_(group), Puzzle.status.in_(RETRYABLE))
                  .values(status=QUEUED, options=new_options, attempts=Puzzle.attempts + 1,
                          attempts_base=Puzzle.attempts + 1, result=None, stats=None, block_id=None,
                          error=None, solve_ms=None, worker=None, started_at=None, finished_at=None,
                          dear_level=None, dear_at=None,
                          deadline=t + timedelta(seconds=queued_stale_seconds), parts_total=0,
                          parts_done=0, stop_requested=False, split_head=None)
                  .execution_options(synchronize_session=False))
    undone = sum(row.estimated_seconds or 0.0 for row, _options, _estimate in checked)
    s.execute(update(Job).where(Job.id == job.id)
              .values(pending=Job.pending + len(checked), done_seconds=Job.done_seconds - undone,
                      finished_at=None, status=case((Job.started_at.is_(None), QUEUED), else_=RUNNING))
              .execution_options(synchronize_session=False))
    s.refresh(job)
    # Placed as priced: a puzzle that already ran past its prediction (moved to the dear lane past
    # the cheap lane's cap, say) goes back to the lane of what it took, not to run to the cap again.
    return Retried([(row.id, max(estimate.seconds, row.cpu_seconds or 0.0))
                    for row, _options, estimate in checked], int(rank), float(left))


def merged(stored: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """``stored`` options with ``new`` merged in key by key, at every depth: an object given where
    an object is stored merges into it (a retry that names one generate option keeps the request's
    others), any other value replaces the stored one, and null removes the key (the option is
    checked again with its default)."""
    out = dict(stored)
    for key, value in new.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def _predicted_again(s: Session, job: Job, checked: Sequence[tuple[Any, dict[str, Any], Estimate]],
                     signatures: Mapping[int, str | None]) -> None:
    """Each retried puzzle's new prediction and signature (its options may have changed) stored on
    its row, and the job's sums moved from the old predictions to the new."""
    s.execute(update(Puzzle), [{"id": row.id, "estimated_seconds": estimate.seconds,
                                "estimate_factor": estimate.factor, "estimate_basis": estimate.basis,
                                "signature": signatures[row.id]}
                               for row, _options, estimate in checked])
    if job.estimated_seconds is None:
        return  # stored without predictions: its sums cover none of its other puzzles
    old = sum(row.estimated_seconds or 0.0 for row, _o, _e in checked)
    old_high = sum((row.estimated_seconds or 0.0) * (row.estimate_factor or 1.0) for row, _o, _e in checked)
    s.execute(update(Job).where(Job.id == job.id)
              .values(estimated_seconds=Job.estimated_seconds + sum(e.seconds for _r, _o, e in checked) - old,
                      estimated_high=Job.estimated_high + sum(e.high for _r, _o, e in checked) - old_high)
              .execution_options(synchronize_session=False))
