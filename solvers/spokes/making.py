"""The Spokes kind's generator record (``Generator``): generate.py's puzzles of a level as
generate-request results, each checked again on its own (the kind's rules, uniqueness by SAT,
the level by the paper's Pruning Algorithm)."""

from __future__ import annotations

from typing import Any

from solvers.base import SOLVED, Generator, Options, WrongAnswer
from solvers.spokes import generate, pruning
from solvers.spokes.checks import check_spokes
from solvers.spokes.puzzle import graph, parse
from solvers.spokes.solve import solve

RESULT_FIELDS = {
    "puzzle": "the made puzzle: rows of hub numbers, the kind's wire form",
    "solution": "its only solution: [[r1, c1, r2, c2], ...], as the kind's spokes",
    "level": "easy (the Pruning Algorithm alone solves it) or hard (search is needed)",
    "unique": "true: SAT, asked for two solutions, finds this one alone",
    "attempts": "the drawings tried before one was of the level",
    "pa_deletions": "edges the Pruning Algorithm deleted by the paper's priorities",
}

# CPU seconds per puzzle: a fixed cost (the smallest grids), and the mean at 7x7 by level, growing
# as a power of the points (python -m bench.making, 4x4 to 15x15; bench/factory.py --others to
# 30x30). A puzzle's time varies with the drawings tried and the repairs each needs: at 7x7 hard
# from a thirtieth to five times the mean, so the mean (not the typical puzzle, a third lower)
# is predicted, and the range's high end holds the slow ones.
FIXED_SECONDS = 1.5e-3
SECONDS_7X7 = {"easy": 1.3e-2, "hard": 0.14}
GROWTH = {"easy": 2.5, "hard": 2.1}
_UNIQUE = {"strategy": "sat", "max_solutions": 2}


def check(options: Options) -> None:
    """Every combination of the options' values can be asked for."""


def verify(options: Options, result: dict[str, Any]) -> None:
    """The solution keeps the kind's rules, SAT finds it alone, and the Pruning Algorithm alone
    solves the puzzle exactly when its level is easy."""
    if set(result) != set(RESULT_FIELDS):
        raise WrongAnswer(f"a made spokes puzzle has {', '.join(RESULT_FIELDS)}; got {sorted(result)}")
    puzzle = parse(result["puzzle"])
    if (puzzle.width, puzzle.height) != (options["width"], options["height"]):
        raise WrongAnswer(f"a {puzzle.width}x{puzzle.height} puzzle made for "
                          f"{options['width']}x{options['height']}")
    check_spokes(puzzle, result["solution"])
    found = solve(puzzle, _UNIQUE)
    if found.status != SOLVED or found.result is None or not found.result["unique"] \
            or found.result["spokes"] != result["solution"]:
        raise WrongAnswer("the made puzzle does not have exactly the one solution given")
    easy = bool(pruning.solve(graph(puzzle), 1).stats.pa_complete)
    if easy != (result["level"] == "easy") or result["level"] != options["level"]:
        raise WrongAnswer(f"the made puzzle is not {options['level']}: the Pruning Algorithm "
                          f"{'solves' if easy else 'does not solve'} it alone")


def seconds(options: Options) -> float:
    level = options["level"]
    points: int = options["width"] * options["height"]
    return FIXED_SECONDS + SECONDS_7X7[level] * float((points / 49) ** GROWTH[level])


GENERATOR = Generator(options=generate.GENERATE_OPTIONS, make=generate.make, check=check, verify=verify,
                      seconds=seconds, result_fields=RESULT_FIELDS)
