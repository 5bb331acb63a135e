"""What the kinds' ``predict`` functions share: the calibration table, curves read from it, the
spread of a calibration (an Estimate's ``factor``) and Knuth's estimator's arithmetic.

  calibration  solvers/calibration.json, measured on one machine by ``python -m bench.calibrate``
               (``make calibrate``): per kind, named entries of seconds of one core. Read once
               at import; a kind without an entry there falls back to its own rough figures.
  entry        ``{"seconds": s, "factor": f}`` (a typical figure and its measured spread), or a
               curve ``{"x": [...], "seconds": [...], "factor": f, "log_x": bool}`` of seconds
               against a size or a bound, or a rate ``{"seconds": s, "per": s, "factor": f}``
               (a fixed cost plus seconds per unit of work).
  feature      what one puzzle tells the calibration: (entry name, fit, x), fit one of FITS
               and x the entry's variable (a size, a bound, an estimated node count).
  factor       the 95th percentile of max(actual/predicted, predicted/actual) over the
               calibration runs, at least 1.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from solvers.base import Estimate

TABLE_PATH = Path(__file__).with_name("calibration.json")
MIN_SECONDS = 1e-7
SPREAD_QUANTILE = 0.95
MIN_FACTOR = 1.5   # the same job's CPU time varies this much between runs on a shared machine


@lru_cache(maxsize=1)
def table() -> Mapping[str, Any]:
    """The calibration table, or an empty one when the file is missing."""
    if not TABLE_PATH.exists():
        return {}
    loaded: Mapping[str, Any] = json.loads(TABLE_PATH.read_text())
    return loaded


def section(kind: str) -> Mapping[str, Any]:
    kinds: Mapping[str, Any] = table().get("kinds", {})
    found: Mapping[str, Any] = kinds.get(kind, {})
    return found


def spread(ratios: Iterable[float]) -> float:
    """The Estimate factor that covers SPREAD_QUANTILE of the ratios actual/predicted, at least
    MIN_FACTOR."""
    folded = sorted(max(r, 1.0 / r) for r in ratios if r > 0 and math.isfinite(r))
    if not folded:
        return 10.0
    return round(max(MIN_FACTOR, folded[min(len(folded) - 1, int(SPREAD_QUANTILE * len(folded)))]), 3)


Feature = tuple[str, str, float]
FIXED, RATE, LINEAR, POINTS, TREND, TREND_LOG = "fixed", "rate", "linear", "points", "trend", "trend_log"
FITS = (FIXED, RATE, LINEAR, POINTS, TREND, TREND_LOG)


class Curve:
    """Seconds against x (or log x), piecewise linear in log(seconds) between calibrated points,
    extended past the largest x along the slope of the last two points (geometric growth, as of
    a search tree's size in n or in a lower bound) and flat below the smallest."""

    __slots__ = ("factor", "log_x", "logs", "xs")

    def __init__(self, xs: Sequence[float], seconds: Sequence[float], factor: float,
                 log_x: bool = False) -> None:
        pairs = sorted(zip(xs, seconds, strict=True))
        self.log_x = log_x
        self.xs = [math.log(x) if log_x else float(x) for x, _ in pairs]
        self.logs = [math.log(max(s, MIN_SECONDS)) for _, s in pairs]
        self.factor = factor

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Curve:
        return cls(entry["x"], entry["seconds"], entry["factor"], entry.get("log_x", False))

    def seconds(self, x: float) -> float:
        xs, logs = self.xs, self.logs
        if self.log_x:
            x = math.log(max(x, 1e-300))
        if len(xs) == 1 or x <= xs[0]:  # below the smallest job measured: its fixed costs remain
            return math.exp(logs[0])
        i = min(max(bisect.bisect_left(xs, x), 1), len(xs) - 1)
        x0, x1, y0, y1 = xs[i - 1], xs[i], logs[i - 1], logs[i]
        return max(MIN_SECONDS, math.exp(y0 + (y1 - y0) * (x - x0) / (x1 - x0)))

    def estimate(self, x: float, basis: str) -> Estimate:
        return Estimate(self.seconds(x), self.factor, basis)


def fixed(entry: Mapping[str, Any] | None, basis: str = "table") -> Estimate | None:
    """The Estimate of a ``{"seconds", "factor"}`` entry, None without one."""
    if entry is None:
        return None
    return Estimate(max(MIN_SECONDS, float(entry["seconds"])), float(entry["factor"]), basis)


def rate(entry: Mapping[str, Any], units: float, basis: str) -> Estimate:
    """A fixed cost plus seconds per unit of work (a RATE or LINEAR entry)."""
    seconds = entry.get("seconds", 0.0) + entry["per"] * units
    return Estimate(max(MIN_SECONDS, seconds), entry["factor"], basis)


# -- fitting an entry to measured (x, seconds) pairs (bench/calibrate.py)


def _log_line(xs: Sequence[float], ts: Sequence[float]) -> tuple[float, float]:
    """(intercept, slope) of log(t) against x by least squares; flat for a single x."""
    logs = [math.log(max(t, MIN_SECONDS)) for t in ts]
    mx, my = sum(xs) / len(xs), sum(logs) / len(logs)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, logs, strict=True)) / sxx if sxx else 0.0
    return my - slope * mx, slope


def _points(xs: Sequence[float], ts: Sequence[float], growth: Callable[[float], float]) -> dict[str, Any]:
    """Deterministic work measured at a few x: the median per x; past the largest x the caller
    scales by ``growth``, a known measure of the work (such as a count of solutions). The factor
    covers the repeats' noise and the scaling's miss when each of the last three points is
    predicted from the point two below it."""
    by_x: dict[float, list[float]] = {}
    for x, t in zip(xs, ts, strict=True):
        by_x.setdefault(x, []).append(t)
    px = sorted(by_x)
    # the work grows with x: a median below the one before it is the machine's noise on tiny jobs
    pt = list(itertools.accumulate((statistics.median(by_x[x]) for x in px), max))
    noise = [t / statistics.median(by_x[x]) for x, t in zip(xs, ts, strict=True)]
    misses = [pt[i] / (pt[i - 2] * growth(px[i]) / growth(px[i - 2])) for i in range(2, len(px))]
    return {"x": px, "seconds": pt, "factor": max(spread(noise), spread(misses[-3:]))}


def fit(kind_of_fit: str, xs: Sequence[float], ts: Sequence[float],
        growth: Callable[[float], float] | None = None) -> dict[str, Any]:
    """The entry of one fit (FITS) to measured seconds ``ts`` at ``xs``, its factor the spread of
    the measurements around it (``growth``: see _points)."""
    if kind_of_fit == FIXED:
        typical = statistics.median(ts)
        return {"seconds": typical, "factor": spread(t / typical for t in ts)}
    if kind_of_fit == RATE:
        pairs = [(max(x, 1.0), t) for x, t in zip(xs, ts, strict=True)]
        per = math.exp(statistics.median([math.log(max(t, MIN_SECONDS) / x) for x, t in pairs]))
        return {"seconds": 0.0, "per": per, "factor": spread(t / (per * x) for x, t in pairs)}
    if kind_of_fit == LINEAR:
        # a fixed cost from the smallest jobs, then the median cost per unit of the rest above it
        small = statistics.median([t for x, t in zip(xs, ts, strict=True) if x <= min(xs) * 4])
        big = [(x, t) for x, t in zip(xs, ts, strict=True) if x > min(xs) * 4]
        per = statistics.median([max(t - small, MIN_SECONDS) / x for x, t in big] or [0.0])
        factor = spread(t / (small + per * x) for x, t in zip(xs, ts, strict=True))
        return {"seconds": small, "per": per, "factor": factor}
    if kind_of_fit == POINTS:
        if growth is None:
            raise ValueError("a points fit needs the growth of the work past its largest x")
        return _points(xs, ts, growth)
    logged = kind_of_fit == TREND_LOG
    lx = [math.log(x) if logged else x for x in xs]
    a, b = _log_line(lx, ts)
    lo, hi = min(lx), max(lx)
    ends = [lo, hi] if hi > lo else [lo]
    return {"x": [math.exp(e) if logged else e for e in ends], "seconds": [math.exp(a + b * e) for e in ends],
            "log_x": logged, "factor": spread(t / math.exp(a + b * x) for x, t in zip(lx, ts, strict=True))}


def knuth(weights: Sequence[float]) -> tuple[float, float]:
    """(mean, relative standard error) of Knuth's per-probe estimates: each probe's weight is the
    sum over its path of the product of the branching factors above each node (Knuth 1975), an
    unbiased estimate of the tree's size."""
    count = len(weights)
    mean = math.fsum(weights) / count
    if count < 2 or mean <= 0:
        return mean, 0.0
    variance = math.fsum((w - mean) ** 2 for w in weights) / (count - 1)
    return mean, math.sqrt(variance / count) / mean
