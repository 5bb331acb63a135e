"""Spokes search: the candidate graph, a search state, one function per deduction rule, and the
depth-first search over them (strategy ``search``; the paper's Pruning Algorithm in
pruning.py drives the same engine with its own rules).

Terms of this module (shared terms: docs/glossary.md)
  point    a grid point (r, c), numbered ``p = r * width + c``; row 0 is the top.
  hub      a point with a clue 1-8; clue 0 is an empty point, not a hub.
  edge     a candidate spoke between two hubs at Chebyshev distance 1, numbered
           in canonical order (by ``(p, q)`` with ``p < q``), so that the drawn
           edges in index order are the canonical wire answer.
  cross    the other diagonal of the same unit square (-1 for none): the only
           way two spokes can cross.
  state    per edge: UNKNOWN, ON (drawn) or OFF (deleted, "pruned").
  need     clue minus the ON spokes at a hub; ``free`` = its UNKNOWN edges;
           ``slack = free - need`` (how many of its open edges it can lose).
  group    hubs joined by ON edges; its demand is the sum of their needs.
  decision (edge, value): one branch of the search tree.
  node     (state, decision that leads to it, whether it is the second branch):
           a child is settled only when the depth-first search reaches it.

The rules (as in x-sheep's solver, one function each): a hub that needs nothing
more loses its open edges and one that needs all of them takes them
(``hub_rule``); a drawn diagonal deletes its crossing one (``crossing_rule``); a
closed group that is not everything, or a split of the open graph, is a
contradiction (``connectivity_check``); a bridge of the open graph is drawn
(``bridge_rule``); an edge that would close a group too early is deleted
(``closing_rule``); a value whose hub consequences contradict forces the other
(``probe_rule``, failed-literal probing).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from solvers.base import BudgetExceeded, Stats, StopFlag, check_stop

Point = int
Edge = int
Decision = tuple[Edge, int]

UNKNOWN, ON, OFF = 0, 1, 2
DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


# -- the candidate graph, derived once per puzzle


@dataclass(frozen=True)
class Graph:
    width: int
    clues: tuple[int, ...]
    hubs: tuple[Point, ...]
    ends: tuple[tuple[Point, Point], ...]  # per edge, p < q
    incident: tuple[tuple[Edge, ...], ...]  # per point
    cross: tuple[Edge, ...]  # per edge, -1 when the edge is not a crossed diagonal
    index: dict[tuple[Point, Point], Edge]

    def other(self, e: Edge, p: Point) -> Point:
        a, b = self.ends[e]
        return b if a == p else a


@functools.lru_cache(maxsize=64)
def graph(width: int, height: int, clues: tuple[int, ...]) -> Graph:
    w, h = width, height
    ends = []
    for p in range(w * h):
        r, c = divmod(p, w)
        if not clues[p]:
            continue
        for dr, dc in DIRECTIONS[4:]:  # the forward half: each pair once, in canonical order
            rr, cc = r + dr, c + dc
            if 0 <= rr < h and 0 <= cc < w and clues[rr * w + cc]:
                ends.append((p, rr * w + cc))
    index = {pair: e for e, pair in enumerate(ends)}
    incident: list[list[Edge]] = [[] for _ in range(w * h)]
    for e, (a, b) in enumerate(ends):
        incident[a].append(e)
        incident[b].append(e)
    cross = [-1] * len(ends)
    for (a, b), e in index.items():
        if b == a + w + 1 and a % w < w - 1:  # "\" diagonal of the square at a; "/" joins a+1 and a+w
            other = index.get((a + 1, a + w))
            if other is not None:
                cross[e], cross[other] = other, e
    hubs = tuple(p for p in range(w * h) if clues[p])
    return Graph(w, clues, hubs, tuple(ends), tuple(tuple(es) for es in incident), tuple(cross), index)


# -- statistics and state


@dataclass
class SpokesStats(Stats):
    guesses: int = 0
    backtracks: int = 0
    pruned: int = 0
    probed: int = 0
    nodes: int = 0
    pa_complete: bool | None = None
    pa_deletions: int = 0
    trial_and_error: int = 0
    stalls: int = 0
    sat_calls: int = 0
    cuts: int = 0
    strategy: str = ""  # the method that answered
    abandoned: list[dict[str, Any]] = field(default_factory=list)  # what auto tried first and gave up


COUNTERS = ("guesses", "backtracks", "pruned", "probed", "nodes", "pa_deletions", "trial_and_error", "stalls",
            "sat_calls", "cuts")


class Contradiction(Exception):
    pass


class State:
    """One node of the search: edge states and the per-point need/free counts."""

    __slots__ = ("changed", "edge", "free", "need", "open")

    def __init__(self, edge: list[int], need: list[int], free: list[int], open_: int, changed: list[Point]):
        self.edge, self.need, self.free, self.open = edge, need, free, open_
        self.changed = changed  # points touched since the last probe: where new probes may fail

    @classmethod
    def initial(cls, g: Graph) -> State:
        return cls([UNKNOWN] * len(g.ends), list(g.clues), [len(es) for es in g.incident], len(g.ends),
                   list(g.hubs))

    def copy(self) -> State:
        return State(self.edge[:], self.need[:], self.free[:], self.open, self.changed[:])

    def drawn(self) -> list[Edge]:
        return [e for e, v in enumerate(self.edge) if v == ON]


Node = tuple[State, Decision | None, bool]  # state, decision leading to it, second branch
Settle = Callable[["Search", State, list[Point]], None]


# -- the deduction rules


def assign(run: Search, st: State, e: Edge, value: int, queue: list[Point]) -> None:
    """Set an edge; its ends go on the queue for the hub rule. Contradiction if it was set otherwise."""
    old = st.edge[e]
    if old == value:
        return
    if old != UNKNOWN:
        raise Contradiction
    st.edge[e] = value
    st.open -= 1
    if run.trail is not None:
        run.trail.append(e)
    for p in run.g.ends[e]:
        st.free[p] -= 1
        if value == ON:
            st.need[p] -= 1
        queue.append(p)
        st.changed.append(p)
    if value == ON:
        crossing_rule(run, st, e, queue)


def deduce(run: Search, st: State, e: Edge, value: int, queue: list[Point]) -> None:
    """Assign as a deduction: a deletion counts as pruned."""
    if value == OFF and st.edge[e] == UNKNOWN:
        run.stats.pruned += 1
    assign(run, st, e, value, queue)


def crossing_rule(run: Search, st: State, e: Edge, queue: list[Point]) -> None:
    """A drawn diagonal deletes the other diagonal of its square."""
    if run.g.cross[e] >= 0:
        deduce(run, st, run.g.cross[e], OFF, queue)


def hub_rule(run: Search, st: State, queue: list[Point]) -> None:
    """Hubs on the queue: over-full or starved is a contradiction; full loses its open edges,
    saturated (needs all of them) takes them."""
    g, need, free = run.g, st.need, st.free
    while queue:
        p = queue.pop()
        if need[p] < 0 or need[p] > free[p]:
            raise Contradiction
        if free[p] and (need[p] == 0 or need[p] == free[p]):
            value = OFF if need[p] == 0 else ON
            for e in g.incident[p]:
                if st.edge[e] == UNKNOWN:
                    deduce(run, st, e, value, queue)


@dataclass
class Groups:
    """Groups of hubs joined by ON edges: group per point, demand and size per group."""

    of: list[int]
    demand: list[int]
    size: list[int]


def groups(g: Graph, st: State) -> Groups:
    found = Groups([-1] * len(st.need), [], [])
    for root in g.hubs:
        if found.of[root] >= 0:
            continue
        k = len(found.size)
        found.of[root] = k
        todo, total, count = [root], 0, 0
        while todo:
            p = todo.pop()
            total += st.need[p]
            count += 1
            for e in g.incident[p]:
                if st.edge[e] == ON:
                    q = g.other(e, p)
                    if found.of[q] < 0:
                        found.of[q] = k
                        todo.append(q)
        found.demand.append(total)
        found.size.append(count)
    return found


def bridges(g: Graph, st: State) -> list[Edge]:
    """UNKNOWN bridges of the ON+UNKNOWN graph (Tarjan, iterative); Contradiction if it is split."""
    edge = st.edge
    disc = [-1] * len(st.need)
    low = [0] * len(st.need)
    root = g.hubs[0]
    disc[root] = 0
    clock, found = 1, []
    stack = [(root, -1, iter(g.incident[root]))]
    while stack:
        p, via, edges = stack[-1]
        for e in edges:
            if e == via or edge[e] == OFF:
                continue
            q = g.other(e, p)
            if disc[q] < 0:
                disc[q] = low[q] = clock
                clock += 1
                stack.append((q, e, iter(g.incident[q])))
                break
            low[p] = min(low[p], disc[q])
        else:
            stack.pop()
            if stack:
                parent = stack[-1][0]
                low[parent] = min(low[parent], low[p])
                if low[p] > disc[parent] and edge[via] == UNKNOWN:
                    found.append(via)
    if clock < len(g.hubs):
        raise Contradiction
    return found


def connectivity_check(run: Search, st: State) -> tuple[Groups, list[Edge]]:
    """Rule 5 on a partial state, detection only: every hub must stay reachable over ON and
    UNKNOWN edges, and a group that needs nothing more is closed, so it must be everything.
    Returns the groups and the open graph's UNKNOWN bridges for the rules that deduce from them."""
    found = groups(run.g, st)
    everything = len(run.g.hubs)
    for demand, size in zip(found.demand, found.size, strict=True):
        if demand == 0 and size < everything:
            raise Contradiction
    return found, bridges(run.g, st)


def bridge_rule(run: Search, st: State, bridged: list[Edge], queue: list[Point]) -> None:
    """An UNKNOWN bridge of the open graph is drawn: without it the hubs fall apart."""
    for e in bridged:
        deduce(run, st, e, ON, queue)


def closing_rule(run: Search, st: State, found: Groups, queue: list[Point]) -> None:
    """An edge whose drawing would leave a group that needs nothing more, short of everything, goes."""
    everything = len(run.g.hubs)
    of, demand, size = found.of, found.demand, found.size
    for e, (a, b) in enumerate(run.g.ends):
        if st.edge[e] != UNKNOWN:
            continue
        ka, kb = of[a], of[b]
        joined = size[ka] + (size[kb] if ka != kb else 0)
        left = demand[ka] + (demand[kb] if ka != kb else 0) - 2
        if left == 0 and joined < everything:
            deduce(run, st, e, OFF, queue)


def probe_rule(run: Search, st: State, queue: list[Point]) -> bool:
    """Failed-literal probing: a value whose hub consequences contradict forces the other.

    Only edges at points touched since the last probe are tried (elsewhere
    nothing changed that could make a probe fail now), and only the hub rule
    runs inside a probe; the caller settles again (with the connectivity
    rules) whenever a probe forced something.
    """
    g, forced = run.g, False
    near = {e for p in st.changed for e in g.incident[p]}
    st.changed.clear()
    for e in sorted(near):
        if st.edge[e] != UNKNOWN:
            continue
        for value in (ON, OFF):
            if fails(run, st, e, value):
                run.stats.probed += 1
                deduce(run, st, e, ON + OFF - value, queue)
                hub_rule(run, st, queue)
                forced = True
                break
    return forced


def fails(run: Search, st: State, e: Edge, value: int) -> bool:
    """Whether setting e to value contradicts the hub rule; the state is left as it was."""
    pruned, mark, run.trail = run.stats.pruned, len(st.changed), []
    queue: list[Point] = []
    try:
        assign(run, st, e, value, queue)
        hub_rule(run, st, queue)
        failed = False
    except Contradiction:
        failed = True
    for t in reversed(run.trail):
        on = st.edge[t] == ON
        st.edge[t] = UNKNOWN
        st.open += 1
        for p in run.g.ends[t]:
            st.free[p] += 1
            st.need[p] += on
    del st.changed[mark:]
    run.stats.pruned, run.trail = pruned, None  # a probe's deletions were hypothetical
    return failed


def settle_fully(run: Search, st: State, queue: list[Point]) -> None:
    """Every rule to a fixpoint; Contradiction when the state has no solution."""
    while True:
        hub_rule(run, st, queue)
        found, bridged = connectivity_check(run, st)
        bridge_rule(run, st, bridged, queue)
        closing_rule(run, st, found, queue)
        if not queue and not probe_rule(run, st, queue):
            return


def most_constrained(g: Graph, st: State) -> Edge:
    """The open edge whose tighter end has the least slack (then the other end's)."""
    need, free, edge = st.need, st.free, st.edge
    best: tuple[int, int] | None = None
    chosen = -1
    for e, (a, b) in enumerate(g.ends):
        if edge[e] == UNKNOWN:
            sa, sb = free[a] - need[a], free[b] - need[b]
            key = (sa, sb) if sa < sb else (sb, sa)
            if best is None or key < best:
                best, chosen = key, e
    return chosen


# -- the search


class Search:
    """One solve: the graph, counters, limits and the solutions met.

    Public steps, shared by the whole search, the Pruning Algorithm and ``split``:
    ``root`` settles the puzzle, ``enter`` counts a node and settles its decision,
    ``choose`` picks the next decision, ``expand`` makes a node's two children.
    """

    def __init__(self, g: Graph, max_solutions: int, node_limit: int | None = None,
                 stop: StopFlag | None = None):
        self.g = g
        self.max_solutions = max_solutions
        self.node_limit = node_limit
        self.stop = stop
        self.stats = SpokesStats()
        self.solutions: list[list[Edge]] = []
        self.trail: list[Edge] | None = None  # edges set during a probe, to take back

    def count_node(self) -> None:
        self.stats.nodes += 1
        if self.node_limit is not None and self.stats.nodes > self.node_limit:
            raise BudgetExceeded(self.stats.nodes)
        check_stop(self.stop)  # a node costs far more than the check: the check is lost in it

    def root(self, settle: Settle = settle_fully, first: Settle | None = None) -> State | None:
        """The settled puzzle, or None when it has no solution; ``first`` deduces before settling."""
        st = State.initial(self.g)
        queue = list(self.g.hubs)
        try:
            if first is not None:
                first(self, st, queue)
            settle(self, st, queue)
        except Contradiction:
            return None
        return st

    def step(self, st: State, decision: Decision, settle: Settle = settle_fully) -> bool:
        """Apply one decision and settle; False on a contradiction."""
        queue: list[Point] = []
        try:
            assign(self, st, *decision, queue)
            settle(self, st, queue)
        except Contradiction:
            self.stats.backtracks += 1
            return False
        return True

    def enter(self, node: Node, settle: Settle = settle_fully) -> bool:
        """Count a node and settle its decision; False when it contradicts."""
        st, decision, second = node
        self.count_node()
        if decision is None:
            return True
        if second and not self.solutions:
            self.stats.trial_and_error += 1
        return self.step(st, decision, settle)

    def choose(self, st: State) -> Decision | None:
        """The next decision (edge, value tried first), or None when nothing is open."""
        if not st.open:
            return None
        return most_constrained(self.g, st), ON

    def expand(self, st: State, decision: Decision) -> list[Node]:
        """The two children of an open state in stack order (the decision's child last, so
        it is tried first); ``st`` itself becomes that child."""
        self.stats.guesses += 1
        e, value = decision
        return [(st.copy(), (e, ON + OFF - value), True), (st, decision, False)]

    def found(self, st: State) -> bool:
        """Record a solution; True when that is all that was asked for."""
        self.solutions.append(st.drawn())
        return len(self.solutions) >= self.max_solutions

    def search(self, stack: list[Node]) -> None:
        """Depth first from the given nodes until max_solutions are found or the tree is done."""
        while stack:
            node = stack.pop()
            if not self.enter(node):
                continue
            st = node[0]
            decision = self.choose(st)
            if decision is None:
                if self.found(st):
                    return
                continue
            stack += self.expand(st, decision)

    def run(self) -> Search:
        """The whole search from the puzzle."""
        start = self.root()
        if start is not None:
            self.search([(start, None, False)])
        return self
