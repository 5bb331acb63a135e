"""The fleet's overhead: CPU spent outside solving as the number of worker processes grows.

    python bench/fleet.py [--sizes 1 2 4 8 16 32] [--cheap 20000] [--dear 4] [--parts 64] [--idle 20]

Needs the real PostgreSQL (TEST_DATABASE_URL); Redis is a private `redis-server` this bench
starts on a free port, so that its CPU time is this bench's alone. One stack (bench._services:
gunicorn and `celery worker` processes of concurrency 1, on a fresh database), grown to each
``--sizes`` in turn. At each size:

  idle    the fleet with nothing to do for ``--idle`` seconds: what heartbeats and the reaper's
          turns cost PostgreSQL, Redis and the workers, as a share of one core;
  cheap   ``--cheap`` 17-clue Sudokus (tests/data/sudoku) in 1,000-puzzle jobs, posted at once;
  dear    ``--dear`` n-Queens counts of n = 15 (strategy "tree"), each split into ``--parts``.

For each workload, the CPU time (utime + stime from /proc, before and after) of the API's
processes, of PostgreSQL's backends of this database, of Redis, and of the workers less the
solving itself: the anchor is the same puzzles solved in this process (``solve_batch`` for the
Sudokus, every part's ``solve_part`` for the counts), CPU time, measured in the same run. Also
the PostgreSQL connections at peak (pg_stat_activity, sampled every 0.1 s) and the puzzles that
did not end solved. Two cores cap the throughput: the figures are overhead per puzzle or part
and per worker, not speed-up. PostgreSQL's server processes other than this database's backends
(checkpointer, WAL writer), shared with anything else on the machine, are left out.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solvers
from bench._services import Running, stack
from bench.service import call, load_puzzles, submit, wait_done
from store.db import make_engine
from tests.support.devstack import PG_URL, free_port, process_tree

TICK = os.sysconf("SC_CLK_TCK")
QUEENS = solvers.get("nqueens")
SUDOKU = solvers.get("sudoku")
DEAR = {"mode": "count", "strategy": "tree"}


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """utime + stime of each process still there."""
    out = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            out[pid] = (int(fields[11]) + int(fields[12])) / TICK
    return out


@contextlib.contextmanager
def private_redis() -> Iterator[tuple[str, int]]:
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--maxmemory-policy", "noeviction"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        yield f"redis://127.0.0.1:{port}/0", proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextlib.contextmanager
def private_pgbouncer(server_url: str) -> Iterator[tuple[int, int]]:
    """A PgBouncer in transaction mode with deploy/pgbouncer.ini's pool (10 server connections)
    on a free port, in front of ``server_url``'s server, trusting local clients: (port, pid)."""
    server = make_url(server_url)
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o755)  # PgBouncer refuses to run as root: it runs as postgres
        config = Path(folder) / "pgbouncer.ini"
        config.write_text(f"""[databases]
* = host={server.host or "127.0.0.1"} port={server.port or 5432}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {folder}/users.txt
pool_mode = transaction
default_pool_size = 10
max_db_connections = 10
reserve_pool_size = 0
max_client_conn = 2000
query_wait_timeout = 60
""")
        users = Path(folder) / "users.txt"
        users.write_text(f'"{server.username or "postgres"}" ""\n')  # trust still names its users
        for written in (config, users):
            written.chmod(0o644)
        proc = subprocess.Popen(["pgbouncer", "-u", "postgres", str(config)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(0.5)
            yield port, proc.pid
        finally:
            proc.terminate()
            proc.wait(timeout=10)


class Database:
    """This database's backends (their pids) and connections, seen from a connection of its own."""

    def __init__(self, url: str):
        self.engine = make_engine(url)
        self.conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        self.own = self.conn.execute(text("SELECT pg_backend_pid()")).scalar_one()

    def backends(self) -> list[int]:
        rows = self.conn.execute(text("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"))
        return [pid for (pid,) in rows if pid != self.own]

    def close(self) -> None:
        self.conn.close()
        self.engine.dispose()


@dataclass
class Spent:
    """CPU seconds of each side over one window, and the window's wall seconds."""

    wall: float
    api: float
    postgres: float
    redis: float
    workers: float
    peak_connections: int


@contextlib.contextmanager
def measured(running: Running, db: Database, redis_pid: int, pooler: list[int]) -> Iterator[list[Spent]]:
    """CPU of each side from entering to leaving (the pooler's, if any, is PostgreSQL's); the Spent
    is appended to the yielded list."""
    sides = {"api": lambda: process_tree(running.api.pid), "postgres": lambda: db.backends() + pooler,
             "redis": lambda: [redis_pid],
             "workers": lambda: [p for w in running.workers for p in process_tree(w.pid)]}
    peak, stop = [0], threading.Event()
    sampler = Database(running.db_url)

    def sample() -> None:
        while not stop.wait(0.1):
            peak[0] = max(peak[0], len(sampler.backends()))

    before = {name: cpu_seconds(pids()) for name, pids in sides.items()}
    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    start = time.perf_counter()
    out: list[Spent] = []
    yield out
    wall = time.perf_counter() - start
    stop.set()
    thread.join()
    sampler.close()
    used = {}
    for name, pids in sides.items():
        after = cpu_seconds(pids())
        used[name] = sum(t - before[name].get(pid, 0.0) for pid, t in after.items())
    out.append(Spent(wall, used["api"], used["postgres"], used["redis"], used["workers"], peak[0]))


def raw_cheap(puzzles: list[str]) -> float:
    """CPU seconds to solve and verify them in this process, as a worker's chunk does."""
    options = SUDOKU.read_options({})
    SUDOKU.solve_batch(SUDOKU.prepare_batch(puzzles[:10], options), options)
    start = time.process_time()
    for i in range(0, len(puzzles), 1000):
        SUDOKU.solve_batch(SUDOKU.prepare_batch(puzzles[i:i + 1000], options), options)
    return time.process_time() - start


def raw_dear(parts: int) -> float:
    """CPU seconds of every part of one n = 15 count, solved in this process."""
    puzzle, options = QUEENS.prepare(15, DEAR)
    split = QUEENS.split(puzzle, options, parts)
    start = time.process_time()
    for part in split.parts:
        QUEENS.solve_part(puzzle, options, part)
    return time.process_time() - start


def failures(running: Running, job_ids: list[str]) -> int:
    return sum(call("GET", f"{running.base}/api/v1/jobs/{j}")["counts"].get(status, 0)
               for j in job_ids for status in ("failed", "cancelled"))


def run_cheap(running: Running, puzzles: list[str]) -> list[str]:
    ids = submit(running.base, puzzles, 1000)
    wait_done(running.base, ids)
    return ids


def run_dear(running: Running, count: int) -> list[str]:
    ids = [call("POST", f"{running.base}/api/v1/jobs",
                {"puzzles": [{"kind": "nqueens", "puzzle": {"n": 15}, "options": DEAR}]})["id"]
           for _ in range(count)]
    wait_done(running.base, ids)
    return ids


def parts_solved(db: Database, job_ids: list[str]) -> int:
    return db.conn.execute(text("SELECT count(*) FROM subtasks JOIN puzzles ON puzzles.id = puzzle_id"
                                " WHERE puzzles.job_id = ANY(:ids)"), {"ids": job_ids}).scalar_one()


def ms(seconds: float, per: float) -> str:
    return f"{seconds * 1000 / per:.2f}"


def row_text(size: int, name: str, units: float, s: Spent, anchor: float, bad: int) -> str:
    outside = s.workers - anchor
    total = outside + s.api + s.postgres + s.redis
    return (f"| {size} | {name} | {units:,g} | {s.wall:.1f} | {ms(outside, units)} | {ms(s.api, units)} | "
            f"{ms(s.postgres, units)} | {ms(s.redis, units)} | {ms(total, units)} | {s.peak_connections} "
            f"| {bad} |")


def idle_text(size: int, s: Spent) -> str:
    return (f"| {size} | {s.postgres / s.wall:.2%} | {s.redis / s.wall:.2%} "
            f"| {s.workers / s.wall / size:.2%} | {s.api / s.wall:.2%} | {s.peak_connections} |")


def beat_cost(beats: int, fleet: int) -> str:
    """PostgreSQL's CPU per heartbeat (store.workers.beat, one transaction each, from ``fleet``
    workers in turn), and its share of one core for ``fleet`` workers beating every
    HEARTBEAT_SECONDS."""
    from store.db import make_sessionmaker, migrate
    from store.models import now
    from store.settings import Settings
    from store.workers import beat
    from tests.support.devstack import fresh_postgres

    with fresh_postgres() as url:
        migrate(url)
        every = Settings.from_env(DATABASE_URL=url, REDIS_URL=None).recovery.heartbeat_seconds
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        with sessions() as s, s.begin():
            backend = s.execute(text("SELECT pg_backend_pid()")).scalar_one()
            before = cpu_seconds([backend])[backend]
            start = time.perf_counter()
        for i in range(beats):
            with sessions() as s, s.begin():
                beat(s, f"host:{i % fleet}:bench", now(), ["puzzles", "puzzles.dear"])
        wall = time.perf_counter() - start
        used = cpu_seconds([backend])[backend] - before
        engine.dispose()
    share = used / beats * fleet / every
    return (f"Heartbeats: {beats:,} beats in {wall:.1f} s, PostgreSQL CPU {used * 1e6 / beats:.0f} us a "
            f"beat; {fleet} workers beating every {every:g} s: {share:.2%} of one core.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    ap.add_argument("--cheap", type=int, default=20_000, help="Sudokus per fleet size")
    ap.add_argument("--dear", type=int, default=4, help="n = 15 counts per fleet size")
    ap.add_argument("--parts", type=int, default=64)
    ap.add_argument("--idle", type=float, default=20.0, help="seconds of the idle window")
    ap.add_argument("--beats", type=int, default=5000, help="heartbeats timed on their own")
    ap.add_argument("--beats-only", action="store_true", help="only the heartbeats' cost")
    ap.add_argument("--pgbouncer", action="store_true",
                    help="the API and workers through a private PgBouncer in transaction mode")
    args = ap.parse_args()
    print(beat_cost(args.beats, max(args.sizes)) + "\n", flush=True)
    if args.beats_only:
        return
    puzzles = load_puzzles(args.cheap)
    solvers.warm_up()
    anchors = {"cheap": [raw_cheap(puzzles)], "dear": [raw_dear(args.parts) * args.dear]}
    rows: list[tuple[int, str, float, Spent, float, int]] = []
    idle: list[tuple[int, Spent]] = []
    settings = {"SPLIT_PARTS": str(args.parts), "SPLIT_QUEENS_N": "10", "PUZZLE_TIME_LIMIT": "600"}
    bouncer = private_pgbouncer(PG_URL) if args.pgbouncer else contextlib.nullcontext((None, None))
    with private_redis() as (redis_url, redis_pid), bouncer as (pooler_port, pooler_pid), \
            stack(args.sizes[0], redis=redis_url, pooler_port=pooler_port, **settings) as running:
        pooler = [] if pooler_pid is None else [pooler_pid]
        db = Database(running.db_url)
        run_cheap(running, puzzles[:2000])  # every connection open, every statement compiled
        run_dear(running, 1)
        for size in args.sizes:
            while len(running.workers) < size:
                running.pool.start()
            time.sleep(5)  # the new workers' first beats and connections
            with measured(running, db, redis_pid, pooler) as spent:
                time.sleep(args.idle)
            idle.append((size, spent[0]))
            print(idle_text(size, spent[0]), file=sys.stderr, flush=True)
            with measured(running, db, redis_pid, pooler) as spent:
                ids = run_cheap(running, puzzles)
            rows.append((size, "cheap", len(puzzles) / 1000, spent[0], anchors["cheap"][0],
                         failures(running, ids)))
            with measured(running, db, redis_pid, pooler) as spent:
                ids = run_dear(running, args.dear)
            rows.append((size, "dear", parts_solved(db, ids), spent[0], anchors["dear"][0],
                         failures(running, ids)))
            for row in rows[-2:]:  # as they come: a long run that fails keeps what it measured
                print(row_text(*row), file=sys.stderr, flush=True)
        anchors["cheap"].append(raw_cheap(puzzles))
        db.close()
    print(f"Solving anchors, CPU s in this process: {args.cheap:,} Sudokus {anchors['cheap'][0]:.2f} "
          f"(again at the end: {anchors['cheap'][1]:.2f}); {args.dear} counts of n = 15 in "
          f"{args.parts} parts {anchors['dear'][0]:.2f}.\n")
    print("CPU ms outside solving per unit: cheap per 1,000 Sudokus, dear per part.\n")
    print("| workers | workload | units | wall s | workers | API | PostgreSQL | Redis | all | "
          "PostgreSQL connections at peak | not solved |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(row_text(*row))
    print(f"\nIdle fleet, {args.idle:.0f} s: heartbeats and the reaper's turns, share of one core\n")
    print("| workers | PostgreSQL | Redis | workers, per worker | API | PostgreSQL connections |")
    print("|---:|---:|---:|---:|---:|---:|")
    for size, s in idle:
        print(idle_text(size, s))


if __name__ == "__main__":
    main()
