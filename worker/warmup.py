"""The workers' warm-up, one process at a time: the first `celery worker` to start compiles the
solvers' kernels into numba's cache while any other one waits on a file lock, then loads what the
first wrote (a load costs a fraction of a compile). Compiling the same kernels in several processes
at once only shares the cores between copies of one piece of work.

The lock and a line saying which kinds are still being prepared sit in numba's cache folder
(NUMBA_CACHE_DIR; without it numba caches beside the sources, and they sit in var/): `make run`
(deploy/run_local.py) reads the line to say what the workers are still preparing.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import solvers
from store.settings import VAR

log = logging.getLogger(__name__)

LOCK, STATUS = "warm-up.lock", "warm-up.status"


def folder() -> Path:
    """Where the lock and the status line are: numba's cache folder, which the lock guards."""
    return Path(os.environ.get("NUMBA_CACHE_DIR") or VAR)


def preparing(where: Path | None = None) -> list[str]:
    """The kinds the warm-up holding the lock has still to prepare (none when none holds it)."""
    try:
        return ((where or folder()) / STATUS).read_text().split()
    except OSError:
        return []


@contextmanager
def exclusive(path: Path, waiting: Callable[[], None]) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (made if missing); ``waiting`` is called once if another
    process holds it. The lock goes with the process, however it ends."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def warm_up(where: Path | None = None) -> None:
    """solvers.warm_up, a kind at a time, under the lock, the kinds left written to the status line."""
    where = where or folder()
    where.mkdir(parents=True, exist_ok=True)
    status = where / STATUS
    kinds = list(solvers.KINDS.values())
    with exclusive(where / LOCK, lambda: log.info("another process is compiling the solvers: waiting "
                                                  "for its cache entries (%s)", where / LOCK)):
        try:
            for done, kind in enumerate(kinds):
                status.write_text(" ".join(k.name for k in kinds[done:]) + "\n")
                solvers.warm_up([kind])
        finally:
            status.write_text("")
