"""The checks of the givens that a request's validation runs (``first_conflict`` for one grid,
``conflicting_rows`` for a run of 9x9 rows): their kernels (solvers.sudoku.kernels), or a plain
numpy form that gives the same answers.

A process that must answer at once (the API, ``warm_in_background``) never waits for a compile:
it warms the kernels in a thread and uses the numpy form for any call whose kernel is not compiled
(or loaded from numba's cache) in this process yet. Any other process (a worker, the CLI) calls
the kernels as they are, compiled on first use.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import numpy as np
from numba import typeof

from solvers.sudoku import kernels
from solvers.sudoku.grid import layout

log = logging.getLogger(__name__)

_waits_for_nothing = False  # set by ``warm_in_background``: numpy until a kernel is compiled


def first_conflict(givens: np.ndarray, peers: np.ndarray) -> tuple[int, int]:
    """(cell, earlier peer) of the first repeated given in reading order, or (-1, -1)."""
    if _ready(kernels.first_conflict, givens, peers):
        return kernels.first_conflict(givens, peers)
    return plain_first_conflict(givens, peers)


def plain_first_conflict(givens: np.ndarray, peers: np.ndarray) -> tuple[int, int]:
    """``first_conflict``'s numpy form."""
    cells = np.arange(givens.shape[0])[:, None]
    given = givens.astype(np.int64)
    repeats = (given[peers] == given[:, None]) & (peers < cells) & (given[:, None] != 0)
    found = np.flatnonzero(repeats.any(axis=1))
    if not found.size:
        return -1, -1
    cell = int(found[0])
    return cell, int(peers[cell, np.flatnonzero(repeats[cell])[0]])


def conflicting_rows(givens: np.ndarray, cell_units: np.ndarray) -> np.ndarray:
    """Per row of ``givens`` (one puzzle a row), whether a value is given twice in one unit."""
    if _ready(kernels.conflicting_rows, givens, cell_units):
        return kernels.conflicting_rows(givens, cell_units)
    return plain_conflicting_rows(givens, cell_units)


def plain_conflicting_rows(givens: np.ndarray, cell_units: np.ndarray) -> np.ndarray:
    """``conflicting_rows``' numpy form."""
    rows = givens.shape[0]
    units, values = int(cell_units.max()) + 1, int(givens.max(initial=0)) + 1
    given = givens.astype(np.int64)[:, :, None]
    # one slot per (row, unit, value): a slot counted twice is a repeat
    slot = (np.arange(rows)[:, None, None] * units + cell_units[None, :, :]) * values + given
    counts = np.bincount(slot[np.broadcast_to(given != 0, slot.shape)], minlength=rows * units * values)
    return counts.reshape(rows, units * values).max(axis=1, initial=0) > 1  # type: ignore[no-any-return]


def _ready(kernel: Any, *args: Any) -> bool:
    """Whether to call ``kernel``: always, unless this process waits for no compile; then only once
    it holds a compiled form for these arguments' types."""
    return not _waits_for_nothing or tuple(typeof(a) for a in args) in kernel.overloads  # type: ignore[no-untyped-call]


def warm_in_background() -> None:
    """From now on this process waits for no compile of these checks: their kernels are compiled
    (or loaded from numba's cache) in a thread, for the arguments validation passes, and used once
    there; until then the numpy form answers. Once per process."""
    global _waits_for_nothing
    if _waits_for_nothing:
        return
    _waits_for_nothing = True
    threading.Thread(target=_warm, name="warm-sudoku-checks", daemon=True).start()


def _warm() -> None:
    start = time.perf_counter()
    try:
        lay = layout(9)
        for writable in (True, False):  # a parsed grid's givens are read-only, an option check's not
            givens = np.zeros((2, 81), np.uint8)
            givens.flags.writeable = writable
            kernels.first_conflict(givens[0], lay.peers)
            kernels.conflicting_rows(givens, lay.cell_units)
    except Exception:  # the numpy form goes on answering
        log.exception("could not compile the sudoku checks' kernels")
        return
    log.info("sudoku checks' kernels ready in %.1f s", time.perf_counter() - start)
