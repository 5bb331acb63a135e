"""Hints (solvers/sudoku/hint.py through ``solvers.hint_item``): the grader's next step from a
position part-way through, wrong placed values and candidates, solved grids, bad requests."""

import json
import random
import subprocess
import sys

import numpy as np
import pytest

import solvers
from solvers.base import InvalidPuzzle, PuzzleError
from solvers.sudoku import grade
from solvers.sudoku.kind import EXPLAINED
from tests.solvers.test_cli import ROOT

EXAMPLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def hint(puzzle, placed=None, candidates=None, kind="sudoku"):
    request = {"kind": kind, "puzzle": puzzle}
    if placed is not None:
        request["placed"] = placed
    if candidates is not None:
        request["candidates"] = candidates
    return solvers.hint_item(request)


def digits(text):
    return [int(ch) if ch.isdigit() else 0 for ch in text]


def assert_valid(step, solution, values):
    """The step places only open cells with their solution values and removes no solution value."""
    assert step["cells"] and (step["placements"] or step["eliminations"])
    for cell, value in step["placements"]:
        assert values[cell] == 0 and solution[cell] == value
    for cell, value in step["eliminations"]:
        assert values[cell] == 0 and solution[cell] != value


def path(puzzle):
    """The grader's positions on its way through ``puzzle``: (values, candidates, its next step)."""
    graded = grade.grade(puzzle)
    givens = np.array(digits(puzzle), np.uint8)
    board = grade.Board(givens, grade.solve_unique(givens))
    for move in graded.moves:
        cands = [[d + 1 for d in range(9) if m >> d & 1] for m in board.cands.tolist()]
        yield board.values.tolist(), cands, move
        board.apply(grade.Step(move["technique"], move["rating"], move["cells"],
                               [tuple(p) for p in move["placements"]],
                               [tuple(e) for e in move["eliminations"]]))


SOLUTION_OF_EXPLAINED = "".join(map(str, grade.solve_unique(np.array(digits(EXPLAINED), np.uint8)).tolist()))


def test_each_hint_on_the_graders_path_is_its_next_step():
    """From every position of the grader's solve of an 8.9 puzzle, given its placed values and
    candidates, the hint is the step the grader took there, and it is valid."""
    solution = digits(SOLUTION_OF_EXPLAINED)
    techniques = set()
    for values, cands, move in path(EXPLAINED):
        placed = "".join(map(str, values))
        answer = hint(EXPLAINED, placed, cands)
        assert answer == {"status": "step", "step": move, "band": grade.band_of(move["rating"])}
        assert_valid(answer["step"], solution, values)
        techniques.add(move["technique"])
    assert len(techniques) > 5  # singles, basic patterns and chains were all met


def test_the_users_candidates_are_the_position():
    """Before the hardest step, the grader's candidates lead to that step; the same placed values
    without them lead to an easier one, which removes what the grader had removed."""
    steps = list(path(EXPLAINED))
    values, cands, move = max(steps, key=lambda s: s[2]["rating"])
    placed = "".join(map(str, values))
    with_marks = hint(EXPLAINED, placed, cands)["step"]
    without = hint(EXPLAINED, placed)["step"]
    assert with_marks == move
    assert without["rating"] < move["rating"]
    assert_valid(without, digits(SOLUTION_OF_EXPLAINED), values)
    assert all(v not in cands[c] for c, v in without["eliminations"])


def test_hints_are_valid_at_every_fill_stage(data_dir):
    """Diabolical puzzles with a random part of their solution placed, no candidates: each hint's
    step agrees with the solution."""
    rng = random.Random(7)
    lines = (data_dir / "sudoku" / "sudoku_exchange_diabolical_first5000.txt").read_text().splitlines()
    for line in lines[:12]:
        puzzle = line.split()[1]
        solution = grade.solve_unique(np.array(digits(puzzle), np.uint8)).tolist()
        open_cells = [c for c, v in enumerate(digits(puzzle)) if not v]
        for share in (0.0, 0.3, 0.6, 0.9):
            values = digits(puzzle)
            for c in rng.sample(open_cells, int(share * len(open_cells))):
                values[c] = solution[c]
            answer = hint(puzzle, [values[r * 9:r * 9 + 9] for r in range(9)])
            assert answer["status"] == "step"
            assert_valid(answer["step"], solution, values)


def test_a_wrong_placed_value_is_named_not_a_step():
    placed = list(EXAMPLE.replace(".", "0"))
    placed[2] = "1"  # row 1, column 3 is 4
    placed[80] = "9"  # a given, repeated: not wrong
    answer = hint(EXAMPLE, "".join(placed))
    assert answer["status"] == "wrong" and "step" not in answer
    assert answer["wrong"] == [{"cell": 2, "row": 1, "column": 3, "field": "placed", "value": 1,
                                "message": "row 1, column 3: 1 is not this cell's value in the solution"}]


def test_every_wrong_value_is_named_even_when_placed_values_clash():
    placed = list(EXAMPLE.replace(".", "0"))
    placed[2], placed[3] = "6", "6"  # 4 and 6 in the solution: one right, one wrong
    placed[5] = "1"
    answer = hint(EXAMPLE, "".join(placed))
    assert [(w["cell"], w["value"]) for w in answer["wrong"]] == [(2, 6), (5, 1)]


def test_candidates_without_the_solution_value_are_named():
    cands = [list(range(1, 10))] * 81
    cands[2] = [1, 2]  # the solution's 4 struck out
    answer = hint(EXAMPLE, None, cands)
    assert answer["status"] == "wrong"
    assert [(w["cell"], w["field"]) for w in answer["wrong"]] == [(2, "candidates")]


def test_a_solved_grid_says_so():
    assert hint(EXAMPLE, SOLUTION) == {"status": "solved"}
    assert hint(SOLUTION) == {"status": "solved"}


def test_a_fresh_puzzle_gets_the_graders_first_step():
    answer = hint(EXAMPLE)
    assert answer["step"] == grade.grade(EXAMPLE).moves[0]
    assert_valid(answer["step"], digits(SOLUTION), digits(EXAMPLE))


@pytest.mark.parametrize(("puzzle", "says"), [
    ("." * 81, "more than one solution"),
    ("1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4.", "no solution"),
    ("1.3..4.22..3..2.", "9x9"),
])
def test_a_puzzle_without_one_solution_is_refused(puzzle, says):
    with pytest.raises(InvalidPuzzle, match=says) as caught:
        hint(puzzle)
    assert caught.value.field == "puzzle"


@pytest.mark.parametrize(("request_", "field", "says"), [
    ({"kind": "chess", "puzzle": EXAMPLE}, "kind", "unknown kind"),
    ({"kind": "nqueens", "puzzle": 8}, "kind", "gives no hints; kinds that do: sudoku"),
    ({"kind": "sudoku"}, "puzzle", "missing field 'puzzle'"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "hints": 1}, "item", "unknown field 'hints'"),
    ({"kind": "sudoku", "puzzle": "55" + EXAMPLE[2:]}, "puzzle", "already appears"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "placed": "x" * 81}, "placed", "row 1, column 1: 'x' is not"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "placed": "." * 16}, "placed", "4x4 grid"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "placed": 7}, "placed", "not int"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "placed": "4" + "." * 80}, "placed", "holds the given 5, not 4"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "candidates": "123"}, "candidates", "got str"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "candidates": [[1]] * 80}, "candidates", "got 80 entries"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "candidates": [[1]] * 80 + [5]}, "candidates",
     "row 9, column 9 must be a list"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "candidates": [[1]] * 80 + [[10]]}, "candidates",
     "10 is not a digit"),
    ({"kind": "sudoku", "puzzle": EXAMPLE, "candidates": [[True]] * 81}, "candidates", "True is not a digit"),
    ([EXAMPLE], "item", "must be an object"),
])
def test_bad_requests_name_their_field(request_, field, says):
    with pytest.raises(PuzzleError, match=says) as caught:
        solvers.hint_item(request_)
    assert caught.value.field == field


def test_the_command_line_answers_each_line():
    lines = [EXAMPLE, f"{EXAMPLE} {SOLUTION}", "12"]
    done = subprocess.run([sys.executable, "-m", "solvers", "hint", "--kind", "sudoku"],
                          input="\n".join(lines), capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 1, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert out[0] == hint(EXAMPLE)
    assert out[1] == {"status": "solved"}
    assert out[2]["status"] == "invalid" and out[2]["field"] == "puzzle"


def test_the_command_line_reads_json_requests():
    request = {"kind": "sudoku", "puzzle": EXAMPLE, "placed": "1" + EXAMPLE[1:]}
    done = subprocess.run([sys.executable, "-m", "solvers", "hint"], input=json.dumps(request) + "\n",
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 1
    assert json.loads(done.stdout)["field"] == "placed"
