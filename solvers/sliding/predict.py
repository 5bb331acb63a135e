"""A sliding board's work predicted before it runs (``Kind.predict``).

  bound    the start's Manhattan distance plus linear conflicts: the search's own first
           threshold (exactly so for linear_conflict; a pattern database's is higher on the same
           board, and calibration measures time against this one for each heuristic).
  curve    calibrated seconds against the bound per (algorithm that runs, side, heuristic)
           (solvers/calibration.json, cost.Curve): an optimal search's tree grows geometrically
           with the distance it must cover, of which the bound is the cheap sign.
  gap      the optimal length less the heuristic of the start, which sets how many IDA*
           iterations run and no cheap sign foretells: on Korf's 100 with a pattern database it
           is 4 to 16 moves, and boards of one bound take from a twelfth to 45 times the curve's
           seconds (bench/korf.py). The curve, a least-squares fit in log space, gives the typical
           board, below the mean of that long tail (about 4 times the curve): a database's
           prediction is GAP_MEAN times the curve, which the slowest of Korf's 100 stay within
           10 times of, and its factor GAP_FACTOR covers 97 of them.
  larger   an optimal search past 4x4 has no calibration (only boards near the goal finish):
           the 4x4 linear_conflict curve at the board's bound, its growth above a board at the
           goal BIG_SKEW times more per side past 4 (a bigger board branches more and its gap is
           wider: 5x5 boards of bound 30 to 40 took from a five-thousandth of that to about as
           much), factor BIG_FACTOR. A shuffled 5x5 is so predicted at half a day to years, and
           6x6 and up at MOST_SECONDS, which the service's cap on a puzzle's seconds refuses.
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
from solvers.sliding.solve import DATABASE_OF, PYTHON_ALGORITHMS, heuristic_for

_ROUGH_OPTIMAL = {2: 1e-4, 3: 2e-3, 4: 1.0}    # bench/sliding.py, for a machine without calibration
_ROUGH_AUTO = {2: 1e-4, 3: 2e-3, 4: 0.5}
GAP_MEAN, GAP_FACTOR = 7.0, 70.0
BIG_SKEW, BIG_FACTOR = 100.0, 100.0
MOST_SECONDS = 1e9  # about 30 years: past any cap or budget, and a number every reader prints


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
    larger = _larger(puzzle.k, x) if entry is None and puzzle.k > 4 else None
    if larger is not None:
        return larger
    if entry is None:
        rough = _ROUGH_AUTO if options["algorithm"] == "auto" and not options["optimal"] else _ROUGH_OPTIMAL
        return Estimate(rough.get(puzzle.k, 100.0))
    estimate = cost.Curve.of(entry).estimate(x, "bound")
    if name.rsplit("/", 1)[-1] in DATABASE_OF:
        return Estimate(estimate.seconds * GAP_MEAN, max(estimate.factor, GAP_FACTOR), "bound")
    return estimate


def _larger(k: int, x: float) -> Estimate | None:
    """An optimal search past 4x4 (see ``larger`` above), at most MOST_SECONDS; None without
    the 4x4 curve."""
    entry = _entries().get("idastar/4/linear_conflict")
    if entry is None:
        return None
    curve = cost.Curve.of(entry)
    least = curve.seconds(0.0)  # a board at the goal: the fixed cost, which no side multiplies
    seconds = least + (curve.seconds(x) - least) * BIG_SKEW ** (k - 4)
    return Estimate(min(seconds, MOST_SECONDS), max(entry["factor"], BIG_FACTOR), "bound")
