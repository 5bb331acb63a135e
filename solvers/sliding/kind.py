"""Sliding-tile puzzles (8-puzzle, 15-puzzle, ...), k x k boards for k = 2..8: the kind's record.
Its options, validation and the independent check of an answer are checks.py's; boards are
board.py's; solving is solve.py's (the source's methods are the generic ``bfs`` and ``dfs``).
"""

from __future__ import annotations

from solvers.base import (
    NO_SOLUTION,
    BadExample,
    Example,
    InvalidOption,
    InvalidPuzzle,
    Kind,
    Options,
    ParseError,
    Provision,
)
from solvers.sliding import pdb
from solvers.sliding.board import parse
from solvers.sliding.checks import OPTIONS, validate, verify
from solvers.sliding.making import GENERATOR
from solvers.sliding.predict import predict
from solvers.sliding.solve import solve

EXAMPLE_6X6 = (  # shuffled at random: auto answers without proof
    "30 10 31 20 27 11 5 34 33 0 35 15 13 28 7 16 23 3 "
    "25 26 18 12 14 29 24 9 8 32 21 17 1 6 19 2 4 22")


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
