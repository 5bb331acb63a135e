"""Spokes generation predicted against made: ``making.seconds`` (the generate request's prediction
of one puzzle) against the CPU seconds of ``generate.make`` per size and level.

    taskset -c 1 .venv/bin/python -m bench.spokes_making [--sides 4 5 7 10 15] [--count 60]

One row per side and level (seed 1, puzzles 0 .. count-1; a fifth as many from 15x15 up): the
prediction, the mean, the median and the extremes of the seconds measured, and the share of
puzzles within the prediction's range (the factor of a generate item's Estimate, 10).
"""

from __future__ import annotations

import argparse
import statistics
import time

from solvers.base import Estimate
from solvers.spokes import generate, making

FACTOR = Estimate(0.0).factor  # what solvers/factory.py gives a generate item


def seconds_of(side: int, level: str, count: int) -> tuple[float, list[float]]:
    """(the prediction, the CPU seconds of each puzzle made)."""
    options = {"width": side, "height": side, "level": level, "seed": 1, "max_attempts": 200}
    made = []
    for index in range(count):
        start = time.process_time()
        generate.make(options, index)
        made.append(time.process_time() - start)
    return making.seconds(options), made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sides", type=int, nargs="+", default=[4, 5, 7, 10, 15])
    parser.add_argument("--count", type=int, default=60)
    args = parser.parse_args()
    generate.make({"width": 4, "height": 4, "level": "hard", "seed": 0, "max_attempts": 200}, 0)  # warm
    print("| request | puzzles | predicted s | mean s | median s | least s | most s | within range |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for side in args.sides:
        for level in generate.LEVELS:
            count = args.count if side < 15 else max(args.count // 5, 1)
            predicted, made = seconds_of(side, level, count)
            within = sum(predicted / FACTOR <= s <= predicted * FACTOR for s in made) / len(made)
            print(f"| {side}x{side} {level} | {len(made)} | {predicted:.3g} | {statistics.mean(made):.3g} | "
                  f"{statistics.median(made):.3g} | {min(made):.3g} | {max(made):.3g} | {within:.0%} |")


if __name__ == "__main__":
    main()
