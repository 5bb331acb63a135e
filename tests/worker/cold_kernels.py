"""``python -m tests.worker.cold_kernels [soft]``: a short time limit over a kernel's first compile,
then solves that compile other kernels; prints what happened as JSON. The limit is the project's
alarm, or with ``soft`` Celery's soft time limit: a SIGUSR1 to billiard's handler, as a pool
process has it once worker.app's worker_process_init has run. Run with a fresh NUMBA_CACHE_DIR,
so that the kernels really compile (tests/worker/test_limits.py)."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager

import billiard.pool
from celery.exceptions import SoftTimeLimitExceeded

import solvers
from worker.limits import (
    PuzzleTimeout,
    alarms_raise_timeout,
    in_compiler,
    soft_limit_outside_compiler,
    time_limit,
)

# A 4 x 4 Sudoku (its kernels compile in seconds), then N-Queens counted (kernels of their own).
FIRST = ("sudoku", "1.3..4.22..3..2.", {})
THEN = [FIRST, ("nqueens", {"n": 10}, {"mode": "count"})]


def solve(name: str, puzzle: object, options: dict) -> str:
    kind = solvers.get(name)
    p, o = kind.prepare(puzzle, options)
    outcome = kind.solve(p, o)
    kind.verify(p, o, outcome)
    return outcome.status


@contextmanager
def soft_limit(seconds: float) -> Iterator[None]:
    """Celery's soft time limit, ``seconds`` from now: SIGUSR1 to this process, handled as in a
    pool process of the worker."""
    soft_limit_outside_compiler()
    signal.signal(signal.SIGUSR1, billiard.pool.soft_timeout_sighandler)  # as billiard's after_fork
    threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGUSR1)).start()
    yield
    time.sleep(5.0)  # the task goes on after its solve: a signal kept out of the compile lands here


def main(soft: bool) -> None:
    report: dict[str, object] = {"timed_out": False, "raised_in_compiler": False}
    with alarms_raise_timeout():
        try:
            with soft_limit(0.05) if soft else time_limit(0.05):
                solve(*FIRST)
        except (PuzzleTimeout, SoftTimeLimitExceeded) as exc:
            report["timed_out"] = True
            frames = [frame for frame, _ in traceback.walk_tb(exc.__traceback__)]
            report["raised_in_compiler"] = in_compiler(frames[-1])  # the raise and every caller
        report["then"] = [solve(*item) for item in THEN]
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1:] == ["soft"])
