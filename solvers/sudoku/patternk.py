"""Numba kernels of the 9x9 grader's searches for one digit's chains of strong links
(links.py) and for the WXYZ- and VWXYZ-wings (wings.py): each enumerates the patterns in the
order of its Python caller's module doc and keeps the first of the lowest rating with the most
eliminations, which the caller then spells out (cells, eliminations, name).

  cands    int64[81]: the candidate masks (bit d for digit d + 1).
  ratings  tenths of SE's scale (int), 0 when nothing was found.

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.sudoku import gradek


def _sees() -> np.ndarray:
    """bool[81, 81]: whether two different cells share a row, column or box."""
    out = np.zeros((81, 81), np.bool_)
    for cell in range(81):
        out[cell, gradek.PEERS[cell]] = True
    return out


SEES = _sees()
PEERS = gradek.PEERS  # each cell's 20 peers, ascending
POP = np.array([bin(m).count("1") for m in range(512)], np.int64)
KIND = np.array([1] * 9 + [2] * 9 + [0] * 9, np.int64)  # SE's region types: 0 box, 1 row, 2 column
MOST_LINKS = 54  # 27 units, both directions


@njit(cache=True)
def _links(cands: np.ndarray, d: int, starts: np.ndarray, ends: np.ndarray, kinds: np.ndarray) -> int:
    """Digit ``d``'s strong links in both directions, unit by unit; their number."""
    n = 0
    for u in range(27):
        a = -1
        b = -1
        count = 0
        for k in range(9):
            c = gradek.UNITS[u, k]
            if cands[c] >> d & 1:
                count += 1
                if count == 1:
                    a = c
                else:
                    b = c
        if count == 2:
            starts[n], ends[n], kinds[n] = a, b, KIND[u]
            starts[n + 1], ends[n + 1], kinds[n + 1] = b, a, KIND[u]
            n += 2
    return n


@njit(cache=True)
def _link_rating(k0: int, k1: int, k2: int) -> int:
    """The rating (tenths) of a chain of links in regions of kinds k0, k1 and k2 (-1: two links)."""
    two = k2 < 0
    if k0 == 0 or k1 == 0 or k2 == 0:
        return 42 if two else 55
    if k0 == k1 and (two or k1 == k2):
        return 40 if two else 54
    return 41 if two else 56


@njit(cache=True)
def _better(rating: int, elims: int, best_rating: int, best_elims: int) -> bool:
    """Whether a find sorts before the best so far (none when ``best_rating`` is 0): the
    lower rating, then the more eliminations; the first of equals stays."""
    return best_rating == 0 or rating < best_rating or (rating == best_rating and elims > best_elims)


@njit(cache=True)
def _link_elims(cands: np.ndarray, d: int, chain: np.ndarray, size: int) -> int:
    """How many cells outside the chain's ``size`` cells hold ``d`` and see both its ends."""
    start = chain[0]
    end = chain[size - 1]
    n = 0
    for k in range(PEERS.shape[1]):
        c = PEERS[start, k]
        if cands[c] >> d & 1 and SEES[end, c]:
            inside = False
            for i in range(size):
                inside |= chain[i] == c
            n += not inside
    return n


@njit(cache=True)
def strong_links(count: int, cands: np.ndarray, out: np.ndarray) -> int:
    """The best chain of ``count`` (2 or 3) strong links (links.py): its digit in out[0], its
    cells (each link's start and end) in out[1:]; its rating, 0 when there is none."""
    starts = np.empty(MOST_LINKS, np.int64)
    ends = np.empty(MOST_LINKS, np.int64)
    kinds = np.empty(MOST_LINKS, np.int64)
    chain = np.empty(6, np.int64)
    best_rating, best_elims = 0, 0
    size = 2 * count
    for d in range(9):
        n = _links(cands, d, starts, ends, kinds)
        if n < size:
            continue
        for i in range(n):
            chain[0], chain[1] = starts[i], ends[i]
            for j in range(n):
                if not SEES[ends[i], starts[j]] or _holds(chain, 2, starts[j], ends[j]):
                    continue
                chain[2], chain[3] = starts[j], ends[j]
                for k in range(n if count == 3 else 1):
                    if count == 3:
                        if not SEES[ends[j], starts[k]] or _holds(chain, 4, starts[k], ends[k]):
                            continue
                        chain[4], chain[5] = starts[k], ends[k]
                    rating = _link_rating(kinds[i], kinds[j], kinds[k] if count == 3 else -1)
                    if best_rating and rating > best_rating:  # cannot sort first, whatever it removes
                        continue
                    elims = _link_elims(cands, d, chain, size)
                    if elims and _better(rating, elims, best_rating, best_elims):
                        best_rating, best_elims = rating, elims
                        out[0] = d
                        out[1:size + 1] = chain[:size]
    return best_rating


@njit(cache=True)
def _holds(chain: np.ndarray, size: int, a: int, b: int) -> bool:
    """Whether ``a`` or ``b`` is among the chain's first ``size`` cells."""
    found = False
    for i in range(size):
        found |= chain[i] == a or chain[i] == b
    return found


@njit(cache=True)
def _seeing_all(cands: np.ndarray, d: int, als: np.ndarray, size: int, yz: int, with_yz: bool) -> int:
    """How many cells outside the set and ``yz`` hold ``d`` and see every holder of ``d`` among
    the set's ``size`` cells (and ``yz``, when ``with_yz``; else some cell of the set holds
    ``d``)."""
    # the cells seeing yz, or seeing the set's first holder of d, hold every such cell
    first = yz
    for i in range(size - 1, -1, -1):
        if not with_yz and cands[als[i]] >> d & 1:
            first = als[i]
    n = 0
    for k in range(PEERS.shape[1]):
        c = PEERS[first, k]
        if not cands[c] >> d & 1 or c == yz:
            continue
        ok = True
        for i in range(size):
            x = als[i]
            if x == c or (cands[x] >> d & 1 and not SEES[x, c]):
                ok = False
        n += ok
    return n


@njit(cache=True)
def _wing_elims(cands: np.ndarray, als: np.ndarray, size: int, union: int, yz: int) -> int:
    """The eliminations of the wing of the set ``als`` and the cell ``yz`` (wings.py), 0 when
    no digit of ``yz`` links them."""
    linked = 0
    for d in range(9):
        if cands[yz] >> d & 1:
            ok = True
            for i in range(size):
                if cands[als[i]] >> d & 1 and not SEES[als[i], yz]:
                    ok = False
            if ok:
                linked |= 1 << d
    if not linked:
        return 0
    double = POP[linked] == 2
    n = 0
    for d in range(9):
        if cands[yz] >> d & 1 and (double or not linked >> d & 1):
            n += _seeing_all(cands, d, als, size, yz, True)
        elif double and union >> d & 1:
            n += _seeing_all(cands, d, als, size, yz, False)
    return n


@njit(cache=True)
def als_wing(size: int, cands: np.ndarray, out: np.ndarray) -> int:
    """The first WXYZ-wing (``size`` 3) or VWXYZ-wing (``size`` 4) in wings.py's order: the
    set's cells in out[:size], the two-digit cell in out[size]; its rating, 0 when none."""
    base = 55 if size == 3 else 62
    als = np.empty(4, np.int64)
    unions = np.zeros(5, np.int64)
    after = np.zeros(5, np.int64)  # the next cell (depth 0) or first cell's peer (index) to try
    best_rating, best_elims = 0, 0
    depth = 0
    while depth >= 0:
        i = after[depth]
        if i == (81 if depth == 0 else PEERS.shape[1]):
            depth -= 1
            continue
        after[depth] = i + 1
        c = i if depth == 0 else PEERS[als[0], i]  # a set's cells all see its first (peers ascend)
        union = unions[depth] | cands[c]
        if (depth and c <= als[depth - 1]) or POP[cands[c]] < 2 or POP[union] > size + 1:
            continue
        seen = True
        for j in range(1, depth):
            seen &= SEES[als[j], c]
        if not seen:
            continue
        als[depth] = c
        if depth + 1 < size:
            unions[depth + 1] = union
            after[depth + 1] = 0
            depth += 1
            continue
        if POP[union] != size + 1:
            continue
        largest = 0
        for i in range(size):
            largest = max(largest, POP[cands[als[i]]])
        rating = base + size - 2 - abs(3 - largest)
        if best_rating and rating > best_rating:  # cannot sort first, whatever it removes
            continue
        for yz in range(81):
            if POP[cands[yz]] != 2 or cands[yz] & ~union or _holds(als, size, yz, yz):
                continue
            near = False
            for i in range(size):
                near |= SEES[als[i], yz]
            elims = _wing_elims(cands, als, size, union, yz) if near else 0
            if elims and _better(rating, elims, best_rating, best_elims):
                best_rating, best_elims = rating, elims
                out[:size] = als[:size]
                out[size] = yz
    return best_rating
