"""Numba kernels for sliding tiles: the IDA* inner loop and the pattern-database builder.

Glossary (shared with solvers/sliding.py)
  k, n        board side and cell count (n = k*k); cells are numbered row-major.
  board       int64[n]: board[cell] = tile, 0 = blank.
  pos         int64[n]: pos[tile] = cell, the inverse of board.
  goal_pos    int64[n]: goal_pos[tile] = the tile's cell in the goal.
  direction   0..3 = up, left, right, down: where the blank moves (Korf's order;
              the opposite of d is 3 - d).
  parts       the heuristic split into pieces that one move changes only a few
              of; h = the largest, over groups, of the sum of a group's parts.
  lookup      one pattern-database probe: which tiles (``lk_tiles``), through
              which cell map (identity, or the diagonal reflection), into which
              slice of the concatenated tables (``lk_offset``), in which group.

Every kernel also runs as plain Python under NUMBA_DISABLE_JIT=1; stacks are
sized from the IDA* bound: a node on the stack has g <= f <= bound.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MISPLACED, MANHATTAN, LINEAR_CONFLICT, PATTERN_DB = 0, 1, 2, 3
SOLVED, BUDGET, STOPPED = 1, -1, -2
UNSEEN = 255
_DR = (-1, 0, 0, 1)
_DC = (0, -1, 1, 0)


@njit(cache=True)
def neighbours(k):
    """nbr[cell, d] = the cell the blank reaches by moving in direction d, or -1 off the board."""
    nbr = np.full((k * k, 4), -1, np.int64)
    for cell in range(k * k):
        r, c = cell // k, cell % k
        for d in range(4):
            rr, cc = r + _DR[d], c + _DC[d]
            if 0 <= rr < k and 0 <= cc < k:
                nbr[cell, d] = rr * k + cc
    return nbr


@njit(cache=True)
def _distance_table(goal_pos, k):
    """md[tile, cell] = Manhattan distance of ``tile`` at ``cell`` from its goal cell (0 for the blank)."""
    n = k * k
    md = np.zeros((n, n), np.int64)
    for t in range(1, n):
        g = goal_pos[t]
        for cell in range(n):
            md[t, cell] = abs(cell // k - g // k) + abs(cell % k - g % k)
    return md


@njit(cache=True)
def _line_conflict(board, goal_pos, k, line, is_row, scratch):
    """2 * (tiles in their goal line - longest run already in goal order): the linear-conflict penalty."""
    m = 0
    for i in range(k):
        cell = line * k + i if is_row else i * k + line
        t = board[cell]
        if t == 0:
            continue
        g = goal_pos[t]
        if is_row and g // k == line:
            scratch[m] = g % k
            m += 1
        elif not is_row and g % k == line:
            scratch[m] = g // k
            m += 1
    longest = 0
    for i in range(m):
        run = 1
        for j in range(i):
            if scratch[j] < scratch[i] and scratch[k + j] + 1 > run:
                run = scratch[k + j] + 1
        scratch[k + i] = run
        if run > longest:
            longest = run
    return 2 * (m - longest)


@njit(cache=True)
def rank(cells, m, n):
    """Index of m distinct cells (order matters) among n: mixed radix n, n-1, ..., n-m+1."""
    r = 0
    for i in range(m):
        c = cells[i]
        smaller = 0
        for j in range(i):
            if cells[j] < c:
                smaller += 1
        r = r * (n - i) + c - smaller
    return r


@njit(cache=True)
def unrank(r, m, n, cells):
    """Inverse of rank: fill cells[0..m-1]."""
    for i in range(m - 1, -1, -1):
        cells[i] = r % (n - i)
        r //= n - i
    used = np.zeros(n, np.bool_)
    for i in range(m):
        skip = cells[i]
        for c in range(n):
            if not used[c]:
                if skip == 0:
                    cells[i] = c
                    used[c] = True
                    break
                skip -= 1


@njit(cache=True)
def _probe(j, pos, pdb, lk_tiles, lk_size, lk_offset, lk_cells, scratch, n):
    m = lk_size[j]
    for i in range(m):
        scratch[i] = lk_cells[j, pos[lk_tiles[j, i]]]
    return pdb[lk_offset[j] + rank(scratch, m, n)]


@njit(cache=True)
def _parts_from_scratch(board, pos, goal_pos, k, heuristic, md, pdb, lk_tiles, lk_size, lk_offset,
                        lk_cells, parts, scratch):
    n = k * k
    if heuristic == PATTERN_DB:
        for j in range(parts.size):
            parts[j] = _probe(j, pos, pdb, lk_tiles, lk_size, lk_offset, lk_cells, scratch, n)
        return
    total = 0
    for t in range(1, n):
        if heuristic == MISPLACED:
            total += int(pos[t] != goal_pos[t])
        else:
            total += md[t, pos[t]]
    parts[0] = total
    if heuristic == LINEAR_CONFLICT:
        for line in range(k):
            parts[1 + line] = _line_conflict(board, goal_pos, k, line, True, scratch)
            parts[1 + k + line] = _line_conflict(board, goal_pos, k, line, False, scratch)


@njit(cache=True)
def _update_parts(board, pos, goal_pos, k, heuristic, md, pdb, lk_tiles, lk_size, lk_offset, lk_cells,
                  tile_lookup, parts, tile, src, dst, vertical, scratch):
    """Adjust ``parts`` after ``tile`` slid from cell src to cell dst (board and pos already moved)."""
    n = k * k
    if heuristic == PATTERN_DB:
        for g in range(tile_lookup.shape[1]):
            j = tile_lookup[tile, g]
            parts[j] = _probe(j, pos, pdb, lk_tiles, lk_size, lk_offset, lk_cells, scratch, n)
        return
    if heuristic == MISPLACED:
        parts[0] += int(dst != goal_pos[tile]) - int(src != goal_pos[tile])
        return
    parts[0] += md[tile, dst] - md[tile, src]
    if heuristic == LINEAR_CONFLICT:
        # a vertical slide changes which tiles two rows hold; a horizontal one, two columns
        if vertical:
            parts[1 + src // k] = _line_conflict(board, goal_pos, k, src // k, True, scratch)
            parts[1 + dst // k] = _line_conflict(board, goal_pos, k, dst // k, True, scratch)
        else:
            parts[1 + k + src % k] = _line_conflict(board, goal_pos, k, src % k, False, scratch)
            parts[1 + k + dst % k] = _line_conflict(board, goal_pos, k, dst % k, False, scratch)


@njit(cache=True)
def _combine(parts, part_group):
    best = 0
    for g in range(2):
        total = 0
        for p in range(parts.size):
            if part_group[p] == g:
                total += parts[p]
        if total > best:
            best = total
    return best


@njit(cache=True)
def _at_goal(pos, goal_pos):
    for t in range(pos.size):
        if pos[t] != goal_pos[t]:
            return False
    return True


@njit(cache=True, nogil=True)
def ida_star(board0, goal_pos, k, heuristic, pdb, lk_tiles, lk_size, lk_offset, lk_cells, lk_group,
             tile_lookup, max_nodes, stop):
    """Korf's IDA*, parent pruning only; the board is compared with the goal only where h is 0.

    Requires a solvable board (with parent pruning the tree is infinite).

    Returns (status, moves, generated, expanded, deepest): status SOLVED, BUDGET (more
    than max_nodes generated) or STOPPED (``stop[0]`` was set, checked every 4,096 nodes);
    ``deepest`` is the greatest depth generated.
    """
    n = k * k
    nbr = neighbours(k)
    md = _distance_table(goal_pos, k)
    board = board0.copy()
    pos = np.empty(n, np.int64)
    for cell in range(n):
        pos[board[cell]] = cell
    if heuristic == PATTERN_DB:
        n_parts = lk_size.size
        part_group = lk_group
    else:
        n_parts = 1 + 2 * k if heuristic == LINEAR_CONFLICT else 1
        part_group = np.zeros(n_parts, np.int64)
    scratch = np.empty(2 * n, np.int64)
    root_parts = np.zeros(n_parts, np.int64)
    _parts_from_scratch(board, pos, goal_pos, k, heuristic, md, pdb, lk_tiles, lk_size, lk_offset,
                        lk_cells, root_parts, scratch)
    h0 = _combine(root_parts, part_group)
    expanded = 0
    deepest = 0
    bound = h0
    generated = 1  # the root, counted once as in Korf's tables (not once per pass)
    if h0 == 0 and _at_goal(pos, goal_pos):
        return SOLVED, np.empty(0, np.int64), generated, expanded, deepest
    while True:
        expanded += 1
        size = bound + 1
        parts = np.empty((size + 1, n_parts), np.int64)
        parts[0] = root_parts
        path = np.empty(size, np.int64)
        next_dir = np.empty(size, np.int64)
        next_bound = 1 << 30
        depth = 0
        next_dir[0] = 0
        while depth >= 0:
            d = next_dir[depth]
            if d == 4:
                if depth == 0:
                    break
                depth -= 1  # slide the tile back: the blank retraces path[depth]
                blank = pos[0]
                back = nbr[blank, 3 - path[depth]]
                tile = board[back]
                board[blank] = tile
                board[back] = 0
                pos[tile] = blank
                pos[0] = back
                continue
            next_dir[depth] = d + 1
            if depth > 0 and d == 3 - path[depth - 1]:
                continue
            blank = pos[0]
            to = nbr[blank, d]
            if to < 0:
                continue
            tile = board[to]
            board[blank] = tile
            board[to] = 0
            pos[tile] = blank
            pos[0] = to
            child = parts[depth + 1]
            child[:] = parts[depth]
            _update_parts(board, pos, goal_pos, k, heuristic, md, pdb, lk_tiles, lk_size, lk_offset,
                          lk_cells, tile_lookup, child, tile, to, blank, d == 0 or d == 3, scratch)
            h = _combine(child, part_group)
            generated += 1
            if depth + 1 > deepest:
                deepest = depth + 1
            if generated > max_nodes:
                return BUDGET, np.empty(0, np.int64), generated, expanded, deepest
            if generated & 4095 == 0 and stop[0]:
                return STOPPED, np.empty(0, np.int64), generated, expanded, deepest
            f = depth + 1 + h
            if f > bound:
                if f < next_bound:
                    next_bound = f
                board[to] = tile
                board[blank] = 0
                pos[tile] = to
                pos[0] = blank
                continue
            path[depth] = d
            if h == 0 and _at_goal(pos, goal_pos):
                return SOLVED, path[:depth + 1].copy(), generated, expanded, deepest
            expanded += 1
            depth += 1
            next_dir[depth] = 0
        bound = next_bound


@njit(cache=True)
def expand_layer(dist, done, depth, m, k):
    """One layer of the pattern-space search: settle every state at ``depth`` and label its successors.

    A state is the cells of m pattern tiles (tile i of the pattern at home cell
    ``home[i]`` in the goal) then the blank's cell, ranked among n cells. The
    blank moves for free over cells no pattern tile holds; sliding a pattern
    tile costs 1. Returns (states settled at depth, states first labelled depth + 1).
    """
    n = k * k
    nbr = neighbours(k)
    cells = np.empty(m + 1, np.int64)
    held = np.zeros(n, np.int64)  # held[cell] = 1 + index of the pattern tile there, 0 if free
    region = np.empty(n, np.int64)
    in_region = np.zeros(n, np.bool_)
    settled = 0
    labelled = 0
    for idx in range(dist.size):
        if dist[idx] != depth or done[idx]:
            continue
        unrank(idx, m + 1, n, cells)
        for i in range(m):
            held[cells[i]] = i + 1
        # the blank's free region: cells it reaches without moving a pattern tile
        region[0] = cells[m]
        in_region[cells[m]] = True
        size = 1
        head = 0
        while head < size:
            here = region[head]
            head += 1
            for d in range(4):
                there = nbr[here, d]
                if there >= 0 and held[there] == 0 and not in_region[there]:
                    in_region[there] = True
                    region[size] = there
                    size += 1
        for i in range(size):
            cells[m] = region[i]
            j = rank(cells, m + 1, n)
            if dist[j] > depth:
                dist[j] = depth
            if not done[j]:
                done[j] = True
                settled += 1
        for i in range(size):
            here = region[i]
            for d in range(4):
                there = nbr[here, d]
                if there < 0 or held[there] == 0:
                    continue
                tile = held[there] - 1
                cells[tile] = here
                cells[m] = there
                j = rank(cells, m + 1, n)
                if dist[j] == UNSEEN:
                    dist[j] = depth + 1
                    labelled += 1
                cells[tile] = there
        for i in range(size):
            in_region[region[i]] = False
        for i in range(m):
            held[cells[i]] = 0
    return settled, labelled
