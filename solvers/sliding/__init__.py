"""Sliding-tile puzzles, k x k for k = 2..8: the kind record (kind.py) and its parts.

  board.py           boards: the wire form, moves, parity
  checks.py          the options, a puzzle's validation, an answer's check
  solve.py           which algorithm and heuristic run, under which budget; auto
  problem.py         the board as a search.Problem, heuristics in Python
  ida.py             the IDA* kernel, one search for every heuristic
  pdb/               the 15-puzzle's pattern databases: built, stored, loaded
  reduce.py          the reduction: peel the board to a square, shorten the route
  kernels.py, pdb_kernels.py, reduce_kernels.py   the other numba kernels
"""

from solvers.sliding.kind import KIND

__all__ = ["KIND"]
