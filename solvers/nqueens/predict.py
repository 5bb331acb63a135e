"""An n-Queens job's work predicted before it runs (``Kind.predict``). The work is a function of
n and the options alone, so every prediction is a lookup in solvers/calibration.json:

  count     seconds against n per strategy (tree, constellations), measured up to n = 15 or 16
            (cost.Curve) and past that scaled by the number of solutions (SOLUTIONS), which both
            strategies' work follows closely from n = 12 on (seconds per solution stay nearly
            constant between n = 13 and 16).
  estimate  linear in probes x n.
  solve     the O(n) construction: a fixed cost plus a cost per row.
"""

from __future__ import annotations

from typing import Any

from solvers import cost
from solvers.base import Estimate, Options
from solvers.nqueens import count

# Rough figures (bench/nqueens.py) for a machine without a calibration entry.
_ROUGH: dict[str, dict[str, Any]] = {
    "count/tree": {"x": [15, 16], "seconds": [0.73, 0.73 * 6.5], "factor": 10.0},
    "count/constellations": {"x": [16, 17], "seconds": [1.01, 1.01 * 7.5], "factor": 10.0},
    "estimate": {"seconds": 1e-5, "per": 1.25e-8, "factor": 10.0},
    "solve": {"seconds": 1e-5, "per": 1e-7, "factor": 10.0},
}


# Solutions of n-Queens for n = 0 .. 27 (OEIS A000170; tests/data/nqueens/counts.csv).
SOLUTIONS = (1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512, 95815104,
             666090624, 4968057848, 39029188884, 314666222712, 2691008701644, 24233937684440,
             227514171973736, 2207893435808352, 22317699616364044, 234907967154122528)


def growth(n: float) -> float:
    """The measure of a count's work that calibration extends by: the solutions (at least 1)."""
    return float(max(SOLUTIONS[int(n)], 1))


def _entry(name: str) -> dict[str, Any]:
    entry: dict[str, Any] = cost.section("nqueens").get(name) or _ROUGH[name]
    return entry


_CURVES = {strategy: cost.Curve.of(_entry(f"count/{strategy}"))
           for strategy in (count.TREE, count.CONSTELLATIONS)}
_TOPS = {strategy: int(max(_entry(f"count/{strategy}")["x"])) for strategy in _CURVES}
_ESTIMATE, _SOLVE = _entry("estimate"), _entry("solve")


def predict(n: int, options: Options) -> Estimate:
    mode = options["mode"]
    if mode == "count":
        strategy = count.strategy_of(n, options["strategy"])
        curve, top = _CURVES[strategy], _TOPS[strategy]
        if n <= top:
            return curve.estimate(n, "table")
        return Estimate(curve.seconds(top) * growth(n) / growth(top), curve.factor, "table")
    if mode == "estimate":
        return cost.rate(_ESTIMATE, options["probes"] * n, "linear")
    return cost.rate(_SOLVE, n, "linear")


def features(n: int, options: Options) -> list[cost.Feature]:
    """What calibration learns from this job (see cost.Feature)."""
    mode = options["mode"]
    if mode == "count":
        return [(f"count/{count.strategy_of(n, options['strategy'])}", cost.POINTS, float(n))]
    if mode == "estimate":
        return [("estimate", cost.LINEAR, float(options["probes"] * n))]
    return [("solve", cost.LINEAR, float(n))]
