"""The reaper's survey (the SQL of one run of worker.reaper: store.reaping) against the size of the
backlog.

    python bench/reaper.py [--small 20000] [--large 1000000] [--repeats 9]

Needs the real PostgreSQL (TEST_DATABASE_URL, as the integration tests). On a fresh database,
jobs of 1,000 queued puzzles each, just published, with a few living workers beating and a
running chunk each (claimed, with a deadline), as in a busy service; then the statements of one
reaper run that read the puzzles (``survey`` with its sweep's slice, ``lost_puzzles``,
``lost_subtasks``, in one transaction as the reaper runs them), timed at ``--small`` queued
puzzles and again at ``--large``. Medians over ``--repeats``. A run must cost about the same at
both sizes for the reaper to keep its interval at any backlog.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import text

from store import reaping
from store.db import make_engine, make_sessionmaker, migrate, plan_for_each_list
from store.models import now
from store.settings import Settings
from tests.support.devstack import fresh_postgres

JOB_SIZE = 1000
WORKERS = 4


def add_jobs(engine, first: int, count: int) -> None:
    """``count`` jobs of JOB_SIZE queued sudoku puzzles, just published (as store.submit stores them:
    no deadline)."""
    with engine.begin() as conn:
        conn.execute(text("""
            INSERT INTO jobs (id, owner, label, status, total, pending, created_at)
            SELECT 'bench' || j, 'bench', 'reaper bench', 'queued', :size, :size, now()
            FROM generate_series(CAST(:first AS int), CAST(:last AS int)) AS j"""),
                     {"first": first, "last": first + count - 1, "size": JOB_SIZE})
        conn.execute(text("""
            INSERT INTO puzzles (job_id, index, kind, input, options, status, attempts, attempts_base,
                                 parts_total, parts_done, stop_requested, created_at)
            SELECT 'bench' || j, i, 'sudoku', CAST('"' || repeat('.', 81) || '"' AS json), '{}',
                   'queued', 0, 0, 0, 0, false, now()
            FROM generate_series(CAST(:first AS int), CAST(:last AS int)) AS j,
                 generate_series(0, CAST(:top AS int)) AS i"""),
                     {"first": first, "last": first + count - 1, "top": JOB_SIZE - 1})
        conn.execute(text("ANALYZE jobs; ANALYZE puzzles"))


def add_workers(engine) -> None:
    """Living workers, each running a claimed chunk of the first job."""
    with engine.begin() as conn:
        for w in range(WORKERS):
            name = f"celery@bench{w}:{w}"
            conn.execute(text("INSERT INTO workers (name, started_at, beat_at, since) "
                              "VALUES (:n, now(), now(), now() - interval '1 second')"), {"n": name})
            conn.execute(text("UPDATE puzzles SET status = 'running', worker = :n, started_at = now(), "
                              "attempts = 1, deadline = now() + interval '10 minutes' "
                              "WHERE job_id = 'bench0' AND index BETWEEN :a AND :b"),
                         {"n": name, "a": w * 100, "b": w * 100 + 99})


def survey_ms(sessions, settings: Settings, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        with sessions() as s, s.begin():
            t = now()
            plan_for_each_list(s)
            lost = reaping.survey(s, t, settings.recovery, trust_silence=True, broker_empty=False)
            found = reaping.lost_puzzles(s, t, lost), reaping.lost_subtasks(s, t, lost)
            assert found == ([], []), found  # nothing here is lost
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=20_000)
    parser.add_argument("--large", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args(argv)
    rows = []
    with fresh_postgres() as url:
        migrate(url)
        settings = Settings.from_env(DATABASE_URL=url, REDIS_URL=None)
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        made = 0
        for size in (args.small, args.large):
            jobs = size // JOB_SIZE
            add_jobs(engine, made, jobs - made)
            if made == 0:
                add_workers(engine)
            made = jobs
            with engine.begin() as conn:  # they beat on while the backlog is stored
                conn.execute(text("UPDATE workers SET beat_at = now()"))
            rows.append((made * JOB_SIZE, survey_ms(sessions, settings, args.repeats)))
        engine.dispose()
    print(f"| queued puzzles | one reaper run's survey, median of {args.repeats} | against the smallest |")
    print("| ---: | ---: | ---: |")
    for queued, ms in rows:
        print(f"| {queued:,} | {ms:.1f} ms | {ms / rows[0][1]:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
