"""Writing results: each puzzle's row as its task held it (``still_mine``), its answer into the job's
block (store.blocks), the job's counter and the tallies moved in the same transaction, by exactly
the rows written; the job completes in the statement whose write leaves nothing pending.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from operator import attrgetter
from typing import Any

from sqlalchemy.orm import Session

from store import blocks, tallies
from store.models import lock_job, now
from store.rows import Result, held_as, held_status
from store.statements import LOCK_AND_BLOCK, ids_param, statements_for


def write(s: Session, results: Sequence[Result]) -> int:
    """Store results whose claim is still current; move each job's counter by what was written,
    and complete the job in the same statement when nothing is left."""
    if not results:
        return 0
    t = now()
    block_of, alive = _lock_and_store_answers(s, results)
    results = [r for r in results if r.job_id in alive]
    if not results:
        return 0
    per_job: Counter[str] = Counter()
    for r, landed in _store(s, results, block_of, t):
        for (job_id, kind), n in landed.items():  # a run's puzzles share one solve time
            per_job[job_id] += n
            tallies.moved(s, kind, held_status(r), r.status, n)
            tallies.solved_in(s, kind, r.solve_ms, n)
    job_written = statements_for(s).job_written
    if job_written is not None:  # SQLite: the counters apart (on PostgreSQL, with the rows' UPDATE)
        for job_id, n in per_job.items():
            s.execute(job_written, {"job_id": job_id, "n": n, "t": t})
    return sum(per_job.values())


def _lock_and_store_answers(s: Session, results: Sequence[Result]) -> tuple[dict[int, int], set[str]]:
    """Lock the results' jobs, in order, and store the answers of the results that have one, a block
    per job (store.blocks); returns each such puzzle's block id, and the jobs still there (one
    deleted meanwhile, by DELETE or retention, has no rows left to write, nor room for a block).
    A job with answers is locked by the statement that stores them: a round trip fewer. A result
    whose row turns out not to be this task's any more leaves an entry no row points at, which
    no reader sees."""
    by_job: dict[str, list[Result]] = {}
    for r in results:
        by_job.setdefault(r.job_id, []).append(r)
    block_of: dict[int, int] = {}
    alive: set[str] = set()
    for job_id in sorted(by_job):
        answers = _answers(by_job[job_id])
        if not answers:
            if lock_job(s, job_id) is not None:
                alive.add(job_id)
            continue
        block_id = s.execute(LOCK_AND_BLOCK, {"job_id": job_id, "outcomes": blocks.encode(answers)}).scalar()
        if block_id is not None:
            alive.add(job_id)
            block_of.update(dict.fromkeys(answers, block_id))
    return block_of, alive


# The shape of a result's write: results alike in these are written by one UPDATE.
_SHAPE = attrgetter("status", "attempts", "optimistic", "error", "solve_ms", "worker", "started_at")


def _store(s: Session, results: Sequence[Result], block_of: dict[int, int],
           t: datetime) -> list[tuple[Result, Counter[tuple[str, str]]]]:
    """Write the rows still held by their task; returns, for each group of results written alike,
    one of them and how many rows of each (job, kind) it wrote.

    One UPDATE per group of results written alike (the same status, attempt, times, worker, block
    and error: a run of cheap puzzles is one or two groups), each naming its rows by id only.
    Values per row would cost more to send than the whole write (psycopg builds each array
    element in Python)."""
    groups: dict[tuple[Any, ...], list[Result]] = {}
    for r in results:
        groups.setdefault((_SHAPE(r), block_of.get(r.id)), []).append(r)
    statements = statements_for(s)
    written: list[tuple[Result, Counter[tuple[str, str]]]] = []
    for (_, block_id), group in groups.items():
        landed = s.execute(statements.store, {**_group(s, group), "block_id": block_id, "t": t})
        counts: Counter[tuple[str, str]] = Counter()
        for job_id, kind, n, *_notice in landed:
            counts[job_id, kind] += n
        written.append((group[0], counts))
    return written


def _group(s: Session, group: Sequence[Result]) -> dict[str, Any]:
    """The parameters of a group's UPDATE (``_rows_written``) but its block and time."""
    r = group[0]
    was, was_attempts = held_as(r)  # the rows still this task's (``still_mine``)
    return {"ids": ids_param(s, [g.id for g in group]), "was": was, "was_attempts": was_attempts,
            "status": r.status, "error": r.error, "solve_ms": r.solve_ms, "attempts": r.attempts,
            "worker": r.worker, "started_at": r.started_at}


def _answers(results: Sequence[Result]) -> dict[int, blocks.Answer]:
    """The answers of the results that have one, by puzzle id: a block's content."""
    return {r.id: (r.result, r.stats) for r in results if r.result is not None or r.stats is not None}


def write_at_once(s: Session, results: Sequence[Result]) -> int | None:
    """``write`` in one statement outside a transaction (``_at_once``), on PostgreSQL, for a chunk's
    last results: the job's lock, its block, the rows, the job's counter, its notice and the
    tallies in one round trip instead of five (BEGIN, lock and block, rows, tallies, COMMIT). None
    where one statement does not do: on SQLite, or for results of more than one job or written
    unalike (``_SHAPE``); ``write`` takes those. The session must be fresh: it commits as it goes."""
    at_once = statements_for(s).at_once
    if at_once is None or len({(r.job_id, _SHAPE(r)) for r in results}) != 1:
        return None
    r, answers = results[0], _answers(results)
    adds = tallies.per_result(held_status(r), r.status, r.solve_ms)
    s.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
    landed = s.execute(at_once, {
        **_group(s, results), "job": r.job_id, "outcomes": blocks.encode(answers) if answers else None,
        "t": now(), "tally_names": list(adds), "tally_values": list(adds.values()), "shard": tallies.shard()})
    return sum(n for _job, _kind, n, _notice in landed)
