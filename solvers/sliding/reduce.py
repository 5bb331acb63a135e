"""Fast, non-optimal sliding-tile solving: peel the board down line by line, then shorten the route.

  region     the rectangle of cells still unsolved (rows top..bottom, columns left..right);
             everything outside it already holds its goal tile and is locked.
  peel       solve one outer row or column of the region and lock it: its tiles go home
             one by one, the last two together (alone, the last would have to displace
             its neighbour), each placement a breadth-first search over the blank and
             the tiles placed (reduce_kernels.place). The goal's blank cell stays in the region.
  square     what is left after peeling: a small k x k puzzle of its own (its goal is the
             goal's tiles on its cells), handed back to the caller to solve.
  window     a stretch of the route between two boards; ``shorten`` replaces it by an
             optimal route between the same boards when IDA* finds one within a budget.

Boards and directions are board.py's and kernels.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers.sliding import ida
from solvers.sliding.kernels import Flags, Ints, neighbours
from solvers.sliding.pdb import NO_TABLES
from solvers.sliding.reduce_kernels import place

Board = tuple[int, ...]


class PeelFailed(RuntimeError):
    """A placement search found no way: a bug, since every placement here has room to move."""


@dataclass(frozen=True)
class Square:
    """The unsolved square left by ``peel``: its cells in the big board, row-major."""

    side: int
    cells: tuple[int, ...]

    def puzzle(self, board: Board, goal: Board) -> tuple[Board, Board]:
        """(board, goal) of the square as a puzzle of its own, its tiles renumbered 1..side*side-1."""
        goal_tiles = [goal[c] for c in self.cells]
        label = {t: i + 1 for i, t in enumerate(sorted(t for t in goal_tiles if t))}
        label[0] = 0
        return tuple(label[board[c]] for c in self.cells), tuple(label[t] for t in goal_tiles)


def _place_line(cells: Ints, locked: Flags, goal: Board, line: list[int],
                k: int) -> list[int]:
    """Bring the line's goal tiles home in order, the last two together; lock them."""
    moves: list[int] = []
    for group in [[c] for c in line[:-2]] + [line[-2:]]:
        tiles = np.array([goal[c] for c in group], np.int64)
        found = place(cells, locked, tiles, np.array(group, np.int64), k)
        if found.size == 1 and found[0] < 0:
            raise PeelFailed(f"no way to bring tiles {list(tiles)} to cells {group}")
        moves.extend(int(d) for d in found)
        locked[group] = True
    return moves


def _choices(k: int, region: tuple[int, int, int, int], blank: tuple[int, int]
             ) -> list[tuple[list[int], tuple[int, int, int, int]]]:
    """The lines that may go next (a row if the region is at least as tall as wide, a column if
    at least as wide as tall; never the goal blank's), each either way, with the region left."""
    top, bottom, left, right = region
    found: list[tuple[list[int], tuple[int, int, int, int]]] = []
    if bottom - top >= right - left:
        row = bottom if blank[0] == top else top
        rest = (top + 1, bottom, left, right) if row == top else (top, bottom - 1, left, right)
        line = [row * k + c for c in range(left, right + 1)]
        found += [(line, rest), (line[::-1], rest)]
    if right - left >= bottom - top:
        col = right if blank[1] == left else left
        rest = (top, bottom, left + 1, right) if col == left else (top, bottom, left, right - 1)
        line = [r * k + col for r in range(top, bottom + 1)]
        found += [(line, rest), (line[::-1], rest)]
    return found


def peel(k: int, board: Board, goal: Board, side: int) -> tuple[list[int], Board, Square]:
    """Moves that solve all but a side x side square holding the goal's blank cell,
    the board they lead to, and that square. Of the lines that may go next, each way
    round, the one that costs fewest moves goes."""
    if not 2 <= side <= k:
        raise ValueError(f"cannot peel a {k}x{k} board down to {side}x{side}")
    cells = np.array(board, np.int64)
    locked = np.zeros(k * k, np.bool_)
    region = (0, k - 1, 0, k - 1)
    blank = divmod(goal.index(0), k)
    moves: list[int] = []
    while region[1] - region[0] + 1 > side or region[3] - region[2] + 1 > side:
        tries = []
        for line, rest in _choices(k, region, blank):
            trial_cells, trial_locked = cells.copy(), locked.copy()
            placed = _place_line(trial_cells, trial_locked, goal, line, k)
            tries.append((placed, trial_cells, trial_locked, rest))
        placed, cells, locked, region = min(tries, key=lambda t: len(t[0]))
        moves += placed
    top, bottom, left, right = region
    square = Square(side, tuple(r * k + c for r in range(top, bottom + 1) for c in range(left, right + 1)))
    return moves, tuple(int(t) for t in cells), square


def replay(k: int, board: Board, moves: list[int]) -> Board:
    """The board after ``moves``."""
    nbr = neighbours(k)
    cells = list(board)
    blank = cells.index(0)
    for d in moves:
        to = int(nbr[blank, d])
        cells[blank], cells[to] = cells[to], 0
        blank = to
    return tuple(cells)


def cancel_returns(moves: list[int]) -> list[int]:
    """Drop each move straight back (d then 3 - d), repeatedly: they cancel out."""
    kept: list[int] = []
    for d in moves:
        if kept and kept[-1] == 3 - d:
            kept.pop()
        else:
            kept.append(d)
    return kept


def shorten(k: int, board: Board, moves: list[int], windows: tuple[int, ...], budget: int,
            stop: Flags) -> list[int]:
    """One pass of ``_shorten_pass`` per window length, in order."""
    for window in windows:
        moves = _shorten_pass(k, board, moves, window, budget, stop)
    return moves


def _shorten_pass(k: int, board: Board, moves: list[int], window: int, budget: int,
                  stop: Flags) -> list[int]:
    """Replace windows of the route by optimal ones (IDA* with Manhattan towards the window's end
    board, at most ``budget`` nodes each); windows overlap by half. Ends early if ``stop`` is set."""
    moves = cancel_returns(moves)
    start, here = 0, board
    tables = NO_TABLES.arrays()
    while start + 2 <= len(moves):
        end = min(start + window, len(moves))
        there = replay(k, here, moves[start:end])
        goal_pos = np.empty(k * k, np.int64)
        goal_pos[list(there)] = np.arange(k * k)
        status, found, *_ = ida.ida_star(np.array(here, np.int64), goal_pos, k, ida.MANHATTAN,
                                             *tables, budget, stop)
        if status == ida.STOPPED:
            break
        if status == ida.SOLVED and len(found) < end - start:
            moves = moves[:start] + [int(d) for d in found] + moves[end:]
        step = max(window // 2, 1)
        here = replay(k, here, moves[start:start + step])
        start += step
    return cancel_returns(moves)
