"""The compiled search that counts the completions of one constellation: the free rows are filled
one at a time, always the row with the fewest free squares next.

  free rows   the rows without a constellation queen; as many columns are free.
  word        the free squares of a free row, bit c for column c: not in a taken column, not on
              a taken diagonal, not blocked by the constellation (its ``blocked`` word).
  diagonals   ``down`` holds bit r + c for every placed queen (r, c), ``up`` bit c - r + n - 1:
              row r's attacked columns are then ``down >> r`` and ``up >> (n - 1 - r)``, whatever
              the order the rows are filled in (indices stay below 2n - 1 <= 63 bits).

After each placement every free row left is looked at: a row with no free square, or a free
column with a free square in no row, ends the branch (a dead end is found up to several rows
before the search would reach it), and the row with the fewest is filled next (a forced square is
taken at once; a tie goes to the row nearest the middle). Against filling rows from the top this
searches about a quarter of the placements for a few more operations each (bench/nqueens.py). The
last five free rows are counted without the stack: each free square of the row with the fewest in
turn, its attacks taken off the other rows' words (``_five``, ``_four``, ``_three_rows``), and the
last two rows in closed form (``_pair``).

The search keeps its current node in locals and its ancestors on ``stack``; the free rows still to
fill are the bits of ``left``, each an index into ``rows`` (put in order from the middle out, so
that the lowest index breaks a tie) and ``words``. Indices are unsigned so that numba does not
test them for negative wrap-around, as in kernels.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solvers.bits import lowest_bit, popcount
from solvers.nqueens.kernels import STOP_CHECK_DEPTH

Array = NDArray[Any]

STACK = np.uint64(5)  # the words saved per depth: columns, down, up, the squares left to try, the index
_COLS, _DOWN, _UP, _AVAIL, _INDEX = (np.uint64(i) for i in range(5))
_ONE = np.uint64(1)
_BLOCKED = np.uint64(64)  # words[_BLOCKED + i]: the blocked word of rows[i], beside its free squares
WORDS = 2 * int(_BLOCKED)  # the length of ``words``: one base address for both (fewer registers)
_INDEX_BITS = 6       # a row's sort key: its free squares above the row's index (< 64)


@njit(cache=True)
def _word(cols: int, down: int, up: int, row: int, last: int, blocked: int) -> int:
    """The free squares of ``row`` (``last`` = n - 1), whose blocked word is ``blocked``."""
    return ~(cols | (down >> row) | (up >> (last - row)) | blocked)


@njit(cache=True)
def _pair(in_p: int, in_q: int, apart: int) -> int:
    """Solutions of the last two free rows, ``apart`` rows from each other, whose free squares are
    ``in_p`` and ``in_q``, without placing: two columns are left, and each row's free squares lie
    in them. There are two ways to give the columns to the rows; a way counts if both its squares
    are free, and neither does if the two columns lie as far apart as the rows (both ways would put
    the queens on one diagonal)."""
    both = in_p | in_q
    low = both & -both
    high = both ^ low
    fits = int((high != 0) & ((low << apart) != high))
    ways = int(((in_p & low) != 0) & ((in_q & high) != 0)) + int(((in_p & high) != 0) & ((in_q & low) != 0))
    return fits * ways


@njit(cache=True)
def _apart(p: int, q: int) -> int:
    """How many rows lie between rows p and q, plus one."""
    return p - q if p > q else q - p


@njit(cache=True)
def _two_rows(cols: int, down: int, up: int, p: int, q: int, last: int, blocked: Array) -> int:
    """Solutions of the last two free rows p and q (``_pair``)."""
    return _pair(_word(cols, down, up, p, last, blocked[np.uint64(p)]),
                 _word(cols, down, up, q, last, blocked[np.uint64(q)]), _apart(p, q))


@njit(cache=True)
def _spared(word: int, bit: int, apart: int) -> int:
    """The squares of ``word`` left free by a queen ``bit`` in a row ``apart`` rows away."""
    return word & ~(bit | (bit << apart) | (bit >> apart))


@njit(cache=True)
def _three(in_p: int, p: int, in_q: int, q: int, in_r: int, r: int) -> int:
    """Solutions of the last three free rows p, q and r, whose free squares are ``in_p``, ``in_q``
    and ``in_r``, without placing: each free square of row p in turn, the two rows left counted by
    ``_pair``."""
    to_q = _apart(p, q)
    to_r = _apart(p, r)
    apart = _apart(q, r)
    found = 0
    while in_p != 0:
        bit = in_p & -in_p
        in_p ^= bit
        found += _pair(_spared(in_q, bit, to_q), _spared(in_r, bit, to_r), apart)
    return found


@njit(cache=True, inline="always")
def _three_rows(in_p: int, p: int, in_q: int, q: int, in_r: int, r: int) -> tuple[int, int]:
    """(nodes, solutions) of the last three free rows (``_three``), the row with the fewest free
    squares taken first. Nodes as ``fill`` counts them."""
    a, b, c = popcount(in_p), popcount(in_q), popcount(in_r)
    if b < a and b <= c:
        in_p, p, in_q, q, a = in_q, q, in_p, p, b
    elif c < a and c < b:
        in_p, p, in_r, r, a = in_r, r, in_p, p, c
    found = _three(in_p, p, in_q, q, in_r, r)
    return a + 2 * found, found


@njit(cache=True, inline="always")
def _four(in_p: int, p: int, in_q: int, q: int, in_r: int, r: int, in_s: int, s: int,
          free: int) -> tuple[int, int]:
    """(nodes, solutions) of the last four free rows p, q, r and s, whose free squares are
    ``in_p`` .. ``in_s`` and free columns ``free``: each free square of row p in turn, its attacks
    taken off the other rows' squares, the three rows left counted by ``_three_rows`` unless a
    column is left without a free square. Nodes as ``fill`` counts them."""
    to_q, to_r, to_s = _apart(p, q), _apart(p, r), _apart(p, s)
    nodes = 0
    found = 0
    while in_p != 0:
        bit = in_p & -in_p
        in_p ^= bit
        nodes += 1
        left_q, left_r, left_s = _spared(in_q, bit, to_q), _spared(in_r, bit, to_r), _spared(in_s, bit, to_s)
        if left_q | left_r | left_s == free ^ bit:
            placed, solutions = _three_rows(left_q, q, left_r, r, left_s, s)
            nodes += placed
            found += solutions
    return nodes, found


@njit(cache=True, inline="always")
def _five(in_p: int, p: int, in_q: int, q: int, in_r: int, r: int, in_s: int, s: int, in_t: int, t: int,
          free: int) -> tuple[int, int]:
    """(nodes, solutions) of the last five free rows, as ``_four``: the four rows left counted by
    ``_four``, the one with the fewest free squares first (the first of a tie, as in ``fill``)."""
    to_q, to_r, to_s, to_t = _apart(p, q), _apart(p, r), _apart(p, s), _apart(p, t)
    nodes = 0
    found = 0
    while in_p != 0:
        bit = in_p & -in_p
        in_p ^= bit
        nodes += 1
        w1, w2 = _spared(in_q, bit, to_q), _spared(in_r, bit, to_r)
        w3, w4 = _spared(in_s, bit, to_s), _spared(in_t, bit, to_t)
        if w1 | w2 | w3 | w4 != free ^ bit:
            continue
        r1, r2, r3, r4 = q, r, s, t
        c1, c2, c3, c4 = popcount(w1), popcount(w2), popcount(w3), popcount(w4)
        if c2 < c1:
            w1, r1, c1, w2, r2 = w2, r2, c2, w1, r1
        if c3 < c1:
            w1, r1, c1, w3, r3 = w3, r3, c3, w1, r1
        if c4 < c1:
            w1, r1, w4, r4 = w4, r4, w1, r1
        placed, solutions = _four(w1, r1, w2, r2, w3, r3, w4, r4, free ^ bit)
        nodes += placed
        found += solutions
    return nodes, found


@njit(cache=True, inline="always")
def _next(left: int) -> tuple[np.uint64, int]:
    """(the lowest index in the set ``left``, the set without it)."""
    return np.uint64(lowest_bit(left)), left & (left - 1)


@njit(cache=True, inline="always")
def _four_rows(rows: Array, words: Array, left: int, key: int, free: int) -> tuple[int, int]:
    """``_four`` of the last four free rows, ``left`` their indices in ``rows`` and ``words``, the
    row ``key`` names first."""
    pick = np.uint64(key & ((1 << _INDEX_BITS) - 1))
    i, left = _next(left ^ (1 << int(pick)))
    j, left = _next(left)
    k, left = _next(left)
    return _four(words[pick], rows[pick], words[i], rows[i], words[j], rows[j], words[k], rows[k], free)


@njit(cache=True, inline="always")
def _five_rows(rows: Array, words: Array, left: int, key: int, free: int) -> tuple[int, int]:
    """``_five`` of the last five free rows, ``left`` their indices in ``rows`` and ``words``, the
    row ``key`` names first."""
    pick = np.uint64(key & ((1 << _INDEX_BITS) - 1))
    i, left = _next(left ^ (1 << int(pick)))
    j, left = _next(left)
    k, left = _next(left)
    h, left = _next(left)
    return _five(words[pick], rows[pick], words[i], rows[i], words[j], rows[j], words[k], rows[k],
                 words[h], rows[h], free)


@njit(cache=True)
def _middle_first(rows: Array, m: int, last: int) -> None:
    """Order ``rows[:m]`` from the middle of the board out (a stable insertion sort): a tie between
    rows with as many free squares goes to the first, the one nearer the middle, whose diagonals
    reach the most rows."""
    for i in range(1, m):
        row = rows[i]
        j = i
        while j > 0 and abs(2 * rows[j - 1] - last) > abs(2 * row - last):
            rows[j] = rows[j - 1]
            j -= 1
        rows[j] = row


@njit(cache=True)
def fill(n: int, m: int, rows: Array, blocked: Array, stack: Array, words: Array,
         stop: Array) -> tuple[int, int]:
    """(nodes, solutions) of filling the ``m`` free rows ``rows[:m]`` (reordered in place) of a
    board whose fixed queens block ``blocked[r]`` in row r (with every bit outside the board).
    The fixed queens' columns are blocked in every free row, so that m columns are left.

    Nodes are the placements made, the last two rows counting two per solution found there.
    ``stack`` holds STACK x m words, ``words`` WORDS. Returns partial sums once ``stop[0]`` is set.
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
    _middle_first(rows, m, last)
    key = 1 << 20
    taken = -1  # the columns blocked in every free row: the fixed queens' and the bits outside
    for i in range(m):
        taken &= blocked[np.uint64(rows[i])]
        words[_BLOCKED + np.uint64(i)] = blocked[np.uint64(rows[i])]
        words[i] = ~blocked[np.uint64(rows[i])]
        key = min(key, (popcount(words[i]) << _INDEX_BITS) | i)
    left = (1 << m) - 1  # bit i: rows[i] is still to fill
    if m == 3:
        return _three_rows(words[0], rows[0], words[1], rows[1], words[2], rows[2])
    if m == 4:
        return _four_rows(rows, words, left, key, ~taken)
    if m == 5:
        return _five_rows(rows, words, left, key, ~taken)
    index = key & ((1 << _INDEX_BITS) - 1)
    left ^= 1 << index
    avail = words[np.uint64(index)]
    row = rows[np.uint64(index)]
    cols = 0
    down = 0
    up = 0
    depth = np.uint64(0)
    closing = np.uint64(m - 6)  # a placement at this depth leaves the last five rows
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
            key = 1 << 20
            reached = nc | taken
            scan = left
            while scan != 0:
                i = lowest_bit(scan)
                scan &= scan - 1
                at = np.uint64(i)
                word = _word(nc, nd, nu, rows[at], last, words[_BLOCKED + at])
                words[at] = word
                reached |= word
                key = min(key, (popcount(word) << _INDEX_BITS) | i)
            if key >> _INDEX_BITS == 0 or reached != -1:  # a row or a column without a free square
                continue
            if depth == closing:
                placed, found = _five_rows(rows, words, left, key, ~(nc | taken))
                nodes += placed
                solutions += found
                continue
            save = STACK * depth
            stack[save + _COLS] = cols
            stack[save + _DOWN] = down
            stack[save + _UP] = up
            stack[save + _AVAIL] = avail
            stack[save + _INDEX] = index
            depth += _ONE
            index = key & ((1 << _INDEX_BITS) - 1)
            left ^= 1 << index
            avail = words[np.uint64(index)]
            row = rows[np.uint64(index)]
            cols = nc
            down = nd
            up = nu
        elif depth == 0:
            break
        else:
            left |= 1 << index
            depth -= _ONE
            if depth < check_below and stop[0]:
                break
            save = STACK * depth
            cols = stack[save + _COLS]
            down = stack[save + _DOWN]
            up = stack[save + _UP]
            avail = stack[save + _AVAIL]
            index = stack[save + _INDEX]
            row = rows[np.uint64(index)]
    return nodes, solutions
