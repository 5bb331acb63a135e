"""Numba kernels for Sudoku: the paper's pre-processing, branching and the depth-first search.

Representation (grid.py's ``layout`` and tree.py build these arrays):

  n           side of the grid (4, 9, 16 or 25); cells are numbered r*n + c.
  mask        an int whose bit v-1 is set when value v is still possible.
  cands       int64[C] the mask of every cell. A cell whose mask has one bit is
              *placed*; a mask of 0 is a contradiction.
  full        the mask with all n bits set.
  peers       int64[C, P] the other cells of each cell's row, column and box.
  units       int64[3n, n] the cells of every row, column and box.
  cell_units  int64[C, 3] the row, column and box of every cell.
  order       int64[n] the values (as one-bit masks) of a branching cell, in the
              order their children are searched.
  stats       int64[STATS_LEN] counters, indexed by the constants below.
  stop        float64[3] (solvers.base.stop_flag): ``stop[0]``, which another thread may set:
              ``search`` then returns early (it releases the GIL so that such a thread can run).

Everything here is the numba subset that also runs as plain Python under
NUMBA_DISABLE_JIT=1. Every array a kernel allocates is sized by the bound proved
beside it, since numba does no bounds checking.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.base import DONE, STOP
from solvers.base import NODES as SEARCHED  # the flag's slot; NODES below is the stats' own
from solvers.bits import lowest_bit, popcount

# stats indices
NODES = 0
LEAVES = 1
MAX_DEPTH = 2
GUESSES = 3
FULL_HOUSE = 4
NAKED_SINGLE = 5
HIDDEN_SINGLE = 6
NAKED_PAIR = 7
STATS_LEN = 8

# what entering a node found
CONTRADICTION = 0
BRANCH = 1
COMPLETE = 2

BUDGET_EXCEEDED = -1

# search looks at the stop flag once per this many nodes: few enough that a stop lands within
# milliseconds, many enough that the checks cost nothing measurable.
STOP_CHECK_NODES = 1024


@njit(cache=True)
def initial_cands(givens: np.ndarray, full: int) -> np.ndarray:
    cands = np.empty(givens.shape[0], np.int64)
    for i in range(givens.shape[0]):
        # int(): without the JIT, a uint8 shift would stay uint8 and overflow
        cands[i] = full if givens[i] == 0 else 1 << (int(givens[i]) - 1)
    return cands


# what check_solution found
SOLUTION_OK = 0
BLANK_CELL = 1
CHANGED_GIVEN = 2
REPEATED_VALUE = 3


@njit(cache=True)
def check_solution(givens: np.ndarray, values: np.ndarray, units: np.ndarray) -> tuple[int, int]:
    """(SOLUTION_OK, 0) when ``values`` fills every cell, keeps the givens and makes every unit
    a permutation of 1..n; otherwise the first fault and the cell or unit where it is."""
    n = units.shape[1]
    for cell in range(values.shape[0]):
        if values[cell] == 0:
            return BLANK_CELL, cell
        if givens[cell] != 0 and givens[cell] != values[cell]:
            return CHANGED_GIVEN, cell
    full = (1 << n) - 1
    for u in range(units.shape[0]):
        seen = 0
        for k in range(n):
            seen |= 1 << (int(values[units[u, k]]) - 1)
        if seen != full:
            return REPEATED_VALUE, u
    return SOLUTION_OK, 0


@njit(cache=True)
def first_conflict(givens: np.ndarray, peers: np.ndarray) -> tuple[int, int]:
    """(cell, earlier peer) of the first repeated given in reading order, or (-1, -1)."""
    for cell in range(givens.shape[0]):
        if givens[cell] == 0:
            continue
        for k in range(peers.shape[1]):
            p = peers[cell, k]
            if p < cell and givens[p] == givens[cell]:
                return cell, p
    return -1, -1


@njit(cache=True)
def conflicting_rows(givens: np.ndarray, cell_units: np.ndarray) -> np.ndarray:
    """Per row of ``givens`` (one puzzle a row), whether a value is given twice in one unit, which
    is what ``first_conflict`` finds: one pass over the cells with a mask of the values seen per
    unit, rather than a look at every peer of every given."""
    out = np.zeros(givens.shape[0], np.bool_)
    seen = np.zeros(cell_units.max() + 1, np.int64)
    for row in range(givens.shape[0]):
        seen[:] = 0
        repeated = 0
        for cell in range(givens.shape[1]):
            if givens[row, cell] == 0:
                continue
            bit = 1 << int(givens[row, cell])
            for k in range(3):
                u = cell_units[cell, k]
                repeated |= seen[u] & bit
                seen[u] |= bit
        out[row] = repeated != 0
    return out


# -- pre-processing (the paper's four techniques, to a fixed point)


@njit(cache=True)
def _count_single(c: np.ndarray, cell: int, units: np.ndarray, cell_units: np.ndarray,
                  stats: np.ndarray) -> None:
    """Attribute a cell that just became placed: Full House if it was the last open cell of a unit."""
    n = units.shape[1]
    for k in range(3):
        u = cell_units[cell, k]
        last = True
        for j in range(n):
            o = units[u, j]
            m = c[o]
            if o != cell and m & (m - 1) != 0:
                last = False
                break
        if last:
            stats[FULL_HOUSE] += 1
            return
    stats[NAKED_SINGLE] += 1


@njit(cache=True)
def _is_pair(m: int) -> bool:
    x = m & (m - 1)
    return x != 0 and x & (x - 1) == 0


@njit(cache=True)
def _eliminate_placed(c: np.ndarray, queue: np.ndarray, qn: int, pairs: np.ndarray, pn: int,
                      peers: np.ndarray,
                      units: np.ndarray,
                      cell_units: np.ndarray, stats: np.ndarray) -> int:
    """Remove the value of every queued cell from its peers; newly placed cells join the queue.

    Cells left with exactly two candidates join ``pairs`` (from ``pn`` on); returns
    the new length of ``pairs``, or -1 on a contradiction. Neither queue overflows
    its C slots: a cell joins ``queue`` only when its mask goes from several bits to
    one and ``pairs`` only when it goes to exactly two, each of which happens at
    most once while masks shrink, and callers start both with cells already so.
    """
    qi = 0
    while qi < qn:
        cell = queue[qi]
        qi += 1
        v = c[cell]
        for k in range(peers.shape[1]):
            p = peers[cell, k]
            m = c[p]
            if m & v:
                m &= ~v
                c[p] = m
                if m == 0:
                    return -1
                if m & (m - 1) == 0:
                    queue[qn] = p
                    qn += 1
                    _count_single(c, p, units, cell_units, stats)
                elif _is_pair(m):
                    pairs[pn] = p
                    pn += 1
    return pn


@njit(cache=True)
def _hidden_singles(c: np.ndarray, queue: np.ndarray, full: int, units: np.ndarray, stats: np.ndarray) -> int:
    """Place every value that has one possible cell in a unit; -1 on a contradiction, else cells queued."""
    n = units.shape[1]
    qn = 0
    for u in range(units.shape[0]):
        once = 0
        twice = 0
        placed = 0
        for j in range(n):
            m = c[units[u, j]]
            twice |= once & m
            once |= m
            if m & (m - 1) == 0:
                placed |= m
        if once != full:
            return -1
        hidden = once & ~twice & ~placed
        while hidden:
            b = hidden & -hidden
            hidden ^= b
            cell = -1
            for j in range(n):
                if c[units[u, j]] & b:
                    cell = units[u, j]
                    break
            if cell < 0:  # its only cell was just given another hidden value
                return -1
            c[cell] = b
            queue[qn] = cell
            qn += 1
            stats[HIDDEN_SINGLE] += 1
    return qn


@njit(cache=True)
def _naked_pairs(c: np.ndarray, queue: np.ndarray, pairs: np.ndarray, pn: int, units: np.ndarray,
                 cell_units: np.ndarray,
                 stats: np.ndarray) -> int:
    """Two cells of a unit with the same two candidates take them from the rest of the unit.

    Masks only shrink, so a pair needs applying once, when its second cell comes
    down to two candidates: only the cells in ``pairs[:pn]`` are looked at (and
    those its eliminations bring down to two). Returns -1 on a contradiction, else
    the number of newly placed cells queued; stats[NAKED_PAIR] grows by one for
    each pair that removed something.
    """
    n = units.shape[1]
    qn = 0
    pi = 0
    while pi < pn:
        a = pairs[pi]
        pi += 1
        m = c[a]
        if not _is_pair(m):
            continue  # placed since: its singles do the pair's work
        for k in range(3):
            u = cell_units[a, k]
            partner = -1
            for j in range(n):
                o = units[u, j]
                if o != a and c[o] == m:
                    partner = o
                    break
            if partner < 0:
                continue
            removed = False
            for j in range(n):
                cell = units[u, j]
                old = c[cell]
                if cell in (a, partner) or old & m == 0:
                    continue
                new = old & ~m
                if new == 0:
                    return -1
                c[cell] = new
                removed = True
                if new & (new - 1) == 0:
                    queue[qn] = cell
                    qn += 1
                    _count_single(c, cell, units, cell_units, stats)
                elif _is_pair(new):
                    pairs[pn] = cell
                    pn += 1
            if removed:
                stats[NAKED_PAIR] += 1
    return qn


@njit(cache=True)
def preprocess(c: np.ndarray, queue: np.ndarray, qn: int, pairs: np.ndarray, pn: int, full: int,
               peers: np.ndarray,
               units: np.ndarray,
               cell_units: np.ndarray, stats: np.ndarray) -> bool:
    """Full House, Naked Single, Hidden Single, Naked Pair until nothing changes.

    ``queue[:qn]`` holds the placed cells whose value is not yet removed from
    their peers, ``pairs[:pn]`` the cells that came down to two candidates since
    naked pairs were last looked for. Returns False on a contradiction.
    """
    while True:
        pn = _eliminate_placed(c, queue, qn, pairs, pn, peers, units, cell_units, stats)
        if pn < 0:
            return False
        qn = _hidden_singles(c, queue, full, units, stats)
        if qn < 0:
            return False
        if qn > 0:
            continue
        if pn == 0:
            return True
        pairs_before = stats[NAKED_PAIR]
        qn = _naked_pairs(c, queue, pairs, pn, units, cell_units, stats)
        pn = 0
        if qn < 0:
            return False
        if stats[NAKED_PAIR] == pairs_before:
            return True


# -- branching


@njit(cache=True)
def _eliminations(c: np.ndarray, cell: int, b: int, peers: np.ndarray) -> int:
    """How many candidates value ``b`` in ``cell`` would remove from open peers (method 2)."""
    e = 0
    for k in range(peers.shape[1]):
        m = c[peers[cell, k]]
        if m & b and m & (m - 1) != 0:
            e += 1
    return e


@njit(cache=True)
def greedy_branch(c: np.ndarray, peers: np.ndarray, order: np.ndarray, tied: np.ndarray) -> tuple[int, int]:
    """The paper's choice: fewest candidates (method 1), ties broken by most eliminations (method 2).

    Writes the cell's values into ``order`` (most eliminations first, then
    ascending value) and returns (cell, number of values); cell -1 when the grid
    is complete. ``tied`` is scratch space for C cells.
    """
    fewest = 64
    n_tied = 0
    for cell in range(c.shape[0]):
        m = c[cell]
        if m & (m - 1) == 0:
            continue
        k = popcount(m)
        if k < fewest:
            fewest = k
            n_tied = 0
        if k == fewest:
            tied[n_tied] = cell
            n_tied += 1
    if n_tied == 0:
        return -1, 0
    best_cell = tied[0]
    best_elim = -1
    for i in range(n_tied if n_tied > 1 else 0):
        m = c[tied[i]]
        while m:
            b = m & -m
            m ^= b
            e = _eliminations(c, tied[i], b, peers)
            if e > best_elim:
                best_elim = e
                best_cell = tied[i]
    # insertion sort of the chosen cell's values by eliminations, stable on ascending value;
    # the first free slots of ``tied`` hold the counts
    m = c[best_cell]
    k = 0
    while m:
        b = m & -m
        m ^= b
        e = _eliminations(c, best_cell, b, peers)
        i = k
        while i > 0 and tied[i - 1] < e:
            tied[i] = tied[i - 1]
            order[i] = order[i - 1]
            i -= 1
        tied[i] = e
        order[i] = b
        k += 1
    return best_cell, k


@njit(cache=True)
def cell_order_branch(c: np.ndarray, start: int, full: int, peers: np.ndarray,
                      order: np.ndarray) -> tuple[int, int]:
    """Plain recursion's choice: the first open cell from ``start`` on, values not used by a placed peer."""
    cell = start
    while cell < c.shape[0] and c[cell] & (c[cell] - 1) == 0:
        cell += 1
    if cell == c.shape[0]:
        return -1, 0
    m = full
    for k in range(peers.shape[1]):
        pm = c[peers[cell, k]]
        if pm & (pm - 1) == 0:
            m &= ~pm
    k = 0
    while m:
        b = m & -m
        m ^= b
        order[k] = b
        k += 1
    return cell, k


@njit(cache=True)
def is_solution(c: np.ndarray, full: int, units: np.ndarray) -> bool:
    """The paper's answer verifier: every cell placed and every unit holds each value once."""
    for u in range(units.shape[0]):
        seen = 0
        for j in range(units.shape[1]):
            m = c[units[u, j]]
            if m & (m - 1) != 0 or seen & m:
                return False
            seen |= m
        if seen != full:
            return False
    return True


@njit(cache=True)
def enter_node(c: np.ndarray, queue: np.ndarray, qn: int, pairs: np.ndarray, pn: int, greedy: bool,
               start: int,
               depth: int,
               full: int, peers: np.ndarray, units: np.ndarray, cell_units: np.ndarray, order: np.ndarray,
               stats: np.ndarray) -> tuple[int, int, int]:
    """Count one node, pre-process it (greedy) and choose its branch.

    ``queue`` (C slots) is free once pre-processing is done: greedy_branch uses it as scratch.

    Returns (CONTRADICTION | BRANCH | COMPLETE, branching cell, number of children).
    A node without children (contradiction, dead end, complete grid) is a leaf.
    """
    stats[NODES] += 1
    stats[MAX_DEPTH] = max(stats[MAX_DEPTH], depth)
    if greedy and not preprocess(c, queue, qn, pairs, pn, full, peers, units, cell_units, stats):
        stats[LEAVES] += 1
        return CONTRADICTION, -1, 0
    if greedy:
        cell, k = greedy_branch(c, peers, order, queue)
    else:
        cell, k = cell_order_branch(c, start, full, peers, order)
    if cell >= 0 and k > 0:
        return BRANCH, cell, k
    stats[LEAVES] += 1
    if cell < 0 and is_solution(c, full, units):
        return COMPLETE, -1, 0
    return CONTRADICTION, -1, 0


@njit(cache=True)
def queue_placed(c: np.ndarray, queue: np.ndarray) -> int:
    """Queue every placed cell (the start of a search from an arbitrary grid)."""
    qn = 0
    for cell in range(c.shape[0]):
        if c[cell] & (c[cell] - 1) == 0:
            queue[qn] = cell
            qn += 1
    return qn


@njit(cache=True)
def queue_pairs(c: np.ndarray, pairs: np.ndarray) -> int:
    """Queue every cell with two candidates (the start of a search from an arbitrary grid)."""
    pn = 0
    for cell in range(c.shape[0]):
        if _is_pair(c[cell]):
            pairs[pn] = cell
            pn += 1
    return pn


@njit(cache=True)
def expand(c: np.ndarray, greedy: bool, depth: int, full: int, peers: np.ndarray, units: np.ndarray,
           cell_units: np.ndarray,
           order: np.ndarray, stats: np.ndarray) -> tuple[int, int, int]:
    """One node of the split's breadth-first expansion: (status, cell, children) as in enter_node."""
    queue = np.empty(c.shape[0], np.int64)
    pairs = np.empty(c.shape[0], np.int64)
    return enter_node(c, queue, queue_placed(c, queue), pairs, queue_pairs(c, pairs), greedy, 0, depth, full,
                      peers, units, cell_units, order, stats)


@njit(cache=True)
def report(stop: np.ndarray, n_children: np.ndarray, tried: np.ndarray, depth: int, nodes: int) -> None:
    """The share of the search done into ``stop[DONE]`` (solvers/progress.py), the search standing at
    a node of relative depth ``depth``: the weight of the finished subtrees by Kilby's weighted
    backtrack (a child weighs its parent's weight over the parent's number of children), those of
    each ancestor's children tried before the one on the path. Never lowered (the same weight
    summed in another order may come out an ulp lower); ``nodes`` into the flag's node slot."""
    weight = 1.0
    share = 0.0
    for k in range(depth):
        share += weight * (tried[k] - 1) / n_children[k]
        weight /= n_children[k]
    if share > stop[DONE]:
        stop[DONE] = share
    stop[SEARCHED] = nodes


@njit(cache=True, nogil=True)
def search(cands0: np.ndarray, depth0: int, greedy: bool, max_solutions: int, node_limit: int,
           full: int, peers: np.ndarray, units: np.ndarray, cell_units: np.ndarray, solution: np.ndarray,
           stats: np.ndarray, stop: np.ndarray) -> int:
    """Depth-first search of the tree below ``cands0`` (a node at depth ``depth0``).

    Children are visited in ``order``; the first complete grid found goes to
    ``solution`` (values 1..n). Stops after ``max_solutions`` solutions. Returns the
    number found, or BUDGET_EXCEEDED once more than ``node_limit`` nodes were entered.
    Once ``stop[STOP]`` is set it returns the solutions found so far (the caller knows the
    count is partial from the flag). Where it looks at the flag it also ``report``s its progress;
    the whole tree searched, the share is 1.
    """
    n_cells = cands0.shape[0]
    n = units.shape[1]
    # Every child places its parent's branching cell, which was open, so a node at
    # relative depth d has at most (open cells of cands0) - d open cells, and only a
    # node with an open cell has children: depths run 0..open cells.
    levels = 1
    for i in range(n_cells):
        if cands0[i] & (cands0[i] - 1) != 0:
            levels += 1
    stack = np.empty((levels, n_cells), np.int64)
    order = np.empty((levels, n), np.int64)
    n_children = np.zeros(levels, np.int64)
    tried = np.zeros(levels, np.int64)
    branch_cell = np.zeros(levels, np.int64)
    queue = np.empty(n_cells, np.int64)
    pairs = np.empty(n_cells, np.int64)

    stack[0, :] = cands0
    qn = queue_placed(stack[0], queue)
    pn = queue_pairs(stack[0], pairs)
    found = 0
    d = 0
    countdown = STOP_CHECK_NODES
    while True:
        start = branch_cell[d - 1] + 1 if d > 0 else 0
        status, cell, k = enter_node(stack[d], queue, qn, pairs, pn, greedy, start, depth0 + d, full, peers,
                                     units, cell_units, order[d], stats)
        if stats[NODES] > node_limit:
            return BUDGET_EXCEEDED
        countdown -= 1
        if countdown == 0:
            if stop[STOP]:
                return found
            report(stop, n_children, tried, d, stats[NODES])
            countdown = STOP_CHECK_NODES
        if status == COMPLETE:
            found += 1
            if found == 1:
                for i in range(n_cells):
                    solution[i] = lowest_bit(stack[d, i]) + 1
            if found >= max_solutions:
                return found
        n_children[d] = k
        tried[d] = 0
        branch_cell[d] = cell
        while d >= 0 and tried[d] == n_children[d]:
            d -= 1
        if d < 0:
            stop[DONE] = 1.0
            stop[SEARCHED] = stats[NODES]
            return found
        child = stack[d + 1]
        child[:] = stack[d]
        child[branch_cell[d]] = order[d, tried[d]]
        tried[d] += 1
        if n_children[d] > 1:
            stats[GUESSES] += 1
        queue[0] = branch_cell[d]
        qn = 1
        pn = 0  # the parent's pairs were all applied
        d += 1
