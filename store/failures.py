"""Failed puzzles across every job, newest first, for operators (service.fleet, the fleet view).

A failure is a puzzle row in ``failed`` or a chunk's entry whose letter is ``f`` (its error kept
in the chunk's ``errors`` by offset: store.chunks). As store.fleet does, the recent jobs' ids are
read first (jobs.status and jobs.finished_at are indexed), then only their puzzles and chunks,
never every puzzle. Terms: docs/glossary.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from store import chunks
from store.fleet import recent_jobs
from store.models import FAILED, Chunk, Job, Puzzle, aware


@dataclass(frozen=True)
class Failure:
    """One failed puzzle: its job and owner, its index and kind, why, and when."""

    job_id: str
    owner: str
    index: int
    kind: str
    error: str
    finished_at: datetime


def recent(s: Session, since: datetime, kind: str | None = None, text: str | None = None,
           limit: int = 100) -> list[Failure]:
    """The failures since ``since``, newest first, at most ``limit``; only of ``kind``, and only
    those whose error holds ``text`` (any case), when given."""
    jobs = recent_jobs(s, since)
    if not jobs:
        return []
    owners = dict(s.execute(select(Job.id, Job.owner).where(Job.id.in_(jobs))).all())
    found = _rows(s, jobs, since, kind) + _entries(s, jobs, since, kind)
    wanted = text.lower() if text else None
    found = [f for f in found if wanted is None or wanted in f.error.lower()]
    found.sort(key=lambda f: (f.finished_at, f.job_id, f.index), reverse=True)
    return [Failure(f.job_id, owners.get(f.job_id, ""), f.index, f.kind, f.error, f.finished_at)
            for f in found[:limit]]


def _rows(s: Session, jobs: list[str], since: datetime, kind: str | None) -> list[Failure]:
    q = select(Puzzle.job_id, Puzzle.index, Puzzle.kind, Puzzle.error, Puzzle.finished_at).where(
        Puzzle.job_id.in_(jobs), Puzzle.status == FAILED, Puzzle.finished_at >= since)
    if kind is not None:
        q = q.where(Puzzle.kind == kind)
    return [Failure(job_id, "", index, k, error or "", aware(at))
            for job_id, index, k, error, at in s.execute(q) if at is not None]


def _entries(s: Session, jobs: list[str], since: datetime, kind: str | None) -> list[Failure]:
    """Failed entries of written chunks: a ``f`` letter, its error by offset."""
    q = select(Chunk.job_id, Chunk.first, Chunk.kind, Chunk.outcome, Chunk.errors, Chunk.finished_at).where(
        Chunk.job_id.in_(jobs), Chunk.status == chunks.WRITTEN, Chunk.finished_at >= since,
        Chunk.outcome.contains(chunks.LETTERS[FAILED]))
    if kind is not None:
        q = q.where(Chunk.kind == kind)
    failed = chunks.LETTERS[FAILED]
    return [Failure(job_id, "", first + i, k, (errors or {}).get(str(i), ""), aware(at))
            for job_id, first, k, outcome, errors, at in s.execute(q) if at is not None
            for i, letter in enumerate(outcome or "") if letter == failed]
