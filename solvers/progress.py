"""How far a long search got, as it runs: the share of its search tree finished, written by the
search into its stop flag (solvers.base: ``flag[DONE]``, ``flag[NODES]``) for another thread to read.

  unit     a piece of the search done as a whole, one after another: an n-Queens prefix or class
           of constellations. Unit p stands for ``bounds[p] .. bounds[p + 1]`` of the search
           (``bounds``: the units' predicted shares, summed), so the share reaches exactly 1 with
           the last unit.
  weight   inside a unit, Kilby's weighted backtrack (Kilby, Slaney, Thiebaux and Walsh 2006,
           "Estimating search tree size"; SCIP's tree weight, 2^-depth a leaf of a binary tree):
           a node at depth d weighs the product of 1 / branching along its path, so a finished
           node's children share its weight. The finished share of a unit is the weight of its
           finished subtrees; the kernels add it up when the search climbs back to one of the
           few rows just below the unit's root (where they also look at the stop flag).
  implied  nodes searched / share done: the whole search's size, as far as it shows yet.

The share only grows (a finished subtree stays finished) and is 1 once the search ends. It
assumes that siblings' subtrees are alike: wrong by as much as they differ, less and less as
the share grows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from solvers.base import DONE, NODES, StopFlag


def bounds(shares: Sequence[float] | np.ndarray) -> np.ndarray:
    """float64[k + 1]: where each of k units starts and ends in the search, from their relative
    shares (any positive scale), 0 first and exactly 1 last."""
    weights = np.asarray(shares, np.float64)
    total = weights.sum()
    out = np.zeros(len(weights) + 1, np.float64)
    if total > 0:
        out[1:] = np.cumsum(weights) / total
    out[-1] = 1.0
    return out


def done(flag: StopFlag) -> float:
    """The share of the search finished, 0 .. 1 (0: nothing reported yet)."""
    return min(max(float(flag[DONE]), 0.0), 1.0)


def implied_nodes(flag: StopFlag) -> float | None:
    """The whole search's nodes as the finished share implies them; None before any share."""
    share = done(flag)
    return float(flag[NODES]) / share if share > 0 else None
