"""Sliding-tile puzzles (8-puzzle, 15-puzzle, ...): k x k boards for k = 2..8.

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
             15-puzzle an additive pattern database (solvers/sliding_pdb.py):
             ``pdb`` the 6-6-3 (built by default), ``pdb78`` the 7-8 (built on
             request, memory-mapped), which ``auto`` prefers once it is built.

Algorithms: ``bfs``, ``dfs`` and ``astar`` are the generic ones of
solvers/search.py over :class:`SlidingProblem`; ``idastar`` runs the numba
kernel of solvers/sliding_kernels.py (the generic IDA* over the same problem
is its reference in the tests and reproduces its node counts exactly).
Every search has a node budget (``max_nodes``); running out raises
:class:`solvers.search.NodeLimitReached`, a ``BudgetExceeded`` with a message
saying what to change, never a wrong ``no_solution``.

``auto`` (the default) proves optimality where that can finish and answers
fast elsewhere: IDA* on the strongest heuristic under a node budget that fits
the board (the whole default budget for the 8-puzzle and for the 15-puzzle
with the pattern database), then, if the budget runs out, ``reduction``
(solvers/sliding_reduce.py: peel the board down to a square the kernel solves,
then shorten the route), whose answer says ``optimal: false``. Option
``optimal: true`` keeps auto to the proof.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from solvers import search
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
from solvers.sliding import ida as kernels
from solvers.sliding import pdb as sliding_pdb
from solvers.sliding import reduce as sliding_reduce

Board = tuple[int, ...]
Move = str

SIDES = (2, 3, 4, 5, 6, 7, 8)
MOVES = "ULRD"  # Korf's order; the blank's step for each letter is below
STEP = {"U": (-1, 0), "L": (0, -1), "R": (0, 1), "D": (1, 0)}
HEURISTICS = ("misplaced", "manhattan", "linear_conflict", "pdb", "pdb78")
DATABASE_OF = {"pdb": "663", "pdb78": "78"}  # heuristic -> sliding_pdb.DATABASES
KERNEL_HEURISTIC = {"misplaced": kernels.MISPLACED, "manhattan": kernels.MANHATTAN,
                    "linear_conflict": kernels.LINEAR_CONFLICT, "pdb": kernels.PATTERN_DB,
                    "pdb78": kernels.PATTERN_DB}
# Python searches keep every state in dicts: ~3 M states is about 1 GB.
PYTHON_MAX_NODES = 3_000_000
PYTHON_DEFAULT_NODES = 1_000_000
# The kernel generates ~5-20 M nodes/s on one core, so the maximum is minutes, not hours.
KERNEL_MAX_NODES = 4_000_000_000
KERNEL_DEFAULT_NODES = 1_000_000_000
PYTHON_ALGORITHMS = ("bfs", "dfs", "astar")
LARGEST_SIDE = {"auto": 8, "bfs": 3, "dfs": 3, "astar": 4, "idastar": 8, "reduction": 8}
# auto's optimal attempt: nodes it may spend before the reduction answers instead
# (the kernel runs ~25 M nodes/s with the pattern database, ~10 M with linear conflict)
AUTO_BUDGET_PDB = 500_000_000   # Korf's 100 need at most ~50 M: a proof in seconds
AUTO_BUDGET_15 = 20_000_000     # 15-puzzle without the database: a couple of seconds
AUTO_BUDGET_BIG = 1_000_000     # 24-puzzle and up: only boards a few moves from the goal
SQUARE_BUDGET = 20_000_000      # the reduction's last square (4x4 with the database)
SHORTEN_WINDOWS, SHORTEN_BUDGET = (60, 33), 3_000_000  # bench/sliding.py: ~20% shorter routes


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


# -- options and validation


def _heuristic(k: int, goal: Board, algorithm: str, chosen: str) -> tuple[str | None, str | None]:
    """(the heuristic that will run, why it differs from the one asked); auto = the strongest available:
    the 7-8 database once it is built (it is built only on request), else the 6-6-3."""
    if algorithm not in ("astar", "idastar", "auto"):
        return None, None
    if chosen == "auto":
        if k != 4 or algorithm == "astar":
            return "linear_conflict", None
        chosen = "pdb78" if sliding_pdb.load("78") is not None else "pdb"
    if chosen not in DATABASE_OF:
        return chosen, None
    if sliding_pdb.frame_for(k, goal) is None:
        return "linear_conflict", ("the pattern database needs the goal's blank in a corner; "
                                   "used linear_conflict")
    note = None
    if chosen == "pdb78" and sliding_pdb.load("78") is None:
        chosen = "pdb"
        note = "7-8 pattern database not built (python -m solvers.sliding.pdb build --pdb 78); used pdb"
    if sliding_pdb.load("663") is None:
        return "linear_conflict", ("pattern database not built (python -m solvers.sliding.pdb build); "
                                   "used linear_conflict")
    return chosen, note


def _node_budget(options: Options, node_limit: int | None) -> int:
    python = options["algorithm"] in PYTHON_ALGORITHMS
    asked: int | None = options["max_nodes"]
    budget = asked if asked is not None else PYTHON_DEFAULT_NODES if python else KERNEL_DEFAULT_NODES
    return budget if node_limit is None else min(budget, node_limit)


def validate(puzzle: Puzzle, options: Options) -> None:
    goal_of(puzzle, options)
    k, algorithm = puzzle.k, options["algorithm"]
    if k > LARGEST_SIDE[algorithm]:
        fits = [a for a, side in LARGEST_SIDE.items() if side >= k]
        raise InvalidOption(f"algorithm {algorithm!r} handles boards up to "
                            f"{LARGEST_SIDE[algorithm]}x{LARGEST_SIDE[algorithm]}; "
                            f"for {k}x{k} use {' or '.join(fits)}")
    heuristic = options["heuristic"]
    if heuristic in DATABASE_OF and k != 4:
        raise InvalidOption(f"heuristic {heuristic!r} is built for the 15-puzzle (4x4), not {k}x{k}")
    if heuristic in DATABASE_OF and algorithm not in ("idastar", "auto"):
        raise InvalidOption(f"heuristic {heuristic!r} runs only with algorithm 'idastar' (or 'auto')")
    if options["max_depth"] is not None and algorithm != "dfs":
        raise InvalidOption("option 'max_depth' bounds algorithm 'dfs' only")
    if options["optimal"] and algorithm in ("dfs", "reduction"):
        raise InvalidOption(f"algorithm {algorithm!r} proves no optimality; with optimal: true use auto, "
                            "idastar, astar or bfs")
    if algorithm in PYTHON_ALGORITHMS and (options["max_nodes"] or 0) > PYTHON_MAX_NODES:
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


# -- solving


@dataclass
class SlidingStats(Stats):
    expanded: int = 0
    generated: int = 0
    max_frontier: int = 0
    algorithm: str = ""
    strategy: str = ""
    abandoned: list[dict[str, Any]] = field(default_factory=list)
    heuristic: str | None = None
    note: str | None = None


def _generic(puzzle: Puzzle, goal: Board, options: Options, heuristic: str | None,
             budget: int) -> search.SearchResult:
    problem = SlidingProblem(puzzle.k, puzzle.board, goal, heuristic or "manhattan")
    algorithm = options["algorithm"]
    if algorithm == "dfs":
        return search.depth_first(problem, options["max_depth"], budget)
    run = cast(Callable[..., search.SearchResult], search.ALGORITHMS[algorithm])
    return run(problem, max_nodes=budget)


def _kernel(k: int, board: Board, goal: Board, heuristic: str, budget: int,
            stop: StopFlag) -> search.SearchResult:
    clock = Stopwatch()
    cells, frame = np.array(board, np.int64), sliding_pdb.IDENTITY
    goal_pos = np.empty(k * k, np.int64)
    goal_pos[list(goal)] = np.arange(k * k)
    tables = sliding_pdb.NO_TABLES
    if heuristic in DATABASE_OF:
        found_frame, found_tables = sliding_pdb.frame_for(k, goal), sliding_pdb.load(DATABASE_OF[heuristic])
        assert found_frame is not None and found_tables is not None, "_heuristic chose pdb"
        frame, tables = found_frame, found_tables
        cells = np.array(frame.to_canonical(k, board, goal), np.int64)
        goal_pos = np.arange(k * k, dtype=np.int64)
    status, moves, generated, expanded, deepest = kernels.ida_star(
        cells, goal_pos, k, KERNEL_HEURISTIC[heuristic], *tables.arrays(), budget, stop)
    check_stop(stop)
    stats = {"expanded": int(expanded), "generated": int(generated), "max_frontier": int(deepest) + 1,
             "elapsed_ms": clock.ms()}
    if status == kernels.BUDGET:
        raise search.NodeLimitReached(int(generated), f"idastar with {heuristic}", stats)
    path = frame.moves_back("".join(MOVES[d] for d in moves))
    return search.SearchResult(list(path), len(path), True, stats)


def _auto_budget(k: int, heuristic: str, options: Options, node_limit: int | None) -> int:
    if options["optimal"] or k <= 3:
        return _node_budget(options, node_limit)
    budget = AUTO_BUDGET_PDB if heuristic in DATABASE_OF else AUTO_BUDGET_15 if k == 4 else AUTO_BUDGET_BIG
    for cap in (options["max_nodes"], node_limit):
        budget = budget if cap is None else min(budget, cap)
    return budget


def _square(k: int, board: Board, goal: Board, stop: StopFlag) -> tuple[list[int], int]:
    """The reduction's moves and IDA* nodes: peel to a 4x4 when the pattern database solves it,
    else (or when that square runs past its budget) to a 3x3; a board that small is the square."""
    nodes = 0
    for side in [s for s in (4, 3) if s < k] or [k]:
        moves, after, square = sliding_reduce.peel(k, board, goal, side)
        check_stop(stop)
        small, small_goal = square.puzzle(after, goal)
        heuristic = _heuristic(side, small_goal, "idastar", "auto")[0] or "manhattan"
        if side == 4 and heuristic not in DATABASE_OF:
            continue  # without the database a 4x4 can take longer than peeling it
        try:
            found = _kernel(side, small, small_goal, heuristic, SQUARE_BUDGET, stop)
        except search.NodeLimitReached as spent:
            nodes += spent.nodes
            continue
        nodes += found.stats["generated"]
        return moves + [MOVES.index(m) for m in found.path or []], nodes
    raise AssertionError("a 3x3 square is always solved within its budget")


def _reduction(k: int, board: Board, goal: Board, stop: StopFlag) -> search.SearchResult:
    clock = Stopwatch()
    moves, nodes = _square(k, board, goal, stop)
    short = sliding_reduce.shorten(k, board, moves, SHORTEN_WINDOWS, SHORTEN_BUDGET, stop)
    check_stop(stop)
    path = [MOVES[d] for d in short]
    return search.SearchResult(path, len(path), False, {"expanded": 0, "generated": nodes, "max_frontier": 0,
                                                        "elapsed_ms": clock.ms()})


def _auto(puzzle: Puzzle, goal: Board, options: Options, node_limit: int | None, stop: StopFlag,
          stats: SlidingStats) -> search.SearchResult:
    """IDA* within a budget for the board's size, then the reduction (unless optimal: true)."""
    heuristic, stats.note = _heuristic(puzzle.k, goal, "auto", options["heuristic"])
    assert heuristic is not None
    budget = _auto_budget(puzzle.k, heuristic, options, node_limit)
    try:
        stats.strategy, stats.heuristic = "idastar", heuristic
        return _kernel(puzzle.k, puzzle.board, goal, heuristic, budget, stop)
    except search.NodeLimitReached as spent:
        if options["optimal"] or puzzle.k <= 3:  # a 3x3 is IDA*'s in milliseconds: the budget was asked
            raise
        stats.abandoned.append({"strategy": "idastar", "heuristic": heuristic, "nodes": spent.nodes,
                                "elapsed_ms": spent.stats["elapsed_ms"],
                                "why": f"node budget of {budget:,} spent without a proof"})
    stats.strategy, stats.heuristic = "reduction", None
    return _reduction(puzzle.k, puzzle.board, goal, stop)


def solve(puzzle: Puzzle, options: Options, node_limit: int | None = None,
          stop: StopFlag | None = None) -> Outcome:
    """The kernels check ``stop``; the Python searches are reached by the time limit's
    signal instead, and a flag set meanwhile is honoured when they return."""
    clock = Stopwatch()
    goal, algorithm = goal_of(puzzle, options), options["algorithm"]
    heuristic, note = _heuristic(puzzle.k, goal, algorithm, options["heuristic"])
    stats = SlidingStats(algorithm=algorithm, strategy=algorithm, heuristic=heuristic, note=note)
    if not solvable(puzzle.k, puzzle.board, goal):
        check_stop(stop)
        stats.strategy, stats.heuristic = "parity", None
        stats.elapsed_ms = clock.ms()
        return Outcome(NO_SOLUTION, None, stats.as_dict())
    budget = _node_budget(options, node_limit)
    stop = stop_flag() if stop is None else stop
    if algorithm == "auto":
        found = _auto(puzzle, goal, options, node_limit, stop, stats)
    elif algorithm == "reduction":
        found = _reduction(puzzle.k, puzzle.board, goal, stop)
    elif algorithm == "idastar":
        assert heuristic is not None
        found = _kernel(puzzle.k, puzzle.board, goal, heuristic, budget, stop)
    else:
        found = _generic(puzzle, goal, options, heuristic, budget)
        check_stop(stop)
    for name in ("expanded", "generated", "max_frontier"):
        setattr(stats, name, found.stats[name])
    stats.elapsed_ms = clock.ms()
    moves = "".join(found.path or [])
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
    board = puzzle.board
    for i, move in enumerate(moves):
        if move not in STEP:
            raise WrongAnswer(f"move {i + 1} is {move!r}; moves are U, D, L, R")
        following = blank_step(puzzle.k, board, move)
        if following is None:
            raise WrongAnswer(f"move {i + 1} ({move}) pushes the blank off the board")
        board = following
    if board != goal:
        raise WrongAnswer(f"after the {len(moves)} moves the board is {board}, not the goal {goal}")


# -- cost: seconds for a typical puzzle (sliding puzzles are never split)


def cost(puzzle: Puzzle, options: Options) -> float:
    """Seconds, from bench/sliding.py: the kernel's IDA* takes about 2 ms on an 8-puzzle and
    under a second on a 15-puzzle with the pattern database; auto answers bigger boards in
    a fraction of a second; the generic Python searches take tens to hundreds of ms on an
    8-puzzle and are capped by their node budget."""
    if options["algorithm"] == "auto" and not options["optimal"]:
        return {2: 1e-4, 3: 2e-3, 4: 0.5}.get(puzzle.k, 0.3)
    if options["algorithm"] in ("idastar", "auto"):
        return {2: 1e-4, 3: 2e-3, 4: 1.0}.get(puzzle.k, 100.0)
    return {2: 1e-3, 3: 0.5}.get(puzzle.k, 10.0)


EXAMPLE_6X6 = (  # shuffled at random: auto answers without proof
    "30 10 31 20 27 11 5 34 33 0 35 15 13 28 7 16 23 3 "
    "25 26 18 12 14 29 24 9 8 32 21 17 1 6 19 2 4 22")

OPTIONS = (
    Option("algorithm", str, "auto",
           "auto: optimal IDA* where it can finish (8-puzzle; 15-puzzle with the pattern database), else "
           "the reduction; bfs and dfs: the source's searches; astar; idastar (numba kernel); reduction: "
           "fast, not optimal (solve line by line down to a small square, then shorten the route)",
           choices=("auto", "bfs", "dfs", "astar", "idastar", "reduction")),
    Option("optimal", bool, False, "true: answer only with a proof of the fewest moves (auto never falls "
           "back to the reduction, and may run to the time limit)"),
    Option("heuristic", str, "auto", "lower bound for auto/astar/idastar; pdb = the 6-6-3 pattern database, "
           "pdb78 = the 7-8 (15-puzzle only, where built); auto = pdb78 for the 15-puzzle when built, else "
           "pdb when built, else linear_conflict", choices=("auto", *HEURISTICS)),
    Option("goal", str, None, "goal board like the puzzle; default 1 .. k*k-1 then 0 (blank last)"),
    Option("max_nodes", int, None, f"node budget; default {PYTHON_DEFAULT_NODES:,} for bfs/dfs/astar "
           f"(at most {PYTHON_MAX_NODES:,}), {KERNEL_DEFAULT_NODES:,} for idastar; for auto, a cap on "
           f"its optimal attempt; the reduction's searches have budgets of their own",
           minimum=1, maximum=KERNEL_MAX_NODES),
    Option("max_depth", int, None, "depth bound for dfs", minimum=0, maximum=10_000),
)

KIND = Kind(
    name="sliding",
    summary="Sliding-tile puzzles (8-puzzle, 15-puzzle, ... k x k for k = 2..8): a route to the goal, "
            "the fewest moves where that can be proved",
    input_format="k*k numbers, 0 = blank, row-major, separated by spaces, commas or newlines "
                 "(or a JSON list, flat or of rows); k = 2..8",
    options=OPTIONS,
    result_fields={"moves": "letters U/D/L/R: where the blank moves", "length": "number of moves",
                   "optimal": "true if no shorter solution exists (false for dfs and the reduction)"},
    stats_fields={"expanded": "states expanded", "generated": "states generated (root included; for "
                  "the reduction: its IDA* nodes)",
                  "max_frontier": "largest frontier (for idastar: the longest path)",
                  "elapsed_ms": "solve time", "algorithm": "algorithm asked",
                  "strategy": "what answered: bfs, dfs, astar, idastar, reduction, or parity (no solution)",
                  "abandoned": "what auto tried first and gave up: [{strategy, heuristic, nodes, "
                               "elapsed_ms, why}]",
                  "heuristic": "heuristic that ran", "note": "why a fallback heuristic ran, if any"},
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
        Example(EXAMPLE_6X6, {}),
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
