"""Numba kernels of the 9x9 grader (grade.py): the singles, which make most of a grading's
steps, applied one at a time in the grader's order of ease, and the shared tables.

  values   int64[81]: 0 blank, else 1..9.
  cands    int64[81]: bit d set when digit d (value d + 1) is still possible in an open cell;
           0 in a placed cell.
  moves    int64[81, 3]: one row per placement, (technique code, cell, value).

Technique codes (the order of ease, the ratings on Sudoku Explainer's scale are grade.py's):
FULL_HOUSE (the last open cell of a unit), HIDDEN_BOX (a digit with one place left in a box),
HIDDEN_LINE (in a row or a column), NAKED (a cell with one digit left).

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

FULL_HOUSE = 0
HIDDEN_BOX = 1
HIDDEN_LINE = 2
NAKED = 3
NONE = -1


def _units() -> np.ndarray:
    """int64[27, 9]: the rows, then the columns, then the boxes."""
    rows = [[r * 9 + c for c in range(9)] for r in range(9)]
    cols = [[r * 9 + c for r in range(9)] for c in range(9)]
    boxes = [[(3 * (b // 3) + i // 3) * 9 + 3 * (b % 3) + i % 3 for i in range(9)] for b in range(9)]
    return np.array(rows + cols + boxes, np.int64)


def _peers(units: np.ndarray) -> np.ndarray:
    """int64[81, 20]: the other cells of each cell's three units."""
    out = np.zeros((81, 20), np.int64)
    for cell in range(81):
        seen = sorted({int(x) for unit in units if cell in unit for x in unit} - {cell})
        out[cell] = seen
    return out


UNITS = _units()
PEERS = _peers(UNITS)
# the units searched for each kind of single, in the grader's order: boxes before lines
BOX_UNITS = np.arange(18, 27, dtype=np.int64)
LINE_UNITS = np.arange(0, 18, dtype=np.int64)


@njit(cache=True)
def place(values: np.ndarray, cands: np.ndarray, cell: int, value: int) -> None:
    """Set ``value`` in ``cell`` and remove it from the candidates of the cell's peers."""
    values[cell] = value
    cands[cell] = 0
    bit = 1 << (value - 1)
    for k in range(PEERS.shape[1]):
        cands[PEERS[cell, k]] &= ~bit


@njit(cache=True)
def _full_house(values: np.ndarray, cands: np.ndarray) -> tuple[int, int]:
    """(cell, value) of the first unit with one open cell, or (-1, 0)."""
    for u in range(27):
        open_cell = -1
        count = 0
        for k in range(9):
            if values[UNITS[u, k]] == 0:
                open_cell = UNITS[u, k]
                count += 1
        if count == 1 and cands[open_cell]:
            return open_cell, _lowest(cands[open_cell]) + 1
    return -1, 0


@njit(cache=True)
def _lowest(m: int) -> int:
    """The index of the lowest set bit of ``m`` (> 0)."""
    d = 0
    while not m >> d & 1:
        d += 1
    return d


@njit(cache=True)
def _hidden(cands: np.ndarray, units: np.ndarray) -> tuple[int, int]:
    """(cell, value) of the first digit with exactly one place left in one of ``units``, or (-1, 0)."""
    for i in range(units.shape[0]):
        u = units[i]
        once = 0
        twice = 0
        for k in range(9):
            m = cands[UNITS[u, k]]
            twice |= once & m
            once |= m
        single = once & ~twice
        if single:
            d = _lowest(single)
            for k in range(9):
                if cands[UNITS[u, k]] >> d & 1:
                    return UNITS[u, k], d + 1
    return -1, 0


@njit(cache=True)
def _naked(cands: np.ndarray) -> tuple[int, int]:
    """(cell, value) of the first cell with one candidate left, or (-1, 0)."""
    for cell in range(81):
        m = cands[cell]
        if m and m & (m - 1) == 0:
            return cell, _lowest(m) + 1
    return -1, 0


@njit(cache=True)
def easiest_single(values: np.ndarray, cands: np.ndarray) -> tuple[int, int, int]:
    """(code, cell, value) of the easiest single in the grader's order, or (NONE, -1, 0)."""
    cell, value = _full_house(values, cands)
    if cell >= 0:
        return FULL_HOUSE, cell, value
    cell, value = _hidden(cands, BOX_UNITS)
    if cell >= 0:
        return HIDDEN_BOX, cell, value
    cell, value = _hidden(cands, LINE_UNITS)
    if cell >= 0:
        return HIDDEN_LINE, cell, value
    cell, value = _naked(cands)
    if cell >= 0:
        return NAKED, cell, value
    return NONE, -1, 0


@njit(cache=True)
def singles(values: np.ndarray, cands: np.ndarray, moves: np.ndarray) -> int:
    """Place singles one at a time, always the easiest (``easiest_single``), until none is left;
    each placement goes to a row of ``moves``; the number placed. A cell left without a candidate
    (a contradiction) stops nothing here: it has no single, and the grader's answer check sees it."""
    n = 0
    while True:
        code, cell, value = easiest_single(values, cands)
        if code == NONE:
            return n
        place(values, cands, cell, value)
        moves[n, 0] = code
        moves[n, 1] = cell
        moves[n, 2] = value
        n += 1


@njit(cache=True)
def initial_cands(values: np.ndarray) -> np.ndarray:
    """The candidates of ``values``: every digit no peer holds, in each open cell."""
    cands = np.zeros(81, np.int64)
    for cell in range(81):
        if values[cell] == 0:
            m = 511
            for k in range(PEERS.shape[1]):
                v = values[PEERS[cell, k]]
                if v:
                    m &= ~(1 << (v - 1))
            cands[cell] = m
    return cands


@njit(cache=True)
def singles_level(givens: np.ndarray) -> int:
    """How far singles take a puzzle (uint8[81]): 0 when full houses and hidden singles solve
    it, 1 when naked singles are needed too, 2 when singles stall. The generator's cheap filter."""
    values = givens.astype(np.int64)
    cands = initial_cands(values)
    moves = np.empty((81, 3), np.int64)
    n = singles(values, cands, moves)
    for cell in range(81):
        if values[cell] == 0:
            return 2
    for i in range(n):
        if moves[i, 0] == NAKED:
            return 1
    return 0


@njit(cache=True)
def places(cands: np.ndarray) -> np.ndarray:
    """int64[27, 9]: for each unit and digit, the positions (0..8 in the unit) where the digit
    is still possible, as a mask."""
    out = np.zeros((27, 9), np.int64)
    for u in range(27):
        for k in range(9):
            m = cands[UNITS[u, k]]
            while m:
                d = _lowest(m)
                m &= m - 1
                out[u, d] |= 1 << k
    return out
