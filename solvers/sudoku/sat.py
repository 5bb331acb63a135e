"""Strategy ``sat``: a python-sat solver on a complete CNF encoding, enumerating solutions (each
one blocked before the next call). Its statistics are the solver's: nodes = guesses = decisions,
leaves = conflicts + solutions, max_depth = 0 (not reported by the solver)."""

from __future__ import annotations

from typing import Any

import numpy as np

from solvers.base import Options, Outcome, StopFlag, Stopwatch, check_stop
from solvers.sudoku.grid import Grid, layout, render
from solvers.sudoku.outcome import SudokuStats, outcome

SOLVERS = ("minisat22", "cadical195")  # python-sat names; MiniSat 2.2 is the default
MAX_SOLUTIONS = 10_000  # one blocking clause per solution found
CHECK_CONFLICTS = 20_000  # a stop flag is looked at between runs of this many conflicts


def encoding(grid: Grid) -> tuple[dict[tuple[int, int], int], list[list[int]]]:
    """The complete (extended) CNF encoding: (variable of each (cell, value - 1), clauses).

    One variable per candidate left after removing the givens' values from their
    peers; each cell and each (unit, value) gets at-least-one and pairwise
    at-most-one clauses.
    """
    n, lay = grid.n, layout(grid.n)
    values = grid.givens.astype(np.int64)
    given_bits = np.where(values > 0, 1 << np.maximum(values - 1, 0), 0)
    taken = np.bitwise_or.reduce(given_bits[lay.peers], axis=1)
    cands = np.where(values > 0, given_bits, lay.full & ~taken).tolist()
    var: dict[tuple[int, int], int] = {}
    for cell, m in enumerate(cands):
        for v in range(n):
            if m >> v & 1:
                var[cell, v] = len(var) + 1
    groups = [[var[cell, v] for v in range(n) if (cell, v) in var] for cell in range(n * n)]
    groups += [[var[cell, v] for cell in unit if (cell, v) in var]
               for unit in lay.units.tolist() for v in range(n)]
    clauses: list[list[int]] = []
    for group in groups:
        clauses.append(group)
        clauses.extend([-a, -b] for i, a in enumerate(group) for b in group[i + 1:])
    return var, clauses


def solve(grid: Grid, options: Options, watch: Stopwatch, stop: StopFlag | None = None) -> Outcome:
    """Enumerate solutions with the solver ``options["sat_solver"]`` on ``encoding``."""
    from pysat.solvers import Solver

    n = grid.n
    var, clauses = encoding(grid)
    decode = sorted(var.items(), key=lambda kv: kv[1])
    first, found = None, 0
    with Solver(name=options["sat_solver"], bootstrap_with=clauses) as sat:
        while found < options["max_solutions"] and _solve_limited(sat, stop):
            model = sat.get_model()
            chosen = [v for v in model[:len(var)] if v > 0]
            if first is None:
                solution = np.zeros(n * n, np.uint8)
                for (cell, v), _ in (decode[x - 1] for x in chosen):
                    solution[cell] = v + 1
                first = render(solution)
            found += 1
            sat.add_clause([-x for x in chosen])
        counts = sat.accum_stats()
    check_stop(stop)
    stats = SudokuStats(elapsed_ms=watch.ms(), nodes=counts["decisions"], guesses=counts["decisions"],
                        leaves=counts["conflicts"] + found, strategy="sat")
    return outcome(first, found, options, stats)


def _solve_limited(sat: Any, stop: StopFlag | None) -> bool:
    """``sat.solve()`` in runs of CHECK_CONFLICTS conflicts, raising Stopped between runs once
    ``stop`` is set (and letting a signal handler, such as a time limit, run between them)."""
    while True:
        sat.conf_budget(CHECK_CONFLICTS)
        answer = sat.solve_limited()
        if answer is not None:
            return bool(answer)
        check_stop(stop)
