"""The sliding-tile board as a ``search.Problem`` for the generic algorithms (bfs, dfs, astar, and
the generic IDA* the kernel is tested against), with its heuristics in Python: misplaced tiles,
Manhattan distance, Manhattan + linear conflict."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from solvers import search
from solvers.sliding.board import MOVES, STEP, Board, Move, blank_step


def _longest_ordered_run(values: Sequence[int]) -> int:
    best = [1] * len(values)
    for i in range(len(values)):
        for j in range(i):
            if values[j] < values[i]:
                best[i] = max(best[i], best[j] + 1)
    return max(best, default=0)


def linear_conflicts(k: int, board: Board, home: Sequence[int]) -> int:
    """2 per tile that must leave its goal row or column so the rest can pass (see SOURCES.md)."""
    total = 0
    for line in range(k):
        in_row = [home[t] % k for t in board[line * k:(line + 1) * k] if t and home[t] // k == line]
        in_col = [home[t] // k for t in board[line::k] if t and home[t] % k == line]
        total += 2 * (len(in_row) - _longest_ordered_run(in_row))
        total += 2 * (len(in_col) - _longest_ordered_run(in_col))
    return total


def manhattan(k: int, board: Board, home: Sequence[int]) -> int:
    return sum(abs(cell // k - home[t] // k) + abs(cell % k - home[t] % k)
               for cell, t in enumerate(board) if t)


def misplaced(k: int, board: Board, home: Sequence[int]) -> int:
    return sum(1 for cell, t in enumerate(board) if t and home[t] != cell)


def manhattan_linear_conflict(k: int, board: Board, home: Sequence[int]) -> int:
    return manhattan(k, board, home) + linear_conflicts(k, board, home)


PYTHON_HEURISTICS: dict[str, Callable[[int, Board, Sequence[int]], int]] = {
    "misplaced": misplaced,
    "manhattan": manhattan,
    "linear_conflict": manhattan_linear_conflict,
}


class SlidingProblem(search.Problem):
    def __init__(self, k: int, board: Board, goal: Board, heuristic: str = "manhattan") -> None:
        self.k, self.initial, self.goal = k, board, goal
        self.home = [0] * (k * k)
        for cell, tile in enumerate(goal):
            self.home[tile] = cell
        self._h = PYTHON_HEURISTICS[heuristic]

    def actions(self, state: search.State) -> list[Move]:
        blank = cast(Board, state).index(0)
        r, c = divmod(blank, self.k)
        return [m for m in MOVES if 0 <= r + STEP[m][0] < self.k and 0 <= c + STEP[m][1] < self.k]

    def result(self, state: search.State, action: Move) -> Board:
        following = blank_step(self.k, cast(Board, state), action)
        assert following is not None, "actions() offers only moves that stay on the board"
        return following

    def is_goal(self, state: search.State) -> bool:
        return state == self.goal

    def h(self, state: search.State) -> int:
        return self._h(self.k, cast(Board, state), self.home)
