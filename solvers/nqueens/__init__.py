"""n-Queens: the kind record (kind.py) and its parts.

  construct.py  mode solve: one placement, constructed
  count.py      mode count: exact counts of the backtracking tree and its solutions
  constellations.py  mode count, strategy constellations: the border queens first, by symmetry class
  constellation_kernels.py  its numba kernels
  estimate.py   mode estimate: Knuth's Monte Carlo estimate of the tree
  kernels.py    their numba kernels
  checks.py     the checks the modes' verify share
  outcome.py    statistics and results
"""

from solvers.nqueens.kind import KIND

__all__ = ["KIND"]
