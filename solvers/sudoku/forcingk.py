"""Numba kernels of the forcing chains (forcing.py): SE's doChaining on arrays, the count of
a node's ancestors, and a family's whole search (``find``: every assumption in forcing.find's
order, the outcomes compared, the best find kept, ratings in tenths of SE's scale). A search
reads each candidate's links once (``link_table``) for its many propagations, and Nishio's
runs only where a closure of each assumption on bitmasks (``nishio_may``) can clash.

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

from solvers.bits import lowest_bit, popcount
from solvers.sudoku import gradek
from solvers.sudoku.nishiok import nishio_may

NODES = 81 * 18
WIDTH = 10
LINKS = 28  # a node's links at most: 8 other digits and 20 peers


def _regions() -> np.ndarray:
    """int64[81, 3, 9]: each cell's box, row and column (SE's order of regions)."""
    out = np.zeros((81, 3, 9), np.int64)
    for cell in range(81):
        for k, which in enumerate((2, 0, 1)):
            out[cell, k] = gradek.UNITS[gradek.CELL_UNITS[cell, which]]
    return out


def _peers_in_order() -> np.ndarray:
    """int64[81, 20]: each cell's peers as SE lists a digit's links: its box, then its row and
    its column outside the box."""
    out = np.zeros((81, 20), np.int64)
    for cell in range(81):
        box = gradek.CELL_UNITS[cell, 2]
        seen = [c for k, r in enumerate(REGIONS[cell]) for c in r.tolist()
                if c != cell and (k == 0 or gradek.CELL_UNITS[c, 2] != box)]
        out[cell] = seen
    return out


def _region_units() -> np.ndarray:
    """int64[81, 3, 2]: each cell's box, row and column (``REGIONS``' order) as (unit, the cell's
    place 0..8 in it): a unit's place masks (gradek.places) read by region."""
    out = np.zeros((81, 3, 2), np.int64)
    for cell in range(81):
        for k, which in enumerate((2, 0, 1)):
            u = gradek.CELL_UNITS[cell, which]
            out[cell, k] = u, gradek.UNITS[u].tolist().index(cell)
    return out


REGIONS = _regions()
REGION_UNITS = _region_units()
PEERS_IN_ORDER = _peers_in_order()


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
    for i in range(PEERS_IN_ORDER.shape[1]):
        c = PEERS_IN_ORDER[cell, i]
        if grid[c] >> d & 1:
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
def _made_in_cell(grid: np.ndarray, source: np.ndarray, dynamic: bool, p: int, made: np.ndarray,
                  rows: np.ndarray, sizes: np.ndarray) -> int:
    """The node made true in ``p``'s cell by ``p`` (off) when the cell has two candidates left, as
    node 0 of ``made`` with its parents (as ``_made_on``'s); the number made, 1 or 0."""
    cell = p // 18
    if popcount(grid[cell]) != 2:
        return 0
    made[0] = cell * 18 + other_digit(grid[cell], p % 18 // 2) * 2 + 1
    rows[0, 0] = p
    sizes[0] = 1
    for w in range(9 if dynamic else 0):
        if source[cell] >> w & 1 and not grid[cell] >> w & 1:
            rows[0, sizes[0]] = cell * 18 + w * 2
            sizes[0] += 1
    return 1


@njit(cache=True)
def _made_on(grid: np.ndarray, source: np.ndarray, dynamic: bool, p: int, y: bool, made: np.ndarray,
             rows: np.ndarray, sizes: np.ndarray) -> int:
    """The nodes made true by ``p`` (off) on ``grid``, each with its parents (``p`` and, when
    ``dynamic``, the candidates of ``source`` missing from ``grid`` that the link rests on);
    their number."""
    cell = p // 18
    d = p % 18 // 2
    k = _made_in_cell(grid, source, dynamic, p, made, rows, sizes) if y else 0
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
        for i in range(9 if dynamic else 0):
            c = REGIONS[cell, r, i]
            if source[c] >> d & 1 and not grid[c] >> d & 1:
                rows[k, sizes[k]] = c * 18 + d * 2
                sizes[k] += 1
        k += 1
    return k


@njit(cache=True)
def _made_on_dynamic(grid: np.ndarray, source: np.ndarray, places: np.ndarray, left: np.ndarray, p: int,
                     y: bool, made: np.ndarray, rows: np.ndarray, sizes: np.ndarray) -> int:
    """``_made_on`` when ``dynamic``, with the places of each digit in each unit on ``source``
    (``places``, gradek.places) and on ``grid`` (``left``) as masks: a region's one other place
    and the removed candidates the link rests on read from them."""
    cell = p // 18
    d = p % 18 // 2
    k = _made_in_cell(grid, source, True, p, made, rows, sizes) if y else 0
    for r in range(3):
        u = REGION_UNITS[cell, r, 0]
        other = left[u, d] & ~(1 << REGION_UNITS[cell, r, 1])
        if other == 0 or other & (other - 1):
            continue
        q = gradek.UNITS[u, lowest_bit(other)] * 18 + d * 2 + 1
        if has(made, k, q):
            continue
        made[k] = q
        rows[k, 0] = p
        sizes[k] = 1
        gone = places[u, d] & ~left[u, d]
        while gone:
            rows[k, sizes[k]] = gradek.UNITS[u, lowest_bit(gone)] * 18 + d * 2
            sizes[k] += 1
            gone &= gone - 1
        k += 1
    return k


@njit(cache=True)
def link_table(source: np.ndarray, y: bool, links: np.ndarray, n_links: np.ndarray) -> None:
    """Each candidate's links on ``source`` read once for a search's many propagations: its on
    node's (``off_links``) and its off node's (``_made_on``, static) in links[n, :n_links[n]],
    in SE's order (entries of nodes that are not candidates are left as they are)."""
    made = np.empty(4, np.int64)
    made_off = np.empty(28, np.int64)  # 8 other digits and 20 peers at most
    rows = np.empty((4, WIDTH), np.int64)
    sizes = np.empty(4, np.int64)
    for cell in range(81):
        for d in range(9):
            if not source[cell] >> d & 1:
                continue
            n = cell * 18 + d * 2
            k = off_links(source, n + 1, y, made_off)
            links[n + 1, :k] = made_off[:k]
            n_links[n + 1] = k
            k = _made_on(source, source, False, n, y, made, rows, sizes)
            links[n, :k] = made[:k]
            n_links[n] = k


@njit(cache=True)
def propagate(source: np.ndarray, start: int, dynamic: bool, y: bool, present: np.ndarray,
              parents: np.ndarray, count: np.ndarray, on_queue: np.ndarray,
              off_queue: np.ndarray) -> tuple[int, int, int, int]:
    """SE's doChaining from ``start``: fills ``present``, ``parents`` and ``count`` (cleared
    here) and the true and the false nodes in the order found (``on_queue``, ``off_queue``);
    returns (late, early, trues, falses): the contradiction's node that arrived last (its
    parents recorded though it is not marked present) and its negation, or (-1, -1), and the
    numbers of true and false nodes. ``_propagate`` on the links of ``source`` read here."""
    links = np.empty((NODES, LINKS), np.int16)
    n_links = np.empty(NODES, np.int64)
    link_table(source, y, links, n_links)
    return _propagate(source, start, dynamic, y, present, parents, count, on_queue, off_queue, links, n_links,
                      gradek.places(source))


@njit(cache=True)
def _propagate(source: np.ndarray, start: int, dynamic: bool, y: bool, present: np.ndarray,
               parents: np.ndarray, count: np.ndarray, on_queue: np.ndarray, off_queue: np.ndarray,
               links: np.ndarray, n_links: np.ndarray, places: np.ndarray) -> tuple[int, int, int, int]:
    """``propagate`` with the links of ``source`` read already (``link_table``, with the same
    ``y``). An on node's links are the table's in every family: on the grid as a dynamic
    assumption has changed it, the ones missing are removed candidates, off nodes already
    present, which the search passes over anyway. An off node's are the table's when the grid
    stays as it is (not ``dynamic``), ``_made_on_dynamic``'s on the changed grid otherwise, with
    the places of each digit in each unit on ``source`` (``places``, gradek.places)."""
    present[:] = False
    count[:] = 0
    grid = source.copy() if dynamic else source
    left = places.copy() if dynamic else places
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
            for j in range(n_links[p]):
                q = int(links[p, j])
                if present[q + 1]:
                    parents[q, 0] = p
                    count[q] = 1
                    return q, q + 1, on_tail, off_tail
                if not present[q]:
                    off_tail = _add(q, p, present, parents, count, off_queue, off_tail)
            continue
        p = off_queue[off_head]
        off_head += 1
        if not dynamic:
            for j in range(n_links[p]):
                q = int(links[p, j])
                if present[q] or present[q - 1]:
                    if not present[q]:
                        parents[q, 0] = p
                        count[q] = 1
                        return q, q - 1, on_tail, off_tail
                    continue
                on_tail = _add(q, p, present, parents, count, on_queue, on_tail)
            continue
        cell = p // 18
        d = p % 18 // 2
        k = _made_on_dynamic(grid, source, places, left, p, y, made, rows, sizes)
        grid[cell] &= ~(1 << d)
        for r in range(3):
            left[REGION_UNITS[cell, r, 0], d] &= ~(1 << REGION_UNITS[cell, r, 1])
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
    return _ancestors(n, parents, count, NODES, np.zeros(NODES, np.bool_), np.empty(NODES, np.int64))


@njit(cache=True)
def _ancestors(n: int, parents: np.ndarray, count: np.ndarray, cap: int, seen: np.ndarray,
               stack: np.ndarray) -> int:
    """``ancestors``, or some number above ``cap`` when there are more: a search comparing
    complexities needs no more. ``seen`` (all False) is left so; ``stack`` is scratch."""
    seen[n] = True
    stack[0] = n
    top = 0  # the next node to expand; the nodes met are stack[:total]
    total = 1
    while top < total and total <= cap:
        m = stack[top]
        top += 1
        for j in range(count[m]):
            q = parents[m, j]
            if not seen[q]:
                seen[q] = True
                stack[total] = q
                total += 1
    for i in range(total):
        seen[stack[i]] = False
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


# A search's outcomes (``find``): one slot per candidate assumed true, and one for the candidate
# assumed false: outs = (present, parents, count, order, meta), ``_run``'s arrays by slot, then
# the source's links (``link_table``: links, n_links) and its places (gradek.places).
Arrays = tuple[np.ndarray, ...]


@njit(cache=True)
def _run(source: np.ndarray, start: int, dynamic: bool, y: bool, s: int, outs: Arrays) -> None:
    """``propagate`` into slot ``s``: its nodes in the order found (the true, then the false)
    in order[s], and (late, early, number of nodes) in meta[s]."""
    present, parents, count, order, meta = outs[0], outs[1], outs[2], outs[3], outs[4]
    off_queue = np.empty(NODES, np.int64)
    late, early, trues, falses = _propagate(source, start, dynamic, y, present[s], parents[s], count[s],
                                            order[s], off_queue, outs[5], outs[6], outs[7])
    order[s, trues:trues + falses] = off_queue[:falses]
    meta[s, 0], meta[s, 1], meta[s, 2] = late, early, trues + falses


@njit(cache=True)
def _on(source: np.ndarray, on: int, dynamic: bool, y: bool, slot: np.ndarray, outs: Arrays) -> int:
    """The slot of the outcome of candidate ``on`` assumed true, propagated the first time it is
    asked for: a search asks for a candidate's outcome in its cell's chains and in the region
    chains of up to three regions. ``slot``: per candidate (cell * 9 + digit), its slot, made
    negative once its outcome is there."""
    s: int = slot[on // 2]
    if s < 0:
        return -s - 1
    _run(source, on, dynamic, y, s, outs)
    slot[on // 2] = -s - 1
    return s


@njit(cache=True)
def _offer(source: np.ndarray, base: int, key: int, target: int, cells: np.ndarray, n: int, nodes: np.ndarray,
           slots: np.ndarray, k: int, outs: Arrays, scratch: Arrays, best: np.ndarray,
           best_cells: np.ndarray) -> None:
    """forcing.find's offer: keep the find in ``best`` (rating, complexity, key, target, cells)
    and ``best_cells`` when it removes something and sorts before the best so far. Its
    complexity is the sum of the ancestors of nodes[i] in slot slots[i] (i < k), counted only
    as far as a find could still sort first: the rating grows with the complexity, so a find
    more complex than the best, or as complex and not of a lower key, cannot. ``scratch``:
    ``_ancestors``' seen and stack."""
    cell = target // 18
    d = target % 18 // 2
    if not (source[cell] & ~(1 << d) if target & 1 else source[cell] >> d & 1):
        return
    cap = NODES * 9 if best[0] == 0 else best[1] if key < best[2] else best[1] - 1
    parents, count = outs[1], outs[2]
    complexity = 0
    for i in range(k):
        complexity += _ancestors(nodes[i], parents[slots[i]], count[slots[i]], cap - complexity, scratch[0],
                                 scratch[1])
        if complexity > cap:
            return
    best[0], best[1], best[2], best[3], best[4] = base + length_extra(complexity), complexity, key, target, n
    best_cells[:n] = cells[:n]


@njit(cache=True)
def _common(slots: np.ndarray, k: int, cells: np.ndarray, n: int, key: int, source: np.ndarray, base: int,
            outs: Arrays, scratch: Arrays, best: np.ndarray, best_cells: np.ndarray) -> None:
    """forcing._common: offer every node implied by the outcomes of all ``k`` slots, in the
    first's order."""
    present, order, meta = outs[0], outs[3], outs[4]
    first = slots[0]
    nodes = np.empty(9, np.int64)
    for i in range(meta[first, 2]):
        node = order[first, i]
        shared = True
        for j in range(1, k):
            shared &= present[slots[j], node]
        if shared:
            nodes[:k] = node
            _offer(source, base, key, node, cells, n, nodes, slots, k, outs, scratch, best, best_cells)


@njit(cache=True)
def _region_chains(source: np.ndarray, cell: int, d: int, k: int, multiple: bool, dynamic: bool, base: int,
                   slot: np.ndarray, outs: Arrays, scratch: Arrays, best: np.ndarray,
                   best_cells: np.ndarray) -> None:
    """forcing.find's region chains: each region of ``cell`` where it is the first of the
    places of ``d`` (two, or more when ``multiple``): what every place implies (``cell``'s
    outcome in slot ``k``, the others' as ``_on`` finds them)."""
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
            slots[i] = _on(source, places[i] * 18 + d * 2 + 1, dynamic, True, slot, outs)
        _common(slots, found, places, found, 6, source, base, outs, scratch, best, best_cells)


@njit(cache=True)
def find(source: np.ndarray, multiple: bool, dynamic: bool, nishio: bool, base: int, best: np.ndarray,
         best_cells: np.ndarray) -> None:
    """forcing.find's search for a family (its switches, its base rating in tenths): the best
    find's rating (0 for none), complexity, sort key, target and number of cells in best[:5],
    its cells in ``best_cells``. Nishio's search runs only where ``nishio_may`` finds that some
    assumption can clash."""
    best[:] = 0
    if nishio and not nishio_may(source):
        return
    slot = np.zeros(81 * 9, np.int64)
    n_slots = 0
    for cell in range(81):
        for d in range(9):
            if source[cell] >> d & 1:
                slot[cell * 9 + d] = n_slots
                n_slots += 1
    off = n_slots  # the slot of the candidate assumed false
    # parents and orders as int16 (NODES < 2**15): a slot per candidate makes them the bulk
    outs = (np.empty((n_slots + 1, NODES), np.bool_), np.empty((n_slots + 1, NODES, WIDTH), np.int16),
            np.empty((n_slots + 1, NODES), np.int8), np.empty((n_slots + 1, NODES), np.int16),
            np.empty((n_slots + 1, 3), np.int64), np.empty((NODES, LINKS), np.int16),
            np.empty(NODES, np.int64), gradek.places(source))
    present, order, meta = outs[0], outs[3], outs[4]
    scratch = (np.zeros(NODES, np.bool_), np.empty(NODES, np.int64))
    slots = np.empty(9, np.int64)
    one = np.empty(1, np.int64)
    pair = np.empty(2, np.int64)  # the nodes and slots of a contradiction or a double implication
    pair_slots = np.empty(2, np.int64)
    y = not nishio
    link_table(source, y, outs[5], outs[6])  # region chains (not Nishio) take y as True too
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
            slots[k] = _on(source, on, dynamic, y, slot, outs)
            if dynamic:
                _run(source, on - 1, dynamic, y, off, outs)
                for s, target in ((slots[k], on - 1), (off, on)):
                    if meta[s, 0] >= 0:
                        pair[0], pair[1] = meta[s, 0], meta[s, 1]
                        pair_slots[:] = s
                        _offer(source, base, 7, target, one, 1, pair, pair_slots, 2, outs, scratch, best,
                               best_cells)
                if size >= 3 and not nishio:
                    pair_slots[0], pair_slots[1] = slots[k], off
                    for i in range(meta[slots[k], 2]):
                        n = order[slots[k], i]
                        if present[off, n]:
                            pair[:] = n
                            _offer(source, base, 1, n, one, 1, pair, pair_slots, 2, outs, scratch, best,
                                   best_cells)
            if not nishio:
                _region_chains(source, cell, d, slots[k], multiple, dynamic, base, slot, outs, scratch, best,
                               best_cells)
            k += 1
        if not nishio:
            _common(slots, k, one, 1, 5, source, base, outs, scratch, best, best_cells)
