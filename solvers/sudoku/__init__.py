"""sudoku."""

from solvers.sudoku.kind import KIND

__all__ = ["KIND"]
