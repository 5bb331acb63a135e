"""Numba kernels of the 9x9 generator (generate.py): completing a grid, removing givens while
the solution stays unique, and counting solutions up to two, all with the bit-parallel solver
(fast.py).

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.sudoku import fast, gradek


@njit(cache=True)
def count_solutions(givens: np.ndarray, solution: np.ndarray) -> int:
    """The solutions of ``givens`` (uint8[1, 81]) up to two, the first into ``solution[0]``."""
    stack = np.empty((fast.STACK, fast.ROW), np.int64)
    counters = np.zeros(fast.COUNTERS, np.int64)
    todo = fast.initial_state(givens, 0, stack[0])
    if todo < 0:
        return 0
    return fast.search(stack, todo, 2, True, solution, 0, counters)


@njit(cache=True)
def has_other(puzzle: np.ndarray, cell: int, value: int, stack: np.ndarray, solution: np.ndarray,
              counters: np.ndarray) -> bool:
    """Whether ``puzzle`` (uint8[1, 81], ``cell`` blank) has a solution without ``value`` in
    ``cell``: no when the peers' givens hold every other value, else a search that starts with
    that candidate removed, as fast.search's sibling does."""
    seen = 0
    for k in range(gradek.PEERS.shape[1]):
        v = int(puzzle[0, gradek.PEERS[cell, k]])
        if v:
            seen |= 1 << (v - 1)
    if seen | 1 << (value - 1) == 511:  # the peers' givens leave the cell this value alone
        return False
    todo = fast.initial_state(puzzle, 0, stack[0])
    if todo < 0:
        return False
    d = value - 1
    b = cell // 27
    stack[0, d * 3 + b] &= ~(1 << (cell - 27 * b))
    return fast.search(stack, todo | 1 << d, 1, True, solution, 0, counters) > 0


@njit(cache=True)
def minimize(puzzle: np.ndarray, orbits: np.ndarray) -> int:
    """Remove from ``puzzle`` (uint8[1, 81], unique) each orbit of cells in turn (``orbits``
    int64[k, 4], rows padded with -1) unless the puzzle then has a second solution; the number
    of searches made. Since the solution is known, a second one exists exactly when some removed
    cell can hold another value (``has_other``). One pass is enough for minimality: a removal
    that fails with more givens fails with fewer too, since fewer givens only add solutions."""
    stack = np.empty((fast.STACK, fast.ROW), np.int64)
    solution = np.zeros((1, 81), np.uint8)
    counters = np.zeros(fast.COUNTERS, np.int64)
    kept = np.zeros(4, np.uint8)
    searches = 0
    for i in range(orbits.shape[0]):
        for j in range(4):
            cell = orbits[i, j]
            if cell >= 0:
                kept[j] = puzzle[0, cell]
                puzzle[0, cell] = 0
        other = False
        for j in range(4):
            cell = orbits[i, j]
            if cell >= 0 and not other:
                searches += 1
                other = has_other(puzzle, cell, int(kept[j]), stack, solution, counters)
        if other:
            for j in range(4):
                cell = orbits[i, j]
                if cell >= 0:
                    puzzle[0, cell] = kept[j]
    return searches


@njit(cache=True)
def complete(givens: np.ndarray) -> np.ndarray:
    """The first solution of ``givens`` (uint8[1, 81]) in the fast solver's order; zeros if none."""
    stack = np.empty((fast.STACK, fast.ROW), np.int64)
    solution = np.zeros((1, 81), np.uint8)
    counters = np.zeros(fast.COUNTERS, np.int64)
    todo = fast.initial_state(givens, 0, stack[0])
    if todo >= 0:
        fast.search(stack, todo, 1, True, solution, 0, counters)
    return solution
