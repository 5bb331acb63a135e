"""Spokes (x-sheep's puzzle): join the hubs of a grid with non-crossing spokes.

Glossary
  point    a grid point (r, c), numbered ``p = r * width + c``; row 0 is the top.
  hub      a point with a clue 1-8; clue 0 (``.``) is an empty point, not a hub.
  clue     how many spokes leave a hub.
  edge     a candidate spoke between two hubs at Chebyshev distance 1, numbered
           in canonical order (by ``(p, q)`` with ``p < q``), so that the drawn
           edges in index order are the canonical wire answer.
  cross    the other diagonal of the same unit square (-1 for none): the only
           way two spokes can cross.
  state    per edge: UNKNOWN, ON (drawn) or OFF (deleted, "pruned").
  need     clue minus the ON spokes at a hub; ``free`` = its UNKNOWN edges;
           ``slack = free - need`` (how many of its open edges it can lose).
  wire     the API shape: ``{"spokes": [[r1, c1, r2, c2], ...]}``, 0-based.

Two strategies share one depth-first engine (copy a state per branch, settle
it by deductions, branch on one open edge):
  search   every sound deduction (full/saturated hubs, crossing diagonals, a
           closed component that is not everything, bridges of the open
           graph are forced) and the most constrained hub's edge as branch.
  pruning  the paper's Pruning Algorithm (Lee 2024): only its own deductions
           (r = c hubs take all their edges, crossing diagonals go, two
           1-hubs are never joined) and its deletion priorities #1-#4 as the
           branch. Its first contradiction (a wrong deletion: trial and
           error) or stall (no priority applies) hands the rest of the tree
           to the search, which also proves uniqueness after the first
           solution; ``pa_complete`` says whether PA got there alone.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    BadExample,
    BudgetExceeded,
    Example,
    InvalidOption,
    InvalidPuzzle,
    Kind,
    Option,
    Options,
    Outcome,
    ParseError,
    Part,
    Split,
    Stats,
    StopFlag,
    Stopwatch,
    WrongAnswer,
    check_stop,
    split_past_budget,
)

Point = int
Edge = int
Wire = list[list[int]]  # [[r1, c1, r2, c2], ...]

UNKNOWN, ON, OFF = 0, 1, 2
MAX_SIDE = 40
DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


@dataclass(frozen=True)
class Spokes:
    """A validated puzzle: clues per point, row-major, 0 = empty point."""

    width: int
    height: int
    clues: tuple[int, ...]

    def rc(self, p: Point) -> tuple[int, int]:
        return divmod(p, self.width)

    def text(self) -> str:
        rows = [self.clues[r * self.width:(r + 1) * self.width] for r in range(self.height)]
        return "\n".join(" ".join(str(c) if c else "." for c in row) for row in rows)


# -- reading the wire form

ID_FORM = re.compile(r"(\d+)x(\d+):(\S*)")
HEADER = re.compile(r"spokes\s+(\d+)x(\d+)", re.IGNORECASE)


def _clue(token: str, where: str) -> int:
    if token == ".":
        return 0
    if len(token) == 1 and token in "012345678":
        return int(token)
    if token in ("#", "X", "?"):
        raise ParseError(f"{where}: {token!r} (holes and unknown clues) is not supported; use 0-8 or '.'")
    raise ParseError(f"{where}: {token!r} is not a hub number 0-8 or '.'")


def _parse_id(match: re.Match[str]) -> Spokes:
    width, height, desc = int(match[1]), int(match[2]), match[3]
    if len(desc) != width * height:
        raise ParseError(f"game id {width}x{height} needs {width * height} digits after ':', got {len(desc)}")
    clues = tuple(_clue(ch, f"game id character {i + 1}") for i, ch in enumerate(desc))
    return Spokes(width, height, clues)


def parse(wire: object) -> Spokes:
    """Rows of clues separated by spaces (``.`` = no hub), or x-sheep's id ``WxH:DIGITS``.

    Lines starting with ``#`` are comments; an optional first line ``spokes WxH``
    states the size, which must then match the rows.
    """
    if not isinstance(wire, str):
        raise ParseError(f"a spokes puzzle is a string of rows, not {type(wire).__name__}")
    lines = [ln.strip() for ln in wire.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if not lines:
        raise ParseError("the puzzle is empty: give rows of hub numbers 0-8 separated by spaces")
    if len(lines) == 1 and (match := ID_FORM.fullmatch(lines[0])):
        return _parse_id(match)
    size = None
    if match := HEADER.fullmatch(lines[0]):
        size = int(match[1]), int(match[2])
        lines = lines[1:]
    rows = [[_clue(tok, f"row {r + 1}, column {c + 1}") for c, tok in enumerate(line.split())]
            for r, line in enumerate(lines)]
    if not rows:
        raise ParseError("the puzzle has a header but no rows")
    width = len(rows[0])
    for r, row in enumerate(rows):
        if len(row) != width:
            raise ParseError(f"row {r + 1} has {len(row)} points but row 1 has {width}; "
                             "every row needs the same")
    if size is not None and size != (width, len(rows)):
        raise ParseError(f"the header says {size[0]}x{size[1]} but the rows make {width}x{len(rows)}")
    return Spokes(width, len(rows), tuple(c for row in rows for c in row))


# -- the candidate graph, derived once per puzzle


@dataclass(frozen=True)
class Graph:
    puzzle: Spokes
    hubs: tuple[Point, ...]
    ends: tuple[tuple[Point, Point], ...]  # per edge, p < q
    incident: tuple[tuple[Edge, ...], ...]  # per point
    cross: tuple[Edge, ...]  # per edge, -1 when the edge is not a crossed diagonal
    index: dict[tuple[Point, Point], Edge]

    def other(self, e: Edge, p: Point) -> Point:
        a, b = self.ends[e]
        return b if a == p else a


@functools.lru_cache(maxsize=64)
def graph(puzzle: Spokes) -> Graph:
    w, h, clue = puzzle.width, puzzle.height, puzzle.clues
    ends = []
    for p in range(w * h):
        r, c = divmod(p, w)
        if not clue[p]:
            continue
        for dr, dc in DIRECTIONS[4:]:  # the forward half: each pair once, in canonical order
            rr, cc = r + dr, c + dc
            if 0 <= rr < h and 0 <= cc < w and clue[rr * w + cc]:
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
    hubs = tuple(p for p in range(w * h) if clue[p])
    return Graph(puzzle, hubs, tuple(ends), tuple(map(tuple, incident)), tuple(cross), index)


def validate(puzzle: Spokes, options: Options) -> None:
    if not (1 <= puzzle.width <= MAX_SIDE and 1 <= puzzle.height <= MAX_SIDE):
        raise InvalidPuzzle(f"a spokes grid is at most {MAX_SIDE}x{MAX_SIDE}; "
                            f"got {puzzle.width}x{puzzle.height}")
    g = graph(puzzle)
    if not g.hubs:
        raise InvalidPuzzle("the puzzle has no hubs (every point is 0 or '.')")
    for p in g.hubs:
        capacity = len(g.incident[p])
        if puzzle.clues[p] > capacity:
            r, c = puzzle.rc(p)
            raise InvalidPuzzle(f"row {r + 1}, column {c + 1}: clue {puzzle.clues[p]} but that hub has only "
                                f"{capacity} neighbouring hub(s) to join")
    total = sum(puzzle.clues)
    if total % 2:
        raise InvalidPuzzle(f"the clues sum to {total}, an odd number; every spoke counts at both its hubs")


# -- search state and statistics


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


COUNTERS = ("guesses", "backtracks", "pruned", "probed", "nodes", "pa_deletions", "trial_and_error", "stalls")


class Contradiction(Exception):
    pass


class State:
    """One node of the search: edge states and the per-point need/free counts."""

    __slots__ = ("edge", "need", "free", "open", "changed")

    def __init__(self, edge: list[int], need: list[int], free: list[int], open_: int, changed: list[Point]):
        self.edge, self.need, self.free, self.open = edge, need, free, open_
        self.changed = changed  # points touched since the last probe: where new probes may fail

    @classmethod
    def initial(cls, g: Graph) -> State:
        return cls([UNKNOWN] * len(g.ends), list(g.puzzle.clues), [len(es) for es in g.incident], len(g.ends),
                   list(g.hubs))

    def copy(self) -> State:
        return State(self.edge[:], self.need[:], self.free[:], self.open, self.changed[:])


class Run:
    """One solve: the graph, the strategy's mode, counters and the solutions met."""

    def __init__(self, g: Graph, pruning: bool, max_solutions: int, node_limit: int | None,
                 stop: StopFlag | None = None):
        self.g = g
        self.pa = pruning  # cleared at its first contradiction, stall or solution: the search goes on
        self.max_solutions = max_solutions
        self.node_limit = node_limit
        self.stop = stop
        self.stats = SpokesStats(pa_complete=False if pruning else None)
        self.solutions: list[list[Edge]] = []
        self.trail: list[Edge] | None = None  # edges set during a probe, to take back

    def set(self, st: State, e: Edge, value: int, queue: list[Point]) -> None:
        old = st.edge[e]
        if old == value:
            return
        if old != UNKNOWN:
            raise Contradiction
        st.edge[e] = value
        st.open -= 1
        if self.trail is not None:
            self.trail.append(e)
        for p in self.g.ends[e]:
            st.free[p] -= 1
            if value == ON:
                st.need[p] -= 1
            queue.append(p)
            st.changed.append(p)
        if value == ON and self.g.cross[e] >= 0:
            self.deduce(st, self.g.cross[e], OFF, queue)

    def deduce(self, st: State, e: Edge, value: int, queue: list[Point]) -> None:
        if value == OFF and st.edge[e] == UNKNOWN:
            self.stats.pruned += 1
        self.set(st, e, value, queue)

    def settle(self, st: State, queue: list[Point]) -> None:
        """Deduce to a fixpoint; raise Contradiction when the state has no solution."""
        while True:
            self.settle_hubs(st, queue)
            self.check_connected(st, queue)
            if not queue and (self.pa or not self.probe(st, queue)):
                return

    def settle_hubs(self, st: State, queue: list[Point]) -> None:
        g, need, free = self.g, st.need, st.free
        while queue:
            p = queue.pop()
            if need[p] < 0 or need[p] > free[p]:
                raise Contradiction
            if free[p] and (need[p] == 0 or need[p] == free[p]):
                value = OFF if need[p] == 0 else ON
                for e in g.incident[p]:
                    if st.edge[e] == UNKNOWN:
                        self.deduce(st, e, value, queue)

    def check_connected(self, st: State, queue: list[Point]) -> None:
        """Rule 5 on a partial state: detection always, deductions in search mode.

        Every hub must be reachable over ON and UNKNOWN edges; a group of hubs
        joined by ON edges that needs nothing more is closed, so it must be
        everything; an edge that would close a group too early is OFF; an
        UNKNOWN bridge of the open graph is ON.
        """
        g = self.g
        comp, demand, size = self.components(st)
        everything = len(g.hubs)
        for k in range(len(size)):
            if demand[k] == 0 and size[k] < everything:
                raise Contradiction
        bridges = self.bridges(st)
        if self.pa:
            return
        for e in bridges:
            self.deduce(st, e, ON, queue)
        for e, (a, b) in enumerate(g.ends):
            if st.edge[e] != UNKNOWN:
                continue
            ka, kb = comp[a], comp[b]
            joined = size[ka] + (size[kb] if ka != kb else 0)
            left = demand[ka] + (demand[kb] if ka != kb else 0) - 2
            if left == 0 and joined < everything:
                self.deduce(st, e, OFF, queue)

    def probe(self, st: State, queue: list[Point]) -> bool:
        """Failed-literal probing: a value whose local consequences contradict forces the other.

        Only edges at points touched since the last probe are tried (elsewhere
        nothing changed that could make a probe fail now), and only the cheap
        hub rules run inside a probe; the caller settles again (with rule 5)
        whenever a probe forced something.
        """
        g, forced = self.g, False
        near = {e for p in st.changed for e in g.incident[p]}
        st.changed.clear()
        for e in sorted(near):
            if st.edge[e] != UNKNOWN:
                continue
            for value in (ON, OFF):
                if self.fails(st, e, value):
                    self.stats.probed += 1
                    self.deduce(st, e, ON + OFF - value, queue)
                    self.settle_hubs(st, queue)
                    forced = True
                    break
        return forced

    def fails(self, st: State, e: Edge, value: int) -> bool:
        """Whether setting e to value contradicts the hub rules; the state is left as it was."""
        pruned, mark, self.trail = self.stats.pruned, len(st.changed), []
        try:
            self.set(st, e, value, queue := [])
            self.settle_hubs(st, queue)
            failed = False
        except Contradiction:
            failed = True
        for t in reversed(self.trail):
            on = st.edge[t] == ON
            st.edge[t] = UNKNOWN
            st.open += 1
            for p in self.g.ends[t]:
                st.free[p] += 1
                st.need[p] += on
        del st.changed[mark:]
        self.stats.pruned, self.trail = pruned, None  # a probe's deletions were hypothetical
        return failed

    def components(self, st: State) -> tuple[list[int], list[int], list[int]]:
        """Groups of hubs joined by ON edges: group per point, need and size per group."""
        g = self.g
        comp = [-1] * len(st.need)
        demand: list[int] = []
        size: list[int] = []
        for root in g.hubs:
            if comp[root] >= 0:
                continue
            k = len(size)
            comp[root] = k
            todo, total, count = [root], 0, 0
            while todo:
                p = todo.pop()
                total += st.need[p]
                count += 1
                for e in g.incident[p]:
                    if st.edge[e] == ON:
                        q = g.other(e, p)
                        if comp[q] < 0:
                            comp[q] = k
                            todo.append(q)
            demand.append(total)
            size.append(count)
        return comp, demand, size

    def bridges(self, st: State) -> list[Edge]:
        """UNKNOWN bridges of the ON+UNKNOWN graph (Tarjan, iterative); Contradiction if it is split."""
        g, edge = self.g, st.edge
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

    # -- branching

    def choose(self, st: State) -> tuple[Edge, int] | None:
        """The next decision (edge, value tried first), or None when nothing is open."""
        if not st.open:
            return None
        if self.pa:
            edge = pa_priority(self.g, st)
            if edge is not None:
                self.stats.pa_deletions += 1
                return edge, OFF
            self.stats.stalls += 1
            self.pa = False  # no priority applies: the search takes over
        return most_constrained(self.g, st), ON

    def count_node(self) -> None:
        self.stats.nodes += 1
        if self.node_limit is not None and self.stats.nodes > self.node_limit:
            raise BudgetExceeded(self.stats.nodes)
        check_stop(self.stop)  # a node costs tens of microseconds: the check is lost in it

    def root(self) -> State | None:
        st = State.initial(self.g)
        queue = list(self.g.hubs)
        try:
            if self.pa and len(self.g.hubs) > 2:
                # the paper's first cut: two 1-hubs joined would be a closed pair
                for e, (a, b) in enumerate(self.g.ends):
                    if self.g.puzzle.clues[a] == 1 and self.g.puzzle.clues[b] == 1:
                        self.deduce(st, e, OFF, queue)
            self.settle(st, queue)
        except Contradiction:
            return None
        return st

    def step(self, st: State, e: Edge, value: int) -> bool:
        """Apply one decision and settle; False on a contradiction."""
        queue: list[Point] = []
        try:
            self.set(st, e, value, queue)
            self.settle(st, queue)
        except Contradiction:
            self.stats.backtracks += 1
            self.pa = False  # the Pruning Algorithm erred: the search takes over
            return False
        return True

    def search(self, start: State) -> None:
        """Depth first from a settled state until max_solutions are found or the tree is done."""
        stack: list[tuple[State, tuple[Edge, int] | None, bool]] = [(start, None, False)]
        while stack:
            st, decision, undo = stack.pop()
            self.count_node()
            if decision is not None:
                if undo and not self.solutions:
                    self.stats.trial_and_error += 1
                if not self.step(st, *decision):
                    continue
            branch = self.choose(st)
            if branch is None:
                self.found(st)
                if len(self.solutions) >= self.max_solutions:
                    return
                continue
            e, first = branch
            self.stats.guesses += 1
            stack.append((st.copy(), (e, ON + OFF - first), True))
            stack.append((st, (e, first), False))

    def found(self, st: State) -> None:
        self.solutions.append([e for e, v in enumerate(st.edge) if v == ON])
        if self.pa:
            self.stats.pa_complete = True
            self.pa = False


def most_constrained(g: Graph, st: State) -> Edge:
    """The open edge whose tighter end has the least slack (then the other end's)."""
    need, free, edge = st.need, st.free, st.edge
    best, chosen = None, -1
    for e, (a, b) in enumerate(g.ends):
        if edge[e] == UNKNOWN:
            sa, sb = free[a] - need[a], free[b] - need[b]
            key = (sa, sb) if sa < sb else (sb, sa)
            if best is None or key < best:
                best, chosen = key, e
    return chosen


def pa_priority(g: Graph, st: State) -> Edge | None:
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

    def ranked_cut(k: int, rank) -> Edge | None:
        best = None
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
    best = None
    for e, x in enumerate(g.cross):  # 3
        if e < x and st.edge[e] == UNKNOWN and st.edge[x] == UNKNOWN:
            sums = [sum(need[q] for q in g.ends[d]) for d in (e, x)]
            if sums[0] != sums[1]:
                cut = (e, x)[sums[1] < sums[0]]
                gap = abs(sums[0] - sums[1])
                if best is None or gap > best[0]:
                    best = (gap, cut)
    if best is not None:
        return best[1]
    for k in range(2, 9):  # 4
        cut = ranked_cut(k, lambda q: -need[q])
        if cut is not None:
            return cut
    return None


# -- solving, checking and splitting


def wire(g: Graph, edges: Sequence[Edge]) -> Wire:
    w = g.puzzle.width
    return [[*divmod(a, w), *divmod(b, w)] for a, b in (g.ends[e] for e in edges)]


def _outcome(run: Run, clock: Stopwatch, subtasks: int = 0) -> Outcome:
    run.stats.elapsed_ms = clock.ms()
    run.stats.subtasks = subtasks
    found = len(run.solutions)
    if not found:
        return Outcome(NO_SOLUTION, None, run.stats.as_dict())
    result = {"spokes": wire(run.g, run.solutions[0]), "solutions_found": found,
              "unique": _unique(found, run.max_solutions)}
    return Outcome(SOLVED, result, run.stats.as_dict())


def _unique(found: int, max_solutions: int) -> bool | None:
    """Whether the search proved the answer unique; None when it stopped at the first."""
    if max_solutions == 1:
        return None
    return found == 1


def _run(puzzle: Spokes, options: Options, node_limit: int | None, stop: StopFlag | None = None) -> Run:
    return Run(graph(puzzle), options["strategy"] == "pruning", options["max_solutions"], node_limit, stop)


def solve(puzzle: Spokes, options: Options, node_limit: int | None = None,
          stop: StopFlag | None = None) -> Outcome:
    clock = Stopwatch()
    run = _run(puzzle, options, node_limit, stop)
    start = run.root()
    if start is not None:
        run.search(start)
    check_stop(stop)
    return _outcome(run, clock)


def _replay(run: Run, decisions: Sequence[tuple[Edge, int]]) -> State | None:
    st = run.root()
    for e, value in decisions:
        if st is None or not run.step(st, e, value):
            return None
    return st


def split(puzzle: Spokes, options: Options, parts: int) -> Split:
    """Cut the top of the search tree into up to ``parts`` subtrees, kept in depth-first order.

    Each part is the decision path to one subtree; the first solution over the
    parts in order is the whole search's first solution. The pruning strategy
    is not split: its trial-and-error count is a property of one whole run.
    """
    if options["strategy"] != "search" or parts < 2:
        return Split([], solve(puzzle, options))
    clock = Stopwatch()
    run = _run(puzzle, options, None)
    start = run.root()
    frontier: list[tuple[tuple[tuple[Edge, int], ...], State]] = [] if start is None else [((), start)]
    while len(frontier) < parts:
        branching = [i for i, (_, st) in enumerate(frontier) if st.open]
        if not branching:
            break
        i = min(branching, key=lambda j: len(frontier[j][0]))
        path, st = frontier[i]
        run.count_node()
        e, first = run.choose(st)
        run.stats.guesses += 1
        children = []
        for value in (first, ON + OFF - first):
            child = st.copy()
            if run.step(child, e, value):
                children.append((path + ((e, value),), child))
        frontier[i:i + 1] = children
    if len(frontier) < 2:
        return Split([], solve(puzzle, options))
    w = puzzle.width
    made = [{"decisions": [[*divmod(run.g.ends[e][0], w), *divmod(run.g.ends[e][1], w), value == ON]
                           for e, value in path]} for path, _ in frontier]
    return Split(made, _outcome(run, clock, len(made)))


def solve_part(puzzle: Spokes, options: Options, part: Part, stop: StopFlag | None = None) -> Outcome:
    clock = Stopwatch()
    run = _run(puzzle, options, None, stop)
    g, w = run.g, puzzle.width
    decisions = [(g.index[(r1 * w + c1, r2 * w + c2)], ON if on else OFF)
                 for r1, c1, r2, c2, on in part["decisions"]]
    start = _replay(run, decisions)
    if start is not None:
        run.search(start)
    check_stop(stop)  # also when the replay alone settled the part
    return _outcome(run, clock)


def merge(puzzle: Spokes, options: Options, head: Outcome, outcomes: Sequence[Outcome]) -> Outcome:
    if not outcomes:
        return head
    stats = SpokesStats()
    for name in COUNTERS + ("elapsed_ms",):
        setattr(stats, name, head.stats.get(name, 0) + sum(o.stats.get(name, 0) for o in outcomes))
    stats.subtasks = len(outcomes)
    solved = [o for o in outcomes if o.status == SOLVED]
    if not solved:
        return Outcome(NO_SOLUTION, None, stats.as_dict())
    found = min(sum(o.result["solutions_found"] for o in solved), options["max_solutions"])
    result = {"spokes": solved[0].result["spokes"], "solutions_found": found,
              "unique": _unique(found, options["max_solutions"])}
    return Outcome(SOLVED, result, stats.as_dict())


def cost(puzzle: Spokes, options: Options) -> float:
    """Seconds, from bench/spokes.py: about 10 ms for a hard 10x10 by search, growing with the
    square of the points; the pruning strategy takes a few times longer."""
    points = puzzle.width * puzzle.height
    return points * points * 1e-6 * (4 if options["strategy"] == "pruning" else 1)


def verify(puzzle: Spokes, options: Options, outcome: Outcome) -> None:
    """Check a solved outcome against the five rules, from the puzzle alone.

    A no_solution outcome carries nothing to check beyond its shape: proving
    that no answer exists is the search's own job.
    """
    if outcome.status == NO_SOLUTION:
        if outcome.result is not None:
            raise WrongAnswer("a no_solution outcome must not carry a result")
        return
    if outcome.status != SOLVED or not isinstance(outcome.result, dict):
        raise WrongAnswer(f"unexpected outcome {outcome.status!r} without a result")
    spokes = outcome.result.get("spokes")
    if not isinstance(spokes, list):
        raise WrongAnswer("the result has no list of spokes")
    check_spokes(puzzle, spokes)


def check_spokes(puzzle: Spokes, spokes: Wire) -> None:
    w, h, clues = puzzle.width, puzzle.height, puzzle.clues
    seen: set[tuple[int, int]] = set()
    degree = [0] * (w * h)
    diagonals: set[tuple[int, int, str]] = set()  # (row, column) of the square's top left, which diagonal
    for spoke in spokes:
        if not (isinstance(spoke, list) and len(spoke) == 4 and all(type(x) is int for x in spoke)):
            raise WrongAnswer(f"spoke {spoke!r} is not [r1, c1, r2, c2]")
        r1, c1, r2, c2 = spoke
        if not (0 <= r1 < h and 0 <= r2 < h and 0 <= c1 < w and 0 <= c2 < w):
            raise WrongAnswer(f"spoke {spoke} leaves the {w}x{h} grid")
        p, q = r1 * w + c1, r2 * w + c2
        if not (clues[p] and clues[q]):
            raise WrongAnswer(f"spoke {spoke} touches an empty point")
        if max(abs(r1 - r2), abs(c1 - c2)) != 1:
            raise WrongAnswer(f"spoke {spoke} does not join neighbouring points")
        if (min(p, q), max(p, q)) in seen:
            raise WrongAnswer(f"spoke {spoke} is drawn twice")
        seen.add((min(p, q), max(p, q)))
        degree[p] += 1
        degree[q] += 1
        if r1 != r2 and c1 != c2:
            square = (min(r1, r2), min(c1, c2))
            slope = "\\" if (r2 - r1) == (c2 - c1) else "/"
            if (*square, "/" if slope == "\\" else "\\") in diagonals:
                raise WrongAnswer(f"spoke {spoke} crosses the other diagonal of its square")
            diagonals.add((*square, slope))
    for p in range(w * h):
        if degree[p] != clues[p]:
            raise WrongAnswer(f"hub at row {p // w}, column {p % w} has {degree[p]} spokes, clue {clues[p]}")
    links: dict[int, list[int]] = {}
    for p, q in seen:
        links.setdefault(p, []).append(q)
        links.setdefault(q, []).append(p)
    hubs = [p for p in range(w * h) if clues[p]]
    reached, todo = {hubs[0]}, [hubs[0]]
    while todo:
        for q in links.get(todo.pop(), ()):
            if q not in reached:
                reached.add(q)
                todo.append(q)
    if len(reached) != len(hubs):
        raise WrongAnswer(f"the spokes leave {len(hubs) - len(reached)} hub(s) cut off from the rest")


# -- random instances


def generate(width: int, height: int, seed: int, extra: float = 0.5) -> Spokes:
    """A solvable puzzle: a random non-crossing spanning tree plus a share of extra spokes.

    Orthogonal edges never cross, so Kruskal's join over shuffled candidates
    always spans the grid; ``extra`` of the remaining non-crossing candidates
    are then drawn too, and the clues are the degrees.
    """
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE) or width * height < 2:
        raise InvalidOption(f"cannot generate a {width}x{height} spokes grid")
    g = graph(Spokes(width, height, (1,) * (width * height)))
    rng = random.Random(seed)
    order = list(range(len(g.ends)))
    rng.shuffle(order)
    parent = list(range(width * height))

    def find(p: Point) -> Point:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    drawn = [False] * len(g.ends)

    def free_of_crossing(e: Edge) -> bool:
        return g.cross[e] < 0 or not drawn[g.cross[e]]

    for e in order:
        a, b = (find(p) for p in g.ends[e])
        if a != b and free_of_crossing(e):
            parent[a] = b
            drawn[e] = True
    for e in order:
        if not drawn[e] and free_of_crossing(e) and rng.random() < extra:
            drawn[e] = True
    degree = [0] * (width * height)
    for e, (a, b) in enumerate(g.ends):
        if drawn[e]:
            degree[a] += 1
            degree[b] += 1
    return Spokes(width, height, tuple(degree))


# -- the record

EXAMPLE = "1 1 3 3\n1 3 2 4\n1 7 3 3\n1 1 1 1"

KIND = Kind(
    name="spokes",
    summary="Spokes: join every hub to its neighbours with as many non-crossing spokes as its number, "
            "all hubs in one connected group",
    input_format="rows of hub numbers 0-8 separated by spaces, one row per line ('.' or 0 = no hub); "
                 "or x-sheep's game id 'WxH:DIGITS'; '#' lines are comments, an optional first line "
                 "'spokes WxH' gives the size",
    options=(
        Option("strategy", str, "search", "search: propagation and branching; pruning: the paper's "
               "Pruning Algorithm, with the search as its fallback", choices=("search", "pruning")),
        Option("max_solutions", int, 2, "stop after this many solutions (2 proves uniqueness)",
               minimum=1, maximum=100),
    ),
    result_fields={"spokes": "[[r1, c1, r2, c2], ...]: the spokes, 0-based, in canonical order",
                   "solutions_found": "solutions met, at most max_solutions",
                   "unique": "true when proved unique, false when not, null when max_solutions is 1"},
    stats_fields={
        "guesses": "branching decisions", "backtracks": "decisions that met a contradiction",
        "pruned": "edges deleted by deduction",
        "probed": "search: edges decided because the other value failed at once",
        "nodes": "search nodes", "elapsed_ms": "wall time",
        "pa_complete": "pruning: the Pruning Algorithm alone reached the first solution "
                       "(no contradiction, no stall); null for search",
        "pa_deletions": "pruning: edges deleted by the paper's priorities",
        "trial_and_error": "decisions undone before the first solution (the paper's trial and error)",
        "stalls": "pruning: times no priority applied, so the search took over",
        "subtasks": "parts the solve was split into",
    },
    parse=parse,
    validate=validate,
    solve=solve,
    verify=verify,
    cost=cost,
    plan=split_past_budget,
    split=split,
    solve_part=solve_part,
    merge=merge,
    examples=(
        Example(EXAMPLE),
        Example(EXAMPLE, {"strategy": "pruning"}),
        Example("6x6:113143213353154621453162122245115111"),
        Example("1 1\n1 1", status=NO_SOLUTION),
    ),
    bad_examples=(
        BadExample("3 . 2\n2 4 3\n1 3 2", error=InvalidPuzzle),
        BadExample("1 2\n1", error=ParseError),
        BadExample("1 a\n1 1", error=ParseError),
        BadExample("1 1\n1 2", error=InvalidPuzzle),
        BadExample(EXAMPLE, {"strategy": "guess"}, error=InvalidOption),
        BadExample(["1 1", "1 1"], error=ParseError),
    ),
)
