"""Generation predicted against made: each kind's ``Generator.seconds`` (a generate request's
prediction of one puzzle) against the CPU seconds of ``Generator.make`` per request.

    taskset -c 1 .venv/bin/python -m bench.making [--kinds sudoku spokes] [--count 100] [--largest 3]

One row per request (puzzles 0 .. count-1 of it; a fifth as many for the large ones): the
prediction, the mean, the median and the extremes of the seconds measured, the share of puzzles
within the prediction's range (the factor of a generate item's Estimate) and the worst ratio of
measured to predicted. ``--largest N``: also Spokes' largest hard grids (20x20 and 30x30, which the
API refuses when predicted above PUZZLE_TIME_LIMIT), N puzzles each.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterator
from typing import Any

import solvers
from solvers.base import Estimate
from solvers.factory import GENERATE, making

FACTOR = Estimate(0.0).factor  # what solvers/factory.py gives a generate item
LARGE = 0.5  # predicted seconds from which a request makes a fifth as many puzzles


def requests(kind: str, largest: int = 0) -> Iterator[tuple[str, dict[str, Any]]]:
    """(the row's name, the generate options) of the requests measured for ``kind``; with
    ``largest``, Spokes' largest hard grids too."""
    if kind == "sudoku":
        for band in ("easy", "medium", "hard", "expert", "master", "extreme"):
            yield f"9x9 {band}", {"difficulty": band, "seed": 1}
        yield "9x9 any rating", {"seed": 1}
    elif kind == "spokes":
        for side in (4, 5, 7, 10, 15):
            for level in ("easy", "hard"):
                yield f"{side}x{side} {level}", {"width": side, "height": side, "level": level, "seed": 1,
                                                 "max_attempts": 200}
        for side in (20, 30) if largest else ():
            yield f"{side}x{side} hard", {"width": side, "height": side, "level": "hard", "seed": 1,
                                          "max_attempts": 200}


def measure(kind: str, options: dict[str, Any], count: int, largest: int = 0) -> tuple[float, list[float]]:
    """(the prediction, the CPU seconds of each puzzle made), options read as the API reads them;
    ``largest`` puzzles of a request predicted above 10 s."""
    generator = solvers.get(kind).generator
    assert generator is not None
    request = making(solvers.get(kind)).read_options({GENERATE: options})[GENERATE]
    predicted = generator.seconds(request)
    count = count if predicted < LARGE else max(count // 5, 1)
    if largest and predicted > 10:
        count = largest
    made = []
    for index in range(count):
        start = time.process_time()
        generator.make(request, index)
        made.append(time.process_time() - start)
    return predicted, made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kinds", nargs="+", default=["sudoku", "spokes"])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--largest", type=int, default=0,
                        help="puzzles of each of Spokes' largest hard requests (0: none)")
    args = parser.parse_args()
    print("| request | puzzles | predicted s | mean s | median s | least s | most s | within range "
          "| worst ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    solvers.warm_up([solvers.get(kind) for kind in args.kinds])  # no compile inside a measured puzzle
    for kind in args.kinds:
        for name, options in requests(kind, args.largest):
            predicted, made = measure(kind, options, args.count, args.largest)
            within = sum(predicted / FACTOR <= s <= predicted * FACTOR for s in made) / len(made)
            worst = max(max(made) / predicted, predicted / min(made))
            print(f"| {kind} {name} | {len(made)} | {predicted:.3g} | {statistics.mean(made):.3g} | "
                  f"{statistics.median(made):.3g} | {min(made):.3g} | {max(made):.3g} | {within:.0%} | "
                  f"{worst:.3g} |", flush=True)


if __name__ == "__main__":
    main()
