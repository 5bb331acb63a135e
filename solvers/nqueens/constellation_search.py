"""The compiled search that counts the completions of one constellation: the free rows are filled
one at a time, always the row with the fewest free squares next.

  free rows   the rows without a constellation queen; as many columns are free.
  word        the free squares of a free row, bit c for column c: not in a taken column, not on
              a taken diagonal, not blocked by the constellation (its ``blocked`` word).
  diagonals   ``down`` holds bit r + c for every placed queen (r, c), ``up`` bit c - r + n - 1:
              row r's attacked columns are then ``down >> r`` and ``up >> (n - 1 - r)``, whatever
              the order the rows are filled in (indices stay below 2n - 1 <= 63 bits).

After each placement every free row left is looked at: a row with no free square ends the branch
(a dead end is found up to several rows before the search would reach it), and the row with the
fewest is filled next (a forced square is taken at once). Against filling rows from the top this
searches about a third of the placements for a few more operations each (bench/nqueens.py). The
last two free rows are counted in closed form (``_two_rows``).

The search keeps its current node in locals and its ancestors on ``stack``; the free rows still to
fill are ``rows[k + 1:]``, the row chosen next swapped into place. Indices are unsigned so that
numba does not test them for negative wrap-around, as in kernels.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solvers.bits import popcount
from solvers.nqueens.kernels import STOP_CHECK_DEPTH

Array = NDArray[Any]

STACK = np.uint64(4)  # the words saved per depth: columns, down, up, the squares left to try
_COLS, _DOWN, _UP, _AVAIL = (np.uint64(i) for i in range(4))
_ONE = np.uint64(1)
_INDEX_BITS = 6       # a row's sort key: its free squares above the row's index (< 64)


@njit(cache=True)
def _word(cols: int, down: int, up: int, row: int, last: int, blocked: Array) -> int:
    """The free squares of ``row`` (``last`` = n - 1)."""
    return ~(cols | (down >> row) | (up >> (last - row)) | int(blocked[np.uint64(row)]))


@njit(cache=True)
def _two_rows(cols: int, down: int, up: int, p: int, q: int, last: int, blocked: Array) -> int:
    """Solutions of the last two free rows p and q, without placing: two columns are left, and
    each row's free squares lie in them. There are two ways to give the columns to the rows; a way
    counts if both its squares are free, and neither does if the two columns lie as far apart as
    the rows (both ways would put the queens on one diagonal)."""
    in_p = _word(cols, down, up, p, last, blocked)
    in_q = _word(cols, down, up, q, last, blocked)
    both = in_p | in_q
    low = both & -both
    high = both ^ low
    apart = p - q if p > q else q - p
    fits = int((high != 0) & ((low << apart) != high))
    ways = int(((in_p & low) != 0) & ((in_q & high) != 0)) + int(((in_p & high) != 0) & ((in_q & low) != 0))
    return fits * ways


@njit(cache=True)
def _take(rows: Array, to: np.uint64, key: int) -> int:
    """Swap the row that ``key`` names into ``rows[to]``; returns it."""
    pick = np.uint64(key & ((1 << _INDEX_BITS) - 1))
    row = rows[pick]
    rows[pick] = rows[to]
    rows[to] = row
    return int(row)


@njit(cache=True)
def fill(n: int, m: int, rows: Array, blocked: Array, stack: Array, words: Array,
         stop: Array) -> tuple[int, int]:
    """(nodes, solutions) of filling the ``m`` free rows ``rows[:m]`` (reordered in place) of a
    board whose fixed queens block ``blocked[r]`` in row r (with every bit outside the board).
    The fixed queens' columns are blocked in every free row, so that m columns are left.

    Nodes are the placements made, the last two rows counting two per solution found there.
    ``stack`` holds STACK x m words, ``words`` m. Returns partial sums once ``stop[0]`` is set.
    """
    last = n - 1
    if m == 0:
        return 0, 1
    if m == 1:
        found = popcount(~blocked[np.uint64(rows[0])])
        return found, found
    if m == 2:
        found = _two_rows(0, 0, 0, rows[0], rows[1], last, blocked)
        return 2 * found, found
    key = 1 << 20
    for i in range(m):
        key = min(key, (popcount(~blocked[np.uint64(rows[i])]) << _INDEX_BITS) | i)
    depth = np.uint64(0)
    row = _take(rows, depth, key)
    avail = ~blocked[np.uint64(row)]
    cols = 0
    down = 0
    up = 0
    end = np.uint64(m)
    closing = np.uint64(m - 3)  # a placement at this depth leaves the last two rows
    check_below = np.uint64(STOP_CHECK_DEPTH)
    nodes = 0
    solutions = 0
    while True:
        if avail != 0:
            bit = avail & -avail
            avail ^= bit
            nodes += 1
            nc = cols | bit
            nd = down | (bit << row)
            nu = up | (bit << (last - row))
            if depth == closing:
                found = _two_rows(nc, nd, nu, rows[end - _ONE - _ONE], rows[end - _ONE], last, blocked)
                solutions += found
                nodes += 2 * found
                continue
            key = 1 << 20
            at = depth + _ONE
            while at < end:
                word = _word(nc, nd, nu, rows[at], last, blocked)
                words[at] = word
                key = min(key, (popcount(word) << _INDEX_BITS) | int(at))
                at += _ONE
            if key >> _INDEX_BITS != 0:  # no row left without a free square
                save = STACK * depth
                stack[save + _COLS] = cols
                stack[save + _DOWN] = down
                stack[save + _UP] = up
                stack[save + _AVAIL] = avail
                depth += _ONE
                avail = words[np.uint64(key & ((1 << _INDEX_BITS) - 1))]
                row = _take(rows, depth, key)
                cols = nc
                down = nd
                up = nu
        elif depth == 0:
            break
        else:
            depth -= _ONE
            if depth < check_below and stop[0]:
                break
            save = STACK * depth
            cols = stack[save + _COLS]
            down = stack[save + _DOWN]
            up = stack[save + _UP]
            avail = stack[save + _AVAIL]
            row = rows[depth]
    return nodes, solutions
