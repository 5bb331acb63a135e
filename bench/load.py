"""A bounded load on the whole service over loopback: concurrent submitters and pollers.

    python bench/load.py [--seconds 60] [--submitters 4] [--pollers 4] [--rate 8] [--batch 20] [--workers 2]

Needs the real PostgreSQL and Redis (TEST_DATABASE_URL / TEST_REDIS_URL, as the integration
tests): starts gunicorn (2 processes) and ``--workers`` single-process celery workers on a fresh
database (bench/_services.py), with tokens on and the default rate limit. For ``--seconds``,
``--submitters`` threads, each a client with its own token, POST jobs of ``--batch`` puzzles
(mixed kinds: 17-clue Sudokus, n-Queens, 8-puzzles, Spokes; ``--sudoku-only``: 17-clue Sudokus
alone), ``--rate`` jobs a second between
them; ``--pollers`` threads follow every job with its client's token (GET /jobs/{id}), list the
jobs now and then (GET /jobs), and once a job is completed read its puzzles (GET
/jobs/{id}/puzzles, every page), check every answer with the kind's own ``verify`` and delete
``--delete`` of the jobs checked (DELETE /jobs/{id}). Then the pollers finish the jobs still
running (at most ``--drain`` seconds). Prints, per endpoint, the requests, their p50 / p99 / max
latency and the errors (any status other than the expected, or a failed request: the target is
0), and the answers verified and refused.
"""

from __future__ import annotations

import argparse
import json
import logging
import queue
import random
import statistics
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

import solvers
from bench._services import stack
from solvers.base import Outcome

ROOT = Path(__file__).resolve().parents[1]
SUDOKUS = ROOT / "tests" / "data" / "sudoku" / "tdoku_puzzles2_17_clue_first10000.txt"


def puzzle_pool(sudoku_only: bool = False) -> list[dict[str, Any]]:
    """Cheap puzzles of every kind (or 17-clue Sudokus alone), so the service, not the solvers,
    carries the load."""
    lines = [ln.strip() for ln in SUDOKUS.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    pool: list[dict[str, Any]] = [{"kind": "sudoku", "puzzle": p} for p in lines[:2000]]
    if sudoku_only:
        return pool
    pool += [{"kind": "nqueens", "puzzle": {"n": n}} for n in range(6, 13)] * 20
    boards = (ROOT / "examples" / "sliding.txt").read_text().splitlines()
    pool += [{"kind": "sliding", "puzzle": b} for b in boards if b and not b.startswith("#")] * 10
    examples = [json.loads(ln) for ln in (ROOT / "examples" / "mixed.jsonl").read_text().splitlines()]
    pool += [e for e in examples if e["kind"] == "spokes"] * 40
    return pool


@dataclass
class Tally:
    """Latencies (ms) and errors per endpoint, and the answers checked; shared by the threads."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    submitted: int = 0
    open: int = 0  # jobs submitted and not yet checked
    verified: int = 0
    refused: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def call(self, http: httpx.Client, name: str, method: str, url: str, expect: int = 200,
             **kw: Any) -> Any:
        start = time.perf_counter()
        try:
            r = http.request(method, url, **kw)
        except httpx.HTTPError as exc:
            with self.lock:
                self.errors[name].append(f"{type(exc).__name__}: {exc}")
            return None
        ms = (time.perf_counter() - start) * 1000
        with self.lock:
            self.latencies[name].append(ms)
            if r.status_code != expect:
                self.errors[name].append(f"{r.status_code}: {r.text[:200]}")
                return None
        return r.json() if r.content else {}


def verify(item: dict[str, Any]) -> str | None:
    """None if the kind's verify accepts the stored answer; else why not."""
    try:
        kind = solvers.get(item["kind"])
        puzzle, options = kind.prepare(item["puzzle"], item["options"])
        if item["status"] not in ("solved", "no_solution"):
            return f"{item['status']}: {item.get('error')}"
        kind.verify(puzzle, options, Outcome(item["status"], item["result"], item["stats"] or {}))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def token(client: int) -> str:
    return f"load-token-{client}"


def session(base: str, client: int) -> httpx.Client:
    return httpx.Client(base_url=base, timeout=60, headers={"Authorization": f"Bearer {token(client)}"})


def submitter(base: str, tally: Tally, pool: list[dict[str, Any]], batch: int, every: float, until: float,
              jobs: queue.Queue[tuple[str, int]], client: int) -> None:
    rng = random.Random(client)
    with session(base, client) as http:
        next_at = time.monotonic()
        while next_at < until:
            time.sleep(max(0.0, next_at - time.monotonic()))
            job = tally.call(http, "POST /jobs", "POST", "/api/v1/jobs", expect=202,
                             json={"puzzles": rng.sample(pool, batch), "label": "load"})
            if job is not None:
                with tally.lock:
                    tally.submitted += 1
                    tally.open += 1
                jobs.put((job["id"], client))
            next_at += every


def poller(base: str, tally: Tally, jobs: queue.Queue[tuple[str, int]], poll: float, clients: int,
           delete_share: float, seed: int, stop: threading.Event) -> None:
    """Follows any client's jobs, with that client's token; deletes ``delete_share`` of them once
    checked."""
    rng = random.Random(seed)
    https = [session(base, c) for c in range(clients)]
    try:
        while not stop.is_set():
            try:
                job_id, client = jobs.get(timeout=0.5)
            except queue.Empty:
                continue
            http = https[client]
            job = tally.call(http, "GET /jobs/{id}", "GET", f"/api/v1/jobs/{job_id}")
            if rng.random() < 0.05:
                tally.call(http, "GET /jobs", "GET", "/api/v1/jobs", params={"limit": 20})
            if job is None or job["status"] != "completed":
                time.sleep(poll)
                jobs.put((job_id, client))  # back of the line: the others get their turn
                continue
            if check(http, tally, job_id) and rng.random() < delete_share:
                tally.call(http, "DELETE /jobs/{id}", "DELETE", f"/api/v1/jobs/{job_id}", expect=204)
            with tally.lock:
                tally.open -= 1
    finally:
        for http in https:
            http.close()


def check(http: httpx.Client, tally: Tally, job_id: str) -> bool:
    """Verify every answer of the job; False if a page could not be read."""
    params: dict[str, Any] = {"limit": 100}
    while True:
        page = tally.call(http, "GET /jobs/{id}/puzzles", "GET", f"/api/v1/jobs/{job_id}/puzzles",
                          params=params)
        if page is None:
            return False
        for item in page["items"]:
            why = verify(item)
            with tally.lock:
                if why is None:
                    tally.verified += 1
                else:
                    tally.refused.append(f"{job_id}/{item['index']}: {why}")
        if not page["next_cursor"]:
            return True
        params["cursor"] = page["next_cursor"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(tally: Tally, args: argparse.Namespace, elapsed: float, unfinished: int) -> None:
    submitted = tally.submitted
    print(f"load: {args.submitters} submitters at {args.rate:g} jobs/s in all of {args.batch} puzzles "
          f"({args.rate * args.batch:g} puzzles/s offered) for {args.seconds:g} s, {args.pollers} pollers "
          f"(each waits {args.poll:g} s after a job seen unfinished); tokens and the default rate limit; "
          f"gunicorn 2 processes, "
          f"{args.workers} celery worker(s); {elapsed:.0f} s until the last job was checked\n")
    print("| endpoint | requests | p50 ms | p99 ms | max ms | errors |\n|---|---:|---:|---:|---:|---:|")
    for name in ("POST /jobs", "GET /jobs/{id}", "GET /jobs/{id}/puzzles", "GET /jobs", "DELETE /jobs/{id}"):
        ms = tally.latencies.get(name) or [0.0]
        print(f"| {name} | {len(tally.latencies.get(name, [])):,} | {statistics.median(ms):.1f} | "
              f"{percentile(ms, 0.99):.1f} | {max(ms):.1f} | {len(tally.errors.get(name, []))} |")
    print(f"\njobs submitted {submitted:,}, puzzles {submitted * args.batch:,}; answers verified "
          f"{tally.verified:,}, refused {len(tally.refused)}; jobs unfinished at the end {unfinished}")
    for name, errors in tally.errors.items():
        for e in errors[:3]:
            print(f"  error {name}: {e}")
    for r in tally.refused[:5]:
        print(f"  refused {r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60.0, help="how long the submitters submit")
    ap.add_argument("--submitters", type=int, default=4)
    ap.add_argument("--pollers", type=int, default=4)
    ap.add_argument("--rate", type=float, default=8.0, help="jobs a second, all submitters together")
    ap.add_argument("--batch", type=int, default=20, help="puzzles per job")
    ap.add_argument("--poll", type=float, default=0.2, help="seconds between two GETs of one job")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--drain", type=float, default=120.0, help="at most this long for the last jobs")
    ap.add_argument("--delete", type=float, default=0.5, help="the share of checked jobs then deleted")
    ap.add_argument("--sudoku-only", action="store_true",
                    help="batches of 17-clue Sudokus alone (with --batch 1000: the accept path under load)")
    args = ap.parse_args()

    pool = puzzle_pool(args.sudoku_only)
    solvers.warm_up()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request otherwise
    tally = Tally()
    jobs: queue.Queue[tuple[str, int]] = queue.Queue()
    stop = threading.Event()
    # Each submitter is a client of its own, under the service's default rate limit.
    tokens = ",".join(f"load{c}:{token(c)}" for c in range(args.submitters))
    with stack(args.workers, API_TOKENS=tokens) as running:
        start = time.monotonic()
        every = args.submitters / args.rate
        subs = [threading.Thread(target=submitter, args=(running.base, tally, pool, args.batch, every,
                                                         start + args.seconds, jobs, i))
                for i in range(args.submitters)]
        polls = [threading.Thread(target=poller, args=(running.base, tally, jobs, args.poll, args.submitters,
                                                       args.delete, 100 + i, stop))
                 for i in range(args.pollers)]
        for i, t in enumerate(subs):
            time.sleep(every / args.submitters if i else 0.0)  # spread evenly over the interval
            t.start()
        for t in polls:
            t.start()
        for t in subs:
            t.join()
        deadline = time.monotonic() + args.drain
        while tally.open and time.monotonic() < deadline:
            time.sleep(0.2)
        unfinished = tally.open
        stop.set()
        for t in polls:
            t.join()
        elapsed = time.monotonic() - start
    report(tally, args, elapsed, unfinished)


if __name__ == "__main__":
    main()
