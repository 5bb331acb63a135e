"""Spokes benchmark: auto against each named strategy on x-sheep's 145 instances, on generated grids
with many solutions and on unique generated grids, 4x4 to 40x40; the Pruning Algorithm alone.

    PYTHONPATH=. python bench/spokes.py [--seeds 2] [--sizes 4,6,...,40] [--tree-max 30]
                                        [--unique-sizes 6,8,10,12,15,20]

Prints markdown tables. Times are CPU milliseconds of ``solve`` in this process (the SAT solver
runs in it too), so that other load on the machine counts little. Every solve proves uniqueness
(``max_solutions=2``, the default) and every answer is checked by ``verify``. The search and
pruning strategies get a node budget of 4 x points on generated grids and are not run past
``--tree-max``: beyond it one of their runs can take minutes.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from solvers.base import BudgetExceeded, Outcome
from solvers.spokes.generate import generate
from solvers.spokes.kind import KIND
from solvers.spokes.puzzle import Spokes

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "spokes" / "xsheep_generated.tsv"
STRATEGIES = ("auto", "search", "pruning", "sat")
TREES = ("search", "pruning")  # the strategies that may hang, run under a node budget
DIFFICULTIES = ("easy", "tricky", "hard")
SIZES = "4,6,8,10,12,15,20,25,30,35,40"


def timed(puzzle: Spokes, options: dict[str, Any], node_limit: int | None = None
          ) -> tuple[float, Outcome]:
    KIND.validate(puzzle, options)  # as the service does: the graph is built (and cached) there
    start = time.process_time()
    outcome = KIND.solve(puzzle, options, node_limit=node_limit)
    ms = (time.process_time() - start) * 1000.0
    KIND.verify(puzzle, options, outcome)
    return ms, outcome


def cell(times: Sequence[float]) -> str:
    return f"{statistics.mean(times):.1f} / {max(times):.1f}" if times else "-"


def data_set(path: Path) -> None:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    times: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    answered: dict[str, Counter[str]] = defaultdict(Counter)
    pa: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        puzzle = KIND.parse(row["game_id"])
        size = row["width"] + "x" + row["height"]
        for strategy in STRATEGIES:
            ms, outcome = timed(puzzle, {"strategy": strategy, "max_solutions": 2})
            assert outcome.result is not None and outcome.result["unique"], row["name"]
            times[(size, row["difficulty"], strategy)].append(ms)
            if strategy == "auto":
                answered[size][outcome.stats["strategy"]] += 1
        _, outcome = timed(puzzle, {"strategy": "pruning", "max_solutions": 1})
        pa[row["difficulty"]].append(outcome.stats)

    print(f"### x-sheep instances ({len(rows)}): solve and prove unique, CPU ms mean / max\n")
    print("| size | difficulty | n | auto | search | pruning | sat | auto answered by (all of the size) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    sizes = sorted({k[0] for k in times}, key=lambda s: int(s.split("x")[0]))
    for size in sizes:
        every = ", ".join(f"{k} {v}" for k, v in sorted(answered[size].items()))
        for difficulty in DIFFICULTIES:
            cols = " | ".join(cell(times[(size, difficulty, s)]) for s in STRATEGIES)
            by = every if difficulty == "hard" else ""
            print(f"| {size} | {difficulty} | {len(times[(size, difficulty, 'auto')])} | {cols} | {by} |")

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


def grids(title: str, sizes: list[int], seeds: int, tree_max: int,
          make: Callable[[int, int], Spokes]) -> None:
    """One row per size: each strategy's CPU ms (mean / max over the solved), the ones over budget."""
    print(f"\n### {title}\n")
    print("| size | n | auto | auto answered by (abandoned) | search | search over budget | pruning "
          "| pruning over budget | sat | sat rounds max |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for size in sizes:
        puzzles = [make(size, seed) for seed in range(seeds)]
        times: dict[str, list[float]] = defaultdict(list)
        over: Counter[str] = Counter()
        answered: Counter[str] = Counter()
        rounds = 0
        for puzzle in puzzles:
            for strategy in STRATEGIES:
                if strategy in TREES and size > tree_max:
                    continue
                budget = 4 * size * size if strategy in TREES else None
                try:
                    ms, outcome = timed(puzzle, {"strategy": strategy, "max_solutions": 2}, budget)
                except BudgetExceeded:
                    over[strategy] += 1
                    continue
                times[strategy].append(ms)
                if strategy == "auto":
                    gave_up = " (search)" if outcome.stats["abandoned"] else ""
                    answered[outcome.stats["strategy"] + gave_up] += 1
                if strategy == "sat":
                    rounds = max(rounds, outcome.stats["sat_calls"])
        by = ", ".join(f"{k} {v}" for k, v in sorted(answered.items()))
        tree = [f"{cell(times[s])} | {over[s]}" if size <= tree_max else "not run | -" for s in TREES]
        print(f"| {size}x{size} | {len(puzzles)} | {cell(times['auto'])} | {by} | {tree[0]} | {tree[1]} | "
              f"{cell(times['sat'])} | {rounds} |")


def unique_puzzle(size: int, seed: int) -> Spokes:
    start = time.process_time()
    puzzle = generate(size, size, seed=seed, unique=True)
    UNIQUE_MS[size].append((time.process_time() - start) * 1000.0)
    return puzzle


UNIQUE_MS: dict[int, list[float]] = defaultdict(list)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--sizes", default=SIZES)
    parser.add_argument("--tree-max", type=int, default=30)
    parser.add_argument("--unique-sizes", default="6,8,10,12,15,20")
    args = parser.parse_args()
    print("Measured on a shared, loaded 2-core VM; one process, CPU time.\n")
    data_set(args.data)
    grids(f"Generated grids with many solutions (spokes.generate, {args.seeds} seeds per size): "
          "CPU ms mean / max; search and pruning under a node budget of 4 x points",
          [int(s) for s in args.sizes.split(",")], args.seeds, args.tree_max,
          lambda size, seed: generate(size, size, seed=seed))
    grids(f"Unique generated grids (generate(unique=True), {args.seeds} seeds per size): "
          "CPU ms mean / max; search and pruning under a node budget of 4 x points",
          [int(s) for s in args.unique_sizes.split(",")], args.seeds, args.tree_max, unique_puzzle)
    print("\nMaking the unique grids (CPU ms mean per grid): "
          + ", ".join(f"{s}x{s} {statistics.mean(ms):.0f}" for s, ms in sorted(UNIQUE_MS.items())))


if __name__ == "__main__":
    main()
