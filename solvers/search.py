"""Generic state-space search, written once over a small Problem interface.

Terms of this module (shared terms: docs/glossary.md)
  state      any hashable value a Problem understands.
  action     a label for one move; ``result(state, action)`` is the next state.
  path       the list of actions from the initial state to a goal.
  OPEN       the frontier: generated states not yet expanded (deque, stack or heap).
  CLOSED     states already expanded, kept in a hash set or dict (never a list).
  generated  states created, the root included (Korf's convention).
  expanded   states whose successors were generated.
  budget     ``max_nodes``: the search stops with :class:`NodeLimitReached`
             once it has generated more states than that.

The algorithms are plain Python and know nothing of any puzzle; a kind that
needs more speed writes a kernel for its own inner loop and keeps these as the
reference it is tested against.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from solvers.base import BudgetExceeded, Stopwatch

State = Hashable
Action = Any


class Problem:
    """What a search needs to know about a puzzle (aima-python's shape)."""

    initial: State

    def actions(self, state: State) -> Iterable[Action]:
        raise NotImplementedError

    def result(self, state: State, action: Action) -> State:
        raise NotImplementedError

    def is_goal(self, state: State) -> bool:
        raise NotImplementedError

    def step_cost(self, state: State, action: Action, next_state: State) -> int:
        return 1

    def h(self, state: State) -> int:
        """An admissible estimate of the cost to a goal; 0 makes A* a uniform-cost search."""
        return 0


class SearchLimitReached(BudgetExceeded):
    """The search hit a limit it was given before reaching a goal; this proves nothing."""

    def __init__(self, nodes: int, message: str, stats: dict[str, Any]):
        super().__init__(nodes)
        self.args = (message,)
        self.stats = stats


class NodeLimitReached(SearchLimitReached):
    def __init__(self, nodes: int, algorithm: str, stats: dict[str, Any]):
        super().__init__(nodes, f"{algorithm} stopped after generating {nodes:,} states "
                         f"without reaching the goal (node budget exhausted)", stats)


class DepthLimitReached(SearchLimitReached):
    def __init__(self, max_depth: int, stats: dict[str, Any]):
        super().__init__(stats["generated"], f"no goal within {max_depth} moves "
                         f"(depth bound exhausted)", stats)
        self.max_depth = max_depth


@dataclass
class SearchResult:
    """``path`` is None when the goal is unreachable (the whole space was searched)."""

    path: list[Action] | None
    cost: int | None
    optimal: bool
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Counter:
    algorithm: str
    max_nodes: int | None
    generated: int = 0
    expanded: int = 0
    max_frontier: int = 0
    clock: Stopwatch = field(default_factory=Stopwatch)

    def generate(self, count: int = 1) -> None:
        self.generated += count
        if self.max_nodes is not None and self.generated > self.max_nodes:
            raise NodeLimitReached(self.generated, self.algorithm, self.stats())

    def frontier(self, size: int) -> None:
        self.max_frontier = max(self.max_frontier, size)

    def stats(self) -> dict[str, Any]:
        return {"expanded": self.expanded, "generated": self.generated,
                "max_frontier": self.max_frontier, "elapsed_ms": self.clock.ms()}


def _successors(problem: Problem, state: State) -> Iterable[tuple[Action, State]]:
    for action in problem.actions(state):
        yield action, problem.result(state, action)


def _walk_back(parents: dict[State, tuple[State, Action] | None], state: State) -> list[Action]:
    path = []
    while (parent := parents[state]) is not None:
        state, action = parent
        path.append(action)
    path.reverse()
    return path


def _path_cost(problem: Problem, path: list[Action]) -> int:
    cost, state = 0, problem.initial
    for action in path:
        following = problem.result(state, action)
        cost += problem.step_cost(state, action, following)
        state = following
    return cost


def breadth_first(problem: Problem, max_nodes: int | None = None) -> SearchResult:
    """FIFO OPEN, goal test on generation: the fewest actions (optimal for unit costs)."""
    count = _Counter("bfs", max_nodes)
    count.generate()
    if problem.is_goal(problem.initial):
        return SearchResult([], 0, True, count.stats())
    # parents doubles as CLOSED + OPEN membership: a state is in it once generated
    parents: dict[State, tuple[State, Action] | None] = {problem.initial: None}
    frontier = deque([problem.initial])
    while frontier:
        count.frontier(len(frontier))
        state = frontier.popleft()
        count.expanded += 1
        for action, child in _successors(problem, state):
            if child in parents:
                continue
            count.generate()
            parents[child] = (state, action)
            if problem.is_goal(child):
                path = _walk_back(parents, child)
                return SearchResult(path, _path_cost(problem, path), True, count.stats())
            frontier.append(child)
    return SearchResult(None, None, True, count.stats())


def depth_first(problem: Problem, max_depth: int | None = None,
                max_nodes: int | None = None) -> SearchResult:
    """LIFO OPEN with CLOSED: finds *a* path, usually far from the shortest.

    With ``max_depth`` a state met again by a shorter path is searched again,
    so the bounded search misses no goal within the bound; an exhausted bound
    raises :class:`DepthLimitReached` (it proves nothing about the puzzle).
    """
    count = _Counter("dfs", max_nodes)
    count.generate()
    depth_of: dict[State, int] = {problem.initial: 0}
    parents: dict[State, tuple[State, Action] | None] = {problem.initial: None}
    stack = [problem.initial]
    cut_off = False
    while stack:
        count.frontier(len(stack))
        state = stack.pop()
        if problem.is_goal(state):
            path = _walk_back(parents, state)
            return SearchResult(path, _path_cost(problem, path), False, count.stats())
        depth = depth_of[state]
        if max_depth is not None and depth >= max_depth:
            cut_off = True
            continue
        count.expanded += 1
        for action, child in _successors(problem, state):
            known = depth_of.get(child)
            if known is not None and (max_depth is None or known <= depth + 1):
                continue
            count.generate()
            depth_of[child] = depth + 1
            parents[child] = (state, action)
            stack.append(child)
    if cut_off and max_depth is not None:  # only a depth limit cuts off
        raise DepthLimitReached(max_depth, count.stats())
    return SearchResult(None, None, False, count.stats())


def astar(problem: Problem, max_nodes: int | None = None) -> SearchResult:
    """Best-first on f = g + h; optimal when h is admissible and consistent."""
    count = _Counter("astar", max_nodes)
    count.generate()
    tie = itertools.count()  # FIFO among equal f, and states are never compared
    start = problem.initial
    best_g: dict[State, int] = {start: 0}
    parents: dict[State, tuple[State, Action] | None] = {start: None}
    frontier = [(problem.h(start), next(tie), 0, start)]
    closed: set[State] = set()
    while frontier:
        count.frontier(len(frontier))
        _, _, g, state = heapq.heappop(frontier)
        if state in closed or g > best_g[state]:
            continue  # a stale heap entry: the state was reached more cheaply since
        if problem.is_goal(state):
            return SearchResult(_walk_back(parents, state), g, True, count.stats())
        closed.add(state)
        count.expanded += 1
        for action, child in _successors(problem, state):
            child_g = g + problem.step_cost(state, action, child)
            if child in closed or child_g >= best_g.get(child, math.inf):
                continue
            count.generate()
            best_g[child] = child_g
            parents[child] = (state, action)
            heapq.heappush(frontier, (child_g + problem.h(child), next(tie), child_g, child))
    return SearchResult(None, None, True, count.stats())


def ida_star(problem: Problem, max_nodes: int | None = None) -> SearchResult:
    """Iterative-deepening A*: depth-first passes under a rising f bound, memory linear in depth.

    As in Korf (1985) only the step straight back to the parent is pruned;
    longer cycles are cut by the bound, so a state may be generated many times.
    ``generated`` counts every visit but the root's repeats in later passes,
    as Korf's tables do, and ``max_frontier`` is the longest path held. On a
    problem whose goal is unreachable through an infinite tree it runs until
    the budget is spent.
    """
    count = _Counter("idastar", max_nodes)
    actions: list[Action] = []

    def visit(state: State, parent: State | None, g: int, bound: float) -> float:
        """Search below ``state``; the least f over the bound, or -1 when solved."""
        if parent is not None:
            count.generate()
        count.frontier(len(actions) + 1)
        f = g + problem.h(state)
        if f > bound:
            return f
        if problem.is_goal(state):
            return -1
        count.expanded += 1
        least = math.inf
        for action, child in _successors(problem, state):
            if child == parent:
                continue
            actions.append(action)
            found = visit(child, state, g + problem.step_cost(state, action, child), bound)
            if found == -1:
                return -1
            least = min(least, found)
            actions.pop()
        return least

    bound: float = problem.h(problem.initial)
    count.generate()  # the root, once for all passes (Korf's count)
    while True:
        found = visit(problem.initial, None, 0, bound)
        if found == -1:
            return SearchResult(list(actions), _path_cost(problem, actions), True, count.stats())
        if found == math.inf:
            return SearchResult(None, None, True, count.stats())
        bound = found


ALGORITHMS = {"bfs": breadth_first, "dfs": depth_first, "astar": astar, "idastar": ida_star}
