"""The status files of the processes warming up (worker.warmup): one per process, naming the kinds
it has still to prepare, locked while its writer lives. `make run` (deploy/run_local.py) and each
worker process's heartbeat (worker.heartbeat, for /readyz and the fleet view) read them."""

from __future__ import annotations

import fcntl
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import solvers
from store.settings import VAR

STATUS = "warm-up.*.status"


def folder() -> Path:
    """Where the locks and the status files are: numba's cache folder, which the locks guard."""
    return Path(os.environ.get("NUMBA_CACHE_DIR") or VAR)


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
