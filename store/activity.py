"""The service's last hour by the minute, for the fleet view's charts (service.fleet): puzzles
finished, puzzles failed, and how long they took from submission to their end (latency).

Read from SQL, so the charts survive a restart of every process: as store.fleet does, the recent
jobs' ids first, then only their puzzle rows and chunks. A written chunk counts each entry it
finished at its ``finished_at`` with the chunk's own latency. Terms: docs/glossary.md.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from store import chunks
from store.fleet import recent_jobs
from store.models import CANCELLED, FAILED, NO_SOLUTION, SOLVED, Chunk, Puzzle, aware

_ENDED = (SOLVED, NO_SOLUTION, FAILED)  # ended by a worker (a cancel is the API's, not work done)


@dataclass(frozen=True)
class Minute:
    """One minute from ``start``: puzzles a worker ended in it, those failed, and their latency
    (seconds from submission to the end) at the median and the 95th percentile (None: none)."""

    start: datetime
    finished: int
    failed: int
    latency_p50: float | None
    latency_p95: float | None


def by_minute(s: Session, at: datetime, minutes: int = 60) -> list[Minute]:
    """The ``minutes`` whole minutes up to ``at``, oldest first."""
    end = at.replace(second=0, microsecond=0) + timedelta(minutes=1)
    since = end - timedelta(minutes=minutes)
    finished: dict[int, int] = defaultdict(int)
    failed: dict[int, int] = defaultdict(int)
    latencies: dict[int, list[tuple[float, int]]] = defaultdict(list)  # (seconds, puzzles), per minute
    jobs = recent_jobs(s, since)
    for ended, created, n, n_failed in (_rows(s, jobs, since) + _entries(s, jobs, since)) if jobs else []:
        slot = int((ended - since).total_seconds() // 60)
        if 0 <= slot < minutes:
            finished[slot] += n
            failed[slot] += n_failed
            latencies[slot].append(((ended - created).total_seconds(), n))
    return [Minute(since + timedelta(minutes=i), finished[i], failed[i], *_percentiles(latencies[i]))
            for i in range(minutes)]


def _percentiles(weighted: list[tuple[float, int]]) -> tuple[float | None, float | None]:
    """The median and 95th percentile of values each counted ``weight`` times (a chunk's entries
    share its latency): the smallest value whose cumulative weight reaches the share."""
    if not weighted:
        return None, None
    ordered = sorted(weighted)
    total = sum(w for _v, w in ordered)

    def at(share: float) -> float:
        seen = 0
        for value, weight in ordered:
            seen += weight
            if seen >= share * total:
                return round(value, 3)
        return round(ordered[-1][0], 3)

    return at(0.5), at(0.95)


def _rows(s: Session, jobs: list[str], since: datetime) -> list[tuple[datetime, datetime, int, int]]:
    """(ended, submitted, 1, failed or not) of each puzzle row a worker ended since ``since``."""
    q = select(Puzzle.finished_at, Puzzle.created_at, Puzzle.status).where(
        Puzzle.job_id.in_(jobs), Puzzle.status.in_(_ENDED), Puzzle.finished_at >= since)
    return [(aware(ended), aware(created), 1, int(status == FAILED))
            for ended, created, status in s.execute(q) if ended is not None]


def _entries(s: Session, jobs: list[str], since: datetime) -> list[tuple[datetime, datetime, int, int]]:
    """(ended, submitted, entries ended, entries failed) of each chunk written since ``since``."""
    q = select(Chunk.finished_at, Chunk.created_at, Chunk.outcome).where(
        Chunk.job_id.in_(jobs), Chunk.status == chunks.WRITTEN, Chunk.finished_at >= since)
    skip = (chunks.LEFT, chunks.LETTERS[CANCELLED])
    out = []
    for ended, created, outcome in s.execute(q):
        n = sum(letter not in skip for letter in outcome or "")
        if ended is not None and n:
            out.append((aware(ended), aware(created), n, (outcome or "").count(chunks.LETTERS[FAILED])))
    return out
