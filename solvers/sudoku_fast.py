"""Numba kernels of the ``fast`` 9x9 Sudoku strategy: bit-parallel candidates, singles and
locked candidates by bit operations, binary branching on an explicit stack, and a batch
call that checks, solves and verifies a whole chunk of grids in one kernel call.

Representation (9x9 only):

  cell        0..80, numbered r*9 + c; unit 0..26: rows, then columns, then boxes.
  mask        int32: bits 0-8 the values still possible (bit v-1 for value v), and bit 9
              (DONE) once the cell's single value has been removed from all its peers.
  state       int32[81] the masks of one node. A cell with one value bit is *placed*;
              a cell with no value bit is a contradiction.
  stack       int32[STACK, 81]: row d is the state d guesses deep. Branching on a cell
              with value bit b makes row d+1 = row d with the cell set to b (the child)
              and leaves row d with b removed from the cell (the sibling, searched when
              the child's subtree is done). Each row above 0 has one more cell placed
              by a guess than the row below, so the depth stays below 81.
  queue       int32[81] cells placed but not yet DONE. A cell joins it only when its
              mask goes from several value bits to one, which happens once per state.
  counters    int64[COUNTERS]: NODES (states propagated), LEAVES (contradictions and
              solutions), MAX_DEPTH, GUESSES (children entered), NAKED, HIDDEN (cells
              placed by naked and by hidden singles).

Propagation to a fixed point: naked singles (a placed cell removes its value from its
20 peers), hidden singles (per unit, the values seen once and not placed, from two
running ORs), then locked candidates (per box-line segment of 3 cells: a value of a box
confined to one line leaves the rest of the line, a value of a line confined to one box
leaves the rest of the box). Branching takes the first open cell with fewest values.

Everything here is the numba subset that also runs as plain Python under
NUMBA_DISABLE_JIT=1; every array is sized by the bound proved beside it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers import sudoku_kernels as K

N = 9
CELLS = 81
FULL = 0x1FF
DONE = 0x200
STACK = CELLS + 1

# counters
NODES = 0
LEAVES = 1
MAX_DEPTH = 2
GUESSES = 3
NAKED = 4
HIDDEN = 5
COUNTERS = 6

# what the batch kernel found for a grid besides its solutions
OK = 0
CONFLICT = 1      # two equal givens see each other: detail = (cell, earlier peer)
WRONG_ANSWER = 2  # the independent check refused the solution: detail = (fault, where)


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    cells = np.arange(CELLS).reshape(N, N)
    boxes = cells.reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(N, N)
    units = np.concatenate([cells, cells.T, boxes]).astype(np.int32)
    peers = np.empty((CELLS, 20), np.int32)
    for cell in range(CELLS):
        r, c = divmod(cell, N)
        seen = set(cells[r]) | set(cells[:, c]) | set(boxes[r // 3 * 3 + c // 3])
        peers[cell] = sorted(seen - {cell})
    popcount = np.array([(m).bit_count() for m in range(1 << N)], np.int32)
    lowest = np.array([(m & -m).bit_length() for m in range(1 << N)], np.int32)  # value of the lowest bit
    return units, peers, popcount, lowest


UNITS, PEERS, POPCOUNT, VALUE = _tables()
UNIT_BITS = np.array([1 << (c // N) | 1 << (N + c % N) | 1 << (2 * N + c // 27 * 3 + c % N // 3)
                      for c in range(CELLS)], np.int64)  # the row, column and box of each cell
ALL_UNITS = (1 << 27) - 1
# the units of each band (line kind 0: its rows and boxes) and stack (1: its columns and boxes)
BAND_UNITS = np.array([[7 << 3 * b | 7 << 18 + 3 * b for b in range(3)],
                       [7 << 9 + 3 * s | 0b1001001 << 18 + s for s in range(3)]], np.int64)
UNITS64 = UNITS.astype(np.int64)  # for the shared solution check


@njit(cache=True)
def initial_state(givens: np.ndarray, row: int, state: np.ndarray) -> None:
    """Givens (uint8[rows, 81], 0 blank) of one row -> masks; placed cells are left for the queue."""
    for cell in range(CELLS):
        given = int(givens[row, cell])
        state[cell] = FULL if given == 0 else 1 << (given - 1)


@njit(cache=True)
def queue_singles(state: np.ndarray, queue: np.ndarray) -> int:
    """Queue every placed cell that is not DONE; returns the queue's length."""
    qn = 0
    for cell in range(CELLS):
        m = state[cell]
        if m & DONE == 0 and m & (m - 1) == 0:
            queue[qn] = cell
            qn += 1
    return qn


@njit(cache=True)
def naked_singles(state: np.ndarray, queue: np.ndarray, qn: int, counters: np.ndarray) -> int:
    """Remove the value of every queued cell from its peers, queueing cells left with one value.
    The units changed (bit u for unit u), or -1 on a contradiction (a peer left without values,
    or two peers with the same value)."""
    qi = 0
    dirty = 0
    placed = 0
    while qi < qn:
        cell = queue[qi]
        qi += 1
        v = state[cell]
        if v & FULL == 0:
            return -1
        state[cell] = v | DONE
        for k in range(20):
            p = PEERS[cell, k]
            m = state[p]
            if m & v:
                m ^= v
                state[p] = m
                dirty |= UNIT_BITS[p]
                if m & FULL == 0:
                    return -1
                if m & (m - 1) == 0:  # one value bit and not DONE (a DONE cell has lost its only bit)
                    queue[qn] = p
                    qn += 1
                    placed += 1
    counters[NAKED] += placed
    return dirty


@njit(cache=True)
def hidden_singles(state: np.ndarray, queue: np.ndarray, todo: int, counters: np.ndarray) -> int:
    """One pass over the units in ``todo`` placing every value that has one open cell left in its
    unit; each placement is propagated at once, so later units see it. The units changed by the
    pass, or -1 on a contradiction."""
    dirty = 0
    while todo:
        low = todo & FULL
        mid = (todo >> 9) & FULL
        u = VALUE[low] - 1 if low else (VALUE[mid] + 8 if mid else VALUE[todo >> 18] + 17)
        todo &= todo - 1
        once = 0
        twice = 0
        done = 0
        for j in range(N):
            m = state[UNITS[u, j]]
            if m & DONE:
                done |= m
            else:
                twice |= once & m
                once |= m
        if (once | done) & FULL != FULL:
            return -1
        hidden = once & ~twice
        if hidden == 0:
            continue
        qn = 0
        while hidden:
            b = hidden & -hidden
            hidden ^= b
            for j in range(N):
                cell = UNITS[u, j]
                m = state[cell]
                if m & b:
                    if m != b:
                        state[cell] = b
                        dirty |= UNIT_BITS[cell]
                        queue[qn] = cell
                        qn += 1
                    break
            else:
                return -1  # another hidden value of this unit took the cell
        counters[HIDDEN] += qn
        more = naked_singles(state, queue, qn, counters)
        if more < 0:
            return -1
        dirty |= more
        todo &= ~more  # those come back in the next pass
    return dirty


@njit(cache=True)
def locked_candidates(state: np.ndarray, queue: np.ndarray, touched: int) -> tuple[int, int]:
    """Pointing and claiming over the box-line segments of the bands and stacks with a unit in
    ``touched`` (the others have not changed since their last fixed point); cells placed by it
    are queued. (queue length, units changed); the length is -1 on a contradiction."""
    qn = 0
    dirty = 0
    seg = np.empty((3, 3), np.int32)
    for line_kind in range(2):  # 0: rows within a band, 1: columns within a stack
        for band in range(3):
            if touched & BAND_UNITS[line_kind, band] == 0:
                continue
            for i in range(3):
                for k in range(3):
                    m = 0
                    for t in range(3):
                        a = band * 3 + i
                        b = k * 3 + t
                        m |= state[a * N + b] if line_kind == 0 else state[b * N + a]
                    seg[i, k] = m & FULL
            for i in range(3):
                for k in range(3):
                    line_rest = seg[i, (k + 1) % 3] | seg[i, (k + 2) % 3]
                    box_rest = seg[(i + 1) % 3, k] | seg[(i + 2) % 3, k]
                    pointing = seg[i, k] & ~box_rest & line_rest
                    claiming = seg[i, k] & ~line_rest & box_rest
                    if pointing == 0 and claiming == 0:
                        continue
                    for t in range(3):
                        for other in range(1, 3):
                            a = band * 3 + i
                            b = ((k + other) % 3) * 3 + t  # the line outside the box
                            cell = a * N + b if line_kind == 0 else b * N + a
                            for bits in (pointing, claiming):
                                m = state[cell]
                                if m & DONE == 0 and m & bits:
                                    m &= ~bits
                                    state[cell] = m
                                    dirty |= UNIT_BITS[cell]
                                    if m == 0:
                                        return -1, dirty
                                    if m & (m - 1) == 0:
                                        queue[qn] = cell
                                        qn += 1
                                a = band * 3 + (i + other) % 3
                                b = k * 3 + t  # the box outside the line
                                cell = a * N + b if line_kind == 0 else b * N + a
    return qn, dirty


@njit(cache=True)
def propagate(state: np.ndarray, queue: np.ndarray, qn: int, dirty: int, locked: bool,
              counters: np.ndarray) -> bool:
    """Singles (and locked candidates when ``locked``) to a fixed point; False on a contradiction.
    ``queue`` holds ``qn`` placed cells to propagate, ``dirty`` the units changed since the state
    was last at a fixed point."""
    touched = dirty
    while True:
        more = naked_singles(state, queue, qn, counters)
        if more < 0:
            return False
        dirty |= more
        while dirty:
            touched |= dirty
            dirty = hidden_singles(state, queue, dirty, counters)
            if dirty < 0:
                return False
        if not locked:
            return True
        qn, dirty = locked_candidates(state, queue, touched)
        touched = 0
        if qn < 0:
            return False
        if dirty == 0:
            return True


@njit(cache=True)
def branch_cell(state: np.ndarray) -> int:
    """The first open cell with fewest values, or -1 when every cell is DONE."""
    best = -1
    fewest = 10
    for cell in range(CELLS):
        m = state[cell]
        if m & DONE == 0:
            k = POPCOUNT[m]
            if k < fewest:
                best = cell
                fewest = k
                if k == 2:
                    break
    return best


@njit(cache=True)
def search(stack: np.ndarray, queue: np.ndarray, max_solutions: int, locked: bool,
           solution: np.ndarray, out_row: int, counters: np.ndarray) -> int:
    """Depth-first search from ``stack[0]`` (set up by the caller); the number of solutions found,
    at most ``max_solutions``; the first one's values go to ``solution[out_row]``."""
    found = 0
    depth = 0
    branched = np.empty(STACK, np.int32)  # the cell each row was branched on
    dirty = ALL_UNITS
    qn = queue_singles(stack[0], queue)
    while depth >= 0:
        state = stack[depth]
        counters[NODES] += 1
        cell = -1
        if propagate(state, queue, qn, dirty, locked, counters):
            cell = branch_cell(state)
            if cell < 0:
                counters[LEAVES] += 1
                if found == 0:
                    for i in range(CELLS):
                        solution[out_row, i] = VALUE[state[i] & FULL]
                found += 1
                if found >= max_solutions:
                    return found
        else:
            counters[LEAVES] += 1
        if cell >= 0:
            b = state[cell] & -state[cell]
            child = stack[depth + 1]
            child[:] = state
            child[cell] = b
            state[cell] ^= b  # the sibling keeps the other values
            branched[depth] = cell
            depth += 1
            counters[GUESSES] += 1
            counters[MAX_DEPTH] = max(counters[MAX_DEPTH], depth)
            queue[0] = cell
            qn = 1
        else:
            depth -= 1  # the sibling waiting below: its branched cell lost a value
            if depth >= 0:
                cell = branched[depth]
                m = stack[depth, cell]
                queue[0] = cell
                qn = 1 if m & (m - 1) == 0 else 0
        dirty = UNIT_BITS[cell] if depth >= 0 and cell >= 0 else 0
    return found


@njit(cache=True)
def solve_one(givens: np.ndarray, max_solutions: int, locked: bool, solution: np.ndarray,
              counters: np.ndarray) -> int:
    """Search one grid (``givens`` uint8[1, 81], no conflicting givens); first solution to ``solution[0]``."""
    stack = np.empty((STACK, CELLS), np.int32)
    queue = np.empty(CELLS, np.int32)
    initial_state(givens, 0, stack[0])
    return search(stack, queue, max_solutions, locked, solution, 0, counters)


@njit(cache=True)
def first_conflict(givens: np.ndarray, row: int) -> tuple[int, int]:
    """(cell, earlier peer) of the first repeated given of the row in reading order, or (-1, -1)."""
    repeated = False
    for u in range(27):  # the common case first: every unit's givens distinct
        seen = 0
        for j in range(N):
            given = int(givens[row, UNITS[u, j]])
            if given:
                b = 1 << (given - 1)
                repeated |= seen & b != 0
                seen |= b
    if not repeated:
        return -1, -1
    for cell in range(CELLS):
        v = givens[row, cell]
        if v == 0:
            continue
        for k in range(20):
            p = PEERS[cell, k]
            if p < cell and givens[row, p] == v:
                return cell, p
    return -1, -1


@njit(cache=True, nogil=True)
def solve_batch(givens: np.ndarray, max_solutions: int, locked: bool, solutions: np.ndarray,
                found: np.ndarray, counters: np.ndarray, faults: np.ndarray) -> None:
    """Check, solve and verify every row of ``givens`` (uint8[B, 81]).

    Per row: ``found[i]`` solutions (at most max_solutions), the first in ``solutions[i]``
    (uint8[B, 81]), the search's ``counters[i]`` (int64[B, COUNTERS]) and ``faults[i]``
    (int64[B, 3]): (OK, 0, 0), (CONFLICT, cell, peer) for contradictory givens, left
    unsolved, or (WRONG_ANSWER, fault, where) when the solution fails the same independent
    check as the kind's ``verify`` (``sudoku_kernels.check_solution``).
    """
    stack = np.empty((STACK, CELLS), np.int32)
    queue = np.empty(CELLS, np.int32)
    for i in range(givens.shape[0]):
        cell, peer = first_conflict(givens, i)
        if cell >= 0:
            faults[i, 0] = CONFLICT
            faults[i, 1] = cell
            faults[i, 2] = peer
            continue
        initial_state(givens, i, stack[0])
        found[i] = search(stack, queue, max_solutions, locked, solutions, i, counters[i])
        if found[i] > 0:
            fault, where = K.check_solution(givens[i], solutions[i], UNITS64)
            if fault != K.SOLUTION_OK:
                faults[i, 0] = WRONG_ANSWER
                faults[i, 1] = fault
                faults[i, 2] = where
