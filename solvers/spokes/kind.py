"""Spokes (x-sheep's puzzle): join the hubs of a grid with non-crossing spokes.

The kind: the wire form, validation, the record, the answer check, the choice
of strategy and a generator. The search (graph, state, deduction rules) is in
``spokes_search``, the paper's Pruning Algorithm in ``spokes_pruning``, the
SAT strategy in ``spokes_sat``.

Glossary
  point    a grid point (r, c), numbered ``p = r * width + c``; row 0 is the top.
  hub      a point with a clue 1-8; clue 0 (``.``) is an empty point, not a hub.
  clue     how many spokes leave a hub.
  spoke    a drawn edge between two hubs at Chebyshev distance 1.
  wire     the API shape: ``{"spokes": [[r1, c1, r2, c2], ...]}``, 0-based, in
           canonical order (by the first point, then the second).

Strategies:
  auto     the default: the search for a few nodes on small grids, where it is
           fastest, else (and on bigger grids at once) sat; ``stats.strategy``
           names the method that answered, ``stats.abandoned`` what was given up.
  sat      CaDiCaL on the degrees and crossings, connectivity added lazily
           (``spokes_sat``): complete, and immune to early wrong decisions.
  search   every sound deduction (full/saturated hubs, crossing diagonals, a
           closed group that is not everything, bridges of the open graph are
           drawn, failed-literal probing) and the most constrained hub's edge
           as branch, depth first.
  pruning  the paper's Pruning Algorithm (Lee 2024): only its own deductions
           and its deletion priorities #1-#4 as the branch, until its first
           contradiction or stall hands the rest of the tree to the search,
           which also proves uniqueness after the first solution.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    WHOLE,
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
    Plan,
    Settings,
    Split,
    StopFlag,
    Stopwatch,
    WrongAnswer,
    check_stop,
    split_past_budget,
)
from solvers.spokes import pruning as spokes_pruning
from solvers.spokes import sat as spokes_sat
from solvers.spokes.search import (
    COUNTERS,
    OFF,
    ON,
    Decision,
    Edge,
    Graph,
    Node,
    Point,
    Search,
    SpokesStats,
    State,
)
from solvers.spokes.search import graph as _graph

Wire = list[list[int]]  # [[r1, c1, r2, c2], ...]

Finished = Search | spokes_sat.SatRun  # a strategy's run: its graph, stats and solutions

MAX_SIDE = 40
AUTO_SEARCH_POINTS = 100  # auto: grids up to 10x10 try the search first ...
AUTO_SEARCH_NODES = 32  # ... for this many nodes (x-sheep's instances need at most 21)


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




def graph(puzzle: Spokes) -> Graph:
    return _graph(puzzle.width, puzzle.height, puzzle.clues)



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



# -- solving and splitting


def wire(g: Graph, edges: Sequence[Edge]) -> Wire:
    w = g.width
    return [[*divmod(a, w), *divmod(b, w)] for a, b in (g.ends[e] for e in edges)]


def _outcome(run: Finished, clock: Stopwatch, subtasks: int = 0) -> Outcome:
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


def solve(puzzle: Spokes, options: Options, node_limit: int | None = None,
          stop: StopFlag | None = None) -> Outcome:
    """Solve by the strategy asked for; ``node_limit`` bounds the search and pruning strategies
    (auto and sat have budgets of their own and never raise BudgetExceeded)."""
    clock = Stopwatch()
    g, most, strategy = graph(puzzle), options["max_solutions"], options["strategy"]
    run: Finished
    abandoned: list[dict[str, Any]] = []
    if strategy == "auto":
        run, strategy, abandoned = _auto(puzzle, g, most, stop)
    elif strategy == "sat":
        run = spokes_sat.SatRun(g, most, stop).run()
    elif strategy == "pruning":
        run = spokes_pruning.solve(g, most, node_limit, stop)
    else:
        run = Search(g, most, node_limit, stop).run()
    check_stop(stop)
    run.stats.strategy, run.stats.abandoned = strategy, abandoned
    return _outcome(run, clock)


def _auto(puzzle: Spokes, g: Graph, most: int, stop: StopFlag | None
          ) -> tuple[Finished, str, list[dict[str, Any]]]:
    """The search where it is cheapest (small grids, settled in a few nodes), SAT elsewhere.

    Measured (bench/spokes.py): the search answers x-sheep's instances (up to
    10x10) in at most 21 nodes, a few milliseconds faster than SAT; on grids
    with many solutions SAT is faster from 6x6 on, 10x faster at 15x15, and on
    bigger grids one early wrong decision can cost the search minutes, while
    SAT's clause learning answers every size up to 40x40 in under a second.
    So the search gets AUTO_SEARCH_NODES nodes on grids up to 10x10, and SAT
    the rest, complete, with the same uniqueness semantics.
    """
    if puzzle.width * puzzle.height > AUTO_SEARCH_POINTS:
        return spokes_sat.SatRun(g, most, stop).run(), "sat", []
    clock = Stopwatch()
    attempt = Search(g, most, AUTO_SEARCH_NODES, stop)
    try:
        return attempt.run(), "search", []
    except BudgetExceeded:
        tried = {"strategy": "search", "nodes": attempt.stats.nodes, "elapsed_ms": clock.ms()}
        return spokes_sat.SatRun(g, most, stop).run(), "sat", [tried]


def _replay(run: Search, decisions: Sequence[Decision]) -> State | None:
    st = run.root()
    for decision in decisions:
        if st is None or not run.step(st, decision):
            return None
    return st


def plan(puzzle: Spokes, options: Options, settings: Settings) -> Plan:
    """Only the search's tree is split, once it outgrows the node budget; auto and sat answer
    whole, and the pruning strategy's trial-and-error count belongs to one whole run."""
    if options["strategy"] != "search":
        return WHOLE
    return split_past_budget(puzzle, options, settings)


def split(puzzle: Spokes, options: Options, parts: int) -> Split:
    """Cut the top of the search tree into up to ``parts`` subtrees, kept in depth-first order.

    Each part is the decision path to one subtree; the first solution over the
    parts in order is the whole search's first solution. The pruning strategy
    is not split: its trial-and-error count is a property of one whole run.
    """
    if options["strategy"] != "search" or parts < 2:
        return Split([], solve(puzzle, options))
    clock = Stopwatch()
    run = Search(graph(puzzle), options["max_solutions"])
    start = run.root()
    frontier: list[tuple[tuple[Decision, ...], State]] = [] if start is None else [((), start)]
    while len(frontier) < parts:
        branching = [i for i, (_, st) in enumerate(frontier) if st.open]
        if not branching:
            break
        i = min(branching, key=lambda j: len(frontier[j][0]))
        path, st = frontier[i]
        run.count_node()
        decision = run.choose(st)
        assert decision is not None  # the state is open
        frontier[i:i + 1] = _settled_children(run, path, run.expand(st, decision))
    if len(frontier) < 2:
        return Split([], solve(puzzle, options))
    w = puzzle.width
    made = [{"decisions": [[*divmod(run.g.ends[e][0], w), *divmod(run.g.ends[e][1], w), value == ON]
                           for e, value in path]} for path, _ in frontier]
    return Split(made, _outcome(run, clock, len(made)))


def _settled_children(run: Search, path: tuple[Decision, ...], children: list[Node]
                      ) -> list[tuple[tuple[Decision, ...], State]]:
    """The children that survive their decision, in the order the search would meet them."""
    settled = []
    for child, decision, _ in reversed(children):
        assert decision is not None
        if run.step(child, decision):
            settled.append(((*path, decision), child))
    return settled


def solve_part(puzzle: Spokes, options: Options, part: Part, stop: StopFlag | None = None) -> Outcome:
    clock = Stopwatch()
    run = Search(graph(puzzle), options["max_solutions"], None, stop)
    g, w = run.g, puzzle.width
    decisions = [(g.index[(r1 * w + c1, r2 * w + c2)], ON if on else OFF)
                 for r1, c1, r2, c2, on in part["decisions"]]
    start = _replay(run, decisions)
    if start is not None:
        run.search([(start, None, False)])
    check_stop(stop)  # also when the replay alone settled the part
    return _outcome(run, clock)


def merge(puzzle: Spokes, options: Options, head: Outcome, outcomes: Sequence[Outcome]) -> Outcome:
    if not outcomes:
        return head
    stats = SpokesStats()
    for name in (*COUNTERS, "elapsed_ms"):
        setattr(stats, name, head.stats.get(name, 0) + sum(o.stats.get(name, 0) for o in outcomes))
    stats.subtasks = len(outcomes)
    stats.strategy = head.stats.get("strategy", "")
    solved = [o.result for o in outcomes if o.status == SOLVED and o.result is not None]
    if not solved:
        return Outcome(NO_SOLUTION, None, stats.as_dict())
    found = min(sum(r["solutions_found"] for r in solved), options["max_solutions"])
    result = {"spokes": solved[0]["spokes"], "solutions_found": found,
              "unique": _unique(found, options["max_solutions"])}
    return Outcome(SOLVED, result, stats.as_dict())


def cost(puzzle: Spokes, options: Options) -> float:
    """Seconds, from bench/spokes.py: sat (and so auto) about 0.15 ms per point, 0.15 s for a
    30x30; the search about 10 ms for a hard 10x10, growing with the square of the points when
    it does not hang, the pruning strategy a few times longer."""
    points = puzzle.width * puzzle.height
    if options["strategy"] in ("auto", "sat"):
        return points * 1.5e-4
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


def generate(width: int, height: int, seed: int, extra: float = 0.5, unique: bool = False) -> Spokes:
    """A solvable puzzle: a random non-crossing spanning tree plus a share of extra spokes.

    Orthogonal edges never cross, so Kruskal's join over shuffled candidates
    always spans the grid; ``extra`` of the remaining non-crossing candidates
    are then drawn too, and the clues are the degrees. With ``unique`` the
    drawing is then repaired until it is the only solution: while the SAT
    strategy finds another one, one edge where the two differ is taken out of
    (if the drawing stays connected) or put into (if it crosses nothing) the
    drawing, which changes two clues so that the other solution no longer fits.
    """
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE) or width * height < 2:
        raise InvalidOption(f"cannot generate a {width}x{height} spokes grid")
    g = graph(Spokes(width, height, (1,) * (width * height)))
    rng = random.Random(seed)
    drawn = _random_drawing(g, rng, extra)
    while unique and (other := _another_solution(g, drawn)) is not None:
        _repair(g, drawn, other, rng)
    return Spokes(width, height, _degrees(g, drawn))


def _random_drawing(g: Graph, rng: random.Random, extra: float) -> list[bool]:
    order = list(range(len(g.ends)))
    rng.shuffle(order)
    parent = list(range(len(g.clues)))

    def find(p: Point) -> Point:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    drawn = [False] * len(g.ends)
    for e in order:
        a, b = (find(p) for p in g.ends[e])
        if a != b and _crosses_nothing(g, drawn, e):
            parent[a] = b
            drawn[e] = True
    for e in order:
        if not drawn[e] and _crosses_nothing(g, drawn, e) and rng.random() < extra:
            drawn[e] = True
    return drawn


def _crosses_nothing(g: Graph, drawn: list[bool], e: Edge) -> bool:
    return g.cross[e] < 0 or not drawn[g.cross[e]]


def _degrees(g: Graph, drawn: list[bool]) -> tuple[int, ...]:
    degree = [0] * len(g.clues)
    for e, (a, b) in enumerate(g.ends):
        if drawn[e]:
            degree[a] += 1
            degree[b] += 1
    return tuple(degree)


def _another_solution(g: Graph, drawn: list[bool]) -> set[Edge] | None:
    """A solution of the drawing's clues other than the drawing, or None when it is unique.
    Every point is a hub (the drawing spans the grid), so the puzzle's edges are g's."""
    mine = {e for e, on in enumerate(drawn) if on}
    clues = _degrees(g, drawn)
    width, height = g.width, len(clues) // g.width
    found = spokes_sat.SatRun(graph(Spokes(width, height, clues)), 2).run().solutions
    return next((set(s) for s in found if set(s) != mine), None)


def _repair(g: Graph, drawn: list[bool], other: set[Edge], rng: random.Random) -> None:
    """Toggle one edge in each region where the drawing and the other solution differ (see
    generate): the regions are independent ambiguities, so one round settles them all."""
    mine = {e for e, on in enumerate(drawn) if on}
    differ = sorted(other ^ mine)
    rng.shuffle(differ)
    regions = spokes_sat.groups(g, differ)
    region = {p: k for k, hubs in enumerate(regions) for p in hubs}
    done: set[int] = set()
    for e in differ:
        k = region[g.ends[e][0]]
        if k not in done and _toggle(g, drawn, e):
            done.add(k)
    if not done:
        raise AssertionError("two different solutions always differ in an edge that can be toggled")


def _toggle(g: Graph, drawn: list[bool], e: Edge) -> bool:
    """Draw or erase e unless that crosses a spoke or cuts the drawing in two."""
    drawn[e] = not drawn[e]
    if drawn[e] and _crosses_nothing(g, drawn, e):
        return True
    if not drawn[e] and len(spokes_sat.groups(g, [d for d, on in enumerate(drawn) if on])) == 1:
        return True
    drawn[e] = not drawn[e]
    return False


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
        Option("strategy", str, "auto", "auto: the search for a few nodes on grids up to 10x10, else "
               "(and on bigger grids at once) sat; search: propagation and branching; pruning: the paper's "
               "Pruning Algorithm, with the search as its fallback; sat: CaDiCaL on degrees and crossings, "
               "connectivity added cut by cut", choices=("auto", "search", "pruning", "sat")),
        Option("max_solutions", int, 2, "stop after this many solutions (2 proves uniqueness)",
               minimum=1, maximum=100),
    ),
    result_fields={"spokes": "[[r1, c1, r2, c2], ...]: the spokes, 0-based, in canonical order",
                   "solutions_found": "solutions met, at most max_solutions",
                   "unique": "true when proved unique, false when not, null when max_solutions is 1"},
    stats_fields={
        "guesses": "branching decisions", "backtracks": "decisions that met a contradiction (sat: conflicts)",
        "pruned": "edges deleted by deduction",
        "probed": "search: edges decided because the other value failed at once",
        "nodes": "search nodes (sat: the solver's decisions)", "elapsed_ms": "wall time",
        "sat_calls": "sat: solver calls (one per connectivity round and per solution)",
        "cuts": "sat: connectivity clauses added (one per separate group of a disconnected model)",
        "strategy": "the method that answered: search, pruning or sat",
        "abandoned": "what auto tried first and gave up: [{strategy, nodes, elapsed_ms}]",
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
    plan=plan,
    split=split,
    solve_part=solve_part,
    merge=merge,
    examples=(
        Example(EXAMPLE),
        Example(EXAMPLE, {"strategy": "pruning"}),
        Example(EXAMPLE, {"strategy": "sat"}),
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
