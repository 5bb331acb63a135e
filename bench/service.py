"""Throughput and latency of the service against the raw solver.

    python bench/service.py [--puzzles 10000] [--workers 2] [--latency-runs 50]

Needs the real PostgreSQL and Redis (TEST_DATABASE_URL / TEST_REDIS_URL, the
same variables as the integration tests). Starts gunicorn and N single-process
celery workers on a fresh database, posts 17-clue Sudokus over HTTP and polls
until every job is completed, in three ways:

  accept      the workers' consumers are paused (celery remote control) while the
              batches are posted: what the API and PostgreSQL take in alone;
  work        then the consumers resume: the rate the workers clear a full queue,
              the figure compared with the raw solver per worker;
  end to end  posting and solving at once, everything sharing the machine.

The raw rate is solving the same puzzles in this process on one core, one by one (the anchor
of the "of raw" shares); the raw batch rate is the same through Kind.solve_batch, 500 puzzles
a call, as the worker now solves cheap chunks.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solvers
from bench._services import Running, pinned, stack

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "sudoku"


def load_puzzles(count: int) -> list[str]:
    lines = (DATA / "tdoku_puzzles2_17_clue_first10000.txt").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")][:count]


def call(method: str, url: str, body: object | None = None) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        answer: dict[str, Any] = json.loads(r.read())
        return answer


def raw_rate(puzzles: list[str]) -> float:
    kind = solvers.get("sudoku")
    solvers.warm_up()
    start = time.perf_counter()
    for text in puzzles:
        puzzle, options = kind.prepare(text)
        outcome = kind.solve(puzzle, options)
        kind.verify(puzzle, options, outcome)
    return len(puzzles) / (time.perf_counter() - start)


def raw_batch_rate(puzzles: list[str], chunk: int = 500) -> float:
    """The kind's batch entry point (``Kind.solve_batch``, verified), as the worker calls it."""
    kind = solvers.get("sudoku")
    start = time.perf_counter()
    for i in range(0, len(puzzles), chunk):
        kind.solve_batch(puzzles[i:i + chunk], {})
    return len(puzzles) / (time.perf_counter() - start)


def wait_done(base: str, job_ids: list[str], poll: float) -> None:
    """Poll the oldest unfinished job only: one GET per interval, so the polling itself does not
    load the machine (a GET counts the job's puzzles by status)."""
    for job_id in job_ids:
        while call("GET", f"{base}/api/v1/jobs/{job_id}")["status"] not in ("completed", "cancelled"):
            time.sleep(poll)


def submit(base: str, puzzles: list[str], batch: int) -> list[str]:
    ids = []
    for i in range(0, len(puzzles), batch):
        items = [{"kind": "sudoku", "puzzle": p} for p in puzzles[i:i + batch]]
        ids.append(call("POST", f"{base}/api/v1/jobs", {"puzzles": items})["id"])
    return ids


def end_to_end(base: str, puzzles: list[str], batch: int) -> float:
    """Seconds from the first POST until every job is completed, workers consuming throughout."""
    start = time.perf_counter()
    wait_done(base, submit(base, puzzles, batch), poll=0.05)
    return time.perf_counter() - start


def accept_then_work(running: Running, puzzles: list[str], batch: int, workers: int) -> tuple[float, float]:
    """Seconds to post every batch with the consumers paused, then to clear the queue."""
    control = running.celery.control
    replies = control.cancel_consumer(running.queue, reply=True, timeout=5, limit=workers)
    if len(replies) != workers:
        raise RuntimeError(f"{len(replies)} of {workers} workers paused: {replies}")
    start = time.perf_counter()
    ids = submit(running.base, puzzles, batch)
    accepted = time.perf_counter() - start
    start = time.perf_counter()
    control.add_consumer(running.queue, reply=True, timeout=5, limit=workers)
    wait_done(running.base, ids, poll=0.05)
    return accepted, time.perf_counter() - start


def latencies(base: str, puzzle: str, runs: int) -> tuple[list[float], list[float]]:
    """Per one-puzzle job, ms until the POST is answered and until the job is seen completed."""
    posted, done = [], []
    for _ in range(runs):
        start = time.perf_counter()
        job = call("POST", f"{base}/api/v1/jobs", {"puzzles": [{"kind": "sudoku", "puzzle": puzzle}]})
        posted.append((time.perf_counter() - start) * 1000)
        wait_done(base, [job["id"]], poll=0.002)
        done.append((time.perf_counter() - start) * 1000)
    return sorted(posted), sorted(done)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--puzzles", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=1000, help="puzzles per POST (the API's batch limit)")
    ap.add_argument("--latency-runs", type=int, default=50)
    ap.add_argument("--pin", action="store_true",
                    help="workers on cores of their own; API, PostgreSQL, Redis and this process on core 0")
    args = ap.parse_args()
    if args.pin and args.workers >= len(os.sched_getaffinity(0)):
        ap.error(f"--pin leaves {len(os.sched_getaffinity(0)) - 1} core(s) for workers")

    puzzles = load_puzzles(args.puzzles)
    raw = raw_rate(puzzles)
    batched = raw_batch_rate(puzzles)
    with stack(args.workers) as running, pinned(running) if args.pin else contextlib.nullcontext():
        end_to_end(running.base, puzzles[:200], args.batch)  # workers warm and connected
        accepted, work = accept_then_work(running, puzzles, args.batch, args.workers)
        total = end_to_end(running.base, puzzles, args.batch)
        posted, lat = latencies(running.base, puzzles[0], args.latency_runs)

    n, w = len(puzzles), args.workers
    where = ("each worker on a core of its own, API, PostgreSQL and Redis on another" if args.pin else
             f"workers, API, PostgreSQL and Redis sharing this machine's {os.cpu_count()} cores")
    print(f"{n} 17-clue Sudokus, default options (uniqueness proof), verified; {w} worker(s), {where}\n")
    print("| measure | value |")
    print("|---|---|")
    print(f"| raw solver, one process (prepare+solve+verify) | {raw:,.0f} puzzles/s |")
    print(f"| raw batch: Kind.solve_batch, 500 a call, one process | {batched:,.0f} puzzles/s |")
    print(f"| accept: POSTs of {args.batch}, workers paused | {accepted:.2f} s, "
          f"{n / accepted:,.0f} puzzles/s |")
    print(f"| work: workers clear the queued puzzles | {work:.2f} s, {n / work:,.0f} puzzles/s |")
    print(f"| work per worker | {n / work / w:,.0f} puzzles/s = {n / work / w / raw:.0%} of raw |")
    print(f"| end to end: POSTs and workers at once | {total:.2f} s, {n / total:,.0f} puzzles/s |")
    print(f"| end to end per worker | {n / total / w:,.0f} puzzles/s = {n / total / w / raw:.0%} of raw |")
    print(f"| single-puzzle job, POST answered, p50 | {statistics.median(posted):.1f} ms |")
    print(f"| single-puzzle job, submit to completed, p50 | {statistics.median(lat):.1f} ms |")
    print(f"| single-puzzle job, submit to completed, p95 | {lat[int(0.95 * (len(lat) - 1))]:.1f} ms |")


if __name__ == "__main__":
    main()
