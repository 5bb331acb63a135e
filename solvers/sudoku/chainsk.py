"""Numba kernels of the static chains (chains.py): SE's doForcingChains and doCycles from one
source on an unchanging grid, breadth first, the links read as chains.py describes them.

  grid     int64[81]: the candidate masks.
  nodes    chains.py's numbering: cell * 18 + digit * 2 + on.

Both searches stop at ``limit`` nodes per chain (chains.py's length limit). Everything here is
the numba subset that also runs as plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.sudoku.forcingk import BOX, NODES, REGIONS

__all__ = ["NODES", "cycles", "forcing", "off_links", "on_links"]

ENTRIES = 32768  # a cycle search's paths: each on node once, each off node once per parent


@njit(cache=True)
def off_links(grid: np.ndarray, n: int, y: bool, out: np.ndarray) -> int:
    """The nodes made false by ``n`` (on) into ``out``, in SE's order; their number."""
    cell = n // 18
    d = n % 18 // 2
    k = 0
    if y:
        for v in range(9):
            if v != d and grid[cell] >> v & 1:
                out[k] = cell * 18 + v * 2
                k += 1
    for r in range(3):
        for i in range(9):
            c = REGIONS[cell, r, i]
            if c != cell and grid[c] >> d & 1 and (r == 0 or BOX[c] != BOX[cell]):
                out[k] = c * 18 + d * 2
                k += 1
    return k


@njit(cache=True)
def on_links(grid: np.ndarray, n: int, y: bool, x: bool, out: np.ndarray) -> int:
    """The nodes made true by ``n`` (off) into ``out``, in SE's order, without repeats."""
    cell = n // 18
    d = n % 18 // 2
    k = 0
    m = grid[cell]
    if y and m and (m & (m - 1)) and not (m & (m - 1)) & ((m & (m - 1)) - 1):
        other = m & ~(1 << d)
        v = 0
        while not other >> v & 1:
            v += 1
        out[k] = cell * 18 + v * 2 + 1
        k += 1
    if x:
        for r in range(3):
            found = -1
            many = False
            for i in range(9):
                c = REGIONS[cell, r, i]
                if c != cell and grid[c] >> d & 1:
                    many = found >= 0
                    found = c
                    if many:
                        break
            if found < 0 or many:
                continue
            q = found * 18 + d * 2 + 1
            seen = False
            for j in range(k):
                seen = seen or out[j] == q
            if not seen:
                out[k] = q
                k += 1
    return k


@njit(cache=True)
def forcing(grid: np.ndarray, source: int, y: bool, limit: int, parent: np.ndarray,
            targets: np.ndarray, via: np.ndarray) -> int:
    """SE's doForcingChains from ``source``: each node's first parent in ``parent`` (-1 for
    none, the source its own), and the targets reached as the source's negation (``targets``,
    each reached from ``via``); the number of targets. A node at depth k ends chains of k + 2
    nodes or more, so it is not followed once that passes ``limit``."""
    parent[:] = -1
    depth = np.zeros(NODES, np.int64)
    parent[source] = source
    pending_on = np.empty(NODES, np.int64)
    pending_off = np.empty(NODES, np.int64)
    ons = offs = 0
    if source & 1:
        pending_on[0] = source
        ons = 1
    else:
        pending_off[0] = source
        offs = 1
    out = np.empty(32, np.int64)
    found = 0
    while ons or offs:
        new_offs = offs
        for i in range(ons):
            p = pending_on[i]
            if depth[p] + 2 > limit:
                return found
            for j in range(off_links(grid, p, y, out)):
                q = out[j]
                if q == source ^ 1 and not _has(targets, found, q):
                    targets[found] = q
                    via[found] = p
                    found += 1
                if parent[q] < 0:
                    parent[q] = p
                    depth[q] = depth[p] + 1
                    pending_off[new_offs] = q
                    new_offs += 1
        ons = 0
        for i in range(new_offs):
            p = pending_off[i]
            if depth[p] + 2 > limit:
                return found
            for j in range(on_links(grid, p, y, True, out)):
                q = out[j]
                if q == source ^ 1 and not _has(targets, found, q):
                    targets[found] = q
                    via[found] = p
                    found += 1
                if parent[q] < 0:
                    parent[q] = p
                    depth[q] = depth[p] + 1
                    pending_on[ons] = q
                    ons += 1
        offs = 0
    return found


@njit(cache=True)
def _has(items: np.ndarray, n: int, x: int) -> bool:
    """Whether ``x`` is among the first ``n`` of ``items``."""
    hit = False
    for i in range(n):
        hit = hit or items[i] == x
    return hit


@njit(cache=True)
def cycles(grid: np.ndarray, source: int, y: bool, x: bool, limit: int, node: np.ndarray,
           prev: np.ndarray, size: np.ndarray, found: np.ndarray) -> int:
    """SE's doCycles from ``source`` (on): the paths searched as entries (``node``, the
    ``prev`` entry, ``size`` nodes from the source), an off node entered once per parent not
    already on its path, an on node once; the entries that close a cycle of four links or
    more back to the source into ``found``; their number. Paths past ``limit`` nodes stop it."""
    on_entry = np.full(NODES, -1, np.int64)
    node[0] = source
    prev[0] = -1
    size[0] = 1
    on_entry[source] = 0
    entries = 1
    pending_on = np.empty(NODES, np.int64)
    pending_off = np.empty(ENTRIES, np.int64)
    pending_on[0] = source
    ons = 1
    out = np.empty(32, np.int64)
    length = 0
    n_found = 0
    while ons:
        length += 1
        offs = 0
        for i in range(ons):
            e = on_entry[pending_on[i]]
            if size[e] + 1 > limit:
                return n_found
            for j in range(off_links(grid, pending_on[i], y, out)):
                q = out[j]
                on_path = False
                walk = e
                while walk >= 0 and not on_path:
                    on_path = node[walk] == q
                    walk = prev[walk]
                if on_path or entries >= ENTRIES:
                    continue
                node[entries] = q
                prev[entries] = e
                size[entries] = size[e] + 1
                pending_off[offs] = entries
                offs += 1
                entries += 1
        length += 1
        ons = 0
        for i in range(offs):
            f = pending_off[i]
            if size[f] > limit:
                return n_found
            for j in range(on_links(grid, node[f], y, x, out)):
                q = out[j]
                if length >= 4 and q == source:
                    found[n_found] = f
                    n_found += 1
                if on_entry[q] < 0 and entries < ENTRIES:
                    node[entries] = q
                    prev[entries] = f
                    size[entries] = size[f] + 1
                    on_entry[q] = entries
                    entries += 1
                    pending_on[ons] = q
                    ons += 1
    return n_found
