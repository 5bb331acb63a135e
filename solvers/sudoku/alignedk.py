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

from solvers.bits import lowest_bit, popcount
from solvers.sudoku import gradek, patternk
from solvers.sudoku.nishiok import PEER_BITS

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
def _all_allowed(cands: np.ndarray, base: np.ndarray, size: int, shared: np.ndarray, n_shared: int) -> bool:
    """Whether some combination surely allows each digit of each base cell, so that ``_exclude``
    finds nothing: an excluder (two digits or more) rules out only combinations holding all its
    digits, so one with at most one digit of the excluders' union is ruled out only by two cells
    that see each other holding the same digit; a digit of a cell is allowed when the other
    cells can take such free digits without that clash."""
    union = 0
    for s in range(n_shared):
        union |= cands[shared[s]]
    for i in range(size):
        cell = base[i]
        j = base[1] if i == 0 else base[0]
        k = base[2] if i < 2 else base[1]
        m = cands[cell]
        while m:
            bit = m & -m
            m &= m - 1
            free_j = cands[j] & ~union
            if SEES[cell, j]:
                free_j &= ~bit
            if free_j == 0:
                return False
            if size == 3:
                free_k = cands[k] & ~union
                if SEES[cell, k]:
                    free_k &= ~bit
                if free_k == 0 or (SEES[j, k] and free_j == free_k and free_j & (free_j - 1) == 0):
                    return False
    return True


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
def _bits_to(words: np.ndarray, out: np.ndarray) -> int:
    """The cells of the set ``words`` (three words, ``PEER_BITS``' layout) into ``out`` in
    ascending order; their number."""
    n = 0
    for w in range(3):
        m = words[w]
        while m:
            out[n] = w * 27 + lowest_bit(m)
            n += 1
            m &= m - 1
    return n


@njit(cache=True)
def aligned(degree: int, cands: np.ndarray, cells: np.ndarray, elims: np.ndarray) -> tuple[int, int]:
    """The first aligned pair (``degree`` 2) or triple (3) exclusion with eliminations (module
    doc): (cells, eliminations) written to ``cells`` and ``elims``, or (0, 0). Sets of cells
    (each base cell's excluders, a pair's shared ones) are three words of bits (``PEER_BITS``),
    read in ascending order as the peers are listed."""
    base = np.empty(81, np.int64)
    index = np.full(81, -1, np.int64)  # a base cell's place in ``base``
    excl = np.zeros((81, 3), np.int64)  # per base cell (by place), its excluders as bits
    bases = np.zeros(3, np.int64)  # the base cells as bits
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
                excl[nb, q // 27] |= 1 << (q % 27)
                k += 1
        if not single and k:
            base[nb] = cell
            index[cell] = nb
            bases[cell // 27] |= 1 << (cell % 27)
            nb += 1
        else:
            excl[nb, :] = 0
    # a triple reached from another of its pairs was tried there, with nothing to remove
    tried = np.zeros((nb, nb, nb) if degree == 3 else (1, 1, 1), np.bool_)
    chosen = np.empty(3, np.int64)
    pair_bits = np.empty(3, np.int64)
    tail_bits = np.empty(3, np.int64)
    shared_bits = np.empty(3, np.int64)
    shared = np.empty(20, np.int64)
    tail = np.empty(40, np.int64)
    allowed = np.empty(3, np.int64)
    for b in range(1, nb):
        for a in range(b):
            chosen[0], chosen[1] = base[a], base[b]
            n_pair = 0  # the pair's shared excluders: a triple's are among them
            for w in range(3):
                pair_bits[w] = excl[a, w] & PEER_BITS[chosen[1], w]
                n_pair += popcount(pair_bits[w])
            if n_pair < 2:
                continue
            if degree == 2:
                _bits_to(pair_bits, shared)
                if _all_allowed(cands, chosen, 2, shared, n_pair):
                    continue
                n = _exclude(cands, chosen, 2, shared, n_pair, cells, elims, allowed)
                if n:
                    return 2, n
                continue
            # the base cells among either's excluders: a's, then b's not a's, each in order
            for w in range(3):
                tail_bits[w] = excl[a, w] & bases[w]
            tail_bits[chosen[1] // 27] &= ~(1 << (chosen[1] % 27))
            n_tail = _bits_to(tail_bits, tail)
            for w in range(3):
                tail_bits[w] = excl[b, w] & bases[w] & ~excl[a, w]
            tail_bits[chosen[0] // 27] &= ~(1 << (chosen[0] % 27))
            n_tail += _bits_to(tail_bits, tail[n_tail:])
            for t in range(n_tail):
                chosen[2] = tail[t]
                c = index[tail[t]]
                lo, hi = min(a, c), max(b, c)
                mid = a + b + c - lo - hi
                if tried[lo, mid, hi]:
                    continue
                tried[lo, mid, hi] = True
                n_shared = 0
                for w in range(3):
                    shared_bits[w] = pair_bits[w] & PEER_BITS[chosen[2], w]
                    n_shared += popcount(shared_bits[w])
                if n_shared < 2:
                    continue
                _bits_to(shared_bits, shared)
                if _all_allowed(cands, chosen, 3, shared, n_shared):
                    continue
                n = _exclude(cands, chosen, 3, shared, n_shared, cells, elims, allowed)
                if n:
                    return 3, n
    return 0, 0
