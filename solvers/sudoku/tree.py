"""The paper's search tree (Kim & Kim 2017): ``greedy`` and its baseline ``backtrack``, searched
whole, cut into parts breadth-first, the parts searched and merged.

  mask       an int with bit v-1 set when value v is possible; cands = one mask per cell.
  node       a grid state the search entered: the root (the puzzle) and every child,
             a copy of its parent with one open cell set to one of its values. In
             ``greedy`` each node is pre-processed (Full House, Naked Single, Hidden
             Single, Naked Pair to a fixed point) before it branches; in ``backtrack``
             nothing is inferred and the children of a node are the values of the
             first open cell in reading order that no placed peer uses.
  leaf       a node without children: a contradiction (greedy), a dead end whose
             cell has no usable value (backtrack), or a complete grid (a solution).
  depth      the root is at depth 0, a child one deeper than its parent; in greedy
             depth is the number of guesses on the path, in backtrack the number of
             cells filled.
  guesses    children entered whose parent cell had two or more values.
  techniques cells placed (full_house, naked_single, hidden_single) and pairs that
             removed a candidate (naked_pair) during pre-processing, over all nodes.
A search stops once it has ``max_solutions`` solutions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from solvers.base import (
    SOLVED,
    BudgetExceeded,
    Options,
    Outcome,
    Part,
    Split,
    StopFlag,
    Stopwatch,
    check_stop,
    stop_flag,
)
from solvers.bits import lowest_bit
from solvers.sudoku import kernels
from solvers.sudoku.grid import Grid, layout, render
from solvers.sudoku.outcome import TECHNIQUES, SudokuStats, outcome

Cands = np.ndarray   # int64[C] masks

MAX_PARTS = 1024
NO_LIMIT = 2**63 - 1


def search(grid: Grid, cands: Cands, depth: int, options: Options, node_limit: int | None,
           watch: Stopwatch, stop: StopFlag | None = None) -> Outcome:
    """The tree of ``options`` (strategy greedy, else backtrack) searched below the node ``cands``
    at ``depth``; BudgetExceeded past ``node_limit`` nodes, Stopped once ``stop`` is set."""
    lay = layout(grid.n)
    solution = np.zeros(grid.n * grid.n, np.uint8)
    counters = np.zeros(kernels.STATS_LEN, np.int64)
    limit = NO_LIMIT if node_limit is None else node_limit
    stop = stop_flag() if stop is None else stop
    found = kernels.search(cands, depth, options["strategy"] == "greedy", options["max_solutions"], limit,
                           lay.full, lay.peers, lay.units, lay.cell_units, solution, counters, stop)
    if found == kernels.BUDGET_EXCEEDED:
        raise BudgetExceeded(int(counters[kernels.NODES]))
    check_stop(stop)
    first = render(solution) if found else None
    stats = SudokuStats.from_counters(counters, watch.ms(), options["strategy"])
    return outcome(first, found, options, stats)


# -- split and merge: the tree cut breadth-first


@dataclass
class _Entry:
    """A frontier entry, left to right in the order the depth-first search meets it."""

    depth: int
    cands: Cands | None = None   # an open node, not yet entered
    solution: str | None = None  # a complete grid found while expanding


def split(grid: Grid, options: Options, k: int) -> Split:
    """Expand the tree of ``options`` (strategy greedy or backtrack) breadth-first until at least
    ``k`` open nodes (at most MAX_PARTS).

    Parts keep the depth-first order: the whole search's first solution is the first
    one met reading the head, then the parts, left to right. Solutions found above
    the cut that precede every open node stay in the head; the others become parts
    ``{"solution", "depth"}`` so that they keep their place.
    """
    watch = Stopwatch()
    lay = layout(grid.n)
    greedy = options["strategy"] == "greedy"
    counters = np.zeros(kernels.STATS_LEN, np.int64)
    order = np.empty(grid.n, np.int64)
    frontier = [_Entry(0, cands=kernels.initial_cands(grid.givens, lay.full))]
    wanted = min(max(k, 1), MAX_PARTS)
    n_open = 1
    while 0 < n_open < wanted:
        level = min(e.depth for e in frontier if e.cands is not None)
        expanded = []
        for entry in frontier:
            if entry.cands is None or entry.depth != level or n_open >= wanted:
                expanded.append(entry)
                continue
            n_open -= 1
            c = entry.cands
            status, cell, n_children = kernels.expand(c, greedy, entry.depth, lay.full, lay.peers, lay.units,
                                                lay.cell_units, order, counters)
            if status == kernels.COMPLETE:
                values = np.array([lowest_bit(m) + 1 for m in c])
                expanded.append(_Entry(entry.depth, solution=render(values)))
            elif status == kernels.BRANCH:
                if n_children > 1:
                    counters[kernels.GUESSES] += n_children
                for b in order[:n_children]:
                    child = c.copy()
                    child[cell] = b
                    expanded.append(_Entry(entry.depth + 1, cands=child))
                n_open += n_children
        frontier = expanded
    return _cut(frontier, options, SudokuStats.from_counters(counters, watch.ms(), options["strategy"]))


def _cut(frontier: list[_Entry], options: Options, stats: SudokuStats) -> Split:
    prefix = 0
    while prefix < len(frontier) and frontier[prefix].solution is not None:
        prefix += 1
    found = min(prefix, options["max_solutions"])
    head = outcome(frontier[0].solution if found else None, found, options, stats)
    if found == options["max_solutions"]:
        return Split([], head)
    parts = [{"depth": e.depth, "solution": e.solution} if e.solution is not None
             else {"depth": e.depth, "cands": _open(e).tolist()} for e in frontier[prefix:]]
    return Split(parts, head)


def _open(entry: _Entry) -> Cands:
    assert entry.cands is not None, "a frontier entry is an open node or a solution"
    return entry.cands


def solve_part(grid: Grid, options: Options, part: Part, stop: StopFlag | None = None) -> Outcome:
    """Search one part of the tree of ``options`` (strategy greedy, else backtrack); its max_depth is
    counted from the whole tree's root."""
    watch = Stopwatch()
    greedy = options["strategy"] == "greedy"
    depth = part.get("depth")
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"a sudoku part needs a depth >= 0, not {depth!r}")
    if part.get("solution") is not None:
        check_stop(stop)
        stats = SudokuStats(elapsed_ms=watch.ms(), max_depth=depth,
                            strategy="greedy" if greedy else "backtrack")
        return outcome(part["solution"], 1, options, stats)
    cands = np.array(part.get("cands"), np.int64)
    lay = layout(grid.n)
    # masks in 1..full keep every kernel stack within its proved size
    if cands.shape != (grid.n * grid.n,) or cands.min() < 1 or cands.max() > lay.full:
        raise ValueError("a sudoku part needs 'cands': one candidate mask per cell, each in 1..2^n-1")
    return search(grid, cands, depth, {**options, "strategy": "greedy" if greedy else "backtrack"}, None,
                   watch, stop)


def merge(grid: Grid, options: Options, head: Outcome, outcomes: Sequence[Outcome]) -> Outcome:
    first = head.result["solution"] if head.result else None
    found = head.result["solutions_found"] if head.result else 0
    stats = SudokuStats(**{**head.stats, "techniques": dict(head.stats["techniques"])})
    for out in outcomes:
        if out.status == SOLVED and out.result is not None:
            first = first or out.result["solution"]
            found += out.result["solutions_found"]
        for name in ("nodes", "leaves", "guesses", "elapsed_ms"):
            setattr(stats, name, getattr(stats, name) + out.stats[name])
        stats.max_depth = max(stats.max_depth, out.stats["max_depth"])
        for name in TECHNIQUES:
            stats.techniques[name] += out.stats["techniques"][name]
    stats.subtasks = len(outcomes)
    stats.elapsed_ms = round(stats.elapsed_ms, 3)
    return outcome(first, min(found, options["max_solutions"]), options, stats)
