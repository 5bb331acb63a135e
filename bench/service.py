"""End-to-end throughput and latency of the service against the raw solver.

    python bench/service.py [--puzzles 10000] [--workers 2] [--latency-runs 50]

Needs the real PostgreSQL and Redis (TEST_DATABASE_URL / TEST_REDIS_URL, the
same variables as the integration tests). Starts gunicorn and N single-process
celery workers on a fresh database, posts 17-clue Sudokus over HTTP, polls until
every job is completed, and compares with solving the same puzzles in this
process on one core.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solvers  # noqa: E402
from bench._services import stack  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "sudoku"


def load_puzzles(count: int) -> list[str]:
    lines = (DATA / "tdoku_puzzles2_17_clue_first10000.txt").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")][:count]


def call(method: str, url: str, body: object | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def raw_rate(puzzles: list[str]) -> float:
    kind = solvers.get("sudoku")
    solvers.warm_up()
    start = time.perf_counter()
    for text in puzzles:
        puzzle, options = kind.prepare(text)
        outcome = kind.solve(puzzle, options)
        kind.verify(puzzle, options, outcome)
    return len(puzzles) / (time.perf_counter() - start)


def wait_done(base: str, job_ids: list[str], poll: float) -> None:
    pending = set(job_ids)
    while pending:
        for job_id in list(pending):
            if call("GET", f"{base}/api/v1/jobs/{job_id}")["status"] in ("completed", "cancelled"):
                pending.discard(job_id)
        if pending:
            time.sleep(poll)


def service_run(base: str, puzzles: list[str], batch: int) -> tuple[float, float]:
    """Seconds to submit every batch, and from the first submit until every job is completed."""
    start = time.perf_counter()
    ids = []
    for i in range(0, len(puzzles), batch):
        items = [{"kind": "sudoku", "puzzle": p} for p in puzzles[i:i + batch]]
        ids.append(call("POST", f"{base}/api/v1/jobs", {"puzzles": items})["id"])
    submitted = time.perf_counter() - start
    wait_done(base, ids, poll=0.05)
    return submitted, time.perf_counter() - start


def latencies(base: str, puzzle: str, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        job = call("POST", f"{base}/api/v1/jobs", {"puzzles": [{"kind": "sudoku", "puzzle": puzzle}]})
        wait_done(base, [job["id"]], poll=0.002)
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--puzzles", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=1000, help="puzzles per POST (the API's batch limit)")
    ap.add_argument("--latency-runs", type=int, default=50)
    args = ap.parse_args()

    puzzles = load_puzzles(args.puzzles)
    raw = raw_rate(puzzles)
    with stack(args.workers) as base:
        service_run(base, puzzles[:200], args.batch)  # workers warm and connected
        submitted, total = service_run(base, puzzles, args.batch)
        lat = sorted(latencies(base, puzzles[0], args.latency_runs))

    rate = len(puzzles) / total
    per_worker = rate / args.workers
    print(f"{len(puzzles)} 17-clue Sudokus, default options (uniqueness proof), verified\n")
    print("| measure | value |")
    print("|---|---|")
    print(f"| raw solver, one process (prepare+solve+verify) | {raw:,.0f} puzzles/s |")
    print(f"| service, HTTP + Redis + PostgreSQL, {args.workers} workers | {rate:,.0f} puzzles/s |")
    print(f"| of which submitting ({args.batch} puzzles per POST) | {submitted:.2f} s"
          f" ({len(puzzles) / submitted:,.0f} puzzles/s accepted) |")
    print(f"| service per worker | {per_worker:,.0f} puzzles/s |")
    print(f"| per-worker share of the raw rate | {per_worker / raw:.0%} |")
    print(f"| single-puzzle job, submit to completed, p50 | {statistics.median(lat):.1f} ms |")
    print(f"| single-puzzle job, submit to completed, p95 | {lat[int(0.95 * (len(lat) - 1))]:.1f} ms |")


if __name__ == "__main__":
    main()
