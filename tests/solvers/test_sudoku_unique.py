"""The uniqueness techniques (unique.py) and aligned pair exclusion on hand-built boards."""

import numpy as np

from solvers.sudoku import alignedk, unique


def _board(cells):
    """Candidate masks with the given cells holding the given digits (others placed)."""
    cands = [0] * 81
    for cell, digits in cells.items():
        cands[cell] = sum(1 << (v - 1) for v in digits)
    return cands


# r1c1, r1c4, r2c1, r2c4: rows 1-2, columns 1 and 4, boxes 1 and 2
RECTANGLE = [0, 3, 9, 12]


def test_unique_rectangle_types_1_and_2():
    # r2c4 {1,2,5} must be 5 (type 1); with r2c1 and r2c4 both {1,2,7} instead, 7 is in one of
    # them and leaves r2c9, which sees both (type 2)
    cands = _board({0: (1, 2), 3: (1, 2), 9: (1, 2), 12: (1, 2, 5)})
    assert unique.unique_loop(cands) == ("unique rectangle type 1", 4.5, RECTANGLE, [(12, 1), (12, 2)])
    cands = _board({0: (1, 2), 3: (1, 2), 9: (1, 2, 7), 12: (1, 2, 7), 17: (3, 7)})
    assert unique.unique_loop(cands) == ("unique rectangle type 2", 4.5, RECTANGLE, [(17, 7)])
    cands[3] = 0b110  # no longer a rectangle of {1,2}
    assert unique.unique_loop(cands) is None


def test_unique_rectangle_type_3_hidden_then_naked():
    # r2c1 {1,2,5} and r2c4 {1,2,6}: one of them holds 5 or 6. In row 2, 1 and 2 can only go
    # to those two and r2c5 {1,2,8}, which must take one of them: it loses 8 (a hidden pair
    # with the rectangle's two cells counted as one, 4.5). With 1 in r2c6 too, r2c2 {5,6}
    # and the two cells make a naked pair {5,6} instead (4.6): r2c3 {5,7} loses 5
    cells = {0: (1, 2), 3: (1, 2), 9: (1, 2, 5), 12: (1, 2, 6), 10: (5, 6), 11: (5, 7), 13: (1, 2, 8)}
    assert unique.unique_loop(_board(cells)) == ("unique rectangle type 3", 4.5, RECTANGLE, [(13, 8)])
    cells[14] = (1, 7)
    assert unique.unique_loop(_board(cells)) == ("unique rectangle type 3", 4.6, RECTANGLE, [(11, 5)])


def test_unique_rectangle_type_4():
    # r2c1 {1,2,5} and r2c4 {1,2,6}: 2 has no other place in row 2, so one of them is 2 and
    # neither can be 1
    cells = {0: (1, 2), 3: (1, 2), 9: (1, 2, 5), 12: (1, 2, 6), 10: (1, 5), 11: (1, 6)}
    assert unique.unique_loop(_board(cells)) == ("unique rectangle type 4", 4.5, RECTANGLE, [(9, 1), (12, 1)])


def test_a_unique_loop_of_six_cells():
    # r1c1-r1c4-r2c4-r2c7-r3c7-r3c1: rows 1-3, columns 1, 4 and 7, boxes 1-3, each twice; the
    # only cell holding more than {1,2}, r3c1, loses them (type 1 of a loop of 6: 4.6)
    cells = dict.fromkeys((0, 3, 12, 15, 24), (1, 2))
    cells[18] = (1, 2, 4)
    assert unique.unique_loop(_board(cells)) == ("unique loop 6 type 1", 4.6, [0, 3, 12, 15, 18, 24],
                                                 [(18, 1), (18, 2)])


def test_bug_type_1():
    # the rectangle's four cells {1,2} are a grave (each digit twice in each of their units);
    # r1c1 adds 3, once in each of its units: it is 3
    cands = _board(dict.fromkeys(RECTANGLE, (1, 2)) | {0: (1, 2, 3)})
    assert unique.bug(cands) == ("BUG type 1", 5.6, [0], [(0, 1), (0, 2)])
    cands[3] = 0b111  # r1c4 too: one of the two is 3, and no cell seeing both holds a 3
    assert unique.bug(cands) is None
    # open cells all {1,2} but r1c1 {1,2,3}, with 1 and 2 five times in box 1: no grave
    assert unique.bug(_board(dict.fromkeys((1, 2, 9, 18), (1, 2)) | {0: (1, 2, 3)})) is None


def test_bug_type_2_without_eliminations_and_type_4():
    # the rectangle's four cells {1,2} are a grave; r1c1 and r2c4 add 5 (once in each of their
    # units): one of them is 5 (type 2), but no cell seeing both holds a 5 to remove
    cands = _board(dict.fromkeys(RECTANGLE, (1, 2)) | {0: (1, 2, 5), 12: (1, 2, 5)})
    assert unique.bug(cands) is None
    # rows 1 and 2 each {1,2} in column 1, {1,3} in column 4, {2,3} in column 7: a grave; r1c1
    # adds 5 and r1c4 adds 6. One of them holds its BUG digit; 1 is in one of them (its only
    # places in row 1), so each holds 1 or its BUG digit: r1c1 loses 2, r1c4 loses 3 (type 4)
    grave = {0: (1, 2), 3: (1, 3), 6: (2, 3), 9: (1, 2), 12: (1, 3), 15: (2, 3)}
    cands = _board(grave | {0: (1, 2, 5), 3: (1, 3, 6)})
    assert unique.bug(cands) == ("BUG type 4", 5.7, [0, 3], [(0, 2), (3, 3)])


def test_aligned_pair_exclusion():
    # r1c1 {1,3} and r1c5 {2,3} share the excluders r1c8 {1,2} and r1c9 {1,3}: 1 and 2 would
    # empty r1c8, 1 and 3 r1c9, 3 and 3 repeat in row 1, so r1c1 is 3 and r1c5 is 2
    cands = np.array(_board({0: (1, 3), 4: (2, 3), 7: (1, 2), 8: (1, 3)}), np.int64)
    cells, elims = np.zeros(16, np.int64), np.zeros((81, 2), np.int64)
    found, n = alignedk.aligned(2, cands, cells, elims)
    assert found == 2 and cells[:2].tolist() == [0, 4]
    assert sorted(elims[:n].tolist()) == [[0, 1], [4, 3]]
