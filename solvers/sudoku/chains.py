"""Sudoku Explainer's (SE) chains for the 9x9 grader (grade.py): implications between
candidates followed breadth first, rated by the chain's kind and its length.

A node is a candidate assumed true ("on") or false ("off"): ``cell * 18 + digit * 2 + on``.
The links, in SE's order (chainsk.py's kernels follow them):

  on -> off   the cell's other digits (a Y-link, when Y-links are on), then the digit's other
              places in the cell's box, row (outside the box) and column (outside the box);
  off -> on   the cell's other digit when it has two (a Y-link), then the digit's one other
              place in the cell's box, row or column (an X-link).

The kinds and their base ratings (``Chaining.getDifficulty`` and the hints' ``getDifficulty``
in SE's source):

  X-cycle, Y-cycle 6.5          a cycle of one digit's X-links, or of Y-links between
                                two-digit cells, whose both orientations remove candidates
  forcing X-chain 6.6           an X-only chain from a candidate to its own negation
  forcing chain, XY-cycle 7.0   the same with both kinds of link
  cell / region forcing chains 8.0   every digit of a cell (or place of a digit in a unit)
                                implies the same candidate's state
  dynamic forcing chains 8.5    as above and contradictions, the links read on the grid as
                                the assumption has changed it so far

to which SE's length rule (``length_extra``) adds 0.1 per step of the ceilings 4, 6, 8, 12,
16, 24, ... that the chain's complexity (its distinct nodes, summed over the branches) minus
two passes. Of the chains a family finds, the step is the lowest rated, then the shortest,
then SE's order of kinds (``sort key``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from solvers.sudoku import chainsk, forcingk, gradek
from solvers.sudoku.masks import DIGITS

UNITS: list[list[int]] = gradek.UNITS.tolist()
CELL_UNITS: list[list[int]] = gradek.CELL_UNITS.tolist()  # row, column, box
# per cell: its box, row and column (SE's order of regions) as lists of cells
REGIONS = [[UNITS[cu[2]], UNITS[cu[0]], UNITS[cu[1]]] for cu in CELL_UNITS]


class Chain(NamedTuple):
    """A chain's step: technique, rating, complexity, SE's sort key, cells and eliminations; and
    where the chain is one path, its nodes in order as (cell, digit 1-9, on 1 or off 0), a
    cycle's first node repeated at its end (``links``)."""
    technique: str
    rating: float
    complexity: int
    sort_key: int
    cells: list[int]
    eliminations: list[tuple[int, int]]
    links: Sequence[tuple[int, int, int]] = ()


def length_extra(complexity: int) -> float:
    """SE's length rule: 0.1 per ceiling 4, 6, 8, 12, 16, 24, ... that complexity - 2 passes."""
    return forcingk.length_extra(complexity) / 10


def node(cell: int, d: int, on: bool) -> int:
    """The node of candidate (cell, digit 0..8) on or off."""
    return cell * 18 + d * 2 + int(on)


def _cycle_elims(grid: list[int], cycle: list[int]) -> list[tuple[int, int]]:
    """SE's cycle eliminations: a candidate seeing an on node and an off node of its digit
    (one of them is true whichever way the cycle runs), outside the cycle's cells."""
    cells = {n // 18 for n in cycle}
    forward: set[tuple[int, int]] = set()
    back: set[tuple[int, int]] = set()
    for n in cycle:
        cell, d = n // 18, n % 18 // 2
        for c in gradek.PEERS[cell].tolist():
            if c not in cells and grid[c] >> d & 1:
                (forward if n & 1 else back).add((c, d + 1))
    return sorted(forward & back)


def _target_elims(grid: list[int], target: int) -> list[tuple[int, int]]:
    """A chain's conclusion as eliminations: an off target loses its digit, an on target
    every other digit of its cell."""
    cell, d = target // 18, target % 18 // 2
    if not target & 1:
        return [(cell, d + 1)]
    return [(cell, v + 1) for v in DIGITS[grid[cell]] if v != d]


def _cells(path: list[int]) -> list[int]:
    """The cells of a path, once each, in order."""
    return list(dict.fromkeys(n // 18 for n in path))


NAMES = ["forcing X-chain", "X-cycle", "forcing chain", "Y-cycle", "forcing chain", "XY-cycle"]  # by kind


def static_chains(grid: list[int]) -> Chain | None:
    """SE's first chaining family (``Chaining(false, false, false)``): X-, Y- and XY-cycles
    and forcing (X-)chains; the lowest rated, then shortest (searches stop at the length
    where they could only find worse). The search is chainsk.static_chains."""
    best = np.zeros(5, np.int64)
    nodes = np.empty(chainsk.NODES + 1, np.int64)
    chainsk.static_chains(np.array(grid, np.int64), best, nodes)
    if not best[0]:
        return None
    _, complexity, sort_key, n, kind = best.tolist()
    path = nodes[:n].tolist()
    cycle = kind & 1
    elims = _cycle_elims(grid, path) if cycle else _target_elims(grid, path[-1])
    base = 7.0 if kind >= 4 else 6.5 if cycle else 6.6
    rating = round(base + length_extra(complexity), 1)
    links = [(n // 18, n % 18 // 2 + 1, n & 1) for n in path + path[:cycle]]
    return Chain(NAMES[kind], rating, complexity, sort_key, _cells(path), elims, links)
