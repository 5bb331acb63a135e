"""The numba kernels of the 9x9 grader's uniqueness techniques (unique.py): the BUG cells
(``bug_cells``), and every loop of cells holding two digits {a, b} that would make the grid's
solution not unique (``loops``), as Sudoku Explainer's (SE) search finds them, in its order.

From each cell holding exactly {a, b} (row by row), a depth-first walk steps to a cell of the
same box, row or column (in that order of SE's region types, never through the type of the step
before) that holds a and b and is not on the path yet; it closes on the start after four cells
or more. A cell holding more than {a, b} may join while fewer than two such cells are on the
path, or while the extra digits met so far are one digit (SE's record of them also takes the
extra digits of the cells tried before at the same depth, which the walk keeps). A closed path
is a loop when each region it visits holds exactly two of its cells, one at an even and one at
an odd place on the path (the cells then alternate a and b around it). A loop is written once
per start and direction; unique.py keeps the first of each set of cells.

  cands    int64[81]: the candidate masks (bit d for digit d + 1).
  out      int64[MOST, LONGEST]: a loop's cells in path order per row; ``lengths`` int64[MOST] theirs.
  cells    int64[81]: the BUG cells; ``digits`` int64[81]: their BUG digits (masks).

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.sudoku import gradek, patternk

MOST = 256  # loops written at most (each is found from several starts)
LONGEST = 32  # cells of a loop written at most (it holds two cells of each row it visits: 18)
POP = patternk.POP
# each cell's region of each of SE's region types, in SE's order: box, row, column
REGIONS = np.array([[18 + 3 * (c // 27) + (c % 9) // 3, c // 9, 9 + c % 9] for c in range(81)], np.int64)


@njit(cache=True)
def _valid(path: np.ndarray, size: int) -> bool:
    """Whether each region the closed path visits holds two of its cells, of opposite parity."""
    seen = np.zeros((2, 27), np.bool_)
    for i in range(size):
        for t in range(3):
            u = REGIONS[path[i], t]
            if seen[i & 1, u]:
                return False
            seen[i & 1, u] = True
    same = True
    for u in range(27):
        same &= seen[0, u] == seen[1, u]
    return same


@njit(cache=True)
def loops(cands: np.ndarray, out: np.ndarray, lengths: np.ndarray) -> int:
    """The unique loops of ``cands`` (module doc) written to ``out`` and ``lengths``; their number."""
    n = 0
    path = np.empty(82, np.int64)
    kind = np.empty(82, np.int64)  # the region type a depth scans (3: done)
    pos = np.empty(82, np.int64)  # the next place in that region
    extra = np.empty(82, np.int64)  # the extra digits met at a depth (SE's running record)
    allowed = np.empty(82, np.int64)  # cells with extra digits that may still join
    last = np.empty(82, np.int64)  # the region type of the step into a depth
    on_path = np.zeros(81, np.bool_)
    for start in range(81):
        ab = cands[start]
        if POP[ab] != 2:
            continue
        depth = 0
        path[0], kind[0], pos[0], extra[0], allowed[0], last[0] = start, 0, 0, 0, 2, -1
        on_path[start] = True
        while depth >= 0:
            if kind[depth] == 3:
                on_path[path[depth]] = False
                depth -= 1
                continue
            if kind[depth] == last[depth] or pos[depth] == 9:
                kind[depth] += 1
                pos[depth] = 0
                continue
            nxt = gradek.UNITS[REGIONS[path[depth], kind[depth]], pos[depth]]
            pos[depth] += 1
            if nxt == start and depth >= 3:
                if n < MOST and depth < LONGEST and _valid(path, depth + 1):
                    out[n, :depth + 1] = path[:depth + 1]
                    lengths[n] = depth + 1
                    n += 1
                continue
            m = cands[nxt]
            if on_path[nxt] or m & ab != ab:
                continue
            extra[depth] = (extra[depth] | m) & ~ab
            if POP[m] == 2 or POP[extra[depth]] == 1 or allowed[depth] > 0:
                d = depth + 1
                path[d], kind[d], pos[d], extra[d], last[d] = nxt, 0, 0, extra[depth], kind[depth]
                allowed[d] = allowed[depth] - (1 if POP[m] > 2 else 0)
                on_path[nxt] = True
                depth = d
    return n


@njit(cache=True)
def bug_cells(cands: np.ndarray, cells: np.ndarray, digits: np.ndarray) -> int:
    """Sudoku Explainer's BUG cells (unique.py), unit by unit (boxes, rows, columns) and digit by
    digit: where a digit has neither 0 nor 2 places, its one place holding three digits or more
    is a BUG cell and the digit one of its BUG digits (several such places: none is; none: no
    BUG). The cells go to ``cells`` in the order found, their BUG digits (masks) to ``digits``;
    their number, or -1 when the grid with the BUG digits removed is no grave (a cell without
    two digits, a digit without 0 or 2 places in a unit), or when several BUG cells with
    several BUG digits stop having a cell that sees all of them."""
    places = gradek.places(cands)
    reduced = cands.copy()
    common = np.zeros(81, np.bool_)  # the cells seeing every BUG cell, once one is found
    started = False
    n = 0
    every = 0
    for k in range(27):
        u = (k + 18) % 27
        for d in range(9):
            count = POP[places[u, d]]
            if count == 0 or count == 2:
                continue
            wide = -1
            wides = 0
            for j in range(9):
                c = gradek.UNITS[u, j]
                if cands[c] >> d & 1 and POP[cands[c]] >= 3:
                    wide = c
                    wides += 1
            if wides == 0:
                return -1
            if wides > 1:
                continue
            at = n
            for i in range(n):
                if cells[i] == wide:
                    at = i
            if at == n:
                cells[n] = wide
                digits[n] = 0
                n += 1
            digits[at] |= 1 << d
            every |= 1 << d
            reduced[wide] &= ~(1 << d)
            for c in range(81):
                common[c] = patternk.SEES[wide, c] and (common[c] or not started)
            started = True
            for i in range(n):
                common[cells[i]] = False
            if n > 1 and POP[every] > 1:
                left = False
                for c in range(81):
                    left |= common[c]
                if not left:
                    return -1
    for c in range(81):
        if cands[c] and POP[reduced[c]] != 2:
            return -1
    rest = gradek.places(reduced)
    for u in range(27):
        for d in range(9):
            if POP[rest[u, d]] != 0 and POP[rest[u, d]] != 2:
                return -1
    return n
