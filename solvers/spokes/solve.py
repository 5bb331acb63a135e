"""Solving Spokes by strategy (see kind.py): ``auto``'s choice, and the search's tree split into
parts, the parts searched and merged."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from solvers.base import (
    NO_SOLUTION,
    SOLVED,
    WHOLE,
    BudgetExceeded,
    Options,
    Outcome,
    Part,
    Plan,
    Settings,
    Split,
    StopFlag,
    Stopwatch,
    check_stop,
    split_past_budget,
)
from solvers.spokes import pruning, sat
from solvers.spokes.puzzle import Spokes, graph, wire
from solvers.spokes.search import COUNTERS, OFF, ON, Decision, Graph, Node, Search, SpokesStats, State

Finished = Search | sat.SatRun  # a strategy's run: its graph, stats and solutions

AUTO_SEARCH_POINTS = 100  # auto: grids up to 10x10 try the search first ...
AUTO_SEARCH_NODES = 32  # ... for this many nodes (x-sheep's instances need fewer)


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
        run = sat.SatRun(g, most, stop).run()
    elif strategy == "pruning":
        run = pruning.solve(g, most, node_limit, stop)
    else:
        run = Search(g, most, node_limit, stop).run()
    check_stop(stop)
    run.stats.strategy, run.stats.abandoned = strategy, abandoned
    return _outcome(run, clock)


def _auto(puzzle: Spokes, g: Graph, most: int, stop: StopFlag | None
          ) -> tuple[Finished, str, list[dict[str, Any]]]:
    """The search where it is cheapest (small grids, settled in a few nodes), SAT elsewhere.

    On small grids the search answers in a handful of nodes, faster than SAT; on bigger grids
    one early wrong decision can cost the search minutes, while SAT's clause learning answers
    every size (bench/spokes.py measures both). So the search gets AUTO_SEARCH_NODES nodes on
    grids up to AUTO_SEARCH_POINTS points, and SAT the rest, complete, with the same uniqueness
    semantics.
    """
    if puzzle.width * puzzle.height > AUTO_SEARCH_POINTS:
        return sat.SatRun(g, most, stop).run(), "sat", []
    clock = Stopwatch()
    attempt = Search(g, most, AUTO_SEARCH_NODES, stop)
    try:
        return attempt.run(), "search", []
    except BudgetExceeded:
        tried = {"strategy": "search", "nodes": attempt.stats.nodes, "elapsed_ms": clock.ms()}
        return sat.SatRun(g, most, stop).run(), "sat", [tried]


def _replay(run: Search, decisions: Sequence[Decision]) -> State | None:
    st = run.root()
    for decision in decisions:
        if st is None or not run.step(st, decision):
            return None
    return st


# -- splitting


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
