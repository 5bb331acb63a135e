"""Sudoku, n x n for n in {4, 9, 16, 25}: the kind record (kind.py) and its parts.

  grid.py      the grid: its representation, read from and written to the wire
  solve.py     which method solves a puzzle (``auto`` and the named strategies)
  tree.py      the greedy tree of Kim & Kim (2017) and backtracking: search, split, merge
  sat.py       a SAT solver on a CNF encoding
  fast.py      the bit-parallel 9x9 solver (numba kernels): search, branching, the batch call
  fastprop.py  its propagation rules (numba kernels): singles, locked candidates, triads
  kernels.py   the tree's numba kernels
  batch.py     a chunk of puzzles in a few kernel calls
  outcome.py   result fields and statistics
  grade.py     the 9x9 grader: human techniques, one step at a time, on Sudoku Explainer's scale
  gradeg.py    the grader for every size (4x4, 16x16) in plain Python: the size-generic techniques
  position.py  a position part-way through (placed values, candidates): read, checked, graded
  gradek.py    the grader's numba kernels (the singles and the basic patterns)
  links.py     the grader's chains of two or three strong links
  wings.py     the grader's ALS wings (WXYZ, VWXYZ)
  patternk.py  the strong links' and ALS wings' numba kernels
  unique.py    the grader's unique rectangles and loops (types 1-4) and BUG (types 1-4)
  uniquek.py   the unique loops' numba kernel
  alignedk.py  the grader's aligned pair and triple exclusion (a numba kernel)
  chains.py    the grader's cycles and forcing chains (SE's first chaining family)
  forcing.py   the grader's Nishio, cell, region and dynamic forcing chains
  forcingk.py  the forcing chains' numba kernels (propagation, ancestor counts)
  generate.py  the 9x9 generator: unique, minimal, symmetric, by band or rating, from a seed
  genk.py      the generator's numba kernels (completing a grid, removing givens)
  making.py    the kind's generator record: generate options, made puzzles and their check
  explain.py   option ``explain``: the grader's steps with a solution, and their check
  hint.py      the kind's hint: the grader's next step from a position
"""

from solvers.sudoku.kind import KIND

__all__ = ["KIND"]
