"""Numba kernels the sliding modules share, and the types they pass: the blank's neighbours, and
placements of tiles ranked (a table's index) and unranked.

  k, n        board side and cell count (n = k*k); cells are numbered row-major.
  board       int64[n]: board[cell] = tile, 0 = blank.
  pos         int64[n]: pos[tile] = cell, the inverse of board.
  goal_pos    int64[n]: goal_pos[tile] = the tile's cell in the goal.
  direction   0..3 = up, left, right, down: where the blank moves (Korf's order;
              the opposite of d is 3 - d).
  placement   the cells of m distinct tiles, in order; its rank is its index among all
              n!/(n-m)! placements.

Every kernel of sliding/ (here and in ida.py, pdb_kernels.py, reduce_kernels.py) also runs as
plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit

from solvers.bits import popcount

Ints = npt.NDArray[np.int64]
Bytes = npt.NDArray[np.uint8]
Flags = npt.NDArray[np.bool_]
F = TypeVar("F", bound=Callable[..., Any])


def jit(nogil: bool = False, inline: Literal["never", "always"] = "never") -> Callable[[F], F]:
    """``njit(cache=True)``, seen by the type checker as the function it compiles."""
    return cast(Callable[[F], F], njit(cache=True, nogil=nogil, inline=inline))


_DR = (-1, 0, 0, 1)
_DC = (0, -1, 1, 0)


@jit()
def neighbours(k: int) -> Ints:
    """nbr[cell, d] = the cell the blank reaches by moving in direction d, or -1 off the board."""
    nbr = np.full((k * k, 4), -1, np.int64)
    for cell in range(k * k):
        r, c = cell // k, cell % k
        for d in range(4):
            rr, cc = r + _DR[d], c + _DC[d]
            if 0 <= rr < k and 0 <= cc < k:
                nbr[cell, d] = rr * k + cc
    return nbr


@jit()
def rank(cells: Ints, m: int, n: int) -> int:
    """Index of m distinct cells (order matters) among n: mixed radix n, n-1, ..., n-m+1,
    digit i = cells[i] less the earlier cells below it (a placement's compact index)."""
    r = 0
    used = 0
    for i in range(m):
        c = cells[i]
        r = r * (n - i) + c - popcount(used & ((1 << c) - 1))
        used |= 1 << c
    return r


@jit()
def unrank(r: int, m: int, n: int, cells: Ints) -> None:
    """Inverse of rank: fill cells[0..m-1]."""
    for i in range(m - 1, -1, -1):
        cells[i] = r % (n - i)
        r //= n - i
    used = 0
    for i in range(m):
        skip = cells[i]
        c = 0
        while (used >> c) & 1 or skip > 0:
            if not (used >> c) & 1:
                skip -= 1
            c += 1
        cells[i] = c
        used |= 1 << c
