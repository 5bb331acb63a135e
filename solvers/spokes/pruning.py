"""Strategy ``pruning``: the paper's Pruning Algorithm for Spokes (Lee 2024), on the search engine.

The paper deduces little and deletes much: its own rules are that a hub whose
clue equals its number of neighbours takes all its edges (the hub rule), that a
drawn diagonal deletes its crossing one, and that two 1-hubs are never joined
(``first_cut``); its deletion priorities #1-#4 (``priority``) choose the next
edge to delete. It runs as a phase of its own (``paper_phase``) until its
first contradiction (a wrong deletion: trial and error), its first stall (no
priority applies) or its first solution; then the search takes the rest of
the tree as it stands, with every rule, and also proves uniqueness.
``pa_complete`` says whether the paper's method got to the first solution alone.
"""

from __future__ import annotations

from collections.abc import Callable

from solvers.base import StopFlag
from solvers.spokes.search import (
    OFF,
    UNKNOWN,
    Edge,
    Graph,
    Node,
    Point,
    Search,
    State,
    connectivity_check,
    deduce,
    hub_rule,
)


def first_cut(run: Search, st: State, queue: list[Point]) -> None:
    """The paper's first cut: two 1-hubs joined would be a closed pair (unless they are all)."""
    g = run.g
    if len(g.hubs) <= 2:
        return
    for e, (a, b) in enumerate(g.ends):
        if g.clues[a] == 1 and g.clues[b] == 1:
            deduce(run, st, e, OFF, queue)


def settle_paper(run: Search, st: State, queue: list[Point]) -> None:
    """The paper's deductions only: the hub rule (and crossing diagonals, on every drawing);
    contradictions of connectivity are detected but nothing is deduced from it."""
    hub_rule(run, st, queue)
    connectivity_check(run, st)


def priority(g: Graph, st: State) -> Edge | None:
    """The edge the paper's priorities #1-#4 delete next, or None when none applies.

    Read from the paper (its wording is terse): a hub that needs k more spokes
    keeps the edges towards its neediest neighbours and loses the next one,
    as long as that neighbour can spare it (slack >= 1); #1 is k = 1 ranking
    neighbours by slack (keep the min, delete the 2nd min upwards), #4 is
    k = 2, 3, ... ranking by need (delete the (k+1)-th max); #2 is a hub one
    spoke short of full (a '7' in the middle) with two or more 1-neighbours,
    which drops its neighbour of least need >= 2; #3 deletes, of two open
    crossing diagonals, the one whose ends need less in sum. Among equals the
    hub with the most slack goes first, as the paper's conclusion says.
    """
    need, free = st.need, st.free

    def slack(p: Point) -> int:
        return free[p] - need[p]

    def open_at(p: Point) -> list[Edge]:
        return [e for e in g.incident[p] if st.edge[e] == UNKNOWN]

    def spare(e: Edge, p: Point) -> bool:
        return slack(g.other(e, p)) >= 1

    def ranked_cut(k: int, rank: Callable[[Point], int]) -> Edge | None:
        best: tuple[tuple[int, int], Edge] | None = None
        for p in g.hubs:
            if need[p] == k and free[p] > k:
                order = sorted(open_at(p), key=lambda e: rank(g.other(e, p)))
                cuts = [e for e in order[k:] if spare(e, p)]
                if cuts:
                    cut = max(cuts, key=lambda e: slack(g.other(e, p)))
                    key = (-slack(p), -slack(g.other(cut, p)))
                    if best is None or key < best[0]:
                        best = (key, cut)
        return None if best is None else best[1]

    cut = ranked_cut(1, slack)  # 1
    if cut is not None:
        return cut
    for p in g.hubs:  # 2
        if need[p] >= 2 and slack(p) == 1:
            edges = open_at(p)
            ones = [e for e in edges if need[g.other(e, p)] == 1]
            rest = [e for e in edges if need[g.other(e, p)] >= 2 and spare(e, p)]
            if len(ones) >= 2 and rest:
                return min(rest, key=lambda e: need[g.other(e, p)])
    widest: tuple[int, Edge] | None = None
    for e, x in enumerate(g.cross):  # 3
        if e < x and st.edge[e] == UNKNOWN and st.edge[x] == UNKNOWN:
            sums = [sum(need[q] for q in g.ends[d]) for d in (e, x)]
            if sums[0] != sums[1]:
                cut = (e, x)[sums[1] < sums[0]]
                gap = abs(sums[0] - sums[1])
                if widest is None or gap > widest[0]:
                    widest = (gap, cut)
    if widest is not None:
        return widest[1]
    for k in range(2, 9):  # 4
        cut = ranked_cut(k, lambda q: -need[q])
        if cut is not None:
            return cut
    return None


def paper_phase(run: Search, stack: list[Node]) -> bool:
    """Depth first by the paper's rules and priorities; stops at its first contradiction, stall
    or solution, leaving the rest of the tree on ``stack``. True when the search must go on."""
    while stack:
        node = stack.pop()
        if not run.enter(node, settle_paper):
            return True  # a wrong deletion
        st = node[0]
        if not st.open:
            run.stats.pa_complete = True
            return not run.found(st)
        cut = priority(run.g, st)
        if cut is None:  # a stall: the search branches here and takes the rest
            run.stats.stalls += 1
            decision = run.choose(st)
            assert decision is not None  # the state is open
            stack += run.expand(st, decision)
            return True
        run.stats.pa_deletions += 1
        stack += run.expand(st, (cut, OFF))
    return False


def solve(g: Graph, max_solutions: int, node_limit: int | None = None,
          stop: StopFlag | None = None) -> Search:
    run = Search(g, max_solutions, node_limit, stop)
    run.stats.pa_complete = False
    start = run.root(settle_paper, first_cut)
    if start is not None:
        stack: list[Node] = [(start, None, False)]
        if paper_phase(run, stack):
            run.search(stack)
    return run
