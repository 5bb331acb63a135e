"""Numba kernels of the static chains (chains.py): SE's doForcingChains and doCycles from one
source on an unchanging grid, breadth first, the links read as chains.py describes them.

  grid     int64[81]: the candidate masks.
  nodes    chains.py's numbering: cell * 18 + digit * 2 + on.
  links    int64[NODES, LINKS] and its ``count``: each candidate's links on a grid (``link_table``,
           read once for the many searches of a position).
  comp, reach  each node's strongly connected component and what the component reaches
           (``closure``): a search runs only where it can end in a chain or a cycle; ``ids``
           numbers the candidates' nodes 0, 1, ... for the bits of ``reach``.

Both searches stop at ``limit`` nodes per chain (chains.py's length limit). ``static_chains``
runs them from every candidate as chains.static_chains orders them and keeps the best chain,
with ratings in tenths of SE's scale. Everything here is the numba subset that also runs as
plain Python under NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.sudoku.forcingk import NODES, has, length_extra, off_links, only_other, other_digit
from solvers.sudoku.gradek import PEERS

__all__ = ["LINKS", "NODES", "cycles", "forcing", "length_extra", "link_table", "off_links", "on_links",
           "static_chains"]

LINKS = 32  # a node's links at most: 8 other digits and 20 peers, or 4
ENTRIES = 32768  # a cycle search's paths: each on node (729 at most) once, each off node once per parent
# (each on node's 28 links at most): 21,142 at most


@njit(cache=True)
def on_links(grid: np.ndarray, n: int, y: bool, x: bool, out: np.ndarray) -> int:
    """The nodes made true by ``n`` (off) into ``out``, in SE's order, without repeats."""
    cell = n // 18
    d = n % 18 // 2
    k = 0
    m = grid[cell]
    if y and m and (m & (m - 1)) and not (m & (m - 1)) & ((m & (m - 1)) - 1):
        out[k] = cell * 18 + other_digit(m, d) * 2 + 1
        k += 1
    if x:
        for r in range(3):
            found = only_other(grid, cell, r, d)
            if found < 0:
                continue
            q = found * 18 + d * 2 + 1
            if not has(out, k, q):
                out[k] = q
                k += 1
    return k


@njit(cache=True)
def link_table(grid: np.ndarray, y: bool, x: bool, links: np.ndarray, count: np.ndarray) -> None:
    """Each candidate's links (``off_links`` of its on node, ``on_links`` of its off node, Y-
    links when ``y``, X-links of off nodes when ``x``) in links[n, :count[n]], read once for
    a position's many searches."""
    for cell in range(81):
        for d in range(9):
            if grid[cell] >> d & 1:
                n = cell * 18 + d * 2
                count[n + 1] = off_links(grid, n + 1, y, links[n + 1])
                count[n] = on_links(grid, n, y, x, links[n])


@njit(cache=True)
def forcing(links: np.ndarray, count: np.ndarray, source: int, limit: int, parent: np.ndarray,
            targets: np.ndarray, via: np.ndarray) -> int:
    """SE's doForcingChains from ``source``: each node's first parent in ``parent`` (-1 for
    none, the source its own), and the source's negation where reached (targets[0], reached
    from via[0]); the number of targets, 0 or 1: the search ends at the negation, the one
    target, as nothing it would go on to reach can change the parents already set. A node at
    depth k ends chains of k + 2 nodes or more, so it is not followed once that passes ``limit``."""
    parent[:] = -1
    targets[0] = -1
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
    while ons or offs:
        offs, stop = _layer(links, count, source, limit, parent, depth, pending_on, ons, pending_off, offs,
                            targets, via)
        if stop:
            return int(targets[0] >= 0)
        ons, stop = _layer(links, count, source, limit, parent, depth, pending_off, offs, pending_on, 0,
                           targets, via)
        if stop:
            return int(targets[0] >= 0)
        offs = 0
    return 0


@njit(cache=True)
def _layer(links: np.ndarray, count: np.ndarray, source: int, limit: int, parent: np.ndarray,
           depth: np.ndarray, pending: np.ndarray, n: int, reached: np.ndarray, size: int,
           targets: np.ndarray, via: np.ndarray) -> tuple[int, bool]:
    """``forcing``'s step from the nodes pending[:n]: each node reached for the first time gets
    its parent and depth and is appended to reached[size:]; the source's negation, once
    reached, is the target (targets[0], -1 until then). Returns the number of reached nodes,
    and whether the search ends: at the target, or at a node too deep to follow."""
    for i in range(n):
        p = pending[i]
        if depth[p] + 2 > limit:
            return size, True
        for j in range(count[p]):
            q = links[p, j]
            if q == source ^ 1:
                targets[0] = q
                via[0] = p
                return size, True
            if parent[q] < 0:
                parent[q] = p
                depth[q] = depth[p] + 1
                reached[size] = q
                size += 1
    return size, False


@njit(cache=True)
def cycles(grid: np.ndarray, links: np.ndarray, count: np.ndarray, comp: np.ndarray, source: int, limit: int,
           node: np.ndarray, prev: np.ndarray, size: np.ndarray, path: np.ndarray) -> int:
    """SE's doCycles from ``source`` (on): the paths searched as entries (``node``, the
    ``prev`` entry, ``size`` nodes from the source), an off node entered once per parent not
    already on its path, an on node once; the first path that closes a cycle of four links or
    more back to the source and removes something (``_cycle_elims``) into ``path``; its number
    of nodes, 0 for none. Paths past ``limit`` nodes stop it; so does that first cycle, as
    the cycles after it are as long or longer. Only the nodes of the source's component
    (``closure``'s ``comp``) are entered: no path through another returns to the source, and
    the search's bound (ENTRIES) is above the most entries any grid makes, each on node
    entered once with at most 28 links."""
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
    length = 0
    home = comp[source]
    while ons:
        length += 1
        offs = 0
        for i in range(ons):
            e = on_entry[pending_on[i]]
            if size[e] + 1 > limit:
                return 0
            for j in range(count[pending_on[i]]):
                q = links[pending_on[i], j]
                if comp[q] != home:
                    continue
                on_path = False
                walk = e
                while walk >= 0 and not on_path:
                    on_path = node[walk] == q
                    walk = prev[walk]
                if on_path:
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
                return 0
            for j in range(count[node[f]]):
                q = links[node[f], j]
                if length >= 4 and q == source:
                    e = f
                    for k in range(size[f] - 1, -1, -1):
                        path[k] = node[e]
                        e = prev[e]
                    if _cycle_elims(grid, path, size[f]):
                        return int(size[f])
                if on_entry[q] < 0 and comp[q] == home:
                    node[entries] = q
                    prev[entries] = f
                    size[entries] = size[f] + 1
                    on_entry[q] = entries
                    entries += 1
                    pending_on[ons] = q
                    ons += 1
    return 0


WORDS = (NODES + 63) // 64  # a set of nodes as bits


@njit(cache=True)
def closure(grid: np.ndarray, links: np.ndarray, count: np.ndarray, comp: np.ndarray, reach: np.ndarray,
            members: np.ndarray, ids: np.ndarray) -> None:
    """What each node of ``grid``'s candidates reaches along ``links`` (Tarjan's strongly
    connected components, iterative): each node's component in ``comp``, each component's
    nodes and every node they reach as bits in ``reach`` (uint64[WORDS] rows; a node's bit is
    its number in ``ids``, the candidates' nodes numbered in order, so only the words those
    numbers fill are read), its size in ``members``. A search finds a chain from a node to its
    negation, or a cycle through it, only where this says one can be: most candidates have
    neither."""
    n_ids = 0
    for v in range(NODES):
        if grid[v // 18] >> (v % 18 // 2) & 1:
            ids[v] = n_ids
            n_ids += 1
    words = (n_ids + 63) >> 6
    index = np.full(NODES, -1, np.int64)
    low = np.empty(NODES, np.int64)
    on_stack = np.zeros(NODES, np.bool_)
    stack = np.empty(NODES, np.int64)
    calls = np.empty(NODES, np.int64)  # the depth-first path; ``edge``: each one's next link
    edge = np.empty(NODES, np.int64)
    joined = np.empty(NODES, np.int64)  # per component, the last component that took its reach
    top = depth = counter = n_comp = 0
    for root in range(NODES):
        if not grid[root // 18] >> (root % 18 // 2) & 1 or index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        on_stack[root] = True
        calls[0], edge[0] = root, 0
        depth = 1
        while depth:
            v = calls[depth - 1]
            if edge[depth - 1] < count[v]:
                w = links[v, edge[depth - 1]]
                edge[depth - 1] += 1
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack[top] = w
                    top += 1
                    on_stack[w] = True
                    calls[depth], edge[depth] = w, 0
                    depth += 1
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            depth -= 1
            if depth:
                low[calls[depth - 1]] = min(low[calls[depth - 1]], low[v])
            if low[v] != index[v]:
                continue
            # v roots a component: its nodes are on the stack down to v, and every component
            # they link to outside it is complete (Tarjan's order)
            first = top
            while True:
                first -= 1
                comp[stack[first]] = n_comp
                on_stack[stack[first]] = False
                if stack[first] == v:
                    break
            reach[n_comp, :words] = 0
            joined[n_comp] = n_comp
            for i in range(first, top):
                u = stack[i]
                reach[n_comp, ids[u] >> 6] |= np.uint64(1) << np.uint64(ids[u] & 63)
                for j in range(count[u]):
                    c = comp[links[u, j]]
                    if joined[c] != n_comp:  # each component it links to once
                        joined[c] = n_comp
                        for w in range(words):
                            reach[n_comp, w] |= reach[c, w]
            members[n_comp] = top - first
            top = first
            n_comp += 1


@njit(cache=True)
def reaches(a: int, b: int, comp: np.ndarray, reach: np.ndarray, ids: np.ndarray) -> bool:
    """Whether node ``a`` reaches node ``b``, both candidates' nodes (``closure``'s tables)."""
    return bool(reach[comp[a], ids[b] >> 6] >> np.uint64(ids[b] & 63) & np.uint64(1))


@njit(cache=True)
def _limit(best: np.ndarray, base: int) -> int:
    """chains._limit: the most nodes a chain of ``base`` (tenths) may have to sort before the
    best (``best``: rating, complexity; rating 0 for none)."""
    if best[0] == 0:
        return 1 << 30
    most = 0
    while True:
        rating = base + length_extra(most + 1)
        if not (rating < best[0] or (rating == best[0] and most + 1 < best[1])):
            return most
        most += 1


@njit(cache=True)
def _distinct(path: np.ndarray, n: int, seen: np.ndarray) -> int:
    """The number of distinct nodes among the first ``n`` of ``path`` (``seen`` all False,
    left so)."""
    count = 0
    for i in range(n):
        count += not seen[path[i]]
        seen[path[i]] = True
    for i in range(n):
        seen[path[i]] = False
    return count


@njit(cache=True)
def _cycle_elims(grid: np.ndarray, path: np.ndarray, n: int) -> int:
    """How many eliminations chains._cycle_elims finds for the cycle of ``path[:n]``."""
    inside = np.zeros(81, np.bool_)
    for i in range(n):
        inside[path[i] // 18] = True
    seen = np.zeros((2, 729), np.bool_)
    for i in range(n):
        cell = path[i] // 18
        d = path[i] % 18 // 2
        for k in range(PEERS.shape[1]):
            c = PEERS[cell, k]
            if not inside[c] and grid[c] >> d & 1:
                seen[path[i] & 1, c * 9 + d] = True
    count = 0
    for i in range(729):
        count += seen[0, i] and seen[1, i]
    return count


@njit(cache=True)
def _offer(rating: int, complexity: int, sort_key: int, kind: int, path: np.ndarray, n: int,
           best: np.ndarray, best_path: np.ndarray) -> None:
    """Keep the chain of ``path[:n]`` (of ``kind``, static_chains') in ``best`` and
    ``best_path`` when it sorts before the best so far (chains._better)."""
    if best[0] != 0 and (best[0], best[1], best[2]) <= (rating, complexity, sort_key):
        return
    best[0], best[1], best[2], best[3], best[4] = rating, complexity, sort_key, n, kind
    best_path[:n] = path[:n]


@njit(cache=True)
def static_chains(grid: np.ndarray, best: np.ndarray, best_path: np.ndarray) -> None:
    """chains.static_chains' search: the best chain's rating (tenths; 0 for none), complexity,
    sort key, number of nodes and kind (2 * family (0 X, 1 Y, 2 XY) + 1 for a cycle, + 0 for
    a forcing chain) in best[:5], its nodes from the source in ``best_path``. A forcing
    chain always removes something: its target is its source's negation, in a cell of two
    digits or more."""
    parent = np.empty(NODES, np.int64)
    targets = np.empty(4, np.int64)
    via = np.empty(4, np.int64)
    node = np.empty(ENTRIES, np.int64)
    prev = np.empty(ENTRIES, np.int64)
    size = np.empty(ENTRIES, np.int64)
    path = np.empty(NODES + 1, np.int64)
    seen = np.zeros(NODES, np.bool_)
    links = np.empty((NODES, LINKS), np.int64)
    count = np.empty(NODES, np.int64)
    comp = np.empty(NODES, np.int64)
    reach = np.empty((NODES, WORDS), np.uint64)
    members = np.empty(NODES, np.int64)
    ids = np.empty(NODES, np.int64)
    best[:] = 0
    for family in range(3):
        y, x = family >= 1, family != 1
        sort_key = 4 if family == 2 else 3 if y else 2
        cycle_base, chain_base = (70, 70) if family == 2 else (65, 66)
        if _limit(best, cycle_base) == 0 and _limit(best, chain_base) == 0:
            continue  # no chain of the family could sort before the best
        link_table(grid, y, x, links, count)
        closure(grid, links, count, comp, reach, members, ids)
        for cell in range(81):
            m = grid[cell]
            many = m & (m - 1)
            if not many or (not x and many & (many - 1)):
                continue
            for d in range(9):
                if not m >> d & 1:
                    continue
                source = cell * 18 + d * 2 + 1
                if members[comp[source]] > 1:  # else no cycle runs through the source
                    limit = _limit(best, cycle_base)
                    n = cycles(grid, links, count, comp, source, limit, node, prev, size, path)
                    if n:
                        complexity = _distinct(path, n, seen)
                        _offer(cycle_base + length_extra(complexity), complexity, sort_key, 2 * family + 1,
                               path, n, best, best_path)
                if not x:
                    continue
                for start in (source, source ^ 1):
                    if not reaches(start, start ^ 1, comp, reach, ids):
                        continue
                    limit = _limit(best, chain_base)
                    for i in range(forcing(links, count, start, limit, parent, targets, via)):
                        n = 1
                        walk = via[i]
                        while parent[walk] != walk:
                            walk = parent[walk]
                            n += 1
                        walk = via[i]
                        for k in range(n - 1, -1, -1):
                            path[k] = walk
                            walk = parent[walk]
                        path[n] = targets[i]
                        complexity = _distinct(path, n + 1, seen)
                        _offer(chain_base + length_extra(complexity), complexity, sort_key, 2 * family,
                               path, n + 1, best, best_path)
