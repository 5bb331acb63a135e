"""sliding."""

from solvers.sliding.kind import KIND

__all__ = ["KIND"]
