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

from typing import NamedTuple

import numpy as np

from solvers.sudoku import forcingk
from solvers.sudoku.chains import Chain, length_extra
from solvers.sudoku.masks import DIGITS


class Outcome(NamedTuple):
    """What an assumption implies (forcingk.propagate's arrays): the nodes made true or false
    (``present``) with their parents, the true and the false nodes in the order found, and
    the contradiction met, if any, as (the node that arrived last, its negation)."""
    present: np.ndarray
    parents: np.ndarray
    sizes: np.ndarray
    order: np.ndarray
    absurd: tuple[int, int] | None



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


KINDS = {1: "double", 5: "cell", 6: "region", 7: "contradiction"}  # by sort key


def find(family: Family, grid: list[int]) -> Chain | None:
    """The family's best step on the candidates ``grid`` (module doc; the search is
    forcingk.find)."""
    best = np.zeros(5, np.int64)
    cells = np.empty(9, np.int64)
    base = round(family.base * 10)
    forcingk.find(np.array(grid, np.int64), family.multiple, family.dynamic, family.nishio, base, best, cells)
    if not best[0]:
        return None
    _, complexity, sort_key, target, n = best.tolist()
    rating = round(family.base + length_extra(complexity), 1)
    return Chain(f"{KINDS[sort_key]} {family.name}", rating, complexity, sort_key, cells[:n].tolist(),
                 _elims(grid, target))
