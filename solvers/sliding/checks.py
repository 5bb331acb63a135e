"""The sliding kind's options and checks: a puzzle's validation against its options, and an
answer's check from the board alone (the moves are replayed; never from a solver's work)."""

from __future__ import annotations

from solvers.base import NO_SOLUTION, SOLVED, InvalidOption, Option, Options, Outcome, WrongAnswer
from solvers.sliding.board import STEP, Puzzle, blank_step, goal_of, inversion_parity_solvable
from solvers.sliding.solve import (
    DATABASE_OF,
    HEURISTICS,
    KERNEL_DEFAULT_NODES,
    KERNEL_MAX_NODES,
    PYTHON_ALGORITHMS,
    PYTHON_DEFAULT_NODES,
    PYTHON_MAX_NODES,
)

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

LARGEST_SIDE = {"auto": 8, "bfs": 3, "dfs": 3, "astar": 4, "idastar": 8, "reduction": 8}


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


# -- checking an answer without the solver


def verify(puzzle: Puzzle, options: Options, outcome: Outcome) -> None:
    goal = goal_of(puzzle, options)
    if outcome.status == NO_SOLUTION:
        if inversion_parity_solvable(puzzle.k, puzzle.board, goal):
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
