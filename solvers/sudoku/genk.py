"""Numba kernels of the 9x9 generator (generate.py): counting solutions up to two with the
bit-parallel solver (fast.py), and removing givens while the solution stays unique.

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.sudoku import fast


@njit(cache=True)
def count_solutions(givens: np.ndarray, stack: np.ndarray, solution: np.ndarray, counters: np.ndarray) -> int:
    """The solutions of ``givens`` (uint8[1, 81]) up to two, the first into ``solution[0]``;
    ``stack`` is fast.py's (int64[STACK, ROW]), reused between calls."""
    todo = fast.initial_state(givens, 0, stack[0])
    if todo < 0:
        return 0
    return fast.search(stack, todo, 2, True, solution, 0, counters)


@njit(cache=True)
def minimize(puzzle: np.ndarray, orbits: np.ndarray) -> int:
    """Remove from ``puzzle`` (uint8[1, 81], unique) each orbit of cells in turn (``orbits``
    int64[k, 4], rows padded with -1) unless the puzzle then has a second solution; the number
    of solver calls. One pass is enough for minimality: a removal that fails with more givens
    fails with fewer too, since fewer givens only add solutions."""
    stack = np.empty((fast.STACK, fast.ROW), np.int64)
    solution = np.zeros((1, 81), np.uint8)
    counters = np.zeros(fast.COUNTERS, np.int64)
    kept = np.zeros(4, np.uint8)
    calls = 0
    for i in range(orbits.shape[0]):
        for j in range(4):
            cell = orbits[i, j]
            if cell >= 0:
                kept[j] = puzzle[0, cell]
                puzzle[0, cell] = 0
        calls += 1
        if count_solutions(puzzle, stack, solution, counters) != 1:
            for j in range(4):
                cell = orbits[i, j]
                if cell >= 0:
                    puzzle[0, cell] = kept[j]
    return calls


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
