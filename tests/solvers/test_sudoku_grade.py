"""The 9x9 grader: its steps replayed against solutions found by another solver (the SAT
strategy), ratings of known easy and hard puzzles, and known examples of each technique."""

import hashlib
import itertools
import json

import numpy as np
import pytest

from solvers.base import WrongAnswer
from solvers.sudoku import chains, forcing, links, masks, wings
from solvers.sudoku import grade as grader
from solvers.sudoku.grade import BANDS, Step, band_of, grade, grade_below, guess_rating
from solvers.sudoku.kind import KIND
from tests.solvers.test_sudoku import HARD, MULTI, sudoku_file

# sudokuwiki.org's X-wing example; the others were found by the generator and are pinned here
X_WING = "1.....569492.561.8.561.924...964.8.1.64.1....218.356.4.4.5...169.5.614.2621.....5"
EXAMPLES = {
    "claiming": "1...8.6..2.74......8.7..19......6..9.....7.2.5.6....1...........51..3...62..9...8",
    "naked pair": "......59..85..7.1......6....6..18.4...2.....8.......73.93.7..6..1..2....8..4...3.",
    "X-wing": X_WING,
    "hidden pair": "54.............26..1..82.5..7..4.......1.....1.9..6..3....1967.9.7..3.4.......9.2",
    "naked triple": "8.........4.9.3......4.1..8..7......9.......16....739....7....416..5.2...32....5.",
    "swordfish": ".....1.......4.....315...9..2918.3..1....5....68.....92..9........723..8...8..75.",
    "hidden triple": ".2.8.....9.....813.56.9......1.........3...65...2..9.8...92.....3.....8.6.25..4..",
    "XY-wing": ".8...3.9..1...8...3...4...67......4..5........23.8.95..395..8..6......1....2..4..",
    "XYZ-wing": "..27........4..1.3.6.....27..4...51.3...9...8......9.....8.....7.9.65....4...169.",
    # from the Sudoku Exchange diabolical set, rated by SE 5.5, 7.2, 8.3 and 8.9
    "WXYZ-wing": "..7...5......8....9...7...1.251.893...3...6....9...2.....5.3...7.......6.1.2.7.4.",
    "skyscraper": ".174...9.89....4....3.....1..2...9.......6...7.48.126..8.6.4.........34.5..9....6",
    "forcing chain": ".83.2..9....8..1...293....8....987...7.....6...674....3....698...2..5....1..3.54.",
    "cell forcing chains":
        "7.....81..4...82.....2.6..3...32.9..2..8.4..7..3.67...8..6.2.....95...8..51.....2",
    "region dynamic forcing chains":
        "7...4...6...759...9..8.1..3...524....3.....2.4.......75.1...2.8.8.....1.2.9...3.4",
}


def sat_solution(puzzle):
    """The solution by the SAT strategy, with proof that it is the only one."""
    grid, opts = KIND.prepare(puzzle, {"strategy": "sat", "max_solutions": 2})
    outcome = KIND.solve(grid, opts)
    KIND.verify(grid, opts, outcome)
    assert outcome.result["unique"]
    return [int(ch) for ch in outcome.result["solution"]]


def replay(puzzle, moves):
    """Apply the JSON steps to a board of candidates of its own, checking each against the SAT
    solution: placements of candidates that are the solution's, eliminations that are not."""
    solution = sat_solution(puzzle)
    values = [0 if ch == "." else int(ch) for ch in puzzle]
    peers = [set(p) for p in masks.PEERS]
    cands = [set() if v else set(range(1, 10)) - {values[p] for p in peers[c]} for c, v in enumerate(values)]
    for step in json.loads(json.dumps(moves)):
        assert step["placements"] or step["eliminations"], step
        for cell, value in step["eliminations"]:
            assert value in cands[cell] and value != solution[cell], step
            cands[cell].discard(value)
        for cell, value in step["placements"]:
            assert value in cands[cell] and value == solution[cell], step
            values[cell], cands[cell] = value, set()
            for p in peers[cell]:
                cands[p].discard(value)
    assert values == solution


def test_easy_puzzles_are_rated_low(data_dir):
    # Project Euler's 50: most fall to singles, a few need locked candidates, pairs or an X-wing
    ratings = sorted(grade(p).rating for p in sudoku_file(data_dir, "norvig_easy50.txt"))
    assert ratings[0] >= 1.0 and ratings[-1] <= 3.2
    assert band_of(ratings[len(ratings) // 2]) == "easy"


def test_steps_replay_to_the_solution(data_dir):
    puzzles = [*sudoku_file(data_dir, "tdoku_puzzles3_magictour_top1465.txt")[:4], HARD]
    for puzzle in puzzles + list(EXAMPLES.values()):
        graded = grade(puzzle)
        replay(puzzle, graded.moves)
        assert graded.steps == len(graded.moves)
        assert graded.rating == max(m["rating"] for m in graded.moves)
        assert graded.hardest == max(graded.moves, key=lambda m: m["rating"])["technique"]


@pytest.mark.parametrize("technique", list(EXAMPLES))
def test_each_technique_is_found_in_its_example(technique):
    graded = grade(EXAMPLES[technique])
    assert graded.hardest == technique
    assert technique in {m["technique"] for m in graded.moves}
    assert BANDS[graded.band][0] <= graded.rating < BANDS[graded.band][1]


def test_an_x_wing_on_a_hand_built_board():
    # digit 5 only in columns 2 and 8 in rows 1 and 5, and in rows 3 and 7 in columns 2, 4, 6
    # and 8: the X-wing of rows 1 and 5 takes it out of columns 2 and 8 in rows 3 and 7
    five = 1 << 4
    cands = [0] * 81
    for r, columns in ((0, (1, 7)), (4, (1, 7)), (2, (1, 3, 5, 7)), (6, (1, 3, 5, 7))):
        for c in columns:
            cands[r * 9 + c] = five
    step = grader.fish(2, "X-wing", 3.2)(grader.Position.of(np.array(cands, np.int64)))
    assert step is not None and step.technique == "X-wing"
    assert sorted(step.cells) == [1, 7, 37, 43]
    assert sorted(step.eliminations) == [(19, 5), (25, 5), (55, 5), (61, 5)]


def test_hardest_puzzles_need_trial_and_error():
    graded = grade(HARD)
    assert graded.hardest == grader.GUESS and graded.band == "extreme"
    guesses = [m for m in graded.moves if m["technique"] == grader.GUESS]
    assert guesses and all(len(m["placements"]) == 1 and m["rating"] >= 9.5 for m in guesses)
    # where (the cell placed) and how deep the trial and error went
    assert all(m["cells"] == [m["placements"][0][0]] and m["guesses"] >= 1 and m["depth"] >= 1
               and m["rating"] == guess_rating(m["guesses"]) for m in guesses)
    assert not any("depth" in m for m in graded.moves if m["technique"] != grader.GUESS)


def test_a_ceiling_stops_early():
    assert grade_below(EXAMPLES["XY-wing"], 4.2) is None
    assert grade_below(EXAMPLES["XY-wing"], 4.3) == grade(EXAMPLES["XY-wing"])
    assert grade_below(HARD, 7.5) is None


def test_puzzles_without_one_solution_are_refused():
    with pytest.raises(ValueError, match="2\\+"):
        grade(MULTI)
    with pytest.raises(ValueError, match="9x9"):
        grade(np.zeros(16, np.uint8))
    with pytest.raises(ValueError, match="0-9"):
        grade(np.full(81, 10, np.uint8))


def test_scales():
    # SE's ceilings 4, 6, 8, 12, 16 on the complexity less two
    assert [round(chains.length_extra(n), 1) for n in (6, 7, 8, 9, 10, 11, 14, 15, 18, 19)] == [
        0.0, 0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4, 0.5]
    assert guess_rating(0) == 9.5 and guess_rating(1) == 10.0 and guess_rating(10 ** 9) == grader.GUESS_MAX
    assert [band_of(r) for r in (1.0, 1.5, 2.3, 3.0, 4.4, 5.0, 7.4, 7.5, 8.9, 9.0, 11.9)] == [
        "easy", "easy", "medium", "hard", "hard", "expert", "expert", "master", "master", "extreme",
        "extreme"]
    # the bands tile the scale: each starts where the one before it ends
    edges = list(grader.BANDS.values())
    assert edges[0][0] == 1.0 and edges[-1][1] == 12.0
    assert all(a[1] == b[0] for a, b in itertools.pairwise(edges))
    assert Step("naked single", 2.3, [3], [(3, 4)]).as_json() == {
        "technique": "naked single", "rating": 2.3, "cells": [3], "placements": [[3, 4]], "eliminations": []}


def test_a_step_against_the_solution_is_refused(monkeypatch):
    # the grader checks every step against the solution: with two digits swapped in the
    # solution it believes, the first single that disagrees raises
    true_solution = grader.solve_unique

    def swapped(givens):
        solution = true_solution(givens).copy()
        ones, twos = solution == 1, solution == 2
        solution[ones], solution[twos] = 2, 1
        return solution
    monkeypatch.setattr(grader, "solve_unique", swapped)
    with pytest.raises(WrongAnswer, match="against the solution"):
        grade(EXAMPLES["X-wing"])


def test_an_x_cycle_on_a_hand_built_board():
    # digit 1 in a rectangle of conjugate pairs (r1c1-r1c5 in row 1, r1c5-r5c5 in column 5,
    # r5c5-r5c1 in row 5, r5c1-r1c1 in column 1) and in r3c1 (column 1 has three places, so
    # r1c1-r5c1 is a weak link there: the cycle r5c1 = r5c5 - r1c5 = r1c1 - r5c1 is a
    # continuous loop): SE's X-cycle removes 1 from r3c1, which sees r1c1 and r5c1. Each cell
    # holds a second digit of its own, which makes no chain.
    cands = [0] * 81
    for other, cell in enumerate((0, 4, 40, 36, 18), start=1):
        cands[cell] = 1 | 1 << other
    chain = chains.static_chains(cands)
    assert chain is not None and chain.technique == "X-cycle"
    assert chain.eliminations == [(18, 1)]
    assert chain.rating == 6.5 and sorted(chain.cells) == [0, 4, 36, 40]


def test_a_wxyz_wing_on_a_hand_built_board():
    # r1c1 {1,2,3}, r1c2 {1,4}, r1c3 {2,4} hold four digits and r2c2 {3,4} sees every 3
    # (r1c1) and every 4 (r1c2, r1c3) of them: doubly linked, 3 leaves r2c3 (it sees r1c1 and
    # r2c2), 1 and 2 leave r1c5 (row 1 holds all the set's 1s and 2s)
    cands = [0] * 81
    for cell, mask in ((0, 0b111), (1, 0b1001), (2, 0b1010), (10, 0b1100), (11, 0b10100), (4, 0b1000011)):
        cands[cell] = mask
    found = wings.als_wing(3, cands)
    assert found is not None and found[0] == "WXYZ-wing" and found[1] == 5.6
    assert sorted(found[2]) == [0, 1, 2, 10]
    assert (11, 3) in found[3] and (4, 1) in found[3] and (4, 2) in found[3]


def test_a_skyscraper_on_a_hand_built_board():
    # digit 1 twice in row 1 (r1c1, r1c5) and twice in row 5 (r5c1, r5c6): r1c5 and r5c6
    # hold the end of each link, one of them is 1, so r2c6, r3c6 (box of r1c5, column of
    # r5c6) and r4c5, r6c5 (the other way round) lose it; 1 also in r9c1 keeps column 1 open
    cands = [0] * 81
    for cell in (0, 4, 36, 41, 72, 14, 23, 31, 49):
        cands[cell] = 1
    found = links.strong_links(2, cands)
    assert found is not None and found[:2] == ("skyscraper", 4.0)
    assert found[3] == [(14, 1), (23, 1), (31, 1), (49, 1)]


def test_a_vwxyz_wing_on_a_hand_built_board():
    # r1c1 {1,2}, r1c2 {2,3}, r1c3 {3,4}, r1c4 {4,5} hold five digits; r2c1 {1,5} sees the
    # set's only 1: one of r1c4 and r2c1 is 5, so r2c4 {5,7}, seeing both, loses it
    cands = [0] * 81
    for cell, digits in ((0, (1, 2)), (1, (2, 3)), (2, (3, 4)), (3, (4, 5)), (9, (1, 5)), (12, (5, 7))):
        cands[cell] = sum(1 << (v - 1) for v in digits)
    found = wings.als_wing(4, cands)
    assert found is not None and found[:2] == ("VWXYZ-wing", 6.3)
    assert found[3] == [(12, 5)]


def test_propagation_follows_links_and_finds_contradictions():
    # r1c1 {1,2}, r1c2 {1,2}, r1c3 {1,2,3}: r1c1 = 1 makes r1c2 2 (on: its only other digit),
    # which leaves r1c3 3 once it has lost 1 and 2, only read so in the dynamic propagation
    cands = np.zeros(81, np.int64)
    cands[0], cands[1], cands[2] = 0b11, 0b11, 0b111
    static = forcing.propagate(cands, chains.node(0, 0, True), False, True)
    assert static.present[chains.node(1, 1, True)] and not static.present[chains.node(2, 2, True)]
    dynamic = forcing.propagate(cands, chains.node(0, 0, True), True, True)
    three = chains.node(2, 2, True)
    assert dynamic.present[three] and dynamic.absurd is None
    # r1c3 = 3 rests on both removals from r1c3 (1 by r1c1, 2 by r1c2): r1c3 = 3, r1c3 <> 2,
    # r1c3 <> 1, r1c2 = 2, r1c2 <> 1 and r1c1 = 1, six distinct nodes
    assert forcing.ancestors(three, dynamic) == 6
    # r1c1, r1c2, r1c3 all {1,4}: r1c1 = 1 makes r1c2 and r1c3 both 4; r1c2 = 4 takes 4 from
    # r1c3 before r1c3 = 4 arrives, the contradiction's last node
    cands[0] = cands[1] = cands[2] = 0b1001
    clash = forcing.propagate(cands, chains.node(0, 0, True), False, True)
    assert clash.absurd == (chains.node(2, 3, True), chains.node(2, 3, False))


# puzzles of the Sudoku Exchange diabolical set (by line), one per hardest technique, with the
# grading the SE-agreement figures of docs/benchmarks.md rest on: rating, hardest step, steps,
# and the first 16 hex digits of the SHA-256 of the steps' JSON
PINNED = [
    (13, 5.4, "3 skyscrapers", 64, "c8fee85cc9e40191"),
    (6, 5.5, "3 strong links (with a box)", 64, "a31860e9537afcfb"),
    (11, 5.5, "WXYZ-wing", 72, "1e354172a0c8cf77"),
    (18, 5.6, "WXYZ-wing", 67, "a506ac917a3ce8d4"),
    (22, 5.6, "3-string kite", 66, "6d26ef227d718a2e"),
    (69, 5.6, "BUG type 1", 61, "0f72d5913118d16c"),
    (189, 5.7, "BUG type 2", 60, "9e35b81caa7d2802"),
    (35, 6.4, "VWXYZ-wing", 64, "17ff1f34b9da29c1"),
    (10, 6.7, "Y-cycle", 63, "74772399dac85dad"),
    (155, 6.8, "forcing X-chain", 73, "37c376294c2fe8fa"),
    (16, 7.1, "XY-cycle", 65, "c19071dafa98e1dc"),
    (0, 7.2, "forcing chain", 72, "82a29c95e9b31890"),
    (28, 7.6, "contradiction Nishio forcing chain", 68, "f06ccaca3cf06402"),
    (3, 8.2, "region forcing chains", 79, "a4246a981afe1d8c"),
    (14, 8.3, "cell forcing chains", 79, "77892f4d1563f7d6"),
    (9, 8.9, "region dynamic forcing chains", 84, "76b58ff778b8d9b8"),
]


def test_pinned_gradings_are_unchanged(data_dir):
    lines = (data_dir / "sudoku" / "sudoku_exchange_diabolical_first5000.txt").read_text().splitlines()
    for line, rating, hardest, steps, digest in PINNED:
        graded = grade(lines[line].split()[1])
        # the steps' digest without the chains' links (a drawing aid, checked by the test below)
        moves = [{k: v for k, v in move.items() if k != "links"} for move in graded.moves]
        got = hashlib.sha256(json.dumps(moves).encode()).hexdigest()[:16]
        assert (graded.rating, graded.hardest, graded.steps, got) == (rating, hardest, steps, digest), line


def _linked(a, b, cands):
    """Whether node ``a`` implies node ``b`` (each (cell, digit, on)) on the candidates ``cands``:
    on -> off through the cell or the digit's peers, off -> on through a cell of two digits or a
    unit with two places for the digit."""
    (ca, da, on_a), (cb, db, on_b) = a, b
    if on_a and not on_b:
        return (ca == cb and da != db) or (da == db and cb in masks.PEERS[ca])
    if on_b and not on_a:
        if ca == cb:
            return cands[ca] == {da, db}
        return da == db and any(ca in unit and cb in unit and
                                [c for c in unit if da in cands[c]] in ([ca, cb], [cb, ca])
                                for unit in grader.UNITS)
    return False


def test_a_chains_links_are_a_path_of_implications_on_its_position(data_dir):
    """Each X-, Y- and XY-chain and cycle step of a few diabolical puzzles lists its nodes, each
    implying the next on the position the step was found on, within its cells; a cycle ends where
    it starts, a forcing chain at its source's negation."""
    from tests.solvers.test_sudoku_hint import path
    lines = (data_dir / "sudoku" / "sudoku_exchange_diabolical_first5000.txt").read_text().splitlines()[:40]
    seen = set()
    for puzzle in (line.split()[1] for line in lines):
        for _values, cands, move in path(puzzle):
            if "links" not in move:
                assert "cycle" not in move["technique"] and move["technique"] != "forcing X-chain"
                continue
            seen.add(move["technique"])
            links, sets = move["links"], [set(c) for c in cands]
            assert all(sets[c] >= {d} for c, d, _ in links)
            assert {c for c, _, _ in links} == set(move["cells"])
            assert all(_linked(a, b, sets) for a, b in itertools.pairwise(links))
            first, last = links[0], links[-1]
            if "cycle" in move["technique"]:
                assert first == last
            else:
                assert first[:2] == last[:2] and first[2] != last[2]
    assert {"forcing chain", "forcing X-chain"} <= seen
