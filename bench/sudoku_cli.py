"""The 25x25 puzzles of gecode_25x25.txt through the command line with default options, one
process per puzzle as a user runs them (`python -m solvers solve --kind sudoku`): the child's
CPU seconds (user + system, from the kernel's accounting, so other jobs' load does not count)
and its answer per line. Pin it with taskset for steadier figures.

    taskset -c 0 python bench/sudoku_cli.py [--lines 9,10] [--option key=value ...]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "sudoku" / "gecode_25x25.txt"


def run_one(puzzle: str, options: list[str]) -> tuple[dict, float, float]:
    """(the printed result, child CPU s, wall s) of one `python -m solvers` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    args = [sys.executable, "-m", "solvers", "solve", "--kind", "sudoku"]
    for pair in options:
        args += ["--option", pair]
    proc = subprocess.run(args, input=puzzle + "\n", capture_output=True, text=True, cwd=ROOT, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout.splitlines()[-1]), cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", help="comma-separated 1-based lines (default: all)")
    parser.add_argument("--option", action="append", default=[], help="key=value, passed on")
    args = parser.parse_args()
    puzzles = [line.strip() for line in DATA.read_text().splitlines() if line.strip()]
    lines = [int(x) for x in args.lines.split(",")] if args.lines else range(1, len(puzzles) + 1)
    print(f"load average at start: {os.getloadavg()}", flush=True)
    print("| line | status | unique | strategy | SAT decisions | CPU s | wall s |")
    print("|---:|---|---|---|---:|---:|---:|", flush=True)
    total = 0.0
    for line in lines:
        out, cpu, wall = run_one(puzzles[line - 1], args.option)
        stats = out.get("stats", {})
        total += cpu
        print(f"| {line} | {out.get('status')} | {str(out.get('result', {}).get('unique')).lower()} "
              f"| {stats.get('strategy')} | {stats.get('nodes', 0):,} | {cpu:.2f} | {wall:.2f} |", flush=True)
    print(f"total CPU {total:.1f} s; load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
