"""Sudoku generation for the sizes the bit-parallel kernels do not cover (4x4, 16x16): one
incremental SAT solver (CaDiCaL, sat.py's encoding of the empty grid) completes a grid and then
answers every "is there another solution?" of the removals, with the givens as assumptions.

A removal of an orbit of cells from a unique puzzle keeps it unique exactly when no solution
puts another value in one of those cells (any other solution differs from the known one
somewhere, and only the removed cells are free to): one solver call per removed cell, with
that cell's value forbidden. The same argument as genk.minimize makes one pass minimal.
"""

from __future__ import annotations

import numpy as np
from pysat.solvers import Solver

from solvers.sudoku import sat
from solvers.sudoku.grid import Grid, layout

SOLVER = "cadical195"


class Remover:
    """The solver of an n x n grid's rules, asked about givens by assumption."""

    def __init__(self, n: int):
        self.n = n
        var, clauses = sat.encoding(Grid(n, np.zeros(n * n, np.uint8)))
        assert all(var[cell, v] == cell * n + v + 1 for cell, v in var)  # the empty grid's numbering
        self.sat = Solver(name=SOLVER, bootstrap_with=clauses)

    def close(self) -> None:
        self.sat.delete()

    def literal(self, cell: int, value: int) -> int:
        return cell * self.n + value

    def assumptions(self, puzzle: np.ndarray) -> list[int]:
        return [self.literal(int(cell), int(puzzle[cell])) for cell in np.flatnonzero(puzzle)]

    def complete(self, puzzle: np.ndarray) -> np.ndarray | None:
        """A solution of ``puzzle`` (uint8[C]), None if it has none."""
        if not self.sat.solve(assumptions=self.assumptions(puzzle)):
            return None
        model = np.array(self.sat.get_model()[:self.n ** 3])
        chosen = np.flatnonzero(model > 0)
        solution = np.zeros(self.n * self.n, np.uint8)
        solution[chosen // self.n] = chosen % self.n + 1
        return solution

    def minimize(self, puzzle: np.ndarray, solution: np.ndarray, orbits: np.ndarray) -> None:
        """Remove each orbit (rows of cells padded with -1) from ``puzzle`` unless a second
        solution appears (module doc)."""
        for orbit in orbits:
            cells = orbit[orbit >= 0]
            puzzle[cells] = 0
            base = self.assumptions(puzzle)
            others = ([*base, -self.literal(int(c), int(solution[c]))] for c in cells)
            if any(self.sat.solve(assumptions=forbidden) for forbidden in others):
                puzzle[cells] = solution[cells]


    def solution(self, rng: np.random.Generator) -> np.ndarray:
        """A random solution grid: the boxes on the diagonal filled at random (they share no
        unit) and completed by the solver; drawn again when they leave no completion, which
        happens on 4x4 (the boxes between them have too few cells)."""
        lay = layout(self.n)
        while True:
            grid = np.zeros(self.n * self.n, np.uint8)
            for b in range(0, self.n, lay.box + 1):
                grid[lay.units[2 * self.n + b]] = rng.permutation(self.n) + 1
            solution = self.complete(grid)
            if solution is not None:
                return solution
