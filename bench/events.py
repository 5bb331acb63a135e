"""A job's history (store.events) read at a million stored puzzles.

    python bench/events.py [--stored 1000000] [--repeats 30]

On a fresh SQLite file and, with TEST_DATABASE_URL set (as the integration tests), a fresh
PostgreSQL database: ``--stored`` finished puzzles in jobs of 1,000 rows (bulk inserts), and two
more finished jobs of 1,000 puzzles: one of puzzle rows (each claimed by one of four workers,
every 50th failed with an error, 20 handed on, 10 moved to the dear lane, 5 retried: recorded
events), one of ten written chunks of 100 entries. Timed for each: every event of the job read
at once (``store.events.of_job``), and read through the API a page of 1,000 at a time
(``GET /api/v1/jobs/{id}/events``, every page): median and 95th percentile wall time of
``--repeats``, and the median CPU time of this process (all of SQLite's work; PostgreSQL's
server is not in it).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import text

from service import create_app
from store import events
from store.db import make_engine, make_sessionmaker, migrate
from store.models import Job
from store.settings import Settings
from tests.support.devstack import fresh_postgres

JOB_SIZE = 1000
CHUNK = 100


# Every column a puzzle row needs, and a row's values but for its job, index, status, worker, time
# and error (as the API stores a finished one); "index" quoted, as SQLite wants it.
PUZZLE = ('INSERT INTO puzzles (job_id, "index", kind, input, options, attempts, attempts_base, parts_total, '
          "parts_done, stop_requested, solve_ms, estimated_seconds, status, worker, created_at, started_at, "
          "finished_at, error) ")
SOLVED = "'sudoku', '\"1\"', '{}', 1, 0, 0, 0, false, 1.5, 0.002"
JOB = ("INSERT INTO jobs (id, owner, status, total, pending, done_seconds, created_at, started_at, "
       "finished_at) ")


def fill(engine, stored: int) -> None:
    """``stored`` solved puzzles, in jobs of JOB_SIZE rows, inserted by SQL alone."""
    postgres = engine.dialect.name == "postgresql"
    series = ("generate_series(0, :top) AS {0}({1})" if postgres else
              "(WITH RECURSIVE {0}({1}) AS (SELECT 0 UNION ALL SELECT {1} + 1 FROM {0} WHERE {1} < :top) "
              "SELECT {1} FROM {0}) AS {0}")
    jobs, puzzles = series.format("s", "j"), series.format("p", "i").replace(":top", ":last")
    t = "CURRENT_TIMESTAMP"
    params = {"top": stored // JOB_SIZE - 1, "last": JOB_SIZE - 1, "size": JOB_SIZE}
    with engine.begin() as conn:
        conn.execute(text(f"{JOB} SELECT 'filler' || j, 'bench', 'completed', :size, 0, 0, {t}, {t}, {t} "
                          f"FROM {jobs}"), params)
        conn.execute(text(f"{PUZZLE} SELECT 'filler' || j, i, {SOLVED}, 'solved', 'w0', {t}, {t}, {t}, NULL "
                          f"FROM {jobs}, {puzzles}"), params)
        if postgres:
            conn.execute(text("ANALYZE"))


def measured_jobs(engine) -> tuple[str, str]:
    """The job of rows and the job of chunks, finished, with the events described above."""
    with engine.begin() as conn:
        t = conn.execute(text("SELECT CURRENT_TIMESTAMP")).scalar()
        for job in ("rows", "chunks"):
            conn.execute(text(f"{JOB} VALUES (:j, 'bench', 'completed', :n, 0, 0, :t, :t, :t)"),
                         {"j": job, "n": JOB_SIZE, "t": t})
        conn.execute(text(f"{PUZZLE} VALUES ('rows', :i, {SOLVED}, :status, :w, :t, :t, :t, :error)"),
                     [{"i": i, "w": f"w{i % 4}", "t": t, "status": "failed" if i % 50 == 0 else "solved",
                       "error": "solver error: it broke" if i % 50 == 0 else None} for i in range(JOB_SIZE)])
        recorded = ([("handed_on", i, None) for i in range(0, 200, 10)]
                    + [("moved", i, '{"lane": "dear"}') for i in range(5, 100, 10)]
                    + [("retried", i, '{"was": "failed", "options": {}}') for i in range(0, 250, 50)])
        conn.execute(text("INSERT INTO job_events (job_id, at, type, first, last, worker, attempt, detail) "
                          "VALUES ('rows', :t, :type, :i, :i, 'w1', 1, :detail)"),
                     [{"t": t, "type": kind, "i": i, "detail": detail} for kind, i, detail in recorded])
        conn.execute(text("INSERT INTO chunks (job_id, first, size, kind, options, inputs, estimates, "
                          "estimated_seconds, status, attempts, worker, created_at, started_at, finished_at, "
                          "outcome, solve_ms) VALUES ('chunks', :first, :size, 'sudoku', '{}', :inputs, "
                          ":estimates, 0.2, 'written', 1, 'w1', :t, :t, :t, :outcome, 1.5)"),
                     [{"first": c * CHUNK, "size": CHUNK, "t": t, "outcome": "s" * CHUNK,
                       "inputs": '["1"' + ',"1"' * (CHUNK - 1) + "]",
                       "estimates": "[" + ",".join(['[0.002, 3.0, "typical"]'] * CHUNK) + "]"}
                      for c in range(JOB_SIZE // CHUNK)])
    return "rows", "chunks"


def timed(fn: Callable[[], int], repeats: int) -> tuple[float, float, float, int]:
    """Median and 95th percentile wall ms of ``fn`` over ``repeats`` (after one warm-up), the
    median of this process's CPU ms, and what it returned (the events read)."""
    n = fn()
    times, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return statistics.median(times), p95, statistics.median(cpu), n


Row = tuple[str, str, str, float, float, float, int]  # database, job, how read, median, p95, CPU, events


def measure(url: str, stored: int, repeats: int, broker: str) -> list[Row]:
    migrate(url)
    engine = make_engine(url)
    start = time.perf_counter()
    fill(engine, stored)
    jobs = measured_jobs(engine)
    print(f"{engine.dialect.name}: {stored + 2 * JOB_SIZE:,} puzzles stored in "
          f"{time.perf_counter() - start:.0f} s", file=sys.stderr)
    sessions = make_sessionmaker(engine)
    app = create_app(Settings.from_env(DATABASE_URL=url, REDIS_URL=None, BROKER_DIR=broker, RATE_LIMIT="",
                                       READ_RATE_LIMIT=""))
    client = app.test_client()

    def store_read(job_id: str) -> int:
        with sessions() as s:
            return len(events.of_job(s, s.get(Job, job_id), 1_000_000)[0])

    def api_pages(job_id: str) -> int:
        n, query = 0, {"limit": 1000}
        while True:
            page = client.get(f"/api/v1/jobs/{job_id}/events", query_string=query).json
            n += len(page["items"])
            if not page["next_cursor"]:
                return n
            query["cursor"] = page["next_cursor"]

    rows = []
    for job_id in jobs:
        for what, fn in (("store, all at once", store_read), ("API, pages of 1,000", api_pages)):
            median, p95, cpu, n = timed(lambda f=fn, j=job_id: f(j), repeats)
            rows.append((engine.dialect.name, job_id, what, median, p95, cpu, n))
    app.extensions["engine"].dispose()
    engine.dispose()
    return rows


@contextlib.contextmanager
def databases(tmp: str) -> Iterator[list[str]]:
    """SQLite, and PostgreSQL if TEST_DATABASE_URL is set."""
    urls = [f"sqlite:///{tmp}/events.db"]
    if not os.environ.get("TEST_DATABASE_URL"):
        yield urls
        return
    with fresh_postgres() as pg:
        yield [*urls, pg]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stored", type=int, default=1_000_000, help="filler puzzles (rounded to 1,000s)")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, databases(tmp) as urls:
        rows = [row for url in urls for row in measure(url, args.stored, args.repeats, f"{tmp}/broker")]
    print(f"{args.stored + 2 * JOB_SIZE:,} puzzles stored; {args.repeats} reads each\n")
    print("| database | job of 1,000 | read | events | median | p95 | CPU of this process (median) |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for database, job, what, median, p95, cpu, n in rows:
        print(f"| {database} | {job} | {what} | {n:,} | {median:.1f} ms | {p95:.1f} ms | {cpu:.1f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
