"""nqueens."""

from solvers.nqueens.kind import KIND

__all__ = ["KIND"]
