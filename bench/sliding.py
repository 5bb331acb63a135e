"""Sliding-tile benchmark: prints markdown tables.

    python bench/sliding.py            # 1,000 random 8-puzzles, Korf's 100 with the PDB, Manhattan counts
    python bench/sliding.py --quick    # fewer of each

Ratios are against a baseline measured in the same process (the generic
Python IDA* for the 8-puzzle).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solvers import search, sliding, sliding_pdb  # noqa: E402

KIND = sliding.KIND
DATA = ROOT / "tests" / "data" / "sliding"
KORF_GOAL = " ".join(map(str, range(16)))


def random_solvable(rng: random.Random, k: int) -> tuple[int, ...]:
    goal = sliding.default_goal(k)
    while True:
        board = list(goal)
        rng.shuffle(board)
        if sliding.solvable(k, tuple(board), goal):
            return tuple(board)


def run(board: str, **options):
    puzzle, opts = KIND.prepare(board, options)
    started = time.perf_counter()
    outcome = KIND.solve(puzzle, opts)
    seconds = time.perf_counter() - started
    KIND.verify(puzzle, opts, outcome)
    return outcome, seconds


def eight_puzzle(count: int, astar_count: int, slow_count: int) -> None:
    rng = random.Random(2024)
    boards = [" ".join(map(str, random_solvable(rng, 3))) for _ in range(count)]
    rows = [
        ("bfs (generic)", {"algorithm": "bfs"}, slow_count),
        ("dfs (generic, not optimal)", {"algorithm": "dfs"}, slow_count),
        ("astar (generic) + manhattan", {"algorithm": "astar", "heuristic": "manhattan"}, astar_count),
        ("astar (generic) + linear_conflict", {"algorithm": "astar", "heuristic": "linear_conflict"},
         astar_count),
        ("idastar (kernel) + misplaced", {"heuristic": "misplaced"}, count),
        ("idastar (kernel) + manhattan", {"heuristic": "manhattan"}, count),
        ("idastar (kernel) + linear_conflict", {"heuristic": "linear_conflict"}, count),
    ]
    run(boards[0])  # load the compiled kernel before timing
    baseline = []
    for board in boards[:slow_count]:
        board_tuple = tuple(map(int, board.split()))
        problem = sliding.SlidingProblem(3, board_tuple, sliding.default_goal(3), "manhattan")
        started = time.perf_counter()
        search.ida_star(problem)
        baseline.append(time.perf_counter() - started)
    base_ms = statistics.mean(baseline) * 1000
    print(f"\n### 8-puzzle: {count} random solvable states (seed 2024)\n")
    print("| algorithm | instances | mean ms | max ms | mean generated | mean length "
          "| speed-up vs generic IDA* |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(f"| idastar (generic Python) + manhattan, baseline | {slow_count} | {base_ms:.2f} | "
          f"{max(baseline) * 1000:.2f} | | | 1.0 |")
    for name, options, n in rows:
        times, nodes, lengths = [], [], []
        for board in boards[:n]:
            outcome, seconds = run(board, **options)
            times.append(seconds)
            nodes.append(outcome.stats["generated"])
            lengths.append(outcome.result["length"])
        mean_ms = statistics.mean(times) * 1000
        print(f"| {name} | {n} | {mean_ms:.2f} | {max(times) * 1000:.2f} | {statistics.mean(nodes):,.0f} | "
              f"{statistics.mean(lengths):.2f} | {base_ms / mean_ms:.1f} |")


def korf_rows():
    rows = [line.split() for line in (DATA / "korf100.txt").read_text().splitlines() if line.strip()]
    nodes = [line.split("\t") for line in (DATA / "korf100_nodes.tsv").read_text().splitlines()[1:]]
    pairs = enumerate(zip(rows, nodes, strict=True))
    return [(i + 1, " ".join(r[:16]), int(r[16]), int(n[4])) for i, (r, n) in pairs]


def fifteen_pdb(limit: int) -> None:
    started = time.perf_counter()
    fresh = sliding_pdb.load() is None
    if fresh:
        sliding_pdb.build(quiet=True)
    build_s = time.perf_counter() - started
    print("\n### 15-puzzle: Korf's 100 with the 6-6-3 pattern database (+ diagonal reflection)\n")
    print(f"Database: {'built in' if fresh else 'already built, loaded in'} {build_s:.1f} s "
          f"({sliding_pdb.cache_dir() / sliding_pdb.FILE_NAME}); time a build with "
          f"`python -m solvers.sliding_pdb build`.\n")
    run(korf_rows()[0][1], goal=KORF_GOAL)  # compile + load
    print("| # | optimal | length | generated | seconds | nodes/s |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    total_s = total_nodes = 0
    rows = korf_rows()[:limit]
    for number, board, length, _ in rows:
        outcome, seconds = run(board, goal=KORF_GOAL)
        assert outcome.stats["heuristic"] == "pdb" and outcome.result["length"] == length, number
        total_s += seconds
        total_nodes += outcome.stats["generated"]
        print(f"| {number} | {length} | {outcome.result['length']} | {outcome.stats['generated']:,} | "
              f"{seconds:.3f} | {outcome.stats['generated'] / seconds:,.0f} |")
    print(f"| **all {len(rows)}** | | all optimal | {total_nodes:,} (mean {total_nodes / len(rows):,.0f}) | "
          f"**{total_s:.1f}** | {total_nodes / total_s:,.0f} |")


def fifteen_manhattan(max_nodes: int) -> None:
    rows = [r for r in korf_rows() if r[3] <= max_nodes]
    print(f"\n### 15-puzzle: Manhattan-only IDA* against korf100_nodes.tsv "
          f"({len(rows)} instances with at most {max_nodes:,} nodes)\n")
    print("| # | length | generated (ours) | korf100_nodes.tsv | equal | seconds | nodes/s |")
    print("| ---: | ---: | ---: | ---: | :---: | ---: | ---: |")
    total_s = total_nodes = 0
    for number, board, _length, expected in rows:
        outcome, seconds = run(board, goal=KORF_GOAL, heuristic="manhattan")
        generated = outcome.stats["generated"]
        total_s += seconds
        total_nodes += generated
        print(f"| {number} | {outcome.result['length']} | {generated:,} | {expected:,} | "
              f"{'yes' if generated == expected else '**no**'} | {seconds:.2f} | "
              f"{generated / seconds:,.0f} |")
    print(f"| **all {len(rows)}** | | {total_nodes:,} | | | {total_s:.1f} | {total_nodes / total_s:,.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer instances")
    args = parser.parse_args()
    print("Measured on a shared, loaded 2-core VM; one core, one process.")
    eight_puzzle(100 if args.quick else 1000, 50 if args.quick else 200, 10 if args.quick else 50)
    fifteen_pdb(20 if args.quick else 100)
    fifteen_manhattan(3_000_000 if args.quick else 20_000_000)


if __name__ == "__main__":
    main()
