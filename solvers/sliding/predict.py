"""A sliding board's work predicted before it runs (``Kind.predict``).

  bound    the start's Manhattan distance plus linear conflicts: the search's own first
           threshold (exactly so for linear_conflict; a pattern database's is higher on the same
           board, and calibration measures time against this one for each heuristic).
  curve    calibrated seconds against the bound per (algorithm that runs, side, heuristic)
           (solvers/calibration.json, cost.Curve): an optimal search's tree grows geometrically
           with the distance it must cover, of which the bound is the cheap sign.
  auto     without ``optimal``, boards past 4x4 get the reduction, whose time depends on the
           side alone: a table by side.
Boards of the wrong parity are answered at once (``parity``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from solvers import cost
from solvers.base import Estimate, Options
from solvers.sliding.board import Puzzle, goal_of, solvable
from solvers.sliding.problem import manhattan_linear_conflict
from solvers.sliding.solve import PYTHON_ALGORITHMS, heuristic_for

_ROUGH_OPTIMAL = {2: 1e-4, 3: 2e-3, 4: 1.0}    # bench/sliding.py, for a machine without calibration
_ROUGH_AUTO = {2: 1e-4, 3: 2e-3, 4: 0.5}


def bound(puzzle: Puzzle, options: Options) -> int:
    goal = goal_of(puzzle, options)
    home = [0] * len(goal)
    for cell, tile in enumerate(goal):
        home[tile] = cell
    return manhattan_linear_conflict(puzzle.k, puzzle.board, home)


def curve_name(algorithm: str, k: int, heuristic: str) -> str:
    """The calibration entry of a search: auto's optimal attempt is the IDA* kernel's."""
    runs = algorithm if algorithm in PYTHON_ALGORITHMS else "idastar"
    return f"{runs}/{k}/{heuristic}"


def _entries() -> Mapping[str, Any]:
    return cost.section("sliding")


def feature(puzzle: Puzzle, options: Options) -> cost.Feature:
    """The calibration entry that predicts this board (see cost.Feature)."""
    k, algorithm = puzzle.k, options["algorithm"]
    goal = goal_of(puzzle, options)
    if not solvable(k, puzzle.board, goal):
        return "parity", cost.FIXED, 0.0
    if algorithm == "reduction" or (algorithm == "auto" and not options["optimal"] and k >= 5):
        return f"reduction/{k}", cost.FIXED, 0.0
    heuristic = heuristic_for(k, goal, algorithm, options["heuristic"])[0] or "none"
    return curve_name(algorithm, k, heuristic), cost.TREND, float(bound(puzzle, options))


def features(puzzle: Puzzle, options: Options) -> list[cost.Feature]:
    return [feature(puzzle, options)]


def predict(puzzle: Puzzle, options: Options) -> Estimate:
    name, fit, x = feature(puzzle, options)
    entry = _entries().get(name)
    if fit == cost.FIXED:
        return cost.fixed(entry) or Estimate(1e-5 if name == "parity" else _ROUGH_AUTO.get(puzzle.k, 0.3))
    curve = cost.Curve.of(entry) if entry is not None else None
    if curve is None:
        rough = _ROUGH_AUTO if options["algorithm"] == "auto" and not options["optimal"] else _ROUGH_OPTIMAL
        return Estimate(rough.get(puzzle.k, 100.0))
    return curve.estimate(x, "bound")
