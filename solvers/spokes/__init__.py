"""Spokes (x-sheep's puzzle): the kind record (kind.py) and its parts.

  puzzle.py    the grid of clues: the wire form in and out
  solve.py     the strategies: auto's choice, the search's tree split and merged
  search.py    the search: candidate graph, state, deduction rules, branching
  pruning.py   the paper's Pruning Algorithm on the search's engine
  sat.py       SAT with connectivity added lazily
  generate.py  random instances
"""

from solvers.spokes.kind import KIND

__all__ = ["KIND"]
