"""Numba kernels of the forcing chains (forcing.py): SE's doChaining on arrays, the count of
a node's ancestors, and a family's whole search (``find``: every assumption in forcing.find's
order, the outcomes compared, the best find kept, ratings in tenths of SE's scale).

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

from solvers.bits import popcount
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
def other_digit(m: int, d: int) -> int:
    """The digit of the two-candidate mask ``m`` that is not ``d``."""
    other = m & ~(1 << d)
    v = 0
    while not other >> v & 1:
        v += 1
    return v


@njit(cache=True)
def only_other(grid: np.ndarray, cell: int, r: int, d: int) -> int:
    """The one cell other than ``cell`` of its region ``r`` (0 box, 1 row, 2 column) that holds
    ``d`` on ``grid``, or -1 where none or several do."""
    found = -1
    for i in range(9):
        c = REGIONS[cell, r, i]
        if c != cell and grid[c] >> d & 1:
            if found >= 0:
                return -1
            found = c
    return found


@njit(cache=True)
def has(items: np.ndarray, n: int, x: int) -> bool:
    """Whether ``x`` is among the first ``n`` of ``items``."""
    hit = False
    for i in range(n):
        hit = hit or items[i] == x
    return hit


@njit(cache=True)
def off_links(grid: np.ndarray, n: int, y: bool, out: np.ndarray) -> int:
    """The nodes made false by ``n`` (on) into ``out``, in SE's order; their number."""
    cell = n // 18
    d = n % 18 // 2
    k = 0
    if y:
        for v in range(9):
            if v != d and grid[cell] >> v & 1:
                out[k] = cell * 18 + v * 2
                k += 1
    for r in range(3):
        for i in range(9):
            c = REGIONS[cell, r, i]
            if c != cell and grid[c] >> d & 1 and (r == 0 or BOX[c] != BOX[cell]):
                out[k] = c * 18 + d * 2
                k += 1
    return k


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
    if y and popcount(grid[cell]) == 2:
        made[k] = cell * 18 + other_digit(grid[cell], d) * 2 + 1
        rows[k, 0] = p
        sizes[k] = 1
        for w in range(9):
            if source[cell] >> w & 1 and not grid[cell] >> w & 1:
                rows[k, sizes[k]] = cell * 18 + w * 2
                sizes[k] += 1
        k += 1
    for r in range(3):
        found = only_other(grid, cell, r, d)
        if found < 0:
            continue
        q = found * 18 + d * 2 + 1
        if has(made, k, q):
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
    made_off = np.empty(28, np.int64)  # 8 other digits and 20 peers at most
    rows = np.empty((4, WIDTH), np.int64)
    sizes = np.empty(4, np.int64)
    while on_head < on_tail or off_head < off_tail:
        if on_head < on_tail:
            p = on_queue[on_head]
            on_head += 1
            for j in range(off_links(grid, p, y, made_off)):
                q = made_off[j]
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


@njit(cache=True)
def length_extra(complexity: int) -> int:
    """SE's length rule in tenths: one per ceiling 4, 6, 8, 12, 16, 24, ... that complexity - 2
    passes."""
    extra, ceiling, odd, length = 0, 4, False, complexity - 2
    while length > ceiling:
        extra += 1
        ceiling = ceiling * 4 // 3 if odd else ceiling * 3 // 2
        odd = not odd
    return extra


SLOTS = 19  # outcomes kept at once: a cell's digits (0-8), the off assumption (9), a region's places


@njit(cache=True)
def _run(source: np.ndarray, start: int, dynamic: bool, y: bool, s: int, present: np.ndarray,
         parents: np.ndarray, count: np.ndarray, order: np.ndarray, meta: np.ndarray) -> None:
    """``propagate`` into slot ``s``: its nodes in the order found (the true, then the false)
    in order[s], and (late, early, number of nodes) in meta[s]."""
    off_queue = np.empty(NODES, np.int64)
    late, early, trues, falses = propagate(source, start, dynamic, y, present[s], parents[s], count[s],
                                           order[s], off_queue)
    order[s, trues:trues + falses] = off_queue[:falses]
    meta[s, 0], meta[s, 1], meta[s, 2] = late, early, trues + falses


@njit(cache=True)
def _offer(source: np.ndarray, base: int, key: int, complexity: int, cells: np.ndarray, n: int,
           target: int, best: np.ndarray, best_cells: np.ndarray) -> None:
    """forcing.find's offer: keep the find in ``best`` (rating, complexity, key, target, cells)
    and ``best_cells`` when it removes something and sorts before the best so far."""
    cell = target // 18
    d = target % 18 // 2
    if not (source[cell] & ~(1 << d) if target & 1 else source[cell] >> d & 1):
        return
    rating = base + length_extra(complexity)
    if best[0] != 0 and (rating, complexity, key) >= (best[0], best[1], best[2]):
        return
    best[0], best[1], best[2], best[3], best[4] = rating, complexity, key, target, n
    best_cells[:n] = cells[:n]


@njit(cache=True)
def _common(slots: np.ndarray, k: int, cells: np.ndarray, n: int, key: int, source: np.ndarray,
            base: int, present: np.ndarray, parents: np.ndarray, count: np.ndarray, order: np.ndarray,
            meta: np.ndarray, best: np.ndarray, best_cells: np.ndarray) -> None:
    """forcing._common: offer every node implied by the outcomes of all ``k`` slots, in the
    first's order."""
    first = slots[0]
    for i in range(meta[first, 2]):
        node = order[first, i]
        shared = True
        for j in range(1, k):
            shared &= present[slots[j], node]
        if shared:
            complexity = 0
            for j in range(k):
                complexity += ancestors(node, parents[slots[j]], count[slots[j]])
            _offer(source, base, key, complexity, cells, n, node, best, best_cells)


@njit(cache=True)
def _region_chains(source: np.ndarray, cell: int, d: int, k: int, multiple: bool, dynamic: bool, base: int,
                   present: np.ndarray, parents: np.ndarray, count: np.ndarray, order: np.ndarray,
                   meta: np.ndarray, best: np.ndarray, best_cells: np.ndarray) -> None:
    """forcing.find's region chains: each region of ``cell`` where it is the first of the
    places of ``d`` (two, or more when ``multiple``): what every place implies (``cell``'s
    outcome in slot ``k``, the others' in slots 11 and up)."""
    places = np.empty(9, np.int64)
    slots = np.empty(9, np.int64)
    for r in range(3):
        found = 0
        for i in range(9):
            c = REGIONS[cell, r, i]
            if source[c] >> d & 1:
                places[found] = c
                found += 1
        if found < 2 or places[0] != cell or (found > 2 and not multiple):
            continue
        slots[0] = k
        for i in range(1, found):
            slots[i] = 10 + i
            start = places[i] * 18 + d * 2 + 1
            _run(source, start, dynamic, True, 10 + i, present, parents, count, order, meta)
        _common(slots, found, places, found, 6, source, base, present, parents, count, order, meta, best,
                best_cells)


@njit(cache=True)
def find(source: np.ndarray, multiple: bool, dynamic: bool, nishio: bool, base: int, best: np.ndarray,
         best_cells: np.ndarray) -> None:
    """forcing.find's search for a family (its switches, its base rating in tenths): the best
    find's rating (0 for none), complexity, sort key, target and number of cells in best[:5],
    its cells in ``best_cells``."""
    present = np.empty((SLOTS, NODES), np.bool_)
    parents = np.empty((SLOTS, NODES, WIDTH), np.int64)
    count = np.empty((SLOTS, NODES), np.int64)
    order = np.empty((SLOTS, NODES), np.int64)
    meta = np.empty((SLOTS, 3), np.int64)
    slots = np.empty(9, np.int64)
    one = np.empty(1, np.int64)
    y = not nishio
    best[:] = 0
    for cell in range(81):
        m = source[cell]
        size = popcount(m)
        if not (size > 2 or (size > 1 and dynamic)):
            continue
        one[0] = cell
        k = 0
        for d in range(9):
            if not m >> d & 1:
                continue
            on = cell * 18 + d * 2 + 1
            _run(source, on, dynamic, y, k, present, parents, count, order, meta)
            if dynamic:
                _run(source, on - 1, dynamic, y, 9, present, parents, count, order, meta)
                for s, target in ((k, on - 1), (9, on)):
                    if meta[s, 0] >= 0:
                        complexity = (ancestors(meta[s, 0], parents[s], count[s])
                                      + ancestors(meta[s, 1], parents[s], count[s]))
                        _offer(source, base, 7, complexity, one, 1, target, best, best_cells)
                if size >= 3 and not nishio:
                    for i in range(meta[k, 2]):
                        n = order[k, i]
                        if present[9, n]:
                            both = ancestors(n, parents[k], count[k]) + ancestors(n, parents[9], count[9])
                            _offer(source, base, 1, both, one, 1, n, best, best_cells)
            if not nishio:
                _region_chains(source, cell, d, k, multiple, dynamic, base, present, parents, count, order,
                               meta, best, best_cells)
            k += 1
        if not nishio:
            for i in range(k):
                slots[i] = i
            _common(slots, k, one, 1, 5, source, base, present, parents, count, order, meta, best, best_cells)
