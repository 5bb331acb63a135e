"""Posting and solving end to end on `make run`'s own stack, embedded and on PostgreSQL + Redis.

    python bench/endtoend.py [--jobs 10] [--batch 1000] [--repeats 3] [--backends embedded postgres]
    python bench/endtoend.py --generate 10000 [--difficulty hard] [--backends embedded]

Starts `python -m deploy.run_local` (what `make run` runs: migrate, gunicorn, two workers) on a
free port, in a temporary folder: ``embedded`` with its defaults (a SQLite file and the
filesystem broker there), ``postgres`` with DATABASE_URL and REDIS_URL set to a fresh database
and Redis database number of TEST_DATABASE_URL's and TEST_REDIS_URL's servers. Once its workers
are ready, one client posts ``--jobs`` jobs of ``--batch`` 17-clue Sudokus one after another,
then waits for all of them (the long poll, as the client library waits): the time from the first
POST to the last job seen completed, ``--repeats`` times. The anchor is the same puzzles through
``prepare_batch`` + ``solve_batch`` in this process (one core), measured before and after.

``--generate N``: instead, one generate item of N minimal 9x9 Sudokus of ``--difficulty``
(seed 7), its parts made by both workers, timed from the POST to the job completed; the anchor
is the generator in this process making 200 of the same request.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solvers
import solvers.factory
from bench.service import call, load_puzzles
from tests.support.devstack import fresh_postgres, fresh_redis, run_local

ROOT = Path(__file__).resolve().parents[1]
SUDOKU = solvers.get("sudoku")


def batch_rate(puzzles: list[str], batch: int) -> float:
    """Puzzles per second through prepare_batch + solve_batch in this process, ``batch`` a call."""
    options = SUDOKU.read_options({})
    SUDOKU.solve_batch(SUDOKU.prepare_batch(puzzles[:10], options), options)
    start = time.process_time()
    for i in range(0, len(puzzles), batch):
        SUDOKU.solve_batch(SUDOKU.prepare_batch(puzzles[i:i + batch], options), options)
    return len(puzzles) / (time.process_time() - start)


@contextlib.contextmanager
def servers(backend: str) -> Iterator[dict[str, str]]:
    """The environment that points `make run` at the backend's servers (none for embedded)."""
    if backend == "embedded":
        yield {}
        return
    with fresh_postgres() as db_url, fresh_redis() as redis_url:
        yield {"DATABASE_URL": db_url, "REDIS_URL": redis_url}


@contextlib.contextmanager
def make_run(backend: str) -> Iterator[str]:
    """`make run`'s stack in a temporary folder, ready: its URL."""
    with tempfile.TemporaryDirectory() as folder, servers(backend) as urls:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "API_TOKENS")}
        env.update({"RATE_LIMIT": "", "READ_RATE_LIMIT": "", "DATABASE_URL": f"sqlite:///{folder}/db.sqlite",
                    "BROKER_DIR": f"{folder}/broker", **urls})
        with run_local(Path(folder), env) as running:
            yield running.url


def one_run(base: str, puzzles: list[str], jobs: int, batch: int) -> tuple[float, list[float]]:
    """Seconds from the first POST to the last job completed, and each POST's seconds."""
    start = time.perf_counter()
    ids, posts = [], []
    for j in range(jobs):
        items = [{"kind": "sudoku", "puzzle": p} for p in puzzles[j * batch:(j + 1) * batch]]
        before = time.perf_counter()
        ids.append(call("POST", f"{base}/api/v1/jobs", {"puzzles": items})["id"])
        posts.append(time.perf_counter() - before)
    for job in ids:
        while call("GET", f"{base}/api/v1/jobs/{job}?wait=30")["status"] != "completed":
            pass
    return time.perf_counter() - start, posts


def generate_rate(difficulty: str, count: int) -> float:
    """Puzzles per CPU second of the generator in this process (the worker's path: make, verify)."""
    kind = solvers.get("sudoku")
    request = {"count": count, "difficulty": difficulty, "seed": 7}
    _, options = solvers.factory.read_request(kind, request, count)
    maker = solvers.factory.making(kind)
    start = time.process_time()
    for index in range(count):
        puzzle, checked = maker.prepare(index, options)
        maker.verify(puzzle, checked, maker.solve(puzzle, checked))
    return count / (time.process_time() - start)


def one_generation(base: str, count: int, difficulty: str) -> float:
    """Seconds from the POST of one generate item to its job completed."""
    start = time.perf_counter()
    job = call("POST", f"{base}/api/v1/jobs", {"puzzles": [
        {"kind": "sudoku", "generate": {"count": count, "difficulty": difficulty, "seed": 7}}]})["id"]
    while call("GET", f"{base}/api/v1/jobs/{job}?wait=30")["status"] != "completed":
        pass
    return time.perf_counter() - start


def generation(args: argparse.Namespace) -> None:
    solvers.warm_up()
    anchor = generate_rate(args.difficulty, 200)
    print(f"the generator in this process: {anchor:,.0f} {args.difficulty} puzzles/s (make + verify)\n")
    print(f"| `make run` on | {args.generate:,} {args.difficulty} made, s | puzzles/s "
          "| of one core in process |")
    print("|---|---:|---:|---:|")
    for backend in args.backends:
        with make_run(backend) as base:
            seconds = one_generation(base, args.generate, args.difficulty)
        rate = args.generate / seconds
        print(f"| {backend} | {seconds:.1f} | {rate:,.0f} | {rate / anchor:.2f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--backends", nargs="+", default=["embedded", "postgres"],
                    choices=["embedded", "postgres"])
    ap.add_argument("--generate", type=int, default=0, help="puzzles of one generate item (0: solve)")
    ap.add_argument("--difficulty", default="hard")
    args = ap.parse_args()
    if args.generate:
        generation(args)
        return
    puzzles = load_puzzles(args.jobs * args.batch)
    solvers.warm_up()
    anchor = [batch_rate(puzzles, args.batch)]
    rows = []
    for backend in args.backends:
        with make_run(backend) as base:
            one_run(base, puzzles, 1, args.batch)  # connections open, statements compiled
            runs = [one_run(base, puzzles, args.jobs, args.batch) for _ in range(args.repeats)]
        rows.append((backend, [len(puzzles) / seconds for seconds, _ in runs],
                     [p for _, posts in runs for p in posts]))
    anchor.append(batch_rate(puzzles, args.batch))
    raw = statistics.median(anchor)
    readings = ", ".join(f"{a:,.0f}" for a in anchor)
    print(f"solve_batch in this process: {raw:,.0f} puzzles/s (readings {readings})\n")
    print(f"| `make run` on | {args.jobs} x {args.batch:,} posted and solved, puzzles/s (median) | range "
          f"| of solve_batch | POST p50 |")
    print("|---|---:|---:|---:|---:|")
    for backend, rates, posts in rows:
        print(f"| {backend} | {statistics.median(rates):,.0f} | {min(rates):,.0f}-{max(rates):,.0f} "
              f"| {statistics.median(rates) / raw:.0%} | {statistics.median(posts) * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
