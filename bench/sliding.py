"""Sliding-tile benchmark: prints markdown tables.

    python bench/sliding.py            # everything (a few minutes)
    python bench/sliding.py --quick    # fewer instances of each

Tables: the IDA* kernel's nodes per second against a plain C IDA* (bench/c/ida_manhattan.c,
compiled here with the first C compiler found, skipped with a note without one), both on
Korf's 10 easiest instances with Manhattan, run alternately in this script, medians of CPU
time; Korf's 100 with the 6-6-3 pattern database and, where it is built, the 7-8; ``auto``
against each named algorithm on the 8-puzzle, Korf's 100 and random 24- to 63-puzzles. Times
are CPU seconds of this process (time.process_time) unless a row says otherwise.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.anchor import compile_c  # noqa: E402
from solvers.base import BudgetExceeded, Outcome  # noqa: E402
from solvers.sliding import pdb  # noqa: E402
from solvers.sliding.board import random_board  # noqa: E402
from solvers.sliding.kind import KIND  # noqa: E402

DATA = ROOT / "tests" / "data" / "sliding"
C_SOURCE = ROOT / "bench" / "c" / "ida_manhattan.c"
KORF_GOAL = " ".join(map(str, range(16)))


def run(board: str, **options: Any) -> tuple[Outcome, float]:
    """One verified solve through the kind's interface and its CPU seconds."""
    puzzle, opts = KIND.prepare(board, options)
    started = time.process_time()
    outcome = KIND.solve(puzzle, opts)
    seconds = time.process_time() - started
    KIND.verify(puzzle, opts, outcome)
    assert outcome.result is not None, "every board here is solvable"
    return outcome, seconds


def length(outcome: Outcome) -> int:
    assert outcome.result is not None
    return int(outcome.result["length"])


def korf_rows() -> list[tuple[int, str, int, int]]:
    """(number, board, optimal length, Manhattan IDA* nodes) for Korf's 100."""
    rows = [line.split() for line in (DATA / "korf100.txt").read_text().splitlines() if line.strip()]
    nodes = [line.split("\t") for line in (DATA / "korf100_nodes.tsv").read_text().splitlines()[1:]]
    pairs = enumerate(zip(rows, nodes, strict=True))
    return [(i + 1, " ".join(r[:16]), int(r[16]), int(n[4])) for i, (r, n) in pairs]


# -- the kernel against plain C



def kernel_against_c(rounds: int) -> None:
    easiest = sorted(korf_rows(), key=lambda r: r[3])[:10]
    print("\n### IDA* with Manhattan: the kernel against plain C (Korf's 10 easiest)\n")
    with tempfile.TemporaryDirectory() as folder:
        binary = compile_c(C_SOURCE, Path(folder))
        if binary is None:
            print("No C compiler (cc, clang, gcc) on PATH: the C anchor is skipped.\n")
        run(easiest[0][1], goal=KORF_GOAL, algorithm="idastar", heuristic="manhattan")  # compile or load
        ours: dict[int, list[float]] = {r[0]: [] for r in easiest}
        anchor: dict[int, list[float]] = {r[0]: [] for r in easiest}
        counts: dict[int, tuple[int, int | None]] = {}
        lines = "".join(" ".join(board.split()) + "\n" for _, board, _, _ in easiest)
        for _ in range(rounds):  # alternate: one pass of ours, one of C
            for number, board, _, _ in easiest:
                outcome, seconds = run(board, goal=KORF_GOAL, algorithm="idastar", heuristic="manhattan")
                ours[number].append(seconds)
                counts[number] = (outcome.stats["generated"], None)
            if binary is not None:
                out = subprocess.run([str(binary)], input=lines, capture_output=True, text=True, check=True)
                for (number, *_), line in zip(easiest, out.stdout.splitlines(), strict=True):
                    _, c_nodes, c_seconds = line.split()
                    anchor[number].append(float(c_seconds))
                    counts[number] = (counts[number][0], int(c_nodes))
    print("| # | nodes (ours) | nodes (C) | korf100_nodes.tsv | kernel M nodes/s | C M nodes/s "
          "| kernel / C |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    total = ours_s = c_s = 0.0
    for number, _, _, expected in easiest:
        generated, c_generated = counts[number]
        mine = statistics.median(ours[number])
        theirs = statistics.median(anchor[number]) if anchor[number] else None
        total += generated
        ours_s += mine
        c_s += theirs or 0.0
        c_rate = f"{c_generated / theirs / 1e6:.1f}" if theirs and c_generated else "-"
        ratio = f"{theirs / mine:.2f}" if theirs else "-"
        print(f"| {number} | {generated:,} | {c_generated or '-':,} | {expected:,} | "
              f"{generated / mine / 1e6:.1f} | {c_rate} | {ratio} |")
    c_total = f"{total / c_s / 1e6:.1f}" if c_s else "-"
    ratio_total = f"**{c_s / ours_s:.2f}**" if c_s else "-"
    print(f"| **all 10** | {int(total):,} | | | **{total / ours_s / 1e6:.1f}** | {c_total} | {ratio_total} |")
    print(f"\nMedians of {rounds} alternating rounds; kernel times include the call through `KIND.solve`.")


# -- Korf's 100 with the pattern databases


def korf_pass(heuristic: str) -> tuple[float, int, int, float]:
    """Korf's 100 once: (CPU s in all, nodes, worst nodes, worst s); every length checked."""
    total_s = worst_s = 0.0
    total_nodes = worst_nodes = 0
    for number, board, optimum, _ in korf_rows():
        outcome, seconds = run(board, goal=KORF_GOAL, algorithm="idastar", heuristic=heuristic)
        assert outcome.stats["heuristic"] == heuristic and length(outcome) == optimum, number
        total_s += seconds
        total_nodes += outcome.stats["generated"]
        worst_nodes = max(worst_nodes, outcome.stats["generated"])
        worst_s = max(worst_s, seconds)
    return total_s, total_nodes, worst_nodes, worst_s


def fifteen_pdb(rounds: int) -> None:
    """Both databases, alternating passes over Korf's 100; the 7-8 only where it was built."""
    started = time.perf_counter()
    fresh = pdb.load() is None
    if fresh:
        pdb.build(quiet=True)
    build_s = time.perf_counter() - started
    heuristics = {"pdb": "6-6-3"}
    if pdb.load("78") is not None:
        heuristics["pdb78"] = "7-8"
    for heuristic in heuristics:  # compile, load, map
        run(korf_rows()[0][1], goal=KORF_GOAL, algorithm="idastar", heuristic=heuristic)
    passes: dict[str, list[tuple[float, int, int, float]]] = {h: [] for h in heuristics}
    loads = []
    for _ in range(rounds):
        for heuristic in heuristics:
            loads.append(os.getloadavg()[0])
            passes[heuristic].append(korf_pass(heuristic))
    print("\n### 15-puzzle: Korf's 100 with the pattern databases (+ diagonal reflection)\n")
    print(f"6-6-3 {'built in' if fresh else 'loaded in'} {build_s:.1f} s wall "
          f"(`python -m solvers.sliding.pdb build`). "
          + ("7-8 memory-mapped from the cache folder." if "pdb78" in heuristics else
             "The 7-8 is not built here (`python -m solvers.sliding.pdb build --pdb 78`): no row.")
          + f" {rounds} alternating passes, median CPU; load average {min(loads):.1f}-{max(loads):.1f} "
          "during them.\n")
    print("| database | instances | all optimal | nodes generated | mean nodes | worst nodes | CPU s in all "
          "(median) | passes | worst s | M nodes/s |")
    print("| --- | ---: | :---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    for heuristic, name in heuristics.items():
        runs = passes[heuristic]
        seconds = statistics.median(r[0] for r in runs)
        _, nodes, worst_nodes, _ = runs[0]
        worst_s = statistics.median(r[3] for r in runs)
        every = " / ".join(f"{r[0]:.2f}" for r in runs)
        print(f"| {name} (`{heuristic}`) | 100 | yes | {nodes:,} | {nodes / 100:,.0f} | {worst_nodes:,} | "
              f"**{seconds:.2f}** | {every} | {worst_s:.2f} | {nodes / seconds / 1e6:.1f} |")


# -- auto against the named algorithms


def strategy_table(title: str, boards: list[str], rows: list[tuple[str, dict[str, Any], int]],
                   optimum: Callable[[int], int | None]) -> None:
    """One row per algorithm over the first ``n`` boards; a budget run out counts as unanswered."""
    print(f"\n### {title}\n")
    print("| algorithm | instances | unanswered | mean CPU s | max CPU s | mean length | length / optimum | "
          "proved optimal | answered by |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for name, options, n in rows:
        times, lengths, ratios, proved, by, failed = [], [], [], 0, set(), 0
        for i, board in enumerate(boards[:n]):
            try:
                outcome, seconds = run(board, **options)
            except BudgetExceeded:
                failed += 1
                continue
            times.append(seconds)
            lengths.append(length(outcome))
            best = optimum(i)
            if best:
                ratios.append(length(outcome) / best)
            proved += outcome.result is not None and outcome.result["optimal"]
            by.add(outcome.stats["strategy"])
        ratio = f"{statistics.mean(ratios):.3f}" if ratios else "unknown"
        print(f"| {name} | {n} | {failed} | {statistics.mean(times):.3f} | {max(times):.3f} | "
              f"{statistics.mean(lengths):.1f} | {ratio} | {proved} | {', '.join(sorted(by))} |")


def eight_puzzle(count: int, slow: int) -> None:
    rng = random.Random(2024)
    boards = [" ".join(map(str, random_board(3, rng))) for _ in range(count)]
    optimal = [length(run(b, algorithm="idastar")[0]) for b in boards]
    strategy_table(f"8-puzzle: {count} random solvable states (seed 2024)", boards, [
        ("auto (default)", {}, count),
        ("bfs (the source's)", {"algorithm": "bfs"}, slow),
        ("dfs (the source's, not optimal)", {"algorithm": "dfs"}, slow),
        ("astar + linear_conflict", {"algorithm": "astar", "heuristic": "linear_conflict"}, count),
        ("idastar + manhattan", {"algorithm": "idastar", "heuristic": "manhattan"}, count),
        ("reduction", {"algorithm": "reduction"}, count),
    ], lambda i: optimal[i])


def fifteen_puzzle(limit: int) -> None:
    rows = korf_rows()[:limit]
    boards = [board for _, board, _, _ in rows]
    title = f"15-puzzle: Korf's {limit} (goal blank first)"
    strategy_table(title, boards, [
        ("auto (default)", {"goal": KORF_GOAL}, limit),
        ("idastar + pdb (6-6-3)", {"goal": KORF_GOAL, "algorithm": "idastar", "heuristic": "pdb"}, limit),
        ("reduction (not optimal)", {"goal": KORF_GOAL, "algorithm": "reduction"}, limit),
    ], lambda i: rows[i][2])


def big_boards(count: int) -> None:
    for k in (5, 6, 7, 8):
        rng = random.Random(k)
        boards = [" ".join(map(str, random_board(k, rng))) for _ in range(count)]
        strategy_table(f"{k * k - 1}-puzzle: {count} random solvable states (seed {k}); idastar cannot "
                       f"finish these, astar/bfs/dfs refuse them", boards, [
                           ("auto (default)", {}, count),
                           ("reduction", {"algorithm": "reduction"}, count),
                       ], lambda i: None)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer instances")
    parser.add_argument("--only", choices=("c", "pdb", "strategies"), help="one part: the C anchor, "
                        "the pattern databases, or auto against the named algorithms")
    args = parser.parse_args()
    print(f"Machine: {platform.machine()}, {os.cpu_count()} cores, {platform.processor() or 'cpu'}; "
          f"{platform.python_implementation()} {platform.python_version()}; one process. "
          f"Pin it with `taskset -c 1` on a shared machine.")
    if args.only in (None, "c"):
        kernel_against_c(3 if args.quick else 7)
    if args.only in (None, "pdb"):
        fifteen_pdb(2 if args.quick else 3)
    if args.only in (None, "strategies"):
        eight_puzzle(50 if args.quick else 300, 10 if args.quick else 40)
        fifteen_puzzle(20 if args.quick else 100)
        big_boards(5 if args.quick else 20)


if __name__ == "__main__":
    main()
