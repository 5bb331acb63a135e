"""The numba kernel of the 9x9 grader's unique loops (unique.py): every loop of cells holding
two digits {a, b} that would make the grid's solution not unique, as Sudoku Explainer's (SE)
search finds them, in its order.

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
  out      int64[MOST, 81]: a loop's cells in path order per row; ``lengths`` int64[MOST] theirs.

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.sudoku import gradek

MOST = 256  # loops written at most (each is found from several starts)
POP = np.array([bin(m).count("1") for m in range(512)], np.int64)
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
                if n < MOST and _valid(path, depth + 1):
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
