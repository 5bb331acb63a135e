"""Spokes (x-sheep's puzzle): the kind record (kind.py) and its parts.

  puzzle.py    the grid of clues: the wire form in and out
  checks.py    a puzzle's validation, an answer's check against the rules
  solve.py     the strategies: auto's choice, the search's tree split and merged
  search.py    the search: candidate graph, state, deduction rules, branching
  pruning.py   the paper's Pruning Algorithm on the search's engine
  sat.py       SAT with connectivity added lazily
  generate.py  random instances (making.py: the generator's record)
"""

from solvers.spokes.kind import KIND

__all__ = ["KIND"]
