"""Throughput and latency of the service against the raw solver.

    python bench/service.py [--puzzles 20000] [--workers 2] [--latency-runs 50] [--accept-runs 20]
    python bench/service.py --latency-only [--latency-runs 100]   # the one-puzzle job's rows alone
    python bench/service.py --accept-only [--accept-runs 40]      # the POST in process alone

Needs the real PostgreSQL and Redis (TEST_DATABASE_URL / TEST_REDIS_URL, the
same variables as the integration tests). Measures, on fresh databases:

  accept, in process  a 1,000-puzzle POST through Flask's test client on PostgreSQL and
              a real Redis, no workers: the server's own time (wall and CPU of this process;
              PostgreSQL's share is in the wall time); alone, with the submit's statement's
              time and the anchor: the same rows stored by COPY;
  work, 1 worker on its own core  gunicorn and one single-process celery worker, the worker
              pinned to a core and everything else to the other; the worker's processes are
              stopped (SIGSTOP) while the batches are posted, then continued: the rate it
              clears a full queue, against the raw solver. Timed from the first chunk's start to
              the last chunk's write, as the puzzle rows record them (``started_at``,
              ``finished_at``): the steady rate; the wall time from the resume to the last job
              seen completed is printed too (it adds the long poll's answers: the bench waits as
              the client library does), and where its time goes: each chunk from its claim to
              its write (beside one batch call of as many puzzles), and from one chunk's write to
              the next one's claim (the write's commit and the task's round through the broker);
              and the same worker with 2 pool processes on its one core (one solves
              while the other waits on SQL);
  the same with N workers  (default 2) sharing both cores with the API, PostgreSQL and Redis,
              of one pool process each, then of 2 (each work figure is the median of 3 fills
              of the queue on one stack);
              there also accept over HTTP (the POSTs while the workers are stopped), end to
              end (posting and solving at once), and the one-puzzle job's latency: POST, then
              GET /jobs/{id}?wait= (the long poll, as the client library waits), split into
              the POST, stored to finished (the job's own timestamps: commit, publish, broker,
              worker) and finished to answered.

The batch rate is solving the same puzzles in this process on one core through
Kind.prepare_batch and Kind.solve_batch, 1,000 puzzles a call as the worker's chunks hold them
(the anchor of the "of batch" shares: the median of readings before, between and after the
work phases); the raw rate is the same one by one (prepare, solve, verify), printed beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solvers
from bench._services import Running, pinned, stack, statement_times
from store.db import make_engine, migrate
from store.models import Chunk, Puzzle
from tests.support.devstack import app_for, fresh_postgres, fresh_redis, process_tree, service_env

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "sudoku"


def load_puzzles(count: int) -> list[str]:
    """``count`` 17-clue Sudokus: the file's 10,000, over again if more are wanted."""
    lines = (DATA / "tdoku_puzzles2_17_clue_first10000.txt").read_text().splitlines()
    puzzles = [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]
    return (puzzles * (count // len(puzzles) + 1))[:count]


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


def raw_batch_rate(puzzles: list[str], chunk: int = 1000) -> float:
    """The kind's batch entry points (``Kind.prepare_batch``, then ``Kind.solve_batch``, verified),
    as the worker calls them."""
    kind = solvers.get("sudoku")
    options = kind.read_options({})
    kind.solve_batch(kind.prepare_batch(puzzles[:10], options), options)  # its kernels loaded
    start = time.perf_counter()
    for i in range(0, len(puzzles), chunk):
        kind.solve_batch(kind.prepare_batch(puzzles[i:i + chunk], options), options)
    return len(puzzles) / (time.perf_counter() - start)


def wait_done(base: str, job_ids: list[str]) -> None:
    """Wait for each job in turn as the client library does, by the long poll (``?wait=``): one GET
    per job, answered when its last puzzle is written, so the waiting neither loads the shared
    cores (a GET counts the job's puzzles by status) nor sees the end late."""
    for job_id in job_ids:
        status = None
        while status not in ("completed", "cancelled"):
            status = call("GET", f"{base}/api/v1/jobs/{job_id}?wait=30")["status"]


def submit(base: str, puzzles: list[str], batch: int) -> list[str]:
    ids = []
    for i in range(0, len(puzzles), batch):
        items = [{"kind": "sudoku", "puzzle": p} for p in puzzles[i:i + batch]]
        ids.append(call("POST", f"{base}/api/v1/jobs", {"puzzles": items})["id"])
    return ids


def end_to_end(base: str, puzzles: list[str], batch: int) -> float:
    """Seconds from the first POST until every job is completed, workers consuming throughout."""
    start = time.perf_counter()
    wait_done(base, submit(base, puzzles, batch))
    return time.perf_counter() - start


def accept_then_work(running: Running, puzzles: list[str], batch: int,
                     workers: int) -> tuple[float, float, list[str]]:
    """Seconds to post every batch with the workers paused, then to clear the queue (wall time
    from the resume until every job is seen completed), and the jobs' ids."""
    with paused(running.workers):
        start = time.perf_counter()
        ids = submit(running.base, puzzles, batch)
        accepted = time.perf_counter() - start
        start = time.perf_counter()
    wait_done(running.base, ids)
    return accepted, time.perf_counter() - start, ids


@contextlib.contextmanager
def paused(workers: list[subprocess.Popen]) -> Iterator[None]:
    """The workers' processes stopped (SIGSTOP), and all continued at once after. Their consumers
    stay on: a worker waiting in BRPOP is handed a message while stopped, and takes it up as soon as
    it continues. Pausing the consumers instead (celery's cancel_consumer, then add_consumer) let
    a worker start late (kombu's Redis transport takes up the queues anew between its BRPOPs, each
    up to a second), which is long against a fill: one worker could start well after the other, or
    solve every chunk alone, which halves the figure per worker."""
    pids = [pid for w in workers for pid in process_tree(w.pid)]
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


Span = tuple[datetime, datetime]  # a chunk's claim and its write (``started_at``, ``finished_at``)


def recorded(db_url: str, job_ids: list[str]) -> tuple[float, list[Span]]:
    """As these jobs' rows record them: seconds from the first puzzle started to the last one
    written (their puzzle rows and their chunks), and each written chunk's span in claim order."""
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(func.min(Puzzle.started_at), func.max(Puzzle.finished_at))
                                .where(Puzzle.job_id.in_(job_ids))).all()
            chunks = conn.execute(select(Chunk.started_at, Chunk.finished_at)
                                  .where(Chunk.job_id.in_(job_ids)).order_by(Chunk.started_at)).all()
    finally:
        engine.dispose()
    spans = [(begin, end) for begin, end in chunks if begin is not None and end is not None]
    first = min(begin for begin, _ in [*rows, *chunks] if begin is not None)
    last = max(end for _, end in [*rows, *chunks] if end is not None)
    return (last - first).total_seconds(), spans


def steps(spans: list[Span]) -> tuple[list[float], list[float]]:
    """Ms of each chunk from its claim to its write, and from one chunk's write to the next one's
    claim (one worker of one pool process: the task's round through the broker)."""
    inside = [(end - begin).total_seconds() * 1000 for begin, end in spans]
    between = [(spans[i + 1][0] - spans[i][1]).total_seconds() * 1000 for i in range(len(spans) - 1)]
    return inside, between


def latencies(base: str, puzzle: str, runs: int) -> dict[str, list[float]]:
    """Per one-puzzle job, ms: the POST answered, stored to finished (the job's timestamps),
    finished to the long poll's answer, and in all."""
    out: dict[str, list[float]] = {"post": [], "worker": [], "seen": [], "total": []}
    for _ in range(runs):
        start, wall = time.perf_counter(), time.time()
        job = call("POST", f"{base}/api/v1/jobs", {"puzzles": [{"kind": "sudoku", "puzzle": puzzle}]})
        out["post"].append((time.perf_counter() - start) * 1000)
        done = call("GET", f"{base}/api/v1/jobs/{job['id']}?wait=30")
        out["total"].append((time.perf_counter() - start) * 1000)
        if done["status"] != "completed":
            raise RuntimeError(f"job {job['id']} not completed after 30 s: {done}")
        finished = stamp(done["finished_at"])
        out["worker"].append((finished - stamp(done["created_at"])) * 1000)
        out["seen"].append((wall + out["total"][-1] / 1000 - finished) * 1000)
    return {name: sorted(values) for name, values in out.items()}


def stamp(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def accept_in_process(puzzles: list[str], batch: int, runs: int) -> dict[str, list[float]]:
    """ms per POST of ``batch`` puzzles through Flask's test client, on a fresh PostgreSQL
    database and a real Redis, no workers: ``wall`` and ``cpu`` (this process's), ``statement``
    (the submit's statement as the client waits on it: backlog, job, rows, tallies) and, after
    each POST, the anchor ``copy``: the same rows by COPY into a copy of the puzzles table (its
    columns, defaults, indexes and storage parameters), committed. Sorted; the first two POSTs
    warm the connections."""
    bodies = [json.dumps({"puzzles": [{"kind": "sudoku", "puzzle": text} for text in puzzles[i:i + batch]]})
              .encode() for i in range(0, len(puzzles) - batch + 1, batch)]
    times: dict[str, list[float]] = {"wall": [], "cpu": [], "statement": [], "copy": []}
    with fresh_postgres() as db_url, fresh_redis() as redis_url:
        migrate(db_url)
        app = app_for(service_env(db_url, redis_url, f"bench-{time.time_ns()}"))
        client, statements = app.test_client(), statement_times(app.extensions["engine"])
        anchor = make_engine(db_url)
        rows = [stored_rows(json.loads(body)["puzzles"]) for body in bodies]
        with anchor.begin() as conn:
            kept = conn.exec_driver_sql("SELECT reloptions FROM pg_class WHERE relname = 'puzzles'").scalar()
            conn.exec_driver_sql("CREATE TABLE anchor (LIKE puzzles INCLUDING ALL)"
                                 + (f" WITH ({', '.join(kept)})" if kept else ""))
        gc.freeze()  # as gunicorn.conf.py does in each API process
        for i in range(runs + 2):
            body = bodies[i % len(bodies)]
            statements.clear()
            start, used = time.perf_counter(), time.process_time()
            r = client.post("/api/v1/jobs", data=body, content_type="application/json")
            wall, cpu = (time.perf_counter() - start) * 1000, (time.process_time() - used) * 1000
            if r.status_code != 202:
                raise RuntimeError(f"POST answered {r.status_code}: {r.text[:300]}")
            copied = copy_rows(anchor, (r.json or {})["id"], rows[i % len(bodies)])
            if i >= 2:
                submit = sum(ms for text, ms in statements.items() if text.startswith("WITH backlog"))
                for name, value in (("wall", wall), ("cpu", cpu), ("statement", submit), ("copy", copied)):
                    times[name].append(value)
        gc.unfreeze()
        anchor.dispose()
        app.extensions["engine"].dispose()
    return {name: sorted(values) for name, values in times.items()}


def stored_rows(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The columns the submit stores for each item (but the job's id and the time), for the anchor."""
    kind = solvers.get("sudoku")
    options = kind.read_options({})
    prepared = kind.prepare_batch([item["puzzle"] for item in items], options)
    return [(i, item["kind"], json.dumps(item["puzzle"]), json.dumps(options), "queued", 0, 0, 0, False,
             *kind.predict(p, options))
            for i, (item, p) in enumerate(zip(items, prepared, strict=True))]


def copy_rows(engine: Any, job_id: str, rows: list[tuple[Any, ...]]) -> float:
    """ms to COPY ``rows`` (``stored_rows``) into the anchor table and commit."""
    created = datetime.now().astimezone()
    start = time.perf_counter()
    with engine.connect() as conn:
        cursor = conn.connection.driver_connection.cursor()
        with cursor.copy("COPY anchor (index, kind, input, options, status, attempts, parts_total, "
                         "parts_done, stop_requested, estimated_seconds, estimate_factor, estimate_basis, "
                         "job_id, created_at) FROM STDIN") as copy:
            for row in rows:
                copy.write_row((*row, job_id, created))
        conn.commit()
    return (time.perf_counter() - start) * 1000


@dataclass
class Work:
    """A phase's rates; for one worker of one pool process also its chunks' steps, in ms, sorted."""
    rate: float           # puzzles a second over the solving span: first claim to last write
    wall_rate: float      # the same over the wall time from the resume
    inside: list[float]   # each chunk from its claim to its write
    between: list[float]  # from a chunk's write to the next one's claim


def work_rate(puzzles: list[str], batch: int, workers: int, pin: bool, concurrency: int = 1,
              repeats: int = 3) -> Work:
    """How fast ``workers`` workers (of ``concurrency`` pool processes) clear a full queue:
    medians of ``repeats`` fills of the queue on one stack (a single one swings by a third)."""
    spans, walls, inside, between = [], [], [], []
    with stack(workers, concurrency) as running, pinned(running) if pin else contextlib.nullcontext():
        end_to_end(running.base, puzzles[:200], batch)  # workers warm and connected
        for _ in range(repeats):
            _, wall, ids = accept_then_work(running, puzzles, batch, workers)
            span, chunks = recorded(running.db_url, ids)
            spans.append(len(puzzles) / span)
            walls.append(len(puzzles) / wall)
            if workers == concurrency == 1:
                one, two = steps(chunks)
                inside += one
                between += two
    return Work(statistics.median(spans), statistics.median(walls), sorted(inside), sorted(between))


def p(values: list[float], q: float) -> float:
    return values[int(q * (len(values) - 1))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--puzzles", type=int, default=20_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=1000, help="puzzles per POST")
    ap.add_argument("--latency-runs", type=int, default=50)
    ap.add_argument("--accept-runs", type=int, default=20)
    ap.add_argument("--latency-only", action="store_true",
                    help="only the one-puzzle job's latency, on a stack warmed with 200 puzzles")
    ap.add_argument("--accept-only", action="store_true",
                    help="only the POST in process, against its rows stored by COPY")
    args = ap.parse_args()
    if args.accept_only:
        accept = accept_in_process(load_puzzles(args.batch * 20), args.batch, args.accept_runs)
        print_accept(accept, args.batch)
        return
    if args.latency_only:
        with stack(args.workers) as running:
            end_to_end(running.base, load_puzzles(200), args.batch)  # workers warm and connected
            lat = latencies(running.base, load_puzzles(1)[0], args.latency_runs)
        print(f"{args.latency_runs} one-puzzle jobs, {args.workers} workers; load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
        print("| measure | value |")
        print("|---|---|")
        print_latencies(lat)
        return
    if len(os.sched_getaffinity(0)) < 2:
        ap.error("the pinned measure needs 2 cores")

    puzzles = load_puzzles(args.puzzles)
    raws, batches = [], []

    def anchors() -> None:
        raws.append(raw_rate(puzzles))
        batches.append(raw_batch_rate(puzzles))

    anchors()
    accept = accept_in_process(puzzles, args.batch, args.accept_runs)
    alone = work_rate(puzzles, args.batch, 1, pin=True)
    anchors()
    doubled = work_rate(puzzles, args.batch, 1, pin=True, concurrency=2).rate
    anchors()
    shared = work_rate(puzzles, args.batch, args.workers, pin=False)
    anchors()
    shared_doubled = work_rate(puzzles, args.batch, args.workers, pin=False, concurrency=2).rate
    anchors()
    # The anchors, measured between the phases: the machine's speed drifts
    # within one run, and one reading taken first would tilt every share.
    raw, batch = statistics.median(raws), statistics.median(batches)
    with stack(args.workers) as running:
        end_to_end(running.base, puzzles[:200], args.batch)  # workers warm and connected
        accepted, _, _ = accept_then_work(running, puzzles, args.batch, args.workers)
        total = end_to_end(running.base, puzzles, args.batch)
        lat = latencies(running.base, puzzles[0], args.latency_runs)

    n, w = len(puzzles), args.workers
    print(f"{n} 17-clue Sudokus (the file's 10,000, over again), default options (uniqueness proof), "
          f"verified; {os.cpu_count()} cores\n")
    print("| measure | value |")
    print("|---|---|")
    print(f"| batch: Kind.prepare_batch + solve_batch, 1,000 a call, one process, median of "
          f"{len(batches)} between the phases | {batch:,.0f} puzzles/s "
          f"({min(batches):,.0f}-{max(batches):,.0f}) |")
    print(f"| raw: one by one (prepare+solve+verify), one process | {raw:,.0f} puzzles/s "
          f"({min(raws):,.0f}-{max(raws):,.0f}) |")
    print(f"| accept in process: POST of {args.batch}, wall p50 / p99 | {p(accept['wall'], .5):.1f} / "
          f"{p(accept['wall'], .99):.1f} ms |")
    print(f"| accept in process: POST of {args.batch}, CPU p50 | {p(accept['cpu'], .5):.1f} ms |")
    print(f"| work, 1 worker on its own core | {alone.rate:,.0f} puzzles/s = "
          f"{alone.rate / batch:.0%} of batch |")
    print(f"| the same, wall time from the resume | {alone.wall_rate:,.0f} puzzles/s = "
          f"{alone.wall_rate / batch:.0%} of batch |")
    print(f"| the same: a chunk from its claim to its write, p50 / p90; a call of the batch | "
          f"{p(alone.inside, .5):.1f} / {p(alone.inside, .9):.1f} ms; "
          f"{args.batch / batch * 1000:.1f} ms |")
    print(f"| the same: from a chunk's write to the next one's claim, p50 / p90 | "
          f"{p(alone.between, .5):.1f} / {p(alone.between, .9):.1f} ms |")
    print(f"| 1 worker of 2 pool processes on its own core | {doubled:,.0f} puzzles/s = "
          f"{doubled / batch:.0%} of batch |")
    print(f"| accept over HTTP: POSTs of {args.batch}, {w} workers paused | {accepted:.2f} s, "
          f"{n / accepted:,.0f} puzzles/s |")
    print(f"| work, {w} workers sharing the cores | {shared.rate:,.0f} puzzles/s |")
    per = shared.rate / w
    print(f"| work per worker, {w} workers | {per:,.0f} puzzles/s = {per / batch:.0%} of batch |")
    print(f"| the same, wall time from the resume | {shared.wall_rate / w:,.0f} puzzles/s = "
          f"{shared.wall_rate / w / batch:.0%} of batch |")
    print(f"| work per worker, {w} workers of 2 pool processes sharing the cores | {shared_doubled / w:,.0f} "
          f"puzzles/s = {shared_doubled / w / batch:.0%} of batch |")
    print(f"| end to end: POSTs and workers at once | {total:.2f} s, {n / total:,.0f} puzzles/s |")
    print(f"| end to end per worker | {n / total / w:,.0f} puzzles/s = "
          f"{n / total / w / batch:.0%} of batch |")
    print_latencies(lat)


def print_accept(accept: dict[str, list[float]], batch: int) -> None:
    print(f"{len(accept['wall'])} POSTs of {batch} 17-clue Sudokus in process, each followed by the anchor; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| measure, ms | p50 | p99 |")
    print("|---|---:|---:|")
    for name, what in (("wall", "POST, wall"), ("cpu", "POST, CPU of this process"),
                       ("statement", "its submit statement (backlog, job, rows, tallies)"),
                       ("copy", "anchor: the same rows by COPY, committed")):
        print(f"| {what} | {p(accept[name], .5):.1f} | {p(accept[name], .99):.1f} |")
    print(f"| POST wall / anchor | {p(accept['wall'], .5) / p(accept['copy'], .5):.2f} | |")


def print_latencies(lat: dict[str, list[float]]) -> None:
    for key, what in (("post", "POST answered"), ("worker", "stored to finished (job timestamps)"),
                      ("seen", "finished to answered (?wait=)"), ("total", "submit to completed")):
        print(f"| one-puzzle job: {what}, p50 / p95 | {p(lat[key], .5):.1f} / {p(lat[key], .95):.1f} ms |")


if __name__ == "__main__":
    main()
