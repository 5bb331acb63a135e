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

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from solvers.sudoku import chainsk, gradek

UNITS: list[list[int]] = gradek.UNITS.tolist()
CELL_UNITS: list[list[int]] = gradek.CELL_UNITS.tolist()  # row, column, box
# per cell: its box, row and column (SE's order of regions) as lists of cells
REGIONS = [[UNITS[cu[2]], UNITS[cu[0]], UNITS[cu[1]]] for cu in CELL_UNITS]
DIGITS = [[d for d in range(9) if m >> d & 1] for m in range(512)]
POP = [len(ds) for ds in DIGITS]


class Chain(NamedTuple):
    """A chain's step: technique, rating, complexity, SE's sort key, cells and eliminations."""
    technique: str
    rating: float
    complexity: int
    sort_key: int
    cells: list[int]
    eliminations: list[tuple[int, int]]


def length_extra(complexity: int) -> float:
    """SE's length rule: 0.1 per ceiling 4, 6, 8, 12, 16, 24, ... that complexity - 2 passes."""
    extra, ceiling, odd, length = 0.0, 4, False, complexity - 2
    while length > ceiling:
        extra += 0.1
        ceiling = ceiling * 4 // 3 if odd else ceiling * 3 // 2
        odd = not odd
    return extra


def node(cell: int, d: int, on: bool) -> int:
    """The node of candidate (cell, digit 0..8) on or off."""
    return cell * 18 + d * 2 + int(on)


def _path(parent: np.ndarray, n: int) -> list[int]:
    """The nodes from the root of a single-parent tree (its own parent) to ``n``."""
    out = [n]
    while parent[out[-1]] != out[-1]:
        out.append(int(parent[out[-1]]))
    return out[::-1]


class _Buffers:
    """The kernels' work arrays, made once per search."""

    def __init__(self) -> None:
        self.parent = np.empty(chainsk.NODES, np.int64)
        self.targets = np.empty(4, np.int64)
        self.via = np.empty(4, np.int64)
        self.node = np.empty(chainsk.ENTRIES, np.int64)
        self.prev = np.empty(chainsk.ENTRIES, np.int64)
        self.size = np.empty(chainsk.ENTRIES, np.int64)
        self.found = np.empty(chainsk.ENTRIES, np.int64)


def _forcing(grid: np.ndarray, source: int, y: bool, limit: int,
             b: _Buffers) -> Iterator[tuple[int, list[int]]]:
    """SE's doForcingChains (chainsk.forcing): the target reached from ``source`` as its
    negation, with the path from the source; none of more than ``limit`` nodes."""
    for i in range(chainsk.forcing(grid, source, y, limit, b.parent, b.targets, b.via)):
        yield int(b.targets[i]), [*_path(b.parent, int(b.via[i])), int(b.targets[i])]


def _cycles(grid: np.ndarray, source: int, y: bool, x: bool, limit: int, b: _Buffers) -> Iterator[list[int]]:
    """SE's doCycles (chainsk.cycles): the cycles back to ``source`` (on) of four links or
    more, as paths from the source, none of more than ``limit`` nodes."""
    for i in range(chainsk.cycles(grid, source, y, x, limit, b.node, b.prev, b.size, b.found)):
        path = []
        e = int(b.found[i])
        while e >= 0:
            path.append(int(b.node[e]))
            e = int(b.prev[e])
        yield path[::-1]


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


def _limit(best: Chain | None, base: float) -> int:
    """The most nodes a chain of ``base`` rating may have to be sorted before ``best``."""
    if best is None:
        return 1 << 30
    most = 0
    while (round(base + length_extra(most + 1), 1), most + 1) < (best.rating, best.complexity):
        most += 1
    return most


class _Best:
    """The best chain found so far, and the length limits it sets (worked out once)."""

    def __init__(self) -> None:
        self._chain: Chain | None = None
        self._limits: dict[float, int] = {}

    @property
    def chain(self) -> Chain | None:
        """The best chain."""
        return self._chain

    @chain.setter
    def chain(self, chain: Chain | None) -> None:
        if chain is not self._chain:
            self._chain, self._limits = chain, {}

    def limit(self, base: float) -> int:
        """``_limit`` of the best chain for chains of ``base``."""
        found = self._limits.get(base)
        if found is None:
            found = self._limits[base] = _limit(self._chain, base)
        return found


def static_chains(grid: list[int]) -> Chain | None:
    """SE's first chaining family (``Chaining(false, false, false)``): X-, Y- and XY-cycles
    and forcing (X-)chains; the lowest rated, then shortest (searches stop at the length
    where they could only find worse)."""
    best = _Best()
    cands = np.array(grid, np.int64)
    buffers = _Buffers()
    for y, x in ((False, True), (True, False), (True, True)):
        sort_key = 4 if x and y else 3 if y else 2
        cycle_name = "XY-cycle" if x and y else "Y-cycle" if y else "X-cycle"
        cycle_base, chain_base = (7.0, 7.0) if x and y else (6.5, 6.6)
        for cell in range(81):
            if POP[grid[cell]] < 2 or (not x and POP[grid[cell]] > 2):
                continue
            for d in DIGITS[grid[cell]]:
                source = node(cell, d, True)
                for cycle in _cycles(cands, source, y, x, best.limit(cycle_base), buffers):
                    best.chain = _better(best.chain, grid, cycle_name, cycle_base, cycle,
                                         _cycle_elims(grid, cycle), sort_key)
                if not x:
                    continue
                for start in (source, source ^ 1):
                    for target, path in _forcing(cands, start, y, best.limit(chain_base), buffers):
                        best.chain = _better(best.chain, grid, "forcing chain" if y else "forcing X-chain",
                                             chain_base, path, _target_elims(grid, target), sort_key)
    return best.chain

def _better(best: Chain | None, grid: list[int], name: str, base: float, path: list[int],
            elims: list[tuple[int, int]], sort_key: int) -> Chain | None:
    """``best`` or the chain of ``path``, whichever SE sorts first; a chain removing nothing
    is not a step."""
    if not elims:
        return best
    complexity = len(set(path))
    rating = round(base + length_extra(complexity), 1)
    if best is not None and (best.rating, best.complexity, best.sort_key) <= (rating, complexity, sort_key):
        return best
    return Chain(name, rating, complexity, sort_key, _cells(path), elims)
