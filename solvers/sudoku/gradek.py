"""Numba kernels of the 9x9 grader (grade.py): the shared tables; the singles, which make
most of a grading's steps, applied one at a time in the grader's order of ease; and a kernel
per family of the patterns past them (locked candidates, naked and hidden subsets, fish,
the wings), each finding the first match in the grader's order.

  values   int64[81]: 0 blank, else 1..9.
  cands    int64[81]: bit d set when digit d (value d + 1) is still possible in an open cell;
           0 in a placed cell.
  places   int64[27, 9]: per unit and digit, the positions (0..8 in the unit) still open to it.
  moves    int64[81, 3]: one row per placement, (technique code, cell, value).

Single codes (the order of ease, the ratings on Sudoku Explainer's scale are grade.py's):
FULL_HOUSE (the last open cell of a unit), HIDDEN_BOX (a digit with one place left in a box),
HIDDEN_LINE (in a row or a column), NAKED (a cell with one digit left).

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.bits import lowest_bit, popcount

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
CELL_UNITS = np.array([[r, 9 + c, 18 + 3 * (r // 3) + c // 3] for r in range(9) for c in range(9)], np.int64)
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
            return open_cell, lowest_bit(cands[open_cell]) + 1
    return -1, 0


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
            d = lowest_bit(single)
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
            return cell, lowest_bit(m) + 1
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
                d = lowest_bit(m)
                m &= m - 1
                out[u, d] |= 1 << k
    return out


# -- the basic patterns past the singles: one kernel per family, the first match in the
# grader's order. Each writes the pattern's cells to ``cells`` (int64[16]: at most four lines
# of four cells) and its eliminations as (cell, value) rows to ``elims`` (int64[81, 2]: at most
# 36, nine cells losing four digits or four cells losing eight) and returns both counts.

POINTING = 0
CLAIMING = 1
SEGMENT = 0b111  # a box's row, or a line's cells in one box, shifted by 3 per step
BOX_COLUMN = 0b001001001  # a box's column, shifted by 1 per step


@njit(cache=True)
def _eliminate(cell: int, mask: int, cands: np.ndarray, elims: np.ndarray, n: int) -> int:
    """Append (cell, value) to ``elims`` for each digit of ``mask`` possible in ``cell``; the count after."""
    m = cands[cell] & mask
    while m:
        d = lowest_bit(m)
        m &= m - 1
        elims[n, 0] = cell
        elims[n, 1] = d + 1
        n += 1
    return n


@njit(cache=True)
def _in_unit(cell: int, u: int) -> bool:
    """Whether ``cell`` is in unit ``u``: its row, column or box (by u // 9) is u."""
    return bool(CELL_UNITS[cell, u // 9] == u)


@njit(cache=True)
def _pattern(u: int, mask: int, cells: np.ndarray, n: int) -> int:
    """Append the cells of unit ``u`` at the positions of ``mask`` to ``cells``; the count after."""
    for k in range(9):
        if mask >> k & 1:
            cells[n] = UNITS[u, k]
            n += 1
    return n


@njit(cache=True)
def locked(kind: int, cands: np.ndarray, places: np.ndarray, cells: np.ndarray,
           elims: np.ndarray) -> tuple[int, int]:
    """The first pointing (a digit confined in a box to one line leaves the rest of the line)
    or claiming (confined in a line to one box, leaves the rest of the box) with eliminations:
    (cells of the pattern, eliminations) written to ``cells`` and ``elims``, or (0, 0)."""
    first, last = (18, 27) if kind == POINTING else (0, 18)
    for u in range(first, last):
        for d in range(9):
            m = places[u, d]
            if popcount(m) < 2:
                continue
            for k in range(3):
                target = -1
                if kind == POINTING:
                    b = u - 18
                    if m & ~(SEGMENT << 3 * k) == 0:
                        target = 3 * (b // 3) + k
                    elif m & ~(BOX_COLUMN << k) == 0:
                        target = 9 + 3 * (b % 3) + k
                elif m & ~(SEGMENT << 3 * k) == 0:
                    target = 18 + (3 * (u // 3) + k if u < 9 else 3 * k + (u - 9) // 3)
                if target < 0:
                    continue
                n = 0
                for j in range(9):
                    cell = UNITS[target, j]
                    if not _in_unit(cell, u):
                        n = _eliminate(cell, 1 << d, cands, elims, n)
                if n:
                    return _pattern(u, m, cells, 0), n
    return 0, 0


@njit(cache=True)
def naked_subset(k: int, cands: np.ndarray, cells: np.ndarray, elims: np.ndarray) -> tuple[int, int]:
    """The first k cells of a unit holding only k digits between them whose other cells lose
    some of those digits, as ``locked`` reports it."""
    for u in range(27):
        items = 0  # positions of the cells with 2..k candidates
        for j in range(9):
            p = popcount(cands[UNITS[u, j]])
            if 2 <= p <= k:
                items |= 1 << j
        if popcount(items) < k:
            continue
        for sel in range(512):
            if sel & ~items or popcount(sel) != k:
                continue
            mask = 0
            for j in range(9):
                if sel >> j & 1:
                    mask |= cands[UNITS[u, j]]
            if popcount(mask) != k:
                continue
            n = 0
            for j in range(9):
                if not sel >> j & 1:
                    n = _eliminate(UNITS[u, j], mask, cands, elims, n)
            if n:
                return _pattern(u, sel, cells, 0), n
    return 0, 0


@njit(cache=True)
def hidden_subset(k: int, cands: np.ndarray, places: np.ndarray, cells: np.ndarray,
                  elims: np.ndarray) -> tuple[int, int]:
    """The first k digits of a unit confined to k cells that hold other digits too, which they
    lose; as ``locked`` reports it."""
    for u in range(27):
        items = 0  # the digits with 2..k places
        for d in range(9):
            p = popcount(places[u, d])
            if 2 <= p <= k:
                items |= 1 << d
        if popcount(items) < k:
            continue
        for sel in range(512):
            if sel & ~items or popcount(sel) != k:
                continue
            where = 0
            for d in range(9):
                if sel >> d & 1:
                    where |= places[u, d]
            if popcount(where) != k:
                continue
            n = 0
            for j in range(9):
                if where >> j & 1:
                    n = _eliminate(UNITS[u, j], 511 & ~sel, cands, elims, n)
            if n:
                return _pattern(u, where, cells, 0), n
    return 0, 0


@njit(cache=True)
def fish(k: int, cands: np.ndarray, places: np.ndarray, cells: np.ndarray,
         elims: np.ndarray) -> tuple[int, int]:
    """The first digit whose places in k rows (columns) lie in k columns (rows) that hold it
    elsewhere, where it goes; as ``locked`` reports it. Cell i of column j is row i's cell j,
    so one loop serves both."""
    for d in range(9):
        for base in (0, 9):
            cover = 9 - base
            items = 0  # the base lines with 2..k places of the digit
            for i in range(9):
                p = popcount(places[base + i, d])
                if 2 <= p <= k:
                    items |= 1 << i
            if popcount(items) < k:
                continue
            for sel in range(512):
                if sel & ~items or popcount(sel) != k:
                    continue
                mask = 0
                for i in range(9):
                    if sel >> i & 1:
                        mask |= places[base + i, d]
                if popcount(mask) != k:
                    continue
                n = 0
                for j in range(9):
                    if mask >> j & 1:
                        for i in range(9):
                            if not sel >> i & 1:
                                n = _eliminate(UNITS[cover + j, i], 1 << d, cands, elims, n)
                if n:
                    c = 0
                    for i in range(9):
                        if sel >> i & 1:
                            c = _pattern(base + i, places[base + i, d], cells, c)
                    return c, n
    return 0, 0


@njit(cache=True)
def _sees(a: int, b: int) -> bool:
    """Whether two different cells share a row, column or box."""
    return a != b and (CELL_UNITS[a, 0] == CELL_UNITS[b, 0] or CELL_UNITS[a, 1] == CELL_UNITS[b, 1]
                       or CELL_UNITS[a, 2] == CELL_UNITS[b, 2])


@njit(cache=True)
def wing(xyz: bool, cands: np.ndarray, cells: np.ndarray, elims: np.ndarray) -> tuple[int, int]:
    """The first XY-wing (a pivot {x,y} seeing pincers {x,z} and {y,z}: z leaves every cell
    seeing both pincers) or, with ``xyz``, XYZ-wing (a pivot {x,y,z} seeing pincers {x,z} and
    {y,z}: z leaves every cell seeing all three), as ``locked`` reports it; cells pivot, pincers."""
    wings = np.empty(20, np.int64)
    for pivot in range(81):
        pm = cands[pivot]
        if popcount(pm) != (3 if xyz else 2):
            continue
        n_wings = 0
        for k in range(PEERS.shape[1]):
            q = PEERS[pivot, k]
            fits = cands[q] & ~pm == 0 if xyz else popcount(cands[q] & pm) == 1
            if popcount(cands[q]) == 2 and fits:
                wings[n_wings] = q
                n_wings += 1
        for i in range(n_wings):
            a = wings[i]
            for j in range(i + 1, n_wings):
                b = wings[j]
                if xyz:
                    z = cands[a] & cands[b]
                    ok = cands[a] != cands[b] and popcount(z) == 1
                else:
                    z = cands[a] & ~pm
                    ok = cands[a] & cands[b] & pm == 0 and cands[b] & ~pm == z
                if not ok:
                    continue
                n = 0
                for c in range(81):
                    if c != pivot and _sees(c, a) and _sees(c, b) and (not xyz or _sees(c, pivot)):
                        n = _eliminate(c, z, cands, elims, n)
                if n:
                    cells[0] = pivot
                    cells[1] = a
                    cells[2] = b
                    return 3, n
    return 0, 0
