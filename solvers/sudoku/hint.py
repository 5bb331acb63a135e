"""Hints: the grader's next step (grade.next_step) from a 9x9 position part-way through, or the
user's placed values and candidates that contradict the puzzle's one solution.

The position is the givens, the user's placed values (``placed``: a grid in the puzzle's wire
form, its blanks open, its givens either blank or repeated) and, when given, the user's
candidates (``candidates``: 81 lists of digits, cell r*9 + c; a filled cell's list is ignored).
An open cell's candidates are the digits no peer holds, and of those only the ones the user
kept. The answer is one of

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

from solvers.base import JSON, InvalidField, InvalidPuzzle, ParseError
from solvers.sudoku import fast, grade
from solvers.sudoku.grid import Grid, parse, where

N = 9


def hint(grid: Grid, placed: JSON, candidates: JSON) -> dict[str, Any]:
    """The hint for the position (module doc); ``grid``: the givens, read and checked."""
    if grid.n != N:
        raise InvalidPuzzle(f"hints are for 9x9 grids (the grader's), not {grid.n}x{grid.n}")
    solution = _solution(grid.givens)
    values = _values(grid, placed)
    masks = None if candidates is None else _masks(candidates)
    wrong = _wrong(grid.givens, values, masks, solution)
    if wrong:
        return {"status": "wrong", "wrong": wrong}
    if values.all():
        return {"status": "solved"}
    board = grade.Board(values, solution)
    if masks is not None:
        board.cands &= np.where(values == 0, masks, 0)
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


def _values(grid: Grid, placed: JSON) -> np.ndarray:
    """The givens with the placed values (int64[81]); InvalidField naming ``placed`` when it is
    unreadable, of another size, or changes a given."""
    values = grid.givens.astype(np.int64)
    if placed is None:
        return values
    try:
        user = parse(placed).givens.astype(np.int64)
    except ParseError as exc:
        raise InvalidField("placed", str(exc)) from None
    if user.size != values.size:
        side = round(user.size ** 0.5)
        raise InvalidField("placed", f"placed is a {side}x{side} grid; the puzzle is 9x9")
    changed = np.flatnonzero((values > 0) & (user > 0) & (user != values))
    if changed.size:
        cell = int(changed[0])
        raise InvalidField("placed", f"{where(cell, N)} holds the given {values[cell]}, not {user[cell]}")
    return np.where(values > 0, values, user)


def _masks(candidates: JSON) -> np.ndarray:
    """The user's candidates as bit masks (int64[81], bit d-1 for digit d); InvalidField naming
    ``candidates`` unless they are 81 lists of digits 1-9."""
    if not isinstance(candidates, list) or len(candidates) != 81:
        got = f"{len(candidates)} entries" if isinstance(candidates, list) else type(candidates).__name__
        raise InvalidField("candidates", f"candidates must be a list of 81 lists of digits (cell r*9 + c); "
                                         f"got {got}")
    masks = np.zeros(81, np.int64)
    for cell, digits in enumerate(candidates):
        if not isinstance(digits, list):
            raise InvalidField("candidates", f"{where(cell, N)} must be a list of digits, "
                                             f"not {type(digits).__name__}")
        for d in digits:
            if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= N:
                raise InvalidField("candidates", f"{where(cell, N)}: {d!r} is not a digit 1-9")
            masks[cell] |= 1 << (d - 1)
    return masks


def _wrong(givens: np.ndarray, values: np.ndarray, masks: np.ndarray | None,
           solution: np.ndarray) -> list[dict[str, Any]]:
    """The placed values other than the solution's, and the open cells whose candidates lack it."""
    out = []
    for cell in np.flatnonzero((givens == 0) & (values > 0) & (values != solution)).tolist():
        out.append({"cell": cell, "row": cell // N + 1, "column": cell % N + 1, "field": "placed",
                    "value": int(values[cell]),
                    "message": f"{where(cell, N)}: {values[cell]} is not this cell's value in the solution"})
    if masks is not None:
        lost = (values == 0) & ((masks >> (solution - 1)) & 1 == 0)
        for cell in np.flatnonzero(lost).tolist():
            out.append({"cell": cell, "row": cell // N + 1, "column": cell % N + 1, "field": "candidates",
                        "message": f"{where(cell, N)}: the candidates no longer hold this cell's value "
                                   f"in the solution"})
    return out
