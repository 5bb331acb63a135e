"""Time limits of one solve: the alarm that interrupts Python code, and the watcher whose stop flag
reaches a compiled kernel (at the limit, or once the puzzle is cancelled) and which records the
share of its search the solver reports in the same flag.

A limit counts wall seconds (PUZZLE_TIME_LIMIT, the cheap lane's cap) or, where a prediction set
it, the process's CPU seconds: a prediction is CPU seconds on one core, and a loaded machine (many
worker processes to a core) stretches the wall time of a solve without making it any dearer."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any

import billiard.pool
from sqlalchemy.orm import Session, sessionmaker

from solvers import progress
from solvers.base import STOP, StopFlag, stop_flag
from store.rows import Assigned, charge_running, record_progress, still_needed
from store.settings import TimeBudget

log = logging.getLogger(__name__)

# How soon an alarm that went off inside numba comes again (of the clock its limit counts).
RETRY_SECONDS = 0.005
# The modules an alarm never raises in: numba's compiler and the LLVM binding it calls back from.
_COMPILER = ("numba", "llvmlite")

# The solver's share done goes to SQL at most this often: readers want it to move, not every poll.
PROGRESS_SECONDS = 2.0


class PuzzleTimeout(Exception):
    """The alarm of :class:`time_limit` went off: the solve ran past its limit."""


@dataclass
class _Alarm:
    went_off: bool = False


# Signals reach only the main thread, so one record serves every time_limit.
_alarm = _Alarm()


# The timer and its signal by what a limit counts: wall seconds, or the process's CPU seconds.
_TIMERS = {False: (signal.ITIMER_REAL, signal.SIGALRM), True: (signal.ITIMER_PROF, signal.SIGPROF)}
_TIMER_OF: dict[int, int] = {signum: timer for timer, signum in _TIMERS.values()}


def _expired(signum: int, frame: FrameType | None) -> None:
    _alarm.went_off = True
    if in_compiler(frame):
        signal.setitimer(_TIMER_OF[signum], RETRY_SECONDS)
        return
    raise PuzzleTimeout


def in_compiler(frame: FrameType | None) -> bool:
    """Whether numba or llvmlite code is on the stack at ``frame`` (a compile, a cache load, or a
    callback of LLVM's), where an exception must not be raised."""
    while frame is not None:
        if frame.f_globals.get("__name__", "").partition(".")[0] in _COMPILER:
            return True
        frame = frame.f_back
    return False


Handler = Callable[[int, FrameType | None], Any]


def outside_compiler(handler: Handler) -> Handler:
    """``handler`` for a signal that must not raise inside numba's compiler: a signal that lands
    there is sent to this process again RETRY_SECONDS later, until it lands outside."""

    def handle(signum: int, frame: FrameType | None) -> Any:
        if in_compiler(frame):
            threading.Timer(RETRY_SECONDS, os.kill, (os.getpid(), signum)).start()
            return None
        return handler(signum, frame)

    return handle


def soft_limit_outside_compiler() -> None:
    """Celery's soft time limit (SIGUSR1, whose handler raises SoftTimeLimitExceeded) kept out of
    numba's compiler in this pool process. billiard installs the handler by this module-level name
    only after worker_process_init has run, so the name, not the installed handler, is wrapped."""
    billiard.pool.soft_timeout_sighandler = outside_compiler(billiard.pool.soft_timeout_sighandler)


def cpu_clock() -> float:
    """The process's CPU seconds (all its threads: the solve's, and the watcher's few)."""
    return time.process_time()


@contextmanager
def alarms_raise_timeout() -> Iterator[None]:
    """While a chunk runs, both timers' signals raise PuzzleTimeout: installed once per chunk, since
    installing a handler costs several times what arming the timer does."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _expired) for _, signum in _TIMERS.values()}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class time_limit:  # noqa: N801  a context manager, named like one
    """``with time_limit(seconds):`` raises PuzzleTimeout in this thread after ``seconds`` (of the
    process's CPU time with ``cpu``, else of wall time), when
    the interpreter next runs Python code (a compiled kernel is stopped by the watcher's flag, or
    else by the task's hard limit), or once numba's compile ends (see the module's docstring), at
    the latest when the block ends. Inside alarms_raise_timeout() it only arms the timer: about
    1 µs a puzzle. Off the main thread (where signals cannot go) it does nothing.

    Whatever leaves the block once the alarm went off is PuzzleTimeout: the alarm's exception
    may surface in another form, for example as the SystemError of a compiled function that
    returned while it was pending (the watcher's flag had stopped the kernel at that moment)."""

    def __init__(self, seconds: float, cpu: bool = False):
        self.seconds = seconds
        self.timer, self.signum = _TIMERS[cpu]
        self.active = threading.current_thread() is threading.main_thread()
        self.previous: Any = None

    def __enter__(self) -> None:
        if not self.active:
            return
        if signal.getsignal(self.signum) is not _expired:
            self.previous = signal.signal(self.signum, _expired)
        _alarm.went_off = False
        signal.setitimer(self.timer, self.seconds)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if not self.active:
            return
        signal.setitimer(self.timer, 0)
        if self.previous is not None:
            signal.signal(self.signum, self.previous)
        if not _alarm.went_off or isinstance(exc, PuzzleTimeout):
            return
        if exc is None:  # the alarm went off inside a compile, and the block ended before it came again
            raise PuzzleTimeout
        if isinstance(exc, Exception):
            raise PuzzleTimeout from exc


@dataclass
class Watch:
    """The stop flag of one solve, and why it was raised."""

    flag: StopFlag
    expired: bool = False  # raised because the solve ran past its time limit
    charged: float = 0.0  # CPU seconds the watcher added to the held puzzle's row while it ran

    def unrecorded(self, seconds: float | None) -> float | None:
        """Of ``seconds`` measured of the whole solve, those the watcher has not added to its row."""
        return None if seconds is None else round(max(seconds - self.charged, 0.0), 6)


@contextmanager
def watching(sessions: sessionmaker[Session], puzzle_id: int, budget: TimeBudget,
             seconds: float | None = None, held: Assigned | None = None,
             cpu: bool = False) -> Iterator[Watch]:
    """A stop flag for one solve (a part, or a puzzle estimated expensive), raised by a thread that
    looks every STOP_POLL_SECONDS whether the puzzle is still running and not stopped, and raises
    it anyway at the time limit (``seconds``, PUZZLE_TIME_LIMIT unless given; of the process's CPU
    time with ``cpu``, as time_limit counts it): the limit's signal
    reaches Python only once a compiled kernel returns, the flag reaches the kernel itself, so the
    solve ends cleanly instead of the hard limit killing the process. The thread is stopped and
    joined on the way out.

    For a whole puzzle this task holds (``held``) the thread also writes the share of the search
    the solver reports in the flag to the puzzle's row, when it moved, at most every
    PROGRESS_SECONDS, and adds the CPU seconds spent since the watch began (those not added yet,
    once they reach PROGRESS_SECONDS) to its ``cpu_seconds``, so a long solve is charged while it
    runs (store.costs); ``Watch.charged`` keeps what was added."""
    watch = Watch(stop_flag())
    done = threading.Event()
    limit = budget.puzzle_time_limit if seconds is None else seconds
    clock = cpu_clock if cpu else time.monotonic
    poll, deadline = budget.stop_poll_seconds, clock() + limit
    reported, reported_at = 0.0, -PROGRESS_SECONDS
    began = cpu_clock()

    def charge() -> None:
        spent = cpu_clock() - began - watch.charged
        if held is None or spent < PROGRESS_SECONDS:
            return
        with sessions() as s, s.begin():
            added = charge_running(s, held, spent)
        if added:
            watch.charged += spent

    def report() -> None:
        nonlocal reported, reported_at
        share = progress.done(watch.flag)
        if held is None or share <= reported or time.monotonic() - reported_at < PROGRESS_SECONDS:
            return
        with sessions() as s, s.begin():
            record_progress(s, held, share)
        reported, reported_at = share, time.monotonic()

    def run() -> None:
        # One solving thread spends at most a CPU second per wall second: waiting out the CPU
        # seconds left never passes the deadline.
        while not done.wait(max(0.0, min(poll, deadline - clock()))):
            if clock() >= deadline:
                watch.expired = True
                watch.flag[STOP] = 1
                return
            try:
                if not _still_needed(sessions, puzzle_id):
                    watch.flag[STOP] = 1
                    return
                report()
                charge()
            except Exception:  # a failed poll only delays the stop: the next one may get through
                log.warning("could not poll puzzle %s for a stop", puzzle_id, exc_info=True)

    watcher = threading.Thread(target=run, name=f"stop-watch-{puzzle_id}", daemon=True)
    watcher.start()
    try:
        yield watch
    finally:
        done.set()
        watcher.join()


def _still_needed(sessions: sessionmaker[Session], puzzle_id: int) -> bool:
    with sessions() as s:
        return still_needed(s, puzzle_id)
