"""Numba kernels of the forcing chains (forcing.py): SE's doChaining on arrays, and the count
of a node's ancestors.

  source   int64[81]: the candidate masks the assumption starts from.
  present  bool[NODES]: the nodes made true or false (chains.py's numbering).
  parents  int64[NODES, WIDTH]: each present node's parents, ``count[n]`` of them (a removed
           candidate a dynamic link rests on is a parent: at most the link's node and the
           eight other places of a unit or digits of a cell).

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.sudoku import gradek

NODES = 81 * 18
WIDTH = 10


def _regions() -> np.ndarray:
    """int64[81, 3, 9]: each cell's box, row and column (SE's order of regions)."""
    out = np.zeros((81, 3, 9), np.int64)
    for cell in range(81):
        for k, which in enumerate((2, 0, 1)):
            out[cell, k] = gradek.UNITS[gradek.CELL_UNITS[cell, which]]
    return out


REGIONS = _regions()
BOX = gradek.CELL_UNITS[:, 2].copy()


@njit(cache=True)
def _pop(m: int) -> int:
    """The number of set bits of ``m``."""
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@njit(cache=True)
def _add(n: int, parent: int, present: np.ndarray, parents: np.ndarray, count: np.ndarray,
         queue: np.ndarray, tail: int) -> int:
    """Record node ``n`` with one parent and queue it; the queue's tail after."""
    present[n] = True
    parents[n, 0] = parent
    count[n] = 1
    queue[tail] = n
    return tail + 1


@njit(cache=True)
def _made_on(grid: np.ndarray, source: np.ndarray, p: int, y: bool, made: np.ndarray,
             rows: np.ndarray, sizes: np.ndarray) -> int:
    """The nodes made true by ``p`` (off) on ``grid``, each with its parents (``p`` and the
    candidates of ``source`` missing from ``grid`` that the link rests on); their number."""
    cell = p // 18
    d = p % 18 // 2
    k = 0
    if y and _pop(grid[cell]) == 2:
        other = grid[cell] & ~(1 << d)
        v = 0
        while not other >> v & 1:
            v += 1
        made[k] = cell * 18 + v * 2 + 1
        rows[k, 0] = p
        sizes[k] = 1
        for w in range(9):
            if source[cell] >> w & 1 and not grid[cell] >> w & 1:
                rows[k, sizes[k]] = cell * 18 + w * 2
                sizes[k] += 1
        k += 1
    for r in range(3):
        found = -1
        many = False
        for i in range(9):
            c = REGIONS[cell, r, i]
            if c != cell and grid[c] >> d & 1:
                many = found >= 0
                found = c
                if many:
                    break
        if found < 0 or many:
            continue
        q = found * 18 + d * 2 + 1
        seen = False
        for j in range(k):
            seen = seen or made[j] == q
        if seen:
            continue
        made[k] = q
        rows[k, 0] = p
        sizes[k] = 1
        for i in range(9):
            c = REGIONS[cell, r, i]
            if source[c] >> d & 1 and not grid[c] >> d & 1:
                rows[k, sizes[k]] = c * 18 + d * 2
                sizes[k] += 1
        k += 1
    return k


@njit(cache=True)
def propagate(source: np.ndarray, start: int, dynamic: bool, y: bool, present: np.ndarray,
              parents: np.ndarray, count: np.ndarray, on_queue: np.ndarray,
              off_queue: np.ndarray) -> tuple[int, int, int, int]:
    """SE's doChaining from ``start``: fills ``present``, ``parents`` and ``count`` (cleared
    here) and the true and the false nodes in the order found (``on_queue``, ``off_queue``);
    returns (late, early, trues, falses): the contradiction's node that arrived last (its
    parents recorded though it is not marked present) and its negation, or (-1, -1), and the
    numbers of true and false nodes."""
    present[:] = False
    count[:] = 0
    grid = source.copy()
    on_head = on_tail = off_head = off_tail = 0
    present[start] = True
    if start & 1:
        on_queue[0] = start
        on_tail = 1
    else:
        off_queue[0] = start
        off_tail = 1
    made = np.empty(4, np.int64)
    rows = np.empty((4, WIDTH), np.int64)
    sizes = np.empty(4, np.int64)
    while on_head < on_tail or off_head < off_tail:
        if on_head < on_tail:
            p = on_queue[on_head]
            on_head += 1
            cell = p // 18
            d = p % 18 // 2
            if y:
                for v in range(9):
                    if v != d and grid[cell] >> v & 1:
                        q = cell * 18 + v * 2
                        if present[q + 1]:
                            parents[q, 0] = p
                            count[q] = 1
                            return q, q + 1, on_tail, off_tail
                        if not present[q]:
                            off_tail = _add(q, p, present, parents, count, off_queue, off_tail)
            for r in range(3):
                for i in range(9):
                    c = REGIONS[cell, r, i]
                    if c == cell or not grid[c] >> d & 1 or (r > 0 and BOX[c] == BOX[cell]):
                        continue
                    q = c * 18 + d * 2
                    if present[q + 1]:
                        parents[q, 0] = p
                        count[q] = 1
                        return q, q + 1, on_tail, off_tail
                    if not present[q]:
                        off_tail = _add(q, p, present, parents, count, off_queue, off_tail)
            continue
        p = off_queue[off_head]
        off_head += 1
        k = _made_on(grid, source if dynamic else grid, p, y, made, rows, sizes)
        if dynamic:
            grid[p // 18] &= ~(1 << (p % 18 // 2))
        for j in range(k):
            q = made[j]
            if present[q] or present[q - 1]:
                if not present[q]:
                    parents[q, :sizes[j]] = rows[j, :sizes[j]]
                    count[q] = sizes[j]
                    return q, q - 1, on_tail, off_tail
                continue
            on_tail = _add(q, p, present, parents, count, on_queue, on_tail)
            parents[q, :sizes[j]] = rows[j, :sizes[j]]
            count[q] = sizes[j]
    return -1, -1, on_tail, off_tail


@njit(cache=True)
def ancestors(n: int, parents: np.ndarray, count: np.ndarray) -> int:
    """The distinct nodes ``n`` rests on, itself included."""
    seen = np.zeros(NODES, np.bool_)
    stack = np.empty(NODES, np.int64)
    seen[n] = True
    stack[0] = n
    top = 1
    total = 1
    while top:
        top -= 1
        m = stack[top]
        for j in range(count[m]):
            q = parents[m, j]
            if not seen[q]:
                seen[q] = True
                stack[top] = q
                top += 1
                total += 1
    return total
