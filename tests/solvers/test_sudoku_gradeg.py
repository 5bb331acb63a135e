"""Grading any position and any size (issue 44, item 3): the size-generic grader (gradeg.py)
against the 9x9 kernels, 16x16 and 4x4 gradings through option ``explain``, and a position
part-way through (options ``placed`` and ``candidates``, position.py) graded from where it
stands, its wrong values reported."""

import numpy as np
import pytest

import solvers
from solvers.base import InvalidOption, WrongAnswer
from solvers.sudoku import grade, gradeg, kind
from solvers.sudoku.kind import KIND
from tests.solvers.test_sudoku_grade import EXAMPLES

# the solution of MADE16 with 109 cells blanked that hidden singles fill (the kind's example)
EASY16 = kind.EASY16
# a minimal 16x16 of the kind's generator (size 16, seed 1), pinned: past the singles
MADE16 = (
    "..8B............F................A.E.B24..D..69..7.....9A61.FBE8G...1.82....A..5..A..7...8.93162..D"
    "...B......8....9.6FG...4..D..4G....D..C.E1.2.B......6...8..7.935.....7....A...2179...3.5...F....F..A"
    "E1.85.....B..3D.G2..79......8.....AEF.G.4.1.....8.BCGE..D")
FOUR = ".2..3..4..1..3.."  # unique
BASIC = ["claiming", "naked pair", "X-wing", "hidden pair", "naked triple", "swordfish", "hidden triple",
         "XY-wing", "XYZ-wing"]  # the examples that need none of the 9x9 kernels' other techniques
FORCING = EXAMPLES["forcing chain"]  # rated 7.2


def explained(puzzle, **options):
    """The registry's path, as the service takes an item: read, solve, verify; the explanation."""
    kind, grid, opts = solvers.prepare_item({"kind": "sudoku", "puzzle": puzzle,
                                             "options": {"explain": True, **options}})
    outcome = kind.solve(grid, opts)
    kind.verify(grid, opts, outcome)
    return outcome.result["explanation"]


def solution_of(puzzle):
    grid, opts = KIND.prepare(puzzle, {"max_solutions": 2})
    outcome = KIND.solve(grid, opts)
    assert outcome.result["unique"]
    return outcome.result["solution"]


def digits_of(text):
    return [0 if ch == "." else int(ch, 36) for ch in text]


@pytest.mark.parametrize("technique", BASIC)
def test_the_generic_grader_takes_the_kernels_steps_on_9x9(technique):
    """Plain Python against the kernels: the same steps, one by one, on every 9x9 example that
    needs no technique past XYZ-wing."""
    puzzle = EXAMPLES[technique]
    by_kernels = grade.grade(puzzle)
    by_python = gradeg.grade(9, digits_of(puzzle), digits_of(solution_of(puzzle)))
    assert by_python.moves == by_kernels.moves
    assert (by_python.rating, by_python.hardest) == (by_kernels.rating, by_kernels.hardest)


def test_a_part_filled_grid_is_rated_no_harder_than_its_start():
    """The solution's values of the grader's first steps placed (eliminations are not placed: the
    position before the last forcing chain still needs one); graded again from each of a few points."""
    start = explained(FORCING)
    assert start["rating"] == 7.2 and "wrong" not in start
    steps = start["steps"]
    first_hard = min(i for i, s in enumerate(steps) if s["rating"] == 7.2)
    last_hard = max(i for i, s in enumerate(steps) if s["rating"] == 7.2)
    placed = list(FORCING)
    for i, step in enumerate(steps):
        for cell, value in step["placements"]:
            placed[cell] = str(value)
        if i in (first_hard // 2, first_hard, last_hard + 1, (last_hard + len(steps)) // 2):
            told = explained(FORCING, placed="".join(placed))
            assert told["wrong"] == []
            assert told["rating"] <= start["rating"]
            assert len(told["steps"]) < len(steps)
            if i > last_hard:  # the forcing chains are behind: what is left is easier
                assert told["rating"] < start["rating"] and told["band"] == grade.band_of(told["rating"])


def test_candidates_start_the_grading_where_the_user_left_them():
    solution = digits_of(solution_of(FORCING))
    # every open cell down to its solution value and one other digit
    cands = [[] if ch != "." else sorted({solution[c], solution[c] % 9 + 1}) for c, ch in enumerate(FORCING)]
    told = explained(FORCING, candidates=cands)
    assert told["wrong"] == [] and told["rating"] < 7.2


def test_a_wrong_placed_value_is_reported():
    solution = solution_of(FORCING)
    cell = FORCING.index(".")
    bad = str(int(solution[cell]) % 9 + 1)
    placed = FORCING[:cell] + bad + FORCING[cell + 1:]
    told = explained(FORCING, placed=placed)
    assert told["rating"] is None and told["steps"] == [] and told["band"] is None
    assert [(w["cell"], w["field"], w["value"]) for w in told["wrong"]] == [(cell, "placed", int(bad))]
    # and the candidates that lost the solution's value
    cands = [[] if ch != "." else [1, 2, 3, 4, 5, 6, 7, 8, 9] for ch in FORCING]
    cands[cell].remove(int(solution[cell]))
    told = explained(FORCING, candidates=cands)
    assert [(w["cell"], w["field"]) for w in told["wrong"]] == [(cell, "candidates")]


def test_a_full_position_needs_no_step():
    told = explained(FORCING, placed=solution_of(FORCING))
    assert told == {"rating": None, "hardest": None, "band": None, "steps": [], "guesses": [], "wrong": []}


def test_an_easy_16x16_is_rated_in_the_singles_band():
    told = explained(EASY16)
    assert told["band"] == "easy" and told["rating"] <= 1.5
    assert {s["technique"] for s in told["steps"]} <= {name for name, _ in grade.SINGLES}
    assert len(told["steps"]) == EASY16.count(".")


def test_a_made_16x16_is_rated_past_the_singles_and_from_a_position():
    told = explained(MADE16)
    assert told["rating"] > 2.3 and told["band"] == grade.band_of(told["rating"])
    # half of it placed: rated again from there, no harder
    solution = solution_of(MADE16)
    half = [s if i % 2 else p for i, (p, s) in enumerate(zip(MADE16, solution, strict=True))]
    again = explained(MADE16, placed="".join(half))
    assert again["wrong"] == [] and again["rating"] <= told["rating"]


def test_a_4x4_is_explained():
    told = explained(FOUR)
    assert told["rating"] <= 2.3 and len(told["steps"]) == FOUR.count(".")


def test_the_check_refuses_a_tampered_explanation():
    kind, grid, opts = solvers.prepare_item({"kind": "sudoku", "puzzle": FORCING,
                                             "options": {"explain": True, "placed": FORCING}})
    outcome = kind.solve(grid, opts)
    outcome.result["explanation"]["wrong"] = [{"cell": 0}]
    with pytest.raises(WrongAnswer):
        kind.verify(grid, opts, outcome)
    outcome.result["explanation"]["wrong"] = []
    outcome.result["explanation"]["rating"] = 9.9
    with pytest.raises(WrongAnswer):
        kind.verify(grid, opts, outcome)


GIVEN_CHANGED = FORCING[:1] + "1" + FORCING[2:]  # cell 1 holds the given 8


@pytest.mark.parametrize(("options", "says"), [
    ({"placed": FORCING}, "need explain: true"),
    ({"explain": True, "placed": FORCING[:-1]}, "option 'placed'"),
    ({"explain": True, "placed": GIVEN_CHANGED}, "option 'placed': row 1, column 2 holds the given 8, not 1"),
    ({"explain": True, "placed": FORCING.replace(".", "x", 1)}, "option 'placed'"),
    ({"explain": True, "candidates": [[1]] * 80}, "option 'candidates'"),
    ({"explain": True, "candidates": [[10]] * 81}, "10 is not a digit 1-9"),
    ({"explain": True, "candidates": "123"}, "option 'candidates' must be a list"),
])
def test_a_bad_position_is_an_invalid_option(options, says):
    with pytest.raises(InvalidOption, match=says):
        KIND.prepare(FORCING, options)


def test_25x25_is_not_graded():
    with pytest.raises(InvalidOption, match="4x4, 9x9 and 16x16"):
        KIND.prepare("." * 625, {"explain": True})


def test_a_batch_with_a_position_checks_it_against_each_puzzle():
    """The batch path reads a chunk of 9x9 strings at once; a position must still meet each
    puzzle's own givens."""
    options = KIND.read_options({"explain": True, "placed": FORCING})
    got = KIND.prepare_batch([FORCING, EXAMPLES["X-wing"]], options)
    assert np.array_equal(got[0].givens, KIND.prepare(FORCING)[0].givens)
    assert isinstance(got[1], InvalidOption) and "option 'placed'" in str(got[1])
