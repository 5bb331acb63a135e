"""The fast 9x9 kernels (fastprop.py's rules, fast.py's search and batch) on hand-built states
and small sets (also run by test_sudoku_batch.py without the JIT and with bounds checks)."""

import json

import numpy as np

from solvers.sudoku import answers, fastprop
from solvers.sudoku import fast as fastk
from solvers.sudoku.outcome import fast_stats

EASY = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
EASY_SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
HARD = "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3"
MULTI = "8.........95.......76.........426798...571243...893165......916....3.487....1.532"  # 2+ solutions
NONE = "1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4."


def givens(*texts):
    return np.array([[0 if ch == "." else int(ch) for ch in t] for t in texts], np.uint8)


def state_of(text):
    state = np.empty(fastk.ROW, np.int64)  # a stack row: the state, then the search's words
    assert fastk.initial_state(givens(text), 0, state) == fastprop.ALL_DIGITS
    return state


def open_state():
    """Every digit possible everywhere, nothing placed."""
    state = np.full(fastk.ROW, fastprop.BAND, np.int64)
    state[fastprop.SOLVED:] = 0
    return state


def remove(state, cells, value):
    for cell in cells:
        state[(value - 1) * 3 + cell // 27] &= ~(1 << cell % 27)


def possible(state, cell, value):
    return bool(state[(value - 1) * 3 + cell // 27] >> (cell % 27) & 1)


def values_of(state):
    values = np.zeros((1, fastprop.CELLS), np.uint8)
    fastk.write_values(state, values, 0)
    return "".join(str(v) for v in values[0])


def solve(text, max_solutions=2, locked=True):
    solution = np.zeros((1, fastprop.CELLS), np.uint8)
    counters = np.zeros(fastk.COUNTERS, np.int64)
    found = fastk.solve_one(givens(text), max_solutions, locked, solution, counters)
    return found, "".join(str(v) for v in solution[0]), counters


def test_tables():
    bits = [[bin(int(w)).count("1") for w in fastprop.PEER_WORDS[cell]] for cell in (0, 40, 80)]
    # row, box and column in the cell's band; the column elsewhere
    assert bits == [[14, 3, 3], [3, 14, 3], [3, 3, 14]]
    assert not fastprop.PEER_WORDS[0, 0] & 1 and fastprop.PEER_WORDS[0, 0] & (1 << 8 | 1 << 10 | 1 << 18)
    assert [fastprop.single(x) for x in (0, 0b100, 0b110, 1 << 26)] == [0, 0b100, 0, 1 << 26]
    assert fastprop.LOCKED[0b111_111_111] == 0b111_111_111  # nothing confined
    # box 0 only in line 0: line 0 leaves boxes 1 and 2 (pointing)
    assert fastprop.LOCKED[0b110_110_111] == 0b110_110_001
    # line 0 only in box 0: box 0 leaves lines 1 and 2 (claiming)
    assert fastprop.LOCKED[0b111_111_001] == 0b110_110_001


def test_place_clears_the_cell_and_the_peers():
    state = open_state()
    assert fastprop.place(state, 40, 4) == fastprop.ALL_DIGITS
    assert possible(state, 40, 5) and not possible(state, 40, 4)
    assert not any(possible(state, p, 5) for p in (36, 44, 4, 76, 30, 50))  # row, column, box
    assert possible(state, 0, 5) and state[fastprop.SOLVED + 1] == 1 << 13
    assert fastprop.place(state, 44, 4) == -1  # a peer lost the digit


def test_singles_solve_an_easy_grid():
    state = state_of(EASY)
    counters = np.zeros(fastk.COUNTERS, np.int64)
    assert fastk.propagate(state, fastprop.ALL_DIGITS, False, counters)
    assert values_of(state) == EASY_SOLUTION
    assert fastk.branch_cell(state) == -1
    assert counters[fastk.NAKED] + counters[fastk.HIDDEN] == EASY.count(".")


def test_naked_single_places_the_last_digit_of_a_cell():
    state = open_state()
    for value in range(1, 9):
        remove(state, [10], value)
    changed, placed = fastprop.naked_singles(state)
    assert changed > 0 and placed == 1 and possible(state, 10, 9) and not possible(state, 11, 9)


def test_hidden_single_places_the_only_cell_of_a_value():
    # row 1: value 1 is possible only in column 9
    state = open_state()
    remove(state, range(8), 1)
    changed, placed = fastprop.hidden_singles(state, 0)
    assert changed > 0 and placed == 1 and state[fastprop.SOLVED] == 1 << 8
    assert not any(possible(state, p, 1) for p in (17, 26, 80))
    assert not any(possible(state, 8, v) for v in range(2, 10))


def test_hidden_single_in_a_column_and_in_a_box():
    state = open_state()
    remove(state, [r * 9 + 4 for r in range(1, 9)], 3)  # column 5: only row 1
    # the open cell had every digit, so every board changed
    assert fastprop.hidden_singles(state, 2) == (fastprop.ALL_DIGITS, 1) and state[fastprop.SOLVED] == 1 << 4
    state = open_state()
    remove(state, [30, 31, 32, 39, 41, 48, 49, 50], 7)  # box 5: only its centre
    assert fastprop.hidden_singles(state, 6)[0] > 0 and state[fastprop.SOLVED + 1] == 1 << 13


def test_a_unit_without_a_value_is_a_contradiction():
    for unit in (range(9), [r * 9 + 8 for r in range(9)], [60, 61, 62, 69, 70, 71, 78, 79, 80]):
        state = open_state()
        remove(state, unit, 5)
        assert fastprop.hidden_singles(state, 4)[0] == -1


def test_a_cell_without_digits_and_two_equal_singles_are_contradictions():
    counters = np.zeros(fastk.COUNTERS, np.int64)
    state = open_state()
    for value in range(1, 10):
        remove(state, [33], value)
    assert fastprop.naked_singles(state)[0] == -1
    state = open_state()
    for value in range(2, 10):
        remove(state, [0, 1], value)  # two cells of row 1 left with 1 only
    assert fastprop.naked_singles(state)[0] == -1
    assert not fastk.propagate(state, fastprop.ALL_DIGITS, True, counters)


def test_pointing_removes_a_value_from_the_rest_of_the_line():
    # in box 1, value 1 is possible in row 1 only: it leaves row 1 outside box 1
    state = open_state()
    remove(state, (9, 10, 11, 18, 19, 20), 1)
    assert fastprop.locked_candidates(state, 0)
    assert not any(possible(state, c, 1) for c in range(3, 9))
    assert possible(state, 0, 1) and possible(state, 27, 1)  # the box itself and column 1 below keep it


def test_claiming_removes_a_value_from_the_rest_of_the_box():
    # in row 1, value 1 is possible in box 1 only: it leaves box 1 outside row 1
    state = open_state()
    remove(state, range(3, 9), 1)
    assert fastprop.locked_candidates(state, 0)
    assert not any(possible(state, c, 1) for c in (9, 10, 11, 18, 19, 20))
    assert possible(state, 12, 1)


def test_locked_candidates_along_columns():
    # in box 1, value 2 is possible in column 1 only: it leaves column 1 below box 1 (pointing)
    state = open_state()
    remove(state, (1, 2, 10, 11, 19, 20), 2)
    assert fastprop.locked_candidates(state, 1)
    assert not any(possible(state, r * 9, 2) for r in range(3, 9)) and possible(state, 28, 2)
    # in column 9, value 3 is possible in box 9 only: it leaves box 9 outside column 9 (claiming)
    state = open_state()
    remove(state, [r * 9 + 8 for r in range(6)], 3)
    assert fastprop.locked_candidates(state, 2)
    assert not any(possible(state, c, 3) for c in (60, 61, 69, 70, 78, 79)) and possible(state, 59, 3)


def test_locked_candidates_reports_no_change():
    state = open_state()
    assert not fastprop.locked_candidates(state, 0)
    assert (state == open_state()).all()


def only(state, cells, values):
    """Leave only ``values`` in ``cells``."""
    for value in range(1, 10):
        if value not in values:
            remove(state, cells, value)


def test_a_triad_with_three_digits_left_holds_them():
    state = open_state()
    only(state, [0, 1, 2], (1, 2, 3))  # row 1's part of box 1
    assert fastprop.triads(state) == 0b111
    for value in (1, 2, 3):
        assert all(possible(state, cell, value) for cell in (0, 1, 2, 27, 80))
        assert not any(possible(state, cell, value) for cell in (3, 8, 9, 11, 18, 20))
    assert possible(state, 3, 4) and fastprop.triads(state) == 0  # the other digits keep their cells


def test_a_triad_down_a_column_with_three_digits_left_holds_them():
    state = open_state()
    only(state, [0, 9, 18], (4, 5, 6))  # column 1's part of box 1
    assert fastprop.triads(state) == 0b111000
    assert all(possible(state, cell, 5) for cell in (0, 9, 18, 3, 4))
    assert not any(possible(state, cell, 5) for cell in (27, 72, 1, 2, 19, 20))


def test_a_triad_with_three_sure_digits_holds_no_other():
    state = open_state()
    for value in (7, 8, 9):  # alone in box 1 in row 1: sure there
        remove(state, [9, 10, 11, 18, 19, 20], value)
    assert fastprop.triads(state) == 0b000111111
    assert not any(possible(state, cell, value) for cell in (0, 1, 2) for value in range(1, 7))
    assert all(possible(state, cell, 7) for cell in (0, 1, 2, 27))
    assert possible(state, 9, 1) and possible(state, 3, 1) and possible(state, 3, 7)


def test_a_triad_with_two_digits_left_or_four_sure_is_a_contradiction():
    state = open_state()
    only(state, [0, 1, 2], (1, 2))
    assert fastprop.triads(state) == -1
    state = open_state()
    for value in (6, 7, 8, 9):
        remove(state, [9, 10, 11, 18, 19, 20], value)
    assert fastprop.triads(state) == -1


def test_branch_cell_prefers_two_digits_then_three():
    state = open_state()
    assert fastk.branch_cell(state) == 0  # none with fewer than nine: the first open cell
    for value in range(4, 10):
        remove(state, [50, 70], value)
    assert fastk.branch_cell(state) == 50  # three digits left
    remove(state, [70], 3)
    assert fastk.branch_cell(state) == 70  # two digits left
    assert fastk.lowest_digit(state, 70) == 0
    state[fastprop.SOLVED:] = fastprop.BAND
    assert fastk.branch_cell(state) == -1


def test_branch_cell_takes_the_two_digit_cell_whose_digits_most_peers_have():
    state = open_state()
    for value in range(3, 10):
        remove(state, [0, 80], value)  # cells 0 and 80 keep 1 and 2
    assert fastk.branch_cell(state) == 0  # a tie: the first
    remove(state, [1, 2, 3, 9, 10], 1)  # five peers of cell 0 lose 1: cell 80's digits reach more
    assert fastk.branch_cell(state) == 80


def test_search_solves_proves_and_counts():
    found, solution, counters = solve(EASY)
    assert (found, solution) == (1, EASY_SOLUTION) and counters[fastk.GUESSES] == 0
    assert counters[fastk.NODES] == counters[fastk.LEAVES] == 1
    found, solution, counters = solve(HARD)
    assert found == 1 and counters[fastk.GUESSES] > 0
    assert counters[fastk.NODES] == 2 * counters[fastk.GUESSES] + 1  # exhausted: every child and sibling
    assert all(h in (".", s) for h, s in zip(HARD, solution, strict=False))
    assert solve(NONE)[0] == 0
    assert solve(MULTI, max_solutions=2)[0] == 2
    assert solve("." * 81, max_solutions=1000)[0] == 1000
    assert solve("55" + EASY[2:])[0] == 0  # contradicting givens


def test_locked_candidates_change_the_work_not_the_answers():
    for text in (HARD, MULTI, NONE):
        with_locked, without = solve(text, 10, True), solve(text, 10, False)
        assert with_locked[0] == without[0]
        if with_locked[0] == 1:  # which of several solutions comes first depends on the branching
            assert with_locked[1] == without[1]
    assert solve(HARD, 2, True)[2][fastk.NODES] < solve(HARD, 2, False)[2][fastk.NODES]


def test_first_conflict_names_the_first_repeat_in_reading_order():
    batch = givens("55" + EASY[2:], EASY[:80] + "3", EASY)
    assert fastk.first_conflict(batch, 0) == (1, 0)
    assert fastk.first_conflict(batch, 1) == (80, 35)  # the 3 in row 4 of column 9
    assert fastk.first_conflict(batch, 2) == (-1, -1)


def test_batch_checks_solves_and_verifies_each_row():
    conflict = "55" + EASY[2:]
    batch = givens(EASY, conflict, HARD, NONE, MULTI)
    solutions = np.zeros((5, fastprop.CELLS), np.uint8)
    found = np.zeros(5, np.int64)
    counters = np.zeros((5, fastk.COUNTERS), np.int64)
    faults = np.zeros((5, 3), np.int64)
    fastk.solve_batch(batch, 2, True, solutions, found, counters, faults)
    assert found.tolist() == [1, 0, 1, 0, 2]
    assert faults.tolist() == [[0, 0, 0], [fastk.CONFLICT, 1, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert "".join(str(v) for v in solutions[0]) == EASY_SOLUTION
    assert counters[1].sum() == 0 and counters[2, fastk.NODES] > 1
    # the answers' texts, as the encoder writes the outcomes' dicts (test_sudoku_batch.py compares
    # them on whole sets; here the kernel runs without the JIT too)
    texts = answers.texts(solutions, found, counters, 2, "0.25")
    assert json.loads(texts[1])[0] is None and json.loads(texts[3])[0] is None
    assert json.loads(texts[0]) == [{"solution": EASY_SOLUTION, "unique": True, "solutions_found": 1},
                                    fast_stats(*counters[0].tolist(), 0.25)]
    assert json.loads(texts[4])[0]["solutions_found"] == 2 and not json.loads(texts[4])[0]["unique"]
    assert answers.texts(solutions[:0], found[:0], counters[:0], 2, "1") == []


def test_answers_write_numbers_of_every_length():
    out = np.zeros(64, np.uint8)
    for value in (0, 7, 10, 99, 100, 12_345, 2**63 - 1):
        end = answers.number(out, 3, value)
        assert out[3:end].tobytes().decode() == str(value)
