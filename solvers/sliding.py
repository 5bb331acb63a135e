"""Sliding-tile puzzles (8-puzzle, 15-puzzle, ...): k x k boards for k = 2..5.

Glossary
  k, n       board side and number of cells (n = k*k); cells are numbered row-major.
  Board      a tuple of n tiles, board[cell] = tile; 0 is the blank.
  goal       the Board to reach (option ``goal``; default 1 .. n-1 then the blank;
             Korf's 15-puzzle papers use the blank first: 0 1 .. n-1).
  move       a letter U, D, L or R: the direction the *blank* moves.
  parity     half the boards cannot reach a given goal; which half is decided by
             the permutation's parity against the blank's distance (no search).
  heuristic  an admissible lower bound on the moves left: misplaced tiles,
             Manhattan distance, Manhattan + linear conflict, or for the
             15-puzzle an additive pattern database (solvers/sliding_pdb.py).

Algorithms: ``bfs``, ``dfs`` and ``astar`` are the generic ones of
solvers/search.py over :class:`SlidingProblem`; ``idastar`` runs the numba
kernel of solvers/sliding_kernels.py (the generic IDA* over the same problem
is its reference in the tests and reproduces its node counts exactly).
Every search has a node budget (``max_nodes``); running out raises
:class:`solvers.search.NodeLimitReached`, a ``BudgetExceeded`` with a message
saying what to change, never a wrong ``no_solution``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from solvers import search, sliding_kernels as kernels, sliding_pdb
from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    BadExample,
    Example,
    InvalidOption,
    InvalidPuzzle,
    Kind,
    Option,
    Options,
    Outcome,
    ParseError,
    Stats,
    StopFlag,
    Stopwatch,
    WrongAnswer,
    check_stop,
    stop_flag,
)

Board = tuple[int, ...]
Move = str

SIDES = (2, 3, 4, 5)
MOVES = "ULRD"  # Korf's order; the blank's step for each letter is below
STEP = {"U": (-1, 0), "L": (0, -1), "R": (0, 1), "D": (1, 0)}
HEURISTICS = ("misplaced", "manhattan", "linear_conflict", "pdb")
KERNEL_HEURISTIC = {"misplaced": kernels.MISPLACED, "manhattan": kernels.MANHATTAN,
                    "linear_conflict": kernels.LINEAR_CONFLICT, "pdb": kernels.PATTERN_DB}
# Python searches keep every state in dicts: ~3 M states is about 1 GB.
PYTHON_MAX_NODES = 3_000_000
PYTHON_DEFAULT_NODES = 1_000_000
# The kernel generates ~5-20 M nodes/s on one core, so the maximum is minutes, not hours.
KERNEL_MAX_NODES = 4_000_000_000
KERNEL_DEFAULT_NODES = 1_000_000_000
LARGEST_SIDE = {"bfs": 3, "dfs": 3, "astar": 4, "idastar": 5}


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
    return tuple(range(1, k * k)) + (0,)


def goal_of(puzzle: Puzzle, options: Options) -> Board:
    if options["goal"] is None:
        return default_goal(puzzle.k)
    goal = _board(options["goal"], "option 'goal'", InvalidOption, InvalidOption)
    if goal.k != puzzle.k:
        raise InvalidOption(f"option 'goal' is a {goal.k}x{goal.k} board "
                            f"but the puzzle is {puzzle.k}x{puzzle.k}")
    return goal.board


# -- options and validation


def _algorithm(options: Options) -> str:
    return options["algorithm"]


def _heuristic(k: int, goal: Board, options: Options) -> tuple[str | None, str | None]:
    """(the heuristic that will run, why it differs from the one asked); auto = the strongest available."""
    algorithm, chosen = _algorithm(options), options["heuristic"]
    if algorithm not in ("astar", "idastar"):
        return None, None
    if chosen == "auto":
        chosen = "pdb" if k == 4 and algorithm == "idastar" else "linear_conflict"
    if chosen != "pdb":
        return chosen, None
    if sliding_pdb.frame_for(k, goal) is None:
        return "linear_conflict", ("the pattern database needs the goal's blank in a corner; "
                                   "used linear_conflict")
    if sliding_pdb.load() is None:
        return "linear_conflict", ("pattern database not built (python -m solvers.sliding_pdb build); "
                                   "used linear_conflict")
    return "pdb", None


def _node_budget(options: Options, node_limit: int | None) -> int:
    python = _algorithm(options) != "idastar"
    budget = options["max_nodes"]
    if budget is None:
        budget = PYTHON_DEFAULT_NODES if python else KERNEL_DEFAULT_NODES
    return budget if node_limit is None else min(budget, node_limit)


def validate(puzzle: Puzzle, options: Options) -> None:
    goal_of(puzzle, options)
    k, algorithm = puzzle.k, _algorithm(options)
    if k > LARGEST_SIDE[algorithm]:
        fits = [a for a, side in LARGEST_SIDE.items() if side >= k]
        raise InvalidOption(f"algorithm {algorithm!r} handles boards up to "
                            f"{LARGEST_SIDE[algorithm]}x{LARGEST_SIDE[algorithm]}; "
                            f"for {k}x{k} use {' or '.join(fits)}")
    if options["heuristic"] == "pdb" and k != 4:
        raise InvalidOption(f"heuristic 'pdb' is built for the 15-puzzle (4x4), not {k}x{k}")
    if options["heuristic"] == "pdb" and algorithm != "idastar":
        raise InvalidOption("heuristic 'pdb' runs only with algorithm 'idastar'")
    if options["max_depth"] is not None and algorithm != "dfs":
        raise InvalidOption("option 'max_depth' bounds algorithm 'dfs' only")
    if algorithm != "idastar" and (options["max_nodes"] or 0) > PYTHON_MAX_NODES:
        raise InvalidOption(f"option 'max_nodes' is at most {PYTHON_MAX_NODES:,} for {algorithm!r} "
                            f"(it keeps every state in memory); use 'idastar' for more")


# -- board geometry and parity


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


# -- heuristics in Python, for the generic algorithms


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


PYTHON_HEURISTICS = {
    "misplaced": misplaced,
    "manhattan": manhattan,
    "linear_conflict": lambda k, b, home: manhattan(k, b, home) + linear_conflicts(k, b, home),
}


class SlidingProblem(search.Problem):
    def __init__(self, k: int, board: Board, goal: Board, heuristic: str = "manhattan"):
        self.k, self.initial, self.goal = k, board, goal
        self.home = [0] * (k * k)
        for cell, tile in enumerate(goal):
            self.home[tile] = cell
        self._h = PYTHON_HEURISTICS[heuristic]

    def actions(self, state: Board) -> list[Move]:
        blank = state.index(0)
        r, c = divmod(blank, self.k)
        return [m for m in MOVES if 0 <= r + STEP[m][0] < self.k and 0 <= c + STEP[m][1] < self.k]

    def result(self, state: Board, action: Move) -> Board:
        following = blank_step(self.k, state, action)
        assert following is not None, "actions() offers only moves that stay on the board"
        return following

    def is_goal(self, state: Board) -> bool:
        return state == self.goal

    def h(self, state: Board) -> int:
        return self._h(self.k, state, self.home)


# -- solving


@dataclass
class SlidingStats(Stats):
    expanded: int = 0
    generated: int = 0
    max_frontier: int = 0
    algorithm: str = ""
    heuristic: str | None = None
    note: str | None = None


def _generic(puzzle: Puzzle, goal: Board, options: Options, heuristic: str | None,
             budget: int) -> search.SearchResult:
    problem = SlidingProblem(puzzle.k, puzzle.board, goal, heuristic or "manhattan")
    algorithm = _algorithm(options)
    if algorithm == "dfs":
        return search.depth_first(problem, options["max_depth"], budget)
    return search.ALGORITHMS[algorithm](problem, max_nodes=budget)


def _kernel(puzzle: Puzzle, goal: Board, heuristic: str, budget: int, stop: StopFlag) -> search.SearchResult:
    clock = Stopwatch()
    k = puzzle.k
    board, frame = np.array(puzzle.board, np.int64), sliding_pdb.IDENTITY
    goal_pos = np.empty(k * k, np.int64)
    goal_pos[list(goal)] = np.arange(k * k)
    tables = sliding_pdb.NO_TABLES
    if heuristic == "pdb":
        frame = sliding_pdb.frame_for(k, goal)
        board = np.array(frame.to_canonical(k, puzzle.board, goal), np.int64)
        goal_pos = np.arange(k * k, dtype=np.int64)
        tables = sliding_pdb.load()
    status, moves, generated, expanded, deepest = kernels.ida_star(
        board, goal_pos, k, KERNEL_HEURISTIC[heuristic], *tables.arrays(), budget, stop)
    check_stop(stop)
    stats = {"expanded": int(expanded), "generated": int(generated), "max_frontier": int(deepest) + 1,
             "elapsed_ms": clock.ms()}
    if status == kernels.BUDGET:
        raise search.NodeLimitReached(int(generated), f"idastar with {heuristic}", stats)
    path = frame.moves_back("".join(MOVES[d] for d in moves))
    return search.SearchResult(list(path), len(path), True, stats)


def solve(puzzle: Puzzle, options: Options, node_limit: int | None = None,
          stop: StopFlag | None = None) -> Outcome:
    """The kernel's IDA* checks ``stop``; the Python searches are reached by the time limit's
    signal instead, and a flag set meanwhile is honoured when they return."""
    clock = Stopwatch()
    goal, algorithm = goal_of(puzzle, options), _algorithm(options)
    heuristic, note = _heuristic(puzzle.k, goal, options)
    stats = SlidingStats(algorithm=algorithm, heuristic=heuristic, note=note)
    if not solvable(puzzle.k, puzzle.board, goal):
        check_stop(stop)
        stats.elapsed_ms = clock.ms()
        return Outcome(NO_SOLUTION, None, stats.as_dict())
    budget = _node_budget(options, node_limit)
    if algorithm == "idastar":
        found = _kernel(puzzle, goal, heuristic, budget, stop_flag() if stop is None else stop)
    else:
        found = _generic(puzzle, goal, options, heuristic, budget)
        check_stop(stop)
    for name in ("expanded", "generated", "max_frontier"):
        setattr(stats, name, found.stats[name])
    stats.elapsed_ms = clock.ms()
    moves = "".join(found.path)
    return Outcome(SOLVED, {"moves": moves, "length": len(moves), "optimal": found.optimal}, stats.as_dict())


# -- checking an answer without the solver


def _inversion_parity_solvable(k: int, board: Board, goal: Board) -> bool:
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


def verify(puzzle: Puzzle, options: Options, outcome: Outcome) -> None:
    goal = goal_of(puzzle, options)
    if outcome.status == NO_SOLUTION:
        if _inversion_parity_solvable(puzzle.k, puzzle.board, goal):
            raise WrongAnswer("no_solution claimed but the board has the goal's parity")
        return
    result = outcome.result or {}
    moves = result.get("moves")
    if outcome.status != SOLVED or not isinstance(moves, str):
        raise WrongAnswer(f"expected a solved outcome with a move string, got {outcome.to_json()}")
    if result.get("length") != len(moves) or not isinstance(result.get("optimal"), bool):
        raise WrongAnswer(f"length {result.get('length')!r} or optimal {result.get('optimal')!r} "
                          f"does not fit {len(moves)} moves")
    board: Board | None = puzzle.board
    for i, move in enumerate(moves):
        if move not in STEP:
            raise WrongAnswer(f"move {i + 1} is {move!r}; moves are U, D, L, R")
        board = blank_step(puzzle.k, board, move)
        if board is None:
            raise WrongAnswer(f"move {i + 1} ({move}) pushes the blank off the board")
    if board != goal:
        raise WrongAnswer(f"after the {len(moves)} moves the board is {board}, not the goal {goal}")


# -- split/merge: one search is not cut into parts


def cost(puzzle: Puzzle, options: Options) -> float:
    """Seconds, from bench/sliding.py: the kernel's IDA* takes about 2 ms on an 8-puzzle and
    under a second on a 15-puzzle with the pattern database; the generic Python searches
    take tens to hundreds of ms on an 8-puzzle and are capped by their node budget."""
    if options["algorithm"] == "idastar":
        return {2: 1e-4, 3: 2e-3, 4: 1.0}.get(puzzle.k, 100.0)
    return {2: 1e-3, 3: 0.5}.get(puzzle.k, 10.0)


OPTIONS = (
    Option("algorithm", str, "idastar", "search algorithm; idastar (numba kernel) is the fastest optimal one",
           choices=("bfs", "dfs", "astar", "idastar")),
    Option("heuristic", str, "auto", "lower bound for astar/idastar; auto = pdb for the 15-puzzle when "
           "built, else linear_conflict", choices=("auto",) + HEURISTICS),
    Option("goal", str, None, "goal board like the puzzle; default 1 .. k*k-1 then 0 (blank last)"),
    Option("max_nodes", int, None, f"node budget; default {PYTHON_DEFAULT_NODES:,} for bfs/dfs/astar "
           f"(at most {PYTHON_MAX_NODES:,}), {KERNEL_DEFAULT_NODES:,} for idastar",
           minimum=1, maximum=KERNEL_MAX_NODES),
    Option("max_depth", int, None, "depth bound for dfs", minimum=0, maximum=10_000),
)

KIND = Kind(
    name="sliding",
    summary="Sliding-tile puzzles (8-puzzle, 15-puzzle; k x k for k = 2..5): fewest moves to the goal",
    input_format="k*k numbers, 0 = blank, row-major, separated by spaces, commas or newlines "
                 "(or a JSON list, flat or of rows); k = 2..5",
    options=OPTIONS,
    result_fields={"moves": "letters U/D/L/R: where the blank moves", "length": "number of moves",
                   "optimal": "true if no shorter solution exists (false for dfs)"},
    stats_fields={"expanded": "states expanded", "generated": "states generated (root included)",
                  "max_frontier": "largest frontier (for idastar: the longest path)",
                  "elapsed_ms": "solve time", "algorithm": "algorithm run",
                  "heuristic": "heuristic that ran", "note": "why a fallback ran, if any"},
    parse=parse,
    validate=validate,
    solve=solve,
    verify=verify,
    cost=cost,
    examples=(
        Example("8 6 7 2 5 4 3 0 1", {"algorithm": "astar"}),
        Example("1 2 3 4 5 6 8 7 0", {}, NO_SOLUTION),
        Example("0 1 9 7 11 13 5 3 14 12 4 2 8 6 10 15", {"goal": " ".join(map(str, range(16)))}),  # Korf 79
        Example("1 2 3 4 5 6 0 7 8", {"algorithm": "dfs"}),
    ),
    bad_examples=(
        BadExample("1 2 3 4 5 6 7 8", {}, ParseError),
        BadExample("1 2 3 4 5 6 7 8 8", {}, InvalidPuzzle),
        BadExample("1 2 3 x 5 6 7 8 0", {}, ParseError),
        BadExample([[1, 2, 3], [4, 5], [6, 7, 8, 0]], {}, ParseError),
        BadExample("1 2 3 4 5 6 7 8 0", {"goal": "0 1 2 3"}, InvalidOption),
        BadExample("1 2 3 4 5 6 7 8 0", {"algorithm": "sideways"}, InvalidOption),
        BadExample(" ".join(map(str, range(16))), {"algorithm": "bfs"}, InvalidOption),
    ),
)
