"""Compiled loops of the constellations strategy: the classes of constellations under the
board's symmetries, and the count of their completions (the search itself is in
constellation_search.py).

A constellation is an int64[4] (a, b, c, d): the queens at (0, a), (n-1, b), (c, 0)
and (d, n-1) (constellations.py has the terms). Bitboards and blocked words as in kernels.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solvers.base import DONE, NODES, STOP
from solvers.bits import popcount
from solvers.nqueens.constellation_search import STACK, WORDS, fill

Array = NDArray[Any]

SYMMETRIES = 8        # the 4 turns, each alone and after the mirror image
FREEDOM_ROWS = 6      # free rows whose free squares weigh a constellation's share of the progress


# -- the geometry of constellations


@njit(cache=True)
def _image(n: int, const: Array, symmetry: int, out: Array) -> None:
    """The constellation that a symmetry (0..7) of the board makes of ``const``, into ``out``."""
    m = n - 1
    for q in range(4):
        if q == 0:
            r, c = 0, const[0]
        elif q == 1:
            r, c = m, const[1]
        elif q == 2:
            r, c = const[2], 0
        else:
            r, c = const[3], m
        if symmetry >= 4:
            c = m - c
        for _ in range(symmetry % 4):
            r, c = c, m - r
        # A corner queen is on two border lines: each one it lies on names it.
        if r == 0:
            out[0] = c
        if r == m:
            out[1] = c
        if c == 0:
            out[2] = r
        if c == m:
            out[3] = r


@njit(cache=True)
def _before(x: Array, y: Array) -> bool:
    """Whether constellation x comes strictly before y in lexicographic order."""
    for i in range(4):
        if x[i] != y[i]:
            return bool(x[i] < y[i])
    return False


@njit(cache=True)
def is_constellation(n: int, const: Array) -> bool:
    """One queen per border line in range (a corner queen named by both its lines), none attacked."""
    m = n - 1
    for i in range(4):
        if const[i] < 0 or const[i] > m:
            return False
    a, b, c, d = const[0], const[1], const[2], const[3]
    if (a == 0) != (c == 0) or (a == m) != (d == 0) or (b == 0) != (c == m) or (b == m) != (d == m):
        return False
    rows = np.array([0, m, c, d], np.int64)
    cols = np.array([a, b, 0, m], np.int64)
    for i in range(4):
        for j in range(i + 1, 4):
            if rows[i] == rows[j] and cols[i] == cols[j]:
                continue  # the same corner queen, seen from its two lines
            if rows[i] == rows[j] or cols[i] == cols[j] or abs(rows[i] - rows[j]) == abs(cols[i] - cols[j]):
                return False
    return True


@njit(cache=True)
def class_of(n: int, const: Array, images: Array) -> tuple[bool, int]:
    """(whether ``const`` is the smallest member of its class, the size of the class).

    ``images`` (int64[8, 4]) receives the images under the 8 symmetries.
    """
    smallest = True
    size = 0
    for s in range(SYMMETRIES):
        _image(n, const, s, images[s])
        if _before(images[s], const):
            smallest = False
        seen = False
        for t in range(s):
            if not _before(images[t], images[s]) and not _before(images[s], images[t]):
                seen = True
        if not seen:
            size += 1
    return smallest, size


@njit(cache=True)
def list_classes(n: int) -> tuple[Array, Array]:
    """(the smallest member of every class of constellations of n, int64[k, 4]; the class sizes)."""
    found = np.zeros((n ** 4, 4), np.int64)  # every (a, b, c, d) at most
    sizes = np.zeros(n ** 4, np.int64)
    const = np.zeros(4, np.int64)
    images = np.zeros((SYMMETRIES, 4), np.int64)
    k = 0
    for a in range(n):
        for b in range(n):
            if n > 1 and (a == b or abs(a - b) == n - 1):
                continue  # the queens of the first and the last row attack each other
            for c in range(n):
                for d in range(n):
                    const[0], const[1], const[2], const[3] = a, b, c, d
                    if not is_constellation(n, const):
                        continue
                    smallest, size = class_of(n, const, images)
                    if smallest:
                        found[k] = const
                        sizes[k] = size
                        k += 1
    return found[:k].copy(), sizes[:k].copy()


# -- the completions


@njit(cache=True)
def _free_rows(n: int, const: Array, rows: Array, blocked: Array) -> int:
    """The rows left to fill around a constellation into ``rows``, from the top; returns their
    number m. ``blocked[r]`` receives free row r's blocked word: the squares the constellation
    takes there, by its columns and its diagonals, and the bits outside the board. The
    constellation's diagonals are fixed, so the search never carries its queens in its words.
    """
    m = n - 1
    qrows = np.array([0, m, const[2], const[3]], np.int64)
    qcols = np.array([const[0], const[1], 0, m], np.int64)
    taken = ~((np.int64(1) << n) - 1)  # the bits outside the board
    for q in range(4):
        taken |= np.int64(1) << qcols[q]
    k = 0
    for r in range(1, m):
        if r == const[2] or r == const[3]:
            continue
        word = taken
        for q in range(4):
            dist = abs(r - qrows[q])
            if qcols[q] >= dist:
                word |= np.int64(1) << (qcols[q] - dist)
            if qcols[q] + dist < n:
                word |= np.int64(1) << (qcols[q] + dist)
        rows[k] = r
        blocked[r] = word
        k += 1
    return k


@njit(cache=True)
def freedoms(n: int, consts: Array) -> Array:
    """Each constellation's weight in the progress a count reports (solvers/progress.py): the
    product of the squares it leaves free in its first FREEDOM_ROWS free rows, closer to its share
    of the search than an equal share per class."""
    out = np.zeros(consts.shape[0], np.float64)
    rows = np.zeros(n, np.int64)
    blocked = np.zeros(n, np.int64)
    for p in range(consts.shape[0]):
        m = _free_rows(n, consts[p], rows, blocked)
        product = 1.0
        for k in range(min(m, FREEDOM_ROWS)):
            product *= popcount(~blocked[rows[k]])
        out[p] = product
    return out


# -- the completions


@njit(cache=True, nogil=True)
def count_completions(n: int, consts: Array, weights: Array, stop: Array, bounds: Array) -> tuple[int, int]:
    """(search nodes, weighted solutions) over the completions of the constellations, each
    counted by constellation_search.fill; nodes are its placements, unweighted, plus one per
    constellation. Returns partial sums once ``stop[STOP]`` is set. Constellation p stands for
    ``bounds[p] .. bounds[p + 1]`` of the search, which ``stop[DONE]`` reaches as it is counted
    (solvers/progress.py).
    """
    rows = np.zeros(n, np.int64)
    blocked = np.zeros(n, np.int64)
    stack = np.zeros(int(STACK) * n, np.int64)
    words = np.zeros(WORDS, np.int64)
    total_nodes = 0
    total_solutions = 0
    for p in range(consts.shape[0]):
        if stop[STOP]:
            break
        stop[NODES] = total_nodes + 1
        stop[DONE] = bounds[p]
        m = _free_rows(n, consts[p], rows, blocked)
        nodes, solutions = fill(n, m, rows, blocked, stack, words, stop)
        total_nodes += 1 + nodes
        total_solutions += weights[p] * solutions
        stop[NODES] = total_nodes
        stop[DONE] = bounds[p + 1]
    return total_nodes, total_solutions
