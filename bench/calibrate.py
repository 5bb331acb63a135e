"""Calibrates the kinds' predictions (``Kind.predict``) on this machine and writes the table they
read at import, solvers/calibration.json.

    taskset -c 1 .venv/bin/python -m bench.calibrate [--scale 2] [--kinds sudoku nqueens]
        [--entries idastar/4/pdb78 ...] [--dry-run]

(``make calibrate``.) It solves the ``CALIBRATE`` half of bench/costcases.py's puzzles, timing each
``solve`` in CPU seconds of this process, and fits every entry that the kinds' ``features`` name
(solvers/cost.py's fits) to those times: a typical figure, a rate per unit of work, seconds against
n or against a lower bound, each with its measured spread as the factor. ``--scale`` multiplies
the number of puzzles (2: some minutes). With ``--kinds`` only those kinds' sections are replaced;
with ``--entries`` only the entries of those names, from the puzzles that feed them (the others are
not solved), and every other entry stays as it was.
Every answer is verified. Prints one line per entry.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from bench.costcases import CALIBRATE, KINDS, cases, solve_seconds, warm
from solvers import cost, get
from solvers.nqueens import predict as nqueens
from solvers.sliding import predict as sliding
from solvers.spokes import predict as spokes
from solvers.sudoku import predict as sudoku

FEATURES: dict[str, Callable[[Any, Any], list[cost.Feature]]] = {
    "nqueens": nqueens.features, "sudoku": sudoku.features, "sliding": sliding.features,
    "spokes": spokes.features}
GROWTH = {"nqueens": nqueens.growth}  # a known measure of the work past the largest n measured
REPEATS = {"nqueens": 3}  # deterministic work: the median of a few runs smooths out the machine


def sudoku_probes(grids: dict[int, list[Any]]) -> dict[str, dict[str, Any]]:
    """The cost of the Sudoku predictor's own probes per size, which decides where they run."""
    out = {}
    for n, some in sorted(grids.items()):
        times = []
        for grid in some[:40]:
            start = time.process_time()
            sudoku.tree_size(grid, True)
            times.append(time.process_time() - start)
        out[f"probes/{n}"] = {**cost.fit(cost.FIXED, [0.0] * len(times), times), "fit": cost.FIXED,
                              "runs": len(times)}
    return out


def calibrate(kinds: list[str], scale: int, entries: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """The fitted entries per kind: every entry the kinds' cases feed, or only those named in ``entries``."""
    samples: dict[tuple[str, str, str], tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    grids: dict[int, list[Any]] = defaultdict(list)
    for case in cases(CALIBRATE, scale, kinds):
        kind = get(case.kind)
        puzzle, options = kind.prepare(case.puzzle, case.options)
        found = [f for f in FEATURES[case.kind](puzzle, options) if entries is None or f[0] in entries]
        if not found:
            continue
        if case.kind == "sudoku":
            grids[puzzle.n].append(puzzle)
        for _ in range(REPEATS.get(case.kind, 1)):
            seconds = solve_seconds(case)
            for name, fit, x in found:
                xs, ts = samples[(case.kind, name, fit)]
                xs.append(x)
                ts.append(seconds)
    out: dict[str, dict[str, Any]] = {name: {} for name in kinds}
    for (kind_name, name, fit), (xs, ts) in sorted(samples.items()):
        entry = cost.fit(fit, xs, ts, GROWTH.get(kind_name))
        out[kind_name][name] = {**entry, "fit": fit, "runs": len(ts)}
        print(f"{kind_name:8} {name:36} {fit:9} runs {len(ts):4}  factor {entry['factor']:7.2f}  "
              f"{json.dumps({k: v for k, v in entry.items() if k != 'factor'}, default=float)[:90]}")
    if grids and entries is None:
        out["sudoku"].update(sudoku_probes(grids))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=2)
    parser.add_argument("--kinds", nargs="+", choices=list(KINDS), default=list(KINDS))
    parser.add_argument("--entries", nargs="+", default=None,
                        help="replace only these entries (e.g. idastar/4/pdb78), keeping the rest")
    parser.add_argument("--dry-run", action="store_true", help="print the entries, write nothing")
    args = parser.parse_args(argv)
    warm(args.kinds)
    fitted = calibrate(args.kinds, args.scale, args.entries)
    if args.dry_run:
        return 0
    kinds = dict(cost.table().get("kinds", {}))
    for name, section in fitted.items():  # with --entries, only those within the kind's section
        kinds[name] = section if args.entries is None else {**kinds.get(name, {}), **section}
    table = {"machine": f"{platform.machine()} {platform.processor() or platform.system()}",
             "command": "python -m bench.calibrate", "scale": args.scale, "kinds": kinds}
    cost.TABLE_PATH.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {cost.TABLE_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
