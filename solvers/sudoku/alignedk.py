"""The numba kernel of the 9x9 grader's aligned exclusion (grade.py), as Sudoku Explainer (SE)
searches it: aligned pair exclusion (6.2) and aligned triple exclusion (7.5).

The base cells are the open cells with two digits or more that see some cell holding two to
``degree`` digits (an excluder). For a set of ``degree`` base cells (pairs in SE's order: by
the later cell, then the earlier; a triple is a pair and a base cell that is an excluder of one
of them) that share two excluders or more, each combination of the cells' digits is ruled out
when two cells that see each other hold the same digit, or when it takes every digit of a shared
excluder. A digit of a base cell in no remaining combination leaves it; the first set with
such a digit is the step.

  cands    int64[81]: the candidate masks (bit d for digit d + 1).
  cells    int64[16]: the set's cells; ``elims`` int64[81, 2]: (cell, value) rows (gradek's bounds).

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.sudoku import gradek, patternk

POP = patternk.POP
SEES = patternk.SEES


@njit(cache=True)
def _third(m: int, a: int, b: int, shared: np.ndarray, n_shared: int, cands: np.ndarray) -> int:
    """The digits of mask ``m`` left to the last base cell once the others hold digits ``a``
    and ``b`` (bits): without those an excluder needs. An excluder left with no digit outside
    ``a | b`` rules every one out; one left with one digit rules that digit out."""
    for s in range(n_shared):
        rest = cands[shared[s]] & ~(a | b)
        if rest == 0:
            return 0
        if rest & (rest - 1) == 0:
            m &= ~rest
    return m


@njit(cache=True)
def _exclude(cands: np.ndarray, base: np.ndarray, size: int, shared: np.ndarray, n_shared: int,
             cells: np.ndarray, elims: np.ndarray, allowed: np.ndarray) -> int:
    """The eliminations of the base cells ``base[:size]`` (two or three) with the excluders
    ``shared[:n_shared]`` written to ``elims`` (and the cells to ``cells``); their number.
    ``allowed`` (int64[3], scratch): per base cell, the digits some combination allows. The
    digits of every base cell but the last are picked one by one; the last cell's allowed
    digits for that pick are a mask (``_third``), so a search stops once every digit of every
    cell is allowed; the cell with the most digits is the last (the allowed digits do not
    depend on the order)."""
    li = 0
    for i in range(1, size):
        if POP[cands[base[i]]] > POP[cands[base[li]]]:
            li = i
    xi = 1 if li == 0 else 0
    yi = 3 - li - xi if size == 3 else xi
    cx, cy, last = base[xi], base[yi], base[li]
    allowed[:] = 0
    m0 = cands[cx]
    m1 = cands[cy] if size == 3 else 1
    for a in range(9):
        if not m0 >> a & 1:
            continue
        for b in range(9 if size == 3 else 1):
            if not m1 >> b & 1:
                continue
            bit_b = 1 << b if size == 3 else 0
            if size == 3 and a == b and SEES[cx, cy]:
                continue
            m = cands[last]
            if SEES[cx, last]:
                m &= ~(1 << a)
            if size == 3 and SEES[cy, last]:
                m &= ~bit_b
            m = _third(m, 1 << a, bit_b, shared, n_shared, cands)
            if m:
                allowed[xi] |= 1 << a
                if size == 3:
                    allowed[yi] |= bit_b
                allowed[li] |= m
        full = True
        for i in range(size):
            full &= allowed[i] == cands[base[i]]
        if full:
            return 0
    n = 0
    for i in range(size):
        n = gradek._eliminate(base[i], cands[base[i]] & ~allowed[i], cands, elims, n)
    if n:
        for i in range(size):
            cells[i] = base[i]
    return n


@njit(cache=True)
def aligned(degree: int, cands: np.ndarray, cells: np.ndarray, elims: np.ndarray) -> tuple[int, int]:
    """The first aligned pair (``degree`` 2) or triple (3) exclusion with eliminations (module
    doc): (cells, eliminations) written to ``cells`` and ``elims``, or (0, 0)."""
    base = np.empty(81, np.int64)
    is_base = np.zeros(81, np.bool_)
    index = np.full(81, -1, np.int64)  # a base cell's place in ``base``
    excl = np.empty((81, 20), np.int64)
    n_excl = np.zeros(81, np.int64)
    nb = 0
    for cell in range(81):
        if POP[cands[cell]] < 2:
            continue
        single = False
        k = 0
        for j in range(20):
            q = gradek.PEERS[cell, j]
            p = POP[cands[q]]
            if p == 1:
                single = True
            elif 2 <= p <= degree:
                excl[nb, k] = q
                k += 1
        if not single and k:
            base[nb] = cell
            n_excl[nb] = k
            is_base[cell] = True
            index[cell] = nb
            nb += 1
    # a triple reached from another of its pairs was tried there, with nothing to remove
    tried = np.zeros((nb, nb, nb) if degree == 3 else (1, 1, 1), np.bool_)
    chosen = np.empty(3, np.int64)
    pair = np.empty(20, np.int64)
    shared = np.empty(20, np.int64)
    tail = np.empty(40, np.int64)
    allowed = np.empty(3, np.int64)
    for b in range(1, nb):
        for a in range(b):
            chosen[0], chosen[1] = base[a], base[b]
            n_pair = 0  # the pair's shared excluders: a triple's are among them
            for k in range(n_excl[a]):
                if SEES[chosen[1], excl[a, k]]:
                    pair[n_pair] = excl[a, k]
                    n_pair += 1
            if n_pair < 2:
                continue
            if degree == 2:
                n = _exclude(cands, chosen, 2, pair, n_pair, cells, elims, allowed)
                if n:
                    return 2, n
                continue
            n_tail = 0
            for side in (a, b):
                for k in range(n_excl[side]):
                    q = excl[side, k]
                    if not is_base[q] or q == chosen[0] or q == chosen[1]:
                        continue
                    dup = False
                    for t in range(n_tail):
                        dup |= tail[t] == q
                    if not dup:
                        tail[n_tail] = q
                        n_tail += 1
            for t in range(n_tail):
                chosen[2] = tail[t]
                c = index[tail[t]]
                lo, hi = min(a, c), max(b, c)
                mid = a + b + c - lo - hi
                if tried[lo, mid, hi]:
                    continue
                tried[lo, mid, hi] = True
                n_shared = 0
                for k in range(n_pair):
                    if SEES[chosen[2], pair[k]]:
                        shared[n_shared] = pair[k]
                        n_shared += 1
                if n_shared < 2:
                    continue
                n = _exclude(cands, chosen, 3, shared, n_shared, cells, elims, allowed)
                if n:
                    return 3, n
    return 0, 0
