"""Korf's 100 predicted against solved: how well the sliding kind's ``predict`` foretells an
optimal search with the default heuristic (the 6-6-3 pattern database, or the 7-8 where built).

    taskset -c 1 .venv/bin/python -m bench.korf [--goals first last] [--boards]

Each board of tests/data/sliding is predicted and then solved with ``optimal: true``, each timed in
CPU seconds of this process; the answer's length is checked against the data set's. One row per
goal (the blank first, Korf's, and the blank last, the kind's default): boards within the
prediction's range, above its high end, more than 10 times the predicted seconds, the median and
the worst ratio actual/predicted, and the median cost of ``predict``. ``--boards`` prints a row per
board as well (bound, optimal length, nodes, seconds, predicted).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import NamedTuple

from solvers import get
from solvers.base import Estimate
from solvers.sliding.predict import bound

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "sliding"
FILES = {"first": "korf100.txt", "last": "korf100_blank_last.txt"}
KORF_GOAL = " ".join(map(str, range(16)))


class Run(NamedTuple):
    board: int
    bound: int
    length: int
    nodes: int
    seconds: float
    predicted: Estimate
    predict_seconds: float

    @property
    def ratio(self) -> float:
        return max(self.seconds, 1e-9) / self.predicted.seconds


def run(goal: str, board: int, line: str) -> Run:
    """One board predicted and solved (its length checked against the data set's)."""
    kind = get("sliding")
    numbers = line.split()
    options = {"optimal": True, **({"goal": KORF_GOAL} if goal == "first" else {})}
    puzzle, options = kind.prepare(" ".join(numbers[:16]), options)
    start = time.process_time()
    predicted = kind.predict(puzzle, options)
    predict_seconds = time.process_time() - start
    start = time.process_time()
    outcome = kind.solve(puzzle, options)
    seconds = time.process_time() - start
    assert outcome.result is not None and outcome.result["length"] == int(numbers[16]), f"board {board}"
    return Run(board, bound(puzzle, options), int(numbers[16]), outcome.stats["generated"], seconds,
               predicted, predict_seconds)


def summary(goal: str, runs: list[Run]) -> str:
    within = sum(r.predicted.low <= r.seconds <= r.predicted.high for r in runs)
    above = sum(r.seconds > r.predicted.high for r in runs)
    past_10x = sum(r.ratio > 10 for r in runs)
    ratios = [r.ratio for r in runs]
    worst = max(ratios, key=lambda x: max(x, 1 / x))
    return (f"| blank {goal} | {len(runs)} | {statistics.median(r.predicted.factor for r in runs):.0f} | "
            f"{within} | {above} | {past_10x} | {statistics.median(ratios):.2f} | {worst:.3g} | "
            f"{statistics.median(r.predict_seconds for r in runs) * 1e6:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--goals", nargs="+", choices=tuple(FILES), default=list(FILES))
    parser.add_argument("--boards", action="store_true", help="a row per board too")
    args = parser.parse_args()
    kind = get("sliding")
    for example in kind.examples:  # the kernels compiled and the database loaded before timing
        kind.solve(*kind.prepare(example.puzzle, dict(example.options)))
    rows = []
    for goal in args.goals:
        lines = (DATA / FILES[goal]).read_text().splitlines()
        runs = [run(goal, i, line) for i, line in enumerate(lines, 1)]
        rows.append(summary(goal, runs))
        if args.boards:
            print(f"| blank {goal}: board | bound | length | nodes | seconds | predicted | factor |")
            print("|---:|---:|---:|---:|---:|---:|---:|")
            for r in runs:
                print(f"| {r.board} | {r.bound} | {r.length} | {r.nodes:,} | {r.seconds:.3g} | "
                      f"{r.predicted.seconds:.3g} | {r.predicted.factor:.0f} |")
            print()
    print("| goal | boards | factor (median) | within range | above high end | past 10x predicted | "
          "median actual/predicted | worst actual/predicted | predict, µs (median) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
