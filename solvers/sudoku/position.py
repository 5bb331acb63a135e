"""A Sudoku position part-way through, for any size: the givens, the user's placed values and
optionally the candidates the user kept; read from the wire (``values``, ``masks``), checked
against the puzzle's one solution (``wrong``), and graded from where it stands (``grade``).

  placed      a grid in the puzzle's wire form: its blanks open, its givens blank or repeated;
  candidates  n*n lists of digits, cell r*n + c; a filled cell's list is ignored. An open cell's
              candidates are the digits no peer holds, and of those only the ones the user kept.

Hints (hint.py) and option ``explain`` with ``placed``/``candidates`` (explain.py) read a
position this way. Bad input raises InvalidField naming ``placed`` or ``candidates``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solvers.base import JSON, InvalidField, ParseError
from solvers.sudoku import grade, gradeg
from solvers.sudoku.grid import SYMBOLS, Grid, parse, where


def values(grid: Grid, placed: JSON) -> np.ndarray:
    """The givens with the placed values (int64[n*n]); InvalidField naming ``placed`` when it is
    unreadable, of another size, or changes a given."""
    out = grid.givens.astype(np.int64)
    if placed is None:
        return out
    try:
        user = parse(placed).givens.astype(np.int64)
    except ParseError as exc:
        raise InvalidField("placed", str(exc)) from None
    if user.size != out.size:
        side = round(user.size ** 0.5)
        raise InvalidField("placed", f"placed is a {side}x{side} grid; the puzzle is {grid.n}x{grid.n}")
    changed = np.flatnonzero((out > 0) & (user > 0) & (user != out))
    if changed.size:
        cell = int(changed[0])
        raise InvalidField("placed", f"{where(cell, grid.n)} holds the given {SYMBOLS[out[cell] - 1]}, "
                                     f"not {SYMBOLS[user[cell] - 1]}")
    return np.where(out > 0, out, user)


def masks(candidates: JSON, n: int) -> np.ndarray | None:
    """The user's candidates as bit masks (int64[n*n], bit d-1 for digit d), None when not given;
    InvalidField naming ``candidates`` unless they are n*n lists of digits 1..n."""
    if candidates is None:
        return None
    cells = n * n
    if not isinstance(candidates, list) or len(candidates) != cells:
        got = f"{len(candidates)} entries" if isinstance(candidates, list) else type(candidates).__name__
        raise InvalidField("candidates", f"candidates must be a list of {cells} lists of digits "
                                         f"(cell r*{n} + c); got {got}")
    out = np.zeros(cells, np.int64)
    for cell, digits in enumerate(candidates):
        if not isinstance(digits, list):
            raise InvalidField("candidates", f"{where(cell, n)} must be a list of digits, "
                                             f"not {type(digits).__name__}")
        for d in digits:
            if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= n:
                raise InvalidField("candidates", f"{where(cell, n)}: {d!r} is not a digit 1-{n}")
            out[cell] |= 1 << (d - 1)
    return out


def wrong(givens: np.ndarray, placed: np.ndarray, kept: np.ndarray | None,
          solution: np.ndarray) -> list[dict[str, Any]]:
    """The placed values other than the solution's, and the open cells whose candidates lack it:
    ``[{cell, row, column, field, value?, message}]``, ``field`` placed (with the ``value``) or
    candidates."""
    n = round(givens.size ** 0.5)
    solution = solution.astype(np.int64)
    out = []
    for cell in np.flatnonzero((givens == 0) & (placed > 0) & (placed != solution)).tolist():
        value = int(placed[cell])
        out.append({"cell": cell, "row": cell // n + 1, "column": cell % n + 1, "field": "placed",
                    "value": value, "message": f"{where(cell, n)}: {SYMBOLS[value - 1]} is not this "
                                               f"cell's value in the solution"})
    if kept is not None:
        lost = (placed == 0) & ((kept >> (solution - 1)) & 1 == 0)
        for cell in np.flatnonzero(lost).tolist():
            out.append({"cell": cell, "row": cell // n + 1, "column": cell % n + 1, "field": "candidates",
                        "message": f"{where(cell, n)}: the candidates no longer hold this cell's value "
                                   f"in the solution"})
    return out


def board(placed: np.ndarray, kept: np.ndarray | None, solution: np.ndarray) -> grade.Board | gradeg.Board:
    """The grader's board at the position (the 9x9 grader's, else the size-generic one's), its
    candidates narrowed to the user's where given."""
    n = round(placed.size ** 0.5)
    out: grade.Board | gradeg.Board
    if n == grade.N:
        out = grade.Board(placed, solution)
        if kept is not None:
            out.cands &= np.where(placed == 0, kept, 0)
        return out
    out = gradeg.Board(n, placed.tolist(), solution.tolist())
    if kept is not None:
        out.cands = [c & int(k) for c, k in zip(out.cands, kept.tolist(), strict=True)]
    return out


def grade_from(placed: np.ndarray, kept: np.ndarray | None, solution: np.ndarray) -> grade.Grade | None:
    """The grading of the position (values ``placed``, the user's candidates ``kept``) from where
    it stands, the placed values right: the steps still needed, rated by the hardest of them;
    None when every cell is filled."""
    if placed.all():
        return None
    start = board(placed, kept, solution)
    if isinstance(start, grade.Board):
        return grade.grade_board(start)
    return gradeg.grade_board(start)
