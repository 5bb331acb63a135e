"""The sliding kind's generator record (``Generator``): generate.py's positions as
generate-request results, each checked again on its own (the route reaches the goal; an exact
distance proved again by the kind's optimal search)."""

from __future__ import annotations

from typing import Any

from solvers.base import SOLVED, Generator, Options, Outcome, WrongAnswer
from solvers.sliding import generate
from solvers.sliding.board import Puzzle, parse
from solvers.sliding.checks import verify as check_answer

RESULT_FIELDS = {
    "puzzle": "the made position: tiles separated by spaces, 0 the blank, the kind's wire form",
    "solution": "a route to the goal: letters U/D/L/R, where the blank moves",
    "moves": "the optimal distance asked (a random walk's length from 5x5 up)",
    "optimal": "true: the solution is a fewest-moves route, proved by the search",
    "random_walk": "true: the position ends a random walk (5x5 up); its distance is not proved",
    "solves": "4x4: the optimal searches made to land exactly on the distance",
}

# CPU seconds per position (bench/factory.py --others): 2x2 and 3x3 by a draw from the layer
# of their breadth-first search, 4x4 by about five optimal searches that grow with the
# distance, larger boards by a walk.
SECONDS = {2: 1e-4, 3: 1e-3, 4: 1e-3}
SECONDS_4X4_AT_50, GROWTH_4X4 = 3.6e-2, 5.5  # 2.2e-3 s at 30 moves
WALK_SECONDS_PER_MOVE = 5e-6


def check(options: Options) -> None:
    """The distance must be one the board has (InvalidOption otherwise)."""
    generate.check_moves(options["size"], options["moves"])


def verify(options: Options, result: dict[str, Any]) -> None:
    """The route takes the position to the goal in ``moves`` steps, and where the distance is
    exact the kind's optimal search finds no shorter one."""
    required = set(RESULT_FIELDS) - {"solves"}
    if not required <= set(result) <= set(RESULT_FIELDS):
        raise WrongAnswer(f"a made sliding position has {', '.join(sorted(required))}; "
                          f"got {sorted(result)}")
    puzzle: Puzzle = parse(result["puzzle"])
    route = result["solution"]
    check_answer(puzzle, {"goal": None}, Outcome(SOLVED, {"moves": route, "length": len(route),
                                                        "optimal": result["optimal"]}, {}))
    if puzzle.k != options["size"] or len(route) != options["moves"] or result["moves"] != options["moves"]:
        raise WrongAnswer(f"a {puzzle.k}x{puzzle.k} position at {len(route)} moves, asked "
                          f"{options['size']}x{options['size']} at {options['moves']}")
    walked = puzzle.k not in generate.EXACT_MAX
    if result["optimal"] == result["random_walk"] or result["random_walk"] != walked:
        raise WrongAnswer("optimal and random_walk do not fit the board's side")
    if result["optimal"] and generate.distance(puzzle.k, puzzle.board)[0] != len(route):
        raise WrongAnswer(f"the position is not at the optimal distance {len(route)}")


def seconds(options: Options) -> float:
    k: int = options["size"]
    moves: int = options["moves"]
    if k == 4:
        return max(SECONDS[4], SECONDS_4X4_AT_50 * float((moves / 50) ** GROWTH_4X4))
    return SECONDS.get(k, WALK_SECONDS_PER_MOVE * moves)


GENERATOR = Generator(options=generate.GENERATE_OPTIONS, make=generate.make, check=check, verify=verify,
                      seconds=seconds, result_fields=RESULT_FIELDS)
