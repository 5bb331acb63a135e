"""The workers' warm-up, shared: the processes that start at once on one numba cache split the
solvers' warm-up units (solvers.warm_up_units) between them instead of each compiling them all.

Each unit has a file lock. A process takes the next unit whose lock is free (without waiting),
compiles its kernels into the cache and goes on; when every unit it has left is held by another,
it waits for the first of them, then loads what the other wrote (a load costs a fraction of a
compile). A lock goes with its process, however it ends: a process that dies mid-compile leaves
its unit to the next one to take it.

The locks and one status file per warming process, naming the kinds it has still to prepare, sit
in numba's cache folder (NUMBA_CACHE_DIR; without it numba caches beside the sources, and they sit
in var/): `make run` (deploy/run_local.py) reads them to say what the workers are still preparing.
"""

from __future__ import annotations

import fcntl
import logging
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import solvers
from store.settings import VAR

log = logging.getLogger(__name__)

STATUS = "warm-up.*.status"


def folder() -> Path:
    """Where the locks and the status files are: numba's cache folder, which the locks guard."""
    return Path(os.environ.get("NUMBA_CACHE_DIR") or VAR)


def lock_path(where: Path, unit: solvers.WarmUpUnit) -> Path:
    return where / f"warm-up.{unit.name}.lock"


def locked(path: Path, wait: bool) -> int | None:
    """A descriptor holding an exclusive lock on ``path`` (made if missing); None when another
    process holds it and ``wait`` is false."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


def take(left: Sequence[solvers.WarmUpUnit], where: Path) -> tuple[solvers.WarmUpUnit, int]:
    """The first unit of ``left`` that no other process holds, locked; when all are held, the
    first, once its holder has let go (it is then in the cache)."""
    for unit in left:
        fd = locked(lock_path(where, unit), wait=False)
        if fd is not None:
            return unit, fd
    log.info("another process is compiling %s: waiting for its cache entries (%s)",
             left[0].name, lock_path(where, left[0]))
    fd = locked(lock_path(where, left[0]), wait=True)
    assert fd is not None
    return left[0], fd


def warm_up(where: Path | None = None) -> None:
    """Every warm-up unit compiled or loaded here, shared with the processes warming up beside
    this one; the kinds left written to this process's status file."""
    where = where or folder()
    where.mkdir(parents=True, exist_ok=True)
    left = solvers.warm_up_units()
    with status_file(where) as say:
        while left:
            say(left)
            unit, fd = take(left, where)
            try:
                unit.warm()
            finally:
                os.close(fd)
            left.remove(unit)


@contextmanager
def status_file(where: Path) -> Iterator[Callable[[Sequence[solvers.WarmUpUnit]], None]]:
    """A function that writes the kinds of the units given to this process's status file; the file
    is locked while the process lives (a reader skips an unlocked one: its writer has died) and
    removed at the end. Each write replaces the file whole, so a reader never sees half a line."""
    path = where / STATUS.replace("*", f"{socket.gethostname()}-{os.getpid()}")
    held: list[int] = []

    def say(units: Sequence[solvers.WarmUpUnit]) -> None:
        new = path.with_name(path.name + ".new")
        fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, (" ".join(dict.fromkeys(u.kind.name for u in units)) + "\n").encode())
        os.replace(new, path)
        while held:
            os.close(held.pop())
        held.append(fd)

    try:
        yield say
    finally:
        path.unlink(missing_ok=True)
        while held:
            os.close(held.pop())


def preparing(where: Path | None = None) -> list[str]:
    """The kinds that the processes warming up have still to prepare, in the registry's order."""
    left: set[str] = set()
    for path in (where or folder()).glob(STATUS):
        left.update(_live(path))
    return [name for name in solvers.KINDS if name in left]


def _live(path: Path) -> list[str]:
    """The kinds a status file names while its writer lives; none once it has died or ended."""
    for _ in range(3):  # the writer may replace the file between the open and the lock: look again
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return []
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return os.read(fd, 4096).decode().split()
        else:
            try:
                if os.fstat(fd).st_ino == os.stat(path).st_ino:
                    return []  # its writer has died
            except FileNotFoundError:
                return []
        finally:
            os.close(fd)
    return []
