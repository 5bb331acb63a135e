"""The Sudoku kernels on hand-built states (also run with NUMBA_BOUNDSCHECK=1 by test_sudoku.py)."""

import numpy as np
import pytest

from solvers.base import stop_flag
from solvers.bits import lowest_bit, popcount
from solvers.sudoku import kernels
from solvers.sudoku.grid import layout, parse

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
EASY_SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def cands_of(text):
    grid = parse(text)
    return kernels.initial_cands(grid.givens, layout(grid.n).full), layout(grid.n)


def run_preprocess(c, lay):
    stats = np.zeros(kernels.STATS_LEN, np.int64)
    queue = np.empty(c.shape[0], np.int64)
    qn = kernels.queue_placed(c, queue)
    pairs = np.empty(c.shape[0], np.int64)
    ok = kernels.preprocess(c, queue, qn, pairs, kernels.queue_pairs(c, pairs), lay.full, lay.peers,
                            lay.units, lay.cell_units, stats)
    return ok, stats


def values(c):
    return "".join(str(lowest_bit(m) + 1) for m in c)


def test_initial_cands_and_conflicts():
    c, lay = cands_of(EASY)
    assert c[0] == 1 << 4 and c[2] == lay.full
    assert kernels.first_conflict(parse(EASY).givens, lay.peers) == (-1, -1)
    twice = parse("5" + EASY[1:9] + "5" + EASY[10:]).givens  # a 5 in row 1 and row 2 of column 1
    assert kernels.first_conflict(twice, lay.peers) == (9, 0)


def test_preprocess_solves_an_easy_grid_with_singles():
    c, lay = cands_of(EASY)
    ok, stats = run_preprocess(c, lay)
    assert ok and values(c) == EASY_SOLUTION
    placed = stats[kernels.NAKED_SINGLE] + stats[kernels.FULL_HOUSE] + stats[kernels.HIDDEN_SINGLE]
    assert placed == EASY.count(".")
    assert kernels.is_solution(c, lay.full, lay.units)


def test_hidden_single_in_a_row():
    # 4x4: value 1 can only go to row 1, column 4 (the other cells of row 1 see a 1)
    c, lay = cands_of("...." ".1.." "..1." "1...")
    c[0] = c[1] = c[2] = 0b1110  # the rest of row 1 holds 2-4 only
    stats = np.zeros(kernels.STATS_LEN, np.int64)
    queue = np.empty(16, np.int64)
    assert kernels._hidden_singles(c, queue, lay.full, lay.units, stats) == 1
    assert c[3] == 1 and queue[0] == 3 and stats[kernels.HIDDEN_SINGLE] == 1


def test_naked_pair_removes_its_values_from_the_unit():
    lay = layout(4)
    c = np.full(16, lay.full, np.int64)
    c[0] = c[1] = 0b0011  # row 1: a pair {1, 2}
    stats = np.zeros(kernels.STATS_LEN, np.int64)
    queue = np.empty(16, np.int64)
    pairs = np.zeros(16, np.int64)
    queued = kernels.queue_pairs(c, pairs)
    qn = kernels._naked_pairs(c, queue, pairs, queued, lay.units, lay.cell_units, stats)
    assert c[2] == c[3] == 0b1100 and stats[kernels.NAKED_PAIR] >= 1 and qn == 0


def test_contradiction_is_found():
    c, lay = cands_of("12.." "...." "...." "....")
    c[2] = 0b0011  # row 1, column 3 may only hold 1 or 2, both taken
    ok, _ = run_preprocess(c, lay)
    assert not ok


def test_greedy_branch_prefers_fewest_then_most_eliminations():
    lay = layout(4)
    c = np.full(16, lay.full, np.int64)
    c[5] = 0b0011   # row 2, column 2: {1, 2}
    c[15] = 0b1100  # row 4, column 4: {3, 4}, not a peer of cell 5
    c[[0, 1, 4]] = 0b1101  # peers of cell 5 without a 2
    c[[6, 7, 9, 13]] = 0b1110  # peers of cell 5 without a 1
    order = np.empty(4, np.int64)
    # tie on two candidates; 3 or 4 in cell 15 removes 7 candidates, 1 or 2 in cell 5 only 3 or 4
    assert kernels.greedy_branch(c, lay.peers, order, np.empty(16, np.int64)) == (15, 2)
    assert list(order[:2]) == [0b0100, 0b1000]
    c[15] = lay.full
    assert kernels.greedy_branch(c, lay.peers, order, np.empty(16, np.int64)) == (5, 2)
    assert list(order[:2]) == [0b0010, 0b0001]  # 2 removes 4 candidates, 1 removes 3


def test_greedy_branch_on_a_complete_grid():
    c, lay = cands_of(EASY_SOLUTION)
    assert kernels.greedy_branch(c, lay.peers, np.empty(9, np.int64), np.empty(81, np.int64)) == (-1, 0)


def test_cell_order_branch_uses_the_first_open_cell():
    c, lay = cands_of(EASY)
    order = np.empty(9, np.int64)
    cell, k = kernels.cell_order_branch(c, 0, lay.full, lay.peers, order)
    assert cell == 2 and [lowest_bit(b) + 1 for b in order[:k]] == [1, 2, 4]


def search(text, greedy=True, max_solutions=10**9, node_limit=10**12, stop=None):
    c, lay = cands_of(text)
    solution = np.zeros(c.shape[0], np.uint8)
    stats = np.zeros(kernels.STATS_LEN, np.int64)
    found = kernels.search(c, 0, greedy, max_solutions, node_limit, lay.full, lay.peers, lay.units,
                     lay.cell_units, solution, stats, stop_flag() if stop is None else stop)
    return found, solution, stats


@pytest.mark.parametrize("greedy", [True, False])
def test_search_counts_every_4x4_grid(greedy):
    found, _solution, stats = search("." * 16, greedy)
    assert found == 288  # the number of 4x4 Sudoku grids
    assert stats[kernels.MAX_DEPTH] <= 16 and stats[kernels.LEAVES] >= found


def test_search_stops_at_max_solutions_and_budget():
    found, _, stats = search("." * 81, max_solutions=500)
    assert found == 500
    found, _, stats = search("." * 81, node_limit=100)
    assert found == kernels.BUDGET_EXCEEDED and stats[kernels.NODES] == 101


@pytest.mark.parametrize("n", [16, 25])
def test_search_fills_large_empty_grids(n):
    found, solution, _stats = search("." * n * n, max_solutions=3)
    assert found == 3
    c, lay = cands_of("".join(".123456789ABCDEFGHIJKLMNOP"[v] for v in solution))
    assert kernels.is_solution(c, lay.full, lay.units)


def test_expand_one_node_of_the_split():
    c, lay = cands_of("........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3")
    order = np.empty(9, np.int64)
    stats = np.zeros(kernels.STATS_LEN, np.int64)
    status, cell, k = kernels.expand(c, True, 3, lay.full, lay.peers, lay.units, lay.cell_units, order, stats)
    assert status == kernels.BRANCH and k >= 2 and popcount(c[cell]) == k
    assert stats[kernels.NODES] == 1 and stats[kernels.MAX_DEPTH] == 3
    done, _ = cands_of(EASY_SOLUTION)
    status, _, _ = kernels.expand(done, False, 0, lay.full, lay.peers, lay.units, lay.cell_units, order,
                                  stats)
    assert status == kernels.COMPLETE
