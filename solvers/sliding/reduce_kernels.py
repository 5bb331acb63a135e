"""Numba kernel of the reduction (reduce.py): the fewest blank moves that bring one or two tiles to
their cells without entering locked ones."""

from __future__ import annotations

import numpy as np

from solvers.sliding.kernels import Flags, Ints, jit, neighbours


@jit()
def place(board: Ints, locked: Flags, tiles: Ints, targets: Ints, k: int) -> Ints:
    """Fewest blank moves that bring ``tiles`` (one or two) to ``targets`` without entering a
    locked cell; ``board`` is moved along. Returns the directions, or -1 alone if impossible.

    A breadth-first search over (blank, tiles' cells) only: the other tiles are alike
    and follow. States are those cells as digits in base n (at most 64**3 for k = 8).
    """
    n = k * k
    m = tiles.size
    nbr = neighbours(k).ravel()
    size = n ** (m + 1)
    parent = np.full(size, -1, np.int64)
    queue = np.empty(size, np.int64)
    cells = np.empty(m + 1, np.int64)  # the tiles' cells, then the blank's
    for cell in range(n):
        for i in range(m):
            if board[cell] == tiles[i]:
                cells[i] = cell
        if board[cell] == 0:
            cells[m] = cell
    start = 0
    for i in range(m + 1):
        start = start * n + cells[i]
    parent[start] = start
    queue[0] = start
    head, tail, found = 0, 1, -1
    while head < tail and found < 0:
        state = queue[head]
        head += 1
        rest = state
        for i in range(m, -1, -1):
            cells[i] = rest % n
            rest //= n
        done = True
        for i in range(m):
            if cells[i] != targets[i]:
                done = False
        if done:
            found = state
            break
        blank = cells[m]
        for d in range(4):
            to = nbr[blank * 4 + d]
            if to < 0 or locked[to]:
                continue
            following = 0
            for i in range(m):
                following = following * n + (blank if cells[i] == to else cells[i])
            following = following * n + to
            if parent[following] < 0:
                parent[following] = state * 4 + d
                queue[tail] = following
                tail += 1
    if found < 0:
        return np.full(1, -1, np.int64)
    length = 0
    state = found
    while state != start:
        queue[length] = parent[state] % 4
        length += 1
        state = parent[state] // 4
    moves = queue[:length][::-1].copy()
    blank = start % n
    for d in moves:
        to = nbr[blank * 4 + d]
        board[blank] = board[to]
        board[to] = 0
        blank = to
    return moves
