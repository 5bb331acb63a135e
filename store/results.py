"""Writing results: each puzzle's row while its task's claim holds it (store.rows.still_mine), its
answer into the job's block (store.blocks), the job's counters (``pending``, ``done_seconds``)
and the tallies moved in the same transaction, by exactly the rows written; the job completes in
the statement whose write leaves nothing pending.

Terms (write, block, pending, tallies): docs/glossary.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from operator import attrgetter
from typing import Any

from sqlalchemy.orm import Session

from store import blocks, tallies
from store.db import dialect_of
from store.models import RUNNING, lock_job, now
from store.rows import Result
from store.statements import LOCK_AND_BLOCK, ids_param, statements_for

# The shape of a result's write: one job's results alike in these are written by one UPDATE.
_SHAPE = attrgetter("job_id", "status", "attempts", "error", "solve_ms", "cpu_seconds")


def write(s: Session, results: Sequence[Result]) -> int:
    """Store results whose claim is still current, in the session's transaction; move each job's
    counter by what was written, and complete the job in the same statement when nothing is left.
    Returns the number of rows written.

    One write per group of results alike (``_SHAPE``: a run of cheap puzzles is one or two
    groups), each naming its rows by id only: values per row would cost more to send than the
    whole write (psycopg builds each array element in Python). The groups go in the order of
    their jobs' ids, the order in which every transaction locks jobs."""
    groups: dict[tuple[Any, ...], list[Result]] = {}
    for r in results:
        groups.setdefault(_SHAPE(r), []).append(r)
    t, written = now(), 0
    for key in sorted(groups, key=lambda shape: shape[0]):
        group = groups[key]
        for kind, n in _write_group(s, group, t).items():
            tallies.moved(s, kind, RUNNING, group[0].status, n)
            tallies.solved_in(s, kind, group[0].solve_ms, n)
            written += n
    return written


def _write_group(s: Session, group: Sequence[Result], t: datetime) -> Counter[str]:
    """Write one job's group of results alike; returns the rows written by kind. A job deleted
    meanwhile (by DELETE or retention) has no rows left to write, nor room for a block. A result
    whose row turns out not to be this task's any more leaves a block entry no row points at,
    which no reader sees."""
    r, answers = group[0], _answers(group)
    outcomes = blocks.encode(answers) if answers else None
    params = {"ids": ids_param(s, [g.id for g in group]), "attempt": r.attempts, "status": r.status,
              "error": r.error, "solve_ms": r.solve_ms, "cpu_seconds": r.cpu_seconds, "t": t}
    statements = statements_for(s)
    if dialect_of(s).writes_in_with:  # the job's lock, block, rows and counter in one statement
        landed = s.execute(statements.write, {**params, "job": r.job_id, "outcomes": outcomes})
        return Counter({kind: n for _job, kind, n, _notice, _cost in landed})
    if outcomes is not None:  # locks the job: its block is stored only if the job is there
        block_id = s.execute(LOCK_AND_BLOCK, {"job_id": r.job_id, "outcomes": outcomes}).scalar()
        if block_id is None:
            return Counter()
    elif lock_job(s, r.job_id) is None:
        return Counter()
    else:
        block_id = None
    rows = s.execute(statements.write, {**params, "block_id": block_id}).all()
    counts = Counter(kind for _job, kind, _one, _cost in rows)
    job_written = statements.job_written
    if counts and job_written is not None:
        cost = sum(row_cost for _job, _kind, _one, row_cost in rows)
        s.execute(job_written, {"job_id": r.job_id, "n": counts.total(), "t": t, "cost": cost})
    return counts


def _answers(results: Sequence[Result]) -> dict[int, str]:
    """The answers of the results that have one, by puzzle id: a block's content."""
    return {r.id: r.answer for r in results if r.answer is not None}
