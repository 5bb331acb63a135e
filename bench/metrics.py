"""The cost of a /metrics scrape against the number of puzzle rows, on PostgreSQL.

    python bench/metrics.py [--rows 1000000] [--scrapes 20]

Needs the real PostgreSQL (TEST_DATABASE_URL, as the integration tests). On a fresh database at
the revision before the tallies, stores ``--rows`` finished and queued puzzles in jobs of 1,000
(SQL's generate_series, no API), migrates to head (the tallies' backfill: timed), then times
GET /metrics through the app (reading the tallies) against the scan it made before this
revision (every puzzle row grouped by kind and status, and again for the solve-time histogram),
the same queries the old collector ran. Medians of ``--scrapes`` runs (the scan: of 5).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from alembic import command
from alembic.config import Config
from sqlalchemy import case, func, select, text

from service import create_app
from store import tallies
from store.models import Puzzle
from store.settings import Settings
from tests.support.devstack import fresh_postgres

ROOT = Path(__file__).resolve().parents[1]
PER_JOB = 1000


def fill(conn, rows: int) -> None:
    """Jobs of PER_JOB puzzles of four kinds: 90 % solved, the rest queued, no solution or failed."""
    conn.execute(text("INSERT INTO jobs (id, owner, status, total, pending, created_at, finished_at) "
                      "SELECT 'j' || g, '', 'completed', :per, 0, now(), now() "
                      "FROM generate_series(0, :jobs - 1) g"), {"per": PER_JOB, "jobs": -(-rows // PER_JOB)})
    conn.execute(text(
        "INSERT INTO puzzles (job_id, \"index\", kind, input, options, status, attempts, created_at, "
        "parts_total, parts_done, stop_requested, solve_ms) "
        "SELECT 'j' || (g / :per), g % :per, (ARRAY['sudoku','nqueens','sliding','spokes'])[1 + g % 4], "
        "'\"x\"', '{}', CASE WHEN g % 10 < 9 THEN 'solved' WHEN g % 20 = 9 THEN 'queued' "
        "WHEN g % 40 = 19 THEN 'no_solution' ELSE 'failed' END, 1, now(), 0, 0, false, "
        "CASE WHEN g % 20 = 9 THEN NULL ELSE random() * 50 END "
        "FROM generate_series(0, :rows - 1) g"), {"per": PER_JOB, "rows": rows})


def old_scan(s) -> None:
    """What /metrics read before the tallies (its queries, for the comparison)."""
    s.execute(select(func.count()).select_from(Puzzle.__table__)).all()
    s.execute(select(Puzzle.kind, Puzzle.status, func.count()).group_by(Puzzle.kind, Puzzle.status)).all()
    seconds = Puzzle.solve_ms / 1000.0
    columns = [func.sum(case((seconds <= b, 1), else_=0)) for b in tallies.SOLVE_BUCKETS]
    s.execute(select(Puzzle.kind, func.count(), func.coalesce(func.sum(seconds), 0.0), *columns)
              .where(Puzzle.solve_ms.is_not(None)).group_by(Puzzle.kind)).all()


def median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--scrapes", type=int, default=20)
    args = ap.parse_args()
    with fresh_postgres() as url:
        config = Config(str(ROOT / "alembic.ini"))
        config.attributes["database_url"] = url
        command.upgrade(config, "worker_heartbeats")
        broker = str(ROOT / "var" / "bench-broker")  # never used: the scrape needs no broker
        app = create_app(Settings.from_env(DATABASE_URL=url, REDIS_URL=None, BROKER_DIR=broker))
        engine = app.extensions["engine"]
        start = time.perf_counter()
        with engine.begin() as conn:
            fill(conn, args.rows)
        filled = time.perf_counter() - start
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE"))
        start = time.perf_counter()
        command.upgrade(config, "head")
        backfill = time.perf_counter() - start
        client = app.test_client()
        body = client.get("/metrics").get_data(as_text=True)
        assert f'puzzle_queue_jobs_submitted_total {float(-(-args.rows // PER_JOB))}' in body, body[:500]
        scrape = median_ms(lambda: client.get("/metrics"), args.scrapes)
        with app.extensions["sessions"]() as s:
            scan = median_ms(lambda: old_scan(s), 5)
        engine.dispose()
    print(f"{args.rows:,} puzzle rows on PostgreSQL (stored in {filled:.1f} s)\n")
    print("| | median ms |\n|---|---:|")
    print(f"| GET /metrics (tallies) | {scrape:.2f} |")
    print(f"| the scan /metrics made before (its queries alone) | {scan:.0f} |")
    print(f"| migration tallies_and_retention (backfill, once) | {backfill * 1000:.0f} |")


if __name__ == "__main__":
    main()
