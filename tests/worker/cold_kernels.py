"""``python -m tests.worker.cold_kernels``: a short time limit over a kernel's first compile, then
solves that compile other kernels; prints what happened as JSON. Run with a fresh NUMBA_CACHE_DIR,
so that the kernels really compile (tests/worker/test_limits.py)."""

from __future__ import annotations

import json
import traceback

import solvers
from worker.limits import PuzzleTimeout, alarms_raise_timeout, in_compiler, time_limit

# A 4 x 4 Sudoku (its kernels compile in seconds), then N-Queens counted (kernels of their own).
FIRST = ("sudoku", "1.3..4.22..3..2.", {})
THEN = [FIRST, ("nqueens", {"n": 10}, {"mode": "count"})]


def solve(name: str, puzzle: object, options: dict) -> str:
    kind = solvers.get(name)
    p, o = kind.prepare(puzzle, options)
    outcome = kind.solve(p, o)
    kind.verify(p, o, outcome)
    return outcome.status


def main() -> None:
    report: dict[str, object] = {"timed_out": False, "raised_in_compiler": False}
    with alarms_raise_timeout():
        try:
            with time_limit(0.05):
                solve(*FIRST)
        except PuzzleTimeout as exc:
            report["timed_out"] = True
            frames = [frame for frame, _ in traceback.walk_tb(exc.__traceback__)]
            report["raised_in_compiler"] = in_compiler(frames[-1])  # the raise and every caller
        report["then"] = [solve(*item) for item in THEN]
    print(json.dumps(report))


if __name__ == "__main__":
    main()
