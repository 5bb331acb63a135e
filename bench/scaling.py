"""Distributed solving: speed-up of one split n-Queens count over worker processes, measured
and simulated; printed as markdown tables.

    PYTHONPATH=. python bench/scaling.py [--n 16] [--no-service]

1. Processes: the parts of ``split`` solved by a pool of 1 and of 2 processes (what the
   workers run, without the queue), against the whole solve in this process.
2. Service: the same puzzle through the API, Redis, PostgreSQL and 1, then 2 ``celery
   worker`` processes (skipped when the services are not reachable). The gap between the
   1-worker wall time and the sum of the part times, per part, is the dispatch overhead.
3. Simulation: the measured per-part times of several split sizes, dealt in order to W
   workers that each take the next part when free, every part paying the dispatch
   overhead, after the coordinator's split: the speed-up at 8, 32 and 128 workers.
"""

from __future__ import annotations

import argparse
import heapq
import time
import uuid
from concurrent.futures import ProcessPoolExecutor

import solvers

KIND = solvers.get("nqueens")
SPLIT_SIZES = (16, 64, 256, 1024)
SIMULATED_WORKERS = (1, 2, 8, 32, 128)


def whole_seconds(n: int) -> float:
    puzzle, options = KIND.prepare(n, {"mode": "count"})
    start = time.perf_counter()
    KIND.solve(puzzle, options)
    return time.perf_counter() - start


def timed_split(n: int, parts: int) -> tuple[float, list[dict]]:
    puzzle, options = KIND.prepare(n, {"mode": "count"})
    start = time.perf_counter()
    split = KIND.split(puzzle, options, parts)
    return time.perf_counter() - start, split.parts


def part_seconds(args: tuple[int, dict]) -> float:
    n, part = args
    puzzle, options = KIND.prepare(n, {"mode": "count"})
    start = time.perf_counter()
    KIND.solve_part(puzzle, options, part)
    return time.perf_counter() - start


def pool_wall(n: int, parts: list[dict], processes: int) -> float:
    with ProcessPoolExecutor(processes) as pool:
        list(pool.map(part_seconds, [(n, parts[0])] * processes))  # start and compile before timing
        start = time.perf_counter()
        list(pool.map(part_seconds, [(n, p) for p in parts]))
        return time.perf_counter() - start


def simulate(split_s: float, times: list[float], workers: int, overhead: float) -> float:
    """Makespan: parts taken in publish order by whichever worker is free first."""
    free = [split_s] * workers
    for t in times:
        heapq.heapreplace(free, free[0] + overhead + t)
    return max(free)


def service_walls(n: int, repeats: int) -> dict[int, float] | None:
    """Best wall time from submit to completed with 1 and 2 worker processes, or None without services."""
    import tempfile
    from pathlib import Path

    import _pytest.outcomes

    from tests.integration.conftest import Stack, Workers, app_for, migrate, service_env
    from tests.services import fresh_postgres, fresh_redis

    walls: dict[int, float] = {}
    try:
        with fresh_postgres() as db, fresh_redis() as redis, tempfile.TemporaryDirectory() as logs:
            migrate(db)
            env = service_env(db, redis, f"bench-{uuid.uuid4().hex[:8]}", PUZZLE_TIME_LIMIT="600",
                              SPLIT_PARTS="64", SPLIT_QUEENS_N="10")
            workers = Workers(env, Path(logs))
            try:
                for count in (1, 2):
                    workers.start()
                    stack = Stack(app_for(env), workers)
                    best = float("inf")
                    for _ in range(repeats):
                        start = time.perf_counter()
                        job = stack.submit([{"kind": "nqueens", "puzzle": n, "options": {"mode": "count"}}])
                        stack.wait(job, timeout=1200)
                        best = min(best, time.perf_counter() - start)
                    walls[count] = best
            finally:
                workers.stop()
    except (_pytest.outcomes.Skipped, _pytest.outcomes.Failed) as exc:
        print(f"\n(service run skipped: {exc})")
        return None
    return walls


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
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--parts", type=int, default=64, help="split size for the process and service runs")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--no-service", action="store_true")
    args = ap.parse_args()
    n = args.n
    print(f"n-Queens count, n = {n}; measured on a shared, loaded 2-core VM (best of {args.repeats}).\n")

    whole_seconds(8)  # load the compiled kernels before timing
    whole = min(whole_seconds(n) for _ in range(args.repeats))
    split_s, parts = timed_split(n, args.parts)
    serial = [part_seconds((n, p)) for p in parts]
    print(f"whole solve in this process: {whole:.2f} s; split into {len(parts)} parts in "
          f"{split_s * 1000:.1f} ms; parts one after another: {sum(serial):.2f} s\n")
    print("| processes | wall (s) | speed-up vs whole | speed-up vs 1 process | efficiency |")
    print("|---:|---:|---:|---:|---:|")
    one = None
    for processes in (1, 2):
        wall = min(pool_wall(n, parts, processes) for _ in range(args.repeats))
        one = one or wall
        print(f"| {processes} | {wall:.2f} | {whole / wall:.2f}x | {one / wall:.2f}x "
              f"| {one / wall / processes:.0%} |")

    overhead = 0.003  # a Celery round trip on Redis (docs/service.md), replaced by the measured one below
    walls = None if args.no_service else service_walls(n, args.repeats)
    if walls:
        print(f"\nThrough the service ({args.parts} parts requested, PostgreSQL + Redis + celery prefork "
              "workers):\n")
        print("| workers | wall, submit to completed (s) | speed-up vs 1 worker | efficiency |")
        print("|---:|---:|---:|---:|")
        for count, wall in walls.items():
            print(f"| {count} | {wall:.2f} | {walls[1] / wall:.2f}x | {walls[1] / wall / count:.0%} |")
        overhead = max(0.0, (walls[1] - sum(serial) - split_s) / len(parts))
        print(f"\ndispatch overhead per part, from the 1-worker run: {overhead * 1000:.1f} ms")

    print(f"\nSimulated speed-up vs the whole solve ({whole:.2f} s), from each split's measured part times "
          f"and {overhead * 1000:.1f} ms dispatch per part:\n")
    print("| parts | split (s) | sum of parts (s) | largest part (s) | "
          + " | ".join(f"{w} workers" for w in SIMULATED_WORKERS) + " |")
    print("|---:|---:|---:|---:|" + "---:|" * len(SIMULATED_WORKERS))
    for size in SPLIT_SIZES:
        s_split, made = timed_split(n, size)
        times = [part_seconds((n, p)) for p in made]
        speedups = [whole / simulate(s_split, times, w, overhead) for w in SIMULATED_WORKERS]
        print(f"| {len(made)} | {s_split:.3f} | {sum(times):.2f} | {max(times):.3f} | "
              + " | ".join(f"{x:.1f}x" for x in speedups) + " |")

    rate = sudoku_node_rate()
    print(f"\nSudoku greedy search: {rate:,.0f} nodes/s, so a whole try within SPLIT_NODE_BUDGET = 1,000,000 "
          f"nodes costs about {1e6 / rate:.1f} s before a puzzle is split.")


if __name__ == "__main__":
    main()
