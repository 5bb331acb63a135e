"""The answers of a ``fast`` batch as JSON text, written by one kernel call into one byte buffer and
split once: per row ``[result, stats]`` byte for byte as the writer's encoder makes it of
``outcome.result`` and ``outcome.fast_stats`` (the same keys, order and number forms; the tests
compare the two on whole data sets). A Python format per row costs about as much as the search of
an easy puzzle.

Rows are separated by a newline, which compact JSON text never holds. Everything here is the
numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.sudoku import fast, fastprop

# the constant text between the fields, in the order written
_PIECES = [b'[{"solution":"', b'","unique":', b"true", b"false", b',"solutions_found":', b"},", b"[null,",
           b'{"elapsed_ms":', b',"subtasks":0,"nodes":', b',"leaves":', b',"max_depth":', b',"guesses":',
           b',"techniques":{"full_house":0,"naked_single":', b',"hidden_single":',
           b',"naked_pair":0},"strategy":"fast","abandoned":[]}]']
(SOLUTION, UNIQUE, TRUE, FALSE, FOUND, END_RESULT, NULL, ELAPSED, NODES, LEAVES, MAX_DEPTH, GUESSES,
 NAKED, HIDDEN, END) = range(len(_PIECES))
TEXT = np.frombuffer(b"".join(_PIECES), np.uint8).copy()
# piece k is TEXT[BOUNDS[k]:BOUNDS[k + 1]]
BOUNDS = np.cumsum([0] + [len(p) for p in _PIECES]).astype(np.int64)
# the stats' counters: their piece and their column of ``fast``'s counters
COUNTED = np.array([[NODES, fast.NODES], [LEAVES, fast.LEAVES], [MAX_DEPTH, fast.MAX_DEPTH],
                    [GUESSES, fast.GUESSES], [NAKED, fast.NAKED], [HIDDEN, fast.HIDDEN]], np.int64)
DIGITS = 19  # of an int64 at most
# the most a row takes besides ``elapsed_ms``: every piece, a solution, 7 numbers and the newline
ROW_BOUND = len(TEXT) + fastprop.CELLS + 7 * DIGITS + 1


def texts(solutions: np.ndarray, found: np.ndarray, counters: np.ndarray, max_solutions: int,
          elapsed_ms: str) -> list[str]:
    """Each row's ``[result, stats]`` as JSON text: ``solutions`` uint8[B, 81] (values 1..9, the
    first solution of each row that has one), ``found`` int64[B], ``counters`` int64[B, COUNTERS]
    as ``fast.solve_batch`` fills them; ``elapsed_ms`` already encoded, the same for every row."""
    rows = found.shape[0]
    if rows == 0:
        return []
    elapsed = np.frombuffer(elapsed_ms.encode("ascii"), np.uint8)
    out = np.empty(rows * (ROW_BOUND + len(elapsed)), np.uint8)
    end = write(solutions, found, counters, max_solutions, elapsed, out)
    return str(out[:end].data, "ascii").split("\n")


@njit(cache=True)
def write(solutions: np.ndarray, found: np.ndarray, counters: np.ndarray, max_solutions: int,
          elapsed: np.ndarray, out: np.ndarray) -> int:
    """Every row's text into ``out`` (large enough: ``ROW_BOUND`` + len(elapsed) a row), newline
    between rows; the bytes written."""
    at = 0
    for i in range(found.shape[0]):
        if i:
            out[at] = 10  # newline
            at += 1
        n = found[i]
        if n:
            at = piece(out, at, SOLUTION)
            for cell in range(fastprop.CELLS):
                out[at] = 48 + solutions[i, cell]  # the digit's ASCII code
                at += 1
            at = piece(out, at, UNIQUE)
            # only an exhausted search proves uniqueness, and it is exhausted only below the limit
            at = piece(out, at, TRUE if n == 1 and max_solutions > 1 else FALSE)
            at = piece(out, at, FOUND)
            at = number(out, at, n)
            at = piece(out, at, END_RESULT)
        else:
            at = piece(out, at, NULL)
        at = piece(out, at, ELAPSED)
        for k in range(elapsed.shape[0]):
            out[at] = elapsed[k]
            at += 1
        for k in range(COUNTED.shape[0]):
            at = piece(out, at, COUNTED[k, 0])
            at = number(out, at, counters[i, COUNTED[k, 1]])
        at = piece(out, at, END)
    return at


@njit(cache=True, inline="always")
def piece(out: np.ndarray, at: int, k: int) -> int:
    """Constant piece ``k`` at ``out[at]``; the position after it."""
    for j in range(BOUNDS[k], BOUNDS[k + 1]):
        out[at] = TEXT[j]
        at += 1
    return at


@njit(cache=True, inline="always")
def number(out: np.ndarray, at: int, value: int) -> int:
    """A non-negative integer in decimal at ``out[at]``; the position after it."""
    digits = 1
    rest = value // 10
    while rest:
        digits += 1
        rest //= 10
    end = at + digits
    for k in range(digits):
        out[end - 1 - k] = 48 + value % 10
        value //= 10
    return end
