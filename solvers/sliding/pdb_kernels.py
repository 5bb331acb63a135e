"""Numba kernels that build the pattern databases (pdb/): one breadth-first layer of a
pattern's abstract space at a time (``pattern_layer``), and a finished table spread out so that
the search shifts its index instead of re-ranking (``spread_table``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from solvers.bits import lowest_bit, nth_bit, popcount
from solvers.sliding.kernels import Bytes, jit, rank, unrank

UNSEEN = 255  # a placement's distance not yet known


@jit()
def spread_table(table: Bytes, m: int, n: int) -> Bytes:
    """A pattern table indexed by rank (compact) laid out by the cells as base-n digits (sparse),
    so that one tile's move shifts the index by a constant the search adds instead of re-ranking."""
    dense = np.zeros(n ** m, np.uint8)
    cells = np.empty(m, np.int64)
    for r in range(table.size):
        unrank(r, m, n, cells)
        index = 0
        for i in range(m):
            index = index * n + cells[i]
        dense[index] = table[r]
    return dense


@jit()
def _grow(mask: int, k: int, left: int, right: int, inside: int) -> int:
    """``mask`` and its cells' neighbours (left/right: the first/last column's cells), within ``inside``."""
    return (mask | ((mask & ~right) << 1) | ((mask & ~left) >> 1) | (mask << k) | (mask >> k)) & inside


@jit()
def pattern_layer(words: npt.NDArray[Any], dist: Bytes, depth: int, m: int, k: int) -> tuple[int, int]:
    """One breadth-first layer of a pattern's abstract space; the pattern's tiles are cells[0..m-1].

    A state is a placement (the pattern tiles' cells, ranked) and the blank's free region:
    the blank walks for free over the w = n - m cells no pattern tile holds, and sliding a
    pattern tile into it costs 1. ``words[placement]`` holds three w-bit masks over the free
    cells (numbered upwards): closed, then the frontier of even and of odd depths (the blank
    on that free cell). Settles every frontier state of ``depth``: closes its region, gives
    the placement its distance (its first region closed is its nearest) and puts its
    successors on the next frontier. Returns (placements first settled, states labelled).
    """
    n = k * k
    w = n - m
    low = (1 << w) - 1
    now, after = w * (1 + depth % 2), w * (1 + (depth + 1) % 2)
    inside, left, right = (1 << n) - 1, 0, 0
    for r in range(k):
        left |= 1 << (r * k)
        right |= 1 << (r * k + k - 1)
    cells = np.empty(m, np.int64)
    tile_at = np.empty(n, np.int64)
    settled = labelled = 0
    for p in range(words.size):
        word = int(words[p])
        todo = (word >> now) & low
        if todo == 0:
            continue
        word &= ~(low << now)
        todo &= ~word
        words[p] = word
        if todo == 0:
            continue
        unrank(p, m, n, cells)
        held = 0
        for i in range(m):
            held |= 1 << cells[i]
            tile_at[cells[i]] = i
        free = inside & ~held
        if dist[p] == UNSEEN:
            dist[p] = depth
            settled += 1
        while todo != 0:
            region = nth_bit(free, lowest_bit(todo))
            grown = _grow(region, k, left, right, free)
            while grown != region:
                region = grown
                grown = _grow(region, k, left, right, free)
            rest = region
            while rest != 0:  # close the region: every free cell of it, as a free-cell bit
                c = lowest_bit(rest)
                rest &= rest - 1
                word |= 1 << popcount(free & ((1 << c) - 1))
            todo &= ~word
            edge = _grow(region, k, left, right, inside) & held
            while edge != 0:  # a pattern tile next to the region slides into it; the blank takes its cell
                t = lowest_bit(edge)
                edge &= edge - 1
                i = tile_at[t]
                into = _grow(1 << t, k, left, right, region)
                while into != 0:
                    c = lowest_bit(into)
                    into &= into - 1
                    cells[i] = c
                    q = rank(cells, m, n)
                    f = popcount(((free | (1 << t)) & ~(1 << c)) & ((1 << t) - 1))
                    other = int(words[q])
                    if (other >> f) & 1 == 0 and (other >> (after + f)) & 1 == 0:
                        words[q] = other | (1 << (after + f))
                        labelled += 1
                cells[i] = t
        words[p] = word
    return settled, labelled
