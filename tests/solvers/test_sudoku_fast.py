"""The fast 9x9 kernels on hand-built states and small sets (also run by test_sudoku_batch.py
without the JIT and with bounds checks)."""

import numpy as np

from solvers import sudoku_fast as fast

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
EASY_SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
HARD = "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3"
MULTI = "8.........95.......76.........426798...571243...893165......916....3.487....1.532"  # 2+ solutions
NONE = "1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4."


def givens(*texts):
    return np.array([[0 if ch == "." else int(ch) for ch in t] for t in texts], np.uint8)


def state_of(text):
    state = np.empty(fast.CELLS, np.int32)
    fast.initial_state(givens(text), 0, state)
    return state


def text_of(values):
    return "".join(str(v) for v in values)


def solve(text, max_solutions=2, locked=True):
    solution = np.zeros((1, fast.CELLS), np.uint8)
    counters = np.zeros(fast.COUNTERS, np.int64)
    found = fast.solve_one(givens(text), max_solutions, locked, solution, counters)
    return found, text_of(solution[0]), counters


def test_tables():
    peers = fast.PEERS
    assert peers.shape == (81, 20) and 0 not in peers[0] and {1, 9, 10, 80 - 80} - {0} <= set(peers[0])
    assert fast.POPCOUNT[0b101101] == 4 and fast.VALUE[0b100] == 3 and fast.VALUE[1 << 8] == 9


def test_naked_singles_solve_an_easy_grid():
    state = state_of(EASY)
    queue = np.empty(fast.CELLS, np.int32)
    counters = np.zeros(fast.COUNTERS, np.int64)
    assert fast.propagate(state, queue, fast.queue_singles(state, queue), fast.ALL_UNITS, False, counters)
    assert text_of(fast.VALUE[state & fast.FULL]) == EASY_SOLUTION
    assert (state & fast.DONE).all()
    assert counters[fast.NAKED] + counters[fast.HIDDEN] == EASY.count(".")


def test_hidden_single_places_the_only_cell_of_a_value():
    # row 1: value 1 is possible only in column 9 (the others hold 2-9)
    state = np.full(fast.CELLS, fast.FULL, np.int32)
    state[:8] = fast.FULL & ~1
    queue = np.empty(fast.CELLS, np.int32)
    counters = np.zeros(fast.COUNTERS, np.int64)
    assert fast.hidden_singles(state, queue, fast.ALL_UNITS, counters) > 0
    assert state[8] == 1 | fast.DONE and counters[fast.HIDDEN] >= 1
    assert all(state[p] & 1 == 0 for p in fast.PEERS[8])


def test_a_unit_without_a_value_is_a_contradiction():
    state = np.full(fast.CELLS, fast.FULL, np.int32)
    state[:9] = fast.FULL & ~(1 << 4)  # no 5 anywhere in row 1
    counters = np.zeros(fast.COUNTERS, np.int64)
    assert fast.hidden_singles(state, np.empty(fast.CELLS, np.int32), fast.ALL_UNITS, counters) == -1


def test_two_equal_singles_among_peers_are_a_contradiction():
    state = np.full(fast.CELLS, fast.FULL, np.int32)
    state[0] = state[1] = 1 << 2
    queue = np.empty(fast.CELLS, np.int32)
    counters = np.zeros(fast.COUNTERS, np.int64)
    assert fast.naked_singles(state, queue, fast.queue_singles(state, queue), counters) == -1


def test_pointing_removes_a_value_from_the_rest_of_the_line():
    # in box 1, value 1 is possible in row 1 only: it leaves row 1 outside box 1
    state = np.full(fast.CELLS, fast.FULL, np.int32)
    for cell in (9, 10, 11, 18, 19, 20):
        state[cell] = fast.FULL & ~1
    queue = np.empty(fast.CELLS, np.int32)
    assert fast.locked_candidates(state, queue, fast.ALL_UNITS)[0] == 0
    assert all(state[c] & 1 == 0 for c in range(3, 9))
    assert state[0] & 1 and state[27] & 1  # the box itself and column 1 below keep it


def test_claiming_removes_a_value_from_the_rest_of_the_box():
    # in row 1, value 1 is possible in box 1 only: it leaves box 1 outside row 1
    state = np.full(fast.CELLS, fast.FULL, np.int32)
    state[3:9] = fast.FULL & ~1
    queue = np.empty(fast.CELLS, np.int32)
    assert fast.locked_candidates(state, queue, fast.ALL_UNITS)[0] == 0
    assert all(state[c] & 1 == 0 for c in (9, 10, 11, 18, 19, 20))
    assert state[12] & 1


def test_locked_candidates_reports_no_change():
    state = np.full(fast.CELLS, fast.FULL, np.int32)
    assert fast.locked_candidates(state, np.empty(fast.CELLS, np.int32), fast.ALL_UNITS) == (0, 0)


def test_branch_cell_takes_the_first_with_fewest_values():
    state = np.full(fast.CELLS, fast.FULL, np.int32)
    state[5] = 0b111
    state[7] = 0b11
    state[9] = 0b101
    assert fast.branch_cell(state) == 7
    state[:] = fast.DONE | 1
    assert fast.branch_cell(state) == -1


def test_search_solves_proves_and_counts():
    found, solution, counters = solve(EASY)
    assert (found, solution) == (1, EASY_SOLUTION) and counters[fast.GUESSES] == 0
    found, solution, counters = solve(HARD)
    assert found == 1 and counters[fast.GUESSES] > 0 and counters[fast.NODES] > counters[fast.GUESSES]
    assert all(h in (".", s) for h, s in zip(HARD, solution, strict=True))
    assert solve(NONE)[0] == 0
    assert solve(MULTI, max_solutions=2)[0] == 2
    assert solve("." * 81, max_solutions=1000)[0] == 1000


def test_locked_candidates_change_the_work_not_the_answers():
    for text in (HARD, MULTI, NONE):
        with_locked, without = solve(text, 10, True), solve(text, 10, False)
        assert with_locked[:2] == without[:2]
    assert solve(HARD, 2, True)[2][fast.NODES] < solve(HARD, 2, False)[2][fast.NODES]


def test_batch_checks_solves_and_verifies_each_row():
    conflict = "55" + EASY[2:]
    batch = givens(EASY, conflict, HARD, NONE, MULTI)
    solutions = np.zeros((5, fast.CELLS), np.uint8)
    found = np.zeros(5, np.int64)
    counters = np.zeros((5, fast.COUNTERS), np.int64)
    faults = np.zeros((5, 3), np.int64)
    fast.solve_batch(batch, 2, True, solutions, found, counters, faults)
    assert found.tolist() == [1, 0, 1, 0, 2]
    assert faults.tolist() == [[0, 0, 0], [fast.CONFLICT, 1, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert text_of(solutions[0]) == EASY_SOLUTION
    assert counters[1].sum() == 0 and counters[2, fast.NODES] > 1
    assert fast.first_conflict(batch, 0) == (-1, -1)
