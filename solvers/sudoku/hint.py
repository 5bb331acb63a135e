"""Hints: the grader's next step (grade.next_step) from a 9x9 position part-way through, or the
user's placed values and candidates that contradict the puzzle's one solution.

The position is the givens, the user's placed values (``placed``) and, when given, the user's
candidates (``candidates``: 81 lists of digits), read as position.py reads them. The answer is
one of

  {"status": "wrong", "wrong": [{cell, row, column, field, value?, message}]}
      placed values other than the solution's (``field`` placed, with the ``value``), and open
      cells whose candidates no longer hold the solution's value (``field`` candidates);
  {"status": "solved"}                    every cell is filled, and rightly;
  {"status": "step", "step": {...}, "band": ...}
      the step as the grader's explanation lists it (grade.Step.as_json), checked against the
      solution, and the band of its rating.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solvers.base import JSON, InvalidPuzzle
from solvers.sudoku import fast, grade, position
from solvers.sudoku.grid import Grid

N = 9


def hint(grid: Grid, placed: JSON, candidates: JSON) -> dict[str, Any]:
    """The hint for the position (module doc); ``grid``: the givens, read and checked."""
    if grid.n != N:
        raise InvalidPuzzle(f"hints are for 9x9 grids (the grader's), not {grid.n}x{grid.n}")
    solution = _solution(grid.givens)
    values = position.values(grid, placed)
    masks = position.masks(candidates, N)
    wrong = position.wrong(grid.givens, values, masks, solution)
    if wrong:
        return {"status": "wrong", "wrong": wrong}
    if values.all():
        return {"status": "solved"}
    board = position.board(values, masks, solution)
    assert isinstance(board, grade.Board)
    step = grade.next_step(board)
    board.apply(step)  # raises WrongAnswer unless the step agrees with the solution
    return {"status": "step", "step": step.as_json(), "band": grade.band_of(step.rating)}


def _solution(givens: np.ndarray) -> np.ndarray:
    """The givens' one solution; InvalidPuzzle when they have none or several."""
    out = np.zeros((1, 81), np.uint8)
    found = fast.solve_one(givens.reshape(1, 81), 2, True, out, np.zeros(fast.COUNTERS, np.int64))
    if found != 1:
        has = "no solution" if not found else "more than one solution"
        raise InvalidPuzzle(f"the puzzle has {has}: a hint is a step toward its one solution")
    solution: np.ndarray = out[0].astype(np.int64)
    return solution
