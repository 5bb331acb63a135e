"""Numba kernels of the ``fast`` 9x9 Sudoku strategy: the rules of fastprop.py (its
representation: a bitboard per digit) run to a fixed point, binary branching on a small state
copied onto an explicit stack, and a batch call that checks, solves and verifies a whole chunk
of grids in one kernel call.

  stack       int64[STACK, ROW]: row k is the state k guesses deep (words 0..WORDS-1).
              Branching on a cell with lowest digit d makes row k+1 = row k with d placed
              there (the child) and leaves row k with d removed from the cell (the sibling,
              searched when the child's subtree is done), noting d in row k's word BRANCHED
              (kept in the stack: the search allocates nothing). Each row above 0 has one more
              cell placed by a guess than the row below, so the depth stays below 81. The
              row's words from TRIADS on are the triads pass's scratch, never copied.
  counters    int64[COUNTERS]: NODES (states propagated), LEAVES (contradictions and
              solutions), MAX_DEPTH, GUESSES (children entered), NAKED, HIDDEN (cells
              placed by naked and by hidden singles).

Propagation to a fixed point: naked singles, hidden singles (per digit whose board changed),
then locked candidates (per changed digit), then at that fixed point the triads (with the
uniqueness proof 8.2 guesses per top1465 puzzle against 11.5 without them, and 120 against 136
per forum_hardest_1106 puzzle, for somewhat more time per node). Branching takes the cell with
two digits left whose digits the most peers still have (the product of the two counts), else
the first cell with three digits left, else the first open cell.

The counts of the search are kept in local variables and stored into ``counters`` once per
call: a store into that int64 array inside the loops that change the state could alias it, and
made the compiler reload the state.

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1;
every array is sized by the bound proved beside it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.bits import lowest_bit, popcount
from solvers.sudoku import kernels
from solvers.sudoku.fastprop import (
    ALL_DIGITS,
    BAND,
    CELLS,
    PEER_WORDS,
    SOLVED,
    THREE_ROWS,
    TRIADS,
    WORDS,
    N,
    hidden_singles,
    locked_candidates,
    naked_singles,
    place,
    triads,
)

BRANCHED = WORDS  # a stack row's word after the state: the digit its cell lost to the child
ROW = TRIADS + 2 * 9  # then the triads pass's scratch (fastprop.TRIADS)
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

UNITS = np.concatenate([np.arange(CELLS).reshape(N, N), np.arange(CELLS).reshape(N, N).T,
                        np.arange(CELLS).reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(N, N)]
                       ).astype(np.int64)  # rows, columns, boxes: for the shared solution check


@njit(cache=True)
def propagate(state: np.ndarray, todo: int, locked: bool, counters: np.ndarray) -> bool:
    """Singles (and locked candidates and triads when ``locked``) to a fixed point; False on a
    contradiction. ``state``: a stack row (the triads keep their scratch after the state's
    words). ``todo``: the digits whose boards changed since the state was last at a fixed point. The
    cells placed are counted here and stored once into ``counters`` (a store per cell could
    alias the state for the compiler and cost a reload of it)."""
    naked = 0
    hidden = 0
    ok = True
    lock_todo = todo
    while ok:
        more, placed = naked_singles(state)
        naked += placed
        if more < 0:
            ok = False
            break
        todo |= more
        lock_todo |= more
        while todo:
            d = lowest_bit(todo)
            todo &= todo - 1
            more, placed = hidden_singles(state, d)
            hidden += placed
            if more < 0:
                ok = False
                break
            todo |= more
            lock_todo |= more
            if more:
                more, placed = naked_singles(state)
                naked += placed
                if more < 0:
                    ok = False
                    break
                todo |= more
                lock_todo |= more
        if not ok or not locked or state[SOLVED] & state[SOLVED + 1] & state[SOLVED + 2] == BAND:
            break  # (every cell placed: nothing left to eliminate)
        while lock_todo:
            d = lowest_bit(lock_todo)
            lock_todo &= lock_todo - 1
            if locked_candidates(state, d):
                todo |= 1 << d
        if todo == 0:
            todo = triads(state)
            if todo < 0:
                ok = False
                break
        if todo == 0:
            break
        lock_todo = todo
    counters[NAKED] += naked
    counters[HIDDEN] += hidden
    return ok


@njit(cache=True)
def branch_cell(state: np.ndarray) -> int:
    """The cell with two digits left whose digits the most peers still have, by the product
    of the two counts (either branch then removes the most; the product favours cells where
    both do), the first such cell on a tie; without one, the first cell with three digits
    left, else the first open cell; -1 when every cell is placed. On the hard sets this takes
    fewer nodes than the first two-digit cell, and the product fewer than the sum."""
    three = -1
    first = -1
    best = -1
    best_score = -1
    for b in range(3):
        open_cells = ~state[SOLVED + b] & BAND
        if open_cells == 0:
            continue
        once = 0
        twice = 0
        thrice = 0
        four = 0
        for d in range(N):
            w = state[d * 3 + b]
            four |= thrice & w
            thrice |= twice & w
            twice |= once & w
            once |= w
        exact = twice & ~thrice & open_cells
        while exact:
            bit = exact & -exact
            exact ^= bit
            shift = lowest_bit(bit)
            cell = 27 * b + shift
            column = shift % 9
            b1 = 1 if b == 0 else 0
            b2 = 1 if b == 2 else 2
            digits = 0
            for d in range(N):  # the cell's two digits, without a branch per digit
                digits |= (state[d * 3 + b] >> shift & 1) << d
            score = 1
            while digits:
                d = lowest_bit(digits)
                digits &= digits - 1
                # the other bands' peers are the cell's column: their bits summed by one multiply
                others = ((state[d * 3 + b1] >> column & THREE_ROWS)
                          + (state[d * 3 + b2] >> column & THREE_ROWS))
                score *= popcount(state[d * 3 + b] & PEER_WORDS[cell, b]) + (others * THREE_ROWS >> 18 & 7)
            if score > best_score:
                best_score = score
                best = cell
        exact = thrice & ~four & open_cells
        if three < 0 and exact:
            three = 27 * b + lowest_bit(exact)
        if first < 0:
            first = 27 * b + lowest_bit(open_cells)
    if best >= 0:
        return best
    return three if three >= 0 else first


@njit(cache=True)
def lowest_digit(state: np.ndarray, cell: int) -> int:
    b = cell // 27
    bit = 1 << (cell - 27 * b)
    d = 0
    while state[d * 3 + b] & bit == 0:
        d += 1
    return d


@njit(cache=True)
def write_values(state: np.ndarray, values: np.ndarray, row: int) -> None:
    """The placed digits of a complete state as values 1..9 into ``values[row]``."""
    for d in range(N):
        for b in range(3):
            w = state[d * 3 + b]
            while w:
                bit = w & -w
                w ^= bit
                values[row, 27 * b + lowest_bit(bit)] = d + 1


@njit(cache=True)
def initial_state(givens: np.ndarray, row: int, state: np.ndarray) -> int:
    """The state of the givens (uint8[rows, 81], 0 blank) of one row, every given placed; the
    digits changed, or -1 when two givens contradict each other."""
    for i in range(SOLVED):
        state[i] = BAND
    for b in range(3):
        state[SOLVED + b] = 0
    for cell in range(CELLS):
        given = int(givens[row, cell])
        if given and place(state, cell, given - 1) < 0:
            return -1
    return ALL_DIGITS


@njit(cache=True)
def search(stack: np.ndarray, todo: int, max_solutions: int, locked: bool,
           solution: np.ndarray, out_row: int, counters: np.ndarray) -> int:
    """Depth-first search from ``stack[0]`` (set up by the caller, ``todo`` its changed digits);
    the number of solutions found, at most ``max_solutions``; the first one's values go to
    ``solution[out_row]``."""
    found = 0
    depth = 0
    nodes = leaves = guesses = max_depth = 0  # stored once at the end, as in naked_singles
    while depth >= 0:
        state = stack[depth]
        nodes += 1
        cell = -1
        if propagate(state, todo, locked, counters):
            cell = branch_cell(state)
            if cell < 0:
                leaves += 1
                if found == 0:
                    write_values(state, solution, out_row)
                found += 1
                if found >= max_solutions:
                    break
        else:
            leaves += 1
        if cell >= 0:
            d = lowest_digit(state, cell)
            child = stack[depth + 1]
            for i in range(WORDS):
                child[i] = state[i]
            todo = place(child, cell, d)
            b = cell // 27
            state[d * 3 + b] &= ~(1 << (cell - 27 * b))  # the sibling keeps the other digits
            stack[depth, BRANCHED] = d
            depth += 1
            guesses += 1
            max_depth = max(max_depth, depth)
        else:
            depth -= 1
            if depth >= 0:
                todo = 1 << stack[depth, BRANCHED]
    counters[NODES] += nodes
    counters[LEAVES] += leaves
    counters[GUESSES] += guesses
    counters[MAX_DEPTH] = max(counters[MAX_DEPTH], max_depth)
    return found


@njit(cache=True)
def solve_one(givens: np.ndarray, max_solutions: int, locked: bool, solution: np.ndarray,
              counters: np.ndarray) -> int:
    """Search one grid (``givens`` uint8[1, 81]); first solution to ``solution[0]``; 0 when
    givens contradict each other."""
    stack = np.empty((STACK, ROW), np.int64)
    todo = initial_state(givens, 0, stack[0])
    if todo < 0:
        return 0
    return search(stack, todo, max_solutions, locked, solution, 0, counters)


@njit(cache=True)
def first_conflict(givens: np.ndarray, row: int) -> tuple[int, int]:
    """(cell, earlier peer) of the first repeated given of the row in reading order, or (-1, -1)."""
    for cell in range(CELLS):
        v = givens[row, cell]
        if v == 0:
            continue
        for p in range(cell):
            pb = p // 27
            if givens[row, p] == v and PEER_WORDS[cell, pb] >> (p - 27 * pb) & 1:
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
    check as the kind's ``verify`` (``solvers.sudoku.kernels.check_solution``).
    """
    stack = np.empty((STACK, ROW), np.int64)
    for i in range(givens.shape[0]):
        todo = initial_state(givens, i, stack[0])
        if todo < 0:  # placing the givens failed: find the pair to name, in reading order
            cell, peer = first_conflict(givens, i)
            faults[i, 0] = CONFLICT
            faults[i, 1] = cell
            faults[i, 2] = peer
            continue
        found[i] = search(stack, todo, max_solutions, locked, solutions, i, counters[i])
        if found[i] > 0:
            fault, where = kernels.check_solution(givens[i], solutions[i], UNITS)
            if fault != kernels.SOLUTION_OK:
                faults[i, 0] = WRONG_ANSWER
                faults[i, 1] = fault
                faults[i, 2] = where
