"""spokes."""

from solvers.spokes.kind import KIND

__all__ = ["KIND"]
