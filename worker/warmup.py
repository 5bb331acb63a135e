"""The workers' warm-up, shared and by kind: the solvers' warm-up units (solvers.warm_up_units)
are compiled into numba's cache once, whatever the number of processes that need them, and a
worker process takes a kind's work as soon as that kind's kernels are ready.

A `celery worker` starts a warm-up process (``python -m worker.warmup``, ``warm_up``) before its
pool forks, and its pool processes take work at once. Before a task claims its puzzles of a kind
not prepared in its process yet (``prepare_first``), the process loads that kind's main unit; one
not compiled yet it asks the warm-up processes for (a ``.wanted`` file) and waits: they take the
units asked for first, in the order asked, then the others in the registry's order. Compiles run
in the warm-up processes, under no time limit. Only a pool process with no warm-up process
preparing its kind compiles it itself.

Each unit has a file lock and, once compiled, a marker naming what its cache entries depend on
(``fingerprint``: numba's version and the solvers' sources). A warm-up process skips a unit whose
marker is current, else takes the next unit whose lock is free, compiles it and goes on; when
every unit it has left is held by another, it waits for the first. A lock goes with its process.
The locks and one status file per warming process (the kinds it has still to prepare) sit in
numba's cache folder (NUMBA_CACHE_DIR, else var/), where `make run`, /readyz and the fleet view
read what the workers are still preparing (``preparing``).
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import logging
import math
import os
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from importlib import metadata
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy.orm import Session, sessionmaker

import solvers
from store import logs
from store.settings import Settings
from worker.warmstatus import folder, preparing, status_file

log = logging.getLogger(__name__)

# How often a worker process waiting for a kind looks whether it is compiled.
WAIT_SECONDS = 0.2


def lock_path(where: Path, unit: solvers.WarmUpUnit) -> Path:
    return where / f"warm-up.{unit.name}.lock"


def done_path(where: Path, unit: solvers.WarmUpUnit) -> Path:
    return where / f"warm-up.{unit.name}.done"


@functools.cache
def fingerprint() -> str:
    """What the cache entries of the kernels depend on, as numba sees it: its version and the size and
    modification time of each of the solvers' sources (numba compiles a kernel again when its
    source file changes)."""
    digest = hashlib.sha256(metadata.version("numba").encode())
    root = Path(solvers.__file__).parent
    for path in sorted(root.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(root)} {stat.st_mtime_ns} {stat.st_size}\n".encode())
    return digest.hexdigest()


def is_done(where: Path, unit: solvers.WarmUpUnit) -> bool:
    """Whether ``unit``'s kernels are in the cache, compiled from the current sources."""
    try:
        return done_path(where, unit).read_text() == fingerprint()
    except OSError:
        return False


def mark_done(where: Path, unit: solvers.WarmUpUnit) -> None:
    new = done_path(where, unit).with_suffix(f".{os.getpid()}.new")
    new.write_text(fingerprint())
    os.replace(new, done_path(where, unit))
    wanted_path(where, unit).unlink(missing_ok=True)


def wanted_path(where: Path, unit: solvers.WarmUpUnit) -> Path:
    return where / f"warm-up.{unit.name}.wanted"


def want(where: Path, unit: solvers.WarmUpUnit) -> None:
    """Ask the warm-up processes for ``unit`` before the units nobody waits for (``by_want``)."""
    where.mkdir(parents=True, exist_ok=True)
    with suppress(FileExistsError):  # asked for already: the first asking keeps its place
        os.close(os.open(wanted_path(where, unit), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))


def by_want(where: Path, units: Sequence[solvers.WarmUpUnit]) -> list[solvers.WarmUpUnit]:
    """``units``: those a worker process waits for first, in the order they were asked for, then
    the others in their order."""
    def asked(unit: solvers.WarmUpUnit) -> float:
        try:
            return wanted_path(where, unit).stat().st_mtime
        except OSError:
            return math.inf

    return sorted(units, key=asked)


def unprepared(where: Path | None = None) -> list[str]:
    """The kinds with a unit not yet compiled from the current sources, in the registry's order."""
    where = where or folder()
    left = {u.kind.name for u in solvers.warm_up_units() if not is_done(where, u)}
    return [name for name in solvers.KINDS if name in left]


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


def warm_up(where: Path | None = None, parent: int | None = None) -> list[str]:
    """Every warm-up unit's kernels in numba's cache: those not there yet compiled here, each
    once, shared with the processes warming up beside this one (and the pool processes preparing
    a kind); the kinds left written to this process's status file. Ends early once the process
    ``parent`` has gone. The units compiled here."""
    where = where or folder()
    where.mkdir(parents=True, exist_ok=True)
    left = [unit for unit in solvers.warm_up_units() if not is_done(where, unit)]
    compiled: list[str] = []
    with status_file(where) as say:
        while left and (parent is None or os.getppid() == parent):
            say(left)
            unit, fd = take(by_want(where, left), where)
            try:
                if not is_done(where, unit):  # another process may have compiled it meanwhile
                    unit.warm()
                    mark_done(where, unit)
                    compiled.append(unit.name)
            finally:
                os.close(fd)
            left.remove(unit)
    return compiled


_prepared: set[str] = set()  # the kinds this process has prepared (``prepare``), or had nothing to


def main_unit(kind: str) -> solvers.WarmUpUnit | None:
    return next((u for u in solvers.warm_up_units() if u.name == kind), None)


def prepare(kind: str, where: Path | None = None) -> None:
    """``kind``'s main unit compiled into numba's cache and loaded in this process, once. One not
    compiled yet is asked of the warm-up processes (a ``.wanted`` file: they take it next) and
    waited for: a compile runs under no time limit. Only when no warm-up process is preparing the
    kind does this process compile it itself, under its lock (or wait for the process holding it).
    A failure is logged and left to the solve, which compiles what it needs itself."""
    if kind in _prepared:
        return
    unit = main_unit(kind)
    if unit is None:  # nothing to compile for it
        _prepared.add(kind)
        return
    where = where or folder()
    start = time.perf_counter()
    try:
        if not is_done(where, unit):
            want(where, unit)
            waiting = False
            while not is_done(where, unit) and kind in preparing(where):
                if not waiting:
                    log.info("%s: waiting for the warm-up to compile its kernels", kind)
                    waiting = True
                time.sleep(WAIT_SECONDS)
        if is_done(where, unit):
            unit.warm()  # a load from the cache
        else:
            _compile_here(where, unit)
    except SoftTimeLimitExceeded:  # the task's own limit: nothing is lost, the next puzzle goes on
        raise
    except Exception as exc:
        log.exception("%s: preparing its kernels failed (%s); its puzzles compile what they need", kind, exc)
    _prepared.add(kind)
    log.info("%s ready in this process in %.1f s", kind, time.perf_counter() - start)


class NotPrepared(Exception):
    """A task's soft time limit came while it prepared its kinds, before it claimed anything."""


def prepare_first(sessions: sessionmaker[Session], kinds_of: Callable[[Session], Sequence[str]]) -> None:
    """Before a task claims anything: its puzzles' kinds (``kinds_of``, read only while this process
    has a kind left to prepare) prepared, so that no row is held running while kernels compile or
    are waited for. The soft time limit during the wait raises NotPrepared (worker.tasks requeues)."""
    if _prepared.issuperset(solvers.KINDS):
        return
    with sessions() as s:
        kinds = kinds_of(s)
    try:
        for kind in kinds:
            prepare(kind)
    except SoftTimeLimitExceeded as exc:
        raise NotPrepared("the soft time limit came while the task's kinds were being prepared") from exc


def _compile_here(where: Path, unit: solvers.WarmUpUnit) -> None:
    path = lock_path(where, unit)
    fd = locked(path, wait=False)
    if fd is None:
        log.info("%s: waiting for the process compiling its kernels (%s)", unit.kind.name, path)
        fd = locked(path, wait=True)
    assert fd is not None
    try:
        compiling = not is_done(where, unit)
        unit.warm()
        if compiling:
            mark_done(where, unit)
    finally:
        os.close(fd)


def main() -> None:
    """``python -m worker.warmup``: the warm-up process a `celery worker` starts (worker.app); it
    ends with its parent. Logs its time, which the tests and bench.startup read."""
    settings = Settings.from_env()
    logs.configure(settings.logging.log_level or "INFO", settings.logging.log_format)
    start, cpu = time.perf_counter(), time.process_time()
    compiled = warm_up(parent=os.getppid())
    log.info("solvers warmed up in %.1f s, %.1f CPU s (compiled here: %s)", time.perf_counter() - start,
             time.process_time() - cpu, ", ".join(compiled) or "none")


if __name__ == "__main__":
    main()
