"""Celery entry point of a worker that warms up nothing and prepares no kind before its puzzles:
``celery -A tests.worker.coldworker worker``. Its first puzzle of each kind compiles that kind's
kernels under the puzzle's time limit, as a worker's first puzzle of a kernel the warm-up does not
compile would (tests/worker/test_limits.py)."""

import worker.app
import worker.warmup
from worker.app import app  # noqa: F401  the worker's own app, configured from env


def _no_warm_up() -> None:
    # The line tests.services.Workers waits for, which the warm-up would log.
    worker.app.log.info("solvers warmed up: none (every kernel compiles at its first puzzle)")


worker.app._timed_warm_up = _no_warm_up


worker.warmup.prepare = lambda kind, where=None: None
