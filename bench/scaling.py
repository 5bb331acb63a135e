"""Distributed solving: speed-up of one split n-Queens puzzle over worker processes, measured
and simulated; printed as markdown tables.

    PYTHONPATH=. python bench/scaling.py [--n 16 17] [--estimate-n 20 --probes 100000000] [--no-service]

Workloads: an exact count by the tree for each ``--n``, and Knuth's estimate of ``--estimate-n`` with
``--probes`` probes and a fixed seed.

1. Processes: the parts of ``split`` solved by a pool of 1 and of 2 processes (what the
   workers run, without the queue), against the whole solve in this process.
2. Service: the same puzzles through the API, Redis, PostgreSQL and 1, then 2 ``celery
   worker`` processes (skipped when the services are not reachable). Wall time is the job's
   own, from its ``created_at`` to its ``finished_at``, so the bench's polling neither adds
   to it nor, polling rarely, takes CPU from the workers. Every worker process first solves
   a small split job, so no timed run pays for opening connections. From the subtask rows:
   where the time between the parts goes (the dispatch overhead).
3. Simulation: the measured per-part times of several split sizes of the first count,
   dealt in order to W workers that each take the next part when free, every part paying
   the dispatch overhead measured through the service, after the coordinator's split: the
   speed-up at 8, 32 and 128 workers.
"""

from __future__ import annotations

import argparse
import heapq
import statistics
import sys
import time
import uuid
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

# Run as a script, this folder comes first on the path and its service.py would shadow the
# service package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import itertools

import solvers

KIND = solvers.get("nqueens")
SPLIT_SIZES = (16, 64, 256, 1024)
SIMULATED_WORKERS = (1, 2, 8, 32, 128)
POLL_SECONDS = 0.25


@dataclass(frozen=True)
class Workload:
    n: int
    mode: str = "count"
    probes: int = 0
    seed: int = 0

    @property
    def options(self) -> dict:
        if self.mode == "count":
            return {"mode": "count", "strategy": "tree"}
        return {"mode": "estimate", "probes": self.probes, "seed": self.seed}

    @property
    def label(self) -> str:
        return f"count n={self.n}" if self.mode == "count" else f"estimate n={self.n}, {self.probes:,} probes"

    def prepared(self) -> tuple:
        return KIND.prepare(self.n, self.options)


def whole(w: Workload) -> tuple[float, dict]:
    """(seconds, result) of the whole solve in this process."""
    puzzle, options = w.prepared()
    start = time.perf_counter()
    out = KIND.solve(puzzle, options)
    return time.perf_counter() - start, out.result


def timed_split(w: Workload, parts: int) -> tuple[float, list[dict]]:
    puzzle, options = w.prepared()
    start = time.perf_counter()
    split = KIND.split(puzzle, options, parts)
    return time.perf_counter() - start, split.parts


def part_seconds(args: tuple[Workload, dict]) -> float:
    w, part = args
    puzzle, options = w.prepared()
    start = time.perf_counter()
    KIND.solve_part(puzzle, options, part)
    return time.perf_counter() - start


def pool_wall(w: Workload, parts: list[dict], processes: int) -> float:
    with ProcessPoolExecutor(processes) as pool:
        list(pool.map(part_seconds, [(w, parts[0])] * processes))  # start the processes before timing
        start = time.perf_counter()
        list(pool.map(part_seconds, [(w, p) for p in parts]))
        return time.perf_counter() - start


def simulate(split_s: float, times: list[float], workers: int, overhead: float) -> float:
    """Makespan: parts taken in publish order by whichever worker is free first."""
    free = [split_s] * workers
    for t in times:
        heapq.heapreplace(free, free[0] + overhead + t)
    return max(free)


# -- through the service


@dataclass
class Run:
    """One job through the service, timed by its own rows."""

    wall: float             # job created -> job finished
    to_parts: float         # job created -> parts stored: API, first dispatch, claim, split
    parts: int
    workers: int            # how many worker processes solved parts
    solve_sum: float        # the parts' own solve times, as the workers measured them
    in_task: float          # per part, claim -> record beyond the solve: claim commit, prepare, row locks
    between: float          # per part, record -> the same worker's next claim: commit, ack, fetch, locks
    result: dict = field(repr=False)

    @property
    def overhead(self) -> float:
        """Per part: everything after the split that is not solving (1 worker: nothing overlaps)."""
        return (self.wall - self.to_parts - self.solve_sum) / self.parts


def _seconds(a: datetime, b: datetime) -> float:
    return (b - a).total_seconds()


def run_job(stack, w: Workload) -> Run:
    from sqlalchemy import select

    from store.models import Job, Puzzle, Subtask

    job_id = stack.submit([{"kind": KIND.name, "puzzle": w.n, "options": w.options}])
    deadline = time.monotonic() + 3600
    while (job := stack.client.get(f"/api/v1/jobs/{job_id}").json)["status"] != "completed":
        if time.monotonic() > deadline:
            raise RuntimeError(f"{w.label}: job not completed after an hour: {job}")
        time.sleep(POLL_SECONDS)
    with stack.app.extensions["sessions"]() as s:
        job = s.get(Job, job_id)
        puzzle = s.scalar(select(Puzzle).where(Puzzle.job_id == job_id))
        parts = s.scalars(select(Subtask).where(Subtask.puzzle_id == puzzle.id)
                          .order_by(Subtask.started_at)).all()
        if puzzle.status not in ("solved", "no_solution") or not parts:
            raise RuntimeError(f"{w.label}: expected a split puzzle solved in parts, got {puzzle.status} "
                               f"({puzzle.error}) in {len(parts)} parts")
        by_worker = defaultdict(list)
        for t in parts:
            by_worker[t.worker].append(t)
        gaps = [_seconds(a.finished_at, b.started_at)
                for mine in by_worker.values() for a, b in itertools.pairwise(mine)]
        return Run(wall=_seconds(job.created_at, job.finished_at),
                   to_parts=_seconds(job.created_at, min(t.created_at for t in parts)),
                   parts=len(parts), workers=len(by_worker),
                   solve_sum=sum(t.stats["elapsed_ms"] for t in parts) / 1000,
                   in_task=statistics.mean(_seconds(t.started_at, t.finished_at)
                                           - t.stats["elapsed_ms"] / 1000 for t in parts),
                   between=statistics.mean(gaps) if gaps else 0.0,
                   result=puzzle.result)


Runs = dict[int, dict[Workload, Run]]  # worker processes -> workload -> its best run


def service_runs(workloads: list[Workload], parts: int, repeats: int) -> Runs | None:
    """Best run (by wall time) of each workload with 1 and 2 worker processes, or None without services."""
    import tempfile

    from store.db import migrate
    from tests.support.devstack import (
        Stack,
        Unavailable,
        Workers,
        app_for,
        fresh_postgres,
        fresh_redis,
        service_env,
    )

    runs: Runs = {}
    warm = Workload(12)
    try:
        with fresh_postgres() as db, fresh_redis() as redis, tempfile.TemporaryDirectory() as logs:
            migrate(db)
            env = service_env(db, redis, f"bench-{uuid.uuid4().hex[:8]}", PUZZLE_TIME_LIMIT="600",
                              SPLIT_PARTS=str(parts), SPLIT_QUEENS_N="10", SPLIT_PROBES="10000")
            workers = Workers(env, Path(logs))
            stack = Stack(app_for(env), workers)
            try:
                for count in (1, 2):
                    workers.start()
                    # Until every worker process has solved parts: its connections are open and its
                    # statements compiled before the timed runs.
                    for _ in range(10):
                        if run_job(stack, warm).workers == count:
                            break
                    runs[count] = {w: min((run_job(stack, w) for _ in range(repeats)), key=lambda r: r.wall)
                                   for w in workloads}
            finally:
                workers.stop()
    except Unavailable as exc:
        print(f"\n(service run skipped: {exc})")
        return None
    return runs


# -- printing


Wholes = dict[Workload, tuple[float, dict]]  # the whole solve in this process: best seconds, result


def print_processes(workloads: list[Workload], parts: int, repeats: int) -> Wholes:
    """The process-pool table; returns each workload's whole solve."""
    print(f"Each puzzle split into {parts} parts, solved by a pool of processes; best of {repeats}.\n")
    print("| workload | whole, one process (s) | split (ms) | processes | wall (s) | speed-up vs whole "
          "| speed-up vs 1 process | efficiency |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    wholes = {}
    for w in workloads:
        solves = [whole(w) for _ in range(repeats)]
        wholes[w] = min(t for t, _ in solves), solves[0][1]
        split_s, made = timed_split(w, parts)
        one = None
        for processes in (1, 2):
            wall = min(pool_wall(w, made, processes) for _ in range(repeats))
            one = one or wall
            print(f"| {w.label} | {wholes[w][0]:.2f} | {split_s * 1000:.0f} | {processes} | {wall:.2f} "
                  f"| {wholes[w][0] / wall:.2f}x | {one / wall:.2f}x | {one / wall / processes:.0%} |")
    return wholes


def print_service(runs: Runs, wholes: Wholes, parts: int, repeats: int) -> None:
    print(f"\nThrough the service (PostgreSQL + Redis + celery prefork workers, one process each; "
          f"{parts} parts; best of {repeats}):\n")
    print("| workload | workers | wall, job created to finished (s) | speed-up vs 1 worker | efficiency "
          "| speed-up vs whole |")
    print("|---|---:|---:|---:|---:|---:|")
    for w in wholes:
        one = runs[1][w].wall
        for count in (1, 2):
            run = runs[count][w]
            if run.result != wholes[w][1]:
                raise SystemExit(f"{w.label}, {count} workers: the service answered {run.result}, "
                                 f"the whole solve {wholes[w][1]}")
            print(f"| {w.label} | {count} | {run.wall:.2f} | {one / run.wall:.2f}x "
                  f"| {one / run.wall / count:.0%} | {wholes[w][0] / run.wall:.2f}x |")
    print("\nWhere the time goes (ms; per part: means over the parts of the best run):\n")
    print("| workload | workers | created to parts stored | parts' solve time, sum "
          "| per part: claim to record, beyond the solve | per part: record to the next claim "
          "| dispatch overhead per part (1 worker) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for w in wholes:
        for count in (1, 2):
            run = runs[count][w]
            overhead = f"{run.overhead * 1000:.1f}" if count == 1 else ""
            print(f"| {w.label} | {count} | {run.to_parts * 1000:.0f} | {run.solve_sum * 1000:.0f} "
                  f"| {run.in_task * 1000:.1f} | {run.between * 1000:.1f} | {overhead} |")


def print_simulation(w: Workload, seconds: float, overhead: float) -> None:
    print(f"\nSimulated speed-up vs the whole solve ({w.label}, {seconds:.2f} s), from each split's measured "
          f"part times and {overhead * 1000:.1f} ms dispatch per part:\n")
    print("| parts | split (s) | sum of parts (s) | largest part (s) | "
          + " | ".join(f"{n} worker{'s' * (n > 1)}" for n in SIMULATED_WORKERS) + " |")
    print("|---:|---:|---:|---:|" + "---:|" * len(SIMULATED_WORKERS))
    for size in SPLIT_SIZES:
        s_split, made = timed_split(w, size)
        times = [part_seconds((w, p)) for p in made]
        speedups = [seconds / simulate(s_split, times, n, overhead) for n in SIMULATED_WORKERS]
        print(f"| {len(made)} | {s_split:.3f} | {sum(times):.2f} | {max(times):.3f} | "
              + " | ".join(f"{x:.1f}x" for x in speedups) + " |")


def sudoku_node_rate() -> float:
    """Greedy-search nodes per second counting 10^6 solutions of the empty 9x9 grid: what the
    SPLIT_NODE_BUDGET of a whole try costs in time."""
    kind = solvers.get("sudoku")
    grid, options = kind.prepare("." * 81, {"max_solutions": 1_000_000})
    start = time.perf_counter()
    out = kind.solve(grid, options)
    return out.stats["nodes"] / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[16, 17], help="n-Queens counts to split")
    ap.add_argument("--estimate-n", type=int, default=20, help="the board of the estimate (0: none)")
    ap.add_argument("--probes", type=int, default=10**8)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--parts", type=int, default=64, help="split size for the process and service runs")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--no-service", action="store_true")
    args = ap.parse_args()
    workloads = [Workload(n) for n in args.n]
    if args.estimate_n:
        workloads.append(Workload(args.estimate_n, "estimate", args.probes, args.seed))
    for w in workloads:
        w.prepared()  # a workload past the kind's limits fails here, before any timing
    whole(Workload(8))  # load the compiled kernels before timing

    wholes = print_processes(workloads, args.parts, args.repeats)
    overhead = 0.003  # a Celery round trip on Redis, replaced by the measured one below
    runs = None if args.no_service else service_runs(workloads, args.parts, args.repeats)
    if runs:
        print_service(runs, wholes, args.parts, args.repeats)
        overhead = max(0.0, runs[1][workloads[0]].overhead)
    print_simulation(workloads[0], wholes[workloads[0]][0], overhead)

    rate = sudoku_node_rate()
    print(f"\nSudoku greedy search: {rate:,.0f} nodes/s, so a whole try within SPLIT_NODE_BUDGET = 1,000,000 "
          f"nodes costs about {1e6 / rate:.1f} s before a puzzle is split.")


if __name__ == "__main__":
    main()
