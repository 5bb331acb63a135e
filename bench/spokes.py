"""Spokes benchmark: both strategies on x-sheep's 145 instances, PA alone, and generated grids.

    PYTHONPATH=. python bench/spokes.py [--seeds 3] [--sizes 5,10,15,20,25,30]

Prints markdown tables. Times are wall-clock milliseconds of ``solve`` in this
process; ratios compare against the search strategy measured in the same run.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from collections import defaultdict
from pathlib import Path

from solvers import spokes
from solvers.base import BudgetExceeded

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "spokes" / "xsheep_generated.tsv"
STRATEGIES = ("search", "pruning")
DIFFICULTIES = ("easy", "tricky", "hard")


def timed(puzzle, options, node_limit=None):
    start = time.perf_counter()
    outcome = spokes.solve(puzzle, options, node_limit=node_limit)
    ms = (time.perf_counter() - start) * 1000.0
    spokes.verify(puzzle, options, outcome)
    return ms, outcome


def data_set(path: Path) -> None:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    times: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    pa: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        puzzle = spokes.parse(row["game_id"])
        for strategy in STRATEGIES:
            ms, outcome = timed(puzzle, {"strategy": strategy, "max_solutions": 2})
            assert outcome.result["unique"], row["name"]
            times[(row["width"] + "x" + row["height"], row["difficulty"], strategy)].append(ms)
        _, outcome = timed(puzzle, {"strategy": "pruning", "max_solutions": 1})
        pa[row["difficulty"]].append(outcome.stats)

    print(f"### x-sheep instances ({len(rows)}): solve and prove unique (max_solutions=2), ms\n")
    print("| size | difficulty | n | search mean | search max | pruning mean | pruning max "
          "| pruning/search |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    sizes = sorted({k[0] for k in times}, key=lambda s: int(s.split("x")[0]))
    for size in sizes:
        for difficulty in DIFFICULTIES:
            s, p = times[(size, difficulty, "search")], times[(size, difficulty, "pruning")]
            print(f"| {size} | {difficulty} | {len(s)} | {statistics.mean(s):.1f} | {max(s):.1f} | "
                  f"{statistics.mean(p):.1f} | {max(p):.1f} | "
                  f"{statistics.mean(p) / statistics.mean(s):.2f} |")

    print("\n### The Pruning Algorithm alone (strategy pruning, first solution)\n")
    print("| difficulty | instances | PA alone, no trial and error | stalled | mean PA deletions "
          "| mean trial and error (incl. search) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for difficulty in DIFFICULTIES:
        stats = pa[difficulty]
        alone = sum(s["pa_complete"] for s in stats)
        stalled = sum(s["stalls"] > 0 for s in stats)
        print(f"| {difficulty} | {len(stats)} | {alone} ({100 * alone / len(stats):.0f}%) | {stalled} | "
              f"{statistics.mean(s['pa_deletions'] for s in stats):.1f} | "
              f"{statistics.mean(s['trial_and_error'] for s in stats):.1f} |")


def generated(sizes: list[int], seeds: int) -> None:
    print(f"\n### Generated instances (spokes.generate, {seeds} seeds per size), first solution "
          "(max_solutions=1), node budget 4 x points\n")
    print("| size | strategy | solved | over budget | mean ms (solved) | max ms (solved) | mean nodes |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for size in sizes:
        for strategy in STRATEGIES:
            ms_list, nodes, over = [], [], 0
            for seed in range(seeds):
                puzzle = spokes.generate(size, size, seed=seed)
                try:
                    ms, outcome = timed(puzzle, {"strategy": strategy, "max_solutions": 1}, 4 * size * size)
                except BudgetExceeded:
                    over += 1
                    continue
                ms_list.append(ms)
                nodes.append(outcome.stats["nodes"])
            if ms_list:
                print(f"| {size}x{size} | {strategy} | {len(ms_list)} | {over} | "
                      f"{statistics.mean(ms_list):.0f} | {max(ms_list):.0f} | {statistics.mean(nodes):.0f} |")
            else:
                print(f"| {size}x{size} | {strategy} | 0 | {over} | - | - | - |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--sizes", default="5,10,15,20,25,30")
    args = parser.parse_args()
    print("Measured on a shared, loaded 2-core VM; pure Python, one process.\n")
    data_set(args.data)
    generated([int(s) for s in args.sizes.split(",")], args.seeds)


if __name__ == "__main__":
    main()
