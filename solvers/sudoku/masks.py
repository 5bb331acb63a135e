"""Candidate masks as the grader's plain-Python techniques read them. A cell's candidates are a
9-bit mask, bit d for digit d + 1; ``DIGITS[m]`` lists the digits of mask m and ``POP[m]`` counts
them; ``PEERS[c]`` is the set of the 20 cells that see cell c (gradek.PEERS)."""

from __future__ import annotations

from solvers.sudoku import gradek

DIGITS = [[d for d in range(9) if m >> d & 1] for m in range(512)]
POP = [len(ds) for ds in DIGITS]
PEERS = [frozenset(p) for p in gradek.PEERS.tolist()]
