"""Sliding-tile puzzles (8-puzzle, 15-puzzle, ...), k x k boards for k = 2..8: the kind's record,
its options, validation, the independent check of an answer, and cost. Boards are board.py's;
solving is solve.py's (the source's methods are the generic ``bfs`` and ``dfs``).
"""

from __future__ import annotations

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
    Provision,
    WrongAnswer,
)
from solvers.sliding import pdb
from solvers.sliding.board import STEP, Puzzle, blank_step, goal_of, inversion_parity_solvable, parse
from solvers.sliding.making import GENERATOR
from solvers.sliding.predict import predict
from solvers.sliding.solve import (
    DATABASE_OF,
    HEURISTICS,
    KERNEL_DEFAULT_NODES,
    KERNEL_MAX_NODES,
    PYTHON_ALGORITHMS,
    PYTHON_DEFAULT_NODES,
    PYTHON_MAX_NODES,
    solve,
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

def cheaper(options: Options) -> str | None:
    """What a puzzle past its time limit could ask instead: a proof of the fewest moves can take
    hours where the reduction answers in seconds."""
    if not options["optimal"]:
        return None
    return 'options {"optimal": false} answer much sooner, with a route that may not be the shortest'


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
    predict=predict,
    generator=GENERATOR,
    time_limit_hint=cheaper,
    provision=Provision(missing=pdb.missing, build=pdb.ensure),
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
