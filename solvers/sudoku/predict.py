"""A Sudoku's work predicted before it runs (``Kind.predict``).

  mode     first (max_solutions 1), unique (2: a uniqueness proof) or count (more).
  runs     the method that does the work: ``auto`` runs ``fast`` on 9x9, ``greedy`` on 4x4, and
           on 16x16 and 25x25 ``sat`` first when few cells are given, else ``greedy`` under a
           node budget and ``sat`` past it (solve.plan).
  table    calibrated seconds per (runs, size, mode) (solvers/calibration.json), for counts
           seconds per solution asked: the answer for the cheap puzzles, a dictionary lookup on
           the 9x9 fast path.
  probes   Knuth's estimate of the greedy (or backtrack) tree from PROBES random walks down it,
           times the calibrated seconds per node of the method that runs: only where the table's
           figure is at least 1 / PROBE_SHARE times the probes' own calibrated cost, so that the
           walks cost at most about that share of the work.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers import cost
from solvers.base import Estimate, Options
from solvers.sudoku import kernels
from solvers.sudoku import solve as plans
from solvers.sudoku.grid import Grid, layout

PROBES = 32
SEED = 1_234_567
PROBE_SHARE = 0.02     # probes run where they cost at most this share of the table's figure
_MASK = 2**63 - 1      # the probes' generator: a 63-bit LCG (same in numba and plain Python)
_MUL, _ADD = 6364136223846793005, 1442695040888963407

# Rough figures (bench/sudoku.py) for a machine without a calibration entry.
_ROUGH = {"fast": 2e-5, "greedy": 1e-4, "backtrack": 3e-2, "sat": 4e-3}
_ROUGH_PER_SOLUTION, _ROUGH_PROBES = 2e-6, 2e-3

# the grader's seconds per puzzle (bench/factory.py on top1465, whose puzzles are hard); off 9x9
# the plain-Python grader (gradeg.py), a minimal 16x16 of the generator (docs/benchmarks.md)
GRADE_SECONDS = 3e-3
GRADE_SECONDS_BY_N = {4: 1e-3, 9: GRADE_SECONDS, 16: 0.25}


@njit(cache=True)
def probe_tree(cands0: np.ndarray, greedy: bool, probes: int, seed: int, full: int, peers: np.ndarray,
               units: np.ndarray, cell_units: np.ndarray, weights: np.ndarray,
               solutions: np.ndarray) -> int:
    """Knuth's random walks down the tree that kernels.search explores from ``cands0``: per probe,
    ``weights`` gets the tree-size estimate (sum over the path of the product of the branching
    factors above each node) and ``solutions`` the product at a complete grid (else 0). Returns
    the nodes entered."""
    n_cells = cands0.shape[0]
    c = np.empty(n_cells, np.int64)
    queue = np.empty(n_cells, np.int64)
    pairs = np.empty(n_cells, np.int64)
    order = np.empty(units.shape[1], np.int64)
    stats = np.zeros(kernels.STATS_LEN, np.int64)
    state = seed & _MASK
    for p in range(probes):
        c[:] = cands0
        qn = kernels.queue_placed(c, queue)
        pn = kernels.queue_pairs(c, pairs)
        weight, total, start, depth = 1.0, 0.0, 0, 0
        solutions[p] = 0.0
        while True:
            total += weight
            status, cell, k = kernels.enter_node(c, queue, qn, pairs, pn, greedy, start, depth, full, peers,
                                                 units, cell_units, order, stats)
            if status == kernels.COMPLETE:
                solutions[p] = weight
            if status != kernels.BRANCH:
                break
            state = (state * _MUL + _ADD) & _MASK
            c[cell] = order[(state >> 31) % k]
            weight *= k
            queue[0] = cell
            qn, pn, start, depth = 1, 0, cell + 1, depth + 1
        weights[p] = total
    return int(stats[kernels.NODES])


def tree_size(grid: Grid, greedy: bool, probes: int = PROBES, seed: int = SEED) -> tuple[float, float, int]:
    """(estimated nodes, estimated solutions, nodes the probes entered) of the tree of ``greedy``
    (else ``backtrack``) below the puzzle."""
    lay = layout(grid.n)
    weights = np.zeros(probes, np.float64)
    solutions = np.zeros(probes, np.float64)
    cands = kernels.initial_cands(grid.givens, lay.full)
    entered = probe_tree(cands, greedy, probes, seed, lay.full, lay.peers, lay.units, lay.cell_units,
                         weights, solutions)
    return cost.knuth(weights.tolist())[0], float(solutions.mean()), entered


def mode_of(max_solutions: int) -> str:
    return "first" if max_solutions == 1 else "unique" if max_solutions == 2 else "count"


def runs(grid: Grid, options: Options) -> tuple[str, int | None]:
    """The method that runs first (``auto`` resolved as solve.plan does) and its node budget, past
    which ``sat`` takes over (None: no budget)."""
    strategy = options["strategy"]
    if strategy != "auto":
        return strategy, None
    method, budget = plans.plan(grid, options)[0]
    return method["strategy"], budget


def _table(name: str, n: int, limit: int) -> Estimate:
    mode = mode_of(limit)
    entry = cost.section("sudoku").get(f"{name}/{n}/{mode}")
    if entry is not None:
        return cost.rate(entry, limit, "table") if mode == "count" else Estimate(
            max(cost.MIN_SECONDS, entry["seconds"]), entry["factor"], "table")
    extra = limit * _ROUGH_PER_SOLUTION if mode == "count" else 0.0
    return Estimate(_ROUGH[name.split("+")[0]] * (n / 9) ** 4 + extra)


def probe_seconds(n: int) -> float:
    """The calibrated cost of PROBES walks on an n x n grid."""
    entry = cost.section("sudoku").get(f"probes/{n}")
    return float(entry["seconds"]) if entry is not None else _ROUGH_PROBES * (n / 9) ** 2


def work_nodes(grid: Grid, options: Options, method: str) -> float:
    """Knuth's estimate of the nodes the search of ``method`` enters: the whole tree, or about the
    share of it that holds max_solutions of its estimated solutions."""
    nodes, solutions, _ = tree_size(grid, method != "backtrack")
    limit = options["max_solutions"]
    return nodes * limit / solutions if solutions > limit else nodes


def _probed(grid: Grid, options: Options, method: str, budget: int | None) -> Estimate | None:
    """The work in nodes times the calibrated seconds per node; None where there is no rate or
    where the rate's spread is no better than the table's."""
    limit = options["max_solutions"]
    rate = cost.section("sudoku").get(f"{method}/{grid.n}/{mode_of(limit)}/nodes")
    if rate is None or rate["factor"] >= _table(_named(method, budget), grid.n, limit).factor:
        return None
    nodes = work_nodes(grid, options, method)
    if budget is not None and nodes > budget:  # auto: SAT takes over past the budget
        sat = _table("sat", grid.n, limit)
        return Estimate(sat.seconds + budget * rate["per"], max(sat.factor, rate["factor"]), "probes")
    return cost.rate(rate, nodes, "probes")


def _named(method: str, budget: int | None) -> str:
    """The table's name for a method: ``greedy+sat`` for auto's budgeted greedy tree then SAT."""
    return method if budget is None else f"{method}+sat"


def features(grid: Grid, options: Options) -> list[cost.Feature]:
    """What calibration learns from this puzzle: the table's figure of its method, size and mode
    (per solution asked, for a count), and for a method with a tree the seconds per node of
    Knuth's estimate."""
    method, budget = runs(grid, options)
    limit = options["max_solutions"]
    name = f"{_named(method, budget)}/{grid.n}/{mode_of(limit)}"
    out: list[cost.Feature] = [(name, cost.RATE, float(limit)) if limit > 2 else (name, cost.FIXED, 0.0)]
    if method != "sat" and budget is None:
        out.append((f"{name}/nodes", cost.RATE, work_nodes(grid, options, method)))
    return out


def _fast_table() -> dict[tuple[str, int, int], Estimate]:
    """The 9x9 fast path's answers, built once: one dictionary lookup per puzzle."""
    out = {}
    for strategy in ("auto", "fast"):
        for limit in (1, 2):
            out[(strategy, 9, limit)] = _table("fast", 9, limit)
    return out


_FAST = _fast_table()


def predict(grid: Grid, options: Options) -> Estimate:
    solving = _solving(grid, options)
    if options["explain"]:  # the grader runs after the solve
        return solving._replace(seconds=solving.seconds + GRADE_SECONDS_BY_N.get(grid.n, GRADE_SECONDS))
    return solving


def shared_prediction(n: int, options: Options) -> Estimate | None:
    """The prediction every n x n grid gets under these options, where it is one figure whatever
    the givens (the 9x9 fast path's, from the bench); None where it depends on the grid."""
    return None if options["explain"] else _FAST.get((options["strategy"], n, options["max_solutions"]))


def _solving(grid: Grid, options: Options) -> Estimate:
    found = _FAST.get((options["strategy"], grid.n, options["max_solutions"]))
    if found is not None:
        return found
    method, budget = runs(grid, options)
    table = _table(_named(method, budget), grid.n, options["max_solutions"])
    if method == "sat" or table.seconds * PROBE_SHARE < probe_seconds(grid.n):
        return table
    # fast has no tree of ours to walk: its cost follows the greedy tree's size (calibrated)
    return _probed(grid, options, method, budget) or table
