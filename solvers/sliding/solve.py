"""Solving a sliding-tile board: which algorithm and heuristic run, under which node budget.

``bfs``, ``dfs`` and ``astar`` are the generic ones of solvers/search.py over
problem.py's SlidingProblem; ``idastar`` runs ida.py's kernel (the generic IDA* over the same
problem is its reference in the tests and reproduces its node counts exactly). Every search has
a node budget (``max_nodes``); running out raises :class:`solvers.search.NodeLimitReached`, a
``BudgetExceeded`` with a message saying what to change, never a wrong ``no_solution``.

``auto`` (the default) proves optimality where that can finish and answers fast elsewhere: IDA*
on the strongest heuristic under a node budget that fits the board, then, if the budget runs
out, ``reduction`` (reduce.py: peel the board down to a square the kernel solves, then shorten
the route), whose answer says ``optimal: false``. Option ``optimal: true`` keeps auto to the
proof. The heuristics: misplaced tiles, Manhattan distance, Manhattan + linear conflict, or for
the 15-puzzle an additive pattern database (pdb/): ``pdb`` the 6-6-3 (built by default),
``pdb78`` the 7-8 (built on request, memory-mapped), which ``auto`` prefers once it is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from solvers import search
from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    Options,
    Outcome,
    Stats,
    StopFlag,
    Stopwatch,
    check_stop,
    stop_flag,
)
from solvers.sliding import ida, pdb, reduce
from solvers.sliding.board import MOVES, Board, Puzzle, goal_of, solvable
from solvers.sliding.problem import SlidingProblem

HEURISTICS = ("misplaced", "manhattan", "linear_conflict", "pdb", "pdb78")
DATABASE_OF = {"pdb": "663", "pdb78": "78"}  # heuristic -> pdb.DATABASES
KERNEL_HEURISTIC = {"misplaced": ida.MISPLACED, "manhattan": ida.MANHATTAN,
                    "linear_conflict": ida.LINEAR_CONFLICT, "pdb": ida.PATTERN_DB, "pdb78": ida.PATTERN_DB}
# Python searches keep every state in dicts: their cap bounds the memory they take.
PYTHON_MAX_NODES = 3_000_000
PYTHON_DEFAULT_NODES = 1_000_000
# The kernel keeps only its path: its cap bounds the time, minutes rather than hours.
KERNEL_MAX_NODES = 4_000_000_000
KERNEL_DEFAULT_NODES = 1_000_000_000
PYTHON_ALGORITHMS = ("bfs", "dfs", "astar")
# auto's optimal attempt, the nodes it may spend before the reduction answers instead
# (bench/sliding.py measures what Korf's 100 and bigger boards need):
AUTO_BUDGET_PDB = 500_000_000   # 15-puzzle with the database: well over what Korf's 100 need
AUTO_BUDGET_15 = 20_000_000     # 15-puzzle without the database
AUTO_BUDGET_BIG = 1_000_000     # 24-puzzle and up: only boards a few moves from the goal
SQUARE_BUDGET = 20_000_000      # the reduction's last square (4x4 with the database)
SHORTEN_WINDOWS, SHORTEN_BUDGET = (60, 33), 3_000_000  # the reduction's shortening (bench/sliding.py)


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


def heuristic_for(k: int, goal: Board, algorithm: str, chosen: str) -> tuple[str | None, str | None]:
    """(the heuristic that will run, why it differs from the one asked); auto = the strongest available:
    the 7-8 database once it is built (it is built only on request), else the 6-6-3."""
    if algorithm not in ("astar", "idastar", "auto"):
        return None, None
    if chosen == "auto":
        if k != 4 or algorithm == "astar":
            return "linear_conflict", None
        chosen = "pdb78" if pdb.load("78") is not None else "pdb"
    if chosen not in DATABASE_OF:
        return chosen, None
    if pdb.frame_for(k, goal) is None:
        return "linear_conflict", ("the pattern database needs the goal's blank in a corner; "
                                   "used linear_conflict")
    note = None
    if chosen == "pdb78" and pdb.load("78") is None:
        chosen = "pdb"
        note = "7-8 pattern database not built (python -m solvers.sliding.pdb build --pdb 78); used pdb"
    if pdb.load("663") is None:
        return "linear_conflict", ("pattern database not built yet (a worker's first start builds it, "
                                   "as does python -m solvers.sliding.pdb build); used linear_conflict")
    return chosen, note


def _node_budget(options: Options, node_limit: int | None) -> int:
    python = options["algorithm"] in PYTHON_ALGORITHMS
    asked: int | None = options["max_nodes"]
    budget = asked if asked is not None else PYTHON_DEFAULT_NODES if python else KERNEL_DEFAULT_NODES
    return budget if node_limit is None else min(budget, node_limit)


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
    cells, frame = np.array(board, np.int64), pdb.IDENTITY
    goal_pos = np.empty(k * k, np.int64)
    goal_pos[list(goal)] = np.arange(k * k)
    tables = pdb.NO_TABLES
    if heuristic in DATABASE_OF:
        found_frame, found_tables = pdb.frame_for(k, goal), pdb.load(DATABASE_OF[heuristic])
        assert found_frame is not None and found_tables is not None, "heuristic_for chose pdb"
        frame, tables = found_frame, found_tables
        cells = np.array(frame.to_canonical(k, board, goal), np.int64)
        goal_pos = np.arange(k * k, dtype=np.int64)
    status, moves, generated, expanded, deepest = ida.ida_star(
        cells, goal_pos, k, KERNEL_HEURISTIC[heuristic], *tables.arrays(), budget, stop)
    check_stop(stop)
    stats = {"expanded": int(expanded), "generated": int(generated), "max_frontier": int(deepest) + 1,
             "elapsed_ms": clock.ms()}
    if status == ida.BUDGET:
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
        moves, after, square = reduce.peel(k, board, goal, side)
        check_stop(stop)
        small, small_goal = square.puzzle(after, goal)
        heuristic = heuristic_for(side, small_goal, "idastar", "auto")[0] or "manhattan"
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
    short = reduce.shorten(k, board, moves, SHORTEN_WINDOWS, SHORTEN_BUDGET, stop)
    check_stop(stop)
    path = [MOVES[d] for d in short]
    return search.SearchResult(path, len(path), False, {"expanded": 0, "generated": nodes, "max_frontier": 0,
                                                        "elapsed_ms": clock.ms()})


def _auto(puzzle: Puzzle, goal: Board, options: Options, node_limit: int | None, stop: StopFlag,
          stats: SlidingStats) -> search.SearchResult:
    """IDA* within a budget for the board's size, then the reduction (unless optimal: true)."""
    heuristic, stats.note = heuristic_for(puzzle.k, goal, "auto", options["heuristic"])
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
    heuristic, note = heuristic_for(puzzle.k, goal, algorithm, options["heuristic"])
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
