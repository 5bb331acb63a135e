"""The IDA* kernel: Korf's IDA* for every heuristic (misplaced tiles, Manhattan, Manhattan + linear
conflict, additive pattern databases), one search compiled once per heuristic.

  lookup      one pattern-database probe: which tiles (``lk_tiles``), through
              which cell map (identity, or the diagonal reflection), into which
              slice of the concatenated tables (``lk_offset``); ``tile_lookup``
              says which lookup reads a tile in each group (direct, reflected).
  group       lookups whose values add up to an admissible bound; h is the
              larger group sum.

Boards, directions and the types are kernels.py's. Stacks are sized from the IDA* bound: a node on
the stack has g <= f <= bound.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from solvers.sliding.kernels import Bytes, Flags, Ints, jit, neighbours, rank

Found = tuple[int, Ints, int, int, int]  # status, moves, generated, expanded, deepest

MISPLACED, MANHATTAN, LINEAR_CONFLICT, PATTERN_DB = 0, 1, 2, 3
SOLVED, BUDGET, STOPPED = 1, -1, -2


@jit()
def _distance_table(goal_pos: Ints, k: int) -> Ints:
    """md[tile, cell] = Manhattan distance of ``tile`` at ``cell`` from its goal cell (0 for the blank)."""
    n = k * k
    md = np.zeros((n, n), np.int64)
    for t in range(1, n):
        g = goal_pos[t]
        for cell in range(n):
            md[t, cell] = abs(cell // k - g // k) + abs(cell % k - g % k)
    return md


@jit()
def _line_conflict(board: Ints, goal_pos: Ints, k: int, line: int, is_row: bool, scratch: Ints) -> int:
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
        longest = max(longest, run)
    return 2 * (m - longest)


@jit()
def _tile_table(goal_pos: Ints, k: int, heuristic: int) -> Ints:
    """tbl[tile * n + cell] = the tile's share of h at that cell: 1 if misplaced, else its
    Manhattan distance home (linear conflict adds its penalty on top)."""
    n = k * k
    md = _distance_table(goal_pos, k)
    tbl = np.empty(n * n, np.int64)
    for t in range(n):
        for cell in range(n):
            tbl[t * n + cell] = int(md[t, cell] > 0) if heuristic == MISPLACED else md[t, cell]
    return tbl


@jit()
def _pdb_weights(lk_tiles: Ints, lk_size: Ints, tile_lookup: Ints, n: int) -> Ints:
    """weight[tile * groups + group]: how far the tile's lookup index moves per cell it moves
    (a lookup's index is its tiles' cells as digits in base n, the first tile most significant)."""
    groups = tile_lookup.shape[1]
    weight = np.zeros(n * groups, np.int64)
    for j in range(lk_size.size):
        w = 1
        for i in range(lk_size[j] - 1, -1, -1):
            t = lk_tiles[j, i]
            for g in range(groups):
                if tile_lookup[t, g] == j:
                    weight[t * groups + g] = w
            w *= n
    return weight


@jit()
def _ranked_index(pos: Ints, j: int, lk_tiles: Ints, lk_size: Ints, lk_offset: Ints, lk_cells: Ints,
                  scratch: Ints) -> int:
    """Where lookup j reads a compact (ranked) table for the tiles at ``pos``."""
    for i in range(lk_size[j]):
        scratch[i] = lk_cells[j, pos[lk_tiles[j, i]]]
    return lk_offset[j] + rank(scratch, lk_size[j], pos.size)


@jit()
def _pdb_slots(pos: Ints, k: int, lk_tiles: Ints, lk_size: Ints, lk_offset: Ints, lk_cells: Ints,
               tile_lookup: Ints, ranked: bool) -> tuple[Ints, Ints, Ints]:
    """_ida's view of the lookups: (slot_of, shift, index0).

    Slots 0..L-1 are the direct lookups, L..2L-1 the reflected ones (or the direct
    ones again when there is no reflection); slot s reads lookup s % lk_size.size;
    slot_of[t, g] = tile t's slot in group g; shift[g, t * n + cell] = the part of that
    slot's index due to t at cell in a spread table; index0 = each slot's index (its
    table's offset included) for the tiles at ``pos``, spread or ``ranked``.
    """
    n = k * k
    groups = tile_lookup.shape[1]
    per_group = lk_size.size // groups
    weight = _pdb_weights(lk_tiles, lk_size, tile_lookup, n)
    slot_of = np.zeros((n, 2), np.int64)
    shift = np.zeros((2, n * n), np.int64)
    index0 = np.zeros(2 * per_group, np.int64)
    scratch = np.empty(n, np.int64)
    for g in range(2):
        source = g if groups == 2 else 0
        for t in range(1, n):
            j = tile_lookup[t, source]
            slot_of[t, g] = g * per_group + j - source * per_group
            for cell in range(n):
                shift[g, t * n + cell] = lk_cells[j, cell] * weight[t * groups + source]
        for p in range(per_group):
            j = source * per_group + p
            if ranked:
                index0[g * per_group + p] = _ranked_index(pos, j, lk_tiles, lk_size, lk_offset, lk_cells,
                                                          scratch)
                continue
            index0[g * per_group + p] = lk_offset[j]
            for i in range(lk_size[j]):
                t = lk_tiles[j, i]
                index0[g * per_group + p] += shift[g, t * n + pos[t]]
    return slot_of, shift, index0


@jit()
def _at_goal(board: Ints, goal_pos: Ints) -> bool:
    for t in range(board.size):  # noqa: SIM110 (numba compiles no generator expressions)
        if board[goal_pos[t]] != t:
            return False
    return True


@jit()
def _checkpoint(generated: int, max_nodes: int, stop: Flags) -> int:
    """BUDGET past max_nodes, STOPPED once the stop flag is set, else 0 (go on)."""
    if generated > max_nodes:
        return BUDGET
    return STOPPED if stop[0] else 0


# IDA*: one search for every heuristic, compiled once per heuristic (_ida_for). The search keeps
# h along the path; what else a heuristic keeps is a few entries, each a part of h (a move changes
# two of them):
#   MISPLACED, MANHATTAN  none: h is a sum of per-tile tables (tbl[tile * n + cell]).
#   LINEAR_CONFLICT       Manhattan by table plus each line's penalty: value[0..k-1] the rows',
#                         value[k..2k-1] the columns'. A move changes the two lines (rows for a
#                         vertical move, columns for a horizontal one) the tile leaves and enters.
#   PATTERN_DB            per slot (_pdb_slots) its table index and value, and per group the sum
#                         of its slots' values; h is the larger sum. A move changes the moved
#                         tile's slot in each group: one probe each, its index shifted by the
#                         tile's share, or re-ranked from the tiles' cells (pos) when ``ranked``.
# Entering a child keeps the entries it changes in saved[depth]; leaving it puts them back.
# One test per node covers both the budget and the stop flag's 4,096-node period.

Tables = tuple[Bytes, Ints, Ints, Ints, Ints, Ints, bool]  # ida_star's pdb .. ranked: pdb.Tables.arrays()


@jit(nogil=True, inline="always")
def _ida(board: Ints, goal_pos: Ints, k: int, heuristic: int, tbl: Ints, tables: Tables, max_nodes: int,
         stop: Flags) -> Found:
    """ida_star on ``board`` (changed along the search) for one heuristic, the per-tile table ``tbl``
    already made."""
    pdb, lk_tiles, lk_size, lk_offset, lk_cells, tile_lookup, ranked = tables
    n = k * k
    nbr = neighbours(k).ravel()
    scratch = np.empty(2 * n, np.int64)
    pos = np.empty(n, np.int64)
    for cell in range(n):
        pos[board[cell]] = cell
    h0 = 0
    for cell in range(n):
        h0 += tbl[board[cell] * n + cell]
    value = np.zeros(2 * k, np.int64)
    index = np.zeros(2 * k, np.int64)
    sums = np.zeros(2, np.int64)
    slot_of = np.zeros((n, 2), np.int64)
    shift = np.zeros((2, n * n), np.int64)
    if heuristic == LINEAR_CONFLICT:
        for line in range(k):
            value[line] = _line_conflict(board, goal_pos, k, line, True, scratch)
            value[k + line] = _line_conflict(board, goal_pos, k, line, False, scratch)
        h0 += value.sum()
    elif heuristic == PATTERN_DB:
        slot_of, shift, index = _pdb_slots(pos, k, lk_tiles, lk_size, lk_offset, lk_cells, tile_lookup,
                                           ranked)
        value = np.empty(index.size, np.int64)
        for j in range(index.size):
            value[j] = pdb[index[j]]
            sums[0 if 2 * j < index.size else 1] += value[j]
        h0 = max(sums[0], sums[1])
    generated = 1
    expanded = 0
    deepest = 0
    bound = h0
    if h0 == 0 and _at_goal(board, goal_pos):
        return SOLVED, nbr[:0].copy(), generated, expanded, deepest
    check_at = min(4096, max_nodes + 1)
    e0 = e1 = i0 = i1 = v0 = v1 = 0  # the entries a move changes, their new indices and values
    while True:
        expanded += 1
        deepest = max(deepest, 1)
        path = np.empty(bound + 2, np.int64)
        next_dir = np.empty(bound + 2, np.int64)
        h_at = np.empty(bound + 2, np.int64)
        saved = np.empty((bound + 2, 6), np.int64)  # per depth: e0, e1, their values, their indices
        next_bound = 1 << 30
        depth = 0
        d = 0
        h = h0
        forbid = -1
        blank = pos[0]
        while True:
            if d < 4:
                to = nbr[blank * 4 + d]
                if d == forbid or to < 0:
                    d += 1
                    continue
                tile = board[to]
                if heuristic == PATTERN_DB:
                    e0 = slot_of[tile, 0]
                    e1 = slot_of[tile, 1]
                    if ranked:
                        pos[tile] = blank
                        lookups = lk_size.size
                        i0 = _ranked_index(pos, e0 % lookups, lk_tiles, lk_size, lk_offset, lk_cells, scratch)
                        i1 = _ranked_index(pos, e1 % lookups, lk_tiles, lk_size, lk_offset, lk_cells, scratch)
                        pos[tile] = to
                    else:
                        i0 = index[e0] + shift[0, tile * n + blank] - shift[0, tile * n + to]
                        i1 = index[e1] + shift[1, tile * n + blank] - shift[1, tile * n + to]
                    v0 = pdb[i0]
                    v1 = pdb[i1]
                    hc = max(sums[0] - value[e0] + v0, sums[1] - value[e1] + v1)
                else:
                    hc = h + tbl[tile * n + blank] - tbl[tile * n + to]
                    if heuristic == LINEAR_CONFLICT:
                        vertical = d == 0 or d == 3
                        e0 = to // k if vertical else k + to % k
                        e1 = blank // k if vertical else k + blank % k
                        board[blank] = tile  # the lines are counted on the child's board
                        board[to] = 0
                        v0 = _line_conflict(board, goal_pos, k, e0 if vertical else e0 - k, vertical, scratch)
                        v1 = _line_conflict(board, goal_pos, k, e1 if vertical else e1 - k, vertical, scratch)
                        hc += v0 + v1 - value[e0] - value[e1]
                generated += 1
                if generated == check_at:
                    status = _checkpoint(generated, max_nodes, stop)
                    if status != 0:
                        return status, path[:0].copy(), generated, expanded, deepest
                    check_at = min(generated + 4096, max_nodes + 1)
                f = depth + 1 + hc
                if f > bound:
                    next_bound = min(next_bound, f)
                    if heuristic == LINEAR_CONFLICT:
                        board[to] = tile
                        board[blank] = 0
                    d += 1
                    continue
                board[blank] = tile
                board[to] = 0
                path[depth] = d
                if hc == 0 and (heuristic == MANHATTAN or _at_goal(board, goal_pos)):  # tiles: 0 at the goal
                    return SOLVED, path[:depth + 1].copy(), generated, expanded, deepest
                if heuristic != MANHATTAN:  # a heuristic with entries
                    saved[depth, 0] = e0
                    saved[depth, 1] = e1
                    saved[depth, 2] = value[e0]
                    saved[depth, 3] = value[e1]
                    if heuristic == PATTERN_DB:
                        pos[tile] = blank
                        saved[depth, 4] = index[e0]
                        saved[depth, 5] = index[e1]
                        sums[0] += v0 - value[e0]
                        sums[1] += v1 - value[e1]
                        index[e0] = i0
                        index[e1] = i1
                    value[e0] = v0
                    value[e1] = v1
                h_at[depth] = h
                next_dir[depth] = d + 1
                expanded += 1
                depth += 1
                deepest = max(deepest, depth + 1)
                blank = to
                h = hc
                forbid = 3 - d
                d = 0
            else:
                if depth == 0:
                    break
                depth -= 1  # slide the tile back: the blank retraces path[depth]
                back = nbr[blank * 4 + 3 - path[depth]]
                tile = board[back]
                board[blank] = tile
                board[back] = 0
                if heuristic != MANHATTAN:
                    e0 = saved[depth, 0]
                    e1 = saved[depth, 1]
                    if heuristic == PATTERN_DB:
                        pos[tile] = blank
                        sums[0] += saved[depth, 2] - value[e0]
                        sums[1] += saved[depth, 3] - value[e1]
                        index[e0] = saved[depth, 4]
                        index[e1] = saved[depth, 5]
                    value[e0] = saved[depth, 2]
                    value[e1] = saved[depth, 3]
                blank = back
                h = h_at[depth]
                d = next_dir[depth]
                forbid = 3 - path[depth - 1] if depth > 0 else -1
        bound = next_bound


def _ida_for(heuristic: int) -> Callable[[Ints, Ints, int, Ints, Tables, int, Flags], Found]:
    """_ida compiled for one heuristic: a kernel of its own with _ida inlined, the heuristic a
    constant there, so that its loop keeps only that heuristic's steps."""
    def search(board: Ints, goal_pos: Ints, k: int, tbl: Ints, tables: Tables, max_nodes: int,
               stop: Flags) -> Found:
        return _ida(board, goal_pos, k, heuristic, tbl, tables, max_nodes, stop)
    return jit(nogil=True)(search)


_ida_tiles = _ida_for(MANHATTAN)  # misplaced and Manhattan differ only in tbl
_ida_conflict = _ida_for(LINEAR_CONFLICT)
_ida_pdb = _ida_for(PATTERN_DB)


@jit(nogil=True)
def ida_star(board0: Ints, goal_pos: Ints, k: int, heuristic: int, pdb: Bytes, lk_tiles: Ints, lk_size: Ints,
             lk_offset: Ints, lk_cells: Ints, tile_lookup: Ints, ranked: bool, max_nodes: int,
             stop: Flags) -> Found:
    """Korf's IDA*, parent pruning only, iterative over an explicit stack; nothing is allocated
    per node and h is updated from tables, never recomputed whole.

    Requires a solvable board (with parent pruning the tree is infinite) and, for the
    pattern database, patterns that together cover every tile; their tables are indexed by
    the cells as base-n digits (pdb_kernels.spread_table) or, ``ranked``, by rank (compact).

    Returns (status, moves, generated, expanded, deepest): status SOLVED, BUDGET (more
    than max_nodes generated) or STOPPED (``stop[0]`` was set, checked every 4,096 nodes);
    ``deepest`` is the greatest depth generated.
    """
    board = board0.copy()
    tbl = _tile_table(goal_pos, k, heuristic)
    tables = (pdb, lk_tiles, lk_size, lk_offset, lk_cells, tile_lookup, ranked)
    if heuristic == PATTERN_DB:
        return _ida_pdb(board, goal_pos, k, tbl, tables, max_nodes, stop)
    if heuristic == LINEAR_CONFLICT:
        return _ida_conflict(board, goal_pos, k, tbl, tables, max_nodes, stop)
    return _ida_tiles(board, goal_pos, k, tbl, tables, max_nodes, stop)
