"""Which method solves a Sudoku: strategy ``auto`` chooses among the others per puzzle and falls
back (``plan``); ``fast`` (9x9: fast.py's bit-parallel kernels), ``greedy`` and ``backtrack`` (tree.py)
and ``sat`` (sat.py) are there by name. Also which puzzles have a tree for the worker to split.

``stats.strategy`` names the method that answered; ``stats.abandoned`` lists what ``auto`` tried
first and gave up, with its nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    WHOLE,
    BudgetExceeded,
    Options,
    Outcome,
    Part,
    Plan,
    Settings,
    Split,
    StopFlag,
    Stopwatch,
    check_stop,
    split_past_budget,
)
from solvers.sudoku import fast as fastk
from solvers.sudoku import kernels, sat, tree
from solvers.sudoku.grid import Grid, layout, render
from solvers.sudoku.outcome import fast_stats, result

STRATEGIES = ("auto", "fast", "greedy", "backtrack", "sat")
FAST_N = 9  # the one size of ``fast``
BACKTRACK_MAX_N = 9  # plain recursion without inference can run for days on 16x16
# auto: SAT first when fewer cells than this share are given, otherwise greedy first with this
# many nodes before SAT (CaDiCaL) takes over (bench/sudoku.py measures both on each size)
AUTO_SAT_FIRST_BELOW = {16: 0.3, 25: 0.6}
AUTO_GREEDY_NODES = {16: 20_000, 25: 2_000}
AUTO_SAT_SOLVER = "cadical195"


def solve(grid: Grid, options: Options, node_limit: int | None = None,
          stop: StopFlag | None = None) -> Outcome:
    """Solve from the givens; raise BudgetExceeded after ``node_limit`` nodes (greedy, backtrack)
    and Stopped once ``stop`` is set (SAT looks at it every sat.CHECK_CONFLICTS conflicts).
    ``fast`` ignores ``node_limit`` (it needs no splitting); ``auto`` holds its tree searches to it
    (so that the worker splits the greedy tree past its budget, see ``tree_options``), and SAT
    to none."""
    watch = Stopwatch()
    strategy = options["strategy"]
    if strategy == "auto":
        return _solve_auto(grid, options, node_limit, watch, stop)
    if strategy == "fast":
        return _solve_fast(grid, options, watch, stop)
    if strategy == "sat":
        return sat.solve(grid, options, watch, stop)
    cands = kernels.initial_cands(grid.givens, layout(grid.n).full)
    return tree.search(grid, cands, 0, options, node_limit, watch, stop)


def plan(grid: Grid, options: Options) -> list[tuple[Options, int | None]]:
    """What ``auto`` runs, in order: (options of a named strategy, its node budget or None).

    9x9: ``fast``. 4x4: ``greedy``. 16x16 and 25x25: CaDiCaL first when few cells are given
    (AUTO_SAT_FIRST_BELOW), else ``greedy`` under AUTO_GREEDY_NODES, then CaDiCaL. Counting
    beyond what SAT enumerates (sat.MAX_SOLUTIONS) stays with the tree search, unbudgeted.
    """
    n = grid.n
    if n == FAST_N:
        return [({**options, "strategy": "fast"}, None)]
    greedy: Options = {**options, "strategy": "greedy"}
    if not _sat_may_follow(grid, options):
        return [(greedy, None)]
    sat: Options = {**options, "strategy": "sat", "sat_solver": AUTO_SAT_SOLVER}
    if _sat_first(grid, options):
        return [(sat, None)]
    return [(greedy, AUTO_GREEDY_NODES[n]), (sat, None)]


def _sat_may_follow(grid: Grid, options: Options) -> bool:
    """``plan`` has a SAT step: a size it budgets, and a count SAT enumerates."""
    return grid.n in AUTO_GREEDY_NODES and options["max_solutions"] <= sat.MAX_SOLUTIONS


def _sat_first(grid: Grid, options: Options) -> bool:
    """``plan`` runs SAT first: few cells given on a size it budgets (AUTO_SAT_FIRST_BELOW)."""
    n = grid.n
    return (n != FAST_N and _sat_may_follow(grid, options)
            and int(np.count_nonzero(grid.givens)) < AUTO_SAT_FIRST_BELOW[n] * n * n)


def _solve_auto(grid: Grid, options: Options, node_limit: int | None, watch: Stopwatch,
                stop: StopFlag | None) -> Outcome:
    """Run ``plan``'s steps until one answers; a tree search past the caller's ``node_limit``
    raises BudgetExceeded (a step past its own budget is abandoned for the next)."""
    abandoned: list[dict[str, Any]] = []
    steps = plan(grid, options)
    limit = tree.NO_LIMIT if node_limit is None else node_limit
    for opts, budget in steps:
        mine = tree.NO_LIMIT if budget is None else budget
        try:
            outcome = solve(grid, opts, node_limit=min(mine, limit), stop=stop)
        except BudgetExceeded as exc:
            if mine > limit:
                raise
            abandoned.append({"strategy": opts["strategy"], "nodes": exc.nodes, "elapsed_ms": watch.ms()})
            continue
        if outcome.stats["strategy"] == "fast" and outcome.stats["nodes"] > limit:
            raise BudgetExceeded(outcome.stats["nodes"])
        break
    outcome.stats["abandoned"] = abandoned
    outcome.stats["elapsed_ms"] = watch.ms()
    return outcome


def _solve_fast(grid: Grid, options: Options, watch: Stopwatch, stop: StopFlag | None) -> Outcome:
    """A 9x9 search takes milliseconds at most: the stop flag is looked at once, at the end."""
    solution = np.zeros((1, grid.n * grid.n), np.uint8)
    counters = np.zeros(fastk.COUNTERS, np.int64)
    found = fastk.solve_one(grid.givens.reshape(1, -1), options["max_solutions"], True, solution, counters)
    nodes, leaves, depth, guesses, naked, hidden = counters.tolist()
    stats = fast_stats(nodes, leaves, depth, guesses, naked, hidden, watch.ms())
    check_stop(stop)
    return Outcome(SOLVED if found else NO_SOLUTION, result(render(solution[0]) if found else None, found,
                                                             options["max_solutions"]), stats)


# -- the tree that the worker splits


def tree_options(grid: Grid, options: Options) -> Options | None:
    """The options of the tree that ``split`` cuts and ``solve_part`` searches, or None when the
    puzzle is solved whole: ``sat`` has no tree of ours, ``fast`` needs no splitting, and ``auto``
    (which the worker's node budget does not split, see ``solve``) cuts the greedy tree when it
    is asked for parts, unless it goes to SAT first."""
    if not _has_tree(grid, options):
        return None
    return {**options, "strategy": "greedy"} if options["strategy"] == "auto" else options

def _has_tree(grid: Grid, options: Options) -> bool:
    """``tree_options`` is not None (asked of every puzzle of a chunk, so no options are built)."""
    strategy = options["strategy"]
    return strategy in ("greedy", "backtrack") or (strategy == "auto" and not _sat_first(grid, options))

def split_plan(grid: Grid, options: Options, settings: Settings) -> Plan:
    """A puzzle with a tree to cut (``tree_options``) is split past the node budget or as
    ``split`` asks; the others (sat, fast, auto going to SAT first) run whole."""
    if not _has_tree(grid, options):
        return WHOLE
    return split_past_budget(grid, options, settings)


def split(grid: Grid, options: Options, k: int) -> Split:
    """``tree.split`` on the puzzle's tree (``tree_options``); without one, the head is the whole
    outcome and there are no parts."""
    options_of_tree = tree_options(grid, options)
    if options_of_tree is None:
        return Split([], solve(grid, options))
    return tree.split(grid, options_of_tree, k)


def solve_part(grid: Grid, options: Options, part: Part, stop: StopFlag | None = None) -> Outcome:
    return tree.solve_part(grid, tree_options(grid, options) or options, part, stop)
