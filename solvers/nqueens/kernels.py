"""Compiled hot loops of the n-Queens kind: tree counting, symmetric counting, Knuth probes.

Bitboards: bit c of a row word stands for column c. ``cols`` marks the occupied
columns, ``left`` the diagonals whose column grows by one per row (the word shifts
left going down a row), ``right`` those whose column shrinks (shifts right); the
free squares of the next row are ``mask & ~(cols | left | right)``. The words are
kept inside ``mask`` (n <= 63 bits), so the signed 64-bit arithmetic is the same
in numba and in plain Python (``NUMBA_DISABLE_JIT=1``); the one exception, ``left``
in ``complete``, carries bits past the board that are never read (shifted by fewer
than n rows in all, they stay below bit 2n, inside the 64 bits for the sizes counted).

``stop`` is the flag of solvers.base (float64[3]): once another thread sets ``stop[STOP]``
the counting and probe kernels return early with partial sums (the caller discards them).
They release the GIL (``nogil``) so that the thread setting it can run meanwhile. They
write how far they got into ``stop[DONE]`` and ``stop[NODES]`` (solvers/progress.py).

The random numbers of the probes come from splitmix64, written here on uint64, so
that compiled and interpreted runs draw the very same numbers. The caller runs the
probe kernel under ``np.errstate(over="ignore")``: the wrap-around of uint64
multiplication is intended, and plain-Python numpy would warn about it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solvers.base import DONE, NODES, STOP
from solvers.bits import nth_bit, popcount

Array = NDArray[Any]

# Columns of the per-block sums returned by probe_blocks.
PROBES, CHECKED, CHECKED_SQ, TREE, TREE_SQ, SOLUTIONS, SOLUTIONS_SQ, VISITED = range(8)
BLOCK_COLUMNS = 8

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)

# The counting kernels look at the stop flag, and report their progress, when the search climbs
# back above this many free rows below its root: a subtree hanging that deep is a small share of
# one root's search (the branching multiplies three times above it), while a look per node would
# be a visible share of the work.
STOP_CHECK_DEPTH = 3


# -- the backtracking step of the tree strategy
#
# A row's free squares are ~(cols | left | right | blocked): ``blocked`` holds the squares that
# fixed queens take in that row and every bit outside the board (~mask), so no mask is applied
# per node. Bits that ``left`` carries past the board are never read.


@njit(cache=True)
def _last_two(cols: int, left: int, right: int, avail: int, shift: int, last: int) -> tuple[int, int]:
    """(nodes, solutions) of the last two free rows, counted without a stack: ``avail`` the free
    squares of the first of them and the words as they stand there, ``shift`` the rows down to the
    last one and ``last`` its blocked word. The last row has at most one free square (one column
    is left), so each queen placed above it completes at most one solution."""
    nodes = 0
    solutions = 0
    while avail != 0:
        bit = avail & -avail
        avail ^= bit
        nodes += 1
        if ~(cols | bit | ((left | bit) << shift) | ((right | bit) >> shift) | last) != 0:
            nodes += 1
            solutions += 1
    return nodes, solutions


# ``complete`` keeps everything a free row needs in one frame of FRAME words, so that a single
# index reaches it: the four words saved when the search descends from the row, then the shift
# and blocked word of the step to the next row and of the step after it. The offsets are
# unsigned, as is the index they are added to: numba then indexes without testing for a
# negative index to wrap around, which would cost a compare per access.
FRAME = 8
SAVED_COLS, SAVED_LEFT, SAVED_RIGHT, SAVED_AVAIL, SHIFT_NEXT, BLOCKED_NEXT, SHIFT_AFTER, BLOCKED_AFTER = (
    np.uint64(i) for i in range(FRAME))


@njit(cache=True)
def set_frames(m: int, blocked: Array, shifts: Array, frames: Array) -> None:
    """The row plan into ``frames`` (int64[>= FRAME m]) for ``m`` free rows: for the k-th of them
    ``blocked[k]`` is its blocked word and ``shifts[k]`` the rows down to the next free row."""
    for k in range(m - 1):
        top = np.uint64(FRAME * k)
        frames[top + SHIFT_NEXT] = shifts[k]
        frames[top + BLOCKED_NEXT] = blocked[k + 1]
        if k + 2 < m:
            frames[top + SHIFT_AFTER] = shifts[k + 1]
            frames[top + BLOCKED_AFTER] = blocked[k + 2]


@njit(cache=True)
def _finished(frames: Array, first: int, level: int) -> float:
    """Kilby's weight of the finished subtrees below the root of ``complete``, the search standing
    at free row ``level`` (at most STOP_CHECK_DEPTH) having just finished a subtree: above it,
    each row's children tried before the one on the path; at it, those tried so far. A child
    weighs its parent's weight over the parent's number of children: ``first`` at the root, below
    it the free squares of the row as its saved words and the row's blocked word leave them (so
    the descent, the hot path, records nothing for this)."""
    weight = 1.0
    share = 0.0
    for k in range(level + 1):
        top = np.uint64(FRAME * k)
        children = first
        if k > 0:
            above = np.uint64(FRAME * (k - 1))
            taken = frames[top + SAVED_COLS] | frames[top + SAVED_LEFT] | frames[top + SAVED_RIGHT]
            children = popcount(~(taken | frames[above + BLOCKED_NEXT]))
        left = popcount(frames[top + SAVED_AVAIL]) + (1 if k < level else 0)
        share += weight * (children - left) / children
        weight /= children
    return share


@njit(cache=True)
def complete(m: int, frames: Array, cols: int, left: int, right: int, avail: int,
             stop: Array, end: float) -> tuple[int, int]:
    """(nodes, solutions) below one node, which is not counted itself.

    ``m`` free rows are left to fill, from the top, as ``set_frames`` planned them in
    ``frames`` (fixed queens' rows are stepped over, so they cost nothing); ``cols``, ``left``
    and ``right`` are the words of the placed queens as they stand at the first free row,
    ``avail`` its free squares. The current node lives in locals, its ancestors in the frames;
    a node is saved only when some square below it is free and more than two free rows are
    left. Once ``stop[STOP]`` is set the sums are partial.

    Progress: ``stop[DONE]`` and ``stop[NODES]`` hold the whole search's share finished and
    nodes searched before this one, which finishes it up to ``end``; climbing back to one of
    the STOP_CHECK_DEPTH top rows it moves them by its finished weight (``_finished``) and its
    nodes.
    """
    if m == 1:
        found = popcount(avail)
        return found, found
    if m == 2:
        return _last_two(cols, left, right, avail, frames[SHIFT_NEXT], frames[BLOCKED_NEXT])
    frame = np.uint64(FRAME)
    root = np.uint64(0)
    last = np.uint64(FRAME * (m - 3))
    check_below = np.uint64(FRAME * STOP_CHECK_DEPTH)
    done_before = stop[DONE]
    nodes_before = stop[NODES]
    first = popcount(avail)
    nodes = 0
    solutions = 0
    top = root  # the frame of the current row
    while True:
        if avail != 0:
            bit = avail & -avail
            avail ^= bit
            nodes += 1
            s = frames[top + SHIFT_NEXT]
            nc = cols | bit
            nl = (left | bit) << s
            nr = (right | bit) >> s
            below = ~(nc | nl | nr | frames[top + BLOCKED_NEXT])
            if top == last:
                more, found = _last_two(nc, nl, nr, below, frames[top + SHIFT_AFTER],
                                        frames[top + BLOCKED_AFTER])
                nodes += more
                solutions += found
            elif below != 0:
                frames[top + SAVED_COLS] = cols
                frames[top + SAVED_LEFT] = left
                frames[top + SAVED_RIGHT] = right
                frames[top + SAVED_AVAIL] = avail
                top += frame
                cols = nc
                left = nl
                right = nr
                avail = below
        elif top == root:
            break
        else:
            top -= frame
            if top < check_below:
                if stop[STOP]:
                    break
                stop[NODES] = nodes_before + nodes
                # The same weight summed in another order may come out an ulp lower: never back.
                share = min(done_before + (end - done_before) * _finished(frames, first, top // frame), end)
                if share > stop[DONE]:
                    stop[DONE] = share
            cols = frames[top + SAVED_COLS]
            left = frames[top + SAVED_LEFT]
            right = frames[top + SAVED_RIGHT]
            avail = frames[top + SAVED_AVAIL]
    return nodes, solutions


# -- counting the whole row-by-row tree below given prefixes


@njit(cache=True, nogil=True)
def count_subtrees(n: int, prefixes: Array, weights: Array, stop: Array, bounds: Array) -> tuple[int, int]:
    """Weighted sums over the prefixes of (nodes of the subtree rooted at the prefix, solutions in it).

    ``prefixes[p]`` holds the columns of the queens in rows 0..k-1 (a valid partial
    placement); the subtree includes the prefix node itself. Every row below is free
    (nothing blocked but the bits outside the board, one row apart) and filled by
    ``complete``. Returns partial sums once ``stop[STOP]`` is set. Prefix p stands for
    ``bounds[p] .. bounds[p + 1]`` of the search (solvers/progress.py); ``stop[NODES]`` counts
    the nodes searched, each subtree once.
    """
    mask = (np.int64(1) << n) - 1
    k = prefixes.shape[1]
    frames = np.zeros(FRAME * n, np.int64)
    set_frames(n, np.full(n, ~mask, np.int64), np.ones(n, np.int64), frames)
    total_nodes = 0
    total_solutions = 0
    searched = 0
    for p in range(prefixes.shape[0]):
        if stop[STOP]:
            break
        c = np.int64(0)
        lft = np.int64(0)
        rgt = np.int64(0)
        for row in range(k):
            bit = np.int64(1) << prefixes[p, row]
            c |= bit
            lft = ((lft | bit) << 1) & mask
            rgt = (rgt | bit) >> 1
        nodes = 1
        solutions = 1
        stop[NODES] = searched + 1
        stop[DONE] = bounds[p]
        if k < n:
            below, solutions = complete(n - k, frames, c, lft, rgt, ~(c | lft | rgt | ~mask), stop,
                                        bounds[p + 1])
            nodes += below
        searched += nodes
        stop[NODES] = searched
        stop[DONE] = bounds[p + 1]
        total_nodes += weights[p] * nodes
        total_solutions += weights[p] * solutions
    return total_nodes, total_solutions


# -- solutions that a rotation maps onto themselves (for Burnside's class count)


@njit(cache=True)
def _orbit(n: int, row: int, col: int, quarter: bool, rows: Array, cols: Array) -> int:
    """The squares that the quarter (or half) turn sends (row, col) to; returns their number (1, 2 or 4)."""
    size = 0
    r = row
    c = col
    while True:
        rows[size] = r
        cols[size] = c
        size += 1
        if quarter:
            r, c = c, n - 1 - r
        else:
            r, c = n - 1 - r, n - 1 - c
        if r == row and c == col:
            return size


@njit(cache=True)
def _mark(n: int, r: int, c: int, value: bool, row_used: Array, col_used: Array, down: Array,
          up: Array) -> None:
    row_used[r] = value
    col_used[c] = value
    down[r + c] = value
    up[r - c + n - 1] = value


@njit(cache=True)
def _place_orbit(n: int, size: int, rows: Array, cols: Array, row_used: Array, col_used: Array,
                 down: Array, up: Array) -> bool:
    """Put a queen on every square of the orbit, or on none if any square is attacked."""
    for i in range(size):
        r = rows[i]
        c = cols[i]
        if row_used[r] or col_used[c] or down[r + c] or up[r - c + n - 1]:
            for j in range(i):
                _mark(n, rows[j], cols[j], False, row_used, col_used, down, up)
            return False
        _mark(n, r, c, True, row_used, col_used, down, up)
    return True


@njit(cache=True)
def count_rotation_fixed(n: int, quarter: bool) -> int:
    """Number of solutions unchanged by a quarter turn (quarter=True) or by a half turn.

    Fills the lowest empty row, placing the whole orbit of each queen at once; each
    level fills at least one new row, so the stack never exceeds n entries.
    """
    row_used = np.zeros(n, np.bool_)
    col_used = np.zeros(n, np.bool_)
    down = np.zeros(2 * n, np.bool_)
    up = np.zeros(2 * n, np.bool_)
    level_row = np.zeros(n, np.int64)
    level_col = np.zeros(n, np.int64)
    orbit_rows = np.zeros(4, np.int64)
    orbit_cols = np.zeros(4, np.int64)
    count = 0
    depth = 0
    level_row[0] = 0
    level_col[0] = -1
    while depth >= 0:
        r = level_row[depth]
        c = level_col[depth]
        if c >= 0:
            size = _orbit(n, r, c, quarter, orbit_rows, orbit_cols)
            for i in range(size):
                _mark(n, orbit_rows[i], orbit_cols[i], False, row_used, col_used, down, up)
        c += 1
        while c < n:
            size = _orbit(n, r, c, quarter, orbit_rows, orbit_cols)
            if _place_orbit(n, size, orbit_rows, orbit_cols, row_used, col_used, down, up):
                break
            c += 1
        if c == n:
            depth -= 1
            continue
        level_col[depth] = c
        nxt = r + 1
        while nxt < n and row_used[nxt]:
            nxt += 1
        if nxt == n:
            count += 1
        else:
            depth += 1
            level_row[depth] = nxt
            level_col[depth] = -1
    return count


# -- Knuth's probes


@njit(cache=True)
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def _below(state: np.uint64, m: int) -> tuple[np.uint64, np.int64]:
    """(new state, uniform integer in [0, m)) for 1 <= m < 2**32, exact by rejection (Lemire)."""
    bound = np.uint64(m)
    state = state + _GOLDEN
    product = (_mix(state) >> _S32) * bound
    if (product & _LOW32) < bound:
        # Only here can the draw land in the short remainder that would bias it; the
        # division is paid on this rare path alone.
        threshold = (_TWO32 - bound) % bound
        while (product & _LOW32) < threshold:
            state = state + _GOLDEN
            product = (_mix(state) >> _S32) * bound
    return state, np.int64(product >> _S32)


@njit(cache=True, nogil=True)
def probe_blocks(n: int, seed: int, first_block: int, blocks: int, probes: int, block_size: int,
                 stop: Array) -> Array:
    """Per-block sums of Knuth's probes; block b runs its own splitmix64 stream seeded by (seed, b).

    Each probe follows the seed's pseudocode: at every level all n squares of the
    next row are checked (``checked`` grows by n times the product of the degrees so
    far), the promising ones are counted, one is chosen at random. It also forms
    Knuth's tree-size estimate 1 + d1 + d1*d2 + ... and the solution estimate
    d1*...*dn. Products of degrees exceed int64 for large n: floats throughout.
    The stop flag is looked at before each block (a block takes milliseconds); the share of
    the blocks done goes into ``stop[DONE]`` after each.
    """
    mask = (np.int64(1) << n) - 1
    out = np.zeros((blocks, BLOCK_COLUMNS), np.float64)
    for b in range(blocks):
        if stop[STOP]:
            break
        block = first_block + b
        state = _mix(np.uint64(seed) + _GOLDEN * np.uint64(block + 1))
        count = min(block_size, probes - block * block_size)
        for _ in range(count):
            cols = np.int64(0)
            left = np.int64(0)
            right = np.int64(0)
            checked = 1.0
            product = 1.0
            tree = 1.0
            visited = 1
            m = 1
            row = 0
            while m != 0 and row != n:
                checked += product * n
                free = mask & ~(cols | left | right)
                m = popcount(free)
                row += 1
                if m != 0:
                    pick = 0
                    if m > 1:
                        state, pick = _below(state, m)
                    bit = nth_bit(free, pick)
                    cols |= bit
                    left = ((left | bit) << 1) & mask
                    right = (right | bit) >> 1
                    product *= m
                    tree += product
                    visited += 1
            solutions = product if (row == n and m != 0) else 0.0
            out[b, PROBES] += 1.0
            out[b, CHECKED] += checked
            out[b, CHECKED_SQ] += checked * checked
            out[b, TREE] += tree
            out[b, TREE_SQ] += tree * tree
            out[b, SOLUTIONS] += solutions
            out[b, SOLUTIONS_SQ] += solutions * solutions
            out[b, VISITED] += visited
        stop[NODES] += out[b, VISITED]
        stop[DONE] = (b + 1) / blocks
    return out
