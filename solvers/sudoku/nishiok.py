"""Numba kernels of Nishio's precheck (forcingk.find): whether some Nishio assumption can end in
a contradiction at all, by a closure of its implications on bitmasks, so that Nishio's search
(node by node, with every chain's ancestors) runs only where it may find something.

  plane    int64[3]: a digit's places as a set of cells in three words, one per band of three
           rows (a cell's bit: cell % 27 in word cell // 27); PEER_BITS and UNIT_BITS alike.

Everything here is the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.bits import lowest_bit, popcount
from solvers.sudoku import gradek


def _band_bits(cells: np.ndarray) -> np.ndarray:
    """int64[len(cells), 3]: each row of ``cells`` as a set of cells in three words, one per band
    of three rows (a cell's bit: cell % 27 in word cell // 27)."""
    out = np.zeros((len(cells), 3), np.int64)
    for i, row in enumerate(cells.tolist()):
        for c in row:
            out[i, c // 27] |= 1 << (c % 27)
    return out


PEER_BITS = _band_bits(gradek.PEERS)  # each cell's 20 peers
UNIT_BITS = _band_bits(gradek.UNITS)  # each unit's 9 cells


@njit(cache=True)
def _clash(plane: np.ndarray, cell: int, on: bool, trues: np.ndarray, falses: np.ndarray,
           new: np.ndarray) -> bool:
    """Whether the Nishio assumption that a digit is (``on``) or is not at ``cell`` can lead to
    a contradiction, on the digit's places ``plane`` (three words, ``PEER_BITS``' layout): the
    closure of what it implies, taken all at once rather than node by node, with the grid as
    those removals leave it. Nishio's links stay on the digit: a true place makes its peers
    false, and a unit with a false place and one place left not false makes that one true.
    Whatever the search (forcingk.propagate, dynamic, X-links only) reaches is in the closure, or the
    closure meets a clash first, so no clash here means none there: a place both true and
    false, or a unit of two places or more all false. ``trues``, ``falses`` and ``new`` are
    scratch (int64[3])."""
    trues[:] = 0
    falses[:] = 0
    new[:] = 0
    if on:
        new[cell // 27] = 1 << (cell % 27)
    else:
        falses[cell // 27] = 1 << (cell % 27)
    while True:
        for w in range(3):
            trues[w] |= new[w]
            m = new[w]
            while m:
                x = w * 27 + lowest_bit(m)
                m &= m - 1
                for k in range(3):
                    falses[k] |= PEER_BITS[x, k] & plane[k]
        for w in range(3):
            if trues[w] & falses[w]:
                return True
        new[:] = 0
        more = False
        for u in range(27):
            hit = 0
            left = 0
            places = 0
            for w in range(3):
                hit |= UNIT_BITS[u, w] & falses[w]
                left += popcount(UNIT_BITS[u, w] & plane[w] & ~falses[w])
                places += popcount(UNIT_BITS[u, w] & plane[w])
            if not hit:
                continue
            if left == 0 and places >= 2:
                return True
            if left == 1:
                for w in range(3):
                    g = UNIT_BITS[u, w] & plane[w] & ~falses[w] & ~trues[w]
                    if g:
                        new[w] |= g
                        more = True
        if not more:
            return False


@njit(cache=True)
def nishio_may(source: np.ndarray) -> bool:
    """Whether some Nishio assumption on ``source`` (a candidate of a cell of two digits or more,
    true or false) can end in a contradiction (``_clash``): where none can, the Nishio family
    finds nothing."""
    plane = np.zeros(3, np.int64)
    trues = np.empty(3, np.int64)
    falses = np.empty(3, np.int64)
    new = np.empty(3, np.int64)
    for d in range(9):
        plane[:] = 0
        for cell in range(81):
            if source[cell] >> d & 1:
                plane[cell // 27] |= 1 << (cell % 27)
        for cell in range(81):
            if not source[cell] >> d & 1 or popcount(source[cell]) < 2:
                continue
            for on in (True, False):
                if _clash(plane, cell, on, trues, falses, new):
                    return True
    return False
