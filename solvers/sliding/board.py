"""Sliding-tile boards: k x k for k = 2..8, read from the wire, moved, and told solvable or not.

  k, n       board side and number of cells (n = k*k); cells are numbered row-major.
  Board      a tuple of n tiles, board[cell] = tile; 0 is the blank.
  goal       the Board to reach (option ``goal``; default 1 .. n-1 then the blank;
             Korf's 15-puzzle papers use the blank first: 0 1 .. n-1).
  move       a letter U, D, L or R: the direction the *blank* moves.
  parity     half the boards cannot reach a given goal; which half is decided by
             the permutation's parity against the blank's distance (no search).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from typing import Any

from solvers.base import InvalidOption, InvalidPuzzle, Options, ParseError

Board = tuple[int, ...]
Move = str

SIDES = (2, 3, 4, 5, 6, 7, 8)
MOVES = "ULRD"  # Korf's order; the blank's step for each letter is below
STEP = {"U": (-1, 0), "L": (0, -1), "R": (0, 1), "D": (1, 0)}


@dataclass(frozen=True)
class Puzzle:
    k: int
    board: Board


# -- reading the wire form


def _numbers(raw: Any, unreadable: type[ValueError]) -> list[int]:
    if isinstance(raw, str):
        words = [w for w in re.split(r"[\s,]+", raw.strip()) if w]
        bad = [w for w in words if not w.isdigit()]
        if bad:
            raise unreadable(f"{bad[0]!r} is not a tile number; write the tiles as numbers, 0 for the blank")
        return [int(w) for w in words]
    if isinstance(raw, list):
        if raw and all(isinstance(row, list) for row in raw):
            for r, row in enumerate(raw, 1):
                if len(row) != len(raw):
                    raise unreadable(f"row {r} has {len(row)} numbers; a board of {len(raw)} rows "
                                     f"needs {len(raw)} in every row")
            raw = [x for row in raw for x in row]
        bad = [x for x in raw if isinstance(x, bool) or not isinstance(x, int)]
        if bad:
            raise unreadable(f"{bad[0]!r} is not a tile number; tiles are integers, 0 for the blank")
        return list(raw)
    raise unreadable(f"a board is a string of numbers or a list, not {type(raw).__name__}")


def _board(raw: Any, what: str, unreadable: type[ValueError], broken: type[ValueError]) -> Puzzle:
    numbers = _numbers(raw, unreadable)
    k = math.isqrt(len(numbers))
    if k * k != len(numbers) or k not in SIDES:
        sizes = ", ".join(str(s * s) for s in SIDES)
        raise unreadable(f"{what} has {len(numbers)} numbers; a k x k board needs {sizes}")
    n = k * k
    seen: set[int] = set()
    for cell, tile in enumerate(numbers):
        where = f"{what}, row {cell // k + 1}, column {cell % k + 1}"
        if tile >= n:
            raise broken(f"{where} holds {tile}; a {k}x{k} board has tiles 1..{n - 1} and 0 for the blank")
        if tile in seen:
            raise broken(f"{where}: {tile} appears twice")
        seen.add(tile)
    return Puzzle(k, tuple(numbers))


def parse(raw: Any) -> Puzzle:
    return _board(raw, "the puzzle", ParseError, InvalidPuzzle)


def default_goal(k: int) -> Board:
    return (*tuple(range(1, k * k)), 0)


def goal_of(puzzle: Puzzle, options: Options) -> Board:
    if options["goal"] is None:
        return default_goal(puzzle.k)
    goal = _board(options["goal"], "option 'goal'", InvalidOption, InvalidOption)
    if goal.k != puzzle.k:
        raise InvalidOption(f"option 'goal' is a {goal.k}x{goal.k} board "
                            f"but the puzzle is {puzzle.k}x{puzzle.k}")
    return goal.board


# -- moves and parity


def blank_step(k: int, board: Board, move: Move) -> Board | None:
    """The board after the blank moves one cell, or None if that leaves the board."""
    blank = board.index(0)
    dr, dc = STEP[move]
    r, c = blank // k + dr, blank % k + dc
    if not (0 <= r < k and 0 <= c < k):
        return None
    cells = list(board)
    cells[blank], cells[r * k + c] = cells[r * k + c], 0
    return tuple(cells)


def random_board(k: int, rng: random.Random) -> Board:
    """A board drawn uniformly from those that can reach the default goal."""
    goal = default_goal(k)
    while True:
        board = list(goal)
        rng.shuffle(board)
        if solvable(k, tuple(board), goal):
            return tuple(board)


def solvable(k: int, board: Board, goal: Board) -> bool:
    """A move is one transposition and moves the blank one cell: the two parities stay equal."""
    where = {tile: cell for cell, tile in enumerate(goal)}
    perm = [where[tile] for tile in board]
    seen, transpositions = [False] * len(perm), 0
    for start in range(len(perm)):
        length, cell = 0, start
        while not seen[cell]:
            seen[cell] = True
            cell = perm[cell]
            length += 1
        transpositions += max(length - 1, 0)
    blank, home = board.index(0), goal.index(0)
    distance = abs(blank // k - home // k) + abs(blank % k - home % k)
    return transpositions % 2 == distance % 2


def inversion_parity_solvable(k: int, board: Board, goal: Board) -> bool:
    """The textbook rule (inversions, plus the blank's row on even boards), relative to ``goal``."""
    def key(b: Board) -> int:
        tiles = [t for t in b if t]
        inversions = sum(1 for i, a in enumerate(tiles) for b in tiles[i + 1:] if a > b)
        return inversions + (b.index(0) // k if k % 2 == 0 else 0)
    # rename tiles by their goal rank so the goal reads 1..n-1 in order around the blank
    order = {t: rank + 1 for rank, t in enumerate(t for t in goal if t)}
    def relabel(b: Board) -> Board:
        return tuple(order[t] if t else 0 for t in b)
    return key(relabel(board)) % 2 == key(relabel(goal)) % 2
