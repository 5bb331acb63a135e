"""Sudoku Explainer's (SE) multiple and dynamic forcing chains for the 9x9 grader (grade.py):
the consequences of a candidate assumed true or false, followed to the end, compared across
every digit of a cell or every place of a digit in a unit.

Nodes and links are chains.py's. ``propagate`` is SE's doChaining (forcingk.py's kernel): on
nodes first, each followed once, until nothing new follows or a candidate is both true and
false. In the
dynamic families the off nodes are removed from the grid as they are followed, so the links
read the grid as the assumption has changed it; a node made true that way has every removed
candidate that made it so among its parents, and a chain's complexity counts its distinct
ancestors.

The families, in SE's order (``Chaining(multiple, dynamic, nishio)``):

  Nishio forcing chains 7.5        X-links only, dynamic: a candidate whose truth (or
                                   falsity) leads to a contradiction is false (true)
  cell / region forcing chains 8.0 static: every digit of a cell of three digits or more,
                                   or every place of a digit in a unit, implies the same
  dynamic forcing chains 8.5       dynamic: contradictions, both states of a candidate
                                   implying the same, and the cell and region chains

each rated base + chains.length_extra(complexity); of a family's finds the step is the lowest
rated, then the least complex, then SE's sort key (double implications 1, cells 5, regions 6,
contradictions 7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from solvers.sudoku import forcingk
from solvers.sudoku.chains import DIGITS, POP, REGIONS, Chain, length_extra


class Outcome(NamedTuple):
    """What an assumption implies (forcingk.propagate's arrays): the nodes made true or false
    (``present``) with their parents, the true and the false nodes in the order found, and
    the contradiction met, if any, as (the node that arrived last, its negation)."""
    present: np.ndarray
    parents: np.ndarray
    sizes: np.ndarray
    order: np.ndarray
    absurd: tuple[int, int] | None


Offer = Callable[[str, int, int, list[int], int], None]


def propagate(source: np.ndarray, start: int, dynamic: bool, y: bool) -> Outcome:
    """SE's doChaining from ``start`` (a node on or off) on the candidates ``source``."""
    present = np.empty(forcingk.NODES, np.bool_)
    parents = np.empty((forcingk.NODES, forcingk.WIDTH), np.int64)
    count = np.empty(forcingk.NODES, np.int64)
    on_queue = np.empty(forcingk.NODES, np.int64)
    off_queue = np.empty(forcingk.NODES, np.int64)
    late, early, trues, falses = forcingk.propagate(source, start, dynamic, y, present, parents, count,
                                                    on_queue, off_queue)
    order = np.concatenate((on_queue[:trues], off_queue[:falses]))
    return Outcome(present, parents, count, order, None if late < 0 else (late, early))


def ancestors(n: int, out: Outcome) -> int:
    """The distinct nodes node ``n`` rests on in an outcome, itself included."""
    return int(forcingk.ancestors(n, out.parents, out.sizes))


def _elims(grid: list[int], target: int) -> list[tuple[int, int]]:
    """A conclusion as eliminations: an off target loses its digit, an on target the rest."""
    cell, d = target // 18, target % 18 // 2
    if not target & 1:
        return [(cell, d + 1)] if grid[cell] >> d & 1 else []
    return [(cell, v + 1) for v in DIGITS[grid[cell]] if v != d]


class Family(NamedTuple):
    """One of SE's families: its name, base rating and switches."""
    name: str
    base: float
    multiple: bool
    dynamic: bool
    nishio: bool


NISHIO = Family("Nishio forcing chain", 7.5, False, True, True)
MULTIPLE = Family("forcing chains", 8.0, True, False, False)
DYNAMIC = Family("dynamic forcing chains", 8.5, True, True, False)


def find(family: Family, grid: list[int]) -> Chain | None:
    """The family's best step on the candidates ``grid`` (module doc)."""
    best: Chain | None = None

    def offer(kind: str, sort_key: int, complexity: int, cells: list[int], target: int) -> None:
        nonlocal best
        elims = _elims(grid, target)
        if not elims:
            return
        rating = round(family.base + length_extra(complexity), 1)
        if best is None or (rating, complexity, sort_key) < (best.rating, best.complexity, best.sort_key):
            best = Chain(f"{kind} {family.name}", rating, complexity, sort_key, cells, elims)

    y = not family.nishio
    source = np.array(grid, np.int64)
    for cell in range(81):
        size = POP[grid[cell]]
        if not (size > 2 or (size > 1 and family.dynamic)):
            continue
        outs = []
        for d in DIGITS[grid[cell]]:
            on = cell * 18 + d * 2 + 1
            out_on = propagate(source, on, family.dynamic, y)
            outs.append(out_on)
            if family.dynamic:
                out_off = propagate(source, on - 1, family.dynamic, y)
                for out, target in ((out_on, on - 1), (out_off, on)):
                    if out.absurd:
                        late, early = out.absurd
                        complexity = ancestors(late, out) + ancestors(early, out)
                        offer("contradiction", 7, complexity, [cell], target)
                if size >= 3 and not family.nishio:
                    for n in out_on.order[out_off.present[out_on.order]].tolist():
                        offer("double", 1, ancestors(n, out_on) + ancestors(n, out_off), [cell], n)
            if not family.nishio:
                _regions(family, source, cell, d, out_on, offer)
        if not family.nishio:
            _common(outs, [cell], "cell", 5, offer)
    return best


def _common(outs: list[Outcome], cells: list[int], kind: str, sort_key: int, offer: Offer) -> None:
    """Offer every node implied by all of ``outs`` (one per branch), in the first's order."""
    shared = outs[0].present.copy()
    for out in outs[1:]:
        shared &= out.present
    for n in outs[0].order[shared[outs[0].order]].tolist():
        offer(kind, sort_key, sum(ancestors(n, out) for out in outs), cells, n)


def _regions(family: Family, source: np.ndarray, cell: int, d: int, out_on: Outcome, offer: Offer) -> None:
    """SE's doRegionChainings: each unit of ``cell`` where it is the first of the places of
    ``d`` (two, or more in the multiple families): what every place implies."""
    for region in REGIONS[cell]:
        places = [c for c in region if source[c] >> d & 1]
        if len(places) < 2 or places[0] != cell or (len(places) > 2 and not family.multiple):
            continue
        outs = [out_on if c == cell else propagate(source, c * 18 + d * 2 + 1, family.dynamic, True)
                for c in places]
        _common(outs, places, "region", 6, offer)
