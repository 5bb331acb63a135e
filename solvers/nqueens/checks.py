"""The independent checks that the modes' ``verify`` share: a placement, a brute-force recount."""

from __future__ import annotations

import itertools

import numpy as np

from solvers.base import WrongAnswer
from solvers.nqueens.outcome import N

Queens = list[int]      # a placement, one column per row


def is_placement(queens: Queens, n: N) -> bool:
    """True if queens (as it arrived: any type) lists at most n non-attacking queens from row 0 on. O(n)."""
    if not isinstance(queens, list) or len(queens) > n:
        return False
    if not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < n for c in queens):
        return False
    cols = np.array(queens, np.int64)
    rows = np.arange(len(cols), dtype=np.int64)
    return all(np.bincount(line, minlength=1).max(initial=0) <= 1
               for line in (cols, rows + cols, rows - cols + n - 1))


def brute_force_count(n: N) -> tuple[int, int]:
    """(solutions, classes under the 8 symmetries) by trying every permutation: for small n only."""
    solutions = [q for q in itertools.permutations(range(n))
                 if len({r + c for r, c in enumerate(q)}) == n and len({r - c for r, c in enumerate(q)}) == n]

    def images(q: tuple[int, ...]) -> list[tuple[int, ...]]:
        found = []
        for _ in range(4):
            q = tuple(q.index(r) for r in range(n))[::-1]  # quarter turn: transpose, then mirror rows
            found += [q, tuple(n - 1 - c for c in q)]
        return found

    return len(solutions), len({min(images(q)) for q in solutions})


def need(condition: bool, message: str) -> None:
    if not condition:
        raise WrongAnswer(message)
