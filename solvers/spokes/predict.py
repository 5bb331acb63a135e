"""A Spokes grid's work predicted before it runs (``Kind.predict``): calibrated seconds against
the number of grid points per strategy (solvers/calibration.json, cost.Curve, basis ``table``).
SAT (and so ``auto``) grows smoothly with the points; the search and the Pruning Algorithm
vary more from grid to grid, which their factors say."""

from __future__ import annotations

from solvers import cost
from solvers.base import Estimate, Options
from solvers.spokes.puzzle import Spokes

_CURVES = {name: cost.Curve.of(entry) for name, entry in cost.section("spokes").items()}


def predict(puzzle: Spokes, options: Options) -> Estimate:
    points = puzzle.width * puzzle.height
    curve = _CURVES.get(options["strategy"])
    if curve is not None:
        return curve.estimate(points, "table")
    # rough figures (bench/spokes.py) for a machine without a calibration entry
    if options["strategy"] in ("auto", "sat"):
        return Estimate(points * 1.5e-4)
    return Estimate(points * points * 1e-6 * (4 if options["strategy"] == "pruning" else 1))


def features(puzzle: Spokes, options: Options) -> list[cost.Feature]:
    """What calibration learns from this grid (see cost.Feature)."""
    return [(options["strategy"], cost.TREND_LOG, float(puzzle.width * puzzle.height))]
