"""Predicted against actual work: how well ``Kind.predict`` (solvers/calibration.json) foretells
the CPU seconds of ``solve``, per kind and mode.

    taskset -c 1 .venv/bin/python -m bench.cost [--scale 3] [--kinds sudoku nqueens]

(``make bench-cost``.) It solves the ``CHECK`` half of bench/costcases.py's puzzles (the half the
calibration never saw), timing ``predict`` and ``solve`` in CPU seconds of this process, and prints
one row per group: the puzzles, the share whose actual seconds are within a factor of 2 and of 10
of the prediction and within the prediction's own factor (``low`` .. ``high``), the median and the
worst ratio actual/predicted (worst: the farthest from 1 either way), and the seconds spent
predicting as a share of those spent solving. A second table times ``predict`` alone on a
1,000-puzzle 9x9 batch against the batch's ``solve_batch`` (the cheap fast path).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from bench.costcases import CHECK, KINDS, Measured, cases, measure, sudoku_lines, warm
from solvers import get

FAST_BATCH = 1_000
REPEATS = 5


def ratio(m: Measured) -> float:
    return max(m.seconds, 1e-9) / m.predicted.seconds


def within(m: Measured, factor: float) -> bool:
    r = ratio(m)
    return 1 / factor <= r <= factor


def accuracy_table(measured: list[Measured]) -> None:
    groups: dict[str, list[Measured]] = defaultdict(list)
    for m in measured:
        groups[m.case.group].append(m)
    print("| group | puzzles | basis | factor (median) | within 2x | within 10x | within factor | "
          "median actual/predicted | worst actual/predicted | predict / solve time |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for group, ms in groups.items():
        ratios = [ratio(m) for m in ms]
        worst = max(ratios, key=lambda r: max(r, 1 / r))
        bases = ",".join(sorted({m.predicted.basis for m in ms}))
        share = sum(m.predict_seconds for m in ms) / max(sum(m.seconds for m in ms), 1e-9)
        print(f"| {group} | {len(ms)} | {bases} | {statistics.median(m.predicted.factor for m in ms):.1f} | "
              f"{sum(within(m, 2) for m in ms) / len(ms):.0%} | "
              f"{sum(within(m, 10) for m in ms) / len(ms):.0%} | "
              f"{sum(within(m, m.predicted.factor) for m in ms) / len(ms):.0%} | "
              f"{statistics.median(ratios):.2f} | {worst:.3g} | {share:.2%} |")
    total = len(measured)
    print(f"\n{total} puzzles; within 2x: {sum(within(m, 2) for m in measured) / total:.0%}, within 10x: "
          f"{sum(within(m, 10) for m in measured) / total:.0%}, within their factor: "
          f"{sum(within(m, m.predicted.factor) for m in measured) / total:.0%}")


def fast_path_table() -> None:
    """predict over a 1,000-puzzle 9x9 batch against solving the batch (solve_batch), CPU medians."""
    kind = get("sudoku")
    wires = (sudoku_lines("tdoku_puzzles2_17_clue_first10000.txt", CHECK, FAST_BATCH) * 2)[:FAST_BATCH]
    options = kind.read_options({})
    grids = kind.prepare_batch(wires, options)
    kind.solve_batch(grids, options)  # compiled before timing

    def cpu(work: object) -> float:
        times = []
        for _ in range(REPEATS):
            start = time.process_time()
            work()  # type: ignore[operator]
            times.append(time.process_time() - start)
        return statistics.median(times)

    predicting = cpu(lambda: [kind.predict(g, options) for g in grids])
    solving = cpu(lambda: kind.solve_batch(grids, options))
    print("\n| 1,000 9x9 (17-clue), default options | CPU ms (median of 5) | per puzzle |")
    print("|---|---:|---:|")
    print(f"| predict each | {predicting * 1e3:.2f} | {predicting / FAST_BATCH * 1e6:.2f} µs |")
    print(f"| solve_batch | {solving * 1e3:.2f} | {solving / FAST_BATCH * 1e6:.2f} µs |")
    print(f"| predict / solve_batch | {predicting / solving:.1%} | |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=3)
    parser.add_argument("--kinds", nargs="+", choices=list(KINDS), default=list(KINDS))
    args = parser.parse_args(argv)
    warm(args.kinds)
    accuracy_table([measure(case) for case in cases(CHECK, args.scale, args.kinds)])
    if "sudoku" in args.kinds:
        fast_path_table()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
